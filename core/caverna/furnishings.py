"""Furnishing tiles (rules file section 11): costs with discounts, where they go, and what they do, as data.

All 48 types come from the data file (`rules().furnishings`); the entry-level dwelling is a pre-printed
furnishing with the same record shape. A player's furnishings are read off the home board (`board.owns`).

- Cost: `payment_options(board, fid)` lists every way to pay, with the Carpenter (1 wood less), Stone carver
  (1 stone less) and Builder (1 ore for 1 wood and/or 1 ore for 1 stone) of the board applied; the A
  reading's five costs with `furnishing_cost_source="A"`; `fence_cost`, `stable_cost`, `forge_cost` likewise.
- Placement: `furnish_targets` / `furnish` (empty caverns; ordinary and deep tunnels too with the Work room;
  Trader and Spare part storage go on top of each other); `may_furnish` filters by the action's wording
  (any tile, dwellings only, the ordinary Dwelling only).
- Dwarfs: `dwarf_room`, `family_limit`, `can_grow_family` (Additional dwelling: room for a 6th dwarf only).
- Effects the State queries: `animal_rooms` (capacity), `conversion_options` (food conversions, ruby
  exchanges and any-time trades), `feeding_substitutes` / `feeding_discount` (Working / Mining cave),
  `breeding_food` / `breeding_stone` (Breeding cave / Quarry), `round_start_ore` (Miner), `supplier`
  (Wood/Stone/Ruby supplier), `triggered_gains` (Seam, Dog school), `on_build_gains` (immediate goods),
  `either_or_is_and_or` (Guest room), `overhang_gold` (Office room).
- Scoring: `vp` (printed points; Simple dwellings per `simple_dwelling_vp`; an overbuilt tile scores 0) and
  `bonus_points(fid, summary)` from the tile's bonus formula.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from . import board as hb
from .rules import (FARM_ANIMALS, AnimalRoom, Config, Furnishing, Goods, Pos, add_goods, default_config, formula,
                    freeze_goods, read_numbers, rules)
from .summary import PlayerSummary, adjacent_dwellings, bonus_variables

ORDINARY_DWELLING = "dwelling"


def furnishing(fid: str) -> Furnishing:
    """The record of a furnishing type (the entry-level dwelling included)."""
    return rules().furnishing(fid)


def furnishing_ids() -> tuple[str, ...]:
    """The 48 furnishing types, in data order."""
    return tuple(f.id for f in rules().furnishings)


def owned(board: hb.Board, config: Config | None = None) -> list[str]:
    """Ids of the working furnishings on a board (the entry-level dwelling included)."""
    return [fid for _, fid in hb.furnishings_on(board, config)]


# ------------------------------------------------------------------------------------------------------
# Costs

def base_cost(fid: str, config: Config | None = None) -> dict[str, int]:
    """The printed cost under `furnishing_cost_source`."""
    config = config or default_config()
    if config.furnishing_cost_source == "A" and fid in rules().furnishing_costs_a:
        return dict(rules().furnishing_costs_a[fid])
    return dict(furnishing(fid).cost)


@lru_cache(maxsize=1)
def _builder_swaps() -> tuple[int, int, int, int]:
    """(ore, wood, ore, stone): the Builder's substitutions, read from its text."""
    return read_numbers(r"pay (\d+) ore instead of (\d+) wood and/or (\d+) ore instead of (\d+) stone",
                   furnishing("builder").effect, "the Builder's substitution")  # type: ignore[return-value]


def _discounted(cost: dict[str, int], board: hb.Board) -> dict[str, int]:
    """A cost less the Carpenter's wood and the Stone carver's stone."""
    cost = dict(cost)
    if hb.owns(board, "carpenter") and cost.get("wood", 0) > 0:
        cost["wood"] = max(0, cost["wood"] - furnishing("carpenter").param("wood_discount"))
    if hb.owns(board, "stone_carver") and cost.get("stone", 0) > 0:
        cost["stone"] = max(0, cost["stone"] - furnishing("stone_carver").param("stone_discount"))
    return {g: n for g, n in cost.items() if n}


