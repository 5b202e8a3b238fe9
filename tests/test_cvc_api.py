"""The game API contract of the Cave vs Cave reference engine (DESIGN.md "The game API"), agents and the CLI.

Registry and parameter errors, illegal actions (refused with a reason, state unchanged), records
(serialize/deserialize round trips and corrupt records refused at the right location), notation round
trips, reproducibility, clone/pickle/deepcopy, rendering, seeded setup, solo returns, `make_agent` and
`cavekit match`.
"""
from __future__ import annotations

import copy
import json
import pickle
import re

import numpy as np
import pytest

from cavekit.analysis.batch import play_game, run_match
from cavekit.core.deal import new_deal
from cavekit.analysis.cli import main as cli_main
from cavekit.core import CHANCE, TERMINAL, ConfigError, CorruptRecordError, IllegalActionError, load_game
from cavekit.core.api import CavekitError
from cavekit.core.cvc.actions import TAKE, action_table
from cavekit.core.cvc.game import ENGINES
from cavekit.core.cvc.rules import CONFIG_CHOICES, GOODS, rules
from cavekit.search import make_agent
from cavekit.search.agent import RandomAgent

from cvc_random_play import choose, play, states_of, walk

R = rules()
TABLE = action_table()
ENGINE = "reference"          # these tests are about the readable reference engine
TWO = load_game("cvc", players=2, engine=ENGINE)
SOLO = load_game("cvc", players=1, engine=ENGINE)


def game_for(players: int):
    return TWO if players == 2 else SOLO


def snapshot(state) -> tuple:
    """Everything observable about a state, to check that a refused action changed nothing."""
    return (state.to_dict(), state.history(), state.current_player(), state.legal_actions(), state.serialize())


# ------------------------------------------------------------------------------------------------
# Registry and parameters

def test_load_game_defaults_and_sizes():
    assert load_game("cvc").engine in ENGINES and "reference" in ENGINES
    g = load_game("cvc", engine=ENGINE)
    assert g.name == "cvc" and g.num_players == 2 and g.engine == "reference"
    assert g.num_distinct_actions == len(TABLE) > 0
    assert g.max_chance_outcomes == 24
    assert g.max_game_length > 0
    assert g.parameters()["players"] == 2
    assert {k for k in g.parameters() if k != "players"} == set(CONFIG_CHOICES)


def test_load_game_solo_and_explicit_engine():
    solo = load_game("cvc", players=1, engine=ENGINE)
    assert solo.num_players == 1 and solo.engine == "reference" and solo.parameters()["players"] == 1
    ref = load_game("cvc", players=2, engine="reference")
    assert ref.engine == "reference" and ref.parameters() == TWO.parameters()
    # Action ids do not depend on the player count or the rule options.
    assert solo.num_distinct_actions == ref.num_distinct_actions


@pytest.mark.parametrize("name", sorted(CONFIG_CHOICES))
def test_every_allowed_rule_option_value_is_accepted(name):
    for value in CONFIG_CHOICES[name]:
        g = load_game("cvc", engine=ENGINE, **{name: value})
        shown = list(value) if isinstance(value, tuple) else value
        assert g.parameters()[name] == shown
        g.new_initial_state(seed=1)


def _config_error(**kwargs) -> str:
    name = kwargs.pop("_name", "cvc")
    with pytest.raises(ConfigError) as info:
        load_game(name, **kwargs)
    assert isinstance(info.value, ValueError) and isinstance(info.value, CavekitError)
    return str(info.value)


def test_unknown_game_is_named_and_the_games_are_listed():
    message = _config_error(_name="chess")
    assert "'chess'" in message and "cvc" in message


def test_unknown_engine_is_named_and_the_engines_are_listed():
    message = _config_error(engine="cython-turbo")
    assert "cython-turbo" in message
    for engine in ENGINES:
        assert engine in message


def test_unknown_parameter_is_named_and_the_parameters_are_listed():
    message = _config_error(undermining_ignore="all_walls")
    assert "undermining_ignore" in message
    for known in ("undermining_ignores", "solo_reveal_timing", "tie_break_when_top_rooms_equal"):
        assert known in message


