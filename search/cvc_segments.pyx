"""Turn segments of Cave vs Cave, and the compiled greedy turn search built on them.

A segment is what one player does from where they are to move until their turn is over or a chance event
interrupts it (a room turned up by an excavation). `SegmentEnumerator` lists every distinct position a
segment can reach: a breadth-first search over the C states with a hash set, so the many orders of the same
sub-actions collapse into one position. The compiled searchers (`cvc_turn_mcts`, `cvc_expectimax`) and the
greedy agent's fast path (`TurnSearcher`) search over these segments.
"""
cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t
from libc.stdlib cimport qsort
from libc.string cimport memcmp, memcpy

from cavekit.core.compiled_common cimport random_below, search_rng
from cavekit.core.cvc.compiled cimport (NUM_ACTIONS_MAX, CoreState, GameState, apply_action, chance_outcomes,
                                        current_player, is_terminal, legal_actions, returns)
from cavekit.search.cvc_evaluation cimport Evaluator, evaluate, make_evaluator, use_memo

from ..core.cvc.actions import action_table
from ..core.cvc.compiled import CompiledState

cdef enum:
    CHANCE = -1
    MAX_OUTCOMES = 32
    FIRST_TABLE_SIZE = 1024   # hash slots a run starts with (doubled whenever half full)

cdef int END_TURN = action_table().end_turn
cdef int32_t GROUP_COUNT[NUM_ACTIONS_MAX]     # rank_ends' scratch counts, all zero between calls


cdef inline uint64_t rotl(uint64_t x, int r) noexcept nogil:
    return (x << r) | (x >> (64 - r))


cdef inline uint64_t state_hash(const GameState* s) noexcept nogil:
    """A hash of the struct's bytes (all states here are copies of one root, so padding bytes agree).

    Enumerations spend much of their time looking positions up, and a byte-wise FNV-1a took half of a
    planner's CPU. This one reads eight bytes at a time into four independent multiply chains (so the CPU
    overlaps them) and mixes their combination with the MurmurHash3 finaliser.
    """
    cdef const uint8_t* p = <const uint8_t*>s
    cdef uint64_t a = 0x9E3779B97F4A7C15ULL, b = 0xC2B2AE3D27D4EB4FULL, c = 0x165667B19E3779F9ULL
    cdef uint64_t d = 0x85EBCA77C2B2AE63ULL, w0, w1, w2, w3, h
    cdef size_t i = 0, size = sizeof(GameState)
    while i + 32 <= size:
        memcpy(&w0, p + i, 8)
        memcpy(&w1, p + i + 8, 8)
        memcpy(&w2, p + i + 16, 8)
        memcpy(&w3, p + i + 24, 8)
        a = (a ^ w0) * 0xFF51AFD7ED558CCDULL
        b = (b ^ w1) * 0xFF51AFD7ED558CCDULL
        c = (c ^ w2) * 0xFF51AFD7ED558CCDULL
        d = (d ^ w3) * 0xFF51AFD7ED558CCDULL
        i += 32
    while i + 8 <= size:
        memcpy(&w0, p + i, 8)
        b = (b ^ w0) * 0xC4CEB9FE1A85EC53ULL
        i += 8
    while i < size:
        c = (c ^ p[i]) * 0xC4CEB9FE1A85EC53ULL
        i += 1
    h = a ^ rotl(b, 17) ^ rotl(c, 31) ^ rotl(d, 47)
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    return h ^ (h >> 33)


cdef inline int finisher(const int* legal, int n) noexcept nogil:
    """The action that heads fastest to the end of the turn: `end turn` if legal, else the first action."""
    cdef int k
    for k in range(n):
        if legal[k] == END_TURN:
            return END_TURN
    return legal[0]


cdef const GameState* state_struct(object state) except NULL:
    if not isinstance(state, CompiledState):
        raise TypeError("the compiled Cave vs Cave searches need compiled states (load_game('cvc', engine='compiled'))")
    return &(<CoreState>state).s


