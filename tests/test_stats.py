"""The shared statistics (`cavekit.analysis.stats`): Wilson and t intervals against known values, the
bootstrap's seeding and coverage, the seat counter, and the errors for impossible input."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from cavekit.analysis.stats import (Z95, bootstrap_difference, goal_verdict, bootstrap_mean_interval, bootstrap_means,
                                    mean_interval, percentile_interval, seat_count, t_quantile, wilson_interval,
                                    z_quantile)


# ---------------------------------------------------------------- the normal quantile

def test_z95_is_the_exact_two_sided_normal_quantile():
    assert Z95 == pytest.approx(sps.norm.ppf(0.975), abs=1e-15)
    assert z_quantile(0.95) == Z95
    assert z_quantile(0.90) == pytest.approx(1.6448536269514722)


# ---------------------------------------------------------------- Wilson

@pytest.mark.parametrize("successes, trials, expected", [
    (0, 10, (0.0, 0.2775328)),             # textbook values (Wilson 1927; Newcombe 1998, method 3)
    (5, 10, (0.2365931, 0.7634069)),
    (10, 10, (0.7224672, 1.0)),
    (1, 1, (0.2065493, 1.0)),
    (81, 263, (0.2553, 0.3662)),           # Newcombe's example 81/263
])
def test_wilson_interval_matches_known_values(successes, trials, expected):
    assert wilson_interval(successes, trials) == pytest.approx(expected, abs=1e-4 if trials == 263 else 1e-6)


def test_wilson_interval_is_symmetric_and_clipped_to_zero_and_one():
    low, high = wilson_interval(3, 10)
    assert wilson_interval(7, 10) == pytest.approx((1 - high, 1 - low))
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    for k in range(0, 51):
        low, high = wilson_interval(k, 50)
        assert 0.0 <= low <= k / 50 <= high <= 1.0


def test_wilson_interval_counts_draws_as_half_successes_and_has_no_interval_without_trials():
    low, high = wilson_interval(2.5, 4)
    assert low < 2.5 / 4 < high
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_wilson_interval_other_levels_are_wider_or_narrower():
    low95, high95 = wilson_interval(5, 20)
    low99, high99 = wilson_interval(5, 20, level=0.99)
    assert low99 < low95 and high99 > high95


@pytest.mark.parametrize("successes, trials, message", [
    (-1, 10, "successes cannot be negative, got -1"),
    (3, -2, "trials cannot be negative, got -2"),
    (11, 10, r"successes \(11\) cannot exceed trials \(10\)"),
])
def test_wilson_interval_refuses_impossible_counts(successes, trials, message):
    with pytest.raises(ValueError, match=message):
        wilson_interval(successes, trials)


def test_levels_outside_zero_and_one_are_refused():
    with pytest.raises(ValueError, match="strictly between 0 and 1, not 95"):
        wilson_interval(5, 10, level=95)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        mean_interval([1.0, 2.0], level=1.0)


# ---------------------------------------------------------------- Student t

@pytest.mark.parametrize("df, table", [(1, 12.706), (2, 4.303), (4, 2.776), (5, 2.571), (29, 2.045),
                                       (30, 2.042), (1000, 1.962)])
def test_t_quantile_matches_the_table_and_scipy(df, table):
    assert t_quantile(0.975, df) == pytest.approx(table, abs=5e-4)
    assert t_quantile(0.975, df) == pytest.approx(sps.t.ppf(0.975, df), rel=1e-12)


def test_t_quantile_is_nan_outside_its_domain():
    assert math.isnan(t_quantile(0.975, 0)) and math.isnan(t_quantile(1.0, 5)) and math.isnan(t_quantile(0, 5))


@pytest.mark.parametrize("n", [2, 5, 30])
def test_mean_interval_is_the_student_t_interval(n):
    x = np.random.default_rng(n).normal(10.0, 3.0, size=n)
    mean, low, high = mean_interval(x)
    expected = sps.t.interval(0.95, n - 1, loc=x.mean(), scale=sps.sem(x))
    assert mean == pytest.approx(x.mean())
    assert (low, high) == pytest.approx(expected, rel=1e-12)
    # never narrower than the normal approximation, which is too narrow for small samples
    assert high - mean > Z95 * x.std(ddof=1) / math.sqrt(n)


def test_mean_interval_by_hand_for_two_values():
    # n = 2: mean 3, sd sqrt(2), se 1, t(0.975, 1) = 12.706
    mean, low, high = mean_interval([2.0, 4.0])
    assert (mean, low, high) == pytest.approx((3.0, 3.0 - 12.7062047, 3.0 + 12.7062047))


def test_mean_interval_edge_cases():
    assert all(math.isnan(v) for v in mean_interval([]))
    mean, low, high = mean_interval(pd.Series([5.0]))
    assert mean == 5.0 and math.isnan(low) and math.isnan(high)
    assert mean_interval([3.0, 3.0, 3.0]) == (3.0, 3.0, 3.0)
    assert mean_interval([1.0, math.nan, 3.0]) == mean_interval([1.0, 3.0])       # NaN values are left out
    assert mean_interval(v for v in (1.0, 2.0, 3.0)) == mean_interval([1.0, 2.0, 3.0])


def test_mean_interval_at_another_level():
    x = [1.0, 4.0, 2.0, 8.0, 5.0]
    _, low, high = mean_interval(x, level=0.8)
    assert (low, high) == pytest.approx(sps.t.interval(0.8, 4, loc=np.mean(x), scale=sps.sem(x)))


def test_t_and_wilson_intervals_cover_the_truth_at_about_95_percent():
    rng = np.random.default_rng(11)
    reps = 2000
    t_hits = w_hits = 0
    for _ in range(reps):
        x = rng.exponential(2.0, size=15) + rng.normal(0, 1, 15)       # skewed, small sample: mean 2
        _, low, high = mean_interval(x)
        t_hits += low <= 2.0 <= high
        k = int(rng.binomial(40, 0.3))
        low, high = wilson_interval(k, 40)
        w_hits += low <= 0.3 <= high
    # With 2000 replications the coverage is known to about +-1 point.
    assert 0.92 <= t_hits / reps <= 0.975
    assert 0.92 <= w_hits / reps <= 0.98
    rng = np.random.default_rng(5)
    for rate, trials in ((0.25, 200), (0.5, 60)):
        hits = rng.binomial(trials, rate, size=2000)
        covered = np.mean([lo <= rate <= hi for lo, hi in (wilson_interval(h, trials) for h in hits)])
        assert 0.925 <= covered <= 0.975, (rate, trials, covered)


# ---------------------------------------------------------------- bootstrap

def test_bootstrap_is_reproducible_from_its_seed():
    x = np.random.default_rng(0).exponential(2.0, size=50)
    assert bootstrap_mean_interval(x, seed=3) == bootstrap_mean_interval(x, seed=3)
    assert bootstrap_mean_interval(x, seed=3) != bootstrap_mean_interval(x, seed=4)
    np.testing.assert_array_equal(bootstrap_means(x, 500, 7), bootstrap_means(x, 500, np.random.default_rng(7)))


def test_bootstrap_does_not_depend_on_the_batch_size():
    x = np.arange(30.0)
    np.testing.assert_array_equal(bootstrap_means(x, 600, 1, batch=1000), bootstrap_means(x, 600, 1, batch=600))


def test_bootstrap_interval_covers_the_sample_mean_and_is_close_to_the_t_interval():
    x = np.random.default_rng(2).normal(5.0, 2.0, size=200)
    low, high = bootstrap_mean_interval(x, resamples=4000, seed=0)
    mean, t_low, t_high = mean_interval(x)
    assert low < mean < high
    assert low == pytest.approx(t_low, abs=0.05) and high == pytest.approx(t_high, abs=0.05)


def test_bootstrap_intervals_cover_the_true_mean_at_about_95_percent():
    rng = np.random.default_rng(6)
    covered = [low <= 3.0 <= high for low, high in
               (bootstrap_mean_interval(rng.normal(3.0, 2.0, size=80), resamples=1000, seed=k) for k in range(400))]
    assert 0.92 <= np.mean(covered) <= 0.98


def test_bootstrap_of_columns_resamples_rows_together():
    x = np.random.default_rng(1).normal(size=40)
    means = bootstrap_means(np.column_stack([x, 2 * x]), 300, 5)
    assert means.shape == (300, 2)
    np.testing.assert_allclose(means[:, 1], 2 * means[:, 0])
    np.testing.assert_allclose(means[:, 0], bootstrap_means(x, 300, 5))
    low, high = percentile_interval(means)
    assert low.shape == (2,) and (low < high).all()


def test_paired_bootstrap_of_a_difference_is_narrower_for_correlated_samples():
    rng = np.random.default_rng(4)
    a = rng.normal(0.0, 5.0, size=100)
    b = a + 1.0 + rng.normal(0.0, 0.5, size=100)
    paired = percentile_interval(bootstrap_difference(a, b, paired=True, rng=0))
    independent = percentile_interval(bootstrap_difference(a, b, paired=False, rng=0))
    assert paired[0] < 1.0 < paired[1]
    assert paired[1] - paired[0] < (independent[1] - independent[0]) / 4
    with pytest.raises(ValueError, match="paired samples must have the same length, got 100 and 99"):
        bootstrap_difference(a, b[:99], paired=True)


def test_bootstrap_refuses_bad_input():
    assert all(math.isnan(v) for v in bootstrap_mean_interval([]))
    with pytest.raises(ValueError, match="cannot bootstrap an empty sample"):
        bootstrap_means([], 10)
    with pytest.raises(ValueError, match="at least 1, got 0"):
        bootstrap_means([1.0, 2.0], 0)


# ---------------------------------------------------------------- seats

@pytest.mark.parametrize("seats", [1, 2, 4])
def test_seat_count_counts_the_agent_columns(seats):
    games = pd.DataFrame({"game": [0, 1], "first_player": [0, 0],
                          **{f"agent_{p}": ["a", "b"] for p in range(seats)},
                          **{f"score_{p}": [1, 2] for p in range(seats)}})
    assert seat_count(games) == seats


def test_seat_count_of_a_table_without_seats():
    assert seat_count(pd.DataFrame({"game": [0]})) == 0
    assert seat_count(pd.DataFrame({"agent_1": ["a"]})) == 0      # seats are numbered from 0


def test_a_goal_is_judged_by_the_interval_never_by_a_handful_of_games():
    low, high = wilson_interval(2, 2)                   # two wins out of two: 100%, but [34%, 100%]
    assert goal_verdict(low, high, 0.75) == "undecided"
    low, high = wilson_interval(190, 200)
    assert goal_verdict(low, high, 0.75) == "met"
    low, high = wilson_interval(100, 200)
    assert goal_verdict(low, high, 0.75) == "not met"
    assert goal_verdict(0.5, 0.6, 0.5, strictly_above=True) == "undecided"
    assert goal_verdict(0.51, 0.6, 0.5, strictly_above=True) == "met"
    assert goal_verdict(float("nan"), float("nan"), 0.5) == "undecided"
