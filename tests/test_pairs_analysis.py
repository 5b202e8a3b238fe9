"""The Cave's analyses (analysis/pairs_analysis.py) on synthetic games with known answers: an advantaged seat
comes out advantaged, a paired difference is found with its true size, a rank that follows the winner ranks
first, and the intervals cover the truth about as often as they say."""
from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.pairs import study as pa_
from cavekit.analysis.batch import run_match
from cavekit.core.api import ConfigError, shared_win_returns
from cavekit.core.pairs.rules import NUM_RANKS

matplotlib.use("Agg")


def synthetic_games(winners: list[list[int]], players: int, first_player: np.ndarray | None = None,
                    scores: np.ndarray | None = None, points: np.ndarray | None = None,
                    agents: list[list[str]] | None = None) -> pd.DataFrame:
    """A games table shaped like a results folder's (only the columns the analyses read)."""
    count = len(winners)
    first = np.zeros(count, dtype=int) if first_player is None else first_player
    if points is not None:
        scores = points.sum(axis=2)
    if scores is None:
        scores = np.zeros((count, players), dtype=int)
    rows = []
    for i, won in enumerate(winners):
        returns = shared_win_returns(players, won)
        row = {"game": i, "first_player": int(first[i]), "winner": won[0] if len(won) == 1 else -1}
        for p in range(players):
            row[f"agent_{p}"] = agents[i][p] if agents else "pairs_heuristic"
            row[f"score_{p}"] = int(scores[i, p])
            row[f"return_{p}"] = returns[p]
            if points is not None:
                row[f"rank_points_{p}"] = [int(x) for x in points[i, p]]
        rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------------
# Win credits and seat advantage

