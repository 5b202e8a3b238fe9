"""A strength report's folder (`analysis.strength.StrengthFolder`): parts recorded by different runs into one
folder all survive, each with its own command."""
from __future__ import annotations

import json

from cavekit.analysis.strength import StrengthFolder


def report(summary: dict) -> str:
    return "parts: " + ", ".join(sorted(summary["parts"])) + "\n"


def test_two_runs_filling_one_folder_at_once_keep_each_others_parts(tmp_path):
    # a long match run and a quick cost run started on the same folder: both load it empty
    matches = StrengthFolder(tmp_path, "cavekit strength cvc --parts matches")
    cost = StrengthFolder(tmp_path, "cavekit strength cvc --parts cost")
    cost.record("cost", {"cpu_seconds": 0.3})
    cost.finish(report)
    matches.record("matches", {"games": 400})
    summary = matches.finish(report)
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored == summary
    assert stored["parts"] == {"cost": {"cpu_seconds": 0.3}, "matches": {"games": 400}}
    assert stored["commands"] == {"cost": "cavekit strength cvc --parts cost",
                                  "matches": "cavekit strength cvc --parts matches"}
    assert (tmp_path / "report.md").read_text() == "parts: cost, matches\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["command.txt", "report.md", "summary.json"]


def test_a_part_run_again_replaces_its_own_figures_only(tmp_path):
    StrengthFolder(tmp_path, "first").record("solo", {"mean": 50})
    StrengthFolder(tmp_path, "first").record("cost", {"cpu_seconds": 1.0})
    StrengthFolder(tmp_path, "again").record("solo", {"mean": 52})
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["parts"] == {"solo": {"mean": 52}, "cost": {"cpu_seconds": 1.0}}
    assert stored["commands"] == {"solo": "again", "cost": "first"}
