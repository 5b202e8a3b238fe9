"""The learned value of Cave vs Cave positions: expected final points fitted to self-play outcomes.

A player's expected final points are the points scored so far (rooms and gold) plus what the position still
promises: `value_features` (goods, spaces, walls, the display, the rooms the player owns, the tiles face up)
weighed by a weight that is a quadratic in the share of turns left, `share * a + share**2 * b`, so the promise
vanishes as the game ends and the value becomes the score. The weights `a` and `b` per feature, one set per
player count, are made by `cavekit.analysis.cvc.train_value` (which writes `data/cvc_value.json` with the
command that made it): solo, fitted by least squares to the final scores of self-play games and refined by
policy search on greedy play's score; with two players, the hand-written heuristic's weights refined by policy
search on greedy play's lead over the heuristic's greedy play.

As with the hand-written heuristic (`cvc_heuristic`), solo a position is worth its expected points, and with
two players `tanh((own - opponent's) / scale)`. `core/cvc/compiled.pyx`'s `value_features` and
`cvc_evaluation.pyx` compute the same numbers in C for the compiled searchers (their `value=learned` option);
this module is their readable twin, which tests compare them against.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.api import ConfigError
from ..core.cvc.board import EMPTY, FACE_DOWN, accessible_spaces, wall_pattern
from ..core.cvc.rules import GOLD, NUM_ROOMS, rules
from .agent import DataOption
from .cvc_heuristic import cvc_turns_left_share

VALUES = ("heuristic", "learned")        # the `value` option of the compiled Cave vs Cave searchers
VALUE_FILE = "cvc_value.json"

# The features, in the order of core/cvc/compiled.pxd's V_* indices.
GOODS = ("wood", "stone", "emmer", "flax", "food", "gold")
VALUE_FEATURES: tuple[str, ...] = (
    *GOODS,
    "empty_space", "diggable_space", "face_down_space", "own_walls", "wall_supply", "usable_space",
    "best_fitting_room", "best_affordable_room", "display_rooms", "display_vp", "cavern_open", "orange_lead",
    *(f"room:{room.id}" for room in rules().rooms[:NUM_ROOMS]),
    *(f"tile:{tile.id}" for tile in rules().tiles),
    "constant",
)


def value_features(d: dict[str, Any], player: int) -> list[float]:
    """The learned value's features of `player` in a position given as `state.to_dict()`."""
    r = rules()
    board = d["players"][player]
    spaces, goods = board["spaces"], board["goods"]
    offered = [room for room in r.rooms[:NUM_ROOMS] if d["display"] >> room.index & 1]
    patterns = [wall_pattern(r, s, board["walls"], board["cavern_sides"])
                for s in range(len(spaces)) if spaces[s] == EMPTY]
    fitting = [room for room in offered if any(room.wall_masks >> p & 1 for p in patterns)]
    affordable = [room for room in fitting if all(c <= g for c, g in zip(room.cost, goods))]
    owned = [room for room in spaces if room >= 0]
    orange = sum(1 for room in owned if r.rooms[room].orange)
    built = sum(bin(p["walls"]).count("1") for p in d["players"])
    values = {
        **{good: goods[i] for i, good in enumerate(GOODS)},
        "empty_space": len(patterns),
        "diggable_space": len(accessible_spaces(r, spaces, board["walls"])),
        "face_down_space": sum(1 for room in spaces if room == FACE_DOWN),
        "own_walls": bin(board["walls"]).count("1"),
        "wall_supply": r.wall_supply - built,
        "usable_space": sum(1 for p in patterns if any(room.wall_masks >> p & 1 for room in offered)),
        "best_fitting_room": max((room.vp for room in fitting), default=0),
        "best_affordable_room": max((room.vp for room in affordable), default=0),
        "display_rooms": len(offered),
        "display_vp": sum(room.vp for room in offered),
        "cavern_open": int(d["cavern_owner"] < 0),
        "orange_lead": orange - (len(owned) - orange),
        **{f"room:{r.rooms[room].id}": 1 for room in owned if room < NUM_ROOMS},
        **{f"tile:{r.tiles[t].id}": 1 for t in d["revealed_tiles"]},
        "constant": 1,
    }
    return [float(values.get(name, 0)) for name in VALUE_FEATURES]


