"""Cave vs Cave in the browser: the position drawn as SVG, with the legal actions attached to what they touch.

`board(state, viewer)` draws the action board (this round's tiles, taken ones dimmed), the display of rooms with
their costs and points, and each player's goods track and cave (every space with its room, the walls: printed,
built and empty slots, the entrance opening, the Additional Cavern once it is in play). Every element a legal
action touches carries `data-target`, and `targets` maps each such target to the action ids that touch it, so
the page can play an action by a click on the board (the generic page, `cavekit.analysis.web`, does the rest).
Cave vs Cave hides nothing, so `viewer` changes nothing here. `score_breakdown(state)` lists where each
player's points came from. Both work from `to_dict()`, so both engines draw the same.
"""
from __future__ import annotations

from html import escape
from typing import Any

from ...core.cvc.actions import (
    CAVERN_SIDE,
    CONVERT,
    PROSPECT,
    ROOM_USE,
    TAKE,
    TILE_OPTION,
    action_table,
    space_name,
    wall_name,
)
from ...core.cvc.board import EMPTY, FACE_DOWN, UNAVAILABLE
from ...core.cvc.rules import (
    CAVERN,
    GOLD,
    GOODS,
    NATURAL,
    NUM_BOARD_SPACES,
    NUM_BOARD_WALL_SLOTS,
    OPENING,
    rules,
)

GOOD_COLOURS = {"wood": "#9c6b3c", "stone": "#8d8d8d", "emmer": "#e0b93b", "flax": "#5b8fd1", "food": "#d1553f",
                "gold": "#d4a017"}
CELL_W, CELL_H = 118, 58         # one cave space
TILE_W, TILE_H = 96, 34          # one action tile
CARD_W, CARD_H = 118, 46         # one room of the display
CAVE_LEFT = 50                   # room for the entrance label left of each cave
WIDTH = 2 * (3 * CELL_W + 40 + CAVE_LEFT) + 100
TILES_PER_ROW = (WIDTH - 20) // (TILE_W + 6)


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "middle", weight: str = "normal",
          fill: str = "#222", cls: str = "") -> str:
    extra = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}"{extra}>{escape(text)}</text>')


def _target(name: str, targets: dict[str, list[int]]) -> str:
    """The attributes of an element that legal actions touch (none if no legal action does)."""
    return f' data-target="{name}" class="target"' if name in targets else ""


def action_targets(state: Any) -> dict[str, list[int]]:
    """Each board target (`tile:I`, `room:R`, `space:P:S`, `wall:P:W`, `good:P:G`) -> the legal actions touching it."""
    if state.is_terminal() or state.is_chance_node():
        return {}
    table = action_table()
    mover = state.current_player()
    spaces = state.to_dict()["players"][mover]["spaces"]
    found: dict[str, list[int]] = {}

    def add(name: str, action: int) -> None:
        found.setdefault(name, [])
        if action not in found[name]:
            found[name].append(action)

    for action in state.legal_actions():
        spec = table.specs[action]
        if spec.kind == TAKE:
            add(f"tile:{spec.tile}", action)
        elif spec.kind == CONVERT:
            add(f"good:{mover}:{spec.good}", action)
        elif spec.kind == CAVERN_SIDE:
            add(f"space:{mover}:{CAVERN}", action)
        elif spec.kind == PROSPECT:
            for s, content in enumerate(spaces):
                if content >= 0 and rules().rooms[content].id == "prospecting_site":
                    add(f"space:{mover}:{s}", action)
        elif spec.kind == ROOM_USE:
            for s, content in enumerate(spaces):
                if content == spec.room:
                    add(f"space:{mover}:{s}", action)
        elif spec.kind == TILE_OPTION:
            touched = False
            for choice in spec.choices:
                option = rules().tiles[spec.tile].slots[choice.slot][choice.option]
                for op in option:
                    if op.kind == "excavate":
                        for s in choice.param:
                            add(f"space:{mover}:{s}", action)
                        touched = True
                    elif op.kind == "furnish":
                        room, s = choice.param
                        add(f"room:{room}", action)
                        add(f"space:{mover}:{s}", action)
                        touched = True
                    elif op.kind in ("build_wall", "raze_wall"):
                        add(f"wall:{mover}:{choice.param}", action)
                        touched = True
                    elif op.kind in ("gain_one_of", "replenish_one_of"):
                        add(f"good:{mover}:{choice.param}", action)
                        touched = True
            if not touched:
                add(f"tile:{spec.tile}", action)
    return found


