"""Cave vs Cave: the cave board (rules file section 7), walls (6.4, 6.5), furnishing places (6.6),
excavation (6.8, 7.3) and the Additional Cavern (section 10)."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from cvc_positions import (CAVERN, EMPTY, FACE_DOWN, R, UNAVAILABLE, build, do, excavate_targets,  # noqa: E402
                           fill_board, furnish_texts, give, goods, legal, legal_texts, open_space, place,
                           reveal, room, space, to_display, try_do, two_player_position, walls)
from cavekit.core.cvc.actions import action_table  # noqa: E402
from cavekit.core.cvc.board import wall_pattern  # noqa: E402
from cavekit.core.cvc.rules import NATURAL, OPENING  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Geometry (7.1, 7.2)

SLOTS = {0: ("s0", "s1"), 1: ("s0", "s2"), 2: ("s1", "s3"), 3: ("s2", "s3"), 4: ("s2", "s4"),
         5: ("s3", "s5"), 6: ("s4", "s5"), 7: ("s4", "s6"), 8: ("s5", "s7"), 9: ("s6", "s7"),
         10: ("s6", "s8"), 11: ("s7", "s9"), 12: ("s8", "s9"), 13: ("s9", "s10")}
N_, O_ = "natural", "opening"
SIDES = {  # N / E / S / W
    "s0": (N_, "w0", "w1", N_), "s1": (N_, N_, "w2", "w0"), "s2": ("w1", "w3", "w4", N_),
    "s3": ("w2", N_, "w5", "w3"), "s4": ("w4", "w6", "w7", N_), "s5": ("w5", N_, "w8", "w6"),
    "s6": ("w7", "w9", "w10", O_), "s7": ("w8", N_, "w11", "w9"), "s8": ("w10", "w12", N_, N_),
    "s9": ("w11", "w13", N_, "w12"), "s10": (N_, N_, N_, "w13"),
}
GRID = {"s0": (0, 0), "s1": (0, 1), "s2": (1, 0), "s3": (1, 1), "s4": (2, 0), "s5": (2, 1), "s6": (3, 0),
        "s7": (3, 1), "s8": (4, 0), "s9": (4, 1), "s10": (4, 2)}


def test_fourteen_wall_slots_join_the_listed_spaces():
    assert len(R.wall_slots) == 14
    got = {w: (f"s{a}", f"s{b}") for w, (a, b) in enumerate(R.wall_slots)}
    assert got == SLOTS


def test_every_orthogonally_adjacent_pair_has_exactly_one_slot():
    adjacent = set()
    for a, (ra, ca) in GRID.items():
        for b, (rb, cb) in GRID.items():
            if abs(ra - rb) + abs(ca - cb) == 1:
                adjacent.add(frozenset((a, b)))
    slots = [frozenset(p) for p in SLOTS.values()]
    assert len(slots) == len(set(slots))
    assert set(slots) == adjacent
    assert frozenset(("s7", "s10")) not in adjacent


def test_space_sides_and_positions():
    for name, sides in SIDES.items():
        sp = R.spaces[space(name)]
        assert (sp.row, sp.col) == GRID[name]
        for got, want in zip(sp.sides, sides):
            if want == N_:
                assert got == NATURAL, name
            elif want == O_:
                assert got == OPENING, name
            else:
                assert got == int(want[1:]), name


def test_setup_board():
    s = two_player_position()
    for p in (0, 1):
        sp = s.players[p].spaces
        assert sp[4] == EMPTY and sp[6] == room("cave_entrance")
        assert [i for i in range(11) if sp[i] == FACE_DOWN] == [0, 1, 2, 3, 5, 7, 8, 9, 10]
        assert sp[CAVERN] == UNAVAILABLE
        assert s.players[p].walls == 0
    assert s.wall_supply() == 7
    assert bin(s.display).count("1") == 6


def test_s4_at_setup_has_only_its_natural_west_wall():
    assert wall_pattern(R, 4, 0, 0) == 8


def test_food_bonus_spaces_are_s3_and_s7():
    assert [sp.name for sp in R.spaces[:11] if sp.food_bonus] == ["s3", "s7"]
    assert all(sp.food_bonus in (0, 1) for sp in R.spaces)


# ------------------------------------------------------------------------------------------------
# Accessibility (7.3)


def targets(s, prefix="Excavation: excavate"):
    return excavate_targets(s, prefix)


def excavation_turn(**options):
    s = two_player_position(revealed=["undermining"], **options)
    return s


def test_accessible_at_start():
    s = excavation_turn()
    do(s, "take Excavation")
    assert targets(s) == {"s2", "s5", "s7", "s8"}


def test_excavated_space_opens_the_way():
    s = excavation_turn()
    open_space(s, 0, "s2")
    do(s, "take Excavation")
    assert targets(s) == {"s0", "s3", "s5", "s7", "s8"}


def test_furnished_space_can_be_passed():
    s = excavation_turn()
    place(s, 0, "shelf", "s4")
    do(s, "take Excavation")
    assert targets(s) == {"s2", "s5", "s7", "s8"}


@pytest.mark.parametrize("wall_, expected", [
    ("w4", {"s5", "s7", "s8"}), ("w6", {"s2", "s7", "s8"}), ("w9", {"s2", "s5", "s8"}),
    ("w10", {"s2", "s5", "s7"}), ("w7", {"s7", "s8"}), ("w0", {"s2", "s5", "s7", "s8"}),
])
def test_walls_block_excavation(wall_, expected):
    s = excavation_turn()
    build(s, 0, wall_)
    do(s, "take Excavation")
    assert targets(s) == expected


def test_face_down_rooms_block():
    s = excavation_turn()
    do(s, "take Excavation")
    for far in ("s0", "s1", "s3", "s9", "s10"):
        assert try_do(s, f"Excavation: excavate {far}") is not None


def test_no_accessible_room_means_no_excavation():
    s = excavation_turn()
    build(s, 0, "w7", "w9", "w10")
    do(s, "take Excavation")
    assert targets(s) == set()
    assert not any("excavate" in t for t in legal_texts(s))


def test_rulebook_accessibility_example_in_spirit():
    """Check marks: accessible; '?': behind a wall, only Undermining; X: blocked by face-down rooms."""
    s = excavation_turn()
    open_space(s, 0, "s5")
    open_space(s, 0, "s8")
    build(s, 0, "w8", "w9")                        # s7 walled off from s5 and from the entrance
    do(s, "take Excavation")
    assert targets(s) == {"s2", "s3", "s9"}         # green checks
    s2 = excavation_turn()
    open_space(s2, 0, "s5")
    open_space(s2, 0, "s8")
    build(s2, 0, "w8", "w9")
    do(s2, "take Undermining")
    assert targets(s2, "Undermining: excavate") == {"s2", "s3", "s7", "s9"}   # + the '?'
    for x in ("s0", "s1", "s10"):                   # red Xs, whatever the action
        assert try_do(s2, f"Undermining: excavate {x} through walls") is not None


def test_undermining_passes_walls_but_not_face_down_rooms():
    s = excavation_turn()
    build(s, 0, "w4", "w6", "w9", "w10")
    do(s, "take Undermining")
    assert targets(s, "Undermining: excavate") == {"s2", "s5", "s7", "s8"}


@pytest.mark.parametrize("mode, expected", [("all_walls", {"s2", "s5", "s7", "s9"}),
                                            ("one_wall", {"s2", "s5", "s7"})])
def test_undermining_two_walls_on_the_path(mode, expected):
    s = excavation_turn(undermining_ignores=mode)
    open_space(s, 0, "s8")
    build(s, 0, "w10", "w12")                       # s9 is two walls away: s6 |w10| s8 |w12| s9
    do(s, "take Undermining")
    assert targets(s, "Undermining: excavate") == expected


def test_undermining_one_wall_parameter_still_passes_one_wall():
    s = excavation_turn(undermining_ignores="one_wall")
    open_space(s, 0, "s8")
    build(s, 0, "w10")
    do(s, "take Undermining")
    assert targets(s, "Undermining: excavate") == {"s2", "s5", "s7", "s9"}


@pytest.mark.parametrize("target", ["s0", "s1", "s2", "s3", "s5", "s7", "s8", "s9", "s10"])
def test_excavating_gives_exactly_one_food_on_s3_and_s7_only(target):
    s = excavation_turn()
    for other in ("s0", "s1", "s2", "s3", "s5", "s7", "s8", "s9", "s10"):
        if other != target:
            open_space(s, 0, other)
    do(s, "take Excavation", f"Excavation: excavate {target}")
    reveal(s, "warehouse")
    assert goods(s, 0)["food"] == (2 if target in ("s3", "s7") else 1)
    assert s.players[0].spaces[space(target)] == EMPTY
    assert s.display >> room("warehouse") & 1


@pytest.mark.parametrize("how", ["Excavation", "Excavation double", "Undermining", "Expansion",
                                 "Drift Mining", "Digging Cave"])
def test_s7_food_with_every_excavation_source(how):
    s = two_player_position(revealed=["undermining", "expansion", "drift_mining"], round=4)
    place(s, 0, "digging_cave", "s10")
    give(s, 0, food=2, gold=1)
    take = {"Excavation double": "Excavation", "Digging Cave": "Undergrowth"}.get(how, how)
    do(s, f"take {take}")
    action = {"Excavation": "Excavation: excavate s7",
              "Excavation double": "Excavation: pay 2 food, excavate s7",
              "Undermining": "Undermining: excavate s7 through walls",
              "Expansion": "Expansion: excavate s7",
              "Drift Mining": "Drift Mining: excavate s7",
              "Digging Cave": "use Digging Cave: pay 1 gold, excavate s7"}[how]
    do(s, action)
    reveal(s, "warehouse")
    assert goods(s, 0)["food"] == (1 if how == "Excavation double" else 3)


def test_excavation_food_is_capped():
    s = excavation_turn()
    give(s, 0, food=9)
    do(s, "take Excavation", "Excavation: excavate s7")
    reveal(s, "warehouse")
    assert goods(s, 0)["food"] == 9


def test_excavated_room_goes_to_the_display_for_both():
    s = excavation_turn()
    do(s, "take Excavation", "Excavation: excavate s5")
    assert s.chance_outcomes() and {o for o, _ in s.chance_outcomes()} == {
        r.index for r in R.rooms[:24] if not r.start_display}
    reveal(s, "treasury")
    assert s.display >> room("treasury") & 1
    assert not s.pool >> room("treasury") & 1


# ------------------------------------------------------------------------------------------------
# Double excavation (Excavation's pay-2-food option)


def test_double_excavation_second_dig_uses_situation_after_first():
    s = excavation_turn()
    give(s, 0, food=2)
    do(s, "take Excavation")
    assert legal(s, "Excavation: pay 2 food, excavate s0 s2")      # s0 opens once s2 is dug
    assert legal(s, "Excavation: pay 2 food, excavate s3 s5")
    assert not legal(s, "Excavation: pay 2 food, excavate s0 s1")
    assert not legal(s, "Excavation: pay 2 food, excavate s1 s3")
    do(s, "Excavation: pay 2 food, excavate s0 s2")
    reveal(s, "warehouse", "stall")
    assert s.players[0].spaces[0] == EMPTY and s.players[0].spaces[2] == EMPTY
    assert goods(s, 0)["food"] == 0


def test_double_excavation_through_s3_collects_food_once():
    s = excavation_turn()
    give(s, 0, food=3)
    do(s, "take Excavation", "Excavation: pay 2 food, excavate s3 s5")
    reveal(s, "warehouse", "stall")
    assert goods(s, 0)["food"] == 2


def _single_target_position(**options):
    s = excavation_turn(**options)
    build(s, 0, "w4", "w6", "w9", "w12")            # only s8 can be dug, and nothing behind it
    give(s, 0, food=3)
    do(s, "take Excavation")
    assert targets(s) == {"s8"}
    return s


def test_double_excavation_may_pay_and_dig_once_by_default():
    s = _single_target_position()
    assert legal(s, "Excavation: pay 2 food, excavate s8")
    do(s, "Excavation: pay 2 food, excavate s8")
    reveal(s, "warehouse")
    assert goods(s, 0)["food"] == 1
    assert s.players[0].spaces[8] == EMPTY


def test_double_excavation_requires_two_targets_parameter():
    s = _single_target_position(double_excavation_requires_two_targets=True)
    reason = try_do(s, "Excavation: pay 2 food, excavate s8")
    assert reason is not None
    assert not any(t.startswith("Excavation: pay 2 food") for t in legal_texts(s))
    assert legal(s, "Excavation: excavate s8")


def test_double_excavation_requires_two_targets_allows_two():
    s = excavation_turn(double_excavation_requires_two_targets=True)
    give(s, 0, food=2)
    do(s, "take Excavation")
    assert not legal(s, "Excavation: pay 2 food, excavate s5")
    assert legal(s, "Excavation: pay 2 food, excavate s5 s8")


# ------------------------------------------------------------------------------------------------
# Walls: building, razing, supply (6.4, 6.5)


def masonry_turn(player=0, **options):
    s = two_player_position(revealed=["masonry", "undermining", "breach", "renovation"], round=7,
                            starter=player, **options)
    return s


def test_build_wall_into_any_empty_slot_whatever_lies_on_the_spaces():
    s = masonry_turn()
    place(s, 0, "shelf", "s4")
    open_space(s, 0, "s5")
    do(s, "take Masonry")
    offered = {t.split()[-1] for t in legal_texts(s) if t.startswith("Masonry: build wall")}
    assert offered == {f"w{i}" for i in range(14)}           # no Additional Cavern yet


def test_no_wall_into_an_occupied_slot():
    s = masonry_turn()
    build(s, 0, "w6")
    do(s, "take Masonry")
    assert "already" in try_do(s, "Masonry: build wall w6")


def test_shared_supply_of_seven_walls():
    s = masonry_turn()
    build(s, 0, "w0", "w1", "w2", "w3")
    build(s, 1, "w4", "w5")
    assert s.wall_supply() == 1
    do(s, "take Masonry", "Masonry: build wall w6")
    assert s.wall_supply() == 0
    do(s, "end turn")                                # player 1: the supply is shared
    do(s, "take Undermining")
    s2 = masonry_turn(player=1)
    build(s2, 0, "w0", "w1", "w2", "w3")
    build(s2, 1, "w4", "w5", "w6")
    do(s2, "take Masonry")
    assert not any(t.startswith("Masonry: build wall") for t in legal_texts(s2))
    assert "supply" in try_do(s2, "Masonry: build wall w7")


def test_empty_supply_blocks_every_build_and_breach_refills_it():
    s = masonry_turn()
    build(s, 0, "w0", "w1", "w2", "w3")
    build(s, 1, "w0", "w1", "w2")
    give(s, 0, gold=5)
    give(s, 1, gold=0)
    do(s, "take Renovation")
    assert not any(t.startswith("Renovation: build wall") for t in legal_texts(s))
    do(s, "end turn")
    do(s, "take Breach", "Breach: raze wall w2, +2 stone +3 food +1 gold", "end turn")
    assert s.wall_supply() == 1
    do(s, "take Masonry", "Masonry: build wall w13")
    assert s.wall_supply() == 0
    assert len(walls(s, 0)) + len(walls(s, 1)) + s.wall_supply() == 7


def test_only_own_built_walls_can_be_razed():
    s = masonry_turn()
    build(s, 1, "w6")
    build(s, 0, "w7")
    do(s, "take Breach")
    assert try_do(s, "Breach: raze wall w6, +2 stone +3 food +1 gold") is not None
    assert legal(s, "Breach: raze wall w7, +2 stone +3 food +1 gold")


def test_natural_walls_are_not_slots():
    table = action_table()
    builds = {t.text.split()[-1] for t in table.specs if t.text.startswith("Masonry: build wall")}
    assert builds == {f"w{i}" for i in range(14)} | {"ac-N", "ac-E", "ac-S", "ac-W"}


def test_razing_leaves_furnished_rooms():
    s = masonry_turn()
    build(s, 0, "w6")
    place(s, 0, "tunnel", "s4")                     # needed E + W
    do(s, "take Breach", "Breach: raze wall w6, +2 stone +3 food +1 gold")
    assert s.players[0].spaces[4] == room("tunnel")
    assert s.scores()[0] == 3 + goods(s, 0)["gold"]


@pytest.mark.parametrize("allowed", [True, False])
def test_walls_between_face_down_spaces_parameter(allowed):
    s = masonry_turn(walls_between_face_down_spaces_allowed=allowed)
    do(s, "take Masonry")
    assert legal(s, "Masonry: build wall w0") is allowed      # s0 | s1, both face-down
    assert legal(s, "Masonry: build wall w13") is allowed     # s9 | s10, both face-down
    assert legal(s, "Masonry: build wall w4")                 # s2 face-down | s4 empty
    assert legal(s, "Masonry: build wall w7")                 # s4 | entrance


# ------------------------------------------------------------------------------------------------
# Furnishing places (6.6)


def test_furnish_only_on_empty_spaces():
    s = two_player_position()
    give(s, 0, all=9)
    do(s, "take Housework")
    spaces_offered = {t.split(" at ")[1].split()[0] for t in furnish_texts(s, "Housework: furnish")}
    assert spaces_offered == {"s4"}
    assert "empty" in try_do(s, "Housework: furnish Shelf at s2 paying 1 gold")    # face-down
    do(s, "Housework: furnish Shelf at s4 paying 1 gold")
    assert "empty" in try_do(s, "Housework: furnish Spinning Wheel at s4 paying food per turn")
    assert "empty" in try_do(s, "Housework: furnish Spinning Wheel at s6 paying food per turn")  # entrance


def test_furnish_needs_no_path_from_the_entrance():
    s = two_player_position()
    open_space(s, 0, "s0")                          # isolated behind face-down s1, s2; walls N + W
    give(s, 0, all=9)
    do(s, "take Housework", "Housework: furnish Food Corner at s0 paying 1 gold")
    assert s.players[0].spaces[0] == room("food_corner")


def test_furnish_room_must_be_in_display():
    s = two_player_position()
    give(s, 0, all=9, gold=19)
    do(s, "take Housework")
    assert "display" in try_do(s, "Housework: furnish Warehouse at s4 paying 1 gold")


def test_s4_at_setup_fits_only_shelf_spinning_wheel_grindstone():
    s = two_player_position()
    give(s, 0, all=9, gold=19)
    do(s, "take Housework")
    rooms_offered = {t.split("furnish ")[1].split(" at ")[0] for t in furnish_texts(s, "Housework: furnish")}
    assert rooms_offered == {"Shelf", "Spinning Wheel", "Grindstone"}


def test_s4_at_setup_with_start_goods():
    s = two_player_position()
    do(s, "take Housework")
    assert furnish_texts(s, "Housework: furnish") == {
        "Housework: furnish Shelf at s4 paying 1 gold",
        "Housework: furnish Spinning Wheel at s4 paying 1 gold",
        "Housework: furnish Grindstone at s4 paying 1 gold"}


def test_built_walls_and_natural_walls_both_count_rooms_never():
    s = two_player_position()
    build(s, 0, "w4")                                 # s4: N (built) + W (natural)
    place(s, 0, "shelf", "s5")                        # a room next door is not a wall
    give(s, 0, all=9)
    do(s, "take Housework")
    assert legal(s, "Housework: furnish Food Corner at s4 paying 1 gold")
    assert not legal(s, "Housework: furnish Shelf at s4 paying 1 gold")          # 2 walls now
    assert not legal(s, "Housework: furnish Spinning Wheel at s4 paying 1 gold")


# ------------------------------------------------------------------------------------------------
# Orange > blue (6.6)


def test_first_room_must_be_orange():
    s = two_player_position()
    to_display(s, "prospecting_site")               # free, 1 or 2 adjacent walls: fits s4
    do(s, "take Housework")
    reason = try_do(s, "Housework: furnish Prospecting Site at s4 paying 1 gold")
    assert reason is not None and "orange" in reason


def test_blue_needs_two_more_orange_than_blue():
    s = two_player_position()
    to_display(s, "prospecting_site", "equipment_room")
    place(s, 0, "gold_vein", "s10")                   # entrance + 1 orange
    open_space(s, 0, "s2")
    give(s, 0, all=9)
    do(s, "take Housework", "Housework: furnish Prospecting Site at s4 paying 1 gold")
    reason = try_do(s, "Housework: furnish Equipment Room at s2 paying food per turn")
    assert reason is not None and "orange" in reason  # 2 orange vs 2 blue would follow
    assert legal(s, "Housework: furnish Shelf at s2 paying food per turn")


def test_housework_orange_then_blue_in_one_turn():
    s = two_player_position()
    to_display(s, "prospecting_site")
    open_space(s, 0, "s2")
    give(s, 0, all=9)
    do(s, "take Housework")
    assert not legal(s, "Housework: furnish Prospecting Site at s2 paying food per turn")
    do(s, "Housework: furnish Shelf at s4 paying 1 gold",
       "Housework: furnish Prospecting Site at s2 paying food per turn")
    assert s.players[0].spaces[2] == room("prospecting_site")


# ------------------------------------------------------------------------------------------------
# The Additional Cavern (section 10)


def cavern_position(**options):
    """Player 0 has every board space furnished except s4 (walls: W only); Shelf is in the display."""
    s = two_player_position(revealed=["masonry", "undermining", "breach"], round=3, **options)
    fill_board(s, 0, leave_empty=["s4"])
    give(s, 0, all=9, gold=19)
    return s


CAVERN_SIDES = {"take Additional Cavern with 2 walls", "take Additional Cavern with 3 walls"}


def test_additional_cavern_awarded_when_board_is_full():
    s = cavern_position()
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold")
    assert s.current_player() == 0
    assert legal_texts(s) == CAVERN_SIDES
    assert try_do(s, "end turn") is not None
    do(s, "take Additional Cavern with 2 walls")
    assert s.cavern_owner == 0
    assert s.players[0].spaces[CAVERN] == EMPTY
    assert s.players[1].spaces[CAVERN] == UNAVAILABLE


def test_additional_cavern_two_wall_side_is_adjacent_and_furnishable_same_turn():
    s = cavern_position()
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold",
       "take Additional Cavern with 2 walls")
    assert s.players[0].cavern_sides == 1 | 8            # N + W
    assert "Housework: furnish Food Corner at ac paying food per turn" in legal_texts(s)
    assert not legal(s, "Housework: furnish Tunnel at ac paying food per turn")
    assert not legal(s, "Housework: furnish Spinning Wheel at ac paying food per turn")
    do(s, "Housework: furnish Food Corner at ac paying food per turn")
    assert s.players[0].spaces[CAVERN] == room("food_corner")


def test_additional_cavern_three_wall_side():
    s = cavern_position()
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold",
       "take Additional Cavern with 3 walls")
    assert s.players[0].cavern_sides == 1 | 2 | 8        # N + E + W
    assert legal(s, "Housework: furnish Parlor at ac paying food per turn")
    assert not legal(s, "Housework: furnish Food Corner at ac paying food per turn")


def test_additional_cavern_opposite_layout_parameter():
    s = cavern_position(additional_cavern_two_wall_layout="opposite")
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold",
       "take Additional Cavern with 2 walls")
    assert s.players[0].cavern_sides == 1 | 4            # N + S
    assert legal(s, "Housework: furnish Tunnel at ac paying food per turn")
    assert not legal(s, "Housework: furnish Food Corner at ac paying food per turn")


def test_additional_cavern_three_or_four_walls_parameter():
    s = cavern_position(additional_cavern_walls=[3, 4])
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold")
    assert legal_texts(s) == {"take Additional Cavern with 3 walls", "take Additional Cavern with 4 walls"}
    do(s, "take Additional Cavern with 4 walls")
    assert s.players[0].cavern_sides == 15
    to_display(s, "treasury")
    assert legal(s, "Housework: furnish Treasury at ac paying food per turn")


def test_additional_cavern_not_awarded_while_a_space_is_face_down():
    s = cavern_position()
    s.players[0].spaces[9] = FACE_DOWN
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold")
    assert s.cavern_owner == -1
    assert "take Additional Cavern with 2 walls" not in legal_texts(s)


def test_additional_cavern_award_at_end_of_turn_parameter():
    s = cavern_position(additional_cavern_award_timing="end_of_turn")
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold")
    assert s.cavern_owner == -1
    assert try_do(s, "Housework: furnish Food Corner at ac paying food per turn") is not None
    do(s, "end turn")
    assert s.current_player() == 0
    assert legal_texts(s) == CAVERN_SIDES
    do(s, "take Additional Cavern with 2 walls")
    assert s.cavern_owner == 0 and s.players[0].spaces[CAVERN] == EMPTY
    assert s.current_player() == 1                        # the turn ended after the choice


def test_second_player_to_fill_the_board_gets_nothing():
    s = cavern_position()
    s.cavern_owner = 0                                     # player 0 already holds it
    s.players[0].spaces[CAVERN] = EMPTY
    s.players[0].cavern_sides = 9
    do(s, "take Cultivation", "end turn")
    fill_board(s, 1, leave_empty=["s4"], rooms=["bakehouse", "state_room", "secret_chamber", "treasury",
                                                "tunnel", "grindstone", "food_corner", "parlor",
                                                "spinning_wheel"])
    give(s, 1, all=9)
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying 1 gold")
    assert s.cavern_owner == 0
    assert s.players[1].spaces[CAVERN] == UNAVAILABLE
    assert "take Additional Cavern with 2 walls" not in legal_texts(s)
    assert try_do(s, "take Additional Cavern with 2 walls") is not None


def _owned_cavern(sides=9, **options):
    s = cavern_position(**options)
    s.cavern_owner = 0
    s.players[0].spaces[CAVERN] = EMPTY
    s.players[0].cavern_sides = sides
    return s


def test_additional_cavern_open_sides_take_walls_natural_ones_do_not():
    s = _owned_cavern()                                    # N + W natural
    do(s, "take Masonry")
    assert legal(s, "Masonry: build wall ac-E") and legal(s, "Masonry: build wall ac-S")
    assert "natural" in try_do(s, "Masonry: build wall ac-N")
    assert try_do(s, "Masonry: build wall ac-W") is not None
    do(s, "Masonry: build wall ac-E")
    assert s.wall_supply() == 6
    assert wall_pattern(R, CAVERN, s.players[0].walls, s.players[0].cavern_sides) == 1 | 2 | 8


def test_additional_cavern_walls_before_owning_refused():
    s = cavern_position()
    do(s, "take Masonry")
    assert try_do(s, "Masonry: build wall ac-S") is not None


def test_additional_cavern_open_sides_accept_walls_parameter():
    s = _owned_cavern(additional_cavern_open_sides_accept_walls=False)
    do(s, "take Masonry")
    assert try_do(s, "Masonry: build wall ac-S") is not None


def test_additional_cavern_wall_can_be_razed_natural_cannot():
    s = _owned_cavern()
    build(s, 0, "ac-S")
    do(s, "take Breach")
    assert try_do(s, "Breach: raze wall ac-N, +2 stone +3 food +1 gold") is not None
    do(s, "Breach: raze wall ac-S, +2 stone +3 food +1 gold")
    assert walls(s, 0) == set()


def test_additional_cavern_rooms_score_activate_and_count_orange():
    s = _owned_cavern()
    before = s.scores()[0]
    s.players[0].spaces[CAVERN] = room("state_room")        # orange, 12 VP
    assert s.scores()[0] == before + 12
    do(s, "take Undergrowth", "use State Room: +1 flax +1 gold")
    assert goods(s, 0)["gold"] == 19 and goods(s, 0)["flax"] == 9


def test_additional_cavern_room_counts_for_orange_over_blue():
    s = two_player_position()
    s.cavern_owner = 0
    s.players[0].spaces[CAVERN] = room("gold_vein")          # entrance + Gold Vein on the cavern
    to_display(s, "prospecting_site")
    give(s, 0, all=9)
    do(s, "take Housework")
    assert legal(s, "Housework: furnish Prospecting Site at s4 paying 1 gold")


def test_additional_cavern_is_not_an_excavation_target():
    table = action_table()
    assert not any("excavate" in t.text and " ac" in t.text for t in table.specs)


def test_excavated_room_is_open_to_both_players():
    s = two_player_position()
    do(s, "take Excavation", "Excavation: excavate s5")
    reveal(s, "weaving_room")
    do(s, "end turn")
    build(s, 1, "w4")                                   # player 1's s4: N + W, two adjacent walls
    give(s, 1, all=9)
    do(s, "take Housework", "Housework: furnish Weaving Room at s4 paying 1 gold")
    assert s.players[1].spaces[4] == room("weaving_room")
    assert not s.display >> room("weaving_room") & 1
