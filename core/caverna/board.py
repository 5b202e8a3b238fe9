"""The Caverna home board: spaces, land tiles, stables, fields, and every placement rule (rules file section 4).

A `Board` is an immutable value (24 small records plus any Office-room overhang halves); every change returns
a new board, so copying a board is free. Coordinates are `(row, col)`: rows 0-3 from the top, columns 0-2 the
forest (0 = outer edge), 3-5 the mountain (5 = outer edge). Overhang halves (Office room) sit just outside the
board: row -1 or 4, column -1 (forest) or 6 (mountain).

Tiles (`legal_placements(board, tile)` / `place(board, tile, placement)`; ids as in the data file):
- new land: `meadow_field`, `cavern_tunnel`, `cavern_cavern` (twins), `meadow`, `field`, `tunnel`, `cavern`
  (singles) on empty spaces of their area, adjacent to the forest tiles / the cave system; the first forest
  tile must touch the cave entrance (`first_forest_tile_anchor`); a field may not go under a stable, a meadow
  may; with the Office room one half of a twin may overhang the board edge (2 gold each time);
- upgrades: `ore_mine_deep_tunnel` on 2 adjacent ordinary unfurnished tunnels, `ruby_mine` on an unfurnished
  tunnel or deep tunnel, `small_pasture` on a meadow, `large_pasture` on 2 adjacent meadows;
- `stable`: on an uncovered forest space, meadow or pasture (not a field, not the mountain), 1 per space,
  at most 3 per player.
Mines and large pastures never cover overhang halves (B); with `office_room_overhang_usable` False the
overhang halves are not spaces at all (gold only): nothing is built on them and they touch nothing.
Printed bonus icons (wild boar preserves, water sources) pay once, to the tile that first covers the space
(`placement_gains`). Furnishing placement is in `furnishings.py`; animals are counts, housed by `husbandry.py`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from .rules import Config, Pos, add_goods, default_config, rules

FOREST, MOUNTAIN = "forest", "mountain"

EMPTY = "empty"
MEADOW, FIELD, SMALL_PASTURE, LARGE_PASTURE = "meadow", "field", "small_pasture", "large_pasture"
CAVERN, TUNNEL, DEEP_TUNNEL, ORE_MINE, RUBY_MINE = "cavern", "tunnel", "deep_tunnel", "ore_mine", "ruby_mine"

FOREST_TERRAINS = (MEADOW, FIELD, SMALL_PASTURE, LARGE_PASTURE)
MOUNTAIN_TERRAINS = (CAVERN, TUNNEL, DEEP_TUNNEL, ORE_MINE, RUBY_MINE)
PASTURES = (SMALL_PASTURE, LARGE_PASTURE)
MINES = (ORE_MINE, RUBY_MINE)

# tile id -> the terrain of each half, in the order of Placement.cells
TILE_HALVES: dict[str, tuple[str, ...]] = {
    "meadow_field": (MEADOW, FIELD), "cavern_tunnel": (CAVERN, TUNNEL), "cavern_cavern": (CAVERN, CAVERN),
    "ore_mine_deep_tunnel": (ORE_MINE, DEEP_TUNNEL), "large_pasture": (LARGE_PASTURE, LARGE_PASTURE),
    "meadow": (MEADOW,), "field": (FIELD,), "tunnel": (TUNNEL,), "cavern": (CAVERN,),
    "small_pasture": (SMALL_PASTURE,), "ruby_mine": (RUBY_MINE,), "stable": (),
}
NEW_LAND = ("meadow_field", "cavern_tunnel", "cavern_cavern", "meadow", "field", "tunnel", "cavern")
UPGRADES = ("ore_mine_deep_tunnel", "large_pasture", "small_pasture", "ruby_mine")
TILES = tuple(TILE_HALVES)


class PlacementError(ValueError):
    """A tile, stable, furnishing or crop that may not go where it was asked to; the message says why."""


@dataclass(frozen=True)
class Space:
    """What lies on one home-board space."""

    terrain: str = EMPTY
    stable: bool = False
    furnishing: str | None = None      # furnishing tile on a cavern (or a tunnel, with the Work room)
    overbuilt: str | None = None       # Trader / Spare part storage lying under the furnishing on top
    partner: Pos | None = None         # the other half of a large pasture
    crop: str | None = None            # grain / vegetable on a sown field
    crop_count: int = 0


@dataclass(frozen=True)
class Placement:
    """Where a tile goes: its cells and the terrain each cell gets (a stable: one cell, no terrain)."""

    tile: str
    cells: tuple[Pos, ...]
    halves: tuple[str, ...]

    def __str__(self) -> str:
        where = " + ".join(f"{h} {r},{c}" for (r, c), h in zip(self.cells, self.halves))
        return f"{self.tile} at {where}" if where else f"{self.tile} at {self.cells[0][0]},{self.cells[0][1]}"


@dataclass(frozen=True)
class Board:
    """One player's home board: the 24 spaces (index row * 6 + col) and any overhang halves."""

    grid: tuple[Space, ...]
    overhang: tuple[tuple[Pos, Space], ...] = ()

    def __hash__(self) -> int:
        # Boards key the engine's and the evaluator's memo tables, so the hash (of 24+ spaces) is kept.
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.grid, self.overhang))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict:
        # string hashes differ between processes, so a pickled board must not carry its hash along
        return {"grid": self.grid, "overhang": self.overhang}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def at(self, pos: Pos) -> Space | None:
        """The space at a position (None outside the board where nothing overhangs)."""
        if on_board(pos):
            return self.grid[pos[0] * rules().cols + pos[1]]
        for p, space in self.overhang:
            if p == pos:
                return space
        return None

    def with_spaces(self, updates: Mapping[Pos, Space]) -> Board:
        """A copy with some spaces replaced (positions outside the board become overhang halves)."""
        grid = list(self.grid)
        overhang = dict(self.overhang)
        for pos, space in updates.items():
            if on_board(pos):
                grid[pos[0] * rules().cols + pos[1]] = space
            else:
                overhang[pos] = space
        return Board(tuple(grid), tuple(sorted(overhang.items())))

    def positions(self, config: Config | None = None, usable_only: bool = True) -> list[Pos]:
        """On-board positions, then the overhang halves (only when they are usable spaces, by default)."""
        config = config or default_config()
        r = rules()
        result = [(row, col) for row in range(r.rows) for col in range(r.cols)]
        if config.office_room_overhang_usable or not usable_only:
            result.extend(p for p, _ in self.overhang)
        return result

    def items(self, config: Config | None = None, usable_only: bool = True) -> list[tuple[Pos, Space]]:
        """(position, space) for every usable position (every position with `usable_only=False`)."""
        result = list(zip(_grid_positions(), self.grid))
        if self.overhang and (not usable_only or (config or default_config()).office_room_overhang_usable):
            result.extend(self.overhang)
        return result

    def __str__(self) -> str:
        return render(self)


