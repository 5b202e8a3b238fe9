"""The Caverna balance study: its tables on constructed games (known answers), and the study command end to end.

Constructed tables plant an answer (a seat that always wins, a space only winners take, two well-separated
kinds of end position) and check that the tables find it with intervals that cover it. The command test plays
a tiny study through `cavekit caverna-study`, resumes it, and checks the notebook's tables, the summary and
the error paths a user can hit (bad options, a folder that is not a study, a damaged table); the study report
(`cavekit report STUDY`) is written from the committed sample study.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.caverna.balance import (action_space_rates, archetypes, armed_seats, category_points,
                                              furnishing_names, furnishing_rates, seat_advantage, seat_outcomes)
from cavekit.analysis.caverna.outcomes import CATEGORIES
from cavekit.analysis.caverna.study import TABLES, load_tables
from cavekit.analysis.caverna.study_summary import armed_part, ban_part, markdown_lines, space_part
from cavekit.analysis.study_tables import study_game

SAMPLE_STUDY = Path(__file__).resolve().parent.parent / "results" / "samples" / "caverna_balance"
ANIMALS = CATEGORIES.index("animals")
FURNISHING_VP = CATEGORIES.index("furnishing_vp")


def games_table(scores: list[list[int]], first: list[int], points: list[list[list[int]]] | None = None,
                dwarfs: list[list[int]] | None = None) -> pd.DataFrame:
    """A games table as a results folder holds it: scores per game and seat, the first player, categories."""
    n = len(scores[0])
    rows = []
    for g, (s, f) in enumerate(zip(scores, first)):
        best = max(s)
        winners = [p for p in range(n) if s[p] == best]
        row = {"game": g, "first_player": f}
        for p in range(n):
            cats = points[g][p] if points else [s[p]] + [0] * (len(CATEGORIES) - 1)
            row.update({f"agent_{p}": "a", f"score_{p}": s[p],
                        f"return_{p}": (1.0 / len(winners) if p in winners else -1.0 / (n - len(winners)))
                        if len(winners) < n else 0.0,
                        f"category_points_{p}": cats, f"dwarfs_{p}": dwarfs[g][p] if dwarfs else 2})
        rows.append(row)
    return pd.DataFrame(rows)


def test_seat_outcomes_split_shared_wins_and_count_positions_from_the_starting_player():
    games = games_table([[50, 40, 50], [30, 60, 20]], first=[1, 2])
    rows = seat_outcomes(games).set_index(["game", "player"])
    assert rows["win_share"].groupby("game").sum().tolist() == [1.0, 1.0]
    assert rows.loc[(0, 0), "win_share"] == rows.loc[(0, 2), "win_share"] == 0.5
    assert rows.loc[(1, 1), "win_share"] == 1.0
    assert rows.loc[(0, 1), "position"] == 1 and rows.loc[(0, 0), "position"] == 3
    assert rows.loc[(1, 2), "position"] == 1 and rows.loc[(1, 0), "position"] == 2
    assert rows.loc[(0, 1), "score_share"] == pytest.approx(40 / 140)
    assert rows.loc[(1, 1), "animals"] == 60


def test_seat_advantage_finds_a_starting_player_who_always_wins():
    rng = np.random.default_rng(0)
    scores = [[60, int(rng.integers(20, 50)), int(rng.integers(20, 50))] for _ in range(60)]
    first = [0] * 60
    table = seat_advantage({3: games_table(scores, first)})
    start = table.loc[(3, 1)]
    assert start["win_share"] == 1.0 and start["win_low"] > 1 / 3 and start["fair"] == pytest.approx(1 / 3)
    later = table.loc[(3, 2)]
    assert later["win_share"] == 0.0 and later["win_high"] < 1 / 3
    assert start["margin_low"] > 0 > table.loc[(3, 3), "margin_high"]


def test_armed_seats_compare_the_seats_that_forged_with_the_others_and_find_who_forges():
    # 20 three-player games; the last seat to play (player 2, position 3 with player 0 first) forges and wins
    # 15 of them, and player 0 forges twice in a game it loses.
    games = games_table([[40, 30, 60]] * 15 + [[60, 30, 40]] * 5, first=[0] * 20)
    forges = [{"game": g, "player": 2, "kind": "forge"} for g in range(20)]
    forges += [{"game": 0, "player": 0, "kind": "forge"}] * 2 + [{"game": 1, "player": 1, "kind": "grow"}]
    row = armed_seats(games, pd.DataFrame(forges)).iloc[0]
    assert row["seats"] == 60 and row["armed"] == pytest.approx(21 / 60)
    assert row["win_share"] == pytest.approx(15 / 21) and row["win_low"] > 1 / 3
    assert row["others_win_share"] == pytest.approx(5 / 39) and row["fair"] == pytest.approx(1 / 3)
    assert row["armed_score"] == pytest.approx((15 * 60 + 5 * 40 + 40) / 21)
    assert row["forges"] == pytest.approx(22 / 20)
    assert row["top_position"] == 3 and row["top_position_share"] == pytest.approx(20 / 22)
    text = "\n".join(markdown_lines(armed_part(pd.DataFrame([{**row.to_dict(), "players": 3}]))))
    assert "| 3 | 35% | 0.714 [" in text and "| 3 (91%) |" in text


def test_action_space_rates_credit_the_space_only_winners_take():
    games = games_table([[60, 30]] * 20, first=[0, 1] * 10)
    decisions = pd.DataFrame([{"game": g, "player": p, "kind": "place", "round": 3,
                               "space": "ruby_mining" if p == 0 else "supplies", "furnishing": None}
                              for g in range(20) for p in range(2)])
    table = action_space_rates(decisions, games, by_round=True)
    assert table.loc[("Ruby mining", 3), "win_share"] == 1.0 and table.loc[("Ruby mining", 3), "win_low"] > 0.5
    assert table.loc[("Supplies", 3), "win_share"] == 0.0
    assert table.loc[("Ruby mining", 3), "score_share"] == pytest.approx(60 / 90)
    assert table.loc[("Supplies", 3), "placements"] == 20 and table.loc[("Supplies", 3), "per_game"] == 1.0


def test_furnishing_rates_count_seats_that_built_a_tile():
    games = games_table([[60, 30]] * 10, first=[0] * 10)
    decisions = pd.DataFrame([{"game": g, "player": 0, "kind": "furnish", "round": 5, "space": None,
                               "furnishing": "guest_room"} for g in range(5)])
    table = furnishing_rates(decisions, games)
    assert table.loc["guest_room", "build_rate"] == pytest.approx(5 / 20)
    assert table.loc["guest_room", "name"] == "Guest room" and table.loc["guest_room", "mean_round"] == 5


def test_tiles_that_share_a_printed_name_are_labelled_by_their_cost():
    names = furnishing_names()
    assert names["simple_dwelling_4w2s"] == "Simple dwelling (4 wood, 2 stone)"
    assert names["simple_dwelling_3w3s"] == "Simple dwelling (3 wood, 3 stone)"
    assert names["dwelling"] == "Dwelling" and len(set(names.values())) == len(names) == 48


def test_archetypes_recover_two_planted_styles_and_name_them_by_what_scores():
    """Half the seats score with animals, half with furnishings: two clusters, named so, the furnishers winning."""
    points, scores = [], []
    rng = np.random.default_rng(1)
    for g in range(40):
        animal, furnish = [0] * len(CATEGORIES), [0] * len(CATEGORIES)
        animal[ANIMALS] = int(rng.integers(20, 25))
        furnish[FURNISHING_VP] = int(rng.integers(30, 35))
        points.append([animal, furnish])
        scores.append([sum(animal), sum(furnish)])
    games = games_table(scores, first=[0] * 40, points=points)
    decisions = pd.DataFrame([{"game": g, "player": 1, "kind": "furnish", "round": 4, "space": None,
                               "furnishing": "dwelling"} for g in range(40)])
    members, summary = archetypes(games, decisions, clusters=2, seed=0)
    assert len(summary) == 2 and set(summary["seats"]) == {40}
    by_player = members.groupby("player")["archetype"].nunique()
    assert by_player.tolist() == [1, 1]                  # every seat of a kind lands in the same cluster
    furnishers = members.loc[members["player"] == 1, "archetype"].iloc[0]
    assert "furnishing vp" in furnishers and summary.loc[furnishers, "win_share"] == 1.0
    assert "animals" in members.loc[members["player"] == 0, "archetype"].iloc[0]
    again = archetypes(games, decisions, clusters=2, seed=0)[1]
    pd.testing.assert_frame_equal(again, summary)


def test_category_points_winners_against_the_others():
    games = games_table([[60, 30]] * 10, first=[0] * 10)
    table = category_points(games, by="winners")
    assert table.loc[("winners", "animals"), "points"] == 60
    assert table.loc[("the others", "animals"), "points"] == 30
    with pytest.raises(Exception, match="choose agent, position or winners"):
        category_points(games, by="colour")


def test_the_summary_lists_only_the_action_spaces_whose_interval_excludes_the_fair_share():
    spaces = pd.DataFrame([
        {"space": "Adventure", "players": 2, "per_game": 0.4, "fair": 0.5, "win_share": 0.35, "win_low": 0.28,
         "win_high": 0.42},
        {"space": "Logging", "players": 2, "per_game": 1.0, "fair": 0.5, "win_share": 0.52, "win_low": 0.47,
         "win_high": 0.57},
        {"space": "Blacksmithing", "players": 7, "per_game": 1.7, "fair": 1 / 7, "win_share": 0.36, "win_low": 0.29,
         "win_high": 0.44}])
    text = "\n".join(markdown_lines(space_part(spaces)))
    assert "(2 of 3 space and player-count pairs)" in text
    assert "| 2 | Adventure | 0.40 | 0.350 [0.280, 0.420] | 0.500 |" in text
    assert "| 7 | Blacksmithing | 1.70 |" in text and "Logging" not in text


def test_the_summary_ranks_built_tiles_and_reports_the_placebo_check():
    def tile(name, access, low, high, rate, placebo):
        return {"name": name, "paired": 200, "access_score": access, "score_low": low, "score_high": high,
                "build_rate": rate, "per_build_score": access / rate if not placebo else float("nan"),
                "placebo": placebo}
    bans = pd.DataFrame([tile("Dwelling", 4.4, 1.7, 7.2, 1.0, False), tile("Builder", 1.0, -0.3, 2.3, 0.0, True),
                         tile("Trader", -1.0, -2.3, 0.3, 0.0, True), tile("Wood supplier", 1.2, -0.1, 2.5, 0.01, False),
                         tile("Couple dwelling", -2.6, -4.1, -1.1, 0.12, False)])
    text = "\n".join(markdown_lines(ban_part(bans)))
    assert "against the mean of the 2 placebo tiles' runs (built by under 1% of seats)" in text
    assert "| Dwelling | 100% | 4.40 [1.70, 7.20] | 4.4 |" in text
    assert "Builder |" not in text                                   # a placebo is not ranked as a tile's value
    assert "| Wood supplier | 1% | 1.20 [-0.10, 2.50] | - |" in text    # 120 a build would be noise magnified
    assert "Access lowers the score (interval below 0): Couple dwelling -2.60 [-4.10, -1.10], built by 12%." in text
    assert "average +0.00 points, sd 1.41; 0 of 2 intervals exclude 0" in text


def cavekit(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cavekit", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=900)


def test_the_study_command_plays_resumes_and_writes_the_notebook_tables(tmp_path):
    out = tmp_path / "study"
    args = ["caverna-study", "--games", "6", "--large-games", "3", "--ban-games", "2", "--strongest-games", "2",
            "--player-counts", "2,5", "--tiles", "dwelling", "guest_room", "--jobs", "1", "--quiet", "--out", str(out)]
    first = cavekit(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "# Caverna balance study" in first.stdout and "| 5 | 5 | 3 |" in first.stdout
    tables = load_tables(out)
    assert set(tables) == set(TABLES)
    assert sorted(tables["seat_advantage"]["players"].unique()) == [2, 5]
    assert set(tables["furnishing_bans"]["furnishing"]) == {"dwelling", "guest_room"}
    assert (tables["furnishing_bans"]["paired"] == 4).all()          # 2 games x 2 barred seats
    assert tables["agent_comparison"]["games"].iloc[0] == 2
    # The summary's category table shows each count's mean points a seat, as the categories table has them.
    animals = tables["categories"].set_index(["category", "players"])["points"]
    row = next(line for line in first.stdout.splitlines() if line.startswith("| animals |"))
    assert row.split(" | ")[1].split(" ")[0] == f"{animals[('animals', 2)]:.1f}"
    assert row.split(" | ")[2].split(" ")[0] == f"{animals[('animals', 5)]:.1f}"
    assert "## Action spaces whose takers win more or less than their fair share" in first.stdout
    assert (out / "command.txt").read_text().startswith("cavekit caverna-study --games 6")
    assert study_game(out) == "caverna"                  # so that `cavekit report` finds the study report
    manifests = sorted(p.parent.name for p in (out / "runs").rglob("manifest.json"))
    assert manifests == ["ban_dwelling_p0", "ban_dwelling_p1", "ban_guest_room_p0", "ban_guest_room_p1",
                         "baseline", "players-2", "players-5", "strongest-2p"]
    again = cavekit(*args, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.split("\n", 3)[3] == first.stdout.split("\n", 3)[3]
    # A different ban experiment in the same folder is refused, naming the file.
    other = cavekit(*[a if a != "guest_room" else "weaving_parlor" for a in args], cwd=tmp_path)
    assert other.returncode != 0 and "furnishing_bans.json: this folder holds a different furnishing-ban" in other.stderr
    assert "Traceback" not in other.stderr
    (out / "tables" / "archetypes.parquet").write_bytes(b"not parquet")
    with pytest.raises(Exception, match="archetypes.parquet: not a readable Parquet table"):
        load_tables(out)
    with pytest.raises(Exception, match="seat_advantage.parquet: missing: not a folder made by `cavekit caverna-study`"):
        load_tables(tmp_path)


@pytest.mark.parametrize("option,message", [
    (["--player-counts", "3,4"], "player counts must be 2 to 7 and include 2"),
    (["--player-counts", "2,x"], "--player-counts must be comma-separated numbers"),
    (["--games", "4", "--strongest-games", "5"], "must be at most the two-player sample (4 games)"),
    (["--tiles", "guestroom"], "unknown furnishing id(s) guestroom; furnishing ids: dwelling,"),
    (["--ban-games", "0"], "ban games must be a positive number of games, not 0"),
])
def test_bad_study_options_are_refused_with_what_is_allowed(tmp_path, option, message):
    result = cavekit("caverna-study", "--out", str(tmp_path / "s"), "--games", "4", "--strongest-games", "2", "--quiet",
                     *option, cwd=tmp_path)
    assert result.returncode != 0 and message in result.stderr and "Traceback" not in result.stderr


def test_the_report_of_a_study_folder_shows_every_part_with_its_figure(tmp_path):
    study = tmp_path / "study"
    shutil.copytree(SAMPLE_STUDY, study, ignore=shutil.ignore_patterns("runs"))
    done = cavekit("report", str(study))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"report written to {study / 'report.html'}"
    page = (study / "report.html").read_text(encoding="utf-8")
    assert "<h1>Balance study: Caverna: The Cave Farmers</h1>" in page
    for title in ("Seat advantage (win share by starting position", "Family and score a seat",
                  "Seats that forged a weapon against the others", "Points per category, a seat",
                  "Action spaces whose takers win more or less", "Furnishing tiles: value of access",
                  "Archetypes (k-means on end positions), two players", "Analysis agent against strongest"):
        assert f"<h2>{title}" in page, title
    assert page.count("data:image/png;base64,") == 6        # seats, armed, categories, spaces, bans, archetypes
    assert "Placebo check: the placebo tiles" in page and "cavekit caverna-study --games 30" in page


def test_a_damaged_or_foreign_study_folder_is_refused_with_its_location(tmp_path):
    study = tmp_path / "study"
    shutil.copytree(SAMPLE_STUDY, study, ignore=shutil.ignore_patterns("runs"))
    (study / "tables" / "armed_seats.parquet").unlink()
    missing = cavekit("report", str(study))
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert "armed_seats.parquet: missing: not a folder made by `cavekit caverna-study`" in missing.stderr
    (study / "study.json").write_text("{", encoding="utf-8")
    corrupt = cavekit("report", str(study))
    assert corrupt.returncode != 0 and "Traceback" not in corrupt.stderr
    assert "study.json: corrupt study file" in corrupt.stderr
    (study / "study.json").write_text('{"format": "cavekit-study", "version": 1, "game": "cvc"}', encoding="utf-8")
    foreign = cavekit("report", str(study))
    assert foreign.returncode != 0 and "has no study report" in foreign.stderr
