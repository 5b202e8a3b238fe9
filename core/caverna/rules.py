"""Caverna: The Cave Farmers rules data: one table (`data/caverna.json`) loaded into small immutable records.

Everything the engine needs (goods, furnishing tiles, action spaces per board and player count, round cards
and stages, setup per player count, the expedition loot table, husbandry and scoring constants, and the
open-question defaults) is read here, so a corrected number is a data change. Engine code never looks at JSON.
Where the data states a number only inside a sentence, it is read with a pattern that fails loudly at load
time if the sentence changes.

Goods are plain `dict[str, int]` keyed by the data's ids (`wood`, `stone`, `ore`, `grain`, `vegetable`,
`ruby`, `gold`, `food`, and the animals `sheep`, `donkey`, `wild_boar`, `cattle`, `dog`); in the frozen records
they are tuples of `(good, amount)` pairs.

Parameters (`make_config(**params)`, defaults first; `shared/rules/caverna.md` section 14 says what each open
question is):
- `simple_dwelling_vp`: 0, 2
- `meadow_loot_min_strength`: 11, 10
- `loot_eligibility`: `strength_at_start`, `sequential`
- `imitation_cost_table`: `fixed_per_space` (A: each printed Imitation space has one cost), `by_player_count`
  (B: the cost printed for the player count); the data file's table form of the default is accepted too
- `imitation_may_copy_imitation`: True, False
- `first_forest_tile_anchor`: `must_cover_3_2`, `adjacent_to_either_preprinted_space`
- `dog_capacity_rule`: `max_of_both`, `dogs_replace_capacity`
- `anytime_trades_once_per_harvest`: False, True
- `solo_cleanup_min_goods`: 7, 6
- `solo_covered_spaces`: the four 1-3 board spaces B covers, or any other set of 1-3 board spaces
- `food_chamber_counts`: `supply_and_fields`, `supply_only`
- `office_room_overhang_usable`: True, False
- `harvest_marker_reveal`: `start_of_round` (the data names no alternative)
- `carpenter_fence_discount`: `per_action`, `per_pasture`
- `guest_room_extension_both`: `once_per_game` (the data's note on the Extension space, a BGA ruling: with the
  Guest room both halves at most once per game), `every_time` (the Guest room's text read literally: every
  either/or becomes and/or). Not a section-14 question; the rules file notes it under the Guest room.
Section 14 rows without a `config_defaults` key that still have a concrete alternative reading:
- `logging_accumulation`: `B`, `A` (A swaps the two Logging spaces' refills)
- `small_scale_drift_mining_counts`: `5_only`, `5_to_7` (R: the 6-7 side has Small-scale drift mining in place
  of its 1-stone Drift mining)
- `furnishing_cost_source`: `B+S+G`, `A` (A's five differing costs, read from the data's reading text)
Analysis variants (not rules of the game; default: off, and left out of `Config.as_dict` while off, so real
games' records never change): `banned_furnishings_p0` ... `banned_furnishings_p6` name furnishing tiles (by id)
that seat k may never furnish. Playing the same deals with and without a ban measures what access to a tile is
worth to a player (`cavekit.analysis.caverna.balance`). A list or one comma-separated string is accepted.
Not parameters: `furnishing_count` and `loot_list` (no alternative data exists), `ruby_mining_availability`
(the other reading contradicts the same rulebook's 2-player rule).
"""
from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

from ..api import ConfigError

# ------------------------------------------------------------------------------------------------------
# Goods

Goods = tuple[tuple[str, int], ...]      # frozen form of a goods dict
Pos = tuple[int, int]                    # home-board (row, col)


def freeze_goods(goods: Mapping[str, int] | None) -> Goods:
    """A goods dict as a tuple of (good, amount) pairs, zero amounts dropped, data order kept."""
    return tuple((g, int(n)) for g, n in (goods or {}).items() if int(n) != 0)


def add_goods(*parts: Mapping[str, int]) -> dict[str, int]:
    """The sum of several goods dicts (zero amounts dropped)."""
    total: dict[str, int] = {}
    for part in parts:
        for good, n in part.items():
            total[good] = total.get(good, 0) + n
    return {g: n for g, n in total.items() if n != 0}


# ------------------------------------------------------------------------------------------------------
# Formulas: the data's formula strings, compiled once through a whitelist of expression nodes

_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call,
                  ast.Attribute, ast.Compare, ast.IfExp, ast.Dict, ast.Add, ast.Sub, ast.Mult, ast.Div,
                  ast.FloorDiv, ast.Pow, ast.USub, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_FUNCTIONS = {"ceil": math.ceil, "floor": math.floor, "min": min, "max": max, "sum": sum}