BUILDER_SWAPS: tuple[tuple[str, ...], ...] = ((), ("wood",), ("stone",), ("wood", "stone"))


def payment_choices(board: hb.Board, fid: str, config: Config | None = None,
                    cost: Mapping[str, int] | None = None) -> dict[tuple[str, ...], dict[str, int]]:
    """The ways to pay for a furnishing (or for `cost`, e.g. a loot Dwelling's 2 wood + 2 stone) on this board,
    keyed by the Builder swaps used (`()`: the cost after the Carpenter and Stone carver discounts; `("wood",)`:
    1 ore instead of 1 wood; ...). Swaps that change nothing (no wood or stone left to swap) are left out."""
    paid = _discounted(dict(cost) if cost is not None else base_cost(fid, config), board)
    choices = {(): paid}
    if hb.owns(board, "builder"):
        ore_w, wood, ore_s, stone = _builder_swaps()
        for swaps in BUILDER_SWAPS[1:]:
            swap_wood, swap_stone = int("wood" in swaps), int("stone" in swaps)
            if paid.get("wood", 0) < wood * swap_wood or paid.get("stone", 0) < stone * swap_stone:
                continue
            choices[swaps] = add_goods(paid, {"wood": -wood * swap_wood, "stone": -stone * swap_stone,
                                              "ore": ore_w * swap_wood + ore_s * swap_stone})
    return choices


def payment_options(board: hb.Board, fid: str, config: Config | None = None,
                    cost: Mapping[str, int] | None = None) -> list[dict[str, int]]:
    """Every distinct way to pay for a furnishing (or for `cost`) on this board (`payment_choices`' values)."""
    unique: list[dict[str, int]] = []
    for option in payment_choices(board, fid, config, cost).values():
        if option not in unique:
            unique.append(option)
    return unique


def can_pay(supply: Mapping[str, int], cost: Mapping[str, int]) -> bool:
    """True when the supply holds the whole cost."""
    return all(supply.get(g, 0) >= n for g, n in cost.items())


def stable_cost(board: hb.Board, cost: Mapping[str, int] | None = None) -> dict[str, int]:
    """A stable's cost on this board (Stone carver: 1 stone less, so free)."""
    cost = dict(cost) if cost is not None else dict(rules().stable_cost)
    if hb.owns(board, "stone_carver") and cost.get("stone", 0) > 0:
        cost["stone"] = max(0, cost["stone"] - furnishing("stone_carver").param("stone_discount"))
    return {g: n for g, n in cost.items() if n}


def fence_cost(board: hb.Board, small: bool, large: bool, config: Config | None = None,
               small_cost: Mapping[str, int] | None = None,
               large_cost: Mapping[str, int] | None = None) -> dict[str, int]:
    """Cost of one build-fences action fencing a small and/or a large pasture (Carpenter per the parameters)."""
    config = config or default_config()
    parts = []
    if small:
        parts.append(dict(small_cost) if small_cost is not None else dict(rules().small_pasture_cost))
    if large:
        parts.append(dict(large_cost) if large_cost is not None else dict(rules().large_pasture_cost))
    if hb.owns(board, "carpenter"):
        discount = furnishing("carpenter").param("wood_discount")
        if config.carpenter_fence_discount == "per_pasture":
            parts = [add_goods(p, {"wood": -min(discount, p.get("wood", 0))}) for p in parts]
        else:
            total = add_goods(*parts)
            parts = [add_goods(total, {"wood": -min(discount, total.get("wood", 0))})]
    return add_goods(*parts)


def forge_cost(board: hb.Board, strength: int) -> dict[str, int]:
    """Ore paid to forge a weapon of this strength (Blacksmith: 2 ore less)."""
    low, high = rules().forge_range
    if not low <= strength <= high:
        raise ValueError(f"a new weapon has strength {low}-{high}, not {strength}")
    ore = strength
    if hb.owns(board, "blacksmith"):
        ore = max(0, ore - furnishing("blacksmith").param("forge_ore_discount"))
    return {"ore": ore} if ore else {}


