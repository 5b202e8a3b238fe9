"""Compiled MCTS for Cave vs Cave: `search/mcts.py` on the compiled C state, with no Python in the loop.

The same algorithm as the generic MCTS (UCT over atomic actions, sampled chance children, values normalised
by the smallest and largest return backed up, leaves valued by a random playout or by the heuristic of
`search/evaluation.py` in C), on a pool of C nodes. Children of a decision node are expanded in an order
shuffled once, as the generic version does. No tree reuse between moves (a search is cheap to redo).
"""
cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.math cimport log, sqrt
from libc.string cimport memcpy
from libc.stdint cimport int8_t, int32_t, uint64_t

from cavekit.core.compiled_common cimport next_random, random_below, search_rng
from cavekit.core.cvc.compiled cimport (NUM_ACTIONS_MAX, CoreState, GameState, apply_action, current_player,
                                        is_terminal, legal_actions, random_playout, returns)
from cavekit.search.cvc_evaluation cimport HEURISTIC, evaluate
from cavekit.search.cvc_segments cimport now

import numpy as np

from ..core.api import CHANCE as PY_CHANCE, ConfigError
from ..core.cvc.spec import SPEC
from ..core.cvc.compiled import CompiledState
from .agent import register_agent
from ..core.cvc.actions import CONVERT as PY_CONVERT, END_TURN as PY_END_TURN, action_table
from .cvc_evaluation import heuristic_values, set_weights  # noqa: F401  (re-exported)

cdef enum:
    CHANCE = -1
    LEAF_RANDOM = 0
    LEAF_HEURISTIC = 1
    LEAF_BUSY = 2

ROLLOUTS = {"random": LEAF_RANDOM, "none": LEAF_HEURISTIC, "busy": LEAF_BUSY}

ctypedef struct Node:
    int32_t first_edge        # index of the first edge, -1 until the node is expanded
    int32_t n_edges
    int32_t n_expanded        # decision nodes: edges with a child so far (in shuffled order)
    int32_t visits
    int8_t player             # the player to move, or CHANCE
    double value[2]

cdef int8_t PASSIVE[NUM_ACTIONS_MAX]      # 1 for `end turn` and conversions: what a busy rollout avoids
for _spec in action_table().specs:
    PASSIVE[_spec.id] = _spec.kind in (PY_END_TURN, PY_CONVERT)
cdef double BUSY_PASSIVE_CHANCE = 0.1      # a busy rollout still ends its turn (or converts) this often


cdef int busy_action(const GameState* s, int* buffer, uint64_t* rng) noexcept nogil:
    """A random legal action that is rarely `end turn` or a conversion (chance: a random outcome)."""
    cdef int n = legal_actions(s, buffer), active = 0, i, pick
    if current_player(s) != CHANCE:
        for i in range(n):
            active += not PASSIVE[buffer[i]]
    if active == 0 or active == n or <double>(next_random(rng) >> 11) / 9007199254740992.0 < BUSY_PASSIVE_CHANCE:
        return buffer[random_below(rng, n)]
    pick = random_below(rng, active)
    for i in range(n):
        if not PASSIVE[buffer[i]]:
            if pick == 0:
                return buffer[i]
            pick -= 1
    return buffer[0]


