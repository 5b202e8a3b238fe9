"""The PettingZoo adapter: its render test and the env's promises. PettingZoo's own API and seed tests run on
every game and player count in test_conformance.py, driven by the game specs."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import render_test

from cavekit.core import ConfigError, IllegalActionError, load_game
from cavekit.core.deal import DEAL_SEED_LIMIT, new_deal, resolve_chance
from cavekit.core.pettingzoo import env as make_env
from cavekit.core.pettingzoo import raw_env


def _play_out(env, seed: int) -> None:
    """Random legal moves (from a seeded generator) until every agent is done."""
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_pettingzoo_render_test_and_ansi_is_the_engine_rendering(capsys):
    render_test(lambda render_mode=None: make_env("cvc", render_mode=render_mode))
    env = make_env("cvc", render_mode="ansi")
    env.reset(seed=3)
    assert env.render() == str(env.unwrapped.game_state)
    assert "Cave vs Cave" in env.render()


def test_unknown_render_mode_is_refused():
    with pytest.raises(ConfigError, match="unknown render_mode 'rgb_array'; allowed: None, ansi, human"):
        make_env("cvc", render_mode="rgb_array")


@pytest.mark.parametrize("name,params", [("cvc", {"players": 2}), ("cvc", {"players": 1}), ("pairs", {"players": 4})])
def test_rewards_come_at_the_end_and_equal_the_game_returns(name, params):
    env = raw_env(name, **params)
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not any(env.terminations.values()):
        observation, reward, *_ = env.last()
        assert reward == 0.0
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        for a, r in env.rewards.items():
            totals[a] += r
    returns = env.game_state.returns()
    scores = env.game_state.scores()
    assert totals == {f"player_{p}": returns[p] for p in range(len(returns))}
    assert all(env.infos[f"player_{p}"] == {"score": scores[p]} for p in range(len(scores)))
    if len(returns) == 1:
        assert returns == [float(scores[0])]


def test_action_mask_is_the_legal_actions_of_the_agent_to_move_only():
    env = raw_env("cvc")
    env.reset(seed=2)
    for _ in range(40):
        mover = env.agent_selection
        player = int(mover.split("_")[1])
        assert env.game_state.current_player() == player
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            legal = env.game_state.legal_actions() if agent == mover else []
            assert np.flatnonzero(mask).tolist() == legal
        env.step(env.game_state.legal_actions()[-1])


def _setup_from(game, rng) -> list[int]:
    """The setup of the deal whose seed is the generator's next draw (as the env draws it)."""
    deal = new_deal(game, int(rng.integers(DEAL_SEED_LIMIT)))
    return resolve_chance(game.new_initial_state(), deal).history()


def test_each_game_is_played_on_a_deal_drawn_from_the_envs_seed():
    game = load_game("cvc")
    env = raw_env("cvc")
    env.reset(seed=5)
    assert env.game_state.current_player() >= 0          # never left at a chance node
    rng = np.random.default_rng(5)
    assert env.game_state.history() == _setup_from(game, rng)
    env.reset()                                          # no seed: the same generator continues
    assert env.game_state.history() == _setup_from(game, rng)
    fresh = raw_env("cvc")                               # a new env starts from seed 0
    fresh.reset()
    assert fresh.game_state.history() == _setup_from(game, np.random.default_rng(0))
    assert len({tuple(_setup_from(game, np.random.default_rng(seed))) for seed in range(8)}) > 1


def test_the_same_seed_deals_the_same_tiles_whatever_the_agents_play():
    tiles = []
    for pick in (0, -1):                                 # two different lines of play
        env = raw_env("cvc")
        env.reset(seed=9)
        while not env.game_state.is_terminal():
            env.step(env.game_state.legal_actions()[pick])
        tiles.append(env.game_state.to_dict()["revealed_tiles"])
    assert tiles[0] == tiles[1]


def test_illegal_and_missing_actions_are_refused_and_leave_the_game_unchanged():
    env = raw_env("cvc")
    env.reset(seed=1)
    legal = env.game_state.legal_actions()
    illegal = next(a for a in range(env.game.num_distinct_actions) if a not in legal)
    before = env.game_state.serialize()
    with pytest.raises(IllegalActionError, match=r"illegal action \d+ \(take Furnishing\) for player 1: "
                                                 "Furnishing is not face up on the action board"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="must act"):
        env.step(None)
    assert env.game_state.serialize() == before


def test_finished_game_removes_every_agent():
    env = make_env("pairs", players=3)
    env.reset(seed=4)
    _play_out(env, seed=4)
    assert env.agents == []


def test_observation_space_matches_the_game():
    env = raw_env("cvc", players=1)
    game = load_game("cvc", players=1)
    space = env.observation_space("player_0")
    assert env.possible_agents == ["player_0"]
    assert env.action_space("player_0").n == game.num_distinct_actions
    assert space["action_mask"].shape == (game.num_distinct_actions,)
    env.reset(seed=0)
    assert space.contains(env.observe("player_0"))
