# The compiled Cave vs Cave core: the whole position as one C struct of small integers, and the rule
# functions on it, without Python objects. Searchers `cimport` this file to play on the C state directly.
from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t
from cavekit.core.compiled_common cimport CompiledStateBase

cdef enum:
    NUM_ACTIONS_MAX = 2304    # at least the size of the action table (checked when the module loads)
    NUM_SPACES = 12
    MAX_REVEALED = 8

ctypedef struct Config:
    uint8_t solo_reveal_per_effect        # solo_reveal_timing == per_single_excavation_effect
    uint8_t undermining_budget            # walls Undermining may pass: 99 (all) or 1
    uint8_t blue_from_next_turn           # blue_room_active_from == next_turn
    uint8_t orange_from_next_round        # orange_room_usable_from == next_round
    uint8_t cavern_walls[2]               # the two sides' natural wall counts
    uint8_t cavern_opposite               # two-wall side layout is opposite
    uint8_t cavern_accepts_walls
    uint8_t cavern_end_of_turn            # award timing end_of_turn
    uint8_t junction_gold
    uint8_t retting_actual                # retting_room_counts == actual_increase
    uint8_t wood_storeroom_needs_use
    uint8_t prospect_on_choosing_only
    uint8_t double_needs_two
    uint8_t walls_between_face_down
    uint8_t tie_break_next_highest
    uint32_t banned_rooms[2]              # bit r: that seat may not furnish room r (analysis variant)

ctypedef struct Board:
    int8_t spaces[NUM_SPACES]        # FACE_DOWN -1, EMPTY -2, UNAVAILABLE -3, else room index
    int8_t placed_round[NUM_SPACES]
    int8_t goods[6]
    uint8_t cavern_sides
    uint32_t walls                   # bit w: a wall built in slot w

ctypedef struct GameState:
    Board players[2]
    Config cfg
    uint32_t display
    uint32_t pool
    uint32_t removed
    uint32_t activation_used
    uint32_t furnished_now
    uint16_t taken
    uint16_t pending_spaces          # bit s: the acting player excavated s, its room is still face down
    int8_t revealed[MAX_REVEALED]
    int8_t num_players
    int8_t num_revealed
    int8_t round
    int8_t turn
    int8_t starter
    int8_t pile
    int8_t cavern_owner
    int8_t pending_pile_reveals
    int8_t tile
    int8_t slots_used
    int8_t activation_left
    int8_t prospected
    int8_t sub_actions
    int8_t excavated
    int8_t cavern_choice
    int8_t ending

cdef int current_player(const GameState* s) noexcept nogil
cdef bint is_terminal(const GameState* s) noexcept nogil
cdef int chance_outcomes(const GameState* s, int* out) noexcept nogil
cdef int legal_actions(const GameState* s, int* out) noexcept nogil
cdef bint is_legal(const GameState* s, int action) noexcept nogil
cdef void apply_action(GameState* s, int action) noexcept nogil
cdef void scores(const GameState* s, int* out) noexcept nogil
cdef void returns(const GameState* s, double* out) noexcept nogil
cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil   # compiled_common's generator

# Deal components (core/cvc/deal.py), for searchers that play a whole deal, known or sampled.
cdef enum:
    DEAL_START_PLAYER = 0
    DEAL_REMOVED_LIGHT_ROOMS = 1
    DEAL_TILES_STAGE_2 = 2        # stage s: DEAL_TILES_STAGE_2 + s - 2
    DEAL_ROOMS = 5                # item FACE_DOWN_PER_BOARD * seat + k: under the seat's k-th face-down space
    DEAL_DRAW_PILE = 6
    NUM_DEAL_COMPONENTS = 7
    FACE_DOWN_PER_BOARD = 9
    MAX_DEAL_ITEMS = 18
cdef void chance_item(const GameState* s, int* component, int* item) noexcept nogil

# Features of a position for heuristic evaluation (search/evaluation.py weighs them).
cdef enum:
    NUM_FEATURES = 12    # points, wood, stone, emmer, flax, food, empty spaces, diggable spaces, built walls,
                         # empty spaces where a room of the display fits, the best VP among display rooms
                         # that fit an empty space, the best VP among those the player can pay for now
ctypedef struct BoardFacts:
    # What both evaluations need of one cave that does not depend on the display: a search scores the ends of
    # one player's turn one after another, so an evaluator can keep the other cave's facts (cvc_evaluation).
    int empty                          # empty spaces
    int diggable                       # face-down spaces reachable through open sides
    uint32_t fitting[NUM_SPACES]       # for each empty space, the rooms whose wall configuration it offers
cdef void board_facts(const Board* b, BoardFacts* facts) noexcept nogil
cdef void player_features(const GameState* s, int player, double* out) noexcept nogil
cdef void player_features_of(const GameState* s, int player, const BoardFacts* facts, double* out) noexcept nogil
cdef double turns_left_share(const GameState* s) noexcept nogil

# Features of a position for the learned value (search/cvc_value.py names them and has their readable twin).
cdef enum:
    V_GOODS = 0               # wood, stone, emmer, flax, food, gold
    V_EMPTY = 6               # empty spaces (room for a furnishing)
    V_DIGGABLE = 7            # face-down spaces that can be excavated now
    V_FACE_DOWN = 8           # face-down spaces left
    V_OWN_WALLS = 9           # walls built in the player's cave
    V_WALL_SUPPLY = 10        # walls left in the shared supply
    V_USABLE = 11             # empty spaces where some display room fits
    V_BEST_FITTING = 12       # the best VP among display rooms that fit an empty space
    V_BEST_AFFORDABLE = 13    # ... among those the player can pay for now
    V_DISPLAY_ROOMS = 14      # rooms in the display
    V_DISPLAY_VP = 15         # their total VP
    V_CAVERN_OPEN = 16        # nobody has the Additional Cavern yet
    V_ORANGE_LEAD = 17        # orange rooms minus blue rooms (the Cave Entrance counts as orange)
    V_OWN_ROOM = 18           # 24 indicators: the player has room r
    V_TILE = 42               # 12 indicators: action tile t is face up
    V_CONSTANT = 54
    NUM_VALUE_FEATURES = 55
cdef void value_features(const GameState* s, int player, double* out) noexcept nogil
cdef void value_features_of(const GameState* s, int player, const BoardFacts* facts, double* out) noexcept nogil
cdef double own_value_dot(const GameState* s, int player, const BoardFacts* facts, const double* w) noexcept nogil
cdef double shared_value_dot(const GameState* s, const double* w) noexcept nogil

cdef class CoreState(CompiledStateBase):   # _hist and _game are CompiledStateBase's
    cdef GameState s
