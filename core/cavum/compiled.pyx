"""The compiled Cavum engine: `reference.py` on one C struct of small ints, for search and large batches.

Read it beside `reference.py`: each C function carries the name of the reference method it mirrors
(`lay_problem` for `_lay_problem`, `build_actions` for `_build_actions`, `explode` for `explode`, ...), in
the same order. Where the reference returns a reason (a string, None when legal), the C function returns
only yes or no (True: there is a problem); error messages come from the reference engine on the same
position, so both engines explain an illegal move in the same words.

Rules data comes from the same tables the reference reads: the action table (`actions.py`) is copied into
C arrays when the module loads; the map, the geometry of the game's options (`rules.geometry`), the supply,
scoring and order-card numbers and the rule options (`rules.Config`) are copied into one `Tables` struct per
game (cached per Config), which every position points to. A position is a `GameState` of about 1.2 KB,
cloned with one memcpy.

The Python-facing `CompiledState` has the public State API and, through `StateMixin`, the read-only
`view()` (`view.py`) that agents, analyses and tests read positions through; it has no field attributes of
its own. A position is written only by actions, or built whole from a `to_dict()` snapshot by `from_dict`.
Illegal moves are explained by the reference engine on the same position (`to_reference`).

Compiled searches reach the engine through the C interface every compiled engine offers (core/engine.pxd):
`CoreState.engine()` hands out the table of `engine_*` functions below, which also holds the C ports of the
game's heuristic evaluation (`evaluate`: search/cavum_agents.cavum_evaluate) and of the hidden-stone
redeal (`resample`: StateMixin.resample_from_infostate), and `CoreState.position()` the struct they take.
"""
cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport tanh
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t
from cavekit.core.compiled_common cimport random_below, seed_generator
from cavekit.core.engine cimport ENGINE_CHANCE, ENGINE_MAX_PLAYERS, ENGINE_TERMINAL, Engine

import operator

from ..api import CHANCE as PY_CHANCE, TERMINAL as PY_TERMINAL, IllegalActionError, as_action
from . import actions as _actions
from . import reference as _reference
from .actions import NUM_PIECES as PY_NUM_PIECES, PIECE_STATION as PY_PIECE_STATION, PIECE_VEIN as PY_PIECE_VEIN
from .actions import action_table
from .estimate import CAVUM_SCALE as PY_CAVUM_SCALE, ORDER_SHARE as PY_ORDER_SHARE
from .state import RESAMPLE_TRIES as PY_RESAMPLE_TRIES, StateMixin
from .reference import ReferenceState
from .rules import MAX_BID as PY_MAX_BID, MAX_STACK as PY_MAX_STACK, NUM_DIRS as PY_NUM_DIRS
from .rules import NUM_KINDS as PY_NUM_KINDS, geometry, rules

# ------------------------------------------------------------------------------------------------
# Constants (the same values as in api.py, reference.py and actions.py; checked when the module loads)

cdef enum:
    CHANCE = -1
    TERMINAL = -4
    ORDER_DONE = -2            # order card owner value once fulfilled
    ALL_SIDES = 63             # (1 << NUM_DIRS) - 1
    PIECE_VEIN = 8             # actions.PIECE_VEIN
    PIECE_STATION = 9          # actions.PIECE_STATION
    # Two numbers reference.py writes as literals (not data-file entries): order cards turned up per
    # phase, and the actions after which a turn ends by itself.
    DRAWS_PER_PHASE = 5
    MAX_TURN_ACTIONS = 4

# Stages of a phase (reference.py)
cdef enum:
    DRAW, AUCTION, CHOOSE, ORDER_PICK, BUILD, COLOUR_BID, COLOUR_SELL, ORDER_SALE, FINAL_SALE, OVER

# Prospect progress (reference.py)
cdef enum:
    NO_ROUTE, ROUTING, TAKING

# city_adjacency_rule
cdef enum:
    ADJ_EVERY, ADJ_ONE, ADJ_NONE

# Action kinds (actions.py)
cdef enum:
    K_BID, K_PASS, K_CHOOSE_CARD, K_TAKE_ORDER, K_FULFIL, K_DONE, K_END_TURN, K_LAY, K_STATION, K_VEIN,
    K_OPTION_POINTS, K_OPTION_TAKE, K_DISCARD, K_PROSPECT_START, K_PROSPECT_STEP, K_PROSPECT_STOP,
    K_PROSPECT_NONE, K_PROSPECT_TAKE, K_SELL, K_FINAL_SELL

# ------------------------------------------------------------------------------------------------
# The action table (actions.py), copied into C arrays at import: what each id means, and the id of each move

cdef int8_t A_KIND[NUM_ACTIONS]
cdef int16_t A_A[NUM_ACTIONS]
cdef int16_t A_B[NUM_ACTIONS]
cdef int16_t A_C[NUM_ACTIONS]
cdef int16_t BID_ID[MAX_BID + 1]
cdef int16_t CHOOSE_ID[NUM_SEQUENCE_CARDS + 1]
cdef int16_t TAKE_ORDER_ID[NUM_ORDERS]
cdef int16_t FULFIL_ID[NUM_ORDERS]
cdef int16_t LAY_ID[NUM_TILE_PIECES][NUM_CELLS][NUM_DIRS]
cdef int16_t STATION_ID[NUM_NODES]
cdef int16_t VEIN_ID[NUM_CELLS][NUM_COLOURS]
cdef int16_t OPTION_TAKE_ID[NUM_PIECES]
cdef int16_t DISCARD_ID[NUM_PIECES]
cdef int16_t PROSPECT_START_ID[NUM_NODES]
cdef int16_t PROSPECT_STEP_ID[NUM_NODES]
cdef int16_t PROSPECT_TAKE_ID[NUM_CELLS]
cdef int16_t SELL_ID[SCALE_SPACES + 1]
cdef int16_t FINAL_SELL_ID[NUM_COLOURS]
cdef int PASS_ID, DONE_ID, END_TURN_ID, OPTION_POINTS_ID, PROSPECT_STOP_ID, PROSPECT_NONE_ID
cdef uint8_t ALL_SIDES_GROUP[1]         # the one exit group of a cell under a vein with stones


def _check_constants():
    """Every number this module shares with the Python modules must agree with them."""
    r = rules()
    checks = {
        "cells": (NUM_CELLS, r.num_cells), "city spaces": (NUM_SPACES, r.num_spaces),
        "nodes": (NUM_NODES, r.num_cells + r.num_spaces), "cities": (NUM_CITIES, len(r.city_spaces)),
        "colours": (NUM_COLOURS, len(r.colours)), "order cards": (NUM_ORDERS, len(r.order_cards)),
        "max players": (MAX_PLAYERS, r.max_players), "stack": (MAX_STACK, PY_MAX_STACK),
        "directions": (NUM_DIRS, PY_NUM_DIRS), "kinds": (NUM_KINDS, PY_NUM_KINDS),
        "pieces": (NUM_PIECES, PY_NUM_PIECES), "tile pieces": (NUM_TILE_PIECES, 2 * PY_NUM_KINDS),
        "vein piece": (PIECE_VEIN, PY_PIECE_VEIN), "station piece": (PIECE_STATION, PY_PIECE_STATION),
        "scale spaces": (SCALE_SPACES, r.stones_per_colour), "max bid": (MAX_BID, PY_MAX_BID),
        "actions": (NUM_ACTIONS, len(action_table())), "all sides": (ALL_SIDES, _reference.ALL_SIDES),
        "chance": (CHANCE, PY_CHANCE), "terminal": (TERMINAL, PY_TERMINAL),
        "order done": (ORDER_DONE, _reference.ORDER_DONE),
        "engine chance": (ENGINE_CHANCE, PY_CHANCE), "engine terminal": (ENGINE_TERMINAL, PY_TERMINAL),
    }
    for i, name in enumerate(("DRAW", "AUCTION", "CHOOSE", "ORDER_PICK", "BUILD", "COLOUR_BID", "COLOUR_SELL",
                              "ORDER_SALE", "FINAL_SALE", "OVER")):
        checks[name] = (i, getattr(_reference, name))
    for i, name in enumerate(("NO_ROUTE", "ROUTING", "TAKING")):
        checks[name] = (i, getattr(_reference, name))
    for i, name in enumerate(("BID", "PASS", "CHOOSE_CARD", "TAKE_ORDER", "FULFIL", "DONE", "END_TURN", "LAY",
                              "STATION", "VEIN", "OPTION_POINTS", "OPTION_TAKE", "DISCARD", "PROSPECT_START",
                              "PROSPECT_STEP", "PROSPECT_STOP", "PROSPECT_NONE", "PROSPECT_TAKE", "SELL",
                              "FINAL_SELL")):
        checks[name] = (i, getattr(_actions, name))
    checks["city size"] = (max(len(c) for c in r.city_spaces) <= MAX_CITY_SPACES, True)
    checks["order stones"] = (max(len(o.stones) for o in r.order_cards) <= MAX_ORDER_STONES, True)
    checks["sequence cards"] = (NUM_SEQUENCE_CARDS,
                                sum(1 for spec in action_table().specs if spec.kind == _actions.CHOOSE_CARD))
    checks["start tiles"] = (len(r.start_tiles) <= NUM_CELLS, True)
    checks["engine players"] = (<int>MAX_PLAYERS <= <int>ENGINE_MAX_PLAYERS, True)
    wrong = {name: pair for name, pair in checks.items() if pair[0] != pair[1]}
    if wrong:
        raise ImportError("cavum compiled core does not fit the rules data (compiled value, data value): "
                          + ", ".join(f"{name} {pair}" for name, pair in wrong.items()))


def _load_action_table():
    global PASS_ID, DONE_ID, END_TURN_ID, OPTION_POINTS_ID, PROSPECT_STOP_ID, PROSPECT_NONE_ID
    cdef int a, k
    for a, spec in enumerate(action_table().specs):
        k = spec.kind
        A_KIND[a] = k
        A_A[a] = spec.a
        A_B[a] = spec.b
        A_C[a] = spec.c
        if k == K_BID:
            BID_ID[spec.a] = a
        elif k == K_PASS:
            PASS_ID = a
        elif k == K_CHOOSE_CARD:
            CHOOSE_ID[spec.a] = a
        elif k == K_TAKE_ORDER:
            TAKE_ORDER_ID[spec.a] = a
        elif k == K_FULFIL:
            FULFIL_ID[spec.a] = a
        elif k == K_DONE:
            DONE_ID = a
        elif k == K_END_TURN:
            END_TURN_ID = a
        elif k == K_LAY:
            LAY_ID[spec.c][spec.a][spec.b] = a
        elif k == K_STATION:
            STATION_ID[spec.a] = a
        elif k == K_VEIN:
            VEIN_ID[spec.a][spec.b] = a
        elif k == K_OPTION_POINTS:
            OPTION_POINTS_ID = a
        elif k == K_OPTION_TAKE:
            OPTION_TAKE_ID[spec.a] = a
        elif k == K_DISCARD:
            DISCARD_ID[spec.a] = a
        elif k == K_PROSPECT_START:
            PROSPECT_START_ID[spec.a] = a
        elif k == K_PROSPECT_STEP:
            PROSPECT_STEP_ID[spec.a] = a
        elif k == K_PROSPECT_STOP:
            PROSPECT_STOP_ID = a
        elif k == K_PROSPECT_NONE:
            PROSPECT_NONE_ID = a
        elif k == K_PROSPECT_TAKE:
            PROSPECT_TAKE_ID[spec.a] = a
        elif k == K_SELL:
            SELL_ID[spec.a] = a
        elif k == K_FINAL_SELL:
            FINAL_SELL_ID[spec.a] = a
    ALL_SIDES_GROUP[0] = ALL_SIDES


_check_constants()
_load_action_table()


# ------------------------------------------------------------------------------------------------
# The rules of one game (ReferenceState.__init__ reads rules(), geometry(...) and the Config the same way)

_ADJACENCY = {"must_lead_into_every_adjacent_city_space": ADJ_EVERY, "must_lead_into_at_least_one": ADJ_ONE,
              "none": ADJ_NONE}


