"""Compiled MCTS over whole turns for Cave vs Cave: each move of the tree is a turn segment, not one action.

A Cave vs Cave turn is several atomic actions (take a tile, use it, use rooms, convert, end the turn). MCTS
over atomic actions spreads its budget over orderings of the same turn and values half-done turns with a
heuristic that does not understand them; the greedy agent, which searches the whole turn, beats it. Here a
tree move is a *segment*: the atomic actions of one player from where they are to move until their turn is
over or a chance event interrupts it (a room turned up by an excavation). `cvc_segments.SegmentEnumerator`
lists every distinct position a segment can reach, and the tree's children are those end positions.

- Children of a decision node are ordered by the heuristic (`cvc_evaluation.evaluate`, the greedy agent's
  evaluation) in layers: first the best end of each distinct first action (at a turn's start, each tile),
  then each one's second best, and so on. Progressive widening opens them in that order: a node visited n
  times may use its first `1 + widening * sqrt(n)` children, so the first visit follows the greedy choice
  and more budget brings in the other tiles (one taken only to deny it to the opponent has a poor heuristic
  value, but must be tried) before variants of the same tile.
- Only the first `max_children` in that order are kept per node.
- Chance nodes (tile reveals, rooms turned up) get one child per outcome, all equally likely, sampled.
- A new leaf is valued by the heuristic (at a chance node: its average over the outcomes).
- Values are normalised by the smallest and largest values backed up, as in the atomic MCTS.
The agent plays the chosen segment's actions one by one and searches again at the next segment.
"""
cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.math cimport log, sqrt
from libc.stdint cimport int8_t, int32_t, uint64_t
from libc.string cimport memcpy

from cavekit.core.compiled_common cimport random_below, search_rng
from cavekit.core.cvc.compiled cimport GameState, apply_action, chance_outcomes, current_player, is_terminal
from cavekit.search.cvc_evaluation cimport CaveMemo, Evaluator, evaluate, make_evaluator, use_memo
from cavekit.search.cvc_segments cimport SegmentEnumerator, now, position_value, state_struct

from ..core.api import ConfigError
from ..core.cvc.spec import SPEC
from .agent import register_agent
from .cvc_segment_agent import SegmentPlanAgent
from .cvc_value import VALUE_OPTION

cdef enum:
    CHANCE = -1
    MAX_OUTCOMES = 32
    MAX_DEPTH = 1024


ctypedef struct Node:
    GameState state
    int32_t first_child       # index of the first child (children are consecutive), -1 until expanded
    int32_t n_children
    int32_t visits
    int32_t source            # the child's position in its parent's last enumeration (root children only)
    int8_t player             # the player to move, or CHANCE
    double value[2]


