"""The Cavum engine's C interface (core/engine.pxd) says what the Python API says, at every step of real games.

Seeded random games of 2, 3 and 4 players, with stones in hand hidden and public, are played through the
API; at every step the interface (read through `CompiledStateBase.engine_view`, which calls the table's
functions on the state's C position) is compared with the API: the player to move, the legal actions, the
chance outcomes with their probabilities (against the reference engine's), the returns; its `evaluate`
against `search.cavum_agents.cavum_evaluate` (to 1e-9; it is in fact bit-identical); its `apply_action`
(through the test hook `engine_applied`) against `apply_action`. At sampled positions its
`resample` (through `engine_resampled`) must give a position the player cannot tell from the true one,
with every player's stone count and the pooled colours kept; on a small colour-sale position the redeals'
frequencies are compared with the exact distribution (uniform over consistent deals of the stones) and with
the Python `resample_from_infostate`'s, by chi-square tests.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

from cavekit.core import load_game
from cavekit.core.api import CHANCE, TERMINAL, sample_chance_outcome
from cavekit.core.cavum.actions import BID, action_table
from cavekit.core.cavum.compiled import CompiledState
from cavekit.core.cavum.state import RESAMPLE_TRIES
from cavekit.core.cavum.stages import FINAL_SALE
from cavekit.search.cavum_agents import cavum_evaluate, scorings_left

from test_cavum_compiled import choose

HIDDEN = {True: {}, False: {"stones_in_hand_visibility": "public"}}
K = 6                                   # colours
GAMES = {2: 10, 3: 8, 4: 6}


def hands_of(state) -> list[tuple[int, ...]]:
    view = state.view()
    return [view.hand(q) for q in range(view.n)]


def without_hands(state) -> dict:
    d = state.to_dict()
    del d["hands"]
    return d


def check_resample(state, player: int, seed: int, hidden: bool) -> bool:
    """The engine's redeal for `player` is a position `player` cannot tell from `state`; whether it changed."""
    world = state.engine_resampled(player, seed)
    assert type(world) is CompiledState and world.history() == state.history()
    assert world.information_state_string(player) == state.information_state_string(player)
    assert without_hands(world) == without_hands(state), "only the hands are redealt"
    true, new = hands_of(state), hands_of(world)
    assert new[player] == true[player]
    assert [sum(h) for h in new] == [sum(h) for h in true], "every player keeps their number of stones"
    others = [q for q in range(len(true)) if q != player]
    assert [sum(new[q][c] for q in others) for c in range(K)] == [sum(true[q][c] for q in others) for c in range(K)]
    for q, colour in world.view().shown_stone_holders():
        assert new[q][colour] > 0, "a player seen bidding in or selling a colour holds a stone of it"
    if not hidden:
        assert new == true
    return new != true


def assert_interface_agrees(game, seed: int, rich: bool, hidden: bool, resample_every: float = 0.1) -> Counter:
    """Play one seeded game through the API, checking the interface at every step; counts of what was seen."""
    rng = np.random.default_rng([game.num_players, seed, int(hidden)])
    state = game.new_initial_state(seed=seed)
    seen: Counter = Counter()
    n = game.num_players
    while True:
        view = state.engine_view()
        player = state.current_player()
        assert view["name"] == "cavum"
        assert view["player"] == player
        assert view["returns"] == state.returns()
        expected = cavum_evaluate(state)
        assert len(view["evaluate"]) == n
        assert max(abs(a - b) for a, b in zip(view["evaluate"], expected)) < 1e-9
        seen["bit-identical evaluations"] += view["evaluate"] == expected
        seen["evaluations"] += 1
        if state.is_terminal():
            assert player == TERMINAL and view["legal"] == [] and view["chance"] == []
            assert view["evaluate"] == state.returns()
            return seen
        legal = state.legal_actions()
        if player == CHANCE:
            assert view["chance"] == state.to_reference().chance_outcomes() == state.chance_outcomes()
            assert view["chance"] == [(a, 1.0 / len(legal)) for a in legal]
            action = sample_chance_outcome(state.chance_outcomes(), rng.random())
        else:
            assert view["legal"] == legal and view["chance"] == []
            state_view = state.view()
            if scorings_left(state_view) and any(owner >= 0 and state_view.live(space)
                                                 for space, owner in enumerate(state_view.city_station)):
                seen["positions with live city stations"] += 1
            if rng.random() < resample_every:
                for p in range(n):
                    seen["redeals"] += 1
                    seen["changed redeals"] += check_resample(state, p, int(rng.integers(1 << 30)), hidden)
            action = choose(legal, rng, rich)
        child = state.engine_applied(action)
        state.apply_action(action)
        assert child.to_dict() == state.to_dict() and child.history() == state.history()