cdef class GameTables:
    """The `Tables` of one Config and its initial position; shared by every position of games with it."""

    def __init__(self, config):
        cdef Tables* t = &self.t
        cdef int i, j, k, rot, cell, space, colour
        r = rules()
        g = geometry(config.three_exit_pattern, config.two_exit_pattern, config.tile_internal_connectivity,
                     config.city_space_exits)
        memset(t, 0, sizeof(Tables))
        self.config = config
        # players and rule options
        t.num_players = config.players
        cards = config.sequence_cards
        t.num_sequence_cards = len(cards)
        for i, k in enumerate(cards):
            t.sequence_cards[i] = k
        for i, k in enumerate(config.sequence_card_dynamite):
            t.sequence_card_dynamite[i] = k
        t.bid_unbounded = config.bid_cap == "unbounded"
        t.order_pick_pass_final = config.order_pick_pass_is_final
        t.colour_sale_pass_final = config.colour_sale_pass_is_final
        t.colour_sale_min_bid = config.colour_sale_min_bid
        t.colour_sale_exactly_price = config.colour_sale_opening_bid == "exactly_price"
        for i, colour in enumerate(config.colour_sale_colour_order):
            t.colour_order[i] = colour
        t.adjacency_rule = _ADJACENCY[config.city_adjacency_rule]
        t.pass_through = config.city_spaces_pass_through
        t.single_junction = config.tile_internal_connectivity == "single_junction"
        t.vein_neighbour_forbidden = config.unconnected_vein_neighbour == "forbidden"
        t.cover_occupied_cell = config.cover_occupied_cell
        t.vein_under_visible = config.vein_under_counts_as_visible_dynamite
        t.explodes_fully = config.exploding_adjacent_dynamite == "explodes_fully"
        t.two_chip_limit = config.two_chip_supply_limit
        t.discard_only_if_unplayable = config.discard_only_if_unplayable
        t.vein_needs_stone = config.vein_colour_requires_stone_on_scale
        t.prospect_takes_every_vein = config.prospect_must_take_every_vein_on_path
        t.station_immediately = config.station_on_tile == "immediately_after_laying"
        t.next_opener_last_winner = config.sequence_auction_next_opener == "last_winner_left"
        t.tie_lowest_card = config.final_tie_break == "lowest_sequence_card_of_phase_3"
        t.hidden_stones = config.hidden_stones
        # the map
        for cell in range(NUM_CELLS):
            for i in range(NUM_DIRS):
                t.neighbours[cell][i] = r.neighbours[cell][i]
            t.vein_allowed[cell] = r.vein_allowed[cell]
            t.num_adjacent[cell] = len(g.adjacent_spaces[cell])
            for i, (k, space) in enumerate(g.adjacent_spaces[cell]):
                t.adjacent_dir[cell][i] = k
                t.adjacent_space[cell][i] = space
        for space in range(NUM_SPACES):
            for i in range(NUM_DIRS):
                t.space_neighbours[space][i] = r.space_neighbours[space][i]
            t.city_exits[space] = g.city_exits[space]
        for i, spaces in enumerate(r.city_spaces):
            t.city_size[i] = len(spaces)
            for j, space in enumerate(spaces):
                t.city_spaces[i][j] = space
        # tile geometry
        for k in range(NUM_KINDS):
            t.num_rotations[k] = len(g.rotations[k])
            for i, rot in enumerate(g.rotations[k]):
                t.rotations[k][i] = rot
                t.is_rotation[k][rot] = 1
            for rot in range(NUM_DIRS):
                t.exit_masks[k][rot] = g.exit_masks[k][rot]
                if len(g.groups[k][rot]) > MAX_GROUPS:
                    raise ValueError("a tile with more exit groups than the compiled core holds")
                t.num_groups[k][rot] = len(g.groups[k][rot])
                for i, mask in enumerate(g.groups[k][rot]):
                    t.groups[k][rot][i] = mask
        # supplies, phases, scoring
        t.start_tile_count = len(r.start_tiles)
        for i, tile in enumerate(r.start_tiles):
            for j in range(5):
                t.start_tiles[i][j] = tile[j]
        t.start_vein_stones = r.start_vein_stones
        for k in range(NUM_KINDS):
            t.tunnel_supply[k] = r.tunnel_supply[k]
            t.dynamite_supply[k] = r.dynamite_supply[k]
            t.pool_tunnels[k] = r.pool_tunnels[k]
            t.phase_tunnel[k] = r.phase_tunnel[k]
        t.vein_supply = r.vein_supply
        t.stations_per_player = r.stations_per_player
        t.pool_veins = r.pool_veins
        t.pool_stations_per_player = r.pool_stations_per_player
        t.phase_veins = r.phase_veins
        t.phase_options = r.phase_options
        t.phase_prospects = r.phase_prospects
        t.phase_stations = r.phase_stations
        t.actions_per_phase = r.actions_per_phase
        for colour, occupied in enumerate(r.initial_scale):
            for value in occupied:
                t.initial_scale[colour][value - 1] = 1
        t.start_points = r.start_points
        t.option_points = r.option_points
        t.two_chip_points = r.two_chip_points
        t.two_chips = r.two_chips
        t.stones_per_vein = r.stones_per_vein[config.players]
        t.phases = r.phases
        for i, card in enumerate(r.order_cards):
            t.order_size[i] = len(card.stones)
            for j, colour in enumerate(card.stones):
                t.order_stones[i][j] = colour
                t.order_need[i][colour] += 1
            t.order_points[i] = card.points
            t.order_penalty[i] = card.penalty
        init_state(&self.start, t)


_TABLES = {}


cdef GameTables tables_for(object config):
    """The GameTables of a Config (built once per distinct Config)."""
    tables = _TABLES.get(config)
    if tables is None:
        tables = _TABLES[config] = GameTables(config)
    return tables


# ------------------------------------------------------------------------------------------------
# Small helpers (tile_code, code_piece, code_rotation; ReferenceState._push, top, _top_kind, _tile_exits,
# open_sides, _groups, order, _held, price, _return_stone, _take_from_scale)

cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef inline int opposite(int d) noexcept nogil:
    return (d + 3) % NUM_DIRS


cdef inline int tile_code(int piece, int rotation) noexcept nogil:
    return 1 + piece + 8 * rotation


cdef inline int code_piece(int code) noexcept nogil:
    return (code - 1) % 8


cdef inline int code_rotation(int code) noexcept nogil:
    return (code - 1) // 8


cdef inline void push(GameState* s, int cell, int code) noexcept nogil:
    s.stack[cell][s.height[cell]] = code
    s.height[cell] += 1


cdef inline int top(const GameState* s, int cell) noexcept nogil:
    cdef int h = s.height[cell]
    return s.stack[cell][h - 1] if h else 0


cdef inline int top_kind(const GameState* s, int cell) noexcept nogil:
    return code_piece(top(s, cell)) // 2


