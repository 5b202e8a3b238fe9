"""Cavum's analyses (`bidding`: what turn order is worth and how to bid) and its analysis hooks
`DECISION_FIELDS` (phase, stage, bids and prices per decision), `report_sections` and, for `cavekit serve`,
`web_board` (see `cavekit.core.spec`)."""
from __future__ import annotations

from typing import Any

from .decisions import DECISION_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's Cavum sections: bids for turn order, and turn order against results."""
    from .report import report_sections as sections
    return sections(data)


def web_board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The mountain as SVG with its clickable cells and city spaces, for `cavekit serve` (see `web.py`)."""
    from .web import board
    return board(state, viewer)


__all__ = ["DECISION_FIELDS", "report_sections", "web_board"]
