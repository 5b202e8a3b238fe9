"""The tables of a balance report, computed from a results folder's games and decisions tables.

Every function here is pure: DataFrames in, a DataFrame out, nothing printed or drawn (`analysis/report.py`
turns them into HTML and figures). Conventions shared by all tables:
- A seat's outcome comes from its return, as in `batch.summarize`: above 0 is a win, 0 a draw, below 0 a
  loss; the score rate counts a draw as half a win. Solo games have no outcome, so solo tables leave the
  win columns out.
- Proportions carry a Wilson 95% interval (`ci95_low`, `ci95_high`); means carry a normal-approximation 95%
  interval, mean +- 1.96 standard errors (`mean_low`, `mean_high`), which is slightly too narrow below about
  30 observations and is NaN for a single observation.
- Cave vs Cave tables read the decisions table's `round`, `kind`, `tile` and `room_furnished` columns.
  A player "took" a tile or "furnished" a room in a game when at least one of their decisions in that game
  did so; the win rate and mean score of takers are over those (game, player) pairs, so a player who took a
  tile twice counts once there, while `times_taken` and `mean_round` count every take.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from .batch import wilson_interval

Z95 = 1.96


def seats_of(games: pd.DataFrame) -> int:
    """Number of seats in a games table (its `agent_0`, `agent_1`, ... columns)."""
    seats = 0
    while f"agent_{seats}" in games.columns:
        seats += 1
    return seats


def seat_rows(games: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, seat): game, player, agent, score, ret, points (1/0.5/0; NaN solo), first."""
    seats = seats_of(games)
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


