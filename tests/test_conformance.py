"""The conformance suite: what /work/shared/DESIGN.md promises of every game, engine, player count and variant.

Driven only by the registry's specs (see `conformance_cases`): a game added later gets every check here by
declaring its `GameSpec`. Each check plays seeded random games and asserts, at every step or at sampled
points:
1. the API contract (players, legal actions and mask, chance outcomes, history, length, returns, notation,
   clone independence);
2. serialisation round trips, and corrupted records refused with a CorruptRecordError naming the location;
3. refusals of illegal actions (not legal, out of range, not an integer, at chance nodes, after the end):
   IllegalActionError naming the action, with a specific reason, and the state unchanged;
4. information: perfect-information games show every player the same information state; hidden-
   information games resample worlds the player cannot tell from the true one;
5. the OpenSpiel and PettingZoo adapters pass those libraries' own checks;
6. the engines of a game with two agree step by step (a light version of the differential tests).
"""
from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

from cavekit.core import CorruptRecordError, IllegalActionError
from cavekit.core.api import CHANCE, TERMINAL
from cavekit.core.registry import game_names, game_spec, game_specs, load_game

from conformance_cases import (Case, all_cases, default_cases, final_state, game_player_cases, is_small_table,
                               random_game)

CASES = all_cases()
IDS = [case.id for case in CASES]
GAME_PLAYERS = game_player_cases()
GAME_PLAYER_IDS = [f"{case.game}-{case.players}p" for case in GAME_PLAYERS]
# The expensive adapter checks: on every game's fewest and default player counts, the other counts with -m slow.
GAME_PLAYERS_SAMPLED = [pytest.param(case, id=f"{case.game}-{case.players}p",
                                     marks=() if is_small_table(case) else pytest.mark.slow)
                        for case in GAME_PLAYERS]
MULTI_ENGINE = [case for case in CASES if len(game_spec(case.game).engines) > 1
                and case.engine == game_spec(case.game).default_engine]
MULTI_ENGINE_IDS = [case.id for case in MULTI_ENGINE]

# What a refusal's reason says, by kind of refusal (every engine's own words fit one of these).
OUT_OF_RANGE = r"numbered 0 to {last}|out of range"
NOT_AN_INTEGER = r"\bint(eger)?\b"
CHANCE_OUT_OF_RANGE = r"outcomes are|numbered 0 to|out of range"
GAME_OVER = r"game is over"


def _points(length: int, count: int = 6) -> set[int]:
    """`count` plies spread over a game of `length` plies (the start and the end included)."""
    return {round(i * length / (count - 1)) for i in range(count)}


def _game_length(game, seed: int) -> int:
    return len(final_state(game, seed).history())


# -- 1. the API contract -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_api_contract_along_random_games(case: Case):
    game = case.load()
    spec = game_spec(case.game)
    n = game.num_players
    assert n == case.players
    assert game.name == case.game and game.engine == case.engine
    assert game.parameters()["players"] == n
    for key, value in case.params:
        assert game.parameters()[key] == value
    for seed in case.seeds:
        state = None
        plies = 0
        for state, action in random_game(game, seed):
            player = state.current_player()
            assert player == CHANCE or 0 <= player < n, player
            assert not state.is_terminal()
            assert state.is_chance_node() == (player == CHANCE)
            legal = state.legal_actions()
            assert legal, f"no legal action at ply {plies}"
            assert legal == sorted(set(legal))
            mask = state.legal_actions_mask()
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                ids = [o for o, _ in outcomes]
                assert ids == legal
                assert all(0 <= o < game.max_chance_outcomes for o in ids)
                assert all(p > 0 for _, p in outcomes)
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            else:
                assert all(0 <= a < game.num_distinct_actions for a in legal)
                assert len(mask) == game.num_distinct_actions
                assert [a for a, m in enumerate(mask) if m] == legal
                assert set(mask) <= {0, 1}
                for a in legal:
                    text = state.action_to_string(a)
                    assert text and state.string_to_action(text) == a, (a, text)
            assert len(state.returns()) == n and len(state.scores()) == n
            assert list(state.returns()) == [0.0] * n
            assert len(state.history()) == plies
            if plies < 10 or plies % 10 == 0:
                # A clone is independent: moving it on leaves the original where it was.
                before = state.serialize()
                twin = state.clone()
                assert twin.serialize() == before and twin.history() == state.history()
                twin.apply_action(action)
                assert state.serialize() == before and len(state.history()) == plies
            plies += 1
            assert plies <= game.max_game_length
        # `state` is now terminal (random_game applied the last action).
        assert state is not None
        assert state.is_terminal() and state.current_player() == TERMINAL
        assert state.legal_actions() == [] and state.chance_outcomes() == []
        assert len(state.history()) == plies <= game.max_game_length
        returns = state.returns()
        assert len(returns) == n and len(state.scores()) == n
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        if spec.zero_sum and n >= 2:
            assert abs(sum(returns)) < 1e-9, returns


