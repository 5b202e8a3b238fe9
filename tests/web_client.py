"""Talking to `cavekit serve`'s application in tests: start games, address a seat, wait for its turn."""
from __future__ import annotations

import time

LOCAL = "http://localhost"      # the server answers to its loopback names only (TestClient's default is "testserver")
KEY = "X-Cavekit-Key"


def web_of(client):
    """The `CavekitWeb` behind a test client's application."""
    return client.app.state.web


def new_game(client, game="cvc", seats=("human", "easy"), seed=3, keep_cookie=False, **extra):
    """Start a game through the API (201 expected); its answer. The creator's seat cookie is dropped unless
    `keep_cookie`, so that each request names its seat by the key header."""
    r = client.post("/api/games", json={"game": game, "seats": list(seats), "seed": seed, **extra})
    assert r.status_code == 201, r.text
    if not keep_cookie:
        client.cookies.clear()
    return r.json()


def seat_api(created, seat=0):
    """A seat's API address and the header that carries its key."""
    entry = next(s for s in created["seats"] if s["index"] == seat)
    return f"/api/games/{created['id']}/seats/{seat}", {KEY: entry["key"]}


def wait_for_turn(client, created, seat=0, timeout=60.0):
    """The seat's view once it is to move or the game is over."""
    base, key = seat_api(created, seat)
    deadline = time.monotonic() + timeout
    while True:
        view = client.get(f"{base}/view", headers=key).json()
        if view["your_turn"] or view["result"]:
            return view
        assert time.monotonic() < deadline, f"seat {seat} never got the move: {view['status']}"
        time.sleep(0.05)


def state_of(client, created):
    """The true position of a game in the server."""
    return web_of(client).store.get(created["id"]).state
