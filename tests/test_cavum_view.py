"""The public read-only view of a Cavum position (`state.view()`, core/cavum/view.py).

It is read-only; it is the same object on both engines along the same games; its fields are `to_dict()`'s;
and its derived queries (`hand`, `price`, `order`, `top`, `open_sides`, `live`, `shown_stone_holders`)
give the reference engine's answers on many positions of both engines, under the rule options that change
how routes run (tile_internal_connectivity, city_spaces_pass_through).
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.cavum.reference import ReferenceState
from cavekit.core.cavum.rules import rules
from cavekit.core.cavum.view import PositionView

from test_cavum_compiled import RICH_WEIGHTS, TABLE

VARIANTS = [(2, {}), (3, {}), (4, {}), (2, {"tile_internal_connectivity": "independent_channels"}),
            (3, {"city_spaces_pass_through": True}),
            (2, {"tile_internal_connectivity": "independent_channels", "city_spaces_pass_through": True})]


def rich_action(state, rng: np.random.Generator) -> int:
    """A legal action, preferring stations, tiles and prospecting (so networks and city stations come up)."""
    if state.current_player() < 0:
        outcomes = state.chance_outcomes()
        return outcomes[int(rng.integers(len(outcomes)))][0]
    legal = state.legal_actions()
    weights = np.array([RICH_WEIGHTS.get(TABLE.specs[a].kind, 1.0) for a in legal])
    return legal[int(rng.choice(len(legal), p=weights / weights.sum()))]


def positions(players: int, params: dict, seed: int, engine: str):
    """Every position of one seeded rich game of `engine`."""
    state = load_game("cavum", players=players, engine=engine, **params).new_initial_state()
    rng = np.random.default_rng(seed)
    yield state
    while not state.is_terminal():
        state.apply_action(rich_action(state, rng))
        yield state


def reference_of(state) -> ReferenceState:
    return ReferenceState.from_dict(state.game, state.to_dict(), state.history())


def assert_queries_match(view: PositionView, ref: ReferenceState) -> None:
    r = rules()
    n = view.n
    assert list(view.order()) == ref.order()
    for p in range(n):
        assert list(view.hand(p)) == ref.hand(p)
    for c in range(len(r.colours)):
        assert view.price(c) == ref.price(c)
    for cell in range(r.num_cells):
        assert view.top(cell) == ref.top(cell)
        assert view.open_sides(cell) == ref.open_sides(cell)
    for space in range(r.num_spaces):
        assert view.live(space) == ref.live(space), f"live({space}) differs"
    assert sorted(view.shown_stone_holders()) == sorted(ref.shown_stone_holders())


def test_view_is_read_only():
    state = load_game("cavum", players=2).new_initial_state(seed=1)
    view = state.view()
    with pytest.raises(AttributeError, match="read-only"):
        view.stage = 3
    with pytest.raises(AttributeError, match="read-only"):
        view.scores_ = [0, 0]
    with pytest.raises(AttributeError, match="read-only"):
        del view.phase
    with pytest.raises(TypeError):
        view.scores_[0] = 99             # arrays are tuples
    with pytest.raises(AttributeError):
        view.no_such_field
    assert isinstance(view.height, tuple) and isinstance(view.route, tuple)
    # a view's snapshot is its own: editing what to_dict() returns changes neither the view nor the state
    d = view.to_dict()
    d["scores_"][0] = 99
    assert view.scores_[0] == 20 and state.view().scores_[0] == 20 and state.scores() == [20, 20]


def test_view_fields_are_the_snapshot_and_a_snapshot_in_time():
    state = load_game("cavum", players=3).new_initial_state(seed=2)
    view = state.view()
    d = state.to_dict()
    assert view.fields() == tuple(d) and view.to_dict() == d
    for key, value in d.items():
        assert getattr(view, key) == (tuple(value) if isinstance(value, list) else value)
    assert set(d) <= set(dir(view))
    state.apply_action(state.legal_actions()[0])
    assert view.to_dict() == d, "a view does not follow the state"
    assert state.view() != view and state.view() == state.clone().view()
    assert view.game is state.game


@pytest.mark.parametrize("players,params", VARIANTS, ids=lambda x: str(x) if isinstance(x, int) else
                         ",".join(f"{k}={v}" for k, v in x.items()) or "default")
def test_view_is_the_same_on_both_engines_and_queries_match_the_reference(players, params):
    checked = live_stations = 0
    for seed in range(2):
        for ref, fast in zip(positions(players, params, seed, "reference"), positions(players, params, seed, "compiled")):
            view = fast.view()
            assert view == ref.view()
            assert view.to_dict() == ref.to_dict()
            if checked % 3 == 0 or ref.is_terminal():
                assert_queries_match(view, ref)
                assert_queries_match(ref.view(), reference_of(fast))
                live_stations += sum(1 for s in range(rules().num_spaces) if view.live(s))
            checked += 1
    assert checked > 200
    assert live_stations > 0, "the games built live city stations"


def test_live_from_the_view_matches_the_reference_on_edited_networks():
    """Random networks built straight into snapshots (far more tunnels and stations than games reach)."""
    r = rules()
    rng = np.random.default_rng(5)
    live = dead = 0
    for params in ({}, {"tile_internal_connectivity": "independent_channels"}, {"city_spaces_pass_through": True}):
        game = load_game("cavum", players=3, engine="reference", **params)
        for _ in range(40):
            d = game.new_initial_state().to_dict()
            for cell in range(r.num_cells):
                if rng.random() < 0.7:
                    kind, dynamite, rotation = int(rng.integers(4)), int(rng.integers(2)), int(rng.integers(6))
                    d["height"][cell] = 1
                    d["stack"][cell * 4] = 1 + 2 * kind + dynamite + 8 * rotation
                if rng.random() < 0.15:
                    d["station"][cell] = int(rng.integers(3))
            d["city_station"] = [int(rng.integers(-1, 3)) for _ in range(r.num_spaces)]
            ref = ReferenceState.from_dict(game, d, [])
            view = ref.view()
            for space in range(r.num_spaces):
                assert view.live(space) == ref.live(space)
                if d["city_station"][space] >= 0:
                    live += view.live(space)
                    dead += not view.live(space)
    assert live > 100 and dead > 100, (live, dead)
