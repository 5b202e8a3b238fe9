"""Extra per-game result columns, computed from a finished game's final state.

A games row (`analysis/batch.py` `play_game`) holds what every game shares: agents, scores, returns, the
winner, length. A game with more to say about how a game was won declares `OUTCOME_FIELDS` among its
analysis hooks (as `DECISION_FIELDS` does for decision rows, `analysis/decisions.py`); a game without them
gets no extra columns. Results folders record which outcome columns their chunks carry
(`analysis/results.py`), so folders written before a game had outcome columns still load.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pyarrow as pa

from ..core.api import Game, State
from ..core.registry import game_spec

Columns = tuple[tuple[str, pa.DataType], ...]


@dataclass(frozen=True)
class OutcomeFields:
    """A game's extra games-table columns: their names and types for a player count, and their values."""

    columns: Callable[[int], Columns]                    # players -> ((name, Arrow type), ...)
    values: Callable[[Game, State], dict[str, Any]]      # (game, final state) -> {name: value}


def fields_for(game_name: str) -> OutcomeFields | None:
    """The outcome fields the game's analysis hooks declare (`OUTCOME_FIELDS`), or None."""
    return game_spec(game_name).analysis_hook("OUTCOME_FIELDS")


def outcome_columns(game_name: str, players: int) -> Columns:
    """The extra games-table columns of a game with `players` seats (none when the game declares none)."""
    fields = fields_for(game_name)
    return fields.columns(players) if fields else ()


def outcome_values(game: Game, state: State) -> dict[str, Any]:
    """The extra games-table values of a finished game (empty when the game declares none)."""
    fields = fields_for(game.name)
    return fields.values(game, state) if fields else {}
