"""Cavum rules data: one table loaded from `data/cavum.json` into small typed records, plus the parameters.

The map (mountain cells, city spaces and their exits, separators), the start tiles, tile exit patterns,
supplies, sequence cards, order cards and scoring numbers are all read from the data file, so a corrected
map or card set is a data change. Engine code never looks at JSON.

Nodes of the network: mountain cells are numbered 0..90 in the data file's order, city spaces 91..121
(`CITY_BASE + index`). Directions 0..5 are E, NE, NW, W, SW, SE; the opposite side is `(d + 3) % 6`.
Tile kinds are numbered by exit count: 0 two, 1 three, 2 four, 3 six, so "stacking needs strictly more
exits" is "a higher kind number".

Parameters of `load_game("cavum", ...)` (defaults first; `shared/rules/cavum.md` section 10 says what each
open question is; the map, start tiles, order-card contents and colour names are data, not parameters):
- `sequence_cards_mode`: `all_four`, `first_n` (#12)
- `sequence_card_dynamite`: `["two", "three", "four", "six"]`, the dynamite kinds of cards 1-4 (a list, or a
  mapping `{"1": ..., "4": ...}` as in the data file), four distinct kinds (#13; distinct because the supply
  holds 3 dynamite tiles of each kind for 3 phases)
- `bid_cap`: `current_score`, `unbounded` (#14; `unbounded` offers every bid up to MAX_BID, the largest
  score a player can hold when a sequence auction opens, so any player may bid all their points and more)
- `order_pick_pass_is_final`, `colour_sale_pass_is_final`: True, False (#15; False: a player who passed may
  come back in until a full round of passes)
- `colour_sale_min_bid`: 1 (an integer 1-9), `colour_sale_opening_bid`: `exactly_price`, `up_to_price` (#16;
  the rulebook: "the players start bidding at the highest visible number shown", so the first bid is the
  colour's price; `up_to_price` lets the opener bid anything from the minimum to the price)
- `colour_sale_colour_order`: the six colours in any order, default yellow, red, blue, green, white, violet (#17)
- `city_space_exits`: `all_adjacent_mountain_cells`, `one_exit_per_space` (#2; keeps the first exit the data
  file lists for each space)
- `city_adjacency_rule`: `must_lead_into_every_adjacent_city_space`, `must_lead_into_at_least_one`, `none`
  (#3; others' city stations forbid the cell under every setting)
- `city_spaces_pass_through`: False, True (#4)
- `three_exit_pattern`: `Y`, `T`; `two_exit_pattern`: `straight`, `curve` (#5; alternatives from the data file)
- `tile_internal_connectivity`: `single_junction`, `independent_channels` (#6; channels: each pair of
  opposite exits is one straight tunnel, and exits without an opposite partner meet in one junction)
- `unconnected_vein_neighbour`: `allowed_if_continuing_other_tunnel`, `forbidden` (#8)
- `cover_occupied_cell`: False, True (#9; True: a tile may be stacked on a cell with a station or vein,
  which stay on top of the stack)
- `vein_under_counts_as_visible_dynamite`: False, True (#10; True: such dynamite explodes and the vein's
  stones go back to their scale)
- `exploding_adjacent_dynamite`: `explodes_fully`, `loses_top_tile` (#11)
- `two_chip_supply_limit`: 12 (an integer 0-99) or `unlimited` (#20; chips go on leftover cards in id order)
- `discard_only_if_unplayable`: True, False (#21, #27; False: any own tile may be discarded as an action)
- `option_station_colour`: `own_colour_only` (#22; the rules file names no alternative)
- `vein_colour_requires_stone_on_scale`: True, False (#23; False: an empty colour gives a vein that is
  removed at once)
- `prospect_must_take_every_vein_on_path`: True, False (#24)
- `station_on_tile`: `last_tile_this_turn`, `immediately_after_laying` (#25)
- `sequence_auction_next_opener`: `last_winner_left`, `original_opener_left` (#26)
- `stones_in_hand_visibility`: `hidden_colours_public_history`, `public` (#29; `public` is the
  perfect-memory variant in which everyone knows every hand)
- `final_tie_break`: `lowest_sequence_card_of_phase_3`, `draw`
"""
from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import resources
from typing import Any

