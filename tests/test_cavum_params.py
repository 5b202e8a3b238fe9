"""Every open-question parameter of Cavum (shared/rules/cavum.md section 10): validated, and it changes the rule."""
from __future__ import annotations

import sys

import pytest

from cavekit.core import load_game as _load_game
from cavekit.core.api import ConfigError
from cavekit.core.cavum.reference import AUCTION, COLOUR_BID, COLOUR_SELL, ORDER_PICK, TAKING, tile_code
from cavekit.core.cavum.rules import CHOICES, PARAMETERS, rules
import test_cavum_rules
from cavum_positions import edit, on_reference, reference_of
from test_cavum_rules import (BLUE_PROSPECT, FOUR, RED, SIX, THREE, TWO, YELLOW, cell, example_state,
                              fresh, play, sale_state, texts, to_build)


ENGINE = "compiled"


@pytest.fixture(autouse=True, params=["compiled", "reference"])
def engine(request, monkeypatch):
    """Every test here runs on both engines: `load_game` below (and the helpers borrowed from the rules
    tests) build the engine of the test's parameter. Positions are read through `state.view()` and edited
    through the public snapshot (`cavum_positions`); rules helpers run on the reference engine."""
    monkeypatch.setattr(sys.modules[__name__], "ENGINE", request.param)
    monkeypatch.setattr(test_cavum_rules, "ENGINE", request.param)
    return request.param


def load_game(name: str, **params):
    return _load_game(name, **{"engine": ENGINE, **params})


def test_defaults_come_from_the_data_file():
    params = load_game("cavum", players=2).parameters()
    defaults = rules().defaults
    for name in PARAMETERS:
        if name == "sequence_card_dynamite":
            assert params[name] == [defaults[name][card] for card in ("1", "2", "3", "4")]
        elif name in defaults:
            assert params[name] == defaults[name], name
    assert set(params) == {"players", *PARAMETERS}


@pytest.mark.parametrize("name", sorted(CHOICES))
def test_bad_choice_lists_allowed_values(name):
    with pytest.raises(ConfigError) as info:
        load_game("cavum", players=2, **{name: "nonsense"})
    assert name in str(info.value)
    for allowed in CHOICES[name]:
        assert repr(allowed) in str(info.value)


@pytest.mark.parametrize("name, value, words", [
    ("sequence_card_dynamite", {"1": "six", "2": "six", "3": "four", "4": "two"}, "distinct kinds"),
    ("colour_sale_min_bid", 0, "1 to 9"),
    ("colour_sale_colour_order", ["red", "yellow"], "each once"),
    ("two_chip_supply_limit", -1, "'unlimited'"),
    ("players", 5, "Cavum is for 2 to 4 players, not 5"),
    ("no_such_option", 1, "known parameters"),
])
def test_bad_values_are_refused(name, value, words):
    with pytest.raises(ConfigError) as info:
        if name == "players":
            load_game("cavum", players=value)
        else:
            load_game("cavum", players=2, **{name: value})
    assert words in str(info.value)


def test_sequence_cards_mode_first_n():
    s = fresh(2, sequence_cards_mode="first_n")
    play(s, ["bid 0", "pass"])
    assert texts(s) == ["take sequence card 1", "take sequence card 2"]


def test_sequence_card_dynamite_mapping():
    s = to_build(2, sequence_card_dynamite={"1": "six", "2": "four", "3": "three", "4": "two"})
    holder = s.view().seq_card.index(1)
    assert s.view().board[holder * 10 + SIX + 1] == 1 and s.view().board[holder * 10 + TWO + 1] == 0
    assert s._game.parameters()["sequence_card_dynamite"] == ["six", "four", "three", "two"]
    same = load_game("cavum", players=2, sequence_card_dynamite=["six", "four", "three", "two"])
    assert same.parameters() == s._game.parameters()


def test_bid_cap_unbounded():
    s = fresh(2, bid_cap="unbounded")
    assert "bid 21" in texts(s) and "bid 60" in texts(s)
    play(s, ["bid 25", "pass"])
    assert s.scores()[0] == -5


