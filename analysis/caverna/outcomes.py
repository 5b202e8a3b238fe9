"""Caverna's extra games-table columns (its `OUTCOME_FIELDS`): each seat's points per scoring category and
its family size at the end.

`category_points_{p}`: a list of ints per seat p, the points of each scoring category in the rules data's
order (`CATEGORIES`: animals, missing farm animal types, grain, ... begging; they add up to the seat's
score); `dwarfs_{p}`: the seat's family size (dwarfs) when the game ended. Both come from the engine's own
score sheet (`state.score_sheet(p)`) and scoring summary (`state.summary(p)`).
"""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ...core.api import Game, State
from ...core.caverna.rules import rules
from ..outcomes import Columns, OutcomeFields

CATEGORIES: tuple[str, ...] = tuple(c.id for c in rules().scoring)


def _caverna_columns(players: int) -> Columns:
    return tuple(column for p in range(players)
                 for column in ((f"category_points_{p}", pa.list_(pa.int32())), (f"dwarfs_{p}", pa.int32())))


def _caverna_values(game: Game, state: State) -> dict[str, Any]:
    values: dict[str, Any] = {}
    scores = state.scores()
    for p in range(game.num_players):
        sheet = state.score_sheet(p)  # type: ignore[attr-defined]
        points = [int(sheet.categories[c]) for c in CATEGORIES]
        if sum(points) != scores[p]:
            raise RuntimeError(f"seat {p}: the categories add up to {sum(points)}, not its score {scores[p]}")
        values[f"category_points_{p}"] = points
        values[f"dwarfs_{p}"] = int(state.summary(p).dwarfs)  # type: ignore[attr-defined]
    return values


OUTCOME_FIELDS = OutcomeFields(columns=_caverna_columns, values=_caverna_values)