from ..api import ConfigError

NUM_DIRS = 6
KINDS = ("two", "three", "four", "six")           # kind index = rank by exit count
NUM_KINDS = len(KINDS)
CITY_BASE = 91                                     # node id of the first city space (set from the data in rules())
MAX_BID = 462                                      # bids in the action table: 0..MAX_BID = auction_score_bound()
MAX_STACK = NUM_KINDS                              # two < three < four < six: at most four tiles on a cell


def opposite(d: int) -> int:
    """The side facing direction `d`."""
    return (d + 3) % NUM_DIRS


def rotate_mask(base: tuple[int, ...], rotation: int) -> int:
    """Exit bitmask of a tile whose base exits are `base`, laid with `rotation`."""
    mask = 0
    for e in base:
        mask |= 1 << ((e + rotation) % NUM_DIRS)
    return mask


@dataclass(frozen=True)
class OrderCard:
    id: str
    stones: tuple[int, ...]        # colour indices
    points: int
    penalty: int


@dataclass(frozen=True)
class Rules:
    """Everything the data file says, as plain tuples of ints and names."""

    colours: tuple[str, ...]
    directions: tuple[str, ...]
    cells: tuple[tuple[int, int], ...]                  # (q, r) of each mountain cell
    rings: tuple[int, ...]
    city_space_names: tuple[str, ...]
    city_space_coords: tuple[tuple[int, int], ...]
    city_space_city: tuple[int, ...]                    # city index of each space
    city_names: tuple[str, ...]
    city_spaces: tuple[tuple[int, ...], ...]            # space indices of each city
    city_exit_lists: tuple[tuple[int, ...], ...]        # per space: directions of its exits, data-file order
    neighbours: tuple[tuple[int, ...], ...]             # per mountain cell, per direction: node id or -1
    space_neighbours: tuple[tuple[int, ...], ...]       # per city space, per direction: mountain cell or -1
    vein_allowed: tuple[bool, ...]
    start_tiles: tuple[tuple[int, int, int, int, int], ...]   # cell, kind, dynamite, rotation, vein colour or -1
    start_vein_stones: int
    base_exits: tuple[tuple[int, ...], ...]             # per kind (default patterns)
    alternative_exits: dict[str, tuple[tuple[int, ...], ...]]
    tunnel_supply: tuple[int, ...]                      # per kind
    dynamite_supply: tuple[int, ...]
    vein_supply: int
    stations_per_player: int
    pool_veins: int
    pool_tunnels: tuple[int, ...]
    pool_stations_per_player: int
    phase_tunnel: tuple[int, ...]                       # tunnel tiles of each kind a player takes per phase
    phase_veins: int
    phase_options: int
    phase_prospects: int
    phase_stations: int
    actions_per_phase: int
    stones_per_colour: int
    initial_scale: tuple[tuple[int, ...], ...]          # per colour: occupied spaces (values 1..9)
    start_points: int
    option_points: int
    two_chip_points: int
    two_chips: int
    order_cards: tuple[OrderCard, ...]
    stones_per_vein: dict[int, int]
    phases: int
    defaults: dict[str, Any]
    min_players: int
    max_players: int

    @property
    def num_cells(self) -> int:
        return len(self.cells)

    @property
    def num_spaces(self) -> int:
        return len(self.city_space_names)

    def node_name(self, node: int) -> str:
        """`-3,4` for a mountain cell, `S3` for a city space."""
        if node >= self.num_cells:
            return self.city_space_names[node - self.num_cells]
        q, r = self.cells[node]
        return f"{q},{r}"


def load_rules_data() -> dict[str, Any]:
    """The raw data file shipped with the package."""
    text = resources.files("cavekit.core.cavum").joinpath("data/cavum.json").read_text(encoding="utf-8")
    return json.loads(text)


