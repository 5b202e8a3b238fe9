"""A strength report's folder (`analysis.strength.StrengthFolder`): parts recorded by different runs into one
folder all survive, each with its own command, and a part a run leaves unfinished is named in the report."""
from __future__ import annotations

import json

import pytest

from cavekit.analysis.strength import StrengthFolder, running_lines


def report(summary: dict) -> str:
    return "parts: " + ", ".join(sorted(summary["parts"])) + "\n" + "\n".join(running_lines(summary))


def test_two_runs_filling_one_folder_at_once_keep_each_others_parts(tmp_path):
    # a long match run and a quick cost run started on the same folder: both load it empty
    matches = StrengthFolder(tmp_path, "cavekit strength cvc --parts matches", report)
    cost = StrengthFolder(tmp_path, "cavekit strength cvc --parts cost", report)
    cost.record("cost", {"cpu_seconds": 0.3})
    cost.finish()
    matches.record("matches", {"games": 400})
    summary = matches.finish()
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored == summary
    assert stored["parts"] == {"cost": {"cpu_seconds": 0.3}, "matches": {"games": 400}}
    assert stored["commands"] == {"cost": "cavekit strength cvc --parts cost",
                                  "matches": "cavekit strength cvc --parts matches"}
    assert (tmp_path / "report.md").read_text() == "parts: cost, matches\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["command.txt", "report.md", "summary.json"]


def test_a_part_run_again_replaces_its_own_figures_only(tmp_path):
    StrengthFolder(tmp_path, "first", report).record("solo", {"mean": 50})
    StrengthFolder(tmp_path, "first", report).record("cost", {"cpu_seconds": 1.0})
    StrengthFolder(tmp_path, "again", report).record("solo", {"mean": 52})
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["parts"] == {"solo": {"mean": 52}, "cost": {"cpu_seconds": 1.0}}
    assert stored["commands"] == {"solo": "again", "cost": "first"}


def test_a_part_stopped_midway_is_named_in_the_report_until_a_run_finishes_it(tmp_path):
    StrengthFolder(tmp_path, "first", report).record("match:a_vs_b", {"score_rate": 0.6})
    again = StrengthFolder(tmp_path, "cavekit strength cvc --parts match:a_vs_b", report)
    with pytest.raises(KeyboardInterrupt):
        with again.running("match:a_vs_b", "`new` against `b`", results=["a_vs_b"]):
            raise KeyboardInterrupt         # Ctrl-C while the match plays
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["parts"]["match:a_vs_b"] == {"score_rate": 0.6}      # the earlier run's figures stay
    assert set(stored["running"]) == {"match:a_vs_b"}
    written = (tmp_path / "report.md").read_text()
    assert "Parts being re-run" in written and "the earlier run's" in written
    assert "- match:a_vs_b: `new` against `b`: `cavekit strength cvc --parts match:a_vs_b`" in written
    # the same command run to the end records the part, which ends the mark
    with again.running("match:a_vs_b", "`new` against `b`", results=["a_vs_b"]):
        again.record("match:a_vs_b", {"score_rate": 0.7})
    again.finish()
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert "running" not in stored and stored["parts"]["match:a_vs_b"] == {"score_rate": 0.7}
    assert "re-run" not in (tmp_path / "report.md").read_text()
