# A whole Cave vs Cave deal as a C struct (a "future"), for the searchers that play games out on one: the
# planner (cvc_planner) on sampled or true deals, NRPA (cvc_nrpa) on one. Python builds futures as arrays
# (cvc_planner.sample_future, future_of_deal); `load_future` copies one into the struct.
from libc.stdint cimport int8_t

from cavekit.core.cvc.compiled cimport MAX_DEAL_ITEMS, NUM_DEAL_COMPONENTS, GameState, chance_item

ctypedef struct Future:
    int8_t items[NUM_DEAL_COMPONENTS][MAX_DEAL_ITEMS]      # a whole deal: each component's outcomes in order


cdef inline int future_outcome(const GameState* s, const Future* f) noexcept nogil:
    """The outcome the future deals at chance node `s`."""
    cdef int component, item
    chance_item(s, &component, &item)
    return f.items[component][item]


cdef inline void load_future(const int8_t[:, ::1] future, Future* f) noexcept:
    """Copy a future given as an array (NUM_DEAL_COMPONENTS x MAX_DEAL_ITEMS) into `f`."""
    cdef int i, j
    for i in range(NUM_DEAL_COMPONENTS):
        for j in range(MAX_DEAL_ITEMS):
            f.items[i][j] = future[i, j]
