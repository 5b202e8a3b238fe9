"""The balance report: its tables on synthetic data with known answers, and `cavekit report` end to end."""
from __future__ import annotations

import base64
import json
import math
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis import balance
from cavekit.analysis.cvc import balance as cvc_balance
from cavekit.analysis.batch import run_match
from cavekit.analysis.stats import mean_interval, wilson_interval
from cavekit.analysis.cli import main
from cavekit.analysis.report import build_report, reproduce_commands
from cavekit.analysis.results import MANIFEST, load_results


# ---------------------------------------------------------------- synthetic tables

def two_player_games(rows: list[tuple[str, int, float, str, int, float, int]]) -> pd.DataFrame:
    """A games table from (agent_0, score_0, return_0, agent_1, score_1, return_1, first_player) tuples."""
    records = []
    for i, (a0, s0, r0, a1, s1, r1, first) in enumerate(rows):
        winner = 0 if r0 > r1 else 1 if r1 > r0 else -1
        records.append({"game": i, "agent_0": a0, "score_0": s0, "return_0": r0, "agent_1": a1, "score_1": s1,
                        "return_1": r1, "winner": winner, "first_player": first, "length": 100 + i,
                        "decisions": 90 + i, "seconds": 0.1})
    return pd.DataFrame(records)


def solo_games(scores: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"game": range(len(scores)), "agent_0": "greedy", "score_0": scores,
                         "return_0": [float(s) for s in scores], "winner": -1, "first_player": 0,
                         "length": 90, "decisions": 80, "seconds": 0.1})


def takes(rows: list[tuple[int, int, int, str]], kind: str = "take", column: str = "tile") -> pd.DataFrame:
    """Decision rows from (game, player, round, name) tuples; ply increases in list order."""
    return pd.DataFrame({"game": [r[0] for r in rows], "ply": range(len(rows)), "player": [r[1] for r in rows],
                         "round": [r[2] for r in rows], "kind": kind,
                         "tile": [r[3] if column == "tile" else None for r in rows],
                         "room_furnished": [r[3] if column == "room" else None for r in rows]})


T3 = 3.182446305284263      # 97.5% quantile of Student's t with 3 degrees of freedom (table value 3.182)

# A beats B in games 0 and 2, B beats A in game 1, game 3 is drawn; seats rotate.
GAMES = two_player_games([("A", 30, 1.0, "B", 20, -1.0, 0),
                          ("B", 25, 1.0, "A", 15, -1.0, 0),
                          ("A", 40, 1.0, "B", 10, -1.0, 1),
                          ("B", 22, 0.0, "A", 22, 0.0, 1)])


def test_agent_results_count_wins_draws_and_intervals_by_hand():
    table = balance.agent_results(GAMES)
    a, b = table.loc["A"], table.loc["B"]
    assert (a["games"], a["wins"], a["draws"], a["losses"]) == (4, 2, 1, 1)
    assert (b["wins"], b["draws"], b["losses"]) == (1, 1, 2)
    assert a["score_rate"] == pytest.approx(2.5 / 4)
    assert (a["ci95_low"], a["ci95_high"]) == pytest.approx(wilson_interval(2.5, 4))
    scores = np.array([30, 15, 40, 22])
    half = T3 * scores.std(ddof=1) / 2          # Student t with 3 degrees of freedom: 4 scores
    assert (a["mean_score"], a["mean_low"], a["mean_high"]) == pytest.approx((26.75, 26.75 - half, 26.75 + half))


def test_first_player_advantage_by_hand():
    # first movers: game 0 seat 0 (A, won), game 1 seat 0 (B, won), game 2 seat 1 (B, lost), game 3 seat 1 (draw)
    row = balance.first_player_advantage(GAMES).iloc[0]
    assert (row["games"], row["wins"], row["draws"], row["losses"]) == (4, 2, 1, 1)
    assert row["score_rate"] == pytest.approx(0.625)
    assert (row["ci95_low"], row["ci95_high"]) == pytest.approx(wilson_interval(2.5, 4))
    margins = np.array([30 - 20, 25 - 15, 10 - 40, 22 - 22])
    assert row["mean_score_margin"] == pytest.approx(margins.mean())
    assert row["margin_high"] - row["mean_score_margin"] == pytest.approx(T3 * margins.std(ddof=1) / 2)