# ------------------------------------------------------------------------------------------------------
# Placement

@lru_cache(maxsize=1)
def exclusive_pairs() -> dict[str, str]:
    """Furnishings that exclude each other (Trader, Spare part storage): id -> the other id."""
    names = {f.name: f.id for f in rules().furnishings}
    pairs: dict[str, str] = {}
    for f in rules().furnishings:
        if "Mutually exclusive with" in f.notes:
            other = f.notes.split("Mutually exclusive with", 1)[1].strip(" .").split(" (")[0]
            other = other.split(":")[0].strip()
            pairs[f.id] = names[other]
            pairs[names[other]] = f.id
    return pairs


def may_furnish(fid: str, wording: str) -> bool:
    """Whether an action's furnish wording (`filter` in the data) allows this tile."""
    f = furnishing(fid)
    if fid == rules().entry_level_dwelling.id:
        return False
    if "ordinary" in wording:
        return fid == ORDINARY_DWELLING
    if "dwelling tiles only" in wording:
        return f.is_dwelling
    return True


def furnish_targets(board: hb.Board, fid: str, config: Config | None = None) -> list[Pos]:
    """Spaces this furnishing may be placed on (empty list: the player may not build it)."""
    config = config or default_config()
    f = furnishing(fid)
    if fid == rules().entry_level_dwelling.id:
        return []
    if not f.unlimited and any(s.furnishing == fid or s.overbuilt == fid
                               for _, s in board.items(usable_only=False)):
        return []
    rival = exclusive_pairs().get(fid)
    if rival and hb.owns(board, rival):
        return [p for p, s in board.items(config) if s.furnishing == rival]
    allowed = {hb.CAVERN}
    if hb.owns(board, "work_room"):
        allowed |= {hb.TUNNEL, hb.DEEP_TUNNEL}
    return [p for p, s in board.items(config) if s.terrain in allowed and not s.furnishing]


def furnish(board: hb.Board, fid: str, pos: Pos, config: Config | None = None) -> hb.Board:
    """The board with the furnishing placed; PlacementError saying why when it may not go there."""
    targets = furnish_targets(board, fid, config)
    if pos not in targets:
        space = dict(board.items(config)).get(pos)      # an overhang half that is not usable is no space
        if not targets:
            why = f"{fid} cannot be built on this board (already owned, or no empty cavern)"
        elif space is None:
            why = f"{pos} is not a usable space"
        elif space.furnishing:
            why = f"{pos} already holds {space.furnishing}"
        else:
            why = f"{pos} is a {space.terrain}; {fid} goes on {', '.join(map(str, targets))}"
        raise hb.PlacementError(f"cannot furnish {fid} on {pos}: {why}")
    old = board.at(pos)
    assert old is not None
    return board.with_spaces({pos: replace(old, furnishing=fid, overbuilt=old.furnishing)})


# ------------------------------------------------------------------------------------------------------
# Dwarfs

def dwarf_room(board: hb.Board, dwarfs: int) -> int:
    """Room for dwarfs in the dwellings (the Additional dwelling adds its room only from the 5th dwarf on)."""
    room = 0
    for fid in owned(board):
        f = furnishing(fid)
        only_for = f.param("room_only_for_dwarf_number")
        if only_for is not None and dwarfs < only_for - 1:
            continue
        room += f.dwarf_capacity
    return room


def family_limit(board: hb.Board) -> int:
    """Most dwarfs a family may have (5; 6 with the Additional dwelling)."""
    limits = [furnishing(fid).param("raises_family_cap_to") for fid in owned(board)]
    return max([rules().family_limit] + [n for n in limits if n])


def can_grow_family(board: hb.Board, dwarfs: int) -> bool:
    """A family growth needs more dwelling room than dwarfs and fewer dwarfs than the limit."""
    return dwarfs < dwarf_room(board, dwarfs) and dwarfs < family_limit(board)


# ------------------------------------------------------------------------------------------------------
# Effects as data