def test_bid_cap_unbounded_goes_past_60_to_the_table_limit():
    """Issue 19: bids above 60 exist; with bid_cap=unbounded every bid up to MAX_BID is offered."""
    from cavekit.core.cavum.actions import BID, PASS, action_table
    from cavekit.core.cavum.rules import MAX_BID, auction_score_bound
    assert MAX_BID == auction_score_bound() > 60
    table = action_table()
    # ids of bids 0-60 and everything after them are those of the table before issue 19; higher bids come last
    assert [table.id(BID, v) for v in (0, 60)] == [0, 60] and table.id(PASS) == 61
    assert table.id(BID, 61) == 5507 and table.id(BID, MAX_BID) == len(table) - 1
    s = fresh(2, bid_cap="unbounded")
    bids = [t for t in texts(s) if t.startswith("bid")]
    assert bids == [f"bid {v}" for v in range(MAX_BID + 1)]
    play(s, ["bid 61", "bid 150", "pass"])
    assert s.scores()[1] == 20 - 150 and s.view().stage != AUCTION


def test_order_pick_pass_not_final():
    s = fresh(2, order_pick_pass_is_final=False)
    play(s, ["bid 0", "pass", "take sequence card 1", "take sequence card 2"])
    assert s.view().stage == ORDER_PICK
    play(s, ["pass"])                           # p0 passes
    ids = [o.id for o in rules().order_cards]
    play(s, [f"take {ids[s.view().display[0]]}"])      # p1 takes: the round of passes is broken
    assert s.view().to_move == 0 and any(t.startswith("take O") for t in texts(s))
    play(s, ["pass", "pass"])
    assert s.view().stage != ORDER_PICK


def test_colour_sale_pass_not_final():
    hands = {0: [0, 3, 0, 0, 0, 0], 1: [0, 3, 0, 0, 0, 0]}     # six red out: price 6
    final = sale_state(2, hands)
    first, second = final.view().order()
    play(final, ["pass", "bid 6"])
    assert final.view().stage == COLOUR_SELL, "a pass is final: the bid stands"
    s = sale_state(2, hands, colour_sale_pass_is_final=False)
    play(s, ["pass", "bid 6"])
    assert s.view().stage == COLOUR_BID and s.view().to_move == first and "bid 5" in texts(s)
    play(s, ["bid 5", "pass"])
    assert s.view().stage == COLOUR_SELL and s.view().to_move == first


def test_colour_sale_min_bid_and_opening():
    """Question 16: the opening bid is the price by default; up_to_price allows min_bid..price."""
    hands = {0: [0, 3, 0, 0, 0, 0], 1: [0, 3, 0, 0, 0, 0]}     # six red out: price 6
    s = sale_state(2, hands, colour_sale_min_bid=3, colour_sale_opening_bid="up_to_price")
    assert "bid 2" not in texts(s) and "bid 3" in texts(s)
    s = sale_state(2, hands, colour_sale_opening_bid="up_to_price")
    price = s.view().price(RED)
    assert [t for t in texts(s) if t.startswith("bid")] == [f"bid {v}" for v in range(1, price + 1)]
    play(s, ["bid 2"])
    assert [t for t in texts(s) if t.startswith("bid")] == ["bid 1"]
    s = sale_state(2, hands, colour_sale_min_bid=3)
    assert [t for t in texts(s) if t.startswith("bid")] == [f"bid {price}"]
    play(s, [f"bid {price}"])
    assert [t for t in texts(s) if t.startswith("bid")] == [f"bid {v}" for v in range(3, price)]


def test_colour_sale_colour_order():
    order = ["red", "yellow", "blue", "green", "white", "violet"]
    s = sale_state(2, {0: [1, 1, 0, 0, 0, 0], 1: [0, 0, 0, 0, 0, 0]}, colour_sale_colour_order=order)
    assert s.game.config.colour_sale_colour_order[s.view().colour_pos] == RED
    d = sale_state(2, {0: [1, 1, 0, 0, 0, 0], 1: [0, 0, 0, 0, 0, 0]})
    assert d.game.config.colour_sale_colour_order[d.view().colour_pos] == YELLOW


