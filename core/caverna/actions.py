"""The Caverna action table: every atomic action, its id and its readable notation, built from the rules data.

Ids are positions in one table built in a fixed order from the data, the same for every player count and
parameter setting (a parameter changes legality, never numbering). Sub-actions are *generic* (`tile
meadow_field at meadow 3,2 + field 3,1`, `furnish dwelling at 2,3`, `sow grain at 3,1`, `loot wood`): the
effect tree of the space a dwarf stands on decides which of them are legal and which part of the space they
carry out (see `reference.py`). Kinds:

- `place <space id>`: put the next dwarf on an action space (`order`: pay 1 ruby to put the armed dwarf of a
  given strength next instead);
- `take goods`: an either/or or and/or part that gives goods (Growth's goods, Housework's dog, Sheep farming's
  sheep, Urgent wish's gold); goods parts that are not a choice are taken automatically;
- `tile ...`, `build stable at r,c`, `furnish <id> at r,c`, `sow <crop> at r,c`, `grow family`,
  `forge weapon <k>`, `loot <item>`, `breed <types>`, `trade ...` (Ore trading), `buy <good> for <n> gold`
  (Weekly market), `buy <tile> ... for <n> ruby` (rubies' single tiles), `imitate <space id>`;
- `convert ...`: food conversions, ruby exchanges and furnishing trades; `Peaceful cave: discard a strength-k
  weapon for k food`; `release <animal>`;
- `feed`, `Working cave: feed a dwarf with ...`; `harvest fields` / `harvest breeding` (the third red
  harvest event); `keep <space id> for 1 ruby` (solo clean-up); `skip`; `end turn`;
- `pay as printed`, `pay 1 ore instead of 1 wood`, ...: how to pay for the furnishing just chosen, when the
  Builder makes more than one payment affordable.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from . import board as hb
from .furnishings import BUILDER_SWAPS
from .rules import FARM_ANIMALS, Pos, rules

(PLACE, ORDER, END_TURN, COLLECT, TILE, STABLE, FURNISH, SOW, GROW, FORGE, LOOT, BREED, TRADE, MARKET, BUY_TILE,
 IMITATE, CONVERT, RELEASE, FEED, WORKING_CAVE, HARVEST_CHOICE, SOLO_KEEP, SKIP, PEACEFUL, PAY) = range(25)

KIND_NAMES: tuple[str, ...] = ("place", "order", "end_turn", "collect", "tile", "stable", "furnish", "sow", "grow",
                               "forge", "loot", "breed", "trade", "market", "buy_tile", "imitate", "convert",
                               "release", "feed", "working_cave", "harvest_choice", "solo_keep", "skip",
                               "peaceful", "pay")
"""The kinds' names, by kind number (decision records name the kind of each move)."""
assert len(KIND_NAMES) == PAY + 1

MARKET_PRICES = {"wood": 1, "stone": 1, "ore": 1, "grain": 1, "sheep": 1, "donkey": 1, "dog": 2,
                 "wild_boar": 2, "vegetable": 2, "cattle": 3}


@dataclass(frozen=True)
class ActionSpec:
    """One atomic action: its kind, notation and parameters."""

    id: int
    kind: int
    text: str
    space: str = ""                            # PLACE, IMITATE, SOLO_KEEP
    placement: hb.Placement | None = None      # TILE, BUY_TILE (stable: STABLE)
    fid: str = ""                              # FURNISH
    pos: Pos | None = None                     # FURNISH, SOW, STABLE
    crop: str = ""                             # SOW
    number: int = 0                            # FORGE strength, ORDER strength, BUY_TILE rubies
    item: str = ""                             # LOOT
    types: tuple[str, ...] = ()                # BREED
    good: str = ""                             # MARKET, RELEASE, WORKING_CAVE
    source: str = ""                           # CONVERT: food_conversion, ruby, or a furnishing id
    pay: tuple[tuple[str, int], ...] = ()      # CONVERT
    get: tuple[tuple[str, int], ...] = ()      # CONVERT (printed; the Slaughtering cave adds food)
    swaps: tuple[str, ...] = ()                # PAY: the goods the Builder replaces by ore


def pos_text(pos: Pos) -> str:
    """`row,col` (overhang positions have -1 or 4 / -1 or 6)."""
    return f"{pos[0]},{pos[1]}"


def goods_text(goods: tuple[tuple[str, int], ...]) -> str:
    """`2 gold + 1 food`."""
    return " + ".join(f"{n} {g}" for g, n in goods) if goods else "nothing"


