"""The compiled Cavum engine plays exactly the reference engine's game: same moves, positions, records, scores.

Both engines are driven through the same seeded games (2, 3 and 4 players, and every rule option of
shared/rules/cavum.md section 10 changed) and compared at every step: the player to move, the legal actions,
the chance outcomes with their probabilities, `to_dict()`, the scores, and `serialize()` every few steps;
the returns at the end. Two move policies: uniform random, and a "rich" one that prefers stations, tiles,
veins and prospecting steps so that networks, city scoring, long routes and explosions come up often.
Also checked: illegal moves explained in the same words with the state unchanged, the legality of every
station and of sampled tile and vein placements at building positions, the read-only view (`state.view()`,
whose queries give the reference's helper answers), the hidden-information views and resampling, positions
built from snapshots (`from_dict`), clones, pickles and records. The compiled state has no field
attributes: tests read it through its view and build positions through `to_dict`/`from_dict`.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import IllegalActionError, sample_chance_outcome
from cavekit.core.cavum import compiled
from cavekit.core.cavum.actions import (BID, DISCARD, DONE, END_TURN, LAY, OPTION_POINTS, OPTION_TAKE,
                                        PROSPECT_NONE, PROSPECT_START, PROSPECT_STEP, PROSPECT_STOP,
                                        PROSPECT_TAKE, STATION, VEIN, action_table)
from cavekit.core.cavum.compiled import CompiledState
from cavekit.core.cavum.reference import ReferenceState
from cavekit.core.cavum.reference import BUILD
from cavekit.core.cavum.rules import CHOICES, KINDS, rules

TABLE = action_table()
# Weights of the rich policy by action kind (1 for the rest): build networks and use them.
RICH_WEIGHTS = {STATION: 30.0, LAY: 6.0, VEIN: 4.0, PROSPECT_STEP: 3.0, PROSPECT_START: 3.0, OPTION_TAKE: 1.0,
                END_TURN: 0.5, OPTION_POINTS: 0.3, DISCARD: 0.2}


def both(players: int, **params):
    return (load_game("cavum", players=players, engine="reference", **params),
            load_game("cavum", players=players, engine="compiled", **params))


def choose(legal: list[int], rng: np.random.Generator, rich: bool) -> int:
    """A uniformly random legal action, or one drawn with the rich policy's weights."""
    if not rich:
        return legal[int(rng.integers(len(legal)))]
    weights = np.array([RICH_WEIGHTS.get(TABLE.specs[a].kind, 1.0) for a in legal])
    return legal[int(rng.choice(len(legal), p=weights / weights.sum()))]


def assert_same_game(ref, fast, rng: np.random.Generator, rich: bool = False, records_every: int = 3,
                     visit=None, deal=None) -> int:
    """Play both states to the end with the same moves, comparing them at every step; the step count.
    `visit(ref, fast, rng)` is called at decision nodes for extra checks. Chance outcomes are sampled from
    `rng`, or with a `deal` (`cavekit.core.deal`) taken from it."""
    steps = 0
    while True:
        assert fast.current_player() == ref.current_player(), f"players differ at step {steps}"
        legal = ref.legal_actions()
        assert fast.legal_actions() == legal, f"legal actions differ at step {steps}"
        assert fast.to_dict() == ref.to_dict(), f"positions differ at step {steps}"
        if steps % records_every == 0 or ref.is_terminal():
            assert fast.serialize() == ref.serialize(), f"records differ at step {steps}"
        assert fast.scores() == ref.scores()
        if ref.is_terminal():
            assert fast.is_terminal() and legal == []
            assert fast.returns() == ref.returns() == fast.c_returns()
            assert fast.winners() == ref.winners()
            return steps
        assert fast.is_chance_node() == ref.is_chance_node()
        assert fast.chance_outcomes() == ref.chance_outcomes()
        if ref.is_chance_node():
            if deal is not None:
                assert fast.chance_component() == ref.chance_component(), f"components differ at step {steps}"
                action = deal.outcome(ref)
            else:
                action = sample_chance_outcome(ref.chance_outcomes(), rng.random())
        else:
            if visit is not None:
                visit(ref, fast, rng)
            action = choose(legal, rng, rich)
        ref.apply_action(action)
        fast.apply_action(action)
        steps += 1


