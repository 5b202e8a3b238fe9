"""Routes through a Cavum position's tunnels: which way a route may go from a node, and live city stations.

Both the reference engine and the read-only `PositionView` follow routes with this one `Network`. It reads
the position through the names they share (`vein_stones`, `station`, `city_station` and `top(cell)`), so it
works on either. Nodes are the mountain cells (0 .. num_cells - 1), then the city spaces.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from .rules import NUM_DIRS, opposite, rules

ALL_SIDES = (1 << NUM_DIRS) - 1


class Network:
    """The tunnel network of one position under one game's geometry and options."""

    def __init__(self, position: Any, geo: Any, config: Any) -> None:
        self.position = position
        self.r = rules()
        self.geo = geo
        self.single = config.tile_internal_connectivity == "single_junction"
        self.pass_through = config.city_spaces_pass_through

    def groups(self, cell: int) -> tuple[int, ...]:
        """The groups of sides that connect inside a cell (one group of all six under a vein with stones)."""
        if self.position.vein_stones[cell] > 0:
            return (ALL_SIDES,)
        code = self.position.top(cell)
        if not code:
            return ()
        return self.geo.groups[(code - 1) % 8 // 2][(code - 1) // 8]

    def open_sides(self, cell: int) -> int:
        """Open sides of a mountain cell: all six under a vein with stones, else the top tile's exits."""
        if self.position.vein_stones[cell] > 0:
            return ALL_SIDES
        code = self.position.top(cell)
        return self.geo.exit_masks[(code - 1) % 8 // 2][(code - 1) // 8] if code else 0

    def node_exits(self, node: int, entry: int) -> int:
        """Sides a route may leave `node` by, having entered through side `entry` (-1: it starts here)."""
        n = self.r.num_cells
        if node >= n:
            return self.geo.city_exits[node - n]
        groups = self.groups(node)
        if entry < 0:
            mask = 0
            for g in groups:
                mask |= g
            return mask
        for g in groups:
            if g >> entry & 1:
                return g
        return 0

    def step_target(self, node: int, d: int) -> int:
        """The node across side `d` of `node` if the tunnel continues there, else -1."""
        r = self.r
        n = r.num_cells
        if node >= n:
            target = r.space_neighbours[node - n][d]
            return target if target >= 0 and self.open_sides(target) >> opposite(d) & 1 else -1
        target = r.neighbours[node][d]
        if target < 0:
            return -1
        if target >= n:
            return target if self.geo.city_exits[target - n] >> opposite(d) & 1 else -1
        return target if self.open_sides(target) >> opposite(d) & 1 else -1

    def owner(self, node: int) -> int:
        """The player whose station stands on `node`, or -1."""
        n = self.r.num_cells
        return self.position.city_station[node - n] if node >= n else self.position.station[node]

    def moves(self, player: int, node: int, entry: int) -> list[tuple[int, int]]:
        """(next node, side it is entered by) for every step a route of `player` may take from `node`."""
        out = []
        exits = self.node_exits(node, entry)
        for d in range(NUM_DIRS):
            if exits >> d & 1:
                target = self.step_target(node, d)
                if target >= 0:
                    owner = self.owner(target)
                    if owner < 0 or owner == player:
                        out.append((target, opposite(d)))
        return out

    def live(self, space: int) -> bool:
        """Whether the station on a city space is live: a route from it to one of its owner's mountain stations."""
        owner = self.position.city_station[space]
        return owner >= 0 and self.reaches_mountain_station(owner, self.r.num_cells + space)

    def reaches_mountain_station(self, player: int, start: int) -> bool:
        """Whether a route of `player` from `start` reaches one of the player's mountain stations."""
        n = self.r.num_cells
        station = self.position.station
        if self.single:
            # Exits do not depend on the entry side, so plain reachability is exact.
            seen = {start}
            queue = deque([start])
            while queue:
                for target, _ in self.moves(player, queue.popleft(), -1):
                    if target in seen:
                        continue
                    seen.add(target)
                    if target < n and station[target] == player:
                        return True
                    if target >= n and not self.pass_through:
                        continue
                    queue.append(target)
            return False

        def dfs(node: int, entry: int, visited: set[int]) -> bool:
            for target, side in self.moves(player, node, entry):
                if target in visited:
                    continue
                if target < n and station[target] == player:
                    return True
                if target >= n and not self.pass_through:
                    continue
                visited.add(target)
                if dfs(target, side, visited):
                    return True
                visited.discard(target)
            return False
        return dfs(start, -1, {start})