@lru_cache(maxsize=None)
def formula(text: str) -> Callable[[Mapping[str, Any]], int]:
    """A data formula (e.g. `floor(sheep / 2)`) as a function of a variables mapping; unknown syntax is refused."""
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ValueError(f"formula {text!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Attribute) and not (node.attr == "get" and isinstance(node.value, ast.Dict)):
            raise ValueError(f"formula {text!r}: only {{...}}.get(...) may use an attribute")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in _FUNCTIONS:
            raise ValueError(f"formula {text!r}: unknown function {node.func.id}")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(_FUNCTIONS)
    code = compile(tree, f"<formula {text}>", "eval")

    def evaluate(variables: Mapping[str, Any]) -> int:
        missing = names - set(variables)
        if missing:
            raise KeyError(f"formula {text!r} needs {', '.join(sorted(missing))}")
        env = dict(_FUNCTIONS)
        env.update({n: variables[n] for n in names})
        return int(eval(code, {"__builtins__": {}}, env))  # noqa: S307 - whitelisted expression nodes only

    evaluate.names = frozenset(names)  # type: ignore[attr-defined]
    return evaluate


def read_numbers(pattern: str, text: str, what: str) -> tuple[int, ...]:
    """The integers a pattern captures in a sentence of the data; fails loudly when the sentence changed."""
    m = re.search(pattern, text)
    if not m:
        raise ValueError(f"rules data: cannot read {what} from {text!r}")
    return tuple(int(g) for g in m.groups())


# ------------------------------------------------------------------------------------------------------
# Records

def _freeze(value: Any) -> Any:
    """JSON data as hashable tuples: objects become tuples of (key, value) pairs, lists tuples."""
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The inverse of the records' freezing for (key, value) pair tuples: back to a dict."""
    if isinstance(value, tuple) and value and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str)
                                                  for p in value):
        return {k: thaw(v) for k, v in value}
    if isinstance(value, tuple):
        return tuple(thaw(v) for v in value)
    return value


COMBINATORS = ("all", "any", "then_any", "one", "by_weapon")


@dataclass(frozen=True)
class Effect:
    """One node of an action-space or loot effect (rules file section 8): a combinator or an atom."""

    kind: str                                  # combinator (all/any/then_any/one/by_weapon) or atom (gain, ...)
    parts: tuple[Effect, ...] = ()             # by_weapon: (unarmed branch, armed branch)
    optional: bool = False
    args: tuple[tuple[str, Any], ...] = ()     # the atom's other fields, frozen

    @property
    def is_combinator(self) -> bool:
        """True for all/any/then_any/one/by_weapon."""
        return self.kind in COMBINATORS

    def arg(self, name: str, default: Any = None) -> Any:
        """One of the atom's fields (dicts come back as dicts)."""
        for key, value in self.args:
            if key == name:
                return thaw(value)
        return default

    def atoms(self) -> list[Effect]:
        """Every atom of this effect, depth first."""
        if not self.is_combinator:
            return [self]
        return [a for p in self.parts for a in p.atoms()]


@dataclass(frozen=True)
class Accumulation:
    """Refill of an accumulating space: `if_empty` when it holds nothing, else `otherwise`."""

    good: str
    if_empty: int
    otherwise: int


@dataclass(frozen=True)
class ActionSpace:
    """A printed action space or a round card's space."""

    id: str
    name: str
    board: str
    stage: int                                 # 0: printed board space; 1-4: round card stage
    player_counts: tuple[int, ...]
    accumulation: tuple[Accumulation, ...]
    effect: Effect
    text: str
    imitable: bool = True
    food_cost: int | None = None               # Imitation spaces
    food_cost_by_players: tuple[tuple[int, int], ...] = ()
    fixed_round: int | None = None
    flips_to: str | None = None
    special_accumulation: str | None = None

    @property
    def is_round_card(self) -> bool:
        """True for the 12 round cards and the Urgent-wish flip side."""
        return self.board == "round_card"

    @property
    def accumulates(self) -> bool:
        """True for accumulating spaces."""
        return bool(self.accumulation)


@dataclass(frozen=True)
class RoundCard:
    """A round card: its stage, the rounds it may appear in, and the player counts that use it."""

    id: str
    stage: int
    rounds: tuple[int, ...]
    players: tuple[int, ...]


@dataclass(frozen=True)
class AnimalRoom:
    """Animal room of a furnishing: a number, `dwarfs` or `per_empty_field`, and the farm types allowed."""

    capacity: int | str
    types: tuple[str, ...]
    one_type: bool = True          # all animals in the room share one type (False: Stubble room fields)


