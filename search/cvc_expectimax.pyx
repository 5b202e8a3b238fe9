# cython: language_level=3
"""Compiled expectimax over whole turns for Cave vs Cave: the fast path of `search/expectimax.py`'s turn mode.

The same search as `expectimax:depth=N` with `turn=1` (depth counted in whole turns; depth 1 is the greedy
turn search, depth 2 adds the opponent's reply), run on the C state with the turn segments of
`cvc_segments`: a decision node's children are the distinct positions where the mover's segment ends,
searched in `SegmentEnumerator.rank_ends` order (every tile's best line first). The root player maximises
the heuristic value `cvc_evaluation.evaluate`; in two-player games the opponent minimises it (alpha-beta
with that move ordering); solo, every turn maximises.

Chance nodes (rooms turned up inside a turn, tiles revealed between rounds) average their outcomes, all of
them or `chance_samples` draws with replacement weighted by their share of the draws, each searched with
the full window (no Star1: bounds of [-1, 1] are too wide to cut here). `width` keeps only that many of a
node's ends (0 = all): at depth 2 and more, searching every one of a rich turn's thousands of ends against
every reply costs seconds, and the ends past the first few dozen in ranking order are rarely best. (At
depth 2, mean seconds per search from turn starts of a greedy game: width 48 with 4 chance samples 0.37,
32 with 3 0.17, 24 with 2 0.09.)
"""
cimport cython
from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from cavekit.core.cvc.compiled cimport (GameState, apply_action, chance_outcomes, current_player, is_terminal,
                                        returns)
from cavekit.search.cvc_evaluation cimport evaluate
from cavekit.search.cvc_segments cimport SegmentEnumerator, random_below, state_struct

import numpy as np

from ..core.api import CHANCE as PY_CHANCE, ConfigError
from .agent import register_agent

cdef enum:
    CHANCE = -1
    MAX_OUTCOMES = 32

cdef double INFINITY = 1e300


cdef inline double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


@cython.final
cdef class TurnExpectimax:
    """One search: depth-limited expectiminimax over turn segments from a position where a player moves."""

    cdef list levels
    cdef public int depth, width, chance_samples, max_states
    cdef int root_player
    cdef uint64_t rng
    cdef public long nodes
    cdef public double last_seconds

    def __init__(self, int depth=2, int width=32, int chance_samples=3, int max_states=20000, seed=0):
        if depth < 1:
            raise ConfigError(f"cvc_expectimax: depth counts whole turns and must be at least 1, not {depth}")
        if width < 0 or chance_samples < 0 or max_states < 1:
            raise ConfigError("cvc_expectimax: width and chance_samples must be >= 0 (0 = all), max_states >= 1")
        self.levels = []
        self.depth, self.width, self.chance_samples, self.max_states = depth, width, chance_samples, max_states
        self.rng = (<uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)) * 0x9E3779B97F4A7C15ULL + 1
        if self.rng == 0:
            self.rng = 1

    cdef SegmentEnumerator level(self, int index):
        while len(self.levels) <= index:
            self.levels.append(SegmentEnumerator(self.max_states))
        return self.levels[index]

    cdef double leaf(self, const GameState* s) noexcept:
        cdef double out[2]
        if is_terminal(s):
            returns(s, out)
        else:
            evaluate(s, out)
        return out[self.root_player]

    cdef double value(self, const GameState* s, int turns_left, double alpha, double beta, int level) except? -1e301:
        """The value for the root player of `s` with `turns_left` turns (the current one included) to search."""
        cdef int outcomes[MAX_OUTCOMES]
        cdef int counts[MAX_OUTCOMES]
        cdef int n, i, draws, kept, player
        cdef double total, v, best
        cdef bint maximising
        cdef GameState child
        cdef SegmentEnumerator e
        self.nodes += 1
        if is_terminal(s) or turns_left == 0:
            return self.leaf(s)
        player = current_player(s)
        if player == CHANCE:
            n = chance_outcomes(s, outcomes)
            draws = n if self.chance_samples == 0 or n <= self.chance_samples else self.chance_samples
            for i in range(n):
                counts[i] = 1 if draws == n else 0
            if draws < n:
                for i in range(draws):
                    counts[random_below(&self.rng, n)] += 1
            total = 0.0
            for i in range(n):
                if counts[i]:
                    memcpy(&child, s, sizeof(GameState))
                    apply_action(&child, outcomes[i])
                    total += counts[i] * self.value(&child, turns_left, -INFINITY, INFINITY, level)
            return total / draws
        e = self.level(level)
        e.run(s)
        n = e.rank_ends(player)
        kept = n if self.width == 0 or n <= self.width else self.width
        maximising = player == self.root_player or s.num_players == 1
        best = -INFINITY if maximising else INFINITY
        for i in range(kept):
            child = e.states[e.ranked[i].index]
            v = self.value(&child, turns_left - (child.round != s.round or child.turn != s.turn), alpha, beta,
                           level + 1)
            if maximising:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best

    def search(self, state) -> list:
        """Each of the root's segments (best first by value): its actions and value for the player to move."""
        cdef const GameState* root = state_struct(state)
        cdef SegmentEnumerator e
        cdef GameState child
        cdef int n, i, kept
        cdef double alpha = -INFINITY, v, started = now()
        self.root_player = current_player(root)
        if self.root_player < 0:
            raise ValueError("cvc_expectimax searches from a position where a player is to move")
        self.nodes = 0
        e = self.level(0)
        e.run(root)
        n = e.rank_ends(self.root_player)
        kept = n if self.width == 0 or n <= self.width else self.width
        children = []
        for i in range(kept):
            child = e.states[e.ranked[i].index]
            # A child only needs to beat the best so far: searching it with that bound lets its replies
            # cut; its value is then exact when it is better, and an upper bound when it is not.
            v = self.value(&child, self.depth - (child.round != root.round or child.turn != root.turn), alpha,
                           INFINITY, 1)
            children.append({"index": e.ranked[i].index, "value": v, "exact": v > alpha})
            if v > alpha:
                alpha = v
        for entry in children:
            entry["actions"] = e.path(entry.pop("index"))
        children.sort(key=lambda entry: -entry["value"])
        self.last_seconds = now() - started
        return children


