"""Cave vs Cave: the 12 action tiles (rules file sections 4, 5, 6 and 8).

Each test sets up a position directly, takes a tile and checks exact goods, spaces, walls and legal sets.
Also here: goods caps, payments before gains and the anytime conversion (section 5).
"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from cvc_positions import (EMPTY, FACE_DOWN, IllegalActionError, build, do,  # noqa: E402
                           excavate_targets, furnish_texts, give, goods, legal, legal_texts, open_space,
                           place, reveal, room, solo_position, tile, try_do, two_player_position,
                           uses, walls)
from cavekit.core.cvc.actions import action_table  # noqa: E402


def G(wood=0, stone=0, emmer=0, flax=0, food=0, gold=0):
    return {"wood": wood, "stone": stone, "emmer": emmer, "flax": flax, "food": food, "gold": gold}


def tile_subactions(s, tile_name):
    """Legal notations of the taken tile's own sub-actions (no room uses, conversions or end turn)."""
    return {t for t in legal_texts(s) if t.startswith(tile_name + ":")}


# ------------------------------------------------------------------------------------------------
# Taking tiles


def test_start_of_game_offers_the_four_start_tiles_and_the_first_revealed_one():
    s = two_player_position(revealed=["masonry"])
    assert legal_texts(s) == {"take Cultivation", "take Housework", "take Excavation",
                              "take Undergrowth", "take Masonry"}


def test_taking_a_tile_and_doing_nothing_is_legal():
    for name in ("Cultivation", "Housework", "Excavation", "Undergrowth", "Furnishing"):
        s = two_player_position()
        before = goods(s, 0)
        do(s, f"take {name}")
        assert legal(s, "end turn")
        do(s, "end turn")
        assert goods(s, 0) == before
        assert s.current_player() == 1


def test_a_tile_must_be_taken_before_anything_else():
    s = two_player_position()
    assert try_do(s, "end turn") is not None
    assert try_do(s, "Undergrowth: +2 wood") is not None
    assert try_do(s, "convert gold->food") is not None


def test_only_one_tile_per_turn():
    s = two_player_position()
    do(s, "take Undergrowth")
    assert try_do(s, "take Cultivation") is not None


def test_each_tile_at_most_once_per_round_by_either_player():
    s = two_player_position()
    do(s, "take Excavation", "end turn")
    assert s.current_player() == 1
    reason = try_do(s, "take Excavation")
    assert reason is not None and "already taken" in reason
    before = s.to_dict()
    with pytest.raises(IllegalActionError, match="for player 1: Excavation was already taken this round"):
        do(s, "take Excavation")
    assert s.to_dict() == before
    do(s, "take Undergrowth", "end turn")            # p0's second turn
    assert try_do(s, "take Excavation") is not None
    assert try_do(s, "take Undergrowth") is not None
    assert legal_texts(s) == {"take Cultivation", "take Housework", "take Furnishing"}
    do(s, "take Cultivation", "end turn")
    do(s, "take Housework", "end turn")               # round 1 over: 4 turns
    assert s.round == 1
    s.apply_action(s.chance_outcomes()[0][0])        # round 2's tile
    assert legal(s, "take Excavation") and legal(s, "take Undergrowth")


def test_illegal_action_raises_and_leaves_state_unchanged():
    s = two_player_position()
    do(s, "take Undergrowth")
    before = s.to_dict()
    with pytest.raises(IllegalActionError) as info:
        do(s, "Excavation: +1 stone")
    assert "Excavation: +1 stone" in str(info.value) and info.value.player == 0
    assert info.value.reason == "it belongs to Excavation, but you took Undergrowth"
    assert s.to_dict() == before
    assert isinstance(info.value, ValueError)


def test_each_subaction_at_most_once_per_turn():
    s = two_player_position()
    do(s, "take Undergrowth", "Undergrowth: +2 wood")
    assert goods(s, 0)["wood"] == 3
    assert try_do(s, "Undergrowth: +2 wood") is not None


