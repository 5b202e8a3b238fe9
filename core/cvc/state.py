"""What every Cave vs Cave state shares whichever engine computes it: results, notation, records, rendering.

`StateMixin` gives the reference and compiled states the same results, notation, records, rendering and deal
components of chance nodes on top of their `to_dict()`, `scores()` and `room_values()`. The engines import it
from here, and `game.py` imports the engines, so nothing imports back.
"""
from __future__ import annotations

from typing import Any

from ..api import CHANCE, mask_of
from ..deal import DealError
from ..notation import parse_action, table_text
from ..records import RecordedState
from .actions import action_table, normalize_text
from .deal import DRAW_PILE, REMOVED_LIGHT_ROOMS, ROOMS, START_PLAYER as START_PLAYER_COMPONENT, tiles_component
from .render import render_state
from .rules import FACE_DOWN_SPACES, NUM_ROOMS, SOLO_PILE_SIZE, rules

# The kinds of chance node (what the next chance outcome decides); both engines use these codes.
NO_CHANCE, REVEAL_ROOM, START_PLAYER, REMOVE_LIGHT_ROOM, REVEAL_TILE = range(5)

RECORD_FORMAT = "cavekit-cvc"
RECORD_VERSION = 1

# Upper bound on the actions of one turn: take, 3 tile sub-actions, 4 room uses (Expedition with the
# Equipment Room), Prospecting Site, Additional Cavern side, end turn, 3 room reveals, a draw-pile reveal,
# and conversions (each raises food by 1 towards its cap of 9, so at most 9 plus the food paid that turn,
# which is at most 9 (Housework) + 2 (Excavation) + 4 rooms x 2 + 1 (Prospecting Site) = 20).
MAX_ACTIONS_PER_TURN = 1 + 3 + 4 + 1 + 1 + 1 + 3 + 1 + 9 + 20


class StateMixin(RecordedState):
    """Results, notation, records and rendering shared by the reference and compiled states."""

    record_format = RECORD_FORMAT
    record_version = RECORD_VERSION

    _game: Any          # the CaveVsCave this state belongs to

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

    def chance_component(self) -> tuple[str, int]:
        """The deal component this chance node draws from and which of its items (`cavekit.core.deal`)."""
        kind = self._chance_kind()  # type: ignore[attr-defined]
        if kind not in _CHANCE_COMPONENTS:
            raise DealError("the position is not a chance node, so it draws from no deal component")
        return _CHANCE_COMPONENTS[kind](self._game.num_players, self.to_dict())  # type: ignore[attr-defined]

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


def player_of_turn(players: int, starter: int, turn: int) -> int:
    """The seat that plays turn `turn` of a round (both players' turns counted) when `starter` starts it."""
    if players == 1:
        return 0
    return starter if turn % 2 == 0 else 1 - starter


def _room_item(players: int, d: dict[str, Any]) -> tuple[str, int]:
    # A room under an excavated space (turned up lowest space first), else the top of the solo draw pile.
    pending = d["pending_spaces"]
    if pending:
        seat = player_of_turn(players, d["starter"], d["turn"])
        space = (pending & -pending).bit_length() - 1
        return ROOMS, seat * len(FACE_DOWN_SPACES) + FACE_DOWN_SPACES.index(space)
    return DRAW_PILE, SOLO_PILE_SIZE - d["pile"]


def _tile_item(players: int, d: dict[str, Any]) -> tuple[str, int]:
    # Round r turns up the next tile of its stage: as many of that stage's tiles are face up already.
    stage = rules().stages[players][d["round"]]
    return tiles_component(stage), sum(rules().tiles[t].stage == stage for t in d["revealed_tiles"])


# What each kind of chance node draws: (component, item) from the player count and the position's to_dict().
_CHANCE_COMPONENTS = {
    START_PLAYER: lambda players, d: (START_PLAYER_COMPONENT, 0),
    REMOVE_LIGHT_ROOM: lambda players, d: (REMOVED_LIGHT_ROOMS, bin(d["removed"]).count("1")),
    REVEAL_TILE: _tile_item,
    REVEAL_ROOM: _room_item,
}


def _chance_text(state: Any, outcome: int) -> str:
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
