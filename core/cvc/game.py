"""The Cave vs Cave game object: `CaveVsCave` holds the parameters and makes states (see `state.py` for what
every state shares)."""
from __future__ import annotations

from typing import Any

from ..api import CHANCE, ConfigError
from ..compiled_modules import compiled_engine
from ..deal import setup_from_seed
from ..records import read_record
from .actions import action_table
from .rules import NUM_ROOMS, Config, make_config, rules
from .spec import SPEC
from .state import MAX_ACTIONS_PER_TURN, RECORD_FORMAT, RECORD_VERSION

ENGINES = SPEC.engines


class CaveVsCave:
    """Caverna: Cave vs Cave with fixed parameters: `players` (1 = solo, 2), engine, and rule options."""

    spec = SPEC
    name = SPEC.name
    max_chance_outcomes = NUM_ROOMS

    def __init__(self, players: int = 2, engine: str = "compiled", **params: Any):
        if players not in (1, 2):
            raise ConfigError(f"Cave vs Cave is for 1 (solo) or 2 players, not {players!r}")
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r} for cvc; available engines: {', '.join(ENGINES)}")
        self.num_players = players
        self.engine = engine
        self._state_class()      # a compiled engine that is not built fails here, when the game is loaded
        self.config: Config = make_config(**params)
        if players == 1 and self.config.banned_rooms_p1:
            raise ConfigError("banned_rooms_p1 names rooms for seat 1, but a solo game has only seat 0")
        table = action_table()
        self.num_distinct_actions = len(table)
        self._end_turn, self._cavern_sides = table.end_turn, frozenset(table.cavern_side.values())
        r = rules()
        turns = sum(r.turns[players]) * players
        setup_chance = (1 if players == 2 else 3) + len(r.turns[players])
        self.max_game_length = turns * MAX_ACTIONS_PER_TURN + setup_chance
        self.num_rounds = len(r.turns[players])

    def parameters(self) -> dict[str, Any]:
        """Everything that defines the game (not the engine): players and every rule option."""
        return {"players": self.num_players, **self.config.as_dict()}

    def min_utility(self) -> float:
        return -1.0 if self.num_players == 2 else 0.0

    def max_utility(self) -> float:
        if self.num_players == 2:
            return 1.0
        r = rules()
        return float(sum(room.vp for room in r.rooms) + r.caps[5])

    def new_initial_state(self, seed: int | None = None) -> Any:
        """The position before setup; with a seed, setup (who starts, solo removals, round 1's tile) from deal `seed`."""
        state = self._state_class()(self)
        return setup_from_seed(self, state, seed)

    def _state_class(self) -> type:
        if self.engine == "compiled":
            return compiled_engine(__package__, self.name)
        from .reference import ReferenceState
        return ReferenceState

    def deserialize_state(self, text: str) -> Any:
        """Rebuild a state from `serialize()` output, replaying and checking it; refuses corrupt records."""
        return read_record(text, RECORD_FORMAT, RECORD_VERSION, "Cave vs Cave", self.parameters(),
                           self.new_initial_state)

    # Hooks of the generic turn searchers (cavekit.search.turn_search): where a turn ends, how to end one
    # at once, and a cheap key of a position for transposition tables.

    def turn_is_over(self, before: Any, action: int, after: Any) -> bool:
        """True when applying `action` to `before` (giving `after`) ended the player's turn."""
        # Chance outcomes share ids with player actions, so rule them out first: chance inside a turn
        # (rooms turned up) never ends it.
        if before.current_player() == CHANCE:
            return False
        if action == self._end_turn:
            # `end turn` with a full cave may first ask for the Additional Cavern's side.
            return not (after.current_player() == before.current_player()
                        and after.legal_actions()[0] in self._cavern_sides)
        if action in self._cavern_sides:
            # The side chosen after `end turn` finishes the turn (the turn's tile is reset); the side
            # chosen right after a furnish (award timing "immediately") does not. Rare, so to_dict is fine.
            return after.to_dict()["tile"] < 0
        return False

    def finish_turn_action(self, state: Any) -> int | None:
        """`end turn` when it is legal (a search out of budget ends the turn with it), else None."""
        end_turn = self._end_turn
        return end_turn if state.current_player() >= 0 and end_turn in state.legal_actions() else None

    def state_key(self, state: Any) -> tuple[Any, ...]:
        """A hashable key of the position (history left out), for transposition tables.

        A tuple of `to_dict()` values: about 4 us, against 14 us for `json.dumps(to_dict(), sort_keys=True)`
        and 26 us for `serialize()`.
        """
        d = state.to_dict()
        players = d.pop("players")
        d["revealed_tiles"] = tuple(d["revealed_tiles"])
        return (*d.values(), *(tuple(p["spaces"]) + tuple(p["goods"]) + tuple(p["placed_round"])
                               + (p["walls"], p["cavern_sides"]) for p in players))

    def __repr__(self) -> str:
        return f"CaveVsCave(players={self.num_players}, engine={self.engine!r})"

