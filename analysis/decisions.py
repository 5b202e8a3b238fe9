"""One row per player decision: the columns every game shares, plus a small table of per-game fields.

Every decision row holds the game index, the ply (its position in the game's full history, chance outcomes
included), the decision number within the game, the player, that seat's agent spec, the action id and its
notation. `GAME_FIELDS` adds columns for games that have more to say about a move (Cave vs Cave: the round
and turn, the kind of action, which tile was taken, which room was used or furnished where, which spaces were
excavated, and the player's gold, food and score right after the action); a game without an entry gets
`GENERIC_FIELDS` (the player's score after the action).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import pyarrow as pa

from ..core.api import Game, State
from ..core.cvc.actions import KIND_NAMES, ROOM_USE, TAKE, TILE_OPTION, action_table, space_name
from ..core.cvc.rules import FOOD, GOLD, rules

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


def _score_after(state: State, player: int) -> tuple[Any, ...]:
    return (int(state.scores()[player]),)


GENERIC_FIELDS = DecisionFields(before_columns=(), before=_nothing,
                                after_columns=(("score_after", pa.int64()),), after=_score_after)


@lru_cache(maxsize=1)
def _cvc_action_facts() -> tuple[tuple[str, str | None, str | None, str | None, str | None, str | None], ...]:
    """Per Cave vs Cave action id: kind, tile taken, room used, room furnished, its space, spaces excavated."""
    r = rules()
    facts = []
    for spec in action_table().specs:
        tile = r.tiles[spec.tile].name if spec.kind == TAKE else None
        room_used = r.rooms[spec.room].name if spec.kind == ROOM_USE else None
        furnished = furnish_space = excavated = None
        if spec.kind in (TILE_OPTION, ROOM_USE):
            slots = r.tiles[spec.tile].slots if spec.kind == TILE_OPTION else r.rooms[spec.room].slots
            for choice in spec.choices:
                for op in slots[choice.slot][choice.option]:
                    if op.kind == "furnish":
                        room, space = choice.param
                        furnished, furnish_space = r.rooms[room].name, space_name(space)
                    elif op.kind == "excavate":
                        excavated = " ".join(space_name(s) for s in choice.param)
        facts.append((KIND_NAMES[spec.kind], tile, room_used, furnished, furnish_space, excavated))
    return tuple(facts)


def _cvc_before(state: State, player: int, action: int) -> tuple[Any, ...]:
    position = state.to_dict()  # type: ignore[attr-defined]
    # Rounds and turns are stored 0-based in the engine; the rulebook counts them from 1.
    return (position["round"] + 1, position["turn"] + 1) + _cvc_action_facts()[action]


def _cvc_after(state: State, player: int) -> tuple[Any, ...]:
    goods = state.to_dict()["players"][player]["goods"]  # type: ignore[attr-defined]
    return (goods[GOLD], goods[FOOD], int(state.scores()[player]))


CVC_FIELDS = DecisionFields(
    before_columns=(("round", pa.int32()),          # 1-based round the decision was made in
                    ("turn", pa.int32()),           # 1-based turn within the round, both players counted
                    ("kind", pa.string()),          # take, end_turn, convert, cavern_side, prospect, ...
                    ("tile", pa.string()),          # the action tile taken (take actions only)
                    ("room_used", pa.string()),     # the orange room (or Cave Entrance) used
                    ("room_furnished", pa.string()),
                    ("furnish_space", pa.string()),
                    ("excavated", pa.string())),    # spaces excavated, space-separated
    before=_cvc_before,
    after_columns=(("gold_after", pa.int32()), ("food_after", pa.int32()), ("score_after", pa.int32())),
    after=_cvc_after)

GAME_FIELDS: dict[str, DecisionFields] = {"cvc": CVC_FIELDS}


def fields_for(game_name: str) -> DecisionFields:
    """The game-specific decision fields of a game, or the generic ones when it has no entry."""
    return GAME_FIELDS.get(game_name, GENERIC_FIELDS)


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

    def table(self) -> pa.Table:
        """Every recorded row as one Arrow table with the game's schema."""
        columns = list(zip(*self._rows)) if self._rows else [() for _ in self.schema.names]
        return pa.table({name: pa.array(values, type=self.schema.field(name).type)
                         for name, values in zip(self.schema.names, columns)}, schema=self.schema)
