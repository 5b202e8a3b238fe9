"""The compiled Caverna engine: `reference.py` on one flat C struct of small integers, for search and batches.

Read it beside the reference modules: each section mirrors one of them, and each C function carries the
name of the reference function it mirrors (`placement_legal` for `board.check_placement`, `tile_actions`
for `reference.tile_ids`, `score` for `scoring.score`, `atom_actions` for `ReferenceState._atom_actions`,
...). Rules data comes from the same table (`rules.py`, `actions.py`), copied into C arrays once when the
module loads: board geometry, tiles and every action's parameters, the furnishing table and the numbers the
reference reads from the tiles' texts (read once, through the reference's own functions), the action
spaces' effect trees flattened into node arrays, and per player count and option setting the rounds,
round cards, harvest schedule, accumulation and imitation costs (`Tables`). The data's scoring and bonus
formulas become coefficient and lookup tables (`_compile_formula`), never evaluated while playing.

Sections: data; boards (`board.py`, the board half of `furnishings.py`); scoring (`scoring.py`,
`summary.py`); husbandry (`husbandry.py`: `can_accommodate`, `breeding_options`, the exact search of
`_assign`); conversions (`conversions.py`: `food_potential`, `can_afford`, `payment_plan`, the same
conversions in the same order: the score-sheet values are sums of halves, exact in C doubles as in Python
floats); then the state (`reference.py`): furnishing effects, effect trees, the atoms' actions, placing and
imitating, legal actions, applying actions, rounds and harvests, and the random playout.

The position is `GameState` (a few KB, cloned with one memcpy). What the shared Python code reads of a
position and the struct does not answer directly (the record, the observation tensor, the rendering, the
agents' evaluator's fields, the reasons for refusing an illegal action) comes from `to_reference()`, the
same position as a ReferenceState, so both engines write the same records and explain a refusal in the
same words. `from_reference` builds the struct from any reference position (tests start both engines
from positions they build).

Where the C code departs from the reference's way of computing (never from its result): `gain` checks the
animals once after adding a whole gain, where the reference checks after each farm animal of the dict in
turn; no gain of the data holds a dog after a farm animal, so the check sees the same animals.
"""
cimport cython
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, int16_t, uint16_t, int32_t

import numpy as np

from . import board as hb
from .actions import BUY_TILE as PY_BUY_TILE, TILE as PY_TILE, action_table
from .rules import ANIMALS, FARM_ANIMALS, GOODS, formula, rules

# ------------------------------------------------------------------------------------------------
# Data: the rules table copied into C arrays when the module loads

cdef enum:
    AREA_FOREST = 0
    AREA_MOUNTAIN = 1
    NUM_ITER = NUM_POS
    CROP_NONE = 0
    CROP_GRAIN = 1
    CROP_VEGETABLE = 2
    MAX_FORMULA_VARS = 8
    POOL_SIZE = 1 << 18
    F_AFFINE = 0
    F_SUM_TABLE = 1
    F_DENSE = 2

# geometry
cdef int8_t POS_ROW[NUM_POS]
cdef int8_t POS_COL[NUM_POS]
cdef int8_t POS_AREA[NUM_POS]
cdef int8_t POS_ON_BOARD[NUM_POS]
cdef int8_t NEIGH[NUM_POS][4]          # position index of each orthogonal neighbour, -1 where none is numbered
cdef int8_t ITER[NUM_ITER]             # `Board.items()` order: the grid, then the overhang positions sorted
cdef int8_t ANCHOR[2][NUM_POS]         # first forest tile: must_cover_3_2, adjacent_to_either_preprinted_space
cdef int16_t COVER_GAIN[NUM_POS][NUM_HOLD]   # printed bonus icons paid to the tile that first covers them
cdef int8_t TERRAIN_AREA[10]

# furnishings
cdef int ENTRY, OFFICE_ROOM, WORK_ROOM, OFFICE_GOLD, STABLES_MAX
cdef int8_t F_DWELLING[NUM_FURN]
cdef int8_t F_YELLOW[NUM_FURN]
cdef int8_t F_UNLIMITED[NUM_FURN]
cdef int8_t F_SIMPLE[NUM_FURN]         # the two Simple dwellings: points per `simple_dwelling_vp`
cdef int8_t F_VP[NUM_FURN]
cdef int8_t F_RIVAL[NUM_FURN]          # the mutually exclusive partner (Trader / Spare part storage), or -1
cdef int8_t F_BONUS[NUM_FURN]          # index of the bonus formula, or -1

# tiles and their actions
cdef int8_t TILE_NEW_LAND[NUM_TILES]
cdef int8_t TILE_UPGRADE_ON_BOARD_ONLY[NUM_TILES]   # mines and large pastures never cover overhang halves
cdef int TILE_ORE_MINE, TILE_RUBY_MINE, TILE_SMALL_PASTURE, TILE_LARGE_PASTURE
cdef int NUM_SPECS
cdef int SPEC_ACTION[MAX_TILE_SPECS]   # the TILE action id
cdef int SPEC_BUY[MAX_TILE_SPECS]      # the BUY_TILE action id of the same placement, or -1
cdef int8_t SPEC_TILE[MAX_TILE_SPECS]
cdef int8_t SPEC_NCELLS[MAX_TILE_SPECS]
cdef int8_t SPEC_CELL[MAX_TILE_SPECS][2]
cdef int8_t SPEC_HALF[MAX_TILE_SPECS][2]
cdef int TILE_FIRST[NUM_TILES]         # the tile's specs are TILE_FIRST .. TILE_FIRST + TILE_COUNT - 1 (id order)
cdef int TILE_COUNT[NUM_TILES]
cdef int ACTION_SPEC[MAX_ACTIONS]      # TILE or BUY_TILE action -> spec, else -1
cdef int STABLE_ACTION[NUM_POS]        # STABLE action id at a position, or -1
cdef int NUM_ACTIONS

# scoring: formulas as tables
ctypedef struct Formula:
    int8_t kind
    int8_t nvars
    int8_t var[MAX_FORMULA_VARS]
    int32_t constant
    int32_t coef[MAX_FORMULA_VARS]      # F_AFFINE
    int32_t lo[MAX_FORMULA_VARS]        # F_DENSE: each variable's domain; F_SUM_TABLE: lo[0], hi[0] of the sum
    int32_t hi[MAX_FORMULA_VARS]
    int32_t stride[MAX_FORMULA_VARS]
    int32_t period                      # F_SUM_TABLE above hi[0]: value(x) = value(x - period) + step (0: clamp)
    int32_t step
    int32_t offset                      # into POOL

cdef Formula FORMULAS[MAX_FORMULAS]
cdef int32_t POOL[POOL_SIZE]
cdef int POOL_USED = 0
cdef int NUM_FORMULAS = 0
cdef int NUM_CATEGORIES
cdef int CATEGORY_FORMULA[16]
cdef int PENALTY_FORMULA[3]            # missing types, unused spaces, begging: the Writing chamber's refund

# The variables the data's formulas read (summary.base_variables, bonus_variables; vp and bonus are sums).
VARIABLES = ("sheep", "donkey", "wild_boar", "cattle", "dog", "types_with_zero", "grain_total", "vegetable_total",
             "rubies", "dwarfs", "unused_spaces", "small", "large", "ore_mines", "ruby_mines", "gold",
             "begging_markers", "stone", "ore", "armed_dwarfs", "farm_animals", "yellow_tiles_owned",
             "adjacent_dwellings", "missing_types_penalty", "unused_penalty", "begging_penalty", "vp", "bonus")
cdef enum:
    V_SHEEP = 0
    V_TYPES_WITH_ZERO = 5
    V_GRAIN_TOTAL = 6
    V_VEGETABLE_TOTAL = 7
    V_RUBIES = 8
    V_DWARFS = 9
    V_UNUSED = 10
    V_SMALL = 11
    V_LARGE = 12
    V_ORE_MINES = 13
    V_RUBY_MINES = 14
    V_GOLD = 15
    V_BEGGING = 16
    V_STONE = 17
    V_ORE = 18
    V_ARMED = 19
    V_FARM_ANIMALS = 20
    V_YELLOW = 21
    V_ADJACENT_DWELLINGS = 22
    V_MISSING_PENALTY = 23
    V_UNUSED_PENALTY = 24
    V_BEGGING_PENALTY = 25
    V_VP = 26
    V_BONUS = 27

# The range each variable can take in a position (tables cover it; see _compile_formula).
_DOMAINS = {"sheep": (0, 255), "donkey": (0, 255), "wild_boar": (0, 255), "cattle": (0, 255), "dog": (0, 255),
            "types_with_zero": (0, 4), "grain_total": (0, 255), "vegetable_total": (0, 255), "rubies": (0, 255),
            "dwarfs": (0, 7), "unused_spaces": (0, 24), "small": (0, 24), "large": (0, 12), "ore_mines": (0, 24),
            "ruby_mines": (0, 24), "gold": (0, 255), "begging_markers": (0, 255), "stone": (0, 255),
            "ore": (0, 255), "armed_dwarfs": (0, 7), "farm_animals": (0, 1020), "yellow_tiles_owned": (0, 48),
            "adjacent_dwellings": (0, 4), "missing_types_penalty": (-1024, 0), "unused_penalty": (-1024, 0),
            "begging_penalty": (-1024, 0), "vp": (-1024, 1024), "bonus": (-1024, 1024)}
_LIST_VARIABLES = ("vp", "bonus")


def _formula_function(text):
    """The data formula as a function of its variables' values (list variables get a one-item list)."""
    f = formula(text)
    names = tuple(sorted(f.names))
    def evaluate(values):
        return f({n: ([v] if n in _LIST_VARIABLES else v) for n, v in zip(names, values)})
    return names, evaluate


def _sample_points(domains, rng, count):
    """Corners, axis points and random points of a box of integer domains."""
    points = [tuple(lo for lo, _ in domains), tuple(hi for _, hi in domains)]
    for i, (lo, hi) in enumerate(domains):
        for x in range(lo, min(hi, lo + 40) + 1):
            p = [max(l, min(h, 0)) for l, h in domains]
            p[i] = x
            points.append(tuple(p))
    for _ in range(count):
        points.append(tuple(int(rng.integers(lo, hi + 1)) for lo, hi in domains))
    return points


def _table_period(values):
    """(period, step) continuing a table's values past its end: value(x + period) = value(x) + step."""
    tail = values[len(values) - 128:]
    for period in range(1, 17):
        steps = {tail[k + period] - tail[k] for k in range(len(tail) - period)}
        if len(steps) == 1:
            return period, steps.pop()
    return 0, 0         # none: values past the end are taken at the end, like a dense table's


cdef int _compile_formula(str text) except -1:
    """Turn a data formula into a table entry: affine (coefficients), a function of its variables' sum (a
    lookup table continued periodically), or a dense table over its variables' domains. The kind is chosen
    by checking the formula on its domains when the module loads."""
    global POOL_USED, NUM_FORMULAS
    names, evaluate = _formula_function(text)
    if len(names) > MAX_FORMULA_VARS or NUM_FORMULAS >= MAX_FORMULAS:
        raise ValueError(f"rules data: formula {text!r} is too large for the compiled tables")
    domains = [_DOMAINS[n] for n in names]
    rng = np.random.default_rng(len(text))
    points = _sample_points(domains, rng, 3000)
    cdef Formula* f = &FORMULAS[NUM_FORMULAS]
    memset(f, 0, sizeof(Formula))
    f.nvars = len(names)
    for i, n in enumerate(names):
        f.var[i] = VARIABLES.index(n)
        f.lo[i], f.hi[i] = domains[i]
    origin = tuple(max(lo, min(hi, 0)) for lo, hi in domains)
    c0 = evaluate(origin)
    coef = []
    for i in range(len(names)):
        p = list(origin)
        p[i] += 1
        coef.append(evaluate(tuple(p)) - c0)
    if all(evaluate(p) == c0 + sum(c * (x - o) for c, x, o in zip(coef, p, origin)) for p in points):
        f.kind = F_AFFINE
        f.constant = c0 - sum(c * o for c, o in zip(coef, origin))
        for i, c in enumerate(coef):
            f.coef[i] = c
        NUM_FORMULAS += 1
        return NUM_FORMULAS - 1
    lo_sum, hi_sum = sum(lo for lo, _ in domains), sum(hi for _, hi in domains)

    def spread(total):
        """A point of the domains whose values add up to `total`."""
        p = [lo for lo, _ in domains]
        left = total - sum(p)
        for i, (lo, hi) in enumerate(domains):
            add = min(hi - lo, left)
            p[i] += add
            left -= add
        return tuple(p)

    table = [evaluate(spread(x)) for x in range(lo_sum, hi_sum + 1)]
    if all(evaluate(p) == table[sum(p) - lo_sum] for p in points) and POOL_USED + len(table) <= POOL_SIZE:
        f.kind = F_SUM_TABLE
        f.lo[0], f.hi[0] = lo_sum, hi_sum
        f.period, f.step = _table_period(table) if len(table) > 128 else (1, 0)
        f.offset = POOL_USED
        for k, v in enumerate(table):
            POOL[POOL_USED + k] = v
        POOL_USED += len(table)
        NUM_FORMULAS += 1
        return NUM_FORMULAS - 1
    size = 1
    for lo, hi in domains:
        size *= hi - lo + 1
    if POOL_USED + size > POOL_SIZE:
        raise ValueError(f"rules data: formula {text!r} needs a table too large for the compiled core")
    f.kind = F_DENSE
    f.offset = POOL_USED
    stride = 1
    for i in reversed(range(len(names))):
        f.stride[i] = stride
        stride *= domains[i][1] - domains[i][0] + 1
    import itertools
    for k, p in enumerate(itertools.product(*[range(lo, hi + 1) for lo, hi in domains])):
        POOL[POOL_USED + k] = evaluate(p)
    POOL_USED += size
    NUM_FORMULAS += 1
    return NUM_FORMULAS - 1


cdef int eval_formula(int k, const int* v) noexcept nogil:
    """A compiled formula's value on a variables vector (`rules.formula`'s value on the same variables).
    Dense tables hold their variables' domains (`_DOMAINS`; a value outside is taken at the nearest end)."""
    cdef const Formula* f = &FORMULAS[k]
    cdef int i, x, r, idx, steps
    if f.kind == F_AFFINE:
        r = f.constant
        for i in range(f.nvars):
            r += f.coef[i] * v[f.var[i]]
        return r
    if f.kind == F_SUM_TABLE:
        x = 0
        for i in range(f.nvars):
            x += v[f.var[i]]
        if x < f.lo[0]:
            x = f.lo[0]
        if x > f.hi[0] and f.period == 0:
            x = f.hi[0]
        elif x > f.hi[0]:
            steps = (x - f.hi[0] + f.period - 1) // f.period
            return POOL[f.offset + x - steps * f.period - f.lo[0]] + steps * f.step
        return POOL[f.offset + x - f.lo[0]]
    idx = 0
    for i in range(f.nvars):
        x = v[f.var[i]]
        if x < f.lo[i]:
            x = f.lo[i]
        if x > f.hi[i]:
            x = f.hi[i]
        idx += (x - f.lo[i]) * f.stride[i]
    return POOL[f.offset + idx]


# Python-side indexes (conversions between the reference's records and the C structs)
TERRAINS = (hb.EMPTY,) + hb.FOREST_TERRAINS + hb.MOUNTAIN_TERRAINS
POSITIONS = ()
POS_INDEX = {}
FURNISHING_IDS = ()
FURN_INDEX = {}


def _positions():
    r = rules()
    grid = [(row, col) for row in range(r.rows) for col in range(r.cols)]
    return tuple(grid + hb.overhang_positions(hb.FOREST) + hb.overhang_positions(hb.MOUNTAIN))


def _load_tables():
    global ENTRY, OFFICE_ROOM, WORK_ROOM, OFFICE_GOLD, STABLES_MAX, NUM_SPECS, NUM_ACTIONS, NUM_CATEGORIES
    global TILE_ORE_MINE, TILE_RUBY_MINE, TILE_SMALL_PASTURE, TILE_LARGE_PASTURE
    global POSITIONS, POS_INDEX, FURNISHING_IDS, FURN_INDEX
    r = rules()
    table = action_table()
    if len(GOODS) != NUM_GOODS or len(ANIMALS) != NUM_ANIMALS or len(TERRAINS) != 10:
        raise ValueError("compiled caverna core: goods, animals or terrains changed; update compiled.pxd")
    if len(table) > MAX_ACTIONS:
        raise ValueError(f"compiled caverna core: {len(table)} actions, MAX_ACTIONS is {MAX_ACTIONS}")
    NUM_ACTIONS = len(table)
    # geometry
    POSITIONS = _positions()
    if len(POSITIONS) != NUM_POS or r.rows * r.cols != NUM_GRID:
        raise ValueError("compiled caverna core: the board geometry changed; update compiled.pxd")
    POS_INDEX = {p: i for i, p in enumerate(POSITIONS)}
    for i, p in enumerate(POSITIONS):
        POS_ROW[i], POS_COL[i] = p
        POS_AREA[i] = AREA_FOREST if hb.area(p) == hb.FOREST else AREA_MOUNTAIN
        POS_ON_BOARD[i] = hb.on_board(p)
        for k, n in enumerate(hb.neighbours(p)):
            NEIGH[i][k] = POS_INDEX.get(n, -1)
    order = list(range(NUM_GRID)) + sorted(range(NUM_GRID, NUM_POS), key=lambda i: POSITIONS[i])
    for k, i in enumerate(order):
        ITER[k] = i
    strict = {r.cave_entrance}
    loose = {n for p in r.preprinted for n in hb.neighbours(p) if hb.on_board(n) and hb.area(n) == hb.FOREST}
    for i, p in enumerate(POSITIONS):
        ANCHOR[0][i] = p in strict
        ANCHOR[1][i] = p in loose
    memset(COVER_GAIN, 0, sizeof(COVER_GAIN))
    hold = GOODS + ANIMALS
    for s in r.special_spaces:
        for g, n in s.on_cover:
            COVER_GAIN[POS_INDEX[s.pos]][hold.index(g)] += n
    for t, name in enumerate(TERRAINS):
        TERRAIN_AREA[t] = AREA_FOREST if name in hb.FOREST_TERRAINS else AREA_MOUNTAIN
    # furnishings
    furnishings = list(r.furnishings) + [r.entry_level_dwelling]
    if len(furnishings) != NUM_FURN or any(f.index != k for k, f in enumerate(furnishings)):
        raise ValueError("compiled caverna core: the furnishing table changed; update NUM_FURN")
    FURNISHING_IDS = tuple(f.id for f in furnishings)
    FURN_INDEX = {fid: k for k, fid in enumerate(FURNISHING_IDS)}
    ENTRY = FURN_INDEX[r.entry_level_dwelling.id]
    OFFICE_ROOM, WORK_ROOM = FURN_INDEX["office_room"], FURN_INDEX["work_room"]
    OFFICE_GOLD = r.furnishing("office_room").param("gold_per_overhang")
    STABLES_MAX = r.stables_per_player
    from .furnishings import exclusive_pairs
    rivals = exclusive_pairs()
    for k, f in enumerate(furnishings):
        F_DWELLING[k] = f.is_dwelling
        F_YELLOW[k] = f.yellow_tag
        F_UNLIMITED[k] = f.unlimited
        F_SIMPLE[k] = f.is_dwelling and f.name == "Simple dwelling"
        F_VP[k] = f.vp
        F_RIVAL[k] = FURN_INDEX[rivals[f.id]] if f.id in rivals else -1
        F_BONUS[k] = _compile_formula(f.bonus_formula) if f.bonus_formula else -1
    # tiles
    if len(hb.TILES) != NUM_TILES:
        raise ValueError("compiled caverna core: the tiles changed; update NUM_TILES")
    for t, name in enumerate(hb.TILES):
        TILE_NEW_LAND[t] = name in hb.NEW_LAND
        TILE_UPGRADE_ON_BOARD_ONLY[t] = name in ("ore_mine_deep_tunnel", "large_pasture", "ruby_mine")
    TILE_ORE_MINE, TILE_RUBY_MINE = hb.TILES.index("ore_mine_deep_tunnel"), hb.TILES.index("ruby_mine")
    TILE_SMALL_PASTURE, TILE_LARGE_PASTURE = hb.TILES.index("small_pasture"), hb.TILES.index("large_pasture")
    for a in range(MAX_ACTIONS):
        ACTION_SPEC[a] = -1
    specs = sorted((i for i in table.tile.values()), key=lambda i: (hb.TILES.index(table.specs[i].placement.tile), i))
    if len(specs) > MAX_TILE_SPECS:
        raise ValueError("compiled caverna core: too many tile placements; raise MAX_TILE_SPECS")
    NUM_SPECS = len(specs)
    for t in range(NUM_TILES):
        TILE_FIRST[t] = 0
        TILE_COUNT[t] = 0
    for k, i in enumerate(specs):
        pl = table.specs[i].placement
        t = hb.TILES.index(pl.tile)
        if TILE_COUNT[t] == 0:
            TILE_FIRST[t] = k
        TILE_COUNT[t] += 1
        SPEC_ACTION[k] = i
        SPEC_TILE[k] = t
        SPEC_NCELLS[k] = len(pl.cells)
        for c, (cell, half) in enumerate(zip(pl.cells, pl.halves)):
            SPEC_CELL[k][c] = POS_INDEX[cell]
            SPEC_HALF[k][c] = TERRAINS.index(half)
        from .actions import placement_key
        SPEC_BUY[k] = table.buy_key.get(placement_key(pl), -1)
        ACTION_SPEC[i] = k
        if SPEC_BUY[k] >= 0:
            ACTION_SPEC[SPEC_BUY[k]] = k
    for i in range(NUM_POS):
        STABLE_ACTION[i] = table.stable.get(POSITIONS[i], -1)
    # scoring
    if len(r.scoring) > 16:
        raise ValueError("compiled caverna core: too many scoring categories")
    NUM_CATEGORIES = len(r.scoring)
    by_id = {}
    for k, c in enumerate(r.scoring):
        CATEGORY_FORMULA[k] = _compile_formula(c.formula)
        by_id[c.id] = CATEGORY_FORMULA[k]
    from .summary import PENALTY_CATEGORIES
    for k, name in enumerate(("missing_types_penalty", "unused_penalty", "begging_penalty")):
        PENALTY_FORMULA[k] = by_id[PENALTY_CATEGORIES[name]]


_load_tables()


cdef Config make_config(object config) except *:
    """The C form of a `rules.Config` (the options the ported sections read)."""
    cdef Config cfg
    memset(&cfg, 0, sizeof(Config))
    cfg.office_usable = bool(config.office_room_overhang_usable)
    cfg.anchor_any = config.first_forest_tile_anchor == "adjacent_to_either_preprinted_space"
    cfg.food_chamber_supply_only = config.food_chamber_counts == "supply_only"
    cfg.simple_dwelling_vp = config.simple_dwelling_vp
    return cfg


# ------------------------------------------------------------------------------------------------
# Boards (board.py; the furnishing placement of furnishings.py)

cdef inline bint usable(const Board* b, const Config* cfg, int pos) noexcept nogil:
    """`pos in board.positions(config)`: a printed space, or an overhang half when those are usable."""
    if POS_ON_BOARD[pos]:
        return True
    return b.sp[pos].terrain != NO_SPACE and cfg.office_usable


cdef bint owns(const Board* b, int fid) noexcept nogil:
    """`board.owns`: a working copy of the furnishing lies on the board (overhang halves included)."""
    cdef int i
    for i in range(NUM_POS):
        if b.sp[i].furnishing == fid:
            return True
    return False


cdef int stable_count(const Board* b) noexcept nogil:
    cdef int i, n = 0
    for i in range(NUM_POS):
        n += b.sp[i].stable
    return n


cdef int unused_spaces(const Board* b) noexcept nogil:
    """`board.unused_spaces`: printed spaces without a tile and without a stable."""
    cdef int i, n = 0
    for i in range(NUM_GRID):
        if b.sp[i].terrain == T_EMPTY and not b.sp[i].stable:
            n += 1
    return n


cdef bint adjacency_ok(const Board* b, const Config* cfg, int spec) noexcept nogil:
    """`board._check_adjacency`: new land touches its area's tiles (the first forest tile: the anchor)."""
    cdef int area = POS_AREA[SPEC_CELL[spec][0]]
    cdef int i, k, c, n, pos
    cdef bint any_occupied = False
    cdef uint8_t occupied[NUM_POS]
    for i in range(NUM_POS):
        occupied[i] = (POS_AREA[i] == area and usable(b, cfg, i) and b.sp[i].terrain != T_EMPTY
                       and b.sp[i].terrain != NO_SPACE)
        if occupied[i]:
            any_occupied = True
    if area == AREA_FOREST and not any_occupied:
        for c in range(SPEC_NCELLS[spec]):
            if ANCHOR[cfg.anchor_any][SPEC_CELL[spec][c]]:
                return True
        return False
    for c in range(SPEC_NCELLS[spec]):
        pos = SPEC_CELL[spec][c]
        for k in range(4):
            n = NEIGH[pos][k]
            if n >= 0 and occupied[n]:
                return True
    return False