@pytest.mark.parametrize("name", sorted(CONFIG_CHOICES))
def test_bad_parameter_value_is_named_and_the_allowed_values_are_listed(name):
    message = _config_error(**{name: "no-such-value"})
    assert name in message and "no-such-value" in message
    for value in CONFIG_CHOICES[name]:
        assert repr(value) in message or repr(list(value) if isinstance(value, tuple) else value) in message


@pytest.mark.parametrize("players", [0, 3, 4, -1])
def test_bad_player_count_is_named_and_the_allowed_counts_given(players):
    message = _config_error(players=players)
    assert str(players) in message
    assert re.search(r"\b1\b", message) and re.search(r"\b2\b", message)


# ------------------------------------------------------------------------------------------------
# Illegal actions

def _assert_refused(state, action, reason: str) -> IllegalActionError:
    """`action` is refused with a reason matching the regex `reason`, and the state does not change."""
    before = snapshot(state)
    player = state.current_player()
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(action)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.action == action
    assert error.player == player
    assert isinstance(error.reason, str) and error.reason
    message = str(error)
    assert repr(action) in message and error.reason in message
    assert re.search(reason, error.reason), (reason, error.reason)
    assert snapshot(state) == before, "a refused action changed the state"
    return error


@pytest.mark.parametrize("players", [1, 2])
def test_out_of_range_ids_are_refused_at_decision_and_chance_nodes(players):
    g = game_for(players)
    n = g.num_distinct_actions
    for state, _ in walk(g, seed=11):
        if len(state.history()) % 5 and not state.is_terminal():
            continue
        if state.is_terminal():
            why = "the game is over"
        elif state.is_chance_node():
            why = re.escape(f"this chance node's outcomes are {[o for o, _ in state.chance_outcomes()]}")
        else:
            why = f"actions are numbered 0 to {n - 1}$"
        for action in (-1, -5000, n, n + 1, 10**9):
            _assert_refused(state, action, why)


@pytest.mark.parametrize("players", [1, 2])
def test_non_integer_actions_are_refused(players):
    g = game_for(players)
    state = g.new_initial_state(seed=4)
    n = g.num_distinct_actions
    for action in ("take Cultivation", "0", 0.0, None, [0], True):
        _assert_refused(state, action, re.escape(f"an action is an int in [0, {n})"))


@pytest.mark.parametrize("players", [1, 2])
def test_numpy_integer_actions_are_plain_actions(players):
    g = game_for(players)
    rng = np.random.default_rng(2)
    plain, numpy_ = g.new_initial_state(), g.new_initial_state()
    while not plain.is_terminal():
        a = choose(plain, rng)
        plain.apply_action(a)
        numpy_.apply_action((np.int64, np.int32, np.uint16)[len(plain.history()) % 3](a))
        if len(plain.history()) % 10 == 0:
            assert numpy_.serialize() == plain.serialize()
    assert numpy_ == plain
    assert all(type(a) is int for a in numpy_.history())
    assert g.deserialize_state(numpy_.serialize()) == plain


@pytest.mark.parametrize("players", [1, 2])
def test_a_non_legal_id_is_refused_at_many_random_states(players):
    g = game_for(players)
    rng = np.random.default_rng(99)
    refused = 0
    for seed in range(6):
        for state, _ in walk(g, seed):
            if state.is_terminal():
                continue
            legal = set(state.legal_actions())
            limit = g.max_chance_outcomes if state.is_chance_node() else g.num_distinct_actions
            candidates = [a for a in rng.choice(limit, size=min(limit, 40), replace=False).tolist()
                          if a not in legal]
            if candidates:
                # An in-range id is refused for the rule that forbids it (the reason illegal_reason gives),
                # not with the out-of-range or not-an-int reasons.
                why = state.illegal_reason(candidates[0])
                assert why and not why.startswith(("actions are numbered", "an action is an int")), why
                error = _assert_refused(state, candidates[0], f"^{re.escape(why)}$")
                if state.current_player() >= 0:
                    # A player action is named by its notation too.
                    assert TABLE.specs[candidates[0]].text in str(error)
                refused += 1
    assert refused > 100


