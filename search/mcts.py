"""Monte Carlo tree search on the common game API (any game, any engine).

UCT over atomic actions. Chance nodes get one child per outcome seen, reached by sampling outcomes with their
probabilities (so the tree mirrors the chance structure and expectations come from visit frequencies).
Values are vectors of returns, one per player; a decision node picks for its mover. Because solo returns are
points and two-player returns are +-1, each search normalises values by the smallest and largest return it
has backed up, so one exploration constant `c` suits both.

Leaves are valued by a rollout policy (`random`, `greedy`: one-step look-ahead with the game's heuristic,
`epsilon`: greedy with probability 1 - epsilon) played to the end or for `rollout_steps` steps and then
evaluated by the heuristic, or directly by the heuristic (`rollout=none`). The tree is kept between moves
when the game continues from a position in it (`reuse=1`), in games without hidden information only: the
way down a kept tree follows the true history, hidden chance outcomes included (the cards dealt to others),
so a kept subtree would be built from determinisations that agree with what the searcher may not see.
`workers=k` runs k independent searches in processes (root parallelism) and adds their root visit counts. For games with hidden information
(`state.resample_from_infostate`), each iteration plays in a determinisation sampled for the searching
player, and children not legal in that determinisation are skipped (single-observer IS-MCTS);
`perfect_information=1` searches the true state instead (cheating: an upper bound for analysis only).
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..core.api import CHANCE, ConfigError, Game, sample_chance_outcome
from .agent import register_agent
from .evaluation import Evaluator, evaluator_for

ROLLOUTS = ("random", "greedy", "epsilon", "none")


class Node:
    """A tree node: statistics, the player to move (or CHANCE) and children by action."""

    __slots__ = ("player", "children", "untried", "visits", "value_sum", "available")

    def __init__(self, player: int, num_players: int):
        self.player = player
        self.children: dict[int, Node] = {}
        self.untried: list[int] | None = None     # decision nodes: actions not yet expanded
        self.visits = 0
        self.value_sum = np.zeros(num_players)
        self.available = 0                         # IS-MCTS: times this child could have been chosen

    def mean(self, player: int) -> float:
        return self.value_sum[player] / self.visits if self.visits else 0.0


class SearchResult:
    """Root statistics of one search: visits and mean values (for the player to move) per action, iterations
    run, seconds used. The compiled MCTS (compiled_mcts.pyx) reports its searches in the same form."""

    def __init__(self, visits: dict[int, int], values: dict[int, float], iterations: int, seconds: float):
        self.visits = visits
        self.values = values
        self.iterations = iterations
        self.seconds = seconds

    @classmethod
    def of_root(cls, root: Node, iterations: int, seconds: float) -> "SearchResult":
        """The statistics of a search whose tree is `root`."""
        return cls({a: child.visits for a, child in root.children.items()},
                   {a: child.mean(root.player) for a, child in root.children.items()}, iterations, seconds)

    def ranked(self) -> list[int]:
        """The root actions, best first: most visits, then highest value, then lowest id."""
        return sorted(self.visits, key=lambda a: (self.visits[a], self.values[a], -a), reverse=True)

    def best_action(self) -> int:
        return self.ranked()[0]


class MCTSAgent:
    """UCT with sampled chance children; see the module docstring for the options."""

    name = "mcts"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None, iterations: int = 1000,
                 seconds: float = 0.0, c: float = 1.4, rollout: str = "random", epsilon: float = 0.1,
                 rollout_steps: int = -1, reuse: int = 1, workers: int = 1, perfect_information: int = 0):
        if rollout not in ROLLOUTS:
            raise ConfigError(f"mcts rollout={rollout!r} is not one of {', '.join(ROLLOUTS)}")
        if iterations < 1 and seconds <= 0:
            raise ConfigError("mcts needs iterations >= 1 or seconds > 0")
        if workers < 1:
            raise ConfigError(f"mcts workers must be at least 1, not {workers}")
        self.game = game
        self.iterations, self.seconds, self.c = iterations, seconds, c
        self.rollout, self.epsilon, self.rollout_steps = rollout, epsilon, rollout_steps
        # A tree kept between moves is reached through the true history, hidden outcomes included: never
        # keep one where something is hidden (unless searching the true state anyway).
        self.reuse = bool(reuse) and (perfect_information or not getattr(game, "hidden_information", False))
        self.workers = workers
        # Analysis only: search the true state even in a hidden-information game (a cheating upper bound).
        self.perfect_information = bool(perfect_information)
        self.evaluator: Evaluator = evaluator_for(game)
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self._root: Node | None = None
        self._root_history: list[int] = []
        self.last_result: SearchResult | None = None
        self._result_history: list[int] | None = None    # the history of the state `last_result` searched
        self.analysis_budget = "MCTS, no search yet"

    # -- choosing a move ----------------------------------------------------------------------------

    def step(self, state: Any) -> int:
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("agents choose player actions at decision nodes")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if self.workers > 1:
            result = self._parallel_search(state)
        else:
            result = self.search(state, self._reused_root(state))
        self.last_result = result
        self._result_history = state.history()
        return result.best_action()

    def analyse(self, state: Any) -> list[dict[str, Any]]:
        """The root statistics of a search from `state`, best first (the search `step` just did, if same state).

        One entry per root action the search tried: `action`, `text` (notation), `visits` (root visits,
        reused-tree visits included) and `value` (mean backed-up value for the player to move, on the scale
        of `returns()`: +1 win / -1 loss with two or more players, points solo; leaves cut short are valued
        by the game's heuristic on that scale). Sorted as `step` chooses: most visits, then value.
        `analysis_budget` then describes the search (iterations and seconds).
        """
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("analyse looks at a player's decision, not a chance or terminal node")
        history = state.history()
        if self.last_result is None or self._result_history != history:
            result = self._parallel_search(state) if self.workers > 1 else self.search(state, self._reused_root(state))
            self.last_result, self._result_history = result, history
        result = self.last_result
        workers = f" on {self.workers} workers" if self.workers > 1 else ""
        self.analysis_budget = f"MCTS, {result.iterations:,} iterations{workers} in {result.seconds:.2f} s"
        return [{"action": int(a), "text": state.action_to_string(a), "value": float(result.values[a]),
                 "visits": int(result.visits[a])} for a in result.ranked()]

    def _reused_root(self, state: Any) -> Node | None:
        if not self.reuse or self._root is None:
            return None
        history = state.history()
        if history[:len(self._root_history)] != self._root_history:
            return None
        node = self._root
        for action in history[len(self._root_history):]:
            node = node.children.get(action)
            if node is None:
                return None
        return node if node.player == state.current_player() else None

    def search(self, state: Any, root: Node | None = None, rng: np.random.Generator | None = None) -> SearchResult:
        """Run the search from `state` (optionally continuing an existing root) and return root statistics."""
        rng = self.rng if rng is None else rng
        if root is None:
            root = Node(state.current_player(), self.game.num_players)
        bounds = [math.inf, -math.inf]
        hidden = (not self.perfect_information and hasattr(state, "resample_from_infostate")
                  and getattr(self.game, "hidden_information", False))
        searcher = state.current_player()
        started = time.perf_counter()
        done = 0
        while True:
            if self.seconds > 0:
                if time.perf_counter() - started >= self.seconds and done > 0:
                    break
            elif done >= self.iterations:
                break
            world = state.resample_from_infostate(searcher, rng) if hidden else state.clone()
            self._iterate(world, root, rng, bounds, hidden)
            done += 1
        if self.reuse:
            self._root, self._root_history = root, state.history()
        return SearchResult.of_root(root, done, time.perf_counter() - started)

    def _iterate(self, state: Any, node: Node, rng: np.random.Generator, bounds: list[float], hidden: bool) -> None:
        path = [node]
        while not state.is_terminal():
            if node.player == CHANCE:
                outcome = sample_chance_outcome(state.chance_outcomes(), rng.random())
                node = self._child(node, outcome, state)
            else:
                legal = state.legal_actions()
                if node.untried is None:
                    node.untried = list(rng.permutation(legal)) if not hidden else []
                untried = [a for a in legal if a not in node.children] if hidden else node.untried
                if untried:
                    action = untried.pop() if not hidden else untried[rng.integers(len(untried))]
                    node = self._child(node, action, state)
                    path.append(node)
                    break
                if hidden:
                    for a in legal:
                        node.children[a].available += 1
                action = self._select(node, legal if hidden else None, bounds)
                node = node.children[action]
                state.apply_action(action)
                path.append(node)
                continue
            path.append(node)
        values = np.asarray(self._leaf_value(state, rng), dtype=float)
        bounds[0] = min(bounds[0], float(values.min()))
        bounds[1] = max(bounds[1], float(values.max()))
        for visited in path:
            visited.visits += 1
            visited.value_sum += values

    def _child(self, node: Node, action: int, state: Any) -> Node:
        """Apply `action` to `state` and return (creating if new) the matching child of `node`."""
        state.apply_action(action)
        child = node.children.get(action)
        if child is None:
            child = node.children[action] = Node(state.current_player(), self.game.num_players)
            child.available = 1
        return child

    def _select(self, node: Node, legal: list[int] | None, bounds: list[float]) -> int:
        low, high = bounds
        if high < low:            # nothing backed up yet in this search (a reused tree): no normalisation
            low, high = 0.0, 1.0
        span = high - low if high > low else 1.0
        candidates = node.children if legal is None else {a: node.children[a] for a in legal}
        parent_visits = sum(child.available for child in candidates.values()) if legal is not None else node.visits
        log_n = math.log(max(1, parent_visits))
        best, best_score = -1, -math.inf
        for action, child in candidates.items():
            q = (child.mean(node.player) - low) / span
            score = q + self.c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = action, score
        return best

    # -- leaves ---------------------------------------------------------------------------------------

    def _leaf_value(self, state: Any, rng: np.random.Generator) -> list[float]:
        if self.rollout == "none":
            return self.evaluator(state)
        steps = 0
        while not state.is_terminal() and steps != self.rollout_steps:
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            else:
                state.apply_action(self._rollout_action(state, rng))
            steps += 1
        return state.returns() if state.is_terminal() else self.evaluator(state)

    def _rollout_action(self, state: Any, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if self.rollout == "random" or (self.rollout == "epsilon" and rng.random() < self.epsilon):
            return legal[rng.integers(len(legal))]
        player = state.current_player()
        best, best_value = legal[0], -math.inf
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            value = self.evaluator(child)[player] + 1e-9 * rng.random()   # random tie-break
            if value > best_value:
                best, best_value = action, value
        return best

    # -- root parallelism -----------------------------------------------------------------------------

    def _parallel_search(self, state: Any) -> SearchResult:
        from joblib import Parallel, delayed
        seeds = np.random.SeedSequence(int(self.rng.integers(2**63))).spawn(self.workers)
        settings = dict(iterations=self.iterations, seconds=self.seconds, c=self.c, rollout=self.rollout,
                        epsilon=self.epsilon, rollout_steps=self.rollout_steps,
                        perfect_information=int(self.perfect_information))
        results = Parallel(n_jobs=self.workers, backend="loky")(
            delayed(_worker_search)(self.game, state, seed, settings) for seed in seeds)
        total = results[0]
        for other in results[1:]:
            for action, visits in other.visits.items():
                mine = total.visits.get(action, 0)
                total.values[action] = (total.values.get(action, 0.0) * mine + other.values[action] * visits) / max(1, mine + visits)
                total.visits[action] = mine + visits
            total.iterations += other.iterations
        return total


def _worker_search(game: Game, state: Any, seed: np.random.SeedSequence, settings: dict[str, Any]) -> SearchResult:
    agent = MCTSAgent(game, seed=seed, reuse=0, **settings)
    return agent.search(state)


register_agent("mcts", MCTSAgent, {"iterations": int, "seconds": float, "c": float, "rollout": str,
                                   "epsilon": float, "rollout_steps": int, "reuse": int, "workers": int,
                                   "perfect_information": int})