# ------------------------------------------------------------------------------------------------------
# Geometry

@lru_cache(maxsize=1)
def _grid_positions() -> tuple[Pos, ...]:
    """The 24 printed positions in grid order."""
    r = rules()
    return tuple((row, col) for row in range(r.rows) for col in range(r.cols))


# on_board, area and _occupied are memoised: the placement checks ask them hundreds of thousands of times a game

@lru_cache(maxsize=None)
def on_board(pos: Pos) -> bool:
    """True for the 24 printed spaces."""
    r = rules()
    return 0 <= pos[0] < r.rows and 0 <= pos[1] < r.cols


@lru_cache(maxsize=None)
def area(pos: Pos) -> str:
    """FOREST or MOUNTAIN, for on-board positions and the overhang positions around them."""
    r = rules()
    return FOREST if pos[1] <= max(r.forest_cols) else MOUNTAIN


def neighbours(pos: Pos) -> list[Pos]:
    """The four orthogonal neighbours of a position (on or off the board)."""
    row, col = pos
    return [(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)]


def adjacent(a: Pos, b: Pos) -> bool:
    """True when two positions share a side."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def overhang_positions(area_name: str) -> list[Pos]:
    """Positions just outside the board edge next to the given area (where an Office-room half may hang)."""
    r = rules()
    cols = r.forest_cols if area_name == FOREST else r.mountain_cols
    result = [(-1, c) for c in cols] + [(r.rows, c) for c in cols]
    side = -1 if area_name == FOREST else r.cols
    result += [(row, side) for row in range(r.rows)]
    return result


def initial_board() -> Board:
    """A home board at setup: the entry-level dwelling and the empty pre-printed cavern."""
    r = rules()
    grid = [Space() for _ in range(r.rows * r.cols)]
    for (row, col), content in r.preprinted.items():
        furnishing = r.entry_level_dwelling.id if content == r.entry_level_dwelling.id else None
        grid[row * r.cols + col] = Space(terrain=CAVERN, furnishing=furnishing)
    return Board(tuple(grid))


def furnishings_on(board: Board, config: Config | None = None) -> list[tuple[Pos, str]]:
    """(position, furnishing id) of every working furnishing (the entry-level dwelling included)."""
    return [(p, s.furnishing) for p, s in board.items(config) if s.furnishing]


def owns(board: Board, furnishing_id: str) -> bool:
    """True when a working copy of this furnishing lies on the board (overhang halves included)."""
    return any(s.furnishing == furnishing_id for _, s in board.items(usable_only=False))


def stable_count(board: Board) -> int:
    """Stables built."""
    return sum(s.stable for _, s in board.items(usable_only=False))


# ------------------------------------------------------------------------------------------------------
# Placement rules

def _office(board: Board) -> bool:
    """True with the Office room."""
    return owns(board, "office_room")


def _forest_anchor(config: Config) -> set[Pos]:
    """Spaces the first forest tile must cover one of."""
    r = rules()
    if config.first_forest_tile_anchor == "must_cover_3_2":
        return {r.cave_entrance}
    # any forest space orthogonally adjacent to a pre-printed mountain space
    return {n for p in r.preprinted for n in neighbours(p) if on_board(n) and area(n) == FOREST}


@lru_cache(maxsize=8192)
def _occupied(board: Board, area_name: str, config: Config) -> frozenset[Pos]:
    """Usable positions of an area holding a tile."""
    return frozenset(p for p, s in board.items(config) if area(p) == area_name and s.terrain != EMPTY)


def check_placement(board: Board, placement: Placement, config: Config | None = None) -> str | None:
    """Why a placement is illegal (None when it is legal)."""
    config = config or default_config()
    tile, cells, halves = placement.tile, placement.cells, placement.halves
    if tile not in TILE_HALVES:
        return f"unknown tile {tile!r}"
    if tile == "stable":
        return _check_stable(board, cells, config)
    expected = TILE_HALVES[tile]
    if len(cells) != len(expected) or sorted(halves) != sorted(expected):
        return f"a {tile} tile covers {len(expected)} space(s) as {' + '.join(expected)}"
    if len(cells) == 2 and not adjacent(*cells):
        return f"the two halves of a {tile} tile must be orthogonally adjacent"
    off = [p for p in cells if not on_board(p)]
    if off and tile in NEW_LAND:
        if len(cells) != 2:
            return f"only a new twin tile may overhang the board edge, not a {tile}"
        if not _office(board):
            return "a tile may overhang the board edge only with the Office room"
        if len(off) == 2:
            return "only one half of a twin tile may overhang the board edge"
        if board.at(off[0]) is not None:
            return f"{off[0]} is already covered by an overhanging half"
    for pos, half in zip(cells, halves):
        want_area = FOREST if half in FOREST_TERRAINS else MOUNTAIN
        if area(pos) != want_area:
            return f"a {half} must go in the {want_area}, {pos} is in the {area(pos)}"
        if tile in NEW_LAND:
            space = board.at(pos)
            if space is not None and space.terrain != EMPTY:
                return f"{pos} is not empty (it holds a {space.terrain})"
            if half == FIELD and space is not None and space.stable:
                return f"a field may not go under the stable on {pos}"
    if tile in NEW_LAND:
        return _check_adjacency(board, cells, config)
    return _check_upgrade(board, tile, cells, halves, config)


def _check_adjacency(board: Board, cells: tuple[Pos, ...], config: Config) -> str | None:
    """New land touches its area's tiles (forest: the entrance anchor while the forest is bare)."""
    area_name = area(cells[0])
    occupied = _occupied(board, area_name, config)
    if area_name == FOREST and not occupied:
        anchor = _forest_anchor(config)
        if not anchor & set(cells):
            return f"the first forest tile must cover {' or '.join(map(str, sorted(anchor)))} (cave entrance)"
        return None
    if not any(n in occupied for p in cells for n in neighbours(p)):
        what = "a field, meadow or pasture" if area_name == FOREST else "the cave system"
        return f"the tile must be orthogonally adjacent to {what}"
    return None