def _positions(area_name: str | None = None, overhang: bool = True) -> list[Pos]:
    r = rules()
    cells = [(row, col) for row in range(r.rows) for col in range(r.cols)]
    if overhang:
        cells += hb.overhang_positions(hb.FOREST) + hb.overhang_positions(hb.MOUNTAIN)
    return [p for p in cells if area_name is None or hb.area(p) == area_name]


def _tile_placements() -> list[hb.Placement]:
    """Every placement of every tile worth numbering (geometry only; legality is the board's business)."""
    result: list[hb.Placement] = []
    board_cells = _positions(overhang=False)
    all_cells = _positions()
    for tile, halves in hb.TILE_HALVES.items():
        if tile == "stable":
            continue
        if len(halves) == 1:
            area_name = hb.FOREST if halves[0] in hb.FOREST_TERRAINS else hb.MOUNTAIN
            result.extend(hb.Placement(tile, (p,), halves) for p in board_cells if hb.area(p) == area_name)
            continue
        overhang = tile in hb.NEW_LAND
        cells = all_cells if overhang else board_cells
        seen = set()
        for a in cells:
            for b in cells:
                if not hb.adjacent(a, b) or (not hb.on_board(a) and not hb.on_board(b)):
                    continue
                if hb.area(a) != hb.area(b):
                    continue
                want = hb.FOREST if halves[0] in hb.FOREST_TERRAINS else hb.MOUNTAIN
                if hb.area(a) != want:
                    continue
                key = frozenset(((a, halves[0]), (b, halves[1])))
                if key in seen:
                    continue
                seen.add(key)
                result.append(hb.Placement(tile, (a, b), halves))
    return result


def placement_text(p: hb.Placement) -> str:
    """`meadow_field at meadow 3,2 + field 3,1`."""
    return str(p)


@dataclass(frozen=True)
class ActionTable:
    """The one action table and its indexes."""

    specs: tuple[ActionSpec, ...]
    by_text: dict[str, int]
    place: dict[str, int]
    order: dict[int, int]
    end_turn: int
    collect: int
    tile: dict[hb.Placement, int]
    stable: dict[Pos, int]
    furnish: dict[tuple[str, Pos], int]
    sow: dict[tuple[str, Pos], int]
    grow: int
    forge: dict[int, int]
    loot: dict[str, int]
    breed: dict[tuple[str, ...], int]
    trade: int
    market: dict[str, int]
    buy_tile: dict[hb.Placement, int]
    tile_key: dict[tuple[str, frozenset], int]     # (tile, {(cell, half)}) -> TILE id, either order of halves
    buy_key: dict[tuple[str, frozenset], int]
    imitate: dict[str, int]
    convert: tuple[int, ...]
    release: dict[str, int]
    feed: int
    working_cave: dict[str, int]
    harvest_choice: dict[str, int]
    solo_keep: dict[str, int]
    skip: int
    peaceful: dict[int, int]
    pay: dict[tuple[str, ...], int]
    feed_converting: int            # `feed` after converting what is missing (`feed` itself begs for it)

    def __len__(self) -> int:
        return len(self.specs)


def normalize_text(text: str) -> str:
    """Notation compared without case and spacing differences."""
    return " ".join(text.lower().replace("->", " -> ").split())


def conversion_rows() -> list[tuple[str, tuple, tuple]]:
    """(source, pay, get) of every conversion any board may offer (printed get; see `furnishings`)."""
    r = rules()
    rows = [("food_conversion", c.pay, c.get) for c in r.food_conversions]
    rows += [("ruby", (("ruby", 1),), ((good, 1),)) for good in r.ruby_exchange]
    rows.append(("ruby", r.ruby_cattle, (("cattle", 1),)))
    for f in r.furnishings:
        if f.timing != "anytime" or f.param("pay") is None:
            continue
        pay = tuple(f.param("pay").items())
        for get in f.param("get_either") or [f.param("get")]:
            rows.append((f.id, pay, tuple(get.items())))
    return rows