def animal_rooms(board: hb.Board, config: Config | None = None) -> list[tuple[str, Pos, AnimalRoom]]:
    """(furnishing id, space, animal room) for every furnishing that houses animals (capacity effects)."""
    rooms = []
    for pos, fid in hb.furnishings_on(board, config):
        room = furnishing(fid).animal_room
        if room is not None:
            rooms.append((fid, pos, room))
    return rooms


@dataclass(frozen=True)
class Trade:
    """An exchange a player may make: pay goods, get goods (rules file sections 7 and 11)."""

    source: str                    # food_conversion, ruby, or the furnishing id
    pay: Goods
    get: Goods
    anytime_before_scoring: bool = False
    once_per_harvest: bool = False
    note: str = ""


def _slaughter_bonus() -> int:
    """Extra food per farm animal converted with the Slaughtering cave."""
    return read_numbers(r"Take (\d+) extra food for every farm animal", furnishing("slaughtering_cave").effect,
                   "the Slaughtering cave bonus")[0]


def conversion_options(board: hb.Board, config: Config | None = None) -> list[Trade]:
    """Every conversion and trade open to this board's owner (food table, rubies, furnishing trades)."""
    config = config or default_config()
    r = rules()
    slaughter = hb.owns(board, "slaughtering_cave")
    trades: list[Trade] = []
    for c in r.food_conversions:
        get = dict(c.get)
        animals = sum(n for g, n in c.pay if g in FARM_ANIMALS)
        if slaughter and animals:
            get = add_goods(get, {"food": animals * _slaughter_bonus()})
        trades.append(Trade("food_conversion", c.pay, freeze_goods(get)))
    for good in r.ruby_exchange:
        trades.append(Trade("ruby", (("ruby", 1),), ((good, 1),)))
    trades.append(Trade("ruby", r.ruby_cattle, (("cattle", 1),)))
    for fid in owned(board, config):
        f = furnishing(fid)
        if f.timing != "anytime" or f.param("pay") is None:
            if fid == "peaceful_cave":
                trades.append(Trade(fid, (("weapon", 1),), (), note="food equal to the discarded weapon's strength"))
            continue
        before_scoring = before_scoring_trade(fid)
        once = before_scoring and config.anytime_trades_once_per_harvest
        options = f.param("get_either") or [f.param("get")]
        for get in options:
            trades.append(Trade(fid, freeze_goods(f.param("pay")), freeze_goods(get), before_scoring, once))
    return trades


def before_scoring_trade(fid: str) -> bool:
    """Whether a furnishing trades "at any time before scoring" (Trader, Spare part storage, the parlors): the
    trades the `anytime_trades_once_per_harvest` reading limits."""
    f = furnishing(fid)
    return f.timing == "anytime" and f.param("pay") is not None and f.effect.startswith("At any time before scoring")


def feeding_substitutes(board: hb.Board) -> list[dict[str, int]]:
    """Goods that may feed exactly one dwarf per feeding instead of food (Working cave)."""
    if not hb.owns(board, "working_cave"):
        return []
    wood, stone, ore = read_numbers(r"with (\d+) wood, or (\d+) stone, or (\d+) ore", furnishing("working_cave").effect,
                               "the Working cave's payments")
    return [{"wood": wood}, {"stone": stone}, {"ore": ore}]


def feeding_discount(board: hb.Board, donkeys_in_mines: int) -> int:
    """Food a feeding costs less (Mining cave: per donkey in the Ore and Ruby mines)."""
    if not hb.owns(board, "mining_cave"):
        return 0
    per = read_numbers(r"(\d+) food less per donkey", furnishing("mining_cave").effect, "the Mining cave discount")[0]
    return per * donkeys_in_mines


def breeding_food(board: hb.Board, newborns: int) -> int:
    """Food taken when animals breed (Breeding cave: 1/2/3/5 for 1/2/3/4 newborns)."""
    if not hb.owns(board, "breeding_cave") or newborns <= 0:
        return 0
    table = furnishing("breeding_cave").param("food_by_newborns")
    return int(table[str(min(newborns, max(int(k) for k in table)))])