def test_a_chance_outcome_not_on_the_list_is_refused():
    seen = set()
    for players in (1, 2):
        g = game_for(players)
        for state, _ in walk(g, seed=5):
            if not state.is_chance_node():
                continue
            outcomes = {o for o, _ in state.chance_outcomes()}
            missing = [o for o in range(g.max_chance_outcomes) if o not in outcomes]
            seen.add(state.action_to_string(next(iter(outcomes))).split()[0])
            listed = re.escape(f"this chance node's outcomes are {sorted(outcomes)}") + "$"
            if missing:
                error = _assert_refused(state, missing[0], listed)
                assert error.player == CHANCE and "for chance" in str(error)
            _assert_refused(state, g.max_chance_outcomes + 3, listed)
    assert {"player", "reveal", "turn", "remove"} <= seen   # every kind of chance node was visited


def test_taking_a_tile_twice_in_a_round_is_refused_with_a_reason():
    state = TWO.new_initial_state(seed=2)
    first = state.current_player()
    take = state.string_to_action("take Cultivation")
    state.apply_action(take)
    state.apply_action(TABLE.end_turn)
    # Now the other player chooses a tile; the first player's tile is gone for this round.
    assert state.current_player() == 1 - first
    assert take not in state.legal_actions()
    error = _assert_refused(state, take, "already taken")
    assert "Cultivation" in error.reason


def test_actions_after_the_end_are_refused():
    state = play(TWO, seed=8)
    assert state.is_terminal() and state.current_player() == TERMINAL
    for action in (0, TABLE.end_turn, -1):
        error = _assert_refused(state, action, "^the game is over$")
        assert "game over" in str(error)


# ------------------------------------------------------------------------------------------------
# Records

@pytest.mark.parametrize("players,seeds", [(2, range(0, 24)), (1, range(100, 112))])
def test_serialize_deserialize_round_trips_every_state(players, seeds):
    g = game_for(players)
    for seed in seeds:
        for state, action in walk(g, seed):
            text = state.serialize()
            back = g.deserialize_state(text)
            assert back.to_dict() == state.to_dict()
            assert back.serialize() == text
            assert back.history() == state.history()
            assert back.current_player() == state.current_player()
            assert back.legal_actions() == state.legal_actions()
            if action is not None and len(state.history()) % 9 == 0:
                # The rebuilt state plays on exactly like the original.
                back.apply_action(action)
                other = state.clone()
                other.apply_action(action)
                assert back.serialize() == other.serialize()


def test_serialize_is_a_versioned_json_record():
    for g in (TWO, SOLO, load_game("cvc", players=2, engine=ENGINE, undermining_ignores="one_wall")):
        state = play(g, seed=3)
        record = json.loads(state.serialize())
        assert record["format"] == "cavekit-cvc" and record["version"] == 1
        assert record["params"] == g.parameters()
        assert record["history"] == state.history()
        assert record["state"] == state.to_dict()


def _record(players=2, seed=6, steps=60) -> dict:
    g = game_for(players)
    state = None
    for i, (state, _) in enumerate(walk(g, seed)):
        if i == steps:
            break
    return json.loads(state.serialize())


def _refused_at(game, text: str) -> CorruptRecordError:
    with pytest.raises(CorruptRecordError) as info:
        game.deserialize_state(text)
    assert isinstance(info.value, ValueError)
    assert info.value.location in str(info.value)
    return info.value


def test_bad_json_is_refused_with_its_line_and_column():
    good = json.dumps(_record(), indent=1)
    error = _refused_at(TWO, good[:-40])
    assert re.fullmatch(r"line \d+ column \d+", error.location) and error.problem.startswith("not JSON (")
    assert _refused_at(TWO, "").location == "line 1 column 1"
    assert _refused_at(TWO, "{").location == "line 1 column 2"


@pytest.mark.parametrize("text", ["[]", "null", '"cavekit"', "7"])
def test_a_record_that_is_not_an_object_is_refused(text):
    error = _refused_at(TWO, text)
    assert error.location == "top level" and error.problem.startswith("a record is a JSON object, not ")


@pytest.mark.parametrize("key", ["format", "version", "params", "history"])
def test_a_missing_key_is_refused_at_that_key(key):
    record = _record()
    del record[key]
    error = _refused_at(TWO, json.dumps(record))
    assert error.location == key and "missing" in error.problem


