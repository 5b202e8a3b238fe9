"""Monte Carlo tree search in C, over the engine interface (core/engine.pxd): one MCTS for every compiled engine.

It is `search/mcts.py` (the readable reference) on C positions, with the same tree and the same choices:
- UCT over atomic actions; a decision node picks for its mover; values are vectors of returns, one per player,
  normalised by the smallest and largest return backed up in the search, so one `c` suits points and +-1;
- a chance node has one child per outcome seen, reached by sampling the outcomes with their probabilities;
- a decision node expands its untried actions in a random order, one per iteration;
- hidden information (an engine with `resample`): each iteration plays in a determinisation the engine draws
  for the searching player, children not legal in it are skipped, and selection counts how often a child could
  have been chosen (single-observer IS-MCTS); `perfect_information=1` searches the true position instead (an
  upper bound for analysis only);
- leaves are valued by a uniformly random rollout to the end (or for `rollout_steps` steps, then the engine's
  `evaluate`), or by `evaluate` directly (`rollout=none`).
It differs from the reference where C asks it to: the engines' xorshift generator draws instead of numpy's (so
the two make the same moves only where the search's answer does not depend on its random numbers: see
tests/test_compiled_mcts.py), the tree is not kept between moves, and there is no root parallelism.
"""
from libc.math cimport INFINITY, log, sqrt
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from cavekit.core.compiled_common cimport CompiledStateBase, random_below, search_rng, uniform
from cavekit.core.engine cimport ENGINE_CHANCE, ENGINE_MAX_PLAYERS, ENGINE_TERMINAL, Engine

import numpy as np

from ..core.api import CHANCE, ConfigError
from .agent import choosable_actions, register_agent
from .mcts import SearchResult

ROLLOUTS = ("random", "none")
MAX_ITERATIONS = 100_000_000

ctypedef struct Node:
    int action                  # the action or chance outcome that leads here (-1: the root)
    int player                  # who moves here: a player, ENGINE_CHANCE or ENGINE_TERMINAL
    int first_child             # a node index, or -1
    int next_sibling            # a node index, or -1
    int visits
    int available               # IS-MCTS: iterations in which this node's action was legal at its parent
    int untried_start           # perfect information: where the untried actions start in the action pool
    int untried_left            # -1: not expanded yet
    double value_sum[ENGINE_MAX_PLAYERS]

ctypedef struct Tree:
    Node* nodes
    int n_nodes
    int cap_nodes
    int* pool                   # untried actions of the nodes, in the order they will be tried
    int n_pool
    int cap_pool
    int* path                   # the nodes of the iteration under way
    int cap_path
    int* slot                   # IS-MCTS: slot[action] is the child of the node at hand for that action, or -1


ctypedef struct Settings:
    double c
    int rollout                 # 1: random rollout, 0: none
    int rollout_steps           # -1: to the end
    bint hidden                 # IS-MCTS
    int searcher


cdef int grow(void** buffer, int* capacity, int need, size_t item) noexcept nogil:
    """Make `buffer` hold at least `need` items of `item` bytes (doubling); -1 if memory ran out."""
    cdef int cap = capacity[0]
    cdef void* bigger
    if need <= cap:
        return 0
    while cap < need:
        cap = cap * 2 if cap else 256
    bigger = realloc(buffer[0], cap * item)
    if bigger == NULL:
        return -1
    buffer[0] = bigger
    capacity[0] = cap
    return 0


cdef int new_node(Tree* tree, int action, int player) noexcept nogil:
    """A new node (Node.__init__); its index, or -1 if memory ran out."""
    cdef Node* node
    if grow(<void**>&tree.nodes, &tree.cap_nodes, tree.n_nodes + 1, sizeof(Node)) < 0:
        return -1
    node = &tree.nodes[tree.n_nodes]
    memset(node, 0, sizeof(Node))
    node.action = action
    node.player = player
    node.first_child = -1
    node.next_sibling = -1
    node.untried_left = -1
    tree.n_nodes += 1
    return tree.n_nodes - 1


cdef int find_child(const Tree* tree, int parent, int action) noexcept nogil:
    cdef int k = tree.nodes[parent].first_child
    while k >= 0 and tree.nodes[k].action != action:
        k = tree.nodes[k].next_sibling
    return k


cdef int child(Tree* tree, const Engine* e, int parent, int action, void* state) noexcept nogil:
    """Apply `action` to `state` and return (creating if new) the matching child of `parent` (`_child`)."""
    cdef int k
    e.apply_action(state, action)
    k = find_child(tree, parent, action)
    if k < 0:
        k = new_node(tree, action, e.current_player(state))
        if k < 0:
            return -1
        tree.nodes[k].available = 1
        tree.nodes[k].next_sibling = tree.nodes[parent].first_child
        tree.nodes[parent].first_child = k
    return k


