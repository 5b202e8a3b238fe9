"""Cave vs Cave's analyses and its analysis hooks (see `cavekit.core.spec`).

Studies: `strength` (the agents' strength report), `room_values` (room regressions and the paired room-ban
experiment), `openings` (opening trees), `sensitivity` (how conclusions move with the search budget), `tune`
(evaluation weights); `balance` holds the action-tile and room tables, `report` the report sections.
"""
from __future__ import annotations

from typing import Any

from .decisions import DECISION_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's Cave vs Cave sections: action tiles, rooms and (solo) the 50/60-point marks."""
    from .report import report_sections as sections
    return sections(data)


def add_commands(sub: Any) -> None:
    """The `room-bans` and `openings` subcommands (`sub`: what `add_subparsers()` returned)."""
    from .commands import add_commands as add
    add(sub)


def add_strength_parser(games: Any) -> None:
    """`cavekit strength cvc` (`games`: the sub-subcommands of `strength`)."""
    from .commands import add_strength_parser as add
    add(games)


def web_board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The position as SVG with its clickable targets, for `cavekit serve` (see `web.py`)."""
    from .web import board
    return board(state, viewer)


def web_score_breakdown(state: Any) -> list[dict[str, Any]]:
    """Where each player's points came from, for the browser's end-of-game table (see `web.py`)."""
    from .web import score_breakdown
    return score_breakdown(state)


__all__ = ["DECISION_FIELDS", "add_commands", "add_strength_parser", "report_sections", "web_board", "web_score_breakdown"]
