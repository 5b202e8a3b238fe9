"""Caverna furnishing tiles in play (shared/rules/caverna.md section 11; issue 10): every one of the 48 types'
effect exercised through the game State, not as data.

Each test starts from a seeded game at its first decision (or at the first harvest's feeding), sets the acting
player's supply, animals and board by hand, then plays by notation (`place ...`, `furnish ...`, `convert ...`,
`feed`, ...) and checks the exact effect: dwarf room, animal room, costs actually paid, goods gained when built,
at the start of a round, on a gain, in a feeding or a breeding, the trades offered, and the end-game points
`scores()` gives (the difference a tile makes, hand-computed from its printed points and bonus).
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import CHANCE
from cavekit.core import load_game as _load_game
from cavekit.core.api import IllegalActionError
from cavekit.core.caverna.rules import make_config

from test_caverna_actions import can, do, legal, setup, start
from test_caverna_game import skip_to


def load_game(name, **params):
    """The game on the reference engine: these tests build positions by editing the reference engine's fields
    (the compiled engine, the default, plays the same game: tests/test_caverna_compiled.py)."""
    return _load_game(name, **{"engine": "reference", **params})


def board(spot: str = "C", *, row2: str = ". . .", tail2: str = ". .", row3: str = ". . .", tail3: str = ". .",
          row0: str = ". . . | . . .", row1: str = ". . . | . . .") -> str:

    """A board text: `spot` is the mountain space (2,3), next to the entry-level dwelling (3,3)."""
    return f"{row0}\n{row1}\n{row2} | {spot} {tail2}\n{row3} | E {tail3}\n"


def with_tile(fid: str, **kw) -> str:
    return board(f"C:{fid}", **kw)


def overflowing(state) -> bool:
    """Animals do not fit: the engine only offers releases and animal conversions."""
    return state.overflow and any(t.startswith("release") for t in legal(state))


def to_next_round(state):
    """Play the rest of the round quietly (no conversions); returns each player's goods just before the next
    round starts and plays its start (suppliers, Miner) up to the work phase."""
    start_round = state.round
    while state.round == start_round:
        texts = legal(state)
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        pick = "end turn" if "end turn" in texts else next(
            t for t in texts if not t.startswith(("convert", "release", "buy", "pay", "Peaceful")))
        do(state, pick)
    before = [dict(p.goods) for p in state.players]
    while state.phase != "work":
        state.apply_action(state.chance_outcomes()[0][0])
    return before


def at_feeding(seed: int = 1):
    """A 2-player game at the feeding of round 3 (the first normal harvest), player to feed first."""
    s = load_game("caverna", players=2).new_initial_state(seed=seed)
    s = skip_to(s, "feeding", np.random.default_rng(seed))
    assert s.round_no == 3 and s.harvest_kind == "normal"
    for p in s.players:
        p.ready, p.placed, p.newborns, p.begging = [0, 0], [], 0, 0
    return s


def feed_everyone(state):
    """Both players feed (with plenty of food), then breeding: the first offered set when there is a choice."""
    for p in state.players:
        p.goods["food"] += 20
    state._legal = None
    while state.phase == "feeding":
        do(state, "feed")
    while state.phase == "breeding":
        do(state, legal(state)[0])


def points_of(fid: str, spot_board: str, **supply) -> int:
    """Points the tile at (2,3) is worth in `scores()`: the score with it less the score with a bare cavern."""
    totals = []
    for b in (spot_board, spot_board.replace(f"C:{fid}", "C", 1)):
        s = start()
        q = s.current_player()
        setup(s, board=b, goods=supply.get("goods"), animals=supply.get("animals"), weapons=supply.get("weapons"))
        if "dwarfs" in supply:
            s.players[q].ready = [0] * supply["dwarfs"]
        totals.append(s.scores()[q])
    return totals[0] - totals[1]


# ------------------------------------------------------------------------------------------------------
# Dwellings: room for dwarfs, the family limit, and what a dwelling action pays

def test_dwelling_adds_room_for_one_more_dwarf_so_wish_for_children_can_grow_the_family():
    s = start()
    setup(s, board=board(), spaces=["wish_for_children"])
    assert not can(s, "place wish_for_children")         # the entry-level dwelling holds the 2 dwarfs: no growth
    s = start()
    p = setup(s, board=with_tile("dwelling"), spaces=["wish_for_children"])
    do(s, "place wish_for_children", "grow family")
    assert p.newborns == 1 and p.dwarfs == 3


def test_dwelling_furnished_by_housework_costs_4_wood_3_stone_and_scores_3():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 3}, board=board())
    do(s, "place housework", "furnish dwelling at 2,3")
    assert p.board.at((2, 3)).furnishing == "dwelling" and (p.goods["wood"], p.goods["stone"]) == (0, 0)
    assert points_of("dwelling", with_tile("dwelling")) == 3


def test_simple_dwelling_4w2s_is_a_dwelling_for_4_wood_2_stone_worth_nothing():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 2}, board=board(), spaces=["wish_for_children"])
    do(s, "place wish_for_children")
    assert not can(s, "furnish dwelling at 2,3")         # one stone short for the ordinary Dwelling
    do(s, "furnish simple_dwelling_4w2s at 2,3")
    assert (p.goods["wood"], p.goods["stone"]) == (0, 0)
    assert points_of("simple_dwelling_4w2s", with_tile("simple_dwelling_4w2s")) == 0


def test_simple_dwelling_3w3s_is_a_dwelling_for_3_wood_3_stone_worth_nothing():
    s = start()
    p = setup(s, goods={"wood": 3, "stone": 3}, board=board(), spaces=["wish_for_children"])
    do(s, "place wish_for_children", "furnish simple_dwelling_3w3s at 2,3")
    assert (p.goods["wood"], p.goods["stone"]) == (0, 0)
    s = start()
    setup(s, board=with_tile("simple_dwelling_3w3s"), spaces=["wish_for_children"])
    do(s, "place wish_for_children")
    assert can(s, "grow family")                         # it is room for a dwarf
    assert points_of("simple_dwelling_3w3s", with_tile("simple_dwelling_3w3s")) == 0


def test_mixed_dwelling_holds_a_dwarf_and_two_animals_of_one_type():
    for tile, fits in (("C", False), ("C:mixed_dwelling", True)):
        s = start()
        setup(s, goods={"ruby": 1}, animals={"sheep": 2, "wild_boar": 1}, board=board(tile))
        do(s, "place supplies", "convert 1 ruby -> 1 wild_boar")       # 2 sheep + 2 wild boar
        assert overflowing(s) is not fits
    s = start()
    setup(s, board=with_tile("mixed_dwelling"), spaces=["wish_for_children"])
    do(s, "place wish_for_children")
    assert can(s, "grow family")
    assert points_of("mixed_dwelling", with_tile("mixed_dwelling")) == 4


def test_couple_dwelling_has_room_for_two_dwarfs_but_a_growth_action_adds_only_one():
    s = start()
    p = setup(s, board=with_tile("couple_dwelling"), spaces=["wish_for_children"])
    p.ready = [0, 0, 0]                                    # 3 dwarfs, room 2 + 2
    do(s, "place wish_for_children", "grow family")
    assert p.newborns == 1 and p.dwarfs == 4 and not can(s, "grow family")
    s = start()
    p = setup(s, board=with_tile("couple_dwelling"), spaces=["wish_for_children"])
    p.ready = [0, 0, 0, 0]                                 # 4 dwarfs: full, no growth to carry out
    assert not can(s, "place wish_for_children")
    assert points_of("couple_dwelling", with_tile("couple_dwelling")) == 5


FOUR_DWELLINGS = dict(row1=". . . | C:dwelling C:dwelling C:dwelling")


def test_additional_dwelling_lets_a_family_of_five_grow_to_six():
    for spot, grows in (("C", False), ("C:additional_dwelling", True)):
        s = start()
        p = setup(s, board=board(spot, **FOUR_DWELLINGS), spaces=["wish_for_children"])
        p.ready = [0] * 5                                   # 5 dwarfs, room 2 + 3
        assert can(s, "place wish_for_children") is grows
    do(s, "place wish_for_children", "grow family")
    assert p.dwarfs == 6


def test_additional_dwelling_is_no_room_for_a_fifth_dwarf():
    s = start()
    p = setup(s, board=board("C:additional_dwelling", row1=". . . | C:dwelling C:dwelling C"),
              spaces=["wish_for_children"])
    p.ready = [0] * 4                                       # 4 dwarfs, room 2 + 2 (+0 until the 5th)
    assert not can(s, "place wish_for_children")
    assert points_of("additional_dwelling", with_tile("additional_dwelling")) == 5


# ------------------------------------------------------------------------------------------------------
# Rooms for animals

def test_cuddle_room_holds_as_many_sheep_as_there_are_dwarfs():
    for spot, fits in (("C", False), ("C:cuddle_room", True)):
        s = start()
        setup(s, goods={"ruby": 1}, animals={"sheep": 3}, board=board(spot))
        do(s, "place supplies", "convert 1 ruby -> 1 sheep")          # 4 sheep: 2 at home + 2 (2 dwarfs)
        assert overflowing(s) is not fits
    s = start()
    setup(s, goods={"ruby": 1}, animals={"sheep": 4}, board=with_tile("cuddle_room"))
    do(s, "place supplies", "convert 1 ruby -> 1 sheep")              # the 5th sheep does not fit
    assert overflowing(s)
    s = start()
    setup(s, goods={"ruby": 1}, animals={"wild_boar": 2}, board=with_tile("cuddle_room"))
    do(s, "place supplies", "convert 1 ruby -> 1 wild_boar")          # sheep only: a 3rd boar has no room
    assert overflowing(s)
    assert points_of("cuddle_room", with_tile("cuddle_room")) == 2


def test_cuddle_room_counts_a_newborn_placed_this_round():
    s = start()
    p = setup(s, goods={"ruby": 1}, animals={"sheep": 4}, board=with_tile("cuddle_room", row1=". . . | C:dwelling . ."),
              spaces=["wish_for_children"])
    do(s, "place wish_for_children", "grow family", "convert 1 ruby -> 1 sheep")   # 5 sheep: 2 at home + 3
    assert p.dwarfs == 3 and not overflowing(s)


def test_breakfast_room_holds_up_to_three_cattle():
    for spot, fits in (("C", False), ("C:breakfast_room", True)):
        s = start()
        setup(s, goods={"ruby": 1, "food": 1}, animals={"cattle": 4}, board=board(spot))
        do(s, "place supplies", "convert 1 ruby + 1 food -> 1 cattle")   # 5 cattle: 2 at home + 3
        assert overflowing(s) is not fits
    s = start()
    setup(s, goods={"ruby": 1, "food": 1}, animals={"cattle": 5}, board=with_tile("breakfast_room"))
    do(s, "place supplies", "convert 1 ruby + 1 food -> 1 cattle")
    assert overflowing(s)


def test_stubble_room_lets_each_empty_field_hold_one_animal():
    for spot, fits in (("C", False), ("C:stubble_room", True)):
        s = start()
        setup(s, goods={"ruby": 1}, animals={"sheep": 2}, board=board(spot, row3=". . F"))
        do(s, "place supplies", "convert 1 ruby -> 1 sheep")          # 3 sheep: 2 at home + 1 on the field
        assert overflowing(s) is not fits
    s = start()
    setup(s, goods={"ruby": 1}, animals={"sheep": 2}, board=with_tile("stubble_room", row3=". . F:g2"))
    do(s, "place supplies", "convert 1 ruby -> 1 sheep")              # a sown field holds none
    assert overflowing(s)
    s = start()
    p = setup(s, goods={"grain": 1}, animals={"sheep": 3}, board=with_tile("stubble_room", row3=". . F"),
              spaces=["slash_and_burn"])
    do(s, "place slash_and_burn", "sow grain at 3,2")               # sowing the field evicts its sheep
    assert p.board.at((3, 2)).crop == "grain" and overflowing(s)
    assert points_of("stubble_room", with_tile("stubble_room")) == 1


# ------------------------------------------------------------------------------------------------------
# Placement and action rules

def test_work_room_lets_a_tile_be_furnished_on_a_tunnel():
    tunnels = dict(tail3="T .")
    s = start()
    setup(s, goods={"wood": 1}, board=board("C:carpenter", **tunnels))
    do(s, "place housework")
    assert not can(s, "furnish cuddle_room at 3,4")
    s = start()
    p = setup(s, goods={"wood": 1}, board=with_tile("work_room", **tunnels))
    do(s, "place housework", "furnish cuddle_room at 3,4")
    assert p.board.at((3, 4)).furnishing == "cuddle_room" and p.board.at((3, 4)).terrain == "tunnel"
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 3}, board=with_tile("work_room", **tunnels), spaces=["wish_for_children"])
    do(s, "place wish_for_children", "furnish dwelling at 3,4")
    assert p.board.at((3, 4)).furnishing == "dwelling"
    assert points_of("work_room", with_tile("work_room")) == 2


def test_guest_room_turns_either_or_into_and_or_on_growth():
    for spot, both in (("C:dwelling", False), ("C:guest_room", True)):
        s = start()
        p = setup(s, board=board(spot, row1=". . . | C:dwelling . ."), spaces=["growth"])
        do(s, "place growth", "take goods")
        assert can(s, "grow family") is both
    do(s, "grow family")
    assert p.newborns == 1 and (p.goods["wood"], p.goods["gold"]) == (1, 2)


def test_guest_room_lets_wish_for_children_furnish_a_dwelling_and_grow_into_it():
    for spot, grows in (("C:cuddle_room", False), ("C:guest_room", True)):
        s = start()
        p = setup(s, goods={"wood": 4, "stone": 3}, board=board(spot, row1=". . . | C . ."),
                  spaces=["wish_for_children"])
        do(s, "place wish_for_children", "furnish dwelling at 1,3")
        assert can(s, "grow family") is grows
    do(s, "grow family")
    assert p.newborns == 1 and p.board.at((1, 3)).furnishing == "dwelling"


def until_turn_of(state, q: int) -> None:
    """Play other players' turns (first space, first sub-actions) until player q is to place a dwarf."""
    while state.current_player() != q or state.turn is not None or state.phase != "work":
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        texts = legal(state)
        do(state, "end turn" if "end turn" in texts else next(
            t for t in texts if not t.startswith(("convert", "buy", "place extension"))))


