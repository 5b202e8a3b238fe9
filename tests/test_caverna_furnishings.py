"""Caverna furnishing tiles (shared/rules/caverna.md section 11, with 4, 6, 7, 9, 10 where tiles change them):
costs and discounts, placement, dwarf room, the effects the game loop queries, and bonus points."""
from __future__ import annotations

import random

import pytest

from cavekit.core.caverna import board as hb
from cavekit.core.caverna import furnishings as fu
from cavekit.core.caverna.board import PlacementError, initial_board, parse_board
from cavekit.core.caverna.rules import formula, make_config, rules, thaw
from cavekit.core.caverna.summary import PlayerSummary

R = rules()
START = initial_board()


def with_tiles(*furnishings: str, extra_caverns: int = 0):
    """The setup board with caverns added in the mountain and the given tiles furnished on them."""
    free = [(0, 3), (0, 4), (0, 5), (1, 3), (1, 4), (1, 5), (2, 4), (2, 5), (3, 4), (3, 5)]
    b = START.with_spaces({p: hb.Space(hb.CAVERN) for p in free[:len(furnishings) + extra_caverns]})
    for fid, pos in zip(furnishings, free):
        b = fu.furnish(b, fid, pos)
    return b


# -- the tiles -----------------------------------------------------------------------------------------

def test_48_types_with_costs_and_points():
    assert len(fu.furnishing_ids()) == 48 and len(set(fu.furnishing_ids())) == 48
    assert fu.furnishing("dwelling").cost == (("wood", 4), ("stone", 3)) and fu.vp("dwelling") == 3
    assert fu.furnishing("dog_school").cost == () and fu.furnishing("state_parlor").cost == (("gold", 5), ("stone", 3))
    assert [f.id for f in R.furnishings if f.is_dwelling] == [
        "dwelling", "simple_dwelling_4w2s", "simple_dwelling_3w3s", "mixed_dwelling", "couple_dwelling",
        "additional_dwelling"]
    assert sum(f.bonus_formula is not None for f in R.furnishings) == 14


def test_simple_dwelling_points_both_readings():
    """Section 14 simple_dwelling_vp: 0 (default) or 2."""
    assert fu.vp("simple_dwelling_4w2s") == 0 and fu.vp("simple_dwelling_3w3s") == 0
    two = make_config(simple_dwelling_vp=2)
    assert fu.vp("simple_dwelling_4w2s", two) == 2 and fu.vp("simple_dwelling_3w3s", two) == 2
    assert fu.vp("dwelling", two) == 3


def test_cost_readings():
    """Section 14 furnishing_cost_outliers: B+S+G (default) vs A."""
    a = make_config(furnishing_cost_source="A")
    assert fu.base_cost("trader") == {"wood": 1} and fu.base_cost("trader", a) == {"wood": 2}
    assert fu.base_cost("state_parlor", a) == {"gold": 5, "wood": 3}
    assert fu.base_cost("dwelling", a) == fu.base_cost("dwelling")
    assert fu.payment_options(START, "seam", a) == [{"stone": 2}]


# -- discounts ------------------------------------------------------------------------------------------

def test_payment_without_discounts_is_the_printed_cost():
    assert fu.payment_options(START, "dwelling") == [{"wood": 4, "stone": 3}]
    assert fu.payment_options(START, "dog_school") == [{}]


def test_carpenter_and_stone_carver():
    carpenter = with_tiles("carpenter")
    assert fu.payment_options(carpenter, "dwelling") == [{"wood": 3, "stone": 3}]
    assert fu.payment_options(carpenter, "work_room") == [{"stone": 1}]          # no wood to save
    carver = with_tiles("stone_carver")
    assert fu.payment_options(carver, "dwelling") == [{"wood": 4, "stone": 2}]
    assert fu.payment_options(carver, "blacksmithing_parlor") == [{"ore": 3}]
    both = with_tiles("carpenter", "stone_carver")
    assert fu.payment_options(both, "cuddle_room") == [{}]
    assert fu.payment_options(both, "guest_room") == [{}]
    assert fu.payment_options(both, "dwelling", cost={"wood": 2, "stone": 2}) == [{"wood": 1, "stone": 1}]