def _check_upgrade(board: Board, tile: str, cells: tuple[Pos, ...], halves: tuple[str, ...],
                   config: Config) -> str | None:
    """Mines on tunnels, pastures on meadows, never on overhang halves where the rules forbid it."""
    usable = set(board.positions(config))
    for pos in cells:
        if pos not in usable:
            return f"{pos} is not a usable space"
        if tile in ("ore_mine_deep_tunnel", "large_pasture", "ruby_mine") and not on_board(pos):
            return f"a {tile} may not cover an overhanging half"
        space = board.at(pos)
        assert space is not None
        if tile == "ore_mine_deep_tunnel" and (space.terrain != TUNNEL or space.furnishing):
            return f"an Ore mine/Deep tunnel tile goes on 2 ordinary unfurnished tunnels; {pos} is a {_name(space)}"
        if tile == "ruby_mine" and (space.terrain not in (TUNNEL, DEEP_TUNNEL) or space.furnishing):
            return f"a Ruby mine goes on an unfurnished tunnel or deep tunnel; {pos} is a {_name(space)}"
        if tile in ("small_pasture", "large_pasture") and space.terrain != MEADOW:
            return f"a pasture is fenced on meadows only; {pos} is a {_name(space)}"
    return None


def _check_stable(board: Board, cells: tuple[Pos, ...], config: Config) -> str | None:
    """Forest, meadow or pasture; one per space; the player's 3 stables."""
    if len(cells) != 1:
        return "a stable goes on one space"
    pos = cells[0]
    if pos not in set(board.positions(config)):
        return f"{pos} is not a usable space"
    if area(pos) != FOREST:
        return "stables may not be built in the mountain"
    space = board.at(pos)
    assert space is not None
    if space.terrain not in (EMPTY, MEADOW) + PASTURES:
        return f"a stable may not go on a {space.terrain}"
    if space.stable:
        return f"{pos} already has a stable"
    if stable_count(board) >= rules().stables_per_player:
        return f"all {rules().stables_per_player} stables are built"
    return None