def test_first_player_advantage_refuses_solo():
    with pytest.raises(ValueError, match="two seats"):
        balance.first_player_advantage(solo_games([40, 50]))


def test_score_summary_per_seat_and_mean_interval_edge_cases():
    by_seat = balance.score_summary(GAMES, by="player")
    assert by_seat.loc[0, "mean"] == pytest.approx((30 + 25 + 40 + 22) / 4)
    assert (by_seat.loc[1, "min"], by_seat.loc[1, "max"]) == (10, 22)
    mean, low, high = mean_interval(pd.Series([5.0]))
    assert mean == 5.0 and math.isnan(low) and math.isnan(high)
    with pytest.raises(ValueError, match="agent"):
        balance.score_summary(GAMES, by="tile")


def test_length_summary_uses_both_lengths():
    table = balance.length_summary(GAMES)
    assert table.iloc[0]["mean"] == pytest.approx(101.5)        # lengths 100..103
    assert table.iloc[1]["max"] == 93                            # decisions 90..93


def test_tile_whose_takers_always_win_has_rate_one_with_wilson_interval():
    # "Win" is taken only by each game's winner (twice by one of them), "Lose" only by losers, game 3 drawn.
    decisions = takes([(0, 0, 1, "Win"), (0, 0, 3, "Win"), (0, 1, 1, "Lose"), (1, 0, 2, "Win"), (1, 1, 2, "Lose"),
                       (2, 0, 5, "Win"), (2, 1, 4, "Lose"), (3, 0, 1, "Draw")])
    table = cvc_balance.tile_table(decisions, GAMES, ["Win", "Lose", "Draw", "Never"])
    assert list(table.index) == ["Win", "Lose", "Draw", "Never"]
    win = table.loc["Win"]
    assert (win["times_taken"], win["takers"], win["games_with"]) == (4, 3, 0.75)
    assert win["mean_round"] == pytest.approx((1 + 3 + 2 + 5) / 4)
    assert win["taker_score_rate"] == 1.0
    assert (win["ci95_low"], win["ci95_high"]) == pytest.approx(wilson_interval(3, 3))
    assert win["mean_score"] == pytest.approx((30 + 25 + 40) / 3)
    assert table.loc["Lose", "taker_score_rate"] == 0.0
    assert table.loc["Draw", "taker_score_rate"] == 0.5
    never = table.loc["Never"]
    assert never["times_taken"] == 0 and never["takers"] == 0 and math.isnan(never["taker_score_rate"])
    assert "Never" not in cvc_balance.tile_table(decisions, GAMES).index     # without a list: only tiles taken


def test_room_table_documents_rooms_never_built():
    decisions = takes([(0, 0, 2, "Parlor"), (2, 1, 6, "Parlor"), (1, 1, 7, "Shelf")], kind="tile_option",
                      column="room")
    listed = cvc_balance.room_table(decisions, GAMES, ["Parlor", "Shelf", "Dungeon"])
    assert listed.index.name == "room"
    parlor = listed.loc["Parlor"]          # game 0 seat 0 (A, won), game 2 seat 1 (B, lost)
    assert (parlor["times_furnished"], parlor["mean_round"], parlor["taker_score_rate"]) == (2, 4.0, 0.5)
    assert listed.loc["Shelf", "taker_score_rate"] == 0.0       # game 1 seat 1 lost
    assert listed.loc["Dungeon", "times_furnished"] == 0 and math.isnan(listed.loc["Dungeon", "taker_score_rate"])
    assert list(cvc_balance.room_table(decisions, GAMES).index) == ["Parlor", "Shelf"]


