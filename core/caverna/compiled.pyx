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
- scoring (`scoring.score`, `summary.py`, `furnishings.vp` / `bonus_points`) under every option.

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
- conversions (`conversions.py`): `can_afford`, `food_potential`, `payment_plan`;
- husbandry (`husbandry.py`): `can_accommodate`, `breeding_options`;
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
    tail = values[-128:]
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


def formula_kinds():
    """How each compiled formula is stored: {formula text: 'affine' | 'sum table' | 'dense table'} (tests)."""
    r = rules()
    names = ("affine", "sum table", "dense table")
    ordered = [f.bonus_formula for f in list(r.furnishings) + [r.entry_level_dwelling] if f.bonus_formula]
    ordered += [c.formula for c in r.scoring]     # the order _load_tables compiles them in
    return {text: names[FORMULAS[k].kind] for k, text in enumerate(ordered)}
