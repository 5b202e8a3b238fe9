"""The compiled Cave vs Cave engine: `reference.py` in C structs, for search and large batches.

Read it beside `reference.py`: each C function carries the name of the reference method it mirrors
(`take_ok` for `_take_problem`, `carry_out` for `_carry_out`, ...). Where the reference returns a reason,
the C function returns only yes or no; error messages are taken from the reference engine, so both
engines explain an illegal move in the same words. Rules data comes from the same table (`rules.py`,
`actions.py`), copied into C arrays when the module loads.
"""
cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t
from cavekit.core.compiled_common cimport random_below, seed_generator
from cavekit.core.engine cimport Engine

from ..api import as_action
from .actions import (CAVERN_SIDE as PY_CAVERN_SIDE, CONVERT as PY_CONVERT, END_TURN as PY_END_TURN,
                      PROSPECT as PY_PROSPECT, ROOM_USE as PY_ROOM_USE, TAKE as PY_TAKE,
                      TILE_OPTION as PY_TILE_OPTION, action_table, is_activation, option_params)
from .state import StateMixin
from .reference import ReferenceState
from .rules import DARK_ROOMS, LIGHT_ROOMS, NUM_LIGHT_ROOMS_REMOVED_SOLO as PY_NUM_LIGHT_ROOMS_REMOVED_SOLO
from .rules import FACE_DOWN_SPACES, SOLO_PILE_SIZE, rules

# ------------------------------------------------------------------------------------------------
# Constants (the same values as in reference.py, board.py and rules.py)

cdef enum:
    CHANCE = -1
    TERMINAL = -4
    FACE_DOWN = -1
    EMPTY = -2
    UNAVAILABLE = -3
    NATURAL = -1
    OPENING = -2
    CAVERN = 11
    NUM_BOARD_SPACES = 11
    NUM_BOARD_WALL_SLOTS = 14
    NUM_ROOMS_ALL = 25            # 24 room tiles and the Cave Entrance
    CAVE_ENTRANCE = 24
    WOOD = 0
    STONE = 1
    EMMER = 2
    FLAX = 3
    FOOD = 4
    GOLD = 5
    NO_CHANCE = 0
    REVEAL_ROOM = 1
    START_PLAYER = 2
    REMOVE_LIGHT_ROOM = 3
    REVEAL_TILE = 4
    NUM_SOURCES = 37              # 12 tiles, then 25 rooms
    MAX_OPTIONS = 64
    MAX_OPS = 128
    MAX_ROOM_USES = 24
    NUM_LIGHT_ROOMS_REMOVED_SOLO = 3

# Op kinds
cdef enum:
    OP_GAIN, OP_PAY, OP_GAIN_ONE_OF, OP_PAY_DISTINCT, OP_REPLENISH, OP_REPLENISH_ONE_OF, OP_EXCAVATE,
    OP_FURNISH, OP_ACTIVATE, OP_BUILD_WALL, OP_RAZE_WALL

# Action kinds (same numbers as actions.py)
cdef enum:
    K_TAKE, K_END_TURN, K_CONVERT, K_CAVERN_SIDE, K_PROSPECT, K_TILE_OPTION, K_ROOM_USE

# Parameter kinds of an option: how its action ids follow from its parameter
cdef enum:
    P_NONE, P_GOOD, P_DISTINCT, P_EXCAVATE, P_FURNISH, P_WALL

ctypedef struct COp:
    int8_t kind
    int8_t goods[6]
    int8_t targets[6]
    int8_t extra[6]
    int8_t count
    int8_t amount
    int8_t through_walls
    int8_t below_good
    int8_t below_value
    int8_t extra_per_turn

ctypedef struct COption:
    int first_op
    int n_ops
    int activation            # 1: an activate_rooms option (used through room uses)
    int activate_count
    int param_kind
    int base_action           # tile options: id of the option's first action (-1 for rooms)
    int n_types
    int8_t types[6]

# What move generation computes once per position and reuses for every candidate action (the reference
# recomputes it each time; the answers are the same). Zero it before use: nothing is computed yet.
ctypedef struct Context:
    int8_t reach_ready[2]          # index: 0 walls block, 1 Undermining's budget
    uint32_t reach_first[2]        # face-down spaces accessible now
    uint32_t reach_after[2][11]    # ... and after digging space a (a accessible now)
    int8_t rooms_ready
    int8_t pattern[12]             # wall pattern of each space
    int8_t orange
    int8_t blue

# ------------------------------------------------------------------------------------------------
# Rules tables, filled from rules.py and actions.py at import

cdef COp OPS[MAX_OPS]
cdef COption OPTIONS[MAX_OPTIONS]
cdef int N_SLOTS[NUM_SOURCES]
cdef int N_OPTS[NUM_SOURCES][3]
cdef int OPT_INDEX[NUM_SOURCES][3][3]

cdef int8_t CAPS[6]
cdef int8_t START_GOODS[6]
cdef int8_t SPACE_SIDES[12][4]
cdef int8_t SPACE_FOOD[12]
cdef int8_t NEIGH_SPACE[11][4]
cdef int8_t NEIGH_SLOT[11][4]
cdef int8_t N_NEIGH[11]
cdef int8_t SLOT_A[14]
cdef int8_t SLOT_B[14]
cdef int8_t ROOM_ORANGE[NUM_ROOMS_ALL]
cdef int8_t ROOM_VP[NUM_ROOMS_ALL]
cdef int8_t ROOM_COST[NUM_ROOMS_ALL][6]
cdef uint32_t ROOM_WALL_MASKS[NUM_ROOMS_ALL]
cdef uint32_t ROOMS_FITTING[16]               # bit r: room r (not the Cave Entrance) fits wall pattern p
cdef int8_t TILE_STAGE[12]
cdef int8_t TILE_IN_SOLO[12]
cdef int8_t TILE_NEEDS_GOLD[12]
cdef int8_t TILE_ACTIVATE_ONE[12]
cdef int NUM_TILES
cdef int8_t TURNS[2][8]
cdef int8_t STAGES[2][8]
cdef int8_t NUM_ROUNDS[2]
cdef uint32_t LIGHT_MASK
cdef uint32_t DARK_MASK
cdef int SOLO_PILE
cdef int8_t FACE_DOWN_INDEX[NUM_SPACES]     # k for the k-th face-down space of a board (deal items), else -1
cdef int ENTRANCE_SPACE
cdef int PRE_EXCAVATED_SPACE
cdef int WALL_SUPPLY
cdef int CONVERSION_SOURCES[6]
cdef int N_CONVERSION_SOURCES

cdef int PROSPECTING_SITE, RETTING_ROOM, EQUIPMENT_ROOM, WOOD_STOREROOM, DUNGEON, UNDERGROWTH

cdef int NUM_ACTIONS
cdef int8_t A_KIND[NUM_ACTIONS_MAX]
cdef int8_t A_TILE[NUM_ACTIONS_MAX]
cdef int8_t A_ROOM[NUM_ACTIONS_MAX]
cdef int8_t A_GOOD[NUM_ACTIONS_MAX]
cdef int8_t A_WALLS[NUM_ACTIONS_MAX]
cdef int8_t A_NCH[NUM_ACTIONS_MAX]
cdef int8_t A_SLOT[NUM_ACTIONS_MAX][2]
cdef int8_t A_OPT[NUM_ACTIONS_MAX][2]
cdef int8_t A_P0[NUM_ACTIONS_MAX][2]
cdef int8_t A_P1[NUM_ACTIONS_MAX][2]
cdef int TAKE_ID[12]
cdef int END_TURN_ID
cdef int CONVERT_ID[6]
cdef int CAVERN_SIDE_ID[5]
cdef int PROSPECT_ID
cdef int ROOM_USES[NUM_ROOMS_ALL][MAX_ROOM_USES]
cdef int N_ROOM_USES[NUM_ROOMS_ALL]
cdef int PAIR_INDEX[11][11]

_OP_KINDS = {"gain": OP_GAIN, "pay": OP_PAY, "gain_one_of": OP_GAIN_ONE_OF, "pay_distinct": OP_PAY_DISTINCT,
             "replenish": OP_REPLENISH, "replenish_one_of": OP_REPLENISH_ONE_OF, "excavate": OP_EXCAVATE,
             "furnish": OP_FURNISH, "activate_rooms": OP_ACTIVATE, "build_wall": OP_BUILD_WALL,
             "raze_wall": OP_RAZE_WALL}


def _param_kind(option):
    for op in option:
        if op.kind in ("gain_one_of", "replenish_one_of"):
            return P_GOOD
        if op.kind == "pay_distinct":
            return P_DISTINCT
        if op.kind == "excavate":
            return P_EXCAVATE
        if op.kind == "furnish":
            return P_FURNISH
        if op.kind in ("build_wall", "raze_wall"):
            return P_WALL
    return P_NONE


def _encode_param(int kind, param):
    """(p0, p1) for a parameter: a good, a goods bitmask, spaces (b = -1 if one), (room, space), a wall."""
    if kind == P_NONE:
        return -1, -1
    if kind == P_DISTINCT:
        mask = 0
        for g in param:
            mask |= 1 << g
        return mask, -1
    if kind == P_EXCAVATE:
        return param[0], (param[1] if len(param) > 1 else -1)
    if kind == P_FURNISH:
        return param[0], param[1]
    return param, -1