cdef void position_value(const GameState* s, double* out, const Evaluator* ev) noexcept nogil:
    """The value of a position by `ev`; a chance node gets the average over its (equally likely) outcomes."""
    cdef int outcomes[MAX_OUTCOMES]
    cdef int n, i
    cdef double one[2]
    cdef GameState child
    if is_terminal(s):
        returns(s, out)
        return
    if current_player(s) != CHANCE:
        evaluate(s, out, ev)
        return
    n = chance_outcomes(s, outcomes)
    out[0] = 0.0
    out[1] = 0.0
    for i in range(n):
        memcpy(&child, s, sizeof(GameState))
        apply_action(&child, outcomes[i])
        evaluate(&child, one, ev)
        out[0] += one[0] / n
        out[1] += one[1] / n


cdef int by_key(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const Ranked*>a).key, y = (<const Ranked*>b).key
    if x != y:
        return -1 if x < y else 1
    return (<const Ranked*>a).index - (<const Ranked*>b).index     # ties: enumeration order, deterministic


cdef bint segment_over(const GameState* s, int round_, int turn) noexcept nogil:
    """True once the mover's turn is over, a chance event interrupts it, or the game has ended."""
    return current_player(s) == CHANCE or is_terminal(s) or s.round != round_ or s.turn != turn


