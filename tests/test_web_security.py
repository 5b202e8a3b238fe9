"""`cavekit serve` keeps each seat's secrets and survives hostile input.

Each test reproduces a fault an outside probe found (issue 51) and checks it is gone:
- a seat's page and answers never carry another seat's key, and keys travel in a cookie or a header, never
  in an address or a log;
- the seed (which gives away the deal) reaches no one before the game is over;
- an undo takes back only the asking seat's own moves and the AI's replies, never replays a revealed chance
  outcome or hidden card, and the AI then searches with fresh randomness;
- malformed input of every kind gets a 4xx that says what was wrong, never a 500 or a traceback, and leaves
  the game unchanged (a Hypothesis fuzz of every route, plus the probe's classes);
- abuse limits: creation limits, eviction of idle games instead of a lock-out, host and origin checks,
  JSON-only bodies, security headers, a time limit on request bodies.
"""
from __future__ import annotations

import json
import logging
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from cavekit.analysis.batch import replay, run_match  # noqa: E402
from cavekit.analysis.web import create_app, guard, worker  # noqa: E402
from cavekit.analysis.web.sessions import GameSession, SessionStore, Thinker, WebError, parse_seats  # noqa: E402
from cavekit.core import CHANCE, load_game  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_client import KEY, LOCAL, new_game, seat_api, state_of, wait_for_turn, web_of  # noqa: E402


@pytest.fixture(scope="module")
def results_root(tmp_path_factory):
    """A served folder holding one small results folder, `run`."""
    root = tmp_path_factory.mktemp("served")
    run_match("cvc", ["greedy", "random"], 2, 5, progress=False, out=root / "run")
    return root


@pytest.fixture
def client(results_root):
    app = create_app(executor="thread", workers=1, results=[results_root], games_per_minute=1000)
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as c:
        yield c