@dataclass(frozen=True)
class Furnishing:
    """One furnishing type (rules file section 11)."""

    index: int
    id: str
    name: str
    category: str                  # dwelling, green, yellow
    supply_block: int
    cost: Goods
    vp: int
    dwarf_capacity: int
    animal_room: AnimalRoom | None
    timing: str
    effect: str
    immediate: tuple[tuple[str, Any], ...]
    bonus_formula: str | None
    bonus: Any
    params: tuple[tuple[str, Any], ...]
    unlimited: bool
    yellow_tag: bool
    beginner_set: bool
    notes: str = ""

    @property
    def is_dwelling(self) -> bool:
        """True for the six dwelling types."""
        return self.category == "dwelling"

    def param(self, name: str, default: Any = None) -> Any:
        """One of the tile's effect parameters."""
        for key, value in self.params:
            if key == name:
                return thaw(value)
        return default


@dataclass(frozen=True)
class LootItem:
    """One expedition loot item."""

    id: str
    min_strength: int
    text: str
    effect: Effect


@dataclass(frozen=True)
class SpecialSpace:
    """A printed home-board icon paid once to the first tile covering it."""

    pos: Pos
    area: str
    feature: str
    on_cover: Goods


@dataclass(frozen=True)
class Conversion:
    """A printed food conversion: pay goods, get goods (`gold` n+1 -> n food is listed for n = 1, 2, 3)."""

    pay: Goods
    get: Goods


@dataclass(frozen=True)
class ScoringCategory:
    """One scoring category: id, the rule in words and its formula over the scoring variables."""

    id: str
    rule: str
    formula: str


# ------------------------------------------------------------------------------------------------------
# Parameters

@dataclass(frozen=True)
class Config:
    """The engine parameters for the rules file's open questions (section 14); build one with `make_config`."""

    simple_dwelling_vp: int
    meadow_loot_min_strength: int
    loot_eligibility: str
    imitation_cost_table: str
    imitation_may_copy_imitation: bool
    first_forest_tile_anchor: str
    dog_capacity_rule: str
    anytime_trades_once_per_harvest: bool
    solo_cleanup_min_goods: int
    solo_covered_spaces: tuple[str, ...]
    food_chamber_counts: str
    office_room_overhang_usable: bool
    harvest_marker_reveal: str
    carpenter_fence_discount: str
    logging_accumulation: str = "B"
    small_scale_drift_mining_counts: str = "5_only"
    furnishing_cost_source: str = "B+S+G"
    guest_room_extension_both: str = "once_per_game"
    banned_furnishings_p0: tuple[str, ...] = ()
    banned_furnishings_p1: tuple[str, ...] = ()
    banned_furnishings_p2: tuple[str, ...] = ()
    banned_furnishings_p3: tuple[str, ...] = ()
    banned_furnishings_p4: tuple[str, ...] = ()
    banned_furnishings_p5: tuple[str, ...] = ()
    banned_furnishings_p6: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in BANNED_FURNISHINGS_OPTIONS:
                object.__setattr__(self, f.name, _furnishing_ids(f.name, value))
                continue
            if f.name == "solo_covered_spaces":
                object.__setattr__(self, f.name, _solo_covered(value))
                continue
            if f.name == "imitation_cost_table" and isinstance(value, dict):
                value = _imitation_table_name(value)
                object.__setattr__(self, f.name, value)
            allowed = CONFIG_CHOICES[f.name]
            if value not in allowed or type(value) is not type(allowed[0]):
                shown = ", ".join(repr(a) for a in allowed)
                if f.name == "imitation_cost_table":
                    shown += " (or the rules data's own per-space table, which is 'fixed_per_space')"
                raise ConfigError(f"parameter {f.name}={value!r} is not allowed; allowed values: {shown}")

    def as_dict(self) -> dict[str, Any]:
        """The options as plain data (lists for tuples); analysis variants only when set."""
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in fields(self) if f.name not in BANNED_FURNISHINGS_OPTIONS or getattr(self, f.name)}

    def banned_furnishings(self, seat: int) -> tuple[str, ...]:
        """Ids of the furnishing tiles `seat` may not furnish (an analysis variant; empty in the real game)."""
        return getattr(self, BANNED_FURNISHINGS_OPTIONS[seat])


BANNED_FURNISHINGS_OPTIONS: tuple[str, ...] = tuple(f"banned_furnishings_p{seat}" for seat in range(7))


CONFIG_CHOICES: dict[str, tuple[Any, ...]] = {
    "simple_dwelling_vp": (0, 2),
    "meadow_loot_min_strength": (11, 10),
    "loot_eligibility": ("strength_at_start", "sequential"),
    "imitation_cost_table": ("fixed_per_space", "by_player_count"),
    "imitation_may_copy_imitation": (True, False),
    "first_forest_tile_anchor": ("must_cover_3_2", "adjacent_to_either_preprinted_space"),
    "dog_capacity_rule": ("max_of_both", "dogs_replace_capacity"),
    "anytime_trades_once_per_harvest": (False, True),
    "solo_cleanup_min_goods": (7, 6),
    "solo_covered_spaces": (),        # any set of 1-3 board spaces (checked in _solo_covered)
    "food_chamber_counts": ("supply_and_fields", "supply_only"),
    "office_room_overhang_usable": (True, False),
    "harvest_marker_reveal": ("start_of_round",),
    "carpenter_fence_discount": ("per_action", "per_pasture"),
    "logging_accumulation": ("B", "A"),
    "small_scale_drift_mining_counts": ("5_only", "5_to_7"),
    "furnishing_cost_source": ("B+S+G", "A"),
    "guest_room_extension_both": ("once_per_game", "every_time"),
}


