"""Cavum heuristics: an evaluator (registered for the game `cavum`) and a one-step heuristic agent.

The evaluator estimates each player's final score: the score now, plus the stones held at their current
prices, plus the orders the player can already fulfil (their points; the stones' value is then not counted
twice), minus the penalties of orders that cannot be fulfilled, plus what live city stations will still earn
in the city scorings left. Returns-shaped: each player gets `tanh((own - best other) / CAVUM_SCALE)`, exact
returns once the game is over.

`cavum_heuristic` plays the legal action whose result evaluates best for the mover (ties broken at random
from its seeded generator); while prospecting it prefers steps onto veins with stones, since a route's
value only shows when it is finished.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.api import CHANCE, Game, State
from ..core.cavum.rules import rules
from .agent import register_agent
from .evaluation import register_evaluator

CAVUM_SCALE = 15.0          # points of lead that make tanh about 0.76
ORDER_SHARE = 0.8           # an order that can be fulfilled is not yet fulfilled


def scorings_left(state: Any) -> int:
    """City scorings still to come: one per phase not yet scored, plus the final one (none in the final sale)."""
    from ..core.cavum.reference import BUILD, FINAL_SALE
    phases = rules().phases
    if state.stage >= FINAL_SALE:
        return 0
    if state.stage <= BUILD:
        return phases - state.phase + 1
    return phases - state.phase


def expected_points(state: Any) -> list[float]:
    """Each player's estimated final score (see the module docstring)."""
    r = rules()
    k = len(r.colours)
    left = scorings_left(state)
    city_value = [0.0] * state.n
    for spaces in r.city_spaces:
        live = {s: state.live(s) for s in spaces if state.city_station[s] >= 0}
        open_spaces = sum(1 for s in spaces if state.city_station[s] < 0 or not live[s])
        for s, is_live in live.items():
            if is_live:
                city_value[state.city_station[s]] += open_spaces * left
    values = []
    for p in range(state.n):
        hand = state.hand(p)
        stones = sum(hand[c] * max(state.price(c), 1) for c in range(k))
        orders = 0.0
        for i, card in enumerate(r.order_cards):
            if state.owner[i] != p:
                continue
            if all(hand[c] >= card.stones.count(c) for c in set(card.stones)):
                orders += ORDER_SHARE * card.points - sum(max(state.price(c), 1) for c in card.stones)
            else:
                orders -= card.penalty
        values.append(state.scores_[p] + stones + orders + city_value[p])
    return values


def cavum_evaluate(state: Any) -> list[float]:
    """Estimated returns of a Cavum state (exact returns once it is over)."""
    if state.is_terminal():
        return state.returns()
    values = expected_points(state)
    out = []
    for p, v in enumerate(values):
        best_other = max(values[q] for q in range(len(values)) if q != p)
        out.append(math.tanh((v - best_other) / CAVUM_SCALE))
    return out


class CavumHeuristicAgent:
    """Plays the action whose result the Cavum evaluator likes best for the mover."""

    name = "cavum_heuristic"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None, vein_bonus: float = 0.05):
        self.game = game
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self.vein_bonus = vein_bonus

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)

    def step(self, state: State) -> int:
        if state.current_player() == CHANCE:
            raise ValueError("agents choose player actions; sample chance outcomes from chance_outcomes()")
        legal = state.legal_actions()
        if not legal:
            raise ValueError("no legal action: the game is over")
        if len(legal) == 1:
            return int(legal[0])
        player = state.current_player()
        best, best_value = legal[0], -math.inf
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            value = cavum_evaluate(child)[player]
            route = getattr(child, "route", [])
            if route and route[-1] < rules().num_cells and child.vein_stones[route[-1]] > 0:
                value += self.vein_bonus
            value += 1e-9 * self.rng.random()
            if value > best_value:
                best, best_value = action, value
        return int(best)


register_evaluator("cavum", cavum_evaluate)
register_agent("cavum_heuristic", CavumHeuristicAgent, {"vein_bonus": float})
