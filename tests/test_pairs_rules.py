"""The Cave (Pairs deck): the rules file's worked examples, scoring, refills, the match, parameters, records.

Positions are reached the way a game reaches them: the deal is a sequence of chance outcomes (rank ids), so
a test deals exactly the cards it needs. Every rules test runs on both engines.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cavekit.core import CHANCE, TERMINAL, ConfigError, CorruptRecordError, IllegalActionError, load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.pairs.compiled import CompiledState
from cavekit.core.pairs.reference import ReferenceState
from cavekit.core.pairs.rules import capture_target, load_rules_data, round_points, rules

# The shared rules folder sits beside the checkout (/work/main -> /work/shared) or, for a worktree under
# /work/wt/<name>, one level further up; the first that exists is compared.
SHARED = next((folder / "shared" / "rules" / "the-cave-pairs.json" for folder in Path(__file__).resolve().parents[2:4]
               if (folder / "shared" / "rules" / "the-cave-pairs.json").exists()),
              Path(__file__).resolve().parents[2] / "shared" / "rules" / "the-cave-pairs.json")
ENGINES = ("reference", "compiled")


def deal(game, hands: list[list[int]], cave: list[int], burn: list[int] = ()):
    """A state after dealing these ranks (1-10): burned cards, then each seat's hand, then the Cave.

    The game must have a fixed `first_dealer`; cards go one at a time clockwise from the dealer's left,
    so each hand is listed in the order its cards arrive.
    """
    state = game.new_initial_state()
    n = game.num_players
    dealer = game.config.first_dealer
    order = list(burn)
    for i in range(game.config.hand_size):
        for k in range(n):
            order.append(hands[(dealer + 1 + k) % n][i])
    order += list(cave)
    for rank in order:
        assert state.current_player() == CHANCE
        state.apply_action(rank - 1)
    return state


def counts(ranks) -> list[int]:
    c = [0] * 10
    for r in ranks:
        c[r - 1] += 1
    return c


def random_play(state, rng: np.random.Generator) -> None:
    """Play `state` to the end with random moves and chance outcomes by their probabilities."""
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


# ----------------------------------------------------------------------------------------------------
# The data

@pytest.mark.skipif(not SHARED.exists(), reason="the shared rules reference is not beside this checkout")
def test_packaged_rules_data_matches_the_shared_reference():
    assert load_rules_data() == json.loads(SHARED.read_text(encoding="utf-8")), \
        "core/pairs/data/the-cave-pairs.json differs from shared/rules/the-cave-pairs.json: copy it in again"


def test_the_deck_is_triangular_with_55_cards():
    r = rules()
    assert r.copies == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10) and r.total == 55
    assert r.hand_size == {2: 7, 3: 6, 4: 5, 5: 5, 6: 4} and r.cave_size == 5


# ----------------------------------------------------------------------------------------------------
# Capture

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("example", rules().examples, ids=lambda e: f"cave{''.join(map(str, e.cave))}-play{e.play}")
def test_worked_capture_examples_of_the_rules_file(engine, example):
    game = load_game("pairs", players=2, hand_size=1, first_dealer=1, engine=engine)
    opponent_card = next(r for r in (2, 3, 4) if counts(example.cave)[r - 1] + (example.play == r) < r)
    state = deal(game, [[example.play], [opponent_card]], list(example.cave))
    assert state.current_player() == 0
    state.apply_action(state.string_to_action(f"play {example.play}"))
    d = state.to_dict()
    assert d["captured"][0] == counts(example.captured)
    assert d["cave"] == counts(example.cave_after)
    assert d["refills_pending"] == example.refill
    assert state.current_player() == (CHANCE if example.refill else 1)
    for _ in range(example.refill):
        state.apply_action(state.chance_outcomes()[0][0])
    assert sum(state.to_dict()["cave"]) == 5 and state.current_player() == 1


def test_capture_target_closest_lower_rank_else_highest():
    cave = counts([4, 7, 7, 8, 9])
    assert capture_target(cave, 8 - 1) == 7 - 1        # both 7s
    assert capture_target(cave, 4 - 1) == 9 - 1        # nothing below 4: the highest rank
    assert capture_target(cave, 1 - 1) == 9 - 1
    assert capture_target(cave, 10 - 1) == 9 - 1       # 9 is the closest lower rank
    assert capture_target([0] * 10, 5) == -1


# ----------------------------------------------------------------------------------------------------
# Scoring

def test_scoring_example_of_the_rules_file_ties_score_in_full():
    example = rules().scoring_example
    names = sorted(example["captured"])
    piles = [[example["captured"][name].get(str(rank), 0) for rank in range(1, 11)] for name in names]
    assert round_points(piles) == [example["points"][name] for name in names]


@pytest.mark.parametrize("engine", ENGINES)
def test_round_points_in_the_engines_match_the_scoring_example(engine):
    example = rules().scoring_example
    game = load_game("pairs", players=3, engine=engine)
    cls = CompiledState if engine == "compiled" else ReferenceState
    state = game.new_initial_state(seed=1)
    d = state.to_dict()
    d["captured"] = [[example["captured"][name].get(str(rank), 0) for rank in range(1, 11)] for name in "ABC"]
    args = (game, d, state.history(), state.history_kinds())
    assert cls.from_dict(*args).round_points() == [5, 5, 3]


def test_a_rank_nobody_captured_scores_nothing_and_a_lone_leader_scores_its_count():
    assert round_points([[0] * 10, [0] * 10]) == [0, 0]
    assert round_points([counts([10, 10, 10, 9]), counts([10, 9, 9])]) == [3, 2]


# ----------------------------------------------------------------------------------------------------
# Setup, refills and the end of a round

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players,hand", [(2, 7), (3, 6), (4, 5), (5, 5), (6, 4)])
def test_hand_sizes_per_player_count_and_the_deck_left(engine, players, hand):
    game = load_game("pairs", players=players, engine=engine)
    assert game.config.hand_size == hand
    state = game.new_initial_state(seed=players)
    d = state.to_dict()
    assert [sum(h) for h in d["hands"]] == [hand] * players
    assert sum(d["cave"]) == 5
    assert sum(d["deck"]) == 55 - players * hand - 5
    assert state.current_player() == (state.dealer_seat() + 1) % players


@pytest.mark.parametrize("engine", ENGINES)
def test_refill_draws_one_card_per_chance_node_with_probability_copies_over_cards_left(engine):
    game = load_game("pairs", players=2, first_dealer=0, engine=engine)
    state = deal(game, [[2, 3, 4, 5, 6, 7, 8], [2, 3, 4, 5, 6, 7, 8]], [10, 10, 10, 9, 9])
    assert state.current_player() == 1
    state.apply_action(state.string_to_action("play 2"))     # nothing below 2: takes all three 10s
    assert state.to_dict()["refills_pending"] == 2
    outcomes = dict(state.chance_outcomes())
    deck = state.to_dict()["deck"]
    assert sum(deck) == 55 - 14 - 5 == 36
    assert outcomes == {rank: deck[rank] / 36 for rank in range(10) if deck[rank]}
    assert abs(sum(outcomes.values()) - 1) < 1e-12
    assert state.action_to_string(9) == "refill 10"
    state.apply_action(9)
    state.apply_action(0)
    d = state.to_dict()
    assert d["cave"] == counts([9, 9, 2, 10, 1]) and d["refills_pending"] == 0
    assert state.current_player() == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_deck_means_no_refill_and_play_goes_on_with_a_smaller_cave(engine):
    # 5 hands of 10 and a Cave of 5 use all 55 cards: the deck is empty from the start.
    game = load_game("pairs", players=5, hand_size=10, engine=engine)
    rng = np.random.default_rng(3)
    state = game.new_initial_state(seed=3)
    assert state.to_dict()["deck"] == [0] * 10
    cave_sizes = []
    while state.to_dict()["round"] == 0:
        assert state.current_player() >= 0, "no refill chance node with an empty deck"
        assert sum(state.to_dict()["cave"]) >= 1, "the Cave is never empty when a card is played"
        cave_sizes.append(sum(state.to_dict()["cave"]))
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    assert len(cave_sizes) == 50 and min(cave_sizes) < 5
    assert len(state.to_dict()["round_scores"]) == 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players,options", [(2, {}), (5, {"hand_size": 10}), (2, {"hand_size": 20}),
                                             (6, {"hand_size": 8})])
def test_a_capture_of_k_draws_k_minus_1_while_the_deck_lasts_then_the_cave_shrinks(engine, players, options):
    """Section 4 (issue 19): while the deck lasts, a capture of k cards from a Cave of 5 draws k - 1 cards;
    once the deck is empty nothing is drawn and the Cave ends the turn k - 1 cards smaller."""
    game = load_game("pairs", players=players, rounds=1, engine=engine, **options)
    full = shrunk = 0
    for seed in range(4):
        rng = np.random.default_rng([players, seed, 19])
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
                continue
            before = state.to_dict()
            cave, deck = sum(before["cave"]), sum(before["deck"])
            legal = state.legal_actions()
            rank = legal[rng.integers(len(legal))]
            k = before["cave"][capture_target(before["cave"], rank)]
            state.apply_action(rank)
            if state.is_terminal():
                break
            after = state.to_dict()
            assert sum(after["cave"]) == cave - k + 1, "the captured cards leave, the played card joins"
            if deck == 0:
                assert after["refills_pending"] == 0 and state.current_player() >= 0, "an empty deck: no refill"
                shrunk += 1
            else:
                assert after["refills_pending"] == min(game.config.cave_size - (cave - k + 1), deck)
                if cave == 5 and deck >= k - 1:
                    assert after["refills_pending"] == k - 1
                    full += 1
            while state.current_player() == CHANCE:         # the refills, one card each
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            assert sum(state.to_dict()["cave"]) == min(game.config.cave_size, cave - k + 1 + deck)
    if options.get("hand_size", 0) >= 8:
        assert shrunk > 0, "the deck ran out in these games"
    if players == 2 and not options:
        assert full > 0


@pytest.mark.parametrize("engine", ENGINES)
def test_the_deck_running_out_mid_round_stops_refills(engine):
    game = load_game("pairs", players=2, hand_size=20, engine=engine)   # deck of 10
    emptied = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(seed=seed)
        while state.to_dict()["round"] == 0:
            d = state.to_dict()
            if sum(d["deck"]) == 0 and state.current_player() >= 0:
                emptied += 1
                assert d["refills_pending"] == 0
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
    assert emptied > 0


@pytest.mark.parametrize("engine", ENGINES)
def test_the_round_ends_when_every_hand_is_empty_without_a_last_refill(engine):
    game = load_game("pairs", players=2, hand_size=1, first_dealer=0, rounds=1, engine=engine)
    state = deal(game, [[5], [9]], [1, 2, 3, 4, 6])
    state.apply_action(8)                     # p1 plays 9: takes the 6; the Cave has 5 cards again
    assert state.current_player() == 0
    state.apply_action(4)                     # p0 plays 5: takes the 4; the round is over
    assert state.is_terminal() and state.current_player() == TERMINAL
    d = state.to_dict()
    assert d["round_scores"] == [[1, 1]] and d["totals"] == [1, 1]
    assert sum(d["cave"]) == 5, "nothing is drawn after the round's last card"


# ----------------------------------------------------------------------------------------------------
# The match

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [2, 3, 6])
def test_one_round_per_player_the_deal_passing_left_and_match_totals(engine, players):
    game = load_game("pairs", players=players, engine=engine)
    rng = np.random.default_rng(players)
    state = game.new_initial_state()
    assert state.current_player() == CHANCE and state.action_to_string(0) == "p0 deals first"
    state.apply_action(1)
    starters, dealers = [], []
    rounds_seen = -1
    while not state.is_terminal():
        d = state.to_dict()
        if state.current_player() >= 0 and d["round"] != rounds_seen:
            rounds_seen = d["round"]
            dealers.append(state.dealer_seat())
            starters.append(state.current_player())
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    assert dealers == [(1 + r) % players for r in range(players)]
    assert starters == [(2 + r) % players for r in range(players)]
    d = state.to_dict()
    assert len(d["round_scores"]) == players
    assert state.scores() == d["totals"] == [sum(s[p] for s in d["round_scores"]) for p in range(players)]
    assert sum(state.returns()) == pytest.approx(0)


@pytest.mark.parametrize("engine", ENGINES)
def test_turns_go_left_and_everyone_plays_the_same_number_of_cards(engine):
    game = load_game("pairs", players=4, first_dealer=2, rounds=1, engine=engine)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(seed=0)
    order = []
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            order.append(state.current_player())
            state.apply_action(state.legal_actions()[0])
    assert order == [3, 0, 1, 2] * 5


def _finished(engine: str, players: int, totals: list[int], final: list[int], **params):
    game = load_game("pairs", players=players, rounds=1, engine=engine, **params)
    state = game.new_initial_state(seed=0)
    d = state.to_dict()
    d.update(round=1, totals=totals, round_scores=[final])
    cls = CompiledState if engine == "compiled" else ReferenceState
    return cls.from_dict(game, d, state.history(), state.history_kinds())


@pytest.mark.parametrize("engine", ENGINES)
def test_returns_unique_winner_co_winners_and_everyone_tied(engine):
    assert _finished(engine, 2, [9, 7], [9, 7]).returns() == [1.0, -1.0]
    assert _finished(engine, 2, [8, 8], [8, 8]).returns() == [0.0, 0.0]
    assert _finished(engine, 3, [5, 9, 2], [5, 9, 2]).returns() == [-0.5, 1.0, -0.5]
    state = _finished(engine, 3, [9, 9, 2], [9, 9, 2])
    assert state.returns() == [0.25, 0.25, -0.5] and state.winners() == [0, 1]
    assert _finished(engine, 4, [3, 3, 3, 3], [3, 3, 3, 3]).returns() == [0.0] * 4
    if engine == "compiled":
        assert state.c_returns() == state.returns()


@pytest.mark.parametrize("engine", ENGINES)
def test_tie_break_final_round_breaks_a_tie_by_the_last_rounds_points(engine):
    shared = _finished(engine, 3, [9, 9, 2], [4, 6, 2])
    broken = _finished(engine, 3, [9, 9, 2], [4, 6, 2], tie_break="final_round")
    assert shared.returns() == [0.25, 0.25, -0.5]
    assert broken.winners() == [1] and broken.returns() == [-0.5, 1.0, -0.5]
    still_tied = _finished(engine, 2, [9, 9], [5, 5], tie_break="final_round")
    assert still_tied.returns() == [0.0, 0.0]
    if engine == "compiled":
        assert broken.c_returns() == broken.returns() and still_tied.c_returns() == still_tied.returns()


# ----------------------------------------------------------------------------------------------------
# Parameters: every open question of the rules file

@pytest.mark.parametrize("engine", ENGINES)
def test_burn_cards_are_dealt_face_down_out_of_play_first(engine):
    game = load_game("pairs", players=2, burn_cards=5, first_dealer=0, engine=engine)
    state = game.new_initial_state()
    kinds = []
    while state.current_player() == CHANCE:
        kinds.append(state.action_to_string(state.chance_outcomes()[-1][0]).split()[0])
        state.apply_action(state.chance_outcomes()[-1][0])
    assert kinds[:5] == ["burn"] * 5 and kinds[5:19] == ["deal"] * 14 and kinds[19:] == ["cave"] * 5
    d = state.to_dict()
    assert sum(d["burned"]) == 5 and sum(d["deck"]) == 55 - 5 - 14 - 5
    assert "burn ?" in state.information_state_string(0) and "burn 10" not in state.information_state_string(0)


@pytest.mark.parametrize("engine", ENGINES)
def test_cave_size_sets_the_deal_and_the_refill_level(engine):
    game = load_game("pairs", players=2, cave_size=3, first_dealer=0, engine=engine)
    state = deal(game, [[2, 3, 4, 5, 6, 7, 8], [2, 3, 4, 5, 6, 7, 8]], [10, 10, 9])
    state.apply_action(1)                    # p1 plays 2: takes both 10s; Cave 9 2, refill to 3
    assert state.to_dict()["refills_pending"] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_size_and_rounds_parameters(engine):
    game = load_game("pairs", players=3, hand_size=3, rounds=2, engine=engine)
    state = game.new_initial_state(seed=4)
    assert [sum(h) for h in state.to_dict()["hands"]] == [3, 3, 3]
    random_play(state, np.random.default_rng(4))
    assert len(state.to_dict()["round_scores"]) == 2
    table = load_game("pairs", players=3, hand_size={2: 7, 3: 4}, engine=engine)
    assert table.config.hand_size == 4 and table.parameters()["hand_size"] == 4


@pytest.mark.parametrize("engine", ENGINES)
def test_score_leftover_gives_the_cave_to_the_last_player(engine):
    outcomes = {}
    for leftover in (False, True):
        game = load_game("pairs", players=2, hand_size=1, first_dealer=0, rounds=1, score_leftover=leftover,
                         engine=engine)
        state = deal(game, [[5], [9]], [1, 2, 3, 4, 6])
        state.apply_action(8)                 # p1 plays 9, takes the 6
        state.apply_action(4)                 # p0 plays 5, takes the 4, and is last
        outcomes[leftover] = state.to_dict()
    assert outcomes[False]["captured"][0] == counts([4]) and outcomes[False]["totals"] == [1, 1]
    # With leftovers: the Cave (1 2 3 5 9) joins p0's pile; p0 wins every rank but 6.
    assert outcomes[True]["captured"][0] == counts([1, 2, 3, 4, 5, 9]) and sum(outcomes[True]["cave"]) == 0
    assert outcomes[True]["totals"] == [6, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_first_dealer_fixed_or_random(engine):
    fixed = load_game("pairs", players=4, first_dealer=3, engine=engine).new_initial_state()
    assert fixed.current_player() == CHANCE and fixed.action_to_string(9).startswith("deal 10 to p0")
    random_first = load_game("pairs", players=4, engine=engine).new_initial_state()
    assert random_first.chance_outcomes() == [(seat, 0.25) for seat in range(4)]


@pytest.mark.parametrize("engine", ENGINES)
def test_open_hands_show_every_hand_in_the_information_state(engine):
    game = load_game("pairs", players=3, hand_visibility="open", engine=engine)
    assert not game.hidden_information and load_game("pairs").hidden_information
    state = game.new_initial_state(seed=2)
    view = state.information_state_string(0)
    assert "deal p1 ?" not in view and "hands: p0" in view
    assert state.observation(0)["hands"] == state.to_dict()["hands"]


def test_defaults_come_from_the_rules_file():
    p = load_game("pairs").parameters()
    assert p == {"players": 2, "tie_break": "shared", "burn_cards": 0, "cave_size": 5, "hand_size": 7,
                 "rounds": "players", "score_leftover": False, "first_dealer": "random", "hand_visibility": "hidden"}


@pytest.mark.parametrize("name,value,allowed", [
    ("tie_break", "coin", "'shared', 'final_round'"), ("burn_cards", 11, "from 0 to 10"),
    ("cave_size", 0, "from 1 to 10"), ("hand_size", 0, "from 1 to 27"), ("rounds", "many", "'players' or"),
    ("score_leftover", "yes", "False, True"), ("first_dealer", 2, "'random' or an integer from 0 to 1"),
    ("hand_visibility", "peek", "'hidden', 'open'"), ("burn_cards", True, "from 0 to 10")])
def test_bad_parameter_values_are_refused_with_the_allowed_values(name, value, allowed):
    with pytest.raises(ConfigError) as info:
        load_game("pairs", **{name: value})
    assert name in str(info.value) and allowed in str(info.value)


def test_unknown_parameters_player_counts_engines_and_oversized_deals_are_refused():
    with pytest.raises(ConfigError, match="unknown The Cave .* colour.*known parameters: players, tie_break"):
        load_game("pairs", colour="red")
    with pytest.raises(ConfigError, match="2 to 6 players, not 7"):
        load_game("pairs", players=7)
    with pytest.raises(ConfigError, match="available engines: compiled, reference"):
        load_game("pairs", engine="gpu")
    with pytest.raises(ConfigError, match="6 hands of 9 .* = 59 cards; allowed: at most 55"):
        load_game("pairs", players=6, hand_size=9)


# ----------------------------------------------------------------------------------------------------
# Actions, notation and records

@pytest.mark.parametrize("engine", ENGINES)
def test_illegal_plays_are_refused_with_a_reason_and_change_nothing(engine):
    game = load_game("pairs", players=2, first_dealer=0, engine=engine)
    state = deal(game, [[2, 3, 4, 5, 6, 7, 8], [2, 3, 4, 5, 6, 7, 8]], [10, 10, 10, 9, 9])
    before = state.serialize()
    for action, reason in ((9, "you hold no 10; your hand holds ranks [2, 3, 4, 5, 6, 7, 8]"),
                           (10, "actions are numbered 0 to 9"), ("x", "an action is an int")):
        with pytest.raises(IllegalActionError, match=reason.replace("[", r"\[").replace("]", r"\]")):
            state.apply_action(action)
        assert state.serialize() == before
    fresh = game.new_initial_state()
    fresh.apply_action(0)                     # the deck's only 1 is dealt: a second one cannot be
    with pytest.raises(IllegalActionError, match=r"illegal action 0 for chance: this chance node's outcomes are \[1, "):
        fresh.apply_action(0)
    assert state.legal_actions() == [1, 2, 3, 4, 5, 6, 7]
    assert state.legal_actions_mask() == [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    assert state.action_to_string(np.int64(3)) == "play 4" and state.string_to_action(" Play  4 ") == 3


def test_notation_refuses_unknown_text_and_lists_the_legal_moves():
    state = load_game("pairs", first_dealer=0).new_initial_state(seed=1)
    with pytest.raises(IllegalActionError, match="no action has that notation; legal now: play"):
        state.string_to_action("capture everything")


@pytest.mark.parametrize("engine", ENGINES)
def test_records_round_trip_and_corrupt_records_are_refused_where_they_break(engine):
    game = load_game("pairs", players=3, engine=engine)
    state = game.new_initial_state(seed=5)
    random_play(state, np.random.default_rng(5))
    text = state.serialize()
    assert game.deserialize_state(text) == state
    record = json.loads(text)
    assert record["format"] == "cavekit-pairs" and record["version"] == 1
    with pytest.raises(CorruptRecordError, match="line 1 column 1"):
        game.deserialize_state("nope")
    for change, location in ((lambda r: r.update(format="cvc"), "format"), (lambda r: r.update(version=9), "version"),
                             (lambda r: r.pop("history"), "history"),
                             (lambda r: r["params"].update(cave_size=4), "params"),
                             (lambda r: r["history"].__setitem__(40, 11), "history[40]"),
                             (lambda r: r["state"]["totals"].__setitem__(0, 99), "state.totals")):
        broken = json.loads(text)
        change(broken)
        with pytest.raises(CorruptRecordError) as info:
            game.deserialize_state(json.dumps(broken))
        assert info.value.location == location
