"""The Cave vs Cave planner: futures that agree with the game, play-outs on them, and the best final turn."""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, ConfigError
from cavekit.core.deal import deal_seed, new_deal
from cavekit.search import make_agent
from cavekit.search.cvc_planner import PlannerAgent, dealt_outcome, future_of_deal, sample_future
from cavekit.search.cvc_segments import SegmentEnumerator

from cvc_end_games import final_score_after, play_to_last_turn


@pytest.mark.parametrize("players", [1, 2])
def test_a_future_of_a_deal_deals_what_the_deal_deals(players):
    game = load_game("cvc", players=players)
    rng = np.random.default_rng(players)
    for i in range(4):
        deal = new_deal(game, deal_seed(3, i))
        future = future_of_deal(deal)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                assert dealt_outcome(state, future) == deal.outcome(state)
                state.apply_action(deal.outcome(state))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("players", [1, 2])
def test_a_sampled_future_agrees_with_everything_shown_so_far(players):
    """From any decision, a game dealt by a future sampled there only meets outcomes that are possible, and
    the rooms and tiles already turned up stay out of it."""
    game = load_game("cvc", players=players)
    rng = np.random.default_rng(10 + players)
    for i in range(6):
        deal = new_deal(game, deal_seed(4, i))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(deal.outcome(state))
                continue
            if rng.random() < 0.3:
                future, probe = sample_future(state, rng), state.clone()
                while not probe.is_terminal():
                    if probe.current_player() == CHANCE:
                        outcome = dealt_outcome(probe, future)
                        assert outcome in [o for o, _ in probe.chance_outcomes()]
                        probe.apply_action(outcome)
                    else:
                        legal = probe.legal_actions()
                        probe.apply_action(legal[rng.integers(len(legal))])
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("index", range(4))
def test_the_solo_planner_finds_the_best_final_turn(index):
    """At the start of the last turn every line ends the game, so the planner must play a turn that scores
    the most there is (checked against every distinct turn the position allows)."""
    game = load_game("cvc", players=1)
    deal = new_deal(game, deal_seed(5, index))
    state = play_to_last_turn(deal, game)
    best = max(final_score_after(state, path, deal) for path in SegmentEnumerator().segments(state))
    agent = PlannerAgent(game, seed=1, candidates=10_000, futures=2, value="heuristic")
    chosen = agent.analyse(state)[0]["actions"]
    assert final_score_after(state, chosen, deal) == best
    assert agent.analyse(state)[0]["value"] == pytest.approx(best)


def test_the_clairvoyant_planner_is_told_the_deal_and_scores_what_it_predicts():
    game = load_game("cvc", players=1)
    deal = new_deal(game, deal_seed(6, 0))
    agent = PlannerAgent(game, seed=2, candidates=4, value="heuristic", deal=deal)
    state = game.new_initial_state()
    predicted = None
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state))
        else:
            if predicted is None:
                predicted = agent.analyse(state)[0]["value"]
            state.apply_action(agent.step(state))
    # Told the deal, the play-outs are exact and each later choice can only keep or raise the best found.
    assert state.scores()[0] >= predicted


def test_planner_options_are_checked():
    game = load_game("cvc", players=1)
    with pytest.raises(ConfigError, match="futures must be at least 1"):
        make_agent("cvc_plan:futures=0", game)
    with pytest.raises(ConfigError, match="candidates and max_states"):
        make_agent("cvc_plan:candidates=0", game)
    with pytest.raises(ConfigError, match="unknown value"):
        make_agent("cvc_plan:value=clever", game)
