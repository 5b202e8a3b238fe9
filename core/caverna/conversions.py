"""Always-allowed conversions: what a player can afford counting them, and how a cost is paid by converting.

The rulebook lets a player convert at any time (rules file section 7; rulebook "Food Conversion Rules" and
"Rubies"): goods to food by the table on the home board, rubies 1:1 into wood, stone, ore, grain, vegetable,
gold, sheep, donkey, wild boar or dog (cattle: 1 ruby + 1 food), and the furnishings' trades (Cooking cave,
Slaughtering cave, Trader, Spare part storage, Beer / Hunting / Blacksmithing parlor). So every cost and every
precondition must count what a conversion could bring, before a dwarf is placed and in the middle of paying.
This module is the one place that does it, on plain tuples (`KEYS` order) so that it can be memoised and
copied by a compiled core:

- `food_potential(holdings, sources, once)`: the most food the player can hold after converting now
  (Imitation, feeding and every food payment use it);
- `payment_plan(holdings, cost, sources, once)`: the conversions (CONVERT action ids, in order) after which the
  player holds the whole cost, or None when no sequence of conversions gets there; `can_afford` is
  `payment_plan(...) is not None` with fast paths. The engine pays a cost by carrying the plan out, then
  taking the cost.

`sources` are the conversion sources the player may use now: `food_conversion`, `ruby` and the furnishings
they own (without those already used in this harvest window under `anytime_trades_once_per_harvest`); `once`
are the sources among them that may be used once more only (that reading's limited trades).

What is counted, and the defaults chosen where the rules leave a choice:
- Gold: the printed strip, 2/3/4 gold -> 1/2/3 food (the rulebook: "1/2/3 Food cost 2/3/4 Gold"); larger
  amounts take several exchanges (5 gold -> 3 food, 6 -> 4, 8 -> 6). The rulebook's words "pay one more Gold
  than the amount of Food" could be read as any n+1 gold -> n food in one exchange; the engine follows the
  printed strip (and its conversion actions are those three).
- Donkeys: 1 food each, 3 for two together; the Slaughtering cave adds 1 food per farm animal converted (two
  donkeys: 5). Cooking cave: 1 grain + 1 vegetable -> 5 food. Beer parlor: 2 grain -> 4 food (or 3 gold).
  Hunting parlor: 2 wild boar -> 2 gold + 2 food; Blacksmithing parlor: 1 ruby + 1 ore -> 2 gold + 1 food;
  Spare part storage: 1 wood + 1 stone + 1 ore -> 2 gold; Trader: 2 gold -> 1 wood + 1 stone + 1 ore.
- Not counted: the Peaceful cave (giving up a weapon is a decision, not a conversion of goods: it stays an
  explicit action), the Working cave (it feeds a dwarf, it makes no food: an explicit action of the feeding),
  and dogs, wood, stone, ore and dwarfs as food (the rulebook: worth no food).

Which conversions pay a cost (the default when there is a choice; a player who wants another way converts
first with the conversion actions): goods that are short are made first, each from the conversion that loses
the fewest points (by the score sheet: 1 per gold, ruby, vegetable and animal, 1/2 per grain, 2 more for the
last animal of a farm type; food, wood, stone and ore 0), then food, one conversion (or short chain, e.g.
ruby -> vegetable then the Cooking cave) at a time, the one losing the fewest points per food still needed,
among those after which the rest can still be raised; ties in the order of the action table (the home
board's food table first: gold, grain, vegetable, ruby, animals). Goods the cost itself needs are never
converted to make the rest.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .actions import action_table
from .rules import ANIMALS, FARM_ANIMALS, GOODS

KEYS: tuple[str, ...] = GOODS + ANIMALS
INDEX = {k: i for i, k in enumerate(KEYS)}
FOOD = INDEX["food"]
NON_FOOD = tuple(i for i, k in enumerate(KEYS) if k != "food")
(WOOD, STONE, ORE, GRAIN, VEGETABLE, RUBY, GOLD, SHEEP, DONKEY, WILD_BOAR, CATTLE) = (
    INDEX[k] for k in ("wood", "stone", "ore", "grain", "vegetable", "ruby", "gold", "sheep", "donkey",
                       "wild_boar", "cattle"))
FARM = tuple(INDEX[a] for a in FARM_ANIMALS)
POINTS = tuple({"gold": 1.0, "ruby": 1.0, "vegetable": 1.0, "grain": 0.5}.get(k, 1.0 if k in ANIMALS else 0.0)
               for k in KEYS)
Holdings = tuple[int, ...]


def holdings(goods: dict[str, int], animals: dict[str, int]) -> Holdings:
    """A player's supply and animals as a tuple in `KEYS` order."""
    return tuple(goods[k] if k in goods else animals.get(k, 0) for k in KEYS)


