"""Cave vs Cave's decision columns: the round and turn, the kind of action, which tile was taken, which room
was used or furnished where, which spaces were excavated, and the player's gold, food and score right after."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import pyarrow as pa

from ...core.api import State
from ...core.cvc.actions import KIND_NAMES, ROOM_USE, TAKE, TILE_OPTION, action_table, space_name
from ...core.cvc.rules import FOOD, GOLD, rules
from ..decisions import DecisionFields


@lru_cache(maxsize=1)
def _cvc_action_facts() -> tuple[tuple[str, str | None, str | None, str | None, str | None, str | None], ...]:
    """Per action id: kind, tile taken, room used, room furnished, its space, spaces excavated."""
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


DECISION_FIELDS = DecisionFields(
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
