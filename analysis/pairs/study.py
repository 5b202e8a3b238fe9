"""Analyses of The Cave (Pairs deck) results folders: seat advantage, the value of hand information, and which
ranks decide games, each with 95% intervals (the notebook `notebooks/pairs_analysis.ipynb` reads like a report
of these).

- Seat advantage. With a random first dealer every seat number is the same seat on average, so a seat is
  counted by its position in the order of play: position 0 plays first in the first round (the first
  dealer's left neighbour), position n - 1 is the first dealer. The deal passes left every round, so with
  one round per player every position leads exactly one round; what differs is when. A match's win is
  shared among co-winners (1/k each), and a seat's win share is compared with the fair 1/n (Wilson intervals).
- Value of hand information: the same searcher, once fair (IS-MCTS, hands hidden) and once cheating (every
  hand visible), against the same opponent. Runs with the same master seed deal game i the same first
  round with the same seats, so game i of one is paired with game i of the other and the difference is
  taken game by game (paired bootstrap); otherwise the two runs are compared as independent samples.
- Ranks: per rank, how many more majority points the match winner took than the average other player
  (`rank_points_{p}` columns, see `analysis/outcomes.py`), and a logistic regression of winning on who took
  each rank's majority. Regressing on the point differences themselves is degenerate: the points of the ten
  ranks add up to the score, which decides the winner, so the data are perfectly separated.

Intervals (from `analysis/stats.py`) are Wilson (proportions), percentile bootstrap (means) and Wald with
cluster-robust (by game) standard errors (the regression).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ...core.api import ConfigError
from ...core.pairs.rules import NUM_RANKS
from ..results import load_games, read_manifest
from ..stats import Z95, bootstrap_difference, bootstrap_means, percentile_interval, seat_count, wilson_interval


# ----------------------------------------------------------------------------------------------------
# Reading games tables

def load_pairs_games(folder: str | Path) -> pd.DataFrame:
    """The games table of a results folder of The Cave (refuses a folder of another game)."""
    manifest = read_manifest(folder)
    if manifest["game"] != "pairs":
        raise ConfigError(f"{folder} holds {manifest['game']!r} games, not The Cave ('pairs')")
    return load_games(folder)


def players_of(games: pd.DataFrame) -> int:
    """Number of seats in a games table of The Cave (`stats.seat_count`), refusing fewer than two."""
    seats = seat_count(games)
    if seats < 2:
        raise ConfigError("a games table of The Cave needs at least the columns agent_0 and agent_1")
    return seats


def _matrix(games: pd.DataFrame, prefix: str) -> np.ndarray:
    n = players_of(games)
    return np.column_stack([games[f"{prefix}_{p}"].to_numpy(dtype=float) for p in range(n)])


def win_credits(games: pd.DataFrame) -> np.ndarray:
    """Per game and seat, the share of the match win: 1 for a sole winner, 1/k for each of k co-winners.

    Read from the returns: every non-winner gets -1/(n - 1), every winner more (`core/api.shared_win_returns`).
    """
    returns = _matrix(games, "return")
    n = returns.shape[1]
    winners = returns > -1.0 / (n - 1) + 1e-9
    counts = winners.sum(axis=1, keepdims=True)
    if (counts == 0).any():
        raise ConfigError("some games have no winner in their returns; are these finished games of The Cave?")
    return winners / counts


def rank_points(games: pd.DataFrame) -> np.ndarray:
    """Majority points per game, seat and rank (shape games x players x 10) from the `rank_points_{p}` columns."""
    n = players_of(games)
    missing = [f"rank_points_{p}" for p in range(n) if f"rank_points_{p}" not in games.columns]
    if missing:
        raise ConfigError(f"the games table has no {', '.join(missing)} column(s): it was written before cavekit "
                          "recorded rank points; play the run again into a new folder")
    points = np.stack([np.stack([np.asarray(v, dtype=float) for v in games[f"rank_points_{p}"]])
                       for p in range(n)], axis=1)
    if points.shape[2] != NUM_RANKS:
        raise ConfigError(f"rank points should list {NUM_RANKS} ranks per seat, found {points.shape[2]}")
    return points


# ----------------------------------------------------------------------------------------------------
# Seat advantage

def seat_positions(games: pd.DataFrame) -> np.ndarray:
    """Per game and seat, the seat's position in the order of play (0 = plays first in the first round)."""
    n = players_of(games)
    first = games["first_player"].to_numpy(dtype=int)
    if ((first < 0) | (first >= n)).any():
        raise ConfigError(f"first_player should be a seat from 0 to {n - 1} in every game")
    return (np.arange(n)[None, :] - first[:, None]) % n


