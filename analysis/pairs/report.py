"""The Cave's sections of the HTML balance report: seat order, and the majority points each rank brings."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.pairs.rules import NUM_RANKS
from ..report import ReportData, Section, combine_interval, percent, table_html
from ..stats import mean_interval
from .study import rank_points, seat_advantage, seat_positions


def seat_order_section(data: ReportData) -> Section:
    """Win share and mean points by position in the order of play, with intervals and sample sizes."""
    table = seat_advantage(data.games, by="position").reset_index()
    points = np.column_stack([data.games[f"score_{p}"].to_numpy(float) for p in range(data.seats)])
    where = seat_positions(data.games)
    means = [mean_interval(points[where == k]) for k in range(data.seats)]
    table["mean_points"], table["points_low"], table["points_high"] = zip(*means)
    table["position"] = [f"{k + 1}{'st' if k == 0 else 'nd' if k == 1 else 'rd' if k == 2 else 'th'} to play"
                         for k in table["position"]]
    table = combine_interval(table, "win share [95% Wilson]", "win_share", "ci95_low", "ci95_high", "rate")
    table = combine_interval(table, "mean points [95%]", "mean_points", "points_low", "points_high", "mean")
    shown = table[["position", "games", "wins", "win share [95% Wilson]", "fair", "mean points [95%]"]]
    shown = shown.rename(columns={"games": "player-games", "wins": "wins (shared wins split)",
                                  "fair": "fair share"}).set_index("position")
    caption = ("How each position in the order of play (1st = leads the first round) fared: its share of the "
               "match wins, a win shared by k players counting 1/k, beside the fair 1/players; and its mean "
               "match points. An interval that excludes the fair share is a seat advantage for these agents.")
    return Section("Seat order (The Cave)", caption,
                   [table_html(shown, {"player-games": str, "fair share": percent})])


def rank_points_section(data: ReportData) -> Section:
    """Majority points per rank of the captured cards: mean per player-game, share of all points, by agent."""
    points = rank_points(data.games)                       # games x seats x ranks
    agents = np.column_stack([data.games[f"agent_{p}"].to_numpy() for p in range(data.seats)])
    total = points.sum()
    rows = []
    for rank in range(NUM_RANKS):
        values = points[:, :, rank]
        mean, low, high = mean_interval(values.ravel())
        row = {"rank": rank + 1, "player-games": values.size, "mean": mean, "low": low, "high": high,
               "share of all points": values.sum() / total if total else float("nan"),
               "games it scored in": int((values.sum(axis=1) > 0).sum())}
        for agent in sorted(set(agents.ravel())):
            row[f"mean, {agent}"] = float(values[agents == agent].mean())
        rows.append(row)
    table = combine_interval(pd.DataFrame(rows).set_index("rank"), "mean points per player-game [95%]", "mean",
                             "low", "high", "mean")
    caption = ("The match points each rank's majority brought, from the captured piles of every round "
               "(the engine's own scoring, one rank at a time), averaged over player-games, with each agent's "
               "mean; the ranks' points add up to the match scores.")
    return Section("Points per rank of captured cards (The Cave)", caption, [
        table_html(table, {"player-games": str, "share of all points": percent, "games it scored in": str})])


def report_sections(data: ReportData) -> list[Section]:
    """The report's sections for The Cave (a folder without rank-point columns gets the seat order only)."""
    sections = [seat_order_section(data)]
    if all(f"rank_points_{p}" in data.games.columns for p in range(data.seats)):
        sections.append(rank_points_section(data))
    return sections
