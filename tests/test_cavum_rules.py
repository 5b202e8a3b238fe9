"""Cavum rules, one test per rule of shared/rules/cavum.md (section numbers in the test names' docstrings)."""
from __future__ import annotations

import sys

import pytest

from cavekit.core import load_game as _load_game
from cavekit.core.api import CHANCE, IllegalActionError
from cavekit.core.cavum.actions import PIECE_STATION, PIECE_VEIN
from cavekit.core.cavum.reference import (AUCTION, BUILD, CHOOSE, COLOUR_BID, COLOUR_SELL, FINAL_SALE, ORDER_PICK,
                                          ORDER_SALE, OVER, tile_code)
from cavekit.core.cavum.rules import rules

from cavum_positions import edit, on_reference, reference_of


ENGINE = "compiled"


@pytest.fixture(autouse=True, params=["compiled", "reference"])
def engine(request, monkeypatch):
    """Every test here runs on both engines: `load_game` below builds the engine of the test's parameter.
    Positions are read through `state.view()` and edited through the public snapshot (`cavum_positions`);
    rules helpers the compiled engine has no Python method for run on the reference engine."""
    monkeypatch.setattr(sys.modules[__name__], "ENGINE", request.param)
    return request.param


def load_game(name: str, **params):
    return _load_game(name, **{"engine": ENGINE, **params})


TWO, THREE, FOUR, SIX = 0, 2, 4, 6          # tile pieces (kind * 2); + 1 for dynamite
RED, BLUE, YELLOW = 1, 2, 0

SETUP = ["turn up O01", "turn up O05", "turn up O07", "turn up O08", "turn up O13",
         "bid 2", "pass", "take sequence card 1", "take sequence card 4",
         "take O01", "take O05", "pass", "pass"]
BUILD_ACTIONS = [
    "lay two at -3,4 r2", "station at -3,4", "lay six at -3,3 r0", "vein red at -3,3",
    "lay four at -2,3 r2", "station at -2,3", "end turn",
    "station at S3", "end turn",
    "lay three at -2,4 r0", "station at S2", "end turn",
    "lay four at -3,2 r1", "end turn",
    "lay two at -4,3 r0", "station at -4,3", "lay six at -1,3 r0", "vein blue at -1,3",
    "lay three at -2,1 r0", "option: take six from pool", "lay six at -1,1 r0", "end turn",
    "option: take four from pool", "lay four at -1,4 r2", "end turn",
    "option: take four from pool", "lay four at 0,1 r1", "station at 0,1", "end turn",
    "lay six dynamite at -2,1 r0", "end turn",
    "lay two dynamite at 0,4 r0",
]
BLUE_PROSPECT = ["prospect from S3", "prospect via -3,5", "prospect via -3,4", "prospect via -3,3",
                 "prospect via -3,2", "prospect via -2,1", "prospect via -1,1", "prospect via 0,0",
                 "prospect via 0,1", "prospect: stop"]
RED_TURN = ["option: take three from pool", "lay three at 0,4 r1"]
RED_PROSPECT = ["prospect from S2", "prospect via -3,5", "prospect via -2,4", "prospect via -1,4",
                "prospect via -1,3", "prospect via -2,3", "prospect via -3,3", "prospect via -4,3", "prospect: stop"]
SALES = ["pass", "pass", "bid 3", "sell 1", "bid 3", "sell 1", "fulfil O01"]


# -- helpers (also used by the other test_cavum_* files) ---------------------------------------------

def cell(q: int, r: int) -> int:
    """Index of the mountain cell (q, r)."""
    return rules().cells.index((q, r))


def space(name: str) -> int:
    """Node id of a city space."""
    return rules().num_cells + rules().city_space_names.index(name)


def play(state, texts):
    """Apply actions given in notation."""
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def to_build(players: int = 2, **params):
    """A fresh game moved to the start of building: first cards turned up, bids of 0, everyone passes orders."""
    state = load_game("cavum", players=players, **params).new_initial_state()
    while state.view().stage != BUILD:
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
        elif state.view().stage == AUCTION:
            play(state, ["bid 0" if state.view().bid < 0 else "pass"])
        elif state.view().stage == CHOOSE:
            state.apply_action(state.legal_actions()[0])
        else:
            play(state, ["pass"])
    return state


def texts(state):
    return [state.action_to_string(a) for a in state.legal_actions()]


def assert_refused(state, text, *words):
    """The action is refused with a reason containing `words`, and the position does not change."""
    assert words, "name the reason the action is refused for"
    before = state.serialize()
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(state.string_to_action(text))
    for word in words:
        assert word in str(info.value)
    assert state.serialize() == before
    return str(info.value)


def example_state(upto: str = "sales"):
    """The worked example of section 8, played up to a named point."""
    state = load_game("cavum", players=2).new_initial_state()
    play(state, SETUP)
    if upto == "setup":
        return state
    play(state, BUILD_ACTIONS)
    if upto == "round6":
        return state
    play(state, BLUE_PROSPECT + RED_TURN + RED_PROSPECT)
    if upto == "sale":
        return state
    return play(state, SALES)


# -- data (sections 2-4) ------------------------------------------------------------------------------

