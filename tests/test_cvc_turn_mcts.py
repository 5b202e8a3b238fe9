"""MCTS over turn segments: the segments it enumerates are exactly the reachable ones, and it plays well."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cavekit.core import ConfigError, load_game
from cavekit.core.api import CHANCE
from cavekit.core.cvc.compiled import CompiledState
from cavekit.search import make_agent
from cavekit.search.cvc_segments import SegmentEnumerator
from cavekit.search.cvc_turn_mcts import TurnTree

from cvc_end_games import (block_the_housework, compiled, last_turn_of_the_game, play_turn,
                           treasury_after_conversions, treasury_by_renovation)
from agent_play import play_with_agents
from cvc_scenarios import next_action, rich_position


def position_key(state) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


def segment_over(start, state) -> bool:
    d0, d = start.to_dict(), state.to_dict()
    return (state.is_terminal() or state.current_player() == CHANCE
            or (d["round"], d["turn"]) != (d0["round"], d0["turn"]))


def brute_force_segment_ends(start) -> set[str]:
    """Every distinct position where the mover's segment ends, by plain search through the state API."""
    ends, seen, frontier = set(), {position_key(start)}, [start]
    while frontier:
        state = frontier.pop()
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            key = position_key(child)
            if segment_over(start, child):
                ends.add(key)
            elif key not in seen:
                seen.add(key)
                frontier.append(child)
    return ends


def decision_positions(count: int, seed: int, rich: bool = False) -> list[CompiledState]:
    """Positions where a player is to move: from busy random play, or `rich` mid-game positions.

    Rich positions (plenty of goods, many rooms to use) have around a million positions in one segment,
    too many for the brute-force comparison; busy play gives turns of a few to a few thousand positions.
    """
    rng = np.random.default_rng(seed)
    game = load_game("cvc")
    found = []
    while len(found) < count:
        if rich:
            state = CompiledState.from_dict(game, rich_position(game, int(rng.integers(1 << 30))).to_dict(), [])
        else:
            state = game.new_initial_state(seed=int(rng.integers(1 << 30)))
            for _ in range(int(rng.integers(0, 400))):
                if state.is_terminal():
                    break
                state.apply_action(next_action(state, rng, busy=True))
        if not state.is_terminal() and state.current_player() != CHANCE:
            found.append(state)
    return found


def test_segments_are_exactly_the_distinct_reachable_ends():
    enumerator = SegmentEnumerator(20000)
    sizes = []
    for start in decision_positions(16, seed=3):
        reached = set()
        for path in enumerator.segments(start):
            state = start.clone()
            for i, action in enumerate(path):
                assert not segment_over(start, state), "a segment runs on past its end"
                state.apply_action(action)
            assert segment_over(start, state)
            reached.add(position_key(state))
        assert len(reached) == len(enumerator.segments(start)), "two segments reach the same position"
        assert reached == brute_force_segment_ends(start)
        sizes.append(enumerator.positions)
    assert max(sizes) > 200      # some of the turns compared are rich in choices




def test_a_tiny_state_budget_still_gives_complete_segments():
    enumerator = SegmentEnumerator(50)
    for start in decision_positions(3, seed=8, rich=True):
        paths = enumerator.segments(start)
        assert paths
        for path in paths:
            state = start.clone()
            for action in path:
                state.apply_action(action)
            assert segment_over(start, state)


def test_finds_the_winning_last_turn():
    reference = last_turn_of_the_game()
    state = CompiledState.from_dict(load_game("cvc"), reference.to_dict(), [])
    played = play_turn(state, make_agent("cvc_turn_mcts:iterations=200", state._game, seed=1))
    assert played[0] == "take Housework"
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


@pytest.mark.parametrize("position", [treasury_by_renovation, treasury_after_conversions])
def test_finds_the_winning_furnishing(position):
    state = compiled(position())
    play_turn(state, make_agent("cvc_turn_mcts:iterations=200", state._game, seed=2))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_sees_the_opponent_reply_and_blocks_it():
    """Greedy loses this position; searching the opponent's last turn shows that only Housework wins."""
    state = compiled(block_the_housework())
    assert play_turn(state, make_agent("cvc_turn_mcts:iterations=300", state._game, seed=3))[0] == "take Housework"
    play_turn(state, make_agent("greedy", state._game, seed=4))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_full_games_are_legal_and_reproducible():
    for players in (2, 1):
        game = load_game("cvc", players=players)
        specs = ["cvc_turn_mcts:iterations=30"] + ["random"] * (players - 1)
        first, second = play_with_agents(game, specs, 3), play_with_agents(game, specs, 3)
        assert first.history() == second.history()
    assert play_with_agents(game, specs, 4).history() != first.history()


def test_beats_random_with_a_small_budget():
    from cavekit.analysis.batch import run_match
    results = run_match("cvc", ["cvc_turn_mcts:iterations=50", "random"], 6, seed=5, progress=False)
    own = np.where(results["agent_0"] == "random", results["return_1"], results["return_0"])
    assert (own > 0).all()


def test_root_statistics_add_up_and_analyse_names_whole_segments():
    game = load_game("cvc")
    state = game.new_initial_state(seed=11)
    tree = TurnTree(iterations=400, seed=1)
    children = tree.search(state)
    assert sum(child["visits"] for child in children) == 400
    firsts = [child["actions"][0] for child in children]
    tiles = len(set(firsts))
    assert len(set(firsts[:tiles])) == tiles                         # the best of each first action comes first
    priors = [child["prior"] for child in children[:tiles]]
    assert priors == sorted(priors, reverse=True)
    agent = make_agent("cvc_turn_mcts:iterations=400", game, seed=1)
    entries = agent.analyse(state)
    visits = [e["visits"] for e in entries]
    assert visits == sorted(visits, reverse=True)
    assert entries[0]["text"].startswith(state.action_to_string(entries[0]["action"]))
    assert agent.step(state) == entries[0]["action"]


@pytest.mark.parametrize("spec, message", [
    ("cvc_turn_mcts:iterations=0", "iterations >= 1 or seconds > 0"),
    ("cvc_turn_mcts:widening=-1", "must be >= 0"),
    ("cvc_turn_mcts:max_children=0", "at least 1"),
    ("cvc_turn_mcts:depth=2", "depth"),
])
def test_bad_settings_are_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        make_agent(spec, load_game("cvc"))


def test_the_reference_engine_is_refused_with_the_alternative():
    with pytest.raises(ConfigError, match="use mcts for other games"):
        make_agent("cvc_turn_mcts", load_game("cvc", engine="reference"))
