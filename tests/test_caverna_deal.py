"""Caverna deals (issue 26; shared/rules/caverna.md sections 3 and 13): one seed lays out the setup's shuffles,
the start player, each stage's round cards and the harvest markers, and every line of play sees that layout."""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import CHANCE, load_game
from cavekit.core.deal import Deal, DealError, describe, new_deal
from cavekit.core.caverna.rules import rounds_played, rules
from cavekit.search import make_agent

PLAYER_COUNTS = (1, 2, 3, 4, 5, 6, 7)
CROSS_PLAY_COUNTS = (1, 2, 3, 4, 7)

# Section 3: the stages' shuffled cards (Wish for children lies fixed on round 4) and the rounds they are turned
# up in; 1-2 players remove Exploration and skip round 9.
STAGE_CARDS = {1: {"blacksmithing", "sheep_farming", "ore_mine_construction"},
               2: {"donkey_farming", "ruby_mine_construction"},
               3: {"ore_delivery", "family_life", "exploration"},
               4: {"ore_trading", "adventure", "ruby_delivery"}}
STAGE_ROUNDS = {1: (1, 2, 3), 2: (5, 6), 3: (7, 8, 9), 4: (10, 11, 12)}
STAGE_ROUNDS_1_2P = {**STAGE_ROUNDS, 3: (7, 8)}
# Section 13: the solo game's round cards in their fixed order.
SOLO_ORDER = {1: "blacksmithing", 2: "sheep_farming", 3: "ore_mine_construction", 4: "wish_for_children",
              5: "donkey_farming", 6: "ruby_mine_construction", 7: "ore_delivery", 8: "family_life",
              10: "ore_trading", 11: "adventure", 12: "ruby_delivery"}
COMPONENTS = ["start_player", "stage_1_cards", "stage_2_cards", "stage_3_cards", "stage_4_cards", "harvest_markers"]
MARKERS = ("green", "red")      # the harvest markers' chance outcomes 0 and 1


def stage_cards(players: int, stage: int) -> set[str]:
    return STAGE_CARDS[stage] - ({"exploration"} if players <= 2 else set())


def stage_rounds(players: int) -> dict[int, tuple[int, ...]]:
    return STAGE_ROUNDS_1_2P if players <= 2 else STAGE_ROUNDS


def marker_rounds(players: int) -> tuple[int, ...]:
    """Section 3: markers face down on rounds 6-12 (2 players: round 9 stays empty)."""
    return (6, 7, 8, 10, 11, 12) if players == 2 else (6, 7, 8, 9, 10, 11, 12)


def card_id(outcome: int) -> str:
    return rules().round_cards[outcome].id


def random_decisions(seed: int):
    """A seeded random player: a uniformly random legal action at every decision."""
    rng = np.random.default_rng(seed)
    return lambda state: state.legal_actions()[rng.integers(len(state.legal_actions()))]


def agent_decisions(spec: str, game, seed: int):
    """Every seat played by one agent built from `spec`."""
    agent = make_agent(spec, game, seed=seed)
    return agent.step


def play_dealt(game, deal: Deal, decide):
    """Play a whole game: chance nodes from `deal`, decisions from `decide(state)`. The final state and what
    the players saw of the setup: who placed the first dwarf, the round card and the harvest marker of each round."""
    state = game.new_initial_state()
    first_player = None
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state))
            continue
        if first_player is None:
            first_player = state.current_player()
        state.apply_action(decide(state))
    seen = state.to_dict()
    played = rounds_played(game.num_players)
    return state, {"first player": first_player,
                   "cards": {played[i]: card for i, card in enumerate(seen["cards"])},
                   "markers": {played[int(i)]: MARKERS[m] for i, m in seen["markers"].items()}}