def test_package_data_matches_the_shared_rules_file():
    from pathlib import Path
    shared = Path("/work/shared/rules/cavum.json")
    if not shared.exists():
        pytest.skip("the project's shared rules folder is not on this machine")
    from cavekit.core.cavum.rules import load_rules_data
    import json
    assert load_rules_data() == json.loads(shared.read_text())


def test_map_and_supply_from_data():
    """91 mountain cells, 31 city spaces in cities of 5+6+6+7+7, 58 city exits, veins only off ring 5."""
    from cavekit.core.cavum.rules import geometry
    r = rules()
    assert r.num_cells == 91 and r.num_spaces == 31
    assert sorted(len(c) for c in r.city_spaces) == [5, 6, 6, 7, 7]
    g = geometry("Y", "straight", "single_junction", "all_adjacent_mountain_cells")
    assert sum(bin(m).count("1") for m in g.city_exits) == 58
    assert sum(r.vein_allowed) == 61 and all(r.rings[c] < 5 for c in range(91) if r.vein_allowed[c])
    s = load_game("cavum", players=4).new_initial_state()
    assert s.view().vein_stones[cell(0, 0)] == 9 and s.view().price(YELLOW) == 9 and s.view().price(RED) == 0
    v = s.view()
    assert list(v.pool[:8]) == [0, 0, 2, 0, 3, 0, 4, 0] and v.pool[PIECE_VEIN] == 5 and list(v.pool_stations) == [2] * 4
    assert s.scores() == [20] * 4
    assert [s.view().height[cell(q, 5)] for q in (-4, -3, -2, -1)] == [1, 1, 1, 1]
    assert list(load_game("cavum", players=2).new_initial_state().view().pool_stations) == [2, 2]


# -- the worked example (section 8) ------------------------------------------------------------------

def test_worked_example_auction_orders_and_chips():
    """1A-1C: Blue opens at 2 and takes card 1, Red takes card 4 free; untaken orders get a 2-chip."""
    s = example_state("setup")
    assert s.scores() == [18, 20]
    assert list(s.view().seq_card) == [1, 4]
    ids = [o.id for o in rules().order_cards]
    assert [ids[i] for i in s.view().display] == ["O07", "O08", "O13"]
    assert all(s.view().chips[i] == 1 for i in s.view().display)
    assert s.view().owner[ids.index("O01")] == 0 and s.view().owner[ids.index("O05")] == 1
    # 1B: twelve tiles each, dynamite of the card's type (card 1: two, card 4: six)
    v = s.view()
    assert list(v.board[0:10]) == [1, 1, 1, 0, 1, 0, 1, 0, 1, 3] and list(v.options) == [2, 2] and list(v.prospects) == [1, 1]
    assert list(s.view().board[10:20]) == [1, 0, 1, 0, 1, 0, 1, 1, 1, 3]


def test_worked_example_building_and_prospecting():
    """Round by round the example's actions are legal; prospecting takes 1 red + 1 yellow and 1 blue + 1 red."""
    s = example_state("setup")
    play(s, BUILD_ACTIONS[:4])
    assert s.view().to_move == 1, "a turn ends by itself after four actions"
    assert s.view().price(RED) == 3 and s.view().vein_stones[cell(-3, 3)] == 3
    play(s, BUILD_ACTIONS[4:])
    assert list(s.view().used) == [11, 10]
    assert texts(s) == ["end turn", "prospect from 0,1", "prospect from -3,4", "prospect from S3"]
    play(s, BLUE_PROSPECT)
    assert list(s.view().hand(0)) == [1, 1, 0, 0, 0, 0]
    assert s.view().to_move == 1
    play(s, RED_TURN)
    # Blue's dynamite at (0,4) is buried under Red's Y.
    assert s.view().top(cell(0, 4)) == tile_code(THREE, 1)
    play(s, RED_PROSPECT)
    assert list(s.view().hand(1)) == [0, 1, 1, 0, 0, 0]
    v = s.view()
    assert v.vein_stones[cell(-3, 3)] == 1 and v.vein_stones[cell(-1, 3)] == 2 and v.vein_stones[cell(0, 0)] == 8


def test_worked_example_scoring_explosion_and_sales():
    """3A: S2 and S3 score 3 each; 3B: (-2,1) clears and hits (-1,1) and (-3,2); 4: 33 and 29."""
    s = example_state("sale")
    assert s.scores() == [21, 23]
    for q, r in [(-2, 1), (-1, 1), (-3, 2)]:
        assert s.view().height[cell(q, r)] == 0
    assert s.view().height[cell(0, 4)] == 2, "the buried dynamite did not explode"
    v = s.view()
    assert v.pool[SIX + 1] == 1 and v.pool[SIX] == 4 and v.pool[FOUR] == 2 and v.pool[THREE] == 2
    assert s.view().stage == COLOUR_BID and s.view().to_move == 0
    play(s, SALES)
    assert s.scores() == [33, 29]
    assert s.view().price(YELLOW) == 8 and s.view().price(RED) == 1 and s.view().price(BLUE) == 2
    assert s.view().stage != ORDER_SALE and s.view().phase == 1