def test_first_pick_share_counts_the_first_take_of_each_round():
    decisions = takes([(0, 0, 1, "X"), (0, 1, 1, "Y"), (0, 0, 2, "Y"), (1, 1, 1, "X"), (1, 0, 2, "X"),
                       (2, 0, 1, "Y"), (2, 1, 2, "X")])
    shares = cvc_balance.first_pick_share(decisions, ["X", "Y", "Z"])
    assert shares.loc["X", 1] == pytest.approx(2 / 3) and shares.loc["Y", 1] == pytest.approx(1 / 3)
    assert shares.loc["X", 2] == pytest.approx(2 / 3) and shares.loc["Z"].sum() == 0
    assert shares.sum(axis=0).tolist() == pytest.approx([1.0, 1.0])


def test_solo_tables_drop_outcomes_and_count_targets():
    games = solo_games([49, 50, 60, 61, 70])
    assert "score_rate" not in balance.agent_results(games).columns
    marks = balance.target_shares(games, 50, 60)
    assert marks["hits"].tolist() == [4, 2]                      # >= 50: 50,60,61,70; > 60: 61,70
    assert (marks.iloc[0]["ci95_low"], marks.iloc[0]["ci95_high"]) == pytest.approx(wilson_interval(4, 5))
    decisions = takes([(0, 0, 1, "X"), (4, 0, 1, "X")])
    table = cvc_balance.tile_table(decisions, games, ["X"])
    assert "taker_score_rate" not in table.columns and table.loc["X", "mean_score"] == pytest.approx(59.5)


# ---------------------------------------------------------------- end to end

