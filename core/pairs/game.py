"""The Cave (Pairs deck) game object: `ThePairsCave` holds the parameters and makes states (see `state.py` for
what every state shares, and for the returns)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..api import ConfigError
from ..compiled_modules import compiled_engine
from ..deal import setup_from_seed
from ..records import read_record
from .rules import NUM_RANKS, Config, make_config, rules
from .spec import SPEC
from .state import EVENT_KINDS, RECORD_FORMAT, RECORD_VERSION

ENGINES = SPEC.engines


class ThePairsCave:
    """The Cave (Pairs deck) with fixed parameters: `players` (2-6), engine, and the rule options of `rules.py`."""

    spec = SPEC
    name = SPEC.name
    num_distinct_actions = NUM_RANKS
    max_chance_outcomes = NUM_RANKS      # ranks; the first-dealer choice has at most 6 seats

    def __init__(self, players: int = 2, engine: str = "compiled", **params: Any):
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r} for pairs; available engines: {', '.join(ENGINES)}")
        self.config: Config = make_config(players, **params)
        self.num_players = players
        self.engine = engine
        self._state_class()      # a compiled engine that is not built fails here, when the game is loaded
        c = self.config
        # Every card leaves the deck at most once per round (one chance node each), plus one play per hand card.
        self.max_game_length = 1 + c.num_rounds * (rules().total + players * c.hand_size)
        self.hidden_information = c.hand_visibility == "hidden" or c.burn_cards > 0

    def parameters(self) -> dict[str, Any]:
        """Everything that defines the game (not the engine): players and every rule option."""
        return self.config.as_dict()

    def min_utility(self) -> float:
        return -1.0

    def max_utility(self) -> float:
        return 1.0

    def observation_tensor_size(self) -> int:
        """Length of `observation_tensor(player)`."""
        n = self.num_players
        return 3 * NUM_RANKS + n * NUM_RANKS + 3 * n + 2 + n

    def information_state_tensor_layout(self) -> list[tuple[str, tuple[int, ...]]]:
        """The named pieces of `information_state_tensor(player)`, in order, with their shapes."""
        n = self.num_players
        return [("observer", (n,)), ("observation", (self.observation_tensor_size(),)),
                ("events", (self.max_game_length, EVENT_KINDS + n + NUM_RANKS + 1))]

    def information_state_tensor_size(self) -> int:
        """Length of `information_state_tensor(player)`: n + observation + max_game_length x (17 + n)."""
        return sum(int(np.prod(shape)) for _, shape in self.information_state_tensor_layout())

    def information_state_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of each number of `information_state_tensor`: 0 and 1 for the one-hot pieces; the
        observation piece takes `observation_tensor_bounds()` if the game declares them, else -inf/+inf."""
        size = self.information_state_tensor_size()
        low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
        n, width = self.num_players, self.observation_tensor_size()
        bounds = getattr(self, "observation_tensor_bounds", None)
        low[n:n + width], high[n:n + width] = bounds() if bounds is not None else (-np.inf, np.inf)
        return low, high

    def new_initial_state(self, seed: int | None = None) -> Any:
        """The position before the deal; with a seed, the first dealer and the first round's deal come from the
        deal of that seed (`cavekit.core.deal`), as the first cards of its deck for round 1."""
        return setup_from_seed(self, self._state_class()(self), seed)

    def _state_class(self) -> type:
        if self.engine == "compiled":
            return compiled_engine(__package__, self.name)
        from .reference import ReferenceState
        return ReferenceState

    def replay(self, history: list[int]) -> Any:
        """The state reached by applying `history` from the start (IllegalActionError if it is not legal)."""
        state = self._state_class()(self)
        fast = getattr(state, "apply_all", None)
        if fast is not None:
            fast(history)
        else:
            for action in history:
                state.apply_action(action)
        return state

    def deserialize_state(self, text: str) -> Any:
        """Rebuild a state from `serialize()` output, replaying and checking it; refuses corrupt records."""
        return read_record(text, RECORD_FORMAT, RECORD_VERSION, "The Cave (pairs)", self.parameters(),
                           lambda: self._state_class()(self))

    def __repr__(self) -> str:
        return f"ThePairsCave(players={self.num_players}, engine={self.engine!r})"
