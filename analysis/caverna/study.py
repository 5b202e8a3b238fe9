"""The Caverna balance study in one resumable command: the games it needs, and the tables the notebook reads.

`run_study(out)` plays, into `out/runs/` (ordinary results folders, each resumable):

- `players-<n>`: self-play of the analysis agent at each player count (seat advantage, family, armed seats,
  categories, action spaces, archetypes);
- `bans`: the paired furnishing-ban experiment at two players (`balance.run_furnishing_bans`);
- `strongest-2p`: the `strongest` preset in self-play on the first deals of `players-2` (same master seed,
  so game i is the same deal), to say which conclusions change with the stronger agent;

then writes every table of `study_tables` to `out/tables/<name>.parquet`, the command to `out/command.txt`,
the summary to `out/summary.md` (`study_summary`) and `out/study.json`, which lets `cavekit report out` find
the study report. The raw runs are large (about 16 kB a game); the tables are small, and are what a saved
full-scale study keeps (`load_tables`). Agents are given as specs or presets; presets are resolved per
player count and the resolved specs are what the results folders record.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ...core import load_game
from ...core.api import ConfigError
from ...search.agent import resolve_preset
from ..batch import run_match
from ..results import ResultsError, load_results
from ..study_tables import read_tables, save_tables, write_study_file
from ..stats import mean_interval, wilson_interval
from .balance import (action_space_rates, archetypes, armed_seats, category_points, checked_tiles,
                      furnishing_ban_effects, furnishing_names, furnishing_rates, run_furnishing_bans, seat_advantage,
                      seat_outcomes)
from .outcomes import CATEGORIES
from .study_summary import summary_markdown

PLAYER_COUNTS: tuple[int, ...] = (2, 3, 4, 5, 6, 7)
TABLES: tuple[str, ...] = ("seat_advantage", "family", "armed_seats", "categories", "winners_categories",
                           "action_spaces", "action_spaces_by_count", "furnishing_rates", "furnishing_bans",
                           "archetypes", "agent_comparison")


def resolved(spec: str, players: int) -> str:
    """An agent spec with a preset name (easy, medium, hard, strongest) resolved for `players`."""
    return resolve_preset(spec, load_game("caverna", players=players))


def run_study(out: str | Path, games: int = 500, large_games: int = 200, ban_games: int = 100,
              strongest_games: int = 200, player_counts: Sequence[int] = PLAYER_COUNTS,
              tiles: Sequence[str] | None = None, agent: str = "medium", strongest: str = "strongest",
              clusters: int = 5, seed: int = 0, jobs: int = 1, progress: bool = True,
              command: str | None = None) -> dict[str, pd.DataFrame]:
    """Play (or resume) the study's runs and write its tables; returns the tables.

    `games` games at 2-4 players, `large_games` at 5-7, `ban_games` per (tile, seat) ban at two players,
    `strongest_games` for the stronger agent's two-player subsample (at most `games`).
    """
    counts = sorted(set(player_counts))
    if 2 not in counts or any(n not in range(2, 8) for n in counts):
        raise ConfigError(f"player counts must be 2 to 7 and include 2 (the bans and the subsample are two-player "
                          f"games), not {list(player_counts)}")
    for name, value in (("games", games), ("large games", large_games), ("ban games", ban_games),
                        ("strongest games", strongest_games)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} must be a positive number of games, not {value!r}")
    if strongest_games > games:
        raise ConfigError(f"the strongest subsample ({strongest_games} games) must be at most the two-player "
                          f"sample ({games} games), whose first deals it replays")
    tiles = checked_tiles(tiles)
    out = Path(out)
    runs = out / "runs"
    two = resolved(agent, 2)
    # Two players first: the bans and the subsample pair with it, and a stopped study is most useful there.
    run_match("caverna", [two, two], games, seed, progress=progress, jobs=jobs, out=runs / "players-2")
    strong = resolved(strongest, 2)
    run_match("caverna", [strong, strong], strongest_games, seed, progress=progress, jobs=jobs,
              out=runs / "strongest-2p")
    run_furnishing_bans(two, 2, ban_games, seed, runs / "bans", tiles=tiles, jobs=jobs, progress=progress)
    for n in counts:
        if n != 2:
            spec = resolved(agent, n)
            run_match("caverna", [spec] * n, games if n <= 4 else large_games, seed, progress=progress, jobs=jobs,
                      out=runs / f"players-{n}", players=n)
    tables = study_tables(runs, clusters=clusters, seed=seed)
    save_tables(tables, out / "tables")
    write_study_file(out, "caverna")
    if command:
        (out / "command.txt").write_text(command + "\n", encoding="utf-8")
    (out / "summary.md").write_text(summary_markdown(tables, command), encoding="utf-8")
    return tables


def study_tables(runs: str | Path, clusters: int = 5, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Every table of the study from its raw runs (the folders `run_study` writes)."""
    runs = Path(runs)
    by_count = {int(p.name.split("-")[1]): load_results(p) for p in sorted(runs.glob("players-*"))}
    if 2 not in by_count:
        raise ResultsError(runs, "holds no players-2 results folder: not a Caverna study's runs (run_study)")
    games = {n: g for n, (g, _) in by_count.items()}
    two_games, two_decisions = by_count[2]
    strong_games, strong_decisions = load_results(runs / "strongest-2p")
    tables = {
        "seat_advantage": seat_advantage(games).reset_index(),
        "family": pd.concat([_family(n, g) for n, g in sorted(games.items())], ignore_index=True),
        "armed_seats": pd.concat([armed_seats(g, d).assign(players=n) for n, (g, d) in sorted(by_count.items())],
                                 ignore_index=True),
        "categories": pd.concat([category_points(g).reset_index().drop(columns="agent").assign(players=n)
                                 for n, g in sorted(games.items())], ignore_index=True),
        "winners_categories": pd.concat([category_points(g, by="winners").reset_index().assign(players=n)
                                         for n, g in sorted(games.items())], ignore_index=True),
        "action_spaces": action_space_rates(two_decisions, two_games).reset_index(),
        "action_spaces_by_count": pd.concat([action_space_rates(d, g, by_round=False).reset_index().assign(players=n)
                                             for n, (g, d) in sorted(by_count.items())], ignore_index=True),
        "furnishing_rates": furnishing_rates(two_decisions, two_games).reset_index(),
        "furnishing_bans": furnishing_ban_effects(runs / "bans").reset_index(),
        "archetypes": pd.concat([archetypes(g, d, clusters, seed)[1].reset_index().assign(players=n)
                                 for n, (g, d) in sorted(by_count.items())], ignore_index=True),
        "agent_comparison": agent_comparison(two_games, two_decisions, strong_games, strong_decisions, clusters,
                                             seed),
    }
    return tables


