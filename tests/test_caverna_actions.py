"""Caverna action spaces (shared/rules/caverna.md section 8), each carried out through the game API.

Every test starts from a seeded game at its first decision, sets up the acting player's supply, board and the
visible spaces by hand, then plays the space with its notation (`place ...`, sub-actions, `end turn`).
"""
from __future__ import annotations

import pytest

from cavekit.core import IllegalActionError, load_game
from cavekit.core.caverna.board import parse_board

EMPTY = {g: 0 for g in ("wood", "stone", "ore", "grain", "vegetable", "ruby", "gold", "food")}
NO_ANIMALS = {a: 0 for a in ("sheep", "donkey", "wild_boar", "cattle", "dog")}


def start(players: int = 2, seed: int = 1, **params):
    """A game at its first decision (round 1, the starting player to place a dwarf), on the reference engine:
    `setup` edits its fields (the compiled engine plays the same game: tests/test_caverna_compiled.py)."""
    return load_game("caverna", players=players, **{"engine": "reference", **params}).new_initial_state(seed=seed)


def setup(state, goods=None, animals=None, board=None, spaces=(), goods_on=None, weapons=None, clear=True):
    """Set the player to move's supply/animals/board/dwarfs and add action spaces (with goods) to the game."""
    p = state.players[state.current_player()]
    if clear:
        p.goods = dict(EMPTY)
        p.animals = dict(NO_ANIMALS)
    p.goods.update(goods or {})
    p.animals.update(animals or {})
    if board is not None:
        p.board = parse_board(board) if isinstance(board, str) else board
    if weapons is not None:
        p.ready = sorted(weapons)
    for s in spaces:
        if s not in state.spaces:
            state.spaces.append(s)
        state.goods_on.setdefault(s, {})
    for s, held in (goods_on or {}).items():
        state.goods_on[s] = dict(held)
    state._legal = None
    return p


def do(state, *texts):
    for text in texts:
        state.apply_action(state.string_to_action(text))


