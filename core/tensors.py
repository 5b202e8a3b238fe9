"""Fixed-length numeric observations of cavekit states, for learning libraries (OpenSpiel, PettingZoo).

An `ObservationEncoder` turns a state, seen by one player, into a float32 vector of a fixed length, made of
named pieces with declared bounds (`low`, `high`), so a neural network or a `gymnasium.spaces.Box` can use it.
`observation_encoder(game)` picks the encoder of a game: a hand-written layout for Cave vs Cave, or the
engine's own `observation_tensor(player)` for games that provide one (and say its length with
`game.observation_tensor_size()`, as OpenSpiel games do).

`information_state_encoder(game)` is the same for information states (perfect recall: everything the player
has seen, equal exactly when `information_state_string(player)` is equal): the engine's
`information_state_tensor(player)` with `game.information_state_tensor_size()`, split into the named pieces of
`game.information_state_tensor_layout()`. Cave vs Cave has none (its information state is the whole history
of a perfect-information game).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np

from .api import ConfigError, Game


@dataclass(frozen=True)
class Piece:
    """One named part of an observation vector: `size` numbers, each within [low, high]."""

    name: str
    size: int
    low: float
    high: float
    shape: tuple[int, ...] = ()     # how the piece's numbers are arranged (row-major); () means flat (size,)


class ObservationEncoder(Protocol):
    """Encodes states of one game (fixed parameters) as vectors of one length."""

    pieces: tuple[Piece, ...]
    size: int
    low: np.ndarray
    high: np.ndarray

    def encode(self, state: Any, player: int) -> np.ndarray: ...


def _bounds(pieces: tuple[Piece, ...]) -> tuple[np.ndarray, np.ndarray]:
    low = np.concatenate([np.full(p.size, p.low, np.float32) for p in pieces])
    high = np.concatenate([np.full(p.size, p.high, np.float32) for p in pieces])
    return low, high


class CvcObservationEncoder:
    """Cave vs Cave: every field of `to_dict()`, with bit sets as 0/1 bits and categories one-hot.

    Cave vs Cave has no hidden information, so every player sees the same position; the `observer` piece
    says whose view it is (one-hot), so one network can play any seat. Two positions with different
    `to_dict()` always get different vectors: nothing of the position is dropped.
    """

    def __init__(self, game: Game):
        from .cvc.game import MAX_ACTIONS_PER_TURN
        from .cvc.rules import CAVE_ENTRANCE, GOODS, NUM_ROOMS, NUM_SPACES, NUM_WALL_SLOTS, SIDES, rules
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
            Piece("pending_reveals", 1, 0, NUM_SPACES), Piece("pending_pile_reveals", 1, 0, self._rooms),
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
        self.low, self.high = _bounds(self.pieces)

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
        number(d["pending_reveals"])
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


class EngineObservationEncoder:
    """A game whose engine computes `observation_tensor(player)` itself; bounds from the game if it gives them.

    A game that declares `observation_tensor_bounds()` (two sequences, low and high) gets exact bounds;
    otherwise the bounds are unknown and declared as -inf/+inf rather than guessed.
    """

    def __init__(self, game: Game):
        self.size = int(game.observation_tensor_size())  # type: ignore[attr-defined]
        self.pieces = (Piece("observation", self.size, -np.inf, np.inf),)
        bounds = getattr(game, "observation_tensor_bounds", None)
        if bounds is not None:
            low, high = bounds()
            self.low, self.high = np.asarray(low, np.float32), np.asarray(high, np.float32)
        else:
            self.low, self.high = _bounds(self.pieces)

    def encode(self, state: Any, player: int) -> np.ndarray:
        """The engine's own observation vector of `state` for `player`."""
        out = np.asarray(state.observation_tensor(player), np.float32)
        if out.shape != (self.size,):
            raise ValueError(f"the engine's observation_tensor has shape {out.shape}; this game's is ({self.size},)")
        return out