def _name(space: Space) -> str:
    """A space's contents in words."""
    if space.terrain == EMPTY:
        return "empty space"
    if space.furnishing:
        return f"{space.terrain} furnished with {space.furnishing}"
    return space.terrain


def _candidates(board: Board, tile: str, config: Config) -> list[Placement]:
    """Every geometrically possible placement of a tile (checked by check_placement afterwards)."""
    halves = TILE_HALVES[tile]
    cells = board.positions(config)
    if tile == "stable":
        return [Placement(tile, (p,), ()) for p in cells]
    if len(halves) == 1:
        return [Placement(tile, (p,), halves) for p in cells]
    # the pairs in the order of `cells` for both halves (so placements keep their order), found by neighbours
    order = {p: i for i, p in enumerate(cells)}
    pairs = [(a, b) for a in cells for b in sorted((n for n in neighbours(a) if n in order), key=order.__getitem__)]
    if tile in NEW_LAND and _office(board):
        hanging = [p for name in (FOREST, MOUNTAIN) for p in overhang_positions(name) if board.at(p) is None]
        pairs += [(a, b) for a in cells if on_board(a) for b in hanging if adjacent(a, b)]
        pairs += [(b, a) for a in cells if on_board(a) for b in hanging if adjacent(a, b)]
    result = []
    seen = set()
    for a, b in pairs:
        key = (frozenset(((a, halves[0]), (b, halves[1]))))
        if key not in seen:
            seen.add(key)
            result.append(Placement(tile, (a, b), halves))
    return result


