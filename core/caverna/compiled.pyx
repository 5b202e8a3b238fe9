"""The compiled Caverna core, in progress: the rules data as C tables and the rule sections ported so far.

Read it beside the reference modules: each section mirrors one of them, and each C function carries the
name of the reference function it mirrors (`placement_legal` for `board.check_placement`, `tile_actions`
for `reference.tile_ids`, `score` for `scoring.score`, ...). Rules data comes from the same table
(`rules.py`, `actions.py`), copied into C arrays once when the module loads; the data's scoring and bonus
formulas are turned into coefficient and lookup tables there (`_compile_formula`) and never evaluated
while playing.

Ported (each checked against the reference on every position of seeded random games,
tests/test_caverna_compiled.py):
- data: board geometry (the 24 printed spaces and the 20 overhang positions, in the observation's order),
  terrains, tiles, every TILE / BUY_TILE / STABLE / FURNISH / SOW action's parameters, the furnishing
  table (dwelling, yellow, unlimited, printed points, the Trader / Spare part storage pair), the special
  spaces' cover bonuses, the scoring categories and bonus formulas as tables;
- boards (`board.py`): placement legality of every tile and stable (`check_placement`, `legal_placements`,
  `reference.tile_ids` / `stable_ids`), placing with its gains (`place_with_gains`), sowing, the field
  phase, the counts scoring and husbandry read; furnishing targets and furnishing (`furnishings.py`);
- scoring (`scoring.score`, `summary.py`, `furnishings.vp` / `bonus_points`) under every option;
- husbandry (`husbandry.py`): `can_accommodate`, `breeding_options` (the exact search of `_assign`);
- conversions (`conversions.py`): `food_potential`, `can_afford`, `payment_plan` (the same conversions in
  the same order: the score-sheet values are sums of halves, exact in C doubles as in Python floats).

Not yet ported (the compiled engine cannot play a game yet, so `load_game("caverna", engine="compiled")`
is refused with a ConfigError that says so, and the spec lists only the reference engine):
- the State: the flat fixed-size game struct (players' supplies, animals, dwarfs and weapons, action
  spaces and their goods, round cards and harvest markers, the turn in progress), chance nodes, the
  serialisation / notation / rendering shared with the reference through `to_dict()` and `StateMixin`;
- actions (`reference.py`): the effect trees of the action spaces (`tree_of`, `available_atoms`,
  automatic parts, sessions of repeatable parts, loot follow-ups, Imitation, the Guest room), placement
  refusals with the reference's reasons, illegal-action messages;
- furnishing effects (`furnishings.py`): costs with the Carpenter / Stone carver / Builder (`payment_choices`,
  `fence_cost`, `forge_cost`, `stable_cost`), suppliers, triggered gains (Seam, Dog school), on-build
  gains, breeding food and stone, the Miner, feeding discounts and the Working cave, the Peaceful cave;
- feeding with begging markers, breeding, harvest events, the solo clean-up, the last turn before scoring;
- the random playout in C, `random_games` and `core_timings` for `cavekit bench caverna`.
"""
cimport cython
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, int16_t, int32_t

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


cdef int ruby_row(const Macros* m, int good) noexcept nogil:
    """The effective ruby exchange that gives 1 `good` (`_macros`' `ruby_to`), or -1."""
    cdef int k, i, last = -1
    cdef bint unit
    for k in range(m.nrows):
        if ROW_SRC[m.ids[k]] != SRC_RUBY:
            continue
        unit = True
        for i in range(NUM_HOLD):
            if m.get[k][i] != (1 if i == good else 0):
                unit = False
        if unit:
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
    cdef int k, i, cooking, beer, to_grain, to_veg, to_boar, boar, src
    cdef bint unit
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
        if ROW_SRC[m.ids[k]] != SRC_FOOD:
            continue
        unit = True
        for i in range(NUM_HOLD):
            if m.pay[k][i] != (1 if i == H_WILD_BOAR else 0):
                unit = False
        if unit:
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
