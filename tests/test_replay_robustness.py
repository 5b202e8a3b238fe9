"""`cavekit serve`'s replays of damaged results folders: a bad stored game is refused on its own (4xx naming
the game), the folder's other games still list and replay, a bad manifest is a 404 with its reason, and no
message shows the server's absolute paths."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("starlette")
from cavekit.analysis.batch import run_match
from cavekit.analysis.results import MANIFEST
from cavekit.analysis.web import create_app
from cavekit.analysis.web.replay import Replays, game_list, replay_step
from cavekit.analysis.web.sessions import WebError
from starlette.testclient import TestClient

GAMES = 4
CHUNK = 2            # two games per chunk: a damaged game shares its chunk with a good one


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pristine") / "run"
    run_match("cvc", ["random", "random"], GAMES, 1, progress=False, out=folder, chunk_size=CHUNK)
    return folder


@pytest.fixture
def root(tmp_path: Path, pristine: Path) -> Path:
    """A served root holding `run`, a fresh copy of the pristine folder, for a test to damage."""
    shutil.copytree(pristine, tmp_path / "run")
    return tmp_path


@pytest.fixture
def client(root: Path):
    # (the server answers to its loopback names only, so not to TestClient's default host "testserver")
    with TestClient(create_app(executor="thread", workers=1, results=[root]), base_url="http://localhost") as c:
        yield c


def set_game_value(folder: Path, game: int, column: str, value) -> None:
    """Rewrite the games chunk holding `game` with `value` in its `column` (None: a null)."""
    path = folder / f"games-{game // CHUNK:05d}.parquet"
    table = pq.read_table(path)
    i = table.schema.get_field_index(column)
    values = table.column(column).to_pylist()
    values[game % CHUNK] = value
    table = table.set_column(i, table.schema.field(i), pa.array(values, type=table.schema.field(i).type))
    pq.write_table(table, path)


def history(folder: Path, game: int) -> list[int]:
    return pq.read_table(folder / f"games-{game // CHUNK:05d}.parquet").column("history").to_pylist()[game % CHUNK]


def edit_manifest(folder: Path, **changes) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest.update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest))


def assert_no_server_path(message: str, root: Path) -> None:
    assert str(root) not in message and "/tmp" not in message, message


def listed(client) -> list[int]:
    r = client.get("/api/replay/games", params={"folder": "run"})
    assert r.status_code == 200, r.text
    return [g["game"] for g in r.json()["games"]]


def assert_other_games_replay(client, bad: int) -> None:
    for game in range(GAMES):
        if game != bad:
            r = client.get(f"/api/replay/games/{game}", params={"folder": "run", "step": 3})
            assert r.status_code == 200, r.text
            assert client.get(f"/replay/{game}", params={"folder": "run", "step": 3}).status_code == 200


@pytest.mark.parametrize("column, value, words", [
    ("history", None, "no history"),
    ("score_1", None, "score_1 is null"),
    ("winner", None, "winner is null"),
    ("agent_0", None, "agent_0 is null"),
])
def test_a_game_with_a_null_is_left_out_of_the_list_and_refused_alone(client, root, column, value, words):
    set_game_value(root / "run", 1, column, value)
    assert listed(client) == [0, 2, 3]
    page = client.get("/replay", params={"folder": "run"})
    assert page.status_code == 200 and 'id="damaged"' in page.text and "<li>game 1: " in page.text
    damaged = client.get("/api/replay/games", params={"folder": "run"}).json()["damaged"]
    assert [d["game"] for d in damaged] == [1] and words in damaged[0]["problem"]
    for url in ("/api/replay/games/1", "/replay/1"):
        r = client.get(url, params={"folder": "run", "step": 0})
        assert r.status_code == 422, r.text
        message = r.json()["error"] if url.startswith("/api") else r.text
        assert "game 1 of run cannot be replayed" in message and words in message, message
        assert_no_server_path(message, root)
    assert_other_games_replay(client, bad=1)
    problems = client.app.state.web.replays.folder("run").problems
    assert problems == [{"game": 1, "problem": problems[0]["problem"]}] and words in problems[0]["problem"]


@pytest.mark.parametrize("damage", [
    lambda h: h[:5] + [100000] + h[6:],          # an action id out of every range
    lambda h: h[:8] + [h[8]] * 40 + h[8:],       # a legal move repeated until it is not legal
    lambda h: h + [0],                            # an action after the game ended
])
def test_a_game_whose_history_is_not_legal_gets_422_and_the_others_replay(client, root, damage):
    folder = root / "run"
    set_game_value(folder, 2, "history", damage(history(folder, 2)))
    assert listed(client) == [0, 1, 2, 3]        # legality is found by replaying, not by listing
    for step in (0, 3):                           # refused at any step: the whole history is replayed
        r = client.get("/api/replay/games/2", params={"folder": "run", "step": step})
        assert r.status_code == 422, r.text
        message = r.json()["error"]
        assert "game 2 of run cannot be replayed" in message and "is not legal there" in message, message
        assert_no_server_path(message, root)
    assert_other_games_replay(client, bad=2)


@pytest.mark.parametrize("value, words", [
    (None, "no history"),
    ("not a list", "should be a list of action numbers, not str"),
    (17, "should be a list of action numbers, not int"),
    ([1, "x", 3], "history[1] is 'x', not an action number"),
    ([1.5], "history[0] is '1.5', not an action number"),
    ({"a": 1}, "not dict"),
])
def test_a_history_that_is_not_a_list_of_actions_gets_422(pristine, value, words):
    folder = Replays([pristine.parent]).folder("run")
    games = folder.games.copy()
    games["history"] = games["history"].astype(object)
    games.at[3, "history"] = value
    folder.games = games
    with pytest.raises(WebError) as raised:
        replay_step(folder, 3, 0)
    assert raised.value.status == 422 and "game 3 of run" in raised.value.message and words in raised.value.message
    assert [g["game"] for g in game_list(folder)] == [0, 1, 2]
    assert replay_step(folder, 0, 2)["step"] == 2


def test_a_game_that_is_not_stored_gets_404_naming_the_folder_not_its_path(client, root):
    r = client.get("/api/replay/games/7", params={"folder": "run"})
    assert r.status_code == 404 and "run holds no game 7 (games: 0 to 3)" in r.json()["error"], r.text
    assert_no_server_path(r.json()["error"], root)
    folder = client.app.state.web.replays.folder("run")
    for game in (-1, 2 ** 70):
        with pytest.raises(WebError) as raised:
            replay_step(folder, game, 0)
        assert raised.value.status == 404 and "run holds no game" in raised.value.message


@pytest.mark.parametrize("changes, words", [
    ({"game": "chess"}, "a game this cavekit does not know"),
    ({"game": ["cvc"]}, "field 'game' should be a game name"),
    ({"params": ["x"]}, "field 'params' should be an object"),
    ({"params": {"players": 2, "no_such_rule": 1}}, "cannot be set up from the manifest's params"),
    ({"params": {"players": 2, "engine": "reference"}}, "params name an engine"),
    ({"params": {"players": 1}}, "params.players is 1 but field 'players' is 2"),
    ({"engine": 5}, "field 'engine' should be an engine name"),
    ({"engine": "quantum"}, "names engine 'quantum'"),
    ({"players": 10 ** 9}, "a player count is from 1 to 100"),
    ({"code_version": "<script>x</script>"}, "field 'code_version' should be an object"),
    ({"resumed": "yesterday"}, "field 'resumed' should list objects"),
])
def test_a_bad_manifest_gets_404_with_its_reason(client, root, changes, words):
    edit_manifest(root / "run", **changes)
    for url in ("/api/replay/games", "/api/replay/games/0"):
        r = client.get(url, params={"folder": "run"})
        assert r.status_code == 404 and words in r.json()["error"], r.text
        assert_no_server_path(r.json()["error"], root)
    page = client.get("/replay", params={"folder": "run"})
    assert page.status_code == 404 and "<script>x" not in page.text


@pytest.mark.parametrize("text, words", [
    ("[" * 100000, "nested more than"),
    ('{"format": "cavekit-results", "version": ' + "9" * 5000 + "}", "an integer of 5000 digits"),
    ('{"format": "cavekit-results", "version": NaN}', "NaN is not a number"),
    ("[1, 2]", "should be a JSON object, not an array"),
])
def test_a_manifest_that_is_hostile_json_gets_404(client, root, text, words):
    (root / "run" / MANIFEST).write_text(text)
    r = client.get("/api/replay/games", params={"folder": "run"})
    assert r.status_code == 404 and words in r.json()["error"], r.text
    assert "run/manifest.json" in r.json()["error"]
    assert_no_server_path(r.json()["error"], root)


def test_a_missing_chunk_is_a_404_that_names_it_relative_to_the_served_root(client, root):
    (root / "run" / "games-00001.parquet").unlink()
    r = client.get("/api/replay/games", params={"folder": "run"})
    assert r.status_code == 404 and "run/games-00001.parquet" in r.json()["error"], r.text
    assert_no_server_path(r.json()["error"], root)
