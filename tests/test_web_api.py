"""`cavekit serve`'s application through Starlette's test client: every route, the bad requests, the store.

Most tests run the AI in a thread pool (quick to start); `test_the_ai_moves_in_another_process_...` uses the
server's default process pool and checks that other requests are answered while the AI thinks.
"""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette")
from cavekit.analysis.batch import replay, run_match
from cavekit.analysis.play import chance_outcome, session_deal
from cavekit.analysis.report import build_report
from cavekit.analysis.web import create_app
from cavekit.analysis.web.sessions import (
    GameSession,
    SessionStore,
    Thinker,
    WebError,
    parse_seats,
)
from cavekit.core import CHANCE, load_game
from cavekit.core.registry import game_names
from starlette.testclient import TestClient
from web_client import LOCAL, new_game, seat_api, state_of, wait_for_turn, web_of


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(executor="thread", workers=1, results=[tmp_path]), base_url=LOCAL) as c:
        yield c


# ---------------------------------------------------------------- pages and static files

def test_home_page_offers_every_game_and_the_static_files_are_served(client, tmp_path):
    page = client.get("/")
    assert page.status_code == 200 and 'id="new-game-form"' in page.text and "/static/app.js" in page.text
    catalogue = json.loads(page.text.split('id="catalogue">')[1].split("</script>")[0])
    assert [g["name"] for g in catalogue] == game_names()
    assert all(set(g["difficulties"]) == {"easy", "medium", "hard", "strongest"} for g in catalogue)
    assert client.get("/api/catalogue").json() == catalogue
    js = client.get("/static/app.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript") and "playPage" in js.text
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/secret.txt").status_code == 404
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and "error" in missing.json()
    assert client.get("/nothing").status_code == 404 and "Error 404" in client.get("/nothing").text
    assert client.delete("/api/games").status_code == 405


def test_a_new_game_against_easy_plays_the_persons_move_and_the_ais_reply(client):
    created = new_game(client)
    assert created["url"] == f"/play/{created['id']}/0"
    page = client.get(created["url"], headers=seat_api(created)[1])
    assert page.status_code == 200 and 'id="initial-view"' in page.text and "<svg" in page.text
    view = wait_for_turn(client, created)
    state = state_of(client, created)
    assert [a["id"] for a in view["actions"]] == state.legal_actions()
    assert [a["text"] for a in view["actions"]] == [state.action_to_string(a) for a in state.legal_actions()]
    assert view["scores"] == state.scores() and view["to_move"] == 0 and view["board"].startswith("<svg")
    tile_actions = [a for a in view["actions"] if a["text"].startswith("take ")]
    assert tile_actions and all(a["targets"] == [f"tile:{state.action_to_string(a['id'])}"] or a["targets"]
                                for a in tile_actions)
    base, key = seat_api(created)
    before = len(state.history())
    after = client.post(f"{base}/action", headers=key, json={"action": tile_actions[0]["id"],
                                                            "version": view["version"]})
    assert after.status_code == 200 and after.json()["version"] > view["version"]
    assert len(state_of(client, created).history()) == before + 1
    assert after.json()["log"][-1] == {"player": 0, "text": tile_actions[0]["text"]}


# ---------------------------------------------------------------- bad requests

