"""`cvc_nrpa`: nested rollout policy adaptation for solo Cave vs Cave on one deal (search/cvc_nrpa.pyx)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, ConfigError
from cavekit.core.deal import deal_seed, new_deal
from cavekit.search import make_agent
from cavekit.search.cvc_nrpa import CvcNrpaAgent, DealSearch
from cavekit.search.cvc_planner import future_of_deal

from cvc_end_games import final_score_after, play_to_last_turn


def play(agent, deal, state=None):
    """Play the solo game from `state` (the start by default) with `agent`, `deal` dealing; the final state."""
    state = state.clone() if state is not None else agent.game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(deal.outcome(state) if state.current_player() == CHANCE else agent.step(state))
    return state


def test_told_the_deal_it_searches_once_and_scores_the_game_it_found():
    """Told the deal, nothing is left to chance: the best game found is the game played, to the point."""
    game = load_game("cvc", players=1)
    deal = new_deal(game, deal_seed(7, 0))
    agent = CvcNrpaAgent(game, seed=3, level=1, iterations=6, deal=deal)
    final = play(agent, deal)
    assert agent.searches == 1
    assert final.scores()[0] == agent.best_found


@pytest.mark.parametrize("index", range(4))
def test_on_the_last_turn_it_plays_the_best_of_the_turns_it_draws_from(index):
    """On the solo game's last turn every segment ends the game, so each playout's score is exact: a level-1
    search must find and play the best of its candidate turns (checked against each of them on the deal)."""
    game = load_game("cvc", players=1)
    deal = new_deal(game, deal_seed(5, index))
    state = play_to_last_turn(deal, game)
    candidates = DealSearch(candidates=24).candidate_ends(state)
    best = max(final_score_after(state, path, deal) for path in candidates)
    agent = CvcNrpaAgent(game, seed=1, level=1, iterations=60, candidates=24, deal=deal)
    assert play(agent, deal, state).scores()[0] == agent.best_found == best


def test_the_same_seed_plays_the_same_game_and_it_does_not_need_the_deal():
    """Not told the deal, it searches sampled deals and searches again whenever the real deal differs."""
    game = load_game("cvc", players=1)
    deal = new_deal(game, deal_seed(7, 1))
    games = [play(make_agent("cvc_nrpa:level=1,iterations=3,candidates=4", game, seed=9), deal) for _ in range(2)]
    assert games[0].history() == games[1].history()
    agent = make_agent("cvc_nrpa:level=1,iterations=3,candidates=4", game, seed=9)
    play(agent, deal)
    assert agent.searches > 1


def test_a_deal_search_refuses_a_future_of_the_wrong_shape():
    game = load_game("cvc", players=1)
    future = future_of_deal(new_deal(game, deal_seed(7, 2)))
    with pytest.raises(ValueError, match="future must be an array of shape"):
        DealSearch().search(game.new_initial_state(), future[:, :3].copy(), 1, 1, 1.0, 0)


def test_bad_options_say_what_is_allowed():
    game = load_game("cvc", players=1)
    for spec, message in [("cvc_nrpa:candidates=0", "candidates must be 1..96; got candidates=0"),
                          ("cvc_nrpa:candidates=97", "candidates must be 1..96"),
                          ("cvc_nrpa:max_states=0", "max_states must be at least 1"),
                          ("cvc_nrpa:value=clever", "unknown value"),
                          ("cvc_nrpa:level=4", "level must be 1..3"),
                          ("cvc_nrpa:temperature=0", "temperature must be a positive number")]:
        with pytest.raises(ConfigError, match=message):
            make_agent(spec, game, seed=0)
    with pytest.raises(ConfigError, match="plays solo Cave vs Cave only.*has 2 players"):
        make_agent("cvc_nrpa", load_game("cvc", players=2), seed=0)
    with pytest.raises(ConfigError, match="compiled engine"):
        make_agent("cvc_nrpa", load_game("cvc", players=1, engine="reference"), seed=0)


def test_the_cli_refuses_it_for_two_players_without_a_traceback():
    run = subprocess.run([sys.executable, "-m", "cavekit", "match", "cvc", "--agents", "cvc_nrpa", "greedy",
                          "--games", "2"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "plays solo Cave vs Cave only" in run.stderr
    assert "Traceback" not in run.stderr