# ------------------------------------------------------------------------------------------------
# Cultivation: activate 1 room ; +2 emmer and +1 flax (one sub-action)


def test_cultivation_gain_is_one_subaction_of_2_emmer_and_1_flax():
    s = two_player_position()
    do(s, "take Cultivation")
    assert tile_subactions(s, "Cultivation") == {"Cultivation: +2 emmer +1 flax"}
    do(s, "Cultivation: +2 emmer +1 flax")
    assert goods(s, 0) == G(1, 1, 3, 2, 1, 1)
    assert tile_subactions(s, "Cultivation") == set()


def test_cultivation_activates_exactly_one_room_and_also_gains():
    s = two_player_position()
    place(s, 0, "gold_vein", "s10")
    do(s, "take Cultivation", "use Gold Vein: +1 stone +1 gold")
    assert uses(s, "cave_entrance") == set()          # activate-1: one room only
    do(s, "Cultivation: +2 emmer +1 flax")             # the other slot stays available (and/or)
    assert goods(s, 0) == G(1, 2, 3, 2, 1, 2)


# ------------------------------------------------------------------------------------------------
# Undergrowth: activate 1 room ; +2 wood


def test_undergrowth_two_wood_and_one_room_in_any_order():
    s = two_player_position()
    do(s, "take Undergrowth", "use Cave Entrance: +1 stone", "Undergrowth: +2 wood")
    assert goods(s, 0) == G(3, 2, 1, 1, 1, 1)
    assert uses(s, "cave_entrance") == set()


# ------------------------------------------------------------------------------------------------
# Excavation: excavate 1 | pay 2 food, excavate 2 ; +1 stone


def test_excavation_stone_is_independent_of_digging():
    s = two_player_position()
    do(s, "take Excavation", "Excavation: +1 stone", "end turn")
    assert goods(s, 0) == G(1, 2, 1, 1, 1, 1)
    assert s.players[0].spaces.count(FACE_DOWN) == 9


def test_excavation_single_dig_then_stone():
    s = two_player_position()
    do(s, "take Excavation", "Excavation: excavate s5")
    reveal(s, "warehouse")
    assert s.players[0].spaces[5] == EMPTY
    assert s.display >> room("warehouse") & 1
    # the either/or slot is used: no second dig, no paid double dig
    assert not any("excavate" in t for t in tile_subactions(s, "Excavation"))
    do(s, "Excavation: +1 stone")
    assert goods(s, 0) == G(1, 2, 1, 1, 1, 1)


def test_excavation_double_costs_two_food_and_digs_twice():
    s = two_player_position()
    give(s, 0, food=3)
    do(s, "take Excavation", "Excavation: pay 2 food, excavate s5 s8")
    reveal(s, "warehouse", "stall")
    assert s.players[0].spaces[5] == EMPTY and s.players[0].spaces[8] == EMPTY
    assert goods(s, 0)["food"] == 1
    assert tile_subactions(s, "Excavation") == {"Excavation: +1 stone"}


def test_excavation_double_needs_two_food():
    s = two_player_position()
    give(s, 0, food=1)
    do(s, "take Excavation")
    assert "food" in try_do(s, "Excavation: pay 2 food, excavate s5 s8")
    assert legal(s, "Excavation: excavate s5")


# ------------------------------------------------------------------------------------------------
# Housework: furnish paying food per turn ; furnish paying 5 food or 1 gold


@pytest.mark.parametrize("round_, food", [(0, 2), (1, 2), (2, 2), (3, 3), (4, 3), (5, 3), (6, 3), (7, 4)])
def test_housework_food_per_turn_is_2_3_4_by_round(round_, food):
    s = two_player_position(round=round_)
    give(s, 0, all=0, wood=1, food=food - 1)
    do(s, "take Housework")
    assert "food" in try_do(s, "Housework: furnish Shelf at s4 paying food per turn")
    give(s, 0, food=food)
    do(s, "Housework: furnish Shelf at s4 paying food per turn")
    assert goods(s, 0) == G()
    assert s.players[0].spaces[4] == room("shelf")


