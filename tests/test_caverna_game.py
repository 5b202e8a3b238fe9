"""Caverna (The Cave Farmers) game API: conformance, rounds and harvests, random games for 1-7 players with
property checks, records, and illegal actions (shared/rules/caverna.md sections 3, 5, 6, 12, 13)."""
from __future__ import annotations

import copy
import json
import pickle
import re

import numpy as np
import pytest

from cavekit.core import CHANCE, TERMINAL, ConfigError, CorruptRecordError, IllegalActionError
from cavekit.core import load_game as _load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.caverna import husbandry as hu
from cavekit.core.caverna.actions import action_table
from cavekit.core.caverna.board import parse_board
from cavekit.core.caverna.rules import FARM_ANIMALS, rounds_played, rules

from test_caverna_actions import do, legal, setup


def load_game(name, **params):
    """The game on the reference engine: these tests build positions by editing the reference engine's fields
    (the compiled engine, the default, plays the same game: tests/test_caverna_compiled.py)."""
    return _load_game(name, **{"engine": "reference", **params})


def random_game(players: int, seed: int, check=None):
    """Play a seeded random game to the end; `check(state)` after every step. Returns the final state."""
    state = load_game("caverna", players=players).new_initial_state()
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            action = sample_chance_outcome(state.chance_outcomes(), rng.random())
        else:
            actions = state.legal_actions()
            assert actions, f"no legal action in phase {state.phase}"
            action = actions[rng.integers(len(actions))]
        state.apply_action(action)
        if check:
            check(state)
    return state


def skip_to(state, phase: str, rng=None):
    """Random moves until the given phase (chance included)."""
    rng = rng or np.random.default_rng(0)
    while state.phase != phase and not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    return state


# ------------------------------------------------------------------------------------------------------
# Game object and API

def test_load_game_sizes_and_parameters():
    assert _load_game("caverna").engine == "compiled"
    g = load_game("caverna")
    assert g.name == "caverna" and g.num_players == 2 and g.engine == "reference"
    assert g.num_distinct_actions == len(action_table())
    assert g.max_chance_outcomes == 12 and g.max_game_length > 1000
    assert g.parameters()["players"] == 2 and g.parameters()["simple_dwelling_vp"] == 0
    assert load_game("caverna", players=7, simple_dwelling_vp=2).parameters()["simple_dwelling_vp"] == 2
    # ids do not depend on player count or parameters
    assert load_game("caverna", players=1).num_distinct_actions == g.num_distinct_actions


def test_bad_players_engine_and_parameters_are_refused():
    with pytest.raises(ConfigError, match="1 to 7 players"):
        load_game("caverna", players=8)
    with pytest.raises(ConfigError, match="unknown engine 'fast' for caverna; available engines: "):
        load_game("caverna", engine="fast")
    with pytest.raises(ConfigError, match="unknown Caverna parameter"):
        load_game("caverna", colour="red")


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6, 7])
def test_setup_per_player_count(players):
    s = load_game("caverna", players=players).new_initial_state()
    if players > 1:
        assert s.current_player() == CHANCE and len(s.chance_outcomes()) == players
        s.apply_action(players - 1)
    while s.current_player() == CHANCE:
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.phase == "work" and s.current_player() == s.starter
    foods = [s.players[(s.starter + k) % players].goods["food"] for k in range(players)]
    assert foods == ([2] if players == 1 else [1, 1, 2, 3, 3, 3, 3][:players])
    for p in s.players:
        assert p.dwarfs == 2 and p.ready == [0, 0] and p.board.at((3, 3)).furnishing == "entry_level_dwelling"
    printed = [x for x in s.spaces if not rules().action_spaces[x].is_round_card]
    assert len(printed) == {1: 8, 2: 12, 3: 15, 4: 13, 5: 19, 6: 19, 7: 22}[players]
    assert len(s.spaces) == len(printed) + 1                                  # round 1's card
    assert s.cards[0] in ("blacksmithing", "sheep_farming", "ore_mine_construction")
    if players == 1:
        assert s.cards == ["blacksmithing"]