def test_worked_example_illegal_tries():
    """The refused tries of section 8, each with its reason."""
    s = example_state("round6")
    assert s.view().to_move == 0
    x = cell(-3, 5)
    ref = reference_of(s)
    assert "S2 holds player 1's station" in ref._lay_problem(0, SIX, x, 0, piece_check=False)
    assert "S3 holds player 0's station" in ref._lay_problem(1, SIX, x, 0, piece_check=False)
    assert "continues" in ref._lay_problem(0, SIX, cell(-5, 5), 0, piece_check=False)
    assert "strictly more exits" in ref._lay_problem(0, TWO, cell(-2, 5), 0, piece_check=False)
    # Blue's own dynamite at (0,4) was the last tile he laid; a station never goes on dynamite.
    e = edit(s)
    e.board[PIECE_STATION] += 1
    e.last_laid = cell(0, 4)
    s = e.state()
    assert "dynamite" in reference_of(s)._station_problem(0, cell(0, 4))
    assert_refused(s, "station at 0,4", "dynamite")


def test_order_cards_are_turned_up_by_chance():
    """Setup turns up 5 of the 15 shuffled order cards: five uniform chance nodes over the face-down cards."""
    s = load_game("cavum", players=2).new_initial_state()
    assert s.current_player() == CHANCE
    outcomes = s.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(15)) and all(abs(p - 1 / 15) < 1e-12 for _, p in outcomes)
    s.apply_action(4)
    assert [a for a, _ in s.chance_outcomes()] == [a for a in range(15) if a != 4]
    assert_refused(s, "4", "that order card is not face down in the deck")
    seeded = load_game("cavum", players=2).new_initial_state(seed=9)
    assert seeded.view().stage == AUCTION and len(seeded.view().display) == 5


# -- 5.1 sequence auction ---------------------------------------------------------------------------

def fresh(players: int = 3, **params):
    state = load_game("cavum", players=players, **params).new_initial_state()
    for _ in range(5):
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_opener_must_bid_and_bids_must_raise():
    """The youngest (seat 0) opens and may not pass; later bids raise; a pass takes a player out."""
    s = fresh(3)
    assert s.view().stage == AUCTION and s.view().to_move == 0
    assert_refused(s, "pass", "must bid")
    play(s, ["bid 3"])
    assert s.view().to_move == 1
    assert_refused(s, "bid 3", "bid 3")
    play(s, ["pass", "bid 4"])         # p1 passes, p2 raises
    assert s.view().to_move == 0, "the passed player is skipped"
    play(s, ["pass"])
    assert s.view().stage == CHOOSE and s.view().to_move == 2 and s.scores() == [20, 20, 16]


def test_bid_cap_is_current_score():
    """Bids may not exceed the bidder's score (bid_cap=current_score)."""
    s = fresh(2)
    assert "bid 20" in texts(s) and "bid 21" not in texts(s)
    assert_refused(s, "bid 21", "bid 21")


def test_next_auction_opened_by_winners_left_neighbour_and_last_takes_free():
    """After a win the winner's left neighbour opens (skipping card holders); the last player takes a card free."""
    s = fresh(4)
    play(s, ["bid 1", "bid 2", "pass", "pass", "pass"])    # p1 wins at 2
    play(s, ["take sequence card 4"])
    assert s.view().stage == AUCTION and s.view().to_move == 2
    play(s, ["bid 0", "pass", "pass"])                      # p2 wins at 0, p3 and p0 pass
    play(s, ["take sequence card 1"])
    assert s.view().to_move == 3                                   # p2's left neighbour
    play(s, ["bid 5", "pass", "take sequence card 2"])
    assert s.view().stage == CHOOSE and s.view().to_move == 0
    assert texts(s) == ["take sequence card 3"]
    play(s, ["take sequence card 3"])
    assert s.scores() == [20, 18, 20, 15] and list(s.view().seq_card) == [3, 4, 1, 2]
    assert s.view().stage == ORDER_PICK and s.view().to_move == 2, "order picks start with the lowest card"


def test_unchosen_cards_stay_and_relative_order_counts():
    """With 3 players all four cards are offered; holders of 1, 2, 4 move first, second, third."""
    s = fresh(3)
    play(s, ["bid 0", "pass", "pass", "take sequence card 4", "bid 0", "pass", "take sequence card 1"])
    assert texts(s) == ["take sequence card 2", "take sequence card 3"]
    play(s, ["take sequence card 2"])
    assert list(s.view().order()) == [2, 0, 1][0:0] + sorted(range(3), key=lambda p: s.view().seq_card[p])
    # the holder of card 4 would receive the six-exit dynamite
    assert s.view().board[s.view().seq_card.index(4) * 10 + SIX + 1] == 1


def test_later_phase_opened_by_previous_lowest_card():
    """Phase 2's auction is opened by whoever held the lowest card in phase 1."""
    s = example_state("sales")
    for _ in range(5):
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.view().stage == AUCTION and s.view().to_move == 0     # Blue held card 1
    assert list(s.view().seq_card) == [0, 0]


# -- 5.3 order cards --------------------------------------------------------------------------------