def legal(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def can(state, text) -> bool:
    return state.string_to_action(text) in state.legal_actions()


def goods(p, *names):
    return tuple(p.goods.get(n, p.animals.get(n)) for n in names)


# Boards used below: `E` entry-level dwelling (3,3), `C` cavern, `T` tunnel, `D` deep tunnel, `M` meadow.
TUNNELS = """
    . . . | . . .
    . . . | . . .
    . . . | C T T
    . . . | E T .
"""
MEADOWS = """
    . . . | . . .
    . . . | . . .
    . . M | C . .
    . M M | E . .
"""


# ------------------------------------------------------------------------------------------------------
# 1-3 player boards

def test_excavation_takes_stone_then_may_place_either_cavern_twin():
    s = start()
    p = setup(s, goods_on={"excavation_1_3": {"stone": 2}})
    do(s, "place excavation_1_3")
    assert p.goods["stone"] == 2 and s.goods_on["excavation_1_3"] == {}
    assert can(s, "tile cavern_cavern at cavern 2,4 + cavern 1,4")
    assert can(s, "end turn")                       # the tile is optional
    do(s, "tile cavern_tunnel at cavern 2,4 + tunnel 3,4")
    assert p.board.at((3, 4)).terrain == "tunnel" and p.goods["food"] == 1   # water source under (3,4)
    assert not any(t.startswith("tile ") for t in legal(s))     # one tile only
    do(s, "end turn")


def test_drift_mining_places_only_the_cavern_tunnel_side():
    s = start()
    setup(s, goods_on={"drift_mining_1_3": {"stone": 1}})
    do(s, "place drift_mining_1_3")
    assert can(s, "tile cavern_tunnel at cavern 2,4 + tunnel 3,4")
    assert not can(s, "tile cavern_cavern at cavern 2,4 + cavern 1,4")


def test_logging_takes_wood_and_an_armed_dwarf_may_make_a_level_1_expedition():
    s = start()
    p = setup(s, weapons=[3, 3], goods_on={"logging_1_3": {"wood": 3}})
    do(s, "place logging_1_3")
    assert p.goods["wood"] == 3
    assert can(s, "loot stone") and not can(s, "loot vegetable")     # strength 3: items up to min strength 3
    do(s, "loot dog")
    assert p.animals["dog"] == 1
    assert not any(t.startswith("loot") for t in legal(s))           # level 1: one item
    do(s, "end turn")
    assert sorted(p.placed) == [4]                                    # the weapon grew by 1


def test_logging_with_an_unarmed_dwarf_has_no_expedition():
    s = start()
    setup(s, goods_on={"logging_1_3": {"wood": 1}})
    do(s, "place logging_1_3")
    assert not any(t.startswith("loot") for t in legal(s))


def test_wood_gathering_and_ore_mining_with_ore_mines():
    s = start()
    p = setup(s, board="""
        . . . | . . .
        . . . | . . .
        . . . | C O D
        . . . | E . .
    """, goods_on={"ore_mining_1_3": {"ore": 2}})
    do(s, "place ore_mining_1_3")
    assert p.goods["ore"] == 2 + 2                                    # 2 per ore mine


def test_sustenance_gives_food_and_grain_and_an_optional_meadow_field():
    s = start()
    p = setup(s, goods_on={"sustenance_1_3": {"food": 1}})
    do(s, "place sustenance_1_3")
    assert goods(p, "food", "grain") == (1, 1)
    do(s, "tile meadow_field at meadow 3,2 + field 3,1")
    assert p.goods["food"] == 2                                       # the small river under (3,1)


def test_first_forest_tile_must_cover_the_space_in_front_of_the_entrance():
    s = start()
    setup(s, goods_on={"clearing_1_3": {"wood": 1}})
    do(s, "place clearing_1_3")
    with pytest.raises(IllegalActionError, match="cave entrance"):
        do(s, "tile meadow_field at meadow 0,0 + field 0,1")


def test_ruby_mining_extra_ruby_only_with_a_ruby_mine():
    s = start()
    p = setup(s, board="""
        . . . | . . .
        . . . | . . .
        . . . | C R .
        . . . | E . .
    """, goods_on={"ruby_mining": {"ruby": 1}})
    do(s, "place ruby_mining")
    assert p.goods["ruby"] == 2


def test_ruby_mining_is_empty_in_rounds_1_and_2_with_two_players():
    s = start(players=2)
    assert s.goods_on["ruby_mining"] == {}
    assert not can(s, "place ruby_mining")        # nothing could be carried out
    s3 = start(players=3)
    assert s3.goods_on["ruby_mining"] == {"ruby": 1}


def test_housework_dog_and_or_furnish():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 3})
    do(s, "place housework", "take goods")
    assert p.animals["dog"] == 1
    do(s, "furnish dwelling at 2,3")
    assert p.board.at((2, 3)).furnishing == "dwelling" and goods(p, "wood", "stone") == (0, 0)
    assert legal(s)[-1] == "end turn" or "end turn" in legal(s)


def test_housework_cannot_build_a_unique_tile_someone_else_built():
    s = start()
    setup(s, goods={"wood": 1})
    s.built.append("carpenter")   # pretend another player has it
    s.built.append("cuddle_room")
    do(s, "place housework")
    assert not can(s, "furnish cuddle_room at 2,3")
    with pytest.raises(IllegalActionError, match="already built"):
        do(s, "furnish cuddle_room at 2,3")


def test_slash_and_burn_then_sow_up_to_two_grain_and_two_vegetable_fields():
    s = start()
    p = setup(s, goods={"grain": 3, "vegetable": 3}, board="""
        . . . | . . .
        . . F | . . .
        . F F | C . .
        . F M | E . .
    """)
    do(s, "place slash_and_burn", "sow grain at 1,2", "sow grain at 2,1")
    assert not can(s, "sow grain at 2,2")                      # at most 2 grain fields
    assert not any(t.startswith("tile") for t in legal(s))      # then-or: the tile came first
    do(s, "sow vegetable at 2,2", "sow vegetable at 3,1", "end turn")
    assert goods(p, "grain", "vegetable") == (1, 1)
    assert p.board.at((1, 2)).crop_count == 3 and p.board.at((2, 2)).crop_count == 2


def test_supplies_gives_its_fixed_goods():
    s = start()
    p = setup(s)
    do(s, "place supplies")
    assert goods(p, "wood", "stone", "ore", "food", "gold") == (1, 1, 1, 1, 2)
    do(s, "end turn")


def test_starting_player_moves_the_token_for_next_round():
    s = start(players=3)
    mover = s.current_player()
    other = (mover + 1) % 3
    setup(s)
    do(s, "place supplies", "end turn")
    assert s.current_player() == other
    p = setup(s)
    do(s, "place starting_player_1_3")
    assert s.starter == other and goods(p, "ore", "food") == (2, 1)


# ------------------------------------------------------------------------------------------------------
# Round cards