def breeding_stone(board: hb.Board, newborn_donkeys: int) -> int:
    """Stone taken for newborn donkeys (Quarry)."""
    if not hb.owns(board, "quarry"):
        return 0
    per = read_numbers(r"Take (\d+) stone for each newborn donkey", furnishing("quarry").effect,
                       "the Quarry's stone")[0]
    return per * newborn_donkeys


def round_start_ore(board: hb.Board, ore_mines_with_donkey: int) -> int:
    """Ore taken at the start of a round (Miner: per Ore mine holding a donkey)."""
    if not hb.owns(board, "miner"):
        return 0
    per = read_numbers(r"take (\d+) ore for each Ore mine holding a donkey", furnishing("miner").effect,
                       "the Miner's ore")[0]
    return per * ore_mines_with_donkey


def supplier(fid: str) -> tuple[str, int] | None:
    """(good, number of following round spaces) for a supplier tile, else None."""
    f = furnishing(fid)
    good, count = f.param("good"), f.param("rounds")
    return (good, int(count)) if good and count else None


def triggered_gains(board: hb.Board, gains: Mapping[str, int]) -> dict[str, int]:
    """Extra goods that receiving `gains` triggers (Seam: ore per stone; Dog school: wood per new dog)."""
    extra: dict[str, int] = {}
    if hb.owns(board, "seam") and gains.get("stone", 0) > 0:
        extra = add_goods(extra, {"ore": gains["stone"]})
    if hb.owns(board, "dog_school") and gains.get("dog", 0) > 0:
        per = read_numbers(r"Take (\d+) wood for each new dog", furnishing("dog_school").effect,
                           "the Dog school's wood")[0]
        extra = add_goods(extra, {"wood": per * gains["dog"]})
    return extra


def on_build_gains(board_after: hb.Board, fid: str, pos: Pos, animals: Mapping[str, int],
                   config: Config | None = None) -> dict[str, int]:
    """Goods a furnishing pays when built (the printed immediate gain). What they trigger (Seam ore for the
    Stone carver's stone) is not included: the state adds `triggered_gains` to every gain, this one too."""
    gains: dict[str, int] = {}
    for good, amount in furnishing(fid).immediate:
        if isinstance(amount, int):
            gains = add_goods(gains, {good: amount})
            continue
        per, what = _number_and_word(amount)
        if what == "adjacent dwelling":
            count = adjacent_dwellings(board_after, pos, config)
        else:
            count = animals.get(what, 0)
        gains = add_goods(gains, {good: per * count})
    return gains


def _number_and_word(text: str) -> tuple[int, str]:
    """('2 per adjacent dwelling') -> (2, 'adjacent dwelling')."""
    m = re.fullmatch(r"(\d+) per (sheep|cattle|adjacent dwelling)", text)
    if not m:
        raise ValueError(f"rules data: cannot read an immediate gain from {text!r}")
    return int(m.group(1)), m.group(2)


def either_or_is_and_or(board: hb.Board) -> bool:
    """True with the Guest room: 'either ... or' action spaces become 'and/or' for this player."""
    return hb.owns(board, "guest_room")


def overhang_gold(board: hb.Board) -> int:
    """Gold per overhanging twin tile (0 without the Office room)."""
    return furnishing("office_room").param("gold_per_overhang") if hb.owns(board, "office_room") else 0


# ------------------------------------------------------------------------------------------------------
# Scoring

def vp(fid: str, config: Config | None = None) -> int:
    """Printed points of a furnishing (the two Simple dwellings per `simple_dwelling_vp`)."""
    config = config or default_config()
    f = furnishing(fid)
    if f.is_dwelling and f.name == "Simple dwelling":
        return config.simple_dwelling_vp
    return f.vp


def bonus_points(fid: str, summary: PlayerSummary, config: Config | None = None) -> int:
    """End-game bonus points of a furnishing the summary's player owns, from its bonus formula (0 if none)."""
    config = config or default_config()
    f = furnishing(fid)
    if not f.bonus_formula:
        return 0
    pos = next((p for p, owned_id in hb.furnishings_on(summary.board, config) if owned_id == fid), None)
    return formula(f.bonus_formula)(bonus_variables(summary, config, pos))
