"""The tables of a balance report, computed from a results folder's games and decisions tables.

Every function here is pure: DataFrames in, a DataFrame out, nothing printed or drawn (`analysis/report.py`
turns them into HTML and figures). Conventions shared by all tables:
- A seat's outcome comes from its return, as in `batch.summarize`: above 0 is a win, 0 a draw, below 0 a
  loss; the score rate counts a draw as half a win. Solo games have no outcome, so solo tables leave the
  win columns out.
- Proportions carry a Wilson 95% interval (`ci95_low`, `ci95_high`); means carry a Student-t 95% interval,
  mean +- t(n - 1) standard errors (`mean_low`, `mean_high`), NaN for a single observation. Both come from
  `analysis/stats.py`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .stats import mean_interval, seat_count, wilson_interval


def seat_rows(games: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, seat): game, player, agent, score, ret, points (1/0.5/0; NaN solo), first."""
    seats = seat_count(games)
    parts = []
    for p in range(seats):
        ret = games[f"return_{p}"].astype(float)
        points = np.where(ret > 0, 1.0, np.where(ret == 0, 0.5, 0.0)) if seats > 1 else np.full(len(games), np.nan)
        parts.append(pd.DataFrame({"game": games["game"].to_numpy(), "player": p,
                                   "agent": games[f"agent_{p}"].to_numpy(),
                                   "score": games[f"score_{p}"].to_numpy(), "ret": ret.to_numpy(),
                                   "points": points, "first": (games["first_player"] == p).to_numpy()}))
    if not parts:
        return pd.DataFrame(columns=["game", "player", "agent", "score", "ret", "points", "first"])
    return pd.concat(parts, ignore_index=True).sort_values(["game", "player"], ignore_index=True)


def outcome_columns(points: pd.Series) -> dict[str, float]:
    """Wins, draws, losses, score rate and its Wilson interval for a series of 1/0.5/0 outcomes."""
    n = len(points)
    wins, draws = int((points == 1).sum()), int((points == 0.5).sum())
    rate = (wins + draws / 2) / n if n else math.nan
    low, high = wilson_interval(wins + draws / 2, n)
    return {"wins": wins, "draws": draws, "losses": n - wins - draws, "score_rate": rate,
            "ci95_low": low, "ci95_high": high}


def score_columns(scores: pd.Series) -> dict[str, float]:
    mean, low, high = mean_interval(scores)
    return {"mean_score": mean, "mean_low": low, "mean_high": high}


def agent_results(games: pd.DataFrame) -> pd.DataFrame:
    """Per agent: games (seat-games), wins/draws/losses, score rate with Wilson interval, mean score with interval.

    Solo runs get only the games and mean score columns. An agent that plays both seats of a game (a mirror
    match) counts both seats.
    """
    rows = seat_rows(games)
    solo = seat_count(games) == 1
    out = []
    for agent, group in rows.groupby("agent", sort=True):
        row: dict[str, object] = {"agent": agent, "games": len(group)}
        if not solo:
            row.update(outcome_columns(group["points"]))
        row.update(score_columns(group["score"]))
        out.append(row)
    return pd.DataFrame(out).set_index("agent")


def first_player_advantage(games: pd.DataFrame) -> pd.DataFrame:
    """One row: how the player who made the first decision fared (wins/draws/losses, score rate + Wilson interval).

    A score rate above 0.5 with an interval that excludes 0.5 means moving first is an advantage. Also
    gives the mean score difference first minus others (two players: first minus second) with its interval.
    """
    if seat_count(games) < 2:
        raise ValueError("first-player advantage needs games with at least two seats")
    rows = seat_rows(games)
    first = rows[rows["first"]]
    result: dict[str, object] = {"games": len(first)}
    result.update(outcome_columns(first["points"]))
    others = rows[~rows["first"]].groupby("game")["score"].mean()
    diff = first.set_index("game")["score"] - others.reindex(first["game"]).to_numpy()
    mean, low, high = mean_interval(diff)
    result.update({"mean_score_margin": mean, "margin_low": low, "margin_high": high})
    return pd.DataFrame([result])


def score_summary(games: pd.DataFrame, by: str = "agent") -> pd.DataFrame:
    """Score distribution per agent (`by="agent"`) or per seat (`by="player"`): n, mean + interval, sd, quantiles."""
    if by not in ("agent", "player"):
        raise ValueError(f"by must be 'agent' or 'player', not {by!r}")
    rows = seat_rows(games)
    out = []
    for key, group in rows.groupby(by, sort=True):
        s = group["score"].astype(float)
        mean, low, high = mean_interval(s)
        out.append({by: key, "n": len(s), "mean": mean, "mean_low": low, "mean_high": high,
                    "sd": float(s.std(ddof=1)) if len(s) > 1 else math.nan, "min": s.min(),
                    "p25": s.quantile(0.25), "median": s.median(), "p75": s.quantile(0.75), "max": s.max()})
    return pd.DataFrame(out).set_index(by)


def length_summary(games: pd.DataFrame) -> pd.DataFrame:
    """Game length in steps (history, chance included) and in player decisions: mean + interval, min, median, max."""
    out = []
    for column, unit in (("length", "steps (actions and chance outcomes)"), ("decisions", "player decisions")):
        x = games[column].astype(float)
        mean, low, high = mean_interval(x)
        out.append({"measure": unit, "mean": mean, "mean_low": low, "mean_high": high, "min": x.min(),
                    "median": x.median(), "max": x.max()})
    return pd.DataFrame(out).set_index("measure")


def target_shares(games: pd.DataFrame, goal: int, remarkable: int) -> pd.DataFrame:
    """Solo scores against two marks: share of games scoring >= `goal` and > `remarkable`, Wilson intervals."""
    scores = seat_rows(games)["score"]
    n = len(scores)
    out = []
    for label, hits in ((f"score >= {goal}", int((scores >= goal).sum())),
                        (f"score > {remarkable}", int((scores > remarkable).sum()))):
        low, high = wilson_interval(hits, n)
        out.append({"mark": label, "games": n, "hits": hits, "share": hits / n if n else math.nan,
                    "ci95_low": low, "ci95_high": high})
    return pd.DataFrame(out).set_index("mark")


def tie_counts(games: pd.DataFrame) -> pd.DataFrame:
    """Games whose best points were shared: how many, how many were drawn, and how many the tie-break decided
    (and for whom: the first player or another)."""
    seats = seat_count(games)
    scores = games[[f"score_{p}" for p in range(seats)]].to_numpy()
    tied = (scores == scores.max(axis=1, keepdims=True)).sum(axis=1) > 1
    decided = tied & (games["winner"].to_numpy() >= 0)
    first_won = decided & (games["winner"].to_numpy() == games["first_player"].to_numpy())
    return pd.DataFrame([{"games": len(games), "tied on points": int(tied.sum()),
                          "drawn": int((tied & ~decided).sum()), "decided by the tie-break": int(decided.sum()),
                          "of which won by the first player": int(first_won.sum())}], index=pd.Index(["all games"]))
