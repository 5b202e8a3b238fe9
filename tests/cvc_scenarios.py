"""Positions and move policies that reach deep into Cave vs Cave's rules, for tests that compare engines.

Uniformly random play ends turns early and rarely fills a cave, so it never awards the Additional Cavern
and seldom builds expensive rooms. `rich_position` starts from a dealt game with most spaces dug out,
their rooms in the display and plenty of goods, and `busy_action` prefers doing things to ending the turn.
"""
from __future__ import annotations

import numpy as np

from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.core.cvc.actions import CONVERT, END_TURN, action_table
from cavekit.core.cvc.board import EMPTY, FACE_DOWN
from cavekit.core.cvc.reference import ReferenceState


def rich_position(game, seed: int) -> ReferenceState:
    """A reference state in round 1-5 with caves mostly excavated and goods plentiful."""
    rng = np.random.default_rng(seed)
    state = ReferenceState(game)
    target_round = int(rng.integers(0, 5))
    for r in range(target_round + 1):
        state.round = r
        while state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
    for board in state.players:
        face_down = [s for s in range(11) if board.spaces[s] == FACE_DOWN]
        keep = int(rng.integers(0, 3))
        for space in rng.permutation(face_down)[keep:]:
            board.spaces[int(space)] = EMPTY
            room = int(rng.choice([r for r in range(24) if state.pool >> r & 1]))
            state.pool &= ~(1 << room)
            state.display |= 1 << room
        board.goods = [int(x) for x in rng.integers(2, 10, 6)]
        board.goods[5] = int(rng.integers(3, 20))
    return state


_TABLE = action_table()
_WEIGHT = {END_TURN: 0.03, CONVERT: 0.1}


def busy_action(legal: list[int], rng: np.random.Generator) -> int:
    """A random legal action that rarely ends the turn or converts goods."""
    weights = np.array([_WEIGHT.get(_TABLE.specs[a].kind, 1.0) for a in legal])
    return legal[rng.choice(len(legal), p=weights / weights.sum())]


def next_action(state, rng: np.random.Generator, busy: bool = False) -> int:
    """A chance outcome sampled by its probability, or a (busy) random legal action."""
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state.chance_outcomes(), rng.random())
    legal = state.legal_actions()
    return busy_action(legal, rng) if busy else legal[rng.integers(len(legal))]
