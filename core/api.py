"""The game API every cavekit engine and searcher shares (OpenSpiel-shaped).

A `Game` knows its parameters and sizes and makes states; a `State` is one position. Turns made of
several choices are sequences of atomic actions by the same player. Chance is explicit: at a chance
node `current_player()` is `CHANCE` and `chance_outcomes()` lists `(outcome, probability)` pairs, and
`chance_component()` names the part of the game's deal that node draws from (`cavekit.core.deal`).
"""
from __future__ import annotations

import operator
from typing import Any, Protocol, Sequence, runtime_checkable


CHANCE = -1
TERMINAL = -4


class CavekitError(Exception):
    """Base class of every error cavekit raises on purpose."""


class IllegalActionError(CavekitError, ValueError):
    """An action that is not legal in the state it was applied to; the state is left unchanged."""

    def __init__(self, action: Any, player: int, reason: str, action_text: str | None = None):
        self.action = action
        self.player = player
        self.reason = reason
        shown = f"{action!r}" if action_text is None else f"{action!r} ({action_text})"
        who = {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, f"player {player}")
        super().__init__(f"illegal action {shown} for {who}: {reason}")


class ConfigError(CavekitError, ValueError):
    """A game, engine or parameter that does not exist, or a parameter value that is not allowed."""


class CorruptRecordError(CavekitError, ValueError):
    """A serialized state or game record that cannot be read; `location` says where it went wrong."""

    def __init__(self, location: str, problem: str):
        self.location = location
        self.problem = problem
        super().__init__(f"corrupt game record at {location}: {problem}")


@runtime_checkable
class State(Protocol):
    """One position of a game."""

    def current_player(self) -> int: ...
    def legal_actions(self) -> list[int]: ...
    def legal_actions_mask(self) -> list[int]: ...
    def chance_outcomes(self) -> list[tuple[int, float]]: ...
    def chance_component(self) -> tuple[str, int]: ...
    def apply_action(self, action: int) -> None: ...
    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def returns(self) -> list[float]: ...
    def scores(self) -> list[int]: ...
    def clone(self) -> "State": ...
    def history(self) -> list[int]: ...
    def serialize(self) -> str: ...
    def action_to_string(self, action: int) -> str: ...
    def string_to_action(self, text: str) -> int: ...


@runtime_checkable
class Game(Protocol):
    """A game with fixed parameters: sizes, and a factory for states."""

    name: str
    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    max_game_length: int
    engine: str

    def new_initial_state(self, seed: int | None = None) -> State: ...
    def deserialize_state(self, text: str) -> State: ...
    def parameters(self) -> dict[str, Any]: ...


def as_action(action: Any) -> int | None:
    """`action` as a plain int (numpy integers included), or None if it is not an integer (bools are not)."""
    if isinstance(action, bool):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def sample_chance_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """Pick the outcome whose cumulative probability first exceeds `u` in [0, 1)."""
    total = 0.0
    for outcome, probability in outcomes:
        total += probability
        if u < total:
            return outcome
    return outcomes[-1][0]


def shared_win_returns(num_players: int, winners: Sequence[int]) -> list[float]:
    """Zero-sum returns for games of 2 or more players with (possibly shared) winners.

    Each of k co-winners among n players gets (n - k) / (k (n - 1)), everyone else -1 / (n - 1): +1/-1 for a
    unique winner of two, +1 and -1/(n-1) each for the others with n players, 0 all round if all share.
    No winners (a game still running) gives zeros.
    """
    if not winners:
        return [0.0] * num_players
    k, n = len(winners), num_players
    win, lose = (n - k) / (k * (n - 1)), -1.0 / (n - 1)
    return [win if p in winners else lose for p in range(n)]


def mask_of(legal: Sequence[int], num_actions: int) -> list[int]:
    """1 for each action id in `legal`, 0 elsewhere (length `num_actions`): `legal_actions_mask()`."""
    mask = [0] * num_actions
    for a in legal:
        mask[a] = 1
    return mask