# -- the same games ---------------------------------------------------------------------------------

GAMES = {2: 16, 3: 10, 4: 8}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engines_agree_on_random_games(players):
    ref_game, fast_game = both(players)
    total = 0
    for seed in range(GAMES[players]):
        rng = np.random.default_rng([players, seed])
        total += assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng,
                                  rich=seed % 2 == 1)
    # three phases of five draws, an auction and 12 actions per player at least
    assert total >= GAMES[players] * 3 * (5 + 12 * players)


def test_engines_agree_when_bids_go_above_60():
    """Issue 19: bids above 60 (ids appended after the older table) play the same in both engines."""
    high = TABLE.id(BID, 61)
    for players in (2, 3, 4):
        ref_game, fast_game = both(players)
        for seed in range(2):
            ref, fast = ref_game.new_initial_state(), fast_game.new_initial_state()
            d = ref.to_dict()
            d["scores_"] = [70 + 40 * p for p in range(players)]
            ref, fast = ReferenceState.from_dict(ref_game, d, []), CompiledState.from_dict(fast_game, d, [])
            rng = np.random.default_rng([players, seed, 61])
            seen = []

            def visit(ref, fast, rng):
                seen.extend(a for a in ref.legal_actions() if a >= high)

            assert_same_game(ref, fast, rng, rich=seed == 1, visit=visit)
            assert seen, "bids above 60 were offered"


def option_changes() -> list[dict]:
    """Every rule option (section 10 of the rules) set away from its default at least once."""
    out = [{name: value} for name, values in CHOICES.items() for value in values[1:]]
    out += [{"sequence_card_dynamite": ["six", "four", "three", "two"]},
            {"sequence_card_dynamite": {"1": "four", "2": "two", "3": "six", "4": "three"}},
            {"colour_sale_min_bid": 3}, {"colour_sale_min_bid": 9},
            {"colour_sale_colour_order": ["violet", "white", "green", "blue", "red", "yellow"]},
            {"two_chip_supply_limit": 0}, {"two_chip_supply_limit": 3}, {"two_chip_supply_limit": "unlimited"},
            # options that meet in the network code, together
            {"tile_internal_connectivity": "independent_channels", "city_spaces_pass_through": True,
             "three_exit_pattern": "T", "two_exit_pattern": "curve"},
            {"cover_occupied_cell": True, "vein_under_counts_as_visible_dynamite": True,
             "exploding_adjacent_dynamite": "loses_top_tile", "city_adjacency_rule": "none"},
            {"order_pick_pass_is_final": False, "colour_sale_pass_is_final": False, "bid_cap": "unbounded",
             "colour_sale_opening_bid": "up_to_price", "colour_sale_min_bid": 2}]
    return out


OPTIONS = option_changes()


def option_id(option: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in option.items())


@pytest.mark.parametrize("index", range(len(OPTIONS)), ids=[option_id(o) for o in OPTIONS])
def test_engines_agree_with_each_rule_option_changed(index):
    for k, rich in enumerate((True, False)):
        players = 2 + (index + k) % 3
        ref_game, fast_game = both(players, **OPTIONS[index])
        rng = np.random.default_rng([index, k, 17])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, rich=rich)


def test_every_section_10_option_is_changed_somewhere():
    changed = {name for option in OPTIONS for name in option}
    from cavekit.core.cavum.rules import PARAMETERS
    single_valued = {name for name, values in CHOICES.items() if len(values) == 1}
    assert changed == set(PARAMETERS) - single_valued