class CompiledExpectimaxAgent:
    """Expectimax over turns on the compiled core.

    Spec `cvc_expectimax:depth=D,width=W,chance_samples=K,max_states=M` (defaults 2, 32, 3, 20000): D whole
    turns searched (1 = the greedy turn search, 2 = your turn and the opponent's reply); W ends kept per
    decision node (0 = all); K chance outcomes searched per chance node (0 = all); M positions one segment
    enumeration may visit before it only finishes turns.
    """

    name = "cvc_expectimax"

    def __init__(self, game, seed=None, depth=2, width=32, chance_samples=3, max_states=20000):
        if game.name != "cvc" or game.engine != "compiled":
            raise ConfigError("cvc_expectimax plays Cave vs Cave on the compiled engine; use expectimax for other games")
        self.game = game
        self.settings = dict(depth=depth, width=width, chance_samples=chance_samples, max_states=max_states)
        TurnExpectimax(**self.settings)      # refuse bad settings now
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self.last_result = None
        self._plan: list = []
        self._plan_history: list = []
        self._searched = None
        self.analysis_budget = "expectimax over turns, no search yet"

    def _search(self, state) -> list:
        history = state.history()
        if self._searched is not None and self._searched[0] == history:
            return self._searched[1]
        search = TurnExpectimax(seed=int(self.rng.integers(2**63)), **self.settings)
        children = search.search(state)
        self.last_result = {"nodes": search.nodes, "seconds": search.last_seconds, "children": len(children)}
        self.analysis_budget = (f"expectimax over {self.settings['depth']} turn(s), {search.nodes:,} nodes in "
                                f"{search.last_seconds:.2f} s")
        self._searched = (history, children)
        return children

    def analyse(self, state) -> list:
        """The root's segments best first: first action, notation of the whole segment, value, exactness.

        `value` is the heuristic value for the player to move after `depth` turns (two players: tanh of the
        expected point lead / 10; solo: expected final points); `exact` is False where alpha-beta only
        showed that the segment is no better than the one above it (its value is then an upper bound).
        """
        entries = []
        for child in self._search(state):
            replay, texts = state.clone(), []
            for action in child["actions"]:
                texts.append(replay.action_to_string(action))
                replay.apply_action(action)
            entries.append({"action": child["actions"][0], "actions": child["actions"], "text": "; ".join(texts),
                            "value": child["value"], "bound": "exact" if child["exact"] else "upper"})
        return entries

    def step(self, state) -> int:
        if state.current_player() == PY_CHANCE or state.is_terminal():
            raise ValueError("agents choose player actions at decision nodes")
        history = state.history()
        done = len(history) - len(self._plan_history)
        if 0 < done < len(self._plan) and history[:len(self._plan_history)] == self._plan_history \
                and history[len(self._plan_history):] == self._plan[:done]:
            return self._plan[done]
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        best = self._search(state)[0]
        self._plan, self._plan_history = best["actions"], history
        return self._plan[0]


register_agent("cvc_expectimax", CompiledExpectimaxAgent,
               {"depth": int, "width": int, "chance_samples": int, "max_states": int})
