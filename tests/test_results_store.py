"""The results folder: its manifest and Parquet chunks, reading with pandas and DuckDB, crash-safe writes, and
refusing corrupt, foreign or different-run folders with a message naming the file."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

from cavekit.analysis import results
from cavekit.analysis.batch import run_match
from cavekit.analysis.cli import main
from cavekit.analysis.results import ResultsError, ResultsWriter, RunSpec, load_results, read_manifest
from cavekit.core.api import CavekitError
from cavekit.core.deal import deal_scheme
from cavekit.core.registry import load_game
from cavekit.search.agent import agent_data

RUN = {"game_name": "cvc", "agent_specs": ["random", "random"], "games": 9, "seed": 3, "chunk_size": 3}


def play(out: Path, **changes: Any) -> pd.DataFrame:
    return run_match(**{**RUN, **changes}, progress=False, out=out)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A complete run of 9 random games in 3 chunks."""
    out = tmp_path_factory.mktemp("results") / "run"
    play(out)
    return out


@pytest.fixture
def copy(finished, tmp_path) -> Path:
    """A private copy of the finished run that a test may damage."""
    return Path(shutil.copytree(finished, tmp_path / "run"))


def listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != results.LOCK}


def without_timing(games: pd.DataFrame) -> pd.DataFrame:
    return games.drop(columns="seconds")


def test_a_results_folder_holds_a_manifest_and_parquet_chunks(finished):
    manifest = read_manifest(finished)
    assert (manifest["format"], manifest["version"], manifest["game"]) == ("cavekit-results", 1, "cvc")
    assert manifest["agents"] == ["random", "random"] and manifest["seed"] == 3
    assert manifest["games"] == 9 and manifest["chunk_size"] == 3 and manifest["complete"]
    assert manifest["params"]["players"] == 2 and manifest["params"]["undermining_ignores"] == "all_walls"
    assert manifest["code_version"]["cavekit"] and "git_commit" in manifest["code_version"]
    assert manifest["created"] <= manifest["updated"]
    assert [(c["games_file"], c["decisions_file"], c["first_game"], c["last_game"], c["game_rows"])
            for c in manifest["chunks"]] == [
        ("games-00000.parquet", "decisions-00000.parquet", 0, 2, 3),
        ("games-00001.parquet", "decisions-00001.parquet", 3, 5, 3),
        ("games-00002.parquet", "decisions-00002.parquet", 6, 8, 3)]
    games, decisions = load_results(finished)
    assert games["game"].tolist() == list(range(9))
    assert [c["decision_rows"] for c in manifest["chunks"]] == [
        int(games["decisions"][3 * k:3 * k + 3].sum()) for k in range(3)]
    assert len(decisions) == games["decisions"].sum()
    assert {"winner", "first_player", "length", "decisions", "seconds", "score_0", "return_1"} <= set(games)
    in_memory = run_match(**RUN, progress=False)
    pd.testing.assert_frame_equal(without_timing(games), without_timing(in_memory))


def test_duckdb_reads_the_chunks_with_a_glob(finished):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is in the test extra")
    games, decisions = load_results(finished)
    per_winner = duckdb.sql(f"SELECT winner, count(*) AS n FROM '{finished}/games-*.parquet' "
                            "GROUP BY winner ORDER BY winner").df()
    assert dict(zip(per_winner["winner"], per_winner["n"])) == games["winner"].value_counts().to_dict()
    per_game = duckdb.sql(f"SELECT g.game, g.decisions, count(*) AS n FROM '{finished}/games-*.parquet' g "
                          f"JOIN '{finished}/decisions-*.parquet' d ON d.game = g.game "
                          "GROUP BY g.game, g.decisions ORDER BY g.game").df()
    assert per_game["game"].tolist() == list(range(9))
    assert (per_game["n"] == per_game["decisions"]).all()
    takes = duckdb.sql(f"SELECT count(*) AS n FROM '{finished}/decisions-*.parquet' WHERE kind = 'take'").df()["n"][0]
    assert takes == (decisions["kind"] == "take").sum() > 0