class Tables(HTMLParser):
    """Collects every <table> of a document as a list of rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_tables(document: str) -> list[list[list[str]]]:
    parser = Tables()
    parser.feed(document)
    return parser.tables


def table_with_header(document: str, header: str) -> dict[str, list[str]]:
    """The table whose first row holds `header`, as {row label: cells}, plus the header row under ''."""
    for table in html_tables(document):
        if header in table[0]:
            return {"": table[0], **{row[0]: row[1:] for row in table[1:] if row}}
    raise AssertionError(f"no table with the column {header!r}")


def embedded_pngs(document: str) -> list[bytes]:
    chunks = document.split('src="data:image/png;base64,')[1:]
    return [base64.b64decode(chunk.split('"', 1)[0]) for chunk in chunks]


@pytest.fixture(scope="module")
def two_player_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "cvc"
    run_match("cvc", ["random", "greedy"], 6, seed=0, progress=False, jobs=1, out=folder, chunk_size=2)
    return folder


def test_report_end_to_end_two_players(two_player_run: Path, capsys: pytest.CaptureFixture):
    assert main(["report", str(two_player_run)]) == 0
    path = two_player_run / "report.html"
    assert f"report written to {path}" in capsys.readouterr().out
    document = path.read_text(encoding="utf-8")
    for title in ("Run", "Results per agent", "First-player advantage", "Score distributions", "Game length",
                  "Action tiles", "Rooms"):
        assert f"<h2>{title}</h2>" in document
    assert "Solo targets" not in document and "Partial run" not in document
    pngs = embedded_pngs(document)
    assert len(pngs) >= 5 and all(png.startswith(b"\x89PNG") for png in pngs)
    assert "<script" not in document and "http://" not in document and "https://" not in document
    assert "correlational" in document

    games, decisions = load_results(two_player_run)
    agents = table_with_header(document, "score rate [95% Wilson]")
    for agent in ("random", "greedy"):
        seats = [(games[f"agent_{p}"] == agent, games[f"return_{p}"]) for p in range(2)]
        wins = sum(int((ret[mask] > 0).sum()) for mask, ret in seats)
        losses = sum(int((ret[mask] < 0).sum()) for mask, ret in seats)
        assert agents[agent][:4] == ["6", str(wins), str(6 - wins - losses), str(losses)]
    first = table_with_header(document, "first player's score rate [95% Wilson]")["first player"]
    first_wins = int((games["winner"] == games["first_player"]).sum())
    assert first[:2] == ["6", str(first_wins)]
    tiles = table_with_header(document, "times taken")
    taken = decisions[decisions["kind"] == "take"]["tile"].value_counts()
    assert {name: int(cells[0]) for name, cells in tiles.items() if name and cells[0] != "0"} == taken.to_dict()
    assert f"--seed 0 --players 2 --chunk-size 2 --out {two_player_run}" in document


def test_report_solo_run(tmp_path: Path):
    folder = tmp_path / "solo"
    games = run_match("cvc", ["greedy"], 4, seed=5, progress=False, out=folder, players=1)
    out = tmp_path / "elsewhere.html"
    assert main(["report", str(folder), "--out", str(out)]) == 0
    document = out.read_text(encoding="utf-8")
    assert "<h2>Solo targets</h2>" in document and "First-player advantage" not in document
    assert len(embedded_pngs(document)) >= 5
    marks = table_with_header(document, "share [95% Wilson]")
    assert marks["score >= 50"][1] == str(int((games["score_0"] >= 50).sum()))
    assert marks["score > 60"][1] == str(int((games["score_0"] > 60).sum()))


def test_partial_run_is_reported_as_partial(two_player_run: Path, tmp_path: Path):
    folder = tmp_path / "partial"
    shutil.copytree(two_player_run, folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    dropped = manifest["chunks"].pop()          # as if the run had been stopped before its last chunk
    (folder / MANIFEST).write_text(json.dumps(manifest))
    (folder / dropped["games_file"]).unlink()
    (folder / dropped["decisions_file"]).unlink()
    document = build_report(folder)
    assert "Partial run: 4 of the 6 requested games" in document
    assert "4 of 6 (partial run" in document
    assert table_with_header(document, "score rate [95% Wilson]")["greedy"][0] == "4"


def test_generic_game_gets_generic_sections_only(tmp_path: Path):
    folder = tmp_path / "pairs"
    run_match("pairs", ["random", "random"], 4, seed=1, progress=False, out=folder)
    document = build_report(folder)
    assert "<h2>Results per agent</h2>" in document and "<h2>Game length</h2>" in document
    assert "Action tiles" not in document and "Rooms" not in document


def test_reproduce_command_spells_out_changed_parameters(two_player_run: Path):
    manifest = json.loads((two_player_run / MANIFEST).read_text())
    manifest["params"]["undermining_ignores"] = "one_wall"
    cli, python = reproduce_commands(manifest, Path("out"))
    assert cli is not None and "--param undermining_ignores=one_wall --out out" in cli
    assert "solo_reveal_timing" not in cli                       # defaults are left out
    manifest["params"]["additional_cavern_walls"] = [3, 4]      # a list cannot be given on the command line
    cli, python = reproduce_commands(manifest, Path("out"))
    assert cli is None and "'additional_cavern_walls': [3, 4]" in python


@pytest.mark.parametrize("make, message", [
    (lambda d: None, "no such folder"),
    (lambda d: (d.mkdir(), (d / "notes.txt").write_text("hi")), "no manifest.json"),
    (lambda d: (d.mkdir(), (d / MANIFEST).write_text("{broken")), "not valid JSON"),
    (lambda d: (d.mkdir(), (d / MANIFEST).write_text('{"format": "other"}')), "not a cavekit results folder"),
])
def test_report_refuses_bad_folders_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture, make,
                                                      message: str):
    folder = tmp_path / "bad"
    make(folder)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cavekit: error: results folder problem") and message in err
    assert "Traceback" not in err and not (folder / "report.html").exists()


def test_report_refuses_a_folder_with_no_finished_games(two_player_run: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture):
    folder = tmp_path / "empty"
    folder.mkdir()
    manifest = json.loads((two_player_run / MANIFEST).read_text())
    manifest["chunks"] = []
    (folder / MANIFEST).write_text(json.dumps(manifest))
    assert main(["report", str(folder)]) == 2
    assert "no finished games yet (0 of 6)" in capsys.readouterr().err
