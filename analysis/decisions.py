"""One row per player decision: the columns every game shares, plus a small table of per-game fields.

Every decision row holds the game index, the ply (its position in the game's full history, chance outcomes
included), the decision number within the game, the player, that seat's agent spec, the action id and its
notation. A game with more to say about a move declares `DECISION_FIELDS` among its analysis hooks (its
spec's `analysis` module: Cave vs Cave's round, turn, tile taken, rooms used and furnished; Cavum's phase,
stage, bids and prices); a game without them gets `GENERIC_FIELDS` (the player's score after the action).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pyarrow as pa

from ..core.api import Game, State
from ..core.registry import game_spec

COMMON_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("game", pa.int64()),            # game index in the match
    ("ply", pa.int32()),             # index of the action in the game's history (chance outcomes count)
    ("decision", pa.int32()),        # index of the decision among the game's player decisions
    ("player", pa.int32()),          # seat that decided
    ("agent", pa.string()),          # spec of the agent in that seat
    ("action", pa.int32()),          # action id
    ("action_text", pa.string()),    # the game's notation of the action
)


@dataclass(frozen=True)
class DecisionFields:
    """Game-specific decision columns: some read before the action is applied, some after it."""

    before_columns: tuple[tuple[str, pa.DataType], ...]
    before: Callable[[State, int, int], tuple[Any, ...]]    # (state, player, action) -> values
    after_columns: tuple[tuple[str, pa.DataType], ...]
    after: Callable[[State, int], tuple[Any, ...]]          # (state after the action, player) -> values

    @property
    def columns(self) -> tuple[tuple[str, pa.DataType], ...]:
        return self.before_columns + self.after_columns


def _nothing(state: State, player: int, action: int) -> tuple[Any, ...]:
    return ()


def score_after(state: State, player: int) -> tuple[Any, ...]:
    """The player's score right after the action (the generic decision column)."""
    return (int(state.scores()[player]),)


GENERIC_FIELDS = DecisionFields(before_columns=(), before=_nothing,
                                after_columns=(("score_after", pa.int64()),), after=score_after)


def fields_for(game_name: str) -> DecisionFields:
    """The decision fields the game's analysis hooks declare (`DECISION_FIELDS`), or the generic ones."""
    return game_spec(game_name).analysis_hook("DECISION_FIELDS") or GENERIC_FIELDS


def decisions_schema(game_name: str) -> pa.Schema:
    """The Arrow schema of a game's decision rows (common columns first)."""
    return pa.schema(list(COMMON_COLUMNS + fields_for(game_name).columns))


class DecisionRecorder:
    """Collects decision rows as tuples (cheap to append), converted to one Arrow table per chunk."""

    def __init__(self, game: Game):
        self.fields = fields_for(game.name)
        self.schema = decisions_schema(game.name)
        self._rows: list[tuple[Any, ...]] = []
        self._pending: tuple[Any, ...] = ()
        self.game_index = -1

    def before(self, state: State, ply: int, player: int, agent: str, action: int, decision: int) -> None:
        """Note what is known when `player` has chosen `action` (the `ply`-th of the game), before it is applied."""
        self._pending = (self.game_index, ply, decision, player, agent, int(action),
                         state.action_to_string(action)) + self.fields.before(state, player, action)

    def after(self, state: State, player: int) -> None:
        """Complete the noted row with the deciding player's situation right after the action."""
        self._rows.append(self._pending + self.fields.after(state, player))

    def __len__(self) -> int:
        return len(self._rows)

    def discard_from(self, count: int) -> None:
        """Drop every row after the first `count` (those of a game given up before its end)."""
        del self._rows[count:]

    def table(self) -> pa.Table:
        """Every recorded row as one Arrow table with the game's schema."""
        columns = list(zip(*self._rows)) if self._rows else [() for _ in self.schema.names]
        return pa.table({name: pa.array(values, type=self.schema.field(name).type)
                         for name, values in zip(self.schema.names, columns)}, schema=self.schema)
