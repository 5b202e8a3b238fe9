"""`search/cvc_heuristic.py`'s Cave vs Cave heuristic in C, shared by the compiled searchers.

`evaluate` gives the same numbers as `cvc_evaluate` (tests check it on random positions) without touching
Python: expected final points from the position's features weighed by `CVC_WEIGHTS`, and in two-player
games `tanh(difference / CVC_DIFFERENCE_SCALE)`.
"""
from libc.math cimport tanh

from cavekit.core.cvc.compiled cimport (NUM_FEATURES, CoreState, GameState, is_terminal, player_features,
                                        returns, turns_left_share)

from ..core.cvc.compiled import CompiledState
from .cvc_heuristic import CVC_DIFFERENCE_SCALE, CVC_WEIGHTS

cdef double WEIGHTS[NUM_FEATURES]
cdef double DIFFERENCE_SCALE = CVC_DIFFERENCE_SCALE

FEATURE_NAMES = ("points", "wood", "stone", "emmer", "flax", "food", "empty_space", "diggable_space",
                 "built_wall", "usable_space", "best_fitting_room", "best_affordable_room")
# (the order of compiled.player_features)


def set_weights(weights) -> None:
    """Use these CVC_WEIGHTS-style weights in the C evaluation (searches read them at every leaf)."""
    for i, name in enumerate(FEATURE_NAMES):
        WEIGHTS[i] = 1.0 if name == "points" else weights[name]


set_weights(CVC_WEIGHTS)


cdef double expected_points(const GameState* s, int player, double share) noexcept nogil:
    """search.cvc_heuristic.cvc_expected_points in C."""
    cdef double f[NUM_FEATURES]
    cdef double potential = 0.0
    cdef int i
    player_features(s, player, f)
    for i in range(1, NUM_FEATURES):
        potential += WEIGHTS[i] * f[i]
    return f[0] + share * potential


cdef void evaluate(const GameState* s, double* out) noexcept nogil:
    """search.cvc_heuristic.cvc_evaluate in C."""
    cdef double share, lead
    if is_terminal(s):
        returns(s, out)
        return
    share = turns_left_share(s)
    if s.num_players == 1:
        out[0] = expected_points(s, 0, share)
        return
    lead = tanh((expected_points(s, 0, share) - expected_points(s, 1, share)) / DIFFERENCE_SCALE)
    out[0] = lead
    out[1] = -lead


def heuristic_values(state) -> list:
    """The C heuristic evaluation of a CompiledState (equal to search.cvc_heuristic.cvc_evaluate)."""
    cdef double out[2]
    if not isinstance(state, CompiledState):
        raise TypeError("heuristic_values evaluates compiled Cave vs Cave states")
    evaluate(&(<CoreState>state).s, out)
    return [out[i] for i in range(state._game.num_players)]