def play_until(client, created, seat, done, limit=400):
    """Let `seat` play its last legal move (usually "end turn") until `done(session)`; the session."""
    session = web_of(client).store.get(created["id"])
    base, key = seat_api(created, seat)
    for _ in range(limit):
        if done(session):
            return session
        view = wait_for_turn(client, created, seat)
        assert not view["result"], "the game ended before the position looked for"
        r = client.post(f"{base}/action", headers=key, json={"action": view["actions"][-1]["id"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the position looked for never came")


# ---------------------------------------------------------------- each seat's secret reaches only that seat

def test_a_seats_page_and_answers_hold_no_other_seats_key(client):
    created = client.post("/api/games", json={"game": "pairs", "players": 3, "seats": ["human", "human", "human"],
                                              "seed": 4}).json()
    keys = {s["index"]: s["key"] for s in created["seats"]}
    assert [s["invitation"] for s in created["seats"]] == [f"/join/{created['id']}/{p}#{keys[p]}" for p in range(3)]
    assert "seed" not in created
    client.cookies.clear()
    for p in range(3):
        base, header = seat_api(created, p)
        answers = [client.get(f"/play/{created['id']}/{p}", headers=header).text,
                   client.get(f"{base}/view", headers=header).text,
                   client.post(f"{base}/hint", headers=header, json={}).text,
                   client.post(f"{base}/undo", headers=header).text]
        for q in range(3):
            if q != p:
                assert not any(keys[q] in text for text in answers), (p, q)
        assert "Links of the other" not in answers[0]


def test_keys_travel_in_a_seat_cookie_or_header_and_never_in_the_address(client):
    created = client.post("/api/games", json={"game": "cvc", "seats": ["human", "human"], "seed": 4})
    assert created.status_code == 201
    cookie = created.headers["set-cookie"]
    game_id = created.json()["id"]
    keys = {s["index"]: s["key"] for s in created.json()["seats"]}
    # the creator's browser joined seat 0, and only seat 0
    assert cookie.startswith(f"cavekit_{game_id}_0={keys[0]};") and "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower() and keys[1] not in cookie
    assert client.get(f"/play/{game_id}/0").status_code == 200
    refused = client.get(f"/play/{game_id}/1")
    assert refused.status_code == 403 and "open the invitation link" in refused.text
    # the invitation's page carries no key: its script sends the fragment's key to join, which sets the cookie
    invitation = client.get(f"/join/{game_id}/1")
    assert invitation.status_code == 200 and keys[1] not in invitation.text and keys[0] not in invitation.text
    wrong = client.post(f"/api/games/{game_id}/seats/1/join", headers={KEY: keys[0]})
    assert wrong.status_code == 403
    joined = client.post(f"/api/games/{game_id}/seats/1/join", headers={KEY: keys[1]})
    assert joined.status_code == 200 and joined.json()["url"] == f"/play/{game_id}/1"
    assert client.get(f"/play/{game_id}/1").status_code == 200
    # a key in the address is refused, even the right one, since addresses are logged and passed on
    in_query = client.get(f"/api/games/{game_id}/seats/0/view", params={"key": keys[0]})
    assert in_query.status_code == 400 and "not accepted in the address" in in_query.json()["error"]


def test_no_seed_reaches_a_player_before_the_game_is_over(client):
    created = new_game(client, seats=("human", "easy"), seed=None)
    session = web_of(client).store.get(created["id"])
    base, key = seat_api(created)
    seen = json.dumps(created)
    view = wait_for_turn(client, created)
    seen += json.dumps(view) + client.get(f"/play/{created['id']}/0", headers=key).text
    record = client.get(f"{base}/record", headers=key)
    assert "seed" not in record.headers["content-disposition"]
    seen += record.text + record.headers["content-disposition"]
    assert view["seed"] is None and str(session.seed) not in seen
    # once the game is over the seed is shown, so the game can be played again on the same deal
    session.state = replay(load_game("cvc"), run_match("cvc", ["random", "random"], 1, 0, progress=False)["history"][0])
    assert client.get(f"{base}/view", headers=key).json()["seed"] == session.seed


# ---------------------------------------------------------------- undo

def test_an_undo_never_takes_back_another_persons_move(client):
    created = new_game(client, seats=("human", "human"), seed=5)
    first = state_of(client, created).current_player()
    other = 1 - first
    session = play_until(client, created, first, lambda s: s.state.current_player() == other)
    base, key = seat_api(created, other)
    view = wait_for_turn(client, created, other)
    assert client.post(f"{base}/action", headers=key, json={"action": view["actions"][0]["id"]}).status_code == 200
    before = (session.state.serialize(), session.version)
    mine, my_key = seat_api(created, first)
    refused = client.post(f"{mine}/undo", headers=my_key)
    assert refused.status_code == 409 and f"player {other} has moved since" in refused.json()["error"]
    assert (session.state.serialize(), session.version) == before       # the other seat's move is still there
    undone = client.post(f"{base}/undo", headers=key)                   # that seat may take back its own
    assert undone.status_code == 200 and "AI action" not in undone.json()["message"]


def test_an_undo_does_not_replay_a_revealed_chance_outcome(client):
    created = new_game(client, seats=("human", "easy"), seed=5)

    def chance_after_my_move(session):
        mine = [i for i, e in enumerate(session.log) if e.player == 0]
        return bool(mine) and any(e.player == CHANCE for e in session.log[mine[-1] + 1:]) and \
            session.state.current_player() == 0 and not session.thinking

    session = play_until(client, created, 0, chance_after_my_move)
    before = (session.state.serialize(), session.version)
    base, key = seat_api(created)
    refused = client.post(f"{base}/undo", headers=key)
    assert refused.status_code == 409 and "chance has since shown you" in refused.json()["error"]
    assert (session.state.serialize(), session.version) == before


def test_an_undo_in_the_cave_cannot_learn_the_ais_cards(client):
    created = new_game(client, game="pairs", seats=("human", "easy"), seed=8)
    base, key = seat_api(created)
    view = wait_for_turn(client, created)
    session = web_of(client).store.get(created["id"])
    assert client.post(f"{base}/action", headers=key, json={"action": view["actions"][0]["id"]}).status_code == 200
    wait_for_turn(client, created)
    mine = max(i for i, e in enumerate(session.log) if e.player == 0)
    assert any(e.texts[0] not in ("an outcome hidden from you", "a move hidden from you")
               for e in session.log[mine + 1:]), "nothing after the move was shown to the seat"
    before = session.state.serialize()
    refused = client.post(f"{base}/undo", headers=key)
    assert refused.status_code == 409 and "has since shown you" in refused.json()["error"]
    assert session.state.serialize() == before


def test_after_an_undo_the_ai_searches_with_a_fresh_random_stream():
    game = load_game("cvc")
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.chance_outcomes()[0][0])
    job = {"game": "cvc", "params": json.dumps(game.parameters(), sort_keys=True), "engine": game.engine,
           "record": state.serialize(), "spec": "random", "seed": 17, "hidden": False}
    replies = [tuple(worker.ai_turn({**job, "stream": stream})["actions"]) for stream in range(6)]
    assert tuple(worker.ai_turn({**job, "stream": 0})["actions"]) == replies[0]     # reproducible from the seed
    assert len(set(replies)) > 1                                                      # but not replayable by undo
    session = GameSession("cvc", game, parse_seats(game, ["human", "easy"]), 17, Thinker(1, "thread"))
    assert session._job("random")["stream"] == 0
    session.undos += 1
    assert session._job("random")["stream"] == 1


# ---------------------------------------------------------------- every input checked at the edge

def test_the_probes_requests_get_a_4xx_that_says_what_was_wrong(client):
    created = new_game(client, seats=("human", "easy"), seed=3)
    game_id = created["id"]
    base, key = seat_api(created)
    wait_for_turn(client, created)
    session = web_of(client).store.get(game_id)
    before = (session.state.serialize(), session.version)
    deep = "[" * 100_000 + "]" * 100_000
    cases = [
        (client.get(f"{base}/view", headers={KEY: "\xff".encode("latin-1")}), 403, "has not joined"),
        (client.get(f"{base}/view?key=%ff"), 400, "not accepted in the address"),
        (client.get(f"/play/{game_id}/0?key=%ff"), 400, "not accepted in the address"),
        (client.get(f"/api/games/{game_id}/seats/{'9' * 5000}/view", headers=key), 400, "seat number"),
        (client.get("/api/replay/games/0", params={"folder": "run", "step": "\u00b2"}), 400, "step must be"),
        (client.get(f"/api/replay/games/{'9' * 5000}", params={"folder": "run"}), 400, "game number"),
        (client.get("/replay/0", params={"folder": "run", "step": "9" * 5000}), 400, "step must be"),
        (client.post("/api/games", json={"game": "cvc", "players": "--2", "seats": ["human", "easy"]}), 400,
         "players must be"),
        (client.post("/api/games", json={"game": "cvc", "seats": ["human", "easy"], "seed": "1" * 5000}), 400,
         "seed must be"),
        (client.post("/api/games", content=b'{"seed": ' + b"9" * 5000 + b"}",
                     headers={"content-type": "application/json"}), 400, "digits"),
        (client.post("/api/games", content=deep.encode(), headers={"content-type": "application/json"}), 400,
         "deep"),
        (client.post("/api/games", json={"seats": ["human", "easy"], "record": '{"format": ["x"], "params": {}}'}),
         400, "not the record format"),
        (client.post("/api/games", json={"seats": ["human", "easy"], "record": deep}), 400, "deep"),
        (client.post("/api/games", json={"seats": ["human", "easy"],
                                         "record": '{"format": "cavekit-cvc", "params": {}, "history": ' +
                                                   "9" * 5000 + "}"}), 400, "digits"),
        (client.post("/api/games", json={"game": ["cvc"], "seats": ["human", "easy"]}), 400, "unknown game"),
        (client.post("/api/games", json={"game": "cvc", "seats": [["human"], {}]}), 400, "neither"),
        (client.post(f"{base}/hint", headers=key, json={"count": 10**40}), 400, "count must be"),
        (client.post(f"{base}/action", headers=key, json={"action": 10**40}), 400, "not legal"),
    ]
    for response, status, words in cases:
        # (an API answer is JSON, a page's an HTML page: the message is in either)
        assert response.status_code == status and words in response.text, (response.request.url, response.text)
    assert (session.state.serialize(), session.version) == before


def test_a_body_that_stalls_is_refused_and_a_client_that_leaves_leaves_no_traceback(monkeypatch, live_server):
    url, port, records = live_server
    monkeypatch.setattr(guard, "BODY_SECONDS", 0.5)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"game\": ")
        answer = b""
        while b"did not arrive" not in answer:
            part = conn.recv(4096)
            if not part:
                break
            answer += part
        answer = answer.decode()
    assert answer.startswith("HTTP/1.1 408") and "did not arrive within" in answer
    for _ in range(20):         # clients that send half a body and go away
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{\"ga")
    time.sleep(0.5)
    assert not [r for r in records if r.exc_info or "Traceback" in r.getMessage()]


# ---------------------------------------------------------------- the fuzz: every route, hostile everything

ROUTES = [("GET", "/"), ("GET", "/join/{id}/{seat}"), ("GET", "/play/{id}/{seat}"), ("GET", "/replay"),
          ("GET", "/replay/{game}"), ("GET", "/static/{name}"), ("GET", "/api/catalogue"), ("POST", "/api/games"),
          ("POST", "/api/games/{id}/seats/{seat}/join"), ("GET", "/api/games/{id}/seats/{seat}/view"),
          ("POST", "/api/games/{id}/seats/{seat}/action"), ("POST", "/api/games/{id}/seats/{seat}/undo"),
          ("POST", "/api/games/{id}/seats/{seat}/hint"), ("GET", "/api/games/{id}/seats/{seat}/record"),
          ("GET", "/api/replay/games"), ("GET", "/api/replay/games/{game}")]
# the probe's classes of hostile values, beside what Hypothesis draws
CORPUS = ["0", "1", "-1", "--2", "\u00b2", "9" * 5000, "%ff", "\xff", "../..", "/etc", "run", "..%2f..", "\0",
          "<script>x</script>", "null", "[]", "{}", "1e999", "NaN", " 7", "app.js", "style.css"]
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                      max_size=4), max_leaves=12)
segment = st.sampled_from(CORPUS) | st.text(max_size=12)
field_names = st.sampled_from(["game", "players", "seats", "params", "seed", "record", "action", "version",
                               "count", "format", "history"])
