"""The Cave vs Cave strength report's verdicts (`cavekit strength cvc`): drawn from intervals, so two games never
read as a goal met (issue 22)."""
from __future__ import annotations

from cavekit.analysis.cvc.strength import format_report
from cavekit.analysis.stats import mean_interval, wilson_interval


def summary(wins: int, games: int, solo_scores: list[int]) -> dict:
    low, high = wilson_interval(wins, games)
    match = {"agent": "strong", "opponent": "weak", "games": games, "wins": wins, "draws": 0, "losses": games - wins,
             "score_rate": wins / games, "ci95_low": low, "ci95_high": high, "paired_ci95_low": low,
             "paired_ci95_high": high, "deals": games // 2, "mean_points": 50.0, "opponent_mean_points": 40.0,
             "seconds_per_game": 1.0}
    mean, mean_low, mean_high = mean_interval(solo_scores)
    return {"command": "cavekit strength cvc", "matches": {"mcts_vs_greedy": match},
            "solo": {"agent": "strong", "games": len(solo_scores), "mean": mean, "mean_low": mean_low,
                     "mean_high": mean_high, "std": 1.0, "min": min(solo_scores), "max": max(solo_scores),
                     "share_at_least_50": 1.0, "share_above_60": 0.5, "seconds_per_game": 1.0},
            "speed": []}


def test_two_games_won_are_undecided_not_a_goal_met():
    report = format_report(summary(2, 2, [58, 64]))
    assert ">= 75%: undecided" in report and ">= 75%: met" not in report
    assert "aim: a mean above 60: undecided" in report


def test_enough_games_give_a_verdict_either_way():
    assert ">= 75%: met" in format_report(summary(190, 200, [61] * 50 + [63] * 50))
    assert ">= 75%: not met" in format_report(summary(100, 200, [40] * 100))
    assert "aim: a mean above 60: met" in format_report(summary(190, 200, [61] * 50 + [63] * 50))