def legal_placements(board: Board, tile: str, config: Config | None = None) -> list[Placement]:
    """Every legal placement of a tile (or a stable) on the board, in a stable order."""
    config = config or default_config()
    if tile not in TILE_HALVES:
        raise PlacementError(f"unknown tile {tile!r}; tiles: {', '.join(TILES)}")
    return [p for p in _candidates(board, tile, config) if check_placement(board, p, config) is None]


def placement_gains(board: Board, placement: Placement, config: Config | None = None) -> dict[str, int]:
    """Goods a placement pays at once: printed icons it covers first, and the Office room's overhang gold."""
    gains: dict[str, int] = {}
    if placement.tile not in NEW_LAND:
        return gains
    special = {s.pos: s.on_cover for s in rules().special_spaces}
    for pos in placement.cells:
        space = board.at(pos)
        if pos in special and space is not None and space.terrain == EMPTY:
            gains = add_goods(gains, dict(special[pos]))
    if any(not on_board(p) for p in placement.cells):
        gold = rules().furnishing("office_room").param("gold_per_overhang")
        gains = add_goods(gains, {"gold": gold})
    return gains


def place(board: Board, tile: str, placement: Placement, config: Config | None = None) -> Board:
    """The board with the tile (or stable) placed; PlacementError saying why when it may not go there."""
    config = config or default_config()
    if placement.tile != tile:
        raise PlacementError(f"the placement is for a {placement.tile}, not a {tile}")
    reason = check_placement(board, placement, config)
    if reason:
        raise PlacementError(f"cannot place {placement}: {reason}")
    if tile == "stable":
        pos = placement.cells[0]
        return board.with_spaces({pos: replace(board.at(pos), stable=True)})  # type: ignore[type-var]
    updates: dict[Pos, Space] = {}
    for pos, half in zip(placement.cells, placement.halves):
        old = board.at(pos) or Space()
        partner = None
        if tile == "large_pasture":
            partner = next(p for p in placement.cells if p != pos)
        updates[pos] = Space(terrain=half, stable=old.stable, partner=partner)
    return board.with_spaces(updates)


def place_with_gains(board: Board, tile: str, placement: Placement,
                     config: Config | None = None) -> tuple[Board, dict[str, int]]:
    """`place` and `placement_gains` together: the new board and the goods the placement pays."""
    gains = placement_gains(board, placement, config)
    return place(board, tile, placement, config), gains


def single_tile_placements(board: Board, tile: str, config: Config | None = None) -> list[Placement]:
    """Where a single tile bought with rubies or taken as loot may go (same rules as any single tile)."""
    if tile not in rules().ruby_tiles:
        raise PlacementError(f"{tile!r} is not a single tile; single tiles: {', '.join(rules().ruby_tiles)}")
    return legal_placements(board, tile, config)


# ------------------------------------------------------------------------------------------------------
# Fields

def sowable_fields(board: Board, config: Config | None = None) -> list[Pos]:
    """Fields with nothing growing on them."""
    return [p for p, s in board.items(config) if s.terrain == FIELD and s.crop_count == 0]


def sow(board: Board, pos: Pos, crop: str, config: Config | None = None) -> Board:
    """The board with a crop sown on an empty field (grain: 3 tokens, vegetable: 2); the seed is the caller's."""
    tokens = rules().sow_tokens
    if crop not in tokens:
        raise PlacementError(f"cannot sow {crop!r}; crops: {', '.join(tokens)}")
    if pos not in sowable_fields(board, config):
        space = board.at(pos)
        why = "not a usable space" if space is None else (
            f"already sown with {space.crop}" if space.crop_count else f"a {_name(space)}, not a field")
        raise PlacementError(f"cannot sow on {pos}: {why}")
    space = board.at(pos)
    assert space is not None
    return board.with_spaces({pos: replace(space, crop=crop, crop_count=tokens[crop])})


def harvest_fields(board: Board, config: Config | None = None) -> tuple[Board, dict[str, int]]:
    """Field phase: 1 token from every sown field; the new board and the crops taken."""
    updates: dict[Pos, Space] = {}
    taken: dict[str, int] = {}
    for pos, s in board.items(config):
        if s.terrain == FIELD and s.crop_count > 0:
            left = s.crop_count - 1
            updates[pos] = replace(s, crop=s.crop if left else None, crop_count=left)
            taken[s.crop] = taken.get(s.crop, 0) + 1  # type: ignore[index]
    return board.with_spaces(updates), taken


