"""Depth-limited expectiminimax for any cavekit game: alpha-beta at decisions, Star1 at chance nodes.

Spec: `expectimax:depth=2` with options
- `depth` (default 2; 0 = no limit, for small games only): plies searched. A ply is one player action, or
  with `turn=1` one whole turn (depth 2 = your turn, then the opponent's reply).
- `turn` (0 or 1; default 1 for games whose turns are several actions, such as Cave vs Cave, else 0):
  count depth in turns. Inside a turn every decision is still an atomic action (so chance inside a turn,
  such as a room turned up by an excavation, is averaged exactly where it happens); the depth only drops
  when the turn rule of `turn_search` says a turn is over.
- `evaluator` (`heuristic` or `none`): leaves are scored by `evaluator_for(game)`, or with `none` by the
  returns of finished games and 0 otherwise (with `depth=0` the search is then exact).
- `pruning` (`star1`, `alphabeta` or `none`): alpha-beta at decision nodes, plus Star1 at chance nodes.
- `chance_samples` (default 6; 0 = all): outcomes searched per chance node in the first iteration (and in
  a `depth=0` search); `deep_samples` (default 1; 0 = all): the same in iterations of two plies or more.
  More outcomes are sampled (`turn_search.chance_children`, common random numbers). Why two: in Cave vs
  Cave every sampled room of an excavation in your own turn needs its own full search of the opponent's
  reply (Star1 cannot cut there, the bounds [-1, 1] being far wider than the values), so a depth-2
  search took 0.5-0.9 s with 1 sample, 12-28 s with 2, 53 s with 3 and 130 s with 6 (measured at the
  start of rounds 1, 3 and 6 of greedy games).
- `max_nodes` (default 100000; 0 = unlimited): nodes per iterative-deepening iteration, see below.

The search looks at the true state: for games with hidden information use IS-MCTS (`mcts`) instead.

Whose value: the search maximises the root player's component of the evaluation. Every other player
minimises it: minimax in two-player zero-sum games, the "paranoid" assumption with three or more players
(chosen over max-n because it keeps alpha-beta and Star1 sound); solo games are pure expectimax.

Star1 needs bounds on every value: the game's `min_utility()`/`max_utility()` (Cave vs Cave: [-1, 1] with
two players, [0, max points] solo); heuristic values are clipped into them so the bounds always hold.
A game without them gets alpha-beta only.

Iterative deepening: depths 1..N are searched in turn; each iteration orders moves by the values of the
previous one (then by a history score), which is what makes alpha-beta cut. With `turn=1` the first
iteration is the greedy turn search (`TurnSearch`, the same machinery and budget rule as the greedy agent),
so `depth=1` plays like `greedy`. A later iteration that exceeds `max_nodes` is abandoned and the move of
the deepest finished iteration is played, so one decision never mixes depths. A `depth=0` search is one
iteration; if it exceeds the budget, the remaining states end their turn at once and are evaluated, and
the result says it is incomplete. The transposition table is keyed on (state, remaining depth) with
exact/lower/upper flags; with `turn=1` it is kept through the turn, so the later atomic steps of a searched
turn are look-ups.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Hashable, Iterator

import numpy as np

from ..core.api import CHANCE, ConfigError, Game, State
from .agent import register_agent
from .evaluation import Evaluator, evaluator_for, terminal_only
from .turn_search import (TurnSearch, chance_children, finisher_for, has_multi_action_turns, new_salt,
                          state_key_for, turn_rule_for)

EXACT, LOWER, UPPER = 0, 1, 2
PRUNINGS = ("star1", "alphabeta", "none")
EVALUATORS = ("heuristic", "none")
TIE = 1e-12


@dataclass
class SearchResult:
    """The outcome of one search: the move, its value for the root player, and what it cost."""

    action: int
    value: float
    depth: float        # deepest iteration finished (math.inf for an unlimited search)
    nodes: int          # nodes visited (turn-search expansions and evaluations included)
    complete: bool      # False if the budget cut states short (possible in a depth=0 search or the first iteration)


class _Abort(Exception):
    """The node budget of an iteration ran out."""


class ExpectimaxAgent:
    """Depth-limited expectiminimax with alpha-beta, Star1, a transposition table and iterative deepening."""

    name = "expectimax"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None, depth: int = 2,
                 turn: int | None = None, evaluator: str = "heuristic", pruning: str = "star1",
                 chance_samples: int = 6, deep_samples: int = 1, max_nodes: int = 100000):
        if depth < 0:
            raise ConfigError(f"expectimax: depth must be >= 0 (0 = no limit), not {depth}")
        if turn not in (None, 0, 1):
            raise ConfigError(f"expectimax: turn must be 0 (depth in actions) or 1 (depth in turns), not {turn}")
        if evaluator not in EVALUATORS:
            raise ConfigError(f"expectimax: evaluator must be one of {', '.join(EVALUATORS)}, not {evaluator!r}")
        if pruning not in PRUNINGS:
            raise ConfigError(f"expectimax: pruning must be one of {', '.join(PRUNINGS)}, not {pruning!r}")
        if min(chance_samples, deep_samples, max_nodes) < 0:
            raise ConfigError("expectimax: chance_samples, deep_samples and max_nodes must be >= 0 "
                              "(0 = all / unlimited)")
        self.game = game
        self.depth = math.inf if depth == 0 else depth
        self.turn_mode = has_multi_action_turns(game) if turn is None else bool(turn)
        self.pruning = pruning
        self.chance_samples = chance_samples
        self.deep_samples = deep_samples
        self.max_nodes = max_nodes
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self._raw_evaluator: Evaluator = evaluator_for(game) if evaluator == "heuristic" else terminal_only
        low, high = getattr(game, "min_utility", None), getattr(game, "max_utility", None)
        self.bounds = (float(low()), float(high())) if callable(low) and callable(high) else (-math.inf, math.inf)
        self._star1 = pruning == "star1" and all(map(math.isfinite, self.bounds))
        self._prune = pruning != "none"
        self._turn_over = turn_rule_for(game)
        self._key = state_key_for(game)
        self._finish = finisher_for(game)
        self._turn_search = TurnSearch(game, evaluator=self._evaluate_all, max_nodes=max_nodes,
                                       chance_samples=chance_samples, rng=self.rng)
        # (state key, remaining depth) -> (value, EXACT/LOWER/UPPER, best action or None)
        self._table: dict[tuple[Hashable, float], tuple[float, int, int | None]] = {}
        self._hints: dict[tuple[Hashable, int], float] = {}    # (state key, action) -> last value seen
        self._history: dict[tuple[int, int], int] = {}         # (player, action) -> times it was best
        self._root = 0
        self._samples = chance_samples
        self._salt = 0
        self._limit = math.inf
        self._abort = False
        self._fallbacks = 0
        self.nodes = 0
        # Root action values (value, EXACT/LOWER/UPPER) of the iteration running and of the last search
        # (its history, the deepest finished iteration's values or None if it was a table look-up, result).
        self._iteration_values: dict[int, tuple[float, int]] = {}
        self._analysed: tuple[list[int], dict[int, tuple[float, int]] | None, SearchResult] | None = None
        self.analysis_budget = "expectimax, no search yet"

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self._turn_search.reset(self.rng)
        self._clear()
        self._analysed = None

    def step(self, state: State) -> int:
        if state.current_player() == CHANCE:
            raise ValueError("agents choose player actions; sample chance outcomes from chance_outcomes()")
        if state.is_terminal():
            raise ValueError("no legal action: the game is over")
        return self.search(state).action

    def value(self, state: State) -> float:
        """The searched value of a decision state for the player to move."""
        return self.search(state).value

    # -- the search ---------------------------------------------------------------------------------

    def search(self, state: State) -> SearchResult:
        """Search a decision state: the best action, its value for the player to move, and the cost."""
        player = state.current_player()
        if player < 0:
            raise ValueError("expectimax searches a player's decision, not a chance or terminal node")
        key = self._key(state)
        self.nodes = 0
        self._fallbacks = 0
        # The table holds values for one root player; another player's decision starts afresh.
        stored = self._stored_move(key, self.depth) if self.turn_mode and player == self._root else None
        self._root = player
        if stored is not None:   # this turn was searched to full depth already: play on from the table
            result = SearchResult(action=stored[0], value=stored[1], depth=self.depth, nodes=0, complete=True)
            self._analysed = (state.history(), None, result)
            return result
        self._clear()
        self._salt = new_salt(self.rng)
        depths: list[float] = [self.depth] if math.isinf(self.depth) else list(range(1, int(self.depth) + 1))
        best: tuple[int, float, float] | None = None
        root_values: dict[int, tuple[float, int]] = {}
        for depth in depths:
            self._iteration_values = {}
            self._abort = depth > 1
            self._samples = self.deep_samples if depth > 1 and not math.isinf(depth) else self.chance_samples
            self._limit = self.nodes + self.max_nodes if self.max_nodes else math.inf
            fallbacks = self._fallbacks
            try:
                if depth == 1 and self.turn_mode:
                    action, value = self._greedy_iteration(state)
                else:
                    value, action = self._decide(state, key, depth, -math.inf, math.inf, root=True)
                    if self._fallbacks == fallbacks:
                        self._table[(key, depth)] = (value, EXACT, action)
            except _Abort:
                break
            best = (action, value, depth)
            root_values = self._iteration_values
        assert best is not None
        result = SearchResult(action=int(best[0]), value=float(best[1]), depth=best[2], nodes=self.nodes,
                              complete=self._fallbacks == 0)
        self._analysed = (state.history(), root_values, result)
        return result

    def analyse(self, state: State) -> list[dict[str, Any]]:
        """The root actions' values from a search of `state` (the one `step` just did, if the same state).

        One entry per root action the deepest finished iteration valued: `action`, `text`, `value` (for
        the player to move: the searched evaluation, on the scale of `returns()`, so +1 win / -1 loss with
        two players, clipped heuristic estimates at the depth limit, points solo) and `bound`: "exact",
        "upper" when alpha-beta only proved the action no better than `value` and stopped, or "lower"
        (at least `value`; only in values read from an earlier search's table). The chosen action comes
        first, then by value. After a turn already searched to full depth (turn mode), the values come
        from that search's table and actions it pruned are missing. `analysis_budget` then describes the
        search (depth, nodes).
        """
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("analyse looks at a player's decision, not a chance or terminal node")
        history = state.history()
        if self._analysed is None or self._analysed[0] != history:
            self.search(state)
        assert self._analysed is not None
        _, root_values, result = self._analysed
        unit = "turns" if self.turn_mode else "plies"
        depth = "unlimited depth" if math.isinf(result.depth) else f"depth {int(result.depth)} {unit}"
        if root_values is None:
            root_values = self._stored_root_values(state)
            self.analysis_budget = f"expectimax, {depth} (read from this turn's search)"
        else:
            self.analysis_budget = f"expectimax, {depth}, {result.nodes:,} nodes"
        root_values.setdefault(result.action, (result.value, EXACT))
        bounds = {EXACT: "exact", UPPER: "upper", LOWER: "lower"}
        ranked = sorted(root_values, key=lambda a: (a != result.action, -root_values[a][0],
                                                    root_values[a][1] != EXACT, a))
        return [{"action": int(a), "text": state.action_to_string(a), "value": float(root_values[a][0]),
                 "bound": bounds[root_values[a][1]]} for a in ranked]

    def _stored_root_values(self, state: State) -> dict[int, tuple[float, int]]:
        """The table's full-depth values of the children of a state searched inside an earlier search."""
        found: dict[int, tuple[float, int]] = {}
        for action in state.legal_actions():
            _, child_key, child_depth = self._child(state, action, self.depth, False)
            entry = self._table.get((child_key, child_depth))
            if entry is not None:
                found[action] = (entry[0], entry[1])
        return found

    def _stored_move(self, key: Hashable, depth: float) -> tuple[int, float] | None:
        entry = self._table.get((key, depth))
        if entry is None or entry[1] != EXACT or entry[2] is None:
            return None
        return entry[2], entry[0]

    def _clear(self) -> None:
        self._table.clear()
        self._hints.clear()
        self._history.clear()

    def _greedy_iteration(self, state: State) -> tuple[int, float]:
        """Depth one turn: the greedy turn search (ties broken at random, like the greedy agent)."""
        values = self._turn_search.action_values(state)
        self.nodes += self._turn_search.nodes + self._turn_search.evaluations
        self._fallbacks += self._turn_search.fallbacks
        best = max(values.values())
        ties = [a for a in sorted(values) if values[a] >= best - TIE]
        action = ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))]
        self._iteration_values = {a: (v, EXACT) for a, v in values.items()}
        return int(action), best

    def _value(self, state: State, key: Hashable, depth: float, alpha: float, beta: float) -> float:
        """Fail-soft value for the root player: exact inside (alpha, beta), else a bound beyond it."""
        self.nodes += 1
        if state.is_terminal():
            return float(state.returns()[self._root])
        if self.nodes > self._limit:
            if self._abort:
                raise _Abort
            self._fallbacks += 1
            return self._fallback(state)
        entry = self._table.get((key, depth))
        if entry is not None:   # a stored bound that does not settle the window still narrows it
            v, flag, _ = entry
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                return v
            if flag == LOWER:
                alpha = max(alpha, v)
            else:
                beta = min(beta, v)
        if depth == 0:
            v = self._static(state)
            self._table[(key, 0)] = (v, EXACT, None)
            return v
        fallbacks = self._fallbacks
        action = None
        if state.current_player() == CHANCE:
            v = self._chance(state, depth, alpha, beta)
        else:
            v, action = self._decide(state, key, depth, alpha, beta)
        if self._fallbacks == fallbacks:   # only values of fully searched subtrees are stored
            flag = UPPER if v <= alpha else LOWER if v >= beta else EXACT
            self._table[(key, depth)] = (v, flag, action)
        return v

    def _child(self, state: State, action: int, depth: float, chance: bool) -> tuple[State, Hashable, float]:
        """The child, its key and its remaining depth (which drops when a ply, an action or a turn, ends)."""
        child = state.clone()
        child.apply_action(action)
        ends_ply = self._turn_over(state, action, child) if self.turn_mode else not chance
        return child, self._key(child), depth - 1 if ends_ply else depth

    def _ordered(self, state: State, key: Hashable, depth: float, player: int, maximize: bool,
                 root: bool) -> Iterator[tuple[int, State, Hashable, float]]:
        """Children in search order: valued by an earlier iteration first (best first), then by history.

        Children are made lazily, so a cut-off saves making the rest, except in the root player's own
        turn, where the greedy turn search's values (found by the children's keys) order them.
        """
        actions = state.legal_actions()
        if root:   # ties are broken at random: equal-valued moves are tried in random order, first one kept
            actions = [actions[i] for i in self.rng.permutation(len(actions))]
        sign = -1.0 if maximize else 1.0

        def order(action: int, hint: float | None) -> tuple[int, float]:
            if hint is not None:
                return (0, sign * hint)
            return (1, -self._history.get((player, action), 0))

        if player == self._root and self.turn_mode:
            made = [(a, *self._child(state, a, depth, False)) for a in actions]
            hints = []
            for a, _, child_key, _ in made:
                hint = self._hints.get((key, a))
                if hint is None:
                    found = self._turn_search.lookup(child_key)
                    hint = None if found is None else found[0]
                hints.append(hint)
            ranked = sorted(range(len(made)), key=lambda i: order(made[i][0], hints[i]))
            yield from (made[i] for i in ranked)
            return
        for a in sorted(actions, key=lambda a: order(a, self._hints.get((key, a)))):
            yield (a, *self._child(state, a, depth, False))

    def _decide(self, state: State, key: Hashable, depth: float, alpha: float, beta: float,
                root: bool = False) -> tuple[float, int]:
        """Max (root player) or min (anyone else) over the legal actions, with alpha-beta when pruning."""
        player = state.current_player()
        maximize = player == self._root
        best, best_action = (-math.inf if maximize else math.inf), -1
        for action, child, child_key, child_depth in self._ordered(state, key, depth, player, maximize, root):
            v = self._value(child, child_key, child_depth, alpha, beta)
            self._hints[(key, action)] = v
            if root:   # fail-soft: a value outside the window at the call is only a bound
                self._iteration_values[action] = (v, UPPER if v <= alpha else LOWER if v >= beta else EXACT)
            if (v > best) if maximize else (v < best):
                best, best_action = v, action
            if self._prune:
                if maximize:
                    alpha = max(alpha, best)
                else:
                    beta = min(beta, best)
                if alpha >= beta:
                    break
        self._history[(player, best_action)] = self._history.get((player, best_action), 0) + 1
        return best, best_action

    def _chance(self, state: State, depth: float, alpha: float, beta: float) -> float:
        """Probability-weighted value of the outcomes; Star1 cuts once the bounds decide the window."""
        outcomes = chance_children(state, self._samples, self._salt)
        if not self._star1:
            return sum(w * self._value(*self._child(state, o, depth, True), -math.inf, math.inf)
                       for o, w in outcomes)
        low, high = self.bounds
        total, left = 0.0, 1.0
        for outcome, w in outcomes:
            child, child_key, child_depth = self._child(state, outcome, depth, True)
            left -= w
            # The child must beat these to keep the chance value inside (alpha, beta), even if every
            # outcome still unsearched turns out as good (high) or as bad (low) as possible.
            child_alpha = (alpha - total - left * high) / w
            child_beta = (beta - total - left * low) / w
            v = self._value(child, child_key, child_depth, max(low, child_alpha), min(high, child_beta))
            total += w * v
            if v <= child_alpha:
                return min(alpha, total + left * high)    # an upper bound at or below alpha
            if v >= child_beta:
                return max(beta, total + left * low)      # a lower bound at or above beta
        return total

    def _evaluate_all(self, state: State) -> list[float]:
        low, high = self.bounds
        return [min(high, max(low, float(v))) for v in self._raw_evaluator(state)]

    def _static(self, state: State) -> float:
        return self._evaluate_all(state)[self._root]

    def _fallback(self, state: State) -> float:
        """Budget exhausted: end the turn at once where the game allows it, and evaluate."""
        action = self._finish(state) if self.turn_mode else None
        if action is not None:
            state = state.clone()
            state.apply_action(action)
        return self._static(state)


def _switch(text: str) -> int:
    """Parse 0/1 (also false/true, no/yes, off/on)."""
    lowered = text.strip().lower()
    for value, names in ((0, ("0", "false", "no", "off")), (1, ("1", "true", "yes", "on"))):
        if lowered in names:
            return value
    raise ValueError(text)


_switch.__name__ = "0/1"

register_agent("expectimax", ExpectimaxAgent, {"depth": int, "turn": _switch, "evaluator": str, "pruning": str,
                                               "chance_samples": int, "deep_samples": int, "max_nodes": int})