cdef void index_children(Tree* tree, int parent) noexcept nogil:
    """Fill `tree.slot` with the children of `parent` by action (IS-MCTS looks up every legal action)."""
    cdef int k = tree.nodes[parent].first_child
    while k >= 0:
        tree.slot[tree.nodes[k].action] = k
        k = tree.nodes[k].next_sibling


cdef void clear_children(Tree* tree, int parent) noexcept nogil:
    """Empty `tree.slot` again (every entry -1) after `index_children(parent)`."""
    cdef int k = tree.nodes[parent].first_child
    while k >= 0:
        tree.slot[tree.nodes[k].action] = -1
        k = tree.nodes[k].next_sibling


cdef int sample_outcome(const Engine* e, const void* state, int* buffer, double* probabilities,
                        uint64_t* rng) noexcept nogil:
    """A chance outcome drawn with its probability (`sample_chance_outcome`)."""
    cdef int n = e.chance_outcomes(state, buffer, probabilities), i
    cdef double u = uniform(rng)
    for i in range(n - 1):
        u -= probabilities[i]
        if u < 0:
            return buffer[i]
    return buffer[n - 1]


cdef int select(const Tree* tree, int parent, const int* legal, int n_legal, const double* bounds,
                const Settings* settings) noexcept nogil:
    """The child UCT picks (`_select`): among all children, or (IS-MCTS) those whose action is in `legal`, found
    through `tree.slot` (`index_children`)."""
    cdef const Node* node = &tree.nodes[parent]
    cdef double low = bounds[0], high = bounds[1], span, log_n, q, score, best_score = -INFINITY
    cdef int parent_visits = 0, k, i, best = -1
    if high < low:
        low, high = 0.0, 1.0
    span = high - low if high > low else 1.0
    if settings.hidden:
        for i in range(n_legal):
            parent_visits += tree.nodes[tree.slot[legal[i]]].available
    else:
        parent_visits = node.visits
    log_n = log(parent_visits if parent_visits > 1 else 1)
    if settings.hidden:
        for i in range(n_legal):
            k = tree.slot[legal[i]]
            q = (tree.nodes[k].value_sum[node.player] / tree.nodes[k].visits - low) / span
            score = q + settings.c * sqrt(log_n / tree.nodes[k].visits)
            if score > best_score:
                best, best_score = k, score
        return best
    # The reference scans children in the order they were made; the list here is newest first, so walk it
    # whole and keep the last of equal scores made earliest: the oldest child wins a tie, as in the reference.
    k = node.first_child
    while k >= 0:
        q = (tree.nodes[k].value_sum[node.player] / tree.nodes[k].visits - low) / span
        score = q + settings.c * sqrt(log_n / tree.nodes[k].visits)
        if score >= best_score:
            best, best_score = k, score
        k = tree.nodes[k].next_sibling
    return best


cdef void leaf_value(const Engine* e, void* state, int* buffer, double* probabilities, const Settings* settings,
                     uint64_t* rng, double* out) noexcept nogil:
    """The value of the leaf `state` (`_leaf_value`): rollout, then returns or the evaluation."""
    cdef int steps = 0, player, n, i
    if settings.rollout:
        player = e.current_player(state)
        while player != ENGINE_TERMINAL and steps != settings.rollout_steps:
            if player == ENGINE_CHANCE:
                e.apply_action(state, sample_outcome(e, state, buffer, probabilities, rng))
            else:
                n = e.legal_actions(state, buffer)
                e.apply_action(state, buffer[random_below(rng, n)])
            steps += 1
            player = e.current_player(state)
    if e.current_player(state) == ENGINE_TERMINAL:
        e.returns(state, out)
    elif e.evaluate != NULL:
        e.evaluate(state, out)
    else:
        for i in range(e.num_players):      # no knowledge (`terminal_only`)
            out[i] = 0.0


