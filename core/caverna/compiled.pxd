# The compiled Caverna core (work in progress, see compiled.pyx's "Not yet ported"): the rules data as C
# tables, a player's home board as a flat array of small records (copy = memcpy), and the rule functions on
# it, without Python objects. Sections mirror the reference modules: data (rules.py, actions.py), boards
# (board.py, the board half of furnishings.py), scoring (scoring.py, summary.py, furnishings.vp/bonus_points).
from libc.stdint cimport int8_t, uint8_t, int16_t, uint16_t, int32_t, uint64_t
from cavekit.core.compiled_common cimport CompiledStateBase

cdef enum:
    NUM_POS = 44              # 24 printed spaces (row * 6 + col), then the 20 overhang positions (Office room)
    NUM_GRID = 24
    NUM_GOODS = 8             # rules.GOODS order: wood stone ore grain vegetable ruby gold food
    NUM_ANIMALS = 5           # rules.ANIMALS order: sheep donkey wild_boar cattle dog
    NUM_HOLD = 13             # goods, then animals (a "holdings" vector)
    NUM_FURN = 49             # the 48 furnishing types in data order, then the entry-level dwelling (48)
    NUM_TILES = 12            # board.TILES order
    MAX_TILE_SPECS = 512      # TILE and BUY_TILE actions (checked when the module loads)
    MAX_ACTIONS = 2048        # at least the size of the action table (checked when the module loads)
    NUM_VARS = 32             # scoring variables (VAR_* in compiled.pyx)
    MAX_FORMULAS = 64

# terrains: state._TERRAINS order; NO_SPACE marks an overhang position holding nothing
cdef enum:
    NO_SPACE = -1
    T_EMPTY = 0
    T_MEADOW = 1
    T_FIELD = 2
    T_SMALL_PASTURE = 3
    T_LARGE_PASTURE = 4
    T_CAVERN = 5
    T_TUNNEL = 6
    T_DEEP_TUNNEL = 7
    T_ORE_MINE = 8
    T_RUBY_MINE = 9

ctypedef struct Space:
    int8_t terrain            # NO_SPACE or a terrain
    int8_t furnishing         # -1, or a furnishing index
    int8_t overbuilt          # -1, or the furnishing lying under the top one (Trader / Spare part storage)
    int8_t partner            # -1, or the position of the large pasture's other half
    int8_t crop               # 0 none, 1 grain, 2 vegetable
    int8_t crop_count
    uint8_t stable
    uint8_t spare

ctypedef struct Board:
    Space sp[NUM_POS]

ctypedef struct Config:
    uint8_t office_usable             # office_room_overhang_usable
    uint8_t anchor_any                # first_forest_tile_anchor == adjacent_to_either_preprinted_space
    uint8_t food_chamber_supply_only  # food_chamber_counts == supply_only
    int8_t simple_dwelling_vp

# A player's position as scoring reads it (scoring.PlayerSummary)
ctypedef struct Summary:
    Board board
    int16_t goods[NUM_GOODS]
    int16_t animals[NUM_ANIMALS]
    int8_t dwarfs
    int8_t armed_dwarfs
    int16_t begging

# boards
cdef bint placement_legal(const Board* b, const Config* cfg, int spec) noexcept nogil
cdef int tile_actions(const Board* b, const Config* cfg, int tile, int* out) noexcept nogil
cdef int stable_actions(const Board* b, const Config* cfg, int* out) noexcept nogil
cdef void place_tile(Board* b, int spec, int* gains) noexcept nogil
cdef void place_stable(Board* b, int pos) noexcept nogil
cdef int sowable_fields(const Board* b, const Config* cfg, int* out) noexcept nogil
cdef void sow(Board* b, int pos, int crop) noexcept nogil
cdef void harvest_fields(Board* b, const Config* cfg, int* crops) noexcept nogil
cdef bint owns(const Board* b, int fid) noexcept nogil
cdef int furnish_targets(const Board* b, const Config* cfg, int fid, int* out) noexcept nogil
cdef void furnish(Board* b, int fid, int pos) noexcept nogil
cdef int unused_spaces(const Board* b) noexcept nogil
cdef int stable_count(const Board* b) noexcept nogil

# scoring
cdef int score(const Summary* s, const Config* cfg) noexcept nogil

# husbandry
cdef bint can_accommodate(const Board* b, const Config* cfg, const int16_t* animals, int dwarfs) noexcept nogil
cdef int breeding_options(const Board* b, const Config* cfg, const int16_t* animals, int dwarfs, int max_types,
                          int* out) noexcept nogil

# conversions (holdings: NUM_HOLD ints; sources: bit 0 the food table, bit 1 rubies, bit 2 + f furnishing f)
cdef int food_potential(const int* h, uint64_t sources, uint64_t once) noexcept nogil
cdef bint can_afford(const int* h, const int* cost, uint64_t sources, uint64_t once) noexcept nogil
cdef int payment_plan(const int* h, const int* cost, uint64_t sources, uint64_t once, int* plan) noexcept nogil


