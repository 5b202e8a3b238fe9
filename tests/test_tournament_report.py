"""`cavekit report` on a tournament folder: standings, the pairwise score-rate matrix, ratings, paired differences."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pandas as pd
import pytest

from test_report import embedded_pngs, html_tables

CLI = [sys.executable, "-m", "cavekit.analysis.cli"]
AGENTS = ["random", "greedy:max_nodes=300", "cvc_expectimax:depth=1"]


def cavekit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=600)


def table(document: str, header: str) -> list[list[str]]:
    return next(rows for rows in html_tables(document) if header in rows[0])


@pytest.fixture(scope="module", params=[[], ["--duplicate"]], ids=["plain", "duplicate"])
def tournament(request, tmp_path_factory):
    """A tiny tournament written by the real command, and its report written by the real command."""
    out = tmp_path_factory.mktemp("tournament") / "t"
    played = cavekit("tournament", "cvc", "--agents", *AGENTS, "--games", "4", "--seed", "3", "--n-boot", "50",
                     "--quiet", "--out", str(out), *request.param)
    assert played.returncode == 0, played.stderr
    done = cavekit("report", str(out))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.strip() == f"report written to {out / 'report.html'}"
    return out, (out / "report.html").read_text(encoding="utf-8"), bool(request.param)


def test_the_report_shows_the_standings_as_the_tournament_wrote_them(tournament):
    out, document, _ = tournament
    standings = pd.read_csv(out / "standings.csv")
    rows = table(document, "Elo [95% bootstrap]")
    assert [row[0] for row in rows[1:]] == list(standings["agent"])            # best first
    for row, expected in zip(rows[1:], standings.itertuples()):
        cells = dict(zip(rows[0], row))
        assert (cells["rank"], cells["games"], cells["wins"], cells["losses"]) == \
            (str(expected.rank), str(expected.games), str(expected.wins), str(expected.losses))
        assert cells["score rate [95% Wilson]"].startswith(f"{100 * expected.score_rate:.1f}% [")
        assert cells["Elo [95% bootstrap]"].split()[0] == f"{expected.elo:.0f}"
    assert len(embedded_pngs(document)) == 2                                   # ratings, and the matrix
    assert "<h2>First-seat advantage</h2>" in document and "<script" not in document


def test_the_matrix_gives_every_pairing_both_ways_with_its_interval_and_encounters(tournament):
    out, document, _ = tournament
    head = pd.read_csv(out / "head_to_head.csv")
    rows = table(document, "agent (row) against")
    columns = rows[0][1:]
    cell = {(row[0], column): value for row in rows[1:] for column, value in zip(columns, row[1:])}
    assert sorted(columns) == sorted(AGENTS)
    for r in head.itertuples():
        assert cell[(r.agent_a, r.agent_b)] == (f"{100 * r.a_score_rate:.1f}% [{100 * r.a_ci_low:.1f}, "
                                               f"{100 * r.a_ci_high:.1f}] (n={r.games})")
        assert cell[(r.agent_b, r.agent_a)].startswith(f"{100 * (1 - r.a_score_rate):.1f}% [")
    assert all(cell[(a, a)] == "-" for a in AGENTS)


def test_paired_differences_appear_for_a_duplicate_tournament_only(tournament):
    out, document, duplicate = tournament
    assert ("<h2>Paired over deals</h2>" in document) == duplicate
    if duplicate:
        paired = pd.read_csv(out / "paired.csv")
        rows = table(document, "score-rate difference [95% t over deals]")
        assert len(rows) - 1 == len(paired) == 3 and all(row[2] == "2" for row in rows[1:])    # 2 deals each


def test_a_tournament_folder_with_its_report_can_be_written_again(tournament, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(tournament[0], out)       # a copy: the other tests read the fixture's folder
    again = cavekit("tournament", "cvc", "--agents", *AGENTS[:2], "--games", "2", "--quiet", "--n-boot", "0",
                    "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert not (out / "report.html").exists()        # the old tournament's report is not left beside the new one


def test_a_damaged_tournament_folder_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "tournament.json").write_text("{not json")
    done = cavekit("report", str(folder))
    assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "tournament.json" in done.stderr and "not valid JSON" in done.stderr
    (folder / "tournament.json").write_text('{"game": "cvc", "agents": [], "format": "round robin", '
                                            '"games_per_pairing": 1, "seed": 0, "pairings": []}')
    done = cavekit("report", str(folder))
    assert done.returncode == 2 and "standings.parquet" in done.stderr and "missing" in done.stderr