def seat_advantage(games: pd.DataFrame, by: str = "position") -> pd.DataFrame:
    """Win share per seat with a Wilson 95% interval against the fair 1/n.

    `by="position"` counts seats in the order of play (see the module docstring); `by="seat"` by seat number.
    """
    if by not in ("position", "seat"):
        raise ConfigError(f"by={by!r} is not allowed; allowed values: 'position', 'seat'")
    credits = win_credits(games)
    n = credits.shape[1]
    where = seat_positions(games) if by == "position" else np.broadcast_to(np.arange(n), credits.shape)
    rows = []
    for k in range(n):
        wins = float(credits[where == k].sum())
        count = int((where == k).sum())
        low, high = wilson_interval(wins, count)
        rows.append({"players": n, by: k, "games": count, "wins": wins, "win_share": wins / count,
                     "ci95_low": low, "ci95_high": high, "fair": 1 / n, "excess": wins / count - 1 / n,
                     "fair_outside_interval": not low <= 1 / n <= high})
    return pd.DataFrame(rows).set_index(["players", by])


def _checked_runs(runs: Mapping[int, pd.DataFrame]) -> list[tuple[int, pd.DataFrame]]:
    """The runs in player-count order, each checked to have that many seats."""
    for players, games in runs.items():
        if players_of(games) != players:
            raise ConfigError(f"the run given for {players} players has {players_of(games)} seats")
    return sorted(runs.items())


def seat_advantage_by_players(runs: Mapping[int, pd.DataFrame], by: str = "position") -> pd.DataFrame:
    """`seat_advantage` of several runs (one per player count), stacked."""
    return pd.concat([seat_advantage(games, by) for _, games in _checked_runs(runs)])


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with `df` (a positive integer) degrees of freedom, in closed form."""
    if df < 1 or int(df) != df:
        raise ValueError(f"degrees of freedom must be a positive integer, not {df!r}")
    if statistic <= 0:
        return 1.0
    half = statistic / 2
    if df % 2 == 0:
        # Q(k, x) = e^-x * sum_{i<k} x^i / i! for integer k = df / 2.
        term = total = math.exp(-half)
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, total)
    # Half-integer shape: erfc for the first half, then the same recurrence in steps of one.
    total = math.erfc(math.sqrt(half))
    term = math.exp(-half) / math.sqrt(math.pi * half)
    for i in range(1, (df + 1) // 2):
        term *= half / (i - 0.5)
        total += term
    return min(1.0, total)


def seat_uniformity(runs: Mapping[int, pd.DataFrame], by: str = "position") -> pd.DataFrame:
    """Per player count, a chi-square test that every seat wins 1/n of the matches (one p-value for all seats).

    The per-seat intervals of `seat_advantage` are many at once (20 for 2 to 6 players), so one of them
    missing 1/n by chance is expected; this asks the question once per player count.
    """
    rows = []
    for players, games in _checked_runs(runs):
        table = seat_advantage(games, by)
        observed = table["wins"].to_numpy()
        expected = table["games"].to_numpy() / players
        statistic = float(((observed - expected) ** 2 / expected).sum())
        rows.append({"players": players, "games": len(games), "chi_square": statistic, "df": players - 1,
                     "p_value": chi_square_sf(statistic, players - 1),
                     "largest_excess": float(table["excess"].abs().max())})
    return pd.DataFrame(rows).set_index("players")


# ----------------------------------------------------------------------------------------------------
# Value of hand information

@dataclass(frozen=True)
class SubjectGames:
    """One agent's games in a run: its win credit and score margin over the others, per game index."""

    spec: str
    games: np.ndarray         # game indices
    credit: np.ndarray        # share of the match win
    margin: np.ndarray        # its score minus the mean score of the other seats