@cython.final
cdef class Tree:
    """A pool of nodes and edges that grows as the search runs."""

    cdef Node* nodes
    cdef int32_t* edge_action
    cdef int32_t* edge_child
    cdef int n_nodes, node_capacity, n_edges, edge_capacity

    def __cinit__(self):
        self.node_capacity = 1024
        self.edge_capacity = 16384
        self.nodes = <Node*>PyMem_Malloc(self.node_capacity * sizeof(Node))
        self.edge_action = <int32_t*>PyMem_Malloc(self.edge_capacity * sizeof(int32_t))
        self.edge_child = <int32_t*>PyMem_Malloc(self.edge_capacity * sizeof(int32_t))
        if not self.nodes or not self.edge_action or not self.edge_child:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.nodes)
        PyMem_Free(self.edge_action)
        PyMem_Free(self.edge_child)

    cdef int reserve(self, int nodes, int edges) except -1:
        """Make room for `nodes` more nodes and `edges` more edges (called with the GIL, before each iteration)."""
        cdef void* grown
        while self.n_nodes + nodes > self.node_capacity:
            grown = PyMem_Realloc(self.nodes, 2 * self.node_capacity * sizeof(Node))
            if not grown:
                raise MemoryError()
            self.nodes = <Node*>grown
            self.node_capacity *= 2
        while self.n_edges + edges > self.edge_capacity:
            grown = PyMem_Realloc(self.edge_action, 2 * self.edge_capacity * sizeof(int32_t))
            if not grown:
                raise MemoryError()
            self.edge_action = <int32_t*>grown
            grown = PyMem_Realloc(self.edge_child, 2 * self.edge_capacity * sizeof(int32_t))
            if not grown:
                raise MemoryError()
            self.edge_child = <int32_t*>grown
            self.edge_capacity *= 2
        return 0

    cdef int new_node(self, const GameState* s) noexcept nogil:
        cdef Node* node = &self.nodes[self.n_nodes]
        node.first_edge = -1
        node.n_edges = 0
        node.n_expanded = 0
        node.visits = 0
        node.player = current_player(s)
        node.value[0] = 0.0
        node.value[1] = 0.0
        self.n_nodes += 1
        return self.n_nodes - 1

    cdef void expand(self, int index, const GameState* s, uint64_t* rng) noexcept nogil:
        """Give a node one edge per legal action (decision nodes: shuffled) or chance outcome."""
        cdef int buffer[NUM_ACTIONS_MAX]
        cdef int n = legal_actions(s, buffer), i, j, tmp
        cdef Node* node = &self.nodes[index]
        if node.player != CHANCE:
            for i in range(n - 1, 0, -1):       # Fisher-Yates
                j = random_below(rng, i + 1)
                tmp = buffer[i]
                buffer[i] = buffer[j]
                buffer[j] = tmp
        node.first_edge = self.n_edges
        node.n_edges = n
        for i in range(n):
            self.edge_action[self.n_edges + i] = buffer[i]
            self.edge_child[self.n_edges + i] = -1
        self.n_edges += n