@pytest.mark.parametrize("round_, food", [(0, 2), (3, 3), (7, 4)])
def test_furnishing_tile_food_per_turn_is_2_3_4_by_round(round_, food):
    s = two_player_position(revealed=["furnishing"], round=round_)
    give(s, 0, all=0, wood=1, food=food)
    do(s, "take Furnishing", "Furnishing: furnish Shelf at s4 paying food per turn")
    assert goods(s, 0) == G()


def test_housework_furnishes_two_rooms_in_one_turn():
    s = two_player_position()
    open_space(s, 0, "s2")                 # s2: natural W only, like s4
    give(s, 0, all=0, wood=2, food=7)
    do(s, "take Housework",
       "Housework: furnish Shelf at s4 paying food per turn",
       "Housework: furnish Spinning Wheel at s2 paying 5 food")
    assert goods(s, 0) == G()
    assert s.players[0].spaces[4] == room("shelf")
    assert s.players[0].spaces[2] == room("spinning_wheel")
    assert furnish_texts(s, "Housework: furnish") == set()


def test_housework_second_furnish_is_5_food_or_1_gold_not_both():
    s = two_player_position()
    open_space(s, 0, "s2")
    give(s, 0, all=9)
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold")
    assert goods(s, 0) == G(8, 9, 9, 9, 9, 8)
    assert furnish_texts(s, "Housework: furnish Spinning Wheel at s2") == {
        "Housework: furnish Spinning Wheel at s2 paying food per turn"}


def test_housework_extra_cost_paid_only_when_a_room_is_placed():
    s = two_player_position()
    give(s, 0, all=0, food=9, gold=9)          # no wood or stone: no start-display room is affordable
    do(s, "take Housework")
    assert furnish_texts(s, "Housework: furnish") == set()
    do(s, "end turn")
    assert goods(s, 0) == G(food=9, gold=9)


# ------------------------------------------------------------------------------------------------
# Furnishing: +1 food ; furnish paying food per turn


def test_furnishing_food_first_then_furnish_with_it():
    s = two_player_position(revealed=["furnishing"])
    give(s, 0, all=0, wood=1, food=1)
    do(s, "take Furnishing")
    assert furnish_texts(s, "Furnishing: furnish") == set()
    do(s, "Furnishing: +1 food", "Furnishing: furnish Shelf at s4 paying food per turn")
    assert goods(s, 0) == G()


def test_furnishing_furnish_first_then_food():
    s = two_player_position(revealed=["furnishing"])
    give(s, 0, all=0, wood=1, food=2)
    do(s, "take Furnishing", "Furnishing: furnish Shelf at s4 paying food per turn", "Furnishing: +1 food")
    assert goods(s, 0) == G(food=1)


# ------------------------------------------------------------------------------------------------
# Masonry: activate 1 ; +1 wood or +1 stone ; build 1 wall


def test_masonry_all_three_subactions():
    s = two_player_position(revealed=["masonry"])
    do(s, "take Masonry", "Masonry: +1 wood", "Masonry: build wall w6", "use Cave Entrance: +1 emmer")
    assert goods(s, 0) == G(2, 1, 2, 1, 1, 1)
    assert walls(s, 0) == {"w6"}
    assert s.wall_supply() == 6


def test_masonry_wood_or_stone_not_both():
    s = two_player_position(revealed=["masonry"])
    do(s, "take Masonry")
    assert {"Masonry: +1 wood", "Masonry: +1 stone"} <= tile_subactions(s, "Masonry")
    do(s, "Masonry: +1 stone")
    assert try_do(s, "Masonry: +1 wood") is not None
    assert goods(s, 0) == G(1, 2, 1, 1, 1, 1)


def test_masonry_builds_exactly_one_wall():
    s = two_player_position(revealed=["masonry"])
    do(s, "take Masonry", "Masonry: build wall w0")
    assert try_do(s, "Masonry: build wall w1") is not None
    assert walls(s, 0) == {"w0"}


# ------------------------------------------------------------------------------------------------
# Undermining: activate 2 rooms | excavate 1 ignoring walls


