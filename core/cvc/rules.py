"""Cave vs Cave rules data: one table loaded from `data/cave-vs-cave.json`, shared by both engines.

Everything the engines need (tiles, rooms, board geometry, rounds, goods, the open-question defaults) is
read here into small immutable records with integer indices, so engine code never looks at JSON.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import resources
from typing import Any

from ..api import ConfigError

GOODS = ("wood", "stone", "emmer", "flax", "food", "gold")
WOOD, STONE, EMMER, FLAX, FOOD, GOLD = range(6)
GOOD_INDEX = {name: i for i, name in enumerate(GOODS)}

SIDES = ("N", "E", "S", "W")
SIDE_BIT = {"N": 1, "E": 2, "S": 4, "W": 8}

NUM_BOARD_SPACES = 11          # s0..s10
CAVERN = 11                    # index of the Additional Cavern space
NUM_SPACES = 12
NUM_BOARD_WALL_SLOTS = 14      # w0..w13
NUM_WALL_SLOTS = 18            # w0..w13, then the Additional Cavern's N, E, S, W sides
NATURAL = -1                   # a side with a printed wall
OPENING = -2                   # the entrance opening (no wall, never a slot)

NUM_ROOMS = 24                 # room index = tile_no - 1
CAVE_ENTRANCE = 24             # the preprinted room, index after the 24 tiles


@dataclass(frozen=True)
class Op:
    """One operation of an effect option (see rules file section 1.1)."""

    kind: str
    goods: tuple[int, ...] = (0, 0, 0, 0, 0, 0)   # gain / pay amounts
    types: tuple[int, ...] = ()                    # gain_one_of, replenish_one_of, pay_distinct
    amount: int = 0                                # gain_one_of amount, replenish_one_of value
    count: int = 0                                 # excavate, activate_rooms, walls, pay_distinct
    through_walls: bool = False
    targets: tuple[int, ...] = (-1,) * 6           # replenish targets (-1: not replenished)
    below: tuple[int, int] | None = None           # gain condition: (good, value) "fewer than value"
    extra_food_per_turn: bool = False              # furnish: pay food equal to turns this round
    extra: tuple[int, ...] = (0, 0, 0, 0, 0, 0)    # furnish: fixed extra payment


Option = tuple[Op, ...]
Slot = tuple[Option, ...]


@dataclass(frozen=True)
class Tile:
    index: int
    id: str
    name: str
    stage: int
    in_solo: bool
    needs_more_gold: bool
    slots: tuple[Slot, ...]


@dataclass(frozen=True)
class Room:
    index: int
    id: str
    name: str
    orange: bool
    start_display: bool
    cost: tuple[int, ...]
    vp: int
    wall_masks: int             # bit m set: a space whose wall pattern is m fits the room
    slots: tuple[Slot, ...]     # activated effect (orange rooms); empty for blue rooms
    trigger: dict[str, Any] | None = None   # passive effect trigger (blue rooms)


@dataclass(frozen=True)
class Space:
    index: int
    name: str
    row: int
    col: int
    sides: tuple[int, int, int, int]   # N, E, S, W: wall slot index, NATURAL or OPENING
    food_bonus: int
    initial: str


@dataclass(frozen=True)
class Config:
    """The engine parameters for the rules file's open questions (section 14), plus analysis variants.

    Defaults live in the data file (`config_defaults`); build one with `make_config`.

    Analysis variants (not rules of the game; default: off): `banned_rooms_p0` and `banned_rooms_p1` name
    rooms (by id) that seat 0 or seat 1 may never furnish. Playing the same seeds with and without a ban
    measures what access to a room is worth to a player (`cavekit.analysis.cvc.room_values`). A list or one
    comma-separated string is accepted.
    """

    solo_reveal_timing: str
    undermining_ignores: str
    blue_room_active_from: str
    orange_room_usable_from: str
    additional_cavern_walls: tuple[int, int]
    additional_cavern_two_wall_layout: str
    additional_cavern_open_sides_accept_walls: bool
    additional_cavern_award_timing: str
    junction_room_gold_allowed: bool
    retting_room_counts: str
    wood_storeroom_requires_subaction_use: bool
    prospecting_site_timing: str
    double_excavation_requires_two_targets: bool
    walls_between_face_down_spaces_allowed: bool
    tie_break_when_top_rooms_equal: str
    banned_rooms_p0: tuple[str, ...] = ()
    banned_rooms_p1: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name in BANNED_ROOMS_OPTIONS:
                object.__setattr__(self, f.name, _room_ids(f.name, getattr(self, f.name)))
                continue
            allowed = CONFIG_CHOICES[f.name]
            value = getattr(self, f.name)
            if isinstance(value, list):
                value = tuple(value)
                object.__setattr__(self, f.name, value)
            if value not in allowed:
                shown = ", ".join(repr(a) for a in allowed)
                raise ConfigError(f"parameter {f.name}={value!r} is not allowed; allowed values: {shown}")

    def as_dict(self) -> dict[str, Any]:
        """The options as plain data; analysis variants only when set, so real games' records never change."""
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in fields(self) if f.name not in BANNED_ROOMS_OPTIONS or getattr(self, f.name)}

    def banned_rooms(self, seat: int) -> tuple[str, ...]:
        """Ids of the rooms `seat` may not furnish (an analysis variant; empty in the real game)."""
        return self.banned_rooms_p0 if seat == 0 else self.banned_rooms_p1


