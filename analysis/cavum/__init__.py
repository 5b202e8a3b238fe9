"""Cavum's analyses (`bidding`: what turn order is worth and how to bid) and its analysis hooks
`DECISION_FIELDS` (phase, stage, bids and prices per decision) and `report_sections` (see
`cavekit.core.spec`)."""
from __future__ import annotations

from typing import Any

from .decisions import DECISION_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's Cavum sections: bids for turn order, and turn order against results."""
    from .report import report_sections as sections
    return sections(data)


__all__ = ["DECISION_FIELDS", "report_sections"]