def test_undermining_activates_two_different_rooms():
    s = two_player_position(revealed=["undermining"])
    place(s, 0, "gold_vein", "s10")
    place(s, 0, "state_room", "s0")
    do(s, "take Undermining", "use Gold Vein: +1 stone +1 gold", "use Cave Entrance: +1 wood")
    assert goods(s, 0) == G(2, 2, 1, 1, 1, 2)
    assert uses(s, "state_room") == set()                 # only 2 rooms
    assert excavate_targets(s, "Undermining: excavate") == set()   # either/or: no excavation now


def test_undermining_excavation_excludes_activation():
    s = two_player_position(revealed=["undermining"])
    build(s, 0, "w9")
    do(s, "take Undermining")
    assert excavate_targets(s, "Undermining: excavate") == {"s2", "s5", "s7", "s8"}
    do(s, "Undermining: excavate s7 through walls")
    reveal(s, "warehouse")
    assert goods(s, 0)["food"] == 2                        # s7 pays 1 food
    assert uses(s, "cave_entrance") == set()
    assert legal_texts(s) - {"end turn"} <= {"convert emmer->food", "convert flax->food",
                                              "convert gold->food"}


# ------------------------------------------------------------------------------------------------
# Breach: raze 1 of your walls, then +2 stone +3 food +1 gold


def test_breach_needs_a_wall_of_your_own():
    s = two_player_position(revealed=["breach"])
    build(s, 1, "w6")                                       # the opponent's wall does not count
    do(s, "take Breach")
    assert tile_subactions(s, "Breach") == set()
    do(s, "end turn")
    assert goods(s, 0) == G(1, 1, 1, 1, 1, 1)


def test_breach_razes_own_wall_and_pays_2_stone_3_food_1_gold():
    s = two_player_position(revealed=["breach"])
    build(s, 0, "w6", "w0")
    build(s, 1, "w4")
    do(s, "take Breach")
    assert tile_subactions(s, "Breach") == {"Breach: raze wall w6, +2 stone +3 food +1 gold",
                                            "Breach: raze wall w0, +2 stone +3 food +1 gold"}
    do(s, "Breach: raze wall w6, +2 stone +3 food +1 gold")
    assert walls(s, 0) == {"w0"} and walls(s, 1) == {"w4"}
    assert goods(s, 0) == G(1, 3, 1, 1, 4, 2)
    assert s.wall_supply() == 5
    assert tile_subactions(s, "Breach") == set()            # one wall only


def test_breach_is_not_in_solo():
    s = solo_position()
    assert not any(t == tile("breach") for t in s.tiles_on_board())
    from cavekit.core.cvc.rules import rules
    assert rules().tiles[tile("breach")].in_solo is False


# ------------------------------------------------------------------------------------------------
# Expansion: excavate 1 ; furnish paying 5 food or 2 gold


def test_expansion_digs_then_furnishes_the_new_space():
    s = two_player_position(revealed=["expansion"], round=4)
    give(s, 0, all=0, wood=1, gold=2)
    do(s, "take Expansion", "Expansion: excavate s5")
    reveal(s, "warehouse")
    do(s, "Expansion: furnish Shelf at s5 paying 2 gold")      # s5: natural E only
    assert goods(s, 0) == G()
    assert s.players[0].spaces[5] == room("shelf")


def test_expansion_extra_is_2_gold_not_1():
    s = two_player_position(revealed=["expansion"], round=4)
    give(s, 0, all=0, wood=1, gold=1)
    do(s, "take Expansion")
    assert "gold" in try_do(s, "Expansion: furnish Shelf at s4 paying 2 gold")
    assert furnish_texts(s, "Expansion: furnish") == set()
    give(s, 0, food=5)
    assert furnish_texts(s, "Expansion: furnish Shelf") == {"Expansion: furnish Shelf at s4 paying 5 food"}
    do(s, "Expansion: furnish Shelf at s4 paying 5 food")
    assert goods(s, 0) == G(gold=1)


