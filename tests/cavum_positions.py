"""Building Cavum test positions through the public snapshot, the same way for both engines.

Neither engine's fields are written by tests: a position is edited as its `to_dict()` snapshot and rebuilt
with `from_dict` (the engine of the state it came from, its history kept):

    e = edit(state)                      # e.board, e.scores_, ... are the snapshot's plain lists and ints
    e.board[p * 10:(p + 1) * 10] = [0] * 10
    e.used[p] = 11
    e.push(cell, code)                   # a tile on top of a stack, as the reference's `_push`
    state = e.state()

Rules helpers that the compiled engine does not offer in Python (`explode`, `score_cities`,
`_end_phase`, `_lay_problem`, ...) run on the reference engine: `reference_of(state)` is the same position
there, and `on_reference(state, "explode")` runs one and returns its result with the changed position
rebuilt in the state's own engine.
"""
from __future__ import annotations

from typing import Any

from cavekit.core.cavum.reference import ReferenceState
from cavekit.core.cavum.rules import MAX_STACK


class edit:
    """An editable `to_dict()` snapshot of a state; `state()` builds the edited position (see the module docstring)."""

    def __init__(self, state: Any) -> None:
        self.__dict__["_source"] = state
        self.__dict__["_d"] = state.to_dict()

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__["_d"]
        if name not in d:
            raise AttributeError(f"a Cavum position has no field {name!r}")
        return d[name]

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__["_d"]
        if name not in d:
            raise AttributeError(f"a Cavum position has no field {name!r}")
        d[name] = list(value) if isinstance(value, (list, tuple)) else value

    def push(self, cell: int, code: int) -> None:
        """Put a tile code on top of a mountain cell."""
        d = self.__dict__["_d"]
        assert d["height"][cell] < MAX_STACK
        d["stack"][cell * MAX_STACK + d["height"][cell]] = code
        d["height"][cell] += 1

    def take_from_scale(self, colour: int, count: int) -> int:
        """Move up to `count` stones off a scale from its lowest occupied spaces; how many were moved."""
        scale = self.__dict__["_d"]["scale"]
        moved = 0
        for value in range(1, 10):
            if moved < count and scale[colour * 9 + value - 1]:
                scale[colour * 9 + value - 1] = 0
                moved += 1
        return moved

    def state(self) -> Any:
        """The edited position, in the engine of the state the snapshot came from."""
        source = self.__dict__["_source"]
        return type(source).from_dict(source.game, self.__dict__["_d"], source.history())


def reference_of(state: Any) -> ReferenceState:
    """The same position in the reference engine (the state itself if it is one)."""
    if isinstance(state, ReferenceState):
        return state
    return ReferenceState.from_dict(state.game, state.to_dict(), state.history())


def on_reference(state: Any, method: str, *args: Any) -> tuple[Any, Any]:
    """Run a reference helper that changes the position; (its result, the changed position in state's engine)."""
    ref = reference_of(state).clone()
    result = getattr(ref, method)(*args)
    return result, type(state).from_dict(state.game, ref.to_dict(), state.history())