cdef class CompiledMCTS:
    """The search itself; `CompiledMCTSAgent` wraps it as an agent."""

    cdef public int iterations
    cdef public double seconds, c
    cdef public int leaf, rollout_steps
    cdef uint64_t rng

    def __init__(self, int iterations=1000, double seconds=0.0, double c=1.4, str rollout="random",
                 int rollout_steps=-1, seed=0):
        if rollout not in ROLLOUTS:
            raise ConfigError(f"cvc_mcts rollout={rollout!r} is not one of {', '.join(ROLLOUTS)}")
        self.iterations, self.seconds, self.c = iterations, seconds, c
        self.leaf = ROLLOUTS[rollout]
        self.rollout_steps = rollout_steps
        self.rng = search_rng(seed)

    def search(self, state):
        """Search from a CompiledState; returns (visits, values, iterations, seconds) of the root's children."""
        cdef GameState root
        cdef Node* node
        cdef int i, child
        memcpy(&root, state_struct(state), sizeof(GameState))
        cdef Tree tree = Tree()
        cdef double bounds[2]
        cdef double started = now()
        cdef int done = 0
        bounds[0] = 1e300
        bounds[1] = -1e300
        tree.reserve(1, 0)
        tree.new_node(&root)
        while True:
            if self.seconds > 0:
                if done > 0 and now() - started >= self.seconds:
                    break
            elif done >= self.iterations:
                break
            tree.reserve(64, 64 * NUM_ACTIONS_MAX // 8 + NUM_ACTIONS_MAX)
            self.iterate(tree, &root, bounds)
            done += 1
        node = &tree.nodes[0]
        visits, values = {}, {}
        for i in range(node.n_edges if node.first_edge >= 0 else 0):
            child = tree.edge_child[node.first_edge + i]
            if child >= 0:
                action = tree.edge_action[node.first_edge + i]
                visits[action] = tree.nodes[child].visits
                values[action] = tree.nodes[child].value[node.player] / tree.nodes[child].visits
        return visits, values, done, now() - started, tree.n_nodes

    cdef void iterate(self, Tree tree, const GameState* root, double* bounds) noexcept:
        cdef GameState s
        cdef int path[4096]
        cdef int depth = 0, index = 0, edge, child, i, best
        cdef double out[2]
        cdef double low, span, q, score, best_score, log_n
        cdef Node* node
        memcpy(&s, root, sizeof(GameState))
        path[depth] = 0
        depth += 1
        while not is_terminal(&s) and depth < 4000:
            node = &tree.nodes[index]
            if node.first_edge < 0:
                if tree.n_edges + NUM_ACTIONS_MAX > tree.edge_capacity:
                    break        # out of reserved edge room this iteration: value the leaf as it is
                tree.expand(index, &s, &self.rng)
                node = &tree.nodes[index]
            if node.player == CHANCE:
                edge = node.first_edge + random_below(&self.rng, node.n_edges)
                apply_action(&s, tree.edge_action[edge])
                if tree.edge_child[edge] < 0:
                    if tree.n_nodes >= tree.node_capacity:
                        break
                    tree.edge_child[edge] = tree.new_node(&s)
                index = tree.edge_child[edge]
                path[depth] = index
                depth += 1
                continue
            if node.n_expanded < node.n_edges:
                if tree.n_nodes >= tree.node_capacity:
                    break
                edge = node.first_edge + node.n_expanded
                node.n_expanded += 1
                apply_action(&s, tree.edge_action[edge])
                child = tree.new_node(&s)
                tree.edge_child[edge] = child
                path[depth] = child
                depth += 1
                break
            low, span = 0.0, 1.0
            if bounds[1] > bounds[0]:
                low, span = bounds[0], bounds[1] - bounds[0]
            log_n = log(node.visits if node.visits > 1 else 1)
            best, best_score = node.first_edge, -1e300
            for i in range(node.n_edges):
                child = tree.edge_child[node.first_edge + i]
                q = (tree.nodes[child].value[node.player] / tree.nodes[child].visits - low) / span
                score = q + self.c * sqrt(log_n / tree.nodes[child].visits)
                if score > best_score:
                    best, best_score = node.first_edge + i, score
            apply_action(&s, tree.edge_action[best])
            index = tree.edge_child[best]
            path[depth] = index
            depth += 1
        self.leaf_value(&s, out)
        for i in range(s.num_players):
            if out[i] < bounds[0]:
                bounds[0] = out[i]
            if out[i] > bounds[1]:
                bounds[1] = out[i]
        for i in range(depth):
            node = &tree.nodes[path[i]]
            node.visits += 1
            node.value[0] += out[0]
            if s.num_players == 2:
                node.value[1] += out[1]

    cdef void leaf_value(self, GameState* s, double* out) noexcept nogil:
        cdef int buffer[NUM_ACTIONS_MAX]
        cdef int steps = 0, n
        if self.leaf == LEAF_HEURISTIC:
            evaluate(s, out, &HEURISTIC)
            return
        if self.leaf == LEAF_BUSY:
            while steps != self.rollout_steps and not is_terminal(s):
                apply_action(s, busy_action(s, buffer, &self.rng))
                steps += 1
        elif self.rollout_steps < 0:
            random_playout(s, &self.rng)
        else:
            while steps < self.rollout_steps and not is_terminal(s):
                n = legal_actions(s, buffer)
                apply_action(s, buffer[random_below(&self.rng, n)])
                steps += 1
        if is_terminal(s):
            returns(s, out)
        else:
            evaluate(s, out, &HEURISTIC)


cdef const GameState* state_struct(object state) except NULL:
    if not isinstance(state, CompiledState):
        raise TypeError("cvc_mcts searches compiled Cave vs Cave states (load_game('cvc', engine='compiled'))")
    return &(<CoreState>state).s


class CompiledMCTSAgent:
    """MCTS on the compiled Cave vs Cave core; spec `cvc_mcts:iterations=N,seconds=S,c=C,rollout=random|busy|none`."""

    name = "cvc_mcts"

    def __init__(self, game, seed=None, iterations=1000, seconds=0.0, c=1.4, rollout="random", rollout_steps=-1):
        if game.name != "cvc" or game.engine != "compiled":
            raise ConfigError("cvc_mcts plays Cave vs Cave on the compiled engine; use mcts for other games")
        if iterations < 1 and seconds <= 0:
            raise ConfigError("cvc_mcts needs iterations >= 1 or seconds > 0")
        self.game = game
        self.settings = dict(iterations=iterations, seconds=seconds, c=c, rollout=rollout, rollout_steps=rollout_steps)
        CompiledMCTS(**self.settings)      # refuse bad settings now
        self._seed = seed
        self.reset()

    def reset(self):
        self.rng = np.random.default_rng(self._seed)
        self.last_result = None

    def step(self, state):
        if state.current_player() == PY_CHANCE or state.is_terminal():
            raise ValueError("agents choose player actions at decision nodes")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        search = CompiledMCTS(seed=int(self.rng.integers(2**63)), **self.settings)
        visits, values, iterations, seconds, nodes = search.search(state)
        self.last_result = {"visits": visits, "values": values, "iterations": iterations, "seconds": seconds,
                            "nodes": nodes}
        return max(visits, key=lambda a: (visits[a], values[a], -a))


register_agent("cvc_mcts", CompiledMCTSAgent, {"iterations": int, "seconds": float, "c": float, "rollout": str,
                                               "rollout_steps": int}, game=SPEC.name)
