"""Cave vs Cave's deals (its spec's `dealer`; see `cavekit.core.deal`): the physical game's setup shuffles.

A deal holds what setup fixes face down (rules section 3): who starts (two players) or which three light rooms
leave the game (solo), each stage's action tiles in the order they are turned up, the dark rooms under the
face-down spaces of the boards and, solo, the draw pile of the other dark rooms. The engines turn these up
only when the game reaches them; `StateMixin.chance_component` names the piece a chance node turns up, so
every line of play on one deal finds the same room under the same space and the same tile in the same round.

Only the player count shapes a deal: no rule option changes the components, so a game with a room barred
(the `banned_rooms_*` analysis variants) plays the same deals as the real game.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ..deal import Component
from .rules import (DARK_ROOMS, FACE_DOWN_SPACES, LIGHT_ROOMS, NUM_LIGHT_ROOMS_REMOVED_SOLO, SOLO_PILE_SIZE, rules,
                    stage_tiles)

SCHEME = 1

START_PLAYER = "start_player"
REMOVED_LIGHT_ROOMS = "removed_light_rooms"
ROOMS = "rooms"
DRAW_PILE = "draw_pile"
SEATS = (0, 1)


def tiles_component(stage: int) -> str:
    """The name of the component holding stage `stage`'s face-down action tiles."""
    return f"tiles_stage_{stage}"


def face_down_stages(players: int) -> tuple[int, ...]:
    """The stages whose tiles start face down, in the order the rounds turn them up."""
    return tuple(dict.fromkeys(rules().stages[players]))


@dataclass(frozen=True)
class _Part:
    """One component: the pieces it is drawn from, how many it draws and how an outcome reads."""

    component: Component
    pieces: tuple[int, ...]   # components drawing from the same pieces share them (the dark rooms)
    count: int
    name_of: Callable[[int], str]


def _seat(seat: int) -> str:
    return f"seat {seat}"


def _tile(tile: int) -> str:
    return rules().tiles[tile].name


def _room(room: int) -> str:
    return rules().rooms[room].name


def _rounds(players: int, stage: int) -> str:
    rounds = [i + 1 for i, s in enumerate(rules().stages[players]) if s == stage]
    return f"round {rounds[0]}" if len(rounds) == 1 else f"rounds {rounds[0]}-{rounds[-1]}"


@lru_cache(maxsize=None)
def _parts(players: int) -> tuple[_Part, ...]:
    """The components of a deal of `players`, in their fixed order (rules sections 3.1 and 3.2)."""
    spaces = ", ".join(rules().spaces[s].name for s in FACE_DOWN_SPACES)
    per_board = len(FACE_DOWN_SPACES)
    if players == 2:
        first = [_Part(Component(START_PLAYER, "the seat that starts round 1"), SEATS, 1, _seat)]
        under = (f"the {2 * per_board} dark rooms face down on the boards: item {per_board} * seat + k lies under "
                 f"the seat's k-th face-down space ({spaces})")
    else:
        first = [_Part(Component(REMOVED_LIGHT_ROOMS, f"the {NUM_LIGHT_ROOMS_REMOVED_SOLO} light rooms out of play"),
                       LIGHT_ROOMS, NUM_LIGHT_ROOMS_REMOVED_SOLO, _room)]
        under = (f"the {per_board} dark rooms face down on the board: item k lies under the k-th face-down space "
                 f"({spaces})")
    tiles = [_Part(Component(tiles_component(stage), f"stage {stage}'s face-down action tiles in reveal order "
                             f"(turned up in {_rounds(players, stage)})"),
                   stage_tiles(stage, players), len(stage_tiles(stage, players)), _tile)
             for stage in face_down_stages(players)]
    rooms = [_Part(Component(ROOMS, under), DARK_ROOMS, players * per_board, _room)]
    if players == 1:
        rooms.append(_Part(Component(DRAW_PILE, f"the other {SOLO_PILE_SIZE} dark rooms, the solo draw pile, "
                                     f"top first"), DARK_ROOMS, SOLO_PILE_SIZE, _room))
    return (*first, *tiles, *rooms)


def components(game: Any) -> list[Component]:
    """Every component of a deal of `game`, in a fixed order."""
    return [part.component for part in _parts(game.num_players)]


def draw(game: Any, rng: np.random.Generator) -> dict[str, list[int]]:
    """One deal of `game`: each component's pieces shuffled, drawn from what earlier components left."""
    left: dict[tuple[int, ...], list[int]] = {}
    drawn = {}
    for part in _parts(game.num_players):
        pool = left.setdefault(part.pieces, list(part.pieces))
        picked = [int(x) for x in rng.permutation(pool)[:part.count]]
        left[part.pieces] = [p for p in pool if p not in picked]
        drawn[part.component.name] = picked
    return drawn


def outcome_name(game: Any, component: str, outcome: int) -> str:
    """An outcome of `component` as the game's notation names it: a seat, a tile or a room."""
    part = next((p for p in _parts(game.num_players) if p.component.name == component), None)
    if part is None:
        raise KeyError(f"a {game.num_players}-player Cave vs Cave deal has no component {component!r}")
    return part.name_of(outcome)
