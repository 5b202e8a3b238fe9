"""Seeded random Cave vs Cave games for the property and API tests.

Every choice (chance outcomes and player actions) comes from one `numpy.random.Generator` built from the
seed, so a seed names a game. Policies:

* ``uniform`` - a uniformly random legal action (the default);
* ``busy``    - like uniform, but never ends a turn while anything else is legal (long turns);
* ``builder`` - weighted towards furnishing, excavating and building walls (fuller caves, more ties).
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.core.cvc.actions import CONVERT, END_TURN, action_table

POLICIES = ("uniform", "busy", "builder")


def _builder_weights() -> np.ndarray:
    table = action_table()
    weights = np.ones(len(table))
    for spec in table.specs:
        if "furnish" in spec.text:
            weights[spec.id] = 50.0
        elif "excavate" in spec.text:
            weights[spec.id] = 20.0
        elif "build wall" in spec.text:
            weights[spec.id] = 10.0
        elif spec.kind == CONVERT:
            weights[spec.id] = 0.3
        elif spec.kind == END_TURN:
            weights[spec.id] = 0.5
    return weights


_BUILDER = _builder_weights()


def choose(state, rng: np.random.Generator, policy: str = "uniform") -> int:
    """The next action of a random game: a sampled chance outcome, or a legal action per `policy`."""
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state.chance_outcomes(), rng.random())
    legal = state.legal_actions()
    if policy == "busy":
        end_turn = action_table().end_turn
        legal = [a for a in legal if a != end_turn] or legal
    elif policy == "builder":
        weights = _BUILDER[legal]
        return int(legal[rng.choice(len(legal), p=weights / weights.sum())])
    elif policy != "uniform":
        raise ValueError(f"unknown policy {policy!r}")
    return int(legal[rng.integers(len(legal))])


def walk(game, seed: int, policy: str = "uniform") -> Iterator[tuple[object, int | None]]:
    """Yield `(state, action)` before each action is applied, then `(final_state, None)`.

    The state is the live game: look at it (or clone it), but do not apply actions to it.
    """
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        action = choose(state, rng, policy)
        yield state, action
        state.apply_action(action)
    yield state, None


def play(game, seed: int, policy: str = "uniform"):
    """The final state of the random game named by `seed`."""
    state = None
    for state, _ in walk(game, seed, policy):
        pass
    return state


def states_of(game, seed: int, policy: str = "uniform") -> list:
    """Clones of every state of the random game named by `seed`, the initial and the final one included."""
    return [state.clone() for state, _ in walk(game, seed, policy)]
