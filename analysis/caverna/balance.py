"""Caverna's balance study: seat advantage, what each furnishing tile is worth, action spaces by round,
strategy archetypes and where the points come from.

Every table reads ordinary results folders (games with Caverna's outcome columns, decisions with its decision
columns) and follows `cavekit.analysis.balance`'s conventions: Wilson intervals for proportions, Student-t
intervals for means, all at 95%.

- A seat's **win share** is 1/k when it is one of the k seats with the best score (shared wins split), 0
  otherwise, so the fair value at n players is 1/n (two players: win 1, draw 1/2, loss 0). Its **position**
  is its place in turn order at the start, from 1 (the starting player, who also gets the least food).
  Its **score share** is its score over the table's total (games whose total is not positive are left out).
- **Furnishing bans** (`run_furnishing_bans`) are causal: the same deals, played by the same agents, once as
  the real game and once per (tile, seat) with that seat barred from the tile (`banned_furnishings_p{seat}`);
  see `cavekit.analysis.bans`. The observational tables (takers of an action space, members of an archetype)
  are correlational: strong positions take more, and what they take is not why they are strong.
- **Archetypes** (`archetypes`) cluster the end positions of (game, seat) pairs by k-means on standardised
  features: the points of each scoring category and how often the seat forged, looted on expeditions and
  furnished. Each cluster is named by its two features most above the average (penalties left out).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.cluster.vq import kmeans2

from ...core.api import ConfigError
from ...core.caverna.rules import rules
from ..balance import seat_rows
from ..bans import BASELINE, access_effects, ban_folder, read_experiment, run_bans, write_or_check_experiment
from ..results import load_games, load_results
from ..stats import mean_interval, seat_count, wilson_interval
from .outcomes import CATEGORIES

EXPERIMENT_FILE = "furnishing_bans.json"
# A tile built by fewer than 1% of the baseline's seats is a placebo: banning it can only re-draw the game.
PLACEBO_RATE = 0.01
STYLE_KINDS: tuple[str, ...] = ("forge", "loot", "furnish")   # move kinds counted as archetype features


def furnishing_ids() -> list[str]:
    """The ids of the furnishing tiles that can be furnished, in the rules data's order."""
    return [f.id for f in rules().furnishings]


def furnishing_names() -> dict[str, str]:
    """Furnishing id -> printed name, for labels; tiles that share a name (the two Simple dwellings) add their
    cost, e.g. "Simple dwelling (4 wood, 2 stone)"."""
    tiles = rules().furnishings
    shared = {f.name for f in tiles if sum(g.name == f.name for g in tiles) > 1}
    return {f.id: f"{f.name} ({', '.join(f'{n} {good}' for good, n in f.cost)})" if f.name in shared else f.name
            for f in tiles}


def space_names() -> dict[str, str]:
    """Action space id -> printed name (the 1-3 and 4-7 boards' versions of a space share a name)."""
    return {sid: space.name for sid, space in rules().action_spaces.items()}


# ------------------------------------------------------------------------------------------------
# One row per (game, seat)


def seat_outcomes(games: pd.DataFrame) -> pd.DataFrame:
    """`seat_rows(games)` plus position (turn order at the start), win_share, score_share, dwarfs and one
    column per scoring category (its points)."""
    rows = seat_rows(games)
    seats = seat_count(games)
    by_game = games.set_index("game")
    rows["position"] = (rows["player"] - by_game.loc[rows["game"], "first_player"].to_numpy()) % seats + 1
    best = rows.groupby("game")["score"].transform("max")
    at_best = rows["score"] == best
    rows["win_share"] = np.where(at_best, 1.0 / at_best.groupby(rows["game"]).transform("sum"), 0.0)
    total = rows.groupby("game")["score"].transform("sum").astype(float)
    rows["score_share"] = np.where(total > 0, rows["score"] / total.where(total > 0), np.nan)
    if "dwarfs_0" in games.columns:
        rows["dwarfs"] = [int(by_game.at[g, f"dwarfs_{p}"]) for g, p in zip(rows["game"], rows["player"])]
        points = np.stack([np.asarray(by_game.at[g, f"category_points_{p}"], dtype=float)
                           for g, p in zip(rows["game"], rows["player"])]) if len(rows) else \
            np.zeros((0, len(CATEGORIES)))
        for k, category in enumerate(CATEGORIES):
            rows[category] = points[:, k]
    return rows