def _solo_covered(value: Any) -> tuple[str, ...]:
    """The solo covered spaces as a tuple of distinct 1-3 board space ids (list or comma-separated string)."""
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"parameter solo_covered_spaces={value!r} must be a list of action space ids")
    allowed = _RAW_BOARD_SPACES_2P
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise ConfigError(f"parameter solo_covered_spaces: {', '.join(map(repr, unknown))} not on the 1-3 "
                          f"boards; allowed values: any of {', '.join(allowed)}")
    return tuple(dict.fromkeys(value))


def _furnishing_ids(option: str, value: Any) -> tuple[str, ...]:
    """A banned-furnishings option as a tuple of distinct furnishing ids (a list or a comma-separated string)."""
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"parameter {option}={value!r} must be a list of furnishing ids "
                          "(or one comma-separated string)")
    if not value:
        return ()       # also while the rules table itself is being read (its defaults ban nothing)
    known = [f.id for f in rules().furnishings]
    unknown = [v for v in value if v not in known]
    if unknown:
        raise ConfigError(f"parameter {option}: unknown furnishing id(s) {', '.join(map(repr, unknown))}; "
                          f"furnishing ids: {', '.join(known)}")
    return tuple(dict.fromkeys(value))


def _imitation_table_name(table: dict[str, Any]) -> Any:
    """The data's per-space imitation table is the `fixed_per_space` reading; another table is refused."""
    if table == _RAW_IMITATION_TABLE:
        return "fixed_per_space"
    return table


def load_rules_data() -> dict[str, Any]:
    """The raw rules data shipped with the package."""
    text = resources.files(__package__).joinpath("data/caverna.json").read_text(encoding="utf-8")
    return json.loads(text)


_RAW = load_rules_data()
_RAW_BOARD_SPACES_2P: tuple[str, ...] = tuple(_RAW["action_space_counts"]["2"]["board_space_ids"])
_RAW_IMITATION_TABLE: dict[str, int] = {a["id"]: a["food_cost"] for a in _RAW["action_spaces"]
                                        if a.get("effect", {}).get("do") == "imitate"}


def make_config(**params: Any) -> Config:
    """A Config from keyword parameters, defaults from the rules data; unknown names are refused."""
    known = {f.name for f in fields(Config)}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ConfigError(f"unknown Caverna parameter(s) {', '.join(unknown)}; "
                          f"known parameters: {', '.join(sorted(known))}")
    base = rules().defaults.as_dict()
    base.update(params)
    return Config(**base)


# ------------------------------------------------------------------------------------------------------
# The whole table

FARM_ANIMALS: tuple[str, ...] = tuple(_RAW["goods"]["farm_animals"])
ANIMALS: tuple[str, ...] = FARM_ANIMALS + tuple(_RAW["goods"]["other_animals"])
GOODS: tuple[str, ...] = tuple(_RAW["goods"]["building_materials"] + _RAW["goods"]["crops"]
                               + _RAW["goods"]["other_goods"])