def test_a_wrong_format_or_version_is_refused():
    record = _record()
    record["format"] = "cavekit-cavum"
    error = _refused_at(TWO, json.dumps(record))
    assert error.location == "format" and error.problem == "'cavekit-cavum' is not a Cave vs Cave record (expected 'cavekit-cvc')"
    for version in (2, 0, "1", None):
        record = _record()
        record["version"] = version
        error = _refused_at(TWO, json.dumps(record))
        assert error.location == "version" and repr(version) in error.problem


def test_a_record_of_a_game_with_other_parameters_is_refused():
    record = json.dumps(_record())
    error = _refused_at(load_game("cvc", engine=ENGINE, undermining_ignores="one_wall"), record)
    assert error.location == "params" and "undermining_ignores" in error.problem
    error = _refused_at(SOLO, record)
    assert error.location == "params" and "players" in error.problem
    # ...while the game it came from reads it.
    TWO.deserialize_state(record)


@pytest.mark.parametrize("players", [1, 2])
def test_an_illegal_action_in_the_history_is_refused_at_its_index(players):
    g = game_for(players)
    state = play(g, seed=21)
    history = state.history()
    rng = np.random.default_rng(1)
    replay = g.new_initial_state()
    positions = set(rng.choice(len(history), size=15, replace=False).tolist()) | {0, len(history) - 1}
    for i, action in enumerate(history):
        if i in positions:
            legal = set(replay.legal_actions())
            bad = next(a for a in list(range(g.max_chance_outcomes)) + list(range(g.num_distinct_actions))
                       if a not in legal)
            for wrong in (bad, -3, g.num_distinct_actions + 1):
                record = json.loads(state.serialize())
                record["history"][i] = wrong
                del record["state"]
                error = _refused_at(g, json.dumps(record))
                assert error.location == f"history[{i}]", (i, wrong, error)
                assert str(wrong) in error.problem
        replay.apply_action(action)
    record = json.loads(state.serialize())
    record["history"] = record["history"] + [0]
    assert _refused_at(g, json.dumps(record)).location == f"history[{len(history)}]"
    record["history"] = "0 1 2"
    assert _refused_at(g, json.dumps(record)).location == "history"


@pytest.mark.parametrize("field,change", [
    ("round", lambda v: v + 1),
    ("turn", lambda v: v + 1),
    ("display", lambda v: v ^ 1),
    ("taken", lambda v: v | 1 << 11),
    ("revealed_tiles", lambda v: v[::-1] + [0]),
    ("players", lambda v: [dict(p, goods=[9] * 6) for p in v]),
    ("pile", lambda v: v + 3),
])
def test_a_tampered_state_field_is_refused_at_that_field(field, change):
    record = _record(steps=70)
    record["state"][field] = change(record["state"][field])
    error = _refused_at(TWO, json.dumps(record))
    assert error.location == f"state.{field}"
    assert re.fullmatch(r"recorded .+, but the history leads to .+", error.problem), error.problem


def test_a_missing_or_extra_state_field_is_refused_at_that_field():
    record = _record()
    del record["state"]["starter"]
    error = _refused_at(TWO, json.dumps(record))
    assert error.location == "state.starter" and re.fullmatch(r"missing; the history leads to \d", error.problem)
    record = _record()
    record["state"]["bonus_gold"] = 5
    error = _refused_at(TWO, json.dumps(record))
    assert error.location == "state.bonus_gold"
    assert re.match(r"not a field of the position \(recorded 5\); fields: .*\bstarter\b", error.problem)


@pytest.mark.parametrize("key,value", [("state", 5), ("state", [1, 2]), ("params", [1, 2]), ("params", 5)])
def test_a_state_or_params_that_is_not_an_object_is_refused(key, value):
    record = _record()
    record[key] = value
    error = _refused_at(TWO, json.dumps(record))
    assert error.location == key and error.problem.startswith("must be a JSON object")


# ------------------------------------------------------------------------------------------------
# Notation

