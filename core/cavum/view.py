"""The public, read-only view of a Cavum position: the same object whichever engine computed the position.

Agents, analyses, rendering and tests read a position through `state.view()` (`StateMixin.view`), never
through an engine's own fields. A `PositionView` is built from `state.to_dict()`, the engine-neutral
snapshot both engines produce, so it is equal for equal positions of the two engines:

- every `to_dict()` field is an attribute of the same name (`view.stage`, `view.scores_[p]`,
  `view.city_station[s]`, ...); arrays are tuples, and assigning an attribute raises AttributeError, so a
  view can never change a position (build a changed position with `type(state).from_dict(game, d, history)`);
- derived queries, computed here from the snapshot and the rules data (`rules()`, the game's `geometry`) as
  the reference engine computes them: `hand(player)`, `price(colour)`, `order()`, `top(cell)`,
  `open_sides(cell)`, `live(space)` and `shown_stone_holders()`.

A view is a snapshot: it does not follow the state after `apply_action` (ask the state for a new view).
"""
from __future__ import annotations

from typing import Any

from .network import ALL_SIDES, Network
from .rules import MAX_STACK, NUM_DIRS, geometry, opposite, rules
from .stages import COLOUR_BID, COLOUR_SELL

OPPOSITE = tuple(opposite(d) for d in range(NUM_DIRS))
DIRECTIONS = tuple(tuple(d for d in range(NUM_DIRS) if mask >> d & 1) for mask in range(1 << NUM_DIRS))


class PositionView:
    """A read-only Cavum position (see the module docstring). Equal views describe the same position."""

    def __init__(self, game: Any, snapshot: dict[str, Any]) -> None:
        d = self.__dict__
        d["_snapshot"] = snapshot          # a fresh to_dict(): the view owns it and never changes it
        d["_game"] = game
        d["_live"] = {}

    def __getattr__(self, name: str) -> Any:
        # A field is converted (lists to tuples) the first time it is read, then read as a plain attribute:
        # the agents build a view of every position they evaluate and read only a few of its fields.
        d = self.__dict__
        snapshot = d.get("_snapshot")
        if snapshot is None or name not in snapshot:
            raise AttributeError(f"a Cavum PositionView has no field or query {name!r}")
        value = snapshot[name]
        if type(value) is list:
            value = tuple(value)
        d[name] = value
        return value

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.__dict__["_snapshot"]} - {"_snapshot", "_game", "_live"})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a PositionView is read-only (cannot set {name!r}); "
                             "edit a to_dict() snapshot and rebuild the state with from_dict")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a PositionView is read-only (cannot delete {name!r})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositionView) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<PositionView cavum players={self.n} phase={self.phase} stage={self.stage}>"

    def fields(self) -> tuple[str, ...]:
        """The names of the position's fields (those of `to_dict()`, in its order)."""
        return tuple(self.__dict__["_snapshot"])

    def to_dict(self) -> dict[str, Any]:
        """The snapshot the view was built from, as plain JSON values (fresh lists)."""
        return {key: value[:] if type(value) is list else value for key, value in self.__dict__["_snapshot"].items()}

    @property
    def game(self) -> Any:
        """The game (with its parameters) of the position."""
        return self.__dict__["_game"]

    # -- players, scales ----------------------------------------------------------------------------

    def order(self) -> tuple[int, ...]:
        """Players in sequence-card order (lowest card first)."""
        cards = self.seq_card
        return tuple(sorted(range(self.n), key=lambda p: (cards[p], p)))

    def hand(self, player: int) -> tuple[int, ...]:
        """Stones by colour held by `player`."""
        k = len(rules().colours)
        return self.hands[player * k:(player + 1) * k]

    def price(self, colour: int) -> int:
        """Current price of a colour: its highest empty scale space (0 if the scale is full)."""
        scale = self.scale
        base = colour * 9 - 1
        for value in range(9, 0, -1):
            if not scale[base + value]:
                return value
        return 0

    def shown_stone_holders(self) -> tuple[tuple[int, int], ...]:
        """(player, colour) pairs everyone knows: in a colour sale the bidder and the player to bid hold one."""
        if self.stage not in (COLOUR_BID, COLOUR_SELL):
            return ()
        colour = self._game.config.colour_sale_colour_order[self.colour_pos]
        return tuple((q, colour) for q in sorted({self.bidder, self.to_move}) if q >= 0)

    # -- the mountain and the network ----------------------------------------------------------------

    def top(self, cell: int) -> int:
        """Tile code on top of a mountain cell (0 if empty): 1 + piece + 8 * rotation."""
        h = self.height[cell]
        return self.stack[cell * MAX_STACK + h - 1] if h else 0

    def _geo(self) -> Any:
        c = self._game.config
        return geometry(c.three_exit_pattern, c.two_exit_pattern, c.tile_internal_connectivity,
                        c.city_space_exits)

    def open_sides(self, cell: int) -> int:
        """Open sides of a mountain cell: all six under a vein with stones, else the top tile's exits."""
        return Network(self, self._geo(), self._game.config).open_sides(cell)

    def live(self, space: int) -> bool:
        """Whether the station on a city space is live: a route from it to one of its owner's mountain stations."""
        cache = self.__dict__["_live"]
        if space not in cache:
            config = self._game.config
            if config.tile_internal_connectivity == "single_junction" and not config.city_spaces_pass_through:
                cache.update(self._live_stations())
            else:
                cache[space] = Network(self, self._geo(), config).live(space)
        return cache.get(space, False)

    def _live_stations(self) -> dict[int, bool]:
        """`live` of every city space at once, where a tile's exits do not depend on the entry side and
        routes do not pass through city spaces (the default rules): then a city station is live exactly when
        one of its tunnel neighbours is reachable from an own mountain station without entering another
        player's station (one search per player instead of one per station)."""
        r = rules()
        n = r.num_cells
        geo = self._geo()
        masks = geo.exit_masks
        stack, height, stones, station = self.stack, self.height, self.vein_stones, self.station
        sides = [-1] * n                    # open sides, computed when first needed

        def open_sides(c: int) -> int:
            x = sides[c]
            if x < 0:
                if stones[c] > 0:
                    x = ALL_SIDES
                elif height[c]:
                    code = stack[c * MAX_STACK + height[c] - 1]
                    x = masks[(code - 1) % 8 // 2][(code - 1) // 8]
                else:
                    x = 0
                sides[c] = x
            return x

        neighbours = r.neighbours
        out: dict[int, bool] = {}
        for player in {o for o in self.city_station if o >= 0}:
            reach = bytearray(n)
            queue = [c for c in range(n) if station[c] == player]
            for c in queue:
                reach[c] = 1
            while queue:
                a = queue.pop()
                row = neighbours[a]
                for d in DIRECTIONS[open_sides(a)]:
                    b = row[d]
                    if 0 <= b < n and not reach[b] and (station[b] < 0 or station[b] == player) \
                            and open_sides(b) >> OPPOSITE[d] & 1:
                        reach[b] = 1
                        queue.append(b)
            for s, owner in enumerate(self.city_station):
                if owner == player:
                    row = r.space_neighbours[s]
                    out[s] = any(0 <= row[d] < n and reach[row[d]] and open_sides(row[d]) >> OPPOSITE[d] & 1
                                 for d in DIRECTIONS[geo.city_exits[s]])
        return out
