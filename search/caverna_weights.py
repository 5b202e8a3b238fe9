"""The tuned weights of the Caverna evaluator, shipped in `data/caverna_weights.json`.

`CAVERNA_WEIGHTS` (search/caverna_agents.py) is the hand-set baseline; the file holds, per tuned player
count, the weights the cross-entropy search of `cavekit.analysis.caverna.train_weights` found for
caverna_greedy's play, with the command that made them and each generation's figures. A game of a player
count that was not tuned uses the nearest tuned count (the larger one on a tie): the weights say what a
good or a board feature is worth, which changes with the competition for action spaces, so neighbouring
counts are the best stand-in.

The agents take `weights=tuned` (the default: this file), `weights=hand` (the baseline) or
`weights=PATH` (a file written by the tuner).
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.api import ConfigError
from .agent import DataOption
from .caverna_agents import CAVERNA_WEIGHTS

WEIGHTS_FILE = "caverna_weights.json"
FORMAT = "cavekit caverna weights"
SOURCES = ("tuned", "hand")


def parse_weights_file(text: str, where: str) -> dict[int, dict[str, float]]:
    """The weights per player count in a weights file's text; ConfigError naming `where` if it is not one."""
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT or data.get("version") != 1:
            raise ConfigError(f"{where}: not a Caverna weights file (format {data.get('format')!r}, "
                              f"version {data.get('version')!r}; expected {FORMAT!r}, version 1)")
        tuned: dict[int, dict[str, float]] = {}
        for key, weights in data["weights"].items():
            players = int(key)
            if not 1 <= players <= 7:
                raise ConfigError(f"{where}: weights for {players} players; Caverna has 1 to 7")
            if set(weights) != set(CAVERNA_WEIGHTS):
                missing = sorted(set(CAVERNA_WEIGHTS) - set(weights))
                unknown = sorted(set(weights) - set(CAVERNA_WEIGHTS))
                raise ConfigError(f"{where}: the {players}-player weights need exactly the evaluator's keys; "
                                  f"missing {missing}, unknown {unknown}")
            tuned[players] = {name: float(weights[name]) for name in CAVERNA_WEIGHTS}
        if not tuned:
            raise ConfigError(f"{where}: holds no weights")
        return tuned
    except (KeyError, TypeError, ValueError, AttributeError, json.JSONDecodeError) as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{where}: not a Caverna weights file ({type(error).__name__}: {error})") from None


@lru_cache(maxsize=None)
def shipped_weights() -> dict[int, dict[str, float]]:
    """The tuned weights in the package's data file, per player count."""
    path = resources.files("cavekit.search") / "data" / WEIGHTS_FILE
    return parse_weights_file(path.read_text(encoding="utf-8"), f"cavekit/search/data/{WEIGHTS_FILE}")


def nearest_tuned(players: int, tuned: dict[int, Any]) -> int:
    """The tuned player count that stands in for `players` (the nearest, the larger on a tie).

    The larger, because measured at 6 players (the analysis agent, 200 self-play games on the same deals,
    2026-12-04) the 7-player weights scored 45.0 [44.6, 45.5] points a seat and the 5-player ones 42.2
    [41.7, 42.7]: the more crowded game's weights fit better."""
    return min(tuned, key=lambda n: (abs(n - players), -n))


def weights_for(players: int, source: str = "tuned") -> dict[str, float]:
    """The evaluator's weights for a game of `players`: `tuned` (shipped), `hand` (the baseline) or a file."""
    if source == "hand":
        return dict(CAVERNA_WEIGHTS)
    if source == "tuned":
        tuned = shipped_weights()
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(f"weights must be one of {', '.join(SOURCES)} or a weights file; cannot read "
                              f"{source!r}: {error.strerror}") from None
        tuned = parse_weights_file(text, source)
    return dict(tuned[nearest_tuned(players, tuned)])


# The `weights` option of the compiled Caverna agents: results folders record a fingerprint of the weights
# a game of their player count plays with, so re-tuning one count leaves the folders of the others valid.
WEIGHTS_OPTION = DataOption(lambda source, players: weights_for(players, source))