@dataclass(frozen=True)
class Rules:
    """The whole Caverna data table, read for the engine."""

    action_spaces: dict[str, ActionSpace]
    round_cards: tuple[RoundCard, ...]
    solo_round_order: dict[int, str | None]
    furnishings: tuple[Furnishing, ...]
    entry_level_dwelling: Furnishing
    loot: tuple[LootItem, ...]
    special_spaces: tuple[SpecialSpace, ...]
    rows: int
    cols: int
    forest_cols: tuple[int, ...]
    mountain_cols: tuple[int, ...]
    preprinted: dict[Pos, str]                 # (3, 3): entry_level_dwelling, (2, 3): cavern
    cave_entrance: Pos                         # the forest space in front of the entrance
    starting_food_by_seat: tuple[int, ...]     # index = seat (0 = starting player)
    starting_food_solo: int
    rounds_by_players: dict[int, int]
    skipped_round: int
    boards_by_players: dict[int, tuple[str, ...]]
    board_space_ids_by_players: dict[int, tuple[str, ...]]
    dwarfs_at_start: int
    dwarfs_in_supply: int
    stables_per_player: int
    stable_cost: Goods
    small_pasture_cost: Goods
    large_pasture_cost: Goods
    pasture_formula: str
    holding_rules: dict[str, AnimalRoom]       # meadow_stable, forest_stable, mine: capacity and types
    sow_tokens: dict[str, int]                 # crop -> tokens on a newly sown field
    sow_max_fields: dict[str, int]             # crop -> fields per Sow action
    harvest_marker_total: int
    harvest_red_markers: int
    harvest_red_events: tuple[str, ...]
    harvest_fixed: dict[int, str]              # round -> none / normal / feed_1_per_dwarf (rounds 1-5)
    food_conversions: tuple[Conversion, ...]
    ruby_exchange: tuple[str, ...]             # 1 ruby -> 1 of these
    ruby_cattle: Goods                         # pay for 1 cattle
    ruby_tiles: dict[str, int]                 # single tile -> rubies
    ruby_food: int
    scoring: tuple[ScoringCategory, ...]
    weapon_max_strength: int
    forge_range: tuple[int, int]
    family_limit: int
    furnishing_costs_a: dict[str, Goods]       # the A reading's differing costs
    defaults: Config
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def furnishing(self, furnishing_id: str) -> Furnishing:
        """The furnishing with this id (the entry-level dwelling included)."""
        if furnishing_id == self.entry_level_dwelling.id:
            return self.entry_level_dwelling
        return self._furnishing_by_id[furnishing_id]

    @cached_property
    def _furnishing_by_id(self) -> dict[str, Furnishing]:
        return {f.id: f for f in self.furnishings}

    def round_card(self, card_id: str) -> RoundCard:
        """The round card with this id."""
        return next(c for c in self.round_cards if c.id == card_id)


def _parse_effect(raw: dict[str, Any], atoms: set[str]) -> Effect:
    """An effect tree from the data, refusing unknown combinators and atoms."""
    optional = bool(raw.get("optional", False))
    if "op" in raw:
        op = raw["op"]
        if op not in COMBINATORS:
            raise ValueError(f"rules data: unknown combinator {op!r}")
        if op == "by_weapon":
            parts = (_parse_effect(raw["unarmed"], atoms), _parse_effect(raw["armed"], atoms))
        else:
            parts = tuple(_parse_effect(p, atoms) for p in raw["parts"])
        return Effect(op, parts, optional)
    kind = raw["do"]
    if kind not in atoms:
        raise ValueError(f"rules data: unknown effect atom {kind!r}")
    args = tuple((k, _freeze(v)) for k, v in raw.items() if k not in ("do", "optional"))
    return Effect(kind, (), optional, args)


def _animal_types(types: Any) -> tuple[str, tuple[str, ...]]:
    """('one'|'any', allowed types) from the data's type wording or list."""
    if isinstance(types, list):
        return "one", tuple(types)
    if types in ("any one farm animal type", "one farm type", "any one farm animal"):
        return "one", FARM_ANIMALS
    if types == "any farm animal":
        return "any", FARM_ANIMALS
    raise ValueError(f"rules data: unknown animal types {types!r}")


def _animal_room(raw: dict[str, Any] | None) -> AnimalRoom | None:
    """A furnishing's animal capacity record."""
    if raw is None:
        return None
    mode, types = _animal_types(raw["types"])
    capacity = raw["capacity"]
    if capacity == "number of dwarfs":
        capacity = "dwarfs"
    elif capacity == "1 per empty field":
        capacity = "per_empty_field"
    elif not isinstance(capacity, int):
        raise ValueError(f"rules data: unknown animal capacity {capacity!r}")
    return AnimalRoom(capacity, types, one_type=mode == "one" and capacity != "per_empty_field")


def _furnishing(index: int, f: dict[str, Any]) -> Furnishing:
    """A furnishing record from the data."""
    return Furnishing(
        index=index, id=f["id"], name=f["name"], category=f["category"], supply_block=int(f["supply_block"]),
        cost=freeze_goods(f["cost"]), vp=int(f["vp"]), dwarf_capacity=int(f["dwarf_capacity"]),
        animal_room=_animal_room(f["animal_capacity"]), timing=f["timing"], effect=f["effect"],
        immediate=_freeze(f["immediate"] or {}), bonus_formula=f["bonus_formula"], bonus=_freeze(f["bonus"]),
        params=_freeze(f["params"] or {}), unlimited=f["copies"] != 1, yellow_tag=bool(f["yellow_tag"]),
        beginner_set=bool(f.get("bga_beginner_set", False)), notes=f.get("notes", ""))


