"""Cave board geometry: wall patterns of spaces, excavation accessibility, the Additional Cavern's sides.

Pure functions over a player's spaces and built walls, shared by the reference engine and the tests.
Space contents: FACE_DOWN, EMPTY, UNAVAILABLE (the Additional Cavern before it is owned) or a room index.
"""
from __future__ import annotations

from collections.abc import Sequence

from .rules import CAVERN, NATURAL, NUM_BOARD_SPACES, NUM_BOARD_WALL_SLOTS, Rules

FACE_DOWN = -1
EMPTY = -2
UNAVAILABLE = -3

ALL_WALLS = 99   # a wall budget large enough to ignore every wall on the way (Undermining)


def cavern_natural_sides(walls: int, layout: str) -> int:
    """Side bits (N=1, E=2, S=4, W=8) printed as walls on the Additional Cavern side with `walls` walls."""
    if walls == 2:
        return 1 | 8 if layout == "adjacent" else 1 | 4
    if walls == 3:
        return 1 | 2 | 8
    return 15


def wall_pattern(r: Rules, space: int, built: int, cavern_sides: int) -> int:
    """Side bits of the walls around `space`: natural walls plus walls built in its slots."""
    pattern = 0
    for d, side in enumerate(r.spaces[space].sides):
        if space == CAVERN:
            present = bool(cavern_sides >> d & 1) or bool(built >> side & 1)
        else:
            present = side == NATURAL or (side >= 0 and bool(built >> side & 1))
        if present:
            pattern |= 1 << d
    return pattern


def neighbours(r: Rules, space: int) -> list[tuple[int, int]]:
    """(adjacent board space, wall slot between them) for a board space."""
    result = []
    for w, (a, b) in enumerate(r.wall_slots):
        if a == space:
            result.append((b, w))
        elif b == space:
            result.append((a, w))
    return result


def accessible_spaces(r: Rules, spaces: Sequence[int], built: int, wall_budget: int = 0) -> list[int]:
    """Face-down spaces that can be excavated, walking from the Cave Entrance (rules section 7.3).

    The walk moves between open spaces (anything not face-down) and may cross at most `wall_budget` built
    walls in total (0: walls block; ALL_WALLS: Undermining). Face-down rooms are never passed through.
    """
    best = {r.entrance_space: 0}          # open space -> fewest walls crossed to reach it
    frontier = [r.entrance_space]
    targets: set[int] = set()
    while frontier:
        space = frontier.pop()
        crossed = best[space]
        for other, w in neighbours(r, space):
            cost = crossed + (built >> w & 1)
            if cost > wall_budget:
                continue
            if spaces[other] == FACE_DOWN:
                targets.add(other)
            elif cost < best.get(other, wall_budget + 1):
                best[other] = cost
                frontier.append(other)
    return sorted(targets)


def board_full(spaces: Sequence[int]) -> bool:
    """True when all 11 board spaces hold face-up rooms (the Additional Cavern condition)."""
    return all(spaces[s] >= 0 for s in range(NUM_BOARD_SPACES))


def slot_spaces(r: Rules, wall: int) -> tuple[int, int]:
    """The two spaces a wall slot separates (the Additional Cavern's sides face nothing: CAVERN twice)."""
    if wall < NUM_BOARD_WALL_SLOTS:
        return r.wall_slots[wall]
    return CAVERN, CAVERN