BANNED_ROOMS_OPTIONS = ("banned_rooms_p0", "banned_rooms_p1")


def _room_ids(option: str, value: Any) -> tuple[str, ...]:
    """A banned-rooms option as a tuple of known room ids (from a list or a comma-separated string)."""
    if isinstance(value, str):
        value = [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"parameter {option}={value!r} must be a list of room ids (or one comma-separated string)")
    if not value:
        return ()       # also while the rules table itself is being parsed (its defaults ban nothing)
    known = [room.id for room in rules().rooms[:NUM_ROOMS]]
    ids = [room_id_of(v) for v in value]
    unknown = [v for v, i in zip(value, ids) if i is None]
    if unknown:
        raise ConfigError(f"parameter {option}: unknown room id(s) {', '.join(map(repr, unknown))}; "
                          f"room ids: {', '.join(known)}")
    return tuple(dict.fromkeys(ids))


def _room_key(text: str) -> str:
    return "_".join(text.lower().replace("-", " ").replace("_", " ").split())


def room_id_of(text: str) -> str | None:
    """The id of the room a person names by its id or printed name, in any case ("Spinning Wheel",
    "SPINNING_WHEEL", "spinning-wheel"), or None if no room has that name."""
    key = _room_key(text)
    for room in rules().rooms[:NUM_ROOMS]:
        if key in (room.id, _room_key(room.name)):
            return room.id
    return None


CONFIG_CHOICES: dict[str, tuple[Any, ...]] = {
    "solo_reveal_timing": ("end_of_turn_if_exactly_one", "per_single_excavation_effect"),
    "undermining_ignores": ("all_walls", "one_wall"),
    "blue_room_active_from": ("placement", "next_turn"),
    "orange_room_usable_from": ("next_turn", "next_round"),
    "additional_cavern_walls": ((2, 3), (3, 4)),
    "additional_cavern_two_wall_layout": ("adjacent", "opposite"),
    "additional_cavern_open_sides_accept_walls": (True, False),
    "additional_cavern_award_timing": ("immediately", "end_of_turn"),
    "junction_room_gold_allowed": (True, False),
    "retting_room_counts": ("nominal_gain", "actual_increase"),
    "wood_storeroom_requires_subaction_use": (True, False),
    "prospecting_site_timing": ("any_time_during_undergrowth_turn", "on_choosing_only"),
    "double_excavation_requires_two_targets": (False, True),
    "walls_between_face_down_spaces_allowed": (True, False),
    "tie_break_when_top_rooms_equal": ("draw", "next_highest_room"),
}