@pytest.mark.parametrize("rule,again", [("every_time", True), ("once_per_game", False)])
def test_guest_room_extension_both_halves_every_time_or_once_per_game(rule, again):
    """Extension (7 players) is either/or; the Guest room makes it and/or (BGA: both halves once per game)."""
    s = start(players=7, guest_room_extension_both=rule)
    q = s.current_player()
    p = setup(s, board=with_tile("guest_room"))
    do(s, "place extension_7p", "tile meadow_field at meadow 3,2 + field 3,1",
       "tile cavern_tunnel at cavern 1,3 + tunnel 1,4", "end turn")
    assert p.extension_both_used and (p.goods["wood"], p.goods["stone"]) == (1, 1)
    to_next_round(s)
    until_turn_of(s, q)
    do(s, "place extension_7p", "tile meadow_field at meadow 2,2 + field 2,1")
    assert can(s, "tile cavern_tunnel at cavern 0,3 + tunnel 0,4") is again


OVERHANG = """
    . . . | C C .
    . . . | C T C
    . . . | {spot} T C
    . . . | E T C
"""


def test_office_room_lets_a_twin_tile_overhang_for_2_gold():
    s = start()
    setup(s, board=OVERHANG.format(spot="C"), goods_on={"excavation_1_3": {"stone": 1}})
    do(s, "place excavation_1_3")
    assert not any(t.startswith("tile") and ("-1," in t or ",6" in t) for t in legal(s))
    s = start()
    p = setup(s, board=OVERHANG.format(spot="C:office_room"), goods_on={"excavation_1_3": {"stone": 1}})
    do(s, "place excavation_1_3", "tile cavern_tunnel at cavern 0,5 + tunnel 0,6")
    assert p.goods["gold"] == 2 and p.board.at((0, 6)).terrain == "tunnel"