cdef class TurnTree:
    """The search: a growing pool of nodes, each holding its position."""

    cdef Node* nodes
    cdef int n_nodes, capacity
    cdef SegmentEnumerator enumerator
    cdef public int iterations, max_children
    cdef public double seconds, c, widening
    cdef uint64_t rng
    cdef double low, high
    cdef public object last_stats
    cdef Evaluator ev
    cdef CaveMemo memos[2]               # the evaluator's memo of each seat's cave facts

    def __cinit__(self):
        self.capacity = 4096
        self.nodes = <Node*>PyMem_Malloc(self.capacity * sizeof(Node))
        if not self.nodes:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.nodes)

    def __init__(self, int iterations=1000, double seconds=0.0, double c=0.7, double widening=1.0,
                 int max_children=64, int max_states=20000, seed=0, str value="heuristic", int players=2):
        if iterations < 1 and seconds <= 0:
            raise ConfigError("cvc_turn_mcts needs iterations >= 1 or seconds > 0")
        if c < 0 or widening < 0:
            raise ConfigError(f"cvc_turn_mcts: c and widening must be >= 0, not c={c}, widening={widening}")
        if max_children < 1 or max_states < 1:
            raise ConfigError("cvc_turn_mcts: max_children and max_states must be at least 1")
        self.iterations, self.seconds, self.c, self.widening = iterations, seconds, c, widening
        self.max_children = max_children
        self.enumerator = SegmentEnumerator(max_states)
        self.rng = search_rng(seed)
        self.ev = make_evaluator(value, players)
        use_memo(&self.ev, self.memos)

    cdef int reserve(self, int more) except -1:
        cdef void* grown
        while self.n_nodes + more > self.capacity:
            grown = PyMem_Realloc(self.nodes, 2 * self.capacity * sizeof(Node))
            if not grown:
                raise MemoryError()
            self.nodes = <Node*>grown
            self.capacity *= 2
        return 0

    cdef int new_node(self, const GameState* s, int source) noexcept nogil:
        cdef Node* node = &self.nodes[self.n_nodes]
        memcpy(&node.state, s, sizeof(GameState))
        node.first_child = -1
        node.n_children = 0
        node.visits = 0
        node.source = source
        node.player = current_player(s)
        node.value[0] = 0.0
        node.value[1] = 0.0
        self.n_nodes += 1
        return self.n_nodes - 1

    cdef int expand(self, int index) except -1:
        """Create a node's children: chance outcomes, or the best segment ends sorted by the heuristic."""
        cdef int outcomes[MAX_OUTCOMES]
        cdef int n, i, j, kept, player = self.nodes[index].player
        cdef GameState child
        cdef double out[2]
        if player == CHANCE:
            n = chance_outcomes(&self.nodes[index].state, outcomes)
            self.reserve(n)
            self.nodes[index].first_child = self.n_nodes
            self.nodes[index].n_children = n
            for i in range(n):
                memcpy(&child, &self.nodes[index].state, sizeof(GameState))
                apply_action(&child, outcomes[i])
                self.new_node(&child, i)
            return 0
        memcpy(&child, &self.nodes[index].state, sizeof(GameState))
        with nogil:
            self.enumerator.run(&child)
            n = self.enumerator.rank_ends(player, &self.ev)
        kept = min(n, self.max_children)
        self.reserve(kept)
        self.nodes[index].first_child = self.n_nodes
        self.nodes[index].n_children = kept
        for j in range(kept):
            self.new_node(&self.enumerator.states[self.enumerator.ranked[j].index], self.enumerator.ranked[j].index)
        return 0

    cdef int select(self, int index) noexcept nogil:
        """The child to descend into: the next one opened by widening, else the best by UCT."""
        cdef Node* node = &self.nodes[index]
        cdef int allowed, i, best = node.first_child, player = node.player
        cdef double span, q, score, best_score = -1e300, log_n
        cdef Node* child
        if player == CHANCE:
            return node.first_child + random_below(&self.rng, node.n_children)
        allowed = 1 + <int>(self.widening * sqrt(<double>node.visits))
        if allowed > node.n_children:
            allowed = node.n_children
        span = self.high - self.low if self.high > self.low else 1.0
        log_n = log(node.visits if node.visits > 1 else 1)
        for i in range(allowed):
            child = &self.nodes[node.first_child + i]
            if child.visits == 0:
                return node.first_child + i
            q = (child.value[player] / child.visits - self.low) / span
            score = q + self.c * sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = node.first_child + i, score
        return best

    cdef int iterate(self) except -1:
        cdef int path[MAX_DEPTH]
        cdef int depth = 1, index = 0, i
        cdef double out[2]
        cdef Node* node
        path[0] = 0
        while depth < MAX_DEPTH:
            node = &self.nodes[index]
            if is_terminal(&node.state):
                break
            if node.visits == 0 and index != 0:
                break          # a new leaf: value it by the heuristic
            if node.first_child < 0:
                self.expand(index)
                node = &self.nodes[index]
                if node.n_children == 0:
                    break
            index = self.select(index)
            path[depth] = index
            depth += 1
        position_value(&self.nodes[index].state, out, &self.ev)
        for i in range(self.nodes[0].state.num_players):
            if out[i] < self.low:
                self.low = out[i]
            if out[i] > self.high:
                self.high = out[i]
        for i in range(depth):
            node = &self.nodes[path[i]]
            node.visits += 1
            node.value[0] += out[0]
            node.value[1] += out[1]
        return 0

    def search(self, state):
        """Search from a CompiledState at a decision node; returns the root children's statistics.

        Each entry: `actions` (the segment's atomic actions), `visits`, `value` (mean for the mover),
        `prior` (the heuristic value of the segment's end), sorted by the heuristic.
        """
        cdef const GameState* root = state_struct(state)
        cdef double started = now()
        cdef double out[2]
        cdef int done = 0, i, player
        cdef Node* node
        if current_player(root) < 0:
            raise ValueError("cvc_turn_mcts searches from a position where a player is to move")
        self.n_nodes = 0
        self.low, self.high = 1e300, -1e300
        self.reserve(1)
        self.new_node(root, -1)
        while True:
            if self.seconds > 0:
                if done > 0 and now() - started >= self.seconds:
                    break
            elif done >= self.iterations:
                break
            self.iterate()
            done += 1
        player = self.nodes[0].player
        # Later expansions overwrote the root's enumeration; running it again (it is deterministic) gives
        # the same position numbers, from which the children's action paths are read.
        self.enumerator.run(root)
        children = []
        for i in range(self.nodes[0].n_children):
            node = &self.nodes[self.nodes[0].first_child + i]
            evaluate(&node.state, out, &self.ev)
            children.append({"actions": self.enumerator.path(node.source), "visits": node.visits,
                             "value": node.value[player] / node.visits if node.visits else float("nan"),
                             "prior": out[player]})
        self.last_stats = {"iterations": done, "seconds": now() - started, "nodes": self.n_nodes}
        return children