def test_order_picks_chips_and_second_chip():
    """Chips: +2 points each when taken; a card left after phase 2 gets a second chip; a pass is final."""
    s = example_state("sales")
    ids = [o.id for o in rules().order_cards]
    for _ in range(5):
        s.apply_action(s.chance_outcomes()[0][0])
    play(s, ["bid 0", "pass", "take sequence card 1", "take sequence card 2"])
    assert s.view().stage == ORDER_PICK and s.view().to_move == 0
    score = s.scores()[0]
    play(s, ["take O07"])
    assert s.scores()[0] == score + 2 and s.view().chips[ids.index("O07")] == 0
    play(s, ["pass"])                  # Red passes for good
    play(s, ["take O08"])
    assert s.view().to_move == 0, "Red's pass is final: Blue picks again"
    play(s, ["pass"])
    assert s.view().stage == BUILD
    assert s.view().chips[ids.index("O13")] == 2, "left after two selections: two chips"
    assert all(s.view().chips[i] == 1 for i in s.view().display if ids[i] != "O13")


def test_two_chip_supply_runs_out():
    """With a supply of 12 chips no more are placed once they run out (two_chip_supply_limit)."""
    s = to_build(2, two_chip_supply_limit=3)
    assert sum(s.view().chips) == 3 and s.view().chip_supply == 0 and len(s.view().display) == 5


# -- 5.4 building -----------------------------------------------------------------------------------

def test_turn_is_one_to_four_actions():
    """End turn needs at least one action; the fourth ends the turn; others keep playing after you are done."""
    s = to_build(2)
    p = s.view().to_move
    assert "end turn" not in texts(s)
    assert_refused(s, "end turn", "at least one action")
    play(s, ["option: +3 points"])
    assert "end turn" in texts(s)
    play(s, ["option: +3 points", "lay two at -3,4 r2"])
    assert s.view().to_move == p
    play(s, ["station at -3,4"])
    assert s.view().to_move != p and s.view().used[p] == 4 and s.view().turn_actions == 0


def test_prospecting_is_the_twelfth_action():
    """Prospect actions only appear once everything else is used."""
    s = to_build(2)
    assert not any(t.startswith("prospect") for t in texts(s))
    p = s.view().to_move
    e = edit(s)
    e.board[p * 10:(p + 1) * 10] = [0] * 10
    e.options[p] = 0
    e.used[p] = 11
    s = e.state()
    assert texts(s) == ["prospect: no route"]
    play(s, ["prospect: no route"])
    assert s.view().used[p] == 12 and s.view().prospects[p] == 0 and s.view().to_move != p


def test_tile_must_continue_a_tunnel():
    """A new tile needs an exit meeting an open side of a neighbour; blank sides do not count."""
    s = to_build(2)
    assert "lay two at -3,4 r2" in texts(s)           # SE meets the X's NW exit
    assert_refused(s, "lay two at -3,4 r0", "continues")   # E-W: both exits into blank sides


def test_empty_cell_needs_a_neighbour():
    s = to_build(2)
    assert_refused(s, "lay six at 3,-3 r0", "neighbouring tile")


def test_unconnected_vein_is_no_continuation_but_a_tile_next_to_it_connects_it():
    """Section 7.2.3: the centre vein cannot be continued until some tile points into it."""
    s = to_build(2)
    p = s.view().to_move
    centre = cell(0, 0)
    e = edit(s)
    e.push(cell(0, 1), tile_code(TWO, 0))             # E-W tile just below the vein, no exit toward it
    s = e.state()
    assert not reference_of(s).vein_connected(centre)
    assert "continues" in reference_of(s)._lay_problem(p, SIX, cell(1, -1), 0, piece_check=False)
    assert_refused(s, "lay six at 1,-1 r0", "continues")
    e = edit(s)
    e.push(cell(-1, 1), tile_code(TWO, 1))            # NE-SW exits: NE points into the vein
    s = e.state()
    assert reference_of(s).vein_connected(centre)
    assert reference_of(s)._lay_problem(p, SIX, cell(1, -1), 0, piece_check=False) is None


STACK_ON_VEIN_SETUP = ["bid 0", "pass", "take sequence card 1", "take sequence card 2", "pass", "pass",
                       # Blue (card 1): four, two, six, three; the three at -1,1 leads into the centre vein
                       "lay four at -1,4 r1", "lay two at -1,3 r2", "lay six at -1,2 r0", "lay three at -1,1 r1"]


def test_stacked_tile_may_continue_into_a_vein_the_covered_tile_leads_into():
    """Section 7.2.2 (issue 19): the tile about to be covered is on the board, so a vein it leads into is
    connected, and the tile stacked on it may use that vein as its only continuation."""
    s = load_game("cavum", players=2).new_initial_state(seed=1)
    while s.current_player() == CHANCE:
        s.apply_action(s.chance_outcomes()[0][0])
    play(s, STACK_ON_VEIN_SETUP)
    assert s.view().stage == BUILD and s.view().to_move == 1, "Red's turn after Blue's four actions"
    centre, x = cell(0, 0), cell(-1, 1)
    assert s.view().vein_stones[centre] > 0 and s.view().height[x] == 1
    # the three at -1,1 is the only tile pointing into the vein
    assert reference_of(s).vein_connected(centre) and not reference_of(s).vein_connected(centre, exclude=x)
    assert "lay four at -1,1 r0" in texts(s)
    play(s, ["lay four at -1,1 r0"])
    assert s.view().height[x] == 2 and reference_of(s).vein_connected(centre)


