"""Deals of Cavum: the physical game's shuffles, fixed by one seed (see `cavekit.core.deal`).

The only thing the rules shuffle is the order-card deck (setup: "shuffle the 15 order cards face down and
turn up 5"; 5 more are turned up at the start of phases 2 and 3). Everything else is set or chosen: the
start tiles and the buy pool are fixed, the youngest player (seat 0) opens the first auction, the sequence
cards go by auction, and veins get the colour their discoverer picks. So a deal holds one component:

- `order_deck`: the 15 order cards (outcome i = the rules data's i-th card, the engines' outcome ids) in
  the order they are turned up; item k is the k-th card turned up in the game.

No rule option changes which order cards there are or how they are turned up, so the deal depends on the
seed alone.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..deal import Component
from .rules import rules

SCHEME = 1
ORDER_DECK = "order_deck"


def components(game: Any) -> list[Component]:
    """The order-card deck, the one random component of Cavum."""
    return [Component(ORDER_DECK, f"the {len(rules().order_cards)} order cards, shuffled face down, in the order "
                                  f"they are turned up (5 at the start of each phase)")]


def draw(game: Any, rng: np.random.Generator) -> dict[str, list[int]]:
    """The order deck shuffled with `rng`."""
    return {ORDER_DECK: rng.permutation(len(rules().order_cards)).tolist()}


def outcome_name(game: Any, component: str, outcome: int) -> str:
    """An order card by its id as the notation names it (`O05`)."""
    return rules().order_cards[outcome].id