@pytest.mark.parametrize("hidden", [True, False], ids=["hidden", "public"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_interface_agrees_with_the_api_in_random_games(players, hidden):
    game = load_game("cavum", players=players, **HIDDEN[hidden])
    seen: Counter = Counter()
    for seed in range(GAMES[players]):
        seen += assert_interface_agrees(game, seed, rich=seed % 2 == 1, hidden=hidden)
    assert seen["bit-identical evaluations"] == seen["evaluations"]
    assert seen["positions with live city stations"] > 20, "the evaluation's city scoring term was exercised"
    assert seen["redeals"] > 20
    # with two players the one other hand is the pool of unseen stones: a redeal can only give it back
    assert (seen["changed redeals"] > 0) == (hidden and players > 2)


@pytest.mark.parametrize("options", [
    {"tile_internal_connectivity": "independent_channels", "city_spaces_pass_through": True,
     "three_exit_pattern": "T", "two_exit_pattern": "curve"},
    {"final_tie_break": "draw", "colour_sale_pass_is_final": False, "colour_sale_opening_bid": "up_to_price",
     "colour_sale_colour_order": ["violet", "white", "green", "blue", "red", "yellow"]},
], ids=["network-options", "sale-options"])
def test_the_interface_agrees_under_other_rule_options(options):
    """Live stations found by the other route search, draws, and another colour order for the shown stones."""
    for players in (2, 3, 4):
        game = load_game("cavum", players=players, **options)
        for seed in (7, 8):
            assert_interface_agrees(game, seed, rich=seed == 7, hidden=True)


def test_the_interface_follows_a_replaced_config():
    """As the Python methods do (`check_config`), `engine()` points the position at a replaced Config's rules."""
    game = load_game("cavum", players=3)
    state = game.new_initial_state(seed=2)
    game.config = type(game.config)(**{**game.config.__dict__, "bid_cap": "unbounded"})
    legal = state.engine_view()["legal"]                   # asked before any Python method
    assert action_table().id(BID, 60) in legal and legal == state.legal_actions()
    play_until(state, np.random.default_rng(2), lambda s: all(sum(hand) for hand in hands_of(s)[1:]))
    assert any(state.engine_resampled(0, seed).to_dict() != state.to_dict() for seed in range(10))
    game.config = type(game.config)(**{**game.config.__dict__, "stones_in_hand_visibility": "public"})
    assert all(state.engine_resampled(0, seed).to_dict() == state.to_dict() for seed in range(10)), \
        "stones made public: nothing is redealt"


# -- the distribution of redeals ------------------------------------------------------------------------

def play_until(state, rng: np.random.Generator, done) -> None:
    """Play random moves (the rich policy) until `done(state)`; fails if the game ends first."""
    while not done(state):
        assert not state.is_terminal(), "the game ended first"
        state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()) if state.is_chance_node()
                           else choose(state.legal_actions(), rng, True))


def colour_sale_position(players: int, pool: range, deals: range):
    """A colour-sale position from seeded random games where two of the observer's opponents are seen holding
    the colour on sale (so rejection is at work), every opponent holds stones, `pool` of them in all, and
    the consistent deals number within `deals`; the position and the observer."""
    game = load_game("cavum", players=players)
    for seed in range(20):
        rng = np.random.default_rng([players, seed, 5])
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            if not state.is_chance_node():
                view = state.view()
                holders = {q for q, _ in view.shown_stone_holders()}
                for p in range(players):
                    others = [q for q in range(players) if q != p]
                    if len(holders - {p}) == 2 and all(sum(view.hand(q)) for q in others) \
                            and sum(sum(view.hand(q)) for q in others) in pool \
                            and len(exact_distribution(state, p)) in deals:
                        return state, p
                action = choose(state.legal_actions(), rng, False)
            else:
                action = sample_chance_outcome(state.chance_outcomes(), rng.random())
            state.apply_action(action)
    raise AssertionError("no such colour-sale position found")


