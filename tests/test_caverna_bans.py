"""The furnishing-ban analysis variant (`banned_furnishings_pK`): a seat barred from a tile is never offered it.

Not a rule of the game: the balance study plays the same deal with and without a ban to measure what access to
a furnishing tile is worth (`cavekit.analysis.caverna.balance`). So the variant must bar exactly the named tiles
for exactly the named seat, leave the deal alone, refuse bad names clearly, stay out of real games' records,
and play identically in both engines.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import ConfigError, IllegalActionError, sample_chance_outcome
from cavekit.core.caverna.actions import FURNISH, action_table
from cavekit.core.caverna.rules import rules

from test_caverna_compiled import assert_same_game, busy_policy

TABLE = action_table()
EVERY_TILE = {f.id for f in rules().furnishings}


def furnishings_offered(game, seeds, policy_seed: int = 0) -> dict[int, Counter]:
    """Per seat: how often each tile was among the legal furnish actions, over random games on `seeds`."""
    offered: dict[int, Counter] = {seat: Counter() for seat in range(game.num_players)}
    for seed in seeds:
        rng = np.random.default_rng([policy_seed, seed])
        state = game.new_initial_state(seed)
        policy = busy_policy(EVERY_TILE, Counter())
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
                continue
            legal = state.legal_actions()
            for a in legal:
                if TABLE.specs[a].kind == FURNISH:
                    offered[state.current_player()][TABLE.specs[a].fid] += 1
            state.apply_action(policy(state, legal, rng))
    return offered


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_barred_seat_is_never_offered_the_tile_and_the_others_are(engine):
    banned = ("dwelling", "guest_room", "stubble_room")
    game = load_game("caverna", players=2, engine=engine, banned_furnishings_p1=",".join(banned))
    offered = furnishings_offered(game, range(3))
    assert not any(offered[1][fid] for fid in banned)
    assert offered[0]["dwelling"] > 0 and offered[1]["simple_dwelling_4w2s"] + offered[1]["couple_dwelling"] > 0


def test_a_banned_furnish_action_is_refused_with_the_reason_and_changes_nothing():
    game = load_game("caverna", players=1, engine="reference", banned_furnishings_p0=["dwelling"])
    free = load_game("caverna", players=1, engine="reference")
    rng = np.random.default_rng(5)
    state, twin = game.new_initial_state(0), free.new_initial_state(0)
    # Play the same moves until the unbarred twin could furnish a Dwelling.
    while not any(TABLE.specs[a].kind == FURNISH and TABLE.specs[a].fid == "dwelling" for a in twin.legal_actions()):
        legal = state.legal_actions()
        assert twin.legal_actions() == [a for a in twin.legal_actions() if a in legal or
                                        TABLE.specs[a].kind == FURNISH]
        action = legal[rng.integers(len(legal))]
        state.apply_action(action)
        twin.apply_action(action)
        assert not state.is_terminal()
    dwelling = next(a for a in twin.legal_actions() if TABLE.specs[a].kind == FURNISH
                    and TABLE.specs[a].fid == "dwelling")
    before = state.serialize()
    with pytest.raises(IllegalActionError, match=r"dwelling is banned for p0 in this game \(banned_furnishings_p0\)"):
        state.apply_action(dwelling)
    assert state.serialize() == before


def test_bad_ban_options_are_refused_with_what_is_allowed():
    with pytest.raises(ConfigError, match=r"unknown furnishing id\(s\) 'guestroom'; furnishing ids: dwelling, "):
        load_game("caverna", players=2, banned_furnishings_p0="guestroom")
    with pytest.raises(ConfigError, match="banned_furnishings_p2 names furnishings for seat 2, but a 2-player game "
                                          "has seats 0 to 1"):
        load_game("caverna", players=2, banned_furnishings_p2="dwelling")
    with pytest.raises(ConfigError, match="must be a list of furnishing ids"):
        load_game("caverna", players=2, banned_furnishings_p0=3)


def test_a_ban_leaves_the_deal_and_real_games_records_alone():
    plain = load_game("caverna", players=3)
    barred = load_game("caverna", players=3, banned_furnishings_p2=["guest_room"])
    assert "banned_furnishings_p0" not in plain.parameters()
    assert barred.parameters()["banned_furnishings_p2"] == ["guest_room"]
    for seed in range(5):
        assert barred.new_initial_state(seed).history() == plain.new_initial_state(seed).history()


def test_engines_agree_with_furnishings_banned():
    """Both engines bar the same tiles: the same legal actions, positions and scores at every step."""
    bans = {"banned_furnishings_p0": ["dwelling", "weaving_parlor", "stubble_room", "simple_dwelling_4w2s"],
            "banned_furnishings_p1": ["guest_room", "couple_dwelling", "carpenter", "stone_carver"]}
    for players in (2, 3):
        ref_game = load_game("caverna", players=players, engine="reference", **bans)
        fast_game = load_game("caverna", players=players, engine="compiled", **bans)
        for seed in range(3):
            rng = np.random.default_rng([players, seed, 21])
            coverage: Counter = Counter()
            assert_same_game(ref_game.new_initial_state(seed), fast_game.new_initial_state(seed), rng, coverage,
                             policy=busy_policy(EVERY_TILE, coverage))