def test_same_seed_same_game_and_chance_from_the_seed():
    """`new_initial_state(seed)` plays the set-up's chance nodes from the seed, the same way every time."""
    for spec in game_specs():
        game = load_game(spec.name)
        a, b = game.new_initial_state(seed=3), game.new_initial_state(seed=3)
        assert a.serialize() == b.serialize()
        assert not a.is_chance_node()
        assert game.new_initial_state().serialize() == game.new_initial_state().serialize()


# -- 2. serialisation ----------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_serialize_round_trips_at_points_of_each_game(case: Case):
    game = case.load()
    seed = case.seeds[0]
    points = _points(_game_length(game, seed), 4)
    end = None
    for end, _ in random_game(game, seed):
        if len(end.history()) in points:
            _assert_round_trip(game, end)
    _assert_round_trip(game, end)


def _assert_round_trip(game, state) -> None:
    text = state.serialize()
    assert isinstance(text, str)
    copy = game.deserialize_state(text)
    assert copy.serialize() == text
    assert copy.current_player() == state.current_player()
    assert copy.legal_actions() == state.legal_actions()
    assert copy.returns() == state.returns() and copy.scores() == state.scores()
    assert copy.history() == state.history()
    if state.current_player() == CHANCE:
        assert copy.chance_outcomes() == state.chance_outcomes()