# ------------------------------------------------------------------------------------------------
# The state (reference.py): one C struct per position, so searchers (search/caverna_fast.pyx) `cimport` it
# and play on it directly. Players, phases, harvest kinds and chance kinds number as in state.py.

cdef enum:
    CHANCE_PLAYER = -1
    TERMINAL_PLAYER = -4
    PH_START = 0
    PH_WORK = 1
    PH_CHOICE = 2
    PH_FEEDING = 3
    PH_BREEDING = 4
    PH_FINAL = 5
    PH_OVER = 6
    HK_UNSET = 0               # state.HARVEST_KINDS order
    HK_NONE = 1
    HK_NORMAL = 2
    HK_FEED_1 = 3
    HK_NO_HARVEST = 4
    HK_FIELD_OR_BREEDING = 5
    HK_MARKER = 9
    CK_NONE = 0
    CK_START_PLAYER = 1
    CK_ROUND_CARD = 2
    CK_HARVEST_MARKER = 3
    # effect node kinds: the data's atoms in `effect_dsl.atoms` order, then the combinators
    A_TAKE = 0
    A_GAIN = 1
    A_GAIN_PER = 2
    A_GAIN_IF = 3
    A_TWIN = 4
    A_PLACE_TILE = 5
    A_SINGLE = 6
    A_EXPEDITION = 7
    A_FORGE = 8
    A_SOW = 9
    A_GROW = 10
    A_FURNISH = 11
    A_FENCE_SMALL = 12
    A_FENCE_LARGE = 13
    A_STABLE = 14
    A_START_PLAYER = 15
    A_IMITATE = 16
    A_TRADE = 17
    A_MARKET = 18
    A_WEAPONS = 19
    A_BREED = 20
    K_ALL = 30
    K_ANY = 31
    K_THEN_ANY = 32
    K_ONE = 33
    # action kinds: actions.py's PLACE ... PAY
    K_PLACE = 0
    K_ORDER = 1
    K_END_TURN = 2
    K_COLLECT = 3
    K_TILE = 4
    K_STABLE = 5
    K_FURNISH = 6
    K_SOW = 7
    K_GROW = 8
    K_FORGE = 9
    K_LOOT = 10
    K_BREED = 11
    K_TRADE = 12
    K_MARKET = 13
    K_BUY_TILE = 14
    K_IMITATE = 15
    K_CONVERT = 16
    K_RELEASE = 17
    K_FEED = 18
    K_WORKING_CAVE = 19
    K_HARVEST_CHOICE = 20
    K_SOLO_KEEP = 21
    K_SKIP = 22
    K_PEACEFUL = 23
    K_PAY = 24
    MAX_PLAYERS = 7
    MAX_SPACES = 64
    MAX_DWARFS = 8
    TREE_NODES = 20
    MAX_NODES = 2400
    MAX_CHILDREN = 6
    MAX_LOOT = 32
    MAX_PENDING = 8
    NUM_MARKET = 10
    MAX_TABLES = 8192
    MAX_CARDS = 16

ctypedef struct Node:
    int8_t kind
    int8_t parent                       # local index in its tree, -1 for the root
    int8_t nchild
    int8_t child[MAX_CHILDREN]
    int8_t optional
    int16_t goods[NUM_HOLD]             # gain, gain_per, gain_if: goods; trade: get
    int16_t pay[NUM_HOLD]               # trade: pay; build_stable, fences: cost; furnish: a cost instead of printed
    int8_t printed                      # furnish: pay the printed cost
    uint16_t tiles                      # bit t: tile t (twin, place_tile, single)
    int8_t on                           # place_tile: 0 anywhere, 1 ordinary tunnel, 2 deep tunnel
    int8_t level                        # expedition
    int8_t max_strength                 # forge_weapon
    int8_t max_grain                    # sow
    int8_t max_vegetable
    int8_t max_types                    # breed
    int8_t max_times                    # trade
    int8_t ruby_mines                   # gain_if
    uint64_t furnish_mask               # furnish: bit f: the wording allows furnishing f

ctypedef struct Player:
    Board board
    int16_t goods[NUM_GOODS]
    int16_t animals[NUM_ANIMALS]
    int8_t ready[MAX_DWARFS]            # weapons of the dwarfs at home (ascending)
    int8_t n_ready
    int8_t placed[MAX_DWARFS]           # weapons of the dwarfs on spaces, in placement order
    int8_t n_placed
    int8_t newborns
    int16_t begging
    int8_t income_n[12]                 # supplier goods waiting on round index k, in the order they came
    int8_t income_good[12][3]
    int16_t income_amt[12][3]
    uint64_t trades_used                # bit f: furnishing f traded in this harvest window
    uint8_t extension_both_used

