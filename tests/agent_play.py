"""Playing whole games with agents in tests, for every game."""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from cavekit.core.api import CHANCE, sample_chance_outcome


def play_with_agents(game, specs: list[str], seed: int, deal=None):
    """Play a whole game with agents built from `specs` (seat p seeded seed + p); the final state.

    Chance outcomes are sampled (seeded `seed`), or taken from `deal` (`cavekit.core.deal`) when one is given.
    Each agent's action is checked to be legal before it is applied.
    """
    from cavekit.search import make_agent
    rng = np.random.default_rng(seed)
    agents = [make_agent(spec, game, seed=seed + p) for p, spec in enumerate(specs)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state) if deal is not None
                               else sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            action = agents[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    return state


def replayed(game, history: list[int]) -> Iterator[tuple[Any, int]]:
    """A recorded game read back: each position of `history` (before its action) with the action taken there."""
    state = game.new_initial_state()
    for action in history:
        yield state, action
        state.apply_action(action)
