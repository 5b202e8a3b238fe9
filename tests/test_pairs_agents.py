"""Agents on The Cave (Pairs deck): the heuristic, the evaluator, greedy, IS-MCTS, the cheating MCTS and
determinized expectimax. None of the fair agents may use a card its player cannot see.
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.analysis.batch import run_match
from cavekit.core import CHANCE, ConfigError, load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.pairs.compiled import CompiledState
from cavekit.search import make_agent
from cavekit.search.evaluation import evaluator_for
from cavekit.search.pairs_agents import pairs_evaluate


def decision_states(game, seed: int, count: int) -> list:
    """Clones of decision states of a seeded random game."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal() and len(found) < count:
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            continue
        found.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    return found


def twin(state):
    """A state the player to move cannot tell from `state` whose hidden cards differ (a resampled one), or
    None when no other hand holds a card (nothing hidden is left to differ)."""
    player = state.current_player()
    if not any(sum(h) for p, h in enumerate(state.to_dict()["hands"]) if p != player):
        return None
    for seed in range(50):
        other = state.resample_from_infostate(player, seed)
        if other.to_dict()["hands"] != state.to_dict()["hands"]:
            return other
    raise AssertionError("no differing resample")


def score_rate(results, spec: str) -> float:
    mine = np.where(results["agent_0"] == spec, results["return_0"], results["return_1"])
    return float(((mine > 0).sum() + 0.5 * (mine == 0).sum()) / len(results))


# ----------------------------------------------------------------------------------------------------
# The evaluator

def test_the_evaluator_is_registered_public_and_on_the_returns_scale():
    game = load_game("pairs", players=3)
    assert evaluator_for(game) is pairs_evaluate
    for state in decision_states(game, 1, 30):
        values = pairs_evaluate(state)
        assert len(values) == 3 and abs(sum(values)) < 1e-9 and all(-1 <= v <= 1 for v in values)
        other = twin(state)
        assert other is None or pairs_evaluate(other) == values, "the evaluator must not read hidden cards"
    leader = game.new_initial_state(seed=0)
    d = leader.to_dict()
    d["captured"][2] = [0] * 9 + [3]
    ahead = CompiledState.from_dict(game, d, leader.history(), leader.history_kinds())
    assert max(range(3), key=lambda p: pairs_evaluate(ahead)[p]) == 2


def test_the_evaluator_gives_the_returns_at_the_end():
    game = load_game("pairs")
    state = game.new_initial_state(seed=2)
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            state.apply_action(state.legal_actions()[0])
    assert pairs_evaluate(state) == state.returns()


# ----------------------------------------------------------------------------------------------------
# The heuristic agent

def test_heuristic_reads_only_what_its_player_sees():
    game = load_game("pairs", players=3)
    for i, state in enumerate(decision_states(game, 5, 25)):
        agent = make_agent("pairs_heuristic", game, seed=i)
        values = agent.action_values(state)
        assert sorted(values) == state.legal_actions()
        other = twin(state)
        assert other is None or agent.action_values(other) == values


def test_heuristic_takes_a_big_majority_capture():
    game = load_game("pairs", players=2, first_dealer=0)
    state = game.new_initial_state()
    hands = {1: [2, 5, 6, 6, 7, 7, 8], 0: [3, 4, 5, 6, 7, 8, 8]}
    for i in range(7):
        state.apply_action(hands[1][i] - 1)
        state.apply_action(hands[0][i] - 1)
    for card in (10, 10, 10, 4, 9):
        state.apply_action(card - 1)
    # p1 to play: a 2 takes the three 10s (nothing lower than 2); a 5 takes the 4 only, a 6 or 7 the 4 too.
    agent = make_agent("pairs_heuristic", game, seed=0)
    assert state.action_to_string(agent.step(state)) == "play 2"


def test_heuristic_beats_random_clearly_and_checks_its_options():
    results = run_match("pairs", ["pairs_heuristic", "random"], 60, seed=3, progress=False)
    assert score_rate(results, "pairs_heuristic") > 0.75
    with pytest.raises(ConfigError, match="agent .pairs_heuristic. plays pairs only, not cvc; agents for cvc: "):
        make_agent("pairs_heuristic", load_game("cvc"))
    with pytest.raises(ConfigError, match="potential in \\[0, 1\\]"):
        make_agent("pairs_heuristic:potential=2", load_game("pairs"))


