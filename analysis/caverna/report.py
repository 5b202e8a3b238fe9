"""Caverna's sections of the HTML balance report: points per scoring category, and family size."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.caverna.rules import rules
from ..balance import seat_rows
from ..report import ReportData, Section, combine_interval, percent, table_html
from ..stats import mean_interval, wilson_interval
from .outcomes import CATEGORIES


def _has_outcomes(data: ReportData) -> bool:
    return all(f"category_points_{p}" in data.games.columns and f"dwarfs_{p}" in data.games.columns
               for p in range(data.seats))


def _long(data: ReportData) -> pd.DataFrame:
    """One row per (game, seat): agent, score, points (1/0.5/0), dwarfs and one column per category."""
    rows = seat_rows(data.games).sort_values(["player", "game"], ignore_index=True)
    games = data.games.sort_values("game")
    rows["dwarfs"] = np.concatenate([games[f"dwarfs_{p}"].to_numpy() for p in range(data.seats)])
    points = np.concatenate([np.stack([np.asarray(v, dtype=float) for v in games[f"category_points_{p}"]])
                             for p in range(data.seats)])
    for k, category in enumerate(CATEGORIES):
        rows[category] = points[:, k]
    return rows


def categories_section(data: ReportData) -> Section:
    """Mean points per scoring category for each agent (and winners against the rest), with intervals."""
    rows = _long(data)
    table = pd.DataFrame(index=pd.Index([c.replace("_", " ") for c in CATEGORIES], name="category"))
    groups = [(str(agent), g) for agent, g in rows.groupby("agent", sort=True)]
    if data.seats > 1:
        groups += [("winners", rows[rows["points"] == 1]), ("the others", rows[rows["points"] < 1])]
    for label, group in groups:
        cells = []
        for category in CATEGORIES:
            mean, low, high = mean_interval(group[category])
            cells.append("" if np.isnan(mean) else f"{mean:.1f}" if np.isnan(low) else
                         f"{mean:.1f} [{low:.1f}, {high:.1f}]")
        table[f"{label} (n={len(group)})"] = cells
    caption = ("Where the points came from: each scoring category's mean points per player-game, with a 95% "
               "Student-t interval, for each agent and for the winners against everyone else (n: player-games; "
               "the categories add up to the final score).")
    return Section("Points per scoring category (Caverna)", caption, [table_html(table)])


def family_section(data: ReportData) -> Section:
    """Family size at the end: player-games with each number of dwarfs, their win rate and mean score."""
    rows = _long(data)
    out = []
    for dwarfs, group in rows.groupby("dwarfs", sort=True):
        mean, low, high = mean_interval(group["score"])
        row = {"dwarfs": int(dwarfs), "player-games": len(group), "share": len(group) / len(rows),
               "mean": mean, "mean_low": low, "mean_high": high}
        if data.seats > 1:
            wins = float(group["points"].sum())
            row["score_rate"] = wins / len(group)
            row["rate_low"], row["rate_high"] = wilson_interval(wins, len(group))
        out.append(row)
    table = combine_interval(pd.DataFrame(out).set_index("dwarfs"), "mean score (points) [95%]", "mean",
                             "mean_low", "mean_high", "mean")
    if data.seats > 1:
        table = combine_interval(table, "score rate [95% Wilson]", "score_rate", "rate_low", "rate_high", "rate")
    per_agent = rows.groupby("agent")["dwarfs"].agg(["size", "mean", "min", "max"]).rename(
        columns={"size": "player-games", "mean": "mean dwarfs"}).astype({"min": int, "max": int})
    caption = (f"How large the families grew by the end of the game (from {rules().dwarfs_at_start} dwarfs at "
               "the start), and how the players with each family size fared (a draw counts half; correlational: "
               "growing the family and winning have common causes).")
    return Section("Family size (Caverna)", caption, [
        table_html(table, {"player-games": str, "share": percent}),
        "<h3>Family size per agent</h3>" + table_html(per_agent, {"player-games": str, "min": str, "max": str})])


def report_sections(data: ReportData) -> list[Section]:
    """The report's Caverna sections (none for a folder written before its outcome columns)."""
    if not _has_outcomes(data):
        return []
    return [categories_section(data), family_section(data)]