def _rate_columns(values: pd.Series, prefix: str) -> dict[str, float]:
    """A mean with its Student-t interval, as `<prefix>`, `<prefix>_low`, `<prefix>_high`."""
    mean, low, high = mean_interval(values)
    return {prefix: mean, f"{prefix}_low": low, f"{prefix}_high": high}


def _win_columns(shares: pd.Series) -> dict[str, float]:
    """The mean win share with a Wilson interval (a share is a win counted fractionally)."""
    n = len(shares)
    wins = float(shares.sum())
    low, high = wilson_interval(wins, n)
    return {"win_share": wins / n if n else math.nan, "win_low": low, "win_high": high}


# ------------------------------------------------------------------------------------------------
# Seat advantage


def seat_advantage(games_by_players: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """Per player count and starting position: games, win share with Wilson interval against the fair 1/n,
    mean score and mean margin (own score minus the table's mean) with Student-t intervals."""
    out = []
    for players, games in sorted(games_by_players.items()):
        if players < 2:
            continue
        rows = seat_outcomes(games)
        rows["margin"] = rows["score"] - rows.groupby("game")["score"].transform("mean")
        for position, group in rows.groupby("position", sort=True):
            row: dict[str, object] = {"players": players, "position": int(position), "games": len(group),
                                      "fair": 1.0 / players}
            row.update(_win_columns(group["win_share"]))
            row.update(_rate_columns(group["score"], "mean_score"))
            row.update(_rate_columns(group["margin"], "margin"))
            out.append(row)
    return pd.DataFrame(out).set_index(["players", "position"])


def armed_seats(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """Seats that forged a weapon against the others, in one player count's games: one row with games, seats,
    armed (share of seats that forged), win_share with Wilson interval (the armed seats'), others_win_share,
    fair, armed_score and others_score (means), forges (weapons forged a game) and, by starting position,
    the position that forged most (top_position) and its share of the forges (top_position_share)."""
    rows = seat_outcomes(games)
    forges = decisions[(decisions["kind"] == "forge") & decisions["game"].isin(games["game"])]
    counts = forges.groupby(["game", "player"]).size().rename("forges")
    rows = rows.join(counts, on=["game", "player"]).fillna({"forges": 0})
    armed, others = rows[rows["forges"] > 0], rows[rows["forges"] == 0]
    by_position = rows.groupby("position")["forges"].sum()
    total = float(by_position.sum())
    row: dict[str, object] = {"games": len(games), "seats": len(rows), "armed": len(armed) / len(rows),
                              "fair": 1.0 / seat_count(games)}
    row.update(_win_columns(armed["win_share"]))
    row.update({"others_win_share": others["win_share"].mean() if len(others) else math.nan,
                "armed_score": armed["score"].mean() if len(armed) else math.nan,
                "others_score": others["score"].mean() if len(others) else math.nan,
                "forges": total / len(games),
                "top_position": int(by_position.idxmax()) if total else 0,
                "top_position_share": float(by_position.max()) / total if total else math.nan})
    return pd.DataFrame([row])


# ------------------------------------------------------------------------------------------------
# Points per category


def category_points(games: pd.DataFrame, by: str = "agent") -> pd.DataFrame:
    """Mean points per scoring category with Student-t intervals, one row per category and value of `by`
    ("agent", "position" or "winners": the best seat of each game against the rest)."""
    rows = seat_outcomes(games)
    if by == "winners":
        rows["winners"] = np.where(rows["win_share"] > 0, "winners", "the others")
    elif by not in ("agent", "position"):
        raise ConfigError(f"category points by {by!r}: choose agent, position or winners")
    out = []
    for key, group in rows.groupby(by, sort=True):
        for category in CATEGORIES:
            row: dict[str, object] = {by: key, "category": category, "n": len(group)}
            row.update(_rate_columns(group[category], "points"))
            out.append(row)
    return pd.DataFrame(out).set_index([by, "category"])


# ------------------------------------------------------------------------------------------------
# Action spaces by round


def action_space_rates(decisions: pd.DataFrame, games: pd.DataFrame, by_round: bool = True) -> pd.DataFrame:
    """Per action space (by printed name) and round: how often a dwarf was placed there, and how the seats
    that did fared: win share with Wilson interval, score share with Student-t interval.

    A seat that used a space twice in a round counts once among its takers. `fair` is 1/n, the win share of
    a seat chosen at random; the mean score share of a random seat is 1/n too. Correlational.
    """
    rows = seat_outcomes(games).set_index(["game", "player"])
    places = decisions[(decisions["kind"] == "place") & decisions["game"].isin(games["game"])]
    places = places.assign(space_name=places["space"].map(space_names()))
    keys = ["space_name", "round"] if by_round else ["space_name"]
    n = seat_count(games)
    out = []
    for key, group in places.groupby(keys, sort=True):
        takers = group[["game", "player"]].drop_duplicates()
        fared = rows.loc[pd.MultiIndex.from_frame(takers)]
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, object] = dict(zip(["space", "round"], key))
        row.update({"placements": len(group), "takers": len(takers), "per_game": len(group) / len(games),
                    "fair": 1.0 / n})
        row.update(_win_columns(fared["win_share"]))
        row.update(_rate_columns(fared["score_share"].dropna(), "score_share"))
        out.append(row)
    index = ["space", "round"] if by_round else ["space"]
    return pd.DataFrame(out).set_index(index)


def furnishing_rates(decisions: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Per furnishing tile: times furnished, share of seats that furnished it, mean round, and the win share
    (Wilson) and mean score (Student-t) of those seats. Correlational; the bans give the causal value."""
    rows = seat_outcomes(games).set_index(["game", "player"])
    built = decisions[(decisions["kind"] == "furnish") & decisions["game"].isin(games["game"])]
    names = furnishing_names()
    out = []
    for fid, group in built.groupby("furnishing", sort=True):
        takers = group[["game", "player"]].drop_duplicates()
        fared = rows.loc[pd.MultiIndex.from_frame(takers)]
        row: dict[str, object] = {"furnishing": fid, "name": names.get(fid, fid), "times": len(group),
                                  "build_rate": len(takers) / len(rows), "mean_round": group["round"].mean()}
        row.update(_win_columns(fared["win_share"]))
        row.update(_rate_columns(fared["score"], "mean_score"))
        out.append(row)
    return pd.DataFrame(out).set_index("furnishing").sort_values("build_rate", ascending=False)


# ------------------------------------------------------------------------------------------------
# Furnishing bans (causal)


def build_indicators(games: pd.DataFrame, decisions: pd.DataFrame, tiles: Sequence[str]) -> pd.DataFrame:
    """`seat_rows(games)` plus one 0/1 column per tile id: whether that seat furnished it in that game."""
    rows = seat_rows(games)
    built = decisions[(decisions["kind"] == "furnish") & decisions["furnishing"].isin(list(tiles))]
    pairs = set(zip(built["game"], built["player"], built["furnishing"]))
    for tile in tiles:
        rows[tile] = [int((g, p, tile) in pairs) for g, p in zip(rows["game"], rows["player"])]
    return rows


def checked_tiles(tiles: Sequence[str] | None) -> list[str]:
    """The furnishing ids to ban (default: all 48), refused with the known ids when one is unknown."""
    known = furnishing_ids()
    tiles = list(dict.fromkeys(tiles if tiles is not None else known))
    unknown = [t for t in tiles if t not in known]
    if unknown:
        raise ConfigError(f"unknown furnishing id(s) {', '.join(unknown)}; furnishing ids: {', '.join(known)}")
    return tiles


def run_furnishing_bans(agent: str, players: int, games: int, seed: int, out: str | Path,
                        tiles: Sequence[str] | None = None, seats: Sequence[int] | None = None, jobs: int = 1,
                        progress: bool = True, backend: str = "loky", chunk_size: int | None = None) -> Path:
    """Play the baseline and one run per (tile, seat) ban, `games` games each, `agent` in every seat.

    `tiles`: furnishing ids (default: all 48); `seats`: the seats barred in turn (default: every seat).
    Results go to `out/baseline` and `out/ban_<tile>_p<seat>`; calling again with the same arguments resumes.
    """
    out = Path(out)
    tiles = checked_tiles(tiles)
    seats = list(seats if seats is not None else range(players))
    if not seats or any(not 0 <= s < players for s in seats):
        raise ConfigError(f"seats {seats} are not seats of a {players}-player game (0 to {players - 1})")
    spec = {"agent": agent, "players": players, "games": games, "seed": seed, "tiles": tiles, "seats": seats}
    write_or_check_experiment(out, EXPERIMENT_FILE, spec, "furnishing-ban")
    return run_bans("caverna", [agent] * players, games, seed, out, tiles, seats, "banned_furnishings_p{seat}",
                    params={"players": players}, jobs=jobs, progress=progress, backend=backend,
                    chunk_size=chunk_size, label="furnishing bans")


def furnishing_ban_effects(out: str | Path, placebo_rate: float | None = PLACEBO_RATE) -> pd.DataFrame:
    """Per tile of a `run_furnishing_bans` folder: the value of access to it, paired game by game
    (`bans.access_effects`: access_score, access_points, access_margin, build_rate, per-build values), against
    the placebo tiles' runs (built by fewer than `placebo_rate` of the seats) when there are two or more."""
    out = Path(out)
    spec = read_experiment(out, EXPERIMENT_FILE, ("agent", "players", "games", "seed", "tiles", "seats"))
    base_games, base_decisions = load_results(out / BASELINE)
    banned = {(tile, seat): load_games(ban_folder(out, tile, seat)) for tile in spec["tiles"] for seat in spec["seats"]}
    baseline = build_indicators(base_games, base_decisions, spec["tiles"])
    return access_effects(baseline, banned, furnishing_names(), "furnishing", placebo_rate=placebo_rate)


# ------------------------------------------------------------------------------------------------
# Strategy archetypes


def style_features(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """`seat_outcomes(games)` plus, per `STYLE_KINDS` kind, how many such moves the seat made."""
    rows = seat_outcomes(games)
    moves = decisions[decisions["kind"].isin(STYLE_KINDS) & decisions["game"].isin(games["game"])]
    counts = pd.crosstab([moves["game"], moves["player"]], moves["kind"]).reindex(columns=list(STYLE_KINDS),
                                                                                   fill_value=0)
    joined = rows.set_index(["game", "player"]).join(counts, how="left").fillna({k: 0 for k in STYLE_KINDS})
    return joined.reset_index()


def archetypes(games: pd.DataFrame, decisions: pd.DataFrame, clusters: int = 5,
               seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Cluster the (game, seat) end positions into `clusters` archetypes (k-means, seeded).

    Returns (members, summary): members is `style_features` with `archetype` (its label); summary has, per
    archetype, its label, seats and share, win share with Wilson interval (two or more seats), mean score
    with Student-t interval, mean dwarfs, and the mean of every feature.
    """
    rows = style_features(games, decisions)
    features = list(CATEGORIES) + list(STYLE_KINDS)
    x = rows[features].to_numpy(float)
    spread = x.std(axis=0)
    z = (x - x.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    k = min(clusters, len(rows))
    if k < 1:
        raise ConfigError("archetypes need at least one finished game")
    centroids, labels = kmeans2(z, k, seed=np.random.default_rng(seed), minit="++")
    # Named by the two features most above average, among those that earn points: a penalty category
    # (missing animal types, unused spaces, begging) is never positive, and "little begging" names no plan.
    earns = np.array([x[:, i].max() > 0 for i in range(len(features))])
    names: list[str] = []
    for c in range(k):
        top = [i for i in np.argsort(-centroids[c]) if earns[i]][:2]
        name = " + ".join(features[i].replace("_", " ") for i in top)
        names.append(name if name not in names else f"{name} ({names.count(name) + 1})")
    rows["archetype"] = [names[c] for c in labels]
    out = []
    solo = seat_count(games) == 1
    for c in range(k):
        group = rows[labels == c]
        if not len(group):
            continue
        row: dict[str, object] = {"archetype": names[c], "seats": len(group), "share": len(group) / len(rows)}
        if not solo:
            row.update(_win_columns(group["win_share"]))
        row.update(_rate_columns(group["score"], "mean_score"))
        row["dwarfs"] = group["dwarfs"].mean()
        row.update({f: group[f].mean() for f in features})
        out.append(row)
    summary = pd.DataFrame(out).set_index("archetype").sort_values("mean_score", ascending=False)
    return rows, summary
