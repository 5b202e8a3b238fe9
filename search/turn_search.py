"""Search over the rest of one player's turn: the best end-of-turn evaluation each action can lead to.

A turn of Cave vs Cave is several atomic actions by one player (`take <tile>`, sub-actions, `end turn`),
with chance nodes inside it when an excavated room is turned up. `TurnSearch` explores every state the
player to move can reach before their turn ends, averages over chance outcomes by probability, and
evaluates the states where the turn is over with the game's heuristic evaluator (the mover's component).

Three small hooks, methods a game may define, keep this generic:
- `game.turn_is_over(before, action, after)`: true when applying `action` to `before` (giving `after`)
  ended the turn. Without it every player action is a whole turn (one-ply greedy).
- `game.state_key(state)`: a cheap hashable key identifying a position (history excluded) for the
  transposition tables; without it, `serialize()`.
- `game.finish_turn_action(state)`: the action that ends the turn at once (Cave vs Cave: `end turn`), used
  when the node budget runs out: the remaining state is finished that way and evaluated, a real (if modest)
  way to complete the turn; games without one have the state evaluated as it is.
"""
from __future__ import annotations

import math
from typing import Callable, Hashable

import numpy as np

from ..core.api import CHANCE, Game, State, sample_chance_outcome
from .evaluation import Evaluator, evaluator_for

TurnOver = Callable[[State, int, State], bool]
StateKey = Callable[[State], Hashable]
Finisher = Callable[[State], "int | None"]


# ----------------------------------------------------------------------------------------------------
# Per-game hooks

def single_action_turns(before: State, action: int, after: State) -> bool:
    """Generic rule: each player action is a whole turn; a chance outcome never ends one."""
    return before.current_player() != CHANCE


def _serialized_key(state: State) -> Hashable:
    return state.serialize()


def _no_finisher(state: State) -> int | None:
    return None


def turn_rule_for(game: Game) -> TurnOver:
    """The game's own `turn_is_over(before, action, after)`, or one action per turn."""
    own = getattr(game, "turn_is_over", None)
    return own if own is not None else single_action_turns


def has_multi_action_turns(game: Game) -> bool:
    """Whether a turn of this game can be several actions (so searching whole turns makes sense)."""
    return turn_rule_for(game) is not single_action_turns


def state_key_for(game: Game) -> StateKey:
    """A function giving a cheap hashable key of a position, for transposition tables."""
    own = getattr(game, "state_key", None)
    return own if own is not None else _serialized_key


def finisher_for(game: Game) -> Finisher:
    """A function giving the action that ends the current turn at once, or None (budget fallback)."""
    own = getattr(game, "finish_turn_action", None)
    return own if own is not None else _no_finisher


# ----------------------------------------------------------------------------------------------------
# Chance

def chance_children(state: State, samples: int, salt: int) -> list[tuple[int, float]]:
    """The chance outcomes to search, with weights summing to 1.

    All outcomes with their probabilities when `samples` is 0 or at least their number. Otherwise
    `samples` draws with replacement by probability, merged and weighted by their share of the draws: an
    unbiased Monte-Carlo estimate of the expectation. The draws are a hash of (`salt`, the outcome ids,
    draw number), not a generator's next numbers, so within one search (one salt) every chance node
    offering the same outcomes draws the same ones ("common random numbers": two lines that both dig
    see the same room turned up, so the comparison between them is not decided by luck), and the result
    does not depend on the order in which the search visits nodes.
    """
    outcomes = state.chance_outcomes()
    if samples <= 0 or len(outcomes) <= samples:
        return outcomes
    ids = tuple(o for o, _ in outcomes)
    counts: dict[int, int] = {}
    for draw in range(samples):
        u = (hash((salt, ids, draw)) & _MASK53) / _SCALE53
        outcome = sample_chance_outcome(outcomes, u)
        counts[outcome] = counts.get(outcome, 0) + 1
    return [(o, counts[o] / samples) for o in ids if o in counts]


_MASK53 = (1 << 53) - 1
_SCALE53 = float(1 << 53)


def new_salt(rng: np.random.Generator) -> int:
    """A fresh salt for `chance_children`, from an agent's generator."""
    return int(rng.integers(1 << 62))


# ----------------------------------------------------------------------------------------------------
# The turn search

