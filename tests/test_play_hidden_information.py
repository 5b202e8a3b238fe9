"""Terminal play with hidden information: the person sees only their seat's view, and no agent sees more than
its seat may know (part of issue 22)."""
from __future__ import annotations

import io
import re

import numpy as np
import pytest

from cavekit.analysis.play import PlaySession, play
from cavekit.core import load_game
from cavekit.core.spec import resolve

from test_greedy_expectimax import random_decisions


@pytest.fixture(autouse=True)
def in_a_scratch_folder(tmp_path, monkeypatch):
    """A session that reaches the end takes the next input line ("1") as a file to save to: keep it here."""
    monkeypatch.chdir(tmp_path)


def test_a_seat_view_is_the_same_for_every_deal_that_seat_cannot_tell_apart():
    for name, params in (("pairs", {"players": 3}), ("cavum", {"players": 3})):
        game = load_game(name, **params)
        render = resolve(game.spec.renderer)
        for k, state in enumerate(random_decisions(game, 12, seed=4)):
            seat = state.current_player()
            twin = state.resample_from_infostate(seat, np.random.default_rng(k))
            assert render(twin, seat) == render(state, seat)
            assert render(state, None) == str(state)


def test_the_cave_shows_a_seat_its_own_hand_and_only_the_size_of_the_others():
    game = load_game("pairs", players=3)
    state = random_decisions(game, 1, seed=2)[0]
    hands = state.to_dict()["hands"]
    lines = resolve(game.spec.renderer)(state, 1).splitlines()
    for p in range(3):
        line = next(line for line in lines if line.startswith(f"p{p}: hand "))
        shown = line.split(" | ")[0].removeprefix(f"p{p}: hand ")
        assert shown == (f"{sum(hands[p])} cards" if p != 1 else " ".join(
            str(rank + 1) for rank in range(10) for _ in range(hands[p][rank])))


def test_a_pairs_session_announces_only_the_deals_the_person_sees(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # the match ends within the 40 answers, and "1" answers the save prompt
    out = io.StringIO()
    play(load_game("pairs", players=2), "pairs_heuristic", seat=0, seed=5, stdin=io.StringIO("1\n" * 40 + "quit\n"),
         stdout=out)
    text = out.getvalue()
    dealt_to = re.findall(r"chance: deal \d+ to p(\d)", text)
    assert dealt_to and set(dealt_to) == {"0"}                       # the person's own cards only
    assert text.count("chance: an outcome hidden from you") == len(dealt_to)   # as many to the AI, unnamed
    assert "p1: hand 6 cards" in text or "p1: hand 7 cards" in text
    assert "next best" not in text                                  # the AI's other options name its cards


def test_agents_in_a_session_are_given_positions_drawn_from_their_own_seat_view(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # (as above: a record named "1" is saved at the end)
    game = load_game("pairs", players=2)
    session = PlaySession(game, "mcts:iterations=20", seat=0, seed=9, stdin=io.StringIO("1\n" * 40 + "quit\n"),
                          stdout=io.StringIO())
    given = []
    step = session.agent.step

    def recording(state):
        true = session.state
        given.append((state is true, state.information_state_string(1) == true.information_state_string(1),
                      state.to_dict()["hands"][0] == true.to_dict()["hands"][0]))
        return step(state)

    session.agent.step = recording
    session.run()
    assert given and not any(is_true for is_true, _, _ in given)
    assert all(same_view for _, same_view, _ in given)
    assert not all(same_hand for _, _, same_hand in given)         # the person's hand was redrawn at least once
