"""The greedy agent: plays towards the best evaluation it can reach by the end of its own turn.

Spec: `greedy` or `greedy:max_nodes=20000,chance_samples=6`.
- `max_nodes` (default 20000; 0 = unlimited): states searched per decision; past it, the remaining states
  end the turn at once and are evaluated (see `TurnSearch`).
- `chance_samples` (default 6; 0 = all): outcomes searched at a chance node inside the turn (rooms turned
  up by an excavation); more outcomes than this are sampled with the agent's generator.

The turn search keeps its table for the rest of the turn, so only the first decision of a turn (and one
right after an unsampled chance outcome) searches; the other atomic steps are look-ups.
"""
from __future__ import annotations

import numpy as np

from ..core.api import CHANCE, ConfigError, Game, State
from .agent import register_agent
from .turn_search import TurnSearch

TIE = 1e-12   # values this close to the best count as ties (broken with the agent's generator)


class GreedyAgent:
    """Maximises its own end-of-turn heuristic evaluation, averaging over chance inside the turn."""

    name = "greedy"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None,
                 max_nodes: int = 20000, chance_samples: int = 6):
        if max_nodes < 0:
            raise ConfigError(f"greedy: max_nodes must be >= 0 (0 = unlimited), not {max_nodes}")
        if chance_samples < 0:
            raise ConfigError(f"greedy: chance_samples must be >= 0 (0 = all), not {chance_samples}")
        self.game = game
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self.search = TurnSearch(game, max_nodes=max_nodes, chance_samples=chance_samples, rng=self.rng)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self.search.reset(self.rng)

    def action_values(self, state: State) -> dict[int, float]:
        """Each legal action's best reachable end-of-turn evaluation for the player to move."""
        return self.search.action_values(state)

    def step(self, state: State) -> int:
        if state.current_player() == CHANCE:
            raise ValueError("agents choose player actions; sample chance outcomes from chance_outcomes()")
        if state.is_terminal():
            raise ValueError("no legal action: the game is over")
        values = self.search.action_values(state)
        best = max(values.values())
        ties = [a for a in sorted(values) if values[a] >= best - TIE]
        return int(ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))])


register_agent("greedy", GreedyAgent, {"max_nodes": int, "chance_samples": int})
