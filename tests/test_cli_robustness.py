"""Hostile input to `cavekit report` and `cavekit play --load`, through the real command: a mistake (or a
damaged or hand-made file) is one line naming where it is, exit status 2, never a traceback; and a report's
"reproduce" snippet is Python that no manifest content can turn into code."""
from __future__ import annotations

import ast
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cavekit.analysis.report import python_literal
from cavekit.analysis.results import MANIFEST
from cavekit.core.records import MAX_JSON_DEPTH, JSONTextError, parse_json
from cavekit.core.registry import load_game

CHUNK = 2


def cavekit(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cavekit", *args], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, cwd=cwd)


def assert_one_line_error(done: subprocess.CompletedProcess, *words: str) -> str:
    """The command failed with exit status 2 and one line on stderr, holding `words`; that line."""
    assert done.returncode == 2, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cavekit: error: "), done.stderr[-3000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pristine") / "run"
    done = cavekit("match", "cvc", "--agents", "random", "random", "--games", "4", "--seed", "1",
                   "--chunk-size", str(CHUNK), "--out", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture
def run(tmp_path: Path, pristine: Path) -> Path:
    """A fresh copy of the pristine results folder, for a test to damage."""
    return Path(shutil.copytree(pristine, tmp_path / "run"))


def edit_manifest(folder: Path, **changes) -> dict:
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest.update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return manifest


# ---------------------------------------------------------------- the report's reproduce snippet

HOSTILE_PARAMS = {
    "x=print('INJECTED'),y": 1,
    'quote"s\'and\nnewline)#"""': "v'\"\n)#\"\"\"",
    "</pre><script>alert(1)</script>": "<script>alert(2)</script>",
    "closing)": [1, "two)", {"nested": "\\"}],
    "a#comment": None,
    "'''": True,
}


def reproduce_snippet(document: str) -> str:
    """The Python reproduce snippet of a report (the <pre> that calls run_match), unescaped."""
    blocks = [html.unescape(b) for b in re.findall(r"<pre>(.*?)</pre>", document, re.S)]
    found = [b for b in blocks if b.startswith("from cavekit.analysis.batch import run_match")]
    assert len(found) == 1, blocks
    return found[0]


def test_a_report_quotes_hostile_parameter_names_and_values_in_its_python_snippet(run: Path):
    manifest = json.loads((run / MANIFEST).read_text())
    params = {**manifest["params"], **HOSTILE_PARAMS}
    edit_manifest(run, params=params)
    done = cavekit("report", str(run))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    document = (run / "report.html").read_text()
    # Escaped in the HTML: no tag of the manifest's becomes a tag of the page.
    assert "<script>" not in document and "&lt;script&gt;alert(1)&lt;/script&gt;" in document
    snippet = reproduce_snippet(document)
    module = ast.parse(snippet)                  # it is Python...
    assert [type(s) for s in module.body] == [ast.ImportFrom, ast.Expr]
    call = module.body[1].value
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "run_match"
    # ...whose every argument is a literal (so it runs no code of the manifest's), the parameters exactly the
    # manifest's, given as one dict literal.
    args = [ast.literal_eval(a) for a in call.args]
    assert args == ["cvc", ["random", "random"], 4, 1]
    keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert keywords[None] == params and keywords["out"] == str(run) and keywords["chunk_size"] == CHUNK
    # The command line cannot give these names, so the report offers Python only.
    assert "a parameter value cannot be given on the command line" in document
    assert "INJECTED" not in done.stdout + done.stderr


@pytest.mark.parametrize("value", [
    {"a": [1, 2.5, None, True, "x'\"\n"], "b": {"c": []}}, "'''", 'x"""y', -7, 1e300, [], {}, "\\", "\u2028é",
])
def test_python_literal_reads_back_as_the_same_value(value):
    assert ast.literal_eval(python_literal(value)) == value


# ---------------------------------------------------------------- cavekit report on bad folders

@pytest.mark.parametrize("changes, words", [
    ({"engine": 5}, ["manifest.json", "field 'engine' should be an engine name (text) or null, found 5"]),
    ({"code_version": "<script>x</script>"}, ["field 'code_version' should be an object", "'<script>x</script>'"]),
    ({"code_version": {"cavekit": 1}}, ["code_version.cavekit should be text or null, found 1"]),
    ({"created": ["yesterday"]}, ["field 'created' should be a date and time"]),
    ({"params": {"players": 1}}, ["params.players is 1 but field 'players' is 2"]),
    ({"game": "chess"}, ["field 'game' is 'chess', a game this cavekit does not know"]),
    ({"players": 10 ** 9}, ["field 'players' is 1000000000; a player count is from 1 to 100"]),
    ({"games": 2 ** 70}, ["games and chunk_size must be less than 2**63"]),
])
def test_report_refuses_a_manifest_field_of_the_wrong_kind_in_one_line(run: Path, changes, words):
    edit_manifest(run, **changes)
    assert_one_line_error(cavekit("report", str(run)), "results folder problem in", *words)
    assert not (run / "report.html").exists()


def test_report_escapes_hostile_text_in_the_code_version(run: Path):
    edit_manifest(run, code_version={"cavekit": "<script>x</script>", "git_commit": "<b>c0ffee</b>",
                                     "git_dirty": True})
    done = cavekit("report", str(run))
    assert done.returncode == 0, done.stderr
    document = (run / "report.html").read_text()
    assert "<script>x" not in document and "&lt;script&gt;x&lt;/script&gt;" in document
    assert "<b>c0ffee" not in document and "&lt;b&gt;c0ffee" in document


@pytest.mark.parametrize("text, words", [
    ("[" * 100000, [f"nested more than {MAX_JSON_DEPTH} levels deep"]),
    ('{"format": "cavekit-results",\n "version": ' + "9" * 5000 + "}", ["line 2 column 13",
                                                                          "an integer of 5000 digits"]),
    ('{"format": "cavekit-results", "version": 1, "seed": NaN}', ["NaN is not a number"]),
    ('{"format": "cavekit-results", "version": 1, "seed": 1e999}', ["1e999 is too large"]),
    ('"just text"', ["should be a JSON object, not a string"]),
])
def test_report_refuses_a_manifest_of_hostile_json_in_one_line(run: Path, text, words):
    (run / MANIFEST).write_text(text)
    assert_one_line_error(cavekit("report", str(run)), "manifest.json", "not valid JSON" if "object" not in words[0]
                          else "manifest", *words)


@pytest.mark.parametrize("name", ["study.json", "tournament.json"])
def test_report_refuses_a_hostile_study_or_tournament_file_in_one_line(tmp_path: Path, name: str):
    (tmp_path / name).write_text("[" * 100000)
    assert_one_line_error(cavekit("report", str(tmp_path)), name, "line 1 column 65: nested more than")


def set_game_value(folder: Path, game: int, column: str, value) -> None:
    path = folder / f"games-{game // CHUNK:05d}.parquet"
    table = pq.read_table(path)
    i = table.schema.get_field_index(column)
    values = table.column(column).to_pylist()
    values[game % CHUNK] = value
    table = table.set_column(i, table.schema.field(i), pa.array(values, type=table.schema.field(i).type))
    pq.write_table(table, path)


@pytest.mark.parametrize("game, column", [(3, "score_0"), (0, "history"), (2, "agent_1"), (1, "winner")])
def test_report_refuses_a_game_with_a_null_naming_its_chunk(run: Path, game: int, column: str):
    set_game_value(run, game, column, None)
    assert_one_line_error(cavekit("report", str(run)), f"games-{game // CHUNK:05d}.parquet",
                          f"game {game} has no {column} (null)")


def test_report_refuses_a_decision_with_a_null_naming_its_chunk(run: Path):
    path = run / "decisions-00001.parquet"
    table = pq.read_table(path)
    i = table.schema.get_field_index("action")
    values = table.column("action").to_pylist()
    values[5] = None
    pq.write_table(table.set_column(i, table.schema.field(i), pa.array(values, type=pa.int32())), path)
    assert_one_line_error(cavekit("report", str(run)), "decisions-00001.parquet", "a decision of game 2 has no "
                                                                                  "action (null)")


# ---------------------------------------------------------------- cavekit play --load

def record_with(**changes) -> str:
    record = json.loads(load_game("cvc").new_initial_state().serialize())
    record.update(changes)
    return json.dumps(record)


@pytest.mark.parametrize("text, words", [
    ("[" * 100000, ["line 1 column 65", f"nested more than {MAX_JSON_DEPTH} levels deep"]),
    ('{"format": ' + "{" * 100000, ["line 1 column", "nested more than"]),
    ('{"format": "cavekit-cvc", "version": ' + "1" * 5000 + "}", ["an integer of 5000 digits"]),
    ('{"format": "cavekit-cvc", "version": -Infinity}', ["-Infinity is not a number"]),
    ('{"format": ["x"], "version": 1, "params": {}, "history": []}', ["at format: ['x'] is not a Cave vs Cave record"]),
    ("[1, 2, 3]", ["at top level: a record is a JSON object, not an array"]),
    ("17", ["at top level: a record is a JSON object, not a number"]),
    ("null", ["not null"]),
    ("", ["at line 1 column 1: not JSON"]),
    (record_with(version=True), ["at version: version True"]),
    (record_with(history=[[1]]), ["at history[0]: [1] is not an action number"]),
    (record_with(history=[10 ** 4000]), ["at history[0]: illegal action 1000", "characters)"]),
    (record_with(history={"a": 1}), ["at history: must be a list"]),
    (record_with(state={"a" * 5000: 1}), ["at state.aaa", "characters)"]),
])
def test_play_load_refuses_a_hostile_record_in_one_line(tmp_path: Path, text: str, words: list[str]):
    path = tmp_path / "game.json"
    path.write_text(text)
    line = assert_one_line_error(cavekit("play", "cvc", "--load", str(path)), "corrupt game record", *words)
    assert line.endswith(f"(in {path})") and len(line) < 1200


def test_play_load_of_a_file_that_is_not_text_is_one_line(tmp_path: Path):
    path = tmp_path / "game.json"
    path.write_bytes(b"\xff\xfe\x00[")
    assert_one_line_error(cavekit("play", "cvc", "--load", str(path)), "cannot read the game record")


# ---------------------------------------------------------------- parse_json itself

@pytest.mark.parametrize("text, location, words", [
    ("[" * 100000, "line 1 column 65", "nested more than"),
    ('"[[[[' + "[" * 1000 + '"', None, None),                       # brackets in a string do not nest...
    ('{"a": "\\"' + "[" * 100 + '"}', None, None),                   # ...escaped quotes included
    ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, None, None),
    ("1" * 4301, "line 1 column 1", "an integer of 4301 digits"),
    ("[1,\n 2.0,\n NaN]", "line 3 column 2", "NaN is not a number"),
    ("[1e400]", "line 1 column 2", "1e400 is too large"),
    (b"\xff", "byte 0", "not UTF-8"),
])
def test_parse_json_refuses_what_python_json_would_crash_or_accept(text, location, words):
    if location is None:
        parse_json(text)
        return
    with pytest.raises(JSONTextError) as raised:
        parse_json(text)
    assert raised.value.location == location and words in raised.value.problem, str(raised.value)