@dataclass(frozen=True)
class Rules:
    """The whole Cave vs Cave data table, indexed for the engines."""

    tiles: tuple[Tile, ...]
    rooms: tuple[Room, ...]            # 24 tiles, then the Cave Entrance at index 24
    spaces: tuple[Space, ...]          # s0..s10, then the Additional Cavern
    wall_slots: tuple[tuple[int, int], ...]   # board slots w0..w13: the two spaces they join
    entrance_space: int
    pre_excavated_space: int
    wall_supply: int
    caps: tuple[int, ...]
    start_goods: tuple[int, ...]
    conversion_sources: tuple[int, ...]
    turns: dict[int, tuple[int, ...]]          # players -> turns per player in each round
    stages: dict[int, tuple[int, ...]]         # players -> stage revealed in each round
    defaults: Config
    solo_goal: int
    solo_remarkable: int

    def tile_index(self, tile_id: str) -> int:
        return next(t.index for t in self.tiles if t.id == tile_id)

    def room_index(self, room_id: str) -> int:
        return next(r.index for r in self.rooms if r.id == room_id)


def _goods_vector(d: dict[str, int] | None) -> tuple[int, ...]:
    d = d or {}
    return tuple(int(d.get(g, 0)) for g in GOODS)


def _parse_op(raw: dict[str, Any]) -> Op:
    kind = raw["op"]
    if kind == "gain":
        cond = raw.get("condition")
        below = None
        if cond is not None:
            if cond["type"] != "goods_below":
                raise ValueError(f"unknown gain condition {cond['type']!r}")
            below = (GOOD_INDEX[cond["good"]], int(cond["value"]))
        return Op("gain", goods=_goods_vector(raw["goods"]), below=below)
    if kind == "pay":
        return Op("pay", goods=_goods_vector(raw["goods"]))
    if kind == "gain_one_of":
        return Op("gain_one_of", amount=raw["amount"], types=tuple(GOOD_INDEX[t] for t in raw["types"]))
    if kind == "pay_distinct":
        return Op("pay_distinct", count=raw["count"], types=tuple(GOOD_INDEX[t] for t in raw["types"]))
    if kind == "replenish":
        targets = [-1] * 6
        for g, v in raw["targets"].items():
            targets[GOOD_INDEX[g]] = int(v)
        return Op("replenish", targets=tuple(targets))
    if kind == "replenish_one_of":
        return Op("replenish_one_of", amount=raw["value"], types=tuple(GOOD_INDEX[t] for t in raw["types"]))
    if kind == "excavate":
        return Op("excavate", count=raw["count"], through_walls=bool(raw.get("through_walls", False)))
    if kind == "furnish":
        extra = dict(raw.get("extra_cost") or {})
        per_turn = bool(extra.pop("food_per_turn", 0))
        return Op("furnish", extra_food_per_turn=per_turn, extra=_goods_vector(extra))
    if kind in ("activate_rooms", "build_wall", "raze_wall"):
        return Op(kind, count=raw["count"])
    raise ValueError(f"unknown op {kind!r} in the rules data")


def _parse_slots(raw_slots: list[dict[str, Any]]) -> tuple[Slot, ...]:
    return tuple(tuple(tuple(_parse_op(op) for op in option) for option in slot["either"])
                 for slot in raw_slots)


def _masks_bits(masks: list[int]) -> int:
    bits = 0
    for m in masks:
        bits |= 1 << m
    return bits


