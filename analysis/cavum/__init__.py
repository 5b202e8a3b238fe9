"""Cavum's analyses (`bidding`: what turn order is worth and how to bid) and its analysis hooks
`DECISION_FIELDS` (phase, stage, bids and prices per decision) and, for `cavekit serve`, `web_board` (see
`cavekit.core.spec`)."""
from typing import Any

from .decisions import DECISION_FIELDS


def web_board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The mountain as SVG with its clickable cells and city spaces, for `cavekit serve` (see `web.py`)."""
    from .web import board
    return board(state, viewer)


__all__ = ["DECISION_FIELDS", "web_board"]