def test_rerunning_a_finished_run_plays_nothing_and_changes_no_file(copy):
    # A study re-run for its tables reads its finished runs: they stay byte for byte what was played.
    before = listing(copy)
    games = play(copy)
    assert listing(copy) == before and "resumed" not in read_manifest(copy)
    assert games["game"].tolist() == list(range(9))


class Killed(BaseException):
    """Stands for the process dying: nothing after it runs, and no `except Exception` catches it."""


@pytest.mark.parametrize("fatal_write, what", [
    (1, "the first manifest"),
    (5, "chunk 1's games file"),
    (6, "chunk 1's decisions file (its games file is complete but unlisted)"),
    (7, "the manifest listing chunk 1 (both its files are complete but unlisted)"),
])
def test_a_run_killed_while_writing_resumes_without_loss_or_duplicates(finished, tmp_path, monkeypatch,
                                                                       fatal_write, what):
    real_write = results._write_atomically
    writes = {"n": 0}

    def dying_write(path: Path, data: bytes) -> None:
        writes["n"] += 1
        if writes["n"] == fatal_write:
            path.with_name(f".{path.name}.tmp").write_bytes(data[:len(data) // 2])   # dies halfway through
            raise Killed(what)
        real_write(path, data)

    out = tmp_path / "run"
    monkeypatch.setattr(results, "_write_atomically", dying_write)
    with pytest.raises(Killed):
        play(out)
    monkeypatch.undo()
    assert any(p.name.endswith(".tmp") for p in out.iterdir())
    if fatal_write in (6, 7):
        listed = [c["games_file"] for c in json.loads((out / "manifest.json").read_text())["chunks"]]
        assert (out / "games-00001.parquet").is_file() and "games-00001.parquet" not in listed

    spec = RunSpec(game="cvc", params=load_game("cvc").parameters(), agents=RUN["agent_specs"], seed=RUN["seed"],
                   games=RUN["games"], chunk_size=RUN["chunk_size"], deal_scheme=deal_scheme(load_game("cvc")))
    with ResultsWriter(out, spec, players=2) as writer:      # opening to resume clears the debris first
        done = writer.missing_chunks()
        names = {p.name for p in out.iterdir()} - {results.LOCK}
        assert names == {"manifest.json"} | {f"{kind}-{k:05d}.parquet" for k in range(3) if k not in done
                                             for kind in ("games", "decisions")}
    assert done == ([0, 1, 2] if fatal_write == 1 else [1, 2])

    games = play(out)
    assert games["game"].tolist() == list(range(9))
    assert listing(out).keys() == listing(finished).keys()      # every chunk present once, nothing else
    new_games, new_decisions = load_results(out)
    ref_games, ref_decisions = load_results(finished)
    pd.testing.assert_frame_equal(without_timing(new_games), without_timing(ref_games))
    pd.testing.assert_frame_equal(new_decisions, ref_decisions)


def damage_a_data_page(path: Path) -> None:
    """Overwrite 64 bytes in the middle of a Parquet file's largest column chunk with garbage, as a bad disk
    block would: its pages are damaged, its footer (the file's table of contents) is intact."""
    import pyarrow.parquet as pq
    meta = pq.read_metadata(path)
    largest = max((meta.row_group(g).column(c) for g in range(meta.num_row_groups) for c in range(meta.num_columns)),
                  key=lambda column: column.total_compressed_size)
    start = largest.dictionary_page_offset if largest.has_dictionary_page else largest.data_page_offset
    middle = start + largest.total_compressed_size // 2 - 32
    data = bytearray(path.read_bytes())
    data[middle:middle + 64] = bytes(range(64))
    path.write_bytes(bytes(data))


def link_out_of_the_folder(chunk: Path) -> None:
    """Move a chunk file out of its results folder and leave a link to it in its place."""
    outside = chunk.parent.parent / "elsewhere" / chunk.name
    outside.parent.mkdir(exist_ok=True)
    chunk.rename(outside)
    chunk.symlink_to(outside)


def _swap_decisions(folder: Path, source: int, target: int) -> None:
    """Put chunk `source`'s decisions in chunk `target`'s decisions file, listed with their row count."""
    shutil.copyfile(folder / f"decisions-{source:05d}.parquet", folder / f"decisions-{target:05d}.parquet")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["chunks"][target]["decision_rows"] = manifest["chunks"][source]["decision_rows"]
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _edit_manifest(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        manifest = json.loads((folder / "manifest.json").read_text())
        change(manifest)
        (folder / "manifest.json").write_text(json.dumps(manifest))
    return edit


CORRUPTIONS = {
    "missing manifest": (lambda f: (f / "manifest.json").unlink(), "manifest.json", "missing"),
    "unparseable manifest": (lambda f: (f / "manifest.json").write_text('{"format": "cavekit-res'),
                             "manifest.json", "not valid JSON"),
    "foreign format": (_edit_manifest(lambda m: m.update(format="someone-elses")), "manifest.json",
                       "format is 'someone-elses', expected 'cavekit-results'"),
    "future version": (_edit_manifest(lambda m: m.update(version=2)), "manifest.json",
                       "version 2 is not supported"),
    "field missing": (_edit_manifest(lambda m: m.pop("seed")), "manifest.json", "field 'seed' is missing"),
    "chunk file missing": (lambda f: (f / "decisions-00001.parquet").unlink(), "decisions-00001.parquet",
                           "missing, but manifest.json lists it"),
    "row count mismatch": (_edit_manifest(lambda m: m["chunks"][1].update(decision_rows=m["chunks"][1]
                                                                          ["decision_rows"] + 1)),
                           "decisions-00001.parquet", "rows but manifest.json lists"),
    "chunk not parquet": (lambda f: (f / "games-00002.parquet").write_bytes(b"not parquet at all"),
                          "games-00002.parquet", "not a readable Parquet file"),
    "games data page damaged": (lambda f: damage_a_data_page(f / "games-00001.parquet"), "games-00001.parquet",
                                "not a readable Parquet file"),
    "decisions data page damaged": (lambda f: damage_a_data_page(f / "decisions-00001.parquet"),
                                    "decisions-00001.parquet", "not a readable Parquet file"),
    "chunk links out of the folder": (lambda f: link_out_of_the_folder(f / "games-00002.parquet"),
                                      "games-00002.parquet", "is a link to a file outside the results folder"),
    "chunk holds other games": (lambda f: shutil.copyfile(f / "games-00000.parquet", f / "games-00001.parquet"),
                                "games-00001.parquet",
                                r"holds games \[0, 1, 2\]... but manifest.json lists games 3 to 5"),
    "decisions of other games": (lambda f: _swap_decisions(f, 0, 1), "decisions-00001.parquet",
                                 "holds decisions of games 0 to 2, but manifest.json lists games 3 to 5"),
    "chunk range wrong": (_edit_manifest(lambda m: m["chunks"][0].update(last_game=1)), "manifest.json",
                          "should hold games 0 to 2"),
    "game listed twice": (_edit_manifest(lambda m: m["chunks"].append(
        {**m["chunks"][0], "index": 3, "games_file": "games-00003.parquet", "decisions_file": "decisions-00003.parquet",
         "first_game": 2, "last_game": 3, "game_rows": 2})), "manifest.json", "chunks 0 and 3 both list game 2"),
    "short chunk out of the run": (_edit_manifest(lambda m: m["chunks"].append(
        {**m["chunks"][0], "index": 4, "games_file": "games-00004.parquet", "decisions_file": "decisions-00004.parquet",
         "first_game": 9, "last_game": 9, "game_rows": 1})), "manifest.json",
        "chunks\\[3\\] should hold consecutive games between 0 and 8"),
    "agent data mangled": (_edit_manifest(lambda m: m.update(agent_data=[{"weights": 3}, {}])), "manifest.json",
                           "field 'agent_data' should hold, for each agent, an object of data fingerprints"),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupt_folder_is_refused_naming_the_file_and_left_untouched(copy, corruption):
    damage, file_name, problem = CORRUPTIONS[corruption]
    damage(copy)
    before = listing(copy)
    with pytest.raises(ResultsError, match=problem) as refused:
        load_results(copy)
    assert refused.value.location.endswith(file_name)
    if corruption != "missing manifest":        # resuming that one is the foreign-folder case below
        with pytest.raises(ResultsError, match=problem) as refused:
            play(copy)
        assert refused.value.location.endswith(file_name)
    assert listing(copy) == before


DAMAGED_CHUNKS = ["chunk file missing", "row count mismatch", "chunk not parquet", "games data page damaged",
                  "decisions data page damaged", "chunk links out of the folder", "chunk holds other games",
                  "decisions of other games"]


@pytest.mark.parametrize("corruption", DAMAGED_CHUNKS)
def test_repair_sets_a_damaged_chunk_aside_and_plays_its_games_again(finished, copy, corruption):
    damage, file_name, _ = CORRUPTIONS[corruption]
    damage(copy)
    with pytest.raises(ResultsError, match="repeat the command with --repair"):
        play(copy)
    games = play(copy, repair=True)
    chunk = int(file_name.split("-")[1].split(".")[0])
    assert {p.name for p in (copy / results.SET_ASIDE).iterdir()} <= \
        {f"decisions-{chunk:05d}.parquet", f"games-{chunk:05d}.parquet"}
    assert read_manifest(copy)["resumed"][-1]["set_aside_chunks"] == [chunk]
    # the games are seeded one by one from the master seed: played again, they are the same games
    pd.testing.assert_frame_equal(without_timing(games), without_timing(load_results(finished)[0]))
    pd.testing.assert_frame_equal(load_results(copy)[1], load_results(finished)[1])


def test_the_command_line_offers_repair_and_repairs(copy):
    CORRUPTIONS["chunk not parquet"][0](copy)
    command = [sys.executable, "-m", "cavekit.analysis.cli", "match", "cvc", "--agents", "random", "random",
               "--games", "9", "--seed", "3", "--chunk-size", "3", "--quiet", "--out", str(copy)]
    refused = subprocess.run(command, capture_output=True, text=True)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "--repair" in refused.stderr
    repaired = subprocess.run(command + ["--repair"], capture_output=True, text=True)
    assert repaired.returncode == 0, repaired.stderr
    assert (copy / results.SET_ASIDE / "games-00002.parquet").read_bytes() == b"not parquet at all"
    assert len(load_results(copy)[0]) == 9


def cavekit(*words: str, cwd: Path) -> subprocess.CompletedProcess:
    """The `cavekit` command line, run in `cwd`."""
    return subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", *words], capture_output=True, text=True,
                          cwd=cwd)


MATCH = ["match", "cvc", "--agents", "random", "random", "--games", "9", "--seed", "3", "--chunk-size", "3", "--quiet",
         "--out", "run"]


@pytest.mark.parametrize("damaged", ["games-00001.parquet", "decisions-00001.parquet"])
def test_a_damaged_data_page_is_refused_in_one_line_naming_the_file(finished, copy, damaged):
    # The footer is intact, so only reading the pages finds the damage: a report must not fail with a
    # traceback, nor a resume call the run complete (it reads no decisions to summarise the games).
    damage_a_data_page(copy / damaged)
    report = cavekit("report", "run", "--out", "report.html", cwd=copy.parent)
    resume = cavekit(*MATCH, cwd=copy.parent)
    for refused in (report, resume):
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        [line] = refused.stderr.strip().splitlines()
        assert line.startswith(f"cavekit: error: results folder problem in run/{damaged}: not a readable Parquet "
                               "file (")
        assert str(copy.parent) not in line         # the file as the folder was named, no absolute path
    assert resume.stderr.strip().endswith("repeat the command with --repair") and resume.stdout == ""
    assert not (copy.parent / "report.html").exists()

    repaired = cavekit(*MATCH, "--repair", cwd=copy.parent)
    assert repaired.returncode == 0, repaired.stderr
    assert (copy / results.SET_ASIDE / damaged).is_file()
    games, decisions = load_results(copy)
    ref_games, ref_decisions = load_results(finished)
    pd.testing.assert_frame_equal(without_timing(games), without_timing(ref_games))
    pd.testing.assert_frame_equal(decisions, ref_decisions)
    assert cavekit("report", "run", "--out", "report.html", cwd=copy.parent).returncode == 0


@pytest.mark.parametrize("damaged", ["games-00001.parquet", "decisions-00001.parquet"])
def test_whatever_the_damage_a_chunk_is_refused_naming_it_or_reads_as_written(finished, copy, damaged):
    # Bytes overwritten anywhere (pages, their headers, the footer) or the file cut short: the page checksums
    # and the checks against the manifest leave no damage that reads as other games.
    import random
    ref_games, ref_decisions = load_results(finished)
    written = (finished / damaged).read_bytes()
    chance = random.Random(7)
    for _ in range(60):
        data = bytearray(written)
        if chance.random() < 0.2:
            del data[chance.randrange(len(data)):]
        else:
            at, length = chance.randrange(len(data)), chance.choice([1, 8, 64])
            data[at:at + length] = bytes(chance.randrange(256) for _ in range(length))
        (copy / damaged).write_bytes(bytes(data))
        try:
            games, decisions = load_results(copy)
        except ResultsError as refused:
            assert refused.location.endswith(damaged) and "\n" not in str(refused)
        else:
            pd.testing.assert_frame_equal(games, ref_games)
            pd.testing.assert_frame_equal(decisions, ref_decisions)


def test_a_chunk_file_must_lie_inside_its_folder(finished, copy):
    link_out_of_the_folder(copy / "decisions-00002.parquet")
    outside = copy.parent / "elsewhere" / "decisions-00002.parquet"
    report = cavekit("report", "run", "--out", "report.html", cwd=copy.parent)
    assert report.returncode == 2 and "Traceback" not in report.stderr
    assert report.stderr.strip() == ("cavekit: error: results folder problem in run/decisions-00002.parquet: is a "
                                     "link to a file outside the results folder; a chunk must be a file inside its "
                                     "results folder")
    with pytest.raises(ResultsError, match="--repair") as refused:
        play(copy)
    assert refused.value.location.endswith("decisions-00002.parquet")
    # a link that stays inside the folder is a file of the folder
    (copy / "moved").mkdir()
    (copy / "decisions-00002.parquet").unlink()
    outside.rename(copy / "moved" / "decisions-00002.parquet")
    (copy / "decisions-00002.parquet").symlink_to(Path("moved") / "decisions-00002.parquet")
    pd.testing.assert_frame_equal(load_results(copy)[1], load_results(finished)[1])


COMMITTED = Path(__file__).resolve().parent.parent / "results"


@pytest.mark.parametrize("folder", ["samples/cvc_selfplay", "cvc_study/runs/reference"])
def test_folders_written_before_still_load_and_report(folder, tmp_path):
    # cvc_selfplay is from before deals and decision columns in the manifest; the reference run from before
    # page checksums and chunks cut short
    folder = COMMITTED / folder
    if not (folder / "manifest.json").is_file():
        pytest.skip(f"{folder} is not in this checkout")
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    reported = cavekit("report", str(folder), "--out", str(tmp_path / "report.html"), cwd=tmp_path)
    assert reported.returncode == 0, reported.stderr
    assert (tmp_path / "report.html").stat().st_size > 0
    manifest = read_manifest(folder)
    games, decisions = load_results(folder)
    assert games["game"].tolist() == list(range(manifest["games"]))
    assert len(decisions) == sum(c["decision_rows"] for c in manifest["chunks"])
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before


def test_a_resume_keeps_the_folders_chunk_size_whatever_is_asked(finished, copy):
    _edit_manifest(lambda m: m.update(chunks=m["chunks"][:1]))(copy)      # lose chunks 1 and 2
    games = play(copy, chunk_size=4)
    manifest = read_manifest(copy)
    assert manifest["chunk_size"] == 3 and [c["index"] for c in manifest["chunks"]] == [0, 1, 2]
    pd.testing.assert_frame_equal(without_timing(games), without_timing(load_results(finished)[0]))


def test_a_non_empty_folder_without_manifest_is_not_used(tmp_path):
    (tmp_path / "notes.txt").write_text("my notes")
    with pytest.raises(ResultsError, match=r"not empty \(notes.txt\).*not a cavekit results folder"):
        play(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != results.LOCK) == ["notes.txt"]


@pytest.mark.parametrize("change, field", [
    ({"seed": 4}, "seed is 3 there but 4 now"),
    ({"agent_specs": ["random", "mcts:iterations=1"]}, "agents is"),
    ({"games": 12}, "games is 9 there but 12 now"),
    ({"duplicate": True, "games": 10}, "duplicate is False there but True now"),
    ({"undermining_ignores": "one_wall"}, "params is"),
])
def test_resuming_into_a_different_runs_folder_is_refused_naming_the_field(copy, change, field):
    with pytest.raises(ResultsError, match=field) as refused:
        play(copy, **change)
    assert "a different run needs a different folder" in str(refused.value)
    assert refused.value.location.endswith("manifest.json")


def _value_file(tmp_path: Path, shift: float = 0.0) -> Path:
    """A copy of the shipped learned value with every two-player weight moved by `shift`."""
    from importlib import resources
    data = json.loads((resources.files("cavekit.search") / "data" / "cvc_value.json").read_text())
    data["models"]["2"]["by_share"] = [w + shift for w in data["models"]["2"]["by_share"]]
    path = tmp_path / f"value{shift}.json"
    path.write_text(json.dumps(data))
    return path


def test_the_manifest_records_a_fingerprint_of_the_data_each_agent_plays_with(tmp_path):
    learned = "cvc_turn_mcts:iterations=2,value=learned"
    play(tmp_path / "run", agent_specs=[learned, "random"], games=2, chunk_size=1)
    recorded = read_manifest(tmp_path / "run")["agent_data"]
    assert recorded[1] == {} and recorded[0]["value"].startswith("sha256:")
    game = load_game("cvc")
    # the data, not where it was read from: a copy of the shipped file is the same value, a changed one is not
    assert agent_data(f"cvc_turn_mcts:value={_value_file(tmp_path)}", game) == recorded[0]
    assert agent_data(f"cvc_turn_mcts:value={_value_file(tmp_path, 0.5)}", game) != recorded[0]
    assert agent_data("cvc_turn_mcts", game) == {}          # the default: the hand-written heuristic
    assert agent_data("cvc_nrpa", game) == recorded[0]      # whose default is the learned value


def test_a_folder_whose_agents_played_with_other_data_is_refused(tmp_path):
    # The same spec after its data file changed (a re-trained value, re-tuned weights) is another agent: its
    # games must not be resumed into, or reported as, the old agent's, even in a finished folder.
    value = _value_file(tmp_path)
    spec = f"cvc_turn_mcts:iterations=2,value={value}"
    play(tmp_path / "run", agent_specs=["random", spec], games=2, chunk_size=1)
    value.write_text(_value_file(tmp_path, 0.5).read_text())
    with pytest.raises(ResultsError, match=rf"agent 2 \({spec}\) played with other value data: "
                                           r"sha256:\w+ there, sha256:\w+ now") as refused:
        play(tmp_path / "run", agent_specs=["random", spec], games=2, chunk_size=1)
    assert refused.value.location.endswith("manifest.json") and "play them in a new folder" in str(refused.value)


def test_a_folder_from_before_data_fingerprints_still_resumes(copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["agent_data"]
    manifest["chunks"] = manifest["chunks"][:1]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    play(copy)
    resumed = read_manifest(copy)
    # its first games' data is unknown, so the folder does not claim any
    assert resumed["complete"] and "agent_data" not in resumed


def test_two_runs_never_write_into_one_folder_at_once(tmp_path):
    spec = RunSpec(game="cvc", params={}, agents=["random", "random"], seed=0, games=2, chunk_size=1)
    with ResultsWriter(tmp_path / "run", spec, players=2):
        with pytest.raises(ResultsError, match="another cavekit run is writing"):
            play(tmp_path / "run")


def test_the_command_line_reports_a_results_problem_without_a_traceback(copy, capsys):
    code = main(["match", "cvc", "--agents", "random", "random", "--games", "9", "--seed", "8",
                 "--chunk-size", "3", "--quiet", "--out", str(copy)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("cavekit: error: results folder problem in") and "seed is 3 there but 8 now" in err
    assert "Traceback" not in err
    assert isinstance(ResultsError("x", "y"), CavekitError)


# ------------------------------------------------------------------------------------------------------
# Decision columns: a folder keeps the columns it was written with

def _as_before_a_decision_column(folder: Path, column: str) -> None:
    """Turn a results folder into one written before the game's decision rows had `column`."""
    import pyarrow.parquet as pq
    manifest = json.loads((folder / "manifest.json").read_text())
    for chunk in manifest["chunks"]:
        path = folder / chunk["decisions_file"]
        pq.write_table(pq.read_table(path).drop_columns([column]), path)
    manifest["decision_columns"] = [c for c in manifest["decision_columns"] if c != column]
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_a_new_folder_lists_its_decision_columns(finished):
    from cavekit.analysis.decisions import decisions_schema
    assert read_manifest(finished)["decision_columns"] == decisions_schema("cvc").names
    assert list(load_results(finished)[1].columns) == decisions_schema("cvc").names


def test_a_folder_with_fewer_decision_columns_loads_and_resumes_with_them(finished, copy):
    dropped = read_manifest(finished)["decision_columns"][-1]
    _as_before_a_decision_column(copy, dropped)
    games, decisions = load_results(copy)
    assert dropped not in decisions.columns and len(decisions) == games["decisions"].sum()
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["chunks"] = manifest["chunks"][:-1]            # lose the last chunk, then resume
    (copy / "manifest.json").write_text(json.dumps(manifest))
    play(copy)
    games, decisions = load_results(copy)
    assert len(games) == 9 and dropped not in decisions.columns
    full = load_results(finished)[1].drop(columns=[dropped])
    pd.testing.assert_frame_equal(decisions.reset_index(drop=True), full.reset_index(drop=True))


def test_an_unknown_decision_column_is_refused_naming_the_manifest(copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["decision_columns"] = manifest["decision_columns"] + ["vibes"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ResultsError, match=r"decision columns \['vibes'\]") as refused:
        load_results(copy)
    assert refused.value.location.endswith("manifest.json")


def test_the_writer_refuses_decisions_whose_columns_differ_from_the_folders(finished, copy):
    from cavekit.analysis.batch import play_chunk
    dropped = read_manifest(finished)["decision_columns"][-1]
    _as_before_a_decision_column(copy, dropped)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["chunks"] = manifest["chunks"][:-1]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    chunk = play_chunk("cvc", {}, RUN["agent_specs"], RUN["seed"], False, 2, 6, 9, True)     # today's columns
    with ResultsWriter(copy, results.run_spec_of(manifest), players=2) as writer:
        with pytest.raises(ResultsError, match=f"chunk 2 has decision columns .*{dropped}"):
            writer.write_chunk(chunk.games, chunk.decisions, chunk.decision_rows)
    assert not (copy / "decisions-00002.parquet").exists()