def as_cost(cost: dict[str, int]) -> Holdings:
    """A cost dict as a tuple in `KEYS` order."""
    out = [0] * len(KEYS)
    for g, n in cost.items():
        out[INDEX[g]] += n
    return tuple(out)


def covers(h: Holdings, cost: Holdings) -> bool:
    return all(a >= b for a, b in zip(h, cost))


@dataclass(frozen=True)
class Row:
    """One conversion: its CONVERT action id, source, and what it pays and gets (tuples in `KEYS` order)."""

    id: int
    source: str
    pay: Holdings
    get: Holdings


@lru_cache(maxsize=None)
def _all_rows() -> tuple[Row, ...]:
    table = action_table()
    return tuple(Row(i, table.specs[i].source, as_cost(dict(table.specs[i].pay)), as_cost(dict(table.specs[i].get)))
                 for i in table.convert)


def _slaughter_bonus() -> int:
    from .furnishings import _slaughter_bonus as bonus
    return bonus()


@lru_cache(maxsize=256)
def rows(sources: frozenset[str]) -> tuple[Row, ...]:
    """The conversions these sources allow, the Slaughtering cave's bonus included (as `reference._convert`)."""
    slaughter = _slaughter_bonus() if "slaughtering_cave" in sources else 0
    out = []
    for r in _all_rows():
        if r.source not in sources:
            continue
        animals = sum(r.pay[i] for i in FARM)
        if r.source == "food_conversion" and animals and slaughter:
            get = list(r.get)
            get[FOOD] += animals * slaughter
            r = Row(r.id, r.source, r.pay, tuple(get))
        out.append(r)
    return tuple(out)


def _apply(h: Holdings, r: Row) -> Holdings:
    return tuple(a - p + g for a, p, g in zip(h, r.pay, r.get))


def _value(h: Holdings) -> float:
    """Points the holdings are worth on the score sheet (approximately: grain at 1/2 each)."""
    return sum(p * n for p, n in zip(POINTS, h)) - 2.0 * sum(1 for i in FARM if h[i] == 0)