def test_builder_pays_ore_for_one_wood_and_or_one_stone():
    builder = with_tiles("builder")
    assert fu.payment_choices(builder, "dwelling") == {
        (): {"wood": 4, "stone": 3}, ("wood",): {"wood": 3, "stone": 3, "ore": 1},
        ("stone",): {"wood": 4, "stone": 2, "ore": 1}, ("wood", "stone"): {"wood": 3, "stone": 2, "ore": 2}}
    assert fu.payment_options(builder, "dwelling") == list(fu.payment_choices(builder, "dwelling").values())
    assert fu.payment_options(builder, "trader") == [{"wood": 1}, {"ore": 1}]
    assert fu.payment_options(builder, "stone_storage") == [{"wood": 3, "ore": 1}, {"wood": 2, "ore": 2}]
    assert fu.payment_options(with_tiles("builder", "carpenter"), "trader") == [{}]


def test_can_pay():
    assert fu.can_pay({"wood": 4, "stone": 3, "food": 1}, {"wood": 4, "stone": 3})
    assert not fu.can_pay({"wood": 4}, {"wood": 4, "stone": 3})


@pytest.mark.parametrize("rule,expected", [("per_action", 5), ("per_pasture", 4)])
def test_carpenter_fence_discount_both_readings(rule, expected):
    """Section 14 carpenter_fence_discount: 1 wood less per build-fences action, or per pasture."""
    config = make_config(carpenter_fence_discount=rule)
    assert fu.fence_cost(START, True, True, config) == {"wood": 6}
    carpenter = with_tiles("carpenter")
    assert fu.fence_cost(carpenter, True, True, config) == {"wood": expected}
    assert fu.fence_cost(carpenter, True, False, config) == {"wood": 1}
    assert fu.fence_cost(carpenter, False, True, config) == {"wood": 3}
    assert fu.fence_cost(carpenter, True, False, config, small_cost={"wood": 1}) == {}     # loot: 1 wood


def test_stable_and_forge_costs():
    assert fu.stable_cost(START) == {"stone": 1} and fu.stable_cost(with_tiles("stone_carver")) == {}
    assert fu.forge_cost(START, 8) == {"ore": 8}
    smith = with_tiles("blacksmith")
    assert fu.forge_cost(smith, 8) == {"ore": 6} and fu.forge_cost(smith, 2) == {} and fu.forge_cost(smith, 1) == {}
    with pytest.raises(ValueError, match="a new weapon has strength 1-8, not 9"):
        fu.forge_cost(smith, 9)


# -- placement ------------------------------------------------------------------------------------------

def test_furnishings_go_on_empty_caverns_only():
    assert fu.furnish_targets(START, "dwelling") == [(2, 3)]                     # the pre-printed cavern
    assert fu.furnish_targets(START, "entry_level_dwelling") == []
    b = parse_board(". . . | C T D\n. . . | O R .\n. . . | C:carpenter . .\n. . . | E . .")
    assert fu.furnish_targets(b, "cuddle_room") == [(0, 3)]
    with pytest.raises(PlacementError, match="is a tunnel"):
        fu.furnish(b, "cuddle_room", (0, 4))
    with pytest.raises(PlacementError, match="already holds carpenter"):
        fu.furnish(b, "dwelling", (2, 3))
    b = fu.furnish(b, "cuddle_room", (0, 3))
    assert fu.furnish_targets(b, "breakfast_room") == []
    with pytest.raises(PlacementError, match="cannot be built"):
        fu.furnish(b, "breakfast_room", (0, 3))


def test_work_room_allows_tunnels_and_deep_tunnels_never_mines():
    b = parse_board(". . . | C T D\n. . . | O R .\n. . . | C:work_room . .\n. . . | E . .")
    assert fu.furnish_targets(b, "dwelling") == [(0, 3), (0, 4), (0, 5)]
    b = fu.furnish(b, "dwelling", (0, 4))
    assert b.at((0, 4)) == hb.Space(hb.TUNNEL, furnishing="dwelling")
    assert not any((0, 4) in p.cells for t in ("ruby_mine", "ore_mine_deep_tunnel") for p in hb.legal_placements(b, t))
    assert hb.unused_spaces(b) == hb.unused_spaces(parse_board(
        ". . . | C T D\n. . . | O R .\n. . . | C . .\n. . . | E . ."))