class TurnSearch:
    """Best achievable end-of-turn evaluation (for the player to move) of each action, with a node budget.

    The transposition table maps a state key to (value, complete). It is kept between calls, so later
    decisions of the same turn are table look-ups; it is cleared when a call starts from a state it does
    not hold as completely searched (a new turn, or a chance outcome that was not sampled).

    Chance nodes inside the turn are averaged over `chance_samples` outcomes (0 = all; see
    `chance_children`), drawn with one salt per search.

    Budget: `max_nodes` (0 = unlimited) bounds the states expanded or evaluated per call. A node's budget
    is shared fairly among its children (what one leaves unused passes to the next), so a large turn is
    searched evenly rather than its first branch exhaustively; a state reached with less than one node
    of budget is finished by the game's finisher (`end turn`) and evaluated (one evaluation each, on top
    of the budget), and it and its ancestors are marked incomplete.
    """

    def __init__(self, game: Game, evaluator: Evaluator | None = None, max_nodes: int = 20000,
                 chance_samples: int = 0, rng: np.random.Generator | None = None):
        self.game = game
        self.evaluator = evaluator or evaluator_for(game)
        self.max_nodes = max_nodes
        self.chance_samples = chance_samples
        self.rng = rng if rng is not None else np.random.default_rng()
        self._turn_over = turn_rule_for(game)
        self._key = state_key_for(game)
        self._finish = finisher_for(game)
        self._table: dict[Hashable, tuple[float, bool]] = {}
        self._player = -1
        self._salt = 0
        self.nodes = 0          # states expanded in the last call
        self.evaluations = 0    # states evaluated in the last call (fallbacks included)
        self.fallbacks = 0      # states finished early because the budget ran out, in the last call

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget every stored value (and take a new generator if given)."""
        self._table.clear()
        if rng is not None:
            self.rng = rng

    def key(self, state: State) -> Hashable:
        """The transposition key of a state."""
        return self._key(state)

    def lookup(self, key: Hashable) -> tuple[float, bool] | None:
        """The stored (value, complete) of a state (by key) from the last searches, if any."""
        return self._table.get(key)

    def action_values(self, state: State) -> dict[int, float]:
        """For each legal action, the best end-of-turn evaluation for the player to move (expected over chance)."""
        player = state.current_player()
        if player < 0:
            raise ValueError("a turn search starts at a player's decision, not at a chance or terminal node")
        key = self._key(state)
        entry = self._table.get(key)
        if entry is None or not entry[1] or player != self._player:
            self._table.clear()
            self._salt = new_salt(self.rng)
        self._player = player
        self.nodes = self.evaluations = self.fallbacks = 0
        budget = self.max_nodes if self.max_nodes > 0 else math.inf
        children, complete, _ = self._expand(state, budget)
        values = {action: value for action, _, value in children}
        self._table[key] = (max(values.values()), complete)
        return values

    def value(self, state: State) -> float:
        """The best end-of-turn evaluation the player to move can reach (expected over chance)."""
        return max(self.action_values(state).values())

    # -- internals ---------------------------------------------------------------------------------

    def _expand(self, state: State, budget: float) -> tuple[list[tuple[int, float, float]], bool, float]:
        """(action, weight, value) of each child searched, whether all were complete, and the budget used."""
        self.nodes += 1
        used = 1.0
        if state.current_player() == CHANCE:
            moves = chance_children(state, self.chance_samples, self._salt)
        else:
            moves = [(a, 1.0) for a in state.legal_actions()]
        children = []
        complete = True
        for i, (action, weight) in enumerate(moves):
            child = state.clone()
            child.apply_action(action)
            if self._turn_over(state, action, child):
                v, c, u = self._leaf(child)
            else:
                v, c, u = self._node(child, (budget - used) / (len(moves) - i))
            children.append((action, weight, v))
            complete = complete and c
            used += u
        return children, complete, used

    def _node(self, state: State, budget: float) -> tuple[float, bool, float]:
        """Value of a state inside the turn, whether it was searched completely, and the budget used."""
        key = self._key(state)
        entry = self._table.get(key)
        if entry is not None:
            return entry[0], entry[1], 0.0
        if state.is_terminal():
            return self._leaf(state, key)
        if budget < 1:
            self.fallbacks += 1
            return self._fallback(state), False, 1.0
        children, complete, used = self._expand(state, budget)
        if state.current_player() == CHANCE:
            value = sum(weight * v for _, weight, v in children)
        else:
            value = max(v for _, _, v in children)
        self._table[key] = (value, complete)
        return value, complete, used

    def _leaf(self, state: State, key: Hashable | None = None) -> tuple[float, bool, float]:
        key = self._key(state) if key is None else key
        entry = self._table.get(key)
        if entry is not None:
            return entry[0], entry[1], 0.0
        self.evaluations += 1
        value = float(self.evaluator(state)[self._player])
        self._table[key] = (value, True)
        return value, True, 1.0

    def _fallback(self, state: State) -> float:
        self.evaluations += 1
        action = self._finish(state)
        if action is not None:
            state = state.clone()
            state.apply_action(action)
        return float(self.evaluator(state)[self._player])
