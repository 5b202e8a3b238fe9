"""PettingZoo adapter: every cavekit game as an AEC environment, `env(game="cvc", **params)` (default: the
registry's default game).

Agents are `player_0`, `player_1`, ...; each observation is a dict with `observation` (the float32 vector of
`cavekit.core.tensors` from that agent's point of view) and `action_mask` (int8, 1 for each legal action of
the agent to move, all 0 for the others). Each game is played on a deal (`cavekit.core.deal`: who starts, the
tiles, the rooms under the spaces, the cards), whose seed the environment draws from its own generator:
`reset(seed=k)` reseeds it, `reset()` continues it, and a new environment starts from seed 0, so every game
is reproducible and the same seed deals the same game whatever the agents do. Rewards come at the end: each agent
gets the game's `returns()` (two-player Cave vs Cave: +1 win, -1 loss, 0 draw; solo: the final score).
Render modes: "ansi" returns the position as text (`str(state)`), "human" prints it.
"""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .api import CHANCE, ConfigError, IllegalActionError
from .deal import DEAL_SEED_LIMIT, deal_for_play
from .registry import default_game_name, load_game
from .tensors import observation_encoder

DEFAULT_SEED = 0
RENDER_MODES = ("ansi", "human")


class CavekitEnv(AECEnv):
    """A cavekit game as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "cavekit_v0", "is_parallelizable": False}

    def __init__(self, game: str | None = None, render_mode: str | None = None, **params: Any):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(f"unknown render_mode {render_mode!r}; allowed: None, {', '.join(RENDER_MODES)}")
        self.game = load_game(game if game is not None else default_game_name(), **params)
        self.render_mode = render_mode
        self.metadata = {**CavekitEnv.metadata, "name": f"cavekit_{self.game.name}_v0"}
        self._encoder = observation_encoder(self.game)
        self.possible_agents = [f"player_{p}" for p in range(self.game.num_players)]
        self._index = {agent: p for p, agent in enumerate(self.possible_agents)}
        observation = spaces.Box(low=self._encoder.low, high=self._encoder.high, dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(self.game.num_distinct_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": observation, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.game.num_distinct_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng(DEFAULT_SEED)
        self.game_state: Any = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The Dict space of `observation` and `action_mask` (one shared object per agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """Discrete(num_distinct_actions): action ids of the cavekit game."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game on a fresh deal; `seed` reseeds the generator of deal seeds (otherwise it continues)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._deal = deal_for_play(self.game, int(self._rng.integers(DEAL_SEED_LIMIT)))
        self.game_state = self.game.new_initial_state()
        self._resolve_chance()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game_state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """`agent`'s observation vector and its action mask (all 0 unless it is the agent to move)."""
        player = self._index[agent]
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        if not self.game_state.is_terminal() and self.game_state.current_player() == player:
            mask[self.game_state.legal_actions()] = 1
        return {"observation": self._encoder.encode(self.game_state, player), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Play `action` for the selected agent (None once it is terminated); chance is resolved after it."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        player = self._index[agent]
        if action is None:
            raise IllegalActionError(action, player, "the game is not over, so the agent to move must act "
                                     "(None is only for agents that are done)")
        self.game_state.apply_action(action)
        self._resolve_chance()
        self._cumulative_rewards[agent] = 0.0
        if self.game_state.is_terminal():
            returns = self.game_state.returns()
            scores = self.game_state.scores()
            for a, p in self._index.items():
                self.rewards[a] = float(returns[p])
                self.terminations[a] = True
                self.infos[a] = {"score": scores[p]}
            self.agent_selection = agent
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[self.game_state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _resolve_chance(self) -> None:
        while self.game_state.current_player() == CHANCE:
            self.game_state.apply_action(self._deal.outcome(self.game_state))

    def render(self) -> str | None:
        """The position as text ("ansi": returned; "human": printed); nothing without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = str(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def raw_env(game: str | None = None, render_mode: str | None = None, **params: Any) -> CavekitEnv:
    """The environment without PettingZoo's wrappers."""
    return CavekitEnv(game, render_mode=render_mode, **params)


def env(game: str | None = None, render_mode: str | None = None, **params: Any) -> AECEnv:
    """The AEC environment of `game` with its parameters, wrapped so misuse (step before reset) is caught."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, render_mode=render_mode, **params))
