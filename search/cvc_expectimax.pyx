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

from cavekit.core.compiled_common cimport random_below, search_rng
from cavekit.core.cvc.compiled cimport (GameState, apply_action, chance_outcomes, current_player, is_terminal,
                                        returns)
from cavekit.search.cvc_evaluation cimport CaveMemo, Evaluator, evaluate, make_evaluator, use_memo
from cavekit.search.cvc_segments cimport SegmentEnumerator, now, state_struct

from ..core.api import ConfigError
from ..core.cvc.spec import SPEC
from .agent import register_agent
from .cvc_segment_agent import SegmentPlanAgent
from .cvc_value import VALUE_OPTION

cdef enum:
    CHANCE = -1
    MAX_OUTCOMES = 32

cdef double INFINITY = 1e300


@cython.final
cdef class TurnExpectimax:
    """One search: depth-limited expectiminimax over turn segments from a position where a player moves."""

    cdef list levels
    cdef public int depth, width, chance_samples, max_states
    cdef int root_player
    cdef uint64_t rng
    cdef public long nodes
    cdef public double last_seconds
    cdef Evaluator ev
    cdef CaveMemo memos[2]               # the evaluator's memo of each seat's cave facts

    def __init__(self, int depth=2, int width=32, int chance_samples=3, int max_states=20000, seed=0,
                 str value="heuristic", int players=2):
        if depth < 1:
            raise ConfigError(f"cvc_expectimax: depth counts whole turns and must be at least 1, not {depth}")
        if width < 0 or chance_samples < 0 or max_states < 1:
            raise ConfigError("cvc_expectimax: width and chance_samples must be >= 0 (0 = all), max_states >= 1")
        self.levels = []
        self.depth, self.width, self.chance_samples, self.max_states = depth, width, chance_samples, max_states
        self.rng = search_rng(seed)
        self.ev = make_evaluator(value, players)
        use_memo(&self.ev, self.memos)

    cdef SegmentEnumerator level(self, int index):
        while len(self.levels) <= index:
            self.levels.append(SegmentEnumerator(self.max_states))
        return self.levels[index]

    cdef double leaf(self, const GameState* s) noexcept:
        cdef double out[2]
        if is_terminal(s):
            returns(s, out)
        else:
            evaluate(s, out, &self.ev)
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
        n = e.rank_ends(player, &self.ev)
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
        n = e.rank_ends(self.root_player, &self.ev)
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


class CompiledExpectimaxAgent(SegmentPlanAgent):
    """Expectimax over turns on the compiled core.

    Spec `cvc_expectimax:depth=D,width=W,chance_samples=K,max_states=M,value=V` (defaults 2, 32, 3, 20000,
    heuristic): D whole turns searched (1 = the greedy turn search, 2 = your turn and the opponent's reply);
    W ends kept per decision node (0 = all); K chance outcomes searched per chance node (0 = all); M positions
    one segment enumeration may visit before it only finishes turns; V the evaluation (`heuristic` or
    `learned`, see `cvc_evaluation`). In `analyse`, `value` is the evaluation for
    the player to move after D turns (two players: tanh of the expected point lead / 10; solo: expected
    final points) and `bound` is "upper" where alpha-beta only showed the segment is no better than the best.
    """

    name = "cvc_expectimax"
    describe = "expectimax over turns"

    def __init__(self, game, seed=None, depth=2, width=32, chance_samples=3, max_states=20000, value="heuristic"):
        settings = dict(depth=depth, width=width, chance_samples=chance_samples, max_states=max_states,
                        value=value, players=game.num_players)
        TurnExpectimax(**settings)      # refuse bad settings now
        super().__init__(game, seed, settings)

    def _run_search(self, state, seed):
        search = TurnExpectimax(seed=seed, **self.settings)
        children = search.search(state)
        for child in children:
            child["bound"] = "exact" if child.pop("exact") else "upper"
        budget = (f"{self.describe} ({self.settings['depth']} turns), {search.nodes:,} nodes in "
                  f"{search.last_seconds:.2f} s")
        return children, {"nodes": search.nodes, "seconds": search.last_seconds, "children": len(children)}, budget

    def best_first(self, children):
        return children          # the search sorts them by value, the exact best first


register_agent("cvc_expectimax", CompiledExpectimaxAgent,
               {"depth": int, "width": int, "chance_samples": int, "max_states": int, "value": VALUE_OPTION},
               game=SPEC.name)