def _gold_food(gold: int) -> int:
    """Food from gold by the printed strip (2/3/4 -> 1/2/3), in as few exchanges as possible."""
    return 3 * (gold // 4) + max(0, gold % 4 - 1)


@lru_cache(maxsize=65536)
def food_potential(h: Holdings, sources: frozenset[str], once: frozenset[str] = frozenset()) -> int:
    """The most food the player can hold after converting now (food in hand included).

    Exact for the conversions this module counts (checked against a search over every conversion sequence in
    the tests): animals each by the table (donkeys in pairs), rubies as 2 food (3 with the Slaughtering cave,
    through a wild boar) or as the grain/vegetable that completes a Cooking cave or Beer parlor pair, or with
    ore through the Blacksmithing parlor; grain and vegetables in Cooking cave pairs, then Beer parlor pairs,
    then one by one; gold by the strip, after the Spare part storage and Blacksmithing parlor made more. The
    Hunting parlor, the Beer parlor's gold, the Trader and rubies into gold never raise more food than these.
    """
    slaughter = _slaughter_bonus() if "slaughtering_cave" in sources else 0
    s = slaughter
    food = h[FOOD]
    animals = (h[SHEEP] * (1 + s) + (h[DONKEY] // 2) * (3 + 2 * s) + (h[DONKEY] % 2) * (1 + s)
               + h[WILD_BOAR] * (2 + s) + h[CATTLE] * (3 + s))
    cook = "cooking_cave" in sources
    beer = "beer_parlor" in sources
    smith = "blacksmithing_parlor" in sources
    spare = "spare_part_storage" in sources
    big = 1 << 30
    beer_max = 1 if "beer_parlor" in once else big
    smith_max = 1 if "blacksmithing_parlor" in once else big
    spare_max = 1 if "spare_part_storage" in once else big
    grain, veg, rubies, gold = h[GRAIN], h[VEGETABLE], h[RUBY], h[GOLD]
    wood, stone, ore = h[WOOD], h[STONE], h[ORE]
    ruby_food = 2 + s
    best = 0
    for to_grain in (range(rubies + 1) if (cook or beer) else (0,)):
        most_veg = min(rubies - to_grain, max(0, grain + to_grain - veg)) if cook else 0
        for to_veg in range(most_veg + 1):
            g, v = grain + to_grain, veg + to_veg
            pairs = min(g, v) if cook else 0
            beers = min((g - pairs) // 2, beer_max) if beer else 0
            crops = 5 * pairs + 4 * beers + (g - pairs - 2 * beers) + 2 * (v - pairs)
            left = rubies - to_grain - to_veg
            for smiths in (range(min(left, ore, smith_max) + 1) if smith else (0,)):
                spares = min(wood, stone, ore - smiths, spare_max) if spare else 0
                total = (crops + _gold_food(gold + 2 * smiths + 2 * spares) + (left - smiths) * ruby_food
                         + smiths)
                if total > best:
                    best = total
    return food + animals + best


@lru_cache(maxsize=256)
def _macros(sources: frozenset[str]) -> tuple[tuple[Row, ...], ...]:
    """The food steps a payment chooses from: every conversion that makes food or gold (but the rubies' plain
    exchanges), then the short ruby chains `food_potential` counts."""
    available = rows(sources)
    by_key: dict[tuple[str, tuple[int, ...]], Row] = {}
    for r in available:
        by_key[r.source, r.get] = r
    singles = [(r,) for r in available if r.source != "ruby" and r.source != "trader"
               and (r.get[FOOD] > r.pay[FOOD] or r.get[GOLD] > 0)]

    def ruby_to(good: str) -> Row | None:
        return by_key.get(("ruby", as_cost({good: 1})))

    def furnishing_food(source: str) -> Row | None:
        return next((r for r in available if r.source == source and r.get[FOOD] > 0), None)

    chains: list[tuple[Row, ...]] = []
    cooking = furnishing_food("cooking_cave")
    beer = furnishing_food("beer_parlor")
    to_grain, to_veg, to_boar = ruby_to("grain"), ruby_to("vegetable"), ruby_to("wild_boar")
    if cooking and to_grain and to_veg:
        chains += [(to_veg, cooking), (to_grain, cooking), (to_grain, to_veg, cooking)]
    if beer and to_grain:
        chains.append((to_grain, beer))
    boar = next((r for r in available if r.source == "food_conversion" and r.pay == as_cost({"wild_boar": 1})), None)
    if "slaughtering_cave" in sources and to_boar and boar:
        chains.append((to_boar, boar))
    return tuple(singles) + tuple(chains)


def _run(h: Holdings, reserved: Holdings, steps: tuple[Row, ...], sources: frozenset[str],
         once: frozenset[str]) -> tuple[Holdings, frozenset[str], frozenset[str]] | None:
    """The holdings after the steps, each paid from what the cost does not need (None: one cannot be paid)."""
    for r in steps:
        if r.source not in sources:
            return None
        if not all(a - p >= k for a, p, k in zip(h, r.pay, reserved) if p):
            return None
        h = _apply(h, r)
        if r.source in once:
            sources, once = sources - {r.source}, once - {r.source}
    return h, sources, once


def _free(h: Holdings, reserved: Holdings) -> Holdings:
    return tuple(a - k if i != FOOD else a for i, (a, k) in enumerate(zip(h, reserved)))


def _food_steps(h: Holdings, need: int, reserved: Holdings, sources: frozenset[str],
                once: frozenset[str]) -> list[tuple[tuple[int, int], tuple[Row, ...], tuple]]:
    """The food steps possible now after which `need` can still be raised, each with its greedy key (points
    lost per food still needed, then its index)."""
    out = []
    for index, steps in enumerate(_macros(sources)):
        after = _run(h, reserved, steps, sources, once)
        if after is None:
            continue
        h2, sources2, once2 = after
        if food_potential(_free(h2, reserved), sources2, once2) < need:
            continue
        useful = min(h2[FOOD] - h[FOOD], need - h[FOOD])
        loss = _value(h) - _value(h2)
        out.append(((loss / useful if useful > 0 else float("inf"), index), steps, after))
    return out


def _greedy(h: Holdings, need: int, reserved: Holdings, sources: frozenset[str], once: frozenset[str],
            plan: list[int]) -> Holdings | None:
    """Raise the food to `need` one cheapest step at a time (appending to `plan`); the holdings after."""
    while h[FOOD] < need:
        steps_now = _food_steps(h, need, reserved, sources, once)
        if not steps_now:       # cannot happen while food_potential is exact for the steps (tested)
            return None
        _, steps, (h, sources, once) = min(steps_now, key=lambda o: o[0])
        plan.extend(r.id for r in steps)
    return h


def _food_plan(h: Holdings, cost: Holdings, sources: frozenset[str], once: frozenset[str]) -> tuple[int, ...] | None:
    """The food part of a payment: every possible first step, each finished greedily; the one losing the
    fewest points wins (then the one leaving the most food, then the first step's index)."""
    need = cost[FOOD]
    reserved = tuple(0 if i == FOOD else c for i, c in enumerate(cost))
    if food_potential(_free(h, reserved), sources, once) < need:
        return None
    best = None
    for (_, index), steps, (h2, sources2, once2) in _food_steps(h, need, reserved, sources, once):
        plan = [r.id for r in steps]
        end = _greedy(h2, need, reserved, sources2, once2, plan)
        if end is None:
            continue
        key = (_value(h) - _value(end), -end[FOOD], index)
        if best is None or key < best[0]:
            best = (key, plan)
    return tuple(best[1]) if best is not None else None


@lru_cache(maxsize=65536)
def payment_plan(h: Holdings, cost: Holdings, sources: frozenset[str],
                 once: frozenset[str] = frozenset()) -> tuple[int, ...] | None:
    """The conversions (CONVERT action ids, in order) after which the player holds the whole cost; None when
    none gets there. `()` when the player holds it already. See the module docstring for the choices made."""
    if covers(h, cost):
        return ()
    short = next((i for i in NON_FOOD if h[i] < cost[i]), None)
    if short is None:
        return _food_plan(h, cost, sources, once)
    options = []
    base = _value(h)
    for r in rows(sources):
        if r.get[short] <= r.pay[short]:
            continue
        if not all(a - p >= k for a, p, k in zip(h, r.pay, cost) if p):
            continue        # never convert what the cost itself needs
        h2 = _apply(h, r)
        options.append((base - _value(h2), r.id, r, h2))
    for _, _, r, h2 in sorted(options, key=lambda o: (o[0], o[1])):
        sources2, once2 = (sources - {r.source}, once - {r.source}) if r.source in once else (sources, once)
        rest = payment_plan(h2, cost, sources2, once2)
        if rest is not None:
            return (r.id,) + rest
    return None


@lru_cache(maxsize=65536)
def _feasible(h: Holdings, cost: Holdings, sources: frozenset[str], once: frozenset[str]) -> bool:
    """`payment_plan(...) is not None`, without choosing the food conversions (the food part is feasible
    exactly when `food_potential` of what the cost leaves free reaches it)."""
    short = next((i for i in NON_FOOD if h[i] < cost[i]), None)
    if short is None:
        reserved = tuple(0 if i == FOOD else c for i, c in enumerate(cost))
        return h[FOOD] >= cost[FOOD] or food_potential(_free(h, reserved), sources, once) >= cost[FOOD]
    for r in rows(sources):
        if r.get[short] <= r.pay[short] or not all(a - p >= k for a, p, k in zip(h, r.pay, cost) if p):
            continue
        sources2, once2 = (sources - {r.source}, once - {r.source}) if r.source in once else (sources, once)
        if _feasible(_apply(h, r), cost, sources2, once2):
            return True
    return False


MAKERS = frozenset({"trader", "spare_part_storage", "blacksmithing_parlor", "hunting_parlor", "beer_parlor"})


def can_afford(h: Holdings, cost: Holdings, sources: frozenset[str], once: frozenset[str] = frozenset()) -> bool:
    """Whether the player holds the cost or can get it by converting now (`payment_plan` is not None)."""
    if covers(h, cost):
        return True
    if not cost[FOOD] and not h[RUBY] and not (sources & MAKERS):
        return False        # nothing could make the missing goods
    return _feasible(h, cost, sources, once)
