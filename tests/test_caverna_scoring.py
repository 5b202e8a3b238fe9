"""Caverna end scoring (shared/rules/caverna.md section 12): hand-built boards scored by hand from the rulebook."""
from __future__ import annotations

import pytest

from cavekit.core.caverna import furnishings as fu
from cavekit.core.caverna.board import initial_board, parse_board
from cavekit.core.caverna.rules import make_config, rules
from cavekit.core.caverna.scoring import score, winners
from cavekit.core.caverna.summary import PlayerSummary

FARM = ("sheep", "donkey", "wild_boar", "cattle")

FULL = parse_board("""
    P*   La*  La   | O                 D                 T
    M    F:g2 F    | R                 C:dwelling        C:main_storage
    .*   F:v1 M    | C:mixed_dwelling  C:weaving_parlor  C:beer_parlor
    .    P    M    | E                 C:simple_dwelling_4w2s  C
""")


def full_summary(**overrides):
    kwargs = dict(board=FULL, goods={"grain": 3, "vegetable": 2, "ruby": 2, "gold": 11, "wood": 4, "food": 3},
                  animals={"sheep": 7, "donkey": 2, "wild_boar": 1, "cattle": 3, "dog": 2}, dwarfs=5,
                  weapons=(4, 9), begging_markers=1)
    kwargs.update(overrides)
    return PlayerSummary.make(**kwargs)


def test_a_full_board_scored_by_hand():
    sheet = score(full_summary())
    assert sheet.categories == {
        "animals": 7 + 2 + 1 + 3 + 2,                 # every animal, dogs included
        "missing_farm_animal_types": 0,
        "grain": 3,                                   # 3 in the supply + 2 on a field = 5, half rounded up
        "vegetables": 3,                              # 2 + 1 on a field
        "rubies": 2,
        "dwarfs": 5,
        "unused_spaces": -1,                          # (3,0); (2,0) holds a stable, the mountain is full
        "pastures": 2 + 2 + 4,                        # two small, one large
        "mines": 3 + 4,
        "furnishing_vp": 3 + 0 + 4 + 0 + 3 + 0,       # Dwelling, Main storage, Mixed, Weaving, Beer, Simple
        "bonus_points": 2 * 3 + 7 // 2,               # Main storage (3 yellow tiles), Weaving parlor (7 sheep)
        "gold": 11,
        "begging": -3,
    }
    assert sheet.total == 15 + 3 + 3 + 2 + 5 - 1 + 8 + 7 + 10 + 9 + 11 - 3 == 69
    assert ("main_storage", 0, 6) in sheet.furnishings and ("weaving_parlor", 0, 3) in sheet.furnishings
    assert "total" in str(sheet) and str(sheet).splitlines()[0].startswith("animals")


def test_simple_dwelling_points_change_the_total():
    assert score(full_summary(), make_config(simple_dwelling_vp=2)).total == 71


def test_the_setup_board():
    """Nothing built: -2 for each of 4 missing types, -1 for each of 22 unused spaces (the two pre-printed
    caverns count as used), +1 per dwarf."""
    sheet = score(PlayerSummary.make(initial_board()))
    assert sheet.categories["missing_farm_animal_types"] == -8 and sheet.categories["unused_spaces"] == -22
    assert sheet.total == -8 - 22 + 2


@pytest.mark.parametrize("grain,points", [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (7, 4)])
def test_grain_is_half_a_point_rounded_up(grain, points):
    assert score(PlayerSummary.make(goods={"grain": grain})).categories["grain"] == points


def test_dogs_count_as_animals_but_not_as_a_farm_type():
    sheet = score(PlayerSummary.make(animals={"dog": 3, "sheep": 1}))
    assert sheet.categories["animals"] == 4 and sheet.categories["missing_farm_animal_types"] == -6


def test_unfurnished_caverns_and_tunnels_count_as_used():
    b = parse_board(". . . | C T D\n. . . | C C T\n. . . | C C C\n. . . | E C C")
    assert score(PlayerSummary.make(b)).categories["unused_spaces"] == -12


def test_writing_chamber_refunds_at_most_seven():
    b = fu.furnish(initial_board(), "writing_chamber", (2, 3))
    sheet = score(PlayerSummary.make(b, begging_markers=2))
    # -8 missing types, -22 unused spaces, -6 begging: the chamber gives back 7 of the 36
    assert sheet.categories["unused_spaces"] == -22
    assert sheet.categories["bonus_points"] == 7
    assert sheet.total == -8 - 22 - 6 + 7 + 2
    small = parse_board("M M M | C:writing_chamber C C\nM M M | C C C\nM M M | C C C\nM M M | E C C")
    sheet = score(PlayerSummary.make(small, animals={"sheep": 1, "donkey": 1, "wild_boar": 1}))
    assert sheet.categories["missing_farm_animal_types"] == -2 and sheet.categories["bonus_points"] == 2
    assert sheet.total == 3 - 2 + 2 + 2


def test_overbuilt_trader_scores_nothing():
    b = parse_board(". . . | C:spare_part_storage+trader . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")
    sheet = score(PlayerSummary.make(b))
    assert sheet.categories["furnishing_vp"] == 0 and sheet.furnishings == (("spare_part_storage", 0, 0),)
    b = parse_board(". . . | C:trader+spare_part_storage . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")
    assert score(PlayerSummary.make(b)).categories["furnishing_vp"] == fu.vp("trader") == 2


def chamber_board():
    return parse_board("""
        F:g3 F:v2 M | C:food_chamber C:treasure_chamber C:fodder_chamber
        .    .    . | C:weapon_storage C:supplies_storage C:broom_chamber
        .    .    . | C:stone_storage C:ore_storage C:prayer_chamber
        .    .    . | E C:state_parlor C:milking_parlor
    """)


@pytest.mark.parametrize("scope", ["supply_and_fields", "supply_only"])
def test_every_yellow_bonus_in_one_sheet(scope):
    config = make_config(food_chamber_counts=scope)
    s = PlayerSummary.make(chamber_board(), goods={"grain": 2, "vegetable": 1, "ruby": 3, "stone": 4, "ore": 5},
                           animals={"sheep": 3, "donkey": 3, "wild_boar": 2, "cattle": 2, "dog": 4}, dwarfs=5,
                           weapons=(1, 2, 3, 4, 5))
    food = 2 * min(2 + 3, 1 + 2) if scope == "supply_and_fields" else 2 * min(2, 1)
    expected = {"food_chamber": food, "treasure_chamber": 3, "fodder_chamber": 10 // 3, "weapon_storage": 15,
                "supplies_storage": 8, "broom_chamber": 5, "stone_storage": 4, "ore_storage": 2,
                "prayer_chamber": 0, "milking_parlor": 2, "state_parlor": 4}     # beside the entry-level dwelling
    sheet = score(s, config)
    assert {fid: bonus for fid, _, bonus in sheet.furnishings} == expected
    assert sheet.categories["bonus_points"] == sum(expected.values())
    assert sheet.categories["grain"] == 3 and sheet.categories["vegetables"] == 3    # fields always count here
    assert sheet.categories["furnishing_vp"] == 0


def test_begging_markers_and_gold():
    sheet = score(PlayerSummary.make(goods={"gold": 9}, begging_markers=4))
    assert sheet.categories["gold"] == 9 and sheet.categories["begging"] == -12


def test_ties_are_shared():
    assert winners([70, 82, 82]) == [1, 2] and winners([50]) == [0]


def test_scoring_categories_come_from_the_data():
    assert [c.id for c in rules().scoring] == list(score(PlayerSummary.make()).categories)