def test_tile_next_to_city_must_lead_into_every_space():
    """A tile beside city spaces needs an exit into each; others' city stations forbid the cell."""
    s = to_build(2)
    p = s.view().to_move
    # (-5,5) touches S1 (SE) and W7 (W); continue via a tile at (-5,4) pointing SE.
    e = edit(s)
    e.push(cell(-5, 4), tile_code(SIX, 0))
    s = e.state()
    assert "lead into city space W7" in reference_of(s)._lay_problem(p, FOUR, cell(-5, 5), 1, piece_check=False)
    assert reference_of(s)._lay_problem(p, SIX, cell(-5, 5), 0, piece_check=False) is None
    assert "lay six at -5,5 r0" in texts(s)
    e = edit(s)
    e.city_station[rules().city_space_names.index("W7")] = 1 - p
    s = e.state()
    assert "W7 holds" in reference_of(s)._lay_problem(p, SIX, cell(-5, 5), 0, piece_check=False)
    assert_refused(s, "lay six at -5,5 r0", "W7 holds")
    e = edit(s)
    e.city_station[rules().city_space_names.index("W7")] = p
    s = e.state()
    assert reference_of(s)._lay_problem(p, SIX, cell(-5, 5), 0, piece_check=False) is None
    assert "lay six at -5,5 r0" in texts(s)


def test_stacking_needs_strictly_more_exits_and_not_on_occupied_cells():
    """two < three < four < six; nothing on a six; not on a station or vein (cover_occupied_cell=False)."""
    s = to_build(2)
    p = s.view().to_move
    x = cell(-3, 5)
    e = edit(s)
    e.push(cell(-3, 4), tile_code(TWO, 2))
    s = e.state()
    ref = reference_of(s)
    assert "strictly more" in ref._lay_problem(p, THREE, x, 0, piece_check=False)
    assert "strictly more" in ref._lay_problem(p, FOUR, x, 1, piece_check=False)
    assert ref._lay_problem(p, SIX, x, 0, piece_check=False) is None
    assert "strictly more" in ref._lay_problem(p, SIX, cell(0, 0), 0, piece_check=False)
    assert_refused(s, "lay four at -3,5 r1", "strictly more")
    assert "lay six at -3,5 r0" in texts(s)
    e = edit(s)
    e.station[x] = p
    s = e.state()
    assert "station" in reference_of(s)._lay_problem(p, SIX, x, 0, piece_check=False)
    assert_refused(s, "lay six at -3,5 r0", "station")
    # dynamite stacks by the same rule
    e = edit(s)
    e.station[x] = -1
    s = e.state()
    assert reference_of(s)._lay_problem(p, SIX + 1, x, 0, piece_check=False) is None


def test_repeated_rotation_is_refused():
    s = to_build(2)
    assert_refused(s, "lay six at -3,4 r1", "repeats rotation 0")


def test_mountain_station_only_on_tile_just_laid_at_level_1():
    """Section 7.3: the most recently laid tile of this turn, level 1, not dynamite, no vein."""
    s = to_build(2)
    assert_refused(s, "station at -3,5", "most recently")     # a start tile, not laid this turn
    play(s, ["lay two at -3,4 r2"])
    assert "station at -3,4" in texts(s)
    play(s, ["lay six at -3,3 r0"])
    assert_refused(s, "station at -3,4", "most recently")
    play(s, ["station at -3,3"])
    p = 0
    assert s.view().station[cell(-3, 3)] == p


def test_stacked_tile_takes_no_station():
    s = to_build(2)
    play(s, ["lay two at -3,4 r2", "lay three at -3,4 r1"])
    assert_refused(s, "station at -3,4", "level 1")


def test_city_station_needs_route_to_own_mountain_station():
    s = to_build(2)
    assert "station at S3" not in texts(s)
    assert_refused(s, "station at S3", "no route")
    play(s, ["lay two at -3,4 r2", "station at -3,4", "station at S3"])
    assert s.view().city_station[space("S3") - rules().num_cells] == 0
    assert "station at S2" in texts(s) and "station at S4" not in texts(s)


def test_vein_discovery_takes_lowest_spaces():
    """3 stones with 2 players, from the lowest occupied spaces; e.g. spaces 1-4 empty: take 5-7."""
    e = edit(to_build(2))
    for v in range(4):
        e.scale[RED * 9 + v] = 0
    s = e.state()
    play(s, ["lay two at -3,4 r2", "vein red at -3,4"])
    assert s.view().vein_stones[cell(-3, 4)] == 3
    assert [s.view().scale[RED * 9 + v] for v in range(9)] == [0, 0, 0, 0, 0, 0, 0, 1, 1]
    s3 = to_build(3)
    play(s3, ["lay two at -3,4 r2", "vein blue at -3,4"])
    assert s3.view().vein_stones[cell(-3, 4)] == 4 and s3.view().price(BLUE) == 4


