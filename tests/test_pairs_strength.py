"""The Pairs strength report runs end to end on a tiny budget and writes what it promises."""
from __future__ import annotations

import json

from cavekit.analysis.pairs.strength import cheating_spec, main, playout_speed


def test_cheating_spec_adds_perfect_information():
    assert cheating_spec("mcts") == "mcts:perfect_information=1"
    assert cheating_spec("mcts:iterations=9") == "mcts:iterations=9,perfect_information=1"


def test_playout_speed_measures_both_engines_in_one_process():
    speed = playout_speed(players=2, seconds=0.2, seed=1)
    assert speed["reference_games_per_second"] > 0 and speed["compiled_games_per_second"] > 0
    assert speed["c_playout_ratio"] > speed["python_api_ratio"] > 1
    assert 60 < speed["steps_per_game"] < 120


def test_the_report_command_writes_tables_summary_and_markdown(tmp_path, capsys):
    out = tmp_path / "pairs"
    code = main(["--games", "2", "--jobs", "1", "--mcts", "mcts:iterations=20", "--dexpectimax",
                 "dexpectimax:determinizations=1,depth=1", "--speed-seconds", "0.05", "--quiet", "--out", str(out)])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["matches"]) == {"ismcts_vs_heuristic", "ismcts_vs_random", "cheating_vs_heuristic",
                                       "cheating_vs_ismcts", "heuristic_vs_random", "dexpectimax_vs_heuristic"}
    for name, match in summary["matches"].items():
        assert match["games"] == 2 and match["wins"] + match["draws"] + match["losses"] == 2
        assert any(out.joinpath(name).rglob("*.parquet")), f"no Parquet table for {name}"
    report = (out / "report.md").read_text()
    assert "--games 2" in report and "mcts:iterations=20,perfect_information=1" in report
    assert "Gap to the cheating upper bound" in report and "compiled (C playout)" in report
    assert report in capsys.readouterr().out
    assert main(["--games", "0", "--quiet", "--out", str(tmp_path / "bad")]) == 2
