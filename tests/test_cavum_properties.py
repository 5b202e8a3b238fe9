"""Cavum properties over seeded random games (2, 3 and 4 players): the game ends, a decision node always has
a legal action, stones/tiles/stations/veins/chips/orders are conserved, records round-trip, illegal actions
are refused with a clear message and leave the state unchanged, and the hidden-information views are sound."""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, CorruptRecordError, IllegalActionError, sample_chance_outcome
from cavekit.core.cavum.actions import NUM_PIECES, PIECE_STATION, PIECE_VEIN, action_table
from cavekit.core.cavum.reference import MAX_STACK, code_piece
from cavekit.core.cavum.rules import rules


def check_conservation(s) -> None:
    """Everything the rules count is where it should be: nothing appears or disappears."""
    s = s.view()
    r = rules()
    k = len(r.colours)
    for colour in range(k):
        on_scale = sum(s.scale[colour * 9:(colour + 1) * 9])
        on_veins = sum(st for c, st in zip(s.vein_colour, s.vein_stones) if c == colour)
        in_hands = sum(s.hands[p * k + colour] for p in range(s.n))
        assert on_scale + on_veins + in_hands == r.stones_per_colour, r.colours[colour]
    on_map = [0] * NUM_PIECES
    for cell in range(r.num_cells):
        for i in range(s.height[cell]):
            on_map[code_piece(s.stack[cell * MAX_STACK + i])] += 1
    on_map[PIECE_VEIN] = sum(1 for c in s.vein_colour if c >= 0)
    pending = [1 if s.pending == piece else 0 for piece in range(NUM_PIECES)]
    for piece in range(PIECE_STATION):
        held = sum(s.board[p * NUM_PIECES + piece] for p in range(s.n))
        total = s.supply[piece] + s.pool[piece] + held + on_map[piece] + pending[piece]
        expected = r.vein_supply if piece == PIECE_VEIN else \
            (r.dynamite_supply if piece % 2 else r.tunnel_supply)[piece // 2]
        assert total == expected, piece
    for p in range(s.n):
        placed = s.station.count(p) + s.city_station.count(p)
        own_pending = 1 if s.pending == PIECE_STATION and s.to_move == p else 0
        assert placed + s.pool_stations[p] + s.supply_stations[p] + s.board[p * NUM_PIECES + PIECE_STATION] \
            + own_pending == r.stations_per_player
    owned = sum(1 for o in s.owner if o != -1)
    assert sum(s.deck) + len(s.display) + owned == len(r.order_cards)
    limit = s._game.config.two_chip_supply_limit
    if limit >= 0:
        assert s.chip_supply + sum(s.chips) == limit
    assert all(h <= MAX_STACK for h in s.height)


def random_game(players: int, seed: int, record_every: int = 0, illegal_every: int = 0, **params):
    """Play one seeded random game, checking the properties along the way; returns the final state."""
    game = load_game("cavum", players=players, **params)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    steps = 0
    table = action_table()
    while not state.is_terminal():
        steps += 1
        assert steps <= game.max_game_length
        if state.current_player() == CHANCE:
            action = sample_chance_outcome(state.chance_outcomes(), rng.random())
        else:
            legal = state.legal_actions()
            assert legal, f"no legal action at a decision node:\n{state}"
            assert legal == sorted(set(legal)) and all(0 <= a < game.num_distinct_actions for a in legal)
            if illegal_every and steps % illegal_every == 0:
                bad = int(rng.integers(len(table)))
                if bad not in legal:
                    before, reason = state.serialize(), state.illegal_reason(bad)
                    assert reason and not reason.startswith("actions are numbered"), reason
                    with pytest.raises(IllegalActionError) as info:
                        state.apply_action(bad)
                    assert info.value.reason == reason       # refused for the rule illegal_reason names
                    assert f"player {state.current_player()}" in str(info.value)
                    assert table.specs[bad].text in str(info.value)
                    assert state.serialize() == before
            action = legal[int(rng.integers(len(legal)))]
        state.apply_action(action)
        check_conservation(state)
        if record_every and steps % record_every == 0:
            copy = game.deserialize_state(state.serialize())
            assert copy.serialize() == state.serialize()
            assert copy.legal_actions() == state.legal_actions()
    assert state.legal_actions() == []
    assert len(state.returns()) == players and abs(sum(state.returns())) < 1e-9
    assert max(state.returns()) > 0
    assert sum(sum(state.view().hand(p)) for p in range(players)) == 0, "the final sale sells every stone"
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_and_conserve(players):
    for seed in range(2):
        state = random_game(players, seed, record_every=37, illegal_every=5)
        assert state.view().phase == 2


def test_record_round_trip_at_every_step_of_one_game():
    game = load_game("cavum", players=2)
    state = game.new_initial_state(seed=11)
    rng = np.random.default_rng(11)
    while not state.is_terminal() and len(state.history()) < 90:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        copy = game.deserialize_state(state.serialize())
        assert copy == state and copy.history() == state.history()


def test_corrupt_records_are_refused_with_location():
    game = load_game("cavum", players=2)
    state = game.new_initial_state(seed=1)
    import json
    record = json.loads(state.serialize())
    record["history"][2] = 99999
    with pytest.raises(CorruptRecordError, match=r"history\[2\]"):
        game.deserialize_state(json.dumps(record))
    record = json.loads(state.serialize())
    record["state"]["scores_"] = [1, 2]
    with pytest.raises(CorruptRecordError, match=r"state.scores_"):
        game.deserialize_state(json.dumps(record))
    with pytest.raises(CorruptRecordError, match="params"):
        load_game("cavum", players=3).deserialize_state(state.serialize())
    with pytest.raises(CorruptRecordError, match="format"):
        game.deserialize_state('{"format": "x", "version": 1, "params": {}, "history": []}')


def test_notation_round_trips_for_every_legal_action():
    state = load_game("cavum", players=3).new_initial_state(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(120):
        if state.is_terminal():
            break
        for a in state.legal_actions():
            assert state.string_to_action(state.action_to_string(a)) == a
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))] if state.current_player() != CHANCE
                           else state.chance_outcomes()[0][0])


