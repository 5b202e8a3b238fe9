"""Batch Elo / Bradley-Terry ratings: hand-computed fits, draws, the prior, multiplayer decomposition, bootstrap."""
import math

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.ratings import (ELO_SCALE, fit_bradley_terry, mle_exists, pairwise_outcomes, points_matrix,
                                      rate)
from cavekit.core.api import ConfigError


def two_player_games(results: list[tuple[str, str, float]], repeat: int = 1) -> pd.DataFrame:
    """A results table from (seat-0 agent, seat-1 agent, seat-0 return) triples."""
    rows = [{"agent_0": a, "agent_1": b, "return_0": r, "return_1": -r, "first_player": 0}
            for a, b, r in results] * repeat
    return pd.DataFrame(rows)


def elo(table: pd.DataFrame, agent: str) -> float:
    return float(table.set_index("agent").loc[agent, "elo"])


def test_three_wins_in_four_is_strength_ratio_three_and_190_8_elo():
    games = two_player_games([("A", "B", 1), ("B", "A", -1), ("A", "B", 1), ("B", "A", 1)])
    table = rate(games, n_boot=0, prior_draws=0)
    strengths = table.set_index("agent")["bt_strength"]
    assert strengths["A"] / strengths["B"] == pytest.approx(3.0, rel=1e-9)
    assert elo(table, "A") - elo(table, "B") == pytest.approx(400 * math.log10(3), abs=1e-6)   # 190.85
    assert (elo(table, "A") + elo(table, "B")) / 2 == pytest.approx(1500.0)
    assert math.sqrt(strengths["A"] * strengths["B"]) == pytest.approx(1.0)


def test_three_agent_cycle_of_equal_results_gives_equal_ratings():
    cycle = [("A", "B", 1)] * 3 + [("A", "B", -1)] + [("B", "C", 1)] * 3 + [("B", "C", -1)] \
        + [("C", "A", 1)] * 3 + [("C", "A", -1)]
    for prior in (0.0, 1.0):
        table = rate(two_player_games(cycle), n_boot=0, prior_draws=prior)
        assert table["elo"].to_numpy() == pytest.approx([1500.0] * 3, abs=1e-9)


def test_draws_count_half_a_win_each_way():
    # A: one win and two draws against B = 2 points of 3, a strength ratio of 2 (120.4 Elo)
    table = rate(two_player_games([("A", "B", 1), ("A", "B", 0), ("B", "A", 0)]), n_boot=0, prior_draws=0)
    assert elo(table, "A") - elo(table, "B") == pytest.approx(400 * math.log10(2), abs=1e-6)
    # a win, a loss and draws in between: level
    level = rate(two_player_games([("A", "B", 1), ("A", "B", 0), ("B", "A", 1), ("B", "A", 0)]), n_boot=0,
                 prior_draws=0)
    assert elo(level, "A") == pytest.approx(elo(level, "B"), abs=1e-9)
    # only draws: the plain MLE exists (a draw is half a point each way) and is level
    drawn = rate(two_player_games([("A", "B", 0)] * 3), n_boot=0, prior_draws=0)
    assert elo(drawn, "A") == pytest.approx(1500.0, abs=1e-9)


def test_chain_of_ratios_is_recovered_exactly():
    # A beats B 2:1, B beats C 2:1, A beats C 4:1 is exactly consistent with strengths 4:2:1
    points = np.array([[0, 2, 4], [1, 0, 2], [1, 1, 0]], dtype=float)
    theta = fit_bradley_terry(points, prior_draws=0)
    assert np.exp(theta - theta[2]) == pytest.approx([4, 2, 1], rel=1e-9)
    assert theta.mean() == pytest.approx(0.0, abs=1e-12)


def test_perfect_score_diverges_without_prior_and_stays_finite_with_one_virtual_draw():
    points = np.array([[0, 4], [0, 0]], dtype=float)
    assert not mle_exists(points)
    with pytest.raises(ConfigError, match="prior_draws > 0"):
        fit_bradley_terry(points, prior_draws=0)
    theta = fit_bradley_terry(points, prior_draws=1.0)
    t = theta[0]
    assert np.isfinite(theta).all() and theta[0] == pytest.approx(-theta[1])
    # stationarity of 4 log s(2t) + sum_i [log s(th_i) + log s(-th_i)] / 2 in t: 8 s(-2t) = tanh(t/2),
    # solved here by bisection
    lo, hi = 0.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 8 / (1 + math.exp(2 * mid)) > math.tanh(mid / 2):
            lo = mid
        else:
            hi = mid
    assert t == pytest.approx(lo, abs=1e-9)
    assert 2 * t * ELO_SCALE == pytest.approx(446.99, abs=0.01)      # A rated 447 Elo above B, not infinity
    # the prior shrinks towards the pool: 3 of 4 gives less than the MLE's 190.8 Elo, but the same sign
    shrunk = rate(two_player_games([("A", "B", 1)] * 3 + [("A", "B", -1)]), n_boot=0, prior_draws=1.0)
    assert 0 < elo(shrunk, "A") - elo(shrunk, "B") < 400 * math.log10(3)


def test_disconnected_groups_have_no_mle():
    # A and B never met C or D: no common scale without the prior
    games = two_player_games([("A", "B", 1), ("B", "A", 1), ("C", "D", 1), ("D", "C", 1)])
    with pytest.raises(ConfigError, match="do not exist"):
        rate(games, n_boot=0, prior_draws=0)
    table = rate(games, n_boot=0, prior_draws=1.0)
    assert table["elo"].to_numpy() == pytest.approx([1500.0] * 4, abs=1e-9)