@cython.final
cdef class SegmentEnumerator:
    """Every distinct position reachable by the mover's actions until their segment ends (see module doc).

    After `run`, positions `0..n-1` are the root and what it reaches; `is_end[i]` marks segment ends, and
    `parent`/`via` lead back to the root, so `path(i)` gives the actions that reach position i.
    """

    def __cinit__(self, int max_states=20000):
        self.max_states = max_states
        self.capacity = 2 * max_states + NUM_ACTIONS_MAX
        cdef int size = 1, i
        while size < 2 * self.capacity:
            size *= 2
        self.table_size = size
        self.states = <GameState*>PyMem_Malloc(self.capacity * sizeof(GameState))
        self.parent = <int32_t*>PyMem_Malloc(self.capacity * sizeof(int32_t))
        self.via = <int32_t*>PyMem_Malloc(self.capacity * sizeof(int32_t))
        self.first = <int32_t*>PyMem_Malloc(self.capacity * sizeof(int32_t))
        self.is_end = <int8_t*>PyMem_Malloc(self.capacity * sizeof(int8_t))
        self.table = <int32_t*>PyMem_Malloc(size * sizeof(int32_t))
        self.slot = <int32_t*>PyMem_Malloc(self.capacity * sizeof(int32_t))
        self.hashes = <uint64_t*>PyMem_Malloc(self.capacity * sizeof(uint64_t))
        self.ranked = <Ranked*>PyMem_Malloc(self.capacity * sizeof(Ranked))
        self.regrouped = <Ranked*>PyMem_Malloc(self.capacity * sizeof(Ranked))
        self.rank_start = <int32_t*>PyMem_Malloc((self.capacity + 1) * sizeof(int32_t))
        if not (self.states and self.parent and self.via and self.first and self.is_end and self.table and self.slot
                and self.hashes and self.ranked and self.regrouped and self.rank_start):
            raise MemoryError()
        for i in range(size):
            self.table[i] = -1
        self.n = 0
        self.table_mask = min(FIRST_TABLE_SIZE, size) - 1

    def __dealloc__(self):
        PyMem_Free(self.states)
        PyMem_Free(self.parent)
        PyMem_Free(self.via)
        PyMem_Free(self.first)
        PyMem_Free(self.is_end)
        PyMem_Free(self.table)
        PyMem_Free(self.slot)
        PyMem_Free(self.hashes)
        PyMem_Free(self.ranked)
        PyMem_Free(self.regrouped)
        PyMem_Free(self.rank_start)

    cdef int add(self, const GameState* s, int parent, int action, bint end) noexcept nogil:
        """Record a position unless it is known; its index, or -1 if it was a duplicate."""
        cdef uint64_t h = state_hash(s)
        cdef int slot, index
        if 2 * (self.n + 1) > self.table_mask + 1 and self.table_mask + 1 < self.table_size:
            self.grow_table()
        slot = <int>(h & <uint64_t>self.table_mask)
        while self.table[slot] >= 0:
            index = self.table[slot]
            if self.hashes[index] == h and memcmp(&self.states[index], s, sizeof(GameState)) == 0:
                return -1
            slot = (slot + 1) & self.table_mask
        index = self.n
        memcpy(&self.states[index], s, sizeof(GameState))
        self.parent[index] = parent
        self.via[index] = action
        self.first[index] = action if parent <= 0 else self.first[parent]
        self.is_end[index] = end
        self.table[slot] = index
        self.slot[index] = slot
        self.hashes[index] = h
        self.n += 1
        return index

    cdef void grow_table(self) noexcept nogil:
        """Double the part of the table in use and put the known positions back. A run starts small, since most
        turns reach a few hundred positions and a table sized for `max_states` made every lookup a cache miss
        (more than half of `add`'s time, perf)."""
        cdef int k, slot
        for k in range(self.n):
            self.table[self.slot[k]] = -1
        self.table_mask = 2 * self.table_mask + 1
        for k in range(self.n):
            slot = <int>(self.hashes[k] & <uint64_t>self.table_mask)
            while self.table[slot] >= 0:
                slot = (slot + 1) & self.table_mask
            self.table[slot] = k
            self.slot[k] = slot

    cdef int run(self, const GameState* root) noexcept nogil:
        """Enumerate from `root` (a decision node); returns the number of positions found.

        Past `max_states` positions, the positions still to expand only try `end turn` (the greedy agent's
        finisher; or their first legal action where `end turn` is not legal, such as a sub-action that must
        be done), so a huge turn still yields complete segments, just fewer of them.
        """
        cdef int buffer[NUM_ACTIONS_MAX]
        cdef GameState child
        cdef int i = 0, k, n_legal, round_ = root.round, turn = root.turn
        cdef bint end, finishing
        for k in range(self.n):             # empty the slots the last run filled, not the whole table
            self.table[self.slot[k]] = -1
        self.n = 0
        self.table_mask = min(FIRST_TABLE_SIZE, self.table_size) - 1
        self.add(root, -1, -1, False)
        while i < self.n:
            if not self.is_end[i]:
                n_legal = legal_actions(&self.states[i], buffer)
                finishing = self.n >= self.max_states
                for k in range(n_legal):
                    if finishing and buffer[k] != finisher(buffer, n_legal):
                        continue
                    if self.n >= self.capacity:
                        break
                    memcpy(&child, &self.states[i], sizeof(GameState))
                    apply_action(&child, buffer[k])
                    end = segment_over(&child, round_, turn)
                    self.add(&child, i, buffer[k], end)
            i += 1
        return self.n

    cdef int rank_ends(self, int player, const Evaluator* ev) noexcept nogil:
        """Put the last run's segment ends into `ranked` in the searchers' order; returns their number.

        The order: the best end of each first action (each tile, at a turn's start) by `ev` for `player`,
        then each one's second best, and so on, each layer best first. A tile taken only to deny it to the
        opponent ends with a poor value; this keeps it among the first ends searched.
        """
        cdef int n = 0, i, j, r, ranks = 0
        cdef double out[2]
        cdef Ranked* swap
        for i in range(self.n):
            if self.is_end[i]:
                position_value(&self.states[i], out, ev)
                self.ranked[n].key = -out[player]
                self.ranked[n].index = i
                n += 1
        qsort(self.ranked, n, sizeof(Ranked), by_key)
        for i in range(n):
            j = self.first[self.ranked[i].index]
            self.ranked[i].group_rank = GROUP_COUNT[j]
            GROUP_COUNT[j] += 1
            if GROUP_COUNT[j] > ranks:
                ranks = GROUP_COUNT[j]
        for i in range(n):
            GROUP_COUNT[self.first[self.ranked[i].index]] = 0
        # Layers in group-rank order, each kept in key order: a stable counting sort by group rank of the list
        # sorted by key (the same order as sorting by group rank, then key, in a fraction of the time).
        for r in range(ranks + 1):
            self.rank_start[r] = 0
        for i in range(n):
            self.rank_start[self.ranked[i].group_rank + 1] += 1
        for r in range(ranks):
            self.rank_start[r + 1] += self.rank_start[r]
        for i in range(n):
            r = self.ranked[i].group_rank
            self.regrouped[self.rank_start[r]] = self.ranked[i]
            self.rank_start[r] += 1
        swap = self.ranked
        self.ranked = self.regrouped
        self.regrouped = swap
        return n

    cdef list path(self, int index):
        """The actions that lead from the root to position `index`."""
        actions = []
        while self.parent[index] >= 0:
            actions.append(self.via[index])
            index = self.parent[index]
        actions.reverse()
        return actions

    def segments(self, state):
        """Python view for tests and tools: the action list of every distinct segment end from `state`."""
        cdef int i
        self.run(state_struct(state))
        return [self.path(i) for i in range(self.n) if self.is_end[i]]

    @property
    def positions(self):
        """Positions found by the last run, segment ends included."""
        return self.n