def test_round_cards_follow_the_stages_and_wish_for_children_is_round_4():
    s = random_game(3, seed=4)
    stages = [rules().round_card(c).stage for c in s.cards]
    assert stages == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4] and s.cards[3] == "wish_for_children"
    two = random_game(2, seed=4)
    assert len(two.cards) == 11 and "exploration" not in two.cards
    assert "urgent_wish_for_children" in two.spaces and "wish_for_children" not in two.spaces


def test_solo_round_cards_are_in_the_fixed_order():
    s = random_game(1, seed=2)
    order = rules().solo_round_order
    assert s.cards == [order[n] for n in rounds_played(1)]


@pytest.mark.parametrize("players,rounds", [(1, 11), (2, 11), (3, 12), (7, 12)])
def test_games_last_the_right_number_of_rounds(players, rounds):
    seen = set()
    s = random_game(players, seed=1, check=lambda st: seen.add(st.round_no) if not st.is_terminal() else None)
    assert len(rounds_played(players)) == rounds and s.round == rounds
    assert 9 not in seen if rounds == 11 else 9 in seen


def test_harvest_markers_two_players_six_markers_three_red():
    s = random_game(2, seed=3)
    assert sorted(s.markers) == [5, 6, 7, 8, 9, 10] and sum(s.markers.values()) == 3
    assert s.markers_left == [0, 0]
    assert random_game(1, seed=3).markers == {}


# ------------------------------------------------------------------------------------------------------
# Random games and properties

def _properties(state):
    for q, p in enumerate(state.players):
        assert all(v >= 0 for v in p.goods.values()), (q, p.goods)
        assert all(v >= 0 for v in p.animals.values()), (q, p.animals)
        acting = state.overflow and state.current_player() == q
        if not acting and state.current_player() >= 0 or state.is_terminal():
            if not acting:
                assert hu.can_accommodate(p.board, p.animals, p.dwarfs, state._config), (q, p.animals)
        assert 2 <= p.dwarfs <= 6


@pytest.mark.parametrize("players,seed", [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)])
def test_random_games_finish_with_properties_holding(players, seed):
    s = random_game(players, seed, check=_properties)
    assert s.is_terminal() and s.current_player() == TERMINAL and s.legal_actions() == []
    scores = s.scores()
    for q in range(players):
        sheet = s.score_sheet(q)
        assert scores[q] == sheet.total == sum(sheet.categories.values())
    r = s.returns()
    if players == 1:
        assert r == [float(scores[0])]
    else:
        assert sum(r) == pytest.approx(0.0)
        best = max(scores)
        assert all((r[q] > 0) == (scores[q] == best) for q in range(players))


def test_every_legal_action_is_accepted_and_notation_round_trips():
    s = load_game("caverna", players=3).new_initial_state()
    rng = np.random.default_rng(9)
    steps = 0
    while not s.is_terminal() and steps < 400:
        actions = s.legal_actions()
        assert actions == sorted(set(actions))
        for a in actions:
            assert s.string_to_action(s.action_to_string(a)) == a
        if s.current_player() == CHANCE:
            a = sample_chance_outcome(s.chance_outcomes(), rng.random())
        else:
            a = actions[rng.integers(len(actions))]
            mask = s.legal_actions_mask()
            assert sum(mask) == len(actions)
        s.clone().apply_action(a)
        s.apply_action(a)
        steps += 1


# ------------------------------------------------------------------------------------------------------
# Records, clones, illegal actions

def test_serialize_round_trip_and_clone_independence():
    s = random_game(3, seed=5)
    text = s.serialize()
    back = load_game("caverna", players=3).deserialize_state(text)
    assert back.to_dict() == s.to_dict() and back.history() == s.history() and back == s
    mid = load_game("caverna", players=2).new_initial_state(seed=3)
    do(mid, "place supplies")
    c = mid.clone()
    do(c, "end turn")
    assert mid.turn is not None and c.turn is None
    assert pickle.loads(pickle.dumps(mid)).to_dict() == mid.to_dict()
    assert copy.deepcopy(mid).to_dict() == mid.to_dict()