# ------------------------------------------------------------------------------------------------------
# Costs: Carpenter, Stone carver, Blacksmith, Builder

def test_carpenter_makes_a_furnishing_one_wood_cheaper_when_paid():
    s = start()
    setup(s, goods={"wood": 3, "stone": 3}, board=board())
    do(s, "place housework")
    assert not can(s, "furnish dwelling at 2,3")
    s = start()
    p = setup(s, goods={"wood": 3, "stone": 3}, board=board(row1=". . . | C:carpenter . ."))
    do(s, "place housework", "furnish dwelling at 2,3")
    assert (p.goods["wood"], p.goods["stone"]) == (0, 0)


def test_carpenter_makes_a_build_fences_action_one_wood_cheaper():
    for spot, fences in (("C", False), ("C:carpenter", True)):
        s = start()
        p = setup(s, goods={"wood": 1}, board=board(spot, row3=". . M"), spaces=["sheep_farming"])
        assert can(s, "place sheep_farming") is fences       # 1 wood: a small pasture (2 wood) only with it
    do(s, "place sheep_farming", "tile small_pasture at small_pasture 3,2")
    assert p.goods["wood"] == 0 and p.board.at((3, 2)).terrain == "small_pasture"


def test_stone_carver_gives_2_stone_when_built_and_makes_dwellings_a_stone_cheaper():
    s = start()
    p = setup(s, goods={"wood": 1}, board=board())
    do(s, "place housework", "furnish stone_carver at 2,3")
    assert (p.goods["wood"], p.goods["stone"]) == (0, 2)
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 2}, board=board(row1=". . . | C:stone_carver . ."))
    do(s, "place housework", "furnish dwelling at 2,3")
    assert (p.goods["wood"], p.goods["stone"]) == (0, 0)


