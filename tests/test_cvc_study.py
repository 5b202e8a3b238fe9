"""The Cave vs Cave balance study (`cavekit cvc-study`): the analysis agent's findings beside a weaker agent's on
the same deals, with what changed between them judged by the interval of the difference (issue 23)."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pandas as pd
import pytest

from cavekit.analysis.cvc.study import TABLES, changes, load_tables, study_tables, summary_markdown
from cavekit.analysis.results import load_games

CLI = [sys.executable, "-m", "cavekit"]


def finding(analysis: tuple[float, float, float], reference: tuple[float, float, float]) -> dict[str, pd.DataFrame]:
    """Study tables holding one finding (the first player's score rate) of each agent."""
    rows = [{"agent": side, "score_rate": v, "ci95_low": lo, "ci95_high": hi, "mean_score_margin": 0.0,
             "margin_low": -1.0, "margin_high": 1.0, "mean_score": 50.0, "score_low": 49.0, "score_high": 51.0}
            for side, (v, lo, hi) in (("analysis", analysis), ("reference", reference))]
    empty = pd.DataFrame({"agent": []})
    return {"outcomes": pd.DataFrame(rows), "tiles": empty.assign(tile=[], taker_score_rate=[], ci95_low=[],
                                                                    ci95_high=[]),
            "room_regression": empty.assign(name=[], coef=[], ci95_low=[], ci95_high=[]), "room_bans": empty,
            "openings": empty.assign(line=[], games=[])}


def test_a_finding_changes_when_the_interval_of_the_difference_excludes_zero():
    table = changes(finding((0.60, 0.55, 0.65), (0.50, 0.45, 0.55))).set_index("measure")
    row = table.loc["first player's score rate"]
    assert row["difference"] == pytest.approx(0.10)
    # each interval is +-0.05, so the difference's is +-0.05 * sqrt(2)
    assert row["difference_low"] == pytest.approx(0.10 - 0.05 * 2 ** 0.5)
    assert row["changed"]
    assert not table.loc["mean score a seat (points)", "changed"]


def test_overlapping_findings_within_noise_are_not_a_change():
    row = changes(finding((0.54, 0.49, 0.59), (0.50, 0.45, 0.55))).set_index("measure").loc["first player's score rate"]
    assert row["difference_low"] < 0 < row["difference_high"] and not row["changed"]


def test_the_study_plays_both_agents_on_the_same_deals_writes_its_tables_and_resumes(tmp_path):
    out = tmp_path / "study"
    command = CLI + ["cvc-study", "--games", "4", "--ban-games", "2", "--agent", "greedy", "--reference",
                     "cvc_expectimax:depth=1", "--jobs", "1", "--quiet", "--out", str(out)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    tables = load_tables(out)
    assert set(tables) == set(TABLES)
    assert list(tables["outcomes"]["spec"]) == ["greedy", "cvc_expectimax:depth=1"]
    analysis, reference = load_games(out / "runs" / "selfplay"), load_games(out / "runs" / "reference")
    assert list(analysis["deal_seed"]) == list(reference["deal_seed"])          # the same deals
    assert set(tables["room_bans"]["agent"]) == {"analysis", "reference"} and len(tables["room_bans"]) == 48
    measures = set(tables["changes"]["measure"])
    assert {"first player's score rate", "takers' score rate: Excavation",
            "room access value (score rate): Sacrificial Altar"} <= measures
    assert "decided by the tie-break" in first.stdout and "What changed with the analysis agent" in first.stdout
    assert (out / "command.txt").read_text().startswith("cavekit cvc-study --games 4")
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stdout == first.stdout        # everything was kept, nothing replayed
    # A study still playing its bans: the rooms so far, each with its number of paired seat-games.
    runs = out / "runs"
    for ban in runs.glob("room_bans/ban_*"):
        if not ban.name.startswith("ban_parlor_"):
            shutil.rmtree(ban)
    partial = study_tables(runs)
    bans = partial["room_bans"]
    assert list(bans.loc[bans["agent"] == "analysis", "name"]) == ["Parlor"]
    assert set(bans.loc[bans["agent"] == "analysis", "paired"]) == {4}    # 2 games x 2 barred seats
    assert (bans["agent"] == "reference").sum() == 24
    summary = summary_markdown(partial)
    assert "| Parlor | " in summary and "| Bakehouse | - | - | - | " in summary
    shutil.rmtree(runs / "room_bans" / "ban_parlor_p0"), shutil.rmtree(runs / "room_bans" / "ban_parlor_p1")
    assert set(study_tables(runs)["room_bans"]["agent"]) == {"reference"}     # no ban run started yet
    (out / "tables" / "tiles.parquet").write_bytes(b"not parquet")
    with pytest.raises(Exception, match="tiles.parquet: not a readable Parquet table"):
        load_tables(out)
    with pytest.raises(Exception, match="outcomes.parquet: missing: not a folder made by `cavekit cvc-study`"):
        load_tables(tmp_path)


@pytest.mark.parametrize("options,message", [
    (["--games", "1"], "--games must be a whole number of games, at least 2"),
    (["--ban-games", "-1"], "--ban-games must be a whole number of games, at least 0"),
    (["--agent", "greedy", "--reference", "easy"], "the analysis and reference agents are both greedy"),
])
def test_bad_study_options_are_refused_saying_what_is_allowed(tmp_path, options, message):
    done = subprocess.run(CLI + ["cvc-study", "--quiet", "--out", str(tmp_path / "s"), *options],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