def subject_games(games: pd.DataFrame, spec: str) -> SubjectGames:
    """`spec`'s results in every game of a run where it holds exactly one seat."""
    n = players_of(games)
    agents = np.column_stack([games[f"agent_{p}"].to_numpy(dtype=object) for p in range(n)])
    mine = agents == spec
    if (mine.sum(axis=1) != 1).any():
        raise ConfigError(f"agent {spec!r} should hold exactly one seat in every game of the run")
    seat = mine.argmax(axis=1)
    rows = np.arange(len(games))
    scores = _matrix(games, "score")
    others = (scores.sum(axis=1) - scores[rows, seat]) / (n - 1)
    return SubjectGames(spec=spec, games=games["game"].to_numpy(dtype=int), credit=win_credits(games)[rows, seat],
                        margin=scores[rows, seat] - others)


def _differing_agent(fair: dict, cheating: dict) -> tuple[str, str]:
    """The agent spec in which two runs differ (the searcher); they must share every other seat."""
    a, b = fair["agents"], cheating["agents"]
    differ = [k for k in range(len(a)) if k >= len(b) or a[k] != b[k]]
    if len(a) != len(b) or len(differ) != 1:
        raise ConfigError(f"the two runs should differ in exactly one agent (the searcher) and share the "
                          f"opponents; their agents are {a} and {b}")
    return a[differ[0]], b[differ[0]]


def information_value(fair_folder: str | Path, cheating_folder: str | Path, resamples: int = 4000,
                      seed: int = 0) -> pd.DataFrame:
    """Win share and score margin of the fair and the cheating searcher and their difference, with 95% intervals.

    The two folders must hold runs of the same game against the same opponents that differ only in the
    searcher. Runs with the same master seed, parameters and number of games are paired game by game.
    """
    fair_manifest, cheat_manifest = read_manifest(fair_folder), read_manifest(cheating_folder)
    fair_spec, cheat_spec = _differing_agent(fair_manifest, cheat_manifest)
    if fair_manifest["params"] != cheat_manifest["params"]:
        raise ConfigError("the two runs were played with different game parameters: "
                          f"{fair_manifest['params']} and {cheat_manifest['params']}")
    fair = subject_games(load_pairs_games(fair_folder), fair_spec)
    cheat = subject_games(load_pairs_games(cheating_folder), cheat_spec)
    paired = (fair_manifest["seed"] == cheat_manifest["seed"] and np.array_equal(fair.games, cheat.games))
    return compare_subjects(fair, cheat, paired, resamples, seed)


def compare_subjects(fair: SubjectGames, cheat: SubjectGames, paired: bool, resamples: int = 4000,
                     seed: int = 0) -> pd.DataFrame:
    """Each measure (win share, score margin) for both agents and cheat minus fair, with 95% intervals."""
    if paired and not np.array_equal(fair.games, cheat.games):
        raise ConfigError("paired runs must hold the same game indices")
    rng = np.random.default_rng(seed)
    rows = []
    for measure in ("credit", "margin"):
        a, b = getattr(fair, measure), getattr(cheat, measure)
        row: dict[str, object] = {"measure": "win share" if measure == "credit" else "score margin (points)",
                                  "fair": a.mean(), "cheating": b.mean(), "difference": b.mean() - a.mean(),
                                  "paired": paired, "games_fair": a.size, "games_cheating": b.size}
        for name, values in (("fair", a), ("cheating", b)):
            if measure == "credit":
                low, high = wilson_interval(float(values.sum()), values.size)
            else:
                low, high = percentile_interval(bootstrap_means(values, resamples, rng))
            row[f"{name}_low"], row[f"{name}_high"] = float(low), float(high)
        diffs = bootstrap_difference(a, b, paired, resamples, rng)
        row["correlation"] = (float(np.corrcoef(a, b)[0, 1]) if paired and a.std() > 0 and b.std() > 0
                              else math.nan)
        row["difference_low"], row["difference_high"] = percentile_interval(diffs)
        rows.append(row)
    return pd.DataFrame(rows).set_index("measure")