def station_behind_s3(s, p, *city_stations):
    """`s` with a station of `p` on a two laid at (-3,4) behind S3, and p's stations on the named city spaces."""
    e = edit(s)
    e.push(cell(-3, 4), tile_code(TWO, 2))
    e.station[cell(-3, 4)] = p
    for name in city_stations:
        e.city_station[rules().city_space_names.index(name)] = p
    return e.state()


def live(s, name):
    """Whether p's station on city space `name` is live: the view's answer, which is the reference's."""
    space = rules().city_space_names.index(name)
    assert s.view().live(space) is reference_of(s).live(space)
    return s.view().live(space)


def test_city_space_exits_one_per_space():
    """With one exit per space, S3 keeps only its NE exit (toward (-2,5)), losing the way to (-3,5)."""
    for value, is_live in [("all_adjacent_mountain_cells", True), ("one_exit_per_space", False)]:
        s = station_behind_s3(to_build(2, city_space_exits=value), 0, "S3")
        assert live(s, "S3") is is_live


def test_city_adjacency_rule_variants():
    """(-5,5) touches S1 and W7: Y r0 leads into neither, an X r1 into S1 only."""
    for value, y_ok, x_ok in [("must_lead_into_every_adjacent_city_space", False, False),
                              ("must_lead_into_at_least_one", False, True), ("none", True, True)]:
        e = edit(to_build(2, city_adjacency_rule=value))
        e.push(cell(-5, 4), tile_code(SIX, 0))
        s = e.state()
        ref = reference_of(s)
        assert (ref._lay_problem(0, THREE, cell(-5, 5), 0, piece_check=False) is None) is y_ok, value
        assert (ref._lay_problem(0, FOUR, cell(-5, 5), 1, piece_check=False) is None) is x_ok, value
        assert ("lay four at -5,5 r1" in texts(s)) is x_ok, value


def test_city_spaces_pass_through():
    """S1 reaches a station at (-3,4) only through city space S2 (X(-4,5) -> S2 -> X(-3,5))."""
    for value in (False, True):
        s = station_behind_s3(to_build(2, city_spaces_pass_through=value), 0, "S1")
        assert live(s, "S1") is value


def test_tile_exit_patterns():
    s = reference_of(to_build(2, three_exit_pattern="T", two_exit_pattern="curve"))
    assert s._geo.exit_masks[1][0] == 0b1011 and len(s._geo.rotations[1]) == 6
    assert s._geo.exit_masks[0][0] == 0b101 and len(s._geo.rotations[0]) == 6
    d = reference_of(to_build(2))
    assert d._geo.exit_masks[1][0] == 0b10101 and len(d._geo.rotations[1]) == 2


def test_tile_internal_connectivity_channels():
    """As two channels, X(-3,5) joins S2 (SW) only to its NE side: S2 no longer reaches (-3,4) (NW)."""
    for value, is_live in [("single_junction", True), ("independent_channels", False)]:
        s = station_behind_s3(to_build(2, tile_internal_connectivity=value), 0, "S2")
        assert live(s, "S2") is is_live
        s = station_behind_s3(to_build(2, tile_internal_connectivity=value), 0, "S2", "S3")
        assert live(s, "S3"), "S3 enters by SE and leaves NW on the same channel"


def test_unconnected_vein_neighbour_forbidden():
    for value, ok in [("allowed_if_continuing_other_tunnel", True), ("forbidden", False)]:
        e = edit(to_build(2, unconnected_vein_neighbour=value))
        e.push(cell(-1, 2), tile_code(SIX, 0))
        s = e.state()
        problem = reference_of(s)._lay_problem(0, SIX, cell(-1, 1), 0, piece_check=False)
        assert ("lay six at -1,1 r0" in texts(s)) is ok
        assert (problem is None) is ok
        if not ok:
            assert "unconnected vein" in problem


def test_cover_occupied_cell():
    for value in (False, True):
        s = to_build(2, cover_occupied_cell=value)
        play(s, ["lay two at -3,4 r2", "station at -3,4"])
        e = edit(s)
        e.push(cell(-3, 3), tile_code(SIX, 0))
        s = e.state()
        assert (reference_of(s)._lay_problem(0, THREE, cell(-3, 4), 1, piece_check=False) is None) is value
        assert ("lay three at -3,4 r1" in texts(s)) is value