def test_bootstrap_interval_contains_estimate_and_shrinks_with_more_games():
    pattern = [("A", "B", 1)] * 3 + [("B", "A", 1)] * 2 + [("A", "B", 0)]
    small = rate(two_player_games(pattern, repeat=5), n_boot=400, seed=3)
    large = rate(two_player_games(pattern, repeat=80), n_boot=400, seed=3)
    for table in (small, large):
        assert (table["elo_ci_low"] <= table["elo"]).all() and (table["elo"] <= table["elo_ci_high"]).all()
        assert (table["bt_ci_low"] <= table["bt_strength"]).all()
        assert (table["bt_strength"] <= table["bt_ci_high"]).all()
    width = lambda t: float((t["elo_ci_high"] - t["elo_ci_low"]).iloc[0])  # noqa: E731
    # 16 times the games: intervals about 4 times narrower
    assert width(large) < width(small) / 2.5
    assert elo(large, "A") > elo(large, "B")
    again = rate(two_player_games(pattern, repeat=5), n_boot=400, seed=3)
    pd.testing.assert_frame_equal(small, again)
    other = rate(two_player_games(pattern, repeat=5), n_boot=400, seed=4)
    assert not np.allclose(small["elo_ci_low"], other["elo_ci_low"])


def test_bootstrap_within_groups_keeps_each_group_size():
    # with stratification every replicate of a one-sided pairing is one-sided again: zero-width interval
    games = two_player_games([("A", "B", 1)] * 24 + [("A", "C", 1), ("C", "A", 1)] * 12)
    games["pairing"] = [0] * 24 + [1] * 24
    table = rate(games, n_boot=200, seed=0, group="pairing").set_index("agent")
    assert table["elo_ci_low"].lt(table["elo_ci_high"]).loc["C"]
    with pytest.raises(ConfigError, match="group column"):
        rate(games, n_boot=10, group="nonexistent")


def test_anchor_agent_sits_at_1500_and_differences_do_not_move():
    games = two_player_games(([("A", "B", 1)] * 3 + [("A", "B", -1)] + [("B", "C", 1)] * 2 + [("C", "B", 1)]) * 8)
    mean_anchored = rate(games, n_boot=100, seed=1)
    anchored = rate(games, n_boot=100, seed=1, anchor="C").set_index("agent")
    assert anchored.loc["C", "elo"] == 1500.0
    assert anchored.loc["C", "elo_ci_low"] == anchored.loc["C", "elo_ci_high"] == 1500.0
    assert anchored.loc["C", "bt_strength"] == pytest.approx(1.0)
    plain = mean_anchored.set_index("agent")
    assert anchored.loc["A", "elo"] - anchored.loc["B", "elo"] == pytest.approx(
        plain.loc["A", "elo"] - plain.loc["B", "elo"])
    with pytest.raises(ConfigError, match="anchor agent 'Z'"):
        rate(games, anchor="Z")


def test_multiplayer_games_decompose_pairwise_along_the_ranking():
    games = pd.DataFrame([{"agent_0": "A", "agent_1": "B", "agent_2": "C",
                           "return_0": 1.0, "return_1": -1.0, "return_2": -1.0}])
    pairs = pairwise_outcomes(games).set_index(["agent_a", "agent_b"])["points_a"]
    assert pairs.to_dict() == {("A", "B"): 1.0, ("A", "C"): 1.0, ("B", "C"): 0.5}
    points = points_matrix(pairwise_outcomes(games), ["A", "B", "C"])
    assert points.tolist() == [[0, 1, 1], [0, 0, 0.5], [0, 0.5, 0]]
    # three-player games with A winning 3 of 4 against both others and B, C level: B and C rate equal
    many = pd.DataFrame([{"agent_0": "A", "agent_1": "B", "agent_2": "C", "return_0": r, "return_1": -1.0,
                          "return_2": -1.0 if r > 0 else 1.0} for r in (1.0, 1.0, 1.0, -1.0)]
                        + [{"agent_0": "A", "agent_1": "C", "agent_2": "B", "return_0": r, "return_1": -1.0,
                            "return_2": -1.0 if r > 0 else 1.0} for r in (1.0, 1.0, 1.0, -1.0)])
    table = rate(many, n_boot=0, prior_draws=0)
    assert elo(table, "B") == pytest.approx(elo(table, "C"), abs=1e-9)
    assert elo(table, "A") > elo(table, "B")


def test_bad_input_is_refused_clearly():
    with pytest.raises(ConfigError, match="at least 2 seats"):
        rate(pd.DataFrame({"agent_0": ["A"], "return_0": [1.0]}))
    with pytest.raises(ConfigError, match="two seats of one game"):
        rate(two_player_games([("A", "A", 1)]))
    with pytest.raises(ConfigError, match="n_boot"):
        rate(two_player_games([("A", "B", 1)]), n_boot=-1)
    with pytest.raises(ConfigError, match="prior_draws"):
        fit_bradley_terry(np.array([[0, 1], [1, 0.0]]), prior_draws=-1)
    with pytest.raises(ConfigError, match="replicates"):
        # 3-1 has an MLE, but some resamples are 4-0 and have none
        rate(two_player_games([("A", "B", 1)] * 3 + [("A", "B", -1)]), n_boot=200, prior_draws=0)


def test_an_agent_with_few_encounters_gets_no_interval_rather_than_a_zero_width_one():
    few = rate(two_player_games([("A", "B", 1)] * 2), n_boot=100, seed=0)
    assert few[["elo_ci_low", "elo_ci_high"]].isna().all().all()
    many = rate(two_player_games([("A", "B", 1), ("B", "A", 1), ("A", "B", -1)] * 8), n_boot=100, seed=0)
    assert (many["elo_ci_low"] < many["elo"]).all() and (many["elo"] < many["elo_ci_high"]).all()