def test_expansion_furnish_without_excavating():
    s = two_player_position(revealed=["expansion"], round=4)
    give(s, 0, all=0, stone=1, gold=2)
    do(s, "take Expansion", "Expansion: furnish Grindstone at s4 paying 2 gold")
    assert goods(s, 0) == G()
    assert excavate_targets(s, "Expansion: excavate") == {"s2", "s5", "s7", "s8"}


# ------------------------------------------------------------------------------------------------
# Expedition: pay 5 wood -> 4 gold | pay 5 stone -> 4 gold | activate 3 rooms


def test_expedition_five_wood_for_four_gold_excludes_the_rest():
    s = two_player_position(revealed=["expedition"], round=4)
    give(s, 0, wood=6, stone=6)
    do(s, "take Expedition", "Expedition: pay 5 wood, +4 gold")
    assert goods(s, 0) == G(1, 6, 1, 1, 1, 5)
    assert tile_subactions(s, "Expedition") == set()
    assert uses(s, "cave_entrance") == set()


def test_expedition_five_stone_for_four_gold():
    s = two_player_position(revealed=["expedition"], round=4)
    give(s, 0, stone=5, gold=17)
    do(s, "take Expedition")
    assert try_do(s, "Expedition: pay 5 wood, +4 gold") is not None   # only 1 wood
    do(s, "Expedition: pay 5 stone, +4 gold")
    assert goods(s, 0) == G(1, 0, 1, 1, 1, 19)                        # 21 capped at 19


def test_expedition_activates_three_rooms_and_then_no_exchange():
    s = two_player_position(revealed=["expedition"], round=4)
    place(s, 0, "gold_vein", "s10")
    place(s, 0, "state_room", "s0")
    place(s, 0, "storeroom", "s1")
    give(s, 0, wood=5, stone=5)
    do(s, "take Expedition", "use Gold Vein: +1 stone +1 gold")
    assert tile_subactions(s, "Expedition") == set()
    do(s, "use State Room: +1 flax +1 gold", "use Cave Entrance: +1 emmer")
    assert uses(s, "storeroom") == set()                              # 3 rooms used
    assert goods(s, 0) == G(5, 6, 2, 2, 1, 3)


# ------------------------------------------------------------------------------------------------
# Drift Mining: activate 1 ; excavate 1 (no gold condition)


def test_drift_mining_excavates_without_gold_condition_and_activates_one():
    s = two_player_position(revealed=["drift_mining"], round=4)
    give(s, 0, gold=0)
    give(s, 1, gold=19)
    do(s, "take Drift Mining")
    assert excavate_targets(s, "Drift Mining: excavate") == {"s2", "s5", "s7", "s8"}
    do(s, "Drift Mining: excavate s8")
    reveal(s, "stall")
    do(s, "use Cave Entrance: +1 flax")
    assert uses(s, "cave_entrance") == set()
    assert goods(s, 0) == G(1, 1, 1, 2, 1, 0)
    assert s.players[0].spaces[8] == EMPTY


# ------------------------------------------------------------------------------------------------
# Renovation: strictly more gold than the opponent ; build 1 wall ; furnish (room cost only)


@pytest.mark.parametrize("mine, theirs, allowed", [(3, 2, True), (2, 2, False), (2, 3, False),
                                                   (1, 0, True), (0, 0, False), (19, 18, True)])
def test_renovation_needs_strictly_more_gold(mine, theirs, allowed):
    s = two_player_position(revealed=["renovation"], round=7)
    give(s, 0, gold=mine)
    give(s, 1, gold=theirs)
    assert legal(s, "take Renovation") is allowed
    assert ("take Renovation" in legal_texts(s)) is allowed


def test_renovation_tie_blocks_both_players():
    s = two_player_position(revealed=["renovation"], round=7)
    give(s, 0, gold=4)
    give(s, 1, gold=4)
    assert "gold" in try_do(s, "take Renovation")
    do(s, "take Cultivation", "end turn")
    assert s.current_player() == 1
    assert "gold" in try_do(s, "take Renovation")