def test_stone_carver_makes_stables_free():
    s = start()
    setup(s, board=board(row3=". . M"), spaces=["sheep_farming"])
    assert not can(s, "place sheep_farming")                 # no stone: nothing to build
    s = start()
    p = setup(s, board=with_tile("stone_carver", row3=". . M"), spaces=["sheep_farming"])
    do(s, "place sheep_farming", "build stable at 3,2")
    assert p.goods["stone"] == 0 and p.board.at((3, 2)).stable


def test_blacksmith_gives_2_ore_when_built_and_forging_costs_2_ore_less():
    s = start()
    p = setup(s, goods={"wood": 1, "stone": 2}, board=board())
    do(s, "place housework", "furnish blacksmith at 2,3")
    assert (p.goods["wood"], p.goods["stone"], p.goods["ore"]) == (0, 0, 2)
    for spot, forges in (("C", False), ("C:blacksmith", True)):
        s = start()
        p = setup(s, goods={"ore": 6}, board=board(spot), spaces=["blacksmithing"])
        do(s, "place blacksmithing")
        assert can(s, "forge weapon 8") is forges
    do(s, "forge weapon 8")
    assert p.goods["ore"] == 0
    s = start()
    setup(s, board=with_tile("blacksmith"), spaces=["blacksmithing"])
    do(s, "place blacksmithing")
    assert [t for t in legal(s) if t.startswith("forge")] == ["forge weapon 1", "forge weapon 2"]   # free
    assert points_of("blacksmith", with_tile("blacksmith")) == 3


def test_builder_pays_ore_for_a_missing_wood():
    s = start()
    p = setup(s, goods={"wood": 3, "stone": 3, "ore": 1}, board=board(row1=". . . | C:builder . ."))
    do(s, "place housework", "furnish dwelling at 2,3")
    assert (p.goods["wood"], p.goods["stone"], p.goods["ore"]) == (0, 0, 0)
    s = start()
    setup(s, goods={"wood": 3, "stone": 3, "ore": 1}, board=board())
    do(s, "place housework")
    assert not can(s, "furnish dwelling at 2,3")
    s = start()
    p = setup(s, goods={"wood": 3, "stone": 2, "ore": 2}, board=board(row1=". . . | C:builder . ."))
    do(s, "place housework", "furnish dwelling at 2,3")         # 1 ore for a wood and 1 ore for a stone
    assert (p.goods["wood"], p.goods["stone"], p.goods["ore"]) == (0, 0, 0)
    assert points_of("builder", with_tile("builder")) == 2


def test_builder_payment_is_the_players_choice_when_several_are_affordable():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 3, "ore": 2}, board=board(row1=". . . | C:builder . ."))
    do(s, "place housework", "furnish dwelling at 2,3")
    assert legal(s) == ["pay as printed", "pay 1 ore instead of 1 wood", "pay 1 ore instead of 1 stone",
                        "pay 1 ore instead of 1 wood and 1 ore instead of 1 stone"]
    assert p.board.at((2, 3)).furnishing is None and p.goods["wood"] == 4    # nothing paid or built yet
    with pytest.raises(IllegalActionError, match="choose how to pay"):
        do(s, "end turn")
    do(s, "pay 1 ore instead of 1 stone")
    assert p.board.at((2, 3)).furnishing == "dwelling"
    assert (p.goods["wood"], p.goods["stone"], p.goods["ore"]) == (0, 1, 1)
    assert can(s, "take goods") and can(s, "end turn")   # Housework's dog is still to take


