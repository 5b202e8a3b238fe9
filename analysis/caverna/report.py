"""Caverna's sections of the HTML balance report: seat advantage, points per scoring category, family size,
action spaces (by round), furnishing tiles and strategy archetypes."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.caverna.rules import rules
from ..report import ReportData, Section, combine_interval, figure_html, number, percent, report_figure, table_html
from ..stats import mean_interval, wilson_interval
from .balance import action_space_rates, archetypes, furnishing_rates, seat_advantage, seat_outcomes
from .figures import draw_archetypes, draw_seat_advantage, draw_space_heatmap
from .outcomes import CATEGORIES


def _has_outcomes(data: ReportData) -> bool:
    return all(f"category_points_{p}" in data.games.columns and f"dwarfs_{p}" in data.games.columns
               for p in range(data.seats))


def _has_moves(data: ReportData) -> bool:
    """Whether the folder's decisions carry Caverna's move columns (folders before 2026-12-03 do not)."""
    return {"round", "kind", "space", "furnishing"} <= set(data.decisions.columns)


def categories_section(data: ReportData) -> Section:
    """Mean points per scoring category for each agent (and winners against the rest), with intervals."""
    rows = seat_outcomes(data.games)
    table = pd.DataFrame(index=pd.Index([c.replace("_", " ") for c in CATEGORIES], name="category"))
    groups = [(str(agent), g) for agent, g in rows.groupby("agent", sort=True)]
    if data.seats > 1:
        groups += [("winners", rows[rows["win_share"] > 0]), ("the others", rows[rows["win_share"] == 0])]
    for label, group in groups:
        cells = []
        for category in CATEGORIES:
            mean, low, high = mean_interval(group[category])
            cells.append("" if np.isnan(mean) else f"{mean:.1f}" if np.isnan(low) else
                         f"{mean:.1f} [{low:.1f}, {high:.1f}]")
        table[f"{label} (n={len(group)})"] = cells
    caption = ("Where the points came from: each scoring category's mean points per player-game, with a 95% "
               "Student-t interval, for each agent and for the winners against everyone else (n: player-games; "
               "the categories add up to the final score; winners: the seats with the best score).")
    return Section("Points per scoring category (Caverna)", caption, [table_html(table)])


def family_section(data: ReportData) -> Section:
    """Family size at the end: player-games with each number of dwarfs, their win rate and mean score."""
    rows = seat_outcomes(data.games)
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


def seats_section(data: ReportData) -> Section:
    """Seat advantage: win share, score and margin by starting position, against the fair 1/n."""
    table = seat_advantage({data.seats: data.games}).reset_index()
    fig = report_figure(7, 1.2 + 0.35 * len(table))
    draw_seat_advantage(fig.add_subplot(1, 1, 1), table)
    shown = combine_interval(table.set_index("position"), "win share [95% Wilson]", "win_share", "win_low",
                             "win_high", "rate")
    shown = combine_interval(shown, "mean score (points) [95%]", "mean_score", "mean_score_low", "mean_score_high",
                             "mean")
    shown = combine_interval(shown, "margin over the table's mean (points) [95%]", "margin", "margin_low",
                             "margin_high", "mean").drop(columns=["players"])
    caption = ("How each starting position fared (position 1: the starting player, who gets the least food at "
               "the start). Win share: 1 for the best score, shared wins split, so the fair value is 1/players.")
    return Section("Seat advantage (Caverna)", caption,
                   [figure_html(fig, "win share above the fair share by starting position"),
                    table_html(shown, {"games": str, "fair": percent})])


def action_spaces_section(data: ReportData) -> Section:
    """Action spaces: how often each is taken and how its takers fare, overall and by round."""
    overall = action_space_rates(data.decisions, data.games, by_round=False)
    by_round = action_space_rates(data.decisions, data.games)
    parts = []
    if data.seats > 1:
        fig = report_figure(8, 1.5 + 0.28 * len(overall))
        draw_space_heatmap(fig, fig.add_subplot(1, 1, 1), by_round)
        parts.append(figure_html(fig, "takers' win share by action space and round"))
        shown = combine_interval(overall, "takers' win share [95% Wilson]", "win_share", "win_low", "win_high", "rate")
        shown = combine_interval(shown, "takers' score share [95%]", "score_share", "score_share_low",
                                 "score_share_high", "rate")
    else:
        shown = overall.drop(columns=["win_share", "win_low", "win_high", "score_share", "score_share_low",
                                      "score_share_high"])
    shown = shown.rename(columns={"per_game": "placements a game", "takers": "takers (player-games)"})
    parts.append(table_html(shown, {"placements": str, "takers (player-games)": str, "fair": percent,
                                    "placements a game": lambda v: f"{v:.2f}"}))
    caption = ("Where the dwarfs went, and how the seats that went there fared (win share: 1 for the best score, "
               "shared wins split; score share: the seat's score over the table's total; both fair at 1/players). "
               "Correlational: strong positions take more.")
    return Section("Action spaces (Caverna)", caption, parts)


def furnishings_section(data: ReportData) -> Section:
    """Furnishing tiles: how often and when each is built, and how its builders fare (observational)."""
    table = furnishing_rates(data.decisions, data.games)
    shown = combine_interval(table, "builders' mean score (points) [95%]", "mean_score", "mean_score_low",
                             "mean_score_high", "mean")
    if data.seats > 1:
        shown = combine_interval(shown, "builders' win share [95% Wilson]", "win_share", "win_low", "win_high", "rate")
    else:
        shown = shown.drop(columns=["win_share", "win_low", "win_high"])
    caption = ("Each furnishing tile: times furnished, the share of seats that built it, the mean round and how "
               "its builders fared. Correlational; the paired bans of `cavekit caverna-study` measure a tile's "
               "causal value.")
    return Section("Furnishing tiles (Caverna)", caption,
                   [table_html(shown.rename(columns={"build_rate": "built by", "mean_round": "mean round"}),
                               {"times": str, "built by": percent, "mean round": number})])


def archetypes_section(data: ReportData) -> Section:
    """Strategy archetypes: k-means clusters of the end positions, with their share, score and win share."""
    _, summary = archetypes(data.games, data.decisions)
    fig = report_figure(7, 1.2 + 0.4 * len(summary))
    draw_archetypes(fig.add_subplot(1, 1, 1), summary)
    shown = combine_interval(summary, "mean score (points) [95%]", "mean_score", "mean_score_low",
                             "mean_score_high", "mean")
    if data.seats > 1:
        shown = combine_interval(shown, "win share [95% Wilson]", "win_share", "win_low", "win_high", "rate")
    caption = ("The seats' end positions clustered (k-means, 5 clusters, seed 0) on standardised points per "
               "category and the numbers of weapons forged, expedition loot taken and tiles furnished; each "
               "archetype is named by its two features most above average, and its columns are their means.")
    return Section("Strategy archetypes (Caverna)", caption,
                   [figure_html(fig, "mean score of each archetype"),
                    table_html(shown, {"seats": str, "share": percent, "dwarfs": number})])


def report_sections(data: ReportData) -> list[Section]:
    """The report's Caverna sections (none for a folder written before its outcome columns; the move-based
    ones only for folders with Caverna's decision columns)."""
    if not _has_outcomes(data):
        return []
    sections = [categories_section(data), family_section(data)]
    if data.seats > 1:
        sections.insert(0, seats_section(data))
    if _has_moves(data) and len(data.decisions):
        sections += [action_spaces_section(data), furnishings_section(data), archetypes_section(data)]
    return sections