def test_vein_site_rules():
    """Not on ring 5 (next to a city), not next to a vein with stones, not on a station, on any tile."""
    s = to_build(2)
    assert_refused(s, "vein red at -3,5", "city space")
    e = edit(s)
    e.push(cell(1, 0), tile_code(SIX, 0))
    s = e.state()
    assert_refused(s, "vein red at 1,0", "next to the vein")
    e = edit(s)
    e.push(cell(2, 0), tile_code(SIX, 0))
    s = e.state()
    assert "vein red at 2,0" in texts(s)
    assert_refused(s, "vein red at 3,0", "tunnel or dynamite tile")


def test_vein_colour_needs_a_stone_on_its_scale():
    e = edit(to_build(2))
    e.push(cell(2, 0), tile_code(SIX, 0))
    s = e.state()
    assert_refused(s, "vein yellow at 2,0", "no yellow stone")


def test_options_take_points_or_a_usable_pool_tile():
    """An option gives 3 points or a pool tile that must be used at once; not offered when unusable."""
    s = to_build(2)
    p = s.view().to_move
    score = s.scores()[p]
    play(s, ["option: +3 points"])
    assert s.scores()[p] == score + 3 and s.view().options[p] == 1
    assert "option: take six from pool" in texts(s)
    assert "option: take vein from pool" not in texts(s), "no tile off ring 5 is free for a vein yet"
    assert "option: take station from pool" not in texts(s), "no tile laid and no city route: unusable"
    play(s, ["option: take six from pool"])
    assert all(t.startswith("lay six at") for t in texts(s))
    assert_refused(s, "end turn", "must be placed")
    play(s, ["lay six at -3,4 r0"])
    assert s.view().used[p] == 2 and s.view().options[p] == 0 and s.view().pool[SIX] == 3


def test_discard_only_when_unplayable():
    """A tile that can be placed may not be discarded; one that cannot must go to the pool (one action)."""
    s = to_build(2)
    p = s.view().to_move
    play(s, ["lay two at -3,4 r2"])
    assert_refused(s, "discard station", "can still be placed")
    # Stations cannot be placed now (no tile laid, no city route), so discarding is offered.
    e = edit(to_build(2))
    e.board[p * 10:(p + 1) * 10] = [0] * 9 + [1]
    e.options[p] = 0
    s2 = e.state()
    assert texts(s2) == ["discard station"]
    play(s2, ["discard station"])
    assert s2.view().pool_stations[p] == 3 and s2.view().used[p] == 1


# -- 7.6 prospecting --------------------------------------------------------------------------------

def test_prospect_route_blocked_by_opponent_station_and_no_reuse():
    """Opponent stations block routes; a route never revisits a cell; only completable steps are offered."""
    s = example_state("round6")
    play(s, ["prospect from S3"])
    assert texts(s) == ["prospect via -3,5"], "S3's other exit leads to (-2,5), which leads nowhere new"
    play(s, ["prospect via -3,5"])
    # (-2,4) leads only to Red's station at (-2,3) or to cells that never reach a Blue station; S2 is Red's.
    assert texts(s) == ["prospect via -3,4"]
    assert_refused(s, "prospect via S2", "can still end")
    assert_refused(s, "prospect via -3,5", "can still end")
    play(s, ["prospect via -3,4"])
    assert "prospect: stop" in texts(s), "an own station other than the start ends the route"


def test_prospect_takes_one_stone_per_vein_and_removes_emptied_vein():
    e = edit(example_state("round6"))
    e.vein_stones[cell(-3, 3)] = 1
    s = e.state()
    pool = s.view().pool[PIECE_VEIN]
    play(s, BLUE_PROSPECT)
    assert s.view().vein_colour[cell(-3, 3)] == -1 and s.view().pool[PIECE_VEIN] == pool + 1
    assert s.view().hand(0)[RED] == 1
    # the tile underneath counts again with its own exits
    assert s.view().open_sides(cell(-3, 3)) == 0b111111


def test_prospect_with_no_route_produces_nothing():
    s = to_build(2)
    p = s.view().to_move
    e = edit(s)
    e.board[p * 10:(p + 1) * 10] = [0] * 10
    e.options[p] = 0
    e.station[cell(-3, 5)] = p                           # a single station: no second one to reach
    s = e.state()
    assert texts(s) == ["prospect: no route"]
    play(s, ["prospect: no route"])
    assert sum(s.view().hand(p)) == 0


# -- 5.5 city scoring ------------------------------------------------------------------------------

def test_city_scoring_rulebook_example():
    """Yellow dead, Blue and Green live in a 5-space city: 3, 3 and 0 (dead stations count as empty)."""
    e = edit(to_build(3))
    names = rules().city_space_names
    e.city_station[names.index("S1")] = 0
    e.city_station[names.index("S2")] = 1
    e.city_station[names.index("S3")] = 2
    e.station[cell(-4, 5)] = 1
    e.station[cell(-2, 5)] = 2
    s = e.state()
    assert [s.view().live(names.index(x)) for x in ("S1", "S2", "S3")] == [False, True, True]
    before = s.scores()
    gains, s = on_reference(s, "score_cities")
    assert gains == [0, 3, 3]
    assert [a - b for a, b in zip(s.scores(), before)] == [0, 3, 3]