def test_blacksmithing_forges_then_a_level_3_expedition():
    s = start()
    p = setup(s, goods={"ore": 5}, spaces=["blacksmithing"])
    do(s, "place blacksmithing")
    assert not any(t.startswith("loot") for t in legal(s))          # forging comes first
    assert not can(s, "forge weapon 6") and not can(s, "end turn")
    do(s, "forge weapon 5")
    assert p.goods["ore"] == 0
    assert not can(s, "loot gold_2")                                   # needs strength 6
    do(s, "loot wild_boar", "loot ore_2", "loot vegetable")
    assert not any(t.startswith("loot") for t in legal(s))
    do(s, "end turn")
    assert p.placed == [6] and goods(p, "ore", "vegetable", "wild_boar") == (2, 1, 1)


def test_blacksmith_makes_forging_2_ore_cheaper():
    s = start()
    p = setup(s, goods={"ore": 1}, spaces=["blacksmithing"], board="""
        . . . | . . .
        . . . | . . .
        . . . | C:blacksmith . .
        . . . | E . .
    """)
    do(s, "place blacksmithing")
    assert can(s, "forge weapon 3") and not can(s, "forge weapon 4")
    do(s, "forge weapon 2")
    assert p.goods["ore"] == 1


def test_blacksmithing_with_an_armed_dwarf_is_the_expedition_only():
    s = start()
    setup(s, weapons=[2, 2], spaces=["blacksmithing"])
    do(s, "place blacksmithing")
    assert not any(t.startswith("forge") for t in legal(s))
    assert not can(s, "end turn")                                     # the expedition is the action
    do(s, "loot wood")
    assert can(s, "end turn")


def test_sheep_farming_fences_and_stable_then_takes_the_sheep():
    s = start()
    p = setup(s, goods={"wood": 6, "stone": 1}, board=MEADOWS, spaces=["sheep_farming"],
              goods_on={"sheep_farming": {"sheep": 3}})
    do(s, "place sheep_farming", "tile small_pasture at small_pasture 2,2",
       "tile large_pasture at large_pasture 3,1 + large_pasture 3,2", "build stable at 2,2")
    assert goods(p, "wood", "stone") == (0, 0)
    do(s, "take goods", "end turn")
    assert p.animals["sheep"] == 3


def test_farming_space_overflow_must_release_or_convert():
    s = start()
    p = setup(s, spaces=["sheep_farming"], goods_on={"sheep_farming": {"sheep": 4}})
    do(s, "place sheep_farming", "take goods")
    assert s.overflow                                                  # the dwelling holds 2
    assert set(legal(s)) == {"release sheep", "convert 1 sheep -> 1 food"}
    do(s, "convert 1 sheep -> 1 food", "release sheep")
    assert not s.overflow and p.animals["sheep"] == 2 and p.goods["food"] == 1
    do(s, "end turn")


def test_donkey_farming_and_mines_hold_donkeys():
    s = start()
    p = setup(s, board="""
        . . . | . . .
        . . . | . . .
        . . . | C O D
        . . . | E R .
    """, spaces=["donkey_farming"], goods_on={"donkey_farming": {"donkey": 4}})
    do(s, "place donkey_farming", "take goods")
    assert not s.overflow and p.animals["donkey"] == 4                 # 2 mines + 2 in the dwelling


def test_ore_mine_construction_on_two_tunnels_gives_3_ore():
    s = start()
    p = setup(s, board=TUNNELS, spaces=["ore_mine_construction"])
    do(s, "place ore_mine_construction", "tile ore_mine_deep_tunnel at ore_mine 2,4 + deep_tunnel 2,5")
    assert p.goods["ore"] == 3 and p.board.at((2, 5)).terrain == "deep_tunnel"


def test_ruby_mine_construction_either_tunnel_or_deep_tunnel_with_a_ruby():
    s = start()
    p = setup(s, board="""
        . . . | . . .
        . . . | . . .
        . . . | C T D
        . . . | E . .
    """, spaces=["ruby_mine_construction"])
    do(s, "place ruby_mine_construction", "tile ruby_mine at ruby_mine 2,5")
    assert p.goods["ruby"] == 1
    assert not can(s, "tile ruby_mine at ruby_mine 2,4")               # either/or
    s2 = start()
    p2 = setup(s2, board=TUNNELS, spaces=["ruby_mine_construction"])
    do(s2, "place ruby_mine_construction", "tile ruby_mine at ruby_mine 2,4")
    assert p2.goods["ruby"] == 0