def _load_tables():
    global NUM_TILES, LIGHT_MASK, DARK_MASK, SOLO_PILE, ENTRANCE_SPACE, PRE_EXCAVATED_SPACE, WALL_SUPPLY
    global N_CONVERSION_SOURCES, PROSPECTING_SITE, RETTING_ROOM, EQUIPMENT_ROOM, WOOD_STOREROOM, DUNGEON
    global UNDERGROWTH, NUM_ACTIONS, END_TURN_ID, PROSPECT_ID
    r = rules()
    table = action_table()
    cdef int n_ops = 0, n_options = 0, src, s, o, i, g, d
    cdef COption* opt
    cdef COp* c_op
    sources = list(r.tiles) + list(r.rooms)
    assert len(sources) == NUM_SOURCES and len(table) <= NUM_ACTIONS_MAX
    option_base = {}
    for spec in table.specs:
        if spec.kind == PY_TILE_OPTION:
            c = spec.choices[0]
            option_base.setdefault((spec.tile, c.slot, c.option), spec.id)
    for src, source in enumerate(sources):
        N_SLOTS[src] = len(source.slots)
        for s, slot in enumerate(source.slots):
            N_OPTS[src][s] = len(slot)
            for o, option in enumerate(slot):
                OPT_INDEX[src][s][o] = n_options
                opt = &OPTIONS[n_options]
                opt.first_op = n_ops
                opt.n_ops = len(option)
                opt.activation = is_activation(option)
                opt.activate_count = option[0].count if opt.activation else 0
                opt.param_kind = _param_kind(option)
                opt.base_action = option_base.get((src, s, o), -1) if src < 12 else -1
                opt.n_types = 0
                for op in option:
                    if op.kind in ("gain_one_of", "replenish_one_of", "pay_distinct"):
                        opt.n_types = len(op.types)
                        for i, g in enumerate(op.types):
                            opt.types[i] = g
                for op in option:
                    c_op = &OPS[n_ops]
                    memset(c_op, 0, sizeof(COp))
                    c_op.kind = _OP_KINDS[op.kind]
                    for g in range(6):
                        c_op.goods[g] = op.goods[g]
                        c_op.targets[g] = op.targets[g]
                        c_op.extra[g] = op.extra[g]
                    c_op.count = op.count
                    c_op.amount = op.amount
                    c_op.through_walls = op.through_walls
                    c_op.below_good = op.below[0] if op.below is not None else -1
                    c_op.below_value = op.below[1] if op.below is not None else 0
                    c_op.extra_per_turn = op.extra_food_per_turn
                    n_ops += 1
                n_options += 1
    assert n_ops <= MAX_OPS and n_options <= MAX_OPTIONS
    for g in range(6):
        CAPS[g] = r.caps[g]
        START_GOODS[g] = r.start_goods[g]
    for sp in r.spaces:
        for d in range(4):
            SPACE_SIDES[sp.index][d] = sp.sides[d]
        SPACE_FOOD[sp.index] = sp.food_bonus
    for i in range(NUM_BOARD_SPACES):
        N_NEIGH[i] = 0
    for i, (a, b) in enumerate(r.wall_slots):
        SLOT_A[i] = a
        SLOT_B[i] = b
        NEIGH_SPACE[a][N_NEIGH[a]] = b
        NEIGH_SLOT[a][N_NEIGH[a]] = i
        N_NEIGH[a] += 1
        NEIGH_SPACE[b][N_NEIGH[b]] = a
        NEIGH_SLOT[b][N_NEIGH[b]] = i
        N_NEIGH[b] += 1
    for room in r.rooms:
        ROOM_ORANGE[room.index] = room.orange
        ROOM_VP[room.index] = room.vp
        ROOM_WALL_MASKS[room.index] = room.wall_masks
        for g in range(6):
            ROOM_COST[room.index][g] = room.cost[g]
    for pattern in range(16):
        ROOMS_FITTING[pattern] = sum(1 << room.index for room in r.rooms[:CAVE_ENTRANCE]
                                     if room.wall_masks >> pattern & 1)
    NUM_TILES = len(r.tiles)
    for t in r.tiles:
        TILE_STAGE[t.index] = t.stage
        TILE_IN_SOLO[t.index] = t.in_solo
        TILE_NEEDS_GOLD[t.index] = t.needs_more_gold
        TILE_ACTIVATE_ONE[t.index] = any(op.kind == "activate_rooms" and op.count == 1
                                         for slot in t.slots for option in slot for op in option)
    for players in (1, 2):
        NUM_ROUNDS[players - 1] = len(r.turns[players])
        for i, n in enumerate(r.turns[players]):
            TURNS[players - 1][i] = n
            STAGES[players - 1][i] = r.stages[players][i]
    LIGHT_MASK = sum(1 << i for i in LIGHT_ROOMS)
    DARK_MASK = sum(1 << i for i in DARK_ROOMS)
    SOLO_PILE = SOLO_PILE_SIZE
    for i in range(NUM_SPACES):
        FACE_DOWN_INDEX[i] = FACE_DOWN_SPACES.index(i) if i in FACE_DOWN_SPACES else -1
    assert len(FACE_DOWN_SPACES) == FACE_DOWN_PER_BOARD
    assert NUM_LIGHT_ROOMS_REMOVED_SOLO == PY_NUM_LIGHT_ROOMS_REMOVED_SOLO
    ENTRANCE_SPACE = r.entrance_space
    PRE_EXCAVATED_SPACE = r.pre_excavated_space
    WALL_SUPPLY = r.wall_supply
    N_CONVERSION_SOURCES = len(r.conversion_sources)
    for i, g in enumerate(r.conversion_sources):
        CONVERSION_SOURCES[i] = g
    PROSPECTING_SITE = r.room_index("prospecting_site")
    RETTING_ROOM = r.room_index("retting_room")
    EQUIPMENT_ROOM = r.room_index("equipment_room")
    WOOD_STOREROOM = r.room_index("wood_storeroom")
    DUNGEON = r.room_index("dungeon")
    UNDERGROWTH = r.tile_index("undergrowth")

    NUM_ACTIONS = len(table)
    for g in range(6):
        CONVERT_ID[g] = table.convert.get(g, -1)
    for i in range(5):
        CAVERN_SIDE_ID[i] = table.cavern_side.get(i, -1)
    for i in range(12):
        TAKE_ID[i] = table.take[i]
    END_TURN_ID = table.end_turn
    PROSPECT_ID = table.prospect
    for spec in table.specs:
        a = spec.id
        A_KIND[a] = spec.kind
        A_TILE[a] = spec.tile
        A_ROOM[a] = spec.room
        A_GOOD[a] = spec.good
        A_WALLS[a] = spec.walls
        A_NCH[a] = len(spec.choices)
        src = spec.tile if spec.kind == PY_TILE_OPTION else 12 + spec.room
        for i, c in enumerate(spec.choices):
            A_SLOT[a][i] = c.slot
            A_OPT[a][i] = c.option
            p0, p1 = _encode_param(OPTIONS[OPT_INDEX[src][c.slot][c.option]].param_kind, c.param)
            A_P0[a][i] = p0
            A_P1[a][i] = p1
    for room, ids in enumerate(table.room_uses):
        assert len(ids) <= MAX_ROOM_USES
        N_ROOM_USES[room] = len(ids)
        for i, a in enumerate(ids):
            ROOM_USES[room][i] = a
    i = 0
    for a in range(11):
        for b in range(a + 1, 11):
            PAIR_INDEX[a][b] = i
            i += 1


_load_tables()

# ------------------------------------------------------------------------------------------------
# Small helpers