def _parse(data: dict[str, Any]) -> Rules:
    colours = tuple(data["gem_colours"]["colours"])
    dirs = data["geometry"]["directions"]
    steps = [(d["dq"], d["dr"]) for d in sorted(dirs, key=lambda d: d["index"])]
    mountain = data["map"]["mountain"]
    cells = tuple((m["q"], m["r"]) for m in mountain)
    cell_index = {c: i for i, c in enumerate(cells)}
    spaces = data["map"]["city_spaces"]
    space_coords = tuple((s["q"], s["r"]) for s in spaces)
    space_index = {c: i for i, c in enumerate(space_coords)}
    n = len(cells)
    city_ids = [c["id"] for c in data["map"]["cities"]]
    neighbours = []
    for q, r in cells:
        row = []
        for dq, dr in steps:
            target = (q + dq, r + dr)
            row.append(cell_index[target] if target in cell_index
                       else n + space_index[target] if target in space_index else -1)
        neighbours.append(tuple(row))
    space_neighbours = []
    for q, r in space_coords:
        space_neighbours.append(tuple(cell_index.get((q + dq, r + dr), -1) for dq, dr in steps))
    kinds = data["tile_kinds"]["kinds"]
    supply = data["tile_supply"]
    pool = data["initial_buy_pool"]
    per_phase = data["per_phase_player_tiles"]
    start = []
    for t in data["starting_tiles"]["tiles"]:
        vein = t["vein"]
        start.append((cell_index[tuple(t["cell"])], KINDS.index(t["kind"]), int(t["dynamite"]), t["rotation"],
                      colours.index(vein["colour"]) if vein else -1))
    vein_stones = [t["vein"]["stones"] for t in data["starting_tiles"]["tiles"] if t["vein"]]
    alts = data["tile_kinds"]["alternatives_considered"]
    return Rules(
        colours=colours, directions=tuple(d["name"] for d in sorted(dirs, key=lambda d: d["index"])),
        cells=cells, rings=tuple(m["ring"] for m in mountain),
        city_space_names=tuple(s["id"] for s in spaces), city_space_coords=space_coords,
        city_space_city=tuple(city_ids.index(s["city"]) for s in spaces),
        city_names=tuple(city_ids),
        city_spaces=tuple(tuple(i for i, s in enumerate(spaces) if s["city"] == c) for c in city_ids),
        city_exit_lists=tuple(tuple(e["dir"] for e in s["exits"]) for s in spaces),
        neighbours=tuple(neighbours), space_neighbours=tuple(space_neighbours),
        vein_allowed=tuple(bool(m["vein_allowed"]) for m in mountain),
        start_tiles=tuple(start), start_vein_stones=vein_stones[0] if vein_stones else 0,
        base_exits=tuple(tuple(kinds[k]["base_exits"]) for k in KINDS),
        alternative_exits={k: tuple(tuple(p) for p in v) for k, v in alts.items()},
        tunnel_supply=tuple(supply["tunnel_tiles"][k] for k in KINDS),
        dynamite_supply=tuple(supply["dynamite_tiles"][k] for k in KINDS),
        vein_supply=supply["veins"], stations_per_player=supply["stations_per_player"],
        pool_veins=pool["veins"], pool_tunnels=tuple(pool["tunnel"].get(k, 0) for k in KINDS),
        pool_stations_per_player=pool["stations_per_player"],
        phase_tunnel=tuple(per_phase["tunnel"][k] for k in KINDS), phase_veins=per_phase["vein"],
        phase_options=per_phase["option"], phase_prospects=per_phase["prospect"],
        phase_stations=per_phase["station"], actions_per_phase=per_phase["total_actions"],
        stones_per_colour=supply["stones_per_colour"],
        initial_scale=tuple(tuple(data["price_scales"]["initial_occupied"][c]) for c in colours),
        start_points=data["scoring"]["start_points"], option_points=data["scoring"]["option_points"],
        two_chip_points=data["scoring"]["two_chip_points"], two_chips=supply["two_chips"],
        order_cards=tuple(OrderCard(c["id"], tuple(colours.index(s) for s in c["stones"]), c["points"], c["penalty"])
                          for c in data["order_cards"]["cards"]),
        stones_per_vein={int(k): v["stones_per_vein"] for k, v in data["player_count_variants"].items()
                         if k.isdigit()},
        phases=data["phases"],
        defaults={k: v["default"] for k, v in data["configurable_defaults"].items()},
        min_players=min(int(k) for k in data["player_count_variants"] if k.isdigit()),
        max_players=max(int(k) for k in data["player_count_variants"] if k.isdigit()))