def test_guest_room_turns_either_or_into_and_or():
    s = start()
    p = setup(s, board="""
        . . . | . . .
        . . . | . . .
        . . . | C:guest_room T D
        . . . | E . .
    """, spaces=["ruby_mine_construction"])
    do(s, "place ruby_mine_construction", "tile ruby_mine at ruby_mine 2,5", "tile ruby_mine at ruby_mine 2,4")
    assert p.goods["ruby"] == 1


def test_wish_for_children_grows_the_family_or_builds_a_dwelling():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 3}, spaces=["wish_for_children"], board="""
        . . . | . . .
        . . . | . . .
        . . . | C:dwelling . .
        . . . | E . .
    """)
    do(s, "place wish_for_children", "grow family")
    assert p.newborns == 1 and p.dwarfs == 3
    assert not any(t.startswith("furnish") for t in legal(s))
    do(s, "end turn")


def test_growth_needs_room_in_the_dwellings():
    s = start()
    setup(s, goods={"wood": 4, "stone": 3}, spaces=["wish_for_children"])
    do(s, "place wish_for_children")
    assert not can(s, "grow family") and can(s, "furnish dwelling at 2,3")


def test_urgent_wish_for_children_furnish_then_grow_or_3_gold():
    s = start()
    p = setup(s, goods={"wood": 4, "stone": 3}, spaces=["urgent_wish_for_children"])
    do(s, "place urgent_wish_for_children")
    assert not can(s, "grow family")                                   # growth only after building
    do(s, "furnish dwelling at 2,3", "grow family", "end turn")
    assert p.dwarfs == 3 and p.goods["gold"] == 0
    s2 = start()
    p2 = setup(s2, spaces=["urgent_wish_for_children"])
    do(s2, "place urgent_wish_for_children", "take goods", "end turn")
    assert p2.goods["gold"] == 3


def test_family_life_grows_and_or_sows():
    s = start()
    p = setup(s, goods={"grain": 1}, spaces=["family_life"], board="""
        . . . | . . .
        . . . | . . .
        . . . | C:dwelling . .
        . . F | E . .
    """)
    do(s, "place family_life", "sow grain at 3,2", "grow family", "end turn")
    assert p.dwarfs == 3 and p.board.at((3, 2)).crop_count == 3


def test_ore_delivery_and_ruby_delivery():
    s = start()
    p = setup(s, spaces=["ore_delivery"], goods_on={"ore_delivery": {"ore": 1, "stone": 1}}, board="""
        . . . | . . .
        . . . | . . .
        . . . | C O D
        . . . | E R R
    """)
    do(s, "place ore_delivery", "end turn")
    assert goods(p, "ore", "stone") == (3, 1)
    p2 = setup(s, spaces=["ruby_delivery"], goods_on={"ruby_delivery": {"ruby": 2}}, board=p.board)
    do(s, "place ruby_delivery")
    assert p2.goods["ruby"] == 3                                        # two ruby mines: +1


def test_ore_trading_up_to_three_times():
    s = start()
    p = setup(s, goods={"ore": 8}, spaces=["ore_trading"])
    do(s, "place ore_trading")
    assert not can(s, "end turn")
    for _ in range(3):
        do(s, "trade 2 ore -> 2 gold + 1 food")
    assert not can(s, "trade 2 ore -> 2 gold + 1 food")
    assert goods(p, "ore", "gold", "food") == (2, 6, 3)


def test_ore_trading_needs_2_ore_to_be_placed():
    s = start()
    setup(s, goods={"ore": 1}, spaces=["ore_trading"])
    assert not can(s, "place ore_trading")


def test_adventure_forges_then_two_level_1_expeditions_the_second_stronger():
    s = start()
    p = setup(s, goods={"ore": 1}, spaces=["adventure"])
    do(s, "place adventure", "forge weapon 1", "loot wood")
    assert can(s, "loot grain")                                       # strength 2 after the first
    do(s, "loot grain", "end turn")
    assert p.placed == [3] and goods(p, "wood", "grain") == (1, 1)