# -- building positions: placements judged alike, and the view's queries ----------------------------------

# Building actions whose legality is compared at sampled building positions (a random sample of each group).
ALL_IDS_OF = (STATION, OPTION_TAKE, DISCARD, PROSPECT_START, PROSPECT_STEP, PROSPECT_STOP, PROSPECT_TAKE,
              PROSPECT_NONE, DONE, END_TURN, OPTION_POINTS)
BUILD_IDS = [a for a, spec in enumerate(TABLE.specs) if spec.kind in ALL_IDS_OF]
LAY_IDS = [a for a, spec in enumerate(TABLE.specs) if spec.kind == LAY]
VEIN_IDS = [a for a, spec in enumerate(TABLE.specs) if spec.kind == VEIN]


def compare_helpers(ref, fast, rng: np.random.Generator) -> None:
    """At a building decision, the compiled engine judges placements as the reference does (its C problem
    functions behind `illegal_reason`: station, vein site and colour, tile, piece and prospecting checks),
    and the compiled position's view answers the reference's helper queries."""
    if ref.view().stage != BUILD:
        return
    r = rules()
    view = fast.view()
    assert view == ref.view()
    ids = [int(a) for ids, count in ((BUILD_IDS, 40), (LAY_IDS, 40), (VEIN_IDS, 20)) for a in rng.choice(ids, count)]
    for action in ids:
        assert fast.illegal_reason(action) == ref.illegal_reason(action), TABLE.specs[action].text
    for space in range(r.num_spaces):
        assert view.live(space) == ref.live(space)
    for cell in range(r.num_cells):
        assert view.open_sides(cell) == ref.open_sides(cell) and view.top(cell) == ref.top(cell)
    for colour in range(len(r.colours)):
        assert view.price(colour) == ref.price(colour)
    for p in range(view.n):
        assert list(view.hand(p)) == ref.hand(p)


def test_helpers_agree_at_building_positions():
    for players, options in ((2, {}), (3, {"tile_internal_connectivity": "independent_channels",
                                           "city_spaces_pass_through": True}),
                             (4, {"cover_occupied_cell": True, "unconnected_vein_neighbour": "forbidden"})):
        ref_game, fast_game = both(players, **options)
        rng = np.random.default_rng([players, 5])
        visits = {"n": 0}

        def visit(ref, fast, rng):
            if rng.random() < 0.15:
                visits["n"] += 1
                compare_helpers(ref, fast, rng)
                assert list(fast.view().order()) == ref.order()

        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, rich=True, visit=visit)
        assert visits["n"] >= 5


# -- illegal moves --------------------------------------------------------------------------------

def test_engines_explain_illegal_actions_in_the_same_words():
    ref_game, fast_game = both(3)
    rng = np.random.default_rng(3)
    ref, fast = ref_game.new_initial_state(), fast_game.new_initial_state()
    tried = 0
    while not ref.is_terminal():
        if rng.random() < 0.3:
            odd = [int(rng.integers(len(TABLE))), int(rng.integers(len(TABLE))), -1, len(TABLE), 2 ** 70, "bid 3",
                   2.0, True, None, np.int64(int(rng.integers(len(TABLE))))]
            for action in odd:
                outcomes = []
                for state in (ref, fast):
                    before = state.serialize()
                    reason = state.illegal_reason(action)
                    try:
                        state.clone().apply_action(action)
                        outcomes.append((reason, None))
                    except Exception as e:   # the same type and message are required of both
                        outcomes.append((reason, type(e), str(e)))
                    if reason is not None:
                        with pytest.raises(IllegalActionError) as refused:
                            state.apply_action(action)
                        assert refused.value.reason == reason, "refused for the reason illegal_reason gives"
                    assert state.serialize() == before, "a refused action leaves the state unchanged"
                assert outcomes[0] == outcomes[1], action
                tried += 1
        action = (sample_chance_outcome(ref.chance_outcomes(), rng.random()) if ref.is_chance_node()
                  else choose(ref.legal_actions(), rng, rich=True))
        ref.apply_action(action)
        fast.apply_action(action)
    assert tried > 200
    for state in (ref, fast):
        with pytest.raises(IllegalActionError, match="game is over"):
            state.apply_action(0)