cdef inline int tile_exits(const GameState* s, int cell) noexcept nogil:
    cdef int code = top(s, cell)
    if not code:
        return 0
    return s.t.exit_masks[code_piece(code) // 2][code_rotation(code)]


cdef inline int open_sides(const GameState* s, int cell) noexcept nogil:
    """Open sides of a mountain cell: all six under a vein with stones, else the top tile's exits."""
    if s.vein_stones[cell] > 0:
        return ALL_SIDES
    return tile_exits(s, cell)


cdef inline int groups(const GameState* s, int cell, const uint8_t** out) noexcept nogil:
    """The connected exit groups of a mountain cell: their number, with `out` pointed at them."""
    cdef int code
    if s.vein_stones[cell] > 0:
        out[0] = ALL_SIDES_GROUP
        return 1
    code = top(s, cell)
    if not code:
        return 0
    out[0] = s.t.groups[code_piece(code) // 2][code_rotation(code)]
    return s.t.num_groups[code_piece(code) // 2][code_rotation(code)]


cdef int order(const GameState* s, int* out) noexcept nogil:
    """Players in sequence-card order (lowest card first, seat breaking ties) into `out`; their number."""
    cdef int n = s.n, i, j, p
    for i in range(n):
        p = i
        j = i
        while j > 0 and s.seq_card[out[j - 1]] > s.seq_card[p]:
            out[j] = out[j - 1]
            j -= 1
        out[j] = p
    return n


cdef inline int index_in(const int* values, int n, int value) noexcept nogil:
    cdef int i
    for i in range(n):
        if values[i] == value:
            return i
    return -1


cdef inline int held_total(const GameState* s, int p) noexcept nogil:
    cdef int piece, total = 0
    for piece in range(NUM_PIECES):
        total += s.board[p][piece]
    return total


cdef inline int hand_total(const GameState* s, int p) noexcept nogil:
    cdef int colour, total = 0
    for colour in range(NUM_COLOURS):
        total += s.hands[p][colour]
    return total


cdef inline int price(const GameState* s, int colour) noexcept nogil:
    """Current price of a colour: its highest empty scale space (0 if the scale is full)."""
    cdef int value
    for value in range(SCALE_SPACES, 0, -1):
        if not s.scale[colour][value - 1]:
            return value
    return 0


cdef inline int return_stone(GameState* s, int colour) noexcept nogil:
    """Put a stone on the highest empty space of its scale; that space's value."""
    cdef int value = price(s, colour)
    cdef int index = colour * SCALE_SPACES + value - 1
    if index < 0:          # a full scale (never reached: 9 stones a colour); the reference's list wraps
        index += NUM_COLOURS * SCALE_SPACES
    (&s.scale[0][0])[index] = 1
    return value


cdef int take_from_scale(GameState* s, int colour, int count) noexcept nogil:
    """Move up to `count` stones from the lowest occupied spaces; how many were moved."""
    cdef int moved = 0, value
    for value in range(1, SCALE_SPACES + 1):
        if moved == count:
            break
        if s.scale[colour][value - 1]:
            s.scale[colour][value - 1] = 0
            moved += 1
    return moved


# ------------------------------------------------------------------------------------------------
# The network (_node_exits, _step_target, _blocked, _own_station, _moves, _can_finish, live,
# _reaches_mountain_station, vein_connected). Visited sets are byte arrays over node ids.

cdef int node_exits(const GameState* s, int node, int entry) noexcept nogil:
    """Sides a route may leave `node` by, having entered through side `entry` (-1: it starts here)."""
    cdef const uint8_t* g = NULL
    cdef int count, i, mask = 0
    if node >= NUM_CELLS:
        return s.t.city_exits[node - NUM_CELLS]
    count = groups(s, node, &g)
    if entry < 0:
        for i in range(count):
            mask |= g[i]
        return mask
    for i in range(count):
        if (g[i] >> entry) & 1:
            return g[i]
    return 0


cdef int step_target(const GameState* s, int node, int d) noexcept nogil:
    """The node across side `d` of `node` if the tunnel continues there, else -1."""
    cdef int target
    if node >= NUM_CELLS:
        target = s.t.space_neighbours[node - NUM_CELLS][d]
        return target if target >= 0 and (open_sides(s, target) >> opposite(d)) & 1 else -1
    target = s.t.neighbours[node][d]
    if target < 0:
        return -1
    if target >= NUM_CELLS:
        return target if (s.t.city_exits[target - NUM_CELLS] >> opposite(d)) & 1 else -1
    return target if (open_sides(s, target) >> opposite(d)) & 1 else -1


cdef inline int node_owner(const GameState* s, int node) noexcept nogil:
    return s.city_station[node - NUM_CELLS] if node >= NUM_CELLS else s.station[node]


cdef inline bint blocked(const GameState* s, int player, int node) noexcept nogil:
    cdef int owner = node_owner(s, node)
    return owner >= 0 and owner != player


cdef inline bint own_station(const GameState* s, int player, int node) noexcept nogil:
    return node_owner(s, node) == player


cdef int moves(const GameState* s, int player, int node, int entry, int* targets, int* sides) noexcept nogil:
    """(next node, side it is entered by) for every step a route of `player` may take from `node`; their number."""
    cdef int exits = node_exits(s, node, entry), d, target, n = 0
    for d in range(NUM_DIRS):
        if (exits >> d) & 1:
            target = step_target(s, node, d)
            if target >= 0 and not blocked(s, player, target):
                targets[n] = target
                sides[n] = opposite(d)
                n += 1
    return n


cdef bint can_finish(const GameState* s, int player, int node, int entry, uint8_t* visited,
                     int start) noexcept nogil:
    """Whether a simple route of `player` at `node` can still end at an own station other than `start`."""
    cdef int targets[NUM_DIRS]
    cdef int sides[NUM_DIRS]
    cdef uint8_t seen[NUM_NODES]
    cdef int queue[NUM_NODES + 1]
    cdef int k, i, head = 0, tail = 0, current, target
    cdef bint found
    if node != start and own_station(s, player, node):
        return True
    if node >= NUM_CELLS and node != start and not s.t.pass_through:
        return False
    if s.t.single_junction:
        # Exits do not depend on the entry side, so reachability avoiding the route is exact.
        memcpy(seen, visited, NUM_NODES)
        queue[tail] = node
        tail += 1
        while head < tail:
            current = queue[head]
            head += 1
            k = moves(s, player, current, -1, targets, sides)
            for i in range(k):
                target = targets[i]
                if seen[target]:
                    continue
                seen[target] = 1
                if own_station(s, player, target) and target != start:
                    return True
                if target >= NUM_CELLS and not s.t.pass_through:
                    continue
                queue[tail] = target
                tail += 1
        return False
    k = moves(s, player, node, entry, targets, sides)
    for i in range(k):
        target = targets[i]
        if visited[target]:
            continue
        visited[target] = 1
        found = can_finish(s, player, target, sides[i], visited, start)
        visited[target] = 0
        if found:
            return True
    return False


cdef bint reach_dfs(const GameState* s, int player, int node, int entry, uint8_t* visited) noexcept nogil:
    """The depth-first search of _reaches_mountain_station under independent channels (its inner `dfs`)."""
    cdef int targets[NUM_DIRS]
    cdef int sides[NUM_DIRS]
    cdef int k = moves(s, player, node, entry, targets, sides), i, target
    for i in range(k):
        target = targets[i]
        if visited[target]:
            continue
        if target < NUM_CELLS and s.station[target] == player:
            return True
        if target >= NUM_CELLS and not s.t.pass_through:
            continue
        visited[target] = 1
        if reach_dfs(s, player, target, sides[i], visited):
            return True
        visited[target] = 0
    return False


cdef bint reaches_mountain_station(const GameState* s, int player, int start) noexcept nogil:
    cdef int targets[NUM_DIRS]
    cdef int sides[NUM_DIRS]
    cdef uint8_t seen[NUM_NODES]
    cdef int queue[NUM_NODES + 1]
    cdef int k, i, head = 0, tail = 0, current, target
    memset(seen, 0, NUM_NODES)
    seen[start] = 1
    if s.t.single_junction:
        queue[tail] = start
        tail += 1
        while head < tail:
            current = queue[head]
            head += 1
            k = moves(s, player, current, -1, targets, sides)
            for i in range(k):
                target = targets[i]
                if seen[target]:
                    continue
                seen[target] = 1
                if target < NUM_CELLS and s.station[target] == player:
                    return True
                if target >= NUM_CELLS and not s.t.pass_through:
                    continue
                queue[tail] = target
                tail += 1
        return False
    return reach_dfs(s, player, start, -1, seen)


cdef bint live(const GameState* s, int space) noexcept nogil:
    """Whether the station on a city space is live: a route from it to one of its owner's mountain stations."""
    cdef int owner = s.city_station[space]
    if owner < 0:
        return False
    return reaches_mountain_station(s, owner, NUM_CELLS + space)


cdef bint vein_connected(const GameState* s, int cell, int exclude) noexcept nogil:
    """A vein is connected when some tile next to it (not `exclude`, -1 for none) has an exit pointing into
    its cell. Laying a tile passes -1: the tile about to be covered counts (reference.vein_connected)."""
    cdef int d, nb
    for d in range(NUM_DIRS):
        nb = s.t.neighbours[cell][d]
        if 0 <= nb < NUM_CELLS and nb != exclude and s.vein_stones[nb] == 0 \
                and (tile_exits(s, nb) >> opposite(d)) & 1:
            return True
    return False


# ------------------------------------------------------------------------------------------------
# Node bookkeeping (is_terminal, is_chance_node, current_player, chance_outcomes)

cdef bint is_terminal(const GameState* s) noexcept nogil:
    return s.stage == OVER


cdef bint is_chance_node(const GameState* s) noexcept nogil:
    return s.stage == DRAW


cdef int current_player(const GameState* s) noexcept nogil:
    if s.stage == OVER:
        return TERMINAL
    return s.to_move


cdef int chance_outcomes(const GameState* s, int* out) noexcept nogil:
    """Order cards that can be turned up next (each equally likely); their number."""
    cdef int n = 0, i
    if s.stage != DRAW:
        return 0
    for i in range(NUM_ORDERS):
        if s.deck[i]:
            out[n] = i
            n += 1
    return n


# ------------------------------------------------------------------------------------------------
# Legality (legal_actions, _bid_range, _may_pass, _free_cards, _fulfillable, _build_actions, _pool_count,
# _only_prospect_left, _candidate_cells, _placements, _piece_problem, _lay_problem, _station_problem,
# _vein_site_problem, _vein_colour_problem, _route_starts, _route_steps, _may_stop, illegal_reason)

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil

cdef enum:
    NUM_ACTION_WORDS = (NUM_ACTIONS + 63) // 64


cdef void sort_actions(int* out, int n) noexcept nogil:
    """Sort distinct action ids in place: insertion for a few, else a bitmap over all ids read in order
    (building positions offer hundreds of actions; this is linear where a comparison sort is not)."""
    cdef uint64_t bits[NUM_ACTION_WORDS]
    cdef uint64_t x
    cdef int i, j, v, w, k = 0
    if n <= 16:
        for i in range(1, n):
            v = out[i]
            j = i
            while j > 0 and out[j - 1] > v:
                out[j] = out[j - 1]
                j -= 1
            out[j] = v
        return
    memset(bits, 0, sizeof(bits))
    for i in range(n):
        bits[out[i] >> 6] |= (<uint64_t>1) << (out[i] & 63)
    for w in range(NUM_ACTION_WORDS):
        x = bits[w]
        while x:
            out[k] = w * 64 + __builtin_ctzll(x)
            k += 1
            x &= x - 1


cdef int legal_actions(const GameState* s, int* out) noexcept nogil:
    """Sorted ids of the legal actions (chance outcomes at a chance node); their number."""
    cdef int p, n = 0, lo, hi, v, i, colour, k
    cdef uint32_t mask
    if s.stage == DRAW:
        return chance_outcomes(s, out)
    if s.stage == OVER:
        return 0
    p = s.to_move
    if s.stage == AUCTION or s.stage == COLOUR_BID:
        bid_range(s, p, &lo, &hi)
        for v in range(lo, hi):
            out[n] = BID_ID[v]
            n += 1
        if may_pass(s, p):
            out[n] = PASS_ID
            n += 1
    elif s.stage == CHOOSE:
        for i in range(s.t.num_sequence_cards):
            k = s.t.sequence_cards[i]
            if free_card(s, k):
                out[n] = CHOOSE_ID[k]
                n += 1
    elif s.stage == ORDER_PICK:
        for i in range(NUM_ORDERS):
            if (s.display >> i) & 1:
                out[n] = TAKE_ORDER_ID[i]
                n += 1
        out[n] = PASS_ID
        n += 1
    elif s.stage == COLOUR_SELL:
        colour = s.t.colour_order[s.colour_pos]
        for k in range(1, s.hands[p][colour] + 1):
            out[n] = SELL_ID[k]
            n += 1
    elif s.stage == ORDER_SALE:
        mask = fulfillable(s, p)
        for i in range(NUM_ORDERS):
            if (mask >> i) & 1:
                out[n] = FULFIL_ID[i]
                n += 1
        out[n] = DONE_ID
        n += 1
    elif s.stage == FINAL_SALE:
        for colour in range(NUM_COLOURS):
            if s.hands[p][colour]:
                out[n] = FINAL_SELL_ID[colour]
                n += 1
    elif s.stage == BUILD:
        n = build_actions(s, p, out)
    sort_actions(out, n)
    return n


cdef void bid_range(const GameState* s, int p, int* lo, int* hi) noexcept nogil:
    """The bids `p` may make now: lo <= bid < hi (the reference's range; empty when lo >= hi)."""
    cdef int cap, colour, value, low
    if s.stage == AUCTION:
        cap = MAX_BID if s.t.bid_unbounded else imin(MAX_BID, s.scores[p])
        lo[0] = s.bid + 1 if s.bid >= 0 else 0
        hi[0] = cap + 1
        return
    colour = s.t.colour_order[s.colour_pos]
    if s.hands[p][colour] == 0:
        lo[0] = 0
        hi[0] = 0
        return
    if s.bid < 0:
        value = price(s, colour)
        low = value if s.t.colour_sale_exactly_price else s.t.colour_sale_min_bid
        lo[0] = imax(low, s.t.colour_sale_min_bid)
        hi[0] = value + 1
        return
    lo[0] = s.t.colour_sale_min_bid
    hi[0] = s.bid


cdef inline bint has_bid(const GameState* s, int p) noexcept nogil:
    cdef int lo, hi
    bid_range(s, p, &lo, &hi)
    return hi > lo


cdef inline bint may_pass(const GameState* s, int p) noexcept nogil:
    # The opener of a sequence auction must bid; everyone else may pass.
    return not (s.stage == AUCTION and s.bid < 0)


cdef inline bint free_card(const GameState* s, int card) noexcept nogil:
    """Whether sequence card `card` is still free (_free_cards lists the free ones)."""
    cdef int p
    for p in range(s.n):
        if s.seq_card[p] == card:
            return False
    return True


cdef uint32_t fulfillable(const GameState* s, int p) noexcept nogil:
    """The order cards `p` owns and holds the stones for, as a bitmask."""
    cdef uint32_t out = 0
    cdef int i, colour
    cdef bint ok
    for i in range(NUM_ORDERS):
        if s.owner[i] == p:
            ok = True
            for colour in range(NUM_COLOURS):
                if s.hands[p][colour] < s.t.order_need[i][colour]:
                    ok = False
                    break
            if ok:
                out |= (<uint32_t>1) << i
    return out


cdef int build_actions(const GameState* s, int p, int* out) noexcept nogil:
    cdef int n = 0, piece, i, k
    cdef int targets[NUM_DIRS]
    cdef int sides[NUM_DIRS]
    cdef int nodes[NUM_NODES]
    cdef int first[1]
    cdef Context ctx
    if s.prospect_state == ROUTING:
        k = route_steps(s, p, targets, sides)
        for i in range(k):
            out[n] = PROSPECT_STEP_ID[targets[i]]
            n += 1
        if may_stop(s, p):
            out[n] = PROSPECT_STOP_ID
            n += 1
        return n
    if s.prospect_state == TAKING:
        for i in range(s.to_take_len):
            out[n] = PROSPECT_TAKE_ID[s.to_take[i]]
            n += 1
        out[n] = DONE_ID
        return n + 1
    if s.pending >= 0:
        return placements(s, p, s.pending, out, False, NULL)
    if s.turn_actions >= 1:
        out[n] = END_TURN_ID
        n += 1
    if only_prospect_left(s, p):
        k = route_starts(s, p, nodes)
        if k:
            for i in range(k):
                out[n] = PROSPECT_START_ID[nodes[i]]
                n += 1
        else:
            out[n] = PROSPECT_NONE_ID
            n += 1
        return n
    ctx.cells_ready = 0
    ctx.spaces_ready = 0
    for piece in range(NUM_PIECES):
        if s.board[p][piece]:
            k = placements(s, p, piece, out + n, False, &ctx)
            n += k
            if k == 0 or not s.t.discard_only_if_unplayable:
                out[n] = DISCARD_ID[piece]
                n += 1
    if s.options[p]:
        out[n] = OPTION_POINTS_ID
        n += 1
        for piece in range(NUM_PIECES):
            if pool_count(s, p, piece) and placements(s, p, piece, first, True, &ctx):
                out[n] = OPTION_TAKE_ID[piece]
                n += 1
    return n


cdef inline int pool_count(const GameState* s, int p, int piece) noexcept nogil:
    return s.pool_stations[p] if piece == PIECE_STATION else s.pool[piece]


cdef inline bint only_prospect_left(const GameState* s, int p) noexcept nogil:
    return s.prospects[p] > 0 and held_total(s, p) == 0 and s.options[p] == 0


cdef void candidate_cells(const GameState* s, uint8_t* mark) noexcept nogil:
    """Cells a tile could go on (occupied cells and their empty neighbours), marked in `mark`."""
    cdef int cell, d, nb
    memset(mark, 0, NUM_CELLS)
    for cell in range(NUM_CELLS):
        if s.height[cell]:
            mark[cell] = 1
            for d in range(NUM_DIRS):
                nb = s.t.neighbours[cell][d]
                if 0 <= nb < NUM_CELLS:
                    mark[nb] = 1


# What move generation works out once per position and reuses for every piece and rotation (the reference
# asks _lay_problem and _station_problem for each one; the answers are the same, which the cross-check
# tests confirm). Zero `cells_ready` and `spaces_ready` before use: nothing is computed yet.
ctypedef struct Context:
    uint8_t cells_ready
    uint8_t cell_ok[NUM_CELLS]        # a candidate cell without a problem that holds for every tile laid there
    int8_t min_kind[NUM_CELLS]        # the smallest kind that may go there (stacking needs more exits)
    uint8_t continues[NUM_CELLS]      # exit directions that would continue a tunnel or connected vein
    uint8_t adjacent[NUM_CELLS]       # directions of neighbouring city spaces
    uint8_t spaces_ready
    uint8_t space_ok[NUM_SPACES]      # free city spaces a station of the player may go on


cdef void prepare_cells(const GameState* s, int p, Context* ctx) noexcept nogil:
    """The per-cell facts of _lay_problem for player `p`: everything but the tile's kind and exit mask."""
    cdef uint8_t candidate[NUM_CELLS]
    cdef int cell, d, nb, i, owner
    cdef bint ok, any_neighbour
    candidate_cells(s, candidate)
    for cell in range(NUM_CELLS):
        ctx.cell_ok[cell] = 0
        if not candidate[cell]:
            continue
        ok = True
        if s.height[cell] == 0:
            any_neighbour = False
            for d in range(NUM_DIRS):
                nb = s.t.neighbours[cell][d]
                if 0 <= nb < NUM_CELLS and s.height[nb]:
                    any_neighbour = True
            ok = any_neighbour
            ctx.min_kind[cell] = 0
        else:
            ctx.min_kind[cell] = top_kind(s, cell) + 1
            if not s.t.cover_occupied_cell and (s.station[cell] >= 0 or s.vein_stones[cell] > 0):
                ok = False
        ctx.continues[cell] = 0
        for d in range(NUM_DIRS):
            nb = s.t.neighbours[cell][d]
            if not 0 <= nb < NUM_CELLS:
                continue
            if s.vein_stones[nb] > 0:
                if vein_connected(s, nb, -1):
                    ctx.continues[cell] |= 1 << d
                elif s.t.vein_neighbour_forbidden:
                    ok = False
            elif (tile_exits(s, nb) >> opposite(d)) & 1:
                ctx.continues[cell] |= 1 << d
        ctx.adjacent[cell] = 0
        for i in range(s.t.num_adjacent[cell]):
            ctx.adjacent[cell] |= 1 << s.t.adjacent_dir[cell][i]
            owner = s.city_station[s.t.adjacent_space[cell][i]]
            if owner >= 0 and owner != p:
                ok = False
        ctx.cell_ok[cell] = ok
    ctx.cells_ready = 1


cdef inline bint tile_fits(const GameState* s, const Context* ctx, int cell, int kind, int mask) noexcept nogil:
    """not _lay_problem(...) for a tile of `kind` with exits `mask` on a candidate cell, from the context."""
    cdef int adjacent = ctx.adjacent[cell]
    if not ctx.cell_ok[cell] or kind < ctx.min_kind[cell] or not (mask & ctx.continues[cell]):
        return False
    if s.t.adjacency_rule == ADJ_EVERY:
        return (mask & adjacent) == adjacent
    if s.t.adjacency_rule == ADJ_ONE:
        return not adjacent or (mask & adjacent) != 0
    return True


cdef void prepare_spaces(const GameState* s, int p, Context* ctx) noexcept nogil:
    """Which free city spaces a station of `p` may go on (a route to one of p's mountain stations)."""
    cdef int targets[NUM_DIRS]
    cdef int sides[NUM_DIRS]
    cdef uint8_t seen[NUM_NODES]
    cdef int queue[NUM_NODES]
    cdef int space, cell, head = 0, tail = 0, current, k, i, target
    if not s.t.single_junction:
        for space in range(NUM_SPACES):
            ctx.space_ok[space] = s.city_station[space] < 0 and not station_problem(s, p, NUM_CELLS + space, False)
        ctx.spaces_ready = 1
        return
    # With one junction per tile a step is possible both ways (each side must be open toward the other), so
    # instead of one search from every free space (_reaches_mountain_station) one search runs backwards from
    # all of p's mountain stations, over the same nodes: not blocked, city spaces not passed through unless
    # city_spaces_pass_through. The spaces it reaches are those the reference finds live.
    memset(seen, 0, NUM_NODES)
    memset(ctx.space_ok, 0, sizeof(ctx.space_ok))
    for cell in range(NUM_CELLS):
        if s.station[cell] == p:
            seen[cell] = 1
            queue[tail] = cell
            tail += 1
    while head < tail:
        current = queue[head]
        head += 1
        k = moves(s, p, current, -1, targets, sides)
        for i in range(k):
            target = targets[i]
            if seen[target]:
                continue
            seen[target] = 1
            if target >= NUM_CELLS:
                ctx.space_ok[target - NUM_CELLS] = s.city_station[target - NUM_CELLS] < 0
                if not s.t.pass_through:
                    continue
            queue[tail] = target
            tail += 1
    ctx.spaces_ready = 1


cdef int placements(const GameState* s, int p, int piece, int* out, bint first_only, Context* ctx) noexcept nogil:
    """Ids of every legal placement of `piece` by `p` now (the first one only, if asked); their number.
    `ctx` carries what is worked out once per position (NULL: work it out here)."""
    cdef int n = 0, space, cell, colour, kind, i, rot
    cdef Context local
    if ctx == NULL:
        local.cells_ready = 0
        local.spaces_ready = 0
        ctx = &local
    if piece == PIECE_STATION:
        if s.last_laid >= 0 and not station_problem(s, p, s.last_laid, False):
            out[n] = STATION_ID[s.last_laid]
            n += 1
            if first_only:
                return n
        if not ctx.spaces_ready:
            prepare_spaces(s, p, ctx)
        for space in range(NUM_SPACES):
            if ctx.space_ok[space]:
                out[n] = STATION_ID[NUM_CELLS + space]
                n += 1
                if first_only:
                    return n
        return n
    if piece == PIECE_VEIN:
        for cell in range(NUM_CELLS):
            if s.height[cell] and not vein_site_problem(s, cell):
                for colour in range(NUM_COLOURS):
                    if not vein_colour_problem(s, colour):
                        out[n] = VEIN_ID[cell][colour]
                        n += 1
                        if first_only:
                            return n
        return n
    kind = piece // 2
    if not ctx.cells_ready:
        prepare_cells(s, p, ctx)
    for cell in range(NUM_CELLS):
        if not ctx.cell_ok[cell] or kind < ctx.min_kind[cell]:
            continue
        for i in range(s.t.num_rotations[kind]):
            rot = s.t.rotations[kind][i]
            if tile_fits(s, ctx, cell, kind, s.t.exit_masks[kind][rot]):
                out[n] = LAY_ID[piece][cell][rot]
                n += 1
                if first_only:
                    return n
    return n


cdef bint piece_problem(const GameState* s, int p, int piece) noexcept nogil:
    if s.pending >= 0:
        return s.pending != piece       # the tile taken from the pool with an option must be used now
    if not s.board[p][piece]:
        return True
    if only_prospect_left(s, p):
        return True
    return False


cdef bint lay_problem(const GameState* s, int p, int piece, int cell, int rot, bint piece_check) noexcept nogil:
    cdef int kind = piece // 2, mask, h, d, nb, i, space, owner
    cdef bint continues = False, connected, any_neighbour
    if piece_check and piece_problem(s, p, piece):
        return True
    if not s.t.is_rotation[kind][rot]:
        return True                     # the rotation repeats a smaller one
    mask = s.t.exit_masks[kind][rot]
    h = s.height[cell]
    if h == 0:
        any_neighbour = False
        for d in range(NUM_DIRS):
            nb = s.t.neighbours[cell][d]
            if 0 <= nb < NUM_CELLS and s.height[nb]:
                any_neighbour = True
                break
        if not any_neighbour:
            return True
    else:
        if top_kind(s, cell) >= kind:
            return True                 # stacking needs strictly more exits
        if not s.t.cover_occupied_cell and s.station[cell] >= 0:
            return True
        if not s.t.cover_occupied_cell and s.vein_stones[cell] > 0:
            return True
    for d in range(NUM_DIRS):
        nb = s.t.neighbours[cell][d]
        if not 0 <= nb < NUM_CELLS:
            continue
        if s.vein_stones[nb] > 0:
            connected = vein_connected(s, nb, -1)
            if not connected and s.t.vein_neighbour_forbidden:
                return True
            if connected and (mask >> d) & 1:
                continues = True
        elif (mask >> d) & 1 and (tile_exits(s, nb) >> opposite(d)) & 1:
            continues = True
    if not continues:
        return True
    for i in range(s.t.num_adjacent[cell]):
        owner = s.city_station[s.t.adjacent_space[cell][i]]
        if owner >= 0 and owner != p:
            return True
    if s.t.adjacency_rule == ADJ_EVERY:
        for i in range(s.t.num_adjacent[cell]):
            if not (mask >> s.t.adjacent_dir[cell][i]) & 1:
                return True
    elif s.t.adjacency_rule == ADJ_ONE and s.t.num_adjacent[cell]:
        for i in range(s.t.num_adjacent[cell]):
            if (mask >> s.t.adjacent_dir[cell][i]) & 1:
                return False
        return True
    return False


cdef bint station_problem(const GameState* s, int p, int node, bint piece_check) noexcept nogil:
    cdef int code
    if piece_check and piece_problem(s, p, PIECE_STATION):
        return True
    if node >= NUM_CELLS:
        if s.city_station[node - NUM_CELLS] >= 0:
            return True
        # The reference places the station for a moment and asks live(); the search from the space only
        # needs its owner-to-be, so here it asks the same search directly without touching the state.
        return not reaches_mountain_station(s, p, node)
    if node != s.last_laid:
        return True
    if s.t.station_immediately and not s.last_laid_fresh:
        return True
    if s.height[node] != 1:
        return True
    code = top(s, node)
    if code_piece(code) % 2:
        return True                     # stations never go on dynamite
    if s.vein_stones[node] > 0 or s.vein_colour[node] >= 0:
        return True
    if s.station[node] >= 0:
        return True
    return False


cdef bint vein_site_problem(const GameState* s, int cell) noexcept nogil:
    cdef int d, nb
    if not s.height[cell]:
        return True
    if s.station[cell] >= 0:
        return True
    if s.vein_colour[cell] >= 0:
        return True
    if not s.t.vein_allowed[cell] or s.t.num_adjacent[cell]:
        return True
    for d in range(NUM_DIRS):
        nb = s.t.neighbours[cell][d]
        if 0 <= nb < NUM_CELLS and s.vein_stones[nb] > 0:
            return True
    return False


cdef inline bint vein_colour_problem(const GameState* s, int colour) noexcept nogil:
    return s.t.vein_needs_stone and price(s, colour) == SCALE_SPACES


cdef int route_starts(const GameState* s, int p, int* out) noexcept nogil:
    cdef int nodes[NUM_NODES]
    cdef uint8_t visited[NUM_NODES]
    cdef int count = 0, n = 0, cell, space, i, node
    for cell in range(NUM_CELLS):
        if s.station[cell] == p:
            nodes[count] = cell
            count += 1
    for space in range(NUM_SPACES):
        if s.city_station[space] == p:
            nodes[count] = NUM_CELLS + space
            count += 1
    for i in range(count):
        node = nodes[i]
        memset(visited, 0, NUM_NODES)
        visited[node] = 1
        if can_finish(s, p, node, -1, visited, node):
            out[n] = node
            n += 1
    return n


cdef int route_steps(const GameState* s, int p, int* targets, int* sides) noexcept nogil:
    """The next steps of the route being chosen that can still be finished (target and entry side); their number."""
    cdef int current = s.route[s.route_len - 1], start = s.route[0], k, i, n = 0, target
    cdef int move_targets[NUM_DIRS]
    cdef int move_sides[NUM_DIRS]
    cdef uint8_t visited[NUM_NODES]
    if current != start and current >= NUM_CELLS and not s.t.pass_through:
        return 0
    memset(visited, 0, NUM_NODES)
    for i in range(s.route_len):
        visited[s.route[i]] = 1
    k = moves(s, p, current, s.route_entry, move_targets, move_sides)
    for i in range(k):
        target = move_targets[i]
        if visited[target]:
            continue
        visited[target] = 1
        if can_finish(s, p, target, move_sides[i], visited, start):
            targets[n] = target
            sides[n] = move_sides[i]
            n += 1
        visited[target] = 0
    return n


cdef inline bint may_stop(const GameState* s, int p) noexcept nogil:
    return s.route_len > 1 and own_station(s, p, s.route[s.route_len - 1])


cdef bint is_legal(const GameState* s, int action) noexcept nogil:
    """Whether `action` may be applied now (illegal_reason(action) is None)."""
    cdef int buffer[NUM_ACTIONS]
    cdef int p, kind, n, i
    if s.stage == DRAW:
        return 0 <= action < NUM_ORDERS and s.deck[action] != 0
    if s.stage == OVER:
        return False
    if not 0 <= action < NUM_ACTIONS:
        return False
    p = s.to_move
    kind = A_KIND[action]
    if s.stage == BUILD and s.prospect_state == NO_ROUTE:
        # As the reference: a placement is judged by its own rule, everything else by the legal list.
        if kind == K_LAY:
            return not lay_problem(s, p, A_C[action], A_A[action], A_B[action], True)
        if kind == K_STATION:
            return not station_problem(s, p, A_A[action], True)
        if kind == K_VEIN:
            return not (piece_problem(s, p, PIECE_VEIN) or vein_site_problem(s, A_A[action])
                        or vein_colour_problem(s, A_B[action]))
    n = legal_actions(s, buffer)
    for i in range(n):
        if buffer[i] == action:
            return True
    return False


# ------------------------------------------------------------------------------------------------
# Applying actions (apply_action and the stage handlers, in the reference's order)

cdef void apply_action(GameState* s, int action) noexcept nogil:
    """Apply a legal action or chance outcome (check it with is_legal first)."""
    cdef int p = s.to_move, stage = s.stage
    if stage == DRAW:
        draw(s, action)
    elif stage == AUCTION:
        auction_action(s, p, action)
    elif stage == CHOOSE:
        choose_card(s, p, A_A[action])
    elif stage == ORDER_PICK:
        order_pick(s, p, action)
    elif stage == BUILD:
        build_action(s, p, action)
    elif stage == COLOUR_BID:
        colour_bid(s, p, action)
    elif stage == COLOUR_SELL:
        colour_sell(s, p, A_A[action])
    elif stage == ORDER_SALE:
        order_sale(s, p, action)
    elif stage == FINAL_SALE:
        final_sale(s, p, A_A[action])


# phase start and the sequence auction

cdef inline int lowest_last_card(const GameState* s) noexcept nogil:
    """The first seat holding the lowest sequence card of the latest phase."""
    cdef int p, best = 0
    for p in range(1, s.n):
        if s.last_cards[p] < s.last_cards[best]:
            best = p
    return best


cdef void draw(GameState* s, int card) noexcept nogil:
    s.deck[card] = 0
    s.display |= (<uint32_t>1) << card
    s.draws_left -= 1
    if s.draws_left == 0:
        memset(s.seq_card, 0, sizeof(s.seq_card))
        begin_auction(s, 0 if s.phase == 0 else lowest_last_card(s))


cdef void begin_auction(GameState* s, int opener) noexcept nogil:
    cdef int p, without = 0, last = -1
    for p in range(s.n):
        if not s.seq_card[p]:
            without += 1
            last = p
    if without == 1:
        s.bidder = last
        s.bid = 0
        s.stage = CHOOSE
        s.to_move = last
        return
    while s.seq_card[opener]:
        opener = (opener + 1) % s.n
    s.opener = opener
    s.bid = -1
    s.bidder = -1
    memset(s.passed, 0, sizeof(s.passed))
    s.stage = AUCTION
    s.to_move = opener


cdef inline bint auction_active(const GameState* s, int q) noexcept nogil:
    return not s.seq_card[q] and not s.passed[q] and q != s.bidder


cdef void auction_action(GameState* s, int p, int action) noexcept nogil:
    cdef int q
    cdef bint any_active = False
    if A_KIND[action] == K_BID:
        s.bid = A_A[action]
        s.bidder = p
    else:
        s.passed[p] = 1
    for q in range(s.n):
        if auction_active(s, q):
            any_active = True
    if not any_active:
        s.scores[s.bidder] -= s.bid
        s.stage = CHOOSE
        s.to_move = s.bidder
        return
    q = (p + 1) % s.n
    while not auction_active(s, q):
        q = (q + 1) % s.n
    s.to_move = q


cdef void choose_card(GameState* s, int p, int card) noexcept nogil:
    cdef int q, base
    cdef bint everyone = True
    s.seq_card[p] = card
    for q in range(s.n):
        if not s.seq_card[q]:
            everyone = False
    if everyone:
        deal_tiles(s)
        begin_order_pick(s)
        return
    base = p if s.t.next_opener_last_winner else s.opener
    begin_auction(s, (base + 1) % s.n)


cdef void deal_tiles(GameState* s) noexcept nogil:
    cdef const Tables* t = s.t
    cdef int p, k, count
    for p in range(s.n):
        for k in range(NUM_KINDS):
            from_supply(s, p, 2 * k, t.phase_tunnel[k])
        from_supply(s, p, 2 * t.sequence_card_dynamite[s.seq_card[p] - 1] + 1, 1)
        from_supply(s, p, PIECE_VEIN, t.phase_veins)
        count = imin(t.phase_stations, s.supply_stations[p])
        s.supply_stations[p] -= count
        s.board[p][PIECE_STATION] += count
        s.options[p] = t.phase_options
        s.prospects[p] = t.phase_prospects
        s.used[p] = 0


cdef inline void from_supply(GameState* s, int p, int piece, int count) noexcept nogil:
    count = imin(count, s.supply[piece])
    s.supply[piece] -= count
    s.board[p][piece] += count


# order cards

cdef void begin_order_pick(GameState* s) noexcept nogil:
    cdef int seats[MAX_PLAYERS]
    memset(s.passed, 0, sizeof(s.passed))
    s.passes_in_row = 0
    s.cursor = 0
    s.stage = ORDER_PICK
    order(s, seats)
    s.to_move = seats[0]
    if not s.display:
        end_order_pick(s)


cdef void order_pick(GameState* s, int p, int action) noexcept nogil:
    cdef int seats[MAX_PLAYERS]
    cdef int card, q, i, step
    cdef bint final = s.t.order_pick_pass_final, everyone_passed = True
    if A_KIND[action] == K_TAKE_ORDER:
        card = A_A[action]
        s.display &= ~((<uint32_t>1) << card)
        s.owner[card] = p
        s.scores[p] += s.t.two_chip_points * s.chips[card]
        s.chip_supply += s.chips[card]
        s.chips[card] = 0
        s.passes_in_row = 0
    else:
        s.passed[p] = 1
        s.passes_in_row += 1
    if final:
        for q in range(s.n):
            if not s.passed[q]:
                everyone_passed = False
    else:
        everyone_passed = s.passes_in_row >= s.n
    if not s.display or everyone_passed:
        end_order_pick(s)
        return
    order(s, seats)
    i = index_in(seats, s.n, p)
    for step in range(1, s.n + 1):
        q = seats[(i + step) % s.n]
        if not (final and s.passed[q]):
            s.to_move = q
            return


cdef void end_order_pick(GameState* s) noexcept nogil:
    cdef int seats[MAX_PLAYERS]
    cdef int card
    for card in range(NUM_ORDERS):
        if not (s.display >> card) & 1:
            continue
        if s.t.two_chip_limit < 0:
            s.chips[card] += 1
        elif s.chip_supply > 0:
            s.chips[card] += 1
            s.chip_supply -= 1
    s.stage = BUILD
    s.turn_actions = 0
    s.last_laid = -1
    order(s, seats)
    s.to_move = seats[0]


# building

cdef void build_action(GameState* s, int p, int action) noexcept nogil:
    cdef int kind = A_KIND[action], a = A_A[action], b = A_B[action], piece, i, k, cell, stones
    cdef int targets[NUM_DIRS]
    cdef int sides[NUM_DIRS]
    if kind == K_END_TURN:
        end_turn(s, p)
        return
    if kind == K_PROSPECT_START:
        s.prospect_state = ROUTING
        s.route[0] = a
        s.route_len = 1
        s.route_entry = -1
        return
    if kind == K_PROSPECT_STEP:
        k = route_steps(s, p, targets, sides)
        for i in range(k):
            if targets[i] == a:
                s.route_entry = sides[i]
                break
        s.route[s.route_len] = a
        s.route_len += 1
        return
    if kind == K_PROSPECT_STOP:
        s.to_take_len = 0
        for i in range(s.route_len):
            cell = s.route[i]
            if cell < NUM_CELLS and s.vein_stones[cell] > 0:
                s.to_take[s.to_take_len] = cell
                s.to_take_len += 1
        if s.t.prospect_takes_every_vein:
            k = s.to_take_len
            s.to_take_len = 0           # the reference's local list of veins, never stored
            for i in range(k):
                take_stone(s, p, s.to_take[i])
            finish_prospect(s, p)
        else:
            s.prospect_state = TAKING
            if not s.to_take_len:
                finish_prospect(s, p)
        return
    if kind == K_PROSPECT_TAKE:
        i = 0
        while s.to_take[i] != a:
            i += 1
        s.to_take_len -= 1
        while i < s.to_take_len:
            s.to_take[i] = s.to_take[i + 1]
            i += 1
        take_stone(s, p, a)
        if not s.to_take_len:
            finish_prospect(s, p)
        return
    if kind == K_DONE:        # stop taking stones while prospecting
        finish_prospect(s, p)
        return
    if kind == K_PROSPECT_NONE:
        finish_prospect(s, p)
        return
    if kind == K_OPTION_POINTS:
        s.options[p] -= 1
        s.scores[p] += s.t.option_points
        action_done(s, p, -1)
        return
    if kind == K_OPTION_TAKE:
        s.options[p] -= 1
        if a == PIECE_STATION:
            s.pool_stations[p] -= 1
        else:
            s.pool[a] -= 1
        s.pending = a
        return
    if kind == K_DISCARD:
        s.board[p][a] -= 1
        if a == PIECE_STATION:
            s.pool_stations[p] += 1
        else:
            s.pool[a] += 1
        action_done(s, p, -1)
        return
    piece = A_C[action] if kind == K_LAY else (PIECE_STATION if kind == K_STATION else PIECE_VEIN)
    if s.pending >= 0:
        s.pending = -1
    else:
        s.board[p][piece] -= 1
    if kind == K_LAY:
        # With cover_occupied_cell a station or vein stays on top of the grown stack.
        push(s, a, tile_code(piece, b))
        action_done(s, p, a)
    elif kind == K_STATION:
        if a >= NUM_CELLS:
            s.city_station[a - NUM_CELLS] = p
        else:
            s.station[a] = p
        action_done(s, p, -1)
    else:
        stones = take_from_scale(s, b, s.t.stones_per_vein)
        s.vein_colour[a] = b
        s.vein_stones[a] = stones
        if stones == 0:
            remove_vein(s, a)
        action_done(s, p, -1)


cdef void take_stone(GameState* s, int p, int cell) noexcept nogil:
    cdef int colour = s.vein_colour[cell]
    s.vein_stones[cell] -= 1
    s.hands[p][colour] += 1
    if s.vein_stones[cell] == 0:
        remove_vein(s, cell)


cdef inline void remove_vein(GameState* s, int cell) noexcept nogil:
    s.vein_colour[cell] = -1
    s.vein_stones[cell] = 0
    s.pool[PIECE_VEIN] += 1


cdef void finish_prospect(GameState* s, int p) noexcept nogil:
    s.prospects[p] -= 1
    s.prospect_state = NO_ROUTE
    s.route_len = 0
    s.route_entry = -1
    s.to_take_len = 0
    action_done(s, p, -1)


cdef void action_done(GameState* s, int p, int laid) noexcept nogil:
    s.used[p] += 1
    s.turn_actions += 1
    if laid >= 0:
        s.last_laid = laid
    s.last_laid_fresh = 1 if laid >= 0 else 0
    if s.turn_actions >= MAX_TURN_ACTIONS or s.used[p] >= s.t.actions_per_phase:
        end_turn(s, p)


cdef void end_turn(GameState* s, int p) noexcept nogil:
    cdef int seats[MAX_PLAYERS]
    cdef int i, step, q
    s.turn_actions = 0
    s.last_laid = -1
    s.last_laid_fresh = 0
    order(s, seats)
    i = index_in(seats, s.n, p)
    for step in range(1, s.n + 1):
        q = seats[(i + step) % s.n]
        if s.used[q] < s.t.actions_per_phase:
            s.to_move = q
            return
    end_building(s)


cdef void end_building(GameState* s) noexcept nogil:
    cdef int gains[MAX_PLAYERS]
    cdef int cleared[NUM_CELLS]
    score_cities(s, gains)
    explode(s, cleared)
    s.colour_pos = -1
    next_colour(s)


cdef void score_cities(GameState* s, int* gains) noexcept nogil:
    """Score all cities (each live station: 1 per empty or dead space of its city); the gains into `gains`."""
    cdef int city, i, space, empty, p
    cdef bint is_live[MAX_CITY_SPACES]
    for p in range(s.n):
        gains[p] = 0
    for city in range(NUM_CITIES):
        empty = 0
        for i in range(s.t.city_size[city]):
            space = s.t.city_spaces[city][i]
            is_live[i] = s.city_station[space] >= 0 and live(s, space)
            if not is_live[i]:
                empty += 1
        for i in range(s.t.city_size[city]):
            if is_live[i]:
                gains[s.city_station[s.t.city_spaces[city][i]]] += empty
    for p in range(s.n):
        s.scores[p] += gains[p]


cdef inline bint visible_dynamite(const GameState* s, int cell) noexcept nogil:
    cdef int code = top(s, cell)
    if not code or code_piece(code) % 2 == 0 or s.station[cell] >= 0:
        return False
    return s.vein_stones[cell] == 0 or s.t.vein_under_visible


cdef int explode(GameState* s, int* cleared) noexcept nogil:
    """Set off every visible dynamite tile, with chain reactions (rules 7.8); the cells cleared, in order."""
    cdef int queue[NUM_CELLS * (NUM_DIRS + 1)]      # every cleared cell adds at most six
    cdef int head = 0, tail = 0, n = 0, cell, colour, i, stones, d, nb
    cdef bint fully = s.t.explodes_fully
    for cell in range(NUM_CELLS):
        if visible_dynamite(s, cell):
            queue[tail] = cell
            tail += 1
    while head < tail:
        cell = queue[head]
        head += 1
        if not visible_dynamite(s, cell):
            continue
        if s.vein_stones[cell] > 0:
            colour = s.vein_colour[cell]
            stones = s.vein_stones[cell]
            for i in range(stones):
                return_stone(s, colour)
            remove_vein(s, cell)
        while s.height[cell]:
            pop_to_pool(s, cell)
        cleared[n] = cell
        n += 1
        for d in range(NUM_DIRS):
            nb = s.t.neighbours[cell][d]
            if not 0 <= nb < NUM_CELLS or not s.height[nb]:
                continue
            if s.station[nb] >= 0 or s.vein_stones[nb] > 0:
                continue
            if fully and visible_dynamite(s, nb):
                queue[tail] = nb
                tail += 1
                continue
            pop_to_pool(s, nb)
            if visible_dynamite(s, nb):
                queue[tail] = nb
                tail += 1
    return n


cdef inline void pop_to_pool(GameState* s, int cell) noexcept nogil:
    s.height[cell] -= 1
    s.pool[code_piece(s.stack[cell][s.height[cell]])] += 1
    s.stack[cell][s.height[cell]] = 0


# selling

cdef void next_colour(GameState* s) noexcept nogil:
    while True:
        s.colour_pos += 1
        if s.colour_pos >= NUM_COLOURS:
            begin_order_sale(s)
            return
        s.bid = -1
        s.bidder = -1
        memset(s.passed, 0, sizeof(s.passed))
        s.passes_in_row = 0
        s.cursor = -1
        s.stage = COLOUR_BID
        if advance_colour_bidding(s):
            return


cdef int colour_holders(const GameState* s, int* out) noexcept nogil:
    """Holders of the colour on sale, in sequence order; their number."""
    cdef int seats[MAX_PLAYERS]
    cdef int colour = s.t.colour_order[s.colour_pos], i, n = 0
    order(s, seats)
    for i in range(s.n):
        if s.hands[seats[i]][colour] > 0:
            out[n] = seats[i]
            n += 1
    return n


cdef bint advance_colour_bidding(GameState* s) noexcept nogil:
    """Move to the next player who can act in this colour's bidding; False if the colour is finished."""
    cdef int holders[MAX_PLAYERS]
    cdef int seats[MAX_PLAYERS]
    cdef int num_holders = colour_holders(s, holders), others, i, q
    cdef bint final = s.t.colour_sale_pass_final, done, is_other
    order(s, seats)
    while True:
        others = 0
        done = True
        for i in range(num_holders):
            if holders[i] != s.bidder:
                others += 1
                if not s.passed[holders[i]]:
                    done = False
        if not final:
            done = s.passes_in_row >= others
        if done or not num_holders:
            if s.bidder >= 0:
                s.stage = COLOUR_SELL
                s.to_move = s.bidder
                return True
            return False
        s.cursor = (s.cursor + 1) % s.n
        q = seats[s.cursor]
        is_other = q != s.bidder and index_in(holders, num_holders, q) >= 0
        if not is_other or (final and s.passed[q]):
            continue
        s.to_move = q
        if has_bid(s, q):
            return True
        # No bid is possible (none low enough): that player passes without a decision.
        s.passed[q] = 1
        s.passes_in_row += 1


cdef void colour_bid(GameState* s, int p, int action) noexcept nogil:
    if A_KIND[action] == K_BID:
        s.bid = A_A[action]
        s.bidder = p
        s.passes_in_row = 0
    else:
        s.passed[p] = 1
        s.passes_in_row += 1
    if not advance_colour_bidding(s):
        next_colour(s)


cdef void colour_sell(GameState* s, int p, int count) noexcept nogil:
    cdef int colour = s.t.colour_order[s.colour_pos], i
    for i in range(count):
        s.hands[p][colour] -= 1
        return_stone(s, colour)
        s.scores[p] += s.bid
    next_colour(s)


cdef void begin_order_sale(GameState* s) noexcept nogil:
    s.stage = ORDER_SALE
    s.cursor = -1
    next_order_seller(s)


cdef void next_order_seller(GameState* s) noexcept nogil:
    cdef int seats[MAX_PLAYERS]
    cdef int q
    order(s, seats)
    while True:
        s.cursor += 1
        if s.cursor >= s.n:
            end_phase(s)
            return
        q = seats[s.cursor]
        if fulfillable(s, q):
            s.to_move = q
            return


cdef void order_sale(GameState* s, int p, int action) noexcept nogil:
    cdef int card, i, colour
    if A_KIND[action] == K_DONE:
        next_order_seller(s)
        return
    card = A_A[action]
    for i in range(s.t.order_size[card]):
        colour = s.t.order_stones[card][i]
        s.hands[p][colour] -= 1
        return_stone(s, colour)
    s.scores[p] += s.t.order_points[card]
    s.owner[card] = ORDER_DONE
    if not fulfillable(s, p):
        next_order_seller(s)


cdef void end_phase(GameState* s) noexcept nogil:
    cdef int gains[MAX_PLAYERS]
    cdef int i, left = 0, owner
    memcpy(s.last_cards, s.seq_card, sizeof(s.seq_card))
    if s.phase + 1 < s.t.phases:
        s.phase += 1
        s.stage = DRAW
        s.to_move = CHANCE
        for i in range(NUM_ORDERS):
            left += s.deck[i]
        s.draws_left = imin(DRAWS_PER_PHASE, left)
        if s.draws_left == 0:
            draw_none(s)
        return
    score_cities(s, gains)
    for i in range(NUM_ORDERS):
        owner = s.owner[i]
        if owner >= 0:
            s.scores[owner] -= s.t.order_penalty[i]
            s.penalties[owner] += s.t.order_penalty[i]
    s.stage = FINAL_SALE
    next_final_seller(s)


cdef void draw_none(GameState* s) noexcept nogil:
    memset(s.seq_card, 0, sizeof(s.seq_card))
    begin_auction(s, lowest_last_card(s))


cdef void next_final_seller(GameState* s) noexcept nogil:
    cdef int p, best = -1
    for p in range(s.n):
        if hand_total(s, p) and (best < 0 or s.scores[p] < s.scores[best]
                                 or (s.scores[p] == s.scores[best] and s.last_cards[p] < s.last_cards[best])):
            best = p
    if best < 0:
        s.stage = OVER
        s.to_move = TERMINAL
        return
    s.to_move = best


cdef void final_sale(GameState* s, int p, int colour) noexcept nogil:
    s.hands[p][colour] -= 1
    s.scores[p] += return_stone(s, colour)
    next_final_seller(s)


# ------------------------------------------------------------------------------------------------
# Setup (ReferenceState.__init__) and results (StateMixin.winners and returns, in C)

cdef void init_state(GameState* s, const Tables* t) noexcept nogil:
    cdef int n = t.num_players, p, k, i, cell, kind, dynamite, rotation, vein
    memset(s, 0, sizeof(GameState))
    s.t = t
    s.n = n
    s.phase = 0
    s.stage = DRAW
    s.to_move = CHANCE
    for p in range(n):
        s.scores[p] = t.start_points
        s.pool_stations[p] = t.pool_stations_per_player
        s.supply_stations[p] = t.stations_per_player - t.pool_stations_per_player
    for cell in range(NUM_CELLS):
        s.vein_colour[cell] = -1
        s.station[cell] = -1
    for i in range(NUM_SPACES):
        s.city_station[i] = -1
    memcpy(s.scale, t.initial_scale, sizeof(s.scale))
    for k in range(NUM_KINDS):
        s.supply[2 * k] = t.tunnel_supply[k] - t.pool_tunnels[k]
        s.supply[2 * k + 1] = t.dynamite_supply[k]
        s.pool[2 * k] = t.pool_tunnels[k]
    s.supply[PIECE_VEIN] = t.vein_supply - t.pool_veins
    s.pool[PIECE_VEIN] = t.pool_veins
    for i in range(t.start_tile_count):
        cell = t.start_tiles[i][0]
        kind = t.start_tiles[i][1]
        dynamite = t.start_tiles[i][2]
        rotation = t.start_tiles[i][3]
        vein = t.start_tiles[i][4]
        push(s, cell, tile_code(2 * kind + dynamite, rotation))
        s.supply[2 * kind + dynamite] -= 1
        if vein >= 0:
            s.vein_colour[cell] = vein
            s.vein_stones[cell] = t.start_vein_stones
            s.supply[PIECE_VEIN] -= 1
    for i in range(NUM_ORDERS):
        s.deck[i] = 1
        s.owner[i] = -1
    s.chip_supply = t.two_chip_limit if t.two_chip_limit >= 0 else t.two_chips
    s.draws_left = imin(DRAWS_PER_PHASE, NUM_ORDERS)
    s.bid = -1
    s.bidder = -1
    s.last_laid = -1
    s.pending = -1
    s.prospect_state = NO_ROUTE
    s.route_entry = -1


cdef int winners(const GameState* s, bint* out) noexcept nogil:
    """The winning seats of a finished game marked in `out`; their number (0 while the game runs)."""
    cdef int p, best = -32768, k = 0, first = -1
    for p in range(s.n):
        out[p] = False
    if not is_terminal(s):
        return 0
    for p in range(s.n):
        if s.scores[p] > best:
            best = s.scores[p]
    for p in range(s.n):
        if s.scores[p] == best:
            out[p] = True
            k += 1
    if k > 1 and s.t.tie_lowest_card:
        for p in range(s.n):
            if out[p] and (first < 0 or s.last_cards[p] < s.last_cards[first]):
                first = p
        for p in range(s.n):
            out[p] = p == first
        k = 1
    return k


cdef void returns(const GameState* s, double* out) noexcept nogil:
    """StateMixin.returns in C: winners share (n - k) / (k (n - 1)), the others get -1 / (n - 1)."""
    cdef bint winner[MAX_PLAYERS]
    cdef int n = s.n, p, k = winners(s, winner)
    for p in range(n):
        if k == 0:
            out[p] = 0.0
        else:
            out[p] = (n - k) / <double>(k * (n - 1)) if winner[p] else -1.0 / (n - 1)


# ------------------------------------------------------------------------------------------------
# Random playouts in C (the shared xorshift64* generator of compiled_common.pxd, seeded by seed_generator)

cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil:
    """Play uniformly random legal actions (chance outcomes are uniform too) to the end; the steps."""
    cdef int buffer[NUM_ACTIONS]
    cdef int steps = 0, n
    while not is_terminal(s):
        n = legal_actions(s, buffer)
        apply_action(s, buffer[random_below(rng, n)])
        steps += 1
    return steps


# ------------------------------------------------------------------------------------------------
# The heuristic evaluation: search/cavum_agents.py's scorings_left, expected_points and cavum_evaluate in C,
# in their order and with their names, on the numbers the Python reads through `state.view()` (the hands,
# scales, order cards and city stations of the position; the phases and order cards of `rules()`, in `Tables`)

cdef double CAVUM_SCALE = PY_CAVUM_SCALE     # points of lead that make tanh about 0.76 (estimate.py)
cdef double ORDER_SHARE = PY_ORDER_SHARE     # an order that can be fulfilled is not yet fulfilled (estimate.py)


cdef int scorings_left(const GameState* s) noexcept nogil:
    """City scorings still to come: one per phase not yet scored, plus the final one (none in the final sale)."""
    if s.stage >= FINAL_SALE:
        return 0
    if s.stage <= BUILD:
        return s.t.phases - s.phase + 1
    return s.t.phases - s.phase


cdef void expected_points(const GameState* s, double* out) noexcept nogil:
    """Each player's estimated final score into `out`: the score, the stones held at their prices (at least
    1), the orders held (ORDER_SHARE of the points less the stones' prices if the hand fulfils the order,
    else minus its penalty) and what the live city stations earn in the scorings left. The sums are done in
    the Python's order, so the doubles are the same to the last bit."""
    cdef int n = s.n, left = scorings_left(s), city, i, space, owner, open_spaces, num_live, p, c, cost, held
    cdef int live_owners[MAX_CITY_SPACES]
    cdef int prices[NUM_COLOURS]
    cdef double city_value[MAX_PLAYERS]
    cdef double orders[MAX_PLAYERS]
    cdef bint any_station = False, fulfils
    for p in range(n):
        city_value[p] = 0.0
        orders[p] = 0.0
    for space in range(NUM_SPACES):
        if s.city_station[space] >= 0:
            any_station = True
    if left and any_station:
        for city in range(NUM_CITIES):
            num_live = 0
            for i in range(s.t.city_size[city]):
                space = s.t.city_spaces[city][i]
                if s.city_station[space] >= 0 and live(s, space):
                    live_owners[num_live] = s.city_station[space]
                    num_live += 1
            open_spaces = s.t.city_size[city] - num_live      # empty spaces and dead stations
            for i in range(num_live):
                city_value[live_owners[i]] += open_spaces * left
    for c in range(NUM_COLOURS):
        prices[c] = imax(price(s, c), 1)
    for i in range(NUM_ORDERS):
        owner = s.owner[i]
        if owner >= 0:
            fulfils = True                                       # the hand holds every stone the card needs
            for c in range(NUM_COLOURS):
                if s.hands[owner][c] < s.t.order_need[i][c]:
                    fulfils = False
            if fulfils:
                cost = 0
                for c in range(s.t.order_size[i]):
                    cost += prices[s.t.order_stones[i][c]]
                orders[owner] += ORDER_SHARE * s.t.order_points[i] - cost
            else:
                orders[owner] -= s.t.order_penalty[i]
    for p in range(n):
        held = 0
        for c in range(NUM_COLOURS):
            held += s.hands[p][c] * prices[c]
        out[p] = <double>(s.scores[p] + held) + orders[p] + city_value[p]


cdef void evaluate(const GameState* s, double* out) noexcept nogil:
    """cavum_evaluate: estimated returns (exact returns once the game is over), each player's
    tanh((own expected points - the best other's) / CAVUM_SCALE)."""
    cdef double values[MAX_PLAYERS]
    cdef double best_other
    cdef int n = s.n, p, q
    if is_terminal(s):
        returns(s, out)
        return
    expected_points(s, values)
    for p in range(n):
        best_other = values[1] if p == 0 else values[0]
        for q in range(n):
            if q != p and values[q] > best_other:
                best_other = values[q]
        out[p] = tanh((values[p] - best_other) / CAVUM_SCALE)


# ------------------------------------------------------------------------------------------------
# Hidden stones: StateMixin._hands_visible, PositionView.shown_stone_holders and
# StateMixin.resample_from_infostate (state.py, view.py) in C

cdef int RESAMPLE_TRIES = PY_RESAMPLE_TRIES     # state.RESAMPLE_TRIES: deals drawn before keeping the true one


cdef bint hands_visible(const GameState* s) noexcept nogil:
    """StateMixin._hands_visible: every hand is seen when stones are public, and in the final sale and after."""
    return not s.t.hidden_stones or s.stage == FINAL_SALE or s.stage == OVER


cdef int shown_stone_holders(const GameState* s, int* players, int* colours) noexcept nogil:
    """(player, colour) pairs everyone knows, into `players` and `colours` (room for two): in a colour sale the
    bidder and the player to bid hold one of the colour on sale (sorted, no -1); their number."""
    cdef int colour, first, second, n = 0
    if s.stage != COLOUR_BID and s.stage != COLOUR_SELL:
        return 0
    colour = s.t.colour_order[s.colour_pos]
    first = imin(s.bidder, s.to_move)
    second = imax(s.bidder, s.to_move)
    if first >= 0:
        players[n] = first
        colours[n] = colour
        n += 1
    if second != first and second >= 0:
        players[n] = second
        colours[n] = colour
        n += 1
    return n


cdef void resample(GameState* s, int player, uint64_t* rng) noexcept nogil:
    """resample_from_infostate on the position itself: the other players' stones pooled and dealt again at
    random, each player keeping their count and `player` their hand; deals that break the shown-stone
    condition (shown_stone_holders, `player`'s own pairs aside) are rejected and drawn again, up to
    RESAMPLE_TRIES times, after which the true hands stay (as in the Python). Dealing stone after stone
    without replacement from the pooled colour counts is dealing a uniformly shuffled pool in turn, as the
    Python does, so the accepted deals have the Python's distribution: uniform over consistent deals of the
    physical stones. Nothing changes when the hands are visible (hands_visible) or no other stone is held.
    `player` is a seat (one that is not a seat sees no hand, and every hand is redealt)."""
    cdef int pool[NUM_COLOURS]
    cdef int left[NUM_COLOURS]
    cdef int counts[MAX_PLAYERS]
    cdef int8_t dealt[MAX_PLAYERS][NUM_COLOURS]
    cdef int must_players[2]
    cdef int must_colours[2]
    cdef int n = s.n, size = 0, remaining, num_must, tries, q, c, k, i, u
    cdef bint consistent
    if hands_visible(s):
        return
    for c in range(NUM_COLOURS):
        pool[c] = 0
    for q in range(n):
        counts[q] = 0
        if q == player:
            continue
        for c in range(NUM_COLOURS):
            counts[q] += s.hands[q][c]
            pool[c] += s.hands[q][c]
        size += counts[q]
    if size == 0:
        return
    num_must = shown_stone_holders(s, must_players, must_colours)
    for tries in range(RESAMPLE_TRIES):
        memcpy(left, pool, sizeof(pool))
        memset(dealt, 0, sizeof(dealt))
        remaining = size
        for q in range(n):
            if q == player:
                continue
            for k in range(counts[q]):
                u = random_below(rng, remaining)         # the next stone of the shuffled pool
                c = 0
                while u >= left[c]:
                    u -= left[c]
                    c += 1
                left[c] -= 1
                remaining -= 1
                dealt[q][c] += 1
        consistent = True
        for i in range(num_must):
            if must_players[i] != player and dealt[must_players[i]][must_colours[i]] == 0:
                consistent = False
        if consistent:
            for q in range(n):
                if q != player:
                    memcpy(s.hands[q], dealt[q], sizeof(dealt[q]))
            return
    # the true deal: only reached if consistent deals are vanishingly rare


# ------------------------------------------------------------------------------------------------
# The engine interface (core/engine.pxd): the functions above on an opaque position, for the compiled
# searches. A position is a GameState; its `t` points at the Tables of its game (see CoreState.position).

cdef int engine_current_player(const void* s) noexcept nogil:
    return current_player(<const GameState*>s)


cdef int engine_legal_actions(const void* s, int* out) noexcept nogil:
    return legal_actions(<const GameState*>s, out)


cdef int engine_chance_outcomes(const void* s, int* out, double* probabilities) noexcept nogil:
    """The order cards that can be turned up next, each equally likely (1/n); their number. The one place
    the probabilities are computed: CoreState.chance_outcomes calls this."""
    cdef int n = chance_outcomes(<const GameState*>s, out), i
    for i in range(n):
        probabilities[i] = 1.0 / n
    return n


cdef void engine_apply_action(void* s, int action) noexcept nogil:
    apply_action(<GameState*>s, action)


cdef void engine_returns(const void* s, double* out) noexcept nogil:
    returns(<const GameState*>s, out)


cdef void engine_evaluate(const void* s, double* out) noexcept nogil:
    evaluate(<const GameState*>s, out)


cdef void engine_resample(void* s, int player, uint64_t* rng) noexcept nogil:
    resample(<GameState*>s, player, rng)


# ------------------------------------------------------------------------------------------------
# Positions from to_dict() snapshots (from_dict)

cdef int put8(int8_t* out, object values, int size, str name) except -1:
    values = [operator.index(v) for v in values]
    if len(values) != size:
        raise ValueError(f"{name} holds {size} values in this game, not {len(values)}")
    for i, v in enumerate(values):
        out[i] = v
    return 0


cdef int put16(int16_t* out, object values, int size, str name) except -1:
    values = [operator.index(v) for v in values]
    if len(values) != size:
        raise ValueError(f"{name} holds {size} values in this game, not {len(values)}")
    for i, v in enumerate(values):
        out[i] = v
    return 0


cdef int put_list(int8_t* out, int8_t* length, object values, int limit, str name) except -1:
    values = [operator.index(v) for v in values]
    if len(values) > limit:
        raise ValueError(f"{name} holds at most {limit} values")
    for i, v in enumerate(values):
        out[i] = v
    length[0] = len(values)
    return 0


cdef int set_field(GameState* s, str name, object value) except -1:
    """Set one to_dict() field of a position (arrays keep their length; `n` is the game's)."""
    cdef int n = s.n, v
    if name == "scores_": put16(s.scores, value, n, name)
    elif name == "penalties": put16(s.penalties, value, n, name)
    elif name == "seq_card": put8(s.seq_card, value, n, name)
    elif name == "last_cards": put8(s.last_cards, value, n, name)
    elif name == "height": put8(s.height, value, NUM_CELLS, name)
    elif name == "stack": put8(&s.stack[0][0], value, NUM_CELLS * MAX_STACK, name)
    elif name == "vein_colour": put8(s.vein_colour, value, NUM_CELLS, name)
    elif name == "vein_stones": put8(s.vein_stones, value, NUM_CELLS, name)
    elif name == "station": put8(s.station, value, NUM_CELLS, name)
    elif name == "city_station": put8(s.city_station, value, NUM_SPACES, name)
    elif name == "scale": put8(&s.scale[0][0], value, NUM_COLOURS * SCALE_SPACES, name)
    elif name == "hands": put8(&s.hands[0][0], value, n * NUM_COLOURS, name)
    elif name == "pool": put8(s.pool, value, NUM_PIECES, name)
    elif name == "pool_stations": put8(s.pool_stations, value, n, name)
    elif name == "supply": put8(s.supply, value, NUM_PIECES, name)
    elif name == "supply_stations": put8(s.supply_stations, value, n, name)
    elif name == "board": put8(&s.board[0][0], value, n * NUM_PIECES, name)
    elif name == "options": put8(s.options, value, n, name)
    elif name == "prospects": put8(s.prospects, value, n, name)
    elif name == "used": put8(s.used, value, n, name)
    elif name == "deck": put8(s.deck, value, NUM_ORDERS, name)
    elif name == "chips": put8(s.chips, value, NUM_ORDERS, name)
    elif name == "owner": put8(s.owner, value, NUM_ORDERS, name)
    elif name == "passed": put8(s.passed, value, n, name)
    elif name == "route": put_list(s.route, &s.route_len, value, NUM_NODES, name)
    elif name == "to_take": put_list(s.to_take, &s.to_take_len, value, NUM_CELLS, name)
    elif name == "display":
        s.display = 0
        for v in [operator.index(x) for x in value]:
            if not 0 <= v < NUM_ORDERS:
                raise ValueError(f"display holds order card numbers 0 to {NUM_ORDERS - 1}")
            s.display |= (<uint32_t>1) << v
    else:
        v = operator.index(value)
        if name == "n":
            if v != n:
                raise ValueError("the number of players is the game's")
        elif name == "phase": s.phase = v
        elif name == "stage": s.stage = v
        elif name == "to_move": s.to_move = v
        elif name == "chip_supply": s.chip_supply = v
        elif name == "draws_left": s.draws_left = v
        elif name == "bid": s.bid = v
        elif name == "bidder": s.bidder = v
        elif name == "passes_in_row": s.passes_in_row = v
        elif name == "opener": s.opener = v
        elif name == "colour_pos": s.colour_pos = v
        elif name == "cursor": s.cursor = v
        elif name == "turn_actions": s.turn_actions = v
        elif name == "last_laid": s.last_laid = v
        elif name == "last_laid_fresh": s.last_laid_fresh = v
        elif name == "pending": s.pending = v
        elif name == "prospect_state": s.prospect_state = v
        elif name == "route_entry": s.route_entry = v
        else:
            raise ValueError(f"{name!r} is not a field of a Cavum position")
    return 0


cdef void check_config(CoreState state) except *:
    # The reference reads the game's Config live; a test may swap it mid-game (prospecting variants), so a
    # compiled state follows a replaced Config too (one identity test per call).
    if state._game.config is not state._tables.config:
        state._tables = tables_for(state._game.config)
        state.s.t = &state._tables.t


# ------------------------------------------------------------------------------------------------
# The Python-facing state

@cython.auto_pickle(False)
cdef class CoreState(CompiledStateBase):
    """A Cavum position held in one C struct (`GameState`); the API of `cavekit.core.api.State`.

    Its fields (`s`, `_tables`; `_hist` and `_game` from CompiledStateBase) are declared in .pxd files so compiled
    searchers can reach
    `s`; `s.t` points into `_tables`, which this object keeps alive.
    """

    def __init__(self, game):
        self._game = game
        self._hist = []
        self._tables = tables_for(game.config)
        memcpy(&self.s, &self._tables.start, sizeof(GameState))
        self.s.t = &self._tables.t

    # -- node bookkeeping -----------------------------------------------------------------------------

    def current_player(self):
        """The player to move, CHANCE, or TERMINAL."""
        return current_player(&self.s)

    def is_terminal(self):
        """Whether the game is over."""
        return self.s.stage == OVER

    def is_chance_node(self):
        """Whether an order card is to be turned up."""
        return self.s.stage == DRAW

    def chance_outcomes(self):
        """Order cards that can be turned up next, each equally likely (the engine interface's function)."""
        cdef int buffer[NUM_ORDERS]
        cdef double probabilities[NUM_ORDERS]
        cdef int n = engine_chance_outcomes(&self.s, buffer, probabilities), i
        return [(buffer[i], probabilities[i]) for i in range(n)]

    def legal_actions(self):
        """Sorted ids of the legal actions (chance outcomes at a chance node)."""
        cdef int buffer[NUM_ACTIONS]
        cdef int n, i
        check_config(self)
        n = legal_actions(&self.s, buffer)
        return [buffer[i] for i in range(n)]

    def to_reference(self):
        """The same position in the reference engine (it explains illegal moves; benchmarks time it)."""
        return ReferenceState.from_dict(self._game, self.to_dict(), self._hist)

    def illegal_reason(self, action):
        """Why `action` is illegal now, or None if it is legal (the reason is the reference engine's)."""
        check_config(self)
        index = as_action(action)
        if index is not None and -1 < index < NUM_ACTIONS and is_legal(&self.s, index):
            return None
        return self.to_reference().illegal_reason(action)

    def apply_action(self, action):
        """Apply a legal action or chance outcome; raises IllegalActionError (state unchanged) otherwise."""
        index = action if type(action) is int else as_action(action)   # plain ints skip the general check
        check_config(self)
        if index is None or not -1 < index < NUM_ACTIONS or not is_legal(&self.s, index):
            self.to_reference().apply_action(action)   # raises the reference's IllegalActionError
            raise AssertionError(f"engines disagree on action {action!r}: the reference finds it legal")
        apply_action(&self.s, index)
        self._hist.append(index)

    # -- results and records --------------------------------------------------------------------------

    def scores(self):
        """Scoring-track positions."""
        return [self.s.scores[i] for i in range(self.s.n)]

    def c_returns(self):
        """The returns as computed in C (the Python `returns()` is shared with the reference engine)."""
        cdef double out[MAX_PLAYERS]
        returns(&self.s, out)
        return [out[i] for i in range(self.s.n)]

    cdef int copy_into(self, CompiledStateBase other) except -1:
        """The position and its tables for `clone` (history, clone, deepcopy and pickle are CompiledStateBase's)."""
        memcpy(&(<CoreState>other).s, &self.s, sizeof(GameState))
        (<CoreState>other)._tables = self._tables
        return 0

    # -- the engine interface (core/engine.pxd) -------------------------------------------------------

    cdef Engine engine(self) except *:
        """The C interface of the Cavum engine, for this game. Like the Python methods it first points the
        position at the tables of the game's current Config (`check_config`: the Config may have been
        replaced since the last call), so the C functions play by the rules the API plays by; searches take
        the engine before the position. `resample` is NULL when stones are public (nothing is hidden)."""
        cdef Engine e
        check_config(self)
        e.name = b"cavum"
        e.state_size = sizeof(GameState)
        e.num_players = self.s.n
        e.max_actions = NUM_ACTIONS
        e.current_player = engine_current_player
        e.legal_actions = engine_legal_actions
        e.chance_outcomes = engine_chance_outcomes
        e.apply_action = engine_apply_action
        e.returns = engine_returns
        e.evaluate = engine_evaluate
        e.resample = NULL
        if self.s.t.hidden_stones:
            e.resample = engine_resample
        return e

    cdef void* position(self) noexcept:
        """The C position, `&self.s`. It points at its rules (`s.t`) inside `self._tables`, and so does every
        memcpy'd copy of it: a search on copies must hold this state (which keeps its GameTables alive)
        while it plays on them. Take `engine()` first (see there)."""
        return &self.s

    def random_playout(self, seed):
        """Play the rest of the game with uniformly random moves in C on a copy; its final returns."""
        cdef GameState copy
        cdef uint64_t rng = seed_generator(seed)
        cdef double out[MAX_PLAYERS]
        check_config(self)
        memcpy(&copy, &self.s, sizeof(GameState))
        with nogil:
            random_playout(&copy, &rng)
        returns(&copy, out)
        return [out[i] for i in range(self.s.n)]

    def to_dict(self):
        """The whole position as plain JSON values: the same dict, in the same key order, as the reference's."""
        cdef GameState* s = &self.s
        cdef int i, j, n = s.n
        return {
            "n": n, "phase": s.phase, "stage": s.stage, "to_move": s.to_move,
            "scores_": [s.scores[i] for i in range(n)], "seq_card": [s.seq_card[i] for i in range(n)],
            "last_cards": [s.last_cards[i] for i in range(n)], "height": [s.height[i] for i in range(NUM_CELLS)],
            "stack": [s.stack[i][j] for i in range(NUM_CELLS) for j in range(MAX_STACK)],
            "vein_colour": [s.vein_colour[i] for i in range(NUM_CELLS)],
            "vein_stones": [s.vein_stones[i] for i in range(NUM_CELLS)],
            "station": [s.station[i] for i in range(NUM_CELLS)],
            "city_station": [s.city_station[i] for i in range(NUM_SPACES)],
            "scale": [s.scale[i][j] for i in range(NUM_COLOURS) for j in range(SCALE_SPACES)],
            "hands": [s.hands[i][j] for i in range(n) for j in range(NUM_COLOURS)],
            "pool": [s.pool[i] for i in range(NUM_PIECES)], "pool_stations": [s.pool_stations[i] for i in range(n)],
            "supply": [s.supply[i] for i in range(NUM_PIECES)],
            "supply_stations": [s.supply_stations[i] for i in range(n)],
            "board": [s.board[i][j] for i in range(n) for j in range(NUM_PIECES)],
            "options": [s.options[i] for i in range(n)], "prospects": [s.prospects[i] for i in range(n)],
            "used": [s.used[i] for i in range(n)], "deck": [s.deck[i] for i in range(NUM_ORDERS)],
            "display": [i for i in range(NUM_ORDERS) if (s.display >> i) & 1],
            "chips": [s.chips[i] for i in range(NUM_ORDERS)], "owner": [s.owner[i] for i in range(NUM_ORDERS)],
            "chip_supply": s.chip_supply, "draws_left": s.draws_left, "bid": s.bid, "bidder": s.bidder,
            "passed": [s.passed[i] for i in range(n)], "passes_in_row": s.passes_in_row, "opener": s.opener,
            "colour_pos": s.colour_pos, "cursor": s.cursor, "turn_actions": s.turn_actions,
            "last_laid": s.last_laid, "last_laid_fresh": s.last_laid_fresh, "pending": s.pending,
            "prospect_state": s.prospect_state, "route": [s.route[i] for i in range(s.route_len)],
            "route_entry": s.route_entry, "to_take": [s.to_take[i] for i in range(s.to_take_len)],
            "penalties": [s.penalties[i] for i in range(n)],
        }

    @classmethod
    def from_dict(cls, game, d, history):
        """The position described by `to_dict()` output (for tests and benchmarks that start anywhere)."""
        cdef CoreState state = cls(game)
        for key, value in d.items():
            set_field(&state.s, key, value)
        state._hist = list(history)
        return state


class CompiledState(CoreState, StateMixin):
    """A Cavum position computed by the compiled core, with the shared notation, view, records and rendering."""


# ------------------------------------------------------------------------------------------------
# Benchmarks (cavekit bench cavum)

def state_size_bytes():
    """Bytes of one position (the C struct copied by `clone`)."""
    return sizeof(GameState)


def random_games(game, int count, seed):
    """Play `count` random games from the start entirely in C; the total number of steps (for benchmarks)."""
    cdef GameTables tables = tables_for(game.config)
    cdef GameState s
    cdef uint64_t rng = seed_generator(seed)
    cdef long total = 0
    cdef int i
    with nogil:
        for i in range(count):
            memcpy(&s, &tables.start, sizeof(GameState))
            s.t = &tables.t
            total += random_playout(&s, &rng)
    return total


def core_timings(list states, int repeats):
    """Seconds spent generating legal actions, cloning (memcpy) and cloning + applying the first legal
    action, each done `repeats` times over every given CoreState, all in C (for `cavekit bench`)."""
    from time import perf_counter
    cdef int n = len(states), i, r, k
    cdef GameState* positions = <GameState*>PyMem_Malloc(n * sizeof(GameState))
    cdef int* first = <int*>PyMem_Malloc(n * sizeof(int))
    cdef int* buffer = <int*>PyMem_Malloc(NUM_ACTIONS * sizeof(int))
    cdef GameState scratch
    cdef long checksum = 0
    if positions == NULL or first == NULL or buffer == NULL:
        PyMem_Free(positions)
        PyMem_Free(first)
        PyMem_Free(buffer)
        raise MemoryError()
    try:
        for i in range(n):
            memcpy(&positions[i], &(<CoreState>states[i]).s, sizeof(GameState))
            k = legal_actions(&positions[i], buffer)
            first[i] = buffer[0] if k else -1
        started = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    checksum += legal_actions(&positions[i], buffer)
        legal_seconds = perf_counter() - started
        started = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    memcpy(&scratch, &positions[i], sizeof(GameState))
                    checksum += scratch.stage
        clone_seconds = perf_counter() - started
        started = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    memcpy(&scratch, &positions[i], sizeof(GameState))
                    if first[i] >= 0:
                        apply_action(&scratch, first[i])
                    checksum += scratch.stage
        apply_seconds = perf_counter() - started
    finally:
        PyMem_Free(positions)
        PyMem_Free(first)
        PyMem_Free(buffer)
    return {"legal_actions": legal_seconds, "clone": clone_seconds, "clone_and_apply": apply_seconds,
            "calls": n * repeats, "checksum": checksum}
