"""What the compiled Cave vs Cave searchers over turn segments share as agents: plans, caching, hints.

A segment searcher (`cvc_turn_mcts`, `cvc_expectimax`) chooses a whole segment of atomic actions (the rest
of the player's turn, or up to a chance event inside it). The agent plays that plan one action per `step`
and searches again only when the game leaves it (a new turn, a room turned up). A search of one position is
cached, so `analyse` (hints) followed by `step`, or the reverse, searches once.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.api import CHANCE, ConfigError, Game, State


class SegmentPlanAgent:
    """Base class: subclasses set `name`, `describe` and `best_first`, and implement `_run_search`."""

    name = "segment"
    describe = "segment search"       # how hints and reasoning lines name the search

    def __init__(self, game: Game, seed: Any, settings: dict[str, Any]):
        if game.name != "cvc" or game.engine != "compiled":
            generic = self.name.removeprefix("cvc_").removeprefix("turn_")
            raise ConfigError(f"{self.name} plays Cave vs Cave on the compiled engine; use {generic} for other games")
        self.game = game
        self.settings = settings
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self.last_result: dict[str, Any] | None = None
        self.analysis_budget = f"{self.describe}, no search yet"
        self._plan: list[int] = []
        self._plan_history: list[int] = []
        self._searched: tuple[list[int], list[dict[str, Any]]] | None = None

    def _run_search(self, state: State, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
        """Search `state`: the root's segments (dicts with `actions`), statistics, and a budget summary."""
        raise NotImplementedError

    def best_first(self, children: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The segments in the order the agent prefers them (its choice first)."""
        raise NotImplementedError

    def _search(self, state: State) -> list[dict[str, Any]]:
        history = state.history()
        if self._searched is None or self._searched[0] != history:
            children, stats, budget = self._run_search(state, int(self.rng.integers(2**63)))
            self.last_result, self.analysis_budget = stats, budget
            self._searched = (history, self.best_first(children))
        return self._searched[1]

    def analyse(self, state: State) -> list[dict[str, Any]]:
        """The root's segments, best first, each with its first `action`, `actions`, the notation of the
        whole segment as `text`, and the search's statistics (`value` for the player to move, and more)."""
        entries = []
        for child in self._search(state):
            replay, texts = state.clone(), []
            for action in child["actions"]:
                texts.append(replay.action_to_string(action))
                replay.apply_action(action)
            entries.append({"action": child["actions"][0], **child, "text": "; ".join(texts)})
        return entries

    def step(self, state: State) -> int:
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("agents choose player actions at decision nodes")
        history = state.history()
        done = len(history) - len(self._plan_history)
        if 0 < done < len(self._plan) and history[:len(self._plan_history)] == self._plan_history \
                and history[len(self._plan_history):] == self._plan[:done]:
            return self._plan[done]
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self._plan, self._plan_history = self._search(state)[0]["actions"], history
        return self._plan[0]
