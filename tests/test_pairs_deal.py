"""Deals of The Cave (Pairs deck): one seed fixes the first dealer and every round's shuffle, whatever is played.

The rules (shared/rules/the-cave-pairs.md sections 3 and 6): at the start of each round the whole 55-card deck
is shuffled; cards are burned (none by default), the hands are dealt one card at a time clockwise from the
dealer's left, five cards go face up to the Cave, and the Cave is refilled from the deck after each play; the
deal passes to the left each round, and the first dealer is drawn at random. A deal (`cavekit.core.deal`)
holds the first dealer and each round's shuffled deck, and the k-th card to leave a round's deck is the deck's
k-th card, so two lines of play on one deal see the same cards (the refills only as far as both draw them).
What the players see is read from the game's record (`history()` and the node kinds), never from
`chance_component`.
"""
from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE
from cavekit.core.deal import Deal, describe, new_deal, resolve_chance
from cavekit.core.pairs.state import KIND_BURN, KIND_CAVE, KIND_DEAL, KIND_DEALER, KIND_PLAY, KIND_REFILL, KIND_STRIDE

from agent_play import play_with_agents, replayed
from test_pairs_compiled import assert_same_game, both

ENGINES = ("reference", "compiled")
PLAYER_COUNTS = (2, 3, 4, 5, 6)
DECK = sorted(rank for rank in range(1, 11) for _ in range(rank))   # one 1, two 2s, ..., ten 10s
# Lines of play compared on one deal: seeded random play with two seeds, and two different agents.
LINES = {"random, seed 1": ("random", 1), "random, seed 2": ("random", 2), "greedy": ("greedy", 3),
         "pairs_heuristic": ("pairs_heuristic", 4)}


def cards_seen(game, state) -> tuple[int, list[dict]]:
    """What the record of `state` shows: the first dealer and, per round, the cards as they left the deck
    (ranks 1-10): burned, each seat's hand in dealing order, the Cave, the refills, and all of them in order."""
    first = game.config.first_dealer
    rounds: list[dict] = []
    for position, action in replayed(game, state.history()):
        kind, who = divmod(position.node_kind(), KIND_STRIDE)
        if kind == KIND_DEALER:
            first = action
            continue
        if kind == KIND_PLAY:
            continue
        r = position.to_dict()["round"]
        while len(rounds) <= r:
            rounds.append({"burned": [], "hands": [[] for _ in range(game.num_players)], "cave": [], "refills": [],
                           "order": []})
        seen = rounds[r]
        rank = action + 1
        seen["order"].append(rank)
        if kind == KIND_BURN:
            seen["burned"].append(rank)
        elif kind == KIND_DEAL:
            seen["hands"][who].append(rank)
        elif kind == KIND_CAVE:
            seen["cave"].append(rank)
        else:
            assert kind == KIND_REFILL
            seen["refills"].append(rank)
    return first, rounds


