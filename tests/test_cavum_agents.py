"""Agents play full Cavum games through the common API: random, IS-MCTS, expectimax and the heuristic."""
from __future__ import annotations

import time

import pytest

from cavekit.core import load_game
from cavekit.core.cavum.reference import AUCTION
from cavekit.search import make_agent
from cavekit.search.evaluation import evaluator_for

from agent_play import play_with_agents as play_match


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


def auction_start(players: int, engine: str = "compiled"):
    state = load_game("cavum", players=players, engine=engine).new_initial_state(seed=4)
    assert state.current_player() >= 0 and state.view().stage == AUCTION and state.view().bid < 0
    return state


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_heuristic_bids_by_the_value_of_turn_order(engine):
    # 4 players without a card: winning is worth 1.5 * (4 - 1) / 2 = 2.25 points, so bids stop at 2.
    state = auction_start(4, engine)
    texts = []
    while state.view().stage == AUCTION:
        agent = make_agent("cavum_heuristic", state._game, seed=0)
        action = agent.step(state)
        texts.append(state.action_to_string(action))
        state.apply_action(action)
    assert texts[:4] == ["bid 0", "bid 1", "bid 2", "pass"]     # the opener bids as little as allowed
    assert set(texts[4:]) == {"pass"}
    # The winner takes the earliest free sequence card.
    chooser = make_agent("cavum_heuristic", state._game, seed=0)
    assert state.action_to_string(chooser.step(state)) == "take sequence card 1"


def test_a_higher_order_value_bids_higher_and_zero_never_raises():
    for value, last_bid in ((4.0, "bid 6"), (0.0, "bid 0")):
        state = auction_start(4)
        bids = []
        while state.view().stage == AUCTION:
            action = make_agent(f"cavum_heuristic:order_value={value}", state._game, seed=0).step(state)
            bids += [state.action_to_string(action)] if state.action_to_string(action).startswith("bid") else []
            state.apply_action(action)
        assert bids[-1] == last_bid, (value, bids)


def test_the_evaluator_bidding_variant_is_the_old_tie_break_and_bad_rules_are_refused():
    from cavekit.core.api import ConfigError
    state = auction_start(4)
    texts = set()
    for seed in range(12):
        agent = make_agent("cavum_heuristic:bidding=evaluator", state._game, seed=seed)
        texts.add(state.action_to_string(agent.step(state)))
    assert len(texts) > 3 and all(t.startswith("bid ") for t in texts)   # the opener's bid is a seeded draw
    with pytest.raises(ConfigError, match="bidding='smart' is not allowed; allowed: value, evaluator"):
        make_agent("cavum_heuristic:bidding=smart", state._game, seed=0)
