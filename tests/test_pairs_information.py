"""The Cave's hidden information: cards are conserved, views hide what they must, resampling is consistent
with a player's information and uniform over the deals consistent with it.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from cavekit.core import CHANCE, load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.pairs.state import KIND_BURN, KIND_DEAL, KIND_STRIDE
from cavekit.core.pairs.rules import rules

COPIES = list(rules().copies)


def walk(game, seed: int):
    """Yield every state of a seeded random game (live; clone to keep), the final one included."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while True:
        yield state
        if state.is_terminal():
            return
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


def assert_cards_conserved(state) -> None:
    d = state.to_dict()
    n = len(d["hands"])
    for rank in range(10):
        located = (sum(d["hands"][p][rank] + d["captured"][p][rank] for p in range(n))
                   + d["cave"][rank] + d["burned"][rank] + d["deck"][rank])
        assert located == COPIES[rank], f"rank {rank + 1}: {located} cards located, the deck has {COPIES[rank]}"
    assert sum(d["deck"]) + sum(d["burned"]) + sum(map(sum, d["hands"])) + sum(d["cave"]) \
        + sum(map(sum, d["captured"])) == 55


def chi_square_limit(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability about 0.001 (Wilson-Hilferty; z = 3.09)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi_square(observed: Counter, expected: dict, samples: int) -> tuple[float, int]:
    """Pearson's statistic over the categories of `expected` (probabilities); small ones are pooled."""
    big = {c: p for c, p in expected.items() if p * samples >= 5}
    pooled_p = 1 - sum(big.values())
    pooled_o = samples - sum(observed.get(c, 0) for c in big)
    stat = sum((observed.get(c, 0) - p * samples) ** 2 / (p * samples) for c, p in big.items())
    cells = len(big)
    if pooled_p * samples >= 5:
        stat += (pooled_o - pooled_p * samples) ** 2 / (pooled_p * samples)
        cells += 1
    return stat, cells - 1


# ----------------------------------------------------------------------------------------------------
# Conservation

@pytest.mark.parametrize("players,options", [(2, {}), (3, {"burn_cards": 4}), (4, {"score_leftover": True}),
                                             (5, {"hand_size": 10}), (6, {"cave_size": 7})])
def test_cards_are_conserved_at_every_step(players, options):
    for engine in ("compiled", "reference"):
        game = load_game("pairs", players=players, engine=engine, **options)
        for seed in range(25 if engine == "compiled" else 3):
            for state in walk(game, seed):
                assert_cards_conserved(state)
                d = state.to_dict()
                if state.current_player() >= 0:
                    played = [sum(p) for p in d["played"]]
                    assert [sum(h) + k for h, k in zip(d["hands"], played)] == [game.config.hand_size] * players


# ----------------------------------------------------------------------------------------------------
# What a player sees

def test_the_information_state_hides_other_hands_and_the_deck_but_shows_everything_public():
    game = load_game("pairs", players=3)
    state = None
    for state in walk(game, 4):
        if state.current_player() >= 0 and len(state.history()) > 40:
            break
    view = state.information_state_string(0)
    d = state.to_dict()
    assert "deal p1 ?" in view and "deal p2 ?" in view and "deal p0 " in view
    assert "plays" in view and "cave " in view
    own = " ".join(str(r + 1) for r in range(10) for _ in range(d["hands"][0][r]))
    assert f"your hand: {own}" in view
    observation = state.observation(0)
    assert "hands" not in observation and observation["hand"] == d["hands"][0]
    assert observation["deck_size"] == sum(d["deck"]) and observation["captured"] == d["captured"]
    # what player 0 cannot see: other hands, the deck; nothing else
    assert observation["unseen"] == [d["hands"][1][r] + d["hands"][2][r] + d["deck"][r] for r in range(10)]
    tensor = state.observation_tensor(1)
    assert len(tensor) == game.observation_tensor_size() and tensor[:10] == [float(x) for x in d["hands"][1]]
    with pytest.raises(ValueError, match="player 3 is not a seat"):
        state.information_state_string(3)


def test_players_with_different_hidden_cards_share_a_view_only_if_they_cannot_tell():
    game = load_game("pairs", players=2, first_dealer=0)
    base = [3, 4, 5, 6, 7, 8, 9]
    first = game.new_initial_state()
    second = game.new_initial_state()
    for i in range(7):     # p1 receives the same cards; p0's fourth card differs (6 or 10)
        for state, card in ((first, base[i]), (second, 10 if i == 3 else base[i])):
            state.apply_action(base[i] - 1)     # to p1
            state.apply_action(card - 1)        # to p0
    for state in (first, second):
        for card in (2, 2, 4, 9, 10):
            state.apply_action(card - 1)
    assert first.information_state_string(1) == second.information_state_string(1)
    assert first.information_state_string(0) != second.information_state_string(0)
    first.apply_action(3)
    second.apply_action(3)                      # p1 plays a 4 in both: p1 still cannot tell them apart
    assert first.information_state_string(1) == second.information_state_string(1)


# ----------------------------------------------------------------------------------------------------
# Resampling

def assert_consistent(original, sample, player: int) -> None:
    """`sample` is a full state `player` cannot tell from `original`, that agrees with everything seen."""
    assert sample.information_state_string(player) == original.information_state_string(player)
    assert sample.observation(player) == original.observation(player)
    assert sample.to_dict()["hands"][player] == original.to_dict()["hands"][player]
    assert sample.history_kinds() == original.history_kinds()
    for i, (a, b, code) in enumerate(zip(original.history(), sample.history(), original.history_kinds())):
        kind, who = divmod(code, KIND_STRIDE)
        hidden = kind == KIND_BURN or (kind == KIND_DEAL and who != player
                                       and original._game.config.hand_visibility == "hidden")
        if not hidden:
            assert a == b, f"history[{i}] was seen by player {player} and must not change"
    assert_cards_conserved(sample)
    assert sample.legal_actions() == original.legal_actions() or original.current_player() != player


@pytest.mark.parametrize("players,options", [(2, {}), (3, {"burn_cards": 3}), (4, {"hand_visibility": "open"}),
                                             (6, {"burn_cards": 1, "cave_size": 4})])
def test_resampled_states_are_consistent_with_the_players_information(players, options):
    for engine in ("compiled", "reference"):
        game = load_game("pairs", players=players, engine=engine, **options)
        rng = np.random.default_rng(players)
        differing = 0
        for seed in range(6 if engine == "compiled" else 1):
            for step, state in enumerate(walk(game, seed)):
                if step % 7:
                    continue
                for player in range(players):
                    sample = state.resample_from_infostate(player, rng)
                    assert_consistent(state, sample, player)
                    differing += sample.to_dict()["hands"] != state.to_dict()["hands"]
                    if not state.is_terminal() and step % 21 == 0:   # a resampled state plays on normally
                        follow = sample.clone()
                        for _ in walk_from(follow, rng):
                            pass
                        assert follow.is_terminal() and abs(sum(follow.returns())) < 1e-9
        if options.get("hand_visibility") == "open":
            assert differing == 0, "with open hands nothing in the hands is hidden"
        else:
            assert differing > 0, "the hidden hands are redrawn"


def walk_from(state, rng):
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        yield state


def late_position(game, seed: int, cards_left: int):
    """A state of the first round where the player to move's opponents hold `cards_left` cards each or fewer."""
    for state in walk(game, seed):
        d = state.to_dict()
        if state.current_player() >= 0 and all(sum(h) <= cards_left for p, h in enumerate(d["hands"])
                                               if p != state.current_player()):
            return state.clone()
    raise AssertionError("no such position")


def test_one_hidden_card_is_each_rank_with_probability_proportional_to_its_unseen_copies():
    game = load_game("pairs", players=2)
    state = late_position(game, seed=11, cards_left=1)
    me = state.current_player()
    unseen = state.observation(me)["unseen"]
    expected = {rank: unseen[rank] / sum(unseen) for rank in range(10) if unseen[rank]}
    rng = np.random.default_rng(5)
    samples = 6000
    observed = Counter()
    for _ in range(samples):
        hand = state.resample_from_infostate(me, rng).to_dict()["hands"][1 - me]
        observed[next(r for r in range(10) if hand[r])] += 1
    stat, df = chi_square(observed, expected, samples)
    assert stat < chi_square_limit(df), f"chi-square {stat:.1f} with {df} degrees of freedom"
    # The same test refuses a biased sampler: one drawing each unseen rank equally often.
    biased = Counter({rank: samples // len(expected) for rank in expected})
    assert chi_square(biased, expected, samples)[0] > 5 * chi_square_limit(df)


def test_a_hidden_pair_follows_the_hypergeometric_split_of_the_unseen_cards():
    game = load_game("pairs", players=3, burn_cards=1)
    state = late_position(game, seed=2, cards_left=2)
    me = state.current_player()
    other = next(p for p in range(3) if p != me and sum(state.to_dict()["hands"][p]) == 2)
    unseen = state.observation(me)["unseen"]
    total = sum(unseen)
    expected = {}
    for a in range(10):
        for b in range(a, 10):
            ways = unseen[a] * (unseen[a] - 1) if a == b else 2 * unseen[a] * unseen[b]
            if ways:
                expected[(a, b)] = ways / (total * (total - 1))
    rng = np.random.default_rng(8)
    samples = 8000
    observed = Counter()
    for _ in range(samples):
        hand = state.resample_from_infostate(me, rng).to_dict()["hands"][other]
        cards = [r for r in range(10) for _ in range(hand[r])]
        observed[tuple(cards)] += 1
    stat, df = chi_square(observed, expected, samples)
    assert df > 20 and stat < chi_square_limit(df), f"chi-square {stat:.1f} with {df} degrees of freedom"
    # Uniform over distinct rank pairs (instead of over physical cards) would be caught.
    biased = Counter({pair: samples / len(expected) for pair in expected})
    assert chi_square(biased, expected, samples)[0] > 3 * chi_square_limit(df)


@pytest.mark.parametrize("players,options", [(2, {}), (3, {}), (5, {"hand_size": 10}), (4, {"burn_cards": 2})])
def test_resampled_hands_hold_only_unseen_cards_keep_public_hand_sizes_and_never_use_the_true_split(players,
                                                                                                   options):
    """Section 8 (issue 19): opponents' hands and the deck are hidden, only their union (the unknown pool)
    is known. A resample (a) puts no card the player can see into another hand or the deck, (b) keeps every
    hand size (public; within a lap they differ by at most one) and the deck size, and (c) redistributes
    the whole pool over hidden hands and deck: a card the true state has in an opponent's hand lands in the
    deck in some resamples, and a card the true state has in the deck lands in a hand."""
    for engine in ("compiled", "reference"):
        game = load_game("pairs", players=players, engine=engine, **options)
        rng = np.random.default_rng([players, 19])
        moved_out = moved_in = 0
        for seed in range(3 if engine == "compiled" else 1):
            for step, state in enumerate(walk(game, seed)):
                if state.is_terminal() or state.current_player() < 0 or step % 5:
                    continue
                me = state.current_player()
                view = state.observation(me)
                d = state.to_dict()
                sizes = view["hand_sizes"]
                assert max(sizes) - min(sizes) <= 1, "hand sizes differ by at most one within a lap"
                others = [q for q in range(players) if q != me]
                for _ in range(4):
                    sample = state.resample_from_infostate(me, rng).to_dict()
                    pool = [sum(sample["hands"][q][r] for q in others) + sample["deck"][r] + sample["burned"][r]
                            for r in range(10)]
                    assert pool == view["unseen"], "hands, deck and burned cards hold exactly the unseen pool"
                    assert [sum(h) for h in sample["hands"]] == sizes and sum(sample["deck"]) == view["deck_size"]
                    assert sample["hands"][me] == d["hands"][me] and sample["cave"] == d["cave"]
                    assert sample["captured"] == d["captured"]
                    for r in range(10):
                        true_hands = sum(d["hands"][q][r] for q in others)
                        new_hands = sum(sample["hands"][q][r] for q in others)
                        moved_out += new_hands < true_hands and sample["deck"][r] > d["deck"][r]
                        moved_in += new_hands > true_hands and sample["deck"][r] < d["deck"][r]
        if sum(rules().copies) - players * game.config.hand_size - game.config.cave_size \
                - game.config.burn_cards > 0:        # a deck to split with (5 hands of 10 leave none)
            assert moved_out > 0 and moved_in > 0, "cards cross between hidden hands and the deck"


def test_the_resample_depends_only_on_the_players_information_not_on_the_true_split():
    """Issue 19: two deals that player 1 cannot tell apart, one where p0 holds a 10 and the deck a 6 and one
    where p0 holds the 6 and the deck the 10, give the same resample from the same seed, at every point of
    the round: the true split between the hidden hand and the deck never reaches the sample."""
    for engine in ("compiled", "reference"):
        game = load_game("pairs", players=2, first_dealer=0, engine=engine)
        base = [3, 4, 5, 6, 7, 8, 9]
        first, second = game.new_initial_state(), game.new_initial_state()
        for i in range(7):     # p1 receives the same cards; p0's fourth card differs (6 or 10)
            for state, card in ((first, base[i]), (second, 10 if i == 3 else base[i])):
                state.apply_action(base[i] - 1)     # to p1
                state.apply_action(card - 1)        # to p0
        for state in (first, second):
            for card in (2, 2, 4, 9, 10):
                state.apply_action(card - 1)
        assert first.to_dict()["deck"] != second.to_dict()["deck"]
        rng = np.random.default_rng(3)
        checked = 0
        while not first.is_terminal() and first.to_dict()["round"] == 0:
            if first.current_player() == 1:
                assert first.information_state_string(1) == second.information_state_string(1)
                for seed in range(5):
                    assert first.resample_from_infostate(1, seed).serialize() == \
                        second.resample_from_infostate(1, seed).serialize()
                checked += 1
            if first.current_player() == CHANCE:      # the same refill in both (a rank both decks hold)
                common = [a for a, _ in first.chance_outcomes() if a in dict(second.chance_outcomes())]
                action = common[rng.integers(len(common))]
            elif first.current_player() == 0:         # p0 plays a card both of its hands hold
                common = [a for a in first.legal_actions() if a in second.legal_actions()]
                if not common:                        # only the differing card is left
                    break
                action = common[rng.integers(len(common))]
            else:
                legal = first.legal_actions()
                action = legal[rng.integers(len(legal))]
            first.apply_action(action)
            second.apply_action(action)
        assert checked >= 6


def test_resampling_is_reproducible_from_its_seed_and_varies_between_seeds():
    game = load_game("pairs", players=4)
    state = game.new_initial_state(seed=3)
    a = state.resample_from_infostate(0, 17).serialize()
    assert a == state.resample_from_infostate(0, np.random.default_rng(17)).serialize()
    assert len({state.resample_from_infostate(0, s).serialize() for s in range(10)}) == 10