def laid_out(players: int, deal: Deal) -> dict:
    """What section 3 says the players see of `deal`: the start player places first; the k-th card of a stage
    in the k-th of its rounds, Wish for children in round 4; the k-th marker on the k-th marker round."""
    if players == 1:
        return {"first player": 0, "cards": SOLO_ORDER, "markers": {}}
    cards = {4: "wish_for_children"}
    for stage, rounds in stage_rounds(players).items():
        cards.update((r, card_id(o)) for r, o in zip(rounds, deal.components[f"stage_{stage}_cards"], strict=True))
    markers = dict(zip(marker_rounds(players), (MARKERS[m] for m in deal.components["harvest_markers"]), strict=True))
    return {"first player": deal.components["start_player"][0], "cards": dict(sorted(cards.items())),
            "markers": markers}


# ------------------------------------------------------------------------------------------------------
# Two lines of play on one deal

def assert_same_setup_seen(game, deal: Deal, one, other) -> None:
    end_one, seen_one = play_dealt(game, deal, one)
    end_other, seen_other = play_dealt(game, deal, other)
    assert end_one.history() != end_other.history(), "the two lines of play should differ"
    assert seen_one == seen_other == laid_out(game.num_players, deal)


@pytest.mark.parametrize("players", CROSS_PLAY_COUNTS)
def test_two_random_lines_of_play_on_one_deal_see_the_same_setup(players):
    game = load_game("caverna", players=players)
    for seed in (3, 4):
        assert_same_setup_seen(game, new_deal(game, seed), random_decisions(seed), random_decisions(seed + 100))


@pytest.mark.parametrize("players", [1, 2])
def test_a_random_and_a_greedy_player_on_one_deal_see_the_same_setup(players):
    game = load_game("caverna", players=players)
    assert_same_setup_seen(game, new_deal(game, 5), random_decisions(5), agent_decisions("greedy", game, 5))


@pytest.mark.slow
@pytest.mark.parametrize("players", CROSS_PLAY_COUNTS)
def test_different_agents_on_many_deals_see_the_same_setup(players):
    game = load_game("caverna", players=players)
    for seed in range(4):
        deal = new_deal(game, 1000 + seed)
        assert_same_setup_seen(game, deal, agent_decisions("caverna_heuristic", game, seed),
                               agent_decisions("greedy", game, seed))
        assert_same_setup_seen(game, deal, random_decisions(seed), random_decisions(seed + 50))


# ------------------------------------------------------------------------------------------------------
# What a deal holds

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_chance_node_draws_a_legal_outcome_and_every_item_once(players):
    game = load_game("caverna", players=players)
    for seed in range(3):
        deal = new_deal(game, seed)
        state = game.new_initial_state()
        decide = random_decisions(seed)
        drawn = []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcome = deal.outcome(state)
                assert outcome in [o for o, _ in state.chance_outcomes()]
                drawn.append(state.chance_component())
                state.apply_action(outcome)
            else:
                state.apply_action(decide(state))
        assert sorted(drawn) == sorted((name, k) for name, items in deal.components.items()
                                       for k in range(len(items)))


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_each_component_is_an_arrangement_of_the_setup_pieces(players):
    game = load_game("caverna", players=players)
    for seed in range(20):
        deal = new_deal(game, seed)
        if players == 1:
            assert deal.components == {}, "solo: one player, fixed round cards, no harvest markers"
            continue
        assert list(deal.components) == COMPONENTS
        (start,) = deal.components["start_player"]
        assert 0 <= start < players
        for stage in STAGE_CARDS:
            cards = [card_id(o) for o in deal.components[f"stage_{stage}_cards"]]
            assert len(cards) == len(set(cards)) and set(cards) == stage_cards(players, stage)
        markers = [MARKERS[m] for m in deal.components["harvest_markers"]]
        green = 3 if players == 2 else 4        # 2 players: one green marker is removed
        assert sorted(markers) == ["green"] * green + ["red"] * 3


