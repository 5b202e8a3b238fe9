"""The Cave vs Cave evaluations in C, shared by the compiled searchers.

Two kinds, chosen per agent by its `value` option (`make_evaluator`):
- `heuristic`: `search/cvc_heuristic.py`'s hand-written heuristic, the same numbers as `cvc_evaluate` (tests
  check it on random positions): expected final points from the position's features weighed by
  `CVC_WEIGHTS` and discounted by the share of turns left;
- `learned`: `search/cvc_value.py`'s value, fitted to self-play outcomes, the same numbers as its
  `learned_evaluate`: points scored plus a linear function of `value_features` times the share of turns
  left and its square, with weights for the player count from the package's data file.
Solo, a position is worth its expected final points; with two players `tanh(difference / scale)`.
"""
from libc.math cimport tanh
from libc.string cimport memcmp, memcpy, memset

from cavekit.core.cvc.compiled cimport (NUM_FEATURES, NUM_VALUE_FEATURES, Board, BoardFacts, CoreState, GameState,
                                        board_facts, is_terminal, own_value_dot, player_features_of, returns,
                                        shared_value_dot, turns_left_share, value_features)

from ..core.cvc.compiled import CompiledState
from .cvc_heuristic import CVC_DIFFERENCE_SCALE, CVC_WEIGHTS
from .cvc_value import VALUE_FEATURES, model_for

cdef double WEIGHTS[NUM_FEATURES]

FEATURE_NAMES = ("points", "wood", "stone", "emmer", "flax", "food", "empty_space", "diggable_space",
                 "built_wall", "usable_space", "best_fitting_room", "best_affordable_room")
# (the order of compiled.player_features)

assert len(VALUE_FEATURES) == NUM_VALUE_FEATURES, "search/cvc_value.py and core/cvc/compiled.pxd disagree"


def set_weights(weights) -> None:
    """Use these CVC_WEIGHTS-style weights in the C heuristic (searches read them at every leaf)."""
    for i, name in enumerate(FEATURE_NAMES):
        WEIGHTS[i] = 1.0 if name == "points" else weights[name]


set_weights(CVC_WEIGHTS)
HEURISTIC.kind = HEURISTIC_VALUE
HEURISTIC.scale = CVC_DIFFERENCE_SCALE


cdef Evaluator make_evaluator(str value, int players) except *:
    """The evaluator called `value` for games of `players` players: one of cvc_value.VALUES, or the path of a
    value file (`.json`, as `analysis.cvc.train_value` writes) whose learned weights to use."""
    cdef Evaluator ev = HEURISTIC
    cdef int i
    model = model_for(value, players)
    if model is not None:
        ev.kind = LEARNED_VALUE
        ev.scale = model.scale
        for i in range(NUM_VALUE_FEATURES):
            ev.by_share[i] = model.by_share[i]
            ev.by_share2[i] = model.by_share2[i]
    return ev


cdef void use_memo(Evaluator* ev, CaveMemo* memo) noexcept:
    """Let `ev` keep each seat's cave facts in `memo` (two entries, owned by the caller; emptied now)."""
    memset(memo, 0, 2 * sizeof(CaveMemo))
    ev.memo = memo


cdef const BoardFacts* cave_facts(const GameState* s, int player, const Evaluator* ev,
                                  BoardFacts* scratch) noexcept nogil:
    """The facts of `player`'s cave: from `ev`'s memo when they were last computed for the same cave."""
    cdef const Board* b = &s.players[player]
    cdef CaveMemo* m
    if ev.memo == NULL:
        board_facts(b, scratch)
        return scratch
    m = &ev.memo[player]
    if not (m.filled and memcmp(&m.board, b, sizeof(Board)) == 0):
        board_facts(b, &m.facts)
        memcpy(&m.board, b, sizeof(Board))
        m.filled = True
    return &m.facts


cdef double expected_points(const GameState* s, int player, double share, const double* w,
                            const Evaluator* ev) noexcept nogil:
    """`player`'s expected final points (cvc_heuristic.cvc_expected_points; learned: cvc_value.expected_points
    without the features both seats share, `w` being its weights at this share of turns left)."""
    cdef BoardFacts scratch
    cdef const BoardFacts* facts = cave_facts(s, player, ev, &scratch)
    cdef double f[NUM_FEATURES]
    cdef double potential = 0.0
    cdef int i
    if ev.kind == LEARNED_VALUE:
        return own_value_dot(s, player, facts, w)
    player_features_of(s, player, facts, f)
    for i in range(1, NUM_FEATURES):
        potential += WEIGHTS[i] * f[i]
    return f[0] + share * potential


cdef void evaluate(const GameState* s, double* out, const Evaluator* ev) noexcept nogil:
    """The position's value for each player (exact returns once the game is over)."""
    cdef double share, lead
    cdef double w[NUM_VALUE_FEATURES]
    cdef int i
    if is_terminal(s):
        returns(s, out)
        return
    share = turns_left_share(s)
    if ev.kind == LEARNED_VALUE:
        for i in range(NUM_VALUE_FEATURES):
            w[i] = share * ev.by_share[i] + share * share * ev.by_share2[i]
    if s.num_players == 1:
        out[0] = expected_points(s, 0, share, w, ev)
        if ev.kind == LEARNED_VALUE:
            out[0] += shared_value_dot(s, w)
        return
    # The features both seats share add the same to each seat's expected points, so they cancel in the lead.
    lead = tanh((expected_points(s, 0, share, w, ev) - expected_points(s, 1, share, w, ev)) / ev.scale)
    out[0] = lead
    out[1] = -lead


cdef const GameState* compiled_struct(state) except NULL:
    if not isinstance(state, CompiledState):
        raise TypeError("the compiled evaluations take compiled Cave vs Cave states")
    return &(<CoreState>state).s


def heuristic_values(state) -> list:
    """The C heuristic evaluation of a CompiledState (equal to search.cvc_heuristic.cvc_evaluate)."""
    return evaluation_values(state, "heuristic")


def evaluation_values(state, str value="heuristic") -> list:
    """The C evaluation `value` (heuristic or learned) of a CompiledState, for each player."""
    cdef double out[2]
    cdef Evaluator ev = make_evaluator(value, state._game.num_players)
    evaluate(compiled_struct(state), out, &ev)
    return [out[i] for i in range(state._game.num_players)]


def compiled_value_features(state, int player) -> list:
    """`compiled.value_features` of a CompiledState for `player` (tests compare it with cvc_value's twin)."""
    cdef double v[NUM_VALUE_FEATURES]
    value_features(compiled_struct(state), player, v)
    return [v[i] for i in range(NUM_VALUE_FEATURES)]