cdef bint placement_legal(const Board* b, const Config* cfg, int spec) noexcept nogil:
    """`board.check_placement(...) is None` for a numbered tile placement (the table's geometry is given)."""
    cdef int tile = SPEC_TILE[spec]
    cdef int n = SPEC_NCELLS[spec]
    cdef int c, pos, half, off = 0, off_pos = -1
    cdef const Space* sp
    if TILE_NEW_LAND[tile]:
        for c in range(n):
            if not POS_ON_BOARD[SPEC_CELL[spec][c]]:
                off += 1
                off_pos = SPEC_CELL[spec][c]
        if off:
            if n != 2 or off == 2 or not owns(b, OFFICE_ROOM) or b.sp[off_pos].terrain != NO_SPACE:
                return False
    for c in range(n):
        pos = SPEC_CELL[spec][c]
        half = SPEC_HALF[spec][c]
        if POS_AREA[pos] != TERRAIN_AREA[half]:
            return False
        if TILE_NEW_LAND[tile]:
            sp = &b.sp[pos]
            if sp.terrain != NO_SPACE and sp.terrain != T_EMPTY:
                return False
            if half == T_FIELD and sp.terrain != NO_SPACE and sp.stable:
                return False
    if TILE_NEW_LAND[tile]:
        return adjacency_ok(b, cfg, spec)
    for c in range(n):          # `board._check_upgrade`
        pos = SPEC_CELL[spec][c]
        if not usable(b, cfg, pos):
            return False
        if TILE_UPGRADE_ON_BOARD_ONLY[tile] and not POS_ON_BOARD[pos]:
            return False
        sp = &b.sp[pos]
        if tile == TILE_ORE_MINE and (sp.terrain != T_TUNNEL or sp.furnishing >= 0):
            return False
        if tile == TILE_RUBY_MINE and ((sp.terrain != T_TUNNEL and sp.terrain != T_DEEP_TUNNEL)
                                       or sp.furnishing >= 0):
            return False
        if (tile == TILE_SMALL_PASTURE or tile == TILE_LARGE_PASTURE) and sp.terrain != T_MEADOW:
            return False
    return True


cdef int tile_actions(const Board* b, const Config* cfg, int tile, int* out) noexcept nogil:
    """`reference.tile_ids`: the TILE action ids of a tile's legal placements, ascending."""
    cdef int k, count = 0
    for k in range(TILE_FIRST[tile], TILE_FIRST[tile] + TILE_COUNT[tile]):
        if placement_legal(b, cfg, k):
            out[count] = SPEC_ACTION[k]
            count += 1
    return count


cdef bint stable_legal(const Board* b, const Config* cfg, int pos) noexcept nogil:
    """`board._check_stable(...) is None`."""
    cdef int t = b.sp[pos].terrain
    if not usable(b, cfg, pos) or POS_AREA[pos] != AREA_FOREST:
        return False
    if t != T_EMPTY and t != T_MEADOW and t != T_SMALL_PASTURE and t != T_LARGE_PASTURE:
        return False
    return not b.sp[pos].stable and stable_count(b) < STABLES_MAX


cdef int stable_actions(const Board* b, const Config* cfg, int* out) noexcept nogil:
    """`reference.stable_ids`: STABLE action ids of the legal stable positions, ascending (position order)."""
    cdef int i, count = 0
    for i in range(NUM_POS):
        if STABLE_ACTION[i] >= 0 and stable_legal(b, cfg, i):
            out[count] = STABLE_ACTION[i]
            count += 1
    return count


cdef void place_tile(Board* b, int spec, int* gains) noexcept nogil:
    """`board.place_with_gains` for a legal placement: the board changes, `gains` (a holdings vector) grows."""
    cdef int tile = SPEC_TILE[spec]
    cdef int n = SPEC_NCELLS[spec]
    cdef int c, g, pos
    cdef bint off = False
    cdef uint8_t stable
    if TILE_NEW_LAND[tile]:
        for c in range(n):
            pos = SPEC_CELL[spec][c]
            if not POS_ON_BOARD[pos]:
                off = True
            elif b.sp[pos].terrain == T_EMPTY:
                for g in range(NUM_HOLD):
                    gains[g] += COVER_GAIN[pos][g]
        if off:
            gains[6] += OFFICE_GOLD          # gold
    for c in range(n):
        pos = SPEC_CELL[spec][c]
        stable = b.sp[pos].stable if b.sp[pos].terrain != NO_SPACE else 0
        memset(&b.sp[pos], 0, sizeof(Space))
        b.sp[pos].terrain = SPEC_HALF[spec][c]
        b.sp[pos].furnishing = -1
        b.sp[pos].overbuilt = -1
        b.sp[pos].partner = SPEC_CELL[spec][1 - c] if tile == TILE_LARGE_PASTURE else -1
        b.sp[pos].stable = stable


cdef void place_stable(Board* b, int pos) noexcept nogil:
    b.sp[pos].stable = 1


cdef int sowable_fields(const Board* b, const Config* cfg, int* out) noexcept nogil:
    """`board.sowable_fields`: fields with nothing growing, in `Board.items()` order."""
    cdef int k, i, count = 0
    for k in range(NUM_ITER):
        i = ITER[k]
        if usable(b, cfg, i) and b.sp[i].terrain == T_FIELD and b.sp[i].crop_count == 0:
            out[count] = i
            count += 1
    return count


cdef void sow(Board* b, int pos, int crop) noexcept nogil:
    """`board.sow` on a sowable field: 3 grain or 2 vegetables (the seed is the caller's)."""
    b.sp[pos].crop = crop
    b.sp[pos].crop_count = SOW_TOKENS[crop]


cdef int8_t SOW_TOKENS[3]
SOW_TOKENS[0] = 0
SOW_TOKENS[CROP_GRAIN] = rules().sow_tokens["grain"]
SOW_TOKENS[CROP_VEGETABLE] = rules().sow_tokens["vegetable"]


cdef void harvest_fields(Board* b, const Config* cfg, int* crops) noexcept nogil:
    """`board.harvest_fields`: 1 token from every sown field; crops[0] grain, crops[1] vegetables grow."""
    cdef int k, i
    for k in range(NUM_ITER):
        i = ITER[k]
        if usable(b, cfg, i) and b.sp[i].terrain == T_FIELD and b.sp[i].crop_count > 0:
            crops[b.sp[i].crop - 1] += 1
            b.sp[i].crop_count -= 1
            if b.sp[i].crop_count == 0:
                b.sp[i].crop = CROP_NONE


cdef int furnish_targets(const Board* b, const Config* cfg, int fid, int* out) noexcept nogil:
    """`furnishings.furnish_targets`: the spaces this furnishing may go on, in `Board.items()` order."""
    cdef int k, i, count = 0, rival = F_RIVAL[fid]
    cdef bint work_room
    if fid == ENTRY:
        return 0
    if not F_UNLIMITED[fid]:
        for i in range(NUM_POS):
            if b.sp[i].furnishing == fid or b.sp[i].overbuilt == fid:
                return 0
    if rival >= 0 and owns(b, rival):
        for k in range(NUM_ITER):
            i = ITER[k]
            if usable(b, cfg, i) and b.sp[i].furnishing == rival:
                out[count] = i
                count += 1
        return count
    work_room = owns(b, WORK_ROOM)
    for k in range(NUM_ITER):
        i = ITER[k]
        if not usable(b, cfg, i) or b.sp[i].furnishing >= 0:
            continue
        if b.sp[i].terrain == T_CAVERN or (work_room and (b.sp[i].terrain == T_TUNNEL
                                                          or b.sp[i].terrain == T_DEEP_TUNNEL)):
            out[count] = i
            count += 1
    return count


cdef void furnish(Board* b, int fid, int pos) noexcept nogil:
    """`furnishings.furnish` on a target: the old furnishing (a rival) lies under the new one."""
    b.sp[pos].overbuilt = b.sp[pos].furnishing
    b.sp[pos].furnishing = fid


# ------------------------------------------------------------------------------------------------
# Scoring (scoring.py, summary.py, furnishings.vp / bonus_points)

cdef inline int furnishing_vp(int fid, const Config* cfg) noexcept nogil:
    """`furnishings.vp`: printed points (the Simple dwellings per `simple_dwelling_vp`)."""
    return cfg.simple_dwelling_vp if F_SIMPLE[fid] else F_VP[fid]


cdef int adjacent_dwellings(const Board* b, const Config* cfg, int pos) noexcept nogil:
    """`summary.adjacent_dwellings`: dwellings (the entry-level one included) orthogonally next to `pos`."""
    cdef int k, n, count = 0
    for k in range(4):
        n = NEIGH[pos][k]
        if n < 0 or b.sp[n].terrain == NO_SPACE or (not POS_ON_BOARD[n] and not cfg.office_usable):
            continue
        if b.sp[n].furnishing >= 0 and F_DWELLING[b.sp[n].furnishing]:
            count += 1
    return count


cdef int score(const Summary* s, const Config* cfg) noexcept nogil:
    """`scoring.score(summary, config).total`."""
    cdef const Board* b = &s.board
    cdef int base[NUM_VARS]
    cdef int bonus_vars[NUM_VARS]
    cdef int k, i, fid, a, total, grain = 0, vegetable = 0, small = 0, large = 0, vp_sum = 0, bonus_sum = 0
    cdef int yellow = 0, farm = 0
    memset(base, 0, sizeof(base))
    for k in range(NUM_ITER):
        i = ITER[k]
        if not usable(b, cfg, i):
            continue
        if b.sp[i].crop == CROP_GRAIN:
            grain += b.sp[i].crop_count
        elif b.sp[i].crop == CROP_VEGETABLE:
            vegetable += b.sp[i].crop_count
        if b.sp[i].terrain == T_SMALL_PASTURE:
            small += 1
        elif b.sp[i].terrain == T_LARGE_PASTURE:
            large += 1
        fid = b.sp[i].furnishing
        if fid >= 0 and F_YELLOW[fid]:
            yellow += 1
    for i in range(NUM_GRID):
        if b.sp[i].terrain == T_ORE_MINE:
            base[V_ORE_MINES] += 1
        elif b.sp[i].terrain == T_RUBY_MINE:
            base[V_RUBY_MINES] += 1
    for a in range(NUM_ANIMALS):
        base[V_SHEEP + a] = s.animals[a]
    for a in range(NUM_ANIMALS - 1):       # the farm animals
        if s.animals[a] == 0:
            base[V_TYPES_WITH_ZERO] += 1
        farm += s.animals[a]
    base[V_GRAIN_TOTAL] = s.goods[3] + grain
    base[V_VEGETABLE_TOTAL] = s.goods[4] + vegetable
    base[V_RUBIES] = s.goods[5]
    base[V_DWARFS] = s.dwarfs
    base[V_UNUSED] = unused_spaces(b)
    base[V_SMALL] = small
    base[V_LARGE] = large // 2
    base[V_GOLD] = s.goods[6]
    base[V_BEGGING] = s.begging
    memcpy(bonus_vars, base, sizeof(base))
    bonus_vars[V_STONE] = s.goods[1]
    bonus_vars[V_ORE] = s.goods[2]
    bonus_vars[V_ARMED] = s.armed_dwarfs
    bonus_vars[V_FARM_ANIMALS] = farm
    bonus_vars[V_YELLOW] = yellow
    if cfg.food_chamber_supply_only:
        bonus_vars[V_GRAIN_TOTAL] = s.goods[3]
        bonus_vars[V_VEGETABLE_TOTAL] = s.goods[4]
    bonus_vars[V_MISSING_PENALTY] = eval_formula(PENALTY_FORMULA[0], base)
    bonus_vars[V_UNUSED_PENALTY] = eval_formula(PENALTY_FORMULA[1], base)
    bonus_vars[V_BEGGING_PENALTY] = eval_formula(PENALTY_FORMULA[2], base)
    for k in range(NUM_ITER):
        i = ITER[k]
        fid = b.sp[i].furnishing
        if not usable(b, cfg, i) or fid < 0 or fid == ENTRY:
            continue
        vp_sum += furnishing_vp(fid, cfg)
        if F_BONUS[fid] >= 0:
            bonus_vars[V_ADJACENT_DWELLINGS] = adjacent_dwellings(b, cfg, i)
            bonus_sum += eval_formula(F_BONUS[fid], bonus_vars)
    base[V_VP] = vp_sum
    base[V_BONUS] = bonus_sum
    total = 0
    for k in range(NUM_CATEGORIES):
        total += eval_formula(CATEGORY_FORMULA[k], base)
    return total


# ------------------------------------------------------------------------------------------------
# Husbandry (husbandry.py): whether the animals fit, and which newborns fit

cdef enum:
    NUM_FARM = 4
    ALL_FARM = 15              # type mask of a holding that takes any farm type
    MAX_HOLDINGS = 64
    MAX_CLASSES = 16
    ROOM_FIXED = 0             # animal room capacity kinds
    ROOM_DWARFS = 1
    ROOM_PER_EMPTY_FIELD = 2

cdef int8_t PASTURE_CAP[3][4]          # [spaces][stables]: the data's pasture formula
cdef int8_t MEADOW_STABLE_CAP, MEADOW_STABLE_TYPES, FOREST_STABLE_CAP, FOREST_STABLE_TYPES, MINE_CAP, MINE_TYPES
cdef int8_t F_ROOM_KIND[NUM_FURN]      # -1 no animal room
cdef int8_t F_ROOM_CAP[NUM_FURN]
cdef int8_t F_ROOM_TYPES[NUM_FURN]     # bit t: farm type t


def _type_mask(types):
    mask = 0
    for a in types:
        mask |= 1 << FARM_ANIMALS.index(a)
    if bin(mask).count("1") != 1 and mask != ALL_FARM:
        raise ValueError(f"compiled caverna core: a holding takes {types}: all or one farm type only")
    return mask


def _load_husbandry():
    global MEADOW_STABLE_CAP, MEADOW_STABLE_TYPES, FOREST_STABLE_CAP, FOREST_STABLE_TYPES, MINE_CAP, MINE_TYPES
    from .husbandry import pasture_capacity
    r = rules()
    if tuple(FARM_ANIMALS) != tuple(ANIMALS[:NUM_FARM]):
        raise ValueError("compiled caverna core: the farm animals must come first among the animals")
    for spaces in (1, 2):
        for stables in range(spaces + 1):
            PASTURE_CAP[spaces][stables] = pasture_capacity(spaces, stables)
    room = r.holding_rules["meadow_stable"]
    MEADOW_STABLE_CAP, MEADOW_STABLE_TYPES = int(room.capacity), _type_mask(room.types)
    room = r.holding_rules["forest_stable"]
    FOREST_STABLE_CAP, FOREST_STABLE_TYPES = int(room.capacity), _type_mask(room.types)
    room = r.holding_rules["mine"]
    MINE_CAP, MINE_TYPES = int(room.capacity), _type_mask(room.types)
    if MEADOW_STABLE_TYPES != ALL_FARM:
        raise ValueError("compiled caverna core: a stable on a meadow must take any farm type")
    for k, fid in enumerate(FURNISHING_IDS):
        room = r.furnishing(fid).animal_room
        F_ROOM_KIND[k] = -1
        if room is None:
            continue
        F_ROOM_TYPES[k] = _type_mask(room.types)
        if room.capacity == "dwarfs":
            F_ROOM_KIND[k], F_ROOM_CAP[k] = ROOM_DWARFS, 0
        elif room.capacity == "per_empty_field":
            F_ROOM_KIND[k], F_ROOM_CAP[k] = ROOM_PER_EMPTY_FIELD, 1
        else:
            F_ROOM_KIND[k], F_ROOM_CAP[k] = ROOM_FIXED, int(room.capacity)


_load_husbandry()


ctypedef struct Holdings:
    int fixed[NUM_FARM]                # single-type holdings' capacity per type
    int n_flex
    int flex_cap[MAX_HOLDINGS]         # holdings of any farm type
    uint8_t flex_watch[MAX_HOLDINGS]   # a meadow or pasture: dogs may watch sheep there


cdef inline void add_holding(Holdings* h, int cap, int types, bint watchable) noexcept nogil:
    """`husbandry._problem`'s split: one-type holdings are fixed capacity, the others flexible."""
    cdef int t
    if types != ALL_FARM and not watchable:
        for t in range(NUM_FARM):
            if types == (1 << t):
                h.fixed[t] += cap
        return
    if (cap > 0 or watchable) and h.n_flex < MAX_HOLDINGS:
        h.flex_cap[h.n_flex] = cap
        h.flex_watch[h.n_flex] = watchable
        h.n_flex += 1


cdef void holdings(const Board* b, const Config* cfg, int dwarfs, Holdings* h) noexcept nogil:
    """`husbandry.holdings`, reduced as `_problem` reduces it."""
    cdef int k, i, j, fid, stables, cap
    memset(h, 0, sizeof(Holdings))
    for k in range(NUM_ITER):
        i = ITER[k]
        if not usable(b, cfg, i):
            continue
        if b.sp[i].terrain == T_SMALL_PASTURE:
            add_holding(h, PASTURE_CAP[1][b.sp[i].stable], ALL_FARM, True)
        elif b.sp[i].terrain == T_LARGE_PASTURE and b.sp[i].partner > i:
            stables = b.sp[i].stable + b.sp[b.sp[i].partner].stable
            add_holding(h, PASTURE_CAP[2][stables], ALL_FARM, True)
        elif b.sp[i].terrain == T_MEADOW:
            add_holding(h, MEADOW_STABLE_CAP if b.sp[i].stable else 0, MEADOW_STABLE_TYPES, True)
        elif b.sp[i].terrain == T_EMPTY and b.sp[i].stable and POS_AREA[i] == AREA_FOREST:
            add_holding(h, FOREST_STABLE_CAP, FOREST_STABLE_TYPES, False)
        elif b.sp[i].terrain == T_ORE_MINE or b.sp[i].terrain == T_RUBY_MINE:
            add_holding(h, MINE_CAP, MINE_TYPES, False)
    for k in range(NUM_ITER):
        i = ITER[k]
        fid = b.sp[i].furnishing
        if not usable(b, cfg, i) or fid < 0 or F_ROOM_KIND[fid] < 0:
            continue
        if F_ROOM_KIND[fid] == ROOM_DWARFS:
            add_holding(h, dwarfs, F_ROOM_TYPES[fid], False)
        elif F_ROOM_KIND[fid] == ROOM_PER_EMPTY_FIELD:
            for j in range(NUM_ITER):
                if (usable(b, cfg, ITER[j]) and b.sp[ITER[j]].terrain == T_FIELD
                        and b.sp[ITER[j]].crop_count == 0):
                    add_holding(h, F_ROOM_CAP[fid], F_ROOM_TYPES[fid], False)
        else:
            add_holding(h, F_ROOM_CAP[fid], F_ROOM_TYPES[fid], False)


cdef bint cover_walk(const int* values, int nv, int* left, const int* need, int nt, int t, int i,
                     int total) noexcept nogil:
    """`husbandry._covers` for need[t], each minimal cover followed by `assign_from` for the next types
    (`left` loses the holdings chosen while they are tried)."""
    cdef int k, j, reached, cap, rest
    cdef bint ok
    if i == nv:
        return False
    for k in range(left[i] + 1):
        reached = total + k * values[i]
        if reached >= need[t] and k > 0:
            left[i] -= k
            cap = 0
            for j in range(nv):
                cap += left[j] * values[j]
            rest = 0
            for j in range(t + 1, nt):
                rest += need[j]
            ok = cap >= rest and assign_from(values, nv, left, need, nt, t + 1)
            left[i] += k
            return ok
        left[i] -= k
        ok = cover_walk(values, nv, left, need, nt, t, i + 1, reached)
        left[i] += k
        if ok:
            return True
    return False


cdef bint assign_from(const int* values, int nv, int* left, const int* need, int nt, int t) noexcept nogil:
    """Whether the positive needs need[t..nt) can each be covered by disjoint holdings of `left`."""
    if t == nt:
        return True
    return cover_walk(values, nv, left, need, nt, t, 0, 0)


cdef bint fits(const Holdings* h, const int* counts, int dogs) noexcept nogil:
    """`husbandry._assign(...) is not None`: `counts` farm animals (with `dogs` dogs) fit the holdings."""
    cdef int values[MAX_CLASSES]
    cdef int left[MAX_CLASSES]
    cdef int watch[MAX_HOLDINGS]
    cdef uint8_t excluded[MAX_HOLDINGS]
    cdef int need[NUM_FARM]
    cdef int needs[NUM_FARM]
    cdef int order[NUM_FARM]
    cdef int nv = 0, nw = 0, i, j, m, t, u, v, cap, total, bonus, nt, best
    cdef bint seen
    for i in range(h.n_flex):          # capacity classes, largest first
        cap = h.flex_cap[i]
        if cap <= 0:
            continue
        seen = False
        for j in range(nv):
            if values[j] == cap:
                seen = True
        if not seen and nv < MAX_CLASSES:
            values[nv] = cap
            nv += 1
    for i in range(1, nv):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] < v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    for i in range(h.n_flex):          # watchable holdings, smallest first (stable)
        if h.flex_watch[i]:
            j = nw - 1
            while j >= 0 and h.flex_cap[watch[j]] > h.flex_cap[i]:
                watch[j + 1] = watch[j]
                j -= 1
            watch[j + 1] = i
            nw += 1
    for m in range(min(dogs, nw) + 1):
        memset(excluded, 0, sizeof(excluded))
        for i in range(m):
            excluded[watch[i]] = 1
        for j in range(nv):
            left[j] = 0
        for i in range(h.n_flex):
            if excluded[i] or h.flex_cap[i] <= 0:
                continue
            for j in range(nv):
                if values[j] == h.flex_cap[i]:
                    left[j] += 1
        bonus = dogs + m if m else 0
        total = 0
        for t in range(NUM_FARM):
            needs[t] = counts[t] - h.fixed[t] - (bonus if t == 0 else 0)
            if needs[t] < 0:
                needs[t] = 0
            total += needs[t]
        cap = 0
        for j in range(nv):
            cap += left[j] * values[j]
        if cap < total:
            continue
        nt = 0                          # types with a need, largest need first (ties: type order)
        for u in range(NUM_FARM):
            best = -1
            for t in range(NUM_FARM):
                if needs[t] > 0 and (best < 0 or needs[t] > needs[best]):
                    best = t
            if best < 0:
                break
            need[nt] = needs[best]
            order[nt] = best
            nt += 1
            needs[best] = -needs[best]  # taken
        if assign_from(values, nv, left, need, nt, 0):
            return True
    return False


cdef bint can_accommodate(const Board* b, const Config* cfg, const int16_t* animals, int dwarfs) noexcept nogil:
    """`husbandry.can_accommodate`: every animal fits at once."""
    cdef Holdings h
    cdef int counts[NUM_FARM]
    cdef int t
    holdings(b, cfg, dwarfs, &h)
    for t in range(NUM_FARM):
        counts[t] = animals[t]
    return fits(&h, counts, animals[NUM_FARM])


cdef int breeding_options(const Board* b, const Config* cfg, const int16_t* animals, int dwarfs, int max_types,
                          int* out) noexcept nogil:
    """`husbandry.breeding_options`: the largest sets of types (bit masks) whose newborns all fit, largest
    sets first, then in `itertools.combinations` order; 0 sets when none fits."""
    cdef Holdings h
    cdef int eligible[NUM_FARM]
    cdef int counts[NUM_FARM]
    cdef int ne = 0, t, size, limit, n = 0, mask, k, c, j
    cdef int idx[NUM_FARM]
    cdef bint dominated
    holdings(b, cfg, dwarfs, &h)
    for t in range(NUM_FARM):
        if animals[t] >= 2:
            eligible[ne] = t
            ne += 1
    limit = ne if max_types > ne else max_types
    for size in range(limit, 0, -1):
        for k in range(size):            # combinations of `size` eligible types, in order
            idx[k] = k
        while True:
            mask = 0
            for k in range(size):
                mask |= 1 << eligible[idx[k]]
            dominated = False
            for j in range(n):
                if (mask & out[j]) == mask and mask != out[j]:
                    dominated = True
            if not dominated:
                for t in range(NUM_FARM):
                    counts[t] = animals[t] + ((mask >> t) & 1)
                if fits(&h, counts, animals[NUM_FARM]):
                    out[n] = mask
                    n += 1
            k = size - 1
            while k >= 0 and idx[k] == ne - size + k:
                k -= 1
            if k < 0:
                break
            idx[k] += 1
            for c in range(k + 1, size):
                idx[c] = idx[c - 1] + 1
    return n


# ------------------------------------------------------------------------------------------------
# Conversions (conversions.py): what a player can afford converting now, and how a cost is paid
#
# Holdings are vectors of NUM_HOLD ints (goods, then animals: `conversions.KEYS`). Conversion sources are
# bits of a uint64: SRC_FOOD (the home board's food table), SRC_RUBY (the ruby exchanges), and 2 + f for
# the furnishing f; `once` marks the sources that may be used once more only.

from libc.stdint cimport uint64_t
from libc.math cimport INFINITY