@pytest.mark.parametrize("players,seeds", [(2, range(30, 36)), (1, range(40, 44))])
def test_action_to_string_and_back_for_every_legal_action(players, seeds):
    g = game_for(players)
    notation: dict[int, str] = {}
    for seed in seeds:
        for state, _ in walk(g, seed):
            legal = state.legal_actions()
            texts = [state.action_to_string(a) for a in legal]
            assert len(set(texts)) == len(texts), "two legal actions share a notation"
            for a, text in zip(legal, texts):
                assert isinstance(text, str) and text.strip() == text and text
                assert state.string_to_action(text) == a
                assert state.string_to_action("  " + text.upper() + " ") == a
                if not state.is_chance_node():
                    # Player-action notation is stable: the same id always reads the same.
                    assert notation.setdefault(a, text) == text
    assert len(notation) > 50


def test_notation_examples_and_unknown_text():
    state = TWO.new_initial_state(seed=0)
    take = state.string_to_action("take Excavation")
    assert TABLE.specs[take].kind == TAKE and state.action_to_string(take) == "take Excavation"
    assert state.string_to_action("end turn") == TABLE.end_turn
    assert state.string_to_action("convert flax->food") == state.string_to_action("convert flax -> food")
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as info:
        state.string_to_action("dance a jig")
    assert "dance a jig" in str(info.value) and "take " in str(info.value)
    assert snapshot(state) == before
    chance = TWO.new_initial_state()
    assert [chance.action_to_string(o) for o, _ in chance.chance_outcomes()] == ["player 0 starts",
                                                                              "player 1 starts"]
    assert chance.string_to_action("Player 1 Starts") == 1


# ------------------------------------------------------------------------------------------------
# Reproducibility

def _history(game, seed: int, agents=("random", "random")) -> list[int]:
    """A game between seeded agents with seeded chance, as the batch runner plays it."""
    rng = np.random.default_rng(seed)
    seats = [make_agent(spec, game, seed=seed * 10 + p) for p, spec in enumerate(agents[:game.num_players])]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(choose(state, rng))
        else:
            state.apply_action(seats[state.current_player()].step(state))
    return state.history()


@pytest.mark.parametrize("players", [1, 2])
def test_the_same_seed_gives_the_same_game_and_different_seeds_differ(players):
    g = game_for(players)
    histories = [_history(g, seed) for seed in range(8)]
    assert histories == [_history(g, seed) for seed in range(8)]
    assert len({tuple(h) for h in histories}) == 8
    # Also through the test helper, and through a fresh game object.
    assert play(g, 5).history() == play(load_game("cvc", players=players, engine=ENGINE), 5).history()


def test_play_game_is_reproducible_from_its_seed_sequence():
    rows = [play_game(TWO, ["random", "random"], np.random.SeedSequence(s), new_deal(TWO, s)) for s in (7, 7, 8, 9, 10)]
    for row in rows:
        row.pop("seconds")
    assert rows[0] == rows[1]
    assert len({tuple(r["history"]) for r in rows[1:]}) == 4
    for row in rows:
        assert row["length"] > row["decisions"] > 0 and row["first_player"] in (0, 1)
        assert row["return_0"] == -row["return_1"]


def test_run_match_is_reproducible_from_its_master_seed():
    def match(seed):
        results = run_match("cvc", ["random", "random"], 4, seed=seed, progress=False, engine=ENGINE)
        return results.drop(columns="seconds")

    a, b, c = match(3), match(3), match(4)
    assert a.equals(b)
    assert not a.equals(c)
    assert list(a["game"]) == [0, 1, 2, 3]


def test_random_agent_is_seeded_and_reset_restarts_it():
    state = TWO.new_initial_state(seed=1)
    agent = make_agent("random", TWO, seed=42)
    assert isinstance(agent, RandomAgent)
    first = [agent.step(state) for _ in range(20)]
    assert all(a in state.legal_actions() for a in first)
    assert len(set(first)) > 1
    agent.reset()
    assert [agent.step(state) for _ in range(20)] == first
    assert [make_agent("random", TWO, seed=42).step(state) for _ in range(1)] == first[:1]
    with pytest.raises(ValueError, match="agents choose player actions; sample chance outcomes from chance_outcomes"):
        agent.step(TWO.new_initial_state())          # chance nodes are not the agent's to play


# ------------------------------------------------------------------------------------------------
# clone, pickle, deepcopy, equality

