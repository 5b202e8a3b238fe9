"""Every compiled engine implements the C engine interface (core/engine.pxd), and it says what the API says.

The compiled searches see a game only through the interface: current player, legal actions, chance outcomes
with their probabilities, apply, returns, the evaluation and (hidden information) resampling. Random games of
every game, player count and hidden-information setting are played through the Python API; at every step the
interface's view of the same C position (`engine_view`) must equal the API's, and a resampled position must be
one the player cannot tell from the true one.
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import CHANCE, load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.registry import game_names, game_spec
from cavekit.search.evaluation import evaluator_for

# (game, parameters) of the settings played here: every game, the player counts at its edges, and with hidden
# information on and off where the game has the option
SETTINGS = [
    ("cvc", {"players": 1}), ("cvc", {"players": 2}),
    ("pairs", {"players": 2}), ("pairs", {"players": 4, "burn_cards": 3}), ("pairs", {"players": 6}),
    ("pairs", {"players": 3, "hand_visibility": "open"}),
    ("pairs", {"players": 2, "hand_visibility": "open", "burn_cards": 2}),
    ("cavum", {"players": 2}), ("cavum", {"players": 3}), ("cavum", {"players": 4}),
    ("cavum", {"players": 3, "stones_in_hand_visibility": "public"}),
    ("caverna", {"players": 1}), ("caverna", {"players": 3}),
]
GAMES_PER_SETTING = 2


def test_every_compiled_engine_implements_the_interface():
    compiled = [name for name in game_names() if "compiled" in game_spec(name).engines]
    assert set(compiled) == {"cvc", "pairs", "cavum", "caverna"}
    for name in compiled:
        state = load_game(name, engine="compiled").new_initial_state()
        view = state.engine_view()
        assert view["name"] == name and view["player"] == state.current_player()


def random_states(game, seed: int):
    """The positions of a random game of `game`, from the first to the last."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    yield state
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        yield state


@pytest.mark.parametrize("name, params", SETTINGS, ids=[f"{n}-{p}" for n, p in SETTINGS])
def test_the_interface_says_what_the_api_says_at_every_step(name, params):
    game = load_game(name, engine="compiled", **params)
    evaluate = evaluator_for(game)
    for seed in range(GAMES_PER_SETTING):
        steps = 0
        for state in random_states(game, seed):
            view = state.engine_view()
            player = state.current_player()
            assert view["player"] == player
            assert view["legal"] == (state.legal_actions() if player >= 0 else [])
            expected = state.chance_outcomes() if player == CHANCE else []
            assert [a for a, _ in view["chance"]] == [a for a, _ in expected]
            assert np.allclose([p for _, p in view["chance"]], [p for _, p in expected], atol=1e-12)
            if view["chance"]:
                assert abs(sum(p for _, p in view["chance"]) - 1) < 1e-9
            if state.is_terminal():
                assert view["returns"] == pytest.approx(state.returns(), abs=1e-12)
            if not state.is_terminal() and steps % 5 == 0:      # apply through the interface, then compare
                moves = view["legal"] or [a for a, _ in view["chance"]]
                after = state.clone()
                after.apply_action(moves[-1])
                assert state.engine_applied(moves[-1]).to_dict() == after.to_dict()
            if view["evaluate"] is not None:
                assert view["evaluate"] == pytest.approx(evaluate(state), abs=1e-9)
            steps += 1
        assert steps > 10


HIDDEN = [(n, p) for n, p in SETTINGS if getattr(load_game(n, engine="compiled", **p), "hidden_information", False)]


@pytest.mark.parametrize("name, params", HIDDEN, ids=[f"{n}-{p}" for n, p in HIDDEN])
def test_a_resampled_position_is_one_the_player_cannot_tell_from_the_true_one(name, params):
    game = load_game(name, engine="compiled", **params)
    rng = np.random.default_rng(0)
    changed = reference_changed = 0
    for state in random_states(game, 7):
        if state.is_terminal():
            break
        for player in range(game.num_players):
            world = state.engine_resampled(player, seed=len(state.history()) * 10 + player)
            assert world.information_state_string(player) == state.information_state_string(player)
            if player == state.current_player():
                assert world.legal_actions() == state.legal_actions()
            changed += world.to_dict() != state.to_dict()
            reference_changed += state.resample_from_infostate(player, rng).to_dict() != state.to_dict()
    # where the API's resampling finds something to redraw, so does the interface's (in a two-player Cavum game
    # the other hand is exactly the unseen stones, so neither ever does)
    assert (changed > 0) == (reference_changed > 0), (changed, reference_changed)


def test_an_engine_without_hidden_information_has_no_resampling():
    for name, params in [("cvc", {}), ("caverna", {}), ("pairs", {"hand_visibility": "open"})]:
        state = load_game(name, engine="compiled", **params).new_initial_state()
        assert state.engine_resampled(0, seed=1).to_dict() == state.to_dict()
