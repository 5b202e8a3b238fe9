"""Cave vs Cave's balance tables: action tiles and rooms, read from the decisions table.

They read the decisions table's `round`, `kind`, `tile` and `room_furnished` columns (Cave vs Cave's
`DECISION_FIELDS`). A player "took" a tile or "furnished" a room in a game when at least one of their decisions
in that game did so; the win rate and mean score of takers are over those (game, player) pairs, so a player who
took a tile twice counts once there, while `times_taken` and `mean_round` count every take. The conventions of
`cavekit.analysis.balance` hold (Wilson intervals for proportions, Student-t intervals for means).
"""
from __future__ import annotations

import math
from typing import Sequence

import pandas as pd

from ..balance import outcome_columns, score_columns, seat_rows
from ..stats import seat_count


def _taker_table(events: pd.DataFrame, games: pd.DataFrame, column: str, names: Sequence[str] | None,
                 count_name: str) -> pd.DataFrame:
    """Per value of `column` in the decision rows `events`: counts, mean round, and how its takers fared."""
    rows = seat_rows(games).set_index(["game", "player"])
    solo = seat_count(games) == 1
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
            outcome = outcome_columns(fared["points"])
            row.update({"taker_score_rate": outcome["score_rate"], "ci95_low": outcome["ci95_low"],
                        "ci95_high": outcome["ci95_high"]})
        row.update(score_columns(fared["score"]))
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
    solo = seat_count(games) == 1
    reached = firsts.groupby("round")["game"].nunique()
    out = []
    for (rnd, tile), group in firsts.groupby(["round", "tile"]):
        fared = rows.loc[pd.MultiIndex.from_frame(group[["game", "player"]])]
        row: dict[str, object] = {"round": rnd, "tile": tile, "picks": len(group), "share": len(group) / reached[rnd]}
        if not solo:
            outcome = outcome_columns(fared["points"])
            row.update({"score_rate": outcome["score_rate"], "ci95_low": outcome["ci95_low"],
                        "ci95_high": outcome["ci95_high"]})
        row.update(score_columns(fared["score"]))
        out.append(row)
    return pd.DataFrame(out).set_index(["round", "tile"])