def field_crops(board: Board, config: Config | None = None) -> dict[str, int]:
    """Crop tokens lying on fields, by crop."""
    totals = {crop: 0 for crop in rules().sow_tokens}
    for _, s in board.items(config):
        if s.crop_count:
            totals[s.crop] += s.crop_count  # type: ignore[index]
    return totals


def empty_fields(board: Board, config: Config | None = None) -> list[Pos]:
    """Fields without crops (the Stubble room's animal spaces)."""
    return sowable_fields(board, config)


# ------------------------------------------------------------------------------------------------------
# Counts used by scoring and husbandry

def unused_spaces(board: Board) -> int:
    """Printed spaces without a tile (forest: without a tile and without a stable); overhangs never count."""
    return sum(1 for s in board.grid if s.terrain == EMPTY and not s.stable)


def pasture_counts(board: Board, config: Config | None = None) -> tuple[int, int]:
    """(small pastures, large pastures)."""
    items = board.items(config)
    small = sum(1 for _, s in items if s.terrain == SMALL_PASTURE)
    large = sum(1 for _, s in items if s.terrain == LARGE_PASTURE) // 2
    return small, large


def mine_counts(board: Board) -> tuple[int, int]:
    """(ore mines, ruby mines)."""
    return (sum(1 for s in board.grid if s.terrain == ORE_MINE), sum(1 for s in board.grid if s.terrain == RUBY_MINE))


def large_pastures(board: Board, config: Config | None = None) -> list[tuple[Pos, Pos]]:
    """The two cells of each large pasture."""
    result = []
    for pos, s in board.items(config):
        if s.terrain == LARGE_PASTURE and s.partner is not None and pos < s.partner:
            result.append((pos, s.partner))
    return result


# ------------------------------------------------------------------------------------------------------
# Text form: render and parse (tests and display)

_TERRAIN_CODE = {EMPTY: ".", MEADOW: "M", FIELD: "F", SMALL_PASTURE: "P", LARGE_PASTURE: "L", CAVERN: "C",
                 TUNNEL: "T", DEEP_TUNNEL: "D", ORE_MINE: "O", RUBY_MINE: "R"}
_CODE_TERRAIN = {v: k for k, v in _TERRAIN_CODE.items()}
_CROP_CODE = {"grain": "g", "vegetable": "v"}


def _token(board: Board, pos: Pos, labels: dict[Pos, str]) -> str:
    """One space as a text token."""
    s = board.at(pos)
    assert s is not None
    if s.furnishing == rules().entry_level_dwelling.id and s.terrain == CAVERN:
        text = "E"
    else:
        text = _TERRAIN_CODE[s.terrain]
        if s.terrain == LARGE_PASTURE:
            text += labels[pos]
        if s.furnishing:
            text += ":" + s.furnishing + (f"+{s.overbuilt}" if s.overbuilt else "")
        if s.crop_count:
            text += f":{_CROP_CODE[s.crop]}{s.crop_count}"  # type: ignore[index]
    return text + ("*" if s.stable else "")


# Text tokens: `.` empty, `M` meadow, `F` field (`F:g3` grain, `F:v2` vegetables), `P` small pasture,
# `La`/`Lb` large pasture halves (same letter = same pasture), `C` cavern, `T` tunnel, `D` deep tunnel,
# `O` ore mine, `R` ruby mine, `E` entry-level dwelling; `:id` a furnishing (`:top+under` when overbuilt);
# a trailing `*` a stable. Rows are `forest | mountain`; overhang halves follow as `@row,col TOKEN` lines.

def _tokens(board: Board) -> tuple[list[list[str]], list[tuple[Pos, str]]]:
    """The board's tokens: one list per row (columns in order), and each overhang half's position and token."""
    labels: dict[Pos, str] = {}
    for i, (a, b) in enumerate(large_pastures(board)):
        labels[a] = labels[b] = "abcdefghijkl"[i]
    r = rules()
    grid = [[_token(board, (row, col), labels) for col in range(r.cols)] for row in range(r.rows)]
    return grid, [(pos, _token(board, pos, labels)) for pos, _ in board.overhang]