def test_renovation_checked_against_current_gold_of_the_opponent():
    s = two_player_position(revealed=["renovation"], round=7)
    give(s, 0, gold=2)
    give(s, 1, gold=3)
    assert not legal(s, "take Renovation")
    do(s, "take Cultivation", "end turn")
    assert legal(s, "take Renovation")                 # player 1 has more gold
    give(s, 1, gold=2)
    assert not legal(s, "take Renovation")


def test_renovation_ignores_gold_in_solo():
    s = solo_position(revealed=["renovation"], round=6)
    give(s, 0, gold=0)
    assert legal(s, "take Renovation")


def test_renovation_builds_a_wall_and_furnishes_at_room_cost_only():
    s = two_player_position(revealed=["renovation"], round=7)
    give(s, 0, all=0, stone=1, gold=1)
    give(s, 1, gold=0)
    do(s, "take Renovation", "Renovation: build wall w4", "Renovation: furnish Food Corner at s4")
    assert goods(s, 0) == G(gold=1)                     # Food Corner costs 1 stone, nothing extra
    assert walls(s, 0) == {"w4"}
    assert s.players[0].spaces[4] == room("food_corner")


# ------------------------------------------------------------------------------------------------
# Tile data: every tile's sub-action notations (either/or vs and/or as in section 8)


def _tile_option_shapes(tile_id):
    """Notations of a tile's non-activation options with the parameter part removed."""
    import re
    table = action_table()
    shapes = set()
    for a in table.tile_options[tile(tile_id)]:
        text = table.specs[a].text
        text = re.sub(r"furnish .+? at (s\d+|ac)", "furnish R at X", text)
        text = re.sub(r"\b(s\d+|w\d+|ac-[NESW])\b", "X", text)
        shapes.add(text)
    return shapes


def test_tile_option_notations_match_section_8():
    assert _tile_option_shapes("cultivation") == {"Cultivation: +2 emmer +1 flax"}
    assert _tile_option_shapes("housework") == {"Housework: furnish R at X paying food per turn",
                                                "Housework: furnish R at X paying 5 food",
                                                "Housework: furnish R at X paying 1 gold"}
    assert _tile_option_shapes("excavation") == {"Excavation: excavate X",
                                                 "Excavation: pay 2 food, excavate X",
                                                 "Excavation: pay 2 food, excavate X X",
                                                 "Excavation: +1 stone"}
    assert _tile_option_shapes("undergrowth") == {"Undergrowth: +2 wood"}
    assert _tile_option_shapes("furnishing") == {"Furnishing: +1 food",
                                                 "Furnishing: furnish R at X paying food per turn"}
    assert _tile_option_shapes("masonry") == {"Masonry: +1 wood", "Masonry: +1 stone",
                                              "Masonry: build wall X"}
    assert _tile_option_shapes("undermining") == {"Undermining: excavate X through walls"}
    assert _tile_option_shapes("breach") == {"Breach: raze wall X, +2 stone +3 food +1 gold"}
    assert _tile_option_shapes("expansion") == {"Expansion: excavate X",
                                                "Expansion: furnish R at X paying 5 food",
                                                "Expansion: furnish R at X paying 2 gold"}
    assert _tile_option_shapes("expedition") == {"Expedition: pay 5 wood, +4 gold",
                                                 "Expedition: pay 5 stone, +4 gold"}
    assert _tile_option_shapes("drift_mining") == {"Drift Mining: excavate X"}
    assert _tile_option_shapes("renovation") == {"Renovation: build wall X", "Renovation: furnish R at X"}


def test_tile_activation_counts_match_section_8():
    from cavekit.core.cvc.rules import rules
    counts = {}
    for t in rules().tiles:
        counts[t.id] = sorted(op.count for slot in t.slots for opt in slot for op in opt
                              if op.kind == "activate_rooms")
    assert counts == {"cultivation": [1], "housework": [], "excavation": [], "undergrowth": [1],
                      "furnishing": [], "masonry": [1], "undermining": [2], "breach": [],
                      "expansion": [], "expedition": [3], "drift_mining": [1], "renovation": []}


