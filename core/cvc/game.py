"""The Cave vs Cave game object, and what every Cave vs Cave state shares whichever engine computes it.

`CaveVsCave` holds the parameters and makes states; `StateMixin` gives both engines the same results,
notation, records and rendering on top of their `to_dict()`, `scores()` and `room_values()`.
"""
from __future__ import annotations

from typing import Any

from ..api import CHANCE, ConfigError, mask_of, resolve_chance_from_seed
from ..notation import parse_action, table_text
from ..records import RecordedState, read_record
from .actions import action_table, normalize_text
from .render import render_state
from .rules import NUM_ROOMS, Config, make_config, rules
from .spec import SPEC

RECORD_FORMAT = "cavekit-cvc"
RECORD_VERSION = 1
ENGINES = SPEC.engines

# Upper bound on the actions of one turn: take, 3 tile sub-actions, 4 room uses (Expedition with the
# Equipment Room), Prospecting Site, Additional Cavern side, end turn, 3 room reveals, a draw-pile reveal,
# and conversions (each raises food by 1 towards its cap of 9, so at most 9 plus the food paid that turn,
# which is at most 9 (Housework) + 2 (Excavation) + 4 rooms x 2 + 1 (Prospecting Site) = 20).
MAX_ACTIONS_PER_TURN = 1 + 3 + 4 + 1 + 1 + 1 + 3 + 1 + 9 + 20


class StateMixin(RecordedState):
    """Results, notation, records and rendering shared by the reference and compiled states."""

    record_format = RECORD_FORMAT
    record_version = RECORD_VERSION

    _game: "CaveVsCave"

    def returns(self) -> list[float]:
        """+1 win, -1 loss, 0 draw (two players, tie-break applied); solo: the final score. 0 until the end."""
        if not self.is_terminal():  # type: ignore[attr-defined]
            return [0.0] * self._game.num_players
        scores = self.scores()  # type: ignore[attr-defined]
        if self._game.num_players == 1:
            return [float(scores[0])]
        key = [(scores[p], self._tie_break_key(p)) for p in (0, 1)]
        if key[0] == key[1]:
            return [0.0, 0.0]
        return [1.0, -1.0] if key[0] > key[1] else [-1.0, 1.0]

    def _tie_break_key(self, player: int) -> tuple[int, ...]:
        values = self.room_values(player)  # type: ignore[attr-defined]
        if self._game.config.tie_break_when_top_rooms_equal == "draw":
            return tuple(values[:1])
        return tuple(values)

    def winner(self) -> int | None:
        """The winning player of a finished two-player game, or None for a draw or a solo game."""
        r = self.returns()
        if self._game.num_players == 1 or r[0] == r[1]:
            return None
        return 0 if r[0] > r[1] else 1

    def legal_actions_mask(self) -> list[int]:
        """1 for each legal action id, 0 elsewhere (length num_distinct_actions)."""
        return mask_of(self.legal_actions(), self._game.num_distinct_actions)  # type: ignore[attr-defined]

    def action_to_string(self, action: int) -> str:
        """Readable, stable notation of an action (a chance outcome is named by what it reveals)."""
        if self.current_player() == CHANCE:  # type: ignore[attr-defined]
            return _chance_text(self, action)
        return table_text(self, action, action_table())

    def string_to_action(self, text: str) -> int:
        """The action named by `text` (case and spacing do not matter); a number is taken as the id."""
        return parse_action(self, text, action_table(), normalize_text)

    def information_state_string(self, player: int) -> str:
        """Cave vs Cave has no hidden information: every player sees the whole position and its history."""
        return self.serialize()

    def observation(self, player: int) -> dict[str, Any]:
        return self.to_dict()  # type: ignore[attr-defined]

    def resample_from_infostate(self, player: int, rng: Any) -> Any:
        """Nothing is hidden in Cave vs Cave: the only state consistent with a player's view is this one."""
        return self.clone()  # type: ignore[attr-defined]

    def __str__(self) -> str:
        return render_state(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} cvc players={self._game.num_players} history={len(self.history())} actions>"  # type: ignore[attr-defined]



def _chance_text(state: Any, outcome: int) -> str:
    from .reference import REMOVE_LIGHT_ROOM, REVEAL_ROOM, REVEAL_TILE, START_PLAYER
    kind = state._chance_kind()
    r = rules()
    if kind == START_PLAYER and outcome in (0, 1):
        return f"player {outcome} starts"
    if kind == REMOVE_LIGHT_ROOM and 0 <= outcome < NUM_ROOMS:
        return f"remove {r.rooms[outcome].name}"
    if kind == REVEAL_TILE and 0 <= outcome < len(r.tiles):
        return f"reveal {r.tiles[outcome].name}"
    if kind == REVEAL_ROOM and 0 <= outcome < NUM_ROOMS:
        return f"turn up {r.rooms[outcome].name}"
    return f"chance outcome {outcome}"


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
        self.config: Config = make_config(**params)
        if players == 1 and self.config.banned_rooms_p1:
            raise ConfigError("banned_rooms_p1 names rooms for seat 1, but a solo game has only seat 0")
        self.num_distinct_actions = len(action_table())
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
        """The position before setup; with a seed, setup (who starts, solo removals, round 1's tile) is dealt."""
        state = self._state_class()(self)
        return resolve_chance_from_seed(state, seed)

    def _state_class(self) -> type:
        if self.engine == "compiled":
            from .compiled import CompiledState
            return CompiledState
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
        table = action_table()
        if action == table.end_turn:
            # `end turn` with a full cave may first ask for the Additional Cavern's side.
            return not (after.current_player() == before.current_player()
                        and after.legal_actions()[0] in table.cavern_side.values())
        if action in table.cavern_side.values():
            # The side chosen after `end turn` finishes the turn (the turn's tile is reset); the side
            # chosen right after a furnish (award timing "immediately") does not. Rare, so to_dict is fine.
            return after.to_dict()["tile"] < 0
        return False

    def finish_turn_action(self, state: Any) -> int | None:
        """`end turn` when it is legal (a search out of budget ends the turn with it), else None."""
        end_turn = action_table().end_turn
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

