"""Caverna's analyses (`scores`: scores per player count at a stated search budget) and its analysis hooks
`OUTCOME_FIELDS` (points per scoring category and family size, per seat) and `report_sections` (see
`cavekit.core.spec`)."""
from __future__ import annotations

from typing import Any

from .outcomes import OUTCOME_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's Caverna sections: points per scoring category, and family size."""
    from .report import report_sections as sections
    return sections(data)


__all__ = ["OUTCOME_FIELDS", "report_sections"]