def _some_states(players=2, seed=13) -> list:
    states = states_of(game_for(players), seed)
    picks = [0, 1, 2, 3, len(states) // 3, len(states) // 2, len(states) - 2, len(states) - 1]
    return [states[i] for i in picks]


@pytest.mark.parametrize("players", [1, 2])
def test_clone_is_independent(players):
    g = game_for(players)
    rng = np.random.default_rng(3)
    for original in _some_states(players):
        before = snapshot(original)
        twin = original.clone()
        assert twin is not original and twin == original and twin.serialize() == original.serialize()
        while not twin.is_terminal():           # play the clone to the end
            twin.apply_action(choose(twin, rng))
        assert snapshot(original) == before, "playing a clone changed the original"
        if not original.is_terminal():
            again = original.clone()
            frozen = snapshot(again)
            original.apply_action(choose(original, rng))
            assert snapshot(again) == frozen, "playing the original changed its clone"
    assert g.new_initial_state().clone().is_chance_node()


def test_to_dict_and_history_are_copies():
    state = _some_states()[4]
    before = snapshot(state)
    d = state.to_dict()
    d["players"][0]["goods"][0] = 99
    d["players"][0]["spaces"][0] = 5
    d["revealed_tiles"].append(3)
    state.history().append(12345)
    assert snapshot(state) == before


@pytest.mark.parametrize("players", [1, 2])
def test_pickle_and_deepcopy_round_trip(players):
    rng = np.random.default_rng(8)
    for state in _some_states(players, seed=17):
        for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
            assert type(copied) is type(state)
            assert copied == state and copied.serialize() == state.serialize()
            assert copied.history() == state.history()
            assert copied.returns() == state.returns() and copied.scores() == state.scores()
            if not state.is_terminal():
                a = choose(state.clone(), rng)
                other = state.clone()
                copied.apply_action(a)
                other.apply_action(a)
                assert copied == other
    game = pickle.loads(pickle.dumps(game_for(players)))
    assert game.parameters() == game_for(players).parameters()


def test_pickle_keeps_the_rule_options():
    g = load_game("cvc", players=2, engine=ENGINE, undermining_ignores="one_wall",
                  additional_cavern_walls=[3, 4])
    state = play(g, seed=2)
    back = pickle.loads(pickle.dumps(state))
    assert json.loads(back.serialize())["params"] == g.parameters()
    assert back == state


# ------------------------------------------------------------------------------------------------
# Rendering

def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def test_str_shows_both_caves_goods_display_action_board_and_whose_turn():
    for state in _some_states(2, seed=19):
        text = str(state)
        for word in ["Player 0", "Player 1", "Display", "Action board", *GOODS]:
            assert word in text, word
        for s in range(11):
            assert _has_word(text, f"s{s}"), f"s{s}"
        d = state.to_dict()
        for t in [t.index for t in R.tiles if t.stage == 1] + d["revealed_tiles"]:
            assert R.tiles[t].name in text
        for room in range(24):
            if d["display"] >> room & 1:
                assert R.rooms[room].name in text
        for p, player in enumerate(d["players"]):
            goods_line = "  ".join(f"{g} {n}" for g, n in zip(GOODS, player["goods"]))
            assert goods_line in text
        if state.is_terminal():
            assert "game over" in text
        elif state.is_chance_node():
            assert "chance to move" in text
        else:
            assert f"player {state.current_player()} to move" in text
            other = 1 - state.current_player()
            assert f"player {other} to move" not in text


def test_str_of_a_solo_game_shows_one_cave():
    text = str(SOLO.new_initial_state(seed=3))
    assert "Player 0" in text and "Player 1" not in text and "player 0 to move" in text


# ------------------------------------------------------------------------------------------------
# Setup and results

@pytest.mark.parametrize("players", [1, 2])
def test_new_initial_state_without_seed_is_a_chance_node(players):
    state = game_for(players).new_initial_state()
    assert state.current_player() == CHANCE and state.is_chance_node() and state.history() == []
    if players == 2:
        assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]


