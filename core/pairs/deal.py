"""Deals of The Cave (Pairs deck): the physical game's shuffles, fixed by one seed (see `cavekit.core.deal`).

The table game shuffles the whole 55-card deck at the start of every round (the deal passes to the left and
the deck is rebuilt), and, by our default, draws the first dealer at random. A deal holds:

- `first_dealer` (only when `first_dealer="random"`): the seat that deals the first round;
- `deck_round_1`, `deck_round_2`, ...: one per round, the whole shuffled deck as ranks (0 = rank 1, the
  engines' outcome ids). Item k is the k-th card to leave the deck that round, whatever takes it: burned,
  dealt to a hand, dealt to the Cave or drawn to refill it. The rest of the deck stays in order behind.

So the options that only change how many cards are taken and where they go (`burn_cards`, `hand_size`,
`cave_size`) deal from the same decks, and so do the options that change nothing dealt (`tie_break`,
`score_leftover`, `hand_visibility`). The first dealer is drawn even when it is fixed, before the decks,
so a seed gives the same decks whether the first dealer is random or not; the decks are drawn in round
order, so a shorter match deals the first rounds of a longer one.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..deal import Component
from .rules import FIRST_DEALER_RANDOM, NUM_RANKS, rules

SCHEME = 1
FIRST_DEALER = "first_dealer"


def deck_component(round_index: int) -> str:
    """The name of the deck of round `round_index` (0 for the first round): `deck_round_1`, ..."""
    return f"deck_round_{round_index + 1}"


def components(game: Any) -> list[Component]:
    """The first dealer (if it is random), then each round's deck in round order."""
    c = game.config
    out = []
    if c.first_dealer == FIRST_DEALER_RANDOM:
        out.append(Component(FIRST_DEALER, f"the seat dealing the first round (of {c.players})"))
    for r in range(c.num_rounds):
        out.append(Component(deck_component(r), f"round {r + 1}'s shuffled deck of {rules().total} cards, "
                                                f"in the order the cards leave it (burned, dealt, Cave, refills)"))
    return out


def draw(game: Any, rng: np.random.Generator) -> dict[str, list[int]]:
    """The first dealer and every round's deck order, drawn from `rng` (see the module docstring)."""
    c = game.config
    # Drawn whether or not it is used, so the decks are the same with a fixed first dealer.
    dealer = int(rng.integers(c.players))
    deck = np.repeat(np.arange(NUM_RANKS), rules().copies)
    drawn: dict[str, list[int]] = {}
    if c.first_dealer == FIRST_DEALER_RANDOM:
        drawn[FIRST_DEALER] = [dealer]
    for r in range(c.num_rounds):
        drawn[deck_component(r)] = rng.permutation(deck).tolist()
    return drawn


def outcome_name(game: Any, component: str, outcome: int) -> str:
    """A seat as `seat 2`; a card by its rank as the notation names it (`7` for outcome 6)."""
    if component == FIRST_DEALER:
        return f"seat {outcome}"
    return str(outcome + 1)
