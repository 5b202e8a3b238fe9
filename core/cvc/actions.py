"""The Cave vs Cave action table: every atomic action, its id and its notation, derived from the rules data.

A turn is `take <Tile>`, then any number of sub-actions, then `end turn`. A sub-action is one option of one
slot of the taken tile with its parameter chosen (`Excavation: excavate s5`), or one use of an orange room
(`use Tunnel: +2 food, +1 stone`), which draws on the tile's activation slot. Anytime conversions are offered
during your own turn (after taking a tile), the only moment they can change anything.

Ids are positions in one table built from the data in a fixed order, so both engines agree on them, and
they stay the same for every parameter setting (a parameter changes legality, never numbering).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from .rules import (CAVE_ENTRANCE, GOODS, NUM_BOARD_SPACES, NUM_ROOMS, NUM_SPACES, NUM_WALL_SLOTS, SIDES,
                    Op, Option, Rules, rules)

TAKE, END_TURN, CONVERT, CAVERN_SIDE, PROSPECT, TILE_OPTION, ROOM_USE = range(7)
KIND_NAMES = ("take", "end_turn", "convert", "cavern_side", "prospect", "tile_option", "room_use")


@dataclass(frozen=True)
class Choice:
    """One option of one slot, with its parameter (None, a good, a wall slot, spaces or (room, space))."""

    slot: int
    option: int
    param: Any = None


@dataclass(frozen=True)
class ActionSpec:
    id: int
    kind: int
    text: str
    tile: int = -1                 # TAKE, TILE_OPTION
    room: int = -1                 # ROOM_USE
    good: int = -1                 # CONVERT
    walls: int = 0                 # CAVERN_SIDE: number of natural walls of the chosen side
    choices: tuple[Choice, ...] = ()   # TILE_OPTION: one choice; ROOM_USE: one per used slot


def space_name(space: int) -> str:
    return "ac" if space == NUM_BOARD_SPACES else f"s{space}"


def wall_name(wall: int) -> str:
    return f"w{wall}" if wall < 14 else f"ac-{SIDES[wall - 14]}"


def _goods_text(goods: tuple[int, ...], sign: str = "") -> str:
    return " ".join(f"{sign}{n} {GOODS[g]}" for g, n in enumerate(goods) if n)


def option_params(option: Option) -> list[Any]:
    """Every parameter value the option can take (one op per option needs one)."""
    for op in option:
        if op.kind in ("gain_one_of", "replenish_one_of"):
            return list(op.types)
        if op.kind == "pay_distinct":
            return list(combinations(op.types, op.count))
        if op.kind == "excavate":
            singles = [(s,) for s in range(NUM_BOARD_SPACES)]
            if op.count == 1:
                return singles
            return singles + list(combinations(range(NUM_BOARD_SPACES), 2))
        if op.kind == "furnish":
            return [(r, s) for r in range(NUM_ROOMS) for s in range(NUM_SPACES)]
        if op.kind in ("build_wall", "raze_wall"):
            return list(range(NUM_WALL_SLOTS))
    return [None]


def is_activation(option: Option) -> bool:
    return any(op.kind == "activate_rooms" for op in option)


def _op_text(op: Op, param: Any, r: Rules) -> str:
    if op.kind == "gain":
        text = _goods_text(op.goods, "+")
        if op.below is not None:
            text += f" (if fewer than {op.below[1]} {GOODS[op.below[0]]})"
        return text
    if op.kind == "pay":
        return "pay " + _goods_text(op.goods)
    if op.kind == "gain_one_of":
        return f"+{op.amount} {GOODS[param]}"
    if op.kind == "pay_distinct":
        return "pay " + "+".join(GOODS[g] for g in param)
    if op.kind == "replenish":
        targets = [(g, v) for g, v in enumerate(op.targets) if v >= 0]
        values = {v for _, v in targets}
        if len(values) == 1:
            return "replenish " + ", ".join(GOODS[g] for g, _ in targets) + f" to {values.pop()}"
        return "replenish " + ", ".join(f"{GOODS[g]} to {v}" for g, v in targets)
    if op.kind == "replenish_one_of":
        return f"replenish {GOODS[param]} to {op.amount}"
    if op.kind == "excavate":
        text = "excavate " + " ".join(space_name(s) for s in param)
        return text + (" through walls" if op.through_walls else "")
    if op.kind == "furnish":
        room, space = param
        text = f"furnish {r.rooms[room].name} at {space_name(space)}"
        if op.extra_food_per_turn:
            text += " paying food per turn"
        if any(op.extra):
            text += " paying " + _goods_text(op.extra)
        return text
    if op.kind == "build_wall":
        return f"build wall {wall_name(param)}"
    if op.kind == "raze_wall":
        return f"raze wall {wall_name(param)}"
    raise ValueError(f"op {op.kind} has no notation")


def option_text(option: Option, param: Any, r: Rules) -> str:
    return ", ".join(_op_text(op, param, r) for op in option)


def _room_uses(room_slots: tuple) -> list[tuple[Choice, ...]]:
    """Every non-empty way to use a room: each slot skipped or one option with one parameter."""
    per_slot: list[list[Choice | None]] = []
    for s, slot in enumerate(room_slots):
        alternatives: list[Choice | None] = [None]
        for o, option in enumerate(slot):
            alternatives.extend(Choice(s, o, p) for p in option_params(option))
        per_slot.append(alternatives)
    uses: list[tuple[Choice, ...]] = [()]
    for alternatives in per_slot:
        uses = [u + ((c,) if c is not None else ()) for u in uses for c in alternatives]
    return [u for u in uses if u]


@dataclass(frozen=True)
class ActionTable:
    specs: tuple[ActionSpec, ...]
    by_text: dict[str, int]
    take: tuple[int, ...]          # action id of `take <tile>` by tile index
    end_turn: int
    convert: dict[int, int]        # good -> action id
    cavern_side: dict[int, int]    # natural walls -> action id
    prospect: int
    tile_options: tuple[tuple[int, ...], ...]   # per tile: ids of its option actions
    tile_option_id: dict[tuple[int, int, int, Any], int]   # (tile, slot, option, param) -> id
    room_uses: tuple[tuple[int, ...], ...]      # per room (incl. entrance): ids of its uses

    def __len__(self) -> int:
        return len(self.specs)


def normalize_text(text: str) -> str:
    return " ".join(text.lower().replace("->", " -> ").split())


@lru_cache(maxsize=1)
def action_table() -> ActionTable:
    """The one action table (cached)."""
    r = rules()
    specs: list[ActionSpec] = []

    def add(kind: int, text: str, **kw: Any) -> int:
        specs.append(ActionSpec(id=len(specs), kind=kind, text=text, **kw))
        return len(specs) - 1

    take = tuple(add(TAKE, f"take {t.name}", tile=t.index) for t in r.tiles)
    end_turn = add(END_TURN, "end turn")
    convert = {g: add(CONVERT, f"convert {GOODS[g]}->food", good=g) for g in r.conversion_sources}
    cavern_side = {w: add(CAVERN_SIDE, f"take Additional Cavern with {w} walls", walls=w)
                   for w in (2, 3, 4)}
    prospect = add(PROSPECT, "Prospecting Site: pay 1 food, +1 gold")

    tile_options = []
    for t in r.tiles:
        ids = []
        for s, slot in enumerate(t.slots):
            for o, option in enumerate(slot):
                if is_activation(option):
                    continue        # an activation is used through `use <Room>` actions
                for p in option_params(option):
                    ids.append(add(TILE_OPTION, f"{t.name}: {option_text(option, p, r)}", tile=t.index,
                                   choices=(Choice(s, o, p),)))
        tile_options.append(tuple(ids))

    room_uses = []
    for room in r.rooms:
        ids = []
        for use in _room_uses(room.slots):
            text = f"use {room.name}: " + ", ".join(
                option_text(room.slots[c.slot][c.option], c.param, r) for c in use)
            ids.append(add(ROOM_USE, text, room=room.index, choices=use))
        room_uses.append(tuple(ids))

    by_text: dict[str, int] = {}
    for spec in specs:
        key = normalize_text(spec.text)
        if key in by_text:
            raise ValueError(f"two actions share the notation {spec.text!r}")
        by_text[key] = spec.id
    assert len(room_uses) == CAVE_ENTRANCE + 1
    return ActionTable(specs=tuple(specs), by_text=by_text, take=take, end_turn=end_turn, convert=convert,
                       cavern_side=cavern_side, prospect=prospect, tile_options=tuple(tile_options),
                       room_uses=tuple(room_uses),
                       tile_option_id={(s.tile, s.choices[0].slot, s.choices[0].option, s.choices[0].param): s.id
                                       for s in specs if s.kind == TILE_OPTION})