cdef inline int popcount(uint32_t x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int num_rounds(const GameState* s) noexcept nogil:
    return NUM_ROUNDS[s.num_players - 1]


cdef inline int turns_per_player(const GameState* s) noexcept nogil:
    return TURNS[s.num_players - 1][imin(s.round, num_rounds(s) - 1)]


cdef inline bint has_room(const Board* b, int room) noexcept nogil:
    cdef int i
    for i in range(NUM_SPACES):
        if b.spaces[i] == room:
            return True
    return False


cdef inline int space_of(const Board* b, int room) noexcept nogil:
    cdef int i
    for i in range(NUM_SPACES):
        if b.spaces[i] == room:
            return i
    return -1


# ------------------------------------------------------------------------------------------------
# Board geometry (board.py)

cdef inline int wall_pattern(const Board* b, int space) noexcept nogil:
    cdef int pattern = 0, d, side
    cdef bint present
    for d in range(4):
        side = SPACE_SIDES[space][d]
        if space == CAVERN:
            present = (b.cavern_sides >> d) & 1 or (b.walls >> side) & 1
        else:
            present = side == NATURAL or (side >= 0 and (b.walls >> side) & 1)
        if present:
            pattern |= 1 << d
    return pattern


cdef uint32_t accessible_spaces(const int8_t* spaces, uint32_t walls, int budget) noexcept nogil:
    """Bits of the face-down spaces reachable from the Cave Entrance (board.accessible_spaces)."""
    if budget == 0:
        return reachable_through_open_sides(spaces, walls)
    cdef int best[11]
    cdef int stack[256]
    cdef int top = 0, space, crossed, k, other, cost, i
    cdef uint32_t targets = 0
    for i in range(NUM_BOARD_SPACES):
        best[i] = budget + 1
    best[ENTRANCE_SPACE] = 0
    stack[top] = ENTRANCE_SPACE
    top += 1
    while top:
        top -= 1
        space = stack[top]
        crossed = best[space]
        for k in range(N_NEIGH[space]):
            other = NEIGH_SPACE[space][k]
            cost = crossed + ((walls >> NEIGH_SLOT[space][k]) & 1)
            if cost > budget:
                continue
            if spaces[other] == FACE_DOWN:
                targets |= 1u << other
            elif cost < best[other]:
                best[other] = cost
                stack[top] = other
                top += 1
    return targets


cdef uint32_t reachable_through_open_sides(const int8_t* spaces, uint32_t walls) noexcept nogil:
    """accessible_spaces with no wall to remove: a flood fill that marks what it has seen in a bit mask.

    The evaluations ask this of every position they score (twice per two-player position), so it skips the
    general search's per-space wall counts, which with no budget can only be 0."""
    cdef int stack[11]
    cdef int top = 1, space, k, other
    cdef uint32_t seen = 1u << ENTRANCE_SPACE, targets = 0
    stack[0] = ENTRANCE_SPACE
    while top:
        top -= 1
        space = stack[top]
        for k in range(N_NEIGH[space]):
            other = NEIGH_SPACE[space][k]
            if (walls >> NEIGH_SLOT[space][k]) & 1 or (seen >> other) & 1:
                continue
            seen |= 1u << other
            if spaces[other] == FACE_DOWN:
                targets |= 1u << other
            else:
                stack[top] = other      # each space at most once: 11 places suffice
                top += 1
    return targets


cdef inline bint board_full(const Board* b) noexcept nogil:
    cdef int i
    for i in range(NUM_BOARD_SPACES):
        if b.spaces[i] < 0:
            return False
    return True


cdef inline int cavern_natural_sides(int walls, bint opposite) noexcept nogil:
    if walls == 2:
        return (1 | 4) if opposite else (1 | 8)
    if walls == 3:
        return 1 | 2 | 8
    return 15


# ------------------------------------------------------------------------------------------------
# Setup (ReferenceState.__init__ and _reset_turn)

cdef void reset_turn(GameState* s) noexcept nogil:
    s.tile = -1
    s.slots_used = 0
    s.activation_left = 0
    s.activation_used = 0
    s.prospected = 0
    s.sub_actions = 0
    s.excavated = 0
    s.furnished_now = 0
    s.cavern_choice = 0
    s.ending = 0


cdef void init_state(GameState* s, int num_players, Config cfg) noexcept nogil:
    cdef int p, i, g
    memset(s, 0, sizeof(GameState))
    s.cfg = cfg
    s.num_players = num_players
    for p in range(2):
        for i in range(NUM_SPACES):
            s.players[p].spaces[i] = FACE_DOWN
            s.players[p].placed_round[i] = -1
        s.players[p].spaces[CAVERN] = UNAVAILABLE
        s.players[p].spaces[PRE_EXCAVATED_SPACE] = EMPTY
        s.players[p].spaces[ENTRANCE_SPACE] = CAVE_ENTRANCE
        for g in range(6):
            s.players[p].goods[g] = START_GOODS[g]
    s.starter = 0 if num_players == 1 else -1
    s.display = LIGHT_MASK
    s.pool = DARK_MASK
    s.pile = SOLO_PILE if num_players == 1 else 0
    s.cavern_owner = -1
    reset_turn(s)


# ------------------------------------------------------------------------------------------------
# Whose move (_chance_kind, is_terminal, current_player)

cdef int chance_kind(const GameState* s) noexcept nogil:
    if s.pending_spaces or s.pending_pile_reveals:
        return REVEAL_ROOM
    if s.round >= num_rounds(s):
        return NO_CHANCE
    if s.starter < 0:
        return START_PLAYER
    if s.num_players == 1 and popcount(s.removed) < NUM_LIGHT_ROOMS_REMOVED_SOLO:
        return REMOVE_LIGHT_ROOM
    if s.num_revealed <= s.round:
        return REVEAL_TILE
    return NO_CHANCE


cdef void chance_item(const GameState* s, int* component, int* item) noexcept nogil:
    """The deal component a chance node draws from and which of its items (state.StateMixin.chance_component).

    `component` is one of the DEAL_* numbers, -1 where `s` is no chance node.
    """
    cdef int kind = chance_kind(s), i, stage, space, pending = s.pending_spaces
    item[0] = 0
    if kind == START_PLAYER:
        component[0] = DEAL_START_PLAYER
    elif kind == REMOVE_LIGHT_ROOM:
        component[0] = DEAL_REMOVED_LIGHT_ROOMS
        item[0] = popcount(s.removed)
    elif kind == REVEAL_TILE:
        stage = STAGES[s.num_players - 1][s.round]
        component[0] = DEAL_TILES_STAGE_2 + stage - 2
        for i in range(s.num_revealed):
            item[0] += TILE_STAGE[s.revealed[i]] == stage
    elif kind == REVEAL_ROOM and pending:
        space = 0
        while not (pending >> space) & 1:      # the lowest pending space's room is turned up first
            space += 1
        component[0] = DEAL_ROOMS
        item[0] = player_of_turn(s, s.turn) * FACE_DOWN_PER_BOARD + FACE_DOWN_INDEX[space]
    elif kind == REVEAL_ROOM:
        component[0] = DEAL_DRAW_PILE
        item[0] = SOLO_PILE - s.pile
    else:
        component[0] = -1


cdef bint is_terminal(const GameState* s) noexcept nogil:
    return s.round >= num_rounds(s) and chance_kind(s) == NO_CHANCE


cdef inline int player_of_turn(const GameState* s, int turn) noexcept nogil:
    if s.num_players == 1:
        return 0
    return s.starter if turn % 2 == 0 else 1 - s.starter


cdef int current_player(const GameState* s) noexcept nogil:
    if chance_kind(s) != NO_CHANCE:
        return CHANCE
    if s.round >= num_rounds(s):
        return TERMINAL
    return player_of_turn(s, s.turn)


# ------------------------------------------------------------------------------------------------
# Chance (chance_outcomes, _apply_chance)

cdef inline bint tile_revealed(const GameState* s, int tile) noexcept nogil:
    cdef int i
    for i in range(s.num_revealed):
        if s.revealed[i] == tile:
            return True
    return False


cdef int chance_outcomes(const GameState* s, int* out) noexcept nogil:
    """The outcomes of a chance node (all equally likely), ascending; their count."""
    cdef int kind = chance_kind(s), n = 0, i, stage
    if kind == START_PLAYER:
        out[0] = 0
        out[1] = 1
        return 2
    if kind == REMOVE_LIGHT_ROOM:
        for i in range(CAVE_ENTRANCE):
            if (LIGHT_MASK >> i) & 1 and not (s.removed >> i) & 1:
                out[n] = i
                n += 1
        return n
    if kind == REVEAL_TILE:
        stage = STAGES[s.num_players - 1][s.round]
        for i in range(NUM_TILES):
            if TILE_STAGE[i] == stage and (TILE_IN_SOLO[i] or s.num_players == 2) and not tile_revealed(s, i):
                out[n] = i
                n += 1
        return n
    if kind == REVEAL_ROOM:
        for i in range(CAVE_ENTRANCE):
            if (s.pool >> i) & 1:
                out[n] = i
                n += 1
        return n
    return 0


cdef void apply_chance(GameState* s, int outcome) noexcept nogil:
    cdef int kind = chance_kind(s)
    if kind == START_PLAYER:
        s.starter = outcome
    elif kind == REMOVE_LIGHT_ROOM:
        s.removed |= 1u << outcome
        s.display &= ~(1u << outcome)
    elif kind == REVEAL_TILE:
        s.revealed[s.num_revealed] = outcome
        s.num_revealed += 1
    else:
        s.pool &= ~(1u << outcome)
        s.display |= 1u << outcome
        if s.pending_spaces:
            s.pending_spaces &= s.pending_spaces - 1   # the lowest pending space's room
        else:
            s.pending_pile_reveals -= 1
            s.pile -= 1


# ------------------------------------------------------------------------------------------------
# Legality (the reference's *_problem methods, as yes/no)

cdef inline bint tile_on_board(const GameState* s, int tile) noexcept nogil:
    return TILE_STAGE[tile] == 1 or tile_revealed(s, tile)


cdef bint take_ok(const GameState* s, int tile) noexcept nogil:
    cdef int player
    if not tile_on_board(s, tile):
        return False
    if (s.taken >> tile) & 1:
        return False
    if TILE_NEEDS_GOLD[tile] and s.num_players == 2:
        player = current_player(s)
        if s.players[player].goods[GOLD] <= s.players[1 - player].goods[GOLD]:
            return False
    return True


cdef inline bint blue_room_active(const GameState* s, int player, int room) noexcept nogil:
    if not has_room(&s.players[player], room):
        return False
    return not (s.cfg.blue_from_next_turn and (s.furnished_now >> room) & 1)


cdef bint prospect_ok(const GameState* s, int player) noexcept nogil:
    if s.tile != UNDERGROWTH:
        return False
    if not blue_room_active(s, player, PROSPECTING_SITE):
        return False
    if s.prospected:
        return False
    if s.cfg.prospect_on_choosing_only and s.sub_actions:
        return False
    return s.players[player].goods[FOOD] >= 1


cdef int activation_slot(const GameState* s, int* count) noexcept nogil:
    """The unused slot of the taken tile offering an activation (its printed count in `count`), or -1."""
    cdef int slot, o, idx
    for slot in range(N_SLOTS[s.tile]):
        if (s.slots_used >> slot) & 1:
            continue
        for o in range(N_OPTS[s.tile][slot]):
            idx = OPT_INDEX[s.tile][slot][o]
            if OPTIONS[idx].activation:
                count[0] = OPTIONS[idx].activate_count
                return slot
    return -1


cdef inline int activation_count(const GameState* s, int count) noexcept nogil:
    cdef int extra = 0
    if (count == 2 or count == 3) and blue_room_active(s, current_player(s), EQUIPMENT_ROOM):
        extra = 1
    return count + extra


cdef int activation_capacity(const GameState* s) noexcept nogil:
    cdef int count = 0
    if s.tile < 0:
        return 0
    if s.activation_left:
        return s.activation_left
    if activation_slot(s, &count) < 0:
        return 0
    return activation_count(s, count)


cdef bint room_ok(const GameState* s, int player, int room) noexcept nogil:
    cdef const Board* b = &s.players[player]
    if not has_room(b, room):
        return False
    if not ROOM_ORANGE[room]:
        return False
    if (s.activation_used >> room) & 1:
        return False
    if room != CAVE_ENTRANCE:
        if s.cfg.orange_from_next_round:
            if b.placed_round[space_of(b, room)] >= s.round:
                return False
        elif (s.furnished_now >> room) & 1:
            return False
    return True


cdef inline bint can_pay(const int8_t* goods, const int* cost) noexcept nogil:
    cdef int g
    for g in range(6):
        if goods[g] < cost[g]:
            return False
    return True


cdef inline int wall_supply(const GameState* s) noexcept nogil:
    return WALL_SUPPLY - popcount(s.players[0].walls) - popcount(s.players[1].walls)


cdef bint build_wall_ok(const GameState* s, int player, int wall) noexcept nogil:
    cdef const Board* b = &s.players[player]
    if wall_supply(s) == 0:
        return False
    if (b.walls >> wall) & 1:
        return False
    if wall >= NUM_BOARD_WALL_SLOTS:
        if b.spaces[CAVERN] == UNAVAILABLE:
            return False
        if (b.cavern_sides >> (wall - NUM_BOARD_WALL_SLOTS)) & 1:
            return False
        if not s.cfg.cavern_accepts_walls:
            return False
    elif not s.cfg.walls_between_face_down:
        if b.spaces[SLOT_A[wall]] == FACE_DOWN and b.spaces[SLOT_B[wall]] == FACE_DOWN:
            return False
    return True


cdef inline int wall_budget(const GameState* s, const COp* op) noexcept nogil:
    return s.cfg.undermining_budget if op.through_walls else 0


cdef void prepare_reach(const GameState* s, int player, int k, int budget, Context* ctx) noexcept nogil:
    cdef int8_t spaces[NUM_SPACES]
    cdef const Board* board = &s.players[player]
    cdef int a
    memcpy(spaces, board.spaces, sizeof(spaces))
    ctx.reach_first[k] = accessible_spaces(spaces, board.walls, budget)
    for a in range(NUM_BOARD_SPACES):
        if (ctx.reach_first[k] >> a) & 1:
            spaces[a] = EMPTY
            ctx.reach_after[k][a] = accessible_spaces(spaces, board.walls, budget)
            spaces[a] = FACE_DOWN
    ctx.reach_ready[k] = 1


cdef bint excavation_ok(const GameState* s, int player, const COp* op, int a, int b,
                        Context* ctx) noexcept nogil:
    """ReferenceState._excavation_problem: a single target, or two in either order, accessible in turn."""
    cdef int n = 1 if b < 0 else 2, k = 1 if op.through_walls else 0
    if n > op.count:
        return False
    if op.count == 2 and n == 1 and s.cfg.double_needs_two:
        return False
    if not ctx.reach_ready[k]:
        prepare_reach(s, player, k, wall_budget(s, op), ctx)
    if n == 1:
        return (ctx.reach_first[k] >> a) & 1
    return ((ctx.reach_first[k] >> a) & 1 and (ctx.reach_after[k][a] >> b) & 1) or \
           ((ctx.reach_first[k] >> b) & 1 and (ctx.reach_after[k][b] >> a) & 1)


cdef inline void furnish_extra(const GameState* s, const COp* op, int* extra) noexcept nogil:
    cdef int g
    for g in range(6):
        extra[g] = op.extra[g]
    if op.extra_per_turn:
        extra[FOOD] += turns_per_player(s)


cdef void prepare_rooms(const GameState* s, int player, Context* ctx) noexcept nogil:
    cdef const Board* b = &s.players[player]
    cdef int i
    ctx.orange = 0
    ctx.blue = 0
    for i in range(NUM_SPACES):
        ctx.pattern[i] = wall_pattern(b, i)
        if b.spaces[i] >= 0:
            if ROOM_ORANGE[b.spaces[i]]:
                ctx.orange += 1
            else:
                ctx.blue += 1
    ctx.rooms_ready = 1


cdef bint furnish_ok(const GameState* s, int player, const COp* op, int room, int space,
                     const int8_t* goods, Context* ctx) noexcept nogil:
    cdef const Board* b = &s.players[player]
    cdef int orange, blue, g
    cdef int cost[6]
    if not (s.display >> room) & 1:
        return False
    if (s.cfg.banned_rooms[player] >> room) & 1:
        return False
    if b.spaces[space] != EMPTY:
        return False
    if not ctx.rooms_ready:
        prepare_rooms(s, player, ctx)
    if not (ROOM_WALL_MASKS[room] >> ctx.pattern[space]) & 1:
        return False
    orange = ctx.orange
    blue = ctx.blue
    if ROOM_ORANGE[room]:
        orange += 1
    else:
        blue += 1
    if orange <= blue:
        return False
    furnish_extra(s, op, cost)
    for g in range(6):
        cost[g] += ROOM_COST[room][g]
    return can_pay(goods, cost)


cdef bint option_ok(const GameState* s, int player, int option, int p0, int p1,
                    const int8_t* goods_in, Context* ctx) noexcept nogil:
    """Whether the option can be started with this parameter (ReferenceState._option_problem)."""
    cdef int8_t goods[6]
    cdef int k, g, v
    cdef bint any_raise
    cdef const COp* op
    cdef const COption* opt = &OPTIONS[option]
    memcpy(goods, goods_in, 6)
    for k in range(opt.n_ops):
        op = &OPS[opt.first_op + k]
        if op.kind == OP_PAY:
            for g in range(6):
                if goods[g] < op.goods[g]:
                    return False
            for g in range(6):
                goods[g] -= op.goods[g]
        elif op.kind == OP_PAY_DISTINCT:
            if not s.cfg.junction_gold and (p0 >> GOLD) & 1:
                return False
            for g in range(6):
                if (p0 >> g) & 1 and goods[g] < 1:
                    return False
            for g in range(6):
                if (p0 >> g) & 1:
                    goods[g] -= 1
        elif op.kind == OP_GAIN:
            if op.below_good >= 0 and goods[op.below_good] >= op.below_value:
                return False
        elif op.kind == OP_REPLENISH:
            any_raise = False
            for g in range(6):
                v = op.targets[g]
                if v >= 0 and 0 <= goods[g] < v:
                    any_raise = True
            if not any_raise:
                return False
        elif op.kind == OP_REPLENISH_ONE_OF:
            if goods[p0] >= op.amount:
                return False
        elif op.kind == OP_EXCAVATE:
            if not excavation_ok(s, player, op, p0, p1, ctx):
                return False
        elif op.kind == OP_FURNISH:
            if not furnish_ok(s, player, op, p0, p1, goods, ctx):
                return False
        elif op.kind == OP_BUILD_WALL:
            if not build_wall_ok(s, player, p0):
                return False
        elif op.kind == OP_RAZE_WALL:
            if not (s.players[player].walls >> p0) & 1:
                return False
    return True


cdef void simulate_goods(int option, int p0, int8_t* goods) noexcept nogil:
    cdef const COption* opt = &OPTIONS[option]
    cdef const COp* op
    cdef int k, g
    for k in range(opt.n_ops):
        op = &OPS[opt.first_op + k]
        if op.kind == OP_PAY:
            for g in range(6):
                goods[g] -= op.goods[g]
        elif op.kind == OP_PAY_DISTINCT:
            for g in range(6):
                if (p0 >> g) & 1:
                    goods[g] -= 1
        elif op.kind == OP_GAIN:
            for g in range(6):
                goods[g] = imin(CAPS[g], goods[g] + op.goods[g])


cdef bint choices_ok(const GameState* s, int player, int source, int action, Context* ctx) noexcept nogil:
    cdef int8_t goods[6]
    cdef int i, option
    memcpy(goods, s.players[player].goods, 6)
    for i in range(A_NCH[action]):
        option = OPT_INDEX[source][A_SLOT[action][i]][A_OPT[action][i]]
        if not option_ok(s, player, option, A_P0[action][i], A_P1[action][i], goods, ctx):
            return False
        simulate_goods(option, A_P0[action][i], goods)
    return True


# ------------------------------------------------------------------------------------------------
# Legal actions (legal_actions, _legal_tile_options, _legal_room_uses): generated in ascending id order

cdef int legal_tile_options(const GameState* s, int player, int* out, Context* ctx) noexcept nogil:
    cdef int n = 0, slot, o, idx, i, a, b, room, space, w, n_empty
    cdef int empty[NUM_SPACES]
    cdef const COption* opt
    cdef const Board* board = &s.players[player]
    cdef const int8_t* goods = board.goods
    for slot in range(N_SLOTS[s.tile]):
        if (s.slots_used >> slot) & 1:
            continue
        for o in range(N_OPTS[s.tile][slot]):
            idx = OPT_INDEX[s.tile][slot][o]
            opt = &OPTIONS[idx]
            if opt.activation:
                continue
            if opt.param_kind == P_NONE:
                if option_ok(s, player, idx, -1, -1, goods, ctx):
                    out[n] = opt.base_action
                    n += 1
            elif opt.param_kind == P_GOOD:
                for i in range(opt.n_types):
                    if option_ok(s, player, idx, opt.types[i], -1, goods, ctx):
                        out[n] = opt.base_action + i
                        n += 1
            elif opt.param_kind == P_WALL:
                for w in range(NUM_BOARD_WALL_SLOTS + 4):
                    if option_ok(s, player, idx, w, -1, goods, ctx):
                        out[n] = opt.base_action + w
                        n += 1
            elif opt.param_kind == P_EXCAVATE:
                for a in range(NUM_BOARD_SPACES):
                    if board.spaces[a] == FACE_DOWN and option_ok(s, player, idx, a, -1, goods, ctx):
                        out[n] = opt.base_action + a
                        n += 1
                if OPS[opt.first_op + opt.n_ops - 1].count == 2:
                    for a in range(NUM_BOARD_SPACES):
                        if board.spaces[a] != FACE_DOWN:
                            continue
                        for b in range(a + 1, NUM_BOARD_SPACES):
                            if board.spaces[b] == FACE_DOWN and option_ok(s, player, idx, a, b, goods, ctx):
                                out[n] = opt.base_action + NUM_BOARD_SPACES + PAIR_INDEX[a][b]
                                n += 1
            elif opt.param_kind == P_FURNISH:
                n_empty = 0
                for space in range(NUM_SPACES):
                    if board.spaces[space] == EMPTY:
                        empty[n_empty] = space
                        n_empty += 1
                for room in range(CAVE_ENTRANCE):
                    if not (s.display >> room) & 1:
                        continue
                    for i in range(n_empty):
                        if option_ok(s, player, idx, room, empty[i], goods, ctx):
                            out[n] = opt.base_action + room * NUM_SPACES + empty[i]
                            n += 1
    return n


cdef int legal_room_uses(const GameState* s, int player, int* out, Context* ctx) noexcept nogil:
    cdef int n = 0, room, i, a
    cdef uint32_t rooms = 0
    if activation_capacity(s) == 0:
        return 0
    for i in range(NUM_SPACES):       # visit the player's rooms in room order, as the ids run
        if s.players[player].spaces[i] >= 0:
            rooms |= 1u << s.players[player].spaces[i]
    for room in range(NUM_ROOMS_ALL):
        if not (rooms >> room) & 1 or not room_ok(s, player, room):
            continue
        for i in range(N_ROOM_USES[room]):
            a = ROOM_USES[room][i]
            if choices_ok(s, player, 12 + room, a, ctx):
                out[n] = a
                n += 1
    return n


cdef int legal_actions(const GameState* s, int* out) noexcept nogil:
    """The legal actions (or chance outcomes) in ascending order; their count."""
    cdef int player = current_player(s), n = 0, t, i, g, w
    cdef const Board* board
    cdef Context ctx
    if player == TERMINAL:
        return 0
    if player == CHANCE:
        return chance_outcomes(s, out)
    if s.cavern_choice:
        for w in range(2):
            out[n] = CAVERN_SIDE_ID[s.cfg.cavern_walls[w]]
            n += 1
        return n
    if s.tile < 0:
        for t in range(NUM_TILES):
            if take_ok(s, t):
                out[n] = TAKE_ID[t]
                n += 1
        return n
    board = &s.players[player]
    out[n] = END_TURN_ID
    n += 1
    for i in range(N_CONVERSION_SOURCES):
        g = CONVERSION_SOURCES[i]
        if board.goods[g] > 0 and board.goods[FOOD] < CAPS[FOOD]:
            out[n] = CONVERT_ID[g]
            n += 1
    if prospect_ok(s, player):
        out[n] = PROSPECT_ID
        n += 1
    memset(&ctx, 0, sizeof(Context))
    n += legal_tile_options(s, player, out + n, &ctx)
    n += legal_room_uses(s, player, out + n, &ctx)
    return n


cdef bint is_legal(const GameState* s, int action) noexcept nogil:
    cdef int buffer[NUM_ACTIONS_MAX]
    cdef int n = legal_actions(s, buffer), i
    for i in range(n):
        if buffer[i] == action:
            return True
    return False


# ------------------------------------------------------------------------------------------------
# Applying actions (_apply_player_action and what it calls)

cdef void gain(GameState* s, int player, const int* goods) noexcept nogil:
    """Add goods up to their caps; the Retting Room reacts to 1-3 flax (ReferenceState._gain)."""
    cdef Board* b = &s.players[player]
    cdef int before_flax = b.goods[FLAX], g, counted
    for g in range(6):
        b.goods[g] = imin(CAPS[g], b.goods[g] + goods[g])
    counted = goods[FLAX] if not s.cfg.retting_actual else b.goods[FLAX] - before_flax
    if 1 <= counted <= 3 and blue_room_active(s, player, RETTING_ROOM):
        b.goods[FOOD] = imin(CAPS[FOOD], b.goods[FOOD] + 1)


cdef inline void gain_single(GameState* s, int player, int good, int amount) noexcept nogil:
    cdef int goods[6]
    memset(goods, 0, sizeof(goods))
    goods[good] = amount
    gain(s, player, goods)


cdef void replenish(GameState* s, int player, const int8_t* targets) noexcept nogil:
    cdef int raised[6]
    cdef int g, v
    for g in range(6):
        v = targets[g]
        raised[g] = 0
        if v >= 0 and v > s.players[player].goods[g]:
            raised[g] = v - s.players[player].goods[g]
    gain(s, player, raised)


cdef inline void queue_pile_reveal(GameState* s) noexcept nogil:
    if s.pile - s.pending_pile_reveals > 0:
        s.pending_pile_reveals += 1


cdef void excavate(GameState* s, int player, const COp* op, int a, int b) noexcept nogil:
    cdef Board* board = &s.players[player]
    cdef int order[2]
    cdef int n = 1 if b < 0 else 2, i, space
    order[0] = a
    order[1] = b
    if n == 2 and not (accessible_spaces(board.spaces, board.walls, wall_budget(s, op)) >> a) & 1:
        order[0] = b
        order[1] = a
    for i in range(n):
        space = order[i]
        board.spaces[space] = EMPTY
        s.excavated += 1
        s.pending_spaces |= 1u << space
        if SPACE_FOOD[space]:
            gain_single(s, player, FOOD, SPACE_FOOD[space])
    if s.num_players == 1 and n == 1 and s.cfg.solo_reveal_per_effect:
        queue_pile_reveal(s)


cdef bint offer_cavern(GameState* s, int player) noexcept nogil:
    if s.cavern_owner < 0 and board_full(&s.players[player]):
        s.cavern_owner = player
        s.cavern_choice = 1
        return True
    return False


cdef void furnish(GameState* s, int player, const COp* op, int room, int space) noexcept nogil:
    cdef Board* b = &s.players[player]
    cdef int cost[6]
    cdef int g
    furnish_extra(s, op, cost)
    for g in range(6):
        b.goods[g] -= cost[g] + ROOM_COST[room][g]
    b.spaces[space] = room
    b.placed_round[space] = s.round
    s.display &= ~(1u << room)
    s.furnished_now |= 1u << room
    if not s.cfg.cavern_end_of_turn:
        offer_cavern(s, player)


cdef void carry_out(GameState* s, int player, int option, int p0, int p1) noexcept nogil:
    cdef const COption* opt = &OPTIONS[option]
    cdef const COp* op
    cdef Board* b = &s.players[player]
    cdef int k, g
    cdef int goods[6]
    cdef int8_t targets[6]
    for k in range(opt.n_ops):
        op = &OPS[opt.first_op + k]
        if op.kind == OP_PAY:
            for g in range(6):
                b.goods[g] -= op.goods[g]
        elif op.kind == OP_PAY_DISTINCT:
            for g in range(6):
                if (p0 >> g) & 1:
                    b.goods[g] -= 1
        elif op.kind == OP_GAIN:
            for g in range(6):
                goods[g] = op.goods[g]
            gain(s, player, goods)
        elif op.kind == OP_GAIN_ONE_OF:
            gain_single(s, player, p0, op.amount)
        elif op.kind == OP_REPLENISH:
            replenish(s, player, op.targets)
        elif op.kind == OP_REPLENISH_ONE_OF:
            for g in range(6):
                targets[g] = op.amount if g == p0 else -1
            replenish(s, player, targets)
        elif op.kind == OP_EXCAVATE:
            excavate(s, player, op, p0, p1)
        elif op.kind == OP_FURNISH:
            furnish(s, player, op, p0, p1)
        elif op.kind == OP_BUILD_WALL:
            b.walls |= 1u << p0
            if blue_room_active(s, player, DUNGEON):
                gain_single(s, player, GOLD, 2)
        elif op.kind == OP_RAZE_WALL:
            b.walls &= ~(1u << p0)


cdef inline void wood_storeroom(GameState* s, int player) noexcept nogil:
    if blue_room_active(s, player, WOOD_STOREROOM):
        gain_single(s, player, WOOD, 1)


cdef void use_room(GameState* s, int player, int action) noexcept nogil:
    cdef int room = A_ROOM[action], count = 0, slot, i
    if s.activation_left == 0:
        slot = activation_slot(s, &count)
        s.slots_used |= 1 << slot
        s.activation_left = activation_count(s, count)
        s.activation_used = 0
        if count == 1 and s.cfg.wood_storeroom_needs_use:
            wood_storeroom(s, player)
    s.sub_actions += 1
    s.activation_left -= 1
    s.activation_used |= 1u << room
    for i in range(A_NCH[action]):
        carry_out(s, player, OPT_INDEX[12 + room][A_SLOT[action][i]][A_OPT[action][i]],
                  A_P0[action][i], A_P1[action][i])


cdef void end_turn(GameState* s, int player) noexcept nogil:
    cdef bint solo_reveal
    if s.cfg.cavern_end_of_turn and not s.ending:
        if offer_cavern(s, player):
            s.ending = 1
            return
    solo_reveal = s.num_players == 1 and s.excavated == 1 and not s.cfg.solo_reveal_per_effect
    reset_turn(s)
    s.turn += 1
    if s.turn == turns_per_player(s) * s.num_players:
        s.round += 1
        s.turn = 0
        s.taken = 0
        if s.num_players == 2:
            s.starter = 1 - s.starter
    if solo_reveal and s.round < num_rounds(s):
        queue_pile_reveal(s)


cdef void apply_player_action(GameState* s, int player, int action) noexcept nogil:
    cdef Board* b = &s.players[player]
    cdef int kind = A_KIND[action], slot
    if kind == K_CAVERN_SIDE:
        b.spaces[CAVERN] = EMPTY
        b.cavern_sides = cavern_natural_sides(A_WALLS[action], s.cfg.cavern_opposite)
        s.cavern_choice = 0
        if s.ending:
            end_turn(s, player)
    elif kind == K_TAKE:
        s.tile = A_TILE[action]
        s.taken |= 1 << A_TILE[action]
        if not s.cfg.wood_storeroom_needs_use and TILE_ACTIVATE_ONE[s.tile]:
            wood_storeroom(s, player)
    elif kind == K_END_TURN:
        end_turn(s, player)
    elif kind == K_CONVERT:
        b.goods[A_GOOD[action]] -= 1
        b.goods[FOOD] += 1
    elif kind == K_PROSPECT:
        s.prospected = 1
        b.goods[FOOD] -= 1
        gain_single(s, player, GOLD, 1)
    elif kind == K_TILE_OPTION:
        slot = A_SLOT[action][0]
        s.slots_used |= 1 << slot
        s.sub_actions += 1
        carry_out(s, player, OPT_INDEX[s.tile][slot][A_OPT[action][0]], A_P0[action][0], A_P1[action][0])
    else:
        use_room(s, player, action)


cdef void apply_action(GameState* s, int action) noexcept nogil:
    """Apply a legal action or chance outcome (legality is the caller's promise)."""
    cdef int player = current_player(s)
    if player == CHANCE:
        apply_chance(s, action)
    else:
        apply_player_action(s, player, action)


# ------------------------------------------------------------------------------------------------
# Results

cdef void scores(const GameState* s, int* out) noexcept nogil:
    cdef int p, i, total
    for p in range(s.num_players):
        total = s.players[p].goods[GOLD]
        for i in range(NUM_SPACES):
            if s.players[p].spaces[i] >= 0:
                total += ROOM_VP[s.players[p].spaces[i]]
        out[p] = total


cdef int room_values(const GameState* s, int player, int* out) noexcept nogil:
    """The player's room points, highest first; their count."""
    cdef int n = 0, i, j, v
    for i in range(NUM_SPACES):
        if s.players[player].spaces[i] >= 0:
            v = ROOM_VP[s.players[player].spaces[i]]
            j = n
            while j > 0 and out[j - 1] < v:
                out[j] = out[j - 1]
                j -= 1
            out[j] = v
            n += 1
    return n


cdef void returns(const GameState* s, double* out) noexcept nogil:
    """StateMixin.returns in C: +1/-1/0 with the tie-break; solo: the score; 0 before the end."""
    cdef int sc[2]
    cdef int values[2][NUM_SPACES]
    cdef int n[2]
    cdef int i, limit, cmp = 0
    if not is_terminal(s):
        out[0] = 0.0
        out[1] = 0.0
        return
    scores(s, sc)
    if s.num_players == 1:
        out[0] = sc[0]
        return
    if sc[0] != sc[1]:
        cmp = 1 if sc[0] > sc[1] else -1
    else:
        n[0] = room_values(s, 0, values[0])
        n[1] = room_values(s, 1, values[1])
        if not s.cfg.tie_break_next_highest:
            n[0] = imin(n[0], 1)
            n[1] = imin(n[1], 1)
        limit = imin(n[0], n[1])
        for i in range(limit):
            if values[0][i] != values[1][i]:
                cmp = 1 if values[0][i] > values[1][i] else -1
                break
        if cmp == 0 and n[0] != n[1]:
            cmp = 1 if n[0] > n[1] else -1
    out[0] = cmp
    out[1] = -cmp


# ------------------------------------------------------------------------------------------------
# Random playouts in C (the shared xorshift64* generator of compiled_common.pxd, seeded by seed_generator)

cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil:
    """Play uniformly random legal actions (and chance outcomes) to the end; the number of steps."""
    cdef int buffer[NUM_ACTIONS_MAX]
    cdef int steps = 0, n
    while not is_terminal(s):
        n = legal_actions(s, buffer)
        apply_action(s, buffer[random_below(rng, n)])
        steps += 1
    return steps


# ------------------------------------------------------------------------------------------------
# The Python-facing state

cdef Config make_c_config(object config):
    cdef Config c
    cdef int seat
    memset(&c, 0, sizeof(Config))
    c.solo_reveal_per_effect = config.solo_reveal_timing == "per_single_excavation_effect"
    c.undermining_budget = 99 if config.undermining_ignores == "all_walls" else 1
    c.blue_from_next_turn = config.blue_room_active_from == "next_turn"
    c.orange_from_next_round = config.orange_room_usable_from == "next_round"
    c.cavern_walls[0] = config.additional_cavern_walls[0]
    c.cavern_walls[1] = config.additional_cavern_walls[1]
    c.cavern_opposite = config.additional_cavern_two_wall_layout == "opposite"
    c.cavern_accepts_walls = config.additional_cavern_open_sides_accept_walls
    c.cavern_end_of_turn = config.additional_cavern_award_timing == "end_of_turn"
    c.junction_gold = config.junction_room_gold_allowed
    c.retting_actual = config.retting_room_counts == "actual_increase"
    c.wood_storeroom_needs_use = config.wood_storeroom_requires_subaction_use
    c.prospect_on_choosing_only = config.prospecting_site_timing == "on_choosing_only"
    c.double_needs_two = config.double_excavation_requires_two_targets
    c.walls_between_face_down = config.walls_between_face_down_spaces_allowed
    c.tie_break_next_highest = config.tie_break_when_top_rooms_equal == "next_highest_room"
    for seat in range(2):
        for room_id in config.banned_rooms(seat):
            c.banned_rooms[seat] |= 1u << <int>rules().room_index(room_id)
    return c


# ------------------------------------------------------------------------------------------------
# The engine interface (core/engine.pxd): the rule functions on an opaque position, for the compiled searches

cdef int engine_current_player(const void* s) noexcept nogil:
    return current_player(<const GameState*>s)


cdef int engine_legal_actions(const void* s, int* out) noexcept nogil:
    return legal_actions(<const GameState*>s, out)


cdef int engine_chance_outcomes(const void* s, int* out, double* probabilities) noexcept nogil:
    cdef int n = chance_outcomes(<const GameState*>s, out), i
    for i in range(n):
        probabilities[i] = 1.0 / n          # every face-down tile or room equally likely
    return n


cdef void engine_apply_action(void* s, int action) noexcept nogil:
    apply_action(<GameState*>s, action)


cdef void engine_returns(const void* s, double* out) noexcept nogil:
    returns(<const GameState*>s, out)


@cython.auto_pickle(False)
cdef class CoreState(CompiledStateBase):
    """A Cave vs Cave position held in one C struct (`GameState`); the API of `cavekit.core.api.State`.

    Its fields (`s`; `_hist` and `_game` from CompiledStateBase) are declared in .pxd files so compiled searchers
    can reach `s`.
    """

    def __init__(self, game):
        self._game = game
        self._hist = []
        init_state(&self.s, game.num_players, make_c_config(game.config))

    # whose move
    def current_player(self):
        return current_player(&self.s)

    def is_terminal(self):
        return is_terminal(&self.s)

    def is_chance_node(self):
        return chance_kind(&self.s) != NO_CHANCE

    def _chance_kind(self):
        return chance_kind(&self.s)

    def turns_per_player(self):
        return turns_per_player(&self.s)

    # moves
    def chance_outcomes(self):
        cdef int buffer[32]
        cdef double probabilities[32]
        cdef int n = engine_chance_outcomes(&self.s, buffer, probabilities), i
        return [(buffer[i], probabilities[i]) for i in range(n)]

    def legal_actions(self):
        cdef int buffer[NUM_ACTIONS_MAX]
        cdef int n = legal_actions(&self.s, buffer), i
        return [buffer[i] for i in range(n)]

    def illegal_reason(self, action):
        """Why `action` is illegal here, or None: asked of the reference engine on the same position."""
        return ReferenceState.from_dict(self._game, self.to_dict(), self._hist).illegal_reason(action)

    def apply_action(self, action):
        """Apply a legal action; an illegal one raises IllegalActionError (same message as the reference)."""
        index = as_action(action)
        if index is None or not 0 <= index < NUM_ACTIONS or not is_legal(&self.s, index):
            reference = ReferenceState.from_dict(self._game, self.to_dict(), self._hist)
            reference.apply_action(action)   # raises the reference's IllegalActionError
            raise AssertionError(f"engines disagree on action {action}: the reference finds it legal")
        apply_action(&self.s, index)
        self._hist.append(index)

    # results
    def scores(self):
        cdef int out[2]
        scores(&self.s, out)
        return [out[i] for i in range(self.s.num_players)]

    def room_values(self, int player):
        cdef int out[NUM_SPACES]
        cdef int n = room_values(&self.s, player, out), i
        return [out[i] for i in range(n)]

    def c_returns(self):
        """The returns as computed in C (the Python `returns()` is shared with the reference engine)."""
        cdef double out[2]
        returns(&self.s, out)
        return [out[i] for i in range(self.s.num_players)]

    cdef int copy_into(self, CompiledStateBase other) except -1:
        """The position for `clone` (history, clone, deepcopy and pickle are CompiledStateBase's)."""
        memcpy(&(<CoreState>other).s, &self.s, sizeof(GameState))
        return 0

    cdef Engine engine(self) except *:
        cdef Engine e
        e.name = b"cvc"
        e.state_size = sizeof(GameState)
        e.num_players = self.s.num_players
        e.max_actions = NUM_ACTIONS_MAX
        e.current_player = engine_current_player
        e.legal_actions = engine_legal_actions
        e.chance_outcomes = engine_chance_outcomes
        e.apply_action = engine_apply_action
        e.returns = engine_returns
        e.evaluate = NULL           # the game's evaluators are the searchers' own (search/), for now
        e.resample = NULL           # nothing is hidden
        return e

    cdef void* position(self) noexcept:
        return &self.s

    def random_playout(self, seed):
        """Play the rest of the game with uniformly random moves in C on a copy; its final returns."""
        cdef GameState copy
        cdef uint64_t rng = seed_generator(seed)
        cdef double out[2]
        memcpy(&copy, &self.s, sizeof(GameState))
        with nogil:
            random_playout(&copy, &rng)
        returns(&copy, out)
        return [out[i] for i in range(self.s.num_players)]

    @classmethod
    def from_dict(cls, game, d, history):
        """The position described by `to_dict()` output (for tests that start both engines anywhere)."""
        cdef CoreState state = cls(game)
        cdef GameState* s = &state.s
        cdef int p, i, g
        for p, fields in enumerate(d["players"]):
            for i in range(NUM_SPACES):
                s.players[p].spaces[i] = fields["spaces"][i]
                s.players[p].placed_round[i] = fields["placed_round"][i]
            for g in range(6):
                s.players[p].goods[g] = fields["goods"][g]
            s.players[p].walls = fields["walls"]
            s.players[p].cavern_sides = fields["cavern_sides"]
        for i, tile in enumerate(d["revealed_tiles"]):
            s.revealed[i] = tile
        s.num_revealed = len(d["revealed_tiles"])
        for name in ("round", "turn", "starter", "taken", "display", "pool", "removed", "pile", "cavern_owner",
                     "pending_spaces", "pending_pile_reveals", "tile", "slots_used", "activation_left",
                     "activation_used", "prospected", "sub_actions", "excavated", "furnished_now",
                     "cavern_choice", "ending"):
            state._set_field(name, d[name])
        state._hist = list(history)
        return state

    def _set_field(self, name, value):
        cdef GameState* s = &self.s
        if name == "round": s.round = value
        elif name == "turn": s.turn = value
        elif name == "starter": s.starter = value
        elif name == "taken": s.taken = value
        elif name == "display": s.display = value
        elif name == "pool": s.pool = value
        elif name == "removed": s.removed = value
        elif name == "pile": s.pile = value
        elif name == "cavern_owner": s.cavern_owner = value
        elif name == "pending_spaces": s.pending_spaces = value
        elif name == "pending_pile_reveals": s.pending_pile_reveals = value
        elif name == "tile": s.tile = value
        elif name == "slots_used": s.slots_used = value
        elif name == "activation_left": s.activation_left = value
        elif name == "activation_used": s.activation_used = value
        elif name == "prospected": s.prospected = value
        elif name == "sub_actions": s.sub_actions = value
        elif name == "excavated": s.excavated = value
        elif name == "furnished_now": s.furnished_now = value
        elif name == "cavern_choice": s.cavern_choice = value
        elif name == "ending": s.ending = value
        else:
            raise KeyError(name)

    def to_dict(self):
        """The same canonical dict as ReferenceState.to_dict."""
        cdef GameState* s = &self.s
        cdef Board* b
        cdef int p, i, g
        players = []
        for p in range(s.num_players):
            b = &s.players[p]
            players.append({"spaces": [b.spaces[i] for i in range(NUM_SPACES)], "walls": b.walls,
                            "goods": [b.goods[g] for g in range(6)], "cavern_sides": b.cavern_sides,
                            "placed_round": [b.placed_round[i] for i in range(NUM_SPACES)]})
        return {
            "round": s.round, "turn": s.turn, "starter": s.starter,
            "revealed_tiles": [s.revealed[i] for i in range(s.num_revealed)], "taken": s.taken,
            "display": s.display, "pool": s.pool, "removed": s.removed, "pile": s.pile,
            "cavern_owner": s.cavern_owner, "pending_spaces": s.pending_spaces,
            "pending_pile_reveals": s.pending_pile_reveals, "tile": s.tile,
            "slots_used": s.slots_used, "activation_left": s.activation_left,
            "activation_used": s.activation_used, "prospected": s.prospected,
            "sub_actions": s.sub_actions, "excavated": s.excavated,
            "furnished_now": s.furnished_now, "cavern_choice": s.cavern_choice,
            "ending": s.ending, "players": players,
        }


class CompiledState(CoreState, StateMixin):
    """A Cave vs Cave state computed by the compiled core, with the shared notation and records."""


def state_size_bytes():
    """Bytes of one position (the C struct copied by `clone`)."""
    return sizeof(GameState)


def random_games(game, int count, seed):
    """Play `count` random games from the start entirely in C; the total number of steps (for benchmarks)."""
    cdef GameState start, s
    cdef uint64_t rng = seed_generator(seed)
    cdef long total = 0
    cdef int i
    init_state(&start, game.num_players, make_c_config(game.config))
    with nogil:
        for i in range(count):
            memcpy(&s, &start, sizeof(GameState))
            total += random_playout(&s, &rng)
    return total


def core_timings(list states, int repeats):
    """Seconds spent generating legal actions, cloning (memcpy) and cloning + applying the first legal
    action, each done `repeats` times over every given CoreState, all in C (for `cavekit bench`)."""
    from time import perf_counter
    cdef int n = len(states), i, r, k
    cdef GameState* positions = <GameState*>PyMem_Malloc(n * sizeof(GameState))
    cdef int* first = <int*>PyMem_Malloc(n * sizeof(int))
    cdef GameState scratch
    cdef int buffer[NUM_ACTIONS_MAX]
    cdef long checksum = 0
    if positions == NULL or first == NULL:
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
                    checksum += scratch.turn
        clone_seconds = perf_counter() - started
        started = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    memcpy(&scratch, &positions[i], sizeof(GameState))
                    if first[i] >= 0:
                        apply_action(&scratch, first[i])
                    checksum += scratch.turn
        apply_seconds = perf_counter() - started
    finally:
        PyMem_Free(positions)
        PyMem_Free(first)
    return {"legal_actions": legal_seconds, "clone": clone_seconds, "clone_and_apply": apply_seconds,
            "calls": n * repeats, "checksum": checksum}


# ------------------------------------------------------------------------------------------------
# Features for heuristic evaluation (the inputs of search.cvc_heuristic.cvc_expected_points)

ctypedef struct DisplayFit:
    int empty                 # empty spaces
    int usable                # empty spaces where some display room fits
    int best                  # the best VP among display rooms that fit an empty space
    int affordable            # ... among those the player can pay for now


cdef void board_facts(const Board* b, BoardFacts* facts) noexcept nogil:
    """The display-independent facts of a cave that the evaluations' features are made of."""
    cdef int i
    facts.empty = 0
    for i in range(NUM_SPACES):
        if b.spaces[i] == EMPTY:
            facts.fitting[facts.empty] = ROOMS_FITTING[wall_pattern(b, i)]
            facts.empty += 1
    facts.diggable = popcount(accessible_spaces(b.spaces, b.walls, 0))


cdef DisplayFit display_fit(const GameState* s, const Board* b, const BoardFacts* facts) noexcept nogil:
    """How the display's rooms fit the player's empty spaces (features of both evaluations)."""
    cdef DisplayFit fit
    cdef int i, g, room
    cdef uint32_t fitting, anywhere = 0
    fit.empty = facts.empty
    fit.usable = fit.best = fit.affordable = 0
    for i in range(facts.empty):
        fitting = s.display & facts.fitting[i]
        fit.usable += fitting != 0
        anywhere |= fitting
    for room in range(CAVE_ENTRANCE):       # each room that fits somewhere, once
        if not (anywhere >> room) & 1:
            continue
        if ROOM_VP[room] > fit.best:
            fit.best = ROOM_VP[room]
        if ROOM_VP[room] > fit.affordable:
            for g in range(6):
                if ROOM_COST[room][g] > b.goods[g]:
                    break
            else:
                fit.affordable = ROOM_VP[room]
    return fit


cdef void player_features(const GameState* s, int player, double* out) noexcept nogil:
    cdef BoardFacts facts
    board_facts(&s.players[player], &facts)
    player_features_of(s, player, &facts, out)


cdef void player_features_of(const GameState* s, int player, const BoardFacts* facts, double* out) noexcept nogil:
    """player_features, given the facts of the player's cave (`board_facts`)."""
    cdef const Board* b = &s.players[player]
    cdef int i, g, points = b.goods[GOLD]
    cdef DisplayFit fit = display_fit(s, b, facts)
    for i in range(NUM_SPACES):
        if b.spaces[i] >= 0:
            points += ROOM_VP[b.spaces[i]]
    out[0] = points
    for g in range(5):
        out[1 + g] = b.goods[g]
    out[6] = fit.empty
    out[7] = facts.diggable
    out[8] = popcount(b.walls)
    out[9] = fit.usable
    out[10] = fit.best
    out[11] = fit.affordable


cdef double turns_left_share(const GameState* s) noexcept nogil:
    """Share of a player's turns still to come (search.cvc_heuristic.cvc_turns_left_share)."""
    cdef int total = 0, done = 0, r, rounds = num_rounds(s)
    cdef double elapsed
    for r in range(rounds):
        total += TURNS[s.num_players - 1][r]
        if r < s.round:
            done += TURNS[s.num_players - 1][r]
    elapsed = done
    if s.round < rounds:
        elapsed += <double>s.turn / s.num_players
    return 1.0 - elapsed / total if elapsed < total else 0.0


# ------------------------------------------------------------------------------------------------
# Features for the learned value (the inputs of search.cvc_value; its `value_features` is the readable twin)

ctypedef struct CaveTally:
    uint32_t rooms      # bit r: the player's cave holds room r (r < CAVE_ENTRANCE)
    int room_vp         # printed points of every room in the cave, the entrance included
    int face_down       # face-down spaces left
    int orange
    int blue
    double room_weight  # the sum of room_weights[r] over those rooms (0 without room_weights)


cdef inline CaveTally cave_tally(const Board* b, const double* room_weights) noexcept nogil:
    """One walk over a cave's spaces, shared by `value_features_of` and `own_value_dot` (which passes its rooms'
    weights, NULL otherwise, so that the search's leaf needs no second loop over the rooms)."""
    cdef CaveTally tally
    cdef int i, room
    tally.rooms = 0
    tally.room_vp = 0
    tally.face_down = 0
    tally.orange = 0
    tally.blue = 0
    tally.room_weight = 0.0
    for i in range(NUM_SPACES):
        room = b.spaces[i]
        if room >= 0:
            tally.room_vp += ROOM_VP[room]
            if room < CAVE_ENTRANCE:
                tally.rooms |= (<uint32_t>1) << room
                if room_weights != NULL:
                    tally.room_weight += room_weights[room]
            if ROOM_ORANGE[room]:
                tally.orange += 1
            else:
                tally.blue += 1
        elif room == FACE_DOWN:
            tally.face_down += 1
    return tally


cdef void value_features(const GameState* s, int player, double* out) noexcept nogil:
    """`NUM_VALUE_FEATURES` numbers describing `player`'s prospects, in search.cvc_value.VALUE_FEATURES order."""
    cdef BoardFacts facts
    board_facts(&s.players[player], &facts)
    value_features_of(s, player, &facts, out)


cdef void value_features_of(const GameState* s, int player, const BoardFacts* facts, double* out) noexcept nogil:
    """value_features, given the facts of the player's cave (`board_facts`)."""
    cdef const Board* b = &s.players[player]
    cdef int i, g, room, built = 0, display_rooms = 0, display_vp = 0
    cdef DisplayFit fit = display_fit(s, b, facts)
    cdef CaveTally tally = cave_tally(b, NULL)
    for i in range(NUM_VALUE_FEATURES):
        out[i] = 0.0
    for room in range(CAVE_ENTRANCE):
        if (tally.rooms >> room) & 1:
            out[V_OWN_ROOM + room] = 1.0
    for room in range(CAVE_ENTRANCE):
        if (s.display >> room) & 1:
            display_rooms += 1
            display_vp += ROOM_VP[room]
    for i in range(s.num_players):
        built += popcount(s.players[i].walls)
    for g in range(6):
        out[V_GOODS + g] = b.goods[g]
    out[V_EMPTY] = fit.empty
    out[V_DIGGABLE] = facts.diggable
    out[V_FACE_DOWN] = tally.face_down
    out[V_OWN_WALLS] = popcount(b.walls)
    out[V_WALL_SUPPLY] = WALL_SUPPLY - built
    out[V_USABLE] = fit.usable
    out[V_BEST_FITTING] = fit.best
    out[V_BEST_AFFORDABLE] = fit.affordable
    out[V_DISPLAY_ROOMS] = display_rooms
    out[V_DISPLAY_VP] = display_vp
    out[V_CAVERN_OPEN] = s.cavern_owner < 0
    out[V_ORANGE_LEAD] = tally.orange - tally.blue
    for i in range(s.num_revealed):
        out[V_TILE + s.revealed[i]] = 1.0
    out[V_CONSTANT] = 1.0


cdef double own_value_dot(const GameState* s, int player, const BoardFacts* facts, const double* w) noexcept nogil:
    """`player`'s points plus the sum of `w[i] * value_features_of(...)[i]` over the features of the player's own
    cave and goods (`shared_value_dot` has the rest). The learned value's leaf sum, without building the
    55-long vector: its zeros and sequential dot product were a third of a search's time (perf)."""
    cdef const Board* b = &s.players[player]
    cdef DisplayFit fit = display_fit(s, b, facts)
    cdef CaveTally tally = cave_tally(b, &w[V_OWN_ROOM])
    cdef int g
    cdef double total = tally.room_weight
    for g in range(6):
        total += w[V_GOODS + g] * b.goods[g]
    total += (w[V_EMPTY] * fit.empty + w[V_DIGGABLE] * facts.diggable + w[V_FACE_DOWN] * tally.face_down
              + w[V_OWN_WALLS] * popcount(b.walls) + w[V_USABLE] * fit.usable + w[V_BEST_FITTING] * fit.best
              + w[V_BEST_AFFORDABLE] * fit.affordable + w[V_ORANGE_LEAD] * (tally.orange - tally.blue))
    return b.goods[GOLD] + tally.room_vp + total


cdef double shared_value_dot(const GameState* s, const double* w) noexcept nogil:
    """The sum of `w[i] * value_features_of(...)[i]` over the features every seat has alike (wall supply,
    display, Additional Cavern, face-up tiles, constant): with two players they cancel in the lead."""
    cdef int i, room, built = 0
    cdef double total = w[V_CONSTANT] + w[V_CAVERN_OPEN] * (s.cavern_owner < 0)
    for i in range(s.num_players):
        built += popcount(s.players[i].walls)
    total += w[V_WALL_SUPPLY] * (WALL_SUPPLY - built)
    for room in range(CAVE_ENTRANCE):
        if (s.display >> room) & 1:
            total += w[V_DISPLAY_ROOMS] + w[V_DISPLAY_VP] * ROOM_VP[room]
    for i in range(s.num_revealed):
        total += w[V_TILE + s.revealed[i]]
    return total