def test_corrupt_records_are_refused_with_their_location():
    s = load_game("caverna", players=2).new_initial_state(seed=1)
    record = json.loads(s.serialize())
    record["history"].append(99999)
    with pytest.raises(CorruptRecordError, match=r"history\[\d+\]"):
        load_game("caverna", players=2).deserialize_state(json.dumps(record))
    record = json.loads(s.serialize())
    record["state"]["round"] = 5
    with pytest.raises(CorruptRecordError, match="state.round"):
        load_game("caverna", players=2).deserialize_state(json.dumps(record))
    with pytest.raises(CorruptRecordError, match="params"):
        load_game("caverna", players=3).deserialize_state(s.serialize())


def test_illegal_actions_name_action_player_reason_and_change_nothing():
    s = load_game("caverna", players=2).new_initial_state(seed=1)
    player = s.current_player()
    before = (s.to_dict(), s.history(), s.legal_actions())
    for bad, why in ((action_table().end_turn, "^place a dwarf on an action space first$"),
                     (-1, "^actions are numbered 0 to "), (10 ** 6, "^actions are numbered 0 to "),
                     ("x", r"^an action is an int in \[0, "),
                     (action_table().place["growth"], "^growth is not an action space of this game")):
        with pytest.raises(IllegalActionError) as info:
            s.apply_action(bad)
        assert f"player {player}" in str(info.value) and re.search(why, info.value.reason), info.value.reason
        assert (s.to_dict(), s.history(), s.legal_actions()) == before
    with pytest.raises(IllegalActionError, match="chance"):
        st = load_game("caverna", players=2).new_initial_state()
        st.apply_action(5)


def test_seeded_setup_is_reproducible_and_render_shows_the_position():
    a = load_game("caverna", players=4).new_initial_state(seed=11)
    b = load_game("caverna", players=4).new_initial_state(seed=11)
    assert a.to_dict() == b.to_dict()
    text = str(a)
    assert "Caverna, 4 player(s), round 1" in text and "player 3" in text and "action spaces:" in text
    assert a.information_state_string(0) == a.serialize()
    assert len(a.observation_tensor(1)) == a._game.observation_tensor_size()


# ------------------------------------------------------------------------------------------------------
# Harvest

def _to_harvest(players=2, seed=1):
    """A game at the feeding phase of round 3 (the first normal harvest)."""
    s = load_game("caverna", players=players).new_initial_state(seed=seed)
    return skip_to(s, "feeding", np.random.default_rng(seed))


def test_feeding_costs_2_per_dwarf_newborns_1_and_missing_food_is_begging():
    s = _to_harvest()
    assert s.round_no == 3 and s.harvest_kind == "normal"
    q = s.current_player()
    p = s.players[q]
    p.goods.update({g: 0 for g in p.goods})
    p.goods["food"] = 3
    p.ready, p.newborns = [0, 0], 1
    s._legal = None
    assert s.feeding_need(q) == 2 * 2 + 1
    assert set(legal(s)) == {"feed"}
    do(s, "feed")
    assert p.goods["food"] == 0 and p.begging == 2


def test_feeding_conversions_and_working_cave():
    s = _to_harvest(seed=2)
    q = s.current_player()
    p = setup(s, goods={"food": 1, "vegetable": 1, "wood": 1},
              board=".  . . | . . .\n. . . | . . .\n. . . | C:working_cave . .\n. . . | E . .")
    p.ready, p.newborns = [0, 0], 0
    assert s.feeding_need(q) == 4
    do(s, "convert 1 vegetable -> 2 food", "Working cave: feed a dwarf with 1 wood")
    assert s.feeding_need(q) == 2
    do(s, "feed")
    assert p.begging == 0 and p.goods["food"] == 1