def test_exploration_is_a_level_4_expedition_for_armed_dwarfs_only():
    s = start(players=3)
    setup(s, spaces=["exploration"])
    assert not can(s, "place exploration")
    s = start(players=3)
    p = setup(s, spaces=["exploration"], weapons=[12, 12], goods={"grain": 1})
    do(s, "place exploration", "loot field")
    assert s.turn.pending and not can(s, "loot wood")                  # the field must be placed first
    do(s, "tile field at field 3,2", "loot cattle", "loot sow", "sow grain at 3,2", "loot wood")
    assert not any(t.startswith("loot") for t in legal(s))             # level 4: four items
    do(s, "end turn")
    assert p.animals["cattle"] == 1 and p.board.at((3, 2)).crop_count == 3 and p.placed == [13]


def test_loot_follow_ups_and_all_weapons_plus_one():
    s = start()
    p = setup(s, goods={"wood": 1}, weapons=[9, 4], board=MEADOWS,
              goods_on={"logging_1_3": {"wood": 1}})
    do(s, "place logging_1_3")                                        # the strength-4 dwarf goes first
    assert s.turn.dwarf == 4 and not can(s, "loot small_pasture_1_wood")
    s = start()
    p = setup(s, goods={"wood": 1}, weapons=[9, 9], board=MEADOWS, goods_on={"logging_1_3": {"wood": 1}})
    do(s, "place logging_1_3", "loot small_pasture_1_wood", "tile small_pasture at small_pasture 2,2")
    assert p.goods["wood"] == 1 and p.board.at((2, 2)).terrain == "small_pasture"   # 1 + 1 taken - 1 paid
    s = start()
    p = setup(s, weapons=[2, 5], goods_on={"logging_1_3": {"wood": 1}})
    do(s, "place logging_1_3", "loot all_weapons_plus_1", "end turn")
    assert p.placed == [4] and p.ready == [6]                          # +1 each, then +1 for the expedition


def test_paying_a_ruby_places_an_armed_dwarf_out_of_order():
    s = start()
    p = setup(s, goods={"ruby": 1}, weapons=[0, 5], goods_on={"logging_1_3": {"wood": 1}})
    do(s, "pay 1 ruby: place the strength-5 dwarf next", "place logging_1_3")
    assert s.turn.dwarf == 5 and p.ready == [0] and p.goods["ruby"] == 0


# ------------------------------------------------------------------------------------------------------
# 4-7 player boards

def test_imitation_pays_food_and_copies_an_opponents_space_without_its_goods():
    s = start(players=4)
    first = s.current_player()
    setup(s)
    do(s, "place forest_exploration_4_7")
    before = s.goods_on["forest_exploration_4_7"]
    assert before == {}
    do(s, "end turn")
    p = setup(s, goods={"food": 2})
    assert s.occupied["forest_exploration_4_7"] == first
    do(s, "place imitation_4_7")
    assert "imitate starting_player_4_7" not in legal(s)
    do(s, "imitate forest_exploration_4_7")
    assert goods(p, "food", "wood") == (2, 0)                         # paid 2, got 2 food, no wood
    do(s, "end turn")


def test_imitation_cannot_copy_your_own_space():
    s = start(players=4)
    setup(s, goods={"food": 5}, weapons=[0, 0])
    s.occupied["supplies"] = s.current_player()
    assert not can(s, "place imitation_4_7")


def test_growth_either_goods_or_family_growth():
    s = start(players=4)
    p = setup(s, board="""
        . . . | . . .
        . . . | . . .
        . . . | C:dwelling . .
        . . . | E . .
    """)
    do(s, "place growth", "grow family")
    assert not can(s, "take goods") and p.dwarfs == 3


def test_sustenance_4_7_and_forest_exploration_take_their_goods():
    s = start(players=4)
    p = setup(s)
    assert s.goods_on["sustenance_4_7"] == {"grain": 1}
    do(s, "place sustenance_4_7")
    assert p.goods["grain"] == 1


def test_fence_building_5p_takes_wood_then_fences_small_and_or_large():
    s = start(players=5)
    p = setup(s, goods={"wood": 5}, board=MEADOWS, goods_on={"fence_building_5p": {"wood": 1}})
    do(s, "place fence_building_5p", "tile small_pasture at small_pasture 2,2",
       "tile large_pasture at large_pasture 3,1 + large_pasture 3,2", "end turn")
    assert p.goods["wood"] == 0


def test_carpenter_takes_one_wood_off_a_build_fences_action():
    s = start(players=5)
    p = setup(s, goods={"wood": 4}, board=MEADOWS.replace("C .", "C:carpenter ."),
              goods_on={"fence_building_5p": {"wood": 1}})
    do(s, "place fence_building_5p", "tile small_pasture at small_pasture 2,2",
       "tile large_pasture at large_pasture 3,1 + large_pasture 3,2")
    assert p.goods["wood"] == 0                 # 4 + 1 taken; small 2 - 1 (Carpenter, once per action) + large 4


