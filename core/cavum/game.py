"""The Cavum game object: `Cavum` holds the parameters and makes states (see `state.py` for what every state
shares: returns and hidden information)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..api import CHANCE, ConfigError
from ..compiled_modules import compiled_engine
from ..deal import setup_from_seed
from ..records import read_record
from .actions import action_table
from .rules import MAX_BID, Config, make_config, rules
from .spec import SPEC
from .state import RECORD_FORMAT, RECORD_VERSION, StateMixin

ENGINES = SPEC.engines


class Cavum:
    """Cavum with fixed parameters: `players` (2-4), engine, and the rule options of `rules.py`."""

    spec = SPEC
    name = SPEC.name

    def __init__(self, players: int = 2, engine: str = "compiled", **params: Any):
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r} for cavum; available engines: {', '.join(ENGINES)}")
        self.config: Config = make_config(players, **params)
        self.num_players = players
        self.engine = engine
        self._state_class()      # a compiled engine that is not built fails here, when the game is loaded
        r = rules()
        self.num_distinct_actions = len(action_table())
        self.max_chance_outcomes = len(r.order_cards)
        self.hidden_information = self.config.hidden_stones
        nodes = r.num_cells + r.num_spaces
        # Per phase: draws; auctions (each bid raises, so at most MAX_BID + 1 bids, plus passes and the card);
        # picks; building (12 actions, option takes, turn ends, a route through every node, stone choices);
        # the colour sale (bids fall from at most 9) and the order sale; then the final sale of all stones.
        auction = 4 * (MAX_BID + 2 + players)
        picks = len(r.order_cards) + players
        building = players * (3 * r.actions_per_phase + nodes + r.num_cells)
        sales = len(r.colours) * (9 * players + players + 1) + len(r.order_cards) + players
        per_phase = 5 + auction + picks + building + sales
        self.max_game_length = r.phases * per_phase + len(r.colours) * r.stones_per_colour

    def parameters(self) -> dict[str, Any]:
        """Everything that defines the game (not the engine): players and every rule option."""
        return self.config.as_dict()

    def turn_is_over(self, before: Any, action: int, after: Any) -> bool:
        """For turn-based search: a player's turn is over once someone else (or chance) is to move."""
        return before.current_player() != CHANCE and after.current_player() != before.current_player()

    def finish_turn_action(self, state: Any) -> int | None:
        """`end turn` when it is legal (a search out of budget ends the turn with it), else None."""
        from .actions import END_TURN
        end = action_table().id(END_TURN)
        return end if state.current_player() >= 0 and end in state.legal_actions() else None

    def observation_tensor_size(self) -> int:
        """Length of `observation_tensor(player)`."""
        r = rules()
        n = self.num_players
        return (7 * r.num_cells + r.num_spaces + 9 * len(r.colours) + n * (16 + len(r.colours))
                + 3 * len(r.order_cards) + 10 + n + 2 + n)

    def information_state_tensor_layout(self) -> list[tuple[str, tuple[int, ...]]]:
        """The named pieces of `information_state_tensor(player)`, in order, with their shapes."""
        from .actions import NUM_PIECES
        from .rules import MAX_STACK
        r = rules()
        n = self.num_players
        return [("observer", (n,)), ("observation", (self.observation_tensor_size(),)),
                ("scalars", (len(StateMixin._TENSOR_SCALARS),)), ("seats", (len(StateMixin._TENSOR_SEAT_LISTS), n)),
                ("stack", (r.num_cells, MAX_STACK)), ("supply", (NUM_PIECES,)), ("deck", (len(r.order_cards),)),
                ("route", (r.num_cells + r.num_spaces,)), ("to_take", (r.num_cells,))]

    def information_state_tensor_size(self) -> int:
        """Length of `information_state_tensor(player)`."""
        return sum(int(np.prod(shape)) for _, shape in self.information_state_tensor_layout())

    def min_utility(self) -> float:
        return -1.0

    def max_utility(self) -> float:
        return 1.0

    def new_initial_state(self, seed: int | None = None) -> Any:
        """The position before the first order cards are turned up; with a seed they are the first cards of the
        order deck of that seed's deal (`cavekit.core.deal`)."""
        return setup_from_seed(self, self._state_class()(self), seed)

    def _state_class(self) -> type:
        if self.engine == "compiled":
            return compiled_engine(__package__, self.name)
        from .reference import ReferenceState
        return ReferenceState

    def replay(self, history: list[int]) -> Any:
        """The state reached by applying `history` from the start (IllegalActionError if it is not legal)."""
        state = self._state_class()(self)
        for action in history:
            state.apply_action(action)
        return state

    def deserialize_state(self, text: str) -> Any:
        """Rebuild a state from `serialize()` output, replaying and checking it; refuses corrupt records."""
        return read_record(text, RECORD_FORMAT, RECORD_VERSION, "Cavum", self.parameters(),
                           lambda: self._state_class()(self))

    def __repr__(self) -> str:
        return f"Cavum(players={self.num_players}, engine={self.engine!r})"