def test_two_live_stations_score_twice():
    e = edit(to_build(2))
    names = rules().city_space_names
    e.city_station[names.index("S2")] = 0
    e.city_station[names.index("S3")] = 0
    e.station[cell(-3, 5)] = 0
    s = e.state()
    assert s.view().live(names.index("S2")) and s.view().live(names.index("S3"))
    assert on_reference(s, "score_cities")[0] == [6, 0]


# -- 7.8 explosions -------------------------------------------------------------------------------

def test_explosion_clears_stack_and_tops_of_neighbours():
    e = edit(to_build(2))
    c = cell(0, 2)
    e.push(c, tile_code(TWO, 0))
    e.push(c, tile_code(FOUR + 1, 0))                   # dynamite on top
    e.push(cell(1, 2), tile_code(TWO, 0))
    e.push(cell(1, 2), tile_code(SIX, 0))               # neighbour loses only its top
    e.push(cell(-1, 2), tile_code(SIX, 0))
    e.station[cell(-1, 2)] = 0                          # a station protects its cell
    s = e.state()
    pool = sum(s.view().pool[:8])
    cleared, s = on_reference(s, "explode")
    assert cleared == [c]
    assert s.view().height[c] == 0 and s.view().height[cell(1, 2)] == 1 and s.view().height[cell(-1, 2)] == 1
    assert sum(s.view().pool[:8]) == pool + 3


def test_chain_reaction_uncovered_dynamite():
    """Removing a top tile that uncovers dynamite sets it off (the section-8 what-if)."""
    e = edit(example_state("sale"))
    e.push(cell(1, 3), tile_code(TWO + 1, 1))
    cleared, s = on_reference(e.state(), "explode")
    assert cleared == [cell(1, 3), cell(0, 4)]
    assert s.view().height[cell(-1, 4)] == 0 and s.view().height[cell(-1, 5)] == 0
    assert s.view().live(rules().city_space_names.index("S2")), "Red's S2 stays live via (-2,4) and (-2,3)"


def test_adjacent_visible_dynamite_explodes_fully():
    e = edit(to_build(2))
    e.push(cell(0, 2), tile_code(TWO + 1, 0))
    e.push(cell(1, 2), tile_code(TWO, 0))
    e.push(cell(1, 2), tile_code(THREE + 1, 0))
    e.push(cell(2, 2), tile_code(SIX, 0))
    _, s = on_reference(e.state(), "explode")
    assert s.view().height[cell(1, 2)] == 0 and s.view().height[cell(2, 2)] == 0


def test_dynamite_under_a_vein_does_not_explode():
    e = edit(to_build(2))
    c = cell(0, 2)
    e.push(c, tile_code(SIX + 1, 0))
    e.vein_colour[c], e.vein_stones[c] = RED, 2
    cleared, s = on_reference(e.state(), "explode")
    assert cleared == []
    assert s.view().height[c] == 1


# -- 5.7 selling ----------------------------------------------------------------------------------

def sale_state(players: int, hands: dict[int, list[int]], **params):
    e = edit(to_build(players, **params))
    for p, row in hands.items():
        for colour, count in enumerate(row):
            e.hands[p * 6 + colour] = count
            for _ in range(count):
                e.take_from_scale(colour, 1) if colour else None
    e.colour_pos = -1
    return on_reference(e.state(), "_next_colour")[1]


def test_colour_sale_rulebook_example():
    """Yellow price 8: P1 passes, P2 bids 8, sells 3 yellow for 8 each (+24), filling spaces 8, 7, 6."""
    e = edit(sale_state(2, {0: [1, 0, 0, 0, 0, 0], 1: [3, 0, 0, 0, 0, 0]}))
    e.scale[YELLOW * 9 + 8] = 1          # space 9 filled: the price is 8
    s = e.state()
    order = s.view().order()
    assert s.view().stage == COLOUR_BID and s.view().to_move == order[0]
    assert texts(s)[-2:] == ["bid 8", "pass"] and "bid 9" not in texts(s)
    first, second = order
    play(s, ["pass"])
    play(s, ["bid 8"])
    assert s.view().stage == COLOUR_SELL and s.view().to_move == second
    score = s.scores()[second]
    play(s, ["sell 3"])
    assert s.scores()[second] == score + 24
    assert [s.view().scale[v] for v in (5, 6, 7, 8)] == [1, 1, 1, 1]


def test_colour_sale_opens_at_the_price():
    """Section 5.7 and question 16 (issue 19): the first bid equals the colour's price
    (colour_sale_opening_bid=exactly_price by default); later bids are strictly lower."""
    s = sale_state(2, {0: [0, 3, 0, 0, 0, 0], 1: [0, 3, 0, 0, 0, 0]})     # six red out: price 6
    assert s._game.parameters()["colour_sale_opening_bid"] == "exactly_price"
    price = s.view().price(RED)
    assert price == 6
    assert [t for t in texts(s) if t.startswith("bid")] == [f"bid {price}"]
    assert "not allowed" in assert_refused(s, f"bid {price - 1}", f"bid {price - 1}", f"bids {price} to {price}")
    play(s, [f"bid {price}"])
    assert [t for t in texts(s) if t.startswith("bid")] == [f"bid {v}" for v in range(1, price)]