def _cost_reading(text: str, names: dict[str, str]) -> dict[str, Goods]:
    """Costs written as 'Trader 2W, Working cave 1W 2S, State parlor 5 gold + 3 wood, ...' by furnishing id."""
    short = {"W": "wood", "S": "stone"}
    costs: dict[str, Goods] = {}
    for entry in text.split(", "):
        name = re.match(r"([A-Za-z ]+?)\s+\d", entry)
        if not name or name.group(1) not in names:
            raise ValueError(f"rules data: cannot read a furnishing cost from {entry!r}")
        amounts = re.findall(r"(\d+)\s*(W|S|wood|stone|ore|gold)\b", entry[name.end(1):])
        costs[names[name.group(1)]] = freeze_goods({short.get(g, g): int(n) for n, g in amounts})
    return costs


_HOLDING_WORDING = {"meadow_stable": "stable on an unfenced meadow",
                    "forest_stable": "stable on an uncovered forest space", "mine": "ore mine / ruby mine"}


def _holding_rules(holdings: list[dict[str, Any]]) -> dict[str, AnimalRoom]:
    """Capacity and animal types of the stable and mine holdings, from the husbandry table."""
    by_where = {h["where"]: h for h in holdings}
    result = {}
    for key, where in _HOLDING_WORDING.items():
        h = by_where[where]
        result[key] = AnimalRoom(int(h["capacity"]), _animal_types(h["types"])[1], one_type=True)
    return result


def _parse(data: dict[str, Any]) -> Rules:
    """The whole table from the data file."""
    atoms = set(data["effect_dsl"]["atoms"])
    spaces: dict[str, ActionSpace] = {}
    for a in data["action_spaces"]:
        spaces[a["id"]] = ActionSpace(
            id=a["id"], name=a["name"], board=a["board"], stage=int(a["stage"]),
            player_counts=tuple(a["player_counts"]),
            accumulation=tuple(Accumulation(x["good"], int(x["if_empty"]), int(x["otherwise"]))
                               for x in a["accumulation"]),
            effect=_parse_effect(a["effect"], atoms), text=a["text"], imitable=bool(a.get("imitable", True)),
            food_cost=a.get("food_cost"),
            food_cost_by_players=tuple((int(k), int(v)) for k, v in a.get("food_cost_bga_by_players", {}).items()),
            fixed_round=a.get("fixed_round"), flips_to=a.get("flips_to"),
            special_accumulation=a.get("special_accumulation"))
    round_cards = tuple(RoundCard(c["id"], int(c["stage"]), tuple(c["rounds"]), tuple(c["players"]))
                        for c in data["round_cards"])
    furnishings = tuple(_furnishing(i, f) for i, f in enumerate(data["furnishings"]))
    eld = data["entry_level_dwelling"]
    entry = Furnishing(
        index=len(furnishings), id=eld["id"], name=eld["name"], category="dwelling", supply_block=0, cost=(),
        vp=int(eld["vp"]), dwarf_capacity=int(eld["dwarf_capacity"]), animal_room=_animal_room(eld["animal_capacity"]),
        timing="ongoing", effect=eld["note"], immediate=(), bonus_formula=None, bonus=None, params=(),
        unlimited=False, yellow_tag=False, beginner_set=False)
    loot = tuple(LootItem(x["id"], int(x["min_strength"]), x["text"], _parse_effect(x["effect"], atoms))
                 for x in data["expedition_loot"])

    hb = data["home_board"]
    special = tuple(SpecialSpace((s["row"], s["col"]), s["area"], s["feature"], freeze_goods(s["on_cover"]))
                    for s in hb["special_spaces"])
    preprinted = {(p["row"], p["col"]): p["content"] for p in hb["preprinted"]}
    entrance = read_numbers(r"facing forest space \(row (\d+), col (\d+)\)", hb["cave_entrance"]["location"],
                       "the cave entrance")

    setup = data["setup"]
    tiles = data["tiles"]
    sowing = tiles["sowing"]
    sow_tokens = {crop: read_numbers(r"\((\d+) on field\)", sowing[crop], f"{crop} sowing")[0]
                  for crop in data["goods"]["crops"]}
    sow_max = read_numbers(r"up to (\d+) grain fields and up to (\d+) vegetable fields", sowing["per_sow_action"],
                      "fields per Sow action")
    conversions = []
    for row in data["food_conversion"]["table"]:
        if row["pay"] == {"gold": "n+1"}:
            for n in (1, 2, 3):     # the printed strip: 2->1, 3->2, 4->3
                conversions.append(Conversion((("gold", n + 1),), (("food", n),)))
        else:
            conversions.append(Conversion(freeze_goods(row["pay"]), freeze_goods(row["get"])))
    rubies = data["rubies"]
    names = {f["name"]: f["id"] for f in data["furnishings"]}
    outliers = next(q for q in data["open_questions"] if q["id"] == "furnishing_cost_outliers")
    forge = data["weapons"]["forge"]["strength_range"]

    defaults = dict(data["config_defaults"])
    rules_ = Rules(
        action_spaces=spaces, round_cards=round_cards,
        solo_round_order={int(k): v for k, v in data["round_card_notes"]["solo_fixed_order"].items()},
        furnishings=furnishings, entry_level_dwelling=entry, loot=loot, special_spaces=special,
        rows=int(hb["rows"]), cols=int(hb["cols"]), forest_cols=tuple(hb["forest"]["cols"]),
        mountain_cols=tuple(hb["mountain"]["cols"]), preprinted=preprinted,
        cave_entrance=(entrance[0], entrance[1]),
        starting_food_by_seat=tuple(setup["starting_food_by_seat"][str(s)]
                                    for s in range(1, len(setup["starting_food_by_seat"]) + 1)),
        starting_food_solo=int(setup["starting_food_solo"]),
        rounds_by_players={int(k): int(v) for k, v in setup["rounds"].items()},
        skipped_round=int(data["solo"]["skipped_round_space"]),
        boards_by_players={int(k): tuple(v) for k, v in setup["boards_by_player_count"].items()},
        board_space_ids_by_players={int(k): tuple(v["board_space_ids"])
                                    for k, v in data["action_space_counts"].items()},
        dwarfs_at_start=int(setup["per_player"]["dwarfs_on_board"]),
        dwarfs_in_supply=int(setup["per_player"]["dwarfs_in_personal_supply"]),
        stables_per_player=int(tiles["stable"]["per_player"]),
        stable_cost=freeze_goods(tiles["stable"]["cost"]),
        small_pasture_cost=freeze_goods(tiles["single"]["small_pasture"]["cost"]),
        large_pasture_cost=freeze_goods(tiles["twin"]["large_pasture"]["cost"]),
        pasture_formula=data["animal_husbandry"]["pasture_formula"],
        holding_rules=_holding_rules(data["animal_husbandry"]["holdings"]),
        sow_tokens=sow_tokens, sow_max_fields={"grain": sow_max[0], "vegetable": sow_max[1]},
        harvest_marker_total=int(data["harvest_events"]["markers"]["total"]),
        harvest_red_markers=int(data["harvest_events"]["markers"]["red_question_mark"]),
        harvest_red_events=tuple(e["id"] for e in sorted(data["harvest_events"]["red_sequence"],
                                                         key=lambda e: e["nth_red"])),
        harvest_fixed={int(k): v for k, v in data["harvest_schedule"].items() if k.isdigit()},
        food_conversions=tuple(conversions), ruby_exchange=tuple(rubies["exchange_1_ruby_for_one"]),
        ruby_cattle=freeze_goods(rubies["cattle"]), ruby_tiles=dict(rubies["single_tiles"]),
        ruby_food=int(rubies["food"]),
        scoring=tuple(ScoringCategory(c["id"], c["rule"], c["formula"]) for c in data["scoring"]["categories"]),
        weapon_max_strength=int(data["weapons"]["max_strength"]), forge_range=(int(forge[0]), int(forge[1])),
        family_limit=int(data["components"]["per_player_color"]["dwarf_discs"]),
        furnishing_costs_a=_cost_reading(outliers["readings"]["A"], names),
        defaults=Config(**defaults), raw=data)
    for category in rules_.scoring:
        formula(category.formula)                       # refuse a formula the evaluator cannot read
    for f in furnishings:
        if f.bonus_formula:
            formula(f.bonus_formula)
    formula(rules_.pasture_formula)
    return rules_


