"""Comparisons paired over deals: the same deal played by both sides cancels the luck of the deal.

A games table from a duplicate run (`run_match(..., duplicate=True)`) plays every deal with every seat
assignment; any table whose `deal` column repeats pairs the same way. For each agent and deal we take the
agent's mean over its games on that deal (its points, or its score rate: 1 for a win, 1/2 for a shared
best return, 0 for a loss), and compare two agents by the per-deal difference of those means: a mean with
its Student-t interval over deals (`stats.mean_interval`). Beside it stands the unpaired standard error of
the same difference, as if every game had a deal of its own: over the per-game differences when the two
agents sit at the same table, and Welch's form over games when they never do (solo), so a reader sees what
pairing bought: the variance ratio is (unpaired SE / paired SE) squared, the factor by which pairing cuts the
number of games a given precision needs.

The first player's score rate gets the same treatment: its per-deal mean over the deal's games, against
the binomial standard error over games.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from .stats import mean_interval, seat_count, wilson_interval

MEASURES = ("points", "score_rate")


def is_paired(games: pd.DataFrame) -> bool:
    """Whether some deal of the table was played more than once (so that games pair over deals)."""
    return "deal" in games.columns and bool(games["deal"].duplicated().any())


def seat_values(games: pd.DataFrame) -> pd.DataFrame:
    """One row per seat of every game: the game's row number, deal, agent, seat, points and score rate (wins 1,
    shared best 1/2), and whether that seat moved first."""
    seats = seat_count(games)
    returns = games[[f"return_{p}" for p in range(seats)]].to_numpy(dtype=float)
    best = returns.max(axis=1, keepdims=True)
    at_best = returns == best
    sharing = at_best.sum(axis=1, keepdims=True)
    rate = np.where(at_best, np.where(sharing > 1, 0.5, 1.0), 0.0)
    return pd.concat([pd.DataFrame({"row": np.arange(len(games)), "deal": games["deal"].to_numpy(),
                                    "agent": games[f"agent_{p}"].to_numpy(),
                                    "seat": p, "points": games[f"score_{p}"].to_numpy(dtype=float),
                                    "score_rate": rate[:, p],
                                    "first": games["first_player"].to_numpy() == p})
                      for p in range(seats)], ignore_index=True)


def _standard_error(values: np.ndarray) -> float:
    return float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else math.nan


def _unpaired_se(long: pd.DataFrame, measure: str, a: str, b: str, deals: pd.Index) -> float:
    """The standard error of the a-minus-b difference with every game counted as its own deal."""
    rows = long[long["deal"].isin(deals)]
    per_game = rows.groupby(["row", "agent"])[measure].mean().unstack("agent")
    if {a, b} <= set(per_game.columns):
        together = per_game[[a, b]].dropna()
        if len(together):       # the agents share tables: their outcomes in a game are not independent
            return _standard_error((together[a] - together[b]).to_numpy())
    mine, theirs = (rows.loc[rows["agent"] == x, measure].to_numpy() for x in (a, b))
    if len(mine) < 2 or len(theirs) < 2:
        return math.nan
    return math.sqrt(mine.var(ddof=1) / len(mine) + theirs.var(ddof=1) / len(theirs))


def paired_differences(games: pd.DataFrame, measure: str = "points") -> pd.DataFrame:
    """Every pair of agents: the mean per-deal difference of `measure` (first minus second agent, in spec
    order) with its 95% interval over deals, its paired and unpaired standard errors and their variance ratio.

    In a two-player game where the two agents sit at one table, the score-rate difference is 2 p - 1 for the
    first agent's score rate p.
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}, not {measure!r}")
    long = seat_values(games)
    per_deal = long.groupby(["deal", "agent"])[measure].mean().unstack("agent")
    rows = []
    for a, b in itertools.combinations(sorted(per_deal.columns), 2):
        both = per_deal[[a, b]].dropna()
        diff = (both[a] - both[b]).to_numpy()
        mean, low, high = mean_interval(diff)
        paired_se = _standard_error(diff)
        unpaired = _unpaired_se(long, measure, a, b, both.index)
        rows.append({"agent": a, "versus": b, "measure": measure, "deals": len(diff), "difference": mean,
                     "ci95_low": low, "ci95_high": high, "paired_se": paired_se, "unpaired_se": unpaired,
                     "variance_ratio": (unpaired / paired_se) ** 2 if paired_se > 0 else math.nan})
    return pd.DataFrame(rows)


def first_player_paired(games: pd.DataFrame) -> pd.DataFrame:
    """The first player's score rate: paired over deals (mean of per-deal rates, t interval) and over games
    (Wilson interval, and the standard error of a mean over independent games), with both standard errors."""
    long = seat_values(games)
    first = long[long["first"]]
    per_deal = first.groupby("deal")["score_rate"].mean().to_numpy()
    mean, low, high = mean_interval(per_deal)
    n = len(first)
    rate = float(first["score_rate"].mean()) if n else math.nan
    wilson_low, wilson_high = wilson_interval(float(first["score_rate"].sum()), n)
    return pd.DataFrame([{
        "games": n, "deals": len(per_deal), "score_rate": rate,
        "paired_ci95_low": low, "paired_ci95_high": high,
        "paired_se": _standard_error(per_deal), "unpaired_ci95_low": wilson_low, "unpaired_ci95_high": wilson_high,
        "unpaired_se": _standard_error(first["score_rate"].to_numpy())}])


def score_rate_over_deals(games: pd.DataFrame, agent: str) -> dict[str, float]:
    """`agent`'s score rate as a mean of its per-deal score rates, with the t interval over deals."""
    long = seat_values(games)
    per_deal = long[long["agent"] == agent].groupby("deal")["score_rate"].mean().to_numpy()
    mean, low, high = mean_interval(per_deal)
    return {"deals": len(per_deal), "paired_score_rate": mean, "paired_ci95_low": low, "paired_ci95_high": high,
            "paired_se": _standard_error(per_deal)}