@lru_cache(maxsize=8192)  # records and observations render every board at every step; boards are immutable
def render(board: Board) -> str:
    """The board as text: 4 rows of 6 tokens (forest | mountain), then one `@row,col TOKEN` line per overhang."""
    grid, overhang = _tokens(board)
    split = len(rules().forest_cols)
    lines = [f"{' '.join(tokens[:split])} | {' '.join(tokens[split:])}" for tokens in grid]
    lines += [f"@{pos[0]},{pos[1]} {token}" for pos, token in overhang]
    return "\n".join(lines)


def render_labelled(board: Board) -> str:
    """The board for a person: `render`'s rows under column numbers and after row numbers, columns aligned, so
    a space reads off as the `row,col` of the move notation (`... at 2,3`); overhang halves as in `render`."""
    grid, overhang = _tokens(board)
    r = rules()
    split = len(r.forest_cols)
    widths = [max(len(str(col)), *(len(tokens[col]) for tokens in grid)) for col in range(r.cols)]
    margin = len(str(r.rows - 1))

    def line(head: str, cells: list[str]) -> str:
        padded = [cell.ljust(width) for cell, width in zip(cells, widths)]
        return f"{head:>{margin}}  {' '.join(padded[:split])} | {' '.join(padded[split:])}".rstrip()

    lines = [line("", [str(col) for col in range(r.cols)]).replace(" | ", "   ", 1)]
    lines += [line(str(row), tokens) for row, tokens in enumerate(grid)]
    lines += [f"@{pos[0]},{pos[1]} {token}" for pos, token in overhang]
    return "\n".join(lines)


def _parse_token(token: str) -> tuple[Space, str | None]:
    """A text token as a space and its large-pasture label."""
    stable = token.endswith("*")
    token = token.rstrip("*")
    if token == "E":
        return Space(terrain=CAVERN, furnishing=rules().entry_level_dwelling.id, stable=stable), None
    head, *extras = token.split(":")
    code, label = head[0], head[1:] or None
    if code not in _CODE_TERRAIN:
        raise ValueError(f"unknown board token {token!r}")
    terrain = _CODE_TERRAIN[code]
    space = Space(terrain=terrain, stable=stable)
    for extra in extras:
        crop = {v: k for k, v in _CROP_CODE.items()}.get(extra[:1])
        if terrain == FIELD and crop and extra[1:].isdigit():
            space = replace(space, crop=crop, crop_count=int(extra[1:]))
        else:
            top, _, under = extra.partition("+")
            space = replace(space, furnishing=top, overbuilt=under or None)
    return space, label


def parse_board(text: str) -> Board:
    """A board from `render`'s text form (whitespace around `|` and tokens is free)."""
    r = rules()
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    grid_lines = [ln for ln in lines if not ln.startswith("@")]
    if len(grid_lines) != r.rows:
        raise ValueError(f"a board has {r.rows} rows, got {len(grid_lines)}")
    updates: dict[Pos, Space] = {}
    labelled: dict[str, list[Pos]] = {}
    for row, line in enumerate(grid_lines):
        tokens = line.replace("|", " ").split()
        if len(tokens) != r.cols:
            raise ValueError(f"row {row} has {len(tokens)} spaces, not {r.cols}: {line!r}")
        for col, token in enumerate(tokens):
            updates[(row, col)], label = _parse_token(token)
            if label:
                labelled.setdefault(label, []).append((row, col))
    for line in lines:
        if line.startswith("@"):
            where, token = line[1:].split()
            pos = tuple(int(x) for x in where.split(","))
            updates[pos], label = _parse_token(token)  # type: ignore[index]
            if label:
                labelled.setdefault(label, []).append(pos)  # type: ignore[arg-type]
    for label, cells in labelled.items():
        if len(cells) != 2 or not adjacent(*cells):
            raise ValueError(f"large pasture {label!r} must be 2 adjacent cells, got {cells}")
        a, b = cells
        updates[a] = replace(updates[a], partner=b)
        updates[b] = replace(updates[b], partner=a)
    empty = Board(tuple(Space() for _ in range(r.rows * r.cols)))
    return empty.with_spaces(updates)