def _parse(data: dict[str, Any]) -> Rules:
    tiles = tuple(
        Tile(index=i, id=t["id"], name=t["name"], stage=int(t["stage"]), in_solo=bool(t["in_solo"]),
             needs_more_gold=t["choose_condition"] is not None and
             t["choose_condition"]["type"] == "more_gold_than_opponent",
             slots=_parse_slots(t["slots"]))
        for i, t in enumerate(data["action_tiles"]))

    rooms: list[Room] = []
    for r in sorted(data["rooms"], key=lambda r: r["tile_no"]):
        effect = r["effect"]
        activated = effect["kind"] == "activated"
        rooms.append(Room(
            index=r["tile_no"] - 1, id=r["id"], name=r["name"], orange=r["color"] == "orange",
            start_display=bool(r["start_display"]), cost=_goods_vector(r["cost"]), vp=int(r["vp"]),
            wall_masks=_masks_bits(r["allowed_wall_masks"]),
            slots=_parse_slots(effect["slots"]) if activated else (),
            trigger=None if activated else dict(effect["trigger"])))
    entrance = data["board"]["cave_entrance_room"]
    rooms.append(Room(index=CAVE_ENTRANCE, id=entrance["id"], name=entrance["name"], orange=True,
                      start_display=False, cost=(0,) * 6, vp=int(entrance["vp"]), wall_masks=0,
                      slots=_parse_slots(entrance["effect"]["slots"])))

    board = data["board"]
    slot_index = {w["id"]: i for i, w in enumerate(board["wall_slots"])}
    space_index = {s["id"]: i for i, s in enumerate(board["spaces"])}

    def side(value: str) -> int:
        if value == "natural":
            return NATURAL
        if value == "entrance_opening":
            return OPENING
        return slot_index[value]

    spaces = [Space(index=i, name=s["id"], row=s["row"], col=s["col"],
                    sides=tuple(side(s["sides"][d]) for d in SIDES),  # type: ignore[arg-type]
                    food_bonus=int(s["food_bonus_on_excavate"]), initial=s["initial"])
              for i, s in enumerate(board["spaces"])]
    # The Additional Cavern's four sides are wall slots 14..17; which are natural depends on its side.
    spaces.append(Space(index=CAVERN, name="ac", row=-1, col=-1,
                        sides=tuple(NUM_BOARD_WALL_SLOTS + d for d in range(4)),  # type: ignore[arg-type]
                        food_bonus=0, initial="additional_cavern"))
    wall_slots = tuple((space_index[w["between"][0]], space_index[w["between"][1]])
                       for w in board["wall_slots"])

    goods = data["goods"]
    rounds = data["rounds"]
    defaults = Config(**data["config_defaults"])
    return Rules(
        tiles=tiles, rooms=tuple(rooms), spaces=tuple(spaces), wall_slots=wall_slots,
        entrance_space=space_index[board["entrance_space"]],
        pre_excavated_space=space_index[board["pre_excavated_space"]],
        wall_supply=int(board["wall_supply_total"]),
        caps=_goods_vector(goods["cap"]), start_goods=_goods_vector(goods["start"]),
        conversion_sources=tuple(GOOD_INDEX[g] for g in goods["anytime_conversion"]["from"]),
        turns={2: tuple(rounds["two_player"]["turns_per_player"]),
               1: tuple(rounds["solo"]["turns_per_player"])},
        stages={2: tuple(rounds["two_player"]["stage_revealed"]),
                1: tuple(rounds["solo"]["stage_revealed"])},
        defaults=defaults,
        solo_goal=int(data["scoring"]["solo_targets"]["goal"]),
        solo_remarkable=int(data["scoring"]["solo_targets"]["remarkable"]),
    )


def load_rules_data() -> dict[str, Any]:
    """The raw rules data shipped with the package."""
    text = resources.files(__package__).joinpath("data/cave-vs-cave.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def rules() -> Rules:
    """The parsed rules table (cached)."""
    return _parse(load_rules_data())


def make_config(**params: Any) -> Config:
    """A Config from keyword parameters, defaults from the rules data; unknown names are refused."""
    known = {f.name for f in fields(Config)}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ConfigError(f"unknown Cave vs Cave parameter(s) {', '.join(unknown)}; "
                          f"known parameters: {', '.join(sorted(known))}")
    base = rules().defaults.as_dict()
    base.update(params)
    return Config(**base)


# The pieces of setup (rules section 3): the light rooms start face up in the display, the dark rooms face
# down, one under each space that starts face down (two players: both boards; solo: the board, and the rest
# form the draw pile). Three light rooms leave a solo game.
LIGHT_ROOMS = tuple(r.index for r in rules().rooms[:NUM_ROOMS] if r.start_display)
DARK_ROOMS = tuple(r.index for r in rules().rooms[:NUM_ROOMS] if not r.start_display)
FACE_DOWN_SPACES = tuple(s.index for s in rules().spaces if s.initial == "face_down")
SOLO_PILE_SIZE = len(DARK_ROOMS) - len(FACE_DOWN_SPACES)
NUM_LIGHT_ROOMS_REMOVED_SOLO = 3


def stage_tiles(stage: int, players: int) -> tuple[int, ...]:
    """The action tiles of `stage` in a game of `players`, by index (solo leaves out the tiles not for solo)."""
    return tuple(t.index for t in rules().tiles if t.stage == stage and (t.in_solo or players == 2))
