"""Cavum heuristics: an evaluator (registered for the game `cavum`) and a one-step heuristic agent.

The evaluator estimates each player's final score: the score now, plus the stones held at their current
prices, plus the orders the player can already fulfil (their points; the stones' value is then not counted
twice), minus the penalties of orders that cannot be fulfilled, plus what live city stations will still earn
in the city scorings left. Returns-shaped: each player gets `tanh((own - best other) / CAVUM_SCALE)`, exact
returns once the game is over.

`cavum_heuristic` plays the legal action whose result evaluates best for the mover (ties broken at random
from its seeded generator); while prospecting it prefers steps onto veins with stones, since a route's
value only shows when it is finished. The sequence auction is the exception, because the evaluator cannot
see what turn order is worth (a bid costs nothing until the auction closes): there the agent values winning
at `order_value` points per turn position it expects to gain (the winner picks the first free position;
a loser ends up on average (m - 1) / 2 positions later, with m players still without a card), raises by
one while the new bid stays within that value, otherwise passes; an opener who must bid bids 0; and an
auction winner takes the earliest free sequence card. The default `order_value` (1.5 points) is the
break-even bid per position measured by the bidding analysis (`notebooks/cavum_bidding.ipynb`).
`bidding=evaluator` switches that rule off (the evaluator then sees no difference between bids or cards, so
its seeded tie-break picks them at random): the bidding analysis plays that variant because it hands turn
positions out at random, which makes the measured value of a position causal.

Everything is read through the public State API and `state.view()` (the read-only `PositionView` both
Cavum engines provide), never an engine's own fields; the functions below that take a `view` take that.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.api import ConfigError, Game, State
from ..core.cavum.actions import BID, CHOOSE_CARD, PASS, action_table
from ..core.cavum.estimate import CAVUM_SCALE, ORDER_SHARE
from ..core.cavum.rules import rules
from ..core.cavum.spec import SPEC
from ..core.cavum.stages import AUCTION, BUILD, CHOOSE, FINAL_SALE
from ..core.cavum.view import PositionView
from .agent import choosable_actions, register_agent

ORDER_VALUE = 1.5           # points per turn position (see the module docstring)
BIDDING_RULES = ("value", "evaluator")


def scorings_left(view: PositionView) -> int:
    """City scorings still to come: one per phase not yet scored, plus the final one (none in the final sale)."""
    phases = rules().phases
    if view.stage >= FINAL_SALE:
        return 0
    if view.stage <= BUILD:
        return phases - view.phase + 1
    return phases - view.phase


def expected_points(state: Any) -> list[float]:
    """Each player's estimated final score (see the module docstring); `state` is a state or its view."""
    view = state if isinstance(state, PositionView) else state.view()
    r = rules()
    k = len(r.colours)
    n = view.n
    left = scorings_left(view)
    city_station = view.city_station
    city_value = [0.0] * n
    if left and any(owner >= 0 for owner in city_station):
        for spaces in r.city_spaces:
            live = [city_station[s] for s in spaces if city_station[s] >= 0 and view.live(s)]
            open_spaces = len(spaces) - len(live)       # empty spaces and dead stations
            for owner in live:
                city_value[owner] += open_spaces * left
    prices = [max(view.price(c), 1) for c in range(k)]
    hands = [view.hand(p) for p in range(n)]
    orders = [0.0] * n
    for i, owner in enumerate(view.owner):
        if owner >= 0:
            needs, points, penalty, stones = _order_needs()[i]
            hand = hands[owner]
            if all(hand[c] >= count for c, count in needs):
                orders[owner] += ORDER_SHARE * points - sum(prices[c] for c in stones)
            else:
                orders[owner] -= penalty
    scores = view.scores_
    return [scores[p] + sum(hands[p][c] * prices[c] for c in range(k)) + orders[p] + city_value[p]
            for p in range(n)]


_ORDER_NEEDS: list[tuple[tuple[tuple[int, int], ...], int, int, tuple[int, ...]]] = []


def _order_needs() -> list[tuple[tuple[tuple[int, int], ...], int, int, tuple[int, ...]]]:
    """Per order card: (colour, stones needed) pairs, points, penalty and its stones (computed once)."""
    if not _ORDER_NEEDS:
        _ORDER_NEEDS.extend((tuple((c, card.stones.count(c)) for c in sorted(set(card.stones))), card.points,
                             card.penalty, tuple(card.stones)) for card in rules().order_cards)
    return _ORDER_NEEDS


def cavum_evaluate(state: Any, view: PositionView | None = None) -> list[float]:
    """Estimated returns of a Cavum state (exact returns once it is over); `view` is its view, if at hand."""
    if state.is_terminal():
        return state.returns()
    values = expected_points(view if view is not None else state.view())
    out = []
    for p, v in enumerate(values):
        best_other = max(values[q] for q in range(len(values)) if q != p)
        out.append(math.tanh((v - best_other) / CAVUM_SCALE))
    return out


class CavumHeuristicAgent:
    """Plays the action whose result the Cavum evaluator likes best for the mover."""

    name = "cavum_heuristic"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None, vein_bonus: float = 0.05,
                 order_value: float = ORDER_VALUE, bidding: str = "value"):
        if bidding not in BIDDING_RULES:
            raise ConfigError(f"cavum_heuristic: bidding={bidding!r} is not allowed; allowed: {', '.join(BIDDING_RULES)}")
        self.game = game
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self.vein_bonus = vein_bonus
        self.order_value = order_value
        self.bidding = bidding

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)

    def step(self, state: State) -> int:
        legal = choosable_actions(state)
        if len(legal) == 1:
            return int(legal[0])
        turn_order_move = self._turn_order_move(state, legal) if self.bidding == "value" else None
        if turn_order_move is not None:
            return turn_order_move
        player = state.current_player()
        best, best_value = legal[0], -math.inf
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            view = child.view()
            value = cavum_evaluate(child, view)[player]
            route = view.route
            if route and route[-1] < rules().num_cells and view.vein_stones[route[-1]] > 0:
                value += self.vein_bonus
            value += 1e-9 * self.rng.random()
            if value > best_value:
                best, best_value = action, value
        return int(best)


    def _turn_order_move(self, state: Any, legal: list[int]) -> int | None:
        """The sequence-auction bid or pass, or the card an auction winner takes; None at any other stage."""
        table = action_table()
        view = state.view()
        if view.stage == CHOOSE:
            cards = [a for a in legal if table.specs[a].kind == CHOOSE_CARD]
            return min(cards, key=lambda a: table.specs[a].a) if cards else None
        if view.stage != AUCTION:
            return None
        bids = {table.specs[a].a: a for a in legal if table.specs[a].kind == BID}
        passes = [a for a in legal if table.specs[a].kind == PASS]
        if not passes:                                   # the opener must bid: as little as allowed
            return bids[min(bids)]
        without_card = sum(1 for card in view.seq_card if not card)
        worth = self.order_value * (without_card - 1) / 2
        raise_to = view.bid + 1
        return bids[raise_to] if raise_to in bids and raise_to <= worth else passes[0]


register_agent("cavum_heuristic", CavumHeuristicAgent, {"vein_bonus": float, "order_value": float, "bidding": str},
               game=SPEC.name)
