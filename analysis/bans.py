"""Paired ban experiments: what access to one component (a room, a furnishing tile) is worth to a seat.

The same seeds are played by the same agents once as the real game (the baseline) and once per (item, seat)
with that seat barred from the item, through the game's own analysis variant (an engine option such as
Cave vs Cave's `banned_rooms_p{seat}` or Caverna's `banned_furnishings_p{seat}`). Game i of every run is
played on the same deal (`cavekit.core.deal`) by agents seeded alike, so the runs pair game by game, and the
paired difference in the barred seat's outcome is the value of *access* to the item, with a paired Student-t
interval (`stats.mean_interval`). Divided by how often that seat takes the item when allowed, it estimates
the item's value to a player who takes it (an instrumental-variable ratio; its interval ignores the
uncertainty of the take rate, which is small next to the effect's).

Each game keeps its own names (ids, the option, the experiment file); this module holds what they share:
the folder layout, the experiment file that makes a folder resumable, the runs, and the paired effects.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from .balance import seat_rows
from .batch import run_match
from .progress import progress_bar
from .results import ResultsError
from .stats import mean_interval

BASELINE = "baseline"


def ban_folder(out: Path, item: str, seat: int) -> Path:
    """The results folder of the run in which `seat` may not take `item`."""
    return out / f"ban_{item}_p{seat}"


def write_or_check_experiment(out: Path, file: str, spec: Mapping[str, Any], kind: str = "ban") -> None:
    """Write the experiment's spec to `out/file`, or check that the folder already holds the same experiment
    (`kind` names it in the error, e.g. "room-ban")."""
    path = out / file
    if path.exists():
        stored = read_experiment(out, file, tuple(spec))
        if stored != dict(spec):
            raise ResultsError(path, f"this folder holds a different {kind} experiment ({stored}); asked for "
                                     f"{dict(spec)}. Use another folder, or the same arguments to resume.")
        return
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(spec), indent=2) + "\n", encoding="utf-8")


def read_experiment(out: Path, file: str, required: Sequence[str]) -> dict[str, Any]:
    """The spec stored in a ban experiment folder; a missing or corrupt file is refused with its location."""
    path = out / file
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(out, f"not a ban experiment folder (no {file})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(path, f"corrupt experiment file ({error})") from None
    if not isinstance(spec, dict) or not set(required) <= set(spec):
        raise ResultsError(path, f"corrupt experiment file (needs {', '.join(required)})")
    return spec


def run_bans(game: str, agents: Sequence[str], games: int, seed: int, out: Path, items: Sequence[str],
             seats: Sequence[int], option: str, params: Mapping[str, Any] | None = None, jobs: int = 1,
             progress: bool = True, backend: str = "loky", chunk_size: int | None = None,
             label: str = "bans") -> Path:
    """Play the baseline and one run per (item, seat), `games` games each, into `out/baseline` and
    `out/ban_<item>_p<seat>`; `option` names the game's ban option with a `{seat}` field.

    Every run uses the master seed `seed`, so game i of each ban run pairs with game i of the baseline;
    calling again with the same arguments resumes, playing only the games not yet stored.
    """
    params = dict(params or {})
    runs: list[tuple[Path, dict[str, Any]]] = [(out / BASELINE, params)]
    runs += [(ban_folder(out, item, seat), {**params, option.format(seat=seat): [item]})
             for item in items for seat in seats]
    with progress_bar(games * len(runs), label, "game", progress) as bar:
        for folder, run_params in runs:
            # One bar for the whole experiment, moved per game by every run (no bar, no notes per run).
            run_match(game, list(agents), games, seed, progress=False, jobs=jobs, out=folder, backend=backend,
                      chunk_size=chunk_size, bar=bar if progress else None, **run_params)
    return out


def margins(rows: pd.DataFrame) -> np.ndarray:
    """Each `seat_rows` row's final score minus the mean final score of the other seats at its table."""
    grouped = rows.groupby("game")["score"]
    total = grouped.transform("sum").to_numpy(float)
    seats = grouped.transform("size").to_numpy(float)
    score = rows["score"].to_numpy(float)
    return score - (total - score) / np.maximum(seats - 1, 1)


def access_effects(baseline: pd.DataFrame, banned: Mapping[tuple[str, int], pd.DataFrame],
                   names: Mapping[str, str], item: str, sort_by: str = "access_score") -> pd.DataFrame:
    """The value of access to each item: baseline minus banned outcome of the barred seat, paired by game.

    `baseline` is the baseline's `seat_rows` with one 0/1 column per item (whether that seat took it);
    `banned[(item, seat)]` is the games table of the run in which `seat` was barred from the item. Columns:
    name, paired (seat-games paired: games x barred seats), access_points (change in score rate, i.e. win probability with draws as
    halves; NaN solo) with ci95_low/ci95_high, access_score (final points) with score_low/score_high,
    access_margin (own score minus the others' mean) with margin_low/margin_high, build_rate (how often the
    seat took the item in the baseline), per_build_points and per_build_score (the access value divided by
    the build rate). Indexed by `item`, sorted by `sort_by`, largest first. Only games finished in both runs
    count.
    """
    base = baseline.assign(margin=margins(baseline)).set_index(["game", "player"])
    rows = []
    for key in dict.fromkeys(k for k, _ in banned):
        diffs: dict[str, list[np.ndarray]] = {"points": [], "score": [], "margin": []}
        built = []
        for (other, seat), table in banned.items():
            if other != key:
                continue
            barred = seat_rows(table)
            barred = barred.assign(margin=margins(barred))
            barred = barred[barred["player"] == seat].set_index(["game", "player"])
            common = base.index.intersection(barred.index)
            for column in diffs:
                diffs[column].append((base.loc[common, column] - barred.loc[common, column]).to_numpy(float))
            built.append(base.loc[common, key].to_numpy(float))
        row: dict[str, object] = {item: key, "name": names[key]}
        for column, label, low, high in (("points", "access_points", "ci95_low", "ci95_high"),
                                         ("score", "access_score", "score_low", "score_high"),
                                         ("margin", "access_margin", "margin_low", "margin_high")):
            mean, lo, hi = mean_interval(np.concatenate(diffs[column]))
            row.update({label: mean, low: lo, high: hi})
        paired = sum(len(b) for b in built)
        rate = float(np.concatenate(built).mean()) if paired else math.nan
        row.update({"paired": paired, "build_rate": rate,
                    "per_build_points": row["access_points"] / rate if rate > 0 else math.nan,  # type: ignore[operator]
                    "per_build_score": row["access_score"] / rate if rate > 0 else math.nan})  # type: ignore[operator]
        rows.append(row)
    return pd.DataFrame(rows).set_index(item).sort_values(sort_by, ascending=False)