@lru_cache(maxsize=1)
def rules() -> Rules:
    """The rules table (parsed once)."""
    return _parse(load_rules_data())


def auction_score_bound(r: Rules | None = None) -> int:
    """The largest score any player can hold when a sequence auction opens: the size of the bid table.

    A bid never exceeds the bidder's score (bid_cap=current_score), so the action table needs bids up to
    the largest score reachable at an auction, and the last auctions open phase `phases`, after
    `phases - 1` whole phases. Points come only from these sources, each bounded from the data file:
    - the start points;
    - options: `phase_options` x `option_points` per phase;
    - city scoring, once per phase: a live station scores the spaces of its city that are empty or hold a
      dead station, so k stations of one player in a city of n spaces score at most k (n - k) <= n^2 / 4;
    - stones: the one prospect of a phase takes at most one stone from each vein on its route, and at most
      `vein_supply` veins are on the board; a stone is sold once, for at most 9 in a colour sale (the top
      scale space) or a share of an order card's points (at most `points / stones`);
    - 2-chips: a card turned up in phase j carries at most k - j chips when taken in phase k, and at most
      five cards are turned up a phase.
    Penalties and auction payments only lower a score. Every term is a loose upper bound, so no reachable
    position can need a larger bid; the constant MAX_BID is this number (a test checks they agree).
    """
    r = r or rules()
    before = r.phases - 1
    options = r.phase_options * r.option_points
    cities = sum(len(spaces) ** 2 // 4 for spaces in r.city_spaces)
    top_price = r.stones_per_colour                 # scale spaces are valued 1..stones_per_colour
    stone_value = max([top_price] + [-(-card.points // len(card.stones)) for card in r.order_cards])
    stones = r.phase_prospects * r.vein_supply * stone_value
    chips = sum(5 * (k - j) for k in range(1, before + 1) for j in range(1, k + 1)) * r.two_chip_points
    return r.start_points + before * (options + cities + stones) + chips


# -- parameters ---------------------------------------------------------------------------------------

CHOICES: dict[str, tuple[Any, ...]] = {
    "sequence_cards_mode": ("all_four", "first_n"),
    "bid_cap": ("current_score", "unbounded"),
    "order_pick_pass_is_final": (True, False),
    "colour_sale_pass_is_final": (True, False),
    "colour_sale_opening_bid": ("exactly_price", "up_to_price"),
    "city_space_exits": ("all_adjacent_mountain_cells", "one_exit_per_space"),
    "city_adjacency_rule": ("must_lead_into_every_adjacent_city_space", "must_lead_into_at_least_one", "none"),
    "city_spaces_pass_through": (False, True),
    "three_exit_pattern": ("Y", "T"),
    "two_exit_pattern": ("straight", "curve"),
    "tile_internal_connectivity": ("single_junction", "independent_channels"),
    "unconnected_vein_neighbour": ("allowed_if_continuing_other_tunnel", "forbidden"),
    "cover_occupied_cell": (False, True),
    "vein_under_counts_as_visible_dynamite": (False, True),
    "exploding_adjacent_dynamite": ("explodes_fully", "loses_top_tile"),
    "discard_only_if_unplayable": (True, False),
    "option_station_colour": ("own_colour_only",),
    "vein_colour_requires_stone_on_scale": (True, False),
    "prospect_must_take_every_vein_on_path": (True, False),
    "station_on_tile": ("last_tile_this_turn", "immediately_after_laying"),
    "sequence_auction_next_opener": ("last_winner_left", "original_opener_left"),
    "stones_in_hand_visibility": ("hidden_colours_public_history", "public"),
    "final_tie_break": ("lowest_sequence_card_of_phase_3", "draw"),
}
OTHER_PARAMETERS = ("sequence_card_dynamite", "colour_sale_min_bid", "colour_sale_colour_order",
                    "two_chip_supply_limit")
PARAMETERS = tuple(CHOICES) + OTHER_PARAMETERS
UNLIMITED = "unlimited"


@dataclass(frozen=True)
class Config:
    """Validated parameters of one Cavum game."""

    players: int
    sequence_cards_mode: str
    sequence_card_dynamite: tuple[int, ...]      # kind index for cards 1..4
    bid_cap: str
    order_pick_pass_is_final: bool
    colour_sale_pass_is_final: bool
    colour_sale_min_bid: int
    colour_sale_opening_bid: str
    colour_sale_colour_order: tuple[int, ...]   # colour indices
    city_space_exits: str
    city_adjacency_rule: str
    city_spaces_pass_through: bool
    three_exit_pattern: str
    two_exit_pattern: str
    tile_internal_connectivity: str
    unconnected_vein_neighbour: str
    cover_occupied_cell: bool
    vein_under_counts_as_visible_dynamite: bool
    exploding_adjacent_dynamite: str
    two_chip_supply_limit: int                   # -1 = unlimited
    discard_only_if_unplayable: bool
    option_station_colour: str
    vein_colour_requires_stone_on_scale: bool
    prospect_must_take_every_vein_on_path: bool
    station_on_tile: str
    sequence_auction_next_opener: str
    stones_in_hand_visibility: str
    final_tie_break: str

    def as_dict(self) -> dict[str, Any]:
        """Parameters as load_game accepts them (names, not indices)."""
        r = rules()
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["sequence_card_dynamite"] = [KINDS[k] for k in self.sequence_card_dynamite]
        d["colour_sale_colour_order"] = [r.colours[c] for c in self.colour_sale_colour_order]
        d["two_chip_supply_limit"] = UNLIMITED if self.two_chip_supply_limit < 0 else self.two_chip_supply_limit
        return d

    @property
    def sequence_cards(self) -> tuple[int, ...]:
        """The sequence cards (1-4) in the auction."""
        return (1, 2, 3, 4) if self.sequence_cards_mode == "all_four" else tuple(range(1, self.players + 1))

    @property
    def hidden_stones(self) -> bool:
        return self.stones_in_hand_visibility != "public"


def _choice(name: str, value: Any) -> Any:
    allowed = CHOICES[name]
    if isinstance(value, bool) != isinstance(allowed[0], bool) or value not in allowed:
        raise ConfigError(f"parameter {name}={value!r} is not allowed; allowed values: "
                          + ", ".join(repr(a) for a in allowed))
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def make_config(players: int = 2, **params: Any) -> Config:
    """A Config from keyword parameters, defaults from the rules data; unknown names and values are refused."""
    r = rules()
    if not _is_int(players) or not r.min_players <= players <= r.max_players:
        raise ConfigError(f"Cavum is for {r.min_players} to {r.max_players} players, not {players!r}")
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ConfigError(f"unknown Cavum parameter(s) {', '.join(unknown)}; "
                          f"known parameters: players, {', '.join(PARAMETERS)}")
    d = r.defaults
    defaults = {"colour_sale_opening_bid": "exactly_price", "three_exit_pattern": "Y", "two_exit_pattern": "straight",
                "unconnected_vein_neighbour": "allowed_if_continuing_other_tunnel",
                "station_on_tile": "last_tile_this_turn", "sequence_auction_next_opener": "last_winner_left",
                "city_space_exits": "all_adjacent_mountain_cells",
                "stones_in_hand_visibility": "hidden_colours_public_history",
                "final_tie_break": "lowest_sequence_card_of_phase_3"}
    values = {}
    for name in CHOICES:
        # The data file's default wins; the few open questions it has no key for default here.
        values[name] = _choice(name, params.get(name, d[name] if name in d else defaults[name]))
    mapping = params.get("sequence_card_dynamite", d["sequence_card_dynamite"])
    if isinstance(mapping, dict) and sorted(str(k) for k in mapping) == ["1", "2", "3", "4"]:
        mapping = [mapping[k] if k in mapping else mapping[int(k)] for k in ("1", "2", "3", "4")]
    if not isinstance(mapping, (list, tuple)) or len(mapping) != 4 or any(v not in KINDS for v in mapping) \
            or len(set(mapping)) != 4:
        raise ConfigError(f"parameter sequence_card_dynamite={mapping!r} is not allowed; allowed values: the dynamite "
                          f"kinds of cards 1-4 (a list, or a mapping of '1'-'4'), four distinct kinds among "
                          f"{', '.join(KINDS)}")
    dynamite = tuple(KINDS.index(v) for v in mapping)
    min_bid = params.get("colour_sale_min_bid", d["colour_sale_min_bid"])
    if not _is_int(min_bid) or not 1 <= min_bid <= 9:
        raise ConfigError(f"parameter colour_sale_min_bid={min_bid!r} is not allowed; allowed values: 1 to 9")
    order = params.get("colour_sale_colour_order", d["colour_sale_colour_order"])
    if not isinstance(order, (list, tuple)) or sorted(map(str, order)) != sorted(r.colours):
        raise ConfigError(f"parameter colour_sale_colour_order={order!r} is not allowed; allowed values: "
                          f"the colours {', '.join(r.colours)} each once, in any order")
    chips = params.get("two_chip_supply_limit", d["two_chip_supply_limit"])
    if chips != UNLIMITED and (not _is_int(chips) or not 0 <= chips <= 99):
        raise ConfigError(f"parameter two_chip_supply_limit={chips!r} is not allowed; allowed values: "
                          f"an integer 0 to 99 or {UNLIMITED!r}")
    return Config(players=players, sequence_card_dynamite=dynamite, colour_sale_min_bid=min_bid,
                  colour_sale_colour_order=tuple(r.colours.index(c) for c in order),
                  two_chip_supply_limit=-1 if chips == UNLIMITED else chips, **values)


# -- geometry derived from rules + config ---------------------------------------------------------------

@dataclass(frozen=True)
class Geometry:
    """Exit masks and connectivity that depend on the parameters (tile patterns, city exits, channels)."""

    rotations: tuple[tuple[int, ...], ...]          # per kind: the distinct rotations (smallest k for each mask)
    exit_masks: tuple[tuple[int, ...], ...]         # per kind, per rotation 0..5: exit bitmask
    groups: tuple[tuple[tuple[int, ...], ...], ...]  # per kind, per rotation: connected groups of exits (masks)
    city_exits: tuple[int, ...]                     # per city space: bitmask of directions it has exits in
    adjacent_spaces: tuple[tuple[tuple[int, int], ...], ...]  # per mountain cell: (direction, space index)


@lru_cache(maxsize=64)
def geometry(three_exit_pattern: str, two_exit_pattern: str, connectivity: str, city_space_exits: str) -> Geometry:
    """The Geometry for one choice of exit patterns, tile connectivity and city exits."""
    r = rules()
    base = list(r.base_exits)
    if three_exit_pattern == "T":
        base[KINDS.index("three")] = r.alternative_exits["three"][0]
    if two_exit_pattern == "curve":
        base[KINDS.index("two")] = r.alternative_exits["two"][0]
    masks, rotations, groups = [], [], []
    for k in range(NUM_KINDS):
        row = tuple(rotate_mask(base[k], rot) for rot in range(NUM_DIRS))
        masks.append(row)
        rotations.append(tuple(rot for rot in range(NUM_DIRS) if row.index(row[rot]) == rot))
        per_rot = []
        for m in row:
            if connectivity == "single_junction":
                per_rot.append((m,))
                continue
            channels, rest = [], m
            for d in range(3):
                pair = (1 << d) | (1 << opposite(d))
                if m & pair == pair:
                    channels.append(pair)
                    rest &= ~pair
            if rest:
                channels.append(rest)
            per_rot.append(tuple(channels))
        groups.append(tuple(per_rot))
    city_exits = []
    for exits in r.city_exit_lists:
        chosen = exits if city_space_exits == "all_adjacent_mountain_cells" else exits[:1]
        mask = 0
        for d in chosen:
            mask |= 1 << d
        city_exits.append(mask)
    n = r.num_cells
    adjacent = tuple(tuple((d, node - n) for d, node in enumerate(r.neighbours[c]) if node >= n) for c in range(n))
    return Geometry(rotations=tuple(rotations), exit_masks=tuple(masks), groups=tuple(groups),
                    city_exits=tuple(city_exits), adjacent_spaces=adjacent)