def test_unique_tiles_once_ordinary_dwellings_many_times():
    b = with_tiles("dwelling", "dwelling", "cuddle_room", extra_caverns=2)
    assert len(fu.furnish_targets(b, "dwelling")) == 3            # 2 new caverns and the pre-printed one
    assert fu.furnish_targets(b, "cuddle_room") == []
    assert [fid for fid in fu.owned(b)].count("dwelling") == 2


def test_trader_and_spare_part_storage_overbuild_each_other():
    b = with_tiles("trader", extra_caverns=2)
    assert fu.furnish_targets(b, "spare_part_storage") == [(0, 3)]
    b = fu.furnish(b, "spare_part_storage", (0, 3))
    assert b.at((0, 3)) == hb.Space(hb.CAVERN, furnishing="spare_part_storage", overbuilt="trader")
    assert "trader" not in fu.owned(b) and fu.furnish_targets(b, "trader") == []
    assert [t.source for t in fu.conversion_options(b) if t.source in ("trader", "spare_part_storage")] == [
        "spare_part_storage"]
    assert fu.exclusive_pairs() == {"trader": "spare_part_storage", "spare_part_storage": "trader"}


def test_which_tiles_an_action_may_furnish():
    assert fu.may_furnish("cuddle_room", "any furnishing tile incl. dwellings")
    assert fu.may_furnish("couple_dwelling", "dwelling tiles only")
    assert not fu.may_furnish("cuddle_room", "dwelling tiles only")
    assert fu.may_furnish("dwelling", "dwelling (ordinary)")
    assert not fu.may_furnish("mixed_dwelling", "dwelling (ordinary)")
    assert not fu.may_furnish("entry_level_dwelling", "any")


# -- dwarfs -----------------------------------------------------------------------------------------------

def test_dwelling_room_and_family_growth():
    assert fu.dwarf_room(START, 2) == 2 and not fu.can_grow_family(START, 2)
    b = with_tiles("dwelling")
    assert fu.dwarf_room(b, 2) == 3 and fu.can_grow_family(b, 2) and not fu.can_grow_family(b, 3)
    b = with_tiles("couple_dwelling", "dwelling")
    assert fu.dwarf_room(b, 4) == 5 and fu.can_grow_family(b, 4) and fu.family_limit(b) == 5


def test_additional_dwelling_only_houses_a_sixth_dwarf():
    b = with_tiles("additional_dwelling", "dwelling")
    assert fu.family_limit(b) == 6
    assert fu.dwarf_room(b, 3) == 3 and not fu.can_grow_family(b, 3)       # its room is not there yet
    b = with_tiles("additional_dwelling", "couple_dwelling", "dwelling")
    assert fu.dwarf_room(b, 4) == 5 and fu.can_grow_family(b, 4)
    assert fu.dwarf_room(b, 5) == 6 and fu.can_grow_family(b, 5) and not fu.can_grow_family(b, 6)
    no_extra = with_tiles("couple_dwelling", "dwelling", "dwelling")
    assert fu.dwarf_room(no_extra, 5) == 6 and not fu.can_grow_family(no_extra, 5)    # the limit is 5


# -- effects as data --------------------------------------------------------------------------------------

def test_animal_rooms():
    b = with_tiles("mixed_dwelling", "breakfast_room", "cuddle_room", "stubble_room", "dwelling")
    rooms = {fid: room for fid, _, room in fu.animal_rooms(b)}
    assert set(rooms) == {"entry_level_dwelling", "mixed_dwelling", "breakfast_room", "cuddle_room", "stubble_room"}
    assert rooms["breakfast_room"].capacity == 3 and rooms["breakfast_room"].types == ("cattle",)
    assert rooms["cuddle_room"].capacity == "dwarfs" and rooms["cuddle_room"].types == ("sheep",)
    assert rooms["stubble_room"].capacity == "per_empty_field" and not rooms["stubble_room"].one_type
    assert rooms["entry_level_dwelling"].capacity == 2 and len(rooms["entry_level_dwelling"].types) == 4