def _play_quietly(state, phase):
    """Deterministic moves that never convert or release (end the turn as soon as possible)."""
    while state.phase != phase:
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        texts = legal(state)
        pick = "end turn" if "end turn" in texts else next(
            t for t in texts if not t.startswith(("convert", "release", "buy", "pay")))
        do(state, pick)
    return state


PASTURE_AND_FIELD = """
    . . .    | . . .
    . . .    | . . .
    . . P*   | C . .
    . . F:g3 | E . .
"""


def test_field_phase_feeding_and_automatic_breeding():
    s = skip_to(load_game("caverna", players=2).new_initial_state(seed=1), "work")
    for p in s.players:
        p.board = parse_board(PASTURE_AND_FIELD)
        p.animals.update({a: 0 for a in FARM_ANIMALS})
        p.animals["sheep"] = 2
        p.goods.update({g: 0 for g in p.goods})
        p.goods["food"] = 20
    s._legal = None
    _play_quietly(s, "feeding")
    assert s.round_no == 3
    for p in s.players:
        assert p.board.at((3, 2)).crop_count == 2 and p.goods["grain"] >= 1
    while s.phase == "feeding":
        do(s, "feed")
    for p in s.players:
        assert p.animals["sheep"] == 3 and p.begging == 0


def test_breeding_choice_when_several_sets_fit():
    s = _to_harvest(seed=4)
    for p in s.players:
        p.board = parse_board(PASTURE_AND_FIELD)
        p.animals.update({a: 0 for a in FARM_ANIMALS})
        p.animals.update({"sheep": 2, "wild_boar": 2})     # pasture 4 + dwelling 2: one newborn type fits
        p.goods["food"] = 20
        p.ready, p.newborns = [0, 0], 0
    s._legal = None
    while s.phase == "feeding":
        do(s, "feed")
    assert s.phase == "breeding"
    q = s.current_player()
    assert set(legal(s)) == {"breed sheep", "breed wild_boar"}
    do(s, "breed wild_boar")
    assert (s.players[q].animals["sheep"], s.players[q].animals["wild_boar"]) == (2, 3)


def test_round_4_feeds_1_food_per_dwarf_and_has_no_breeding():
    s = load_game("caverna", players=2).new_initial_state(seed=6)
    rng = np.random.default_rng(6)
    while not (s.phase == "feeding" and s.round_no == 4):
        skip_to(s, "work", rng)
        skip_to(s, "feeding", rng)
        if s.round_no == 3:
            while s.phase != "work":
                if s.current_player() == CHANCE:
                    s.apply_action(sample_chance_outcome(s.chance_outcomes(), rng.random()))
                else:
                    acts = s.legal_actions()
                    s.apply_action(acts[rng.integers(len(acts))])
    q = s.current_player()
    assert s.harvest_kind == "feed_1_per_dwarf" and s.feeding_need(q) == s.players[q].dwarfs


def test_solo_clean_up_empties_over_full_spaces_unless_a_ruby_keeps_one():
    s = load_game("caverna", players=1).new_initial_state(seed=1)
    s.goods_on["wood_gathering"] = {"wood": 7}
    s.goods_on["logging_1_3"] = {"wood": 8}
    s.players[0].goods["ruby"] = 1
    rng = np.random.default_rng(0)
    # finish round 1 without touching those spaces
    while s.round == 0:
        if s.current_player() == CHANCE:
            s.apply_action(sample_chance_outcome(s.chance_outcomes(), rng.random()))
            continue
        acts = [a for a in s.legal_actions()
                if s.action_to_string(a) not in ("place wood_gathering", "place logging_1_3")
                and "ruby" not in s.action_to_string(a)]
        s.apply_action(acts[0])
    assert s.phase == "start" and s.cleanup == ["logging_1_3", "wood_gathering"]
    do(s, "keep logging_1_3 for 1 ruby", "skip")
    assert s.phase == "work"
    assert s.goods_on["logging_1_3"] == {"wood": 9} and s.goods_on["wood_gathering"] == {"wood": 1}


