"""Heuristic evaluations: an estimate of each player's return, for greedy play, search leaves and cut-offs.

An evaluator maps a state to one number per player on the scale of `returns()`: at a finished game it is
`returns()` itself. Each game names its own in its spec (`GameSpec.evaluator`); a game without one is only
valued once it is over.
"""
from __future__ import annotations

from typing import Any, Callable

from ..core.spec import resolve

Evaluator = Callable[[Any], list[float]]


def terminal_only(state: Any) -> list[float]:
    """No knowledge: the returns of a finished game, zeros otherwise."""
    return state.returns() if state.is_terminal() else [0.0] * len(state.returns())


def evaluator_for(game: Any) -> Evaluator:
    """The heuristic evaluator the game's spec names (terminal returns only if it names none)."""
    spec = getattr(game, "spec", None)
    if spec is None or spec.evaluator is None:
        return terminal_only
    return resolve(spec.evaluator)