def test_builder_offers_only_the_payments_the_supply_covers():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 2, "ore": 1}, board=board(row1=". . . | C:builder . ."))
    do(s, "place housework", "furnish dwelling at 2,3")        # only "1 ore for a stone" is affordable
    assert p.board.at((2, 3)).furnishing == "dwelling" and (p.goods["stone"], p.goods["ore"]) == (0, 0)


# ------------------------------------------------------------------------------------------------------
# Income: suppliers, Miner, Dog school, Seam

def test_wood_supplier_puts_one_wood_on_each_of_the_next_7_rounds():
    s = start()
    q = s.current_player()
    p = setup(s, goods={"stone": 1}, board=board())
    do(s, "place housework", "furnish wood_supplier at 2,3", "end turn")
    assert sorted(p.income) == [1, 2, 3, 4, 5, 6, 7] and all(p.income[k] == {"wood": 1} for k in p.income)
    before = to_next_round(s)
    assert p.goods["wood"] == before[q]["wood"] + 1


def test_stone_supplier_puts_one_stone_on_each_of_the_next_5_rounds():
    s = start()
    q = s.current_player()
    p = setup(s, goods={"wood": 1}, board=board())
    do(s, "place housework", "furnish stone_supplier at 2,3", "end turn")
    assert sorted(p.income) == [1, 2, 3, 4, 5]
    before = to_next_round(s)
    assert p.goods["stone"] == before[q]["stone"] + 1


def test_stone_supplier_stone_triggers_the_seam():
    s = start()
    q = s.current_player()
    p = setup(s, goods={"wood": 1}, board=board(row1=". . . | C:seam . ."))
    do(s, "place housework", "furnish stone_supplier at 2,3", "end turn")
    before = to_next_round(s)
    assert (p.goods["stone"] - before[q]["stone"], p.goods["ore"] - before[q]["ore"]) == (1, 1)


def test_ruby_supplier_puts_one_ruby_on_each_of_the_next_4_rounds():
    s = start()
    q = s.current_player()
    p = setup(s, goods={"wood": 2, "stone": 2}, board=board())
    do(s, "place housework", "furnish ruby_supplier at 2,3", "end turn")
    assert sorted(p.income) == [1, 2, 3, 4]
    before = to_next_round(s)
    assert p.goods["ruby"] == before[q]["ruby"] + 1


def test_miner_gives_one_ore_per_ore_mine_holding_a_donkey_at_round_start():
    mines = dict(tail3="O D")
    for spot, ore in (("C", 0), ("C:miner", 1)):
        s = start()
        q = s.current_player()
        p = setup(s, animals={"donkey": 1}, board=board(spot, **mines))
        do(s, "place supplies", "end turn")
        before = to_next_round(s)
        assert p.goods["ore"] == before[q]["ore"] + ore
    s = start()
    q = s.current_player()
    p = setup(s, animals={"donkey": 1}, board=with_tile("miner", tail3="R D"))
    do(s, "place supplies", "end turn")
    before = to_next_round(s)
    assert p.goods["ore"] == before[q]["ore"]                  # a donkey in a Ruby mine does not count
    assert points_of("miner", with_tile("miner")) == 3


def test_dog_school_gives_a_wood_for_each_new_dog():
    for spot, wood in (("C", 0), ("C:dog_school", 1)):
        s = start()
        p = setup(s, board=board(spot))
        do(s, "place housework", "take goods")
        assert (p.animals["dog"], p.goods["wood"]) == (1, wood)
    s = start()
    p = setup(s, goods={"ruby": 1}, board=with_tile("dog_school"))
    do(s, "place supplies")
    wood0 = p.goods["wood"]
    do(s, "convert 1 ruby -> 1 dog")                              # a dog from a ruby counts too
    assert p.goods["wood"] == wood0 + 1


def test_seam_gives_an_ore_for_every_stone_received():
    for spot in ("C", "C:seam"):
        s = start()
        p = setup(s, board=board(spot), goods_on={"excavation_1_3": {"stone": 2}})
        do(s, "place excavation_1_3")
        assert (p.goods["stone"], p.goods["ore"]) == (2, 2 if spot == "C:seam" else 0)
    s = start()
    p = setup(s, goods={"ruby": 1}, board=with_tile("seam"))
    do(s, "place supplies")
    stone0, ore0 = p.goods["stone"], p.goods["ore"]
    do(s, "convert 1 ruby -> 1 stone")                            # from any source
    assert (p.goods["stone"] - stone0, p.goods["ore"] - ore0) == (1, 1)
    assert points_of("seam", with_tile("seam")) == 1


def test_seam_gives_an_ore_for_each_stone_the_stone_carver_pays_when_built():
    s = start()
    p = setup(s, goods={"wood": 1}, board=board(row1=". . . | C:seam . ."))
    do(s, "place housework", "furnish stone_carver at 2,3")      # the Stone carver's 2 stone bring 2 ore
    assert (p.goods["stone"], p.goods["ore"]) == (2, 2)


# ------------------------------------------------------------------------------------------------------
# Food: conversions, feeding, breeding

def test_slaughtering_cave_adds_a_food_per_animal_converted():
    for spot, food in (("C", 1 + 3), ("C:slaughtering_cave", 2 + 5)):
        s = start()
        p = setup(s, animals={"sheep": 1, "donkey": 2}, board=board(spot))
        do(s, "place supplies")
        food0 = p.goods["food"]
        do(s, "convert 1 sheep -> 1 food", "convert 2 donkey -> 3 food")
        assert p.goods["food"] - food0 == food