@lru_cache(maxsize=1)
def rules() -> Rules:
    """The parsed rules table (cached)."""
    return _parse(_RAW)


def default_config() -> Config:
    """The defaults of every parameter."""
    return rules().defaults


# ------------------------------------------------------------------------------------------------------
# Per-player-count views

def rounds_played(players: int) -> tuple[int, ...]:
    """The round numbers played (1-2 players: 11 rounds, round space 9 skipped)."""
    r = rules()
    count = r.rounds_by_players[players]
    rounds = tuple(range(1, 13))
    if count == 11:
        rounds = tuple(n for n in rounds if n != r.skipped_round)
    if len(rounds) != count:
        raise ValueError(f"rules data: {count} rounds for {players} players")
    return rounds


def board_space_ids(players: int, config: Config | None = None) -> tuple[str, ...]:
    """The printed action spaces in play for a player count (solo: the 2-player boards minus covered spaces)."""
    config = config or default_config()
    r = rules()
    if players == 1:
        return tuple(s for s in r.board_space_ids_by_players[2] if s not in config.solo_covered_spaces)
    ids = r.board_space_ids_by_players[players]
    if players >= 6 and config.small_scale_drift_mining_counts == "5_to_7":
        ids = tuple("small_scale_drift_mining_5p" if s == "drift_mining_6_7" else s for s in ids)
    return ids


def round_card_ids(players: int) -> tuple[str, ...]:
    """The round cards used with this player count (1-2 players: no Exploration)."""
    return tuple(c.id for c in rules().round_cards if players in c.players)