bodies = (st.dictionaries(field_names, json_values | st.sampled_from(CORPUS), max_size=5).map(json.dumps)
          | json_values.map(json.dumps) | st.binary(max_size=200).map(lambda b: b.decode("latin-1"))
          | st.sampled_from(["[" * 5000, '{"seed": ' + "9" * 5000 + "}", '{"record": "' + "[" * 3000 + '"}']))
requests = st.fixed_dictionaries({
    "route": st.sampled_from(ROUTES), "seat": segment, "game": segment, "name": segment,
    "own_game": st.booleans(), "key": st.sampled_from(["own", "other", "none"]) | st.text(max_size=20),
    "query": st.dictionaries(st.sampled_from(["folder", "step", "key", "x"]), segment, max_size=3),
    "body": st.none() | bodies,
    "content_type": st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", ""]),
})


def _quoted(segment: str) -> str:
    from urllib.parse import quote
    return quote(segment, safe="")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(request=requests)
def test_fuzz_every_route_gets_no_5xx_no_traceback_and_leaves_the_game_unchanged(fuzz_server, request):
    client, created, records = fuzz_server
    session = web_of(client).store.get(created["id"])
    before = (session.state.serialize(), session.version, len(web_of(client).store))
    method, route = request["route"]
    path = route.format(id=created["id"] if request["own_game"] else _quoted(request["game"]),
                        seat=_quoted(request["seat"]) if not request["own_game"] else "0",
                        game=_quoted(request["game"]), name=_quoted(request["name"]))
    key = {"own": created["seats"][0]["key"], "other": created["seats"][1]["key"], "none": None}.get(
        request["key"], request["key"])
    headers = {} if key is None else {KEY: key.encode("utf-8")}
    if request["content_type"]:
        headers["content-type"] = request["content_type"]
    content = None if request["body"] is None else request["body"].encode("utf-8", "surrogatepass")
    response = client.request(method, path, params=request["query"], headers=headers, content=content)
    assert response.status_code < 500, (method, path, request, response.text)
    assert not [r for r in records if r.levelno >= logging.ERROR or r.exc_info], (method, path, request)
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith(("application/json", "text/html"))
        after = (session.state.serialize(), session.version, len(web_of(client).store))
        assert after == before, (method, path, request)