class CompiledTurnMCTSAgent(SegmentPlanAgent):
    """MCTS over turn segments on the compiled core.

    Spec `cvc_turn_mcts:iterations=N,seconds=S,c=C,widening=W,max_children=K,max_states=M,value=V` (defaults
    1000, 0 = use iterations, 0.7, 1.0, 64, 20000, heuristic): N iterations or S seconds per segment searched;
    C the UCT exploration on values normalised to [0, 1]; W the progressive-widening factor; K the end
    positions kept per node; M the positions a segment enumeration may visit before it only finishes turns;
    V the leaf evaluation (`heuristic` or `learned`, see `cvc_evaluation`). It plays the
    most visited segment; `analyse` lists segments by visits with their mean value and heuristic prior.
    """

    name = "cvc_turn_mcts"
    describe = "MCTS over turn segments"

    def __init__(self, game, seed=None, iterations=1000, seconds=0.0, c=0.7, widening=1.0, max_children=64,
                 max_states=20000, value="heuristic"):
        settings = dict(iterations=iterations, seconds=seconds, c=c, widening=widening,
                        max_children=max_children, max_states=max_states, value=value, players=game.num_players)
        TurnTree(**settings)      # refuse bad settings now
        super().__init__(game, seed, settings)

    def _run_search(self, state, seed):
        tree = TurnTree(seed=seed, **self.settings)
        children = tree.search(state)
        stats = tree.last_stats
        budget = f"{self.describe}, {stats['iterations']:,} iterations in {stats['seconds']:.2f} s"
        return children, dict(stats, children=len(children)), budget

    def best_first(self, children):
        return sorted(children, key=lambda ch: (-ch["visits"], -ch["value"] if ch["visits"] else 0.0))


register_agent("cvc_turn_mcts", CompiledTurnMCTSAgent,
               {"iterations": int, "seconds": float, "c": float, "widening": float, "max_children": int,
                "max_states": int, "value": VALUE_OPTION}, game=SPEC.name)