def mean_interval(values: pd.Series | np.ndarray) -> tuple[float, float, float]:
    """Mean of `values` and its normal-approximation 95% interval (NaN bounds for fewer than 2 values)."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return (mean, math.nan, math.nan)
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return (mean, mean - half, mean + half)


def _outcome_columns(points: pd.Series) -> dict[str, float]:
    """Wins, draws, losses, score rate and its Wilson interval for a series of 1/0.5/0 outcomes."""
    n = len(points)
    wins, draws = int((points == 1).sum()), int((points == 0.5).sum())
    rate = (wins + draws / 2) / n if n else math.nan
    low, high = wilson_interval(wins + draws / 2, n)
    return {"wins": wins, "draws": draws, "losses": n - wins - draws, "score_rate": rate,
            "ci95_low": low, "ci95_high": high}


def _score_columns(scores: pd.Series) -> dict[str, float]:
    mean, low, high = mean_interval(scores)
    return {"mean_score": mean, "mean_low": low, "mean_high": high}


def agent_results(games: pd.DataFrame) -> pd.DataFrame:
    """Per agent: games (seat-games), wins/draws/losses, score rate with Wilson interval, mean score with interval.

    Solo runs get only the games and mean score columns. An agent that plays both seats of a game (a mirror
    match) counts both seats.
    """
    rows = seat_rows(games)
    solo = seats_of(games) == 1
    out = []
    for agent, group in rows.groupby("agent", sort=True):
        row: dict[str, object] = {"agent": agent, "games": len(group)}
        if not solo:
            row.update(_outcome_columns(group["points"]))
        row.update(_score_columns(group["score"]))
        out.append(row)
    return pd.DataFrame(out).set_index("agent")


def first_player_advantage(games: pd.DataFrame) -> pd.DataFrame:
    """One row: how the player who made the first decision fared (wins/draws/losses, score rate + Wilson interval).

    A score rate above 0.5 with an interval that excludes 0.5 means moving first is an advantage. Also
    gives the mean score difference first minus others (two players: first minus second) with its interval.
    """
    if seats_of(games) < 2:
        raise ValueError("first-player advantage needs games with at least two seats")
    rows = seat_rows(games)
    first = rows[rows["first"]]
    result: dict[str, object] = {"games": len(first)}
    result.update(_outcome_columns(first["points"]))
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


def _taker_table(events: pd.DataFrame, games: pd.DataFrame, column: str, names: Sequence[str] | None,
                 count_name: str) -> pd.DataFrame:
    """Per value of `column` in the decision rows `events`: counts, mean round, and how its takers fared."""
    rows = seat_rows(games).set_index(["game", "player"])
    solo = seats_of(games) == 1
    n_games = games["game"].nunique()
    events = events[events["game"].isin(games["game"])]
    out = []
    keys = list(names) if names is not None else sorted(events[column].unique())
    grouped = dict(tuple(events.groupby(column, sort=False)))
    for key in keys:
        group = grouped.get(key)
        if group is None:
            if names is None:
                continue
            group = events.iloc[0:0]
        takers = group[["game", "player"]].drop_duplicates()
        fared = rows.loc[pd.MultiIndex.from_frame(takers)] if len(takers) else rows.iloc[0:0]
        row: dict[str, object] = {column: key, count_name: len(group), "per_game": len(group) / n_games,
                                  "games_with": group["game"].nunique() / n_games,
                                  "mean_round": group["round"].mean() if len(group) else math.nan,
                                  "takers": len(takers)}
        if not solo:
            outcome = _outcome_columns(fared["points"])
            row.update({"taker_score_rate": outcome["score_rate"], "ci95_low": outcome["ci95_low"],
                        "ci95_high": outcome["ci95_high"]})
        row.update(_score_columns(fared["score"]))
        out.append(row)
    columns = [column, count_name, "per_game", "games_with", "mean_round", "takers"]
    columns += [] if solo else ["taker_score_rate", "ci95_low", "ci95_high"]
    columns += ["mean_score", "mean_low", "mean_high"]
    return pd.DataFrame(out, columns=columns).set_index(column)


def tile_table(decisions: pd.DataFrame, games: pd.DataFrame, tiles: Sequence[str] | None = None) -> pd.DataFrame:
    """Per action tile: times taken, takes per game, share of games in which it was taken, mean round taken,
    takers ((game, player) pairs), their score rate with Wilson interval (two or more seats) and mean final
    score with interval.

    With `tiles`, every listed tile gets a row in that order (never taken: counts 0, rates NaN); without
    it, only tiles taken at least once appear, sorted by name.
    """
    takes = decisions[decisions["kind"] == "take"]
    return _taker_table(takes, games, "tile", tiles, "times_taken")


def room_table(decisions: pd.DataFrame, games: pd.DataFrame, rooms: Sequence[str] | None = None) -> pd.DataFrame:
    """Per room: times furnished, per game, share of games with it, mean round furnished, and how the players
    who furnished it fared (score rate with Wilson interval, mean final score with interval).

    With `rooms`, every listed room gets a row (never furnished: counts 0, rates NaN); without it, rooms never
    furnished are absent. Correlational: strong positions furnish more, so a high rate is not a room's value.
    """
    furnished = decisions[decisions["room_furnished"].notna()]
    return _taker_table(furnished, games, "room_furnished", rooms, "times_furnished").rename_axis("room")


def first_pick_share(decisions: pd.DataFrame, tiles: Sequence[str] | None = None) -> pd.DataFrame:
    """Tiles x rounds: the share of games in which the tile was the first one taken in that round.

    Each column sums to 1 over the games that reached that round. With `tiles`, rows are those tiles in that
    order (0 where never picked first); otherwise the tiles picked first at least once, by name.
    """
    takes = decisions[decisions["kind"] == "take"].sort_values(["game", "ply"])
    firsts = takes.groupby(["game", "round"], sort=False).head(1)
    counts = pd.crosstab(firsts["tile"], firsts["round"])
    shares = counts / counts.sum(axis=0)
    if tiles is not None:
        shares = shares.reindex(list(tiles), fill_value=0.0)
    shares.index.name = "tile"
    shares.columns.name = "round"
    return shares.astype(float)


def tile_pick_positions(decisions: pd.DataFrame, tiles: Sequence[str] | None = None) -> pd.DataFrame:
    """Tiles x pick position: the share of a tile's takes that were the 1st, 2nd, ... tile taken in their round.

    Each row sums to 1 (tiles never taken: zeros). The pick position counts both players' takes in order, so
    in a round of 2 turns each, positions 1 and 3 belong to the round's starting player.
    """
    takes = decisions[decisions["kind"] == "take"].sort_values(["game", "ply"])
    position = takes.groupby(["game", "round"], sort=False).cumcount() + 1
    counts = pd.crosstab(takes["tile"], position.rename("pick"))
    shares = counts.div(counts.sum(axis=1), axis=0)
    if tiles is not None:
        shares = shares.reindex(list(tiles), fill_value=0.0)
    shares.index.name = "tile"
    return shares.astype(float)


def first_pick_outcomes(decisions: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Per (round, tile picked first in that round): how often, and how the player who picked it fared.

    Columns: picks, share (of the games that reached the round), score_rate with Wilson 95% interval
    (two-player games), mean_score with interval. Answers "is opening round r with this tile good?" in
    the same correlational sense as `tile_table`.
    """
    takes = decisions[decisions["kind"] == "take"].sort_values(["game", "ply"])
    firsts = takes.groupby(["game", "round"], sort=False).head(1)
    rows = seat_rows(games).set_index(["game", "player"])
    solo = seats_of(games) == 1
    reached = firsts.groupby("round")["game"].nunique()
    out = []
    for (rnd, tile), group in firsts.groupby(["round", "tile"]):
        fared = rows.loc[pd.MultiIndex.from_frame(group[["game", "player"]])]
        row: dict[str, object] = {"round": rnd, "tile": tile, "picks": len(group), "share": len(group) / reached[rnd]}
        if not solo:
            outcome = _outcome_columns(fared["points"])
            row.update({"score_rate": outcome["score_rate"], "ci95_low": outcome["ci95_low"],
                        "ci95_high": outcome["ci95_high"]})
        row.update(_score_columns(fared["score"]))
        out.append(row)
    return pd.DataFrame(out).set_index(["round", "tile"])
