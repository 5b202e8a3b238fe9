"""Text rendering of a Cavum position for a person: the mountain, the cities, scales, players and orders."""
from __future__ import annotations

from typing import Any

from .actions import piece_name
from .rules import KINDS, rules
from .stages import STAGE_NAMES


def _cell_text(state: Any, cell: int) -> str:
    """Three characters: top tile kind (2/3/4/6, lower-case d for dynamite), vein or station marker.

    `state` is a `PositionView`."""
    code = state.top(cell)
    if not code:
        return " . "
    piece = (code - 1) % 8
    kind = KINDS[piece // 2]
    mark = {"two": "2", "three": "3", "four": "4", "six": "6"}[kind] + ("d" if piece % 2 else " ")
    if state.vein_stones[cell] > 0:
        mark = rules().colours[state.vein_colour[cell]][0].upper() + str(state.vein_stones[cell])
    if state.station[cell] >= 0:
        mark = mark[0] + "*"
    return mark + str(state.height[cell]) if state.height[cell] > 1 else mark + " "


def render_state(state: Any, player: int | None = None) -> str:
    """The position (a Cavum state) as lines of text, read from its `view()`: everything (`player` None), or
    what `player` sees (the others' stones as counts while their colours are hidden)."""
    r = rules()
    to_move = state.current_player()
    hidden = player is not None and not state._hands_visible()
    state = state.view()
    lines = [f"Cavum, {state.n} players, phase {state.phase + 1}/{r.phases}, {STAGE_NAMES[state.stage]}, "
             f"to move: {to_move}"]
    by_coord = {rc: i for i, rc in enumerate(r.cells)}
    spaces = {rc: i for i, rc in enumerate(r.city_space_coords)}
    for row in range(-6, 7):
        parts = []
        for q in range(max(-6, -6 - row), min(6, 6 - row) + 1):
            if (q, row) in by_coord:
                parts.append(_cell_text(state, by_coord[(q, row)]))
            elif (q, row) in spaces:
                s = spaces[(q, row)]
                owner = state.city_station[s]
                parts.append(r.city_space_names[s].ljust(3)[:3] if owner < 0 else f"p{owner} ")
            else:
                parts.append("## ")
        lines.append(" " * abs(row) * 2 + " ".join(parts))
    lines.append("scales (price): " + ", ".join(f"{c} {state.price(i)}" for i, c in enumerate(r.colours)))
    pool = [f"{piece_name(p)} x{n}" for p, n in enumerate(state.pool) if n]
    lines.append("buy pool: " + (", ".join(pool) or "empty") + f"; stations {list(state.pool_stations)}")
    for p in range(state.n):
        held = [f"{piece_name(i)} x{n}" for i, n in enumerate(state.board[p * 10:(p + 1) * 10]) if n]
        orders = [r.order_cards[i].id for i, o in enumerate(state.owner) if o == p]
        lines.append(f"p{p}: score {state.scores_[p]}, card {state.seq_card[p] or '-'}, "
                     f"actions {state.used[p]}/12, stones "
                     f"{f'{sum(state.hand(p))} (colours hidden)' if hidden and p != player else list(state.hand(p))}, "
                     f"orders {orders or '-'}, "
                     f"board: {', '.join(held) or '-'}, options {state.options[p]}, prospect {state.prospects[p]}")
    lines.append("display: " + (", ".join(f"{r.order_cards[i].id}" + (f"+{state.chips[i]}chip" if state.chips[i] else "")
                                          for i in state.display) or "empty"))
    return "\n".join(lines)