def random_dealt_game(game, deal: Deal, seed: int, on_chance=None):
    """A game played by seeded random choices with chance from `deal`; `on_chance(state)` sees each chance node."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            if on_chance is not None:
                on_chance(state)
            state.apply_action(deal.outcome(state))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    return state


# -- the same cards whatever is played --------------------------------------------------------------

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_one_deal_gives_the_same_cards_in_every_round_whatever_is_played(players):
    game = load_game("pairs", players=players)
    for seed in (1, 2):
        deal = new_deal(game, seed)
        seen = {name: play_with_agents(game, [spec] * players, line_seed, deal=deal)
                for name, (spec, line_seed) in LINES.items()}
        histories = {tuple(state.history()) for state in seen.values()}
        assert len(histories) == len(LINES), "the lines of play differ"
        (base_name, base_state), *others = seen.items()
        base_first, base_rounds = cards_seen(game, base_state)
        assert len(base_rounds) == players, "one round per player"
        for name, state in others:
            first, rounds = cards_seen(game, state)
            assert first == base_first, f"{name}: another first dealer than {base_name}"
            assert len(rounds) == len(base_rounds)
            for r, (mine, theirs) in enumerate(zip(rounds, base_rounds), start=1):
                for part in ("burned", "hands", "cave"):
                    assert mine[part] == theirs[part], f"{name} vs {base_name}, round {r}: other {part}"
                common = min(len(mine["refills"]), len(theirs["refills"]))
                assert common > 0
                assert mine["refills"][:common] == theirs["refills"][:common], \
                    f"{name} vs {base_name}, round {r}: the Cave is refilled with other cards"


DEAL_OPTIONS = [dict(), dict(burn_cards=3), dict(cave_size=3), dict(cave_size=8, hand_size=2), dict(rounds=2),
                dict(first_dealer=1), dict(hand_size=8, rounds=1)]


@pytest.mark.parametrize("options", DEAL_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_each_round_deals_its_deck_in_order_burn_hands_cave_then_refills(players, options):
    game = load_game("pairs", players=players, **options)
    c = game.config
    deal_size = players * c.hand_size
    for seed in range(3):
        deal = new_deal(game, seed)
        state = play_with_agents(game, ["random"] * players, seed, deal=deal)
        first, rounds = cards_seen(game, state)
        if c.first_dealer == "random":
            assert first == deal.components["first_dealer"][0]
        assert len(rounds) == c.num_rounds
        for r, seen in enumerate(rounds):
            deck = [o + 1 for o in deal.components[f"deck_round_{r + 1}"]]
            dealer = (first + r) % players          # the deal passes to the left
            assert seen["burned"] == deck[:c.burn_cards]
            dealt = deck[c.burn_cards:c.burn_cards + deal_size]
            for seat in range(players):             # one card at a time, clockwise from the dealer's left
                assert seen["hands"][seat] == dealt[(seat - dealer - 1) % players::players]
            assert seen["cave"] == deck[c.burn_cards + deal_size:c.setup_cards]
            assert seen["refills"] == deck[c.setup_cards:c.setup_cards + len(seen["refills"])]
            assert seen["order"] == deck[:len(seen["order"])]


# -- every chance node draws a legal item of the right component -------------------------------------

GAME_OPTIONS = [dict(), dict(burn_cards=5), dict(cave_size=3), dict(cave_size=10), dict(hand_size=8, rounds=1),
                dict(first_dealer=1, rounds=4), dict(score_leftover=True, tie_break="final_round")]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_chance_node_of_dealt_games_draws_the_next_card_of_its_rounds_deck(engine):
    games = 0
    for seed in range(70):
        players = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
        options = GAME_OPTIONS[seed % len(GAME_OPTIONS)]
        game = load_game("pairs", players=players, engine=engine, **options)
        deal = new_deal(game, 1000 + seed)
        drawn: list[tuple[str, int]] = []
        state = random_dealt_game(game, deal, seed, on_chance=lambda s: drawn.append(s.chance_component()))
        games += 1
        # In order: the first dealer (when random), then each round's deck from its first card, item by item.
        expected_names = list(deal.components)
        names = list(dict.fromkeys(name for name, _ in drawn))
        assert names == expected_names
        for name in names:
            indices = [i for n, i in drawn if n == name]
            assert indices == list(range(len(indices))), f"{name} is drawn item by item from the first"
        assert state.is_terminal()
    assert games == 70


# -- a seed fixes the deal -----------------------------------------------------------------------------

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_seed_fixes_the_deal_and_a_deal_reads_back(players):
    game = load_game("pairs", players=players)
    deals = [new_deal(game, seed) for seed in range(60)]
    assert new_deal(game, 7) == deals[7], "the same seed, the same deal"
    assert len({tuple(map(tuple, d.components.values())) for d in deals}) == 60, "different seeds, different deals"
    assert {d.components["first_dealer"][0] for d in deals} == set(range(players)), "any seat may deal first"
    for deal in deals:
        assert list(deal.components) == ["first_dealer"] + [f"deck_round_{r}" for r in range(1, players + 1)]
        assert deal.components["first_dealer"][0] in range(players)
        for r in range(1, players + 1):
            assert sorted(o + 1 for o in deal.components[f"deck_round_{r}"]) == DECK, "a round deals the whole deck"
        assert Deal.from_json(deal.to_json()) == deal
    assert deals[0].components["deck_round_1"] != deals[0].components["deck_round_2"], "each round is reshuffled"


def test_a_deal_is_described_by_seat_and_rank():
    game = load_game("pairs", players=3)
    deal = new_deal(game, 5)
    lines = describe(game, deal).splitlines()
    assert lines[0].startswith("The Cave (Pairs deck), 3 player(s): deal seed 5")
    assert lines[1].strip().startswith("first_dealer:") and lines[2].strip() == f"seat {deal.components['first_dealer'][0]}"
    for r in range(1, 4):
        i = 1 + 2 * r
        assert lines[i].strip().startswith(f"deck_round_{r}:")
        names = lines[i + 1].strip().split(", ")
        assert names == [str(o + 1) for o in deal.components[f"deck_round_{r}"]]
        assert Counter(map(int, names)) == Counter(DECK)


def test_options_that_shuffle_nothing_new_keep_the_deal():
    base = new_deal(load_game("pairs", players=3), 11).components
    for options in (dict(burn_cards=4), dict(cave_size=3), dict(hand_size=8), dict(tie_break="final_round"),
                    dict(score_leftover=True), dict(hand_visibility="open")):
        assert new_deal(load_game("pairs", players=3, **options), 11).components == base, options
    fixed = new_deal(load_game("pairs", players=3, first_dealer=2), 11).components
    assert list(fixed) == ["deck_round_1", "deck_round_2", "deck_round_3"], "a fixed first dealer is not dealt"
    assert all(fixed[name] == base[name] for name in fixed)
    short = new_deal(load_game("pairs", players=3, rounds=1), 11).components
    long = new_deal(load_game("pairs", players=3, rounds=5), 11).components
    assert list(short) == ["first_dealer", "deck_round_1"] and len(long) == 6
    assert all(short[name] == base[name] for name in short) and all(base[name] == long[name] for name in base)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_seeded_start_is_the_first_dealer_and_first_deal_of_the_seeds_deal(engine):
    game = load_game("pairs", players=4, engine=engine)
    starts = set()
    for seed in range(6):
        state = game.new_initial_state(seed)
        assert state.current_player() >= 0, "set up up to the first play"
        assert state.serialize() == resolve_chance(game.new_initial_state(), new_deal(game, seed)).serialize()
        first, (seen,) = cards_seen(game, state)
        deck = [o + 1 for o in new_deal(game, seed).components["deck_round_1"]]
        assert first == new_deal(game, seed).components["first_dealer"][0] and seen["order"] == deck[:25]
        starts.add(state.serialize())
    assert len(starts) == 6


# -- both engines on dealt games ----------------------------------------------------------------------

def assert_engines_agree_on_dealt_games(seeds) -> None:
    for seed in seeds:
        players = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
        ref_game, fast_game = both(players)
        deal = new_deal(ref_game, seed)
        rng = np.random.default_rng([players, seed, 26])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, deal=deal)


def test_engines_agree_on_dealt_games():
    assert_engines_agree_on_dealt_games(range(50))


@pytest.mark.slow
def test_engines_agree_on_thousands_of_dealt_games():
    assert_engines_agree_on_dealt_games(range(50, 2050))


# -- the deal stays hidden ------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_dealt_position_holds_nothing_but_its_record(engine):
    """What an agent gets is the position; a dealt one is exactly the position its record replays to, and its
    next card is as uncertain as in any other game (the deal's order is in no field of the state)."""
    for players in (2, 5):
        game = load_game("pairs", players=players, engine=engine)
        deal = new_deal(game, 40 + players)
        rng = np.random.default_rng(players)
        state = game.new_initial_state(40 + players)
        refills = 0
        while not state.is_terminal():
            replay = game.replay(state.history())
            assert state.to_dict() == replay.to_dict() and state.serialize() == replay.serialize()
            if state.current_player() == CHANCE:
                outcomes = state.chance_outcomes()
                deck = state.to_dict()["deck"]
                assert outcomes == [(rank, deck[rank] / sum(deck)) for rank in range(10) if deck[rank]]
                refills += len(outcomes) > 1
                state.apply_action(deal.outcome(state))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
        assert refills > 0


def probability_of_hands(unseen: list[int], hands: list[list[int]]) -> float:
    """The chance that dealing from the unseen cards at random gives each hand exactly (multivariate
    hypergeometric, one hand after the other)."""
    pool, p = list(unseen), 1.0
    for hand in hands:
        p *= np.prod([comb(pool[r], hand[r]) for r in range(10)]) / comb(sum(pool), sum(hand))
        pool = [u - h for u, h in zip(pool, hand)]
    return float(p)


@pytest.mark.parametrize("players", (2, 3))
def test_resampling_a_dealt_position_finds_the_hidden_hands_no_more_often_than_chance(players):
    # Small hands, so that chance alone finds them now and then and the bound says something.
    game = load_game("pairs", players=players, hand_size=3)
    samples = 400
    for seed in range(4):
        state = game.new_initial_state(seed)
        viewer = state.current_player()
        hands = state.to_dict()["hands"]
        others = [hands[q] for q in range(players) if q != viewer]
        p = probability_of_hands(state.observation(viewer)["unseen"], others)
        rng = np.random.default_rng(seed)
        found = 0
        for _ in range(samples):
            other = state.resample_from_infostate(viewer, rng).to_dict()["hands"]
            found += [other[q] for q in range(players) if q != viewer] == others
        mean = samples * p
        assert found <= mean + 4 * np.sqrt(mean) + 3, \
            f"resampling found the dealt hands {found} times in {samples}; chance gives about {mean:.1f}"
