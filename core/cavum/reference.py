"""The readable Cavum reference engine: the executable specification of `shared/rules/cavum.md`.

State is small ints in flat lists so a C struct can mirror it: per mountain cell a stack of up to four tile
codes (`1 + piece + 8 * rotation`, piece = kind * 2 + dynamite, 0 = no tile), a vein colour and stone count,
and a station owner; per city space a station owner; per colour nine scale spaces; per player scores, stones
by colour and the pieces on their action board.

How a phase runs, as nodes of the game tree:
- chance: five order cards are turned up one at a time (uniform over the face-down cards);
- the sequence-card auctions (`bid k`, `pass`, then the winner's `take sequence card k`); a player left
  alone takes a card without bidding; the 12 tiles are then handed out automatically;
- order-card picks in sequence order (`take O05` / `pass`); leftovers then get 2-chips;
- building: a turn is 1 to 4 actions then `end turn` (the turn ends by itself after the 4th action or the
  player's 12th). An option that takes a tile from the pool is two steps of one action: `option: take four
  from pool`, then the placement of that tile (offered only when some placement is legal);
- prospecting (the 12th action) is chosen as a sequence of steps: `prospect from <own station>`, then
  `prospect via <next cell>` one cell at a time, then `prospect: stop` at another own station. A step is
  offered only if the route can still be finished, so no step leads into a dead end. Why steps and not an
  enumerated route set: the number of simple routes between two stations grows exponentially with the
  network (a few junctions already give hundreds), while a step has at most six choices and an existence
  check (one breadth-first search) keeps every offered step completable;
- city scoring and explosions happen automatically, then the colour sale (`bid k` / `pass`, then the
  winner's `sell k`), the order sale (`fulfil O01` ... `done`), and after phase 3 the final scoring and the
  final sale (`final sale: red`, one stone at a time by the player lowest on the track).
Seat 0 is the youngest player, who opens the first auction. Players with nothing to decide are skipped
(a colour without holders is not auctioned; a player who cannot
fulfil any order is passed over), so every decision node offers at least one action.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from ..api import CHANCE, TERMINAL, IllegalActionError, as_action
from .actions import (BID, CHOOSE_CARD, DISCARD, DONE, END_TURN, FINAL_SELL, FULFIL, LAY, NUM_PIECES, OPTION_POINTS,
                      OPTION_TAKE, PASS, PIECE_STATION, PIECE_VEIN, PROSPECT_NONE, PROSPECT_START, PROSPECT_STEP,
                      PROSPECT_STOP, PROSPECT_TAKE, SELL, STATION, TAKE_ORDER, VEIN, action_table, piece_name)
from .stages import (AUCTION, BUILD, CHOOSE, COLOUR_BID, COLOUR_SELL, DRAW, FINAL_SALE, ORDER_PICK,  # noqa: F401
                     ORDER_SALE, OVER, STAGE_NAMES)
from .network import ALL_SIDES, Network  # noqa: F401  (ALL_SIDES: the compiled engine checks its own against it)
from .state import StateMixin
from .rules import MAX_BID, MAX_STACK, NUM_DIRS, NUM_KINDS, geometry, opposite, rules

NO_ROUTE = 0          # prospect progress: not started
ROUTING = 1
TAKING = 2
ORDER_DONE = -2       # order card owner value once fulfilled


def tile_code(piece: int, rotation: int) -> int:
    return 1 + piece + 8 * rotation


def code_piece(code: int) -> int:
    return (code - 1) % 8


def code_rotation(code: int) -> int:
    return (code - 1) // 8


class ReferenceState(StateMixin):
    """One Cavum position, computed by the readable reference engine."""

    def __init__(self, game: Any) -> None:
        r = rules()
        c = game.config
        self._game = game
        self._geo = geometry(c.three_exit_pattern, c.two_exit_pattern, c.tile_internal_connectivity,
                             c.city_space_exits)
        n = self.n = game.num_players
        cells, spaces = r.num_cells, r.num_spaces
        self.phase = 0
        self.stage = DRAW
        self.to_move = CHANCE
        self.scores_ = [r.start_points] * n
        self.seq_card = [0] * n
        self.last_cards = [0] * n           # sequence cards of the latest phase (kept for the tie-break)
        self.height = [0] * cells
        self.stack = [0] * (cells * MAX_STACK)
        self.vein_colour = [-1] * cells
        self.vein_stones = [0] * cells
        self.station = [-1] * cells
        self.city_station = [-1] * spaces
        self.scale = [0] * (len(r.colours) * 9)
        for colour, occupied in enumerate(r.initial_scale):
            for value in occupied:
                self.scale[colour * 9 + value - 1] = 1
        self.hands = [0] * (n * len(r.colours))
        self.pool = [0] * NUM_PIECES           # the station entry stays 0: pool stations are per colour
        self.pool_stations = [r.pool_stations_per_player] * n
        self.supply = [0] * NUM_PIECES
        for k in range(NUM_KINDS):
            self.supply[2 * k] = r.tunnel_supply[k] - r.pool_tunnels[k]
            self.supply[2 * k + 1] = r.dynamite_supply[k]
            self.pool[2 * k] = r.pool_tunnels[k]
        self.supply[PIECE_VEIN] = r.vein_supply - r.pool_veins
        self.pool[PIECE_VEIN] = r.pool_veins
        self.supply_stations = [r.stations_per_player - r.pool_stations_per_player] * n
        for cell, kind, dynamite, rotation, vein in r.start_tiles:
            self._push(cell, tile_code(2 * kind + dynamite, rotation))
            self.supply[2 * kind + dynamite] -= 1
            if vein >= 0:
                self.vein_colour[cell] = vein
                self.vein_stones[cell] = r.start_vein_stones
                self.supply[PIECE_VEIN] -= 1
        self.board = [0] * (n * NUM_PIECES)
        self.options = [0] * n
        self.prospects = [0] * n
        self.used = [0] * n
        k = len(r.order_cards)
        self.deck = [1] * k
        self.display: list[int] = []
        self.chips = [0] * k
        self.owner = [-1] * k
        self.chip_supply = c.two_chip_supply_limit if c.two_chip_supply_limit >= 0 else r.two_chips
        self.draws_left = min(5, k)
        # Auctions (sequence and colour) and picks.
        self.bid = -1
        self.bidder = -1
        self.passed = [0] * n
        self.passes_in_row = 0
        self.opener = 0
        self.colour_pos = 0
        self.cursor = 0
        # Building.
        self.turn_actions = 0
        self.last_laid = -1
        self.last_laid_fresh = 0
        self.pending = -1
        self.prospect_state = NO_ROUTE
        self.route: list[int] = []
        self.route_entry = -1
        self.to_take: list[int] = []
        self.penalties = [0] * n
        self._history: list[int] = []

    # -- small helpers ------------------------------------------------------------------------------

    def _push(self, cell: int, code: int) -> None:
        self.stack[cell * MAX_STACK + self.height[cell]] = code
        self.height[cell] += 1

    def top(self, cell: int) -> int:
        """Tile code on top of a mountain cell (0 if empty)."""
        h = self.height[cell]
        return self.stack[cell * MAX_STACK + h - 1] if h else 0

    def _top_kind(self, cell: int) -> int:
        return code_piece(self.top(cell)) // 2

    def _tile_exits(self, cell: int) -> int:
        code = self.top(cell)
        if not code:
            return 0
        return self._geo.exit_masks[code_piece(code) // 2][code_rotation(code)]

    def open_sides(self, cell: int) -> int:
        """Open sides of a mountain cell: all six under a vein with stones, else the top tile's exits."""
        return self._network().open_sides(cell)

    def _network(self) -> Network:
        """Routes through this position's tunnels (`network.py`, shared with the read-only view)."""
        return Network(self, self._geo, self._game.config)

    def order(self) -> list[int]:
        """Players in sequence-card order (lowest card first)."""
        return sorted(range(self.n), key=lambda p: (self.seq_card[p], p))

    def hand(self, player: int) -> list[int]:
        """Stones by colour held by `player`."""
        k = len(rules().colours)
        return self.hands[player * k:(player + 1) * k]

    def _held(self, player: int, piece: int) -> int:
        return self.board[player * NUM_PIECES + piece]

    def price(self, colour: int) -> int:
        """Current price of a colour: its highest empty scale space (0 if the scale is full)."""
        for value in range(9, 0, -1):
            if not self.scale[colour * 9 + value - 1]:
                return value
        return 0

    def _return_stone(self, colour: int) -> int:
        """Put a stone on the highest empty space of its scale; returns that space's value."""
        value = self.price(colour)
        self.scale[colour * 9 + value - 1] = 1
        return value

    def _take_from_scale(self, colour: int, count: int) -> int:
        """Move up to `count` stones from the lowest occupied spaces; returns how many were moved."""
        moved = 0
        for value in range(1, 10):
            if moved == count:
                break
            if self.scale[colour * 9 + value - 1]:
                self.scale[colour * 9 + value - 1] = 0
                moved += 1
        return moved

    # -- the network --------------------------------------------------------------------------------

    def _own_station(self, player: int, node: int) -> bool:
        n = rules().num_cells
        return (self.city_station[node - n] if node >= n else self.station[node]) == player

    def _moves(self, player: int, node: int, entry: int) -> list[tuple[int, int]]:
        """(next node, side it is entered by) for every step a route of `player` may take from `node`."""
        return self._network().moves(player, node, entry)

    def _can_finish(self, player: int, node: int, entry: int, visited: set[int], start: int) -> bool:
        """Whether a simple route of `player` at `node` can still end at an own station other than `start`."""
        n = rules().num_cells
        if node != start and self._own_station(player, node):
            return True
        if node >= n and node != start and not self._game.config.city_spaces_pass_through:
            return False
        if self._game.config.tile_internal_connectivity == "single_junction":
            # Exits do not depend on the entry side, so reachability avoiding the route is exact.
            seen = set(visited)
            queue = deque([node])
            while queue:
                current = queue.popleft()
                for target, _ in self._moves(player, current, -1):
                    if target in seen:
                        continue
                    seen.add(target)
                    if self._own_station(player, target) and target != start:
                        return True
                    if target >= n and not self._game.config.city_spaces_pass_through:
                        continue
                    queue.append(target)
            return False
        for target, side in self._moves(player, node, entry):
            if target in visited:
                continue
            visited.add(target)
            found = self._can_finish(player, target, side, visited, start)
            visited.discard(target)
            if found:
                return True
        return False

    def live(self, space: int) -> bool:
        """Whether the station on a city space is live: a route from it to one of its owner's mountain stations."""
        return self._network().live(space)

    def vein_connected(self, cell: int, exclude: int = -1) -> bool:
        """A vein is connected when some tile next to it (not under it) has an exit pointing into its cell.

        A tile about to be covered counts (section 7.2.2: "at least one tunnel of a tunnel tile already
        leads to this vein on the board", and the covered tile is on the board when the new one is laid),
        so laying a tile never excludes a cell; `exclude` (a cell to leave out) is for analysis only."""
        r = rules()
        for d, nb in enumerate(r.neighbours[cell]):
            if 0 <= nb < r.num_cells and nb != exclude and self.vein_stones[nb] == 0 \
                    and self._tile_exits(nb) >> opposite(d) & 1:
                return True
        return False

    # -- node bookkeeping -----------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.stage == OVER

    def is_chance_node(self) -> bool:
        return self.stage == DRAW

    def current_player(self) -> int:
        if self.stage == OVER:
            return TERMINAL
        return self.to_move

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Order cards that can be turned up next, each equally likely."""
        if self.stage != DRAW:
            return []
        left = [i for i, inside in enumerate(self.deck) if inside]
        return [(i, 1.0 / len(left)) for i in left]

    # -- legality -------------------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """Sorted ids of the legal actions (chance outcomes at a chance node)."""
        if self.stage == DRAW:
            return [a for a, _ in self.chance_outcomes()]
        if self.stage == OVER:
            return []
        t = action_table()
        p = self.to_move
        r = rules()
        out: list[int] = []
        if self.stage in (AUCTION, COLOUR_BID):
            out = [t.id(BID, v) for v in self._bid_range(p)]
            if self._may_pass(p):
                out.append(t.id(PASS))
        elif self.stage == CHOOSE:
            out = [t.id(CHOOSE_CARD, c) for c in self._free_cards()]
        elif self.stage == ORDER_PICK:
            out = [t.id(TAKE_ORDER, i) for i in self.display] + [t.id(PASS)]
        elif self.stage == COLOUR_SELL:
            colour = self._game.config.colour_sale_colour_order[self.colour_pos]
            out = [t.id(SELL, k) for k in range(1, self.hand(p)[colour] + 1)]
        elif self.stage == ORDER_SALE:
            out = [t.id(FULFIL, i) for i in self._fulfillable(p)] + [t.id(DONE)]
        elif self.stage == FINAL_SALE:
            out = [t.id(FINAL_SELL, c) for c in range(len(r.colours)) if self.hand(p)[c]]
        elif self.stage == BUILD:
            out = self._build_actions(p)
        return sorted(out)

    def _bid_range(self, p: int) -> range:
        c = self._game.config
        if self.stage == AUCTION:
            cap = MAX_BID if c.bid_cap == "unbounded" else min(MAX_BID, self.scores_[p])
            return range(self.bid + 1 if self.bid >= 0 else 0, cap + 1)
        colour = c.colour_sale_colour_order[self.colour_pos]
        if self.hand(p)[colour] == 0:
            return range(0)
        if self.bid < 0:
            price = self.price(colour)
            low = price if c.colour_sale_opening_bid == "exactly_price" else c.colour_sale_min_bid
            return range(max(low, c.colour_sale_min_bid), price + 1)
        return range(c.colour_sale_min_bid, self.bid)

    def _may_pass(self, p: int) -> bool:
        # The opener of a sequence auction must bid; everyone else may pass.
        return not (self.stage == AUCTION and self.bid < 0)

    def _free_cards(self) -> list[int]:
        return [c for c in self._game.config.sequence_cards if c not in self.seq_card]

    def _fulfillable(self, p: int) -> list[int]:
        r = rules()
        hand = self.hand(p)
        out = []
        for i, card in enumerate(r.order_cards):
            if self.owner[i] == p:
                need = [0] * len(r.colours)
                for colour in card.stones:
                    need[colour] += 1
                if all(hand[colour] >= need[colour] for colour in range(len(r.colours))):
                    out.append(i)
        return out

    def _build_actions(self, p: int) -> list[int]:
        t = action_table()
        if self.prospect_state == ROUTING:
            out = [t.id(PROSPECT_STEP, node) for node, _ in self._route_steps(p)]
            if self._may_stop(p):
                out.append(t.id(PROSPECT_STOP))
            return out
        if self.prospect_state == TAKING:
            return [t.id(PROSPECT_TAKE, cell) for cell in self.to_take] + [t.id(DONE)]
        if self.pending >= 0:
            return self._placements(p, self.pending)
        out = []
        if self.turn_actions >= 1:
            out.append(t.id(END_TURN))
        if self._only_prospect_left(p):
            starts = self._route_starts(p)
            out += [t.id(PROSPECT_START, node) for node in starts] if starts else [t.id(PROSPECT_NONE)]
            return out
        for piece in range(NUM_PIECES):
            if self._held(p, piece):
                placements = self._placements(p, piece)
                out += placements
                if not placements or not self._game.config.discard_only_if_unplayable:
                    out.append(t.id(DISCARD, piece))
        if self.options[p]:
            out.append(t.id(OPTION_POINTS))
            for piece in range(NUM_PIECES):
                if self._pool_count(p, piece) and self._placements(p, piece, first_only=True):
                    out.append(t.id(OPTION_TAKE, piece))
        return out

    def _pool_count(self, p: int, piece: int) -> int:
        return self.pool_stations[p] if piece == PIECE_STATION else self.pool[piece]

    def _only_prospect_left(self, p: int) -> bool:
        held = sum(self.board[p * NUM_PIECES:(p + 1) * NUM_PIECES])
        return self.prospects[p] > 0 and held == 0 and self.options[p] == 0

    def _candidate_cells(self) -> list[int]:
        """Cells a tile could go on: occupied cells and their empty neighbours."""
        r = rules()
        out = set()
        for cell in range(r.num_cells):
            if self.height[cell]:
                out.add(cell)
                for nb in r.neighbours[cell]:
                    if 0 <= nb < r.num_cells:
                        out.add(nb)
        return sorted(out)

    def _placements(self, p: int, piece: int, first_only: bool = False) -> list[int]:
        """Ids of every legal placement of `piece` by `p` now (the first one only, if asked)."""
        t = action_table()
        r = rules()
        out = []
        if piece == PIECE_STATION:
            nodes = ([self.last_laid] if self.last_laid >= 0 else []) + \
                    [r.num_cells + s for s in range(r.num_spaces) if self.city_station[s] < 0]
            for node in nodes:
                if self._station_problem(p, node, piece_check=False) is None:
                    out.append(t.id(STATION, node))
                    if first_only:
                        return out
            return out
        if piece == PIECE_VEIN:
            for cell in range(r.num_cells):
                if self.height[cell] and self._vein_site_problem(cell) is None:
                    for colour in range(len(r.colours)):
                        if self._vein_colour_problem(colour) is None:
                            out.append(t.id(VEIN, cell, colour))
                            if first_only:
                                return out
            return out
        kind = piece // 2
        for cell in self._candidate_cells():
            for rot in self._geo.rotations[kind]:
                if self._lay_problem(p, piece, cell, rot, piece_check=False) is None:
                    out.append(t.id(LAY, cell, rot, piece))
                    if first_only:
                        return out
        return out

    def _piece_problem(self, p: int, piece: int) -> str | None:
        if self.pending >= 0:
            if self.pending != piece:
                return f"the {piece_name(self.pending)} taken from the pool with an option must be used now"
            return None
        if not self._held(p, piece):
            return f"no {piece_name(piece)} left on your action board"
        if self._only_prospect_left(p):
            return "only prospecting is left"
        return None

    def _lay_problem(self, p: int, piece: int, cell: int, rot: int, piece_check: bool = True) -> str | None:
        r = rules()
        c = self._game.config
        if piece_check and (problem := self._piece_problem(p, piece)):
            return problem
        kind = piece // 2
        if rot not in self._geo.rotations[kind]:
            first = self._geo.exit_masks[kind].index(self._geo.exit_masks[kind][rot])
            return f"rotation {rot} repeats rotation {first}"
        mask = self._geo.exit_masks[kind][rot]
        h = self.height[cell]
        if h == 0:
            if not any(0 <= nb < r.num_cells and self.height[nb] for nb in r.neighbours[cell]):
                return "an empty cell needs a neighbouring tile or vein"
        else:
            if self._top_kind(cell) >= kind:
                return (f"stacking needs strictly more exits than the {piece_name(code_piece(self.top(cell)))} "
                        f"it would cover")
            if not c.cover_occupied_cell and self.station[cell] >= 0:
                return "the cell holds a station and cannot be covered"
            if not c.cover_occupied_cell and self.vein_stones[cell] > 0:
                return "the cell holds a vein and cannot be covered"
        continues = False
        for d in range(NUM_DIRS):
            nb = r.neighbours[cell][d]
            if not 0 <= nb < r.num_cells:
                continue
            if self.vein_stones[nb] > 0:
                connected = self.vein_connected(nb)      # the tile being covered counts (7.2.2)
                if not connected and c.unconnected_vein_neighbour == "forbidden":
                    return f"the cell is next to the unconnected vein at {r.node_name(nb)}"
                if connected and mask >> d & 1:
                    continues = True
            elif mask >> d & 1 and self._tile_exits(nb) >> opposite(d) & 1:
                continues = True
        if not continues:
            return "no exit continues a tunnel of a neighbouring tile or connected vein"
        adjacent = self._geo.adjacent_spaces[cell]
        for d, space in adjacent:
            owner = self.city_station[space]
            if owner >= 0 and owner != p:
                return f"city space {r.city_space_names[space]} holds player {owner}'s station"
        if c.city_adjacency_rule == "must_lead_into_every_adjacent_city_space":
            for d, space in adjacent:
                if not mask >> d & 1:
                    return f"the tile must lead into city space {r.city_space_names[space]}"
        elif c.city_adjacency_rule == "must_lead_into_at_least_one" and adjacent:
            if not any(mask >> d & 1 for d, _ in adjacent):
                return "the tile must lead into at least one neighbouring city space"
        return None

    def _station_problem(self, p: int, node: int, piece_check: bool = True) -> str | None:
        r = rules()
        if piece_check and (problem := self._piece_problem(p, PIECE_STATION)):
            return problem
        if node >= r.num_cells:
            space = node - r.num_cells
            if self.city_station[space] >= 0:
                return f"city space {r.city_space_names[space]} already holds a station"
            saved = self.city_station[space]
            self.city_station[space] = p
            try:
                if not self.live(space):
                    return "no route from that city space to one of your mountain stations"
            finally:
                self.city_station[space] = saved
            return None
        if node != self.last_laid:
            return "a mountain station goes only on the tile you laid most recently this turn"
        if self._game.config.station_on_tile == "immediately_after_laying" and not self.last_laid_fresh:
            return "a mountain station must be built right after laying its tile"
        if self.height[node] != 1:
            return "a mountain station goes only on a tile at level 1"
        if code_piece(self.top(node)) % 2:
            return "stations never go on dynamite"
        if self.vein_stones[node] > 0 or self.vein_colour[node] >= 0:
            return "the tile carries a vein"
        if self.station[node] >= 0:
            return "the cell already holds a station"
        return None

    def _vein_site_problem(self, cell: int) -> str | None:
        r = rules()
        if not self.height[cell]:
            return "a vein goes on a tunnel or dynamite tile"
        if self.station[cell] >= 0:
            return "the tile holds a station"
        if self.vein_colour[cell] >= 0:
            return "the tile already holds a vein"
        if not r.vein_allowed[cell] or self._geo.adjacent_spaces[cell]:
            return "a vein may not go next to a city space"
        for nb in r.neighbours[cell]:
            if 0 <= nb < r.num_cells and self.vein_stones[nb] > 0:
                return f"a vein may not go next to the vein at {r.node_name(nb)}"
        return None

    def _vein_colour_problem(self, colour: int) -> str | None:
        if self._game.config.vein_colour_requires_stone_on_scale and self.price(colour) == 9:
            return f"no {rules().colours[colour]} stone is left on its scale"
        return None

    def _route_starts(self, p: int) -> list[int]:
        r = rules()
        nodes = [c for c in range(r.num_cells) if self.station[c] == p] + \
                [r.num_cells + s for s in range(r.num_spaces) if self.city_station[s] == p]
        return [node for node in nodes if self._can_finish(p, node, -1, {node}, node)]

    def _route_steps(self, p: int) -> list[tuple[int, int]]:
        current, start = self.route[-1], self.route[0]
        n = rules().num_cells
        if current != start and current >= n and not self._game.config.city_spaces_pass_through:
            return []
        visited = set(self.route)
        out = []
        for target, side in self._moves(p, current, self.route_entry):
            if target in visited:
                continue
            visited.add(target)
            if self._can_finish(p, target, side, visited, start):
                out.append((target, side))
            visited.discard(target)
        return out

    def _may_stop(self, p: int) -> bool:
        return len(self.route) > 1 and self._own_station(p, self.route[-1])

    def illegal_reason(self, action: Any) -> str | None:
        """Why `action` is illegal now, or None if it is legal."""
        a = as_action(action)
        t = action_table()
        if a is None:
            return "an action is an integer id"
        if self.stage == OVER:
            return "the game is over"
        if self.stage == DRAW:
            if not 0 <= a < len(self.deck):
                return f"chance outcomes are numbered 0 to {len(self.deck) - 1} (the order cards)"
            if not self.deck[a]:
                return "that order card is not face down in the deck"
            return None
        if not 0 <= a < len(t):
            return f"actions are numbered 0 to {len(t) - 1}"
        p = self.to_move
        spec = t.specs[a]
        if self.stage == BUILD and spec.kind in (LAY, STATION, VEIN, DISCARD, OPTION_TAKE, OPTION_POINTS) \
                and self.prospect_state == NO_ROUTE:
            if spec.kind == LAY:
                return self._lay_problem(p, spec.c, spec.a, spec.b)
            if spec.kind == STATION:
                return self._station_problem(p, spec.a)
            if spec.kind == VEIN:
                return (self._piece_problem(p, PIECE_VEIN) or self._vein_site_problem(spec.a)
                        or self._vein_colour_problem(spec.b))
        if a in self.legal_actions():
            return None
        return self._explain(p, spec)

    def _explain(self, p: int, spec: Any) -> str:
        stage = STAGE_NAMES[self.stage]
        if self.stage == BUILD and self.prospect_state == ROUTING:
            return "a prospecting route is being chosen: step to a cell from which it can still end, or stop"
        if self.stage == BUILD and self.pending >= 0:
            return f"the {piece_name(self.pending)} taken from the pool must be placed now"
        if spec.kind == OPTION_TAKE and self.stage == BUILD:
            if not self.options[p]:
                return "no option tile left"
            if not self._pool_count(p, spec.a):
                return f"the buy pool holds no {piece_name(spec.a)} for you"
            return f"the {piece_name(spec.a)} from the pool could not be used now"
        if spec.kind == DISCARD and self.stage == BUILD and self._held(p, spec.a):
            return f"the {piece_name(spec.a)} can still be placed, so it may not be discarded"
        if spec.kind == END_TURN and self.stage == BUILD:
            return "a turn has at least one action"
        if spec.kind in (PROSPECT_START, PROSPECT_NONE) and self.stage == BUILD:
            return "prospecting is your 12th action: only when nothing else is left (and only if no route: 'no route')"
        if spec.kind == BID and self.stage in (AUCTION, COLOUR_BID):
            bids = self._bid_range(p)
            allowed = f"bids {bids.start} to {bids.stop - 1}" if bids else "no bid, only a pass"
            return f"bid {spec.a} is not allowed now; allowed: {allowed}"
        if spec.kind == PASS and self.stage == AUCTION:
            return "the opener of a sequence auction must bid (0 or more)"
        return f"{spec.text!r} is not an action of the {stage} now"

    # -- applying actions -----------------------------------------------------------------------------

    def apply_action(self, action: Any) -> None:
        """Apply a legal action or chance outcome; raises IllegalActionError (state unchanged) otherwise."""
        reason = self.illegal_reason(action)
        if reason is not None:
            text = None
            a = as_action(action)
            if a is not None and 0 <= a < len(action_table()) and self.stage not in (DRAW, OVER):
                text = action_table().specs[a].text
            raise IllegalActionError(action, self.current_player(), reason, text)
        a = int(action)
        self._history.append(a)
        if self.stage == DRAW:
            self._draw(a)
            return
        spec = action_table().specs[a]
        p = self.to_move
        handler = {AUCTION: self._auction_action, CHOOSE: self._choose_card, ORDER_PICK: self._order_pick,
                   BUILD: self._build_action, COLOUR_BID: self._colour_bid, COLOUR_SELL: self._colour_sell,
                   ORDER_SALE: self._order_sale, FINAL_SALE: self._final_sale}[self.stage]
        handler(p, spec)

    # phase start and the sequence auction

    def _draw(self, card: int) -> None:
        self.deck[card] = 0
        self.display.append(card)
        self.display.sort()
        self.draws_left -= 1
        if self.draws_left == 0:
            opener = 0 if self.phase == 0 else min(range(self.n), key=lambda p: self.last_cards[p])
            self.seq_card = [0] * self.n
            self._begin_auction(opener)

    def _begin_auction(self, opener: int) -> None:
        without = [p for p in range(self.n) if not self.seq_card[p]]
        if len(without) == 1:
            self.bidder = without[0]
            self.bid = 0
            self.stage = CHOOSE
            self.to_move = without[0]
            return
        while self.seq_card[opener]:
            opener = (opener + 1) % self.n
        self.opener = opener
        self.bid = -1
        self.bidder = -1
        self.passed = [0] * self.n
        self.stage = AUCTION
        self.to_move = opener

    def _auction_action(self, p: int, spec: Any) -> None:
        if spec.kind == BID:
            self.bid, self.bidder = spec.a, p
        else:
            self.passed[p] = 1
        active = [q for q in range(self.n) if not self.seq_card[q] and not self.passed[q] and q != self.bidder]
        if not active:
            self.scores_[self.bidder] -= self.bid
            self.stage = CHOOSE
            self.to_move = self.bidder
            return
        q = (p + 1) % self.n
        while q not in active:
            q = (q + 1) % self.n
        self.to_move = q

    def _choose_card(self, p: int, spec: Any) -> None:
        self.seq_card[p] = spec.a
        if all(self.seq_card):
            self._deal_tiles()
            self._begin_order_pick()
            return
        base = p if self._game.config.sequence_auction_next_opener == "last_winner_left" else self.opener
        self._begin_auction((base + 1) % self.n)

    def _deal_tiles(self) -> None:
        r = rules()
        c = self._game.config
        for p in range(self.n):
            for k in range(NUM_KINDS):
                self._from_supply(p, 2 * k, r.phase_tunnel[k])
            self._from_supply(p, 2 * c.sequence_card_dynamite[self.seq_card[p] - 1] + 1, 1)
            self._from_supply(p, PIECE_VEIN, r.phase_veins)
            count = min(r.phase_stations, self.supply_stations[p])
            self.supply_stations[p] -= count
            self.board[p * NUM_PIECES + PIECE_STATION] += count
            self.options[p] = r.phase_options
            self.prospects[p] = r.phase_prospects
            self.used[p] = 0

    def _from_supply(self, p: int, piece: int, count: int) -> None:
        count = min(count, self.supply[piece])
        self.supply[piece] -= count
        self.board[p * NUM_PIECES + piece] += count

    # order cards

    def _begin_order_pick(self) -> None:
        self.passed = [0] * self.n
        self.passes_in_row = 0
        self.cursor = 0
        self.stage = ORDER_PICK
        self.to_move = self.order()[0]
        if not self.display:
            self._end_order_pick()

    def _order_pick(self, p: int, spec: Any) -> None:
        r = rules()
        final = self._game.config.order_pick_pass_is_final
        if spec.kind == TAKE_ORDER:
            card = spec.a
            self.display.remove(card)
            self.owner[card] = p
            self.scores_[p] += r.two_chip_points * self.chips[card]
            self.chip_supply += self.chips[card]
            self.chips[card] = 0
            self.passes_in_row = 0
        else:
            self.passed[p] = 1
            self.passes_in_row += 1
        everyone_passed = all(self.passed) if final else self.passes_in_row >= self.n
        if not self.display or everyone_passed:
            self._end_order_pick()
            return
        order = self.order()
        i = order.index(p)
        for step in range(1, self.n + 1):
            q = order[(i + step) % self.n]
            if not (final and self.passed[q]):
                self.to_move = q
                return

    def _end_order_pick(self) -> None:
        limit = self._game.config.two_chip_supply_limit
        for card in self.display:
            if limit < 0:
                self.chips[card] += 1
            elif self.chip_supply > 0:
                self.chips[card] += 1
                self.chip_supply -= 1
        self.stage = BUILD
        self.turn_actions = 0
        self.last_laid = -1
        self.to_move = self.order()[0]

    # building

    def _build_action(self, p: int, spec: Any) -> None:
        r = rules()
        kind = spec.kind
        if kind == END_TURN:
            self._end_turn(p)
            return
        if kind == PROSPECT_START:
            self.prospect_state = ROUTING
            self.route = [spec.a]
            self.route_entry = -1
            return
        if kind == PROSPECT_STEP:
            side = next(s for target, s in self._route_steps(p) if target == spec.a)
            self.route.append(spec.a)
            self.route_entry = side
            return
        if kind == PROSPECT_STOP:
            veins = [node for node in self.route if node < r.num_cells and self.vein_stones[node] > 0]
            if self._game.config.prospect_must_take_every_vein_on_path:
                for cell in veins:
                    self._take_stone(p, cell)
                self._finish_prospect(p)
            else:
                self.prospect_state = TAKING
                self.to_take = veins
                if not veins:
                    self._finish_prospect(p)
            return
        if kind == PROSPECT_TAKE:
            self.to_take.remove(spec.a)
            self._take_stone(p, spec.a)
            if not self.to_take:
                self._finish_prospect(p)
            return
        if kind == DONE:      # stop taking stones while prospecting
            self._finish_prospect(p)
            return
        if kind == PROSPECT_NONE:
            self._finish_prospect(p)
            return
        if kind == OPTION_POINTS:
            self.options[p] -= 1
            self.scores_[p] += r.option_points
            self._action_done(p, laid=-1)
            return
        if kind == OPTION_TAKE:
            self.options[p] -= 1
            if spec.a == PIECE_STATION:
                self.pool_stations[p] -= 1
            else:
                self.pool[spec.a] -= 1
            self.pending = spec.a
            return
        if kind == DISCARD:
            self.board[p * NUM_PIECES + spec.a] -= 1
            if spec.a == PIECE_STATION:
                self.pool_stations[p] += 1
            else:
                self.pool[spec.a] += 1
            self._action_done(p, laid=-1)
            return
        piece = {LAY: spec.c, STATION: PIECE_STATION, VEIN: PIECE_VEIN}[kind]
        if self.pending >= 0:
            self.pending = -1
        else:
            self.board[p * NUM_PIECES + piece] -= 1
        if kind == LAY:
            cell = spec.a
            # With cover_occupied_cell a station or vein stays on top of the grown stack.
            self._push(cell, tile_code(piece, spec.b))
            self._action_done(p, laid=cell)
        elif kind == STATION:
            if spec.a >= r.num_cells:
                self.city_station[spec.a - r.num_cells] = p
            else:
                self.station[spec.a] = p
            self._action_done(p, laid=-1)
        else:
            cell, colour = spec.a, spec.b
            stones = self._take_from_scale(colour, r.stones_per_vein[self.n])
            self.vein_colour[cell] = colour
            self.vein_stones[cell] = stones
            if stones == 0:
                self._remove_vein(cell)
            self._action_done(p, laid=-1)

    def _take_stone(self, p: int, cell: int) -> None:
        colour = self.vein_colour[cell]
        self.vein_stones[cell] -= 1
        self.hands[p * len(rules().colours) + colour] += 1
        if self.vein_stones[cell] == 0:
            self._remove_vein(cell)

    def _remove_vein(self, cell: int) -> None:
        self.vein_colour[cell] = -1
        self.vein_stones[cell] = 0
        self.pool[PIECE_VEIN] += 1

    def _finish_prospect(self, p: int) -> None:
        self.prospects[p] -= 1
        self.prospect_state = NO_ROUTE
        self.route = []
        self.route_entry = -1
        self.to_take = []
        self._action_done(p, laid=-1)

    def _action_done(self, p: int, laid: int) -> None:
        self.used[p] += 1
        self.turn_actions += 1
        if laid >= 0:
            self.last_laid = laid
        self.last_laid_fresh = 1 if laid >= 0 else 0
        if self.turn_actions >= 4 or self.used[p] >= rules().actions_per_phase:
            self._end_turn(p)

    def _end_turn(self, p: int) -> None:
        self.turn_actions = 0
        self.last_laid = -1
        self.last_laid_fresh = 0
        order = self.order()
        i = order.index(p)
        for step in range(1, self.n + 1):
            q = order[(i + step) % self.n]
            if self.used[q] < rules().actions_per_phase:
                self.to_move = q
                return
        self._end_building()

    def _end_building(self) -> None:
        self.score_cities()
        self.explode()
        self.colour_pos = -1
        self._next_colour()

    def score_cities(self) -> list[int]:
        """Score all five cities (each live station: 1 per empty or dead space of its city); returns the gains."""
        r = rules()
        gains = [0] * self.n
        for spaces in r.city_spaces:
            live = {s: self.live(s) for s in spaces if self.city_station[s] >= 0}
            empty = sum(1 for s in spaces if self.city_station[s] < 0 or not live[s])
            for s, is_live in live.items():
                if is_live:
                    gains[self.city_station[s]] += empty
        for p in range(self.n):
            self.scores_[p] += gains[p]
        return gains

    def _visible_dynamite(self, cell: int) -> bool:
        code = self.top(cell)
        if not code or code_piece(code) % 2 == 0 or self.station[cell] >= 0:
            return False
        return self.vein_stones[cell] == 0 or self._game.config.vein_under_counts_as_visible_dynamite

    def explode(self) -> list[int]:
        """Set off every visible dynamite tile, with chain reactions (rules 7.8); returns the cells cleared."""
        r = rules()
        fully = self._game.config.exploding_adjacent_dynamite == "explodes_fully"
        queue = deque(c for c in range(r.num_cells) if self._visible_dynamite(c))
        cleared = []
        while queue:
            cell = queue.popleft()
            if not self._visible_dynamite(cell):
                continue
            if self.vein_stones[cell] > 0:
                colour = self.vein_colour[cell]
                for _ in range(self.vein_stones[cell]):
                    self._return_stone(colour)
                self._remove_vein(cell)
            while self.height[cell]:
                self._pop_to_pool(cell)
            cleared.append(cell)
            for nb in r.neighbours[cell]:
                if not 0 <= nb < r.num_cells or not self.height[nb]:
                    continue
                if self.station[nb] >= 0 or self.vein_stones[nb] > 0:
                    continue
                if fully and self._visible_dynamite(nb):
                    queue.append(nb)
                    continue
                self._pop_to_pool(nb)
                if self._visible_dynamite(nb):
                    queue.append(nb)
        return cleared

    def _pop_to_pool(self, cell: int) -> None:
        self.height[cell] -= 1
        i = cell * MAX_STACK + self.height[cell]
        self.pool[code_piece(self.stack[i])] += 1
        self.stack[i] = 0

    # selling

    def _next_colour(self) -> None:
        c = self._game.config
        while True:
            self.colour_pos += 1
            if self.colour_pos >= len(c.colour_sale_colour_order):
                self._begin_order_sale()
                return
            self.bid, self.bidder = -1, -1
            self.passed = [0] * self.n
            self.passes_in_row = 0
            self.cursor = -1
            self.stage = COLOUR_BID
            if self._advance_colour_bidding():
                return

    def _colour_holders(self) -> list[int]:
        colour = self._game.config.colour_sale_colour_order[self.colour_pos]
        return [p for p in self.order() if self.hand(p)[colour] > 0]

    def _advance_colour_bidding(self) -> bool:
        """Move to the next player who can act in this colour's bidding; False if the colour is finished."""
        final = self._game.config.colour_sale_pass_is_final
        holders = self._colour_holders()
        order = self.order()
        while True:
            others = [q for q in holders if q != self.bidder]
            if final:
                done = all(self.passed[q] for q in others)
            else:
                done = self.passes_in_row >= len(others)
            if done or not holders:
                if self.bidder >= 0:
                    self.stage = COLOUR_SELL
                    self.to_move = self.bidder
                    return True
                return False
            self.cursor = (self.cursor + 1) % self.n
            q = order[self.cursor]
            if q not in others or (final and self.passed[q]):
                continue
            self.to_move = q
            if self._bid_range(q):
                return True
            # No bid is possible (none low enough): that player passes without a decision.
            self.passed[q] = 1
            self.passes_in_row += 1

    def _colour_bid(self, p: int, spec: Any) -> None:
        if spec.kind == BID:
            self.bid, self.bidder = spec.a, p
            self.passes_in_row = 0
        else:
            self.passed[p] = 1
            self.passes_in_row += 1
        if not self._advance_colour_bidding():
            self._next_colour()

    def _colour_sell(self, p: int, spec: Any) -> None:
        colour = self._game.config.colour_sale_colour_order[self.colour_pos]
        k = len(rules().colours)
        for _ in range(spec.a):
            self.hands[p * k + colour] -= 1
            self._return_stone(colour)
            self.scores_[p] += self.bid
        self._next_colour()

    def _begin_order_sale(self) -> None:
        self.stage = ORDER_SALE
        self.cursor = -1
        self._next_order_seller()

    def _next_order_seller(self) -> None:
        order = self.order()
        while True:
            self.cursor += 1
            if self.cursor >= self.n:
                self._end_phase()
                return
            q = order[self.cursor]
            if self._fulfillable(q):
                self.to_move = q
                return

    def _order_sale(self, p: int, spec: Any) -> None:
        if spec.kind == DONE:
            self._next_order_seller()
            return
        r = rules()
        card = r.order_cards[spec.a]
        for colour in card.stones:
            self.hands[p * len(r.colours) + colour] -= 1
            self._return_stone(colour)
        self.scores_[p] += card.points
        self.owner[spec.a] = ORDER_DONE
        if not self._fulfillable(p):
            self._next_order_seller()

    def _end_phase(self) -> None:
        r = rules()
        self.last_cards = list(self.seq_card)
        if self.phase + 1 < r.phases:
            self.phase += 1
            self.stage = DRAW
            self.to_move = CHANCE
            self.draws_left = min(5, sum(self.deck))
            if self.draws_left == 0:
                self._draw_none()
            return
        self.score_cities()
        for i, card in enumerate(r.order_cards):
            if self.owner[i] >= 0:
                self.scores_[self.owner[i]] -= card.penalty
                self.penalties[self.owner[i]] += card.penalty
        self.stage = FINAL_SALE
        self._next_final_seller()

    def _draw_none(self) -> None:
        self.seq_card = [0] * self.n
        self._begin_auction(min(range(self.n), key=lambda p: self.last_cards[p]))

    def _next_final_seller(self) -> None:
        holders = [p for p in range(self.n) if sum(self.hand(p))]
        if not holders:
            self.stage = OVER
            self.to_move = TERMINAL
            return
        self.to_move = min(holders, key=lambda p: (self.scores_[p], self.last_cards[p]))

    def _final_sale(self, p: int, spec: Any) -> None:
        self.hands[p * len(rules().colours) + spec.a] -= 1
        self.scores_[p] += self._return_stone(spec.a)
        self._next_final_seller()

    def shown_stone_holders(self) -> list[tuple[int, int]]:
        """(player, colour) pairs everyone knows: in a colour sale the bidder and the player to bid hold one."""
        if self.stage not in (COLOUR_BID, COLOUR_SELL):
            return []
        colour = self._game.config.colour_sale_colour_order[self.colour_pos]
        return [(q, colour) for q in {self.bidder, self.to_move} if q >= 0]

    # -- results and records --------------------------------------------------------------------------

    def scores(self) -> list[int]:
        return list(self.scores_)

    def history(self) -> list[int]:
        return list(self._history)

    def clone(self) -> "ReferenceState":
        other = object.__new__(ReferenceState)
        for key, value in self.__dict__.items():
            other.__dict__[key] = value[:] if isinstance(value, list) else value
        return other

    def to_dict(self) -> dict[str, Any]:
        """The whole position as plain JSON values."""
        skip = {"_game", "_geo", "_history", "_resample_cache"}
        return {key: (value[:] if isinstance(value, list) else value)
                for key, value in self.__dict__.items() if key not in skip}

    @classmethod
    def from_dict(cls, game: Any, d: dict[str, Any], history: list[int]) -> "ReferenceState":
        """The position described by `to_dict()` output (every field; lists may come as any sequence)."""
        state = cls(game)
        for key, value in d.items():
            if key not in state.__dict__ or key in ("_game", "_geo", "_history"):
                raise ValueError(f"{key!r} is not a field of a Cavum position")
            if key == "n" and value != state.n:
                raise ValueError("the number of players is the game's")
            setattr(state, key, list(value) if isinstance(value, (list, tuple)) else value)
        state._history = list(history)
        return state