cdef int iterate(Tree* tree, const Engine* e, void* state, int* buffer, double* probabilities, double* bounds,
                 const Settings* settings, uint64_t* rng) noexcept nogil:
    """One iteration from the root (node 0) on `state` (`_iterate`); -1 if memory ran out."""
    cdef double values[ENGINE_MAX_PLAYERS]
    cdef int node = 0, depth = 1, n, i, k, action, last
    cdef Node* current
    tree.path[0] = 0
    while e.current_player(state) != ENGINE_TERMINAL:
        current = &tree.nodes[node]
        if current.player == ENGINE_CHANCE:
            node = child(tree, e, node, sample_outcome(e, state, buffer, probabilities, rng), state)
        else:
            # Legal actions are generated where they are needed: at every visit under IS-MCTS (a determinisation
            # decides them), once per node otherwise (its children are then all there is to choose from).
            n = e.legal_actions(state, buffer) if settings.hidden or current.untried_left < 0 else 0
            action = -1
            if settings.hidden:
                index_children(tree, node)
                k = 0           # the legal actions without a child, of which one is drawn
                for i in range(n):
                    if tree.slot[buffer[i]] < 0:
                        k += 1
                if k:
                    k = random_below(rng, k)
                    for i in range(n):
                        if tree.slot[buffer[i]] < 0:
                            if k == 0:
                                action = buffer[i]
                                break
                            k -= 1
                    clear_children(tree, node)
            else:
                if current.untried_left < 0:
                    # the reference's rng.permutation(legal), popped from the end
                    if grow(<void**>&tree.pool, &tree.cap_pool, tree.n_pool + n, sizeof(int)) < 0:
                        return -1
                    current = &tree.nodes[node]
                    current.untried_start = tree.n_pool
                    current.untried_left = n
                    memcpy(&tree.pool[tree.n_pool], buffer, n * sizeof(int))
                    for i in range(n - 1, 0, -1):
                        k = random_below(rng, i + 1)
                        tree.pool[tree.n_pool + i], tree.pool[tree.n_pool + k] = \
                            tree.pool[tree.n_pool + k], tree.pool[tree.n_pool + i]
                    tree.n_pool += n
                if current.untried_left > 0:
                    current.untried_left -= 1
                    action = tree.pool[current.untried_start + current.untried_left]
            if action >= 0:
                node = child(tree, e, node, action, state)
                if node < 0 or grow(<void**>&tree.path, &tree.cap_path, depth + 1, sizeof(int)) < 0:
                    return -1
                tree.path[depth] = node
                depth += 1
                break
            if settings.hidden:
                for i in range(n):
                    tree.nodes[tree.slot[buffer[i]]].available += 1
                k = select(tree, node, buffer, n, bounds, settings)
                clear_children(tree, node)
                node = k
            else:
                node = select(tree, node, buffer, n, bounds, settings)
            e.apply_action(state, tree.nodes[node].action)
        if node < 0 or grow(<void**>&tree.path, &tree.cap_path, depth + 1, sizeof(int)) < 0:
            return -1
        tree.path[depth] = node
        depth += 1
    leaf_value(e, state, buffer, probabilities, settings, rng, values)
    for i in range(e.num_players):
        if values[i] < bounds[0]:
            bounds[0] = values[i]
        if values[i] > bounds[1]:
            bounds[1] = values[i]
    for k in range(depth):
        current = &tree.nodes[tree.path[k]]
        current.visits += 1
        for i in range(e.num_players):
            current.value_sum[i] += values[i]
    return 0


cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef int search_tree(Tree* tree, const Engine* e, const void* root, int iterations, double seconds,
                     const Settings* settings, uint64_t* rng, int* done) noexcept nogil:
    """Run the search from `root` (`MCTSAgent.search`): `iterations`, or until `seconds` have passed (at least
    one); -1 if memory ran out."""
    cdef void* world = malloc(e.state_size)
    cdef int* buffer = <int*>malloc(e.max_actions * sizeof(int))
    cdef double* probabilities = <double*>malloc(e.max_actions * sizeof(double))
    cdef double bounds[2]
    cdef double started = now()
    cdef int status = 0, i
    bounds[0], bounds[1] = INFINITY, -INFINITY
    done[0] = 0
    tree.slot = <int*>malloc(e.max_actions * sizeof(int))
    if world == NULL or buffer == NULL or probabilities == NULL or tree.slot == NULL \
            or new_node(tree, -1, e.current_player(root)) < 0 or grow(<void**>&tree.path, &tree.cap_path, 2, sizeof(int)) < 0:
        status = -1
    else:
        for i in range(e.max_actions):
            tree.slot[i] = -1
    while status == 0:
        if seconds > 0:
            if done[0] > 0 and now() - started >= seconds:
                break
        elif done[0] >= iterations:
            break
        memcpy(world, root, e.state_size)
        if settings.hidden:
            e.resample(world, settings.searcher, rng)
        status = iterate(tree, e, world, buffer, probabilities, bounds, settings, rng)
        done[0] += 1
    free(world)
    free(buffer)
    free(probabilities)
    return status