cdef enum:
    H_WOOD = 0
    H_STONE = 1
    H_ORE = 2
    H_GRAIN = 3
    H_VEGETABLE = 4
    H_RUBY = 5
    H_GOLD = 6
    H_FOOD = 7
    H_SHEEP = 8
    H_DONKEY = 9
    H_WILD_BOAR = 10
    H_CATTLE = 11
    H_DOG = 12
    SRC_FOOD = 0
    SRC_RUBY = 1
    MAX_ROWS = 40
    MAX_MACROS = 48
    MAX_PLAN = 64

cdef int NUM_ROWS
cdef int ROW_ACTION[MAX_ROWS]
cdef int ROW_SRC[MAX_ROWS]
cdef int16_t ROW_PAY[MAX_ROWS][NUM_HOLD]
cdef int16_t ROW_GET[MAX_ROWS][NUM_HOLD]
cdef int ROW_OF_ACTION[MAX_ACTIONS]        # CONVERT action -> row, else -1
cdef double POINTS[NUM_HOLD]
cdef int SLAUGHTER_BONUS
cdef int SLAUGHTERING_CAVE, COOKING_CAVE, BEER_PARLOR, BLACKSMITHING_PARLOR, SPARE_PART_STORAGE, TRADER
cdef uint64_t MAKERS_MASK


cdef inline uint64_t src_bit(int src) noexcept nogil:
    return (<uint64_t>1) << src


def _load_conversions():
    global NUM_ROWS, SLAUGHTER_BONUS, SLAUGHTERING_CAVE, COOKING_CAVE, BEER_PARLOR, BLACKSMITHING_PARLOR
    global SPARE_PART_STORAGE, TRADER, MAKERS_MASK
    from . import conversions as cv
    rows = cv._all_rows()
    if len(rows) > MAX_ROWS:
        raise ValueError("compiled caverna core: too many conversions; raise MAX_ROWS")
    if cv.KEYS != GOODS + ANIMALS:
        raise ValueError("compiled caverna core: the conversions' holdings order changed")
    NUM_ROWS = len(rows)
    for a in range(MAX_ACTIONS):
        ROW_OF_ACTION[a] = -1
    for k, row in enumerate(rows):
        ROW_ACTION[k] = row.id
        ROW_SRC[k] = source_index(row.source)
        for i in range(NUM_HOLD):
            ROW_PAY[k][i] = row.pay[i]
            ROW_GET[k][i] = row.get[i]
        ROW_OF_ACTION[row.id] = k
    for i in range(NUM_HOLD):
        POINTS[i] = cv.POINTS[i]
    SLAUGHTER_BONUS = cv._slaughter_bonus()
    SLAUGHTERING_CAVE, COOKING_CAVE = FURN_INDEX["slaughtering_cave"], FURN_INDEX["cooking_cave"]
    BEER_PARLOR, BLACKSMITHING_PARLOR = FURN_INDEX["beer_parlor"], FURN_INDEX["blacksmithing_parlor"]
    SPARE_PART_STORAGE, TRADER = FURN_INDEX["spare_part_storage"], FURN_INDEX["trader"]
    MAKERS_MASK = 0
    for fid in cv.MAKERS:
        MAKERS_MASK |= src_bit(source_index(fid))


def source_index(str source):
    """The bit of a conversion source: food_conversion, ruby, or a furnishing id."""
    if source == "food_conversion":
        return SRC_FOOD
    if source == "ruby":
        return SRC_RUBY
    return 2 + FURN_INDEX[source]


_load_conversions()


cdef inline bint has_src(uint64_t sources, int furnishing) noexcept nogil:
    return (sources >> (2 + furnishing)) & 1