def mid_game_state(players: int, seed: int, phase: int = 1):
    game = load_game("cavum", players=players)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not (state.view().phase >= phase and state.view().stage == 4
               and sum(sum(state.view().hand(p)) for p in range(players)) > 2):
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        if state.is_terminal():
            return None
    return state


def test_hidden_stone_colours_and_resampling():
    """Others' colours are hidden; resampling keeps what the player sees and redeals the rest uniformly."""
    found = 0
    for seed in range(40):
        state = mid_game_state(3, seed)
        if state is None:
            continue
        me = state.current_player() if state.current_player() >= 0 else 0
        others_hold = [sum(state.view().hand(q)) for q in range(3) if q != me]
        colours = {c for q in range(3) if q != me for c, x in enumerate(state.view().hand(q)) if x}
        if min(others_hold) < 1 or len(colours) < 2:
            continue
        found += 1
        view = state.information_state_string(me)
        tensor = state.observation_tensor(me)
        assert len(tensor) == state._game.observation_tensor_size()
        assert "hands" not in state.observation(me)
        worlds = [state.resample_from_infostate(me, np.random.default_rng(i)) for i in range(12)]
        for w in worlds:
            assert w.information_state_string(me) == view and w.observation_tensor(me) == tensor
            assert w.view().hand(me) == state.view().hand(me)
            assert w.legal_actions()
        deals = {tuple(w.view().hands) for w in worlds}
        assert len(deals) > 1, "colours in other hands are redealt"
        break
    assert found >= 1


def test_public_variant_has_no_hidden_information():
    game = load_game("cavum", players=2, stones_in_hand_visibility="public")
    assert not game.hidden_information and load_game("cavum", players=2).hidden_information
    state = next(s for s in (mid_game_state(2, seed) for seed in range(20)) if s is not None)
    state_public = game.deserialize_state(state.serialize().replace(
        '"hidden_colours_public_history"', '"public"'))
    assert "hands" in state_public.observation(0)
    assert state_public.resample_from_infostate(0, 1) == state_public


VARIANTS = [
    {"tile_internal_connectivity": "independent_channels", "city_spaces_pass_through": True},
    {"city_adjacency_rule": "none", "cover_occupied_cell": True, "vein_under_counts_as_visible_dynamite": True},
    {"three_exit_pattern": "T", "two_exit_pattern": "curve", "city_space_exits": "one_exit_per_space"},
    {"exploding_adjacent_dynamite": "loses_top_tile", "discard_only_if_unplayable": False,
     "vein_colour_requires_stone_on_scale": False, "two_chip_supply_limit": "unlimited"},
    {"order_pick_pass_is_final": False, "colour_sale_pass_is_final": False, "bid_cap": "unbounded",
     "colour_sale_opening_bid": "up_to_price", "colour_sale_min_bid": 2},
    {"prospect_must_take_every_vein_on_path": False, "station_on_tile": "immediately_after_laying",
     "sequence_cards_mode": "first_n", "sequence_auction_next_opener": "original_opener_left",
     "unconnected_vein_neighbour": "forbidden", "final_tie_break": "draw"},
]


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_random_games_under_rule_variants(variant):
    random_game(3, 50 + variant, record_every=53, illegal_every=11, **VARIANTS[variant])


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_random_games(players):
    for seed in range(100, 160):
        random_game(players, seed, record_every=1 if seed % 20 == 0 else 0, illegal_every=3)
