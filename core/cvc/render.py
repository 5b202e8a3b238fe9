"""Text rendering of a Cave vs Cave position for a person: both caves, walls, goods, display and board.

Works from `state.to_dict()`, so both engines print positions the same way.
"""
from __future__ import annotations

from typing import Any

from .board import EMPTY, FACE_DOWN, UNAVAILABLE
from .rules import CAVERN, GOODS, NATURAL, NUM_BOARD_SPACES, NUM_BOARD_WALL_SLOTS, OPENING, SIDES, rules

CELL = 18          # characters inside one cave space
LEGEND = "walls: # natural, = or | built, . or : empty slot; ? face-down room"


def _space_label(content: int, name: str) -> str:
    if content == FACE_DOWN:
        label = "?"
    elif content == EMPTY:
        label = "(empty)"
    else:
        label = rules().rooms[content].name
    return f" {name} {label}"[:CELL].ljust(CELL)


def _side_char(side: int, built: int, horizontal: bool) -> str:
    if side == NATURAL:
        return "#"
    if side == OPENING:
        return " "
    if built >> side & 1:
        return "=" if horizontal else "|"
    return "." if horizontal else ":"


def render_cave(player: dict[str, Any]) -> list[str]:
    """The cave board as lines of text (5 rows, the bottom row three spaces wide)."""
    r = rules()
    width, height = 3 * (CELL + 1) + 1, 11
    grid = [[" "] * width for _ in range(height)]
    for space in r.spaces[:NUM_BOARD_SPACES]:
        x0, y = space.col * (CELL + 1), space.row * 2 + 1
        n, e, s, w = space.sides
        for x in range(x0 + 1, x0 + CELL + 1):
            grid[y - 1][x] = _side_char(n, player["walls"], True)
            grid[y + 1][x] = _side_char(s, player["walls"], True)
        grid[y][x0] = _side_char(w, player["walls"], False)
        grid[y][x0 + CELL + 1] = _side_char(e, player["walls"], False)
        for corner_y in (y - 1, y + 1):
            for corner_x in (x0, x0 + CELL + 1):
                grid[corner_y][corner_x] = "+"
        label = _space_label(player["spaces"][space.index], space.name)
        grid[y][x0 + 1:x0 + CELL + 1] = list(label)
    lines = ["".join(row).rstrip() for row in grid]
    lines[7] += "  <- entrance at s6's west side"
    if player["spaces"][CAVERN] != UNAVAILABLE:
        sides = []
        for d, side_name in enumerate(SIDES):
            if player["cavern_sides"] >> d & 1:
                sides.append(f"{side_name} natural")
            elif player["walls"] >> (NUM_BOARD_WALL_SLOTS + d) & 1:
                sides.append(f"{side_name} built")
        lines.append(f"Additional Cavern:{_space_label(player['spaces'][CAVERN], 'ac')} "
                     f"walls: {', '.join(sides) or 'none'}")
    return lines


def render_goods(player: dict[str, Any]) -> str:
    return "  ".join(f"{g} {n}" for g, n in zip(GOODS, player["goods"]))


def render_state(state: Any) -> str:
    """The whole position: round, whose turn, action board, display, goods and both caves."""
    r = rules()
    d = state.to_dict()
    num_rounds = len(r.turns[len(d["players"])])
    lines = []
    if state.is_terminal():
        scores = state.scores()
        lines.append(f"Cave vs Cave: game over after {num_rounds} rounds; scores {scores}; "
                     f"returns {state.returns()}")
    else:
        whose = "chance" if state.is_chance_node() else f"player {state.current_player()}"
        lines.append(f"Cave vs Cave: round {d['round'] + 1} of {num_rounds}, turn {d['turn'] + 1}; "
                     f"{whose} to move")
    on_board = [t.index for t in r.tiles if t.stage == 1] + d["revealed_tiles"]
    tiles = [r.tiles[t].name + ("*" if d["taken"] >> t & 1 else "") for t in on_board]
    lines.append("Action board (* taken this round): " + ", ".join(tiles))
    if d["tile"] >= 0:
        lines.append(f"This turn: {r.tiles[d['tile']].name}; activations left {d['activation_left']}")
    display = [r.rooms[i].name for i in range(len(r.rooms) - 1) if d["display"] >> i & 1]
    lines.append("Display: " + (", ".join(display) or "(empty)"))
    lines.append(f"Walls in supply: {r.wall_supply - sum(bin(p['walls']).count('1') for p in d['players'])}")
    scores = state.scores()
    for i, player in enumerate(d["players"]):
        starter = " (starting player)" if d["starter"] == i and len(d["players"]) > 1 else ""
        lines.append("")
        lines.append(f"Player {i}{starter}: score {scores[i]}")
        lines.append("  " + render_goods(player))
        lines.extend("  " + line for line in render_cave(player))
    lines.append("")
    lines.append(LEGEND)
    return "\n".join(lines)