def trades(board, config=None):
    return {(t.source, t.pay, t.get) for t in fu.conversion_options(board, config)}


def test_food_conversions_and_ruby_exchanges():
    options = trades(START)
    assert ("food_conversion", (("donkey", 2),), (("food", 3),)) in options
    assert ("food_conversion", (("gold", 4),), (("food", 3),)) in options
    assert ("ruby", (("ruby", 1),), (("wild_boar", 1),)) in options
    assert ("ruby", (("ruby", 1), ("food", 1)), (("cattle", 1),)) in options
    assert not any(pay == (("dog", 1),) for _, pay, _ in options)              # dogs are not food


def test_slaughtering_cave_adds_a_food_per_farm_animal():
    options = trades(with_tiles("slaughtering_cave"))
    assert ("food_conversion", (("donkey", 2),), (("food", 5),)) in options
    assert ("food_conversion", (("cattle", 1),), (("food", 4),)) in options
    assert ("food_conversion", (("grain", 1),), (("food", 1),)) in options


def test_any_time_trades_of_furnishings():
    b = with_tiles("cooking_cave", "beer_parlor", "hunting_parlor", "blacksmithing_parlor", "trader",
                   "peaceful_cave", "slaughtering_cave")
    options = trades(b)
    assert ("cooking_cave", (("grain", 1), ("vegetable", 1)), (("food", 5),)) in options
    assert ("beer_parlor", (("grain", 2),), (("gold", 3),)) in options
    assert ("beer_parlor", (("grain", 2),), (("food", 4),)) in options
    assert ("hunting_parlor", (("wild_boar", 2),), (("gold", 2), ("food", 2))) in options   # no slaughter bonus
    assert ("blacksmithing_parlor", (("ruby", 1), ("ore", 1)), (("gold", 2), ("food", 1))) in options
    assert ("trader", (("gold", 2),), (("wood", 1), ("stone", 1), ("ore", 1))) in options
    assert any(t.source == "peaceful_cave" for t in fu.conversion_options(b))


@pytest.mark.parametrize("once", [False, True])
def test_any_time_trade_limits_both_readings(once):
    """Section 14 anytime_trade_limits: unlimited (default) or once per building per harvest."""
    b = with_tiles("beer_parlor", "trader", "cooking_cave")
    config = make_config(anytime_trades_once_per_harvest=once)
    by_source = {t.source: t for t in fu.conversion_options(b, config)}
    assert by_source["trader"].once_per_harvest is once and by_source["beer_parlor"].once_per_harvest is once
    assert by_source["trader"].anytime_before_scoring
    assert by_source["cooking_cave"].once_per_harvest is False


def test_feeding_breeding_and_round_start_effects():
    assert fu.feeding_substitutes(START) == [] and fu.feeding_discount(START, 3) == 0
    assert fu.feeding_substitutes(with_tiles("working_cave")) == [{"wood": 1}, {"stone": 1}, {"ore": 2}]
    assert fu.feeding_discount(with_tiles("mining_cave"), 3) == 3
    breeding = with_tiles("breeding_cave", "quarry")
    assert [fu.breeding_food(breeding, n) for n in range(5)] == [0, 1, 2, 3, 5]
    assert fu.breeding_food(START, 4) == 0
    assert fu.breeding_stone(breeding, 1) == 1 and fu.breeding_stone(START, 1) == 0
    assert fu.round_start_ore(with_tiles("miner"), 2) == 2 and fu.round_start_ore(START, 2) == 0


def test_suppliers():
    assert fu.supplier("wood_supplier") == ("wood", 7)
    assert fu.supplier("stone_supplier") == ("stone", 5) and fu.supplier("ruby_supplier") == ("ruby", 4)
    assert fu.supplier("dwelling") is None


