"""Paired ban experiments: what access to one component (a room, a furnishing tile) is worth to a seat.

The same seeds are played by the same agents once as the real game (the baseline) and once per (item, seat)
with that seat barred from the item, through the game's own analysis variant (an engine option such as
Cave vs Cave's `banned_rooms_p{seat}` or Caverna's `banned_furnishings_p{seat}`). Game i of every run is
played on the same deal (`cavekit.core.deal`) by agents seeded alike, so the runs pair game by game, and the
paired difference in the barred seat's outcome is the value of *access* to the item, with a paired Student-t
interval (`stats.mean_interval`). Agents whose random draws follow the legal moves re-draw a game whenever a
ban touches their candidates, so the reference can be the mean of placebo runs (bans of items nobody takes)
rather than the one baseline draw (`access_effects`). Divided by how often that seat takes the item when
allowed, it estimates the item's value to a player who takes it (an instrumental-variable ratio; its interval
ignores the uncertainty of the take rate, which is small next to the effect's).

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


OUTCOMES = ("points", "score", "margin")


def _barred_outcomes(table: pd.DataFrame, seat: int) -> pd.DataFrame:
    """The barred seat's score, points and margin in a ban run's games table, indexed by (game, player)."""
    rows = seat_rows(table)
    rows = rows.assign(margin=margins(rows))
    return rows[rows["player"] == seat].set_index(["game", "player"])[list(OUTCOMES)]


def access_effects(baseline: pd.DataFrame, banned: Mapping[tuple[str, int], pd.DataFrame],
                   names: Mapping[str, str], item: str, sort_by: str = "access_score",
                   placebo_rate: float | None = None) -> pd.DataFrame:
    """The value of access to each item: reference minus banned outcome of the barred seat, paired by game.

    `baseline` is the baseline's `seat_rows` with one 0/1 column per item (whether that seat took it);
    `banned[(item, seat)]` is the games table of the run in which `seat` was barred from the item. Columns:
    name, paired (seat-games paired: games x barred seats), access_points (change in score rate, i.e. win
    probability with draws as halves; NaN solo) with ci95_low/ci95_high, access_score (final points) with
    score_low/score_high, access_margin (own score minus the others' mean) with margin_low/margin_high,
    build_rate (how often the seat took the item in the baseline), per_build_points and per_build_score (the
    access value divided by the build rate; NaN for a placebo), placebo (whether the item is one) and
    placebo_runs (how many placebo runs each seat-game's reference averages; 0: the reference is the baseline
    run). Indexed by `item`, sorted by `sort_by`, largest first. Only seat-games finished in the ban run and
    its reference count.

    The reference. A ban that changes nothing would replay the baseline if the agents' random draws did not
    depend on the legal moves; they do (a barred item that is a candidate somewhere, even inside a rollout,
    shifts the draws after it), so each ban run re-draws the game and differs from the one baseline draw by
    the baseline's own luck as well as by the ban, alike for every item. With `placebo_rate`, the items taken
    in fewer than that share of the baseline's seat-games are placebos, whose ban changes nothing but the
    draw: a seat-game's reference is then the barred seat's mean outcome over the placebo runs (the item's own
    run left out), which removes that shared luck; the interval covers the reference's spread, as each paired
    difference carries it. With fewer than two placebos, or no `placebo_rate`, the reference is the baseline.
    """
    base = baseline.assign(margin=margins(baseline)).set_index(["game", "player"])
    runs = {(key, seat): _barred_outcomes(table, seat) for (key, seat), table in banned.items()}
    keys = list(dict.fromkeys(k for k, _ in banned))
    seats = {key: [seat for other, seat in banned if other == key] for key in keys}
    taken = {key: base.loc[base.index.get_level_values("player").isin(seats[key]), key] for key in keys}
    rate_of = {key: float(taken[key].mean()) if len(taken[key]) else math.nan for key in keys}
    placebos = [key for key in keys if placebo_rate is not None and rate_of[key] < placebo_rate]
    if len(placebos) < 2:
        placebos = []
    rows = []
    for key in keys:
        others = [p for p in placebos if p != key]
        diffs: dict[str, list[np.ndarray]] = {column: [] for column in OUTCOMES}
        built = []
        for seat in seats[key]:
            run = runs[(key, seat)]
            if others:
                reference = pd.concat([runs[(p, seat)] for p in others]).groupby(level=["game", "player"]).mean()
            else:
                reference = base[list(OUTCOMES)]
            common = reference.index.intersection(run.index)
            for column in OUTCOMES:
                diffs[column].append((reference.loc[common, column] - run.loc[common, column]).to_numpy(float))
            built.append(base.loc[base.index.intersection(common), key].to_numpy(float))
        row: dict[str, object] = {item: key, "name": names[key]}
        for column, label, low, high in (("points", "access_points", "ci95_low", "ci95_high"),
                                         ("score", "access_score", "score_low", "score_high"),
                                         ("margin", "access_margin", "margin_low", "margin_high")):
            mean, lo, hi = mean_interval(np.concatenate(diffs[column]))
            row.update({label: mean, low: lo, high: hi})
        paired = sum(len(d) for d in diffs["score"])
        rate = float(np.concatenate(built).mean()) if sum(len(b) for b in built) else math.nan
        # A placebo's per-build ratio divides noise by almost nothing; it is left out rather than shown as huge.
        ratio = rate > 0 and key not in placebos
        row.update({"paired": paired, "build_rate": rate,
                    "per_build_points": row["access_points"] / rate if ratio else math.nan,  # type: ignore[operator]
                    "per_build_score": row["access_score"] / rate if ratio else math.nan,  # type: ignore[operator]
                    "placebo": key in placebos, "placebo_runs": len(others)})
        rows.append(row)
    return pd.DataFrame(rows).set_index(item).sort_values(sort_by, ascending=False)
