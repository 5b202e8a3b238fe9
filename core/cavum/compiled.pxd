# The compiled Cavum core: the whole position as one C struct of small integers, the rules data of one game
# (map, tile geometry, rule options) in a second struct the position points to, and the rule functions on
# them, without Python objects. Searchers `cimport` this file to play on the C state directly.
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t
from cavekit.core.compiled_common cimport CompiledStateBase

# Array sizes. They are the sizes of the data file (rules.py), checked against it when the module loads: a
# changed map or card set that no longer fits stops the import with a message instead of overflowing.
cdef enum:
    NUM_CELLS = 91            # mountain cells: node ids 0..NUM_CELLS-1
    NUM_SPACES = 31           # city spaces: node ids NUM_CELLS..NUM_NODES-1
    NUM_NODES = 122           # NUM_CELLS + NUM_SPACES (a node id fits an int8_t)
    NUM_CITIES = 5
    MAX_CITY_SPACES = 8       # spaces of the largest city (at most)
    NUM_COLOURS = 6
    NUM_ORDERS = 15           # order cards (a bitmask of them fits a uint32_t)
    MAX_ORDER_STONES = 4
    MAX_PLAYERS = 4
    MAX_STACK = 4             # rules.MAX_STACK: two < three < four < six
    NUM_DIRS = 6
    NUM_KINDS = 4
    NUM_PIECES = 10           # actions.NUM_PIECES: 8 tile pieces (kind * 2 + dynamite), vein, station
    NUM_TILE_PIECES = 8
    SCALE_SPACES = 9          # price-scale spaces per colour (values 1..9), as in reference.py
    MAX_GROUPS = 3            # connected exit groups of one tile (three channels of a six)
    NUM_SEQUENCE_CARDS = 4
    MAX_BID = 462             # rules.MAX_BID (rules.auction_score_bound())
    NUM_ACTIONS = 5909        # len(actions.action_table())

# The rules of one game: data file numbers, the geometry of its options and its rule options, filled once per
# game (`GameTables`) from rules(), geometry(...) and the Config; every position points to one.
ctypedef struct Tables:
    # players and rule options (Config)
    int8_t num_players
    int8_t num_sequence_cards
    int8_t sequence_cards[NUM_SEQUENCE_CARDS]        # the cards in the auction (1-4)
    int8_t sequence_card_dynamite[NUM_SEQUENCE_CARDS]  # dynamite kind of cards 1..4
    int8_t bid_unbounded                            # bid_cap == "unbounded"
    int8_t order_pick_pass_final
    int8_t colour_sale_pass_final
    int8_t colour_sale_min_bid
    int8_t colour_sale_exactly_price                # colour_sale_opening_bid == "exactly_price"
    int8_t colour_order[NUM_COLOURS]
    int8_t adjacency_rule                           # ADJ_EVERY, ADJ_ONE or ADJ_NONE
    int8_t pass_through                             # city_spaces_pass_through
    int8_t single_junction                          # tile_internal_connectivity == "single_junction"
    int8_t vein_neighbour_forbidden                 # unconnected_vein_neighbour == "forbidden"
    int8_t cover_occupied_cell
    int8_t vein_under_visible                       # vein_under_counts_as_visible_dynamite
    int8_t explodes_fully                           # exploding_adjacent_dynamite == "explodes_fully"
    int16_t two_chip_limit                          # -1: unlimited
    int8_t discard_only_if_unplayable
    int8_t vein_needs_stone                         # vein_colour_requires_stone_on_scale
    int8_t prospect_takes_every_vein                # prospect_must_take_every_vein_on_path
    int8_t station_immediately                      # station_on_tile == "immediately_after_laying"
    int8_t next_opener_last_winner                  # sequence_auction_next_opener == "last_winner_left"
    int8_t tie_lowest_card                          # final_tie_break == "lowest_sequence_card_of_phase_3"
    int8_t hidden_stones                            # Config.hidden_stones: others' stone colours are hidden
    # the map
    int8_t neighbours[NUM_CELLS][NUM_DIRS]          # node id or -1
    int8_t space_neighbours[NUM_SPACES][NUM_DIRS]   # mountain cell or -1
    int8_t vein_allowed[NUM_CELLS]
    int8_t num_adjacent[NUM_CELLS]                  # geometry.adjacent_spaces: (direction, space) pairs
    int8_t adjacent_dir[NUM_CELLS][NUM_DIRS]
    int8_t adjacent_space[NUM_CELLS][NUM_DIRS]
    int8_t city_size[NUM_CITIES]
    int8_t city_spaces[NUM_CITIES][MAX_CITY_SPACES]
    # tile and city geometry (geometry(...))
    uint8_t city_exits[NUM_SPACES]                  # bitmask of directions
    uint8_t exit_masks[NUM_KINDS][NUM_DIRS]
    int8_t num_rotations[NUM_KINDS]
    int8_t rotations[NUM_KINDS][NUM_DIRS]           # the distinct rotations, ascending
    int8_t is_rotation[NUM_KINDS][NUM_DIRS]
    int8_t num_groups[NUM_KINDS][NUM_DIRS]
    uint8_t groups[NUM_KINDS][NUM_DIRS][MAX_GROUPS]
    # supplies, phases, scoring
    int8_t start_tile_count
    int8_t start_tiles[NUM_CELLS][5]                # cell, kind, dynamite, rotation, vein colour or -1
    int8_t start_vein_stones
    int8_t tunnel_supply[NUM_KINDS]
    int8_t dynamite_supply[NUM_KINDS]
    int8_t vein_supply
    int8_t stations_per_player
    int8_t pool_veins
    int8_t pool_tunnels[NUM_KINDS]
    int8_t pool_stations_per_player
    int8_t phase_tunnel[NUM_KINDS]
    int8_t phase_veins
    int8_t phase_options
    int8_t phase_prospects
    int8_t phase_stations
    int8_t actions_per_phase
    int8_t initial_scale[NUM_COLOURS][SCALE_SPACES]
    int16_t start_points
    int16_t option_points
    int16_t two_chip_points
    int8_t two_chips
    int8_t stones_per_vein                          # for this number of players
    int8_t phases
    int8_t order_size[NUM_ORDERS]
    int8_t order_stones[NUM_ORDERS][MAX_ORDER_STONES]
    int8_t order_need[NUM_ORDERS][NUM_COLOURS]
    int16_t order_points[NUM_ORDERS]
    int16_t order_penalty[NUM_ORDERS]

