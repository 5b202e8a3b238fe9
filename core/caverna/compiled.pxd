# The compiled Caverna core (work in progress, see compiled.pyx's "Not yet ported"): the rules data as C
# tables, a player's home board as a flat array of small records (copy = memcpy), and the rule functions on
# it, without Python objects. Sections mirror the reference modules: data (rules.py, actions.py), boards
# (board.py, the board half of furnishings.py), scoring (scoring.py, summary.py, furnishings.vp/bonus_points).
from libc.stdint cimport int8_t, uint8_t, int16_t, int32_t

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
from libc.stdint cimport uint64_t
cdef int food_potential(const int* h, uint64_t sources, uint64_t once) noexcept nogil
cdef bint can_afford(const int* h, const int* cost, uint64_t sources, uint64_t once) noexcept nogil
cdef int payment_plan(const int* h, const int* cost, uint64_t sources, uint64_t once, int* plan) noexcept nogil
