"""Cavum in the browser: the mountain drawn as an SVG hex map, its cells and city spaces clickable.

`board(state, viewer)` draws every cell of the mountain (the top tile's kind, dynamite, height, a vein's colour
and stones, a station) and the city spaces around it (their stations), and attaches each legal action that
names a cell (`lay two at -3,4 r2`, `station at -3,4`, `vein red at -3,3`, `prospect via -3,5`, `prospect:
take stone at -3,3`) or a city space (`station at S3`, `prospect from S3`) to that cell or space (`cell:Q,R`,
`space:NAME`). Everything else (scales, the players' stones, orders) is shown by the game's renderer, whose text
the page keeps open beside the map (`show_text`), and is what hides other players' stone colours. The map
itself shows nothing hidden: tiles, veins and stations are public.
"""
from __future__ import annotations

import math
import re
from html import escape
from typing import Any

from ...core.cavum.rules import KINDS, rules

SIZE = 24                          # hex radius in pixels
COLOURS = {"yellow": "#e8c53a", "red": "#d0453a", "blue": "#3f6fc9", "green": "#4f9a4a", "white": "#f2f2f2",
           "violet": "#8a4fb3"}
KIND_FILL = {"two": "#d9c7a7", "three": "#c7ae86", "four": "#b39467", "six": "#8f7148"}
CELL_IN_TEXT = re.compile(r"(?:at|via) (-?\d+),(-?\d+)\b")
SPACE_IN_TEXT = re.compile(r"(?:at|from) ([A-Z]+\d+)\b")


def _centre(q: int, r: int) -> tuple[float, float]:
    """A cell's centre on the page (axial coordinates, pointy-top hexagons; the mountain spans -6..6)."""
    return (SIZE * math.sqrt(3) * (q + r / 2 + 6.7), SIZE * (1.5 * r + 10))


def _hexagon(x: float, y: float) -> str:
    points = " ".join(f"{x + SIZE * math.cos(math.radians(60 * k - 30)):.1f},"
                      f"{y + SIZE * math.sin(math.radians(60 * k - 30)):.1f}" for k in range(6))
    return points


def action_targets(state: Any) -> dict[str, list[int]]:
    """Each cell (`cell:Q,R`) or city space (`space:NAME`) -> the legal actions whose notation names it."""
    if state.is_terminal() or state.is_chance_node():
        return {}
    found: dict[str, list[int]] = {}
    for action in state.legal_actions():
        text = state.action_to_string(action)
        cell = CELL_IN_TEXT.search(text)
        space = SPACE_IN_TEXT.search(text)
        if cell:
            found.setdefault(f"cell:{cell.group(1)},{cell.group(2)}", []).append(action)
        elif space:
            found.setdefault(f"space:{space.group(1)}", []).append(action)
    return found


def board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The mountain as SVG (`svg`), what each cell and city space plays (`targets`), and `show_text`."""
    r = rules()
    view = state.view()
    targets = action_targets(state)
    parts = []
    for cell, (q, row) in enumerate(r.cells):
        x, y = _centre(q, row)
        code = view.top(cell)
        name = f"cell:{q},{row}"
        fill, label = "#f4efe6", ""
        if code:
            piece = (code - 1) % 8
            kind = KINDS[piece // 2]
            fill = KIND_FILL[kind]
            label = {"two": "2", "three": "3", "four": "4", "six": "6"}[kind] + ("d" if piece % 2 else "")
        attributes = f' data-cell="{q},{row}" data-height="{view.height[cell]}"'
        if name in targets:
            attributes += f' data-target="{name}" class="target"'
        parts.append(f"<g{attributes}><polygon points=\"{_hexagon(x, y)}\" fill=\"{fill}\" stroke=\"#7a6a4f\"/>")
        if view.vein_stones[cell] > 0:
            colour = r.colours[view.vein_colour[cell]]
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.55:.1f}" fill="{COLOURS[colour]}" '
                         f'stroke="#333"/><text x="{x:.1f}" y="{y + 4:.1f}" font-size="11" text-anchor="middle" '
                         f'font-weight="bold">{view.vein_stones[cell]}</text>')
        elif label:
            parts.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="12" text-anchor="middle">{label}</text>')
        if view.height[cell] > 1:
            parts.append(f'<text x="{x + SIZE * 0.5:.1f}" y="{y + SIZE * 0.6:.1f}" font-size="8" '
                         f'fill="#333">h{view.height[cell]}</text>')
        if view.station[cell] >= 0:
            parts.append(f'<rect x="{x - 5:.1f}" y="{y - SIZE * 0.8:.1f}" width="10" height="8" fill="#222"/>'
                         f'<text x="{x:.1f}" y="{y - SIZE * 0.8 + 7:.1f}" font-size="7" fill="#fff" '
                         f'text-anchor="middle">p{view.station[cell]}</text>')
        parts.append("</g>")
    for s, (q, row) in enumerate(r.city_space_coords):
        x, y = _centre(q, row)
        space = r.city_space_names[s]
        owner = view.city_station[s]
        name = f"space:{space}"
        attributes = f' data-space="{escape(space)}"'
        if name in targets:
            attributes += f' data-target="{name}" class="target"'
        parts.append(f'<g{attributes}><circle cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.75:.1f}" '
                     f'fill="{"#3b2f2f" if owner >= 0 else "#fff"}" stroke="#3b2f2f"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="10" text-anchor="middle" '
                     f'fill="{"#fff" if owner >= 0 else "#222"}">{escape(space if owner < 0 else f"p{owner}")}'
                     "</text></g>")
    width, height = round(SIZE * math.sqrt(3) * 13.4), 21 * SIZE
    prices = "; ".join(f"{c} {view.price(i)}" for i, c in enumerate(r.colours))
    parts.append(f'<text x="8" y="{height - 8}" font-size="11">prices: {escape(prices)}</text>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" class="board" font-family="sans-serif">' + "".join(parts) + "</svg>")
    return {"svg": svg, "targets": targets, "show_text": True}