# One position: ReferenceState's fields, in its order (to_dict() lists them by these names).
ctypedef struct GameState:
    const Tables* t
    int8_t n
    int8_t phase
    int8_t stage
    int8_t to_move
    int16_t scores[MAX_PLAYERS]                     # scores_
    int8_t seq_card[MAX_PLAYERS]
    int8_t last_cards[MAX_PLAYERS]
    int8_t height[NUM_CELLS]
    int8_t stack[NUM_CELLS][MAX_STACK]              # tile codes 1 + piece + 8 * rotation
    int8_t vein_colour[NUM_CELLS]
    int8_t vein_stones[NUM_CELLS]
    int8_t station[NUM_CELLS]
    int8_t city_station[NUM_SPACES]
    int8_t scale[NUM_COLOURS][SCALE_SPACES]
    int8_t hands[MAX_PLAYERS][NUM_COLOURS]
    int8_t pool[NUM_PIECES]
    int8_t pool_stations[MAX_PLAYERS]
    int8_t supply[NUM_PIECES]
    int8_t supply_stations[MAX_PLAYERS]
    int8_t board[MAX_PLAYERS][NUM_PIECES]
    int8_t options[MAX_PLAYERS]
    int8_t prospects[MAX_PLAYERS]
    int8_t used[MAX_PLAYERS]
    int8_t deck[NUM_ORDERS]
    uint32_t display                                # bit i: order card i face up (the sorted list)
    int8_t chips[NUM_ORDERS]
    int8_t owner[NUM_ORDERS]
    int16_t chip_supply
    int8_t draws_left
    int16_t bid                                     # up to MAX_BID
    int8_t bidder
    int8_t passed[MAX_PLAYERS]
    int8_t passes_in_row
    int8_t opener
    int8_t colour_pos
    int8_t cursor
    int8_t turn_actions
    int8_t last_laid
    int8_t last_laid_fresh
    int8_t pending
    int8_t prospect_state
    int8_t route_len
    int8_t route[NUM_NODES]
    int8_t route_entry
    int8_t to_take_len
    int8_t to_take[NUM_CELLS]
    int16_t penalties[MAX_PLAYERS]

cdef void init_state(GameState* s, const Tables* t) noexcept nogil
cdef int current_player(const GameState* s) noexcept nogil
cdef bint is_terminal(const GameState* s) noexcept nogil
cdef bint is_chance_node(const GameState* s) noexcept nogil
cdef int chance_outcomes(const GameState* s, int* out) noexcept nogil
cdef int legal_actions(const GameState* s, int* out) noexcept nogil
cdef bint is_legal(const GameState* s, int action) noexcept nogil
cdef void apply_action(GameState* s, int action) noexcept nogil
cdef void returns(const GameState* s, double* out) noexcept nogil
cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil   # compiled_common's generator


cdef class GameTables:
    cdef Tables t
    cdef GameState start                 # the initial position of this game
    cdef readonly object config


cdef class CoreState(CompiledStateBase):   # _hist and _game are CompiledStateBase's
    cdef GameState s
    cdef GameTables _tables
