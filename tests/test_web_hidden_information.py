"""Hidden information in `cavekit serve`: a seat's responses never show another seat's cards or the deck order.

A whole The Cave match (two people, hidden hands) is played through the API. Two checks on every response:
- exact: the view a seat gets is a function of that seat's information alone. At every decision the position
  is resampled from the seat's information state several times (other hands, burned cards and the deck
  redrawn), each resampled position is loaded into the server as a game of its own, and its view for that
  seat must be byte for byte the view of the true position;
- direct: no response to a seat names a card of another seat's hand (the board shows only backs there), and
  none carries the deal, the deck or the record; the record is refused until the match is over.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from cavekit.analysis.web import create_app  # noqa: E402
from cavekit.core import load_game  # noqa: E402

RESAMPLES = 3
VOLATILE = ("version", "history_length")      # counters that differ between two games by construction


def comparable(view):
    return {k: v for k, v in view.items() if k not in VOLATILE}


def other_hand_cards(svg: str, seat: int) -> list[str]:
    """The faces of cards drawn in `seat`'s hand ('back' for a face-down card)."""
    found = []
    for part in svg.split(f'data-where="hand:{seat}"')[1:]:
        found.append(part.split('data-card="')[1].split('"')[0])
    return found


@pytest.mark.parametrize("params", [{}, {"burn_cards": 3}])
def test_no_response_to_one_seat_shows_another_seats_hidden_cards(tmp_path, params):
    rng = np.random.default_rng(0)
    # (every resampled position is a new game, so this client may start many)
    with TestClient(create_app(executor="thread", workers=1, results=[tmp_path], games_per_minute=10_000),
                    base_url="http://localhost") as client:
        web = client.app.state.web
        created = client.post("/api/games", json={"game": "pairs", "players": 2, "seats": ["human", "human"],
                                                  "seed": 21, "params": params}).json()
        session = web.store.get(created["id"])
        client.cookies.clear()      # each seat's key travels in its header here
        keys = {s["index"]: {"X-Cavekit-Key": s["key"]} for s in created["seats"]}
        base = {p: f"/api/games/{created['id']}/seats/{p}" for p in (0, 1)}
        responses = 0
        compared = 0
        while True:
            views = {p: client.get(f"{base[p]}/view", headers=keys[p]).json() for p in (0, 1)}
            state = session.state
            if state.is_terminal():
                break
            hands = state.to_dict()["hands"]
            for p in (0, 1):
                text = json.dumps(views[p])
                responses += 1
                q = 1 - p
                assert set(other_hand_cards(views[p]["board"], q)) <= {"back"}
                assert len(other_hand_cards(views[p]["board"], q)) == sum(hands[q])
                assert sorted(other_hand_cards(views[p]["board"], p)) == sorted(
                    str(r + 1) for r in range(10) for _ in range(hands[p][r]))
                for word in ('"hands"', '"deck"', '"history"', '"record"', f"to p{q}", "burn "):
                    assert word not in text, (word, p)     # cards dealt to the other seat or burned
                assert f"to p{p}" in text or not state.history()
                record = client.get(f"{base[p]}/record", headers=keys[p])
                assert record.status_code == 409 and "over" in record.json()["error"]
            mover = state.current_player()
            # Exact check at every fourth decision (each resample is a game replayed into the server).
            if len(state.history()) % 4 == 0 or compared == 0:
                for p in (0, 1):
                    for _ in range(RESAMPLES):
                        twin = state.resample_from_infostate(p, rng)
                        made = client.post("/api/games", json={"game": "pairs", "seats": ["human", "human"],
                                                               "seed": 21, "record": twin.serialize()}).json()
                        key = next(s["key"] for s in made["seats"] if s["index"] == p)
                        seen = client.get(f"/api/games/{made['id']}/seats/{p}/view",
                                          headers={"X-Cavekit-Key": key}).json()
                        assert comparable(seen) == comparable(views[p])
                        compared += 1
                        del web.store.sessions[made["id"]]
            hint = client.post(f"{base[mover]}/hint", headers=keys[mover], json={"count": 10}).json()
            assert {row["action"] for row in hint["rows"]} <= set(state.legal_actions())
            action = views[mover]["actions"][int(rng.integers(len(views[mover]["actions"])))]["id"]
            played = client.post(f"{base[mover]}/action", headers=keys[mover], json={"action": action})
            assert played.status_code == 200
            responses += 1
        assert compared >= 20 and responses > 40
        client.cookies.clear()
        final = {p: client.get(f"{base[p]}/record", headers=keys[p]) for p in (0, 1)}
        assert all(r.status_code == 200 for r in final.values())
        assert load_game("pairs", **params).deserialize_state(final[0].text).is_terminal()
        assert views[0]["result"]["scores"] == session.state.scores()
