# The compiled core of The Cave (Pairs deck): the whole position as one C struct of small integers, and the
# rule functions on it, without Python objects. Searchers `cimport` this file to play on the C state directly.
from libc.stdint cimport int8_t, int16_t, uint64_t
from cavekit.core.compiled_common cimport CompiledStateBase

cdef enum:
    NUM_RANKS = 10           # rank r has index r - 1 (also its action id and chance outcome id)
    MAX_PLAYERS = 6
    MAX_ROUNDS = 12

ctypedef struct Config:
    int8_t num_players
    int8_t hand_size
    int8_t cave_size
    int8_t burn_cards
    int8_t num_rounds
    int8_t setup_cards             # burn_cards + num_players * hand_size + cave_size
    int8_t tie_final_round         # tie_break == "final_round"
    int8_t score_leftover
    int8_t hands_open              # hand_visibility != "hidden": every hand is seen by everyone

ctypedef struct GameState:
    Config cfg
    int8_t round                   # current round; num_rounds once the match is over
    int8_t first_dealer            # -1 until the first dealer is chosen
    int8_t dealt                   # cards located by this round's setup (burned, hands, Cave)
    int8_t turn                    # cards played this round
    int8_t refills_pending         # cards still to draw into the Cave this turn
    int8_t deck_size
    int8_t cave_count
    int8_t hands[MAX_PLAYERS][NUM_RANKS]      # counts per rank
    int8_t captured[MAX_PLAYERS][NUM_RANKS]
    int8_t played[MAX_PLAYERS][NUM_RANKS]     # cards each player played this round
    int8_t cave[NUM_RANKS]
    int8_t burned[NUM_RANKS]
    int8_t deck[NUM_RANKS]
    int16_t totals[MAX_PLAYERS]
    int8_t round_scores[MAX_ROUNDS][MAX_PLAYERS]

cdef int current_player(const GameState* s) noexcept nogil
cdef bint is_terminal(const GameState* s) noexcept nogil
cdef bint is_chance_node(const GameState* s) noexcept nogil
cdef int node_kind(const GameState* s) noexcept nogil
cdef int chance_outcomes(const GameState* s, int* out) noexcept nogil
cdef int legal_actions(const GameState* s, int* out) noexcept nogil
cdef bint is_legal(const GameState* s, int action) noexcept nogil
cdef void apply_action(GameState* s, int action) noexcept nogil
cdef int capture_target(const int8_t* cave, int played) noexcept nogil
cdef void round_points(const GameState* s, int* out) noexcept nogil
cdef void returns(const GameState* s, double* out) noexcept nogil
cdef int sample_chance(const GameState* s, uint64_t* rng) noexcept nogil
cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil   # compiled_common's generator
cdef void resample(GameState* s, int player, uint64_t* rng) noexcept nogil

cdef class CoreState(CompiledStateBase):   # _hist and _game are CompiledStateBase's
    cdef GameState s
    cdef list _kinds