@pytest.mark.parametrize("players", [2, 3, 7])
def test_every_arrangement_is_dealt(players):
    game = load_game("caverna", players=players)
    deals = [new_deal(game, seed) for seed in range(300)]
    assert {d.components["start_player"][0] for d in deals} == set(range(players))
    for stage in STAGE_CARDS:
        orders = {d.components[f"stage_{stage}_cards"] for d in deals}
        assert len(orders) == {2: 2, 3: 6}[len(stage_cards(players, stage))]
    assert {d.components["harvest_markers"].index(1) for d in deals} >= {0, 1, 2, 3}


def test_same_seed_same_deal_and_different_seeds_differ():
    for players in PLAYER_COUNTS:
        game = load_game("caverna", players=players)
        assert new_deal(game, 17) == new_deal(game, 17)
        if players > 1:
            assert len({new_deal(game, seed).components["stage_1_cards"] for seed in range(10)}) > 1
            assert new_deal(game, 1).components != new_deal(game, 2).components


def test_rule_options_do_not_change_the_deal():
    """No option changes what is shuffled at setup, so none changes the deal."""
    for players in (2, 3, 6):
        plain = new_deal(load_game("caverna", players=players), 9)
        varied = new_deal(load_game("caverna", players=players, logging_accumulation="A", simple_dwelling_vp=2,
                                    small_scale_drift_mining_counts="5_to_7"), 9)
        assert varied.components == plain.components


@pytest.mark.parametrize("players", [1, 2, 5])
def test_deal_json_round_trip(players):
    deal = new_deal(load_game("caverna", players=players), 123456789)
    assert Deal.from_json(deal.to_json()) == deal


def test_describe_names_the_seat_the_cards_in_order_and_the_markers():
    game = load_game("caverna", players=3)
    deal = new_deal(game, 8)
    text = describe(game, deal)
    assert f"seat {deal.components['start_player'][0]}" in text
    for stage in STAGE_CARDS:
        assert ", ".join(card_id(o) for o in deal.components[f"stage_{stage}_cards"]) in text
    assert ", ".join(MARKERS[m] for m in deal.components["harvest_markers"]) in text
    assert "Blacksmithing, Sheep farming, Ore mine construction" in text and "rounds 6, 7, 8, 9, 10, 11, 12" in text
    two = load_game("caverna", players=2)
    assert "rounds 6, 7, 8, 10, 11, 12" in describe(two, new_deal(two, 8))


# ------------------------------------------------------------------------------------------------------
# Seeds, chance nodes and records

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_dealt_game_replays_from_its_history_without_the_seed(players):
    game = load_game("caverna", players=players)
    end, _ = play_dealt(game, new_deal(game, 21), random_decisions(21))
    replay = game.new_initial_state()
    for action in end.history():
        replay.apply_action(action)
    assert replay.is_terminal() and replay.scores() == end.scores()


@pytest.mark.parametrize("players", [1, 2, 4])
def test_a_seeded_start_is_the_deals_setup(players):
    game = load_game("caverna", players=players)
    state = game.new_initial_state(seed=31)
    assert state.current_player() != CHANCE
    expected = laid_out(players, new_deal(game, 31))
    assert state.current_player() == expected["first player"] and state.to_dict()["cards"] == [expected["cards"][1]]


def test_the_drawn_item_is_named_by_the_round():
    """2 players: round 10's marker is the fourth of the marker rounds (round 9 has none), round 10's card the
    first of stage 4, round 7's the first of stage 3."""
    game = load_game("caverna", players=2)
    deal = new_deal(game, 2)
    state = game.new_initial_state()
    decide = random_decisions(2)
    seen = {}
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            seen.setdefault(state.round_no, []).append(state.chance_component())
            state.apply_action(deal.outcome(state))
        else:
            state.apply_action(decide(state))
    assert seen[1] == [("start_player", 0), ("stage_1_cards", 0)]
    assert 4 not in seen, "round 4: Wish for children lies fixed and carries no marker"
    assert seen[7] == [("stage_3_cards", 0), ("harvest_markers", 1)]
    assert seen[10] == [("stage_4_cards", 0), ("harvest_markers", 3)]
    with pytest.raises(DealError, match="not a chance node"):
        state.chance_component()