def stage_rounds(players: int) -> dict[int, tuple[int, ...]]:
    """Stage -> the rounds its cards are revealed in (2 players: stage 3 = rounds 7-8, stage 4 = 10-12)."""
    cards = [rules().round_card(c) for c in round_card_ids(players)]
    played = list(rounds_played(players))
    result: dict[int, tuple[int, ...]] = {}
    for stage in sorted({c.stage for c in cards}):
        n = sum(1 for c in cards if c.stage == stage)
        result[stage], played = tuple(played[:n]), played[n:]
    return result


def fixed_round_card(players: int, round_no: int) -> str | None:
    """The round card that is not shuffled into round `round_no` (solo: every round's; else Wish for children in 4)."""
    r = rules()
    if players == 1:
        return r.solo_round_order[round_no]
    return next((cid for cid in round_card_ids(players) if r.action_spaces[cid].fixed_round == round_no), None)


def shuffled_round_cards(players: int) -> dict[int, tuple[str, ...]]:
    """Stage -> its round cards shuffled at setup, in data order (solo: none, the solo order is fixed)."""
    if players == 1:
        return {}
    r = rules()
    return {stage: tuple(cid for cid in round_card_ids(players)
                         if r.round_card(cid).stage == stage and r.action_spaces[cid].fixed_round is None)
            for stage in stage_rounds(players)}


def shuffled_card_rounds(players: int) -> dict[int, tuple[int, ...]]:
    """Stage -> the rounds its shuffled cards are turned up in (the k-th round gets the k-th card of the stage)."""
    if players == 1:
        return {}
    return {stage: tuple(n for n in rounds if fixed_round_card(players, n) is None)
            for stage, rounds in stage_rounds(players).items()}


def starting_food(seat: int, players: int) -> int:
    """Food at setup for a seat (0 = starting player, then clockwise); solo: the solo amount."""
    r = rules()
    if players == 1:
        return r.starting_food_solo
    return r.starting_food_by_seat[seat]


def harvest_marker_rounds(players: int) -> tuple[int, ...]:
    """Rounds carrying a harvest marker (from round 6, played rounds only; solo: none)."""
    if players == 1:
        return ()
    return tuple(n for n in rounds_played(players) if n >= 6)


def harvest_marker_mix(players: int) -> tuple[int, int]:
    """(green, red) harvest markers in play: surplus green markers are removed (2 players: one)."""
    r = rules()
    n = len(harvest_marker_rounds(players))
    if n == 0:
        return 0, 0
    return n - r.harvest_red_markers, r.harvest_red_markers


def harvest_event(round_no: int, players: int) -> str:
    """How a round ends: none / normal / feed_1_per_dwarf (rounds 1-5), then `marker` (solo: `normal`)."""
    r = rules()
    if round_no in r.harvest_fixed:
        return r.harvest_fixed[round_no]
    return "marker" if round_no in harvest_marker_rounds(players) else "normal"


def accumulation(space_id: str, config: Config | None = None, players: int | None = None,
                 round_no: int | None = None) -> tuple[Accumulation, ...]:
    """Refill of a space under the parameters (A swaps the Logging spaces); Ruby mining's 2-player pause."""
    config = config or default_config()
    r = rules()
    space = r.action_spaces[space_id]
    if config.logging_accumulation == "A" and space_id in ("logging_1_3", "logging_4_7"):
        other = "logging_4_7" if space_id == "logging_1_3" else "logging_1_3"
        return r.action_spaces[other].accumulation
    if space.special_accumulation and players is not None and round_no is not None:
        paused_players, first, last = read_numbers(r"(\d+) players: nothing is added in rounds (\d+) and (\d+)",
                                              space.special_accumulation, "the Ruby mining pause")
        if players == paused_players and first <= round_no <= last:
            return ()
    return space.accumulation


def imitation_cost(space_id: str, players: int, config: Config | None = None) -> int:
    """Food paid to use an Imitation space under the parameters."""
    config = config or default_config()
    space = rules().action_spaces[space_id]
    if space.food_cost is None:
        raise ValueError(f"{space_id} is not an Imitation space")
    if config.imitation_cost_table == "fixed_per_space":
        return int(space.food_cost)
    return dict(space.food_cost_by_players)[players]


def loot_items(config: Config | None = None) -> tuple[LootItem, ...]:
    """The 23 loot items, the Meadow item's minimum strength from the parameters."""
    config = config or default_config()
    return tuple(LootItem(x.id, config.meadow_loot_min_strength, x.text, x.effect) if x.id == "meadow" else x
                 for x in rules().loot)


def loot_available(strength: int, config: Config | None = None) -> tuple[LootItem, ...]:
    """Loot items a weapon of this strength may choose."""
    return tuple(x for x in loot_items(config) if x.min_strength <= strength)
