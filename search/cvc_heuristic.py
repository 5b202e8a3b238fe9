"""Cave vs Cave's heuristic evaluation (its spec's `evaluator`).

The estimate is built from "expected final points": points already scored (rooms + gold) plus what the goods,
empty spaces and diggable spaces are still worth, discounted by the share of the player's turns left. Two
players: `tanh(difference / scale)`, a win-probability-like value in [-1, 1]; solo: the expected final points
themselves. The compiled searchers use the same weights (`cvc_evaluation.pyx`).
"""
from __future__ import annotations

import math
from typing import Any

from ..core.cvc.board import EMPTY, accessible_spaces, wall_pattern
from ..core.cvc.rules import GOLD, NUM_ROOMS, rules

# What one more unit is worth in final points with the whole game still to play (scaled down as it ends):
# goods, empty spaces (a place for a room), spaces that can be dug (a future space, and a room for the
# display), built walls (rooms need them), empty spaces some display room fits, and the best display room
# that fits one of your spaces (and the best of those you can pay for now). Found by hill climbing on the
# compiled MCTS's solo score (`python -m cavekit.analysis.cvc.tune --rounds 3 --games 40 --iterations 5000
# --seed 0`, two passes): 36.8 -> 46.3 mean points over those 40 games.
CVC_WEIGHTS = {
    "wood": 0.9, "stone": 0.4, "emmer": 0.5, "flax": 0.6, "food": 0.9,
    "empty_space": 1.5, "diggable_space": 0.75, "built_wall": 0.25, "usable_space": 0.25,
    "best_fitting_room": 0.5, "best_affordable_room": 0.375,
}
CVC_DIFFERENCE_SCALE = 10.0   # points of difference that make tanh about 0.76 (a clear lead)


def cvc_turns_left_share(state: Any) -> float:
    """Share of a player's turns still to come (1 at the start, 0 at the end)."""
    r = rules()
    turns = r.turns[state.game.num_players]
    d = state.to_dict()
    done = sum(turns[:d["round"]]) + (d["turn"] / state.game.num_players if d["round"] < len(turns) else 0)
    return max(0.0, 1.0 - done / sum(turns))


def cvc_expected_points(player_dict: dict[str, Any], display: int, share_left: float) -> float:
    """Points scored plus what the player's goods and spaces are still worth (see CVC_WEIGHTS)."""
    r = rules()
    spaces = player_dict["spaces"]
    goods = player_dict["goods"]
    points = sum(r.rooms[room].vp for room in spaces if room >= 0) + goods[GOLD]
    empty = [s for s in range(len(spaces)) if spaces[s] == EMPTY]
    patterns = [wall_pattern(r, s, player_dict["walls"], player_dict["cavern_sides"]) for s in empty]
    offered = [room for room in r.rooms[:NUM_ROOMS] if display >> room.index & 1]
    fitting = [room for room in offered if any(room.wall_masks >> p & 1 for p in patterns)]
    usable = sum(1 for p in patterns if any(room.wall_masks >> p & 1 for room in offered))
    best = max((room.vp for room in fitting), default=0)
    affordable = max((room.vp for room in fitting if all(c <= g for c, g in zip(room.cost, goods))), default=0)
    w = CVC_WEIGHTS
    potential = (w["wood"] * goods[0] + w["stone"] * goods[1] + w["emmer"] * goods[2] + w["flax"] * goods[3]
                 + w["food"] * goods[4]
                 + w["empty_space"] * len(empty)
                 + w["diggable_space"] * len(accessible_spaces(r, spaces, player_dict["walls"]))
                 + w["built_wall"] * bin(player_dict["walls"]).count("1")
                 + w["usable_space"] * usable + w["best_fitting_room"] * best
                 + w["best_affordable_room"] * affordable)
    return points + share_left * potential


def cvc_evaluate(state: Any) -> list[float]:
    """Estimated returns of a Cave vs Cave state (exact returns once it is over)."""
    if state.is_terminal():
        return state.returns()
    share = cvc_turns_left_share(state)
    d = state.to_dict()
    values = [cvc_expected_points(p, d["display"], share) for p in d["players"]]
    if len(values) == 1:
        return values
    lead = math.tanh((values[0] - values[1]) / CVC_DIFFERENCE_SCALE)
    return [lead, -lead]