def test_weekly_market_gives_4_gold_and_buys_each_good_at_most_once():
    s = start(players=5)
    p = setup(s)
    do(s, "place weekly_market", "buy cattle for 3 gold")
    assert not can(s, "buy cattle for 3 gold") and can(s, "buy wood for 1 gold")
    do(s, "buy wood for 1 gold", "end turn")
    assert goods(p, "gold", "cattle", "wood") == (0, 1, 1)


def test_hardware_rental_depot_and_small_scale_drift_mining():
    s = start(players=5)
    p = setup(s, goods_on={"depot": {"wood": 1, "ore": 1}})
    do(s, "place depot", "end turn")
    assert goods(p, "wood", "ore") == (1, 1)
    p = setup(s)
    assert not can(s, "place hardware_rental_5p")                     # unarmed, nothing to sow
    do(s, "place small_scale_drift_mining_5p")
    assert not can(s, "end turn")
    do(s, "tile cavern_tunnel at cavern 2,4 + tunnel 3,4")
    assert p.goods["stone"] == 1


def test_hardware_rental_6_7_gives_2_wood():
    s = start(players=6)
    p = setup(s)
    do(s, "place hardware_rental_6_7")
    assert p.goods["wood"] == 2


def test_extension_7p_either_forest_or_mountain_twin():
    s = start(players=7)
    p = setup(s)
    do(s, "place extension_7p", "tile meadow_field at meadow 3,2 + field 3,1")
    assert p.goods["wood"] == 1
    assert not any(t.startswith("tile") for t in legal(s))


def test_large_depot_and_strip_mining_and_forest_exploration_3p():
    s = start(players=7)
    assert s.goods_on["large_depot_7p"] == {"wood": 2, "stone": 1, "ore": 1}
    s3 = start(players=3)
    assert s3.goods_on["strip_mining_3p"] == {"ore": 1}
    p = setup(s3)
    do(s3, "place strip_mining_3p")
    assert goods(p, "ore", "wood") == (1, 2)


# ------------------------------------------------------------------------------------------------------
# Any-time actions

def test_rubies_buy_single_tiles_and_exchange_for_goods_during_the_turn():
    s = start()
    p = setup(s, goods={"ruby": 4, "food": 1})
    do(s, "place supplies", "buy tunnel at tunnel 3,4 for 1 ruby", "buy cavern at cavern 2,4 for 2 ruby",
       "convert 1 ruby + 1 food -> 1 cattle")
    assert p.goods["ruby"] == 0 and p.animals["cattle"] == 1 and p.board.at((2, 4)).terrain == "cavern"


def test_an_illegal_sub_action_leaves_the_state_unchanged():
    s = start()
    setup(s)
    do(s, "place supplies")
    before = (s.to_dict(), s.history(), s.legal_actions())
    with pytest.raises(IllegalActionError, match=f"for player {s.current_player()}: this space does not allow it now"):
        do(s, "furnish dwelling at 2,3")
    assert (s.to_dict(), s.history(), s.legal_actions()) == before


def test_peaceful_cave_discards_a_weapon_for_food():
    s = start()
    p = setup(s, weapons=[3, 7], board="""
        . . . | . . .
        . . . | . . .
        . . . | C:peaceful_cave . .
        . . . | E . .
    """)
    do(s, "place supplies")
    assert can(s, "Peaceful cave: discard a strength-7 weapon for 7 food") and not can(
        s, "Peaceful cave: discard a strength-5 weapon for 5 food")
    do(s, "Peaceful cave: discard a strength-7 weapon for 7 food", "end turn")
    assert p.goods["food"] == 1 + 7 and sorted(p.ready + p.placed) == [0, 3]


def test_carpenter_per_pasture_reading_discounts_each_pasture():
    s = start(players=5, carpenter_fence_discount="per_pasture")
    p = setup(s, goods={"wood": 3}, board=MEADOWS.replace("C .", "C:carpenter ."),
              goods_on={"fence_building_5p": {"wood": 1}})
    do(s, "place fence_building_5p", "tile small_pasture at small_pasture 2,2",
       "tile large_pasture at large_pasture 3,1 + large_pasture 3,2")
    assert p.goods["wood"] == 0                 # 3 + 1 taken; small 2 - 1, large 4 - 1
