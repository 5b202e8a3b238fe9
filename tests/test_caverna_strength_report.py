"""The Caverna strength report (`cavekit strength caverna`): its parts end to end on tiny budgets, resuming,
verdicts drawn from intervals against issue 20's goals, and clear refusals of bad options."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cavekit.analysis.caverna import strength
from cavekit.analysis.caverna.strength import format_report
from cavekit.analysis.results import load_games
from cavekit.analysis.stats import mean_interval, wilson_interval

CLI = [sys.executable, "-m", "cavekit", "strength", "caverna"]
CHEAP = ["--strongest", "caverna_greedy", "--analysis", "caverna_greedy", "--rollout", "caverna_greedy:weights=hand",
         "--jobs", "1", "--quiet"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=600)


def solo_figures(scores: list[int]) -> dict:
    mean, low, high = mean_interval(scores)
    share = sum(s >= 100 for s in scores) / len(scores)
    share_low, share_high = wilson_interval(share * len(scores), len(scores))
    return {"agent": "strong", "games": len(scores), "scores": len(scores), "mean": mean, "mean_low": low,
            "mean_high": high, "sd": 1.0, "min": min(scores), "max": max(scores), "share_ge_80": 1.0,
            "share_ge_80_low": 0.9, "share_ge_80_high": 1.0, "share_ge_100": share, "share_ge_100_low": share_low,
            "share_ge_100_high": share_high, "family": 4.5, "seconds_per_game": 50.0}


def versus_figures(wins: int, games: int, points: list[float]) -> dict:
    low, high = wilson_interval(wins, games)
    mean, points_low, points_high = mean_interval(points)
    return {"agent": "strong", "opponent": "rollout", "games": games, "wins": wins, "draws": 0,
            "losses": games - wins, "score_rate": wins / games, "ci95_low": low, "ci95_high": high,
            "paired_ci95_low": low, "paired_ci95_high": high, "deals": games // 2, "mean_points": mean,
            "opponent_mean_points": 40.0, "points_low": points_low, "points_high": points_high, "family": 5.0,
            "opponent_family": 4.0, "seconds_per_game": 2.0}


def test_the_solo_goal_of_100_is_judged_by_the_interval_of_the_mean():
    assert "a mean of at least 100 (met)" in format_report({"parts": {"solo": solo_figures([101, 103] * 50)}})
    assert "a mean of at least 100 (not met)" in format_report({"parts": {"solo": solo_figures([82, 84] * 50)}})
    assert "a mean of at least 100 (undecided)" in format_report({"parts": {"solo": solo_figures([90, 110])}})


def test_the_two_player_goals_need_80_percent_and_80_points_a_seat():
    strong = format_report({"parts": {"versus": versus_figures(190, 200, [85.0, 87.0] * 100)}})
    assert "a score rate of at least 80% (met)" in strong and "at least 80 points a seat (met)" in strong
    weak = format_report({"parts": {"versus": versus_figures(100, 200, [45.0, 47.0] * 100)}})
    assert "a score rate of at least 80% (not met)" in weak and "at least 80 points a seat (not met)" in weak
    few = format_report({"parts": {"versus": versus_figures(2, 2, [90.0, 70.0])}})
    assert "(undecided)" in few and "(met)" not in few


def test_the_report_shows_what_each_agent_did_a_seat_and_game():
    play = {"growths": 2.5, "dwellings": 3.0, "weapons": 0.25, "loot": 1.75}
    versus = {**versus_figures(150, 200, [50.0] * 200), "play": play, "opponent_play": dict(play, growths=0.5)}
    report = format_report({"parts": {"versus": versus}})
    assert "| two players, versus | `strong` | 2.50 | 3.00 | 0.25 | 1.75 |" in report
    assert "| two players, versus | `rollout` | 0.50 | 3.00 | 0.25 | 1.75 |" in report
    # a summary written before the counts existed still makes a report, without the section
    assert "What the agents do" not in format_report({"parts": {"versus": versus_figures(150, 200, [50.0] * 200)}})


def test_the_report_plays_its_parts_into_resumable_folders_and_resumes(tmp_path):
    out = tmp_path / "strength"
    args = ["--solo-games", "2", "--games", "2", "--player-games", "1", "--player-counts", "2,3",
            "--cost-games", "1", "--parts", "solo,versus,players,cost", "--out", str(out)] + CHEAP
    first = run(*args)
    assert first.returncode == 0, first.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["parts"]) == {"solo", "versus", "players", "cost"}
    solo = summary["parts"]["solo"]
    assert solo["games"] == 2 and solo["family"] >= 2 and 0 < solo["mean"] < 200
    versus = summary["parts"]["versus"]
    assert versus["games"] == 2 and versus["wins"] + versus["draws"] + versus["losses"] == 2
    assert [r["players"] for r in summary["parts"]["players"]] == [2, 3]
    assert all(2 <= r["family"] <= 5 for r in summary["parts"]["players"])
    # each family growth adds one dwarf to the 2 a seat starts with, so the counts agree with the families
    for record in [solo, versus] + summary["parts"]["players"]:
        assert set(record["play"]) == {"growths", "dwellings", "weapons", "loot"}
        assert record["play"]["growths"] == pytest.approx(record["family"] - 2)
    assert versus["opponent_play"]["growths"] == pytest.approx(versus["opponent_family"] - 2)
    assert {(r["role"], r["players"]) for r in summary["parts"]["cost"]} == {
        ("analysis", 2), ("analysis", 4), ("strongest", 1), ("strongest", 2)}
    # every match is a results folder whose games are the report's
    games = load_games(out / "players-3")
    assert len(games) == 1 and {"dwarfs_0", "dwarfs_1", "dwarfs_2"} <= set(games.columns)
    report = (out / "report.md").read_text()
    assert "## Solo" in report and "| 3 | `caverna_greedy` | 1 |" in report and "--parts solo,versus" in report
    assert "## What the agents do (a seat and game)" in report and "| 3 players, self-play | `caverna_greedy` |" in report
    # run again: the stored games are kept (same figures), and a part run alone keeps the others
    again = run(*args[:-len(CHEAP)], *CHEAP)
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "summary.json").read_text())["parts"]["solo"] == solo
    cost = run("--parts", "cost", "--cost-games", "1", "--out", str(out), *CHEAP)
    assert cost.returncode == 0, cost.stderr
    kept = json.loads((out / "summary.json").read_text())
    assert set(kept["parts"]) == {"solo", "versus", "players", "cost"}
    assert "--parts cost" in kept["commands"]["cost"] and "--parts solo" in kept["commands"]["solo"]


def test_bad_options_are_refused_saying_what_is_allowed(tmp_path):
    out = str(tmp_path / "s")
    for args, message in ((["--parts", "solo,bogus"], "unknown report part(s) bogus; parts: solo, versus"),
                          (["--games", "3"], "--games must be even and at least 2"),
                          (["--player-counts", "2,9"], "Caverna has 1 to 7 players, not 9"),
                          (["--player-counts", "two"], "--player-counts must be comma-separated numbers"),
                          (["--solo-games", "0", "--parts", "solo"], "--solo-games must be at least 1")):
        result = run(*args, "--out", out, *CHEAP)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_corrupt_summary_is_refused_with_its_location(tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    (out / "summary.json").write_text("{not json")
    result = run("--parts", "cost", "--cost-games", "1", "--out", str(out), *CHEAP)
    assert result.returncode == 2 and f"{out / 'summary.json'}: not a strength summary" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_part_stopped_midway_is_named_in_the_report_with_the_games_its_matches_stored(tmp_path, monkeypatch):
    played = []

    def stopped_after_one_match(*args, **kwargs):
        if played:
            raise KeyboardInterrupt          # Ctrl-C as the second match starts
        played.append(kwargs["out"].name)
        return real_run_match(*args, **kwargs)

    real_run_match = strength.run_match
    monkeypatch.setattr(strength, "run_match", stopped_after_one_match)
    out = tmp_path / "strength"
    with pytest.raises(KeyboardInterrupt):
        strength.strength_report(out, "cavekit strength caverna --parts players", parts=("players",),
                                 player_games=1, player_counts=(2, 3), strongest="caverna_greedy", jobs=1,
                                 progress=False)
    assert played == ["players-2"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parts"] == {} and set(summary["running"]) == {"players"}
    report = (out / "report.md").read_text()
    assert ("- players: 2 matches (`players-2/`, `players-3/`); 1 game stored so far: "
            "`cavekit strength caverna --parts players`") in report


def test_the_ladder_plays_each_preset_against_the_next_one_down_and_every_preset_solo(tmp_path, monkeypatch):
    # The real presets cost minutes a game; cheap stand-ins, one a difficulty, keep the rows told apart.
    cheap = {"easy": "caverna_greedy:weights=hand", "medium": "caverna_greedy",
             "hard": "caverna_pilot:candidates=2,horizon=1", "strongest": "caverna_pilot:candidates=3,horizon=1"}
    monkeypatch.setattr(strength, "resolve_preset", lambda spec, game: cheap.get(spec, spec))
    out = tmp_path / "strength"
    summary = strength.strength_report(out, "cavekit strength caverna --parts ladder", parts=("ladder",),
                                       ladder_games=2, ladder_solo_games=1, jobs=1, progress=False)
    assert not summary.get("running")
    ladder = summary["parts"]["ladder"]
    assert [(r["preset"], r["next_down"]) for r in ladder["two_players"]] == [
        ("strongest", "hard"), ("hard", "medium"), ("medium", "easy")]
    assert all(r["games"] == 2 for r in ladder["two_players"])
    assert [r["preset"] for r in ladder["solo"]] == ["easy", "medium", "hard", "strongest"]
    assert all(r["games"] == 1 and r["min"] == r["max"] == r["mean"] for r in ladder["solo"])
    folders = {"ladder-strongest_vs_hard", "ladder-hard_vs_medium", "ladder-medium_vs_easy",
               *(f"ladder-solo-{d}" for d in cheap)}
    assert folders <= {p.name for p in out.iterdir()}
    solo = load_games(out / "ladder-solo-medium")
    assert list(solo["agent_0"]) == ["caverna_greedy"]
    report = (out / "report.md").read_text()
    assert "## The preset ladder" in report and "Parts being re-run" not in report
    assert "| strongest (`caverna_pilot:candidates=3,horizon=1`) | hard (`caverna_pilot:candidates=2,horizon=1`) | 2 |" \
        in report
    assert "| easy | `caverna_greedy:weights=hand` | 1 |" in report
