"""The Caverna (The Cave Farmers) game object (see `state.py` for what every state shares, and the returns).

`Caverna` holds the player count and the parameters (`rules.make_config`: every open question of the rules
file's section 14) and makes states of the engine asked for: `compiled` (`compiled.pyx`, the C core) or
`reference` (`reference.py`, the readable specification it is checked against step by step).
"""
from __future__ import annotations

from typing import Any

from ..api import ConfigError
from ..compiled_modules import compiled_engine
from ..deal import setup_from_seed
from ..records import read_record
from .actions import action_table
from .rules import BANNED_FURNISHINGS_OPTIONS, Config, make_config, rounds_played, rules
from .spec import SPEC
from .state import (MAX_ACTIONS_PER_HARVEST, MAX_ACTIONS_PER_TURN, RECORD_FORMAT, RECORD_VERSION,
                    observation_layout)

ENGINES = SPEC.engines
PLAYER_COUNTS = SPEC.player_counts


class Caverna:
    """Caverna: The Cave Farmers with fixed parameters: `players` (1-7), engine, and rule options."""

    spec = SPEC
    name = SPEC.name
    max_chance_outcomes = max(len(rules().round_cards), max(PLAYER_COUNTS))

    def __init__(self, players: int = 2, engine: str = SPEC.default_engine, **params: Any):
        if players not in PLAYER_COUNTS:
            raise ConfigError(f"Caverna is for 1 to 7 players, not {players!r}")
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r} for caverna; available engines: {', '.join(ENGINES)}")
        self.num_players = players
        self.engine = engine
        self._state_class()      # a compiled engine that is not built fails here, when the game is loaded
        self.config: Config = make_config(**params)
        extra = [seat for seat in range(players, len(BANNED_FURNISHINGS_OPTIONS))
                 if self.config.banned_furnishings(seat)]
        if extra:
            raise ConfigError(f"banned_furnishings_p{extra[0]} names furnishings for seat {extra[0]}, but a "
                              f"{players}-player game has seats 0 to {players - 1}")
        self.num_distinct_actions = len(action_table())
        self.num_rounds = len(rounds_played(players))
        dwarfs = rules().family_limit + 1
        self.max_game_length = (self.num_rounds * players * (dwarfs * MAX_ACTIONS_PER_TURN + MAX_ACTIONS_PER_HARVEST)
                                + 3 * self.num_rounds + 1)

    def parameters(self) -> dict[str, Any]:
        """Everything that defines the game (not the engine): players and every rule option."""
        return {"players": self.num_players, **self.config.as_dict()}

    def observation_tensor_layout(self) -> list[tuple[str, tuple[int, ...]]]:
        """The named pieces of `observation_tensor(player)`, in order, with their shapes."""
        return [(name, (size,)) for name, size in observation_layout(self.num_players)]

    def observation_tensor_size(self) -> int:
        """Length of `observation_tensor(player)`."""
        return sum(size for _, size in observation_layout(self.num_players))

    def information_state_tensor_layout(self) -> list[tuple[str, tuple[int, ...]]]:
        """The pieces of `information_state_tensor(player)` (the observation: perfect information)."""
        return self.observation_tensor_layout()

    def information_state_tensor_size(self) -> int:
        """Length of `information_state_tensor(player)`."""
        return self.observation_tensor_size()

    def min_utility(self) -> float:
        return -1.0 if self.num_players > 1 else -200.0

    def max_utility(self) -> float:
        return 1.0 if self.num_players > 1 else 400.0

    def new_initial_state(self, seed: int | None = None) -> Any:
        """The position before setup; with a seed, the setup up to the first decision is dealt from deal `seed`."""
        state = self._state_class()(self)
        if self.engine == "reference":
            state._advance()
        return setup_from_seed(self, state, seed)

    def _state_class(self) -> type:
        if self.engine == "compiled":
            return compiled_engine(__package__, self.name)
        from .reference import ReferenceState
        return ReferenceState

    def deserialize_state(self, text: str) -> Any:
        """Rebuild a state from `serialize()` output, replaying and checking it; refuses corrupt records."""
        return read_record(text, RECORD_FORMAT, RECORD_VERSION, "Caverna", self.parameters(), self.new_initial_state)

    def __repr__(self) -> str:
        return f"Caverna(players={self.num_players}, engine={self.engine!r})"