ctypedef struct Turn:
    int8_t space
    int8_t dwarf
    int8_t tree_space                   # -1: an Imitation space whose target is not chosen yet
    int8_t tree_armed
    int8_t imitating
    int8_t target                       # -1: ""
    int8_t done[TREE_NODES]
    int8_t open
    int8_t sown[2]
    int8_t exp_items[MAX_LOOT]
    int8_t n_exp
    int8_t exp_strength
    int8_t bought[NUM_MARKET]
    int8_t n_bought
    int8_t pend_loot[MAX_PENDING]
    int8_t pend_sown[MAX_PENDING][2]
    int8_t n_pending
    uint8_t fence_discounted
    uint8_t did_something
    int8_t pay_fid                      # -1: no payment choice waiting
    int8_t pay_pos
    int8_t pay_node                     # the furnish atom (local node), or -2 for the pending loot item

ctypedef struct GameState:
    Player players[MAX_PLAYERS]
    Turn turn
    int16_t goods_on[MAX_SPACES][NUM_HOLD]
    uint8_t goods_on_key[MAX_SPACES]    # the space has an entry in `goods_on`
    int8_t occupied[MAX_SPACES]
    int8_t occ_order[MAX_SPACES]
    int8_t n_occ
    int8_t imitated[MAX_SPACES]
    int8_t imit_order[MAX_SPACES]
    int8_t n_imit
    int8_t spaces[MAX_SPACES]
    int8_t n_spaces
    int8_t cleanup[MAX_SPACES]
    int8_t n_cleanup
    uint64_t built
    int8_t num_players
    int16_t tables
    int8_t round
    int8_t phase
    int8_t starter
    int8_t actor
    int8_t cards[12]
    int8_t n_cards
    int8_t markers[12]
    int8_t markers_left[2]
    int8_t reds_seen
    uint8_t has_turn
    int8_t next_dwarf
    int8_t queue[MAX_PLAYERS]
    int8_t n_queue
    int8_t harvest_kind
    int8_t choices[MAX_PLAYERS]         # 0, 1 fields, 2 breeding
    uint8_t working_cave_used
    int8_t revealed
    uint8_t overflow

# What depends on the player count and the options (one entry per game setting in use)
ctypedef struct Tables:
    Config cfg
    int8_t num_players
    int8_t n_rounds
    int8_t rounds[12]
    int8_t n_board
    int8_t board[MAX_SPACES]
    int8_t fixed_card[13]               # by round number: the card not shuffled there, or -1
    int8_t stage_of_round[13]
    int8_t n_stage_cards[6]
    int8_t stage_cards[6][MAX_CARDS]
    uint8_t marker_round[13]
    int8_t marker_mix[2]
    int8_t harvest_event[13]
    int8_t acc_n[MAX_SPACES]
    int8_t acc_good[MAX_SPACES][4]
    int8_t acc_empty[MAX_SPACES][4]
    int8_t acc_other[MAX_SPACES][4]
    uint8_t acc_paused[MAX_SPACES][13]  # by round number
    int8_t imitation_cost[MAX_SPACES]
    int8_t loot_min[MAX_LOOT]
    int8_t starting_food[MAX_PLAYERS]
    uint8_t sequential_loot
    uint8_t imitation_copies_imitation
    uint8_t once_per_harvest
    int8_t solo_cleanup_min
    uint8_t fence_per_pasture
    uint8_t guest_every_time
    uint8_t cost_a
    uint64_t banned_furnishings[MAX_PLAYERS]   # bit f: that seat may not furnish tile f (analysis variant)

cdef Config make_config(object config) except *

# furnishings.py's dwelling room (`dwarf_room`, `family_limit`, `can_grow_family`)
cdef int dwarf_room(const Board* b, const Config* cfg, int dwarfs) noexcept nogil
cdef int family_limit(const Board* b, const Config* cfg) noexcept nogil
cdef bint can_grow_family(const Board* b, const Config* cfg, int dwarfs) noexcept nogil

# small helpers on the state
cdef const Tables* tab(const GameState* s) noexcept nogil
cdef int round_no(const GameState* s) noexcept nogil


cdef inline int dwarfs_of(const Player* p) noexcept nogil:
    """`Player.dwarfs`: at home, on spaces and newborn."""
    return p.n_ready + p.n_placed + p.newborns


# the game API on the struct
cdef int chance_kind(const GameState* s) noexcept nogil
cdef int current_player(const GameState* s) noexcept nogil
cdef int chance_outcomes(const GameState* s, int* out, double* prob) noexcept nogil
cdef int legal_actions(const GameState* s, int* out) noexcept nogil
cdef bint is_legal(const GameState* s, int action) noexcept nogil
cdef void apply_action(GameState* s, int action) noexcept nogil
cdef int feeding_need(const GameState* s, int player) noexcept nogil
cdef void player_summary(const GameState* s, int q, Summary* out) noexcept nogil
cdef int weapons_of(const GameState* s, int player, int* out) noexcept nogil   # the acting dwarf's as it is now
cdef void scores(const GameState* s, int* out) noexcept nogil
cdef void returns(const GameState* s, double* out) noexcept nogil
cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil   # compiled_common's generator


cdef class CoreState(CompiledStateBase):   # _hist and _game are CompiledStateBase's
    cdef GameState s
