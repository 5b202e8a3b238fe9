"""The compiled Pairs engine plays exactly the reference engine's game: same legal actions, records, scores.

Both engines are driven through the same seeded random games, 2 to 6 players and every rule option
changed, and compared at every step (records, chance outcomes with their probabilities, node kinds).
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.pairs import compiled
from cavekit.core.pairs.compiled import CompiledState


def both(players: int, **params):
    return (load_game("pairs", players=players, engine="reference", **params),
            load_game("pairs", players=players, engine="compiled", **params))


def assert_same_game(ref, fast, rng: np.random.Generator, records_every: int = 1, deal=None) -> int:
    """Play both states to the end with the same moves, comparing them at every step; the step count.
    Chance outcomes are sampled from `rng`, or with a `deal` (`cavekit.core.deal`) taken from it."""
    steps = 0
    while True:
        assert fast.current_player() == ref.current_player(), f"players differ at step {steps}"
        assert fast.legal_actions() == ref.legal_actions(), f"legal actions differ at step {steps}"
        assert fast.node_kind() == ref.node_kind()
        assert fast.to_dict() == ref.to_dict(), f"states differ at step {steps}"
        if steps % records_every == 0 or ref.is_terminal():
            assert fast.serialize() == ref.serialize(), f"records differ at step {steps}"
            assert fast.history_kinds() == ref.history_kinds()
        assert fast.scores() == ref.scores() and fast.round_points() == ref.round_points()
        if ref.is_terminal():
            assert fast.is_terminal()
            assert fast.returns() == ref.returns() == fast.c_returns()
            return steps
        if ref.is_chance_node():
            assert fast.chance_outcomes() == ref.chance_outcomes()
            if deal is not None:
                assert fast.chance_component() == ref.chance_component(), f"components differ at step {steps}"
                action = deal.outcome(ref)
            else:
                action = sample_chance_outcome(ref.chance_outcomes(), rng.random())
        else:
            legal = ref.legal_actions()
            action = legal[rng.integers(len(legal))]
        ref.apply_action(action)
        fast.apply_action(action)
        steps += 1


GAMES_PER_COUNT = {2: 150, 3: 60, 4: 40, 5: 30, 6: 25}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_engines_agree_on_random_games(players):
    ref_game, fast_game = both(players)
    total = 0
    for seed in range(GAMES_PER_COUNT[players]):
        rng = np.random.default_rng([players, seed])
        total += assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, records_every=3)
    hand = ref_game.config.hand_size
    # each round deals every hand and the Cave, then plays every hand card (refills come on top)
    assert total >= GAMES_PER_COUNT[players] * (1 + players * (2 * players * hand + 5))


OPTIONS = [dict(tie_break="final_round"), dict(burn_cards=5), dict(cave_size=3), dict(cave_size=8),
           dict(hand_size=10), dict(rounds=1), dict(score_leftover=True), dict(first_dealer=1),
           dict(hand_visibility="open")]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_engines_agree_with_each_rule_option_changed(options):
    for players in (2, 3, 5):
        ref_game, fast_game = both(players, **options)
        for seed in range(8):
            rng = np.random.default_rng([players, seed, 7])
            assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, records_every=2)


def test_engines_agree_when_the_deck_runs_out():
    for players, hand in ((5, 10), (2, 25), (2, 20), (6, 8)):
        ref_game, fast_game = both(players, hand_size=hand, rounds=1)
        for seed in range(10):
            rng = np.random.default_rng([players, hand, seed])
            assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng)


def test_engines_explain_illegal_actions_in_the_same_words():
    ref_game, fast_game = both(3)
    for seed in range(20):
        ref, fast = ref_game.new_initial_state(seed=seed), fast_game.new_initial_state(seed=seed)
        for action in (*range(-1, 12), 2**70, "play 3", 2.0):
            errors = []
            for state in (ref, fast):
                try:
                    state.apply_action(action)
                    errors.append(None)
                except Exception as e:   # the same type and message are required of both
                    errors.append((type(e), str(e)))
            assert errors[0] == errors[1]
            if errors[0] is None:
                break
        assert ref.serialize() == fast.serialize()


def test_views_and_resampling_are_the_same_in_both_engines():
    ref_game, fast_game = both(3, burn_cards=2)
    rng = np.random.default_rng(0)
    ref, fast = ref_game.new_initial_state(seed=9), fast_game.new_initial_state(seed=9)
    while not ref.is_terminal():
        if ref.current_player() >= 0:
            for p in range(3):
                assert ref.information_state_string(p) == fast.information_state_string(p)
                assert ref.observation_tensor(p) == fast.observation_tensor(p)
                seed = int(rng.integers(1 << 30))
                assert ref.resample_from_infostate(p, seed).serialize() == \
                    fast.resample_from_infostate(p, seed).serialize()
        action = (sample_chance_outcome(ref.chance_outcomes(), rng.random()) if ref.is_chance_node()
                  else ref.legal_actions()[-1])
        ref.apply_action(action)
        fast.apply_action(action)
    assert str(ref) == str(fast)


def test_clone_pickle_deepcopy_and_from_dict_keep_the_position():
    game = load_game("pairs", players=4, cave_size=6)
    state = game.new_initial_state(seed=3)
    for _ in range(15):
        state.apply_action(state.legal_actions()[0])
    for other in (state.clone(), pickle.loads(pickle.dumps(state)), copy.deepcopy(state),
                  CompiledState.from_dict(game, state.to_dict(), state.history(), state.history_kinds())):
        assert other.serialize() == state.serialize() and other.history_kinds() == state.history_kinds()
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert twin.history() != state.history() and twin.to_dict() != state.to_dict()
    assert pickle.loads(pickle.dumps(state))._game.parameters()["cave_size"] == 6


def test_c_random_playouts_finish_matches_with_zero_sum_returns():
    game = load_game("pairs", players=3)
    state = game.new_initial_state(seed=1)
    results = [state.random_playout(seed) for seed in range(200)]
    assert all(abs(sum(r)) < 1e-9 and max(r) > 0 for r in results)
    assert state.random_playout(5) == state.random_playout(5)
    assert len({tuple(r) for r in results}) > 2, "different seeds give different matches"
    steps = compiled.random_games(game, 100, seed=2)
    assert 100 * 3 * 40 < steps < 100 * game.max_game_length
    assert compiled.state_size_bytes() < 400


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_engines_agree_on_thousands_of_random_games(players):
    ref_game, fast_game = both(players)
    for seed in range(2000):
        rng = np.random.default_rng([players, seed, 99])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, records_every=10)