def test_a_shared_win_is_split_among_the_co_winners():
    games = synthetic_games([[0], [0, 1]], 2)
    assert pa_.win_credits(games).tolist() == [[1.0, 0.0], [0.5, 0.5]]
    three = synthetic_games([[2], [0, 2], [0, 1, 2]], 3)
    np.testing.assert_allclose(pa_.win_credits(three), [[0, 0, 1], [0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_the_seat_given_an_edge_comes_out_as_the_advantaged_seat():
    rng = np.random.default_rng(11)
    players, count = 4, 3000
    first = rng.integers(0, players, count)
    # Position 2 in the order of play wins 40% of matches, the others 20% each.
    positions = rng.choice(players, size=count, p=[0.2, 0.2, 0.4, 0.2])
    winners = [[int((first[i] + positions[i]) % players)] for i in range(count)]
    table = pa_.seat_advantage(synthetic_games(winners, players, first), by="position")
    part = table.xs(players, level="players")
    assert part["win_share"].idxmax() == 2
    assert part.loc[2, "ci95_low"] > 0.25 and part.loc[2, "ci95_low"] <= 0.4 <= part.loc[2, "ci95_high"]
    assert bool(part.loc[2, "fair_outside_interval"]) and part.loc[2, "excess"] > 0.1
    assert (part["games"] == count).all() and part["wins"].sum() == pytest.approx(count)
    # By seat number the edge averages out, since the first player is random.
    by_seat = pa_.seat_advantage(synthetic_games(winners, players, first), by="seat")
    assert by_seat["excess"].abs().max() < 0.03


def test_seat_advantage_by_players_stacks_runs_and_checks_their_seat_counts():
    two = synthetic_games([[0], [1], [0]], 2, np.array([0, 1, 1]))
    three = synthetic_games([[1], [2]], 3, np.array([0, 0]))
    table = pa_.seat_advantage_by_players({3: three, 2: two})
    assert table.index.get_level_values("players").tolist() == [2, 2, 3, 3, 3]
    assert table.loc[(2, 0), "win_share"] == pytest.approx(2 / 3)     # seats 0, 0 (first 1 -> pos 0), 1 first
    with pytest.raises(ConfigError, match="given for 4 players has 2 seats"):
        pa_.seat_advantage_by_players({4: two})
    with pytest.raises(ConfigError, match="allowed values: 'position', 'seat'"):
        pa_.seat_advantage(two, by="chair")


def test_the_chi_square_tail_matches_known_quantiles():
    for statistic, df, tail in ((3.841459, 1, 0.05), (5.991465, 2, 0.05), (11.070498, 5, 0.05), (1.0, 1, 0.3173105),
                                (15.086272, 5, 0.01), (20.0, 6, 0.0027694)):
        assert pa_.chi_square_sf(statistic, df) == pytest.approx(tail, rel=1e-5)
    assert pa_.chi_square_sf(0.0, 3) == 1.0
    with pytest.raises(ValueError, match="positive integer"):
        pa_.chi_square_sf(1.0, 0)


def test_the_seat_uniformity_test_flags_an_edge_and_rejects_fair_seats_about_5_percent_of_the_time():
    rng = np.random.default_rng(12)
    players, count = 4, 400

    def run(shares: list[float]) -> pd.DataFrame:
        first = rng.integers(0, players, count)
        positions = rng.choice(players, size=count, p=shares)
        return synthetic_games([[int((f + q) % players)] for f, q in zip(first, positions)], players, first)

    edge = pa_.seat_uniformity({players: run([0.2, 0.2, 0.4, 0.2])})
    assert edge.loc[players, "p_value"] < 1e-3 and edge.loc[players, "df"] == 3
    rejected = [pa_.seat_uniformity({players: run([0.25] * 4)}).loc[players, "p_value"] < 0.05 for _ in range(200)]
    assert 0.01 <= np.mean(rejected) <= 0.10


# ----------------------------------------------------------------------------------------------------
# Value of hand information

def paired_subjects(count: int, effect: float, seed: int) -> tuple[pa_.SubjectGames, pa_.SubjectGames]:
    """Two agents' margins on the same deals: a shared per-deal part, plus `effect` points for the second."""
    rng = np.random.default_rng(seed)
    deal = rng.normal(0, 3, count)
    fair = deal + rng.normal(0, 1, count)
    cheat = deal + effect + rng.normal(0, 1, count)
    games = np.arange(count)
    return (pa_.SubjectGames("fair", games, (fair > 0).astype(float), fair),
            pa_.SubjectGames("cheat", games, (cheat > 0).astype(float), cheat))


def test_a_paired_difference_is_found_with_its_true_size_and_a_narrower_interval_than_unpaired():
    fair, cheat = paired_subjects(300, 1.5, seed=2)
    paired = pa_.compare_subjects(fair, cheat, paired=True, resamples=2000)
    unpaired = pa_.compare_subjects(fair, cheat, paired=False, resamples=2000)
    margin = paired.loc["score margin (points)"]
    assert margin["difference_low"] <= 1.5 <= margin["difference_high"] and margin["difference_low"] > 0
    assert margin["correlation"] > 0.8
    widths = [t.loc["score margin (points)", "difference_high"] - t.loc["score margin (points)", "difference_low"]
              for t in (paired, unpaired)]
    assert widths[0] < widths[1] / 2
    share = paired.loc["win share"]
    assert share["fair_low"] <= share["fair"] <= share["fair_high"] and share["difference"] > 0
    with pytest.raises(ConfigError, match="same game indices"):
        pa_.compare_subjects(fair, pa_.SubjectGames("x", cheat.games + 1, cheat.credit, cheat.margin), paired=True)


def test_paired_difference_intervals_cover_the_true_effect_at_about_95_percent():
    covered = []
    for k in range(200):
        fair, cheat = paired_subjects(100, 1.0, seed=100 + k)
        row = pa_.compare_subjects(fair, cheat, paired=True, resamples=800, seed=k).loc["score margin (points)"]
        covered.append(row["difference_low"] <= 1.0 <= row["difference_high"])
    assert 0.90 <= np.mean(covered) <= 0.99


def test_subject_games_reads_the_agents_seat_and_margin():
    agents = [["a", "b", "c"], ["c", "a", "b"]]
    scores = np.array([[10, 4, 6], [9, 3, 0]])
    games = synthetic_games([[0], [0]], 3, scores=scores, agents=agents)
    mine = pa_.subject_games(games, "a")
    assert mine.credit.tolist() == [1.0, 0.0] and mine.margin.tolist() == [5.0, -1.5]
    with pytest.raises(ConfigError, match="exactly one seat"):
        pa_.subject_games(games, "d")


@pytest.fixture(scope="module")
def heuristic_runs(tmp_path_factory):
    """Tiny real runs: two 'searchers' against the same opponent, same seed; and one with another seed."""
    root = tmp_path_factory.mktemp("pairs_runs")
    common = {"games": 8, "progress": False}
    run_match("pairs", ["random", "pairs_heuristic"], seed=3, out=root / "fair", **common)
    run_match("pairs", ["pairs_heuristic:exposure=0.3", "pairs_heuristic"], seed=3, out=root / "cheat", **common)
    run_match("pairs", ["pairs_heuristic:exposure=0.3", "pairs_heuristic"], seed=4, out=root / "cheat4", **common)
    run_match("pairs", ["random", "random"], seed=3, out=root / "other", **common)
    return root


def test_information_value_pairs_runs_with_the_same_seed_and_refuses_unmatched_runs(heuristic_runs):
    paired = pa_.information_value(heuristic_runs / "fair", heuristic_runs / "cheat", resamples=500)
    assert paired["paired"].all() and (paired["games_fair"] == 8).all()
    fair = pa_.subject_games(pa_.load_pairs_games(heuristic_runs / "fair"), "random")
    assert paired.loc["score margin (points)", "fair"] == pytest.approx(fair.margin.mean())
    unpaired = pa_.information_value(heuristic_runs / "fair", heuristic_runs / "cheat4", resamples=500)
    assert not unpaired["paired"].any()
    with pytest.raises(ConfigError, match="differ in exactly one agent"):
        pa_.information_value(heuristic_runs / "cheat", heuristic_runs / "other")


def test_load_pairs_games_refuses_another_games_folder(tmp_path):
    run_match("cvc", ["random", "random"], 1, seed=1, progress=False, out=tmp_path / "cvc")
    with pytest.raises(ConfigError, match="holds 'cvc' games, not The Cave"):
        pa_.load_pairs_games(tmp_path / "cvc")


# ----------------------------------------------------------------------------------------------------
# Which ranks decide games

def synthetic_rank_games(count: int, players: int, follows: int, loyalty: float, seed: int) -> pd.DataFrame:
    """Matches where rank `follows`'s majority goes to the winner with probability `loyalty` (else to a random
    seat) and every other rank's majority to a random seat; the majority holder scores the rank's copies."""
    rng = np.random.default_rng(seed)
    winners = rng.integers(0, players, count)
    points = np.zeros((count, players, NUM_RANKS), dtype=int)
    for i in range(count):
        for r in range(NUM_RANKS):
            taker = winners[i] if r + 1 == follows and rng.random() < loyalty else rng.integers(players)
            points[i, taker, r] = r + 1
    return synthetic_games([[int(w)] for w in winners], players, points=points)


def test_a_rank_whose_points_always_go_to_the_winner_ranks_first():
    games = synthetic_rank_games(400, 3, follows=4, loyalty=1.0, seed=8)
    margins = pa_.rank_margins(games, resamples=1000)
    assert margins["mean_margin"].idxmax() == 4
    assert margins.loc[4, "mean_margin"] == pytest.approx(4.0)        # winner 4 points, the others none
    assert margins.loc[4, "winner_took_rank"] == 1.0 and margins.loc[4, "ci95_low"] == pytest.approx(4.0)
    others = margins.drop(index=4)
    # A random taker gives the winner r points a third of the time: margin r/3 - (2r/3)/2 = 0 on average.
    assert (others["ci95_low"] <= 0).sum() >= 8 and (others["ci95_high"] >= 0).sum() >= 8
    # Perfect separation: no finite logistic estimate, and the model says so.
    with pytest.raises(ConfigError, match="separated"):
        pa_.rank_model(games)


def test_the_rank_model_finds_the_rank_that_follows_the_winner_with_its_true_strength():
    games = synthetic_rank_games(1500, 2, follows=7, loyalty=0.7, seed=9)
    model = pa_.rank_model(games)
    # P(win | took rank 7) = 0.7 + 0.3 / 2 = 0.85 with term +1 for the taker, -1 for the other: coef logit(0.85).
    truth = math.log(0.85 / 0.15)
    assert model["coef"].idxmax() == 7
    assert model.loc[7, "ci95_low"] <= truth <= model.loc[7, "ci95_high"] and model.loc[7, "ci95_low"] > 0.5
    others = model.drop(index=7)
    assert ((others["ci95_low"] <= 0) & (others["ci95_high"] >= 0)).sum() >= 8
    assert (model["games"] == 1500).all()


def test_rank_majorities_compare_each_seat_with_the_best_other_seat():
    points = np.zeros((1, 3, NUM_RANKS), dtype=int)
    points[0, :, 9] = [10, 10, 0]        # tie at the top
    points[0, :, 8] = [0, 9, 0]          # seat 1 alone
    games = synthetic_games([[1]], 3, points=points)
    majorities = pa_.rank_majorities(games)[0]
    assert majorities[:, 9].tolist() == [0, 0, -1] and majorities[:, 8].tolist() == [-1, 1, -1]
    assert majorities[:, 0].tolist() == [0, 0, 0]


def test_fit_logistic_recovers_known_coefficients_and_refuses_bad_input():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(0.5 + 1.0 * x[:, 0] - 2.0 * x[:, 1])))).astype(float)
    fit = pa_.fit_logistic(x, y, ["a", "b"])
    assert fit.names == ["intercept", "a", "b"]
    assert np.all(np.abs(fit.coef - [0.5, 1.0, -2.0]) < 3 * fit.se)
    clustered = pa_.fit_logistic(x, y, ["a", "b"], groups=np.arange(4000) // 2)
    assert clustered.clustered and np.allclose(clustered.coef, fit.coef)
    with pytest.raises(ConfigError, match="one name per term"):
        pa_.fit_logistic(x, y, ["a"])


def test_games_without_rank_points_get_a_clear_error():
    with pytest.raises(ConfigError, match="no rank_points_0, rank_points_1 column"):
        pa_.rank_margins(synthetic_games([[0]], 2))


# ----------------------------------------------------------------------------------------------------
# Figures

def test_each_figure_has_a_title_axis_labels_and_interval_bars():
    rng = np.random.default_rng(3)
    first = rng.integers(0, 3, 60)
    seats = pa_.seat_advantage_by_players({3: synthetic_games([[int(w)] for w in rng.integers(0, 3, 60)], 3, first)})
    fair, cheat = paired_subjects(50, 1.0, seed=1)
    info = pa_.compare_subjects(fair, cheat, paired=True, resamples=200)
    runs = {n: synthetic_rank_games(200, n, follows=5, loyalty=0.6, seed=n) for n in (2, 3)}
    margins = pa_.rank_margins_by_players(runs, resamples=200)
    model = pa_.rank_model_by_players(runs)
    assert margins.index.names == ["players", "rank"] and len(model) == 2 * NUM_RANKS
    figures = [pa_.plot_seat_advantage(seats), pa_.plot_information_value(info),
               pa_.plot_rank_decisiveness(margins, model)]
    for fig in figures:
        assert fig._suptitle is not None and fig._suptitle.get_text()
        assert fig.axes[0].get_ylabel()
        for ax in fig.axes:
            assert ax.get_title() and ax.get_xlabel()
            assert ax.collections or ax.lines       # error bars are drawn
    import matplotlib.pyplot as plt
    plt.close("all")