def test_slaughtering_cave_bonus_applies_to_a_conversion_forced_by_animals_that_do_not_fit():
    s = start()
    p = setup(s, goods={"ruby": 1}, animals={"sheep": 2}, board=with_tile("slaughtering_cave"))
    do(s, "place supplies", "convert 1 ruby -> 1 sheep")
    assert overflowing(s)
    food0 = p.goods["food"]
    do(s, "convert 1 sheep -> 1 food")
    assert p.goods["food"] - food0 == 2 and not s.overflow


def test_cooking_cave_converts_a_grain_and_a_vegetable_into_5_food():
    s = start()
    setup(s, goods={"grain": 1, "vegetable": 1}, board=board())
    do(s, "place supplies")
    assert not can(s, "convert 1 grain + 1 vegetable -> 5 food (cooking_cave)")
    s = start()
    p = setup(s, goods={"grain": 1, "vegetable": 1}, board=with_tile("cooking_cave"))
    do(s, "place supplies")
    food0 = p.goods["food"]
    do(s, "convert 1 grain + 1 vegetable -> 5 food (cooking_cave)")
    assert (p.goods["food"] - food0, p.goods["grain"], p.goods["vegetable"]) == (5, 0, 0)


def test_working_cave_feeds_one_dwarf_with_2_ore_once_per_feeding():
    s = at_feeding()
    q = s.current_player()
    p = setup(s, goods={"ore": 4, "food": 2}, board=with_tile("working_cave"))
    assert s.feeding_need(q) == 4
    do(s, "Working cave: feed a dwarf with 2 ore")
    assert s.feeding_need(q) == 2 and p.goods["ore"] == 2
    assert not any(t.startswith("Working cave") for t in legal(s))
    do(s, "feed")
    assert (p.goods["food"], p.begging) == (0, 0)


def test_working_cave_also_works_in_a_1_food_per_dwarf_feeding():
    s = at_feeding()
    q = s.current_player()
    setup(s, goods={"wood": 1}, board=with_tile("working_cave"))
    s.harvest_kind = "feed_1_per_dwarf"          # the round-4 style feeding (special 1-food feedings included)
    assert s.feeding_need(q) == 2
    do(s, "Working cave: feed a dwarf with 1 wood")
    assert s.feeding_need(q) == 1


def test_working_cave_is_not_offered_without_the_tile():
    s = at_feeding()
    setup(s, goods={"ore": 4, "wood": 1}, board=board())
    assert not any(t.startswith("Working cave") for t in legal(s))


def test_mining_cave_feeding_costs_a_food_less_per_donkey_in_a_mine():
    for spot, need in (("C", 4), ("C:mining_cave", 2)):
        s = at_feeding()
        q = s.current_player()
        p = setup(s, goods={"food": 4}, animals={"donkey": 2}, board=board(spot, tail3="O R"))
        assert s.feeding_need(q) == need
        do(s, "feed")
        assert p.goods["food"] == 4 - need


def test_mining_cave_counts_only_donkeys_that_are_in_mines():
    s = at_feeding()
    q = s.current_player()
    setup(s, animals={"donkey": 3}, board=with_tile("mining_cave", row3=". . P*", tail3="O ."))
    assert s.feeding_need(q) == 4 - 1                              # one Ore mine: one donkey counts


def test_peaceful_cave_discards_a_weapon_for_food_equal_to_its_strength():
    s = at_feeding()
    p = setup(s, board=with_tile("peaceful_cave"), weapons=[0, 5])
    assert can(s, "Peaceful cave: discard a strength-5 weapon for 5 food")
    do(s, "Peaceful cave: discard a strength-5 weapon for 5 food")
    assert p.goods["food"] == 5 and p.weapons() == [] and sorted(p.ready) == [0, 0]
    do(s, "feed")
    assert p.goods["food"] == 1 and p.begging == 0
    s = at_feeding()
    setup(s, board=board(), weapons=[0, 5])
    assert not any(t.startswith("Peaceful") for t in legal(s))


def test_peaceful_cave_weapon_discard_is_offered_during_the_work_phase_too():
    s = start()
    p = setup(s, board=with_tile("peaceful_cave"), weapons=[0, 3])
    do(s, "place supplies")
    food0 = p.goods["food"]
    do(s, "Peaceful cave: discard a strength-3 weapon for 3 food")
    assert p.goods["food"] == food0 + 3 and p.weapons() == []


TWO_PASTURES = dict(row2=". . P*", row3=". . P*")


def test_breeding_cave_gives_food_for_the_newborns():
    for spot, food in (("C", 0), ("C:breeding_cave", 2)):
        s = at_feeding()
        p = setup(s, animals={"sheep": 2, "wild_boar": 2}, board=board(spot, **TWO_PASTURES))
        feed_everyone(s)
        assert (p.animals["sheep"], p.animals["wild_boar"]) == (3, 3)
        assert p.goods["food"] == 20 - 4 + food


def test_breeding_cave_gives_5_food_for_4_newborns():
    s = at_feeding()
    p = setup(s, animals={"sheep": 2, "donkey": 2, "wild_boar": 2, "cattle": 2},
              board=board("C:breeding_cave", row0=". . P* | . . .", row1=". . P* | . . .", **TWO_PASTURES))
    feed_everyone(s)
    assert all(p.animals[a] == 3 for a in ("sheep", "donkey", "wild_boar", "cattle"))
    assert p.goods["food"] == 20 - 4 + 5


