"""Cave vs Cave's observation vector (its spec's `observation_encoder`; see `cavekit.core.tensors`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..api import Game
from ..tensors import Piece, piece_bounds
from .state import MAX_ACTIONS_PER_TURN
from .rules import CAVE_ENTRANCE, GOODS, NUM_ROOMS, NUM_SPACES, NUM_WALL_SLOTS, SIDES, rules


class CvcObservationEncoder:
    """Cave vs Cave: every field of `to_dict()`, with bit sets as 0/1 bits and categories one-hot.

    Cave vs Cave has no hidden information, so every player sees the same position; the `observer` piece
    says whose view it is (one-hot), so one network can play any seat. Two positions with different
    `to_dict()` always get different vectors: nothing of the position is dropped.
    """

    def __init__(self, game: Game):
        r = rules()
        players = game.num_players
        self._players = players
        self._rounds = len(r.turns[players])
        self._tiles = len(r.tiles)
        self._rooms = NUM_ROOMS
        self._rooms_with_entrance = CAVE_ENTRANCE + 1
        self._spaces = NUM_SPACES
        self._walls = NUM_WALL_SLOTS
        self._sides = len(SIDES)
        self._slots = max(len(t.slots) for t in r.tiles)
        # Space contents: a room index (0..24) or one of FACE_DOWN, EMPTY, UNAVAILABLE (-1, -2, -3),
        # one-hot over 25 + 3 categories.
        self._space_kinds = self._rooms_with_entrance + 3
        most_turns = max(r.turns[players]) * players
        pieces = [
            Piece("observer", players, 0, 1), Piece("current_player", players, 0, 1),
            Piece("round", 1, 0, self._rounds), Piece("turn", 1, 0, most_turns),
            Piece("starter", players, 0, 1),
            Piece("revealed_tiles", self._rounds * self._tiles, 0, 1), Piece("taken", self._tiles, 0, 1),
            Piece("display", self._rooms, 0, 1), Piece("pool", self._rooms, 0, 1),
            Piece("removed", self._rooms, 0, 1), Piece("pile", 1, 0, self._rooms),
            Piece("cavern_owner", players, 0, 1),
            Piece("pending_spaces", NUM_SPACES, 0, 1), Piece("pending_pile_reveals", 1, 0, self._rooms),
            Piece("tile", self._tiles, 0, 1), Piece("slots_used", self._slots, 0, 1),
            Piece("activation_left", 1, 0, self._rooms_with_entrance),
            Piece("activation_used", self._rooms_with_entrance, 0, 1),
            Piece("prospected", 1, 0, 1), Piece("sub_actions", 1, 0, MAX_ACTIONS_PER_TURN),
            Piece("excavated", 1, 0, NUM_SPACES),
            Piece("furnished_now", self._rooms_with_entrance, 0, 1),
            Piece("cavern_choice", 1, 0, 1), Piece("ending", 1, 0, 1),
        ]
        for p in range(players):
            pieces += [Piece(f"p{p}_spaces", NUM_SPACES * self._space_kinds, 0, 1),
                       Piece(f"p{p}_walls", NUM_WALL_SLOTS, 0, 1),
                       Piece(f"p{p}_cavern_sides", len(SIDES), 0, 1)]
            pieces += [Piece(f"p{p}_{good}", 1, 0, r.caps[g]) for g, good in enumerate(GOODS)]
            pieces.append(Piece(f"p{p}_placed_round", NUM_SPACES, -1, self._rounds - 1))
        self.pieces = tuple(pieces)
        self.size = sum(p.size for p in self.pieces)
        self.low, self.high = piece_bounds(self.pieces)

    def encode(self, state: Any, player: int) -> np.ndarray:
        """The position as seen by `player` (the whole position: nothing is hidden in Cave vs Cave)."""
        d = state.to_dict()
        out = np.zeros(self.size, np.float32)
        at = 0

        def one_hot(index: int, size: int) -> None:
            nonlocal at
            if 0 <= index < size:
                out[at + index] = 1.0
            at += size

        def bits(mask: int, size: int) -> None:
            nonlocal at
            if mask >> size:
                raise ValueError(f"bit set {mask:#x} does not fit the {size} bits of its observation piece")
            for i in range(size):
                if mask >> i & 1:
                    out[at + i] = 1.0
            at += size

        def number(value: int) -> None:
            nonlocal at
            out[at] = value
            at += 1

        mover = state.current_player()
        one_hot(player, self._players)
        one_hot(mover, self._players)
        number(d["round"])
        number(d["turn"])
        one_hot(d["starter"], self._players)
        for k in range(self._rounds):
            one_hot(d["revealed_tiles"][k] if k < len(d["revealed_tiles"]) else -1, self._tiles)
        bits(d["taken"], self._tiles)
        bits(d["display"], self._rooms)
        bits(d["pool"], self._rooms)
        bits(d["removed"], self._rooms)
        number(d["pile"])
        one_hot(d["cavern_owner"], self._players)
        bits(d["pending_spaces"], NUM_SPACES)
        number(d["pending_pile_reveals"])
        one_hot(d["tile"], self._tiles)
        bits(d["slots_used"], self._slots)
        number(d["activation_left"])
        bits(d["activation_used"], self._rooms_with_entrance)
        number(d["prospected"])
        number(d["sub_actions"])
        number(d["excavated"])
        bits(d["furnished_now"], self._rooms_with_entrance)
        number(d["cavern_choice"])
        number(d["ending"])
        for board in d["players"]:
            for content in board["spaces"]:
                # Rooms keep their index; FACE_DOWN, EMPTY, UNAVAILABLE (-1, -2, -3) follow the rooms.
                one_hot(content if content >= 0 else self._rooms_with_entrance - 1 - content, self._space_kinds)
            bits(board["walls"], self._walls)
            bits(board["cavern_sides"], self._sides)
            for amount in board["goods"]:
                number(amount)
            for placed in board["placed_round"]:
                number(placed)
        return out
