"""The Cave's analyses (`study`: seat advantage, value of hand information, deciding ranks; `strength`) and
its analysis hooks `OUTCOME_FIELDS` (majority points per rank, per seat) and `report_sections` (see
`cavekit.core.spec`)."""
from __future__ import annotations

from typing import Any

from .outcomes import OUTCOME_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's sections for The Cave: seat order and the points per rank of captured cards."""
    from .report import report_sections as sections
    return sections(data)


__all__ = ["OUTCOME_FIELDS", "report_sections"]
