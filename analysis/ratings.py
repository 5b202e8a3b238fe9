"""Ratings from game results: a batch Elo fitted as a Bradley-Terry model, with bootstrap intervals.

Sequential Elo updates depend on the order games are fed in; here every rating comes from one
maximum-likelihood fit of the Bradley-Terry model, P(i scores against j) = s_i / (s_i + s_j), over all games
at once. With log-strengths theta_i = log s_i, the Elo rating is `anchor + 400 / ln(10) * theta_i`, so an Elo
difference of 400 * log10(r) means a strength ratio of r. A draw counts as half a win for each side.

Games with more than two players are decomposed pairwise along the final ranking: in each game every pair of
seats is one encounter, won by the seat with the higher return and drawn when the returns are equal (with
win/lose-only returns the losers of a game therefore draw with each other). Encounters from one game are not
independent, which the bootstrap respects by resampling whole games.

Prior: when an agent scores every point (or none) the likelihood has no finite maximum. Every fit therefore
adds, by default, one virtual draw between each agent and a virtual opponent rated at the pool's mean
(`prior_draws=1.0`): half a win and half a loss at theta = 0 while the thetas are constrained to average 0.
It keeps every rating finite and pulls small samples slightly towards the mean; its weight is negligible
once agents have played dozens of games. `prior_draws=0` gives the plain maximum-likelihood fit, which
raises ConfigError when it does not exist.

Intervals are percentile bootstrap intervals: whole games are resampled with replacement and every replicate is
refitted. They describe sampling noise only as far as the games show it: when every game of a pairing ended
the same way (say 6-0), every replicate repeats it and the interval collapses onto the estimate, so a small
one-sided tournament needs more games before its intervals mean much.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from ..core.api import ConfigError
from .stats import percentile_interval, seat_count

ELO_SCALE = 400.0 / math.log(10.0)
DEFAULT_ANCHOR_RATING = 1500.0
# Below this many encounters an agent's bootstrap interval would show the few outcomes it had, not the
# uncertainty (two wins resample to two wins: an interval of width zero), so it gets none.
MIN_ENCOUNTERS_FOR_INTERVAL = 20


def pairwise_outcomes(games: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of seats per game: `row` (position in `games`), `agent_a`, `agent_b`, `points_a`.

    `points_a` is 1 when seat a's return beats seat b's, 0.5 when they are equal, 0 otherwise.
    """
    seats = seat_count(games)
    if seats < 2:
        raise ConfigError(f"ratings need games with at least 2 seats; the table has {seats} agent column(s)")
    missing = [f"return_{p}" for p in range(seats) if f"return_{p}" not in games.columns]
    if missing:
        raise ConfigError(f"results table lacks the column(s) {', '.join(missing)}")
    parts = []
    rows = np.arange(len(games))
    for a in range(seats):
        for b in range(a + 1, seats):
            ret_a = games[f"return_{a}"].to_numpy(dtype=float)
            ret_b = games[f"return_{b}"].to_numpy(dtype=float)
            points = np.where(ret_a > ret_b, 1.0, np.where(ret_a == ret_b, 0.5, 0.0))
            parts.append(pd.DataFrame({"row": rows, "agent_a": games[f"agent_{a}"].to_numpy(),
                                       "agent_b": games[f"agent_{b}"].to_numpy(), "points_a": points}))
    encounters = pd.concat(parts, ignore_index=True)
    same = encounters["agent_a"] == encounters["agent_b"]
    if same.any():
        agent = encounters.loc[same, "agent_a"].iloc[0]
        raise ConfigError(f"agent {agent!r} sits in two seats of one game; ratings need distinct agents per game")
    return encounters.sort_values(["row", "agent_a"], kind="stable").reset_index(drop=True)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _log_likelihood(theta: np.ndarray, points: np.ndarray, prior_draws: float) -> float:
    diff = theta[:, None] - theta[None, :]
    # log sigmoid(x) = -log(1 + exp(-x)), written to stay finite for large |x|
    log_p = -np.logaddexp(0.0, -diff)
    value = float(np.sum(points * log_p))
    if prior_draws:
        value += prior_draws * float(np.sum(-0.5 * np.logaddexp(0.0, -theta) - 0.5 * np.logaddexp(0.0, theta)))
    return value