_ENCODERS: dict[str, Callable[[Game], ObservationEncoder]] = {"cvc": CvcObservationEncoder}


def observation_encoder(game: Game) -> ObservationEncoder:
    """The observation encoder for `game`; a ConfigError if the game has no numeric observation."""
    factory = _ENCODERS.get(game.name)
    if factory is not None:
        return factory(game)
    if hasattr(game, "observation_tensor_size"):
        return EngineObservationEncoder(game)
    raise ConfigError(f"game {game.name!r} has no numeric observation: neither a layout in cavekit.core.tensors "
                      f"(available: {', '.join(sorted(_ENCODERS))}) nor an engine observation_tensor(player) "
                      f"with game.observation_tensor_size()")


def has_observation_tensor(game: Game) -> bool:
    """Whether `observation_encoder(game)` can encode this game's states."""
    return game.name in _ENCODERS or hasattr(game, "observation_tensor_size")


class EngineInformationStateEncoder:
    """A game whose engine computes `information_state_tensor(player)`, its size and (optionally) its layout.

    `game.information_state_tensor_layout()` (name and shape of each piece, in order) names the pieces;
    `game.information_state_tensor_bounds()` (low and high sequences) gives bounds, else they are -inf/+inf.
    """

    def __init__(self, game: Game):
        self.size = int(game.information_state_tensor_size())  # type: ignore[attr-defined]
        layout_of = getattr(game, "information_state_tensor_layout", None)
        layout = layout_of() if layout_of is not None else [("information_state", (self.size,))]
        bounds = getattr(game, "information_state_tensor_bounds", None)
        if bounds is not None:
            low, high = bounds()
            self.low, self.high = np.asarray(low, np.float32), np.asarray(high, np.float32)
        else:
            self.low = np.full(self.size, -np.inf, np.float32)
            self.high = np.full(self.size, np.inf, np.float32)
        pieces = []
        at = 0
        for name, shape in layout:
            size = int(np.prod(shape))
            part = slice(at, at + size)
            pieces.append(Piece(name, size, float(self.low[part].min(initial=np.inf)),
                                float(self.high[part].max(initial=-np.inf)), tuple(int(x) for x in shape)))
            at += size
        if at != self.size or self.low.shape != (self.size,) or self.high.shape != (self.size,):
            raise ValueError(f"{game.name}: information-state layout covers {at} numbers, bounds "
                             f"{self.low.shape[0]}/{self.high.shape[0]}; the tensor has {self.size}")
        self.pieces = tuple(pieces)

    def encode(self, state: Any, player: int) -> np.ndarray:
        """The engine's own information-state vector of `state` for `player`."""
        out = np.asarray(state.information_state_tensor(player), np.float32)
        if out.shape != (self.size,):
            raise ValueError(f"the engine's information_state_tensor has shape {out.shape}; "
                             f"this game's is ({self.size},)")
        return out


# Hand-written information-state layouts by game name (none yet: the engines that have one compute it).
_INFORMATION_STATE_ENCODERS: dict[str, Callable[[Game], ObservationEncoder]] = {}


def information_state_encoder(game: Game) -> ObservationEncoder:
    """The information-state (perfect recall) encoder for `game`; a ConfigError if the game has none."""
    factory = _INFORMATION_STATE_ENCODERS.get(game.name)
    if factory is not None:
        return factory(game)
    if hasattr(game, "information_state_tensor_size"):
        return EngineInformationStateEncoder(game)
    raise ConfigError(f"game {game.name!r} has no numeric information state: neither a layout in "
                      f"cavekit.core.tensors nor an engine information_state_tensor(player) with "
                      f"game.information_state_tensor_size()")


def has_information_state_tensor(game: Game) -> bool:
    """Whether `information_state_encoder(game)` can encode this game's states."""
    return game.name in _INFORMATION_STATE_ENCODERS or hasattr(game, "information_state_tensor_size")
