"""The Cave's analyses (`study`: seat advantage, value of hand information, deciding ranks; `strength`) and
its analysis hooks `OUTCOME_FIELDS` (majority points per rank, per seat), `report_sections` and, for
`cavekit serve`, `web_board` and `web_score_breakdown` (see `cavekit.core.spec`)."""
from __future__ import annotations

from typing import Any

from .outcomes import OUTCOME_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's sections for The Cave: seat order and the points per rank of captured cards."""
    from .report import report_sections as sections
    return sections(data)


def web_board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The position as `viewer` may see it, as SVG with the viewer's clickable cards (see `web.py`)."""
    from .web import board
    return board(state, viewer)


def web_score_breakdown(state: Any) -> list[dict[str, Any]]:
    """Each seat's points by round and its total, for the browser's end-of-game table (see `web.py`)."""
    from .web import score_breakdown
    return score_breakdown(state)


__all__ = ["OUTCOME_FIELDS", "report_sections", "web_board", "web_score_breakdown"]
