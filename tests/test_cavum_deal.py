"""Deals of Cavum: one seed fixes the order-card deck, so every line of play turns up the same order cards.

The rules (shared/rules/cavum.md sections 4 and 5.8): the 15 order cards are shuffled face down and 5 are
turned up at setup; 5 more are turned up at the start of phases 2 and 3, beside the cards left over. That is
the only shuffle of the game (the board, tiles and buy pool are set, the youngest player opens the first
auction, and everything else is bid or chosen), so a deal (`cavekit.core.deal`) holds the order deck alone, and
the k-th card turned up is its k-th card. What the players see is read from the game's record (the
outcomes of its chance nodes) and the display, never from `chance_component`.
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE
from cavekit.core.cavum.rules import CHOICES, rules
from cavekit.core.deal import Deal, describe, new_deal, resolve_chance

from agent_play import play_with_agents, replayed
from test_cavum_compiled import OPTIONS, assert_same_game, both, choose

ENGINES = ("reference", "compiled")
PLAYER_COUNTS = (2, 3, 4)
CARDS = len(rules().order_cards)                                   # 15
# Lines of play compared on one deal: seeded random play with two seeds, and the Cavum heuristic.
LINES = {"random, seed 1": ("random", 1), "random, seed 2": ("random", 2), "cavum_heuristic": ("cavum_heuristic", 3)}


def turned_up(game, state) -> list[list[int]]:
    """What the record of `state` shows: per phase, the order cards turned up, in order."""
    phases: list[list[int]] = []
    for position, action in replayed(game, state.history()):
        if position.current_player() == CHANCE:
            phase = position.to_dict()["phase"]
            while len(phases) <= phase:
                phases.append([])
            phases[phase].append(action)
    return phases


def random_dealt_game(game, deal: Deal, seed: int, on_chance=None, rich: bool = False):
    """A game played by seeded random choices with chance from `deal`; `on_chance(state)` sees each chance node."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            if on_chance is not None:
                on_chance(state)
            state.apply_action(deal.outcome(state))
        else:
            state.apply_action(choose(state.legal_actions(), rng, rich))
    return state


# -- the same order cards whatever is played ------------------------------------------------------

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_one_deal_turns_up_the_same_order_cards_whatever_is_played(players):
    game = load_game("cavum", players=players)
    for seed in (1, 2):
        deal = new_deal(game, seed)
        seen = {name: play_with_agents(game, [spec] * players, line_seed, deal=deal)
                for name, (spec, line_seed) in LINES.items()}
        assert len({tuple(state.history()) for state in seen.values()}) == len(LINES), "the lines of play differ"
        (base_name, base_state), *others = seen.items()
        base = turned_up(game, base_state)
        assert [len(cards) for cards in base] == [5, 5, 5], "five cards a phase, three phases"
        for name, state in others:
            assert turned_up(game, state) == base, f"{name} turns up other order cards than {base_name}"


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_each_phase_turns_up_the_next_five_cards_of_the_deck_beside_the_leftovers(players):
    game = load_game("cavum", players=players)
    for seed in range(3):
        deal = new_deal(game, seed)
        deck = list(deal.components["order_deck"])
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        phase, before = -1, []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                if state.to_dict()["phase"] != phase:
                    phase, before = state.to_dict()["phase"], list(state.to_dict()["display"])
                state.apply_action(deal.outcome(state))
                if state.current_player() != CHANCE:     # the phase's cards are all up
                    new = deck[5 * phase:5 * phase + 5]
                    assert sorted(before + new) == list(state.to_dict()["display"])
            else:
                state.apply_action(choose(state.legal_actions(), rng, rich=False))
        assert phase == 2
        assert sum(turned_up(game, state), []) == deck, "the whole deck, in the deal's order"


# -- every draw takes the next card of the deck ---------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_every_draw_of_dealt_games_takes_the_next_card_of_the_order_deck(engine):
    for seed in range(24):
        players = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
        options = OPTIONS[seed % len(OPTIONS)] if seed % 2 else {}
        game = load_game("cavum", players=players, engine=engine, **options)
        deal = new_deal(game, 500 + seed)
        drawn: list[tuple[str, int]] = []
        state = random_dealt_game(game, deal, seed, on_chance=lambda s: drawn.append(s.chance_component()),
                                  rich=seed % 3 == 0)
        assert state.is_terminal()
        assert drawn == [("order_deck", k) for k in range(CARDS)], "the deck is turned up card by card"