@lru_cache(maxsize=1)
def action_table() -> ActionTable:
    """The one action table (cached)."""
    r = rules()
    specs: list[ActionSpec] = []

    def add(kind: int, text: str, **kw: Any) -> int:
        specs.append(ActionSpec(id=len(specs), kind=kind, text=text, **kw))
        return len(specs) - 1

    place = {sid: add(PLACE, f"place {sid}", space=sid) for sid in r.action_spaces}
    order = {k: add(ORDER, f"pay 1 ruby: place the strength-{k} dwarf next", number=k)
             for k in range(1, r.weapon_max_strength + 1)}
    end_turn = add(END_TURN, "end turn")
    collect = add(COLLECT, "take goods")
    placements = _tile_placements()
    tile = {p: add(TILE, "tile " + placement_text(p), placement=p) for p in placements}
    stable = {p: add(STABLE, f"build stable at {pos_text(p)}", pos=p) for p in _positions(hb.FOREST)}
    furnish = {(f.id, p): add(FURNISH, f"furnish {f.id} at {pos_text(p)}", fid=f.id, pos=p)
               for f in r.furnishings for p in _positions(hb.MOUNTAIN)}
    sow = {(crop, p): add(SOW, f"sow {crop} at {pos_text(p)}", crop=crop, pos=p)
           for crop in r.sow_tokens for p in _positions(hb.FOREST)}
    grow = add(GROW, "grow family")
    low, high = r.forge_range
    forge = {k: add(FORGE, f"forge weapon {k}", number=k) for k in range(low, high + 1)}
    loot = {x.id: add(LOOT, f"loot {x.id}", item=x.id) for x in r.loot}
    breed = {}
    for size in range(1, len(FARM_ANIMALS) + 1):
        for types in combinations(FARM_ANIMALS, size):
            breed[types] = add(BREED, "breed " + "+".join(types), types=types)
    trade_effect = r.action_spaces["ore_trading"].effect
    trade = add(TRADE, f"trade {goods_text(tuple(trade_effect.arg('pay').items()))} -> "
                       f"{goods_text(tuple(trade_effect.arg('get').items()))}")
    market = {g: add(MARKET, f"buy {g} for {price} gold", good=g, number=price) for g, price in MARKET_PRICES.items()}
    buy_tile = {p: add(BUY_TILE, f"buy {placement_text(p)} for {r.ruby_tiles[p.tile]} ruby",
                       placement=p, number=r.ruby_tiles[p.tile])
                for p in placements if p.tile in r.ruby_tiles}
    imitate = {sid: add(IMITATE, f"imitate {sid}", space=sid) for sid, s in r.action_spaces.items() if s.imitable
               or s.food_cost is not None}
    convert = tuple(add(CONVERT, f"convert {goods_text(pay)} -> {goods_text(get)}"
                        + ("" if source in ("food_conversion", "ruby") else f" ({source})"),
                        source=source, pay=pay, get=get)
                    for source, pay, get in conversion_rows())
    release = {a: add(RELEASE, f"release {a}", good=a) for a in FARM_ANIMALS}
    feed = add(FEED, "feed")
    working_cave = {g: add(WORKING_CAVE, f"Working cave: feed a dwarf with {n} {g}", good=g, number=n)
                    for g, n in (("wood", 1), ("stone", 1), ("ore", 2))}
    harvest_choice = {c: add(HARVEST_CHOICE, f"harvest {c}", good=c) for c in ("fields", "breeding")}
    solo_keep = {sid: add(SOLO_KEEP, f"keep {sid} for 1 ruby", space=sid)
                 for sid, s in r.action_spaces.items() if s.accumulates}
    skip = add(SKIP, "skip")
    peaceful = {k: add(PEACEFUL, f"Peaceful cave: discard a strength-{k} weapon for {k} food", number=k)
                for k in range(1, r.weapon_max_strength + 1)}
    # appended last so that adding them kept every older id
    pay = {swaps: add(PAY, "pay " + (" and ".join(f"1 ore instead of 1 {g}" for g in swaps) or "as printed"),
                      swaps=swaps)
           for swaps in BUILDER_SWAPS}
    feed_converting = add(FEED, "feed, converting what is missing", number=1)

    by_text: dict[str, int] = {}
    for spec in specs:
        key = normalize_text(spec.text)
        if key in by_text:
            raise ValueError(f"two actions share the notation {spec.text!r}")
        by_text[key] = spec.id
    for spec in specs:           # a twin with equal halves may be named in either order
        pl = spec.placement
        if pl is not None and len(pl.cells) == 2 and pl.halves[0] == pl.halves[1]:
            swapped = hb.Placement(pl.tile, pl.cells[::-1], pl.halves)
            alias = spec.text.replace(placement_text(pl), placement_text(swapped))
            by_text.setdefault(normalize_text(alias), spec.id)
    tile_key = {placement_key(pl): i for pl, i in tile.items()}
    buy_key = {placement_key(pl): i for pl, i in buy_tile.items()}
    return ActionTable(tuple(specs), by_text, place, order, end_turn, collect, tile, stable, furnish, sow, grow,
                       forge, loot, breed, trade, market, buy_tile, tile_key, buy_key, imitate, convert, release,
                       feed, working_cave, harvest_choice, solo_keep, skip, peaceful, pay, feed_converting)


def placement_key(p: hb.Placement) -> tuple[str, frozenset]:
    """A placement's identity whatever the order of its cells."""
    return p.tile, frozenset(zip(p.cells, p.halves))
