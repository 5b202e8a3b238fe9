"""The compiled engine plays exactly the reference engine's game: same legal actions, records and scores.

Both engines are driven through the same seeded games, and compared at every step.
"""
from __future__ import annotations

import copy
import pickle
from dataclasses import fields

import numpy as np
import pytest

from cavekit.core import IllegalActionError, load_game
from cavekit.core.cvc import compiled
from cavekit.core.cvc.compiled import CompiledState
from cavekit.core.cvc.rules import BANNED_ROOMS_OPTIONS, CONFIG_CHOICES, Config, rules

from cvc_scenarios import next_action, rich_position


def both(players: int, **params):
    return (load_game("cvc", players=players, engine="reference", **params),
            load_game("cvc", players=players, engine="compiled", **params))


def assert_same_game(ref, fast, rng, busy=False, compare_records=True, choose=None) -> int:
    """Play both states to the end with the same moves, comparing them at every step; the step count.

    The moves are `choose(ref)` when given (a deal's chance outcomes, say), else `next_action(ref, rng, busy)`.
    """
    steps = 0
    while True:
        assert fast.legal_actions() == ref.legal_actions(), f"legal actions differ at step {steps}"
        assert fast.current_player() == ref.current_player()
        assert fast.to_dict() == ref.to_dict(), f"states differ at step {steps}"
        if compare_records:
            assert fast.serialize() == ref.serialize(), f"records differ at step {steps}"
        assert fast.scores() == ref.scores()
        if ref.is_terminal():
            assert fast.is_terminal()
            assert fast.returns() == ref.returns() == fast.c_returns()
            return steps
        if ref.is_chance_node():
            assert fast.chance_outcomes() == ref.chance_outcomes()
        action = next_action(ref, rng, busy) if choose is None else choose(ref)
        ref.apply_action(action)
        fast.apply_action(action)
        steps += 1


@pytest.mark.parametrize("players", [2, 1])
def test_engines_agree_on_1000_random_games(players):
    ref_game, fast_game = both(players)
    for seed in range(1000):
        rng = np.random.default_rng([players, seed])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng)


def _alternative(name):
    if name in BANNED_ROOMS_OPTIONS:        # ban the start display and more, so the ban bites often
        return [room.id for room in rules().rooms[:12]]
    default = getattr(rules().defaults, name)
    return next(v for v in CONFIG_CHOICES[name] if v != default)


@pytest.mark.parametrize("name", [f.name for f in fields(Config)])
def test_engines_agree_with_each_rule_option_changed(name):
    for players in (2, 1) if name != "banned_rooms_p1" else (2,):
        ref_game, fast_game = both(players, **{name: _alternative(name)})
        for seed in range(15):
            rng = np.random.default_rng([players, seed, 7])
            assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, busy=seed % 2 == 0)
            start = rich_position(ref_game, seed)
            assert_same_game(start, CompiledState.from_dict(fast_game, start.to_dict(), []), rng,
                             busy=True, compare_records=False)


@pytest.mark.parametrize("players", [2, 1])
def test_engines_agree_from_rich_positions_with_busy_play(players):
    ref_game, fast_game = both(players)
    cavern_awarded = 0
    for seed in range(150):
        rng = np.random.default_rng([players, seed, 11])
        start = rich_position(ref_game, seed)
        fast = CompiledState.from_dict(fast_game, start.to_dict(), [])
        assert_same_game(start, fast, rng, busy=True, compare_records=False)
        cavern_awarded += start.cavern_owner >= 0
    if players == 2:
        assert cavern_awarded > 0, "the scenarios should reach the Additional Cavern"


def test_illegal_actions_raise_the_same_error_in_both_engines():
    ref_game, fast_game = both(2)
    rng = np.random.default_rng(5)
    for seed in range(20):
        ref, fast = ref_game.new_initial_state(), fast_game.new_initial_state()
        while not ref.is_terminal():
            legal = set(ref.legal_actions())
            for bad in [int(a) for a in rng.integers(0, ref_game.num_distinct_actions, 3)] + [-1, 10**6, True, "x"]:
                if bad in legal and not isinstance(bad, bool):
                    continue
                # Both refuse it for the reason their illegal_reason gives, in the same words.
                reason, ref_before = ref.illegal_reason(bad), ref.to_dict()
                assert reason and fast.illegal_reason(bad) == reason
                with pytest.raises(IllegalActionError) as ref_error:
                    ref.apply_action(bad)
                assert ref_error.value.reason == reason and ref.to_dict() == ref_before
                before = fast.to_dict()
                with pytest.raises(IllegalActionError) as fast_error:
                    fast.apply_action(bad)
                assert str(fast_error.value) == str(ref_error.value)
                assert fast.to_dict() == before
            action = next_action(ref, rng)
            ref.apply_action(action)
            fast.apply_action(action)


def test_default_engine_is_compiled_and_reference_is_selectable():
    assert load_game("cvc").engine == "compiled"
    assert isinstance(load_game("cvc").new_initial_state(), CompiledState)
    assert load_game("cvc", engine="reference").engine == "reference"


def test_compiled_state_clones_pickles_and_deep_copies():
    game = load_game("cvc", engine="compiled")
    state = game.new_initial_state(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(40):
        state.apply_action(next_action(state, rng))
    for copied in (state.clone(), pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert type(copied) is CompiledState
        assert copied.serialize() == state.serialize()
        copied.apply_action(next_action(copied, rng))
        assert copied.history() != state.history()
    assert len(state.history()) == 40 + len(game.new_initial_state(seed=3).history())


def test_c_playout_is_reproducible_and_leaves_the_state_alone():
    game = load_game("cvc", engine="compiled")
    state = game.new_initial_state(seed=1)
    before = state.serialize()
    results = [state.random_playout(seed) for seed in range(40)]
    assert state.serialize() == before
    assert results[:5] == [state.random_playout(seed) for seed in range(5)]
    assert {r[0] for r in results} <= {-1.0, 0.0, 1.0} and len({r[0] for r in results}) > 1
    solo = load_game("cvc", players=1, engine="compiled").new_initial_state(seed=2)
    assert all(0 <= solo.random_playout(s)[0] <= 200 for s in range(10))


def test_state_fits_in_a_few_hundred_bytes():
    assert compiled.state_size_bytes() <= 256


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 1])
def test_engines_agree_on_50000_random_games(players):
    ref_game, fast_game = both(players)
    for seed in range(50_000):
        rng = np.random.default_rng([players, seed, 99])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng,
                         busy=seed % 3 == 0, compare_records=False)
