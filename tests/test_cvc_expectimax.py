"""Compiled expectimax over turns: exact against a plain search over turn segments, and sound in end games."""
from __future__ import annotations

import pytest

from cavekit.core import ConfigError, load_game
from cavekit.core.api import CHANCE
from cavekit.search import make_agent
from cavekit.search.cvc_expectimax import TurnExpectimax
from cavekit.search.cvc_segments import SegmentEnumerator, TurnSearcher
from cavekit.search.cvc_evaluation import heuristic_values

from cvc_end_games import (block_the_housework, compiled, last_turn_of_the_game, play_turn,
                           treasury_after_conversions, treasury_by_renovation)
from agent_play import play_with_agents


ENUMERATOR = SegmentEnumerator(20000)     # segments() returns a list, so recursive calls may share it


def plain_value(state, turns_left: int, root: int) -> float:
    """Expectiminimax over whole segments without pruning, every chance outcome searched.

    (The heuristic is the C one, which test_mcts checks equal to the Python `cvc_evaluate`.)
    """
    if state.is_terminal() or turns_left == 0:
        return (state.returns() if state.is_terminal() else heuristic_values(state))[root]
    if state.current_player() == CHANCE:
        total = 0.0
        for outcome, probability in state.chance_outcomes():
            child = state.clone()
            child.apply_action(outcome)
            total += probability * plain_value(child, turns_left, root)
        return total
    before = state.to_dict()
    values = []
    for path in ENUMERATOR.segments(state):
        child = state.clone()
        for action in path:
            child.apply_action(action)
        after = child.to_dict()
        over = (after["round"], after["turn"]) != (before["round"], before["turn"])
        values.append(plain_value(child, turns_left - over, root))
    return max(values) if state.current_player() == root else min(values)


@pytest.mark.parametrize("position, depth", [
    (block_the_housework, 1), (treasury_by_renovation, 1), (treasury_after_conversions, 1),
    (treasury_by_renovation, 2), (treasury_after_conversions, 2),
    # the opponent's reply searched for each of ours: 25 s of plain Python search
    pytest.param(block_the_housework, 2, marks=pytest.mark.slow),
])
def test_value_is_the_plain_expectiminimax_value(position, depth):
    state = compiled(position())
    best = TurnExpectimax(depth=depth, width=0, chance_samples=0).search(state)[0]
    assert best["value"] == pytest.approx(plain_value(state, depth, state.current_player()), abs=1e-9)


def test_depth_one_is_the_greedy_turn_search():
    game = load_game("cvc")
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        greedy = TurnSearcher(chance_samples=0).action_values(state)
        best = TurnExpectimax(depth=1, width=0, chance_samples=0).search(state)[0]
        assert best["value"] == pytest.approx(max(greedy.values()), abs=1e-12)


def test_finds_the_winning_last_turn():
    state = compiled(last_turn_of_the_game())
    assert play_turn(state, make_agent("cvc_expectimax:depth=1", state._game, seed=1))[0] == "take Housework"
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_depth_two_blocks_the_opponent_where_depth_one_does_not():
    start = compiled(block_the_housework())
    assert play_turn(start.clone(), make_agent("cvc_expectimax:depth=1", start._game, seed=3))[0] != "take Housework"
    state = start.clone()
    agent = make_agent("cvc_expectimax:depth=2", state._game, seed=3)
    assert agent.analyse(state)[0]["value"] == pytest.approx(1.0)    # a certain win, seen through the reply
    assert play_turn(state, agent)[0] == "take Housework"
    play_turn(state, make_agent("greedy", state._game, seed=4))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_analyse_marks_pruned_values_as_bounds():
    state = load_game("cvc").new_initial_state(seed=2)
    entries = make_agent("cvc_expectimax:depth=2", state._game, seed=0).analyse(state)
    assert entries[0]["bound"] == "exact"
    assert [e["value"] for e in entries] == sorted((e["value"] for e in entries), reverse=True)
    assert all(e["text"].startswith(state.action_to_string(e["action"])) for e in entries)


def test_full_games_are_legal_and_reproducible():
    for players in (2, 1):
        game = load_game("cvc", players=players)
        specs = ["cvc_expectimax:depth=2,width=8,chance_samples=1"] + ["random"] * (players - 1)
        first, second = play_with_agents(game, specs, 3), play_with_agents(game, specs, 3)
        assert first.history() == second.history()


@pytest.mark.parametrize("spec, message", [
    ("cvc_expectimax:depth=0", "at least 1"),
    ("cvc_expectimax:width=-1", ">= 0"),
    ("cvc_expectimax:turns=2", "turns"),
])
def test_bad_settings_are_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        make_agent(spec, load_game("cvc"))


def test_the_reference_engine_is_refused_with_the_alternative():
    with pytest.raises(ConfigError, match="use expectimax for other games"):
        make_agent("cvc_expectimax", load_game("cvc", engine="reference"))