@pytest.fixture(scope="module")
def fuzz_server(results_root):
    """One application for the whole fuzz: a two-person game of Cave vs Cave and the server's error log."""
    records = LogRecords()
    logging.getLogger().addHandler(records)
    app = create_app(executor="thread", workers=1, results=[results_root], games_per_minute=10**6)
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as client:
        created = client.post("/api/games", json={"game": "cvc", "seats": ["human", "human"], "seed": 3}).json()
        client.cookies.clear()
        yield client, created, records
    logging.getLogger().removeHandler(records)


class LogRecords(logging.Handler):
    """The log records from `level` up, kept (in `records`) for a test to read."""

    def __init__(self, level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __iter__(self):
        return iter(list(self.records))


# ---------------------------------------------------------------- abuse limits

def test_one_client_cannot_fill_the_server_with_games(results_root):
    app = create_app(executor="thread", workers=1, results=[results_root], games_per_minute=20)
    with TestClient(app, base_url=LOCAL) as client:
        answers = [client.post("/api/games", json={"game": "cvc", "seats": ["human", "easy"]}) for _ in range(93)]
    assert [a.status_code for a in answers].count(201) == 20
    refused = answers[-1]
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "try again in" in refused.json()["error"] and len(web_of(client).store) == 20


def test_a_full_store_evicts_the_least_recently_used_idle_game_instead_of_locking_out():
    now = [0.0]
    store = SessionStore(max_games=3, idle_seconds=3600, evict_after_seconds=60, clock=lambda: now[0])
    game = load_game("cvc")
    thinker = Thinker(1, "thread")

    def session():
        return GameSession("cvc", game, parse_seats(game, ["human", "human"]), 1, thinker)
    games = [session() for _ in range(3)]
    for g in games:
        store.add(g)
    now[0] = 30.0
    with pytest.raises(WebError) as busy:         # every game was used within the last minute
        store.add(session())
    assert busy.value.status == 503 and "try again" in busy.value.message
    now[0] = 50.0
    store.get(games[0].id)                        # games[0] is in play
    now[0] = 70.0
    store.add(session())                          # games[1], idle longest, makes room
    assert set(store.sessions) >= {games[0].id, games[2].id} and games[1].id not in store.sessions
    thinker.shutdown()


@pytest.mark.parametrize("headers, status, words", [
    ({"content-type": "text/plain"}, 415, "as JSON"),
    ({"content-type": "application/json", "origin": "http://evil.example"}, 403, "another site"),
    ({"content-type": "application/json", "origin": "null"}, 403, "another site"),
    ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, 403, "another site"),
    ({"content-type": "application/json", "host": "evil.example"}, 421, "answers to"),
    ({"content-type": "application/json", "host": "evil.example:8765", "origin": "http://evil.example:8765"}, 421,
     "answers to"),
])
def test_cross_site_and_foreign_host_requests_are_refused(client, headers, status, words):
    body = json.dumps({"game": "cvc", "seats": ["human", "easy"]})
    r = client.post("/api/games", content=body, headers=headers)
    assert r.status_code == status and words in r.json()["error"]
    assert len(web_of(client).store) == 0