def test_triggered_gains_seam_and_dog_school():
    b = with_tiles("seam", "dog_school")
    assert fu.triggered_gains(b, {"stone": 3, "dog": 2, "wood": 1}) == {"ore": 3, "wood": 2}
    assert fu.triggered_gains(START, {"stone": 3, "dog": 2}) == {}


def test_gains_when_built():
    b = with_tiles("stone_carver")
    assert fu.on_build_gains(b, "stone_carver", (0, 3), {}) == {"stone": 2}
    b = with_tiles("seam", "stone_carver")
    # Only the printed gain: the Seam's ore for it is added by the state, like for every other gain.
    assert fu.on_build_gains(b, "stone_carver", (0, 4), {}) == {"stone": 2}
    assert fu.on_build_gains(with_tiles("blacksmith"), "blacksmith", (0, 3), {}) == {"ore": 2}
    assert fu.on_build_gains(with_tiles("weaving_parlor"), "weaving_parlor", (0, 3), {"sheep": 5}) == {"food": 5}
    assert fu.on_build_gains(with_tiles("milking_parlor"), "milking_parlor", (0, 3), {"cattle": 2}) == {"food": 2}
    state = parse_board(". . . | . . .\n. . . | C:dwelling C:dwelling .\n. . . | C:state_parlor C:dwelling .\n"
                        ". . . | E . .")
    assert fu.on_build_gains(state, "state_parlor", (2, 3), {}) == {"food": 6}    # (1,3), (2,4) and (3,3)
    assert fu.on_build_gains(START, "dwelling", (2, 3), {}) == {}


def test_guest_room_and_office_room():
    assert fu.either_or_is_and_or(with_tiles("guest_room")) and not fu.either_or_is_and_or(START)
    assert fu.overhang_gold(with_tiles("office_room")) == 2 and fu.overhang_gold(START) == 0


# -- bonus points -----------------------------------------------------------------------------------------

def summary_with(*tiles, goods=None, animals=None, dwarfs=2, weapons=(), begging=0, board=None):
    b = board or with_tiles(*tiles)
    return PlayerSummary.make(b, goods, animals, dwarfs, weapons, begging)


@pytest.mark.parametrize("fid,kwargs,points", [
    ("weaving_parlor", {"animals": {"sheep": 7}}, 3),
    ("milking_parlor", {"animals": {"cattle": 4}}, 4),
    ("stone_storage", {"goods": {"stone": 5}}, 5),
    ("ore_storage", {"goods": {"ore": 7}}, 3),
    ("weapon_storage", {"dwarfs": 4, "weapons": (1, 14)}, 6),
    ("supplies_storage", {"dwarfs": 3, "weapons": (1, 2, 3)}, 8),
    ("supplies_storage", {"dwarfs": 3, "weapons": (1, 2)}, 0),
    ("broom_chamber", {"dwarfs": 4}, 0),
    ("broom_chamber", {"dwarfs": 5}, 5),
    ("broom_chamber", {"dwarfs": 6}, 10),
    ("treasure_chamber", {"goods": {"ruby": 4}}, 4),
    ("prayer_chamber", {}, 8),
    ("prayer_chamber", {"weapons": (3,)}, 0),
    ("fodder_chamber", {"animals": {"sheep": 4, "cattle": 4, "dog": 9}}, 2),
    ("hunting_parlor", {}, 0),
])
def test_bonus_formulas(fid, kwargs, points):
    assert fu.bonus_points(fid, summary_with(fid, **kwargs)) == points


def test_main_storage_counts_yellow_tiles_itself_included():
    s = summary_with("main_storage", "beer_parlor", "prayer_chamber", "carpenter")
    assert fu.bonus_points("main_storage", s) == 6
    overbuilt = summary_with(board=fu.furnish(with_tiles("main_storage", "spare_part_storage"), "trader", (0, 4)))
    assert fu.bonus_points("main_storage", overbuilt) == 2      # the Spare part storage lies under the Trader