def exact_distribution(state, player: int) -> dict[tuple, float]:
    """The probability of every consistent deal of the others' hands: the stones are distinct, every way of
    handing them out with the right counts is equally likely, so a deal (colour counts per player) weighs
    prod_c pool_c! / prod_q dealt_qc!; deals that break the shown-stone condition are excluded."""
    hands = hands_of(state)
    others = [q for q in range(len(hands)) if q != player]
    pool = [sum(hands[q][c] for q in others) for c in range(K)]
    must = [(q, c) for q, c in state.view().shown_stone_holders() if q != player]

    def rows(count, left):
        """Every colour-count row of `count` stones within `left`."""
        if not count:
            yield (0,) * K
            return
        for row in itertools.product(*(range(min(x, count) + 1) for x in left)):
            if sum(row) == count:
                yield row

    weights = {}

    def deal(i, left, dealt):
        if i == len(others):
            if all(dealt[others.index(q)][c] > 0 for q, c in must):
                weights[tuple(dealt)] = 1.0 / math.prod(math.factorial(x) for row in dealt for x in row)
            return
        for row in rows(sum(hands[others[i]]), left):
            deal(i + 1, [a - b for a, b in zip(left, row)], dealt + [row])

    deal(0, pool, [])
    total = sum(weights.values())
    return {d: w / total for d, w in weights.items()}


SMALL_POSITIONS = {"3 players": (3, range(5, 9), range(6, 40)), "4 players": (4, range(6, 10), range(12, 80))}


@pytest.mark.parametrize("position", SMALL_POSITIONS)
def test_redeals_are_uniform_over_consistent_deals_as_in_python(position):
    state, player = colour_sale_position(*SMALL_POSITIONS[position])
    others = [q for q in range(state.game.num_players) if q != player]
    exact = exact_distribution(state, player)
    assert tuple(hands_of(state)[q] for q in others) in exact
    deals = sorted(exact)

    def histogram(worlds) -> list[int]:
        counts = Counter(tuple(hands_of(w)[q] for q in others) for w in worlds)
        assert set(counts) <= set(exact), "every redeal is consistent"
        return [counts[d] for d in deals]

    c_counts = histogram(state.engine_resampled(player, seed) for seed in range(40000))
    py_counts = histogram(state.resample_from_infostate(player, seed) for seed in range(10000))
    expected = np.array([exact[d] for d in deals])
    assert chisquare(c_counts, expected * sum(c_counts)).pvalue > 1e-3
    assert chisquare(py_counts, expected * sum(py_counts)).pvalue > 1e-3
    assert chi2_contingency(np.array([c_counts, py_counts])).pvalue > 1e-3


def test_a_redeal_keeps_the_true_hands_when_no_deal_is_consistent():
    """After RESAMPLE_TRIES rejected deals both engines keep the true hands: here a position edited so that the
    shown holder of the colour on sale holds none of it, nor does anyone else the observer cannot see."""
    state, player = colour_sale_position(*SMALL_POSITIONS["3 players"])
    view = state.view()
    (q, colour), *_ = [(q, c) for q, c in view.shown_stone_holders() if q != player]
    d = state.to_dict()
    for other in range(view.n):
        if other != player:                              # the colour on sale becomes the next colour
            d["hands"][other * K + (colour + 1) % K] += d["hands"][other * K + colour]
            d["hands"][other * K + colour] = 0
    edited = CompiledState.from_dict(state.game, d, state.history())
    assert RESAMPLE_TRIES > 0
    assert edited.engine_resampled(player, 1).to_dict() == edited.to_dict()
    assert edited.resample_from_infostate(player, 1).to_dict() == edited.to_dict()


def test_no_redeal_when_every_hand_is_visible():
    """Public stones: `resample` is NULL in the table (engine_resampled gives a plain copy); the final sale
    shows every hand, so there a hidden-stones game keeps the hands too."""
    for visibility, expect_change in (("public", False), ("hidden_colours_public_history", True)):
        game = load_game("cavum", players=4, stones_in_hand_visibility=visibility)
        state = game.new_initial_state(seed=4)
        rng = np.random.default_rng(4)
        play_until(state, rng, lambda s: sum(1 for hand in hands_of(s)[2:] if sum(hand)) == 2)
        changed = any(state.engine_resampled(1, seed).to_dict() != state.to_dict() for seed in range(20))
        assert changed == expect_change
        play_until(state, rng, lambda s: s.view().stage == FINAL_SALE)
        while not state.is_terminal():
            for seed in range(5):
                assert state.engine_resampled(0, seed).to_dict() == state.to_dict()
            state.apply_action(choose(state.legal_actions(), rng, True))
        assert state.engine_resampled(0, 1).to_dict() == state.to_dict()