def test_the_servers_own_pages_may_still_start_games(client):
    same = client.post("/api/games", json={"game": "cvc", "seats": ["human", "easy"]},
                       headers={"origin": LOCAL, "sec-fetch-site": "same-origin"})
    assert same.status_code == 201
    assert client.get("/", headers={"host": "127.0.0.1:8765"}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/static/app.js", "/api/catalogue", "/nothing", "/api/nothing",
                                  "/replay?folder=run"])
def test_every_answer_carries_the_security_headers(client, path):
    r = client.get(path)
    policy = dict(part.strip().split(" ", 1) for part in r.headers["content-security-policy"].split(";"))
    assert policy["script-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
    assert policy["default-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert r.headers["x-frame-options"] == "DENY" and r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-content-type-options"] == "nosniff"
    if path.startswith("/api/"):
        assert r.headers["cache-control"] == "no-store"
    if r.headers["content-type"].startswith("text/html"):
        scripts = re.findall(r"<script([^>]*)>", r.text)
        assert scripts and all('src="/static/app.js"' in s or 'type="application/json"' in s for s in scripts)


def test_the_replay_list_does_not_echo_a_huge_manifest(client, results_root, tmp_path):
    folder = results_root / "big"
    run_match("cvc", ["random", "random"], 1, 1, progress=False, out=folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["notes"] = "x" * 5_000_000
    (folder / "manifest.json").write_text(json.dumps(manifest))
    r = client.get("/api/replay/games", params={"folder": "big"})
    assert r.status_code == 200 and len(r.content) < 20_000 and "notes" not in r.json()["manifest"]


def test_serve_refuses_a_results_root_that_is_not_a_folder(tmp_path):
    for root, words in [(tmp_path / "missing", "no such folder"), (Path(__file__), "not a folder")]:
        done = subprocess.run([sys.executable, "-m", "cavekit", "serve", "--results", str(root), "--port", "0"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- a live server

@pytest.fixture(scope="module")
def live_server(results_root):
    """The application served by uvicorn on a free port of 127.0.0.1, with its log: (url, port, records)."""
    import uvicorn
    records = LogRecords(logging.INFO)
    app = create_app(executor="thread", workers=1, results=[results_root])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="info"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    for name in ("uvicorn.error", "uvicorn.access", "cavekit.web"):      # (uvicorn sets its loggers up as it starts)
        logging.getLogger(name).addHandler(records)
    yield f"http://127.0.0.1:{port}", port, records
    server.should_exit = True
    thread.join(10)
    for name in ("uvicorn.error", "uvicorn.access", "cavekit.web"):
        logging.getLogger(name).removeHandler(records)


def test_the_access_log_holds_no_seat_key(live_server):
    import urllib.request
    url, _, records = live_server

    def call(method, path, body=None, key=None):
        request = urllib.request.Request(url + path, method=method, data=None if body is None else
                                         json.dumps(body).encode(), headers={"Content-Type": "application/json",
                                                                             **({KEY: key} if key else {})})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read()) if "json" in response.headers["content-type"] else response.read()
    created = call("POST", "/api/games", {"game": "cvc", "seats": ["human", "human"], "seed": 2})
    keys = [s["key"] for s in created["seats"]]
    for seat, key in enumerate(keys):
        call("POST", f"/api/games/{created['id']}/seats/{seat}/join", key=key)
        call("GET", f"/play/{created['id']}/{seat}", key=key)
        call("GET", f"/api/games/{created['id']}/seats/{seat}/view", key=key)
    logged = [r.getMessage() + " " + " ".join(map(str, r.args or ())) for r in records]
    assert any(f"/play/{created['id']}/1" in line for line in logged), "the access log was not captured"
    assert not any(key in line for key in keys for line in logged)