cdef inline int gold_food(int gold) noexcept nogil:
    """`conversions._gold_food`: the printed strip, 2/3/4 gold -> 1/2/3 food, in as few exchanges as possible."""
    cdef int r = gold % 4 - 1
    return 3 * (gold // 4) + (r if r > 0 else 0)


cdef int food_potential(const int* h, uint64_t sources, uint64_t once) noexcept nogil:
    """`conversions.food_potential`: the most food the player can hold after converting now."""
    cdef int s = SLAUGHTER_BONUS if has_src(sources, SLAUGHTERING_CAVE) else 0
    cdef int food = h[H_FOOD]
    cdef int animals = (h[H_SHEEP] * (1 + s) + (h[H_DONKEY] // 2) * (3 + 2 * s) + (h[H_DONKEY] % 2) * (1 + s)
                        + h[H_WILD_BOAR] * (2 + s) + h[H_CATTLE] * (3 + s))
    cdef bint cook = has_src(sources, COOKING_CAVE)
    cdef bint beer = has_src(sources, BEER_PARLOR)
    cdef bint smith = has_src(sources, BLACKSMITHING_PARLOR)
    cdef bint spare = has_src(sources, SPARE_PART_STORAGE)
    cdef int big = 1 << 30
    cdef int beer_max = 1 if has_src(once, BEER_PARLOR) else big
    cdef int smith_max = 1 if has_src(once, BLACKSMITHING_PARLOR) else big
    cdef int spare_max = 1 if has_src(once, SPARE_PART_STORAGE) else big
    cdef int grain = h[H_GRAIN], veg = h[H_VEGETABLE], rubies = h[H_RUBY], gold = h[H_GOLD]
    cdef int wood = h[H_WOOD], stone = h[H_STONE], ore = h[H_ORE]
    cdef int ruby_food = 2 + s
    cdef int best = 0, to_grain, to_veg, most_veg, g, v, pairs, beers, crops, left, smiths, spares, total
    cdef int grain_top = rubies if (cook or beer) else 0, smith_top
    for to_grain in range(grain_top + 1):
        most_veg = 0
        if cook:
            most_veg = grain + to_grain - veg
            if most_veg < 0:
                most_veg = 0
            if rubies - to_grain < most_veg:
                most_veg = rubies - to_grain
        for to_veg in range(most_veg + 1):
            g = grain + to_grain
            v = veg + to_veg
            pairs = (g if g < v else v) if cook else 0
            beers = 0
            if beer:
                beers = (g - pairs) // 2
                if beers > beer_max:
                    beers = beer_max
            crops = 5 * pairs + 4 * beers + (g - pairs - 2 * beers) + 2 * (v - pairs)
            left = rubies - to_grain - to_veg
            smith_top = 0
            if smith:
                smith_top = min(min(left, ore), smith_max)
            for smiths in range(smith_top + 1):
                spares = 0
                if spare:
                    spares = min(min(wood, stone), min(ore - smiths, spare_max))
                total = crops + gold_food(gold + 2 * smiths + 2 * spares) + (left - smiths) * ruby_food + smiths
                if total > best:
                    best = total
    return food + animals + best


cdef int effective_rows(uint64_t sources, int* ids, int16_t (*pay)[NUM_HOLD],
                        int16_t (*get)[NUM_HOLD]) noexcept nogil:
    """`conversions.rows(sources)`: the conversions these sources allow, the Slaughtering cave's bonus added."""
    cdef int k, i, n = 0, animals
    cdef bint slaughter = has_src(sources, SLAUGHTERING_CAVE)
    for k in range(NUM_ROWS):
        if not (sources >> ROW_SRC[k]) & 1:
            continue
        ids[n] = k
        memcpy(pay[n], ROW_PAY[k], sizeof(ROW_PAY[k]))
        memcpy(get[n], ROW_GET[k], sizeof(ROW_GET[k]))
        animals = ROW_PAY[k][H_SHEEP] + ROW_PAY[k][H_DONKEY] + ROW_PAY[k][H_WILD_BOAR] + ROW_PAY[k][H_CATTLE]
        if ROW_SRC[k] == SRC_FOOD and animals and slaughter:
            get[n][H_FOOD] += animals * SLAUGHTER_BONUS
        n += 1
    return n


cdef inline double holdings_value(const int* h) noexcept nogil:
    """`conversions._value`: points the holdings are worth on the score sheet (grain 1/2 each)."""
    cdef double v = 0.0
    cdef int i, zero = 0
    for i in range(NUM_HOLD):
        v += POINTS[i] * h[i]
    for i in range(H_SHEEP, H_CATTLE + 1):
        if h[i] == 0:
            zero += 1
    return v - 2.0 * zero


cdef inline bint covers(const int* h, const int* cost) noexcept nogil:
    cdef int i
    for i in range(NUM_HOLD):
        if h[i] < cost[i]:
            return False
    return True


cdef inline int first_short(const int* h, const int* cost) noexcept nogil:
    """The first good (not food) the holdings lack for the cost, or -1."""
    cdef int i
    for i in range(NUM_HOLD):
        if i != H_FOOD and h[i] < cost[i]:
            return i
    return -1


cdef inline bint pays_keeping(const int* h, const int16_t* pay, const int* reserved) noexcept nogil:
    """`all(a - p >= k for a, p, k in zip(h, pay, reserved) if p)`: pays without touching what is reserved."""
    cdef int i
    for i in range(NUM_HOLD):
        if pay[i] and h[i] - pay[i] < reserved[i]:
            return False
    return True


cdef inline void free_of(const int* h, const int* reserved, int* out) noexcept nogil:
    """`conversions._free`: the holdings less what the cost reserves (food stays)."""
    cdef int i
    for i in range(NUM_HOLD):
        out[i] = h[i] if i == H_FOOD else h[i] - reserved[i]


cdef bint feasible(const int* h, const int* cost, uint64_t sources, uint64_t once) noexcept nogil:
    """`conversions._feasible`."""
    cdef int short = first_short(h, cost)
    cdef int reserved[NUM_HOLD]
    cdef int free[NUM_HOLD]
    cdef int h2[NUM_HOLD]
    cdef int ids[MAX_ROWS]
    cdef int16_t pay[MAX_ROWS][NUM_HOLD]
    cdef int16_t get[MAX_ROWS][NUM_HOLD]
    cdef int n, k, i
    cdef uint64_t s2, o2
    if short < 0:
        if h[H_FOOD] >= cost[H_FOOD]:
            return True
        memcpy(reserved, cost, sizeof(reserved))
        reserved[H_FOOD] = 0
        free_of(h, reserved, free)
        return food_potential(free, sources, once) >= cost[H_FOOD]
    n = effective_rows(sources, ids, pay, get)
    for k in range(n):
        if get[k][short] <= pay[k][short] or not pays_keeping(h, pay[k], cost):
            continue
        for i in range(NUM_HOLD):
            h2[i] = h[i] - pay[k][i] + get[k][i]
        s2, o2 = sources, once
        if (once >> ROW_SRC[ids[k]]) & 1:
            s2 &= ~src_bit(ROW_SRC[ids[k]])
            o2 &= ~src_bit(ROW_SRC[ids[k]])
        if feasible(h2, cost, s2, o2):
            return True
    return False


cdef bint can_afford(const int* h, const int* cost, uint64_t sources, uint64_t once) noexcept nogil:
    """`conversions.can_afford`: the player holds the cost or can get it by converting now."""
    if covers(h, cost):
        return True
    if not cost[H_FOOD] and not h[H_RUBY] and not (sources & MAKERS_MASK):
        return False
    return feasible(h, cost, sources, once)




ctypedef struct Macros:
    int n
    int len[MAX_MACROS]
    int row[MAX_MACROS][3]                 # indices into the effective rows below
    int nrows
    int ids[MAX_ROWS]                      # effective row -> table row
    int16_t pay[MAX_ROWS][NUM_HOLD]
    int16_t get[MAX_ROWS][NUM_HOLD]


cdef inline bint is_unit(const int16_t* v, int good) noexcept nogil:
    """Whether a holdings vector is exactly 1 `good`."""
    cdef int i
    for i in range(NUM_HOLD):
        if v[i] != (1 if i == good else 0):
            return False
    return True


cdef int ruby_row(const Macros* m, int good) noexcept nogil:
    """The effective ruby exchange that gives 1 `good` (`_macros`' `ruby_to`), or -1."""
    cdef int k, last = -1
    for k in range(m.nrows):
        if ROW_SRC[m.ids[k]] == SRC_RUBY and is_unit(m.get[k], good):
            last = k
    return last


cdef int food_row(const Macros* m, int furnishing) noexcept nogil:
    """The furnishing's first effective conversion that makes food (`_macros`' `furnishing_food`), or -1."""
    cdef int k
    for k in range(m.nrows):
        if ROW_SRC[m.ids[k]] == 2 + furnishing and m.get[k][H_FOOD] > 0:
            return k
    return -1


cdef inline void add_macro(Macros* m, int a, int b, int c) noexcept nogil:
    cdef int n = m.n
    m.row[n][0] = a
    m.row[n][1] = b
    m.row[n][2] = c
    m.len[n] = 1 if b < 0 else (2 if c < 0 else 3)
    m.n += 1


cdef void build_macros(uint64_t sources, Macros* m) noexcept nogil:
    """`conversions._macros`: every conversion that makes food or gold (but the plain ruby exchanges and the
    Trader), then the short ruby chains."""
    cdef int k, cooking, beer, to_grain, to_veg, to_boar, boar, src
    m.n = 0
    m.nrows = effective_rows(sources, m.ids, m.pay, m.get)
    for k in range(m.nrows):
        src = ROW_SRC[m.ids[k]]
        if src != SRC_RUBY and src != 2 + TRADER and (m.get[k][H_FOOD] > m.pay[k][H_FOOD] or m.get[k][H_GOLD] > 0):
            add_macro(m, k, -1, -1)
    cooking = food_row(m, COOKING_CAVE)
    beer = food_row(m, BEER_PARLOR)
    to_grain, to_veg, to_boar = ruby_row(m, H_GRAIN), ruby_row(m, H_VEGETABLE), ruby_row(m, H_WILD_BOAR)
    if cooking >= 0 and to_grain >= 0 and to_veg >= 0:
        add_macro(m, to_veg, cooking, -1)
        add_macro(m, to_grain, cooking, -1)
        add_macro(m, to_grain, to_veg, cooking)
    if beer >= 0 and to_grain >= 0:
        add_macro(m, to_grain, beer, -1)
    boar = -1
    for k in range(m.nrows):
        if ROW_SRC[m.ids[k]] == SRC_FOOD and is_unit(m.pay[k], H_WILD_BOAR):
            boar = k
            break
    if has_src(sources, SLAUGHTERING_CAVE) and to_boar >= 0 and boar >= 0:
        add_macro(m, to_boar, boar, -1)


cdef bint run_macro(const Macros* m, int macro, int* h, const int* reserved, uint64_t* sources,
                    uint64_t* once) noexcept nogil:
    """`conversions._run`: carry out the macro's conversions on h (False: one cannot be paid)."""
    cdef int j, k, i, src
    for j in range(m.len[macro]):
        k = m.row[macro][j]
        src = ROW_SRC[m.ids[k]]
        if not (sources[0] >> src) & 1:
            return False
        if not pays_keeping(h, m.pay[k], reserved):
            return False
        for i in range(NUM_HOLD):
            h[i] += m.get[k][i] - m.pay[k][i]
        if (once[0] >> src) & 1:
            sources[0] &= ~src_bit(src)
            once[0] &= ~src_bit(src)
    return True


cdef int best_food_step(const int* h, int need, const int* reserved, uint64_t sources, uint64_t once, int skip_to,
                        int* h_out, uint64_t* s_out, uint64_t* o_out) noexcept nogil:
    """`conversions._food_steps` then the cheapest (`_greedy`'s choice): the macro index, or -1. With
    skip_to >= 0, only that macro (its holdings after, if it is a possible step)."""
    cdef Macros m
    cdef int k, best = -1, useful
    cdef int h2[NUM_HOLD]
    cdef int free[NUM_HOLD]
    cdef uint64_t s2, o2
    cdef double ratio, best_ratio = 0.0, base = holdings_value(h)
    build_macros(sources, &m)
    for k in range(m.n):
        if skip_to >= 0 and k != skip_to:
            continue
        memcpy(h2, h, sizeof(h2))
        s2, o2 = sources, once
        if not run_macro(&m, k, h2, reserved, &s2, &o2):
            continue
        free_of(h2, reserved, free)
        if food_potential(free, s2, o2) < need:
            continue
        useful = h2[H_FOOD] - h[H_FOOD]
        if need - h[H_FOOD] < useful:
            useful = need - h[H_FOOD]
        ratio = (base - holdings_value(h2)) / useful if useful > 0 else INFINITY
        if best < 0 or ratio < best_ratio:
            best, best_ratio = k, ratio
            memcpy(h_out, h2, sizeof(h2))
            s_out[0], o_out[0] = s2, o2
    return best


cdef int macro_ids(uint64_t sources, int macro, int* plan, int n) noexcept nogil:
    """Append the CONVERT action ids of a macro (of these sources) to plan[n..]; the new length."""
    cdef Macros m
    cdef int j
    build_macros(sources, &m)
    for j in range(m.len[macro]):
        if n < MAX_PLAN:
            plan[n] = ROW_ACTION[m.ids[m.row[macro][j]]]
            n += 1
    return n


cdef int greedy_food(int* h, int need, const int* reserved, uint64_t sources, uint64_t once, int* plan,
                     int n) noexcept nogil:
    """`conversions._greedy`: raise food to `need` one cheapest step at a time; the plan's length, or -1
    (h becomes the holdings after)."""
    cdef int k
    cdef int h2[NUM_HOLD]
    cdef uint64_t s2, o2
    while h[H_FOOD] < need:
        k = best_food_step(h, need, reserved, sources, once, -1, h2, &s2, &o2)
        if k < 0:
            return -1
        n = macro_ids(sources, k, plan, n)
        memcpy(h, h2, sizeof(h2))
        sources, once = s2, o2
    return n


cdef int food_plan(const int* h, const int* cost, uint64_t sources, uint64_t once, int* plan) noexcept nogil:
    """`conversions._food_plan`: every possible first step finished greedily; the one losing the fewest points
    wins (then the one leaving the most food, then the first step's index). The plan's length, or -1."""
    cdef int need = cost[H_FOOD]
    cdef int reserved[NUM_HOLD]
    cdef int free[NUM_HOLD]
    cdef int h2[NUM_HOLD]
    cdef int trial[MAX_PLAN]
    cdef int k, n, best_n = -1, best_food = 0, nmacros
    cdef double loss, best_loss = 0.0, base = holdings_value(h)
    cdef uint64_t s2, o2
    cdef Macros m
    memcpy(reserved, cost, sizeof(reserved))
    reserved[H_FOOD] = 0
    free_of(h, reserved, free)
    if food_potential(free, sources, once) < need:
        return -1
    build_macros(sources, &m)
    nmacros = m.n
    for k in range(nmacros):
        if best_food_step(h, need, reserved, sources, once, k, h2, &s2, &o2) != k:
            continue
        n = macro_ids(sources, k, trial, 0)
        n = greedy_food(h2, need, reserved, s2, o2, trial, n)
        if n < 0:
            continue
        loss = base - holdings_value(h2)
        if best_n < 0 or loss < best_loss or (loss == best_loss and -h2[H_FOOD] < -best_food):
            best_n, best_loss, best_food = n, loss, h2[H_FOOD]
            memcpy(plan, trial, n * sizeof(int))
    return best_n


cdef int payment_plan(const int* h, const int* cost, uint64_t sources, uint64_t once, int* plan) noexcept nogil:
    """`conversions.payment_plan`: the conversions (CONVERT ids, in order) after which the player holds the
    whole cost; their number, or -1 when none gets there (0: the player holds it already)."""
    cdef int short, n, k, j, i, rest, count = 0
    cdef int ids[MAX_ROWS]
    cdef int16_t pay[MAX_ROWS][NUM_HOLD]
    cdef int16_t get[MAX_ROWS][NUM_HOLD]
    cdef int option[MAX_ROWS]
    cdef double loss[MAX_ROWS]
    cdef int h2[NUM_HOLD]
    cdef double base, v
    cdef uint64_t s2, o2
    if covers(h, cost):
        return 0
    short = first_short(h, cost)
    if short < 0:
        return food_plan(h, cost, sources, once, plan)
    base = holdings_value(h)
    n = effective_rows(sources, ids, pay, get)
    for k in range(n):
        if get[k][short] <= pay[k][short] or not pays_keeping(h, pay[k], cost):
            continue
        for i in range(NUM_HOLD):
            h2[i] = h[i] - pay[k][i] + get[k][i]
        v = base - holdings_value(h2)
        j = count                       # insertion by (loss, action id): rows are in action id order
        while j > 0 and loss[j - 1] > v:
            option[j] = option[j - 1]
            loss[j] = loss[j - 1]
            j -= 1
        option[j] = k
        loss[j] = v
        count += 1
    for j in range(count):
        k = option[j]
        for i in range(NUM_HOLD):
            h2[i] = h[i] - pay[k][i] + get[k][i]
        s2, o2 = sources, once
        if (once >> ROW_SRC[ids[k]]) & 1:
            s2 &= ~src_bit(ROW_SRC[ids[k]])
            o2 &= ~src_bit(ROW_SRC[ids[k]])
        rest = payment_plan(h2, cost, s2, o2, plan + 1)
        if rest >= 0 and rest + 1 <= MAX_PLAN:
            plan[0] = ROW_ACTION[ids[k]]
            return rest + 1
    return -1




# ------------------------------------------------------------------------------------------------
# Conversions between the reference's records and the C structs (tests, and later the State's to_dict)

cdef void board_from_reference(object board, Board* b) except *:
    """The C form of a `board.Board`."""
    cdef int i
    for i in range(NUM_POS):
        memset(&b.sp[i], 0, sizeof(Space))
        b.sp[i].terrain = T_EMPTY if i < NUM_GRID else NO_SPACE
        b.sp[i].furnishing = -1
        b.sp[i].overbuilt = -1
        b.sp[i].partner = -1
    for pos, space in board.items(usable_only=False):
        i = POS_INDEX[pos]
        b.sp[i].terrain = TERRAINS.index(space.terrain)
        b.sp[i].stable = space.stable
        b.sp[i].furnishing = FURN_INDEX[space.furnishing] if space.furnishing else -1
        b.sp[i].overbuilt = FURN_INDEX[space.overbuilt] if space.overbuilt else -1
        b.sp[i].partner = POS_INDEX[space.partner] if space.partner is not None else -1
        b.sp[i].crop = (CROP_GRAIN if space.crop == "grain" else CROP_VEGETABLE) if space.crop else CROP_NONE
        b.sp[i].crop_count = space.crop_count


cdef object board_to_reference(const Board* b):
    """The `board.Board` of a C board (equal to the reference engine's board of the same position)."""
    cdef int i
    grid = []
    overhang = []
    for i in range(NUM_POS):
        sp = b.sp[i]
        if sp.terrain == NO_SPACE:
            continue
        space = hb.Space(terrain=TERRAINS[sp.terrain], stable=bool(sp.stable),
                         furnishing=FURNISHING_IDS[sp.furnishing] if sp.furnishing >= 0 else None,
                         overbuilt=FURNISHING_IDS[sp.overbuilt] if sp.overbuilt >= 0 else None,
                         partner=POSITIONS[sp.partner] if sp.partner >= 0 else None,
                         crop=("grain" if sp.crop == CROP_GRAIN else "vegetable") if sp.crop else None,
                         crop_count=sp.crop_count)
        if i < NUM_GRID:
            grid.append(space)
        else:
            overhang.append((POSITIONS[i], space))
    return hb.Board(tuple(grid), tuple(sorted(overhang)))


cdef void summary_from_reference(object summary, Summary* s) except *:
    board_from_reference(summary.board, &s.board)
    for k, g in enumerate(GOODS):
        s.goods[k] = summary.good(g)
    for k, a in enumerate(ANIMALS):
        s.animals[k] = summary.animal(a)
    s.dwarfs = summary.dwarfs
    s.armed_dwarfs = summary.armed_dwarfs
    s.begging = summary.begging_markers


# ------------------------------------------------------------------------------------------------
# Python entry points of the ported sections, with the reference functions' signatures (for the
# differential tests; each converts its arguments to C and back)

def board_roundtrip(board):
    """`board` through the C struct and back (equal to `board`)."""
    cdef Board b
    board_from_reference(board, &b)
    return board_to_reference(&b)


def tile_ids(board, str tile, config):
    """`reference.tile_ids(board, tile, config)`."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int out[MAX_TILE_SPECS]
    board_from_reference(board, &b)
    n = tile_actions(&b, &cfg, hb.TILES.index(tile), out)
    return tuple(out[k] for k in range(n))


def stable_ids(board, config):
    """`reference.stable_ids(board, config)`."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int out[NUM_POS]
    board_from_reference(board, &b)
    n = stable_actions(&b, &cfg, out)
    return tuple(out[k] for k in range(n))


def place_with_gains(board, int action, config):
    """`board.place_with_gains` for the placement of a legal TILE or BUY_TILE action: (board, gains)."""
    cdef Board b
    cdef int gains[NUM_HOLD]
    cdef int spec = ACTION_SPEC[action] if 0 <= action < NUM_ACTIONS else -1
    cdef Config cfg = make_config(config)
    if spec < 0:
        raise ValueError(f"action {action} places no tile")
    board_from_reference(board, &b)
    if not placement_legal(&b, &cfg, spec):
        raise hb.PlacementError(f"the placement of action {action} is not legal on this board")
    memset(gains, 0, sizeof(gains))
    place_tile(&b, spec, gains)
    return board_to_reference(&b), {g: gains[k] for k, g in enumerate(GOODS + ANIMALS) if gains[k]}


def place_stable_at(board, pos):
    """`board.place(board, "stable", ...)` at a legal stable position."""
    cdef Board b
    board_from_reference(board, &b)
    place_stable(&b, POS_INDEX[pos])
    return board_to_reference(&b)


def sowable(board, config):
    """`board.sowable_fields(board, config)`."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int out[NUM_POS]
    board_from_reference(board, &b)
    n = sowable_fields(&b, &cfg, out)
    return [POSITIONS[out[k]] for k in range(n)]


def sow_at(board, pos, str crop):
    """`board.sow(board, pos, crop)` on a sowable field."""
    cdef Board b
    board_from_reference(board, &b)
    sow(&b, POS_INDEX[pos], CROP_GRAIN if crop == "grain" else CROP_VEGETABLE)
    return board_to_reference(&b)


def field_phase(board, config):
    """`board.harvest_fields(board, config)`: (board, crops taken)."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int crops[2]
    crops[0] = crops[1] = 0
    board_from_reference(board, &b)
    harvest_fields(&b, &cfg, crops)
    return board_to_reference(&b), {c: crops[k] for k, c in enumerate(("grain", "vegetable")) if crops[k]}


def targets(board, str fid, config):
    """`furnishings.furnish_targets(board, fid, config)`."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int out[NUM_POS]
    board_from_reference(board, &b)
    n = furnish_targets(&b, &cfg, FURN_INDEX[fid], out)
    return [POSITIONS[out[k]] for k in range(n)]


def furnish_at(board, str fid, pos):
    """`furnishings.furnish(board, fid, pos)` on a target."""
    cdef Board b
    board_from_reference(board, &b)
    furnish(&b, FURN_INDEX[fid], POS_INDEX[pos])
    return board_to_reference(&b)


def board_counts(board):
    """(unused spaces, stables, furnishings owned) as the C core counts them."""
    cdef Board b
    board_from_reference(board, &b)
    return unused_spaces(&b), stable_count(&b), frozenset(FURNISHING_IDS[f] for f in range(NUM_FURN) if owns(&b, f))


def total_score(summary, config):
    """`scoring.score(summary, config).total`."""
    cdef Summary s
    cdef Config cfg = make_config(config)
    summary_from_reference(summary, &s)
    return score(&s, &cfg)


def accommodates(board, animals, int dwarfs, config):
    """`husbandry.can_accommodate(board, animals, dwarfs, config)`."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int16_t counts[NUM_ANIMALS]
    board_from_reference(board, &b)
    for k, a in enumerate(ANIMALS):
        counts[k] = animals.get(a, 0)
    return can_accommodate(&b, &cfg, counts, dwarfs)


def breeding(board, animals, int dwarfs, config, max_types=None):
    """`husbandry.breeding_options(board, animals, dwarfs, config, max_types)`."""
    cdef Board b
    cdef Config cfg = make_config(config)
    cdef int16_t counts[NUM_ANIMALS]
    cdef int out[16]
    board_from_reference(board, &b)
    for k, a in enumerate(ANIMALS):
        counts[k] = animals.get(a, 0)
    n = breeding_options(&b, &cfg, counts, dwarfs, NUM_FARM if max_types is None else max_types, out)
    return [tuple(a for t, a in enumerate(FARM_ANIMALS) if out[k] >> t & 1) for k in range(n)]


def _holdings_of(h):
    return [int(x) for x in h]


cdef uint64_t sources_mask(sources):
    cdef uint64_t m = 0
    for src in sources:
        m |= src_bit(source_index(src))
    return m


def potential(h, sources, once=frozenset()):
    """`conversions.food_potential(h, sources, once)`."""
    cdef int hh[NUM_HOLD]
    for i in range(NUM_HOLD):
        hh[i] = h[i]
    return food_potential(hh, sources_mask(sources), sources_mask(once))


def affords(h, cost, sources, once=frozenset()):
    """`conversions.can_afford(h, cost, sources, once)`."""
    cdef int hh[NUM_HOLD]
    cdef int cc[NUM_HOLD]
    for i in range(NUM_HOLD):
        hh[i] = h[i]
        cc[i] = cost[i]
    return can_afford(hh, cc, sources_mask(sources), sources_mask(once))


def plan(h, cost, sources, once=frozenset()):
    """`conversions.payment_plan(h, cost, sources, once)`."""
    cdef int hh[NUM_HOLD]
    cdef int cc[NUM_HOLD]
    cdef int out[MAX_PLAN]
    for i in range(NUM_HOLD):
        hh[i] = h[i]
        cc[i] = cost[i]
    n = payment_plan(hh, cc, sources_mask(sources), sources_mask(once), out)
    return None if n < 0 else tuple(out[k] for k in range(n))


def formula_kinds():
    """How each compiled formula is stored: {formula text: 'affine' | 'sum table' | 'dense table'} (tests)."""
    r = rules()
    names = ("affine", "sum table", "dense table")
    ordered = [f.bonus_formula for f in list(r.furnishings) + [r.entry_level_dwelling] if f.bonus_formula]
    ordered += [c.formula for c in r.scoring]     # the order _load_tables compiles them in
    return {text: names[FORMULAS[k].kind] for k, text in enumerate(ordered)}


# ================================================================================================
# The state (reference.py): the whole position in one C struct of small integers (`GameState`)
# ================================================================================================

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cavekit.core.compiled_common cimport CompiledStateBase, next_random, random_below, seed_generator
from cavekit.core.engine cimport Engine

from ..api import IllegalActionError, as_action
from . import actions as pa
from .state import HARVEST_KINDS as HARVEST_KINDS_PY, PHASES as PHASES_PY, StateMixin
from libc.stdlib cimport free, malloc

cdef Node NODES[MAX_NODES]
cdef int NUM_NODES = 0
cdef int TREE_BASE[MAX_SPACES][2]       # [space][armed]: the first node of the space's tree
cdef int TREE_SIZE[MAX_SPACES][2]
cdef int LOOT_NODE[MAX_LOOT]            # the loot item's effect (one atom)
cdef int NUM_LOOT


cdef Tables* TABLES[MAX_TABLES]           # made on demand, kept for the process
cdef int NUM_TABLES = 0
_TABLE_KEYS = {}

# space and card data
cdef int NUM_SPACES_ALL, NUM_CARDS
cdef int8_t SP_IMITATION[MAX_SPACES]    # an Imitation space (food_cost is not None)
cdef int8_t SP_IMITABLE[MAX_SPACES]
cdef int8_t SP_ACCUMULATES[MAX_SPACES]
cdef int8_t SP_EXTENSION[MAX_SPACES]
cdef int8_t CARD_SPACE[MAX_CARDS]
cdef int WISH_CARD, FAMILY_LIFE_CARD, URGENT_WISH_SPACE, WISH_SPACE
# furnishing effects
cdef int16_t FURN_COST[2][NUM_FURN][NUM_HOLD]   # [cost_a]: the printed cost (B+S+G, or the A reading)
cdef int8_t F_DWARF_CAP[NUM_FURN]
cdef int8_t F_ROOM_ONLY_FOR[NUM_FURN]   # the Additional dwelling: room only for dwarf number n (0: always)
cdef int8_t F_FAMILY_CAP[NUM_FURN]      # raises the family limit to n (0: no)
cdef int8_t F_SUPPLY_GOOD[NUM_FURN]     # supplier: holdings index of the good, or -1
cdef int8_t F_SUPPLY_ROUNDS[NUM_FURN]
cdef int8_t F_IMMEDIATE[NUM_FURN][NUM_HOLD]     # fixed goods when built
cdef int8_t F_PER_KIND[NUM_FURN]        # per-count gain when built: 0 none, 1 per sheep, 2 per cattle, 3 per adjacent dwelling
cdef int8_t F_PER_GOOD[NUM_FURN]
cdef int8_t F_PER_AMOUNT[NUM_FURN]
cdef uint8_t F_ONCE_PER_HARVEST[NUM_FURN]
cdef uint64_t ONCE_MASK                 # sources bits of the once-per-harvest trades
cdef int CARPENTER, STONE_CARVER, BUILDER, BLACKSMITH, MINER, SEAM, DOG_SCHOOL, WORKING_CAVE, MINING_CAVE
cdef int BREEDING_CAVE, QUARRY, PEACEFUL_CAVE, GUEST_ROOM, ORDINARY_DWELLING
cdef int CARPENTER_WOOD, STONE_CARVER_STONE, BLACKSMITH_ORE, BUILDER_ORE_W, BUILDER_WOOD, BUILDER_ORE_S
cdef int BUILDER_STONE, MINER_ORE, DOG_SCHOOL_WOOD, MINING_CAVE_FOOD, QUARRY_STONE
cdef int WORKING_CAVE_PAY[3]
cdef int BREEDING_FOOD[5]
cdef int FAMILY_LIMIT, WEAPON_MAX, FORGE_LOW, FORGE_HIGH, DWARFS_AT_START
cdef int16_t SMALL_PASTURE_COST[NUM_HOLD]
cdef int16_t LARGE_PASTURE_COST[NUM_HOLD]
cdef int MARKET_GOOD[NUM_MARKET]        # holdings index
cdef int MARKET_PRICE[NUM_MARKET]
cdef int RUBY_TILE[4]                   # tile index of the single tiles bought with rubies, data order
cdef int RUBY_TILE_PRICE[4]
cdef int NUM_RUBY_TILES
cdef int SOW_MAX[2]
# action ids and decoding
cdef int8_t A_KIND[MAX_ACTIONS]
cdef int16_t A_P1[MAX_ACTIONS]
cdef int16_t A_P2[MAX_ACTIONS]
cdef int PLACE_ID[MAX_SPACES]
cdef int ORDER_ID[16]
cdef int END_TURN_ID, COLLECT_ID, GROW_ID, TRADE_ID, FEED_ID, FEED_CONVERTING_ID, SKIP_ID
cdef int FURNISH_ID[NUM_FURN][NUM_POS]
cdef int SOW_ID[2][NUM_POS]
cdef int FORGE_ID[16]
cdef int LOOT_ID[MAX_LOOT]
cdef int BREED_ID[16]
cdef int MARKET_ID[NUM_MARKET]
cdef int IMITATE_ID[MAX_SPACES]
cdef int RELEASE_ID[4]
cdef int WORKING_CAVE_ID[3]
cdef int HARVEST_CHOICE_ID[2]
cdef int SOLO_KEEP_ID[MAX_SPACES]
cdef int PEACEFUL_ID[16]
cdef int PAY_ID[4]


ATOMS = tuple(rules().raw["effect_dsl"]["atoms"])
_COMBINATOR_KIND = {"all": K_ALL, "any": K_ANY, "then_any": K_THEN_ANY, "one": K_ONE}
SPACE_IDS = tuple(rules().action_spaces)
CARD_IDS = tuple(c.id for c in rules().round_cards)


def _vector(goods):
    out = [0] * NUM_HOLD
    for g, n in dict(goods or {}).items():
        out[(GOODS + ANIMALS).index(g)] += n
    return out


cdef int _add_node(object e, int parent) except -1:
    """One effect node into NODES (its fields from the atom's arguments); its pool index."""
    global NUM_NODES
    from .furnishings import may_furnish
    if NUM_NODES >= MAX_NODES:
        raise ValueError("compiled caverna core: too many effect nodes; raise MAX_NODES")
    cdef int k = NUM_NODES
    cdef Node* n = &NODES[k]
    NUM_NODES += 1
    memset(n, 0, sizeof(Node))
    n.parent = parent
    n.optional = e.optional
    if e.kind in _COMBINATOR_KIND:
        n.kind = _COMBINATOR_KIND[e.kind]
        return k
    n.kind = ATOMS.index(e.kind)
    r = rules()
    kind = e.kind
    if kind in ("gain", "gain_per", "gain_if"):
        for i, v in enumerate(_vector(e.arg("goods"))):
            n.goods[i] = v
        if kind == "gain_if":
            n.ruby_mines = e.arg("condition")["ruby_mines_at_least"]
    elif kind == "trade":
        for i, v in enumerate(_vector(e.arg("get"))):
            n.goods[i] = v
        for i, v in enumerate(_vector(e.arg("pay"))):
            n.pay[i] = v
        n.max_times = int(e.arg("max_times", 1))
    elif kind in ("place_twin_tile", "place_tile", "place_single_tile", "fence_small_pasture", "fence_large_pasture"):
        tiles = {"place_twin_tile": lambda: tuple(e.arg("tiles")), "fence_small_pasture": lambda: ("small_pasture",),
                 "fence_large_pasture": lambda: ("large_pasture",)}.get(kind, lambda: (e.arg("tile"),))()
        for tile in tiles:
            n.tiles |= 1 << hb.TILES.index(tile)
        on = e.arg("on", "")
        n.on = 1 if on == "ordinary tunnel" else (2 if on == "deep tunnel" else 0)
        if kind.startswith("fence"):
            for i, v in enumerate(_vector(e.arg("cost", {}))):
                n.pay[i] = v
    elif kind == "build_stable":
        for i, v in enumerate(_vector(e.arg("cost", {}))):
            n.pay[i] = v
    elif kind == "expedition":
        n.level = int(e.arg("level"))
    elif kind == "forge_weapon":
        n.max_strength = int(e.arg("max_strength", 8))
    elif kind == "sow":
        n.max_grain = int(e.arg("max_grain_fields", r.sow_max_fields["grain"]))
        n.max_vegetable = int(e.arg("max_vegetable_fields", r.sow_max_fields["vegetable"]))
    elif kind == "breed":
        n.max_types = int(e.arg("max_types", 2))
    elif kind == "increase_all_weapons":
        n.level = int(e.arg("amount", 1))
    elif kind == "furnish":
        wording = e.arg("filter", "any")
        pay = e.arg("pay", "printed cost")
        n.printed = pay == "printed cost"
        if not n.printed:
            for i, v in enumerate(_vector(pay)):
                n.pay[i] = v
        for f, fid in enumerate(FURNISHING_IDS):
            if may_furnish(fid, wording):
                n.furnish_mask |= (<uint64_t>1) << f
    return k


def _load_effects():
    global NUM_LOOT, NUM_SPACES_ALL, NUM_CARDS, WISH_CARD, FAMILY_LIFE_CARD, URGENT_WISH_SPACE, WISH_SPACE
    from .reference import resolve_weapon, tree_of
    from .rules import loot_items
    r = rules()
    if len(SPACE_IDS) > MAX_SPACES or len(CARD_IDS) > MAX_CARDS:
        raise ValueError("compiled caverna core: too many action spaces or round cards")
    NUM_SPACES_ALL = len(SPACE_IDS)
    NUM_CARDS = len(CARD_IDS)
    for s, sid in enumerate(SPACE_IDS):
        space = r.action_spaces[sid]
        SP_IMITATION[s] = space.food_cost is not None
        SP_IMITABLE[s] = space.imitable
        SP_ACCUMULATES[s] = space.accumulates
        SP_EXTENSION[s] = sid.startswith("extension")
        for armed in (0, 1):
            tree = tree_of(resolve_weapon(space.effect, bool(armed)))
            if len(tree.kinds) > TREE_NODES:
                raise ValueError(f"compiled caverna core: the tree of {sid} is too large")
            TREE_BASE[s][armed] = NUM_NODES
            TREE_SIZE[s][armed] = len(tree.kinds)
            for k, e in enumerate(tree.effects):
                node = _add_node(e, tree.parent[k])
                NODES[node].nchild = len(tree.children[k])
                if len(tree.children[k]) > MAX_CHILDREN:
                    raise ValueError(f"compiled caverna core: a node of {sid} has too many parts")
                for c, child in enumerate(tree.children[k]):
                    NODES[node].child[c] = child
    items = loot_items()
    NUM_LOOT = len(items)
    for k, item in enumerate(items):
        LOOT_NODE[k] = _add_node(item.effect, -1)
    for c, cid in enumerate(CARD_IDS):
        CARD_SPACE[c] = SPACE_IDS.index(cid)
    WISH_CARD = CARD_IDS.index("wish_for_children")
    FAMILY_LIFE_CARD = CARD_IDS.index("family_life")
    WISH_SPACE = SPACE_IDS.index("wish_for_children")
    URGENT_WISH_SPACE = SPACE_IDS.index(r.action_spaces["wish_for_children"].flips_to)


def _load_furnishing_effects():
    global CARPENTER, STONE_CARVER, BUILDER, BLACKSMITH, MINER, SEAM, DOG_SCHOOL, WORKING_CAVE, MINING_CAVE
    global BREEDING_CAVE, QUARRY, PEACEFUL_CAVE, GUEST_ROOM, ORDINARY_DWELLING, ONCE_MASK
    global CARPENTER_WOOD, STONE_CARVER_STONE, BLACKSMITH_ORE, BUILDER_ORE_W, BUILDER_WOOD, BUILDER_ORE_S
    global BUILDER_STONE, MINER_ORE, DOG_SCHOOL_WOOD, MINING_CAVE_FOOD, QUARRY_STONE
    global FAMILY_LIMIT, WEAPON_MAX, FORGE_LOW, FORGE_HIGH, DWARFS_AT_START, NUM_RUBY_TILES
    from . import furnishings as fu
    from .actions import MARKET_PRICES
    r = rules()
    hold = GOODS + ANIMALS
    idx = FURN_INDEX
    CARPENTER, STONE_CARVER, BUILDER = idx["carpenter"], idx["stone_carver"], idx["builder"]
    BLACKSMITH, MINER, SEAM, DOG_SCHOOL = idx["blacksmith"], idx["miner"], idx["seam"], idx["dog_school"]
    WORKING_CAVE, MINING_CAVE, BREEDING_CAVE = idx["working_cave"], idx["mining_cave"], idx["breeding_cave"]
    QUARRY, PEACEFUL_CAVE, GUEST_ROOM = idx["quarry"], idx["peaceful_cave"], idx["guest_room"]
    ORDINARY_DWELLING = idx[fu.ORDINARY_DWELLING]
    CARPENTER_WOOD = r.furnishing("carpenter").param("wood_discount")
    STONE_CARVER_STONE = r.furnishing("stone_carver").param("stone_discount")
    BLACKSMITH_ORE = r.furnishing("blacksmith").param("forge_ore_discount")
    BUILDER_ORE_W, BUILDER_WOOD, BUILDER_ORE_S, BUILDER_STONE = fu._builder_swaps()
    # the reference reads these numbers from the tiles' texts; read once here through the same functions
    board = hb.initial_board()
    def owner_of(fid):
        pos = next(p for p, s in board.items() if s.terrain == hb.CAVERN and not s.furnishing)
        return fu.furnish(board, fid, pos)
    MINER_ORE = fu.round_start_ore(owner_of("miner"), 1)
    DOG_SCHOOL_WOOD = fu.triggered_gains(owner_of("dog_school"), {"dog": 1}).get("wood", 0)
    MINING_CAVE_FOOD = fu.feeding_discount(owner_of("mining_cave"), 1)
    QUARRY_STONE = fu.breeding_stone(owner_of("quarry"), 1)
    for k, sub in enumerate(fu.feeding_substitutes(owner_of("working_cave"))):
        WORKING_CAVE_PAY[k] = list(sub.values())[0]
    BREEDING_FOOD[0] = 0
    for k in range(1, 5):
        BREEDING_FOOD[k] = fu.breeding_food(owner_of("breeding_cave"), k)
    if fu.triggered_gains(owner_of("seam"), {"stone": 1}) != {"ore": 1}:
        raise ValueError("compiled caverna core: the Seam no longer gives 1 ore per stone")
    ONCE_MASK = 0
    for k, fid in enumerate(FURNISHING_IDS):
        f = r.furnishing(fid)
        for a, reading in enumerate(("B+S+G", "A")):
            cost = _vector(fu.base_cost(fid, make_config_py(furnishing_cost_source=reading)))
            for i in range(NUM_HOLD):
                FURN_COST[a][k][i] = cost[i]
        F_DWARF_CAP[k] = f.dwarf_capacity
        F_ROOM_ONLY_FOR[k] = f.param("room_only_for_dwarf_number") or 0
        F_FAMILY_CAP[k] = f.param("raises_family_cap_to") or 0
        sup = fu.supplier(fid) if fid != r.entry_level_dwelling.id else None
        F_SUPPLY_GOOD[k] = hold.index(sup[0]) if sup else -1
        F_SUPPLY_ROUNDS[k] = sup[1] if sup else 0
        for i in range(NUM_HOLD):
            F_IMMEDIATE[k][i] = 0
        F_PER_KIND[k] = 0
        for good, amount in f.immediate:
            if isinstance(amount, int):
                F_IMMEDIATE[k][hold.index(good)] += amount
            else:
                per, what = fu._number_and_word(amount)
                F_PER_KIND[k] = {"sheep": 1, "cattle": 2, "adjacent dwelling": 3}[what]
                F_PER_GOOD[k] = hold.index(good)
                F_PER_AMOUNT[k] = per
        F_ONCE_PER_HARVEST[k] = fid != r.entry_level_dwelling.id and fu.before_scoring_trade(fid)
        if F_ONCE_PER_HARVEST[k]:
            ONCE_MASK |= src_bit(2 + k)
    FAMILY_LIMIT = r.family_limit
    WEAPON_MAX = r.weapon_max_strength
    FORGE_LOW, FORGE_HIGH = r.forge_range
    DWARFS_AT_START = r.dwarfs_at_start
    for i, v in enumerate(_vector(r.small_pasture_cost)):
        SMALL_PASTURE_COST[i] = v
    for i, v in enumerate(_vector(r.large_pasture_cost)):
        LARGE_PASTURE_COST[i] = v
    for k, (g, price) in enumerate(MARKET_PRICES.items()):
        MARKET_GOOD[k] = hold.index(g)
        MARKET_PRICE[k] = price
    NUM_RUBY_TILES = len(r.ruby_tiles)
    for k, (tile, price) in enumerate(r.ruby_tiles.items()):
        RUBY_TILE[k] = hb.TILES.index(tile)
        RUBY_TILE_PRICE[k] = price
    SOW_MAX[0], SOW_MAX[1] = r.sow_max_fields["grain"], r.sow_max_fields["vegetable"]


def make_config_py(**params):
    from .rules import make_config as mk
    return mk(**params)


def _load_actions():
    global END_TURN_ID, COLLECT_ID, GROW_ID, TRADE_ID, FEED_ID, FEED_CONVERTING_ID, SKIP_ID
    from .furnishings import BUILDER_SWAPS
    table = action_table()
    hold = GOODS + ANIMALS
    for a in range(MAX_ACTIONS):
        A_KIND[a] = -1
        A_P1[a] = A_P2[a] = 0
    for spec in table.specs:
        A_KIND[spec.id] = spec.kind
    for sid, i in table.place.items():
        PLACE_ID[SPACE_IDS.index(sid)] = i
        A_P1[i] = SPACE_IDS.index(sid)
    for k in range(16):
        ORDER_ID[k] = FORGE_ID[k] = PEACEFUL_ID[k] = -1
    for k, i in table.order.items():
        ORDER_ID[k] = i
        A_P1[i] = k
    END_TURN_ID, COLLECT_ID, GROW_ID, TRADE_ID = table.end_turn, table.collect, table.grow, table.trade
    FEED_ID, FEED_CONVERTING_ID, SKIP_ID = table.feed, table.feed_converting, table.skip
    A_P1[FEED_CONVERTING_ID] = 1
    for i in table.tile.values():
        A_P1[i] = ACTION_SPEC[i]
    for i in table.buy_tile.values():
        A_P1[i] = ACTION_SPEC[i]
        A_P2[i] = table.specs[i].number
    for i in range(NUM_POS):
        for f in range(NUM_FURN):
            FURNISH_ID[f][i] = -1
        SOW_ID[0][i] = SOW_ID[1][i] = -1
    for pos, i in table.stable.items():
        A_P1[i] = POS_INDEX[pos]
    for (fid, pos), i in table.furnish.items():
        FURNISH_ID[FURN_INDEX[fid]][POS_INDEX[pos]] = i
        A_P1[i], A_P2[i] = FURN_INDEX[fid], POS_INDEX[pos]
    for (crop, pos), i in table.sow.items():
        c = ("grain", "vegetable").index(crop)
        SOW_ID[c][POS_INDEX[pos]] = i
        A_P1[i], A_P2[i] = c, POS_INDEX[pos]
    for k, i in table.forge.items():
        FORGE_ID[k] = i
        A_P1[i] = k
    from .rules import loot_items
    loot_ids = [x.id for x in loot_items()]
    for item, i in table.loot.items():
        LOOT_ID[loot_ids.index(item)] = i
        A_P1[i] = loot_ids.index(item)
    for m in range(16):
        BREED_ID[m] = -1
    for types, i in table.breed.items():
        mask = sum(1 << FARM_ANIMALS.index(a) for a in types)
        BREED_ID[mask] = i
        A_P1[i] = mask
    from .actions import MARKET_PRICES
    for k, (g, i) in enumerate(table.market.items()):
        if g != list(MARKET_PRICES)[k]:
            raise ValueError("compiled caverna core: the market's order changed")
        MARKET_ID[k] = i
        A_P1[i] = k
    for s in range(MAX_SPACES):
        IMITATE_ID[s] = SOLO_KEEP_ID[s] = -1
    for sid, i in table.imitate.items():
        IMITATE_ID[SPACE_IDS.index(sid)] = i
        A_P1[i] = SPACE_IDS.index(sid)
    for i in table.convert:
        A_P1[i] = ROW_OF_ACTION[i]
    for a, i in table.release.items():
        RELEASE_ID[FARM_ANIMALS.index(a)] = i
        A_P1[i] = FARM_ANIMALS.index(a)
    for k, (g, i) in enumerate(table.working_cave.items()):
        WORKING_CAVE_ID[k] = i
        A_P1[i] = k
        A_P2[i] = hold.index(g)
    for k, (c, i) in enumerate(table.harvest_choice.items()):
        HARVEST_CHOICE_ID[k] = i
        A_P1[i] = k + 1
    for sid, i in table.solo_keep.items():
        SOLO_KEEP_ID[SPACE_IDS.index(sid)] = i
        A_P1[i] = SPACE_IDS.index(sid)
    for k, i in table.peaceful.items():
        PEACEFUL_ID[k] = i
        A_P1[i] = k
    for swaps, i in table.pay.items():
        PAY_ID[BUILDER_SWAPS.index(swaps)] = i
        A_P1[i] = BUILDER_SWAPS.index(swaps)


_load_effects()
_load_furnishing_effects()
_load_actions()


cdef int tables_for(object game) except -1:
    """The Tables entry of a game's player count and options (made once per setting)."""
    global NUM_TABLES
    from . import rules as ru
    config = game.config
    n = game.num_players
    key = (n, tuple(sorted(config.as_dict().items(), key=lambda kv: kv[0])).__repr__())
    if key in _TABLE_KEYS:
        return _TABLE_KEYS[key]
    if NUM_TABLES >= MAX_TABLES:
        raise ValueError("compiled caverna core: too many game settings in one process")
    cdef Tables* t = <Tables*>malloc(sizeof(Tables))
    if t == NULL:
        raise MemoryError()
    memset(t, 0, sizeof(Tables))
    TABLES[NUM_TABLES] = t
    r = rules()
    t.cfg = make_config(config)
    t.num_players = n
    rounds = ru.rounds_played(n)
    t.n_rounds = len(rounds)
    for k, rn in enumerate(rounds):
        t.rounds[k] = rn
    board = ru.board_space_ids(n, config)
    t.n_board = len(board)
    for k, sid in enumerate(board):
        t.board[k] = SPACE_IDS.index(sid)
    stages = ru.stage_rounds(n)
    shuffled = ru.shuffled_round_cards(n)
    for rn in range(13):
        fixed = ru.fixed_round_card(n, rn) if 1 <= rn <= 12 else None
        t.fixed_card[rn] = CARD_IDS.index(fixed) if fixed else -1
        t.stage_of_round[rn] = next((s for s, rs in stages.items() if rn in rs), 0)
        t.marker_round[rn] = rn in ru.harvest_marker_rounds(n)
        if 1 <= rn <= 12:
            event = ru.harvest_event(rn, n)
            t.harvest_event[rn] = HK_MARKER if event == "marker" else HARVEST_KINDS_PY.index(event)
    for stage, cards in shuffled.items():
        t.n_stage_cards[stage] = len(cards)
        for k, cid in enumerate(cards):
            t.stage_cards[stage][k] = CARD_IDS.index(cid)
    t.marker_mix[0], t.marker_mix[1] = ru.harvest_marker_mix(n)
    hold = GOODS + ANIMALS
    for s, sid in enumerate(SPACE_IDS):
        acc = ru.accumulation(sid, config)
        t.acc_n[s] = len(acc)
        for k, a in enumerate(acc):
            t.acc_good[s][k] = hold.index(a.good)
            t.acc_empty[s][k] = a.if_empty
            t.acc_other[s][k] = a.otherwise
        for rn in range(1, 13):
            t.acc_paused[s][rn] = bool(acc) and not ru.accumulation(sid, config, n, rn)
        if SP_IMITATION[s] and sid in board:
            t.imitation_cost[s] = ru.imitation_cost(sid, n, config)
    for k, item in enumerate(ru.loot_items(config)):
        t.loot_min[k] = item.min_strength
    for seat in range(n):
        t.starting_food[seat] = ru.starting_food(seat, n)
    t.sequential_loot = config.loot_eligibility == "sequential"
    t.imitation_copies_imitation = config.imitation_may_copy_imitation
    t.once_per_harvest = config.anytime_trades_once_per_harvest
    t.solo_cleanup_min = config.solo_cleanup_min_goods
    t.fence_per_pasture = config.carpenter_fence_discount == "per_pasture"
    t.guest_every_time = config.guest_room_extension_both == "every_time"
    t.cost_a = config.furnishing_cost_source == "A"
    for seat in range(n):
        for fid in config.banned_furnishings(seat):
            t.banned_furnishings[seat] |= (<uint64_t>1) << FURN_INDEX[fid]
    _TABLE_KEYS[key] = NUM_TABLES
    NUM_TABLES += 1
    return NUM_TABLES - 1



# ------------------------------------------------------------------------------------------------
# Small helpers on the state

cdef const Tables* tab(const GameState* s) noexcept nogil:
    """The tables of the state's game setting (not inline: declared in compiled.pxd for the searchers)."""
    return TABLES[s.tables]


cdef int round_no(const GameState* s) noexcept nogil:
    """The printed number of the current round (`ReferenceState.round_no`)."""
    cdef const Tables* t = tab(s)
    return t.rounds[s.round if s.round < t.n_rounds else t.n_rounds - 1]


cdef inline void holdings_of(const Player* p, int* h) noexcept nogil:
    """`conversions.holdings(goods, animals)`."""
    cdef int i
    for i in range(NUM_GOODS):
        h[i] = p.goods[i]
    for i in range(NUM_ANIMALS):
        h[NUM_GOODS + i] = p.animals[i]


cdef inline int held(const Player* p, int i) noexcept nogil:
    return p.goods[i] if i < NUM_GOODS else p.animals[i - NUM_GOODS]


cdef inline void add_held(Player* p, int i, int n) noexcept nogil:
    if i < NUM_GOODS:
        p.goods[i] += n
    else:
        p.animals[i - NUM_GOODS] += n


cdef inline bint holds(const Player* p, const int* cost) noexcept nogil:
    cdef int i
    for i in range(NUM_HOLD):
        if cost[i] and held(p, i) < cost[i]:
            return False
    return True


cdef uint64_t owned_mask(const Board* b) noexcept nogil:
    """`reference.owned_ids` as bits (overhang halves included)."""
    cdef uint64_t m = 0
    cdef int i
    for i in range(NUM_POS):
        if b.sp[i].furnishing >= 0:
            m |= (<uint64_t>1) << b.sp[i].furnishing
    return m


cdef inline bint has(const Board* b, int fid) noexcept nogil:
    return owns(b, fid)


cdef void conversion_sources(const GameState* s, int player, uint64_t* sources, uint64_t* once) noexcept nogil:
    """`ReferenceState._conversion_sources`: the sources the player may use now, and those usable once more."""
    cdef const Player* p = &s.players[player]
    cdef uint64_t owned = owned_mask(&p.board)
    sources[0] = src_bit(SRC_FOOD) | src_bit(SRC_RUBY) | (owned << 2)
    once[0] = 0
    if not tab(s).once_per_harvest:
        return
    sources[0] &= ~(p.trades_used << 2)
    once[0] = sources[0] & ONCE_MASK


cdef bint player_affords(const GameState* s, int player, const int* cost) noexcept nogil:
    """`ReferenceState._affords`: the player holds the cost or can get it by converting now."""
    cdef const Player* p = &s.players[player]
    cdef int h[NUM_HOLD]
    cdef uint64_t sources, once
    if holds(p, cost):
        return True
    conversion_sources(s, player, &sources, &once)
    holdings_of(p, h)
    return can_afford(h, cost, sources, once)


cdef int food_potential_of(const GameState* s, int player) noexcept nogil:
    """`ReferenceState.food_potential`."""
    cdef int h[NUM_HOLD]
    cdef uint64_t sources, once
    conversion_sources(s, player, &sources, &once)
    holdings_of(&s.players[player], h)
    return food_potential(h, sources, once)


cdef inline void one_good(int* cost, int good, int n) noexcept nogil:
    memset(cost, 0, NUM_HOLD * sizeof(int))
    cost[good] = n


cdef inline void cost_of16(const int16_t* c, int* cost) noexcept nogil:
    cdef int i
    for i in range(NUM_HOLD):
        cost[i] = c[i]


cdef void check_animals(GameState* s, int player) noexcept nogil:
    """`ReferenceState._check_animals`: whether the acting player's animals overflow."""
    cdef Player* p = &s.players[player]
    if p.animals[0] == 0 and p.animals[1] == 0 and p.animals[2] == 0 and p.animals[3] == 0:
        s.overflow = 0
        return
    s.overflow = not can_accommodate(&p.board, &tab(s).cfg, p.animals, dwarfs_of(p))


cdef void gain(GameState* s, int player, const int* goods) noexcept nogil:
    """`ReferenceState._gain`: add goods and animals with what they trigger (Seam, Dog school); animals are
    checked for room. (The reference checks after each farm animal of the dict in turn; no gain of the data
    holds a dog after a farm animal, so checking once after all of them is the same.)"""
    cdef Player* p = &s.players[player]
    cdef int i
    cdef bint animals = False
    for i in range(NUM_HOLD):
        if goods[i]:
            add_held(p, i, goods[i])
            if H_SHEEP <= i <= H_CATTLE and goods[i] > 0:
                animals = True
    if goods[H_STONE] > 0 and has(&p.board, SEAM):
        p.goods[H_ORE] += goods[H_STONE]
    if goods[H_DOG] > 0 and has(&p.board, DOG_SCHOOL):
        p.goods[H_WOOD] += DOG_SCHOOL_WOOD * goods[H_DOG]
    if animals:
        check_animals(s, player)


cdef void convert(GameState* s, int player, int row) noexcept nogil:
    """`ReferenceState._convert`: carry out one conversion (the Slaughtering cave adds its food)."""
    cdef Player* p = &s.players[player]
    cdef int get[NUM_HOLD]
    cdef int i, animals = ROW_PAY[row][H_SHEEP] + ROW_PAY[row][H_DONKEY] + ROW_PAY[row][H_WILD_BOAR] + ROW_PAY[row][H_CATTLE]
    cdef int src = ROW_SRC[row]
    cost_of16(ROW_GET[row], get)
    if src == SRC_FOOD and animals and has(&p.board, SLAUGHTERING_CAVE):
        get[H_FOOD] += animals * SLAUGHTER_BONUS
    for i in range(NUM_HOLD):
        if ROW_PAY[row][i]:
            add_held(p, i, -ROW_PAY[row][i])
    gain(s, player, get)
    if animals and s.overflow:
        check_animals(s, player)
    if tab(s).once_per_harvest and src >= 2 and F_ONCE_PER_HARVEST[src - 2]:
        p.trades_used |= (<uint64_t>1) << (src - 2)


cdef bint pay(GameState* s, int player, const int* cost) noexcept nogil:
    """`ReferenceState._pay`: pay the cost, carrying out `conversions.payment_plan` first when needed."""
    cdef Player* p = &s.players[player]
    cdef int h[NUM_HOLD]
    cdef int plan[MAX_PLAN]
    cdef int n, k, i
    cdef uint64_t sources, once
    if not holds(p, cost):
        conversion_sources(s, player, &sources, &once)
        holdings_of(p, h)
        n = payment_plan(h, cost, sources, once, plan)
        if n < 0:
            return False
        for k in range(n):
            convert(s, player, ROW_OF_ACTION[plan[k]])
    for i in range(NUM_HOLD):
        if cost[i]:
            add_held(p, i, -cost[i])
    return True


cdef void raise_food(GameState* s, int player, int food) noexcept nogil:
    """`ReferenceState._raise({"food": food})`."""
    cdef Player* p = &s.players[player]
    cdef int h[NUM_HOLD]
    cdef int cost[NUM_HOLD]
    cdef int plan[MAX_PLAN]
    cdef int n, k
    cdef uint64_t sources, once
    one_good(cost, H_FOOD, food)
    if holds(p, cost):
        return
    conversion_sources(s, player, &sources, &once)
    holdings_of(p, h)
    n = payment_plan(h, cost, sources, once, plan)
    for k in range(n):
        convert(s, player, ROW_OF_ACTION[plan[k]])


# ------------------------------------------------------------------------------------------------
# Furnishing effects (furnishings.py)

cdef void discounted(const Board* b, int* cost) noexcept nogil:
    """`furnishings._discounted`: the Carpenter's wood and the Stone carver's stone off a cost."""
    if has(b, CARPENTER) and cost[H_WOOD] > 0:
        cost[H_WOOD] = max(0, cost[H_WOOD] - CARPENTER_WOOD)
    if has(b, STONE_CARVER) and cost[H_STONE] > 0:
        cost[H_STONE] = max(0, cost[H_STONE] - STONE_CARVER_STONE)


cdef int payment_choices(const GameState* s, const Board* b, int fid, const Node* e, int* swaps_out,
                         int (*options)[NUM_HOLD]) noexcept nogil:
    """`furnishings.payment_choices` (`reference.payment_choices`): each way to pay, keyed by Builder swaps."""
    cdef int paid[NUM_HOLD]
    cdef int i, k, n = 0, sw, sst
    if e.printed:
        cost_of16(FURN_COST[tab(s).cost_a][fid], paid)
    else:
        cost_of16(e.pay, paid)
    discounted(b, paid)
    memcpy(options[0], paid, sizeof(paid))
    swaps_out[0] = 0
    n = 1
    if has(b, BUILDER):
        for k in range(1, 4):
            sw = 1 if (k == 1 or k == 3) else 0
            sst = 1 if (k == 2 or k == 3) else 0
            if paid[H_WOOD] < BUILDER_WOOD * sw or paid[H_STONE] < BUILDER_STONE * sst:
                continue
            memcpy(options[n], paid, sizeof(paid))
            options[n][H_WOOD] -= BUILDER_WOOD * sw
            options[n][H_STONE] -= BUILDER_STONE * sst
            options[n][H_ORE] += BUILDER_ORE_W * sw + BUILDER_ORE_S * sst
            swaps_out[n] = k
            n += 1
    return n


cdef inline bint same_cost(const int* a, const int* b) noexcept nogil:
    cdef int i
    for i in range(NUM_HOLD):
        if a[i] != b[i]:
            return False
    return True


cdef int player_payment_choices(const GameState* s, int player, int fid, const Node* e, int* swaps_out,
                                int (*options)[NUM_HOLD]) noexcept nogil:
    """`ReferenceState._payment_choices`: the distinct payments the player holds, or if none, those the
    player can pay by converting (in Builder-swap order)."""
    cdef const Player* p = &s.players[player]
    cdef int all_swaps[4]
    cdef int all_opts[4][NUM_HOLD]
    cdef int n = payment_choices(s, &p.board, fid, e, all_swaps, all_opts)
    cdef int k, j, nh = 0, nc = 0
    cdef int held_sw[4]
    cdef int conv_sw[4]
    cdef int held_i[4]
    cdef int conv_i[4]
    cdef bint dup
    for k in range(n):
        dup = False
        for j in range(nh):
            if same_cost(all_opts[held_i[j]], all_opts[k]):
                dup = True
        for j in range(nc):
            if same_cost(all_opts[conv_i[j]], all_opts[k]):
                dup = True
        if dup:
            continue
        if holds(p, all_opts[k]):
            held_i[nh] = k
            nh += 1
        elif nh == 0 and player_affords(s, player, all_opts[k]):
            conv_i[nc] = k
            nc += 1
    if nh:
        for j in range(nh):
            swaps_out[j] = all_swaps[held_i[j]]
            memcpy(options[j], all_opts[held_i[j]], NUM_HOLD * sizeof(int))
        return nh
    for j in range(nc):
        swaps_out[j] = all_swaps[conv_i[j]]
        memcpy(options[j], all_opts[conv_i[j]], NUM_HOLD * sizeof(int))
    return nc


cdef bint can_pay_furnishing(const GameState* s, int player, int fid, const Node* e) noexcept nogil:
    """`ReferenceState._can_pay_furnishing`."""
    cdef int swaps[4]
    cdef int opts[4][NUM_HOLD]
    cdef int n = payment_choices(s, &s.players[player].board, fid, e, swaps, opts), k
    for k in range(n):
        if player_affords(s, player, opts[k]):
            return True
    return False


cdef void stable_cost(const Board* b, const Node* e, int* cost) noexcept nogil:
    """`furnishings.stable_cost(board, e.arg("cost"))`: the Stone carver makes the stone free."""
    cost_of16(e.pay, cost)
    if has(b, STONE_CARVER) and cost[H_STONE] > 0:
        cost[H_STONE] = max(0, cost[H_STONE] - STONE_CARVER_STONE)


cdef void fence_cost(const GameState* s, const Player* p, const Turn* t, const Node* e, int* cost) noexcept nogil:
    """`ReferenceState._fence_cost`: the atom's cost, less the Carpenter's wood (once per action by default)."""
    cost_of16(e.pay, cost)
    if not tab(s).fence_per_pasture and t.fence_discounted:
        return
    if has(&p.board, CARPENTER):
        cost[H_WOOD] -= min(CARPENTER_WOOD, cost[H_WOOD])


cdef void forge_cost(const Board* b, int strength, int* cost) noexcept nogil:
    """`furnishings.forge_cost`: ore per strength, the Blacksmith's 2 off."""
    cdef int ore = strength
    if has(b, BLACKSMITH):
        ore = max(0, ore - BLACKSMITH_ORE)
    one_good(cost, H_ORE, ore)


cdef int dwarf_room(const Board* b, const Config* cfg, int dwarfs) noexcept nogil:
    """`furnishings.dwarf_room`: room in the dwellings (the Additional dwelling's only from the 5th dwarf on)."""
    cdef int k, i, fid, room = 0
    for k in range(NUM_ITER):
        i = ITER[k]
        if not usable(b, cfg, i):
            continue
        fid = b.sp[i].furnishing
        if fid >= 0 and not (F_ROOM_ONLY_FOR[fid] and dwarfs < F_ROOM_ONLY_FOR[fid] - 1):
            room += F_DWARF_CAP[fid]
    return room


cdef int family_limit(const Board* b, const Config* cfg) noexcept nogil:
    """`furnishings.family_limit`: the most dwarfs a family may have (raised by the Additional dwelling)."""
    cdef int k, i, fid, limit = FAMILY_LIMIT
    for k in range(NUM_ITER):
        i = ITER[k]
        if not usable(b, cfg, i):
            continue
        fid = b.sp[i].furnishing
        if fid >= 0 and F_FAMILY_CAP[fid] > limit:
            limit = F_FAMILY_CAP[fid]
    return limit


cdef bint can_grow_family(const Board* b, const Config* cfg, int dwarfs) noexcept nogil:
    """`furnishings.can_grow_family`: more dwelling room than dwarfs, fewer dwarfs than the limit."""
    return dwarfs < dwarf_room(b, cfg, dwarfs) and dwarfs < family_limit(b, cfg)


cdef inline int ore_mines(const Board* b) noexcept nogil:
    cdef int i, n = 0
    for i in range(NUM_GRID):
        n += b.sp[i].terrain == T_ORE_MINE
    return n


cdef inline int ruby_mines(const Board* b) noexcept nogil:
    cdef int i, n = 0
    for i in range(NUM_GRID):
        n += b.sp[i].terrain == T_RUBY_MINE
    return n


# ------------------------------------------------------------------------------------------------
# Effect trees (reference.py: _started, _satisfied, _exhausted, available_atoms, is_auto)

cdef inline bint is_combinator(int kind) noexcept nogil:
    return kind >= K_ALL


cdef bint started(int base, const int8_t* done, int n) noexcept nogil:
    cdef const Node* e = &NODES[base + n]
    cdef int c
    if e.nchild or is_combinator(e.kind):
        for c in range(e.nchild):
            if started(base, done, e.child[c]):
                return True
        return False
    return done[n] > 0


cdef bint satisfied(int base, const int8_t* done, int n) noexcept nogil:
    cdef const Node* e = &NODES[base + n]
    cdef int c, ch
    if e.kind == K_ALL:
        for c in range(e.nchild):
            ch = e.child[c]
            if not NODES[base + ch].optional and not satisfied(base, done, ch):
                return False
        return True
    if e.kind == K_ANY or e.kind == K_THEN_ANY or e.kind == K_ONE:
        for c in range(e.nchild):
            if satisfied(base, done, e.child[c]):
                return True
        return False
    return done[n] > 0


cdef bint exhausted(int base, const int8_t* done, int open_, int n) noexcept nogil:
    cdef int times = done[n]
    cdef int kind = NODES[base + n].kind
    if times == 0:
        return False
    if kind == A_TRADE:
        return times >= NODES[base + n].max_times
    if kind == A_SOW or kind == A_EXPEDITION or kind == A_MARKET:
        return open_ != n
    return True


cdef int walk_atoms(int base, const int8_t* done, int open_, bint guest, int n, int* out, int count) noexcept nogil:
    cdef const Node* e = &NODES[base + n]
    cdef int k, j, c, p
    cdef bint ok
    if e.kind == K_ALL:
        for k in range(e.nchild):
            ok = True
            for j in range(k + 1, e.nchild):
                if started(base, done, e.child[j]):
                    ok = False
                    break
            if not ok:
                continue
            for j in range(k):
                p = e.child[j]
                if not (satisfied(base, done, p) or (NODES[base + p].optional and not started(base, done, p))):
                    ok = False
                    break
            if ok:
                count = walk_atoms(base, done, open_, guest, e.child[k], out, count)
    elif e.kind == K_ANY or (e.kind == K_ONE and guest):
        for k in range(e.nchild):
            count = walk_atoms(base, done, open_, guest, e.child[k], out, count)
    elif e.kind == K_THEN_ANY:
        for k in range(e.nchild):
            ok = True
            for j in range(k + 1, e.nchild):
                if started(base, done, e.child[j]):
                    ok = False
                    break
            if ok:
                count = walk_atoms(base, done, open_, guest, e.child[k], out, count)
    elif e.kind == K_ONE:
        for k in range(e.nchild):
            ok = True
            for j in range(e.nchild):
                if j != k and started(base, done, e.child[j]):
                    ok = False
                    break
            if ok:
                count = walk_atoms(base, done, open_, guest, e.child[k], out, count)
    elif not exhausted(base, done, open_, n):
        out[count] = n
        count += 1
    return count


cdef inline int available_atoms(int base, const int8_t* done, int open_, bint guest, int* out) noexcept nogil:
    """`reference.available_atoms`: the atoms the tree allows next, in tree order."""
    return walk_atoms(base, done, open_, guest, 0, out, 0)


cdef inline bint is_auto(int base, int n) noexcept nogil:
    """`reference.is_auto`: a goods part carried out without a choice."""
    cdef const Node* e = &NODES[base + n]
    if e.optional or not (e.kind == A_TAKE or e.kind == A_GAIN or e.kind == A_GAIN_PER or e.kind == A_GAIN_IF
                          or e.kind == A_START_PLAYER):
        return False
    return e.parent < 0 or NODES[base + e.parent].kind == K_ALL


cdef inline int tree_base(const Turn* t) noexcept nogil:
    return TREE_BASE[t.tree_space][t.tree_armed]


cdef inline void set_tree(Turn* t, int space) noexcept nogil:
    """`tree_of(resolve_weapon(effect, dwarf > 0))` for the space."""
    t.tree_space = space
    t.tree_armed = t.dwarf > 0


cdef void new_turn(Turn* t, int space, int dwarf) noexcept nogil:
    memset(t, 0, sizeof(Turn))
    t.space = space
    t.dwarf = dwarf
    t.tree_space = -1
    t.target = -1
    t.open = -1
    t.pay_fid = -1


# ------------------------------------------------------------------------------------------------
# The tree's atoms: which actions carry them out (ReferenceState._atom_actions and friends)

cdef bint guest(const GameState* s, int player, const Turn* t) noexcept nogil:
    """`ReferenceState._guest`: the Guest room turns this turn's either/or into and/or."""
    cdef const Player* p = &s.players[player]
    cdef int space = t.target if t.target >= 0 else t.space
    if not has(&p.board, GUEST_ROOM):
        return False
    return not (p.extension_both_used and space >= 0 and SP_EXTENSION[space] and not tab(s).guest_every_time)


cdef bint sow_affordable(const GameState* s, int player, int crop) noexcept nogil:
    cdef int cost[NUM_HOLD]
    one_good(cost, H_GRAIN + crop, 1)
    return player_affords(s, player, cost)


cdef bint on_ok(const Player* p, const Node* e, int spec) noexcept nogil:
    """`ReferenceState._on_ok`: Ruby mine construction's "on an ordinary tunnel" / "on a deep tunnel"."""
    if e.on == 1:
        return p.board.sp[SPEC_CELL[spec][0]].terrain == T_TUNNEL
    if e.on == 2:
        return p.board.sp[SPEC_CELL[spec][0]].terrain == T_DEEP_TUNNEL
    return True


cdef int atom_actions(const GameState* s, int player, const Turn* t, int node, int n, bint first,
                      int* out) noexcept nogil:
    """`ReferenceState._atom_actions`: the actions that carry out the atom NODES[node] (local index n of the
    tree; -2 the pending loot follow-up, -3 a loot item being judged) now, in the reference's order."""
    cdef const Player* p = &s.players[player]
    cdef const Node* e = &NODES[node]
    cdef const Config* cfg = &tab(s).cfg
    cdef int kind = e.kind
    cdef int cost[NUM_HOLD]
    cdef int buf[MAX_TILE_SPECS]
    cdef int fields[NUM_POS]
    cdef int count = 0, k, i, j, nf, tile, strength, crop, mx, sown, f, g
    cdef bint bought, taken
    if kind == A_TAKE or kind == A_GAIN:
        if kind == A_GAIN or not t.imitating:
            if kind == A_GAIN:
                out[0] = COLLECT_ID
                return 1
            for g in range(NUM_HOLD):
                if s.goods_on[t.space][g]:
                    out[0] = COLLECT_ID
                    return 1
        return 0
    if kind == A_GAIN_PER or kind == A_GAIN_IF or kind == A_START_PLAYER or kind == A_WEAPONS or kind == A_IMITATE:
        return 0
    if kind == A_GROW:
        if can_grow_family(&p.board, cfg, dwarfs_of(p)):
            out[0] = GROW_ID
            return 1
        return 0
    if kind == A_TRADE:
        cost_of16(e.pay, cost)
        if player_affords(s, player, cost):
            out[0] = TRADE_ID
            return 1
        return 0
    if kind == A_MARKET:
        for k in range(NUM_MARKET):
            bought = False
            if t.open == n:
                for j in range(t.n_bought):
                    if t.bought[j] == k:
                        bought = True
            if bought:
                continue
            one_good(cost, H_GOLD, MARKET_PRICE[k])
            if player_affords(s, player, cost):
                out[count] = MARKET_ID[k]
                count += 1
        return count
    if kind == A_FORGE:
        if t.dwarf > 0:
            return 0
        for k in range(FORGE_LOW, FORGE_HIGH + 1):
            if k > e.max_strength:
                continue
            forge_cost(&p.board, k, cost)
            if player_affords(s, player, cost):
                out[count] = FORGE_ID[k]
                count += 1
        return count
    if kind == A_EXPEDITION:
        if t.dwarf == 0:
            return 0
        strength = t.exp_strength if (t.open == n and not tab(s).sequential_loot) else t.dwarf
        for k in range(NUM_LOOT):
            taken = False
            if t.open == n:
                for j in range(t.n_exp):
                    if t.exp_items[j] == k:
                        taken = True
            if taken or tab(s).loot_min[k] > strength:
                continue
            if loot_feasible(s, player, t, k):
                out[count] = LOOT_ID[k]
                count += 1
                if first:
                    return count
        return count
    if kind == A_SOW:
        nf = sowable_fields(&p.board, cfg, fields)
        for crop in range(2):
            sown = t.pend_sown[t.n_pending - 1][crop] if n == -2 else t.sown[crop]
            mx = e.max_grain if crop == 0 else e.max_vegetable
            if sown < mx and sow_affordable(s, player, crop):
                for i in range(nf):
                    if SOW_ID[crop][fields[i]] >= 0:
                        out[count] = SOW_ID[crop][fields[i]]
                        count += 1
        return count
    if kind == A_BREED:
        return breed_choices(s, player, e.max_types, out)
    if kind == A_STABLE:
        stable_cost(&p.board, e, cost)
        if not player_affords(s, player, cost):
            return 0
        return stable_actions(&p.board, cfg, out)
    if kind == A_FURNISH:
        for f in range(NUM_FURN):
            if not (e.furnish_mask >> f) & 1 or (tab(s).banned_furnishings[player] >> f) & 1:
                continue
            if not F_UNLIMITED[f] and (s.built >> f) & 1:
                continue
            if not can_pay_furnishing(s, player, f, e):
                continue
            nf = furnish_targets(&p.board, cfg, f, fields)
            for i in range(nf):
                if FURNISH_ID[f][fields[i]] >= 0:
                    out[count] = FURNISH_ID[f][fields[i]]
                    count += 1
                    if first:
                        return count
        return count
    # tile placements
    if kind == A_FENCE_SMALL or kind == A_FENCE_LARGE:
        fence_cost(s, p, t, e, cost)
        if not player_affords(s, player, cost):
            return 0
    for tile in range(NUM_TILES):
        if not (e.tiles >> tile) & 1:
            continue
        nf = tile_actions(&p.board, cfg, tile, buf)
        for i in range(nf):
            if kind == A_PLACE_TILE and not on_ok(p, e, ACTION_SPEC[buf[i]]):
                continue
            out[count] = buf[i]
            count += 1
            if first:
                return count
    return count


cdef int breed_choices(const GameState* s, int player, int max_types, int* out) noexcept nogil:
    """`ReferenceState._breed_choices`: BREED ids of the sets of newborns that fit."""
    cdef const Player* p = &s.players[player]
    cdef int masks[16]
    cdef int n = breeding_options(&p.board, &tab(s).cfg, p.animals, dwarfs_of(p), max_types, masks), k
    for k in range(n):
        out[k] = BREED_ID[masks[k]]
    return n


cdef bint loot_feasible(const GameState* s, int player, const Turn* t, int item) noexcept nogil:
    """`ReferenceState._loot_feasible`."""
    cdef const Node* e = &NODES[LOOT_NODE[item]]
    cdef int fields[NUM_POS]
    cdef int buf[MAX_ACTIONS]
    if e.kind == A_GAIN or e.kind == A_WEAPONS:
        return True
    if e.kind == A_SOW:
        return sowable_fields(&s.players[player].board, &tab(s).cfg, fields) > 0 and (
            sow_affordable(s, player, 0) or sow_affordable(s, player, 1))
    return atom_actions(s, player, t, LOOT_NODE[item], -3, True, buf) > 0


cdef bint auto_yield(const GameState* s, int player, const Turn* t, const Node* e, int* goods) noexcept nogil:
    """`ReferenceState._auto_yield`: the goods an automatic part gives (True when it gives anything; the
    starting player token counts)."""
    cdef const Player* p = &s.players[player]
    cdef int i, m
    cdef bint any_ = False
    memset(goods, 0, NUM_HOLD * sizeof(int))
    if e.kind == A_TAKE:
        if t.imitating:
            return False
        for i in range(NUM_HOLD):
            goods[i] = s.goods_on[t.space][i]
            any_ = any_ or goods[i] != 0
        return any_
    if e.kind == A_GAIN:
        for i in range(NUM_HOLD):
            goods[i] = e.goods[i]
            any_ = any_ or goods[i] != 0
        return any_
    if e.kind == A_GAIN_PER:
        m = ore_mines(&p.board)
        for i in range(NUM_HOLD):
            goods[i] = e.goods[i] * m
            any_ = any_ or goods[i] != 0
        return any_
    if e.kind == A_GAIN_IF:
        if ruby_mines(&p.board) >= e.ruby_mines:
            for i in range(NUM_HOLD):
                goods[i] = e.goods[i]
                any_ = any_ or goods[i] != 0
        return any_
    return True         # become_starting_player


cdef bint tree_feasible(const GameState* s, int player, Turn* t) noexcept nogil:
    """`ReferenceState._tree_feasible`: placing there carries out something."""
    cdef int base = tree_base(t)
    cdef int8_t done[TREE_NODES]
    cdef int8_t saved[TREE_NODES]
    cdef int atoms[TREE_NODES]
    cdef int goods[NUM_HOLD]
    cdef int buf[MAX_ACTIONS]
    cdef int k, na, n, autos
    cdef bint g = guest(s, player, t)
    cdef bint result = False
    memset(done, 0, sizeof(done))
    while True:
        na = available_atoms(base, done, -1, g, atoms)
        autos = 0
        for k in range(na):
            n = atoms[k]
            if not is_auto(base, n):
                continue
            autos += 1
            if auto_yield(s, player, t, &NODES[base + n], goods):
                return True
        if not autos:
            break
        for k in range(na):
            if is_auto(base, atoms[k]):
                done[atoms[k]] = 1
    memcpy(saved, t.done, sizeof(saved))
    memcpy(t.done, done, sizeof(done))
    na = available_atoms(base, done, -1, g, atoms)
    for k in range(na):
        if atom_actions(s, player, t, base + atoms[k], atoms[k], True, buf) > 0:
            result = True
            break
    memcpy(t.done, saved, sizeof(saved))
    return result


# ------------------------------------------------------------------------------------------------
# Placing a dwarf and imitating (ReferenceState._place_problem, _imitate_problem, _imitation_targets)

cdef inline int next_weapon(const GameState* s, const Player* p) noexcept nogil:
    if s.next_dwarf >= 0:
        return s.next_dwarf
    return p.ready[0]


cdef int imitation_targets(const GameState* s, int player, int* out) noexcept nogil:
    cdef int k, space, copied, n = 0
    for k in range(s.n_occ):
        space = s.occ_order[k]
        if s.occupied[space] == player:
            continue
        if SP_IMITATION[space]:
            if not tab(s).imitation_copies_imitation or s.imitated[space] < 0:
                continue
            copied = s.imitated[space]
            if s.occupied[copied] == player:
                continue
            out[n] = space
            n += 1
        elif SP_IMITABLE[space]:
            out[n] = space
            n += 1
    return n


cdef bint imitate_ok(const GameState* s, int player, int target, int imitation) noexcept nogil:
    """`ReferenceState._imitate_problem(...) is None`."""
    cdef const Player* p = &s.players[player]
    cdef int cost[NUM_HOLD]
    cdef int c = tab(s).imitation_cost[imitation]
    cdef int real = s.imitated[target] if s.imitated[target] >= 0 else target
    cdef Turn t
    cdef GameState* scratch
    cdef bint feasible
    one_good(cost, H_FOOD, c)
    if not player_affords(s, player, cost):
        return False
    new_turn(&t, imitation, s.turn.dwarf if s.has_turn else next_weapon(s, p))
    t.imitating = 1
    set_tree(&t, real)
    scratch = <GameState*>malloc(sizeof(GameState))
    if scratch == NULL:
        return False
    memcpy(scratch, s, sizeof(GameState))
    if p.goods[H_FOOD] >= c:
        scratch.players[player].goods[H_FOOD] -= c
    else:
        pay(scratch, player, cost)
    feasible = tree_feasible(scratch, player, &t)
    free(scratch)
    return feasible


cdef bint place_ok(const GameState* s, int player, int space) noexcept nogil:
    """`ReferenceState._place_problem(...) is None`."""
    cdef const Player* p = &s.players[player]
    cdef int targets[MAX_SPACES]
    cdef int cost[NUM_HOLD]
    cdef int k, n
    cdef bint visible = False
    cdef Turn t
    for k in range(s.n_spaces):
        if s.spaces[k] == space:
            visible = True
    if not visible or s.occupied[space] >= 0 or p.n_ready == 0:
        return False
    if SP_IMITATION[space]:
        n = imitation_targets(s, player, targets)
        if n == 0:
            return False
        one_good(cost, H_FOOD, tab(s).imitation_cost[space])
        if not player_affords(s, player, cost):
            return False
        for k in range(n):
            if imitate_ok(s, player, targets[k], space):
                return True
        return False
    new_turn(&t, space, next_weapon(s, p))
    set_tree(&t, space)
    return tree_feasible(s, player, &t)


# ------------------------------------------------------------------------------------------------
# Legal actions (ReferenceState._compute_legal)

cdef int weapons_of(const GameState* s, int player, int* out) noexcept nogil:
    """`ReferenceState.weapons_of`: every dwarf's weapon, the acting dwarf's as it is now."""
    cdef const Player* p = &s.players[player]
    cdef int k, n = 0
    cdef bint acting = s.has_turn and s.actor == player and s.phase == PH_WORK
    for k in range(p.n_ready):
        out[n] = p.ready[k]
        n += 1
    for k in range(p.n_placed):
        if acting and k == p.n_placed - 1:
            out[n] = s.turn.dwarf
        else:
            out[n] = p.placed[k]
        n += 1
    return n


cdef int conversions(const GameState* s, int player, int* out) noexcept nogil:
    """`ReferenceState._conversions`: the conversions the player can pay now, then the Peaceful cave's."""
    cdef const Player* p = &s.players[player]
    cdef uint64_t sources, once
    cdef int h[NUM_HOLD]
    cdef int weapons[2 * MAX_DWARFS]
    cdef int k, i, w, nw, n = 0
    cdef bint ok
    conversion_sources(s, player, &sources, &once)
    holdings_of(p, h)
    for k in range(NUM_ROWS):
        if not (sources >> ROW_SRC[k]) & 1:
            continue
        ok = True
        for i in range(NUM_HOLD):
            if h[i] < ROW_PAY[k][i]:
                ok = False
                break
        if ok:
            out[n] = ROW_ACTION[k]
            n += 1
    if has_src(sources, PEACEFUL_CAVE):
        nw = weapons_of(s, player, weapons)
        for w in range(1, WEAPON_MAX + 1):
            for k in range(nw):
                if weapons[k] == w:
                    out[n] = PEACEFUL_ID[w]
                    n += 1
                    break
    return n


cdef int ruby_tiles(const GameState* s, int player, int* out) noexcept nogil:
    """`ReferenceState._ruby_tiles`: the single tiles the player can buy with rubies now."""
    cdef const Player* p = &s.players[player]
    cdef int buf[MAX_TILE_SPECS]
    cdef int k, i, m, n = 0
    if p.goods[H_RUBY] == 0:
        return 0
    for k in range(NUM_RUBY_TILES):
        if p.goods[H_RUBY] >= RUBY_TILE_PRICE[k]:
            m = tile_actions(&p.board, &tab(s).cfg, RUBY_TILE[k], buf)
            for i in range(m):
                out[n] = SPEC_BUY[ACTION_SPEC[buf[i]]]
                n += 1
    return n


cdef int tree_actions(const GameState* s, int player, const Turn* t, int* out) noexcept nogil:
    cdef int base = tree_base(t)
    cdef int atoms[TREE_NODES]
    cdef int na = available_atoms(base, t.done, t.open, guest(s, player, t), atoms)
    cdef int k, n = 0
    for k in range(na):
        n += atom_actions(s, player, t, base + atoms[k], atoms[k], False, out + n)
    return n


cdef inline int pending_actions(const GameState* s, int player, const Turn* t, int* out) noexcept nogil:
    return atom_actions(s, player, t, LOOT_NODE[t.pend_loot[t.n_pending - 1]], -2, False, out)


cdef bint nothing_done_yet(const Turn* t) noexcept nogil:
    if t.pay_fid >= 0 or t.n_pending:
        return False
    return t.tree_space < 0 or (not t.did_something and not satisfied(tree_base(t), t.done, 0))


cdef bint turn_possible(const GameState* s, int player) noexcept nogil:
    """`ReferenceState._turn_possible`."""
    cdef const Turn* t = &s.turn
    cdef int targets[MAX_SPACES]
    cdef int buf[MAX_ACTIONS]
    cdef int k, n
    if t.tree_space < 0:
        n = imitation_targets(s, player, targets)
        for k in range(n):
            if imitate_ok(s, player, targets[k], t.space):
                return True
        return False
    return tree_actions(s, player, t, buf) > 0


cdef bint keeps_turn_possible(const GameState* s, int player, int action) noexcept nogil:
    """`ReferenceState._keeps_turn_possible`: the space can still be carried out after this conversion (or
    ruby tile, or weapon discard)."""
    cdef GameState* scratch = <GameState*>malloc(sizeof(GameState))
    cdef int gains[NUM_HOLD]
    cdef bint ok
    if scratch == NULL:
        return False
    memcpy(scratch, s, sizeof(GameState))
    if A_KIND[action] == K_CONVERT:
        convert(scratch, player, A_P1[action])
    elif A_KIND[action] == K_PEACEFUL:
        discard_weapon(scratch, player, A_P1[action])
    else:
        scratch.players[player].goods[H_RUBY] -= A_P2[action]
        place_tile_gain(scratch, player, A_P1[action])
    ok = turn_possible(scratch, player)
    free(scratch)
    return ok


cdef int sort_unique(int* a, int n) noexcept nogil:
    """Sort ascending and drop duplicates (insertion sort: the lists are short)."""
    cdef int i, j, v, m = 0
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v
    for i in range(n):
        if m == 0 or a[m - 1] != a[i]:
            a[m] = a[i]
            m += 1
    return m


cdef int chance_kind(const GameState* s) noexcept nogil:
    """`StateMixin._chance_kind`."""
    cdef const Tables* t = tab(s)
    cdef int rn
    if s.phase != PH_START:
        return CK_NONE
    if s.starter < 0:
        return CK_START_PLAYER
    rn = round_no(s)
    if s.n_cards <= s.round and t.fixed_card[rn] < 0:
        return CK_ROUND_CARD
    if t.marker_round[rn] and s.markers[s.round] < 0:
        return CK_HARVEST_MARKER
    return CK_NONE


cdef int current_player(const GameState* s) noexcept nogil:
    if s.phase == PH_OVER:
        return TERMINAL_PLAYER
    if chance_kind(s) != CK_NONE:
        return CHANCE_PLAYER
    return s.actor


cdef int chance_outcomes(const GameState* s, int* out, double* prob) noexcept nogil:
    """`ReferenceState.chance_outcomes`: outcomes and probabilities."""
    cdef const Tables* t = tab(s)
    cdef int kind = chance_kind(s), k, j, n = 0, stage, card, green, red
    cdef bint seen
    if kind == CK_START_PLAYER:
        for k in range(s.num_players):
            out[k] = k
            prob[k] = 1.0 / s.num_players
        return s.num_players
    if kind == CK_ROUND_CARD:
        stage = t.stage_of_round[round_no(s)]
        for k in range(t.n_stage_cards[stage]):
            card = t.stage_cards[stage][k]
            seen = False
            for j in range(s.n_cards):
                if s.cards[j] == card:
                    seen = True
            if not seen:
                out[n] = card
                n += 1
        for k in range(n):
            prob[k] = 1.0 / n
        return n
    if kind == CK_HARVEST_MARKER:
        green, red = s.markers_left[0], s.markers_left[1]
        if green:
            out[n] = 0
            prob[n] = <double>green / (green + red)
            n += 1
        if red:
            out[n] = 1
            prob[n] = <double>red / (green + red)
            n += 1
        return n
    return 0


cdef int legal_actions(const GameState* s, int* out) noexcept nogil:
    """`ReferenceState._compute_legal`: the legal actions, ascending."""
    cdef int player = current_player(s)
    cdef const Player* p
    cdef const Turn* t = &s.turn
    cdef double prob[MAX_CARDS]
    cdef int buf[MAX_ACTIONS]
    cdef int targets[MAX_SPACES]
    cdef int swaps[4]
    cdef int opts[4][NUM_HOLD]
    cdef int k, n = 0, m, own, w, dflt, a
    cdef bint seen
    if player == TERMINAL_PLAYER:
        return 0
    if player == CHANCE_PLAYER:
        n = chance_outcomes(s, out, prob)
        return sort_unique(out, n)
    p = &s.players[player]
    if s.phase == PH_START:         # solo clean-up
        if p.goods[H_RUBY]:
            out[n] = SOLO_KEEP_ID[s.cleanup[0]]
            n += 1
        out[n] = SKIP_ID
        return sort_unique(out, n + 1)
    if s.overflow:
        for k in range(4):
            if p.animals[k] > 0:
                out[n] = RELEASE_ID[k]
                n += 1
        m = conversions(s, player, buf)
        for k in range(m):
            a = buf[k]
            if A_KIND[a] == K_CONVERT and (ROW_PAY[A_P1[a]][H_SHEEP] or ROW_PAY[A_P1[a]][H_DONKEY]
                                            or ROW_PAY[A_P1[a]][H_WILD_BOAR] or ROW_PAY[A_P1[a]][H_CATTLE]):
                out[n] = a
                n += 1
        return sort_unique(out, n)
    if s.phase == PH_CHOICE:
        out[0], out[1] = HARVEST_CHOICE_ID[0], HARVEST_CHOICE_ID[1]
        return sort_unique(out, 2)
    if s.phase == PH_FINAL:
        n = conversions(s, player, out)
        out[n] = END_TURN_ID
        return sort_unique(out, n + 1)
    if s.phase == PH_FEEDING:
        out[0] = FEED_ID
        n = 1 + conversions(s, player, out + 1)
        if p.goods[H_FOOD] < feeding_need(s, player) and food_potential_of(s, player) > p.goods[H_FOOD]:
            out[n] = FEED_CONVERTING_ID
            n += 1
        if has(&p.board, WORKING_CAVE) and not s.working_cave_used:
            for k in range(3):
                if held(p, A_P2[WORKING_CAVE_ID[k]]) >= WORKING_CAVE_PAY[k]:
                    out[n] = WORKING_CAVE_ID[k]
                    n += 1
        return sort_unique(out, n)
    if s.phase == PH_BREEDING:
        n = breed_choices(s, player, 4, out)
        return sort_unique(out, n)
    if not s.has_turn:
        for k in range(s.n_spaces):
            if place_ok(s, player, s.spaces[k]):
                out[n] = PLACE_ID[s.spaces[k]]
                n += 1
        if n == 0:
            out[0] = SKIP_ID
            return 1
        if p.goods[H_RUBY] > 0 and s.next_dwarf < 0:
            dflt = p.ready[0] if p.n_ready else 0
            for k in range(p.n_ready):
                w = p.ready[k]
                if w > 0 and w != dflt and ORDER_ID[w] >= 0:
                    out[n] = ORDER_ID[w]
                    n += 1
        return sort_unique(out, n)
    n = conversions(s, player, buf)
    n += ruby_tiles(s, player, buf + n)
    if nothing_done_yet(t):
        m = 0
        for k in range(n):
            if keeps_turn_possible(s, player, buf[k]):
                buf[m] = buf[k]
                m += 1
        n = m
    memcpy(out, buf, n * sizeof(int))
    if t.tree_space < 0:
        m = imitation_targets(s, player, targets)
        own = 0
        for k in range(m):
            if imitate_ok(s, player, targets[k], t.space):
                out[n] = IMITATE_ID[targets[k]]
                n += 1
                own += 1
        if not own:
            out[n] = END_TURN_ID
            n += 1
        return sort_unique(out, n)
    if t.pay_fid >= 0:
        m = player_payment_choices(s, player, t.pay_fid, payment_node(t), swaps, opts)
        for k in range(m):
            out[k] = PAY_ID[swaps[k]]
        return sort_unique(out, m)
    if t.n_pending:
        own = pending_actions(s, player, t, out + n)
        n += own
        if not own or (NODES[LOOT_NODE[t.pend_loot[t.n_pending - 1]]].kind == A_SOW
                       and t.pend_sown[t.n_pending - 1][0] + t.pend_sown[t.n_pending - 1][1] > 0):
            out[n] = SKIP_ID
            n += 1
        return sort_unique(out, n)
    own = tree_actions(s, player, t, out + n)
    n += own
    if satisfied(tree_base(t), t.done, 0) or not own:
        out[n] = END_TURN_ID
        n += 1
    return sort_unique(out, n)


cdef inline const Node* payment_node(const Turn* t) noexcept nogil:
    """The furnish atom a payment choice is for (the tree's node, or the pending loot item's)."""
    if t.pay_node == -2:
        return &NODES[LOOT_NODE[t.pend_loot[t.n_pending - 1]]]
    return &NODES[tree_base(t) + t.pay_node]


cdef bint is_legal(const GameState* s, int action) noexcept nogil:
    cdef int buf[MAX_ACTIONS]
    cdef int n = legal_actions(s, buf), k
    for k in range(n):
        if buf[k] == action:
            return True
    return False


# ------------------------------------------------------------------------------------------------
# Applying actions (ReferenceState._apply_player and the methods it calls)

cdef void remove_ready(Player* p, int weapon) noexcept nogil:
    """`p.ready.remove(weapon)` (the first such dwarf)."""
    cdef int k, j
    for k in range(p.n_ready):
        if p.ready[k] == weapon:
            for j in range(k, p.n_ready - 1):
                p.ready[j] = p.ready[j + 1]
            p.n_ready -= 1
            return


cdef void sort_ready(Player* p) noexcept nogil:
    cdef int i, j, v
    for i in range(1, p.n_ready):
        v = p.ready[i]
        j = i - 1
        while j >= 0 and p.ready[j] > v:
            p.ready[j + 1] = p.ready[j]
            j -= 1
        p.ready[j + 1] = v


cdef void discard_weapon(GameState* s, int player, int strength) noexcept nogil:
    """`ReferenceState._discard_weapon` (Peaceful cave)."""
    cdef Player* p = &s.players[player]
    cdef int k, others
    cdef bint acting
    p.goods[H_FOOD] += strength
    for k in range(p.n_ready):
        if p.ready[k] == strength:
            p.ready[k] = 0
            sort_ready(p)
            return
    acting = s.has_turn and s.actor == player and s.phase == PH_WORK
    others = p.n_placed - 1 if acting else p.n_placed
    for k in range(others):
        if p.placed[k] == strength:
            p.placed[k] = 0
            return
    s.turn.dwarf = 0


cdef void place_tile_gain(GameState* s, int player, int spec) noexcept nogil:
    """`ReferenceState._place_tile`: place, and gain what the placement pays."""
    cdef int gains[NUM_HOLD]
    memset(gains, 0, sizeof(gains))
    place_tile(&s.players[player].board, spec, gains)
    gain(s, player, gains)


cdef void furnish_apply(GameState* s, int player, int fid, int pos) noexcept nogil:
    """`ReferenceState._furnish`: the tile, its gains when built, and a supplier's goods on the next rounds."""
    cdef Player* p = &s.players[player]
    cdef int gains[NUM_HOLD]
    cdef int i, k, j, count, good, last
    cdef bint found
    furnish(&p.board, fid, pos)
    if not F_UNLIMITED[fid]:
        s.built |= (<uint64_t>1) << fid
    for i in range(NUM_HOLD):
        gains[i] = F_IMMEDIATE[fid][i]
    if F_PER_KIND[fid]:
        if F_PER_KIND[fid] == 1:
            count = p.animals[0]
        elif F_PER_KIND[fid] == 2:
            count = p.animals[3]
        else:
            count = adjacent_dwellings(&p.board, &tab(s).cfg, pos)
        gains[F_PER_GOOD[fid]] += F_PER_AMOUNT[fid] * count
    gain(s, player, gains)
    good = F_SUPPLY_GOOD[fid]
    if good >= 0:
        last = s.round + 1 + F_SUPPLY_ROUNDS[fid]
        if last > tab(s).n_rounds:
            last = tab(s).n_rounds
        for k in range(s.round + 1, last):
            found = False
            for j in range(p.income_n[k]):
                if p.income_good[k][j] == good:
                    p.income_amt[k][j] += 1
                    found = True
            if not found:
                p.income_good[k][p.income_n[k]] = good
                p.income_amt[k][p.income_n[k]] = 1
                p.income_n[k] += 1


cdef void loot(GameState* s, int player, Turn* t, int item) noexcept nogil:
    """`ReferenceState._loot`: goods at once, weapons +1, or a follow-up to carry out next."""
    cdef Player* p = &s.players[player]
    cdef const Node* e = &NODES[LOOT_NODE[item]]
    cdef int goods[NUM_HOLD]
    cdef int k, w
    if e.kind == A_GAIN:
        cost_of16(e.goods, goods)
        gain(s, player, goods)
    elif e.kind == A_WEAPONS:
        if t.dwarf:
            t.dwarf = min(WEAPON_MAX, t.dwarf + e.level)
        for k in range(p.n_ready):
            if p.ready[k]:
                p.ready[k] = min(WEAPON_MAX, p.ready[k] + e.level)
        for k in range(p.n_placed - 1):
            if p.placed[k]:
                p.placed[k] = min(WEAPON_MAX, p.placed[k] + e.level)
    else:
        t.pend_loot[t.n_pending] = item
        t.pend_sown[t.n_pending][0] = t.pend_sown[t.n_pending][1] = 0
        t.n_pending += 1


cdef void breed(GameState* s, int player, int mask) noexcept nogil:
    """`ReferenceState._breed`: the newborns, and the Breeding cave's food and the Quarry's stone."""
    cdef Player* p = &s.players[player]
    cdef int gains[NUM_HOLD]
    cdef int t, n = 0
    for t in range(4):
        if (mask >> t) & 1:
            p.animals[t] += 1
            n += 1
    memset(gains, 0, sizeof(gains))
    if has(&p.board, BREEDING_CAVE) and n > 0:
        gains[H_FOOD] = BREEDING_FOOD[n if n < 4 else 4]
    if has(&p.board, QUARRY) and (mask >> 1) & 1:
        gains[H_STONE] = QUARRY_STONE
    gain(s, player, gains)


cdef void close_session(Turn* t) noexcept nogil:
    """`ReferenceState._close_session`: an expedition's end makes the weapon 1 stronger."""
    if t.open >= 0 and t.tree_space >= 0 and NODES[tree_base(t) + t.open].kind == A_EXPEDITION:
        t.dwarf = min(WEAPON_MAX, t.dwarf + 1)
    t.open = -1
    t.sown[0] = t.sown[1] = 0
    t.n_exp = 0
    t.n_bought = 0



cdef void end_turn(GameState* s, int player) noexcept nogil:
    """`ReferenceState._end_turn`: the dwarf's weapon as it is now; the next player with a dwarf at home."""
    cdef Player* p = &s.players[player]
    cdef Turn* t = &s.turn
    cdef int space, base, c, k, q
    cdef bint both
    close_session(t)
    space = t.target if t.target >= 0 else t.space
    if space >= 0 and SP_EXTENSION[space] and t.tree_space >= 0:
        base = tree_base(t)
        both = True
        for c in range(NODES[base].nchild):
            if not started(base, t.done, NODES[base].child[c]):
                both = False
        if both:
            p.extension_both_used = 1
    p.placed[p.n_placed - 1] = t.dwarf
    s.has_turn = 0
    for k in range(1, s.num_players + 1):
        q = (player + k) % s.num_players
        if s.players[q].n_ready:
            s.actor = q
            return
    end_work(s)


cdef void propagate(GameState* s, int player) noexcept nogil:
    """`ReferenceState._propagate`: carry out the goods parts the tree reaches without a choice."""
    cdef Turn* t = &s.turn
    cdef int base = tree_base(t)
    cdef int atoms[TREE_NODES]
    cdef int goods[NUM_HOLD]
    cdef int na, k, n, i
    cdef const Node* e
    while True:
        na = available_atoms(base, t.done, t.open, guest(s, player, t), atoms)
        n = -1
        for k in range(na):
            if is_auto(base, atoms[k]):
                n = atoms[k]
                break
        if n < 0:
            return
        e = &NODES[base + n]
        if e.kind == A_START_PLAYER:
            s.starter = player
        else:
            auto_yield(s, player, t, e, goods)
            if e.kind == A_TAKE and not t.imitating:
                for i in range(NUM_HOLD):
                    s.goods_on[t.space][i] = 0
            gain(s, player, goods)
        t.done[n] = 1


cdef void place(GameState* s, int player, int space) noexcept nogil:
    """`ReferenceState._place`."""
    cdef Player* p = &s.players[player]
    cdef int weapon = next_weapon(s, p)
    remove_ready(p, weapon)
    p.placed[p.n_placed] = weapon
    p.n_placed += 1
    s.next_dwarf = -1
    if s.occupied[space] < 0:
        s.occ_order[s.n_occ] = space
        s.n_occ += 1
    s.occupied[space] = player
    new_turn(&s.turn, space, weapon)
    s.has_turn = 1
    if not SP_IMITATION[space]:
        set_tree(&s.turn, space)
        propagate(s, player)


cdef int find_atom(const GameState* s, int player, const Turn* t, int action) noexcept nogil:
    """`ReferenceState._find_atom`: the tree node the action carries out (-2: the pending loot item)."""
    cdef int base = tree_base(t)
    cdef int atoms[TREE_NODES]
    cdef int buf[MAX_ACTIONS]
    cdef int na, k, m, j
    if t.n_pending:
        return -2
    na = available_atoms(base, t.done, t.open, guest(s, player, t), atoms)
    for k in range(na):
        m = atom_actions(s, player, t, base + atoms[k], atoms[k], False, buf)
        for j in range(m):
            if buf[j] == action:
                return atoms[k]
    return -1


cdef void do_atom(GameState* s, int player, Turn* t, int node, int n, int action) noexcept nogil:
    """`ReferenceState._do_atom`."""
    cdef Player* p = &s.players[player]
    cdef const Node* e = &NODES[node]
    cdef int kind = e.kind
    cdef int goods[NUM_HOLD]
    cdef int cost[NUM_HOLD]
    cdef int swaps[4]
    cdef int opts[4][NUM_HOLD]
    cdef int i, crop, m
    if kind == A_TAKE:
        for i in range(NUM_HOLD):
            goods[i] = s.goods_on[t.space][i]
            s.goods_on[t.space][i] = 0
        gain(s, player, goods)
    elif kind == A_GAIN:
        cost_of16(e.goods, goods)
        gain(s, player, goods)
    elif kind == A_GROW:
        p.newborns += 1
    elif kind == A_TRADE:
        cost_of16(e.pay, cost)
        pay(s, player, cost)
        cost_of16(e.goods, goods)
        gain(s, player, goods)
    elif kind == A_MARKET:
        t.bought[t.n_bought] = A_P1[action]
        t.n_bought += 1
        one_good(cost, H_GOLD, MARKET_PRICE[A_P1[action]])
        pay(s, player, cost)
        one_good(goods, MARKET_GOOD[A_P1[action]], 1)
        gain(s, player, goods)
    elif kind == A_FORGE:
        forge_cost(&p.board, A_P1[action], cost)
        pay(s, player, cost)
        t.dwarf = A_P1[action]
    elif kind == A_EXPEDITION:
        t.exp_items[t.n_exp] = A_P1[action]
        t.n_exp += 1
        loot(s, player, t, A_P1[action])
    elif kind == A_SOW:
        crop = A_P1[action]
        one_good(cost, H_GRAIN + crop, 1)
        pay(s, player, cost)
        sow(&p.board, A_P2[action], CROP_GRAIN + crop)
        if n != -2:
            t.sown[crop] += 1
        if has(&p.board, STUBBLE_ROOM):
            check_animals(s, player)
    elif kind == A_BREED:
        breed(s, player, A_P1[action])
    elif kind == A_STABLE:
        stable_cost(&p.board, e, cost)
        pay(s, player, cost)
        place_stable(&p.board, A_P1[action])
    elif kind == A_FURNISH:
        m = player_payment_choices(s, player, A_P1[action], e, swaps, opts)
        if m > 1:
            t.pay_fid = A_P1[action]
            t.pay_pos = A_P2[action]
            t.pay_node = n
            return
        pay(s, player, opts[0])
        furnish_apply(s, player, A_P1[action], A_P2[action])
    elif kind == A_FENCE_SMALL or kind == A_FENCE_LARGE:
        fence_cost(s, p, t, e, cost)
        pay(s, player, cost)
        if n != -2:
            t.fence_discounted = 1
        place_tile_gain(s, player, ACTION_SPEC[action])
    else:
        place_tile_gain(s, player, ACTION_SPEC[action])


cdef void carry_out(GameState* s, int player, int action) noexcept nogil:
    """`ReferenceState._carry_out`: the sub-action on its part of the tree (or the pending loot item)."""
    cdef Turn* t = &s.turn
    cdef int n = find_atom(s, player, t, action)
    cdef int base = tree_base(t)
    cdef int node, top
    cdef int buf[MAX_ACTIONS]
    cdef const Node* e
    if n == -2:
        top = t.n_pending - 1
        node = LOOT_NODE[t.pend_loot[top]]
        do_atom(s, player, t, node, -2, action)
        if t.pay_fid >= 0:
            return
        if NODES[node].kind == A_SOW:
            t.pend_sown[top][A_P1[action]] += 1
            if atom_actions(s, player, t, node, -2, False, buf) == 0:
                t.n_pending -= 1
        else:
            t.n_pending -= 1
        return
    if t.open != n and t.open >= 0:
        close_session(t)
    e = &NODES[base + n]
    if (e.kind == A_SOW or e.kind == A_EXPEDITION or e.kind == A_TRADE or e.kind == A_MARKET) and t.open != n:
        t.open = n
        t.exp_strength = t.dwarf
    t.done[n] += 1
    t.did_something = 1
    do_atom(s, player, t, base + n, n, action)
    if t.pay_fid >= 0:
        return
    if e.kind == A_EXPEDITION and t.n_exp >= e.level:
        close_session(t)
    propagate(s, player)


cdef void pay_furnishing(GameState* s, int player, int swap) noexcept nogil:
    """`ReferenceState._pay_furnishing`: the `pay ...` choice, then carry on where the furnish action left off."""
    cdef Turn* t = &s.turn
    cdef int fid = t.pay_fid, pos = t.pay_pos, n = t.pay_node, m, k
    cdef const Node* e = payment_node(t)
    cdef int swaps[4]
    cdef int opts[4][NUM_HOLD]
    t.pay_fid = -1
    m = player_payment_choices(s, player, fid, e, swaps, opts)
    for k in range(m):
        if swaps[k] == swap:
            pay(s, player, opts[k])
    furnish_apply(s, player, fid, pos)
    if n == -2:
        t.n_pending -= 1
    else:
        propagate(s, player)


cdef int feeding_need(const GameState* s, int player) noexcept nogil:
    """`ReferenceState.feeding_need`."""
    cdef const Player* p = &s.players[player]
    cdef int per_adult = 1 if s.harvest_kind == HK_FEED_1 else 2, per_newborn = 1
    cdef int adults = dwarfs_of(p) - p.newborns
    cdef int need = per_adult * adults + per_newborn * p.newborns
    cdef int mines
    if s.working_cave_used and s.actor == player:
        need -= per_adult if adults else per_newborn
    if has(&p.board, MINING_CAVE):
        mines = ore_mines(&p.board) + ruby_mines(&p.board)
        need -= MINING_CAVE_FOOD * min(p.animals[1], mines)
    return need if need > 0 else 0


cdef inline void pop_queue(GameState* s) noexcept nogil:
    cdef int k
    for k in range(s.n_queue - 1):
        s.queue[k] = s.queue[k + 1]
    s.n_queue -= 1


cdef void feed(GameState* s, int player, bint converting) noexcept nogil:
    """`ReferenceState._feed`: pay the feeding; one begging marker per food still missing."""
    cdef Player* p = &s.players[player]
    cdef int need = feeding_need(s, player), potential, paid
    if converting:
        potential = food_potential_of(s, player)
        raise_food(s, player, need if need < potential else potential)
    paid = need if need < p.goods[H_FOOD] else p.goods[H_FOOD]
    p.goods[H_FOOD] -= paid
    p.begging += need - paid
    pop_queue(s)
    s.working_cave_used = 0


cdef void apply_player(GameState* s, int player, int action) noexcept nogil:
    """`ReferenceState._apply_player`."""
    cdef Player* p = &s.players[player]
    cdef int kind = A_KIND[action]
    cdef Turn* t = &s.turn
    cdef int k, weapon, real, space
    cdef int cost[NUM_HOLD]
    if kind == K_SOLO_KEEP:
        p.goods[H_RUBY] -= 1
        for k in range(s.n_cleanup - 1):
            s.cleanup[k] = s.cleanup[k + 1]
        s.n_cleanup -= 1
    elif kind == K_SKIP and s.phase == PH_START:
        space = s.cleanup[0]
        for k in range(s.n_cleanup - 1):
            s.cleanup[k] = s.cleanup[k + 1]
        s.n_cleanup -= 1
        for k in range(NUM_HOLD):
            s.goods_on[space][k] = 0
        s.goods_on_key[space] = 1
    elif kind == K_RELEASE:
        p.animals[A_P1[action]] -= 1
        check_animals(s, player)
    elif kind == K_CONVERT:
        convert(s, player, A_P1[action])
    elif kind == K_PEACEFUL:
        discard_weapon(s, player, A_P1[action])
    elif kind == K_HARVEST_CHOICE:
        s.choices[player] = A_P1[action]
        pop_queue(s)
    elif kind == K_FEED:
        feed(s, player, A_P1[action] == 1)
    elif kind == K_WORKING_CAVE:
        add_held(p, A_P2[action], -WORKING_CAVE_PAY[A_P1[action]])
        s.working_cave_used = 1
    elif kind == K_BREED and s.phase == PH_BREEDING:
        breed(s, player, A_P1[action])
        pop_queue(s)
    elif kind == K_ORDER:
        p.goods[H_RUBY] -= 1
        s.next_dwarf = A_P1[action]
    elif kind == K_PLACE:
        place(s, player, A_P1[action])
    elif kind == K_END_TURN and s.phase == PH_FINAL:
        pop_queue(s)
    elif kind == K_END_TURN:
        end_turn(s, player)
    elif kind == K_BUY_TILE:
        p.goods[H_RUBY] -= A_P2[action]
        place_tile_gain(s, player, A_P1[action])
    elif kind == K_IMITATE:
        one_good(cost, H_FOOD, tab(s).imitation_cost[t.space])
        pay(s, player, cost)
        real = s.imitated[A_P1[action]] if s.imitated[A_P1[action]] >= 0 else A_P1[action]
        t.target = real
        t.imitating = 1
        if s.imitated[t.space] < 0:
            s.imit_order[s.n_imit] = t.space
            s.n_imit += 1
        s.imitated[t.space] = real
        set_tree(t, real)
        propagate(s, player)
    elif kind == K_SKIP and not s.has_turn:
        weapon = next_weapon(s, p)
        remove_ready(p, weapon)
        p.placed[p.n_placed] = weapon
        p.n_placed += 1
        s.next_dwarf = -1
        new_turn(t, -1, weapon)
        s.has_turn = 1
        end_turn(s, player)
    elif kind == K_SKIP:
        t.n_pending -= 1
    elif kind == K_PAY:
        pay_furnishing(s, player, A_P1[action])
    else:
        carry_out(s, player, action)


# ------------------------------------------------------------------------------------------------
# Rounds and harvests (ReferenceState._advance and the methods it calls)

cdef int8_t RED_EVENTS[4]
cdef int NUM_RED_EVENTS
cdef Board INITIAL_BOARD
cdef int STUBBLE_ROOM


def _load_rounds():
    global NUM_RED_EVENTS, STUBBLE_ROOM
    r = rules()
    NUM_RED_EVENTS = len(r.harvest_red_events)
    for k, event in enumerate(r.harvest_red_events):
        RED_EVENTS[k] = HARVEST_KINDS_PY.index(event)
    board_from_reference(hb.initial_board(), &INITIAL_BOARD)
    STUBBLE_ROOM = FURN_INDEX["stubble_room"]


cdef inline int order_at(const GameState* s, int k) noexcept nogil:
    """`ReferenceState._order()[k]`: seats from the starting player."""
    return (s.starter + k) % s.num_players


cdef void seat_players(GameState* s) noexcept nogil:
    """`ReferenceState._seat_players`: boards and food by seat from the starting player."""
    cdef int q, n = s.num_players
    cdef Player* p
    for q in range(n):
        p = &s.players[q]
        memset(p, 0, sizeof(Player))
        memcpy(&p.board, &INITIAL_BOARD, sizeof(Board))
        p.goods[H_FOOD] = tab(s).starting_food[(q - s.starter + n) % n]
        p.n_ready = DWARFS_AT_START


cdef void visible_spaces(GameState* s) noexcept nogil:
    """`ReferenceState._visible_spaces`: the boards' spaces, then the round cards up to this round (Wish for
    children flipped to Urgent wish once Family life is out)."""
    cdef const Tables* t = tab(s)
    cdef int k, card
    cdef bint flipped = False
    for k in range(s.n_cards):
        if s.cards[k] == FAMILY_LIFE_CARD:
            flipped = True
    s.n_spaces = 0
    for k in range(t.n_board):
        s.spaces[s.n_spaces] = t.board[k]
        s.n_spaces += 1
    for k in range(min(s.n_cards, s.round + 1)):
        card = s.cards[k]
        s.spaces[s.n_spaces] = URGENT_WISH_SPACE if (card == WISH_CARD and flipped) else CARD_SPACE[card]
        s.n_spaces += 1


cdef void reveal(GameState* s) noexcept nogil:
    """`ReferenceState._reveal`."""
    cdef int k, g, space, total
    cdef bint urgent = False
    s.revealed = s.round
    visible_spaces(s)
    for k in range(s.n_spaces):
        if s.spaces[k] == URGENT_WISH_SPACE:
            urgent = True
    if urgent:
        s.goods_on_key[WISH_SPACE] = 0
        for g in range(NUM_HOLD):
            s.goods_on[WISH_SPACE][g] = 0
    for k in range(s.n_spaces):
        s.goods_on_key[s.spaces[k]] = 1
    if s.num_players == 1:
        s.n_cleanup = 0
        for k in range(s.n_spaces):
            space = s.spaces[k]
            total = 0
            for g in range(NUM_HOLD):
                total += s.goods_on[space][g]
            if total >= tab(s).solo_cleanup_min:
                if s.players[0].goods[H_RUBY] > 0:
                    s.cleanup[s.n_cleanup] = space
                    s.n_cleanup += 1
                else:
                    for g in range(NUM_HOLD):
                        s.goods_on[space][g] = 0


cdef void start_round(GameState* s) noexcept nogil:
    """`ReferenceState._start_round`: replenish, suppliers' goods and the Miner's ore; then the work phase."""
    cdef const Tables* t = tab(s)
    cdef int k, j, g, space, rn = round_no(s), q, amount
    cdef bint empty
    cdef int income[NUM_HOLD]
    cdef Player* p
    for k in range(s.n_spaces):
        space = s.spaces[k]
        if t.acc_n[space] == 0 or t.acc_paused[space][rn]:
            continue
        empty = True
        for g in range(NUM_HOLD):
            if s.goods_on[space][g]:
                empty = False
        for j in range(t.acc_n[space]):
            amount = t.acc_empty[space][j] if empty else t.acc_other[space][j]
            if amount:
                s.goods_on[space][t.acc_good[space][j]] += amount
    for k in range(s.num_players):
        q = order_at(s, k)
        p = &s.players[q]
        memset(income, 0, sizeof(income))
        for j in range(p.income_n[s.round]):
            income[p.income_good[s.round][j]] += p.income_amt[s.round][j]
        p.income_n[s.round] = 0
        if has(&p.board, MINER):
            income[H_ORE] += MINER_ORE * min(p.animals[1], ore_mines(&p.board))
        gain(s, q, income)
    s.phase = PH_WORK
    for k in range(MAX_SPACES):
        s.occupied[k] = -1
        s.imitated[k] = -1
    s.n_occ = s.n_imit = 0
    s.actor = s.starter


cdef void feeding_phase(GameState* s) noexcept nogil:
    cdef int k
    s.phase = PH_FEEDING
    s.n_queue = s.num_players
    for k in range(s.num_players):
        s.queue[k] = order_at(s, k)
    s.working_cave_used = 0


cdef void harvest_field_phase(GameState* s, int q) noexcept nogil:
    cdef int crops[2]
    cdef int gains[NUM_HOLD]
    crops[0] = crops[1] = 0
    harvest_fields(&s.players[q].board, &tab(s).cfg, crops)
    memset(gains, 0, sizeof(gains))
    gains[H_GRAIN], gains[H_VEGETABLE] = crops[0], crops[1]
    gain(s, q, gains)


cdef void next_round(GameState* s) noexcept nogil:
    """`ReferenceState._next_round`."""
    cdef bint harvested = s.harvest_kind != HK_NONE and s.harvest_kind != HK_NO_HARVEST
    cdef int q, k, q2
    cdef int buf[MAX_ACTIONS]
    cdef Player* p
    for q in range(s.num_players):
        p = &s.players[q]
        for k in range(p.newborns):
            p.ready[p.n_ready] = 0
            p.n_ready += 1
        sort_ready(p)
        p.newborns = 0
        if harvested:
            p.trades_used = 0
    s.n_queue = 0
    s.round += 1
    if s.round < tab(s).n_rounds:
        s.phase = PH_START
        return
    s.phase = PH_FINAL
    for k in range(s.num_players):
        q2 = order_at(s, k)
        if conversions(s, q2, buf) > 0:
            s.queue[s.n_queue] = q2
            s.n_queue += 1


cdef void end_work(GameState* s) noexcept nogil:
    """`ReferenceState._end_work`: the dwarfs return home; the harvest this round calls for."""
    cdef int q, k, event
    cdef Player* p
    for q in range(s.num_players):
        p = &s.players[q]
        for k in range(p.n_placed):
            p.ready[p.n_ready] = p.placed[k]
            p.n_ready += 1
        p.n_placed = 0
        sort_ready(p)
    event = tab(s).harvest_event[round_no(s)]
    if event == HK_MARKER:
        if s.markers[s.round] == 0:
            event = HK_NORMAL
        else:
            event = RED_EVENTS[s.reds_seen]
            s.reds_seen += 1
    s.harvest_kind = event
    if event == HK_NONE or event == HK_NO_HARVEST:
        next_round(s)
    elif event == HK_FIELD_OR_BREEDING:
        for q in range(MAX_PLAYERS):
            s.choices[q] = 0
        s.phase = PH_CHOICE
        s.n_queue = s.num_players
        for k in range(s.num_players):
            s.queue[k] = order_at(s, k)
    elif event == HK_FEED_1:
        feeding_phase(s)
    else:
        for k in range(s.num_players):
            harvest_field_phase(s, order_at(s, k))
        feeding_phase(s)


cdef void breeding_phase(GameState* s) noexcept nogil:
    cdef int k, q
    if s.harvest_kind == HK_FEED_1:
        next_round(s)
        return
    s.phase = PH_BREEDING
    s.n_queue = 0
    for k in range(s.num_players):
        q = order_at(s, k)
        if s.harvest_kind == HK_NORMAL or s.choices[q] == 2:
            s.queue[s.n_queue] = q
            s.n_queue += 1


cdef void advance(GameState* s) noexcept nogil:
    """`ReferenceState._advance`: everything that needs no decision, up to the next decision or chance node."""
    cdef int q, k, n
    cdef int options[16]
    cdef const Player* p
    while True:
        if s.phase == PH_START:
            if chance_kind(s) != CK_NONE:
                return
            if s.n_cards <= s.round:
                s.cards[s.n_cards] = tab(s).fixed_card[round_no(s)]
                s.n_cards += 1
            if s.revealed != s.round:
                reveal(s)
            if s.n_cleanup:
                s.actor = 0
                return
            start_round(s)
        elif s.phase == PH_FEEDING:
            if s.n_queue:
                s.actor = s.queue[0]
                return
            breeding_phase(s)
        elif s.phase == PH_BREEDING:
            while s.n_queue:
                q = s.queue[0]
                p = &s.players[q]
                n = breeding_options(&p.board, &tab(s).cfg, p.animals, dwarfs_of(p), 4, options)
                if n > 1:
                    s.actor = q
                    return
                if n:
                    breed(s, q, options[0])
                pop_queue(s)
            next_round(s)
        elif s.phase == PH_FINAL:
            if s.n_queue:
                s.actor = s.queue[0]
                return
            s.phase = PH_OVER
        elif s.phase == PH_CHOICE:
            if s.n_queue:
                s.actor = s.queue[0]
                return
            for k in range(s.num_players):
                q = order_at(s, k)
                if s.choices[q] == 1:
                    harvest_field_phase(s, q)
            feeding_phase(s)
        else:
            return


cdef void apply_chance(GameState* s, int outcome) noexcept nogil:
    cdef int kind = chance_kind(s)
    if kind == CK_START_PLAYER:
        s.starter = outcome
        seat_players(s)
    elif kind == CK_ROUND_CARD:
        s.cards[s.n_cards] = outcome
        s.n_cards += 1
    else:
        s.markers[s.round] = outcome
        s.markers_left[outcome] -= 1


cdef void apply_action(GameState* s, int action) noexcept nogil:
    """A legal action (checked by the caller), then everything up to the next decision."""
    cdef int player = current_player(s)
    if player == CHANCE_PLAYER:
        apply_chance(s, action)
    else:
        apply_player(s, player, action)
    advance(s)


cdef void init_state(GameState* s, int tables) noexcept nogil:
    """`ReferenceState.__init__` then `_advance()`."""
    cdef const Tables* t = TABLES[tables]
    cdef int k
    memset(s, 0, sizeof(GameState))
    s.tables = tables
    s.num_players = t.num_players
    s.starter = 0 if t.num_players == 1 else -1
    if t.num_players == 1:
        seat_players(s)
    s.phase = PH_START
    for k in range(12):
        s.markers[k] = -1
    s.markers_left[0], s.markers_left[1] = t.marker_mix[0], t.marker_mix[1]
    s.n_spaces = t.n_board
    for k in range(t.n_board):
        s.spaces[k] = t.board[k]
        s.goods_on_key[t.board[k]] = 1
    for k in range(MAX_SPACES):
        s.occupied[k] = -1
        s.imitated[k] = -1
    s.next_dwarf = -1
    s.revealed = -1
    s.turn.pay_fid = -1
    advance(s)


cdef void player_summary(const GameState* s, int q, Summary* out) noexcept nogil:
    """`ReferenceState.summary`."""
    cdef const Player* p = &s.players[q]
    cdef int k, armed = 0
    memcpy(&out.board, &p.board, sizeof(Board))
    for k in range(NUM_GOODS):
        out.goods[k] = p.goods[k]
    for k in range(NUM_ANIMALS):
        out.animals[k] = p.animals[k]
    out.dwarfs = dwarfs_of(p)
    for k in range(p.n_ready):
        armed += p.ready[k] > 0
    for k in range(p.n_placed):
        armed += p.placed[k] > 0
    out.armed_dwarfs = armed
    out.begging = p.begging


cdef void scores(const GameState* s, int* out) noexcept nogil:
    """`ReferenceState.scores` (0 before the players are seated)."""
    cdef Summary summary
    cdef int q
    for q in range(s.num_players):
        if s.starter < 0:
            out[q] = 0
        else:
            player_summary(s, q, &summary)
            out[q] = score(&summary, &tab(s).cfg)


cdef void returns(const GameState* s, double* out) noexcept nogil:
    """`StateMixin.returns`: shared wins (+1 each winner's share... as `api.shared_win_returns`); solo the score."""
    cdef int sc[MAX_PLAYERS]
    cdef int q, best, winners = 0
    if s.phase != PH_OVER:
        for q in range(s.num_players):
            out[q] = 0.0
        return
    scores(s, sc)
    if s.num_players == 1:
        out[0] = sc[0]
        return
    best = sc[0]
    for q in range(s.num_players):
        if sc[q] > best:
            best = sc[q]
    for q in range(s.num_players):
        winners += sc[q] == best
    shared_returns(s.num_players, sc, best, winners, out)


cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil:
    """Uniformly random moves (chance by its probabilities) to the end; the number of steps."""
    cdef int buf[MAX_ACTIONS]
    cdef double prob[MAX_CARDS]
    cdef int n, k, steps = 0
    cdef double x
    while s.phase != PH_OVER:
        if chance_kind(s) != CK_NONE:
            n = chance_outcomes(s, buf, prob)
            x = (next_random(rng) >> 11) * (1.0 / 9007199254740992.0)
            k = 0
            while k < n - 1 and x >= prob[k]:
                x -= prob[k]
                k += 1
            apply_action(s, buf[k])
        else:
            n = legal_actions(s, buf)
            apply_action(s, buf[random_below(rng, n)])
        steps += 1
    return steps


cdef void shared_returns(int n, const int* sc, int best, int k, double* out) noexcept nogil:
    """`api.shared_win_returns`: each of k co-winners gets (n - k) / (k (n - 1)), the others -1 / (n - 1)."""
    cdef double win = <double>(n - k) / (k * (n - 1))
    cdef double lose = -1.0 / (n - 1)
    cdef int q
    for q in range(n):
        out[q] = win if sc[q] == best else lose


_load_rounds()


# ------------------------------------------------------------------------------------------------
# The Python face: CompiledState, with the reference's records, notation and rendering (StateMixin)

# ------------------------------------------------------------------------------------------------
# The engine interface (core/engine.pxd): the rule functions on an opaque position, for the compiled searches

cdef int engine_current_player(const void* s) noexcept nogil:
    return current_player(<const GameState*>s)


cdef int engine_legal_actions(const void* s, int* out) noexcept nogil:
    return legal_actions(<const GameState*>s, out)


cdef int engine_chance_outcomes(const void* s, int* out, double* probabilities) noexcept nogil:
    return chance_outcomes(<const GameState*>s, out, probabilities)


cdef void engine_apply_action(void* s, int action) noexcept nogil:
    apply_action(<GameState*>s, action)


cdef void engine_returns(const void* s, double* out) noexcept nogil:
    returns(<const GameState*>s, out)


@cython.auto_pickle(False)
cdef class CoreState(CompiledStateBase):
    """A Caverna position held in one C struct (`GameState`); the API of `cavekit.core.api.State`.

    What the shared Python code (StateMixin, the records, the agents' evaluator) reads of a position and the
    C struct does not answer directly is read from `to_reference()`, the same position as a ReferenceState.
    The struct `s` is declared in compiled.pxd, so searchers (search/caverna_fast.pyx) read it directly.
    """

    def __init__(self, game):
        self._game = game
        self._hist = []
        init_state(&self.s, tables_for(game))

    cdef int copy_into(self, CompiledStateBase other) except -1:
        memcpy(&(<CoreState>other).s, &self.s, sizeof(GameState))
        return 0

    cdef Engine engine(self) except *:
        cdef Engine e
        e.name = b"caverna"
        e.state_size = sizeof(GameState)
        e.num_players = self.s.num_players
        e.max_actions = MAX_ACTIONS
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

    # whose move
    def current_player(self):
        return current_player(&self.s)

    def is_terminal(self):
        return self.s.phase == PH_OVER

    def is_chance_node(self):
        return chance_kind(&self.s) != CK_NONE

    def _chance_kind(self):
        return chance_kind(&self.s)

    def chance_outcomes(self):
        cdef int out[MAX_CARDS]
        cdef double prob[MAX_CARDS]
        cdef int n = chance_outcomes(&self.s, out, prob), k
        return [(out[k], prob[k]) for k in range(n)]

    def legal_actions(self):
        cdef int buf[MAX_ACTIONS]
        cdef int n = legal_actions(&self.s, buf), k
        return [buf[k] for k in range(n)]

    def illegal_reason(self, action):
        """Why `action` is illegal here, or None: asked of the reference engine on the same position."""
        return self.to_reference().illegal_reason(action)

    def apply_action(self, action):
        """Apply a legal action; an illegal one raises IllegalActionError (the reference's message) and
        changes nothing."""
        index = as_action(action)
        if index is None or not 0 <= index < NUM_ACTIONS or not is_legal(&self.s, index):
            self.to_reference().apply_action(action)    # raises the reference's IllegalActionError
            raise AssertionError(f"engines disagree on action {action}: the reference finds it legal")
        apply_action(&self.s, index)
        self._hist.append(index)

    # results
    def scores(self):
        cdef int out[MAX_PLAYERS]
        scores(&self.s, out)
        return [out[k] for k in range(self.s.num_players)]

    def c_returns(self):
        """The returns as computed in C (the Python `returns()` is shared with the reference engine)."""
        cdef double out[MAX_PLAYERS]
        returns(&self.s, out)
        return [out[k] for k in range(self.s.num_players)]

    def random_playout(self, seed):
        """Play the rest of the game with random moves in C on a copy; its final returns."""
        cdef GameState* copy = <GameState*>malloc(sizeof(GameState))
        cdef uint64_t rng = seed_generator(seed)
        cdef double out[MAX_PLAYERS]
        memcpy(copy, &self.s, sizeof(GameState))
        with nogil:
            random_playout(copy, &rng)
        returns(copy, out)
        free(copy)
        return [out[k] for k in range(self.s.num_players)]

    # the public position, as the reference engine names it
    @property
    def phase(self):
        return PHASES_PY[self.s.phase]

    @property
    def round(self):
        return self.s.round

    @property
    def round_no(self):
        return round_no(&self.s)

    @property
    def starter(self):
        return self.s.starter

    @property
    def cards(self):
        return [CARD_IDS[self.s.cards[k]] for k in range(self.s.n_cards)]

    @property
    def markers(self):
        return {k: self.s.markers[k] for k in range(12) if self.s.markers[k] >= 0}

    def to_reference(self):
        """This position as a ReferenceState (same fields, same history)."""
        from .reference import Player as RefPlayer, ReferenceState, Turn as RefTurn, resolve_weapon, tree_of
        from .rules import loot_items, rounds_played
        cdef GameState* s = &self.s
        cdef Player* p
        cdef Turn* t = &s.turn
        cdef int q, k, g
        r = rules()
        game = self._game
        ref = ReferenceState.__new__(ReferenceState)
        ref._game = game
        ref._config = game.config
        ref._n = s.num_players
        ref._rounds = rounds_played(s.num_players)
        players = []
        if s.starter >= 0:
            for q in range(s.num_players):
                p = &s.players[q]
                rp = RefPlayer.__new__(RefPlayer)
                rp.board = board_to_reference(&p.board)
                rp.goods = {g_: p.goods[k] for k, g_ in enumerate(GOODS)}
                rp.animals = {a: p.animals[k] for k, a in enumerate(ANIMALS)}
                rp.ready = [p.ready[k] for k in range(p.n_ready)]
                rp.placed = [p.placed[k] for k in range(p.n_placed)]
                rp.newborns = p.newborns
                rp.begging = p.begging
                rp.income = {k: {(GOODS + ANIMALS)[p.income_good[k][g]]: p.income_amt[k][g] for g in range(p.income_n[k])}
                             for k in range(12) if p.income_n[k]}
                rp.trades_used = frozenset(FURNISHING_IDS[f] for f in range(NUM_FURN) if (p.trades_used >> f) & 1)
                rp.extension_both_used = bool(p.extension_both_used)
                players.append(rp)
        ref.players = players
        ref.starter = s.starter
        ref.round = s.round
        ref.phase = PHASES_PY[s.phase]
        ref.cards = [CARD_IDS[s.cards[k]] for k in range(s.n_cards)]
        ref.markers = {k: s.markers[k] for k in range(12) if s.markers[k] >= 0}
        ref.markers_left = [s.markers_left[0], s.markers_left[1]]
        ref.reds_seen = s.reds_seen
        ref.spaces = [SPACE_IDS[s.spaces[k]] for k in range(s.n_spaces)]
        hold = GOODS + ANIMALS
        keyed = [s.spaces[k] for k in range(s.n_spaces)] + [sp for sp in range(NUM_SPACES_ALL)]
        goods_on = {}
        for sp in keyed:
            if not s.goods_on_key[sp] or SPACE_IDS[sp] in goods_on:
                continue
            order = [tab(s).acc_good[sp][j] for j in range(tab(s).acc_n[sp])]
            order += [i for i in range(NUM_HOLD) if i not in order]
            goods_on[SPACE_IDS[sp]] = {hold[i]: s.goods_on[sp][i] for i in order if s.goods_on[sp][i]}
        ref.goods_on = goods_on
        ref.occupied = {SPACE_IDS[s.occ_order[k]]: s.occupied[s.occ_order[k]] for k in range(s.n_occ)}
        ref.imitated = {SPACE_IDS[s.imit_order[k]]: SPACE_IDS[s.imitated[s.imit_order[k]]] for k in range(s.n_imit)}
        ref.built = [FURNISHING_IDS[f] for f in range(NUM_FURN) if (s.built >> f) & 1]
        ref.actor = s.actor
        ref.turn = None
        if s.has_turn:
            rt = RefTurn(SPACE_IDS[t.space] if t.space >= 0 else "", t.dwarf)
            if t.tree_space >= 0:
                rt.tree = tree_of(resolve_weapon(r.action_spaces[SPACE_IDS[t.tree_space]].effect, bool(t.tree_armed)))
            rt.imitating = bool(t.imitating)
            rt.target = SPACE_IDS[t.target] if t.target >= 0 else ""
            rt.done = {k: t.done[k] for k in range(TREE_NODES) if t.done[k]}
            rt.open = t.open
            rt.sown = {"grain": t.sown[0], "vegetable": t.sown[1]}
            items = loot_items(game.config)
            rt.exp_items = [items[t.exp_items[k]].id for k in range(t.n_exp)]
            rt.exp_strength = t.exp_strength
            rt.bought = [list(pa.MARKET_PRICES)[t.bought[k]] for k in range(t.n_bought)]
            rt.pending = [[items[t.pend_loot[k]].effect, t.pend_sown[k][0], t.pend_sown[k][1]]
                          for k in range(t.n_pending)]
            rt.fence_discounted = bool(t.fence_discounted)
            rt.did_something = bool(t.did_something)
            if t.pay_fid >= 0:
                effect = rt.pending[len(rt.pending) - 1][0] if t.pay_node == -2 else rt.tree.effects[t.pay_node]
                rt.payment = (FURNISHING_IDS[t.pay_fid], POSITIONS[t.pay_pos], effect.arg("pay", "printed cost"),
                              t.pay_node)
            ref.turn = rt
        ref.next_dwarf = s.next_dwarf
        ref.queue = [s.queue[k] for k in range(s.n_queue)]
        ref.harvest_kind = HARVEST_KINDS_PY[s.harvest_kind]
        ref.choices = {q: ("", "fields", "breeding")[s.choices[q]] for k in range(s.num_players)
                       for q in [order_at(s, k)] if s.choices[q]} if s.starter >= 0 else {}
        ref.working_cave_used = bool(s.working_cave_used)
        ref.cleanup = [SPACE_IDS[s.cleanup[k]] for k in range(s.n_cleanup)]
        ref.revealed = s.revealed
        ref.overflow = bool(s.overflow)
        ref._history = list(self._hist)
        ref._legal = None
        return ref

    def to_dict(self):
        """The same canonical dict as ReferenceState.to_dict."""
        return self.to_reference().to_dict()

    @classmethod
    def from_reference(cls, ref):
        """The position of a ReferenceState (any position, e.g. one a test built), with its history."""
        from .rules import loot_items
        cdef CoreState state = cls.__new__(cls)
        cdef GameState* s = &state.s
        cdef Player* p
        cdef Turn* t = &s.turn
        cdef int q, k, g, sp
        game = ref._game
        state._game = game
        state._hist = list(ref.history())
        init_state(s, tables_for(game))
        hold = GOODS + ANIMALS
        for q, rp in enumerate(ref.players):
            p = &s.players[q]
            memset(p, 0, sizeof(Player))
            board_from_reference(rp.board, &p.board)
            for k, g_ in enumerate(GOODS):
                p.goods[k] = rp.goods[g_]
            for k, a in enumerate(ANIMALS):
                p.animals[k] = rp.animals[a]
            p.n_ready = len(rp.ready)
            for k, w in enumerate(sorted(rp.ready)):
                p.ready[k] = w
            p.n_placed = len(rp.placed)
            for k, w in enumerate(rp.placed):
                p.placed[k] = w
            p.newborns = rp.newborns
            p.begging = rp.begging
            for k, goods in rp.income.items():
                p.income_n[k] = len(goods)
                for g, (good, amount) in enumerate(goods.items()):
                    p.income_good[k][g] = hold.index(good)
                    p.income_amt[k][g] = amount
            for fid in rp.trades_used:
                p.trades_used |= (<uint64_t>1) << FURN_INDEX[fid]
            p.extension_both_used = rp.extension_both_used
        s.starter = ref.starter
        s.round = ref.round
        s.phase = PHASES_PY.index(ref.phase)
        s.n_cards = len(ref.cards)
        for k, cid in enumerate(ref.cards):
            s.cards[k] = CARD_IDS.index(cid)
        for k in range(12):
            s.markers[k] = ref.markers.get(k, -1)
        s.markers_left[0], s.markers_left[1] = ref.markers_left
        s.reds_seen = ref.reds_seen
        s.n_spaces = len(ref.spaces)
        for k, sid in enumerate(ref.spaces):
            s.spaces[k] = SPACE_IDS.index(sid)
        for sp in range(MAX_SPACES):
            s.goods_on_key[sp] = 0
            for g in range(NUM_HOLD):
                s.goods_on[sp][g] = 0
            s.occupied[sp] = s.imitated[sp] = -1
        for sid, goods in ref.goods_on.items():
            sp = SPACE_IDS.index(sid)
            s.goods_on_key[sp] = 1
            for good, amount in goods.items():
                s.goods_on[sp][hold.index(good)] = amount
        s.n_occ = len(ref.occupied)
        for k, (sid, q) in enumerate(ref.occupied.items()):
            s.occ_order[k] = SPACE_IDS.index(sid)
            s.occupied[SPACE_IDS.index(sid)] = q
        s.n_imit = len(ref.imitated)
        for k, (sid, real) in enumerate(ref.imitated.items()):
            s.imit_order[k] = SPACE_IDS.index(sid)
            s.imitated[SPACE_IDS.index(sid)] = SPACE_IDS.index(real)
        s.built = 0
        for fid in ref.built:
            s.built |= (<uint64_t>1) << FURN_INDEX[fid]
        s.actor = ref.actor
        s.has_turn = ref.turn is not None
        new_turn(t, -1, 0)
        if ref.turn is not None:
            rt = ref.turn
            items = [x.id for x in loot_items(game.config)]
            new_turn(t, SPACE_IDS.index(rt.space) if rt.space else -1, rt.dwarf)
            if rt.tree is not None:
                real = rt.target or rt.space
                t.tree_space = SPACE_IDS.index(real)
                t.tree_armed = -1
                for armed in (0, 1):
                    from .reference import resolve_weapon, tree_of
                    if tree_of(resolve_weapon(rules().action_spaces[real].effect, bool(armed))) is rt.tree:
                        t.tree_armed = armed
                if t.tree_armed < 0:
                    raise ValueError("the turn's effect tree is not one of its space's trees")
            t.imitating = rt.imitating
            t.target = SPACE_IDS.index(rt.target) if rt.target else -1
            for k, v in rt.done.items():
                t.done[k] = v
            t.open = rt.open
            t.sown[0], t.sown[1] = rt.sown["grain"], rt.sown["vegetable"]
            t.n_exp = len(rt.exp_items)
            for k, item in enumerate(rt.exp_items):
                t.exp_items[k] = items.index(item)
            t.exp_strength = rt.exp_strength
            t.n_bought = len(rt.bought)
            for k, good in enumerate(rt.bought):
                t.bought[k] = list(pa.MARKET_PRICES).index(good)
            t.n_pending = len(rt.pending)
            loot_effects = [x.effect for x in loot_items(game.config)]
            for k, (effect, grain, veg) in enumerate(rt.pending):
                t.pend_loot[k] = next(j for j, e in enumerate(loot_effects) if e is effect or e == effect)
                t.pend_sown[k][0], t.pend_sown[k][1] = grain, veg
            t.fence_discounted = rt.fence_discounted
            t.did_something = rt.did_something
            if rt.payment is not None:
                t.pay_fid = FURN_INDEX[rt.payment[0]]
                t.pay_pos = POS_INDEX[rt.payment[1]]
                t.pay_node = rt.payment[3]
        s.next_dwarf = ref.next_dwarf
        s.n_queue = len(ref.queue)
        for k, q in enumerate(ref.queue):
            s.queue[k] = q
        s.harvest_kind = HARVEST_KINDS_PY.index(ref.harvest_kind)
        for q in range(MAX_PLAYERS):
            s.choices[q] = 0
        for q, choice in ref.choices.items():
            s.choices[q] = ("", "fields", "breeding").index(choice)
        s.working_cave_used = ref.working_cave_used
        s.n_cleanup = len(ref.cleanup)
        for k, sid in enumerate(ref.cleanup):
            s.cleanup[k] = SPACE_IDS.index(sid)
        s.revealed = ref.revealed
        s.overflow = ref.overflow
        return state


class CompiledState(CoreState, StateMixin):
    """A Caverna state computed by the compiled core, with the shared notation, records and rendering.

    The Python-side readers (records, observation tensor, rendering, and the fields and helpers of the
    reference the agents' evaluator reads: `players`, `queue`, `turn`, `feeding_need`, ...) share one
    ReferenceState view of the position, made when first asked for and dropped by the next action. The view
    is for reading: changing it does not change this state.
    """

    def _view(self):
        view = self.__dict__.get("_reference_view")
        if view is None:
            view = self.__dict__["_reference_view"] = self.to_reference()
        return view

    def apply_action(self, action):
        self.__dict__.pop("_reference_view", None)
        CoreState.apply_action(self, action)

    def to_dict(self):
        return self._view().to_dict()

    def observation_tensor(self, player):
        return self._view().observation_tensor(player)

    def information_state_tensor(self, player):
        return self._view().information_state_tensor(player)

    def __str__(self):
        return str(self._view())

    def __getattr__(self, name):
        # The reference's other fields and helpers, read from the same position; special names are not
        # looked up there.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._view(), name)


def state_size_bytes():
    """Bytes of one position (the C struct copied by `clone`)."""
    return sizeof(GameState)


def random_games(game, int count, seed):
    """Play `count` random games from the start entirely in C; the total number of steps (for benchmarks)."""
    cdef GameState* start = <GameState*>malloc(sizeof(GameState))
    cdef GameState* s = <GameState*>malloc(sizeof(GameState))
    cdef uint64_t rng = seed_generator(seed)
    cdef long total = 0
    cdef int i
    init_state(start, tables_for(game))
    with nogil:
        for i in range(count):
            memcpy(s, start, sizeof(GameState))
            total += random_playout(s, &rng)
    free(start)
    free(s)
    return total


def core_timings(list states, int repeats):
    """Seconds spent generating legal actions, cloning (memcpy) and cloning + applying the first legal
    action, each done `repeats` times over every given CoreState, all in C (for `cavekit bench`)."""
    from time import perf_counter
    cdef int n = len(states), i, r, k
    cdef GameState* positions = <GameState*>PyMem_Malloc(n * sizeof(GameState))
    cdef int* first = <int*>PyMem_Malloc(n * sizeof(int))
    cdef GameState* scratch = <GameState*>malloc(sizeof(GameState))
    cdef int buffer[MAX_ACTIONS]
    cdef long checksum = 0
    if positions == NULL or first == NULL or scratch == NULL:
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
                    memcpy(scratch, &positions[i], sizeof(GameState))
                    checksum += scratch.round
        clone_seconds = perf_counter() - started
        started = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    memcpy(scratch, &positions[i], sizeof(GameState))
                    if first[i] >= 0:
                        apply_action(scratch, first[i])
                    checksum += scratch.round
        apply_seconds = perf_counter() - started
    finally:
        PyMem_Free(positions)
        PyMem_Free(first)
        free(scratch)
    return {"legal_actions": legal_seconds, "clone": clone_seconds, "clone_and_apply": apply_seconds,
            "calls": n * repeats, "checksum": checksum}
