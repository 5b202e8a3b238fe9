# The compiled Cave vs Cave evaluations, shared by the compiled searchers: the hand-written heuristic
# (search/cvc_heuristic.py in C) and the learned value (search/cvc_value.py in C).
from cavekit.core.cvc.compiled cimport NUM_VALUE_FEATURES, GameState

cdef enum:
    HEURISTIC_VALUE = 0
    LEARNED_VALUE = 1

ctypedef struct Evaluator:
    int kind                                    # HEURISTIC_VALUE or LEARNED_VALUE
    double by_share[NUM_VALUE_FEATURES]         # learned: weight of feature x share of turns left
    double by_share2[NUM_VALUE_FEATURES]        # learned: weight of feature x (share of turns left)^2
    double scale                                # two players: lead in expected points that makes tanh 0.76

cdef Evaluator HEURISTIC                        # the hand-written heuristic (`value=heuristic`)
cdef double expected_points(const GameState* s, int player, double share, const Evaluator* ev) noexcept nogil
cdef void evaluate(const GameState* s, double* out, const Evaluator* ev) noexcept nogil
cdef Evaluator make_evaluator(str value, int players) except *