def test_quarry_gives_a_stone_for_each_newborn_donkey():
    for spot, stone in (("C", 0), ("C:quarry", 1)):
        s = at_feeding()
        p = setup(s, animals={"donkey": 2}, board=board(spot, **TWO_PASTURES))
        feed_everyone(s)
        assert (p.animals["donkey"], p.goods["stone"]) == (3, stone)
    assert points_of("quarry", with_tile("quarry")) == 2


# ------------------------------------------------------------------------------------------------------
# Trades any time before scoring

def test_trader_trades_2_gold_for_a_wood_a_stone_and_an_ore():
    s = start()
    p = setup(s, goods={"gold": 4}, board=with_tile("trader"))
    do(s, "place supplies")
    gold0 = p.goods["gold"]
    do(s, "convert 2 gold -> 1 wood + 1 stone + 1 ore (trader)")
    assert p.goods["gold"] == gold0 - 2 and (p.goods["wood"], p.goods["stone"], p.goods["ore"]) == (2, 2, 2)


def test_spare_part_storage_trades_a_wood_stone_ore_set_for_2_gold_and_the_trader_goes_on_top():
    s = start()
    p = setup(s, goods={"wood": 1, "stone": 1, "ore": 1}, board=with_tile("spare_part_storage"))
    do(s, "place housework")
    assert can(s, "convert 1 wood + 1 stone + 1 ore -> 2 gold (spare_part_storage)")
    assert [t for t in legal(s) if t.startswith("furnish trader")] == ["furnish trader at 2,3"]
    do(s, "convert 1 wood + 1 stone + 1 ore -> 2 gold (spare_part_storage)")
    assert (p.goods["gold"], p.goods["wood"], p.goods["stone"], p.goods["ore"]) == (2, 0, 0, 0)
    s = start()
    p = setup(s, goods={"wood": 2, "stone": 1, "ore": 1, "gold": 2}, board=with_tile("spare_part_storage"))
    do(s, "place housework", "furnish trader at 2,3")            # built on top: the storage stops working
    assert p.board.at((2, 3)).overbuilt == "spare_part_storage"
    assert [t for t in legal(s) if t.endswith(("(trader)", "(spare_part_storage)"))] == [
        "convert 2 gold -> 1 wood + 1 stone + 1 ore (trader)"]


def test_hunting_parlor_trades_2_wild_boar_for_2_gold_and_2_food_without_the_slaughtering_bonus():
    s = start()
    p = setup(s, animals={"wild_boar": 2}, board=with_tile("hunting_parlor", row1=". . . | C:slaughtering_cave . ."))
    do(s, "place housework")
    food0, gold0 = p.goods["food"], p.goods["gold"]
    do(s, "convert 2 wild_boar -> 2 gold + 2 food (hunting_parlor)")
    assert (p.goods["food"] - food0, p.goods["gold"] - gold0, p.animals["wild_boar"]) == (2, 2, 0)


def test_beer_parlor_trades_2_grain_for_3_gold_or_4_food():
    s = start()
    p = setup(s, goods={"grain": 4}, board=with_tile("beer_parlor"))
    do(s, "place housework", "convert 2 grain -> 3 gold (beer_parlor)", "convert 2 grain -> 4 food (beer_parlor)")
    assert (p.goods["grain"], p.goods["gold"], p.goods["food"]) == (0, 3, 4)
    assert points_of("beer_parlor", with_tile("beer_parlor")) == 3


def test_blacksmithing_parlor_trades_a_ruby_and_an_ore_for_2_gold_and_a_food():
    s = start()
    p = setup(s, goods={"ruby": 1, "ore": 1}, board=with_tile("blacksmithing_parlor"))
    do(s, "place housework", "convert 1 ruby + 1 ore -> 2 gold + 1 food (blacksmithing_parlor)")
    assert (p.goods["ruby"], p.goods["ore"], p.goods["gold"], p.goods["food"]) == (0, 0, 2, 1)


def test_trades_before_scoring_are_unlimited_by_default_and_once_per_harvest_window_on_request():
    for once in (False, True):
        s = at_feeding()
        s._config = make_config(anytime_trades_once_per_harvest=once)
        q = s.current_player()
        setup(s, goods={"grain": 8}, board=with_tile("beer_parlor"), clear=False)
        do(s, "convert 2 grain -> 4 food (beer_parlor)")
        assert can(s, "convert 2 grain -> 3 gold (beer_parlor)") is not once
        assert can(s, "convert 2 grain -> 4 food (beer_parlor)") is not once
        assert can(s, "convert 1 grain -> 1 food")            # the food table is never limited
    with pytest.raises(IllegalActionError, match="already used in this harvest window"):
        do(s, "convert 2 grain -> 3 gold (beer_parlor)")
    feed_everyone(s)                                          # the harvest ends: a new window opens
    while s.phase != "work" or s.current_player() != q:
        if s.current_player() == CHANCE:
            s.apply_action(s.chance_outcomes()[0][0])
        else:
            do(s, next(t for t in legal(s) if t.startswith("place")), "end turn")
    do(s, "place " + next(t[6:] for t in legal(s) if t.startswith("place")))
    assert can(s, "convert 2 grain -> 3 gold (beer_parlor)")


# ------------------------------------------------------------------------------------------------------
# Parlors: food when built, points at the end

