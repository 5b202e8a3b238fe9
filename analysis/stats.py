"""The statistics every report and analysis uses: one of each, so all intervals are computed the same way.

- `Z95`: the two-sided 95% quantile of the standard normal, 1.959963984540054 (not 1.96); `z_quantile(level)`
  for other levels. For Wald intervals of regression coefficients (estimate +- z standard errors).
- `wilson_interval(successes, trials)`: the Wilson score interval of a proportion (draws may count as half
  successes). It stays inside [0, 1] and behaves at 0 and n successes, unlike the Wald interval.
- `mean_interval(values)`: the mean and its Student-t interval, mean +- t(n - 1) * sd / sqrt(n). The t quantile
  makes the interval correct for small samples (the normal 1.96 is too narrow below about 30 values).
- `t_quantile(p, df)`: quantile `p` of Student's t with `df` degrees of freedom (for t intervals of other
  estimates, such as a regression intercept).
- `bootstrap_means`, `bootstrap_difference`, `bootstrap_mean_interval`, `percentile_interval`: the percentile
  bootstrap, seeded and vectorised (rows of a 2-D sample are resampled together, so its columns stay paired).
- `goal_verdict(low, high, goal)`: "met", "not met" or "undecided" from an interval, never from a point estimate.
- `seat_count(games)`: the number of seats in a games table.

The quantiles come from `scipy.special` (a dependency); everything else is numpy.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtri, stdtrit

LEVEL = 0.95
Z95 = 1.959963984540054          # ndtri(0.975): the two-sided 95% normal quantile


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"the confidence level must lie strictly between 0 and 1, not {level!r}")


def z_quantile(level: float = LEVEL) -> float:
    """The two-sided normal quantile for a `level` interval (`Z95` for 0.95)."""
    _check_level(level)
    return Z95 if level == LEVEL else float(ndtri(0.5 + level / 2))


def t_quantile(p: float, df: float) -> float:
    """Quantile `p` of Student's t with `df` degrees of freedom (NaN for df <= 0 or p outside (0, 1))."""
    if not df > 0 or not 0 < p < 1:
        return math.nan
    return float(stdtrit(df, p))


def wilson_interval(successes: float, trials: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of the proportion `successes / trials` (draws may count as half successes).

    NaN bounds when there are no trials. Refuses negative counts and more successes than trials.
    """
    if trials < 0:
        raise ValueError(f"the number of trials cannot be negative, got {trials}")
    if successes < 0:
        raise ValueError(f"the number of successes cannot be negative, got {successes}")
    if successes > trials * (1 + 1e-12):         # a sum of fractional credits may round a hair over
        raise ValueError(f"successes ({successes}) cannot exceed trials ({trials})")
    if trials == 0:
        return (math.nan, math.nan)
    z = z_quantile(level)
    p = min(successes / trials, 1.0)
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # At 0 and n successes the bounds are exactly 0 and 1; rounding can land a hair either side of them.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if p == 1.0 else min(1.0, centre + half)
    return (low, high)


def _values(values: Iterable[float]) -> np.ndarray:
    if not isinstance(values, (np.ndarray, pd.Series, list, tuple)):
        values = list(values)
    return np.asarray(values, dtype=float).ravel()


def mean_interval(values: Iterable[float], level: float = LEVEL) -> tuple[float, float, float]:
    """The mean of `values` and its Student-t interval: (mean, low, high).

    NaN values are left out. With no values all three are NaN; with one value the bounds are NaN (one value
    says nothing about the spread); a constant sample has the interval (mean, mean).
    """
    _check_level(level)
    x = _values(values)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return (mean, math.nan, math.nan)
    half = t_quantile(0.5 + level / 2, len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return (mean, mean - half, mean + half)


def _generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def bootstrap_means(data: Sequence[float] | np.ndarray, resamples: int = 2000,
                    rng: np.random.Generator | int | None = 0, batch: int = 250) -> np.ndarray:
    """The means of `resamples` bootstrap resamples of `data` (rows drawn with replacement).

    A 1-D sample gives an array of `resamples` means. A 2-D sample (rows x columns) gives `resamples` x
    columns: each resample draws whole rows, so the columns stay paired (e.g. one column per measure of a
    game). `rng` is a numpy Generator (advanced by the draw) or a seed. Resamples are drawn `batch` at a
    time, so memory stays at `batch` x rows x columns.
    """
    sample = np.asarray(data, dtype=float)
    if sample.ndim not in (1, 2):
        raise ValueError(f"bootstrap data must be 1-D or 2-D (rows x columns), not {sample.ndim}-D")
    if resamples < 1:
        raise ValueError(f"the number of bootstrap resamples must be at least 1, got {resamples}")
    if sample.shape[0] == 0:
        raise ValueError("cannot bootstrap an empty sample")
    generator = _generator(rng)
    table = sample[:, None] if sample.ndim == 1 else sample
    rows = table.shape[0]
    out = np.empty((resamples, table.shape[1]))
    for start in range(0, resamples, batch):
        stop = min(resamples, start + batch)
        picks = generator.integers(0, rows, size=(stop - start, rows))
        out[start:stop] = table[picks].mean(axis=1)
    return out[:, 0] if sample.ndim == 1 else out


def bootstrap_difference(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, paired: bool,
                         resamples: int = 2000, rng: np.random.Generator | int | None = 0) -> np.ndarray:
    """Bootstrap replicates of mean(b) - mean(a).

    Paired (`a[i]` and `b[i]` measured on the same unit, e.g. the same seeded game): the differences b - a are
    resampled. Independent: each sample is resampled on its own (b first, then a, from the same `rng`).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    generator = _generator(rng)
    if paired:
        if a.shape != b.shape:
            raise ValueError(f"paired samples must have the same length, got {a.shape[0]} and {b.shape[0]}")
        return bootstrap_means(b - a, resamples, generator)
    return bootstrap_means(b, resamples, generator) - bootstrap_means(a, resamples, generator)


def percentile_interval(replicates: np.ndarray, level: float = LEVEL, axis: int = 0) -> tuple:
    """The percentile interval (low, high) of bootstrap replicates along `axis` (floats, or arrays for 2-D)."""
    _check_level(level)
    tail = (1 - level) / 2
    low, high = np.quantile(np.asarray(replicates, dtype=float), [tail, 1 - tail], axis=axis)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def bootstrap_mean_interval(values: Sequence[float] | np.ndarray, level: float = LEVEL, resamples: int = 2000,
                            seed: int | np.random.Generator | None = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (resampled with replacement, seeded); NaN bounds for
    an empty sample."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (math.nan, math.nan)
    return percentile_interval(bootstrap_means(data, resamples, seed), level)


def goal_verdict(low: float, high: float, goal: float, strictly_above: bool = False) -> str:
    """Whether a 95% interval [low, high] shows a goal met ("met": the whole interval reaches it), missed
    ("not met": none of it does) or neither ("undecided": too few games to tell), so that a handful of games
    never reads as a verdict. `strictly_above` asks for more than `goal` (e.g. better than even)."""
    if math.isnan(low) or math.isnan(high):
        return "undecided"
    reached = low > goal if strictly_above else low >= goal
    missed = high <= goal if strictly_above else high < goal
    return "met" if reached else "not met" if missed else "undecided"


def seat_count(games: pd.DataFrame) -> int:
    """Number of seats in a games table: its `agent_0`, `agent_1`, ... columns (1 solo, 0 for no seat column)."""
    seats = 0
    while f"agent_{seats}" in games.columns:
        seats += 1
    return seats