def test_bids_above_60_are_offered_up_to_the_bidders_score():
    """Section 5.1 (issue 19): bids are capped by the bidder's score (bid_cap=current_score), not by the
    action table, so a player holding more than 60 points can bid them all."""
    e = edit(fresh(2))
    e.scores_[0] = 75
    s = e.state()
    bids = [t for t in texts(s) if t.startswith("bid")]
    assert bids[-1] == "bid 75" and "bid 61" in bids and len(bids) == 76
    assert_refused(s, "bid 76", "bid 76", "bids 0 to 75")
    play(s, ["bid 70", "pass"])
    assert s.scores()[0] == 5


def test_colour_sale_bids_fall_and_need_the_colour():
    s = sale_state(3, {0: [0, 1, 0, 0, 0, 0], 1: [0, 1, 0, 0, 0, 0], 2: [0, 0, 0, 0, 0, 0]})
    order = [p for p in s.view().order() if p != 2]
    assert s.view().to_move == order[0]
    price = s.view().price(RED)
    play(s, [f"bid {price}"])
    assert s.view().to_move == order[1], "the player without red is skipped"
    assert_refused(s, f"bid {price}", "not allowed")
    play(s, ["bid 1"])
    # no bid below 1 (colour_sale_min_bid): the other holder drops out without a decision
    assert s.view().stage == COLOUR_SELL and s.view().to_move == order[1]
    play(s, ["sell 1"])
    assert s.view().hand(order[1])[RED] == 0


def test_order_sale_returns_stones_to_highest_spaces():
    s = example_state("sale")
    play(s, SALES[:-1])
    assert s.view().stage == ORDER_SALE and s.view().to_move == 0
    assert texts(s) == ["done", "fulfil O01"] or sorted(texts(s)) == ["done", "fulfil O01"]


# -- 6 game end ------------------------------------------------------------------------------------

def end_state(players: int = 2, **params):
    e = edit(to_build(players, **params))
    e.phase = 2
    e.last_cards = e.seq_card
    return e.state()


def test_three_phases_then_final_scoring_penalties_and_final_sale():
    """After phase 3: fourth city scoring, penalties for unfulfilled orders, final sale lowest first."""
    s = end_state(2)
    first, second = s.view().order()
    e = edit(s)
    e.owner[0] = first                                   # O01 unfulfilled: penalty 4
    e.hands[first * 6 + RED] = 1
    e.hands[second * 6 + BLUE] = 2
    e.scale[RED * 9 + 0] = 0
    e.scale[BLUE * 9 + 0] = e.scale[BLUE * 9 + 1] = 0
    e.scores_ = [20, 20]
    e.scores_[second] = 30
    e.phase = 2
    _, s = on_reference(e.state(), "_end_phase")
    assert s.view().stage == FINAL_SALE
    assert s.scores()[first] == 16 and s.view().penalties[first] == 4
    assert s.view().to_move == first and texts(s) == ["final sale: red"]
    play(s, ["final sale: red"])
    assert s.scores()[first] == 17, "sold onto the highest empty red space (1)"
    assert s.view().to_move == second
    play(s, ["final sale: blue"])
    assert s.scores()[second] == 32
    play(s, ["final sale: blue"])
    assert s.view().stage == OVER and s.scores()[second] == 33 and s.is_terminal()
    assert s.returns()[second] == 1.0


def test_final_sale_tie_goes_to_lower_card_and_winner_tie_break():
    s = end_state(2)
    first, second = s.view().order()
    e = edit(s)
    e.hands[first * 6 + RED] = 1
    e.hands[second * 6 + RED] = 1
    e.scale[RED * 9 + 0] = e.scale[RED * 9 + 1] = 0
    e.scores_ = [20, 20]
    _, s = on_reference(e.state(), "_end_phase")
    assert s.view().to_move == first, "equal scores: the lower phase-3 card sells first"
    play(s, ["final sale: red"])                          # +2
    play(s, ["final sale: red"])                          # +1
    assert s.scores()[first] == 22 and s.scores()[second] == 21
    e = edit(end_state(2))
    e.scores_ = [25, 25]
    _, s2 = on_reference(e.state(), "_end_phase")
    assert s2.is_terminal() and s2.winners() == [s2.view().order()[0]]


def test_game_ends_after_three_phases():
    import numpy as np
    game = load_game("cavum", players=3)
    s = game.new_initial_state()
    rng = np.random.default_rng(3)
    phases = set()
    while not s.is_terminal():
        phases.add(s.view().phase)
        legal = s.chance_outcomes() if s.current_player() == CHANCE else None
        s.apply_action(legal[0][0] if legal else s.legal_actions()[rng.integers(len(s.legal_actions()))])
    assert phases == {0, 1, 2}
    assert sum(s.view().deck) == 0 and len(s.view().display) + sum(1 for o in s.view().owner if o != -1) == 15
