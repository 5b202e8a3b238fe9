# The compiled Cave vs Cave evaluations, shared by the compiled searchers: the hand-written heuristic
# (search/cvc_heuristic.py in C) and the learned value (search/cvc_value.py in C).
from cavekit.core.cvc.compiled cimport NUM_VALUE_FEATURES, Board, BoardFacts, GameState

cdef enum:
    HEURISTIC_VALUE = 0
    LEARNED_VALUE = 1

ctypedef struct CaveMemo:
    # One seat's cave facts as last computed, and the cave they describe (the ends of one player's turn leave
    # the other cave as it was, so its facts repeat).
    bint filled
    Board board
    BoardFacts facts

ctypedef struct Evaluator:
    int kind                                    # HEURISTIC_VALUE or LEARNED_VALUE
    double by_share[NUM_VALUE_FEATURES]         # learned: weight of feature x share of turns left
    double by_share2[NUM_VALUE_FEATURES]        # learned: weight of feature x (share of turns left)^2
    double scale                                # two players: lead in expected points that makes tanh 0.76
    CaveMemo* memo                              # NULL, or one per seat, owned by the searcher (`use_memo`)

cdef Evaluator HEURISTIC                        # the hand-written heuristic (`value=heuristic`)
cdef double expected_points(const GameState* s, int player, double share, const double* w,
                            const Evaluator* ev) noexcept nogil
cdef void evaluate(const GameState* s, double* out, const Evaluator* ev) noexcept nogil
cdef Evaluator make_evaluator(str value, int players) except *
cdef void use_memo(Evaluator* ev, CaveMemo* memo) noexcept
