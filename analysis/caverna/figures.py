"""Figures of the Caverna balance study, shared by the HTML report and notebooks/caverna_balance.ipynb.

Each function draws one figure's content on an Axes it is given, from a table of `balance` or `study`, and
sets the title and axis labels (with units), so the report and the notebook show the same picture.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..plots import interval_barh, interval_points


def draw_seat_advantage(ax: Any, table: pd.DataFrame) -> None:
    """Win share above the fair 1/n by starting position, one point per (player count, position), 95% Wilson."""
    table = table.reset_index()
    labels = [f"{r.players} players, {_ordinal(r.position)} in turn order" for r in table.itertuples()]
    fair = table["fair"].to_numpy(float)
    interval_points(ax, labels, 100 * (table["win_share"].to_numpy(float) - fair),
                    100 * (table["win_low"].to_numpy(float) - fair), 100 * (table["win_high"].to_numpy(float) - fair),
                    reference=0.0)
    ax.set_title("Seat advantage: win share above the fair share, by starting position")
    ax.set_xlabel("win share minus 1/players (percentage points), Wilson 95% interval")
    ax.set_ylabel("seat")


def draw_armed_seats(ax: Any, armed: pd.DataFrame) -> None:
    """Win share of the seats that forged a weapon (95% Wilson) and of the others, against the fair 1/n, by
    player count (label: share of seats that forged)."""
    armed = armed.reset_index()
    labels = [f"{r.players} players ({r.armed:.0%} forged)" for r in armed.itertuples()]
    interval_points(ax, labels, 100 * armed["win_share"].to_numpy(float), 100 * armed["win_low"].to_numpy(float),
                    100 * armed["win_high"].to_numpy(float), colour="#c44e52")
    ax.containers[-1].set_label("seats that forged")
    y = np.arange(len(labels))
    ax.plot(100 * armed["others_win_share"].to_numpy(float), y, "s", color="#4c72b0", markersize=4,
            label="the others")
    ax.plot(100 * armed["fair"].to_numpy(float), y, "|", color="#333333", markersize=12,
            label="fair share (1/players)")
    ax.legend(fontsize="small", loc="lower right")
    ax.set_title("Who arms wins: win share of the seats that forged a weapon")
    ax.set_xlabel("win share (%), Wilson 95% interval for the seats that forged")
    ax.set_ylabel("player count")


def draw_space_heatmap(fig: Any, ax: Any, table: pd.DataFrame, value: str = "win_share",
                       min_takers: int = 5) -> None:
    """Action spaces x rounds: the takers' win share (or score share) minus the fair 1/n, as colours;
    cells with fewer than `min_takers` takers are blank."""
    table = table.reset_index()
    shown = table[table["takers"] >= min_takers]
    grid = shown.pivot(index="space", columns="round", values=value) - float(table["fair"].iloc[0])
    grid = grid.reindex(sorted(table["space"].unique())).reindex(columns=sorted(table["round"].unique()))
    limit = float(np.nanmax(np.abs(grid.to_numpy(float)))) if grid.notna().any().any() else 0.1
    image = ax.imshow(100 * grid.to_numpy(float), cmap="RdBu", vmin=-100 * limit, vmax=100 * limit, aspect="auto")
    ax.set_xticks(range(grid.shape[1]))
    ax.set_xticklabels([str(c) for c in grid.columns], fontsize="small")
    ax.set_yticks(range(grid.shape[0]))
    ax.set_yticklabels(list(grid.index), fontsize="small")
    what = "win share" if value == "win_share" else "score share"
    ax.set_title(f"Takers' {what} above the fair share, by action space and round")
    ax.set_xlabel("round (printed number)")
    ax.set_ylabel("action space")
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(f"{what} minus 1/players (percentage points); blank: fewer than {min_takers} takers")


def draw_ban_effects(ax: Any, bans: pd.DataFrame, top: int = 20) -> None:
    """The value of access to each furnishing tile built (points a game), the `top` largest, with 95% intervals
    (placebo tiles, the reference, are left out)."""
    bans = bans.reset_index()
    bans = bans[~bans["placebo"]].sort_values("access_score", ascending=False).head(top)
    labels = [f"{r.name} (built by {r.build_rate:.0%})" for r in bans.itertuples()]
    interval_points(ax, labels, bans["access_score"].to_numpy(float), bans["score_low"].to_numpy(float),
                    bans["score_high"].to_numpy(float), reference=0.0, colour="#55a868")
    ax.set_title("What access to a furnishing tile is worth (paired bans)")
    ax.set_xlabel("final score with access minus without (points a game), Student-t 95% interval")
    ax.set_ylabel("furnishing tile (share of seats that built it)")


def draw_archetypes(ax: Any, summary: pd.DataFrame) -> None:
    """Mean final score of each archetype with its 95% interval (label: share of seats)."""
    summary = summary.reset_index()
    labels = [f"{r.archetype} ({r.share:.0%})" for r in summary.itertuples()]
    interval_barh(ax, labels, summary["mean_score"].to_numpy(float), summary["mean_score_low"].to_numpy(float),
                  summary["mean_score_high"].to_numpy(float), "#8172b2")
    ax.set_title("Strategy archetypes (k-means on end positions)")
    ax.set_xlabel("mean final score (points), Student-t 95% interval")
    ax.set_ylabel("archetype (share of seats)")


def draw_categories(ax: Any, table: pd.DataFrame) -> None:
    """Mean points per scoring category, one bar group per category and one bar per player count."""
    table = table.reset_index()
    counts = sorted(table["players"].unique())
    categories = list(dict.fromkeys(table["category"]))
    width = 0.8 / len(counts)
    x = np.arange(len(categories))
    for k, n in enumerate(counts):
        part = table[table["players"] == n].set_index("category").reindex(categories)
        mean = part["points"].to_numpy(float)
        err = np.clip(np.nan_to_num(np.vstack([mean - part["points_low"].to_numpy(float),
                                               part["points_high"].to_numpy(float) - mean])), 0, None)
        ax.bar(x + (k - (len(counts) - 1) / 2) * width, mean, width, yerr=err, capsize=1.5, label=f"{n} players")
    ax.axhline(0, color="#333333", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([c.replace("_", " ") for c in categories], rotation=40, ha="right", fontsize="small")
    ax.set_title("Where the points come from, by player count")
    ax.set_xlabel("scoring category")
    ax.set_ylabel("mean points a seat (95% interval)")
    ax.legend(fontsize="small")


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... (turn positions run 1 to 7)."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"