def mle_exists(points: np.ndarray) -> bool:
    """Whether the plain Bradley-Terry likelihood has a finite maximum: every agent must reach every other
    through a chain of "scored at least half a point against" relations (a strongly connected graph)."""
    k = len(points)
    beats = points > 0
    for start_graph in (beats, beats.T):
        seen = np.zeros(k, dtype=bool)
        seen[0] = True
        frontier = [0]
        while frontier:
            node = frontier.pop()
            for nxt in np.flatnonzero(start_graph[node] & ~seen):
                seen[nxt] = True
                frontier.append(int(nxt))
        if not seen.all():
            return False
    return True


def fit_bradley_terry(points: np.ndarray, prior_draws: float = 1.0, tol: float = 1e-10,
                      max_iter: int = 200) -> np.ndarray:
    """Log-strengths (mean 0) maximising the Bradley-Terry likelihood; `points[i, j]` is what i scored
    against j (wins plus half the draws). See the module docstring for the `prior_draws` regularisation."""
    points = np.asarray(points, dtype=float)
    k = points.shape[0]
    if points.shape != (k, k) or k < 2:
        raise ConfigError(f"points must be a square matrix over at least 2 agents, got shape {points.shape}")
    if (points < 0).any() or np.diag(points).any():
        raise ConfigError("points must be non-negative with a zero diagonal (nobody plays themselves)")
    if prior_draws < 0:
        raise ConfigError(f"prior_draws must be at least 0, not {prior_draws}")
    if prior_draws == 0 and not mle_exists(points):
        raise ConfigError("the maximum-likelihood ratings do not exist (an agent or group of agents scored every "
                          "point, or none, against the rest); use prior_draws > 0")
    encounters = points + points.T
    # Newton's method on the sum-zero subspace: theta = basis @ phi, theta_{k-1} = -sum(phi)
    basis = np.vstack([np.eye(k - 1), -np.ones((1, k - 1))])
    theta = np.zeros(k)
    current = _log_likelihood(theta, points, prior_draws)
    for _ in range(max_iter):
        p = _sigmoid(theta[:, None] - theta[None, :])
        grad = points.sum(axis=1) - (encounters * p).sum(axis=1)
        weight = encounters * p * p.T
        hess = weight - np.diag(weight.sum(axis=1))
        if prior_draws:
            grad += prior_draws * (0.5 - _sigmoid(theta))
            hess -= np.diag(prior_draws * _sigmoid(theta) * _sigmoid(-theta))
        step_phi = np.linalg.solve(basis.T @ hess @ basis, -(basis.T @ grad))
        step = basis @ step_phi
        scale = 1.0
        while True:
            candidate = theta + scale * step
            value = _log_likelihood(candidate, points, prior_draws)
            if value >= current - 1e-12 or scale < 1e-8:
                break
            scale *= 0.5
        theta, current = candidate, value
        if np.max(np.abs(scale * step)) < tol:
            return theta - theta.mean()
    raise ConfigError(f"the Bradley-Terry fit did not converge in {max_iter} Newton steps")


def points_matrix(encounters: pd.DataFrame, agents: Sequence[str], weights: np.ndarray | None = None) -> np.ndarray:
    """`points[i, j]`: what agent i scored against agent j over the pairwise outcomes (optionally weighted)."""
    index = {agent: i for i, agent in enumerate(agents)}
    a = encounters["agent_a"].map(index).to_numpy()
    b = encounters["agent_b"].map(index).to_numpy()
    return _points_from_codes(a, b, encounters["points_a"].to_numpy(dtype=float), len(agents), weights)


def _points_from_codes(a: np.ndarray, b: np.ndarray, points_a: np.ndarray, k: int,
                       weights: np.ndarray | None) -> np.ndarray:
    w = np.ones(len(a)) if weights is None else weights
    scored = np.bincount(a * k + b, weights=w * points_a, minlength=k * k)
    conceded = np.bincount(b * k + a, weights=w * (1.0 - points_a), minlength=k * k)
    return (scored + conceded).reshape(k, k)


def _anchored(theta: np.ndarray, agents: Sequence[str], anchor: str | None) -> np.ndarray:
    """Shift log-strengths so they average 0, or so the anchor agent sits at 0."""
    if anchor is None:
        return theta - theta.mean(axis=-1, keepdims=True)
    i = list(agents).index(anchor)
    return theta - theta[..., i:i + 1]