# ----------------------------------------------------------------------------------------------------
# Which ranks decide games

def _sole_winners(games: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Row numbers of the games with one winner, and that winner's seat."""
    credits = win_credits(games)
    sole = np.flatnonzero(credits.max(axis=1) == 1.0)
    return sole, credits[sole].argmax(axis=1)


def rank_margins(games: pd.DataFrame, resamples: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Per rank: the winner's majority points minus the other seats' mean, averaged over games with one winner.

    Also each rank's share of the winner's whole margin, and the share of games in which the winner took the
    rank's majority alone. Intervals: percentile bootstrap over games (Wilson for the share of games).
    """
    points = rank_points(games)
    sole, winner = _sole_winners(games)
    if sole.size == 0:
        raise ConfigError("no game has a single winner, so no rank margins can be measured")
    n = points.shape[1]
    mine = points[sole, winner]                                   # games x ranks
    others = (points[sole].sum(axis=1) - mine) / (n - 1)
    margins = mine - others
    best_other = np.where(np.arange(n)[None, :, None] == winner[:, None, None], -np.inf, points[sole]).max(axis=1)
    took = mine > best_other
    boot_low, boot_high = percentile_interval(bootstrap_means(margins, resamples, np.random.default_rng(seed)))
    total = margins.sum(axis=1).mean()
    rows = []
    for r in range(NUM_RANKS):
        low, high = wilson_interval(float(took[:, r].sum()), sole.size)
        rows.append({"rank": r + 1, "games": sole.size, "mean_margin": margins[:, r].mean(),
                     "ci95_low": boot_low[r], "ci95_high": boot_high[r],
                     "share_of_margin": margins[:, r].mean() / total if total else math.nan,
                     "winner_took_rank": took[:, r].mean(), "took_low": low, "took_high": high})
    return pd.DataFrame(rows).set_index("rank")


def rank_margins_by_players(runs: Mapping[int, pd.DataFrame], resamples: int = 4000,
                            seed: int = 0) -> pd.DataFrame:
    """`rank_margins` of several runs (one per player count), stacked with a `players` index level."""
    return pd.concat({players: rank_margins(games, resamples, seed) for players, games in _checked_runs(runs)},
                     names=["players"])


@dataclass(frozen=True)
class LogisticFit:
    """A fitted logistic regression: coefficients, their standard errors, and how they were estimated."""

    names: list[str]
    coef: np.ndarray
    se: np.ndarray
    iterations: int
    clustered: bool


def fit_logistic(x: np.ndarray, y: np.ndarray, names: Sequence[str], groups: np.ndarray | None = None,
                 max_iterations: int = 50, tolerance: float = 1e-10) -> LogisticFit:
    """Maximum-likelihood logistic regression by Newton's method (an intercept is added as the first term).

    Standard errors are cluster-robust by `groups` when given (rows of one game are not independent), model
    based otherwise. Perfectly separated data have no finite estimate and are refused with a clear error.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 2 or y.shape != (x.shape[0],) or len(names) != x.shape[1]:
        raise ConfigError("fit_logistic needs a rows x terms matrix, one 0/1 outcome per row and one name per term")
    design = np.column_stack([np.ones(len(y)), x])
    beta = np.zeros(design.shape[1])
    for iteration in range(1, max_iterations + 1):
        p = 1 / (1 + np.exp(-(design @ beta)))
        weights = p * (1 - p)
        hessian = design.T @ (design * weights[:, None])
        gradient = design.T @ (y - p)
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            raise ConfigError("the regression terms are collinear (or a term never varies); no unique fit") from None
        beta = beta + step
        if np.abs(beta).max() > 30:
            raise ConfigError("the outcome is perfectly (or almost perfectly) separated by the terms, so the "
                              "logistic coefficients have no finite estimate")
        if np.abs(step).max() < tolerance:
            break
    else:
        raise ConfigError(f"the logistic regression did not converge in {max_iterations} iterations")
    p = 1 / (1 + np.exp(-(design @ beta)))
    bread = np.linalg.inv(design.T @ (design * (p * (1 - p))[:, None]))
    if groups is None:
        covariance = bread
    else:
        scores = design * (y - p)[:, None]
        _, index = np.unique(np.asarray(groups), return_inverse=True)
        summed = np.zeros((index.max() + 1, design.shape[1]))
        np.add.at(summed, index, scores)
        clusters = summed.shape[0]
        correction = clusters / (clusters - 1) if clusters > 1 else 1.0
        covariance = correction * bread @ (summed.T @ summed) @ bread
    return LogisticFit(names=["intercept", *names], coef=beta, se=np.sqrt(np.diag(covariance)),
                       iterations=iteration, clustered=groups is not None)


def rank_majorities(games: pd.DataFrame) -> np.ndarray:
    """Per game, seat and rank: +1 if the seat took more of the rank's majority points over the match than
    every other seat, -1 if another seat took more than it, 0 if it tied for the most (or nobody scored)."""
    points = rank_points(games)
    n = points.shape[1]
    best_other = np.stack([np.delete(points, p, axis=1).max(axis=1) for p in range(n)], axis=1)
    return np.sign(points - best_other)


def rank_model(games: pd.DataFrame) -> pd.DataFrame:
    """Logistic regression of a seat winning the match on who took each rank's majority, with 95% intervals.

    One row per seat of every game with a single winner; term r is +1/0/-1 (took rank r alone / tied / lost
    it, `rank_majorities`). A coefficient is the change in log-odds of winning from taking that rank's
    majority instead of tying for it; standard errors are cluster-robust by game.
    """
    sole, winner = _sole_winners(games)
    majorities = rank_majorities(games)[sole]                       # games x seats x ranks
    n = majorities.shape[1]
    x = majorities.reshape(-1, NUM_RANKS)
    y = (np.arange(n)[None, :] == winner[:, None]).astype(float).reshape(-1)
    groups = np.repeat(sole, n)
    varying = [r for r in range(NUM_RANKS) if np.ptp(x[:, r]) > 0]
    fit = fit_logistic(x[:, varying], y, [f"rank {r + 1}" for r in varying], groups=groups)
    rows = []
    for name, coef, se in zip(fit.names[1:], fit.coef[1:], fit.se[1:]):
        rows.append({"rank": int(name.split()[1]), "coef": coef, "se": se, "ci95_low": coef - Z95 * se,
                     "ci95_high": coef + Z95 * se, "odds_ratio": math.exp(coef)})
    table = pd.DataFrame(rows).set_index("rank").reindex(range(1, NUM_RANKS + 1))
    table["games"] = sole.size
    return table


def rank_model_by_players(runs: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """`rank_model` of several runs (one per player count), stacked with a `players` index level."""
    return pd.concat({players: rank_model(games) for players, games in _checked_runs(runs)}, names=["players"])


# ----------------------------------------------------------------------------------------------------
# Figures

def plot_seat_advantage(table: pd.DataFrame, by: str = "position"):
    """Win share by seat position for each player count, with 95% intervals and the fair 1/n marked."""
    import matplotlib.pyplot as plt

    counts = sorted(table.index.get_level_values("players").unique())
    fig, axes = plt.subplots(1, len(counts), figsize=(3.0 * len(counts), 3.4), sharey=True, squeeze=False)
    for ax, players in zip(axes[0], counts):
        part = table.xs(players, level="players")
        seats = part.index.to_numpy()
        ax.errorbar(seats, part["win_share"], yerr=[part["win_share"] - part["ci95_low"],
                                                    part["ci95_high"] - part["win_share"]],
                    fmt="o", capsize=3, label="win share, 95% interval")
        ax.axhline(1 / players, color="grey", linestyle="--", label="fair share 1/n")
        ax.set_title(f"{players} players ({int(part['games'].iloc[0])} games)")
        ax.set_xticks(seats)
        ax.set_xlabel("position in play order" if by == "position" else "seat number")
    axes[0][0].set_ylabel("share of match wins")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle("The Cave: win share by seat (0 = plays first in round 1)" if by == "position"
                 else "The Cave: win share by seat number")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def plot_information_value(table: pd.DataFrame):
    """Fair vs cheating searcher on win share and score margin, and their difference, with 95% intervals."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, measure, unit in zip(axes, table.index, ("share of match wins", "points per match")):
        row = table.loc[measure]
        names = ["fair (IS-MCTS)", "cheating", "cheating - fair"]
        values = [row["fair"], row["cheating"], row["difference"]]
        lows = [row["fair_low"], row["cheating_low"], row["difference_low"]]
        highs = [row["fair_high"], row["cheating_high"], row["difference_high"]]
        ax.errorbar(range(3), values, yerr=[np.subtract(values, lows), np.subtract(highs, values)], fmt="o",
                    capsize=4)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(range(3))
        ax.set_xticklabels(names)
        ax.set_xlabel("searcher (same budget, same opponent)")
        ax.set_ylabel(unit)
        kind = "paired by game" if row["paired"] else "unpaired"
        ax.set_title(f"{measure} ({kind}, 95% intervals)")
    fig.suptitle("The Cave: what seeing every hand is worth to the same search budget")
    fig.tight_layout()
    return fig


def plot_rank_decisiveness(margins: pd.DataFrame, model: pd.DataFrame):
    """Per rank and player count: the winner's mean margin and the logistic coefficient, with 95% intervals.

    Takes the stacked tables of `rank_margins_by_players` and `rank_model_by_players`.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    counts = sorted(margins.index.get_level_values("players").unique())
    width = 0.6 / max(1, len(counts))
    for k, players in enumerate(counts):
        offset = (k - (len(counts) - 1) / 2) * width
        part = margins.xs(players, level="players")
        axes[0].errorbar(part.index + offset, part["mean_margin"],
                         yerr=[part["mean_margin"] - part["ci95_low"], part["ci95_high"] - part["mean_margin"]],
                         fmt="o", markersize=3, capsize=2, label=f"{players} players")
        fitted = model.xs(players, level="players").dropna(subset=["coef"])
        axes[1].errorbar(fitted.index + offset, fitted["coef"],
                         yerr=[fitted["coef"] - fitted["ci95_low"], fitted["ci95_high"] - fitted["coef"]],
                         fmt="o", markersize=3, capsize=2, label=f"{players} players")
    axes[0].set_ylabel("winner's margin over others' mean (points)")
    axes[0].set_title("Winner's majority-point margin per rank")
    axes[1].set_ylabel("log-odds of winning per majority taken")
    axes[1].set_title("Logistic model: taking a rank's majority")
    for ax in axes:
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xlabel("rank (a rank r has r cards)")
        ax.set_xticks(range(1, NUM_RANKS + 1))
        ax.legend(fontsize=7)
    fig.suptitle("The Cave: which ranks decide matches (95% intervals)")
    fig.tight_layout()
    return fig
