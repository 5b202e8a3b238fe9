# Turn segments of Cave vs Cave on the compiled state: every distinct position one player's actions reach
# before their turn ends or chance interrupts it (see cvc_segments.pyx).
from libc.stdint cimport int8_t, int32_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec
from cavekit.core.cvc.compiled cimport GameState
from cavekit.search.cvc_evaluation cimport CaveMemo, Evaluator


# Small helpers every compiled Cave vs Cave searcher uses (inline, so they cost nothing across modules);
# the random generator (random_below, search_rng) is core/compiled_common.pxd's.

cdef inline double now() noexcept nogil:
    """Seconds on the monotonic clock (for time budgets)."""
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9



ctypedef struct Ranked:
    int32_t group_rank        # 0 for the best end among those sharing its first action, 1 for the next...
    double key                # minus the mover's heuristic value, so ascending order is best first
    int32_t index             # position in the enumeration

cdef void position_value(const GameState* s, double* out, const Evaluator* ev) noexcept nogil
cdef const GameState* state_struct(object state) except NULL
cdef bint segment_over(const GameState* s, int round_, int turn) noexcept nogil

cdef class SegmentEnumerator:
    cdef GameState* states
    cdef int32_t* parent
    cdef int32_t* via
    cdef int32_t* first       # the first action of the path to each position
    cdef int8_t* is_end
    cdef int32_t* table       # open addressing: position indices by hash, -1 for a free slot
    cdef int32_t* slot        # the table slot holding each position
    cdef uint64_t* hashes     # each position's hash
    cdef Ranked* ranked       # the segment ends in search order, after rank_ends
    cdef Ranked* regrouped    # rank_ends' scratch, where the ends sorted by key are regrouped by group rank
    cdef int32_t* rank_start  # rank_ends' scratch: where each group rank's layer starts
    cdef int capacity, table_size, table_mask, n, max_states

    cdef int add(self, const GameState* s, int parent, int action, bint end) noexcept nogil
    cdef void grow_table(self) noexcept nogil
    cdef int run(self, const GameState* root) noexcept nogil
    cdef int rank_ends(self, int player, const Evaluator* ev) noexcept nogil
    cdef list path(self, int index)


cdef class TurnSearcher:
    cdef Evaluator ev
    cdef CaveMemo memos[2]               # the evaluator's memo of each seat's cave facts
    cdef list levels
    cdef int max_states, chance_samples
    cdef uint64_t rng
    cdef public long positions

    cdef SegmentEnumerator level(self, int depth)
    cdef double end_value(self, const GameState* s, int player, int round_, int turn, int depth) except? -1e300
    cdef double best_value(self, const GameState* s, int player, int depth) except? -1e300