def test_numpy_integers_are_actions():
    fast = load_game("cavum", players=2, engine="compiled").new_initial_state()
    fast.apply_action(np.int64(3))
    assert fast.history() == [3] and type(fast.history()[0]) is int


# -- views, hidden information, copies and records ------------------------------------------------------

def test_views_and_resampling_are_the_same_in_both_engines():
    ref_game, fast_game = both(3)
    rng = np.random.default_rng(0)
    ref, fast = ref_game.new_initial_state(seed=9), fast_game.new_initial_state(seed=9)
    checked = 0
    while not ref.is_terminal():
        if ref.current_player() >= 0 and rng.random() < 0.1:
            for p in range(3):
                assert ref.information_state_string(p) == fast.information_state_string(p)
                assert ref.observation_tensor(p) == fast.observation_tensor(p)
                assert np.array_equal(ref.information_state_tensor(p), fast.information_state_tensor(p))
                seed = int(rng.integers(1 << 30))
                assert ref.resample_from_infostate(p, seed).serialize() == \
                    fast.resample_from_infostate(p, seed).serialize()
            assert ref.view().shown_stone_holders() == fast.view().shown_stone_holders() \
                == tuple(sorted(ref.shown_stone_holders()))
            assert str(ref) == str(fast)
            checked += 1
        action = (sample_chance_outcome(ref.chance_outcomes(), rng.random()) if ref.is_chance_node()
                  else choose(ref.legal_actions(), rng, rich=True))
        ref.apply_action(action)
        fast.apply_action(action)
    assert checked >= 10 and str(ref) == str(fast)


def test_positions_are_built_from_snapshots_and_read_through_the_view():
    """A compiled position has no field attributes: it is read through `view()` and built by `from_dict`,
    which sets every field (arrays keep their length) and refuses what is not a field of this game."""
    fast = load_game("cavum", players=2, engine="compiled").new_initial_state(seed=1)
    ref = load_game("cavum", players=2, engine="reference").new_initial_state(seed=1)
    assert fast.view() == ref.view() and fast.view().to_dict() == ref.to_dict()
    for name in ("pool", "scores_", "phase", "stage"):
        assert not hasattr(fast, name), name
    d = fast.to_dict()
    d["pool"][8] = 7
    d["hands"][0:6] = [1, 0, 2, 0, 0, 0]
    d["scores_"] = [3, 4]
    d["phase"] = 1
    d["route"] = [3, 4]
    d["display"] = [2, 9]
    built = CompiledState.from_dict(fast.game, d, fast.history())
    assert built.to_dict() == d and built.history() == fast.history()
    assert ReferenceState.from_dict(ref.game, d, ref.history()).to_dict() == d
    view = built.view()
    assert view.pool[8] == 7 and view.hand(0) == (1, 0, 2, 0, 0, 0) and view.scores_ == (3, 4)
    assert view.phase == 1 and view.route == (3, 4) and view.display == (2, 9)
    assert view.station.count(-1) == rules().num_cells and len(view.stack) == rules().num_cells * 4
    assert fast.to_dict()["pool"][8] != 7, "the source position is unchanged"
    for change, words in [({"scores_": [1, 2, 3]}, "scores_ holds 2 values"), ({"pool": [0] * 9}, "pool holds 10"),
                          ({"display": [15]}, "display holds order card numbers"),
                          ({"n": 3}, "number of players"), ({"colour": 1}, "not a field")]:
        with pytest.raises(ValueError, match=words):
            CompiledState.from_dict(fast.game, {**d, **change}, [])
        if "holds" not in words:           # the reference keeps plain lists, whatever their length
            with pytest.raises(ValueError, match=words):
                ReferenceState.from_dict(ref.game, {**d, **change}, [])


