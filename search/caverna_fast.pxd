# The Caverna evaluator and heuristic policy in C (caverna_fast.pyx), for searchers and tuners that
# `cimport` them: the weights, the policy with its plan, and the functions on the engine's struct.
from libc.stdint cimport uint64_t
from cavekit.core.compiled_common cimport uniform
from cavekit.core.caverna.compiled cimport NUM_GOODS, CoreState, GameState

cdef enum:
    NUM_BOARD_FEATURES = 6      # BOARD_FEATURES order: empty_cavern tunnel crop_on_field empty_field meadow stable
    MAX_TURN_STEPS = 64         # the most `max_turn_steps` allowed (a turn has far fewer sub-actions)
    MAX_LINE = MAX_TURN_STEPS + 1
    MAX_GROUPS = 64             # representative groups: one per furnishing, one per crop
    MAX_RECORD = 1024           # actions a recorded playout keeps (a solo game has about 100)

ctypedef struct Weights:
    double goods[NUM_GOODS]                 # rules.GOODS order (the struct's)
    double dwarf_round
    double free_room_round
    double weapon
    double breeding_pair
    double board[NUM_BOARD_FEATURES]
    double dwelling_plan
    double dwarf_food
    double feeding_urgency
    double dwarf_harvest_food
    double food_gap
    double scale                            # CAVERNA_SCALE: points of lead for tanh

ctypedef struct Line:
    double value
    int n
    int actions[MAX_LINE]

ctypedef struct Record:
    int n                                   # -1: the playout was longer than MAX_RECORD (not kept)
    int actions[MAX_RECORD]

ctypedef struct Policy:
    const Weights* w
    uint64_t* rng                           # tie noise (the agent's generator, or a playout's)
    bint turn_lookahead
    int max_turn_steps
    double noise                            # 1e-9 as in Python; 0 makes the first of equal values win
    bint settle                             # one-step choices judged once what they leave owing is done
    int plan[MAX_LINE]                      # the line being followed: plan[plan_pos] is next
    int plan_n
    int plan_pos


ctypedef struct PilotSettings:
    int candidates                          # whole-turn lines tried at a placement
    int rollouts                            # rollouts of each line
    int horizon                             # rounds a rollout plays on (0: to the end)
    double rollout_noise                    # uniform noise (points) on the rollout policies' choices


cdef void expected_points(const GameState* s, const Weights* w, double* out) noexcept nogil
cdef void evaluate(const GameState* s, const Weights* w, double* out) noexcept nogil
cdef int policy_step(Policy* pol, const GameState* s) noexcept nogil
cdef int play_policy(GameState* s, Policy* pol, int stop_round) noexcept nogil
cdef int heuristic_playout(GameState* s, uint64_t* rng) noexcept nogil
cdef int pilot_choose(const GameState* s, Policy* pol, uint64_t* pilot_rng, const PilotSettings* ps, int level,
                      Line* best, Record* best_record, double* record_value) noexcept nogil

# the heuristic policy's parts, for searchers that choose some of its decisions themselves (caverna_nrpa)
cdef CoreState _compiled(object state)
cdef void _init_policy(Policy* pol, const Weights* w, uint64_t* rng, bint turn_lookahead,
                       int max_turn_steps, bint settle) noexcept nogil
cdef int _best_step(const GameState* s, const int* legal, int n, int player, Policy* pol,
                    double* value_out) noexcept nogil
cdef int _turn_lines(const GameState* s, const int* legal, int n, int player, Policy* pol, uint64_t* rng,
                     Line* lines) noexcept nogil
cdef void _follow(Policy* pol, const Line* line) noexcept nogil
cdef void _observe(Policy* pol, int action) noexcept nogil
cdef int _planned(Policy* pol, const int* legal, int n) noexcept nogil
cdef bint _any_place(const int* legal, int n) noexcept nogil
cdef int _sample_chance(const GameState* s, uint64_t* rng) noexcept nogil


cdef class CavernaWeights:
    cdef Weights w
