"""Deals of Caverna: The Cave Farmers: the shuffles of the physical game's setup (`cavekit.core.deal`).

The rules leave three things to chance, all at setup (rules file section 3, rulebook "Setup"), and a deal
holds each of them as the physical game would lay it out, so one seed fixes them whatever the players do:

- `start_player`: the seat that gets the Starting player token ("randomly determine"); one item;
- `stage_<s>_cards`, s = 1..4: the stage's round cards as shuffled into the face-down stack; item k is the
  k-th card of the stage turned up (`rules.shuffled_card_rounds`). Wish for children lies fixed on round 4
  and is no item, so stage 2 holds Donkey farming and Ruby mine construction; 1-2 players play without
  Exploration, so their stage 3 holds two cards;
- `harvest_markers`: the markers shuffled face down onto the round spaces from 6 (4 green, 3 red on 6-12;
  2 players: one green removed, the six on 6-8 and 10-12); item k is the marker on the k-th of those rounds.

The solo game has none of them (one player starts, the round cards lie in a fixed order, no markers), so a
solo deal is empty. Outcomes are the engine's chance outcomes: a seat, a round card's index in
`rules().round_cards`, a marker (0 green, 1 red). No rule option changes what is dealt.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..deal import Component, DealError
from .rules import harvest_marker_mix, harvest_marker_rounds, rules, shuffled_card_rounds, shuffled_round_cards

SCHEME = 1

START_PLAYER = "start_player"
HARVEST_MARKERS = "harvest_markers"
MARKER_NAMES = ("green", "red")     # harvest marker outcomes 0 and 1


def stage_cards(stage: int) -> str:
    """The name of the component holding stage `stage`'s shuffled round cards."""
    return f"stage_{stage}_cards"


def _rounds_text(rounds: tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in rounds)


def _pieces(players: int) -> dict[str, list[int]]:
    """The pieces each shuffled component (all but the start player) is a permutation of, in deal order."""
    ids = [c.id for c in rules().round_cards]
    pieces = {stage_cards(stage): [ids.index(cid) for cid in cards]
              for stage, cards in shuffled_round_cards(players).items()}
    green, red = harvest_marker_mix(players)
    if green + red:
        pieces[HARVEST_MARKERS] = [0] * green + [1] * red
    return pieces


def components(game: Any) -> list[Component]:
    """The components of a deal of `game`: start player, the four stages' cards, harvest markers (solo: none)."""
    n = game.num_players
    if n == 1:
        return []
    result = [Component(START_PLAYER, f"the seat, of {n}, that gets the Starting player token")]
    card_rounds = shuffled_card_rounds(n)
    for stage, cards in shuffled_round_cards(n).items():
        names = ", ".join(rules().action_spaces[cid].name for cid in cards)
        result.append(Component(stage_cards(stage), f"the stage {stage} round cards ({names}) in the order they are "
                                                    f"turned up in rounds {_rounds_text(card_rounds[stage])}"))
    green, red = harvest_marker_mix(n)
    result.append(Component(HARVEST_MARKERS, f"the {green} green and {red} red harvest markers face down on rounds "
                                             f"{_rounds_text(harvest_marker_rounds(n))}, in that order"))
    return result


def draw(game: Any, rng: np.random.Generator) -> dict[str, list[int]]:
    """One deal's outcomes, component by component in `components` order."""
    n = game.num_players
    if n == 1:
        return {}
    drawn = {START_PLAYER: [int(rng.integers(n))]}
    for name, pieces in _pieces(n).items():
        drawn[name] = [int(x) for x in rng.permutation(pieces)]
    return drawn


def outcome_name(game: Any, component: str, outcome: int) -> str:
    """A seat as `seat 0`, a round card by its notation id (`blacksmithing`), a marker as green or red."""
    n = game.num_players
    if component == START_PLAYER and n > 1 and 0 <= outcome < n:
        return f"seat {outcome}"
    if outcome in _pieces(n).get(component, ()):
        return MARKER_NAMES[outcome] if component == HARVEST_MARKERS else rules().round_cards[outcome].id
    raise DealError(f"{outcome} is no outcome of the {game.num_players}-player Caverna component {component!r}")
