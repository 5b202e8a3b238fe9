"""The Cave (Pairs deck) in the browser: the position as SVG, drawn only from what the viewer may see.

`board(state, viewer)` draws the Cave's cards, the deck (a count), and for each seat its hand, its captured
cards with the points they make this round, and its match total. With a `viewer` seat, the drawing is made
from `state.observation(viewer)` alone (the viewer's own hand face up, every other hand as face-down backs,
no deck order, no burned card), so the page of one seat cannot show another seat's cards; `viewer=None`
(a replay of a finished game, or an open game) shows every hand. The viewer's legal plays are the cards of
their hand (`card:R` targets). `score_breakdown(state)` lists each round's points and the match totals.
"""
from __future__ import annotations

from html import escape
from typing import Any

from ...core.api import CHANCE, TERMINAL
from ...core.pairs.rules import NUM_RANKS

CARD_W, CARD_H, GAP = 34, 48, 5
WIDTH = 760


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start", weight: str = "normal",
          fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}">{escape(text)}</text>')


def _cards(counts: list[int]) -> list[int]:
    return [rank for rank in range(NUM_RANKS) for _ in range(counts[rank])]


def _card(x: float, y: float, rank: int | None, target: str | None = None, where: str = "") -> str:
    """One card: face up with its rank (1 to 10), or a back (`rank` None)."""
    attributes = f' data-where="{where}"'
    if target is not None:
        attributes += f' data-target="{target}" class="target"'
    if rank is None:
        return (f'<g{attributes} data-card="back"><rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="4" '
                f'fill="#46627f" stroke="#223"/></g>')
    shade = 255 - 12 * rank
    return (f'<g{attributes} data-card="{rank + 1}"><rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="4" '
            f'fill="rgb(255,{shade},{shade - 20})" stroke="#333"/>'
            + _text(x + CARD_W / 2, y + 31, str(rank + 1), 17, "middle", "bold") + "</g>")


def _row(x: float, y: float, ranks: list[int | None], targets: dict[str, list[int]], where: str) -> list[str]:
    out = []
    for k, rank in enumerate(ranks):
        name = f"card:{rank}" if rank is not None and f"card:{rank}" in targets else None
        out.append(_card(x + k * (CARD_W + GAP), y, rank, name, where))
    if not ranks:
        out.append(_text(x, y + 28, "(none)", 11, fill="#777"))
    return out


def view_of(state: Any, viewer: int | None) -> dict[str, Any]:
    """What the drawing shows: the viewer's observation, or (viewer None, or the match over) everything."""
    d = state.to_dict()
    n = len(d["hands"])
    if viewer is not None and not state.is_terminal():
        view = state.observation(viewer)
        hands: list[list[int] | None] = [view["hands"][p] if "hands" in view else
                                         (view["hand"] if p == viewer else None) for p in range(n)]
        return {**view, "hands_shown": hands}
    observed = state.observation(0)
    return {**observed, "hands_shown": [list(h) for h in d["hands"]], "deck_size": sum(d["deck"]),
            "burned_count": sum(d["burned"])}


def board(state: Any, viewer: int | None = None) -> dict[str, Any]:
    """The position as SVG (`svg`) and the viewer's clickable cards (`targets`: `card:R` -> [action])."""
    view = view_of(state, viewer)
    player = state.current_player()
    targets: dict[str, list[int]] = {}
    if player >= 0 and (viewer is None or viewer == player):
        targets = {f"card:{a}": [a] for a in state.legal_actions()}
    n = len(view["hand_sizes"])
    status = {TERMINAL: "match over", CHANCE: "dealing"}.get(player, f"p{player} to play")
    dealer = view["dealer"]
    parts = [_text(10, 18, f"Round {view['round'] + 1} of {view['rounds']}, dealer "
                           f"{'?' if dealer < 0 else f'p{dealer}'}; {status}", 14, weight="bold"),
             _text(WIDTH - 10, 18, f"deck: {view['deck_size']} cards" +
                   (f", burned: {view['burned_count']}" if view["burned_count"] else ""), 12, "end"),
             _text(10, 44, "The Cave", 13, weight="bold")]
    parts += _row(10, 52, _cards(view["cave"]), {}, "cave")
    y = 52 + CARD_H + 20
    for p in range(n):
        you = " (you)" if p == viewer else ""
        colour = "#c0392b" if p == player else "#222"
        parts.append(f'<g data-seat="{p}" data-total="{view["totals"][p]}" '
                     f'data-round-points="{view["round_points"][p]}">'
                     + _text(10, y + 14, f"p{p}{you}: total {view['totals'][p]}, "
                                         f"{view['round_points'][p]} points this round"
                                         + ("  - to play" if p == player else ""), 13, weight="bold", fill=colour)
                     + "</g>")
        hand = view["hands_shown"][p]
        ranks: list[int | None] = _cards(hand) if hand is not None else [None] * view["hand_sizes"][p]
        parts.append(_text(10, y + 36, "hand", 11, fill="#555"))
        parts += _row(60, y + 22, ranks, targets if p == player else {}, f"hand:{p}")
        captured = _cards(view["captured"][p])
        parts.append(_text(10, y + 36 + CARD_H + 8, "captured", 11, fill="#555"))
        parts.append(_text(70, y + 36 + CARD_H + 8, " ".join(str(r + 1) for r in captured) or "-", 12))
        y += CARD_H + 64
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {y}" width="{WIDTH}" height="{y}" '
           f'class="board" font-family="sans-serif">' + "".join(parts) + "</svg>")
    return {"svg": svg, "targets": targets}


def score_breakdown(state: Any) -> list[dict[str, Any]]:
    """One row per seat and round (its points), then each seat's match total."""
    d = state.to_dict()
    rows = []
    for p in range(len(d["totals"])):
        for k, scores in enumerate(d["round_scores"]):
            rows.append({"player": p, "source": f"round {k + 1}", "points": scores[p]})
        rows.append({"player": p, "source": "total", "points": d["totals"][p]})
    return rows