# -- a seed fixes the deal -------------------------------------------------------------------------------

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_seed_fixes_the_deal_and_a_deal_reads_back(players):
    game = load_game("cavum", players=players)
    deals = [new_deal(game, seed) for seed in range(60)]
    assert new_deal(game, 7) == deals[7], "the same seed, the same deal"
    assert len({d.components["order_deck"] for d in deals}) == 60, "different seeds, different deals"
    firsts = {new_deal(game, seed).components["order_deck"][0] for seed in range(200)}
    assert firsts == set(range(CARDS)), "any order card may come up first"
    for deal in deals:
        assert list(deal.components) == ["order_deck"]
        assert sorted(deal.components["order_deck"]) == list(range(CARDS)), "every order card once"
        assert Deal.from_json(deal.to_json()) == deal


def test_a_deal_is_described_by_order_card():
    game = load_game("cavum", players=3)
    deal = new_deal(game, 5)
    lines = describe(game, deal).splitlines()
    assert lines[0].startswith("Cavum, 3 player(s): deal seed 5")
    assert lines[1].strip().startswith("order_deck:")
    names = lines[2].strip().split(", ")
    assert names == [rules().order_cards[o].id for o in deal.components["order_deck"]]
    assert sorted(names) == [f"O{i:02d}" for i in range(1, CARDS + 1)]


def test_no_rule_option_and_no_player_count_changes_the_deal():
    base = new_deal(load_game("cavum", players=2), 11).components
    for players in PLAYER_COUNTS:
        assert new_deal(load_game("cavum", players=players), 11).components == base
    for options in OPTIONS + [{name: values[-1]} for name, values in CHOICES.items()]:
        assert new_deal(load_game("cavum", players=3, **options), 11).components == base, options


@pytest.mark.parametrize("engine", ENGINES)
def test_a_seeded_start_turns_up_the_first_five_cards_of_the_seeds_deal(engine):
    game = load_game("cavum", players=3, engine=engine)
    starts = set()
    for seed in range(6):
        state = game.new_initial_state(seed)
        assert state.current_player() >= 0, "set up up to the first bid"
        assert state.serialize() == resolve_chance(game.new_initial_state(), new_deal(game, seed)).serialize()
        first = list(new_deal(game, seed).components["order_deck"][:5])
        assert turned_up(game, state) == [first] and list(state.to_dict()["display"]) == sorted(first)
        starts.add(state.serialize())
    assert len(starts) == 6


# -- both engines on dealt games ----------------------------------------------------------------------

def assert_engines_agree_on_dealt_games(seeds) -> None:
    for seed in seeds:
        players = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
        ref_game, fast_game = both(players)
        deal = new_deal(ref_game, seed)
        rng = np.random.default_rng([players, seed, 26])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, rich=seed % 2 == 1,
                         records_every=1, deal=deal)


def test_engines_agree_on_dealt_games():
    assert_engines_agree_on_dealt_games(range(50))


@pytest.mark.slow
def test_engines_agree_on_hundreds_of_dealt_games():
    assert_engines_agree_on_dealt_games(range(50, 850))


# -- the deal stays hidden ------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_dealt_position_holds_nothing_of_the_cards_still_face_down(engine):
    """What an agent gets is the position; a dealt one is exactly the position its record replays to, and at
    every draw, in it and in every resample of it, each face-down order card is as likely as the others."""
    for players in (2, 4):
        game = load_game("cavum", players=players, engine=engine)
        deal = new_deal(game, 30 + players)
        draws = 0

        def check(state):
            nonlocal draws
            replay = game.replay(state.history())
            assert state.to_dict() == replay.to_dict() and state.serialize() == replay.serialize()
            face_down = [card for card, inside in enumerate(state.to_dict()["deck"]) if inside]
            uniform = [(card, 1.0 / len(face_down)) for card in face_down]
            assert state.chance_outcomes() == uniform
            for seat in range(players):
                assert state.resample_from_infostate(seat, draws).chance_outcomes() == uniform
            draws += 1

        random_dealt_game(game, deal, players, on_chance=check)
        assert draws == CARDS
