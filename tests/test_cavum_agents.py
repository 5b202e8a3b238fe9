"""Agents play full Cavum games through the common API: random, IS-MCTS, expectimax and the heuristic."""
from __future__ import annotations

import time

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.search import make_agent
from cavekit.search.evaluation import evaluator_for


def play_match(game, specs, seed):
    agents = [make_agent(spec, game, seed=seed + i) for i, spec in enumerate(specs)]
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            action = agents[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_agents_finish(players):
    state = play_match(load_game("cavum", players=players), ["random"] * players, seed=players)
    assert state.is_terminal() and abs(sum(state.returns())) < 1e-9


def test_mcts_plays_with_resampling():
    """IS-MCTS (the game has hidden stones) plays a whole game with a tiny budget."""
    game = load_game("cavum", players=2)
    assert game.hidden_information
    started = time.perf_counter()
    state = play_match(game, ["mcts:iterations=8,rollout=none", "random"], seed=1)
    assert state.is_terminal()
    assert time.perf_counter() - started < 60


def test_expectimax_plays():
    game = load_game("cavum", players=2, stones_in_hand_visibility="public")
    state = play_match(game, ["expectimax:depth=1,max_nodes=8,chance_samples=1", "random"], seed=2)
    assert state.is_terminal()


def test_heuristic_agent_and_evaluator():
    game = load_game("cavum", players=2)
    state = game.new_initial_state(seed=4)
    values = evaluator_for(game)(state)
    assert values == [0.0, 0.0], "a symmetric start is even"
    wins = 0
    for seed in range(3):
        end = play_match(game, ["cavum_heuristic", "random"], seed=10 + seed)
        wins += end.returns()[0] > 0
    assert wins >= 2, "the heuristic beats random play"