def test_weaving_parlor_gives_a_food_per_sheep_when_built_and_a_point_per_2_sheep():
    s = start()
    p = setup(s, goods={"wood": 2, "stone": 1}, animals={"sheep": 2}, board=board())
    do(s, "place housework", "furnish weaving_parlor at 2,3")
    assert (p.goods["food"], p.goods["wood"], p.goods["stone"]) == (2, 0, 0)
    assert points_of("weaving_parlor", with_tile("weaving_parlor"), animals={"sheep": 5}) == 2


def test_milking_parlor_gives_a_food_per_cattle_when_built_and_a_point_per_cattle():
    s = start()
    p = setup(s, goods={"wood": 2, "stone": 2}, animals={"cattle": 2}, board=board())
    do(s, "place housework", "furnish milking_parlor at 2,3")
    assert (p.goods["food"], p.goods["wood"], p.goods["stone"]) == (2, 0, 0)
    assert points_of("milking_parlor", with_tile("milking_parlor"), animals={"cattle": 3}) == 3


STATE_PARLOR = dict(row1=". . . | C:dwelling . .", tail2="C:dwelling .")


def test_state_parlor_gives_2_food_and_4_points_per_adjacent_dwelling():
    s = start()
    p = setup(s, goods={"gold": 5, "stone": 3}, board=board(**STATE_PARLOR))
    do(s, "place housework", "furnish state_parlor at 2,3")        # next to (1,3), (2,4) and the entry (3,3)
    assert (p.goods["food"], p.goods["gold"], p.goods["stone"]) == (6, 0, 0)
    assert points_of("state_parlor", with_tile("state_parlor", **STATE_PARLOR)) == 12


# ------------------------------------------------------------------------------------------------------
# Storages and chambers: end-game bonus points in scores()

def test_stone_storage_scores_a_point_per_stone():
    assert points_of("stone_storage", with_tile("stone_storage"), goods={"stone": 5}) == 5


def test_ore_storage_scores_a_point_per_2_ore():
    assert points_of("ore_storage", with_tile("ore_storage"), goods={"ore": 5}) == 2


def test_main_storage_scores_2_per_yellow_tile_itself_included():
    b = with_tile("main_storage", row1=". . . | C:stone_storage C:prayer_chamber C:dwelling")
    # main storage 2 * 3 yellow tiles (itself, stone storage, prayer chamber), the dwelling is not yellow
    assert points_of("main_storage", b) == 6


def test_weapon_storage_scores_3_per_armed_dwarf():
    assert points_of("weapon_storage", with_tile("weapon_storage"), weapons=[0, 4]) == 3
    assert points_of("weapon_storage", with_tile("weapon_storage"), weapons=[1, 8]) == 6


def test_supplies_storage_scores_8_only_when_every_dwarf_is_armed():
    assert points_of("supplies_storage", with_tile("supplies_storage"), weapons=[1, 2]) == 8
    assert points_of("supplies_storage", with_tile("supplies_storage"), weapons=[0, 2]) == 0


def test_broom_chamber_scores_5_with_5_dwarfs_and_10_with_6():
    b = with_tile("broom_chamber")
    assert [points_of("broom_chamber", b, dwarfs=n) for n in (4, 5, 6)] == [0, 5, 10]


def test_treasure_chamber_scores_a_point_per_ruby():
    assert points_of("treasure_chamber", with_tile("treasure_chamber"), goods={"ruby": 3}) == 3


def test_food_chamber_scores_2_per_grain_and_vegetable_set_in_supply_and_fields():
    b = with_tile("food_chamber", row3=". F:g2 F:v1")
    # grain 1 + 2 on a field = 3, vegetables 3 + 1 on a field = 4: 3 sets
    assert points_of("food_chamber", b, goods={"grain": 1, "vegetable": 3}) == 6


def test_prayer_chamber_scores_8_only_when_no_dwarf_is_armed():
    assert points_of("prayer_chamber", with_tile("prayer_chamber"), weapons=[0, 0]) == 8
    assert points_of("prayer_chamber", with_tile("prayer_chamber"), weapons=[0, 1]) == 0


def test_writing_chamber_cancels_up_to_7_negative_points():
    # no farm animals (-8) and many unused spaces: 7 cancelled
    assert points_of("writing_chamber", with_tile("writing_chamber")) == 7
    # only one missing type (-2) and no unused space: 2 cancelled
    full = """
        M M M | C C C
        M M M | C C C
        M M M | C:writing_chamber C C
        M M M | E C C
    """
    assert points_of("writing_chamber", full, animals={"sheep": 1, "donkey": 1, "wild_boar": 1}) == 2


def test_fodder_chamber_scores_a_point_per_3_farm_animals_dogs_excluded():
    animals = {"sheep": 3, "donkey": 2, "wild_boar": 1, "cattle": 1, "dog": 5}
    assert points_of("fodder_chamber", with_tile("fodder_chamber"), animals=animals) == 2


# ------------------------------------------------------------------------------------------------------

def test_every_furnishing_type_is_exercised_in_play_here():
    from pathlib import Path

    from cavekit.core.caverna.furnishings import furnishing_ids
    source = Path(__file__).read_text()
    missing = [fid for fid in furnishing_ids() if f'"{fid}"' not in source and f"C:{fid}" not in source
               and f" {fid} at" not in source]
    assert len(furnishing_ids()) == 48 and missing == []
