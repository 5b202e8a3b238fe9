"""The greedy agent: plays towards the best evaluation it can reach by the end of its own turn.

Spec: `greedy` or `greedy:max_nodes=20000,chance_samples=6,compiled=1`.
- `max_nodes` (default 20000; 0 = unlimited): states searched per decision; past it, the remaining states
  end the turn at once and are evaluated (see `TurnSearch`).
- `chance_samples` (default 6; 0 = all): outcomes searched at a chance node inside the turn (rooms turned
  up by an excavation); more outcomes than this are sampled with the agent's generator.
- `compiled` (default 1): on a compiled engine whose game registered a compiled turn search
  (`register_compiled_turn_search`; Cave vs Cave's `cvc_segments.TurnSearcher` is 50-100 times faster, its
  `max_nodes` counting the positions of one segment enumeration), run the same search in C; 0 keeps the
  Python `TurnSearch`. With every chance outcome searched and no budget cut the
  two give the same values (tested).

The Python turn search keeps its table for the rest of the turn, so only the first decision of a turn (and
one right after an unsampled chance outcome) searches; the other atomic steps are look-ups. The compiled
one searches again at each step, which costs little since the rest of a turn is small.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.api import CHANCE, ConfigError, Game, State
from .agent import register_agent
from .turn_search import TurnSearch

TIE = 1e-12   # values this close to the best count as ties (broken with the agent's generator)

# Compiled whole-turn searches by game name: factory(seed, max_states, chance_samples) -> an object with
# `action_values(state)`, for states of that game's compiled engine.
CompiledTurnSearch = Callable[[int, int, int], Any]
_COMPILED_TURN_SEARCHES: dict[str, CompiledTurnSearch] = {}


def register_compiled_turn_search(game_name: str, factory: CompiledTurnSearch) -> None:
    """Let greedy play on `game_name`'s compiled engine search turns with `factory(seed, max_states, samples)`."""
    _COMPILED_TURN_SEARCHES[game_name] = factory


class GreedyAgent:
    """Maximises its own end-of-turn heuristic evaluation, averaging over chance inside the turn."""

    name = "greedy"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None,
                 max_nodes: int = 20000, chance_samples: int = 6, compiled: int = 1):
        if max_nodes < 0:
            raise ConfigError(f"greedy: max_nodes must be >= 0 (0 = unlimited), not {max_nodes}")
        if chance_samples < 0:
            raise ConfigError(f"greedy: chance_samples must be >= 0 (0 = all), not {chance_samples}")
        self.game = game
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self.search = TurnSearch(game, max_nodes=max_nodes, chance_samples=chance_samples, rng=self.rng)
        self._compiled_factory = _COMPILED_TURN_SEARCHES.get(game.name) if compiled and game.engine == "compiled" \
            else None
        self._compiled_settings = (max_nodes or 1 << 24, chance_samples)
        self.compiled_search = self._new_compiled_search()
        # The values of the last decision searched (its history, values, states visited), for `analyse`.
        self._analysed: tuple[list[int], dict[int, float], int] | None = None
        self.analysis_budget = "greedy, no search yet"

    def _new_compiled_search(self) -> Any:
        if self._compiled_factory is None:
            return None
        return self._compiled_factory(int(self.rng.integers(2**63)), *self._compiled_settings)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self.search.reset(self.rng)
        self.compiled_search = self._new_compiled_search()
        self._analysed = None

    def action_values(self, state: State) -> dict[int, float]:
        """Each legal action's best reachable end-of-turn evaluation for the player to move."""
        if self.compiled_search is not None:
            return self.compiled_search.action_values(state)
        return self.search.action_values(state)

    def _states_visited(self) -> int:
        if self.compiled_search is not None:
            return self.compiled_search.positions
        return self.search.nodes + self.search.evaluations

    def analyse(self, state: State) -> list[dict[str, Any]]:
        """Each legal action with its value, best first (the values `step` just used, if the same state).

        `value` is the best end-of-turn heuristic evaluation the action leads to, for the player to move,
        expected over chance inside the turn: with two players `tanh(point lead / 10)` in [-1, 1] (the
        scale of `returns()`), solo the expected final points (see `search/evaluation.py`).
        `analysis_budget` then says how many states the turn search visited (a turn already searched is
        mostly table look-ups).
        """
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("analyse looks at a player's decision, not a chance or terminal node")
        history = state.history()
        if self._analysed is None or self._analysed[0] != history:
            values = self.action_values(state)
            self._analysed = (history, values, self._states_visited())
        _, values, visited = self._analysed
        self.analysis_budget = self._budget_text(visited)
        ranked = sorted(values, key=lambda a: (-values[a], a))
        return [{"action": int(a), "text": state.action_to_string(a), "value": float(values[a])} for a in ranked]

    def _budget_text(self, visited: int) -> str:
        """What the last search visited, beside the limit it applies and what that limit counts.

        The two searches limit different things, and neither limits the total: the compiled one caps each of
        its enumerations (one per first action, and one per continuation after a chance outcome inside the
        turn), the Python one caps the states expanded per decision and finishes the rest with `end turn`.
        """
        if self.search.max_nodes == 0:
            return f"greedy turn search, {visited:,} states, no limit"
        limit = f"{self.search.max_nodes:,}"
        if self.compiled_search is not None:
            return (f"greedy turn search, {visited:,} positions over all its enumerations (each one, per first "
                    f"action or chance outcome, stops expanding at {limit})")
        fallbacks = (f"; {self.search.fallbacks:,} finished early with end turn when their share ran out"
                     if self.search.fallbacks else "")
        return (f"greedy turn search, {visited:,} states expanded or evaluated (a budget of {limit} per decision, "
                f"shared among the moves{fallbacks})")

    def step(self, state: State) -> int:
        if state.current_player() == CHANCE:
            raise ValueError("agents choose player actions; sample chance outcomes from chance_outcomes()")
        if state.is_terminal():
            raise ValueError("no legal action: the game is over")
        values = self.action_values(state)
        self._analysed = (state.history(), values, self._states_visited())
        best = max(values.values())
        ties = [a for a in sorted(values) if values[a] >= best - TIE]
        return int(ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))])


register_agent("greedy", GreedyAgent, {"max_nodes": int, "chance_samples": int, "compiled": int})
