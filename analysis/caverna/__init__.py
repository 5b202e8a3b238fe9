"""Caverna's analyses (`scores`: scores per player count at a stated search budget; `strength`: the agents'
strength report; `balance`: the balance study) and its analysis hooks `OUTCOME_FIELDS` (points per scoring
category and family size, per seat), `DECISION_FIELDS` (round, kind of move, action space, furnishing),
`report_sections`, `study_report_sections` (the HTML report of a `cavekit caverna-study` folder), `add_commands`
(`cavekit caverna-study`) and `add_strength_parser` (`cavekit strength caverna`; see `cavekit.core.spec`)."""
from __future__ import annotations

from typing import Any

from .decisions import DECISION_FIELDS
from .outcomes import OUTCOME_FIELDS


def report_sections(data: Any) -> list[Any]:
    """The report's Caverna sections: seat advantage, categories, family, action spaces, furnishings, archetypes."""
    from .report import report_sections as sections
    return sections(data)


def study_report_sections(folder: Any) -> list[Any]:
    """The HTML report of a study folder: the summary's parts with their figures."""
    from .study import load_tables
    from .study_summary import report_sections
    return report_sections(load_tables(folder))


def add_commands(sub: Any) -> None:
    """`cavekit caverna-study` (`sub`: the `cavekit` subcommands)."""
    from .commands import add_commands as add
    add(sub)


def add_strength_parser(games: Any) -> None:
    """`cavekit strength caverna` (`games`: the sub-subcommands of `strength`)."""
    from .commands import add_strength_parser as add
    add(games)


__all__ = ["DECISION_FIELDS", "OUTCOME_FIELDS", "add_commands", "add_strength_parser", "report_sections",
           "study_report_sections"]
