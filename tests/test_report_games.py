"""`cavekit report` on The Cave, Cavum and Caverna folders: each game's own sections, checked against the games."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cavekit.analysis.results import load_results
from test_report import html_tables

CLI = [sys.executable, "-m", "cavekit.analysis.cli"]


def cavekit(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def report_of(folder: Path, game: str, agents: list[str], games: int, *extra: str) -> str:
    """Play a small batch with the real command, report it with the real command; the HTML."""
    cavekit("match", game, "--agents", *agents, "--games", str(games), "--seed", "1", "--out", str(folder),
            "--quiet", *extra)
    done = cavekit("report", str(folder))
    assert done.stderr == "" and "report written to" in done.stdout
    return (folder / "report.html").read_text(encoding="utf-8")


def section(document: str, title: str) -> str:
    """The HTML of the section titled `title` (which must be there)."""
    assert f"<h2>{title}</h2>" in document, f"no section {title!r}"
    return document.split(f"<h2>{title}</h2>", 1)[1].split("</section>", 1)[0]


def table(html: str, header: str) -> list[dict[str, str]]:
    """The rows, as {column: cell}, of the table in `html` with a column `header`."""
    for rows in html_tables(html):
        if header in rows[0]:
            return [dict(zip(rows[0], row)) for row in rows[1:] if row]
    raise AssertionError(f"no table with the column {header!r}")


def first_number(cell: str) -> float:
    return float(cell.split()[0].rstrip("%"))


def test_the_cave_gets_seat_order_and_points_per_rank(tmp_path):
    folder = tmp_path / "pairs"
    document = report_of(folder, "pairs", ["random", "pairs_heuristic"], 6)
    games, _ = load_results(folder)
    seats = table(section(document, "Seat order (The Cave)"), "win share [95% Wilson]")
    assert [row["position"] for row in seats] == ["1st to play", "2nd to play"]
    assert all(row["player-games"] == "6" for row in seats)
    # Win shares add up to every match won once (shared wins split), and the leader's share is its count.
    assert sum(first_number(row["win share [95% Wilson]"]) for row in seats) == pytest.approx(100, abs=0.2)
    led = games["winner"] == games["first_player"]
    assert first_number(seats[0]["win share [95% Wilson]"]) == pytest.approx(100 * led.mean(), abs=0.1)
    ranks = table(section(document, "Points per rank of captured cards (The Cave)"), "share of all points")
    assert [row["rank"] for row in ranks] == [str(r) for r in range(1, 11)]
    assert all(row["player-games"] == "12" for row in ranks)
    # The ranks' mean points per player-game add up to the mean match score.
    total = sum(first_number(row["mean points per player-game [95%]"]) for row in ranks)
    mean_score = np.mean([games[f"score_{p}"].mean() for p in range(2)])
    assert total == pytest.approx(mean_score, abs=0.06)


def test_cavum_gets_bids_and_turn_order_against_results(tmp_path):
    folder = tmp_path / "cavum"
    document = report_of(folder, "cavum", ["random", "cavum_heuristic"], 6)
    games, decisions = load_results(folder)
    bids = section(document, "Bids for turn order (Cavum)")
    taken = table(bids, "taken without an auction")
    auctions = {row["phase"]: row for row in table(bids, "winning bid [95%]")}
    for row in taken:
        assert row["cards"] == "12"     # every player takes one card per phase, 6 games x 2 players
        held = int(auctions[row["phase"]]["auctions"]) if row["phase"] in auctions else 0
        assert held + int(row["taken without an auction"]) == 12
    # The winning bids are the prices the auction winners paid, read from the decision rows.
    chosen = decisions[(decisions["stage"] == "card choice") & (decisions["phase"] == 1)]
    assert int(first_number(auctions["1"]["max"])) == int(chosen["standing_bid"].fillna(0).max())
    order = table(section(document, "Turn order and results (Cavum)"), "win rate [95%]")
    assert {(row["phase"], row["position"]) for row in order} == {(p, k) for p in ("1", "2", "3", "all")
                                                                  for k in ("1", "2")}
    for row in order:
        assert row["holders"] == ("18" if row["phase"] == "all" else "6") and row["games"] == "6"
    # In each phase one holder wins each game: the two positions' win rates add up to 100%.
    for phase in ("1", "2", "3"):
        rates = [first_number(r["win rate [95%]"]) for r in order if r["phase"] == phase]
        assert sum(rates) == pytest.approx(100, abs=0.2)


def test_caverna_gets_points_per_category_and_family_size(tmp_path):
    folder = tmp_path / "caverna"
    document = report_of(folder, "caverna", ["random", "caverna_heuristic"], 2)
    games, _ = load_results(folder)
    categories = section(document, "Points per scoring category (Caverna)")
    rows = table(categories, "random (n=2)")
    assert [row["category"] for row in rows][:3] == ["animals", "missing farm animal types", "grain"]
    for agent in ("random", "caverna_heuristic"):
        mean = sum(first_number(row[f"{agent} (n=2)"]) for row in rows)
        scores = [games.loc[games[f"agent_{p}"] == agent, f"score_{p}"] for p in range(2)]
        assert mean == pytest.approx(np.concatenate(scores).mean(), abs=0.7)   # 13 categories rounded to 0.1
    family = section(document, "Family size (Caverna)")
    sizes = table(family, "score rate [95% Wilson]")
    dwarfs = np.concatenate([games[f"dwarfs_{p}"] for p in range(2)])
    assert {int(r["dwarfs"]): int(r["player-games"]) for r in sizes} == \
        {int(k): int(v) for k, v in zip(*np.unique(dwarfs, return_counts=True))}
    assert all(int(r["dwarfs"]) >= 2 for r in sizes)


def test_caverna_outcome_columns_add_up_to_the_score(tmp_path):
    folder = tmp_path / "solo"
    cavekit("match", "caverna", "--agents", "caverna_heuristic", "--players", "1", "--games", "1", "--seed", "2",
            "--out", str(folder), "--quiet")
    games, _ = load_results(folder)
    assert sum(games["category_points_0"][0]) == games["score_0"][0] and games["dwarfs_0"][0] >= 2
    cavekit("report", str(folder))
    document = (folder / "report.html").read_text(encoding="utf-8")
    assert "score rate" not in section(document, "Family size (Caverna)")     # solo: no wins to rate