def test_stages_of_the_tiles():
    from cavekit.core.cvc.rules import rules
    stages = {t.id: t.stage for t in rules().tiles}
    assert stages == {"cultivation": 1, "housework": 1, "excavation": 1, "undergrowth": 1,
                      "furnishing": 2, "masonry": 2, "undermining": 2,
                      "breach": 3, "expansion": 3, "expedition": 3, "drift_mining": 3,
                      "renovation": 4}


# ------------------------------------------------------------------------------------------------
# Goods (section 5)


def test_start_goods_are_one_of_each():
    s = two_player_position()
    assert goods(s, 0) == G(1, 1, 1, 1, 1, 1) == goods(s, 1)


def test_goods_cap_nine_excess_lost():
    s = two_player_position()
    give(s, 0, wood=8)
    do(s, "take Undergrowth", "Undergrowth: +2 wood")
    assert goods(s, 0)["wood"] == 9
    give(s, 0, emmer=9, flax=8)
    do(s, "end turn", "take Housework", "end turn")        # p1's turn
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax")
    assert goods(s, 0)["emmer"] == 9 and goods(s, 0)["flax"] == 9


def test_gold_cap_nineteen_excess_lost():
    s = two_player_position(revealed=["expedition"], round=4)
    give(s, 0, wood=5, gold=18)
    do(s, "take Expedition", "Expedition: pay 5 wood, +4 gold")
    assert goods(s, 0)["gold"] == 19


def test_payment_before_gain_inside_one_option():
    # Treasury: pay 3 gold -> 4 gold + 1 food. At 17 gold: 17-3+4 = 18 (gain-first would give 16).
    s = two_player_position()
    place(s, 0, "treasury", "s10")
    give(s, 0, gold=17, food=9)
    do(s, "take Undergrowth", "use Treasury: pay 3 gold, +1 food +4 gold")
    assert goods(s, 0)["gold"] == 18 and goods(s, 0)["food"] == 9


def test_payment_before_gain_lets_a_full_track_take_the_gain():
    # Grindstone at 9 food: pay 1 emmer, +3 food -> still 9 (excess lost), emmer paid.
    s = two_player_position()
    place(s, 0, "grindstone", "s10")
    give(s, 0, emmer=2, food=9)
    do(s, "take Undergrowth", "use Grindstone: pay 1 emmer, +3 food")
    assert goods(s, 0)["food"] == 9 and goods(s, 0)["emmer"] == 1


@pytest.mark.parametrize("good", ["emmer", "flax", "gold"])
def test_anytime_conversion_one_to_one(good):
    s = two_player_position()
    give(s, 0, **{good: 3, "food": 0})
    do(s, "take Undergrowth", f"convert {good}->food", f"convert {good}->food")
    assert goods(s, 0)[good] == 1 and goods(s, 0)["food"] == 2


def test_no_other_conversion_exists():
    table = action_table()
    converts = {table.specs[a].text for a in table.convert.values()}
    assert converts == {"convert emmer->food", "convert flax->food", "convert gold->food"}
    assert not any(t.text.startswith("convert") and t.text not in converts for t in table.specs)


def test_conversion_needs_the_good():
    s = two_player_position()
    give(s, 0, flax=0)
    do(s, "take Undergrowth")
    assert try_do(s, "convert flax->food") is not None


def test_conversion_can_pay_for_an_option_mid_turn():
    s = two_player_position()
    give(s, 0, all=0, emmer=2, wood=1)
    do(s, "take Housework")
    assert furnish_texts(s, "Housework: furnish") == set()
    do(s, "convert emmer->food", "convert emmer->food",
       "Housework: furnish Shelf at s4 paying food per turn")
    assert goods(s, 0) == G()


def test_converting_gold_lowers_score():
    s = two_player_position()
    give(s, 0, gold=5, food=0)
    before = s.scores()[0]
    do(s, "take Undergrowth", "convert gold->food")
    assert s.scores()[0] == before - 1
