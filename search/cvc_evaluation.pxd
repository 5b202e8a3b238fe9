# The Cave vs Cave heuristic (search/evaluation.py's cvc_evaluate) in C, for the compiled searchers.
from cavekit.core.cvc.compiled cimport GameState

cdef double expected_points(const GameState* s, int player, double share) noexcept nogil
cdef void evaluate(const GameState* s, double* out) noexcept nogil