def rate(games: pd.DataFrame, n_boot: int = 1000, seed: int = 0, prior_draws: float = 1.0,
         anchor: str | None = None, anchor_rating: float = DEFAULT_ANCHOR_RATING, group: str | None = None,
         confidence: float = 0.95) -> pd.DataFrame:
    """Elo and Bradley-Terry ratings of every agent in a results table, with percentile bootstrap intervals.

    Elo ratings average `anchor_rating` (or the agent `anchor` sits at it); Bradley-Terry strengths have
    geometric mean 1 (or the anchor's is 1). The bootstrap resamples whole games with replacement from
    `numpy.random.default_rng(seed)`, within each value of the column `group` when given (a tournament keeps
    every pairing's size), refits each of the `n_boot` replicates and reports the percentile interval. An
    agent with fewer than `MIN_ENCOUNTERS_FOR_INTERVAL` encounters gets no interval (NaN): a bootstrap of a
    few games is narrower than those games allow.
    """
    if n_boot < 0:
        raise ConfigError(f"n_boot must be at least 0, not {n_boot}")
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    encounters = pairwise_outcomes(games)
    agents = sorted(set(encounters["agent_a"]) | set(encounters["agent_b"]))
    if anchor is not None and anchor not in agents:
        raise ConfigError(f"anchor agent {anchor!r} played no game here; agents: {', '.join(agents)}")
    if len(agents) < 2:
        raise ConfigError("ratings need at least 2 different agents")
    k = len(agents)
    index = {agent: i for i, agent in enumerate(agents)}
    a = encounters["agent_a"].map(index).to_numpy()
    b = encounters["agent_b"].map(index).to_numpy()
    points_a = encounters["points_a"].to_numpy(dtype=float)
    theta = _anchored(fit_bradley_terry(_points_from_codes(a, b, points_a, k, None), prior_draws), agents, anchor)

    table = pd.DataFrame({"agent": agents, "elo": anchor_rating + ELO_SCALE * theta, "bt_strength": np.exp(theta)})
    if n_boot:
        replicates = _bootstrap(games, encounters["row"].to_numpy(), a, b, points_a, k, n_boot, seed, prior_draws,
                                group)
        replicates = _anchored(replicates, agents, anchor)
        low, high = percentile_interval(replicates, confidence)
        table["elo_ci_low"] = anchor_rating + ELO_SCALE * low
        table["elo_ci_high"] = anchor_rating + ELO_SCALE * high
        table["bt_ci_low"] = np.exp(low)
        table["bt_ci_high"] = np.exp(high)
        met = np.bincount(np.concatenate([a, b]), minlength=k)
        few = met < MIN_ENCOUNTERS_FOR_INTERVAL
        table.loc[few, ["elo_ci_low", "elo_ci_high", "bt_ci_low", "bt_ci_high"]] = np.nan
    table = table[[c for c in ("agent", "elo", "elo_ci_low", "elo_ci_high", "bt_strength", "bt_ci_low",
                               "bt_ci_high") if c in table.columns]]
    table.attrs.update({"n_boot": n_boot, "seed": seed, "prior_draws": prior_draws, "anchor": anchor,
                        "anchor_rating": anchor_rating, "confidence": confidence})
    return table.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)


def _bootstrap(games: pd.DataFrame, pair_rows: np.ndarray, a: np.ndarray, b: np.ndarray, points_a: np.ndarray,
               k: int, n_boot: int, seed: int, prior_draws: float, group: str | None) -> np.ndarray:
    """Log-strengths of `n_boot` replicates, each refitted on games drawn with replacement."""
    rng = np.random.default_rng(seed)
    n_games = len(games)
    if group is None:
        stratum = np.zeros(n_games, dtype=np.int64)
    else:
        if group not in games.columns:
            raise ConfigError(f"bootstrap group column {group!r} is not in the results table")
        stratum = pd.factorize(games[group])[0]
    # games listed stratum by stratum; each position draws a game from its own stratum's block
    order = np.argsort(stratum, kind="stable")
    sizes = np.bincount(stratum)
    block_start = np.repeat(np.cumsum(sizes) - sizes, sizes)
    block_size = np.repeat(sizes, sizes)
    replicates = np.empty((n_boot, k))
    failed = 0
    for r in range(n_boot):
        drawn = order[block_start + rng.integers(0, block_size)]
        counts = np.bincount(drawn, minlength=n_games).astype(float)
        points = _points_from_codes(a, b, points_a, k, counts[pair_rows])
        if prior_draws == 0 and not mle_exists(points):
            failed += 1
            continue
        replicates[r] = fit_bradley_terry(points, prior_draws)
    if failed:
        raise ConfigError(f"{failed} of {n_boot} bootstrap replicates have no finite maximum-likelihood ratings "
                          "(an agent scored every point or none); use prior_draws > 0")
    return replicates
