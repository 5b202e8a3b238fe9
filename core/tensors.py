"""Fixed-length numeric observations of cavekit states, for learning libraries (OpenSpiel, PettingZoo).

An `ObservationEncoder` turns a state, seen by one player, into a float32 vector of a fixed length, made of
named pieces with declared bounds (`low`, `high`), so a neural network or a `gymnasium.spaces.Box` can use it.
`observation_encoder(game)` picks the encoder of a game: the hand-written layout its spec names
(`GameSpec.observation_encoder`, as Cave vs Cave's does), or the engine's own `observation_tensor(player)`
for games that provide one (and say its length with `game.observation_tensor_size()`, as OpenSpiel games do).

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
from .spec import resolve


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


def piece_bounds(pieces: tuple[Piece, ...]) -> tuple[np.ndarray, np.ndarray]:
    low = np.concatenate([np.full(p.size, p.low, np.float32) for p in pieces])
    high = np.concatenate([np.full(p.size, p.high, np.float32) for p in pieces])
    return low, high


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
            self.low, self.high = piece_bounds(self.pieces)

    def encode(self, state: Any, player: int) -> np.ndarray:
        """The engine's own observation vector of `state` for `player`."""
        out = np.asarray(state.observation_tensor(player), np.float32)
        if out.shape != (self.size,):
            raise ValueError(f"the engine's observation_tensor has shape {out.shape}; this game's is ({self.size},)")
        return out


def _own_encoder(game: Game) -> Callable[[Game], ObservationEncoder] | None:
    spec = getattr(game, "spec", None)
    path = spec.observation_encoder if spec is not None else None
    return resolve(path) if path is not None else None


def observation_encoder(game: Game) -> ObservationEncoder:
    """The observation encoder for `game`; a ConfigError if the game has no numeric observation."""
    factory = _own_encoder(game)
    if factory is not None:
        return factory(game)
    if hasattr(game, "observation_tensor_size"):
        return EngineObservationEncoder(game)
    raise ConfigError(f"game {game.name!r} has no numeric observation: neither an observation_encoder in its "
                      f"spec nor an engine observation_tensor(player) with game.observation_tensor_size()")


def has_observation_tensor(game: Game) -> bool:
    """Whether `observation_encoder(game)` can encode this game's states."""
    return _own_encoder(game) is not None or hasattr(game, "observation_tensor_size")


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


def information_state_encoder(game: Game) -> ObservationEncoder:
    """The information-state (perfect recall) encoder for `game`; a ConfigError if the game has none."""
    if hasattr(game, "information_state_tensor_size"):
        return EngineInformationStateEncoder(game)
    raise ConfigError(f"game {game.name!r} has no numeric information state: its engine has no "
                      f"information_state_tensor(player) with game.information_state_tensor_size()")


def has_information_state_tensor(game: Game) -> bool:
    """Whether `information_state_encoder(game)` can encode this game's states."""
    return hasattr(game, "information_state_tensor_size")