@pytest.mark.parametrize("body, status, words", [
    ({"game": "chess", "seats": ["human", "easy"]}, 400, "unknown game"),
    ({"game": "cvc", "players": 3, "seats": ["human", "easy", "easy"]}, 400, "players"),
    ({"game": "cvc", "players": "two", "seats": ["human", "easy"]}, 400, "integer"),
    ({"game": "cvc", "seats": ["human"]}, 400, "2 entries"),
    ({"game": "cvc", "seats": "human"}, 400, "list"),
    ({"game": "cvc", "seats": ["human", "mcts:iterations=100000000"]}, 400, "difficulty"),
    ({"game": "cvc", "seats": ["easy", "easy"]}, 400, "person"),
    ({"game": "cvc", "seats": ["human", "easy"], "params": {"no_such_rule": 1}}, 400, "no option"),
    ({"game": "cvc", "seats": ["human", "easy"], "params": {"undermining_ignores": "some"}}, 400, "allowed"),
    ({"game": "cvc", "seats": ["human", "easy"], "params": ["x"]}, 400, "params"),
    ({"game": "cvc", "seats": ["human", "easy"], "seed": -1}, 400, "seed"),
    ({"game": "cvc", "seats": ["human", "easy"], "seed": "abc"}, 400, "seed"),
    ({"game": "cvc", "seats": ["human", "easy"], "record": "{not json"}, 400, "not loaded"),
    ({"game": "cvc", "seats": ["human", "easy"], "record": 5}, 400, "record"),
    ({"game": "cvc", "seats": ["human", "easy"], "record": '{"params": {"players": 2}, "history": []}'}, 400,
     "not loaded"),
])
def test_new_game_requests_that_are_not_allowed_get_400_and_make_no_game(client, body, status, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == status and words in r.json()["error"], r.text
    assert len(web_of(client).store) == 0


def test_malformed_and_oversized_bodies_get_4xx(client):
    assert client.post("/api/games", content=b"{nope", headers={"content-type": "application/json"}).status_code == 400
    assert "JSON object" in client.post("/api/games", json=[1, 2]).json()["error"]
    assert client.post("/api/games", content=b"\xff\xfe", headers={"content-type": "application/json"}).status_code == 400
    huge = b'{"game": "cvc", "record": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    r = client.post("/api/games", content=huge, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "at most" in r.json()["error"]

    def streamed():
        yield b'{"game": "'
        for _ in range(6):
            yield b"y" * (1024 * 1024)
    r = client.post("/api/games", content=streamed(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert len(web_of(client).store) == 0


def test_bad_requests_to_a_game_get_4xx_and_leave_it_unchanged(client):
    created = new_game(client, seats=("human", "human"))
    view = wait_for_turn(client, created, 0) if state_of(client, created).current_player() == 0 else \
        wait_for_turn(client, created, 1)
    mover = view["seat"]
    other = 1 - mover
    base, key = seat_api(created, mover)
    other_base, other_key = seat_api(created, other)
    record = state_of(client, created).serialize()
    legal = state_of(client, created).legal_actions()
    illegal = next(a for a in range(load_game("cvc").num_distinct_actions) if a not in legal)
    cases = [
        (client.get("/api/games/nosuchgame/seats/0/view", headers=key), 404, "no game"),
        (client.post("/api/games/nosuchgame/seats/0/action", headers=key, json={"action": legal[0]}), 404, "no game"),
        (client.get(f"/api/games/{created['id']}/seats/5/view", headers=key), 404, "seats 0 to 1"),
        (client.get(f"{base}/view", headers={"X-Cavekit-Key": "wrong"}), 403, "has not joined seat"),
        (client.get(f"{base}/view"), 403, "has not joined seat"),
        (client.get(f"{other_base}/view", headers=key), 403, "has not joined seat"),
        (client.get(f"{base}/view", params={"key": key["X-Cavekit-Key"]}), 400, "not accepted in the address"),
        (client.post(f"{base}/action", headers=key, json={"action": illegal}), 400, "not legal"),
        (client.post(f"{base}/action", headers=key, json={"action": -1}), 400, "not legal"),
        (client.post(f"{base}/action", headers=key, json={"action": str(legal[0])}), 400, "integer"),
        (client.post(f"{base}/action", headers=key, json={"action": 1.5}), 400, "integer"),
        (client.post(f"{base}/action", headers=key, json={"action": True}), 400, "integer"),
        (client.post(f"{base}/action", headers=key, json={"action": {"__reduce__": "os.system"}}), 400, "integer"),
        (client.post(f"{base}/action", headers=key, json={}), 400, "name the action"),
        (client.post(f"{base}/action", headers=key, json={"action": legal[0], "version": view["version"] - 1}),
         409, "moved on"),
        (client.post(f"{base}/action", headers=key, content=b"action=1"), 415, "as JSON"),
        (client.post(f"{base}/action", headers={**key, "content-type": "application/json"}, content=b"action=1"),
         400, "not JSON"),
        (client.post(f"{base}/action", headers=key, content=b"[" * 20000), 413, "at most"),
        (client.post(f"{other_base}/action", headers=other_key, json={"action": legal[0]}), 409, "not your turn"),
        (client.post(f"{other_base}/hint", headers=other_key, json={}), 409, "not your turn"),
        (client.post(f"{base}/hint", headers=key, json={"count": 0}), 400, "from 1 to 1000"),
        (client.post(f"{base}/hint", headers=key, json={"count": "many"}), 400, "integer"),
        (client.post(f"{base}/undo", headers=key), 409, "nothing to undo"),
        (client.get(f"{base}/action", headers=key), 405, "not allowed"),
    ]
    for response, status, words in cases:
        assert response.status_code == status and words in response.json()["error"], response.text
    assert state_of(client, created).serialize() == record
    assert client.get(f"{base}/view", headers=key).json()["version"] == view["version"]


def test_ai_seats_have_no_page(client):
    created = new_game(client)
    r = client.get(f"/api/games/{created['id']}/seats/1/view", headers=seat_api(created)[1])
    assert r.status_code == 403 and "played by the AI" in r.json()["error"]
    page = client.get(f"/play/{created['id']}/1", headers={"X-Cavekit-Key": "x"})
    assert page.status_code == 403 and "played by the AI" in page.text


# ---------------------------------------------------------------- undo, hint, save and load

def test_undo_takes_back_the_move_and_the_same_move_meets_the_same_position(client):
    created = new_game(client)
    base, key = seat_api(created)
    start = wait_for_turn(client, created)
    history = state_of(client, created).history()
    first = start["actions"][0]["id"]
    client.post(f"{base}/action", headers=key, json={"action": first})
    played = state_of(client, created).history()
    undone = client.post(f"{base}/undo", headers=key)
    assert undone.status_code == 200 and undone.json()["message"].startswith("took back your move")
    assert state_of(client, created).history() == history
    client.post(f"{base}/action", headers=key, json={"action": first})
    assert state_of(client, created).history() == played


def test_hint_ranks_the_options_with_values_and_their_menu_numbers(client):
    created = new_game(client)
    base, key = seat_api(created)
    view = wait_for_turn(client, created)
    hint = client.post(f"{base}/hint", headers=key, json={"count": 3}).json()
    assert hint["spec"] == "greedy" and len(hint["rows"]) <= 3 and hint["rows"]
    legal = [a["id"] for a in view["actions"]]
    for row in hint["rows"]:
        assert legal[row["number"] - 1] == row["action"] and isinstance(row["value"], float)
    values = [row["value"] for row in hint["rows"]]
    assert values == sorted(values, reverse=True)


def test_a_saved_record_loads_into_a_new_game_at_the_same_position(client):
    created = new_game(client)
    base, key = seat_api(created)
    view = wait_for_turn(client, created)
    client.post(f"{base}/action", headers=key, json={"action": view["actions"][0]["id"]})
    wait_for_turn(client, created)
    saved = client.get(f"{base}/record", headers=key)
    assert saved.status_code == 200 and "attachment" in saved.headers["content-disposition"]
    record = saved.text
    assert record == state_of(client, created).serialize() + "\n"
    loaded = new_game(client, seats=("human", "medium"), record=record, seed=None)
    assert state_of(client, loaded).serialize() == state_of(client, created).serialize()
    other = json.loads(record)
    other["history"][-1] = 99999
    r = client.post("/api/games", json={"game": "cvc", "seats": ["human", "easy"], "record": json.dumps(other)})
    assert r.status_code == 400 and "history[" in r.json()["error"]
    r = client.post("/api/games", json={"game": "pairs", "seats": ["human", "easy"], "record": record})
    assert r.status_code == 400 and "a cvc record, not pairs" in r.json()["error"]
    r = client.post("/api/games", json={"seats": ["human", "easy"], "record": record.replace("cavekit-cvc", "x")})
    assert r.status_code == 400 and "not the record format" in r.json()["error"]
    assert new_game(client, game=None, seats=("human", "easy"), record=record)["seats"]


def test_a_finished_game_shows_the_score_breakdown(client):
    created = new_game(client, seed=11)
    base, key = seat_api(created)
    moves = 0
    while True:
        view = wait_for_turn(client, created)
        if view["result"]:
            break
        # The last legal action: usually "end turn" or a sub-action, so the game moves along.
        r = client.post(f"{base}/action", headers=key, json={"action": view["actions"][-1]["id"]})
        assert r.status_code == 200, r.text
        moves += 1
    state = state_of(client, created)
    assert state.is_terminal() and moves > 10
    result = view["result"]
    assert result["scores"] == state.scores() and view["scores"] == state.scores()
    totals = {row["player"]: row["points"] for row in result["breakdown"] if row["source"] == "total"}
    assert totals == dict(enumerate(state.scores()))
    for p in (0, 1):
        assert sum(row["points"] for row in result["breakdown"] if row["player"] == p and row["source"] != "total") \
            == state.scores()[p]
    assert result["verdict"] in ("You win!", "A draw.") or result["verdict"].endswith("wins.") \
        or "tie-break" in result["verdict"]
    assert view["actions"] == [] and not view["can_undo"]
    assert client.post(f"{base}/action", headers=key, json={"action": 0}).status_code == 409


# ---------------------------------------------------------------- the store

def test_the_store_is_bounded_and_forgets_idle_games():
    now = [0.0]
    store = SessionStore(max_games=2, idle_seconds=10, clock=lambda: now[0])
    game = load_game("cvc")
    thinker = Thinker(1, "thread")

    def session():
        return GameSession("cvc", game, parse_seats(game, ["human", "human"]), 1, thinker)
    a, b = session(), session()
    store.add(a)
    store.add(b)
    with pytest.raises(WebError) as full:
        store.add(session())
    assert full.value.status == 503
    a.state = replay(game, run_match("cvc", ["random", "random"], 1, 0, progress=False)["history"][0])
    store.add(session())            # the finished game makes room
    assert a.id not in store.sessions and len(store) == 2
    now[0] = 11.0
    with pytest.raises(WebError) as gone:
        store.get(b.id)
    assert gone.value.status == 404 and len(store) == 0
    thinker.shutdown()


# ---------------------------------------------------------------- the AI in another process

def ai_starts(game_name: str) -> int:
    """A session seed whose deal lets player 1 make the first decision."""
    game = load_game(game_name)
    for seed in range(100):
        state, deal = game.new_initial_state(), session_deal(game, seed)
        while state.current_player() == CHANCE:
            state.apply_action(chance_outcome(state, deal, seed))
        if state.current_player() == 1:
            return seed
    raise AssertionError("no seed among 100 lets player 1 start")


def test_the_ai_moves_in_another_process_and_other_requests_are_answered_meanwhile(tmp_path):
    with TestClient(create_app(workers=1, results=[tmp_path]), base_url=LOCAL) as client:
        created = new_game(client, seats=("human", "strongest"), seed=ai_starts("cvc"))
        base, key = seat_api(created)
        answered = []
        while True:
            started = time.perf_counter()
            view = client.get(f"{base}/view", headers=key).json()
            answered.append(time.perf_counter() - started)
            if not view["thinking"]:
                break
            time.sleep(0.02)
        # A server that waited for the AI would answer the first request only when the move is made. (A single
        # slow answer can happen on a loaded machine, so the typical answer is compared with the AI's time.)
        assert len(answered) > 3, "the AI answered too fast to show that it does not block"
        assert view["your_turn"] and view["ai_seconds"] > 0
        assert sorted(answered)[len(answered) // 2] < view["ai_seconds"] / 4, (answered, view["ai_seconds"])
        assert any(entry["player"] == 1 for entry in view["log"])


# ---------------------------------------------------------------- replays and the report's links

@pytest.fixture
def results_folder(tmp_path):
    folder = tmp_path / "run"
    run_match("cvc", ["greedy", "random"], 2, 5, progress=False, out=folder)
    return folder


def test_replay_lists_the_games_and_steps_through_one(client, results_folder):
    listing = client.get("/api/replay/games", params={"folder": "run"}).json()
    assert [g["game"] for g in listing["games"]] == [0, 1] and listing["folder"] == "run"
    page = client.get("/replay", params={"folder": str(results_folder)})
    assert page.status_code == 200 and "/replay/1?folder=run" in page.text
    game = load_game("cvc")
    history = listing_history = None
    from cavekit.analysis.results import load_games
    rows = load_games(results_folder)
    history = [int(a) for a in rows["history"][1]]
    for step in (0, 1, 17, len(history)):
        found = client.get("/api/replay/games/1", params={"folder": "run", "step": step}).json()
        state = replay(game, history[:step])
        assert found["scores"] == state.scores() and found["steps"] == len(history) and found["step"] == step
        assert found["to_move"] == state.current_player()
        assert found["agents"] == [rows["agent_0"][1], rows["agent_1"][1]]
    assert found["over"] and found["final_scores"] == [rows["score_0"][1], rows["score_1"][1]]
    assert found["next"] is None and found["last"]["text"]
    html = client.get("/replay/1", params={"folder": "run", "step": 17}).text
    assert 'data-step="17"' in html and 'id="forward"' in html and "<svg" in html
    assert listing_history is None


@pytest.mark.parametrize("params, status, words", [
    ({}, 400, "name a results folder"),
    ({"folder": "/etc"}, 403, "outside"),
    ({"folder": "../.."}, 403, "outside"),
    ({"folder": "missing"}, 404, "not a cavekit results folder"),
])
def test_replay_of_a_folder_that_is_not_allowed_or_not_there_gets_4xx(client, results_folder, params, status, words):
    r = client.get("/api/replay/games", params=params)
    assert r.status_code == status and words in r.json()["error"], r.text


def test_replay_of_a_game_or_step_that_is_not_there_gets_4xx(client, results_folder):
    assert client.get("/api/replay/games/7", params={"folder": "run"}).status_code == 404
    assert client.get("/api/replay/games/0", params={"folder": "run", "step": 100000}).status_code == 400
    assert client.get("/api/replay/games/0", params={"folder": "run", "step": "x"}).status_code == 400
    assert client.get("/replay/0", params={"folder": "run", "step": -1}).status_code == 400


def test_the_home_page_lists_the_results_folders_it_can_replay(client, results_folder):
    assert "/replay?folder=run" in client.get("/").text


def test_the_report_links_every_game_to_its_replay(results_folder):
    html = build_report(results_folder, replay_url="http://127.0.0.1:8765/")
    for game in (0, 1):
        assert f'href="http://127.0.0.1:8765/replay/{game}?folder={results_folder.resolve()}"' in html
    assert "Games (replays)" in html and "Games (replays)" not in build_report(results_folder)


# ---------------------------------------------------------------- the other games

@pytest.mark.parametrize("game", ["cavum", "caverna"])
def test_cavum_and_caverna_show_their_text_and_a_clickable_list(client, game):
    created = new_game(client, game=game, seats=("human", "easy"), seed=4)
    view = wait_for_turn(client, created, timeout=120)
    state = state_of(client, created)
    assert view["text"] and view["show_text"]
    assert (view["board"] is not None) == (game == "cavum")      # Cavum's mountain is drawn; Caverna is text
    assert [a["id"] for a in view["actions"]] == state.legal_actions()
    base, key = seat_api(created)
    r = client.post(f"{base}/action", headers=key, json={"action": view["actions"][0]["id"]})
    assert r.status_code == 200


def test_the_ai_move_benchmark_times_every_ai_turn():
    from cavekit.analysis.web.bench import bench_ai_moves, format_bench
    result = bench_ai_moves("cvc", "easy", "random", games=1)
    assert result["agent"] == "greedy" and result["turns"] >= 8 and 0 < result["median_s"] <= result["max_s"]
    assert "seconds per AI turn" in format_bench(result)


def test_cavum_cells_carry_the_actions_that_name_them(client):
    created = new_game(client, game="cavum", seats=("human", "human"), seed=4)
    base, key = seat_api(created, 0)
    state = state_of(client, created)
    session = web_of(client).store.get(created["id"])
    while not any(" at " in state.action_to_string(a) for a in state.legal_actions()):
        session.play(session.seats[state.current_player()], state.legal_actions()[-1])
        state = state_of(client, created)
    mover = state.current_player()
    base, key = seat_api(created, mover)
    view = client.get(f"{base}/view", headers=key).json()
    for name, ids in view["targets"].items():
        where = name.split(":")[1]
        assert ids and all(where in state.action_to_string(a) for a in ids)
        assert f'data-target="{name}"' in view["board"]