def test_vein_under_counts_as_visible_dynamite():
    for value in (False, True):
        e = edit(to_build(2, vein_under_counts_as_visible_dynamite=value))
        c = cell(0, 2)
        e.push(c, tile_code(SIX + 1, 0))
        e.vein_colour[c], e.vein_stones[c] = RED, 2
        e.take_from_scale(RED, 2)
        s = e.state()
        price = s.view().price(RED)
        _, s = on_reference(s, "explode")
        assert (s.view().height[c] == 0) is value
        if value:
            assert s.view().price(RED) == price - 2 and s.view().vein_colour[c] == -1


def test_exploding_adjacent_dynamite_loses_top_tile():
    for value, height in [("explodes_fully", 0), ("loses_top_tile", 1)]:
        e = edit(to_build(2, exploding_adjacent_dynamite=value))
        e.push(cell(0, 2), tile_code(TWO + 1, 0))
        e.push(cell(1, 2), tile_code(TWO, 0))
        e.push(cell(1, 2), tile_code(THREE + 1, 0))
        _, s = on_reference(e.state(), "explode")
        assert s.view().height[cell(1, 2)] == height


def test_two_chip_supply_unlimited():
    s = to_build(2, two_chip_supply_limit="unlimited")
    assert sum(s.view().chips) == 5
    assert load_game("cavum", players=2, two_chip_supply_limit="unlimited").parameters()[
        "two_chip_supply_limit"] == "unlimited"


def test_discard_any_time():
    assert "discard six" not in texts(to_build(2))
    s = to_build(2, discard_only_if_unplayable=False)
    assert "discard six" in texts(s)
    play(s, ["discard six"])
    assert s.view().pool[SIX] == 5


def test_option_station_colour_has_one_value():
    assert load_game("cavum", players=2, option_station_colour="own_colour_only")
    with pytest.raises(ConfigError, match="own_colour_only"):
        load_game("cavum", players=2, option_station_colour="any_colour")


def test_vein_colour_with_empty_scale():
    e = edit(to_build(2, vein_colour_requires_stone_on_scale=False))
    e.push(cell(2, 0), tile_code(SIX, 0))
    s = e.state()
    pool = s.view().pool[8]
    play(s, ["vein yellow at 2,0"])
    assert s.view().vein_colour[cell(2, 0)] == -1 and s.view().pool[8] == pool + 1, "an empty vein is removed at once"


def test_prospector_may_skip_veins():
    s = example_state("round6")
    s.game.config = type(s.game.config)(**{**s.game.config.__dict__,
                                            "prospect_must_take_every_vein_on_path": False})
    play(s, BLUE_PROSPECT)
    assert s.view().prospect_state == TAKING
    assert sorted(texts(s)) == ["done", "prospect: take stone at -3,3", "prospect: take stone at 0,0"]
    play(s, ["prospect: take stone at 0,0", "done"])
    assert list(s.view().hand(0)) == [1, 0, 0, 0, 0, 0] and s.view().to_move == 1


def test_station_immediately_after_laying():
    for value, ok in [("last_tile_this_turn", True), ("immediately_after_laying", False)]:
        s = to_build(2, station_on_tile=value)
        play(s, ["lay two at -3,4 r2", "option: +3 points"])
        assert ("station at -3,4" in texts(s)) is ok


def test_sequence_auction_next_opener():
    for value, opener in [("last_winner_left", 3), ("original_opener_left", 1)]:
        s = fresh(4, sequence_auction_next_opener=value)
        play(s, ["bid 0", "pass", "bid 1", "pass", "pass", "take sequence card 1"])
        assert s.view().stage == AUCTION and s.view().to_move == opener, value


def test_final_tie_break_draw():
    from test_cavum_rules import end_state
    e = edit(end_state(2, final_tie_break="draw"))
    e.scores_ = [25, 25]
    _, s = on_reference(e.state(), "_end_phase")
    assert s.winners() == [0, 1] and s.returns() == [0.0, 0.0]
