"""Cave vs Cave: setup, rounds and turns (sections 3, 4), solo rules (section 12) and scoring (section 11)."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from cvc_positions import (CHANCE, ENGINE, R, build, do, give, goods, legal_texts,  # noqa: E402
                           place, reveal, room, solo_position, tile, two_player_position)
from cavekit.core import load_game  # noqa: E402
from cavekit.core.api import TERMINAL  # noqa: E402
from cavekit.core.cvc.reference import REVEAL_TILE  # noqa: E402

STAGE_TILES = {2: {"furnishing", "masonry", "undermining"},
               3: {"breach", "expansion", "expedition", "drift_mining"},
               4: {"renovation"}}
LIGHT = {"shelf", "spinning_wheel", "tunnel", "grindstone", "food_corner", "parlor"}


def tile_ids(indices):
    return {R.tiles[i].id for i in indices}


def play_out(s, pick_tile=min):
    """Play to the end taking one tile per turn and doing nothing; record everything per round."""
    log = {"players": [], "stage": [], "revealed": [], "outcomes": [], "available": []}
    while not s.is_terminal():
        if s.current_player() == CHANCE:
            outcomes = [o for o, _ in s.chance_outcomes()]
            if s._chance_kind() == REVEAL_TILE:                # a new round starts
                log["outcomes"].append(tile_ids(outcomes))
                choice = min(outcomes)
                log["revealed"].append(R.tiles[choice].id)
                log["stage"].append(R.tiles[choice].stage)
                log["players"].append([])
                s.apply_action(choice)
                log["available"].append(len(s.tiles_on_board()))
            else:
                s.apply_action(min(outcomes))
            continue
        log["players"][-1].append(s.current_player())
        takes = sorted(a for a in s.legal_actions() if s.action_to_string(a).startswith("take "))
        s.apply_action(pick_tile(takes))
        s.apply_action(s.string_to_action("end turn"))
    return log


# ------------------------------------------------------------------------------------------------
# Setup (3.1) and the two-player round structure (4)


def test_two_player_setup_chance_nodes():
    g = load_game("cvc", players=2, engine=ENGINE)
    s = g.new_initial_state()
    assert s.current_player() == CHANCE
    assert sorted(s.chance_outcomes()) == [(0, 0.5), (1, 0.5)]
    s.apply_action(1)
    assert s.current_player() == CHANCE
    outs = s.chance_outcomes()
    assert tile_ids(o for o, _ in outs) == STAGE_TILES[2]
    assert all(abs(p - 1 / 3) < 1e-12 for _, p in outs)
    s.apply_action(tile("undermining"))
    assert s.current_player() == 1
    assert tile_ids(s.tiles_on_board()) == {"cultivation", "housework", "excavation", "undergrowth",
                                             "undermining"}
    for p in (0, 1):
        assert goods(s, p) == dict.fromkeys(("wood", "stone", "emmer", "flax", "food", "gold"), 1)
    assert {R.rooms[i].id for i in range(24) if s.display >> i & 1} == LIGHT


@pytest.mark.parametrize("first", [0, 1])
def test_two_player_full_game_turn_order_and_reveals(first):
    g = load_game("cvc", players=2, engine=ENGINE)
    s = g.new_initial_state()
    s.apply_action(first)
    log = play_out(s)
    A, B = first, 1 - first
    expected = [[A, B] * 2, [B, A] * 2, [A, B] * 2, [B, A] * 3, [A, B] * 3, [B, A] * 3, [A, B] * 3,
                [B, A] * 4]
    assert log["players"] == expected
    # the new starting player plays two turns in a row: last of round r, first of round r+1
    for r in range(7):
        assert log["players"][r][-1] == log["players"][r + 1][0]
    assert log["stage"] == [2, 2, 2, 3, 3, 3, 3, 4]
    assert log["available"] == [5, 6, 7, 8, 9, 10, 11, 12]
    # each reveal offers exactly the not-yet-revealed tiles of that round's stage
    assert log["outcomes"][0] == STAGE_TILES[2]
    assert log["outcomes"][3] == STAGE_TILES[3]
    assert log["outcomes"][7] == {"renovation"}
    for r in range(8):
        stage = log["stage"][r]
        assert log["outcomes"][r] == STAGE_TILES[stage] - set(log["revealed"][:r])
    assert sorted(log["revealed"]) == sorted(STAGE_TILES[2] | STAGE_TILES[3] | STAGE_TILES[4])
    assert s.is_terminal() and s.current_player() == TERMINAL and s.legal_actions() == []
    assert sum(len(p) for p in log["players"]) == 44


@pytest.mark.parametrize("round_, turns", list(enumerate([2, 2, 2, 3, 3, 3, 3, 4])))
def test_turns_per_player_by_round(round_, turns):
    s = two_player_position(round=round_)
    assert s.turns_per_player() == turns
    who = []
    while s.round == round_:
        who.append(s.current_player())
        takes = sorted(a for a in s.legal_actions() if s.action_to_string(a).startswith("take "))
        s.apply_action(takes[0])
        do(s, "end turn")
    assert who == [0, 1] * turns


def test_tiles_return_at_round_end_and_starter_passes():
    s = two_player_position()
    for name in ("Excavation", "Undergrowth", "Cultivation", "Housework"):
        do(s, f"take {name}", "end turn")
    assert s.round == 1 and s.taken == 0 and s.starter == 1
    s.apply_action(tile("masonry"))
    assert s.current_player() == 1
    assert {"take Excavation", "take Undergrowth", "take Cultivation", "take Housework"} <= legal_texts(s)


def test_game_ends_after_round_eight():
    s = two_player_position(round=7)
    for _ in range(8):
        takes = sorted(a for a in s.legal_actions() if s.action_to_string(a).startswith("take "))
        s.apply_action(takes[0])
        do(s, "end turn")
    assert s.is_terminal()
    assert s.current_player() == TERMINAL


# ------------------------------------------------------------------------------------------------
# Solo (3.2, 12)


def test_solo_setup_removes_three_light_rooms():
    g = load_game("cvc", players=1, engine=ENGINE)
    s = g.new_initial_state()
    removed = []
    for _ in range(3):
        assert s.current_player() == CHANCE
        outs = {R.rooms[o].id for o, _ in s.chance_outcomes()}
        assert outs == LIGHT - set(removed)
        choice = sorted(outs)[0]
        removed.append(choice)
        s.apply_action(room(choice))
    assert s.current_player() == CHANCE
    assert tile_ids(o for o, _ in s.chance_outcomes()) == STAGE_TILES[2]
    s.apply_action(tile("masonry"))
    assert s.current_player() == 0
    display = {R.rooms[i].id for i in range(24) if s.display >> i & 1}
    assert display == LIGHT - set(removed) and len(display) == 3
    assert s.pile == 9
    assert s.players[0].spaces[:11].count(-1) == 9


def test_solo_full_game_seven_rounds_no_breach():
    g = load_game("cvc", players=1, engine=ENGINE)
    s = g.new_initial_state()
    for _ in range(3):
        s.apply_action(s.chance_outcomes()[0][0])
    log = play_out(s)
    assert log["players"] == [[0] * n for n in (2, 2, 2, 3, 3, 3, 4)]
    assert log["stage"] == [2, 2, 2, 3, 3, 3, 4]
    assert log["outcomes"][3] == {"expansion", "expedition", "drift_mining"}
    assert all("breach" not in o for o in log["outcomes"])
    assert log["revealed"][-1] == "renovation"
    assert log["available"] == [5, 6, 7, 8, 9, 10, 11]
    assert s.is_terminal()


@pytest.mark.parametrize("round_, turns", list(enumerate([2, 2, 2, 3, 3, 3, 4])))
def test_solo_food_per_turn(round_, turns):
    s = solo_position(round=round_)
    give(s, 0, all=0, wood=1, food=turns)
    do(s, "take Housework", "Housework: furnish Shelf at s4 paying food per turn")
    assert goods(s, 0)["food"] == 0


def test_solo_single_excavation_reveals_from_the_pile_at_end_of_turn():
    s = solo_position()
    do(s, "take Excavation", "Excavation: excavate s5")
    reveal(s, "warehouse")
    assert s.current_player() == 0                     # default: nothing more until the turn ends
    before = s.display
    do(s, "end turn")
    assert s.current_player() == CHANCE
    assert {o for o, _ in s.chance_outcomes()} == {i for i in range(24) if s.pool >> i & 1}
    reveal(s, "treasury")
    assert s.display == before | 1 << room("treasury")
    assert s.pile == 8
    assert s.current_player() == 0


def test_solo_double_excavation_reveals_nothing():
    s = solo_position()
    give(s, 0, food=2)
    do(s, "take Excavation", "Excavation: pay 2 food, excavate s5 s8")
    reveal(s, "warehouse", "stall")
    do(s, "end turn")
    assert s.current_player() == 0 and s.pile == 9


def test_solo_no_excavation_reveals_nothing():
    s = solo_position()
    do(s, "take Undergrowth", "end turn")
    assert s.current_player() == 0 and s.pile == 9


def test_solo_digging_cave_counts_as_excavation():
    s = solo_position()
    place(s, 0, "digging_cave", "s10")
    do(s, "take Undergrowth", "use Digging Cave: pay 1 gold, excavate s7")
    reveal(s, "warehouse")
    do(s, "end turn")
    assert s.current_player() == CHANCE
    reveal(s, "stall")
    assert s.pile == 8


def _two_single_excavations(**options):
    s = solo_position(revealed=["furnishing", "masonry", "undermining", "drift_mining"], round=3, **options)
    place(s, 0, "digging_cave", "s10")
    do(s, "take Drift Mining", "Drift Mining: excavate s5")
    reveal(s, "warehouse")
    return s


def test_solo_two_excavations_in_one_turn_default_no_reveal():
    s = _two_single_excavations()
    assert s.current_player() == 0
    do(s, "use Digging Cave: pay 1 gold, excavate s7")
    reveal(s, "stall")
    do(s, "end turn")
    assert s.current_player() == 0 and s.pile == 9


def test_solo_per_single_excavation_effect_parameter():
    s = _two_single_excavations(solo_reveal_timing="per_single_excavation_effect")
    assert s.current_player() == CHANCE                # the pile reveal follows the effect at once
    reveal(s, "treasury")
    assert s.pile == 8 and s.current_player() == 0
    do(s, "use Digging Cave: pay 1 gold, excavate s7")
    reveal(s, "stall", "gold_vein")
    assert s.pile == 7
    do(s, "end turn")
    assert s.current_player() == 0 and s.pile == 7


def test_solo_per_effect_double_excavation_reveals_nothing():
    s = solo_position(solo_reveal_timing="per_single_excavation_effect")
    give(s, 0, food=2)
    do(s, "take Excavation", "Excavation: pay 2 food, excavate s5 s8")
    reveal(s, "warehouse", "stall")
    assert s.current_player() == 0
    do(s, "end turn")
    assert s.current_player() == 0 and s.pile == 9


def test_solo_empty_pile_reveals_nothing():
    s = solo_position(revealed=["furnishing", "masonry", "undermining", "drift_mining"], round=3)
    s.pile = 1
    do(s, "take Excavation", "Excavation: excavate s5")
    reveal(s, "warehouse")
    do(s, "end turn")
    reveal(s, "stall")
    assert s.pile == 0
    do(s, "take Drift Mining", "Drift Mining: excavate s8")
    reveal(s, "treasury")
    do(s, "end turn")
    assert s.current_player() == 0 and s.pile == 0


def test_solo_has_all_seven_walls():
    s = solo_position(revealed=["masonry"])
    assert s.wall_supply() == 7
    build(s, 0, "w0", "w1", "w2", "w3", "w4", "w5")
    do(s, "take Masonry", "Masonry: build wall w6")
    assert s.wall_supply() == 0


def test_solo_renovation_any_gold():
    s = solo_position(round=6)
    assert R.tiles[s.revealed_tiles[6]].id == "renovation"
    give(s, 0, gold=0)
    do(s, "take Renovation", "Renovation: build wall w6")
    assert s.players[0].walls == 1 << 6


# ------------------------------------------------------------------------------------------------
# Scoring (11)


def finished(s):
    s.round = len(s._turns)
    s.turn = 0
    assert s.is_terminal()
    return s


def test_score_is_room_vp_plus_gold_only():
    s = two_player_position()
    place(s, 0, "treasury", "s10")
    place(s, 0, "shelf", "s4")
    give(s, 0, all=9, gold=7)
    give(s, 1, all=0, gold=3)
    assert s.scores() == [10 + 3 + 7, 3]


def test_returns_zero_until_the_end():
    s = two_player_position()
    give(s, 0, gold=10)
    assert s.returns() == [0.0, 0.0]
    assert not s.is_terminal()


def test_higher_score_wins():
    s = two_player_position()
    give(s, 0, gold=5)
    give(s, 1, gold=4)
    finished(s)
    assert s.returns() == [1.0, -1.0]
    give(s, 1, gold=6)
    assert s.returns() == [-1.0, 1.0]


def test_tie_broken_by_single_highest_room():
    s = two_player_position()
    place(s, 0, "treasury", "s10")                       # 10
    place(s, 1, "gold_vein", "s10")                      # 9
    place(s, 1, "shelf", "s4")                           # 3
    give(s, 0, gold=2)                                   # 12
    give(s, 1, gold=0)                                   # 12
    finished(s)
    assert s.scores() == [12, 12]
    assert s.returns() == [1.0, -1.0]


def test_tie_with_equal_top_rooms_is_a_draw():
    s = two_player_position()
    place(s, 0, "digging_cave", "s10")                   # 8
    place(s, 0, "shelf", "s4")                           # 3
    place(s, 1, "secret_chamber", "s10")                 # 8
    place(s, 1, "spinning_wheel", "s4")                  # 4
    give(s, 0, gold=1)
    give(s, 1, gold=0)
    finished(s)
    assert s.scores() == [12, 12]
    assert s.returns() == [0.0, 0.0]
    assert s.winner() is None


def test_tie_next_highest_room_parameter():
    s = two_player_position(tie_break_when_top_rooms_equal="next_highest_room")
    place(s, 0, "digging_cave", "s10")
    place(s, 0, "shelf", "s4")
    place(s, 1, "secret_chamber", "s10")
    place(s, 1, "spinning_wheel", "s4")
    give(s, 0, gold=1)
    give(s, 1, gold=0)
    finished(s)
    assert s.returns() == [-1.0, 1.0]


def test_tie_without_rooms_is_a_draw():
    s = two_player_position()
    give(s, 0, all=9, gold=4)
    give(s, 1, all=0, gold=4)
    finished(s)
    assert s.returns() == [0.0, 0.0]


def test_solo_returns_the_score():
    s = solo_position()
    place(s, 0, "state_room", "s10")
    place(s, 0, "shelf", "s4")
    give(s, 0, gold=11)
    finished(s)
    assert s.returns() == [26.0]


def test_additional_cavern_room_scores():
    s = two_player_position()
    s.cavern_owner = 0
    s.players[0].spaces[11] = room("dungeon")
    give(s, 0, gold=0)
    assert s.scores()[0] == 11