def test_greedy_plays_pairs_with_the_pairs_evaluator():
    results = run_match("pairs", ["greedy", "random"], 30, seed=4, progress=False)
    assert score_rate(results, "greedy") > 0.6


# ----------------------------------------------------------------------------------------------------
# MCTS

def test_is_mcts_searches_resampled_worlds_and_cannot_see_hidden_cards(monkeypatch):
    game = load_game("pairs", players=2)
    calls = []
    original = CompiledState.resample_from_infostate

    def counting(self, player, rng):
        calls.append(player)
        return original(self, player, rng)

    monkeypatch.setattr(CompiledState, "resample_from_infostate", counting)
    for i, state in enumerate(decision_states(game, 8, 6)[1:]):
        if len(state.legal_actions()) < 2 or twin(state) is None:
            continue
        calls.clear()
        first = make_agent("mcts:iterations=150,reuse=0", game, seed=i)
        action = first.step(state)
        assert calls == [state.current_player()] * 150
        second = make_agent("mcts:iterations=150,reuse=0", game, seed=i)
        assert second.step(twin(state)) == action, "IS-MCTS chose differently on an indistinguishable state"
        assert action in state.legal_actions()


def test_perfect_information_mcts_searches_the_true_state(monkeypatch):
    game = load_game("pairs", players=2)

    def refuse(self, player, rng):
        raise AssertionError("the cheating MCTS must not resample")

    monkeypatch.setattr(CompiledState, "resample_from_infostate", refuse)
    agent = make_agent("mcts:iterations=100,perfect_information=1", game, seed=0)
    state = decision_states(game, 9, 1)[0]
    assert agent.step(state) in state.legal_actions() and agent.last_result.iterations == 100


def test_mcts_and_its_cheating_twin_finish_matches_with_three_players():
    results = run_match("pairs", ["mcts:iterations=40", "mcts:iterations=40,perfect_information=1", "random"], 3,
                        seed=5, progress=False, players=3)
    assert len(results) == 3 and all(abs(results[[f"return_{p}" for p in range(3)]].sum(axis=1)) < 1e-9)


# ----------------------------------------------------------------------------------------------------
# Determinized expectimax

def test_determinized_expectimax_averages_over_resampled_worlds_only():
    game = load_game("pairs", players=2)
    state = decision_states(game, 6, 3)[2]
    agent = make_agent("dexpectimax:determinizations=3,depth=2", game, seed=1)
    values = agent.action_values(state)
    assert sorted(values) == state.legal_actions() and all(-1 <= v <= 1 for v in values.values())
    again = make_agent("dexpectimax:determinizations=3,depth=2", game, seed=1)
    assert again.action_values(twin(state)) == values
    with pytest.raises(ConfigError, match="determinizations must be at least 1"):
        make_agent("dexpectimax:determinizations=0", game)


def test_is_mcts_keeps_no_tree_between_moves_when_hands_are_hidden():
    # A kept tree is entered along the true history, dealt cards included: its statistics would come from
    # deals that agree with the opponents' hidden hands. With hidden hands, keeping the tree must change nothing.
    game = load_game("pairs", players=3)
    kept = make_agent("mcts:iterations=200", game, seed=5)
    fresh = make_agent("mcts:iterations=200,reuse=0", game, seed=5)
    others = [make_agent("random", game, seed=s) for s in (1, 2)]
    state, rng, compared = game.new_initial_state(), np.random.default_rng(3), 0
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            continue
        if player == 0 and len(state.legal_actions()) > 1:
            action = kept.step(state)
            assert fresh.step(state) == action
            assert kept.last_result.visits == fresh.last_result.visits, "the kept tree carried visits over"
            compared += 1
        else:
            action = others[player - 1].step(state) if player else state.legal_actions()[0]
        state.apply_action(action)
    assert compared >= 5