def test_clone_pickle_deepcopy_and_records_keep_the_position():
    game = load_game("cavum", players=4, engine="compiled", tile_internal_connectivity="independent_channels")
    state = game.new_initial_state(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(120):
        state.apply_action(choose(state.legal_actions(), rng, rich=True))
    for other in (state.clone(), pickle.loads(pickle.dumps(state)), copy.deepcopy(state),
                  game.deserialize_state(state.serialize())):
        assert type(other) is CompiledState and other.serialize() == state.serialize() and other == state
        assert other.legal_actions() == state.legal_actions()
    assert pickle.loads(pickle.dumps(state))._game.parameters()["tile_internal_connectivity"] == \
        "independent_channels"
    twin = state.clone()
    before = state.serialize()
    twin.apply_action(twin.legal_actions()[0])
    assert state.serialize() == before, "a clone is independent"
    assert twin.history() != state.history() and twin.to_dict() != state.to_dict()
    reference = load_game("cavum", players=4, engine="reference", tile_internal_connectivity="independent_channels")
    assert reference.deserialize_state(state.serialize()).serialize() == state.serialize(), \
        "a compiled record replays in the reference engine"


def test_a_replaced_config_is_followed_like_the_reference_does():
    """The reference reads its Config live; the compiled state follows a swapped Config too."""
    ref_game, fast_game = both(2)
    ref, fast = ref_game.new_initial_state(seed=2), fast_game.new_initial_state(seed=2)
    for game in (ref_game, fast_game):
        game.config = type(game.config)(**{**game.config.__dict__, "bid_cap": "unbounded"})
    assert fast.legal_actions() == ref.legal_actions() and TABLE.id(BID, 60) in fast.legal_actions()


# -- C playouts and sizes -----------------------------------------------------------------------------

def test_c_random_playouts_finish_games_with_zero_sum_returns():
    game = load_game("cavum", players=3, engine="compiled")
    state = game.new_initial_state(seed=1)
    results = [state.random_playout(seed) for seed in range(100)]
    assert all(abs(sum(r)) < 1e-9 and max(r) > 0 for r in results)
    assert state.random_playout(5) == state.random_playout(5)
    assert len({tuple(r) for r in results}) > 2, "different seeds give different games"
    steps = compiled.random_games(game, 50, seed=2)
    assert 50 * 3 * (5 + 12 * 3) < steps < 50 * game.max_game_length
    assert compiled.state_size_bytes() < 2000


def test_compiled_is_the_default_engine():
    assert load_game("cavum", players=2).engine == "compiled"
    assert type(load_game("cavum", players=2).new_initial_state()) is CompiledState
    assert KINDS == ("two", "three", "four", "six")


# -- long runs ----------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_engines_agree_on_many_random_games(players):
    ref_game, fast_game = both(players)
    for seed in range(150):
        rng = np.random.default_rng([players, seed, 99])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, rich=seed % 2 == 1,
                         records_every=10)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(OPTIONS)), ids=[option_id(o) for o in OPTIONS])
def test_engines_agree_with_each_rule_option_on_many_games(index):
    for players in (2, 3, 4):
        ref_game, fast_game = both(players, **OPTIONS[index])
        for seed in range(6):
            rng = np.random.default_rng([index, players, seed, 7])
            assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, rich=seed % 2 == 0,
                             records_every=10)


@pytest.mark.slow
def test_helpers_agree_at_many_building_positions():
    for index, options in enumerate(OPTIONS):
        ref_game, fast_game = both(2 + index % 3, **options)
        rng = np.random.default_rng([index, 31])

        def visit(ref, fast, rng):
            if rng.random() < 0.05:
                compare_helpers(ref, fast, rng)

        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, rich=True,
                         visit=visit, records_every=20)