def _refused_record(game, text: str, location: str | None = None) -> CorruptRecordError:
    with pytest.raises(CorruptRecordError) as info:
        game.deserialize_state(text)
    error = info.value
    assert error.location and error.location in str(error)
    if location is not None:
        assert re.fullmatch(location, error.location), (error.location, location)
    return error


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_corrupted_records_are_refused_naming_the_location(case: Case):
    game = case.load()
    seed = case.seeds[0]
    state = final_state(game, seed)
    text = state.serialize()
    # Truncated text.
    _refused_record(game, text[: len(text) // 2], r"line \d+ column \d+")
    _refused_record(game, "", r"line 1 column 1")
    record = json.loads(text)
    history = record["history"]
    # An altered action: at some ply, an id that was not legal there.
    replay = game.new_initial_state()
    for i, action in enumerate(history):
        if i in _points(len(history), 4) and i < len(history):
            legal = set(replay.legal_actions())
            bound = game.max_chance_outcomes if replay.is_chance_node() else game.num_distinct_actions
            wrong = next((a for a in range(bound) if a not in legal), bound)
            altered = dict(record, history=history[:i] + [wrong] + history[i + 1:])
            error = _refused_record(game, json.dumps(altered), re.escape(f"history[{i}]"))
            assert repr(wrong) in error.problem
        replay.apply_action(action)
    # A record of the wrong game: another format, and every other registered game's record.
    _refused_record(game, json.dumps(dict(record, format=record["format"] + "-other")), "format")
    for other in game_specs():
        if other.name != case.game:
            foreign = load_game(other.name).new_initial_state(seed=1).serialize()
            _refused_record(game, foreign, "format")
    # The record of a game with other parameters.
    _refused_record(game, json.dumps(dict(record, params={**record["params"], "players": case.players + 1})),
                    "params")


# -- 3. refusals ---------------------------------------------------------------------------------------

def _refuse(state, action, match: str | None = None) -> IllegalActionError:
    """`action` is refused with an IllegalActionError naming it and its player, with a reason (matching
    `match`, if given), and the state is unchanged."""
    before = state.serialize()
    player = state.current_player()
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(action)
    error = info.value
    assert state.serialize() == before
    assert error.reason and error.reason.strip(), f"no reason for {action!r}"
    assert error.reason in str(error)
    assert repr(action) in str(error), (action, str(error))
    assert error.player == player
    who = {CHANCE: "for chance", TERMINAL: "game over"}.get(player, f"for player {player}")
    assert who in str(error)
    if match is not None:
        assert re.search(match, error.reason), f"reason {error.reason!r} for {action!r} does not say {match!r}"
    return error


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_illegal_actions_are_refused_with_a_reason_and_leave_the_state_unchanged(case: Case):
    game = case.load()
    na, nc = game.num_distinct_actions, game.max_chance_outcomes
    out_of_range = OUT_OF_RANGE.format(last=na - 1)
    seed = case.seeds[0]
    points = _points(_game_length(game, seed), 8)
    last_outcomes: list[int] = []
    last_player_legal: list[int] = []
    end = None
    for end, _ in random_game(game, seed):
        if end.current_player() == CHANCE:
            last_outcomes = end.legal_actions()
        else:
            last_player_legal = end.legal_actions()
        if len(end.history()) not in points:
            continue
        legal = set(end.legal_actions())
        for bad in ("x", 1.5, None, True, [0]):
            _refuse(end, bad, NOT_AN_INTEGER)
        if end.current_player() == CHANCE:
            for bad in (-1, max(nc, na) + 1):
                _refuse(end, bad, CHANCE_OUT_OF_RANGE)
            # Unlisted outcomes, and the player actions seen last (a player action at a chance node).
            unlisted = [a for a in range(nc) if a not in legal][:3]
            unlisted += [a for a in last_player_legal if a not in legal][:3]
            for bad in unlisted:
                _refuse(end, bad)
        else:
            for bad in (-1, -na, na, na + 1, np.int64(na)):
                _refuse(end, bad, out_of_range)
            # Ids in range that are not legal get a reason of their own, not the out-of-range one; the chance
            # outcomes seen last among them (a chance outcome at a decision node).
            not_legal = [a for a in range(na) if a not in legal]
            sample = not_legal[:2] + not_legal[-2:] + not_legal[len(not_legal) // 2:][:1]
            sample += [a for a in last_outcomes if a not in legal][:2]
            for bad in sample:
                error = _refuse(end, bad)
                assert not re.search(out_of_range, error.reason), error.reason
    assert end is not None and end.is_terminal()
    for bad in (0, -1, na):
        _refuse(end, bad, GAME_OVER)


# -- 4. information ------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_information_states_match_the_information_kind(case: Case):
    game = case.load()
    spec = game_spec(case.game)
    hidden = bool(getattr(game, "hidden_information", False))
    if spec.information == "perfect":
        assert not hidden
    if spec.information == "imperfect":
        assert hidden
    n = game.num_players
    seed = case.seeds[0]
    points = _points(_game_length(game, seed), 8)
    rng = np.random.default_rng(seed + 100)
    resampled = 0
    for end, _ in random_game(game, seed):
        if len(end.history()) not in points:
            continue
        views = [end.information_state_string(p) for p in range(n)]
        assert all(isinstance(v, str) and v for v in views)
        if spec.information == "perfect":
            assert len(set(views)) == 1, "a perfect-information game shows players different states"
        for p in range(n):
            world = end.resample_from_infostate(p, rng)
            assert world.information_state_string(p) == views[p]
            assert world.current_player() == end.current_player()
            if p == end.current_player():
                assert world.legal_actions() == end.legal_actions()
            if not hidden:
                # Nothing is hidden: the only world a player cannot tell from this one is this one.
                assert world.serialize() == end.serialize()
            resampled += 1
    assert end.is_terminal() and resampled


# -- 5. OpenSpiel and PettingZoo -----------------------------------------------------------------------

# Cases for the adapters: every game x player count with defaults, and the variants (parameters go through
# OpenSpiel's scalar parameter encoding), the latter only on the cheaper checks.
ADAPTER_VARIANTS = [case for case in CASES if case.variant]
ADAPTER_VARIANT_IDS = [case.id for case in ADAPTER_VARIANTS]


def test_every_game_is_registered_with_pyspiel():
    import pyspiel

    from cavekit.core.openspiel import openspiel_name, register_games
    names = register_games()
    assert names == [openspiel_name(name) for name in game_names()]
    assert set(names) <= set(pyspiel.registered_names())
    assert register_games() == names   # registering again changes nothing


@pytest.mark.parametrize("case", GAME_PLAYERS_SAMPLED + [pytest.param(case, id=case.id, marks=pytest.mark.slow)
                                                      for case in ADAPTER_VARIANTS])
def test_openspiel_random_sim_test(case: Case):
    import pyspiel

    from cavekit.core.openspiel import load_openspiel_game
    game = load_openspiel_game(case.game, **case.kwargs)
    # With serialization only on the default player count: each check replays the whole record at every ply.
    serialize = case.players == game_spec(case.game).default_players
    pyspiel.random_sim_test(game, num_sims=1, serialize=serialize, verbose=False)


@pytest.mark.parametrize("case", GAME_PLAYERS + ADAPTER_VARIANTS, ids=GAME_PLAYER_IDS + ADAPTER_VARIANT_IDS)
def test_openspiel_game_type_and_info_describe_the_game(case: Case):
    import pyspiel

    from cavekit.core.openspiel import load_openspiel_game, openspiel_name
    from cavekit.core.tensors import has_information_state_tensor
    game = load_openspiel_game(case.game, **case.kwargs)
    ours = case.load()
    kind = game.get_type()
    assert game.cavekit_game.parameters() == ours.parameters()
    assert game.cavekit_game.engine == case.engine
    assert kind.short_name == openspiel_name(case.game)
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    hidden = getattr(ours, "hidden_information", False)
    assert kind.information == (pyspiel.GameType.Information.IMPERFECT_INFORMATION if hidden
                                else pyspiel.GameType.Information.PERFECT_INFORMATION)
    zero_sum = game_spec(case.game).zero_sum and ours.num_players > 1
    assert kind.utility == (pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM)
    assert kind.min_num_players == min(game_spec(case.game).player_counts)
    assert kind.max_num_players == max(game_spec(case.game).player_counts)
    assert game.num_players() == ours.num_players
    assert game.num_distinct_actions() == ours.num_distinct_actions
    assert game.max_chance_outcomes() == ours.max_chance_outcomes
    assert game.max_game_length() == ours.max_game_length
    assert (game.min_utility(), game.max_utility()) == (ours.min_utility(), ours.max_utility())
    assert kind.provides_information_state_tensor == has_information_state_tensor(ours)
    if kind.provides_information_state_tensor:
        assert game.information_state_tensor_shape() == [ours.information_state_tensor_size()]


@pytest.mark.parametrize("case", GAME_PLAYERS + ADAPTER_VARIANTS, ids=GAME_PLAYER_IDS + ADAPTER_VARIANT_IDS)
def test_openspiel_adapter_follows_the_engine_action_by_action(case: Case):
    from cavekit.core.openspiel import load_openspiel_game
    game = load_openspiel_game(case.game, **case.kwargs)
    state = game.new_initial_state()
    engine = None
    for engine, action in random_game(case.load(), case.seeds[0]):
        assert state.current_player() == engine.current_player()
        assert state.legal_actions() == engine.legal_actions()
        if engine.current_player() == CHANCE:
            assert state.chance_outcomes() == engine.chance_outcomes()
        assert state.action_to_string(state.current_player(), action) == engine.action_to_string(action)
        state.apply_action(action)
    assert engine is not None and state.is_terminal()
    assert state.history() == engine.history()
    assert state.returns() == engine.returns()
    assert str(state) == str(engine)
    for p in range(game.num_players()):
        assert state.information_state_string(p) == engine.information_state_string(p)


@pytest.mark.parametrize("case", GAME_PLAYERS + [pytest.param(case, id=case.id, marks=pytest.mark.slow)
                                                for case in ADAPTER_VARIANTS], ids=GAME_PLAYER_IDS + ADAPTER_VARIANT_IDS)
def test_pettingzoo_api_test(case: Case):
    from pettingzoo.test import api_test

    from cavekit.core.pettingzoo import env as make_env
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        api_test(make_env(case.game, **case.kwargs), num_cycles=1000)


@pytest.mark.parametrize("case", GAME_PLAYERS_SAMPLED)
def test_pettingzoo_seed_test(case: Case):
    from pettingzoo.test import seed_test

    from cavekit.core.pettingzoo import env as make_env
    seed_test(lambda: make_env(case.game, **case.kwargs), num_cycles=300)


# -- 6. the engines agree ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", MULTI_ENGINE, ids=MULTI_ENGINE_IDS)
def test_engines_agree_at_every_step(case: Case):
    spec = game_spec(case.game)
    others = [case.load(engine) for engine in spec.engines if engine != case.engine]
    for seed in case.seeds:
        mirrors = [other.new_initial_state() for other in others]
        state = None
        for state, action in random_game(case.load(), seed):
            for mirror in mirrors:
                assert mirror.current_player() == state.current_player()
                assert mirror.legal_actions() == state.legal_actions()
                if state.current_player() == CHANCE:
                    assert mirror.chance_outcomes() == state.chance_outcomes()
                assert mirror.serialize() == state.serialize()
                assert mirror.scores() == state.scores()
                assert mirror.action_to_string(action) == state.action_to_string(action)
                mirror.apply_action(action)
        assert state is not None
        for mirror in mirrors:
            assert mirror.is_terminal()
            assert mirror.serialize() == state.serialize()
            assert mirror.returns() == state.returns() and mirror.scores() == state.scores()
            assert str(mirror) == str(state)


def test_the_cases_cover_every_game_engine_player_count_and_listed_choice():
    """The suite's sampling misses nothing the specs declare."""
    cases = all_cases()
    for spec in game_specs():
        mine = [c for c in cases if c.game == spec.name]
        assert {(c.engine, c.players) for c in default_cases() if c.game == spec.name} == \
            {(e, n) for e in spec.engines for n in spec.player_counts}
        variants = {c.variant for c in mine if c.variant}
        for parameter in spec.parameters:
            for choice in parameter.choices:
                if choice != parameter.default:
                    assert f"{parameter.name}={choice}" in variants


def test_a_game_added_later_gets_every_case_from_its_spec(monkeypatch):
    """Declaring a spec is all it takes: its engines, player counts and listed choices become cases."""
    from cavekit.core import registry
    from cavekit.core.spec import GameSpec, Parameter

    class Later:
        def __init__(self, **params):
            self.params = params

    spec = GameSpec(name="zz-later", title="a later game", player_counts=(1, 2, 3), default_players=2,
                    engines=("fast", "slow"), parameters=(Parameter("mode", "a", ("a", "b", "c")),
                                                          Parameter("size", 5, allowed="an integer")),
                    zero_sum=True, information="perfect", game_class=Later)
    monkeypatch.setitem(registry._SPECS, spec.name, spec)
    mine = [c for c in all_cases() if c.game == spec.name]
    assert sorted((c.engine, c.players) for c in mine if not c.variant) == \
        [(e, n) for e in ("fast", "slow") for n in (1, 2, 3)]
    variants = [c for c in mine if c.variant]
    assert [c.variant for c in variants] == ["mode=b", "mode=c"]
    assert [(c.engine, c.players) for c in variants] == [("fast", 2), ("fast", 1)]
    assert all(dict(c.params)["mode"] in "bc" for c in variants)