def _family(players: int, games: pd.DataFrame) -> pd.DataFrame:
    """One row: the mean family size at the end and the mean score a seat, with intervals."""
    rows = seat_outcomes(games)
    dwarfs, d_low, d_high = mean_interval(rows["dwarfs"])
    score, s_low, s_high = mean_interval(rows["score"])
    return pd.DataFrame([{"players": players, "games": len(games), "agent": rows["agent"].iloc[0],
                          "dwarfs": dwarfs, "dwarfs_low": d_low, "dwarfs_high": d_high,
                          "grew": float((rows["dwarfs"] > 2).mean()), "score": score, "score_low": s_low,
                          "score_high": s_high}])


def agent_comparison(games: pd.DataFrame, decisions: pd.DataFrame, strong_games: pd.DataFrame,
                     strong_decisions: pd.DataFrame, clusters: int = 5, seed: int = 0) -> pd.DataFrame:
    """The study's two-player conclusions drawn from the analysis agent and from the stronger one, on the
    same deals: per measure, each agent's value with its 95% interval and whether the intervals overlap.

    Measures: mean score a seat, the starting player's win share, mean family size, each category's mean
    points, each furnishing tile's build rate and each action space's taker win share (spaces and tiles that
    either agent used in at least a tenth of its games).
    """
    shared = sorted(set(games["game"]) & set(strong_games["game"]))
    games = games[games["game"].isin(shared)]
    decisions = decisions[decisions["game"].isin(shared)]
    label_a, label_b = games["agent_0"].iloc[0], strong_games["agent_0"].iloc[0]
    rows_a, rows_b = seat_outcomes(games), seat_outcomes(strong_games)
    measures: list[tuple[str, tuple[float, float, float], tuple[float, float, float]]] = []
    measures.append(("mean score a seat", mean_interval(rows_a["score"]), mean_interval(rows_b["score"])))
    first_a, first_b = rows_a[rows_a["position"] == 1], rows_b[rows_b["position"] == 1]
    measures.append(("starting player's win share", _share(first_a["win_share"]), _share(first_b["win_share"])))
    measures.append(("family size at the end", mean_interval(rows_a["dwarfs"]), mean_interval(rows_b["dwarfs"])))
    for category in CATEGORIES:
        measures.append((f"points: {category.replace('_', ' ')}", mean_interval(rows_a[category]),
                         mean_interval(rows_b[category])))
    tiles_a, tiles_b = furnishing_rates(decisions, games), furnishing_rates(strong_decisions, strong_games)
    names = furnishing_names()
    for tile in sorted(set(tiles_a.index) | set(tiles_b.index), key=lambda t: names[t]):
        ra = float(tiles_a["build_rate"].get(tile, 0.0))
        rb = float(tiles_b["build_rate"].get(tile, 0.0))
        if max(ra, rb) * 2 >= 0.1:        # a tenth of the games (two seats a game)
            measures.append((f"build rate: {names[tile]}", _share_of(ra, len(rows_a)), _share_of(rb, len(rows_b))))
    spaces_a = action_space_rates(decisions, games, by_round=False)
    spaces_b = action_space_rates(strong_decisions, strong_games, by_round=False)
    for space in sorted(set(spaces_a.index) & set(spaces_b.index)):
        if max(spaces_a.at[space, "takers"] / len(games), spaces_b.at[space, "takers"] / len(strong_games)) >= 0.1:
            measures.append((f"taker win share: {space}",
                             tuple(spaces_a.loc[space, ["win_share", "win_low", "win_high"]].astype(float)),
                             tuple(spaces_b.loc[space, ["win_share", "win_low", "win_high"]].astype(float))))
    out = []
    for name, (va, la, ha), (vb, lb, hb) in measures:
        out.append({"measure": name, "analysis_agent": label_a, "analysis": va, "analysis_low": la,
                    "analysis_high": ha, "strongest_agent": label_b, "strongest": vb, "strongest_low": lb,
                    "strongest_high": hb, "games": len(shared),
                    "changes": bool(not (np.isnan(la) or np.isnan(lb)) and (ha < lb or hb < la))})
    return pd.DataFrame(out)


def _share(values: pd.Series) -> tuple[float, float, float]:
    """A mean of fractional wins with its Wilson interval."""
    low, high = wilson_interval(float(values.sum()), len(values))
    return (float(values.mean()) if len(values) else float("nan"), low, high)


def _share_of(rate: float, n: int) -> tuple[float, float, float]:
    low, high = wilson_interval(rate * n, n)
    return (rate, low, high)


def load_tables(folder: str | Path) -> dict[str, pd.DataFrame]:
    """The tables of a study folder (`out/tables/*.parquet`), refused with the location when one is missing
    or unreadable."""
    return read_tables(folder, TABLES, "cavekit caverna-study")