def _cost_text(cost: tuple[int, ...]) -> str:
    return " ".join(f"{n} {GOODS[g]}" for g, n in enumerate(cost) if n) or "free"


def _action_board(d: dict[str, Any], targets: dict[str, list[int]], top: int) -> list[str]:
    r = rules()
    y = top
    on_board = [t.index for t in r.tiles if t.stage == 1] + list(d["revealed_tiles"])
    out = [_text(10, y + 14, "Action board", 14, "start", "bold")]
    for k, t in enumerate(on_board):
        x = 10 + (k % TILES_PER_ROW) * (TILE_W + 6)
        y = top + (k // TILES_PER_ROW) * (TILE_H + 6)
        taken = bool(d["taken"] >> t & 1)
        current = d["tile"] == t
        fill = "#cfc7b8" if taken else "#f3e3b5"
        stroke = "#c0392b" if current else "#7a6a4f"
        label = r.tiles[t].name
        out.append(f'<g{_target(f"tile:{t}", targets)} data-tile="{escape(label)}">'
                   f'<rect x="{x}" y="{y + 22}" width="{TILE_W}" height="{TILE_H}" rx="5" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{3 if current else 1.5}"/>'
                   + _text(x + TILE_W / 2, y + 22 + 15, label, 11, weight="bold",
                           fill="#777" if taken else "#222")
                   + _text(x + TILE_W / 2, y + 22 + 28, "taken" if taken else f"stage {r.tiles[t].stage}", 9,
                           fill="#777")
                   + "</g>")
    return out


def _display(d: dict[str, Any], targets: dict[str, list[int]], y: int) -> list[str]:
    r = rules()
    rooms = [i for i in range(len(r.rooms) - 1) if d["display"] >> i & 1]
    out = [_text(10, y + 14, "Display (cost, points)", 14, "start", "bold")]
    per_row = (WIDTH - 20) // (CARD_W + 6)
    for k, room in enumerate(rooms):
        x = 10 + (k % per_row) * (CARD_W + 6)
        top = y + 22 + (k // per_row) * (CARD_H + 6)
        out.append(_room_card(room, x, top, targets))
    return out


def _room_card(room: int, x: float, y: float, targets: dict[str, list[int]]) -> str:
    info = rules().rooms[room]
    fill = "#f6c89f" if info.orange else "#b9d3ee"
    return (f'<g{_target(f"room:{room}", targets)} data-room="{escape(info.name)}">'
            f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="4" fill="{fill}" stroke="#555"/>'
            + _text(x + CARD_W / 2, y + 16, info.name, 11, weight="bold")
            + _text(x + CARD_W / 2, y + 31, _cost_text(info.cost), 9)
            + _text(x + CARD_W / 2, y + 42, f"{info.vp} points", 9, fill="#444") + "</g>")


def _goods(player: dict[str, Any], p: int, x: int, y: int, targets: dict[str, list[int]]) -> list[str]:
    out = []
    caps = rules().caps
    for g, name in enumerate(GOODS):
        row = y + g * 17
        n = player["goods"][g]
        width = 150 * n / caps[g]
        out.append(f'<g{_target(f"good:{p}:{g}", targets)} data-good="{name}" data-amount="{n}">'
                   + _text(x, row + 11, name, 11, "start")
                   + f'<rect x="{x + 44}" y="{row + 2}" width="150" height="11" fill="#eee" stroke="#bbb"/>'
                   f'<rect x="{x + 44}" y="{row + 2}" width="{width:.1f}" height="11" fill="{GOOD_COLOURS[name]}"/>'
                   + _text(x + 200, row + 11, f"{n}/{caps[g]}", 11, "start") + "</g>")
    return out


def _space_origin(space: int, x: int, y: int) -> tuple[float, float]:
    if space == CAVERN:
        return x + 2 * CELL_W + 20, y + 0.5 * CELL_H
    s = rules().spaces[space]
    return x + s.col * CELL_W, y + s.row * CELL_H


def _edge(space: int, side: int, x: int, y: int) -> tuple[float, float, float, float]:
    sx, sy = _space_origin(space, x, y)
    return [(sx, sy, sx + CELL_W, sy), (sx + CELL_W, sy, sx + CELL_W, sy + CELL_H),
            (sx, sy + CELL_H, sx + CELL_W, sy + CELL_H), (sx, sy, sx, sy + CELL_H)][side]


def _wall(line: tuple[float, float, float, float], kind: str, name: str, targets: dict[str, list[int]],
          label: str) -> str:
    x1, y1, x2, y2 = line
    style = {"natural": 'stroke="#3b2f2f" stroke-width="6"', "built": 'stroke="#a0522d" stroke-width="6"',
             "empty": 'stroke="#c9bda8" stroke-width="2" stroke-dasharray="4 4"'}[kind]
    hit = ""
    if name in targets:       # a wide transparent line, easy to click
        hit = (f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="transparent" '
               f'stroke-width="14"/>')
    return (f'<g{_target(name, targets)} data-wall="{label}" data-kind="{kind}">'
            f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" {style} stroke-linecap="round"/>'
            f"{hit}</g>")


def _cave(player: dict[str, Any], p: int, x: int, y: int, targets: dict[str, list[int]]) -> list[str]:
    r = rules()
    out = []
    spaces = list(range(NUM_BOARD_SPACES)) + ([CAVERN] if player["spaces"][CAVERN] != UNAVAILABLE else [])
    for s in spaces:
        sx, sy = _space_origin(s, x, y)
        content = player["spaces"][s]
        if content == FACE_DOWN:
            fill, label, sub = "#8b8378", "?", "face down"
        elif content == EMPTY:
            fill, label, sub = "#efe6d6", "(empty)", ""
        else:
            room = r.rooms[content]
            fill = "#f6c89f" if room.orange else "#b9d3ee"
            label, sub = room.name, f"{room.vp} points"
        out.append(f'<g{_target(f"space:{p}:{s}", targets)} data-space="{space_name(s)}" '
                   f'data-content="{escape(label)}">'
                   f'<rect x="{sx + 3:.0f}" y="{sy + 3:.0f}" width="{CELL_W - 6}" height="{CELL_H - 6}" rx="3" '
                   f'fill="{fill}"/>'
                   + _text(sx + 8, sy + 16, space_name(s), 9, "start", fill="#333")
                   + _text(sx + CELL_W / 2, sy + 32, label, 11, weight="bold",
                           fill="#fff" if content == FACE_DOWN else "#222")
                   + (_text(sx + CELL_W / 2, sy + 46, sub, 9, fill="#eee" if content == FACE_DOWN else "#444")
                      if sub else "") + "</g>")
    # Printed walls and the entrance: the sides of each space that are no slot.
    for s in range(NUM_BOARD_SPACES):
        for d, side in enumerate(r.spaces[s].sides):
            if side == NATURAL:
                out.append(_wall(_edge(s, d, x, y), "natural", "", targets, f"{space_name(s)}-{'NESW'[d]}"))
            elif side == OPENING:
                x1, y1, x2, y2 = _edge(s, d, x, y)
                out.append(_text(x1 - 4, (y1 + y2) / 2 + 4, "entrance", 9, "end", fill="#555"))
    # Wall slots, built or empty, each drawn once on the edge between its two spaces.
    for w, (a, b) in enumerate(r.wall_slots):
        side = r.spaces[a].sides.index(w)
        kind = "built" if player["walls"] >> w & 1 else "empty"
        out.append(_wall(_edge(a, side, x, y), kind, f"wall:{p}:{w}", targets, wall_name(w)))
    if player["spaces"][CAVERN] != UNAVAILABLE:
        for d in range(4):
            w = NUM_BOARD_WALL_SLOTS + d
            if player["cavern_sides"] >> d & 1:
                kind = "natural"
            else:
                kind = "built" if player["walls"] >> w & 1 else "empty"
            out.append(_wall(_edge(CAVERN, d, x, y), kind, f"wall:{p}:{w}", targets, wall_name(w)))
    elif f"space:{p}:{CAVERN}" in targets:
        sx, sy = _space_origin(CAVERN, x, y)
        out.append(f'<g{_target(f"space:{p}:{CAVERN}", targets)} data-space="ac">'
                   f'<rect x="{sx + 3:.0f}" y="{sy + 3:.0f}" width="{CELL_W - 6}" height="{CELL_H - 6}" rx="3" '
                   f'fill="#fff" stroke="#888" stroke-dasharray="5 3"/>'
                   + _text(sx + CELL_W / 2, sy + 33, "Additional Cavern", 10) + "</g>")
    return out


def board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The position as one SVG document (`svg`) and what each clickable element plays (`targets`)."""
    d = state.to_dict()
    targets = action_targets(state)
    scores = state.scores()
    parts: list[str] = []
    parts += _action_board(d, targets, 0)
    tile_rows = -(-(len(d["revealed_tiles"]) + sum(t.stage == 1 for t in rules().tiles)) // TILES_PER_ROW)
    display_top = 22 + tile_rows * (TILE_H + 6) + 10
    parts += _display(d, targets, display_top)
    rows = -(-bin(d["display"]).count("1") // ((WIDTH - 20) // (CARD_W + 6)))
    top = display_top + 26 + max(1, rows) * (CARD_H + 6) + 10
    mover = -1 if state.is_terminal() or state.is_chance_node() else state.current_player()
    cave_width = 3 * CELL_W + 40 + CAVE_LEFT + 50
    for p, player in enumerate(d["players"]):
        x = 10 + p * cave_width
        heading = f"Player {p}: {scores[p]} points" + ("  (starting player)" if d["starter"] == p and
                                                        len(d["players"]) > 1 else "")
        colour = "#c0392b" if p == mover else "#222"
        parts.append(f'<g data-player="{p}" data-score="{scores[p]}">'
                     + _text(x, top + 14, heading + ("  - to move" if p == mover else ""), 14, "start", "bold",
                             colour) + "</g>")
        parts += _goods(player, p, x, top + 22, targets)
        parts += _cave(player, p, x + CAVE_LEFT, top + 22 + 6 * 17 + 14, targets)
    height = top + 22 + 6 * 17 + 14 + 5 * CELL_H + 20
    r = rules()
    supply = r.wall_supply - sum(bin(q["walls"]).count("1") for q in d["players"])
    turns = len(r.turns[len(d["players"])])
    status = (f"Round {min(d['round'], turns - 1) + 1} of {turns}, turn {d['turn'] + 1}; walls in supply: {supply}"
              + (f"; this turn: {r.tiles[d['tile']].name}" if d["tile"] >= 0 else ""))
    parts.append(_text(WIDTH - 10, 14, status, 12, "end", cls="status"))
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
           f'height="{height}" class="board" font-family="sans-serif">' + "".join(parts) + "</svg>")
    return {"svg": svg, "targets": targets}


def score_breakdown(state: Any) -> list[dict[str, Any]]:
    """One row per player and source of points: each room with its points, then gold, then the total."""
    r = rules()
    d = state.to_dict()
    rows = []
    for p, player in enumerate(d["players"]):
        for s, content in enumerate(player["spaces"]):
            if content >= 0 and r.rooms[content].vp:
                rows.append({"player": p, "source": f"{r.rooms[content].name} ({space_name(s)})",
                             "points": r.rooms[content].vp})
        rows.append({"player": p, "source": "gold", "points": player["goods"][GOLD]})
        rows.append({"player": p, "source": "total", "points": state.scores()[p]})
    return rows