def test_state_parlor_counts_adjacent_dwellings_the_entry_level_one_included():
    b = parse_board(". . . | . . .\n. . . | C:couple_dwelling . .\n. . . | C:state_parlor C:mixed_dwelling .\n"
                    ". . . | E C:dwelling .")
    assert fu.bonus_points("state_parlor", summary_with(board=b)) == 12
    lone = parse_board(". . . | . . .\n. . . | . . C:state_parlor\n. . . | C . C\n. . . | E . .")
    assert fu.bonus_points("state_parlor", summary_with(board=lone)) == 0


@pytest.mark.parametrize("scope,points", [("supply_and_fields", 8), ("supply_only", 2)])
def test_food_chamber_both_readings(scope, points):
    """Section 14 food_chamber_scope: grain/vegetables in supply and on fields (default) or supply only."""
    b = fu.furnish(parse_board(". . . | C . .\n. F:g3 F:v2 | . . .\n. . M | C . .\n. . . | E . ."),
                   "food_chamber", (0, 3))
    s = summary_with(board=b, goods={"grain": 1, "vegetable": 4})
    assert fu.bonus_points("food_chamber", s, make_config(food_chamber_counts=scope)) == points


def test_writing_chamber_refunds_up_to_seven_negative_points():
    b = with_tiles("writing_chamber")
    few = summary_with(board=b, animals={"sheep": 1, "donkey": 1, "wild_boar": 1})    # -2 missing cattle
    full = parse_board("M M M | C:writing_chamber C C\nM M M | C C C\nM M M | C C C\nM M M | E C C")
    assert fu.bonus_points("writing_chamber", PlayerSummary.make(full, animals={
        "sheep": 1, "donkey": 1, "wild_boar": 1})) == 2
    assert fu.bonus_points("writing_chamber", few) == 7                  # 2 + 19 unused spaces, capped at 7
    begging = PlayerSummary.make(full, animals={a: 1 for a in ("sheep", "donkey", "wild_boar", "cattle")},
                                 begging_markers=1)
    assert fu.bonus_points("writing_chamber", begging) == 3


def test_structured_bonus_data_agrees_with_the_formulas():
    """The data gives each bonus twice (formula string and structure): they must agree."""
    per_names = {"sheep": "sheep", "cattle": "cattle", "orthogonally_adjacent_dwelling": "adjacent_dwellings",
                 "stone": "stone", "ore": "ore", "yellow_furnishing": "yellow_tiles_owned",
                 "armed_dwarf": "armed_dwarfs", "ruby": "rubies", "farm_animal": "farm_animals"}
    rng = random.Random(3)
    for f in R.furnishings:
        if not f.bonus_formula:
            continue
        spec = thaw(f.bonus)
        for _ in range(50):
            v = {name: rng.randint(0, 12) for name in ("sheep", "cattle", "adjacent_dwellings", "stone", "ore",
                                                       "yellow_tiles_owned", "rubies", "farm_animals",
                                                       "grain_total", "vegetable_total")}
            v["dwarfs"] = rng.randint(1, 6)
            v["armed_dwarfs"] = rng.randint(0, v["dwarfs"])
            v.update(missing_types_penalty=-2 * rng.randint(0, 4), unused_penalty=-rng.randint(0, 22),
                     begging_penalty=-3 * rng.randint(0, 3))
            if "per" in spec:
                value = v["grain_total"] if spec["per"] == "grain_vegetable_pair" else v[per_names.get(spec["per"], "")]
                if spec["per"] == "grain_vegetable_pair":
                    value = min(v["grain_total"], v["vegetable_total"])
                expected = spec["points"] * (value // spec["divisor"])
            elif "condition" in spec:
                holds = v["armed_dwarfs"] == v["dwarfs"] if spec["condition"] == "all_dwarfs_armed" else \
                    v["armed_dwarfs"] == 0
                expected = spec["points"] if holds else 0
            elif "table" in spec:
                expected = spec["table"].get(str(v["dwarfs"]), 0)
            else:
                expected = min(spec["offsets_negative_points_up_to"],
                               -(v["missing_types_penalty"] + v["unused_penalty"] + v["begging_penalty"]))
            assert formula(f.bonus_formula)(v) == expected, f.id