@cython.final
cdef class TurnSearcher:
    """The greedy agent's turn search in C: each first action's best end-of-turn evaluation for the mover.

    The same search as `turn_search.TurnSearch`: every position the mover reaches before the turn ends,
    evaluated when it ends by `value` (the heuristic, or the learned value for games of `players` players);
    at a chance event inside the turn (a room turned up) the value is the average over the outcomes (all of
    them, or `chance_samples` draws with replacement, weighted by their share of the draws) of the best
    continuation. Each chance depth gets its own enumerator, because
    the enumerator above is still being read while a continuation is searched.
    """

    # (attributes in cvc_segments.pxd; `positions` counts what the last `action_values` enumerated)

    def __init__(self, int max_states=20000, int chance_samples=6, seed=0, str value="heuristic", int players=2):
        self.ev = make_evaluator(value, players)
        use_memo(&self.ev, self.memos)
        self.levels = []
        self.max_states = max_states
        self.chance_samples = chance_samples
        self.rng = search_rng(seed)

    cdef SegmentEnumerator level(self, int depth):
        while len(self.levels) <= depth:
            self.levels.append(SegmentEnumerator(self.max_states))
        return self.levels[depth]

    cdef double end_value(self, const GameState* s, int player, int round_, int turn, int depth) except? -1e300:
        """The value for `player` of a position their segment ended in."""
        cdef int outcomes[MAX_OUTCOMES]
        cdef int counts[MAX_OUTCOMES]
        cdef int n, i, draws
        cdef double out[2], total = 0.0
        cdef GameState child
        if is_terminal(s) or s.round != round_ or s.turn != turn:
            evaluate(s, out, &self.ev)
            return out[player]
        if current_player(s) != CHANCE:
            return self.best_value(s, player, depth)
        n = chance_outcomes(s, outcomes)
        draws = n if self.chance_samples <= 0 or n <= self.chance_samples else self.chance_samples
        for i in range(n):
            counts[i] = 1 if draws == n else 0
        if draws < n:
            for i in range(draws):
                counts[random_below(&self.rng, n)] += 1
        for i in range(n):
            if counts[i]:
                memcpy(&child, s, sizeof(GameState))
                apply_action(&child, outcomes[i])
                total += counts[i] * self.end_value(&child, player, round_, turn, depth)
        return total / draws

    cdef double best_value(self, const GameState* s, int player, int depth) except? -1e300:
        """The best value for `player` over the segments from `s` (player to move inside their turn)."""
        cdef SegmentEnumerator e = self.level(depth)
        cdef int i
        cdef double best = -1e300, value
        e.run(s)
        self.positions += e.n
        for i in range(e.n):
            if e.is_end[i]:
                value = self.end_value(&e.states[i], player, s.round, s.turn, depth + 1)
                if value > best:
                    best = value
        return best

    def action_values(self, state) -> dict:
        """Each legal action's best end-of-turn value for the player to move (the greedy agent's values).

        Each action's continuation is enumerated on its own: one enumeration from the root would credit a
        position reached by two orders of the same sub-actions to whichever first action found it first.
        """
        cdef const GameState* s = state_struct(state)
        cdef int buffer[NUM_ACTIONS_MAX]
        cdef int i, n, player = current_player(s)
        cdef GameState child
        if player < 0:
            raise ValueError("the turn search starts where a player is to move")
        self.positions = 0
        n = legal_actions(s, buffer)
        values = {}
        for i in range(n):
            memcpy(&child, s, sizeof(GameState))
            apply_action(&child, buffer[i])
            self.positions += 1
            values[buffer[i]] = self.end_value(&child, player, s.round, s.turn, 0)
        return values