def search(CompiledStateBase state, int iterations=1000, double seconds=0.0, double c=1.4, str rollout="random",
           int rollout_steps=-1, bint perfect_information=False, seed=0):
    """One search from `state` (a compiled state at a decision): the root's (visits, mean values for the mover)
    by action, the iterations run and the seconds used."""
    cdef Engine e = state.engine()
    cdef Tree tree
    cdef Settings settings
    cdef uint64_t rng = search_rng(seed)
    cdef int done = 0, status, k
    cdef double started
    cdef const void* root = state.position()
    cdef int searcher = e.current_player(root)
    if searcher < 0:
        raise ValueError("a search starts at a player's decision, not at a chance node or the end")
    if e.num_players > ENGINE_MAX_PLAYERS:
        raise ConfigError(f"compiled_mcts plays at most {ENGINE_MAX_PLAYERS} players")
    settings.c = c
    settings.rollout = rollout == "random"
    settings.rollout_steps = rollout_steps
    settings.hidden = e.resample != NULL and not perfect_information
    settings.searcher = searcher
    memset(&tree, 0, sizeof(Tree))
    started = now()
    try:
        with nogil:
            status = search_tree(&tree, &e, root, iterations, seconds, &settings, &rng, &done)
        if status < 0:
            raise MemoryError(f"compiled_mcts ran out of memory after {done} iterations ({tree.n_nodes} nodes)")
        visits, values = {}, {}
        k = tree.nodes[0].first_child
        while k >= 0:
            visits[tree.nodes[k].action] = tree.nodes[k].visits
            values[tree.nodes[k].action] = tree.nodes[k].value_sum[searcher] / tree.nodes[k].visits
            k = tree.nodes[k].next_sibling
        return visits, values, done, now() - started
    finally:
        free(tree.nodes)
        free(tree.pool)
        free(tree.path)
        free(tree.slot)


class CompiledMCTSAgent:
    """UCT with sampled chance children and IS-MCTS for hidden information, in C on any compiled engine (see
    the module docstring; `mcts` is the readable reference with the same options)."""

    name = "compiled_mcts"

    def __init__(self, game, seed=None, iterations: int = 1000, seconds: float = 0.0, c: float = 1.4,
                 rollout: str = "random", rollout_steps: int = -1, perfect_information: int = 0):
        if rollout not in ROLLOUTS:
            raise ConfigError(f"compiled_mcts rollout={rollout!r} is not one of {', '.join(ROLLOUTS)}")
        if not 1 <= iterations <= MAX_ITERATIONS and seconds <= 0:
            raise ConfigError(f"compiled_mcts needs iterations from 1 to {MAX_ITERATIONS:,} or seconds > 0")
        if getattr(game, "engine", None) != "compiled":
            raise ConfigError(f"compiled_mcts searches a compiled engine; {game.name} is loaded with the "
                              f"{getattr(game, 'engine', 'unknown')} engine (load it with engine='compiled')")
        self.game = game
        self.iterations, self.seconds, self.c = iterations, seconds, c
        self.rollout, self.rollout_steps = rollout, rollout_steps
        self.perfect_information = bool(perfect_information)
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self.last_result = None
        self._result_history = None
        self.analysis_budget = "compiled MCTS, no search yet"

    def search(self, state) -> SearchResult:
        """Run one search from `state` (each search draws its own seed from the agent's generator)."""
        visits, values, done, seconds = search(
            state, self.iterations, self.seconds, self.c, self.rollout, self.rollout_steps,
            self.perfect_information, int(self.rng.integers(2**63)))
        return SearchResult(visits, values, done, seconds)

    def step(self, state) -> int:
        legal = choosable_actions(state)
        if len(legal) == 1:
            return legal[0]
        self.last_result = self.search(state)
        self._result_history = state.history()
        return self.last_result.best_action()

    def analyse(self, state) -> list:
        """The root statistics of a search from `state`, best first (as `MCTSAgent.analyse`)."""
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("analyse looks at a player's decision, not a chance or terminal node")
        if self.last_result is None or self._result_history != state.history():
            self.last_result, self._result_history = self.search(state), state.history()
        result = self.last_result
        self.analysis_budget = f"compiled MCTS, {result.iterations:,} iterations in {result.seconds:.2f} s"
        return [{"action": int(a), "text": state.action_to_string(a), "value": float(result.values[a]),
                 "visits": int(result.visits[a])} for a in result.ranked()]


register_agent("compiled_mcts", CompiledMCTSAgent, {"iterations": int, "seconds": float, "c": float,
                                                    "rollout": str, "rollout_steps": int,
                                                    "perfect_information": int})