@pytest.mark.parametrize("players", [1, 2])
def test_new_initial_state_with_seed_deals_the_setup(players):
    g = game_for(players)
    starters, tiles = set(), set()
    for seed in range(40):
        state = g.new_initial_state(seed=seed)
        assert state == g.new_initial_state(seed=seed)
        assert not state.is_chance_node() and state.current_player() in range(players)
        d = state.to_dict()
        assert len(state.history()) == (2 if players == 2 else 4)   # starter + tile; 3 removals + tile
        assert len(d["revealed_tiles"]) == 1 and R.tiles[d["revealed_tiles"][0]].stage == 2
        assert bin(d["display"]).count("1") == (6 if players == 2 else 3)
        assert bin(d["removed"]).count("1") == (0 if players == 2 else 3)
        assert d["round"] == 0 and d["turn"] == 0 and d["taken"] == 0
        assert state.current_player() == d["starter"]
        legal = state.legal_actions()
        assert [state.action_to_string(a) for a in legal] == \
            [f"take {R.tiles[t].name}" for t in sorted([0, 1, 2, 3] + d["revealed_tiles"])]
        for p in d["players"]:
            assert p["goods"] == [1] * 6 and p["walls"] == 0
        starters.add(d["starter"])
        tiles.add(d["revealed_tiles"][0])
    assert starters == ({0, 1} if players == 2 else {0})
    assert tiles == {4, 5, 6}


def test_solo_returns_are_the_score():
    for seed in range(10):
        state = None
        for state, _ in walk(SOLO, seed):
            if not state.is_terminal():
                assert state.returns() == [0.0]
        assert state.returns() == [float(state.scores()[0])]
        assert state.winner() is None
    assert SOLO.min_utility() <= 0 <= SOLO.max_utility()


def test_two_player_returns_are_zero_sum_and_name_the_winner():
    for seed in range(10):
        state = play(TWO, seed)
        r = state.returns()
        assert r in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
        assert state.winner() == (None if r[0] == 0 else r.index(1.0))
        s = state.scores()
        if s[0] != s[1]:
            assert r[0] == (1.0 if s[0] > s[1] else -1.0)


# ------------------------------------------------------------------------------------------------
# Agents and the command line

def test_make_agent_errors_name_the_problem():
    with pytest.raises(ConfigError) as info:
        make_agent("alphazero", TWO)
    assert "alphazero" in str(info.value) and "random" in str(info.value)
    with pytest.raises(ConfigError) as info:
        make_agent("random:depth=3", TWO)
    assert "depth" in str(info.value) and "random" in str(info.value)
    with pytest.raises(ConfigError) as info:
        make_agent("random:depth", TWO)
    assert "depth" in str(info.value) and "key=value" in str(info.value)
    assert make_agent(" random ", TWO, seed=1).name == "random"


def test_cli_match_prints_a_summary(capsys):
    assert cli_main(["match", "cvc", "--agents", "random", "random", "--games", "4", "--seed", "3",
                     "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "cvc: 4 games" in out and "random vs random" in out and "master seed 3" in out
    assert "agents" in out and "first player" in out and "score_rate" in out


def test_cli_match_solo_and_out_folder(capsys, tmp_path):
    assert cli_main(["match", "cvc", "--agents", "random", "--games", "3", "--seed", "1", "--quiet",
                     "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "solo scores" in out
    from cavekit.analysis.results import load_results
    games, decisions = load_results(tmp_path / "run")      # the results folder replaced games.csv
    assert games["game"].tolist() == [0, 1, 2] and len(decisions) == games["decisions"].sum()


@pytest.mark.parametrize("argv,named", [
    (["--agents", "bogus", "random"], "bogus"),
    (["--agents", "random:depth=2", "random"], "depth"),
    (["--agents", "random", "random", "--param", "nope=1"], "nope"),
    (["--agents", "random", "random", "--param", "undermining_ignores=sometimes"], "sometimes"),
    (["--agents", "random", "random", "--players", "3"], "3"),
])
def test_cli_bad_input_returns_2_with_a_message(capsys, argv, named):
    assert cli_main(["match", "cvc", *argv, "--games", "2", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "error" in captured.err and named in captured.err
    assert "games," not in captured.out


def test_cli_wrong_number_of_agents_returns_2(capsys):
    assert cli_main(["match", "cvc", "--agents", "random", "--players", "2", "--games", "2", "--quiet"]) == 2
    assert "agent" in capsys.readouterr().err


def test_cli_zero_games_is_refused_with_a_message(capsys):
    assert cli_main(["match", "cvc", "--agents", "random", "random", "--games", "0", "--quiet"]) == 2
    assert "at least 1 game" in capsys.readouterr().err
