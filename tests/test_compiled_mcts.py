"""The compiled MCTS (`compiled_mcts`, search/compiled_mcts.pyx): the reference `mcts` in C over the engine
interface, for every compiled engine.

The two draw different random numbers, so they agree move for move only where the answer does not depend on
them: a forced move, and a clear best move at a large budget. Beyond that: a search is a function of its seed,
and under hidden information a function of what the searching player knows (two positions the player cannot
tell apart give the very same search).
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.analysis.bench import _random_game
from cavekit.core import load_game
from cavekit.core.api import ConfigError
from cavekit.search import make_agent
from cavekit.search.compiled_mcts import search


def positions(game, count: int, seed: int = 0):
    """Decisions with more than one legal move, from random games of `game`."""
    rng = np.random.default_rng(seed)
    found: list = []
    while len(found) < count:
        kept: list = []
        _random_game(game, rng, kept, keep_every=5)
        found += [s for s in kept if len(s.legal_actions()) > 1]
    return found[:count]


@pytest.mark.parametrize("name, params, options, count", [
    ("pairs", {"players": 2}, "c=0.7", 14),
    # (most Cavum decisions have no clear best at this budget, so it takes 40 Python searches: a long run)
    pytest.param("cavum", {"players": 2}, "rollout=none", 40, marks=pytest.mark.slow),
])
def test_where_one_move_is_clearly_best_both_searches_choose_it(name, params, options, count):
    game = load_game(name, engine="compiled", **params)
    clear = agree = 0
    for state in positions(game, count):
        reference = make_agent(f"mcts:iterations=2000,{options}", game, seed=1)
        reference.step(state)
        visits = sorted(reference.last_result.visits.values(), reverse=True)
        if visits[0] < 2 * visits[1]:
            continue                    # no clear best move: the two may differ by chance
        clear += 1
        compiled = make_agent(f"compiled_mcts:iterations=2000,{options}", game, seed=1)
        agree += compiled.step(state) == reference.last_result.best_action()
    assert clear >= 4 and agree >= clear - 1, (agree, clear)


def test_a_forced_move_is_played_without_a_search():
    game = load_game("cavum", engine="compiled")
    rng = np.random.default_rng(0)
    kept: list = []
    _random_game(game, rng, kept, keep_every=1)
    forced = next(s for s in kept if len(s.legal_actions()) == 1)
    agent = make_agent("compiled_mcts:iterations=10", game, seed=0)
    assert agent.step(forced) == forced.legal_actions()[0] and agent.last_result is None


@pytest.mark.parametrize("name, params", [("pairs", {"players": 3}), ("pairs", {"players": 2, "burn_cards": 3}),
                                          ("cavum", {"players": 3}), ("cavum", {"players": 4})])
def test_under_hidden_information_the_search_depends_only_on_what_the_searcher_knows(name, params):
    game = load_game(name, engine="compiled", **params)
    compared = 0
    for k, state in enumerate(positions(game, 200, seed=2)):
        twin = state.engine_resampled(state.current_player(), seed=100 + k)   # a deal the searcher cannot tell apart
        if twin.to_dict() == state.to_dict():
            continue                    # nothing hidden to redraw here
        assert search(state, 400, 0.0, 0.7, "random", -1, False, 9)[:3] == search(twin, 400, 0.0, 0.7, "random",
                                                                                     -1, False, 9)[:3]
        compared += 1
        if compared == 5:
            break
    assert compared >= 2, "too few positions had hidden cards to redraw"


def test_a_search_is_a_function_of_its_seed():
    game = load_game("pairs", engine="compiled")
    state = positions(game, 1)[0]
    first = search(state, 500, 0.0, 0.7, "random", -1, False, 5)
    assert search(state, 500, 0.0, 0.7, "random", -1, False, 5)[:3] == first[:3]
    assert search(state, 500, 0.0, 0.7, "random", -1, False, 6)[:2] != first[:2]
    visits, values, done, _ = first
    assert done == 500 and sum(visits.values()) == 500 and set(visits) == set(state.legal_actions())
    assert all(-1.0 <= v <= 1.0 for v in values.values())


def test_a_time_budget_runs_until_it_is_spent():
    game = load_game("cavum", engine="compiled")
    state = positions(game, 1)[0]
    agent = make_agent("compiled_mcts:seconds=0.05,rollout=none", game, seed=0)
    rows = agent.analyse(state)
    assert agent.last_result.iterations > 10 and agent.last_result.seconds >= 0.05
    assert [r["action"] for r in rows] == agent.last_result.ranked() and "compiled MCTS" in agent.analysis_budget


@pytest.mark.parametrize("spec, game_engine, words", [
    ("compiled_mcts", "reference", "compiled engine"),
    ("compiled_mcts:rollout=greedy", "compiled", "rollout"),
    ("compiled_mcts:iterations=0", "compiled", "iterations"),
])
def test_options_it_cannot_honour_are_refused(spec, game_engine, words):
    with pytest.raises(ConfigError, match=words):
        make_agent(spec, load_game("pairs", engine=game_engine), seed=0)


@pytest.mark.parametrize("args, words", [
    (["pairs", "--search", "--positions", "0"], "at least 1"),
    (["batch", "--search"], "compiled engine"),
])
def test_the_search_benchmark_refuses_what_it_cannot_run_in_one_line(args, words):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "cavekit", "bench", *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