def test_a_dwarf_with_no_space_it_can_use_stays_home():
    s = load_game("caverna", players=2).new_initial_state(seed=1)
    q = s.current_player()
    for space in s.spaces:
        s.occupied[space] = 1 - q
    s._legal = None
    assert legal(s) == ["skip"]
    do(s, "skip")
    assert s.current_player() == 1 - q and len(s.players[q].placed) == 1


def _last_round_with_a_beer_parlor(grain: int, **params):
    """A 2-player game at the last round's work phase, each player with a Beer parlor, `grain` and 30 food."""
    s = load_game("caverna", players=2, **params).new_initial_state(seed=2)
    rng = np.random.default_rng(2)
    while s.round < len(s._rounds) - 1:
        skip_to(s, "start", rng)
        skip_to(s, "work", rng)
    for p in s.players:
        p.board = parse_board("""
            . . . | . . .
            . . . | . . .
            . . . | C:beer_parlor . .
            . . . | E . .
        """)
        p.animals.update({a: 0 for a in FARM_ANIMALS})
        p.goods.update({g: 0 for g in p.goods})
        p.goods.update({"grain": grain, "food": 30})
    s._legal = None
    return s


def test_trades_before_scoring_after_the_last_harvest():
    s = _last_round_with_a_beer_parlor(2)
    _play_quietly(s, "final")
    q = s.current_player()
    assert set(legal(s)) >= {"convert 2 grain -> 3 gold (beer_parlor)", "end turn"}
    before = s.scores()[q]
    do(s, "convert 2 grain -> 3 gold (beer_parlor)", "end turn")
    assert s.players[q].goods["gold"] == 3
    while not s.is_terminal():
        do(s, "end turn")
    assert s.scores()[q] == before - 1 + 3          # 2 grain were worth 1 point, 3 gold are worth 3


def _alternatives():
    from cavekit.core.caverna.rules import CONFIG_CHOICES
    cases = []
    for name, values in sorted(CONFIG_CHOICES.items()):
        for value in values[1:]:
            players = 1 if name.startswith("solo") else 6 if name == "small_scale_drift_mining_counts" else 4
            cases.append((name, value, players))
    cases.append(("solo_covered_spaces", ["supplies"], 1))
    return cases


@pytest.mark.parametrize("name,value,players", _alternatives(), ids=lambda v: str(v))
def test_every_alternative_rule_option_plays_a_random_game(name, value, players):
    g = load_game("caverna", players=players, **{name: value})
    shown = list(value) if isinstance(value, tuple) else value
    assert g.parameters()[name] == shown
    s = g.new_initial_state()
    rng = np.random.default_rng(3)
    while not s.is_terminal():
        if s.current_player() == CHANCE:
            s.apply_action(sample_chance_outcome(s.chance_outcomes(), rng.random()))
        else:
            acts = s.legal_actions()
            s.apply_action(acts[rng.integers(len(acts))])
    assert len(s.scores()) == players


def test_small_scale_drift_mining_for_6_and_7_players_when_configured():
    assert "drift_mining_6_7" in load_game("caverna", players=6).new_initial_state(seed=1).spaces
    s = load_game("caverna", players=6, small_scale_drift_mining_counts="5_to_7").new_initial_state(seed=1)
    assert "small_scale_drift_mining_5p" in s.spaces and "drift_mining_6_7" not in s.spaces


def test_once_per_harvest_trades_get_one_more_use_after_the_last_harvest():
    """anytime_trades_once_per_harvest=True: the turn before scoring is a window of its own."""
    s = _last_round_with_a_beer_parlor(4, anytime_trades_once_per_harvest=True)
    for p in s.players:
        p.trades_used = frozenset({"beer_parlor"})     # used in the last harvest window
    _play_quietly(s, "final")
    q = s.current_player()
    assert "convert 2 grain -> 3 gold (beer_parlor)" in legal(s)
    do(s, "convert 2 grain -> 3 gold (beer_parlor)")
    assert not any(t.endswith("(beer_parlor)") for t in legal(s))
    assert s.players[q].goods["grain"] == 2