def points_scored(d: dict[str, Any], player: int) -> int:
    """Points `player` has scored so far in the position `d` (a `to_dict()`): rooms and gold."""
    board = d["players"][player]
    return sum(rules().rooms[room].vp for room in board["spaces"] if room >= 0) + board["goods"][GOLD]


@dataclass(frozen=True)
class ValueModel:
    """The learned weights for one player count: per feature, its weight times the share of turns left
    (`by_share`) and times that share squared (`by_share2`); `scale` turns a two-player lead into a value."""

    players: int
    by_share: tuple[float, ...]
    by_share2: tuple[float, ...]
    scale: float

    def expected_points(self, d: dict[str, Any], player: int, share: float) -> float:
        """`player`'s expected final points in the position `d` (a `to_dict()`), `share` of turns left."""
        features = value_features(d, player)
        return (points_scored(d, player) + share * sum(w * f for w, f in zip(self.by_share, features))
                + share * share * sum(w * f for w, f in zip(self.by_share2, features)))


def parse_value_file(text: str, where: str) -> dict[int, ValueModel]:
    """The models of a value file's text; a file that does not fit the features is refused saying why."""
    try:
        data = json.loads(text)
        if data["features"] != list(VALUE_FEATURES):
            raise ConfigError(f"{where}: its features are not this version's {len(VALUE_FEATURES)} value "
                              "features; train it again (python -m cavekit.analysis.cvc.train_value)")
        models = {}
        for key, entry in data["models"].items():
            model = ValueModel(int(key), tuple(map(float, entry["by_share"])), tuple(map(float, entry["by_share2"])),
                               float(entry["scale"]))
            if len(model.by_share) != len(VALUE_FEATURES) or len(model.by_share2) != len(VALUE_FEATURES):
                raise ConfigError(f"{where}: model {key} has the wrong number of weights")
            models[model.players] = model
        return models
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{where}: not a Cave vs Cave value file ({type(error).__name__}: {error})") from None


@lru_cache(maxsize=None)
def shipped_models() -> dict[int, ValueModel]:
    """The models in the package's data file."""
    path = resources.files("cavekit.search") / "data" / VALUE_FILE
    return parse_value_file(path.read_text(encoding="utf-8"), f"cavekit/search/data/{VALUE_FILE}")


def load_value(players: int, path: str | None = None) -> ValueModel:
    """The learned value for games of `players` players: the shipped one, or the one in the file `path`."""
    if path is None:
        models, where = shipped_models(), f"the shipped value file ({VALUE_FILE})"
    else:
        try:
            models, where = parse_value_file(Path(path).read_text(encoding="utf-8"), path), path
        except OSError as error:
            raise ConfigError(f"cannot read the value file {path}: {error.strerror}") from None
    if players not in models:
        raise ConfigError(f"{where} has no model for {players} player(s)")
    return models[players]


def learned_evaluate(state: Any) -> list[float]:
    """The learned value of a Cave vs Cave state for each player (exact returns once it is over)."""
    if state.is_terminal():
        return state.returns()
    model = load_value(state.game.num_players)
    share = cvc_turns_left_share(state)
    d = state.to_dict()
    values = [model.expected_points(d, p, share) for p in range(len(d["players"]))]
    if len(values) == 1:
        return values
    lead = math.tanh((values[0] - values[1]) / model.scale)
    return [lead, -lead]


def model_for(value: str, players: int) -> ValueModel | None:
    """The learned model that a searcher's `value` option (one of VALUES, or a value file's path, `.json`)
    stands for in games of `players` players; None for the hand-written heuristic."""
    if value not in VALUES and not value.endswith(".json"):
        raise ConfigError(f"unknown value {value!r}; values: {', '.join(VALUES)}, or a value file's path (.json)")
    if value == "heuristic":
        return None
    return load_value(players, None if value == "learned" else value)


def _value_data(value: str, players: int) -> dict[str, Any] | None:
    model = model_for(value, players)
    return None if model is None else asdict(model)


# The `value` option of the compiled Cave vs Cave searchers: results folders record a fingerprint of the model
# a game of their player count plays with.
VALUE_OPTION = DataOption(_value_data)
