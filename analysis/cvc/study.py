"""The Cave vs Cave balance study in one resumable command (`cavekit cvc-study`): the headline findings of
docs/cvc_analysis.md made by the analysis agent, beside a weaker reference agent on the same deals.

`run_study(out)` plays into `out/runs/` (ordinary results folders; the same command again resumes):

- `selfplay`: the analysis agent (the `medium` preset by default) against itself, `games` games;
- `reference`: the reference agent (`cvc_turn_mcts:iterations=50`, the agent of the earlier findings) against
  itself on the same deals (same master seed, so game i of both runs is the same deal);
- `room_bans` and `reference_room_bans`: the paired room-ban experiment (`room_values.run_room_bans`) of each
  agent, `ban_games` games per barred (room, seat); `ban_games=0` leaves them out;

then writes the tables of `study_tables` to `out/tables/` and a readable `out/summary.md`. Presets are resolved
for two players and the folders record the agent specs that played.

`changes` sets each finding of the analysis agent beside the reference agent's: the difference with a 95%
interval from the two estimates' intervals (normal approximation, the samples taken as independent, which only
widens it: the deals are shared), and whether that interval excludes 0.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...core import load_game
from ...core.api import ConfigError
from ...search.agent import resolve_preset
from ..balance import first_player_advantage, seat_rows, tie_counts
from ..batch import run_match
from ..results import load_results
from ..stats import mean_interval, wilson_interval, z_quantile
from ..study_tables import estimate_text as fmt
from ..study_tables import read_tables, save_tables
from .balance import first_pick_outcomes, tile_table
from .openings import opening_lines
from .room_values import room_ban_effects, room_regression, run_room_bans

AGENTS = ("analysis", "reference")          # the two sides of every table, in the `agent` column
REFERENCE = "cvc_turn_mcts:iterations=50"
TABLES = ("outcomes", "tiles", "first_picks", "openings", "room_regression", "room_bans", "changes")


def run_study(out: str | Path, games: int = 2000, ban_games: int = 100, agent: str = "medium",
              reference: str = REFERENCE, seed: int = 2026, jobs: int = 1, progress: bool = True,
              command: str | None = None) -> dict[str, pd.DataFrame]:
    """Play (or resume) the study's runs and write its tables; returns the tables."""
    for name, value, least in (("--games", games, 2), ("--ban-games", ban_games, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(f"{name} must be a whole number of games, at least {least}, not {value!r}")
    two = load_game("cvc")
    specs = {"analysis": resolve_preset(agent, two), "reference": resolve_preset(reference, two)}
    if specs["analysis"] == specs["reference"]:
        raise ConfigError(f"the analysis and reference agents are both {specs['analysis']}: the study compares two")
    runs = Path(out) / "runs"
    # Self-play first (every table but the bans reads it; a stopped study is most useful there), the
    # cheaper reference before the analysis agent's bans.
    for side, folder in (("reference", "reference"), ("analysis", "selfplay")):
        run_match("cvc", [specs[side]] * 2, games, seed, progress=progress, jobs=jobs, out=runs / folder)
    if ban_games:
        for side, folder in (("reference", "reference_room_bans"), ("analysis", "room_bans")):
            run_room_bans(specs[side], ban_games, seed, runs / folder, jobs=jobs, progress=progress)
    tables = study_tables(runs)
    save_tables(tables, Path(out) / "tables")
    if command:
        (Path(out) / "command.txt").write_text(command + "\n", encoding="utf-8")
    (Path(out) / "summary.md").write_text(summary_markdown(tables, command), encoding="utf-8")
    return tables


def load_tables(folder: str | Path) -> dict[str, pd.DataFrame]:
    """The tables of a study folder (`folder/tables/*.parquet`), refused with the location when one is missing
    or unreadable."""
    return read_tables(folder, TABLES, "cavekit cvc-study")


def study_tables(runs: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of the study from its raw runs (the folders `run_study` writes)."""
    runs = Path(runs)
    played = {"analysis": load_results(runs / "selfplay"), "reference": load_results(runs / "reference")}
    per_agent: dict[str, list[pd.DataFrame]] = {name: [] for name in TABLES[:-1]}
    for side, (games, decisions) in played.items():
        found = {"outcomes": outcomes(games), "tiles": tile_table(decisions, games),
                 "first_picks": first_pick_outcomes(decisions, games),
                 "openings": opening_lines(decisions, games, depth=4, top=None),
                 "room_regression": room_regression(games, decisions)}
        bans = runs / ("room_bans" if side == "analysis" else "reference_room_bans")
        if (bans / "baseline").is_dir():
            effects = room_ban_effects(bans, started_only=True)     # a study still playing: its rooms so far
            if effects is not None:
                found["room_bans"] = effects
        for name, table in found.items():
            per_agent[name].append(table.reset_index().assign(agent=side, spec=games["agent_0"].iloc[0]))
    tables = {name: pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({"agent": []})
              for name, parts in per_agent.items()}
    tables["changes"] = changes(tables)
    return tables


def outcomes(games: pd.DataFrame) -> pd.DataFrame:
    """One row: the first player's score rate and margin (`first_player_advantage`), the mean score a seat, and
    the games tied on points: how many, how many the tie-break decided and how many of those the first player won."""
    row = first_player_advantage(games).iloc[0].to_dict()
    mean, low, high = mean_interval(seat_rows(games)["score"])
    ties = tie_counts(games).iloc[0]
    row.update({"mean_score": mean, "score_low": low, "score_high": high,
                "tied": int(ties["tied on points"]), "tie_break_decided": int(ties["decided by the tie-break"]),
                "tie_break_first_player": int(ties["of which won by the first player"])})
    return pd.DataFrame([row])


def _estimates(tables: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """Every compared finding of each agent as (measure, agent, value, low, high)."""
    rows: list[dict[str, Any]] = []

    def add(table: pd.DataFrame, measure: Any, value: str, low: str, high: str) -> None:
        for r in table.to_dict("records"):
            rows.append({"measure": measure(r) if callable(measure) else measure, "agent": r["agent"],
                         "value": r[value], "low": r[low], "high": r[high]})

    add(tables["outcomes"], "first player's score rate", "score_rate", "ci95_low", "ci95_high")
    add(tables["outcomes"], "first player's margin (points)", "mean_score_margin", "margin_low", "margin_high")
    add(tables["outcomes"], "mean score a seat (points)", "mean_score", "score_low", "score_high")
    add(tables["tiles"], lambda r: f"takers' score rate: {r['tile']}", "taker_score_rate", "ci95_low", "ci95_high")
    add(tables["room_regression"], lambda r: f"room regression (score rate): {r['name']}", "coef", "ci95_low",
        "ci95_high")
    if "access_points" in tables["room_bans"]:
        add(tables["room_bans"], lambda r: f"room access value (score rate): {r['name']}", "access_points",
            "ci95_low", "ci95_high")
    reference_lines = tables["openings"][tables["openings"]["agent"] == "reference"].head(3)["line"]
    for line in reference_lines:          # the reference's three commonest openings, as shares of both samples
        for side in AGENTS:
            sample = tables["openings"][tables["openings"]["agent"] == side]
            n = int(sample["games"].sum())
            hits = int(sample.loc[sample["line"] == line, "games"].sum())
            low, high = wilson_interval(hits, n)
            rows.append({"measure": f"opening share: {line}", "agent": side, "value": hits / n, "low": low,
                         "high": high})
    return rows


def changes(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per finding: the reference's and the analysis agent's estimate with intervals, their difference (analysis
    minus reference) with a 95% interval, and `changed` when that interval excludes 0."""
    long = pd.DataFrame(_estimates(tables))
    if long.empty:
        return pd.DataFrame(columns=["measure", "reference", "reference_low", "reference_high", "analysis",
                                     "analysis_low", "analysis_high", "difference", "difference_low",
                                     "difference_high", "changed"])
    wide = long.pivot_table(index="measure", columns="agent", values=["value", "low", "high"], sort=False)
    z = z_quantile()
    out = pd.DataFrame({"measure": wide.index})
    for side in AGENTS:
        for column, key in (("", "value"), ("_low", "low"), ("_high", "high")):
            out[side + column] = wide[(key, side)].to_numpy() if (key, side) in wide else np.nan
    se = np.sqrt(((out["analysis_high"] - out["analysis_low"]) / (2 * z)) ** 2
                 + ((out["reference_high"] - out["reference_low"]) / (2 * z)) ** 2)
    out["difference"] = out["analysis"] - out["reference"]
    out["difference_low"] = out["difference"] - z * se
    out["difference_high"] = out["difference"] + z * se
    out["changed"] = (out["difference_low"] > 0) | (out["difference_high"] < 0)
    return out


def summary_markdown(tables: dict[str, pd.DataFrame], command: str | None = None) -> str:
    """The study's headline findings as Markdown (what `cavekit cvc-study` prints and writes to summary.md)."""
    lines = ["# Cave vs Cave balance study", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += ["## Outcomes (self-play)", "",
              "| agent | games | first player's score rate [95%] | first player's margin [95%] | mean score a seat "
              "[95%] | tied on points | decided by the tie-break | of which the first player won |",
              "|---|---|---|---|---|---|---|---|"]
    for r in tables["outcomes"].itertuples():
        lines.append(f"| {r.agent}: `{r.spec}` | {int(r.games)} | {fmt(r.score_rate, r.ci95_low, r.ci95_high)} | "
                     f"{fmt(r.mean_score_margin, r.margin_low, r.margin_high, 2)} | "
                     f"{fmt(r.mean_score, r.score_low, r.score_high, 1)} | {r.tied} | {r.tie_break_decided} | "
                     f"{r.tie_break_first_player} |")
    bans = tables["room_bans"]
    if "access_points" in bans:
        by_room = {side: bans[bans["agent"] == side].set_index("name") for side in AGENTS}
        order = by_room["analysis"].sort_values("access_points", ascending=False).index
        order = order.append(by_room["reference"].index.difference(order))     # rooms only one agent has so far
        lines += ["", "## Rooms: value of access (paired bans; change in the barred seat's score rate)", "",
                  "| room | analysis agent [95%] | built when allowed | seat-games | reference agent [95%] | "
                  "built when allowed | seat-games |", "|---|---|---|---|---|---|---|"]
        for name in order:
            cells = [f"{fmt(t.loc[name, 'access_points'], t.loc[name, 'ci95_low'], t.loc[name, 'ci95_high'])} | "
                     f"{t.loc[name, 'build_rate']:.0%} | {int(t.loc[name, 'paired'])}" if name in t.index
                     else "- | - | -" for t in by_room.values()]
            lines.append(f"| {name} | {' | '.join(cells)} |")
    changed = tables["changes"][tables["changes"]["changed"]]
    lines += ["", f"## What changed with the analysis agent: {len(changed)} of {len(tables['changes'])} findings "
              "(difference interval excludes 0)", ""]
    if len(changed):
        lines += ["| finding | reference [95%] | analysis [95%] | difference [95%] |", "|---|---|---|---|"]
        for r in changed.itertuples():
            lines.append(f"| {r.measure} | {fmt(r.reference, r.reference_low, r.reference_high)} | "
                         f"{fmt(r.analysis, r.analysis_low, r.analysis_high)} | "
                         f"{fmt(r.difference, r.difference_low, r.difference_high)} |")
    return "\n".join(lines) + "\n"
