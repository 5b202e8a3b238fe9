"""The Cave vs Cave strength report (`cavekit strength cvc`): verdicts drawn from intervals, so two games never
read as a goal met (issue 22), the parts issue 23 asks for, and a run of some parts keeping the others."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd

from cavekit.analysis.cvc.strength import format_report
from cavekit.analysis.stats import mean_interval, wilson_interval

CLI = [sys.executable, "-m", "cavekit"]


def match(wins: int, games: int) -> dict:
    low, high = wilson_interval(wins, games)
    return {"agent": "strong", "opponent": "weak", "games": games, "wins": wins, "draws": 0, "losses": games - wins,
            "score_rate": wins / games, "ci95_low": low, "ci95_high": high, "paired_ci95_low": low,
            "paired_ci95_high": high, "deals": games // 2, "mean_points": 50.0, "opponent_mean_points": 40.0,
            "seconds_per_game": 1.0}


def summary(wins: int, games: int, solo_scores: list[int], rung: str = "match:hard_vs_medium") -> dict:
    mean, mean_low, mean_high = mean_interval(solo_scores)
    solo = {"agent": "strong", "games": len(solo_scores), "mean": mean, "mean_low": mean_low, "mean_high": mean_high,
            "std": 1.0, "min": min(solo_scores), "max": max(solo_scores),
            "share_at_least_50": sum(s >= 50 for s in solo_scores) / len(solo_scores),
            "share_at_least_60": sum(s >= 60 for s in solo_scores) / len(solo_scores),
            "cpu_seconds_per_game": 30.0, "max_cpu_seconds": 40.0}
    return {"commands": {"solo": "cavekit strength cvc"},
            "parts": {"solo": solo, "match:strongest_vs_mcts": match(wins, games), rung: match(wins, games)}}


def test_two_games_won_are_undecided_not_a_goal_met():
    report = format_report(summary(2, 2, [68, 74]))
    assert ">= 75%: undecided" in report and ">= 75%: met" not in report
    assert "a mean of at least 65 (undecided)" in report


def test_enough_games_give_a_verdict_either_way():
    assert ">= 75%: met" in format_report(summary(190, 200, [66] * 100 + [68] * 100))
    assert ">= 75%: not met" in format_report(summary(100, 200, [40] * 200))
    assert "a mean of at least 65 (met)" in format_report(summary(190, 200, [66] * 100 + [68] * 100))
    assert "a mean of at least 65 (not met)" in format_report(summary(190, 200, [40] * 200))


def test_the_share_reaching_fifty_is_judged_by_its_interval():
    assert "reaching 50 (met)" in format_report(summary(1, 2, [66] * 200))
    assert "reaching 50 (not met)" in format_report(summary(1, 2, [66] * 100 + [40] * 100))
    assert "reaching 50 (undecided)" in format_report(summary(1, 2, [66] * 9 + [40]))


def test_a_ladder_rung_must_win_more_than_half():
    report = format_report(summary(150, 200, [60] * 10))
    assert "> 50%: met" in report
    assert "> 50%: not met" in format_report(summary(80, 200, [60] * 10))


def test_a_run_of_some_parts_keeps_the_others_and_says_which_command_made_each(tmp_path):
    out = tmp_path / "strength"
    base = CLI + ["strength", "cvc", "--games", "2", "--solo-games", "2", "--jobs", "1", "--quiet", "--out", str(out)]
    solo = subprocess.run(base + ["--parts", "solo,ceiling,nrpa_ceiling", "--strongest", "cvc_plan:candidates=1,futures=1",
                                  "--nrpa", "cvc_nrpa:level=1,iterations=2,candidates=2"],
                          capture_output=True, text=True, timeout=300)
    assert solo.returncode == 0, solo.stderr
    ladder = subprocess.run(base + ["--parts", "matches", "--strongest", "greedy", "--analysis", "greedy",
                                    "--mcts", "random", "--weak-mcts", "random"],
                            capture_output=True, text=True, timeout=300)
    assert ladder.returncode == 0, ladder.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert {"solo", "ceiling", "nrpa_ceiling", "match:strongest_vs_mcts", "match:strongest_vs_greedy",
            "match:analysis_vs_weak_mcts"} == set(summary["parts"])
    assert "--parts solo,ceiling,nrpa_ceiling" in summary["commands"]["nrpa_ceiling"]
    assert "--parts matches" in summary["commands"]["match:strongest_vs_greedy"]
    # told the deal, the planner plays the same deals: its ceiling is a real score on each of them
    assert summary["parts"]["ceiling"]["games"] == summary["parts"]["solo"]["games"] == 2
    assert summary["parts"]["nrpa_ceiling"]["games"] == 2
    assert summary["parts"]["nrpa_ceiling"]["agent"] == "cvc_nrpa:level=1,iterations=2,candidates=2"
    solo_games = pd.read_parquet(out / "solo.parquet")
    assert sorted(solo_games.groupby("part")["deal"].apply(list).items()) == [
        ("ceiling", [0, 1]), ("nrpa_ceiling", [0, 1]), ("solo", [0, 1])]
    report = (out / "report.md").read_text()
    assert "told the deal (ceiling)" in report and "`greedy` vs `random`" in report
    assert "told the deal (NRPA ceiling" in report
    assert "decided by the tie-break" in report and summary["parts"]["match:strongest_vs_greedy"]["tied_on_points"] >= 0


def test_one_match_can_be_run_alone_as_a_part(tmp_path):
    # After one agent changes, its match is re-run without replaying the others.
    out = tmp_path / "strength"
    done = subprocess.run(CLI + ["strength", "cvc", "--parts", "match:strongest_vs_greedy", "--strongest", "greedy",
                                 "--games", "2", "--jobs", "1", "--quiet", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["parts"]) == {"match:strongest_vs_greedy"}
    assert summary["parts"]["match:strongest_vs_greedy"]["games"] == 2
    assert (out / "strongest_vs_greedy").is_dir() and not (out / "strongest_vs_mcts").exists()


def test_a_solo_table_from_before_the_nrpa_ceiling_keeps_its_games(tmp_path):
    """A report folder made before solo.parquet had its `part` column gains the new part beside the old ones."""
    out = tmp_path / "strength"
    base = CLI + ["strength", "cvc", "--solo-games", "2", "--jobs", "1", "--quiet", "--out", str(out)]
    old = subprocess.run(base + ["--parts", "solo,ceiling", "--strongest", "cvc_plan:candidates=1,futures=1"],
                         capture_output=True, text=True, timeout=300)
    assert old.returncode == 0, old.stderr
    pd.read_parquet(out / "solo.parquet").drop(columns="part").to_parquet(out / "solo.parquet", index=False)
    new = subprocess.run(base + ["--parts", "nrpa_ceiling", "--nrpa", "cvc_nrpa:level=1,iterations=2,candidates=2"],
                         capture_output=True, text=True, timeout=300)
    assert new.returncode == 0, new.stderr
    table = pd.read_parquet(out / "solo.parquet")
    assert table.groupby("part")["clairvoyant"].agg(list).to_dict() == {
        "solo": [False, False], "ceiling": [True, True], "nrpa_ceiling": [True, True]}


def test_bad_parts_and_odd_game_counts_are_refused_saying_what_is_allowed(tmp_path):
    base = CLI + ["strength", "cvc", "--jobs", "1", "--quiet", "--out", str(tmp_path / "s")]
    done = subprocess.run(base + ["--parts", "solo,bogus"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "unknown report part(s) bogus" in done.stderr and "ladder" in done.stderr
    assert "match:strongest_vs_greedy" in done.stderr
    assert "Traceback" not in done.stderr
    done = subprocess.run(base + ["--parts", "matches", "--games", "3"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "--games must be even" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(base + ["--parts", "ceiling", "--strongest", "greedy", "--solo-games", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "cannot be told" in done.stderr and "Traceback" not in done.stderr


def test_an_interrupted_solo_part_keeps_its_finished_games_and_plays_only_the_missing_ones(tmp_path):
    out = tmp_path / "strength"
    command = CLI + ["strength", "cvc", "--parts", "solo", "--solo-games", "6", "--jobs", "1", "--quiet",
                     "--strongest", "cvc_plan:candidates=1,futures=1", "--out", str(out)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    games = out / "solo_games"
    assert sorted(p.name for p in games.iterdir()) == ["games-00000.parquet", "games-00005.parquet"]
    played = pd.read_parquet(out / "solo.parquet")
    # as if the run had stopped before deal 5: its chunk is missing; deals 0-4 are kept, marked to tell them apart
    (games / "games-00005.parquet").unlink()
    kept = pd.read_parquet(games / "games-00000.parquet").assign(seconds=-1.0)
    kept.to_parquet(games / "games-00000.parquet", index=False)
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    resumed = pd.read_parquet(out / "solo.parquet")
    assert list(resumed["deal"]) == list(range(6))
    assert (resumed["seconds"][:5] == -1.0).all() and resumed["seconds"][5] > 0      # kept, and played again
    assert list(resumed["score"]) == list(played["score"])


def test_a_damaged_or_foreign_solo_chunk_is_refused_with_its_location(tmp_path):
    out = tmp_path / "strength"
    command = CLI + ["strength", "cvc", "--parts", "solo", "--solo-games", "1", "--jobs", "1", "--quiet",
                     "--strongest", "cvc_plan:candidates=1,futures=1", "--out", str(out)]
    assert subprocess.run(command, capture_output=True, text=True, timeout=300).returncode == 0
    other = subprocess.run(command[:-3] + ["cvc_plan:candidates=2,futures=1", "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert other.returncode != 0 and "games of another run" in other.stderr and "games-00000.parquet" in other.stderr
    (out / "solo_games" / "games-00000.parquet").write_bytes(b"not parquet")
    damaged = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert damaged.returncode != 0 and "games-00000.parquet: not a table of solo games" in damaged.stderr
    assert "remove it" in damaged.stderr and "Traceback" not in damaged.stderr + other.stderr


def test_the_report_says_how_many_games_the_tie_break_decided_and_who_won_them():
    tied = summary(150, 200, [60] * 10)
    tied["parts"]["match:strongest_vs_mcts"].update(tied_on_points=9, decided_by_tie_break=8,
                                                    tie_break_won_by_first_player=6, draws=1)
    report = format_report(tied)
    assert "| `strong` vs `weak` | 9 | 8 | 6 | 1 |" in report


def test_no_workers_is_refused_in_one_line_before_anything_is_written(tmp_path):
    out = tmp_path / "s"
    done = subprocess.run(CLI + ["strength", "cvc", "--parts", "solo", "--jobs", "0", "--quiet", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, "cavekit: error: jobs must be at least 1, not 0\n")
    assert not out.exists()


def test_a_match_stopped_by_ctrl_c_is_named_in_the_report_with_the_games_it_stored(tmp_path):
    out = tmp_path / "strength"
    command = CLI + ["strength", "cvc", "--parts", "match:strongest_vs_greedy", "--strongest", "random", "--greedy",
                     "random", "--games", "400", "--jobs", "1", "--quiet", "--out", str(out)]
    # Ctrl-C as from a shell (the test runner's workers may ignore SIGINT, which a child would inherit)
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    manifest = out / "strongest_vs_greedy" / "manifest.json"
    deadline = time.monotonic() + 180
    while not (manifest.exists() and json.loads(manifest.read_text() or "{}").get("chunks")):
        assert process.poll() is None and time.monotonic() < deadline, "no chunk stored within 3 minutes"
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in stderr
    stored = json.loads(manifest.read_text())["games_done"]
    assert 1 <= stored < 400, "the Ctrl-C should stop the match midway"
    summary = json.loads((out / "summary.json").read_text())
    assert "match:strongest_vs_greedy" not in summary["parts"]
    assert set(summary["running"]) == {"match:strongest_vs_greedy"}
    report = (out / "report.md").read_text()
    assert "## Parts being re-run" in report
    assert (f"- match:strongest_vs_greedy: `random` against `random`; {stored} of 400 games stored so far: "
            f"`cavekit strength cvc --parts match:strongest_vs_greedy") in report
