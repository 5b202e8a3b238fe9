"""Cave vs Cave: the 24 rooms and the Cave Entrance (rules file sections 6.6, 6.7, 7.4, 9 and 14).

Costs, VP and wall requirements are checked against the section 9 table written out here (not read from
the engine's data), wall requirements on real board spaces with natural and built walls, and every room
effect with exact goods before and after.
"""
from __future__ import annotations

import os
import sys
from itertools import combinations

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from cvc_positions import (CAVE_ENTRANCE, EMPTY, R, build, do, give, goods,  # noqa: E402
                           legal, legal_texts, open_space, place, reveal, room, room_name, try_do,
                           two_player_position, uses)
from cavekit.core.cvc.actions import action_table  # noqa: E402

GOODS6 = ("wood", "stone", "emmer", "flax", "food", "gold")


def G(wood=0, stone=0, emmer=0, flax=0, food=0, gold=0):
    return {"wood": wood, "stone": stone, "emmer": emmer, "flax": flax, "food": food, "gold": gold}


def V(*six):
    return dict(zip(GOODS6, six))


# Section 9 table: tile_no, color, start display, cost, VP, allowed wall classes.
# Classes: "1" one wall, "2a" two adjacent, "2o" two opposite, "3" three, "4" four.
ROOMS = {
    "shelf":              (1, "orange", True, G(wood=1), 3, {"1"}),
    "spinning_wheel":     (2, "orange", True, G(wood=1), 4, {"1"}),
    "tunnel":             (3, "orange", True, G(wood=1), 3, {"2o"}),
    "grindstone":         (4, "orange", True, G(stone=1), 4, {"1", "2a"}),
    "food_corner":        (5, "orange", True, G(stone=1), 3, {"2a"}),
    "parlor":             (6, "orange", True, G(stone=1, gold=1), 6, {"3"}),
    "warehouse":          (7, "orange", False, G(wood=2), 2, {"1", "2a", "3"}),
    "stall":              (8, "orange", False, G(wood=1, gold=1), 6, {"1", "2a", "3"}),
    "sacrificial_altar":  (9, "orange", False, G(stone=4), 7, {"1", "2a", "3"}),
    "storeroom":          (10, "orange", False, G(wood=2, gold=1), 6, {"2a"}),
    "weaving_room":       (11, "orange", False, G(wood=2), 5, {"2a"}),
    "furniture_workshop": (12, "orange", False, G(wood=1, stone=2), 5, {"2a", "3"}),
    "gold_vein":          (13, "orange", False, G(gold=5), 9, {"2a", "3"}),
    "junction_room":      (14, "orange", False, G(wood=2), 6, {"2o"}),
    "digging_cave":       (15, "orange", False, G(wood=3, stone=1), 8, {"3"}),
    "bakehouse":          (16, "orange", False, G(wood=1, stone=2), 6, {"3"}),
    "state_room":         (17, "orange", False, G(gold=7), 12, {"3", "4"}),
    "secret_chamber":     (18, "orange", False, G(wood=2, stone=1), 8, {"4"}),
    "treasury":           (19, "orange", False, G(gold=3), 10, {"4"}),
    "prospecting_site":   (20, "blue", False, G(), 5, {"1", "2a"}),
    "retting_room":       (21, "blue", False, G(stone=1), 3, {"1", "2a", "3"}),
    "equipment_room":     (22, "blue", False, G(wood=2), 3, {"1", "2a"}),
    "wood_storeroom":     (23, "blue", False, G(stone=1), 2, {"2a"}),
    "dungeon":            (24, "blue", False, G(stone=3, gold=4), 11, {"4"}),
}
BLUE = [r for r, v in ROOMS.items() if v[1] == "blue"]

# Real board positions for each wall class: (space, built walls). Natural walls from section 7.1.
WALL_CONFIGS = {
    "1":  [("s4", ()), ("s5", ()), ("s2", ())],              # s4 W, s5 E, s2 W
    "2a": [("s4", ("w4",)), ("s8", ()), ("s5", ("w5",))],    # s4 N+W, s8 S+W, s5 N+E
    "2o": [("s4", ("w6",)), ("s3", ("w3",))],                # s4 E+W, s3 E+W
    "3":  [("s4", ("w4", "w6")), ("s10", ()), ("s1", ("w2",))],   # s10 N+E+S natural
    "4":  [("s4", ("w4", "w6", "w7")), ("s10", ("w13",))],
}
# Bit masks (N=1, E=2, S=4, W=8) of each class, rotation-closed.
CLASS_MASKS = {"1": {1, 2, 4, 8}, "2a": {3, 6, 12, 9}, "2o": {5, 10}, "3": {7, 11, 13, 14}, "4": {15}}


def furnish_position(room_id, space, built, rich=True):
    """Player 0 to move, `space` empty with `built` walls, the room in the display; two orange rooms on
    s0/s1 (or s7/s9) so that a blue room passes the orange > blue rule."""
    s = two_player_position()
    open_space(s, 0, space)
    build(s, 0, *built)
    s.display |= 1 << room(room_id)
    s.pool &= ~(1 << room(room_id))
    if ROOMS[room_id][1] == "blue":
        spots = [x for x in ("s0", "s7", "s9") if x != space][:2]
        place(s, 0, "warehouse", spots[0])
        place(s, 0, "stall", spots[1])
    if rich:
        give(s, 0, all=9, gold=19)
    return s


# ------------------------------------------------------------------------------------------------
# The table itself


def test_room_table_numbers_colors_and_start_display():
    assert len(R.rooms) == 25
    for rid, (no, color, start, cost, vp, _) in ROOMS.items():
        info = R.rooms[room(rid)]
        assert info.index == no - 1, rid
        assert info.orange == (color == "orange"), rid
        assert info.start_display == start, rid
    assert sum(1 for r in R.rooms[:24] if r.orange) == 19
    assert [r.id for r in R.rooms[:24] if not r.orange] == BLUE
    assert {r.id for r in R.rooms[:24] if r.start_display} == {
        "shelf", "spinning_wheel", "tunnel", "grindstone", "food_corner", "parlor"}
    entrance = R.rooms[CAVE_ENTRANCE]
    assert entrance.orange and entrance.vp == 0


@pytest.mark.parametrize("rid", list(ROOMS))
def test_room_wall_masks_match_section_9(rid):
    expected = set().union(*(CLASS_MASKS[c] for c in ROOMS[rid][5]))
    masks = {m for m in range(16) if R.rooms[room(rid)].wall_masks >> m & 1}
    assert masks == expected


@pytest.mark.parametrize("rid", list(ROOMS))
def test_room_vp_counts_in_score(rid):
    s = two_player_position()
    give(s, 0, gold=0)
    base = s.scores()[0]
    assert base == 0                           # Cave Entrance is worth 0
    place(s, 0, rid, "s10")
    assert s.scores()[0] == ROOMS[rid][4]


@pytest.mark.parametrize("rid", list(ROOMS))
def test_room_wall_requirement_on_real_spaces(rid):
    allowed = ROOMS[rid][5]
    for cls, configs in WALL_CONFIGS.items():
        for sp, built in configs:
            s = furnish_position(rid, sp, built)
            do(s, "take Housework")
            reason = try_do(s, f"Housework: furnish {room_name(rid)} at {sp} paying 1 gold")
            if cls in allowed:
                assert reason is None, (rid, sp, built, reason)
            else:
                assert reason is not None and "fit" in reason, (rid, sp, built, reason)


@pytest.mark.parametrize("rid", list(ROOMS))
def test_room_cost_is_exactly_the_printed_cost(rid):
    cost = ROOMS[rid][3]
    cls = sorted(ROOMS[rid][5])[0]
    sp, built = WALL_CONFIGS[cls][0]
    text = f"Housework: furnish {room_name(rid)} at {sp} paying 5 food"
    s = furnish_position(rid, sp, built, rich=False)
    give(s, 0, all=0, **cost)
    give(s, 0, food=5)
    do(s, "take Housework", text)
    assert goods(s, 0) == G()
    assert s.players[0].spaces[int(sp[1:])] == room(rid)
    assert not s.display >> room(rid) & 1
    for good, n in cost.items():
        if n == 0:
            continue
        s = furnish_position(rid, sp, built, rich=False)
        give(s, 0, all=0, **cost)
        give(s, 0, food=5, **{good: n - 1})
        do(s, "take Housework")
        assert "pay" in try_do(s, text), (rid, good)


def test_no_room_costs_emmer_flax_or_food():
    for r in R.rooms:
        assert r.cost[2] == r.cost[3] == r.cost[4] == 0, r.id


def test_vp_9_to_12_occur_once_each():
    vps = [ROOMS[r][4] for r in ROOMS]
    for v in (9, 10, 11, 12):
        assert vps.count(v) == 1


# ------------------------------------------------------------------------------------------------
# Orange room effects


def use_position(rid, goods6):
    s = two_player_position()
    place(s, 0, rid, "s10")
    s.players[0].goods = list(goods6)
    do(s, "take Undergrowth")
    return s


# (room, goods before, every legal use (after the "use Room: " prefix))
USE_SETS = [
    ("shelf", (0, 0, 0, 0, 0, 0), {"replenish wood to 2", "replenish stone to 2", "replenish emmer to 2",
                                   "replenish flax to 2"}),
    ("spinning_wheel", (0, 0, 0, 3, 0, 0), {"pay 1 flax, +1 gold", "pay 3 flax, +2 gold"}),
    ("tunnel", (0, 2, 0, 0, 0, 0), {"+2 food", "+1 stone (if fewer than 3 stone)",
                                    "+2 food, +1 stone (if fewer than 3 stone)"}),
    ("grindstone", (0, 0, 4, 0, 0, 0), {"pay 1 emmer, +3 food", "pay 4 emmer, +7 food"}),
    ("food_corner", (0, 0, 0, 0, 0, 0), {"replenish food to 3"}),
    ("parlor", (0, 0, 0, 0, 0, 0), {"replenish wood, stone, emmer, flax, food, gold to 1"}),
    ("warehouse", (0, 0, 0, 0, 2, 0), {"pay 2 food, +1 wood +1 stone +1 emmer +1 flax"}),
    ("stall", (0, 0, 5, 5, 0, 0), {"pay 5 emmer, +4 gold", "pay 5 flax, +4 gold"}),
    ("sacrificial_altar", (1, 0, 1, 1, 1, 0), {"pay 1 wood 1 emmer 1 flax 1 food, +3 gold"}),
    ("storeroom", (0, 0, 0, 0, 0, 0), {"+1 emmer +1 flax +1 food"}),
    ("weaving_room", (0, 0, 0, 2, 0, 0), {"pay 2 flax, +2 food +2 gold"}),
    ("furniture_workshop", (2, 0, 0, 1, 0, 0), {"pay 2 wood 1 flax, +3 gold"}),
    ("gold_vein", (0, 0, 0, 0, 0, 0), {"+1 stone +1 gold"}),
    ("junction_room", (1, 1, 1, 1, 1, 1),
     {"pay " + "+".join(c) + ", +2 gold" for c in combinations(GOODS6, 3)}),
    ("digging_cave", (0, 0, 0, 0, 0, 1), {f"pay 1 gold, excavate {x}" for x in ("s2", "s5", "s7", "s8")}),
    ("bakehouse", (0, 0, 3, 0, 0, 0), {"pay 2 emmer, +4 food +1 gold", "pay 3 emmer, +4 food +2 gold"}),
    ("state_room", (0, 0, 0, 0, 0, 0), {"+1 flax +1 gold"}),
    ("secret_chamber", (0, 0, 0, 0, 0, 0), {"+3 flax", "+1 gold"}),
    ("treasury", (0, 0, 0, 0, 0, 3), {"pay 3 gold, +1 food +4 gold"}),
    ("cave_entrance", (0, 0, 0, 0, 0, 0), {"+1 wood", "+1 stone", "+1 emmer", "+1 flax"}),
]


@pytest.mark.parametrize("rid, before, expected", USE_SETS, ids=[u[0] for u in USE_SETS])
def test_room_offers_exactly_its_options(rid, before, expected):
    if rid == "cave_entrance":
        s = two_player_position()
        s.players[0].goods = list(before)
        do(s, "take Undergrowth")
    else:
        s = use_position(rid, before)
    prefix = f"use {room_name(rid)}: "
    assert {t[len(prefix):] for t in uses(s, rid)} == expected


def test_every_orange_room_has_uses_and_no_blue_room_has_any():
    table = action_table()
    for r in R.rooms:
        assert bool(table.room_uses[r.index]) == r.orange, r.id


# (room, goods before, use, goods after)
EFFECTS = [
    ("shelf", (0, 5, 1, 0, 0, 0), "replenish emmer to 2", (0, 5, 2, 0, 0, 0)),
    ("spinning_wheel", (0, 0, 0, 3, 0, 0), "pay 1 flax, +1 gold", (0, 0, 0, 2, 0, 1)),
    ("spinning_wheel", (0, 0, 0, 3, 0, 0), "pay 3 flax, +2 gold", (0, 0, 0, 0, 0, 2)),
    ("tunnel", (0, 2, 0, 0, 0, 0), "+2 food, +1 stone (if fewer than 3 stone)", (0, 3, 0, 0, 2, 0)),
    ("grindstone", (0, 0, 4, 0, 0, 0), "pay 4 emmer, +7 food", (0, 0, 0, 0, 7, 0)),
    ("grindstone", (0, 0, 4, 0, 0, 0), "pay 1 emmer, +3 food", (0, 0, 3, 0, 3, 0)),
    ("food_corner", (0, 0, 0, 0, 1, 0), "replenish food to 3", (0, 0, 0, 0, 3, 0)),
    ("parlor", (0, 3, 0, 2, 0, 0), "replenish wood, stone, emmer, flax, food, gold to 1", (1, 3, 1, 2, 1, 1)),
    ("warehouse", (0, 0, 0, 0, 2, 0), "pay 2 food, +1 wood +1 stone +1 emmer +1 flax", (1, 1, 1, 1, 0, 0)),
    ("stall", (0, 0, 5, 6, 0, 0), "pay 5 flax, +4 gold", (0, 0, 5, 1, 0, 4)),
    ("stall", (0, 0, 5, 6, 0, 0), "pay 5 emmer, +4 gold", (0, 0, 0, 6, 0, 4)),
    ("sacrificial_altar", (1, 1, 1, 1, 1, 1), "pay 1 wood 1 emmer 1 flax 1 food, +3 gold", (0, 1, 0, 0, 0, 4)),
    ("storeroom", (0, 0, 0, 0, 0, 0), "+1 emmer +1 flax +1 food", (0, 0, 1, 1, 1, 0)),
    ("weaving_room", (0, 0, 0, 2, 0, 0), "pay 2 flax, +2 food +2 gold", (0, 0, 0, 0, 2, 2)),
    ("furniture_workshop", (2, 0, 0, 1, 0, 0), "pay 2 wood 1 flax, +3 gold", (0, 0, 0, 0, 0, 3)),
    ("gold_vein", (0, 0, 0, 0, 0, 0), "+1 stone +1 gold", (0, 1, 0, 0, 0, 1)),
    ("junction_room", (1, 1, 1, 0, 0, 1), "pay wood+stone+gold, +2 gold", (0, 0, 1, 0, 0, 2)),
    ("bakehouse", (0, 0, 3, 0, 0, 0), "pay 2 emmer, +4 food +1 gold", (0, 0, 1, 0, 4, 1)),
    ("bakehouse", (0, 0, 3, 0, 0, 0), "pay 3 emmer, +4 food +2 gold", (0, 0, 0, 0, 4, 2)),
    ("state_room", (0, 0, 0, 0, 0, 0), "+1 flax +1 gold", (0, 0, 0, 1, 0, 1)),
    ("secret_chamber", (0, 0, 0, 0, 0, 0), "+3 flax", (0, 0, 0, 3, 0, 0)),
    ("secret_chamber", (0, 0, 0, 0, 0, 0), "+1 gold", (0, 0, 0, 0, 0, 1)),
    ("treasury", (0, 0, 0, 0, 0, 3), "pay 3 gold, +1 food +4 gold", (0, 0, 0, 0, 1, 4)),
    ("treasury", (0, 0, 0, 0, 0, 19), "pay 3 gold, +1 food +4 gold", (0, 0, 0, 0, 1, 19)),
]


@pytest.mark.parametrize("rid, before, use, after", EFFECTS, ids=[f"{e[0]}:{e[2]}" for e in EFFECTS])
def test_room_effect_exact_goods(rid, before, use, after):
    s = use_position(rid, before)
    do(s, f"use {room_name(rid)}: {use}")
    assert goods(s, 0) == V(*after)


@pytest.mark.parametrize("good", ["wood", "stone", "emmer", "flax"])
def test_cave_entrance_gives_one_of_four_goods(good):
    s = two_player_position()
    do(s, "take Undergrowth", f"use Cave Entrance: +1 {good}")
    expected = G(1, 1, 1, 1, 1, 1)
    expected[good] = 2
    assert goods(s, 0) == expected


def test_cave_entrance_never_gives_food_or_gold():
    s = two_player_position()
    do(s, "take Undergrowth")
    assert not any("food" in t or "gold" in t for t in uses(s, "cave_entrance"))


# Tunnel: +2 food ; +1 stone only below 3 stone
@pytest.mark.parametrize("stone, gets_stone", [(0, True), (1, True), (2, True), (3, False), (5, False), (9, False)])
def test_tunnel_stone_only_below_three(stone, gets_stone):
    s = use_position("tunnel", (0, stone, 0, 0, 0, 0))
    assert legal(s, "use Tunnel: +1 stone (if fewer than 3 stone)") is gets_stone
    assert legal(s, "use Tunnel: +2 food")
    if gets_stone:
        do(s, "use Tunnel: +2 food, +1 stone (if fewer than 3 stone)")
        assert goods(s, 0) == G(stone=stone + 1, food=2)
    else:
        do(s, "use Tunnel: +2 food")
        assert goods(s, 0) == G(stone=stone, food=2)


def test_tunnel_slots_are_independent():
    s = use_position("tunnel", (0, 1, 0, 0, 0, 0))
    do(s, "use Tunnel: +1 stone (if fewer than 3 stone)")
    assert goods(s, 0) == G(stone=2)


# Shelf / Food Corner / Parlor: replenish never lowers
@pytest.mark.parametrize("wood, result", [(0, 2), (1, 2)])
def test_shelf_raises_one_good_to_two(wood, result):
    s = use_position("shelf", (wood, 0, 0, 0, 0, 0))
    do(s, "use Shelf: replenish wood to 2")
    assert goods(s, 0) == G(wood=result)


@pytest.mark.parametrize("wood", [2, 3, 9])
def test_shelf_never_lowers(wood):
    s = use_position("shelf", (wood, 0, 0, 0, 0, 0))
    assert not legal(s, "use Shelf: replenish wood to 2")
    assert goods(s, 0)["wood"] == wood


def test_shelf_replenishes_only_one_type():
    table = action_table()
    texts = [table.specs[a].text for a in table.room_uses[room("shelf")]]
    assert sorted(texts) == sorted(f"use Shelf: replenish {g} to 2" for g in ("wood", "stone", "emmer", "flax"))


@pytest.mark.parametrize("food, legal_use, after", [(0, True, 3), (2, True, 3), (3, False, 3), (7, False, 7)])
def test_food_corner_replenish_to_three(food, legal_use, after):
    s = use_position("food_corner", (0, 0, 0, 0, food, 0))
    assert legal(s, "use Food Corner: replenish food to 3") is legal_use
    if legal_use:
        do(s, "use Food Corner: replenish food to 3")
    assert goods(s, 0)["food"] == after


def test_parlor_raises_every_zero_good_including_gold_and_food():
    s = use_position("parlor", (0, 0, 0, 0, 0, 0))
    do(s, "use Parlor: replenish wood, stone, emmer, flax, food, gold to 1")
    assert goods(s, 0) == G(1, 1, 1, 1, 1, 1)


def test_parlor_never_lowers():
    s = use_position("parlor", (5, 0, 9, 1, 0, 12))
    do(s, "use Parlor: replenish wood, stone, emmer, flax, food, gold to 1")
    assert goods(s, 0) == G(5, 1, 9, 1, 1, 12)


def test_parlor_works_when_activated_not_when_built():
    s = two_player_position()
    build(s, 0, "w4", "w6")                    # s4: N, E, W
    give(s, 0, all=0, stone=1, gold=2)
    do(s, "take Housework", "Housework: furnish Parlor at s4 paying 1 gold")
    assert goods(s, 0) == G()


# Junction Room: three distinct goods, gold allowed by default
def test_junction_room_needs_three_distinct_goods():
    s = use_position("junction_room", (3, 0, 0, 0, 0, 0))
    assert uses(s, "junction_room") == set()


def test_junction_room_gold_refused_with_parameter():
    s = two_player_position(junction_room_gold_allowed=False)
    place(s, 0, "junction_room", "s10")
    give(s, 0, all=1)
    do(s, "take Undergrowth")
    prefix = "use Junction Room: "
    offered = {t[len(prefix):] for t in uses(s, "junction_room")}
    assert offered == {"pay " + "+".join(c) + ", +2 gold" for c in combinations(GOODS6[:5], 3)}
    assert "junction_room_gold_allowed" in try_do(s, "use Junction Room: pay wood+stone+gold, +2 gold")


# Digging Cave: 1 gold -> excavate with normal accessibility
def test_digging_cave_pays_gold_and_excavates():
    s = use_position("digging_cave", (0, 0, 0, 0, 0, 2))
    do(s, "use Digging Cave: pay 1 gold, excavate s7")
    reveal(s, "warehouse")
    assert goods(s, 0) == G(food=1, gold=1)            # s7 pays 1 food
    assert s.players[0].spaces[7] == EMPTY


def test_digging_cave_respects_walls():
    s = two_player_position()
    place(s, 0, "digging_cave", "s10")
    build(s, 0, "w9", "w6")
    do(s, "take Undergrowth")
    targets = {t.split()[-1] for t in uses(s, "digging_cave")}
    assert targets == {"s2", "s8"}


def test_digging_cave_needs_gold():
    s = use_position("digging_cave", (9, 9, 9, 9, 9, 0))
    assert uses(s, "digging_cave") == set()


def test_treasury_needs_three_gold():
    s = use_position("treasury", (0, 0, 0, 0, 0, 2))
    assert uses(s, "treasury") == set()


def test_secret_chamber_is_either_or():
    s = use_position("secret_chamber", (0, 0, 0, 0, 0, 0))
    assert not any("flax" in t and "gold" in t for t in uses(s, "secret_chamber"))


def test_bakehouse_rulebook_example_spend_2_or_3_emmer():
    """RB: 'The Bakehouse allows you to spend 2 or 3 Emmer to get 1 or 2 Gold, respectively, and 4 Food.'"""
    s = use_position("bakehouse", (0, 0, 5, 0, 0, 0))
    assert {t.split(": ", 1)[1] for t in uses(s, "bakehouse")} == {
        "pay 2 emmer, +4 food +1 gold", "pay 3 emmer, +4 food +2 gold"}
    do(s, "use Bakehouse: pay 2 emmer, +4 food +1 gold")
    assert goods(s, 0) == G(emmer=3, food=4, gold=1)
    assert uses(s, "bakehouse") == set()                 # one use per activation
    s = use_position("bakehouse", (0, 0, 1, 0, 0, 0))
    assert uses(s, "bakehouse") == set()


# ------------------------------------------------------------------------------------------------
# Activation rules (section 6.7)


def test_room_used_at_most_once_per_activation():
    s = two_player_position(revealed=["undermining"])
    do(s, "take Undermining", "use Cave Entrance: +1 wood")
    reason = try_do(s, "use Cave Entrance: +1 stone")
    assert reason is not None and "already used" in reason
    assert goods(s, 0)["wood"] == 2


def test_same_room_again_on_a_later_turn():
    s = two_player_position()
    do(s, "take Undergrowth", "use Cave Entrance: +1 wood", "end turn")
    do(s, "take Housework", "end turn")
    do(s, "take Cultivation", "use Cave Entrance: +1 wood")
    assert goods(s, 0)["wood"] == 3


def test_only_own_rooms_can_be_used():
    s = two_player_position()
    place(s, 1, "gold_vein", "s10")
    do(s, "take Undergrowth")
    assert "not in your cave" in try_do(s, "use Gold Vein: +1 stone +1 gold")


def test_blue_rooms_are_never_activated():
    s = two_player_position(revealed=["undermining"])
    for rid, sp in zip(BLUE, ("s0", "s1", "s10", "s9", "s3")):
        place(s, 0, rid, sp)
    do(s, "take Undermining")
    used_rooms = {t.split(":")[0][4:] for t in legal_texts(s) if t.startswith("use ")}
    assert used_rooms == {"Cave Entrance"}


def test_no_tile_both_furnishes_and_activates():
    """Why 'not right away' is automatic for orange rooms (section 6.7)."""
    for t in R.tiles:
        kinds = {op.kind for slot in t.slots for opt in slot for op in opt}
        assert not ({"furnish", "activate_rooms"} <= kinds), t.id


def test_room_furnished_this_turn_is_not_usable_this_turn():
    # No tile both furnishes and activates; mark the room as furnished this turn to check the guard.
    s = two_player_position()
    place(s, 0, "gold_vein", "s10", placed_round=0)
    do(s, "take Undergrowth")
    s.furnished_now |= 1 << room("gold_vein")
    reason = try_do(s, "use Gold Vein: +1 stone +1 gold")
    assert reason is not None and "right away" in reason


def _furnish_tunnel_then_second_turn(**options):
    s = two_player_position(**options)
    build(s, 0, "w6")                                    # s4: E + W (opposite) -> Tunnel
    give(s, 0, all=0, wood=1, food=2)
    do(s, "take Housework", "Housework: furnish Tunnel at s4 paying food per turn", "end turn")
    do(s, "take Excavation", "end turn")                # player 1
    do(s, "take Undergrowth")                            # player 0, second turn of round 1
    return s


def test_orange_room_usable_on_next_turn_same_round_by_default():
    s = _furnish_tunnel_then_second_turn()
    assert s.round == 0
    do(s, "use Tunnel: +2 food, +1 stone (if fewer than 3 stone)")
    assert goods(s, 0) == G(stone=1, food=2)


def test_orange_room_usable_from_next_round_parameter():
    s = _furnish_tunnel_then_second_turn(orange_room_usable_from="next_round")
    reason = try_do(s, "use Tunnel: +2 food")
    assert reason is not None and "next round" in reason
    do(s, "use Cave Entrance: +1 wood", "end turn")
    do(s, "take Cultivation", "end turn")                # round 1 ends
    assert s.round == 1
    s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == 1                        # starter passes: player 1 starts round 2
    do(s, "take Housework", "end turn")
    do(s, "take Undergrowth")
    assert legal(s, "use Tunnel: +2 food")


# ------------------------------------------------------------------------------------------------
# Blue rooms: Prospecting Site


def prospect_position(**options):
    s = two_player_position(**options)
    place(s, 0, "prospecting_site", "s10")
    place(s, 0, "warehouse", "s0")
    place(s, 0, "stall", "s1")
    return s


def test_prospecting_site_on_undergrowth_pays_food_for_gold_once():
    s = prospect_position()
    do(s, "take Undergrowth", "Prospecting Site: pay 1 food, +1 gold")
    assert goods(s, 0) == G(1, 1, 1, 1, 0, 2)
    give(s, 0, food=5)
    reason = try_do(s, "Prospecting Site: pay 1 food, +1 gold")
    assert reason is not None and "already" in reason


def test_prospecting_site_whatever_you_do_with_undergrowth():
    s = prospect_position()
    do(s, "take Undergrowth", "Undergrowth: +2 wood", "use Cave Entrance: +1 wood",
       "Prospecting Site: pay 1 food, +1 gold")
    assert goods(s, 0) == G(4, 1, 1, 1, 0, 2)


def test_prospecting_site_is_optional():
    s = prospect_position()
    do(s, "take Undergrowth", "end turn")
    assert goods(s, 0) == G(1, 1, 1, 1, 1, 1)


@pytest.mark.parametrize("tile_name", ["Cultivation", "Excavation", "Housework", "Furnishing"])
def test_prospecting_site_only_on_undergrowth(tile_name):
    s = prospect_position()
    do(s, f"take {tile_name}")
    assert try_do(s, "Prospecting Site: pay 1 food, +1 gold") is not None


def test_prospecting_site_needs_food_conversion_helps():
    s = prospect_position()
    give(s, 0, food=0)
    do(s, "take Undergrowth")
    assert try_do(s, "Prospecting Site: pay 1 food, +1 gold") is not None
    do(s, "convert emmer->food", "Prospecting Site: pay 1 food, +1 gold")
    assert goods(s, 0) == G(1, 1, 0, 1, 0, 2)


def test_prospecting_site_of_the_opponent_does_nothing_for_you():
    s = two_player_position()
    place(s, 1, "prospecting_site", "s10")
    do(s, "take Undergrowth")
    assert try_do(s, "Prospecting Site: pay 1 food, +1 gold") is not None


def test_prospecting_site_on_choosing_only_parameter():
    s = prospect_position(prospecting_site_timing="on_choosing_only")
    do(s, "take Undergrowth")
    assert legal(s, "Prospecting Site: pay 1 food, +1 gold")
    do(s, "Undergrowth: +2 wood")
    assert try_do(s, "Prospecting Site: pay 1 food, +1 gold") is not None


# ------------------------------------------------------------------------------------------------
# Blue rooms: Retting Room (+1 food per gain event of 1-3 flax)


def retting_position(goods6=(0, 0, 0, 0, 0, 0), others=("storeroom", "secret_chamber"), **options):
    s = two_player_position(**options)
    place(s, 0, "retting_room", "s10")
    for rid, sp in zip(others, ("s0", "s1")):
        place(s, 0, rid, sp)
    s.players[0].goods = list(goods6)
    return s


def test_retting_room_cultivation_is_one_event():
    s = retting_position()
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax")
    assert goods(s, 0) == G(emmer=2, flax=1, food=1)


def test_retting_room_cave_entrance_flax():
    s = retting_position()
    do(s, "take Undergrowth", "use Cave Entrance: +1 flax")
    assert goods(s, 0) == G(flax=1, food=1)


def test_retting_room_cave_entrance_other_good_gives_nothing():
    s = retting_position()
    do(s, "take Undergrowth", "use Cave Entrance: +1 emmer")
    assert goods(s, 0) == G(emmer=1)


def test_retting_room_secret_chamber_three_flax():
    s = retting_position()
    do(s, "take Undergrowth", "use Secret Chamber: +3 flax")
    assert goods(s, 0) == G(flax=3, food=1)


def test_retting_room_storeroom():
    s = retting_position()
    do(s, "take Undergrowth", "use Storeroom: +1 emmer +1 flax +1 food")
    assert goods(s, 0) == G(emmer=1, flax=1, food=2)


def test_retting_room_warehouse():
    s = retting_position(goods6=(0, 0, 0, 0, 2, 0), others=("warehouse", "storeroom"))
    do(s, "take Undergrowth", "use Warehouse: pay 2 food, +1 wood +1 stone +1 emmer +1 flax")
    assert goods(s, 0) == G(1, 1, 1, 1, 1, 0)


def test_retting_room_state_room():
    s = retting_position(others=("state_room", "storeroom"))
    do(s, "take Undergrowth", "use State Room: +1 flax +1 gold")
    assert goods(s, 0) == G(flax=1, food=1, gold=1)


def test_retting_room_shelf_replenish_raising_flax():
    s = retting_position(others=("shelf", "storeroom"))
    do(s, "take Undergrowth", "use Shelf: replenish flax to 2")
    assert goods(s, 0) == G(flax=2, food=1)


def test_retting_room_shelf_replenish_other_good():
    s = retting_position(others=("shelf", "storeroom"))
    do(s, "take Undergrowth", "use Shelf: replenish wood to 2")
    assert goods(s, 0) == G(wood=2)


def test_retting_room_parlor_raising_flax():
    s = retting_position(others=("parlor", "storeroom"))
    do(s, "take Undergrowth", "use Parlor: replenish wood, stone, emmer, flax, food, gold to 1")
    assert goods(s, 0) == G(1, 1, 1, 1, 2, 1)


def test_retting_room_parlor_not_raising_flax():
    s = retting_position(goods6=(0, 0, 0, 1, 0, 0), others=("parlor", "storeroom"))
    do(s, "take Undergrowth", "use Parlor: replenish wood, stone, emmer, flax, food, gold to 1")
    assert goods(s, 0) == G(1, 1, 1, 1, 1, 1)


def test_retting_room_not_on_paying_flax():
    s = retting_position(goods6=(0, 0, 0, 3, 0, 0), others=("spinning_wheel", "storeroom"))
    do(s, "take Undergrowth", "use Spinning Wheel: pay 3 flax, +2 gold")
    assert goods(s, 0) == G(gold=2)


def test_retting_room_not_on_weaving_room_payment():
    s = retting_position(goods6=(0, 0, 0, 2, 0, 0), others=("weaving_room", "storeroom"))
    do(s, "take Undergrowth", "use Weaving Room: pay 2 flax, +2 food +2 gold")
    assert goods(s, 0) == G(food=2, gold=2)


def test_retting_room_not_on_converting_flax():
    s = retting_position(goods6=(0, 0, 0, 2, 0, 0))
    do(s, "take Undergrowth", "convert flax->food")
    assert goods(s, 0) == G(flax=1, food=1)


def test_retting_room_of_the_opponent_does_not_fire():
    s = two_player_position()
    place(s, 1, "retting_room", "s10")
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax")
    assert goods(s, 1) == G(1, 1, 1, 1, 1, 1)
    assert goods(s, 0)["food"] == 1


def test_retting_room_capped_flax_nominal_gain_default():
    s = retting_position(goods6=(0, 0, 0, 9, 0, 0))
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax")
    assert goods(s, 0) == G(emmer=2, flax=9, food=1)


def test_retting_room_capped_flax_actual_increase_parameter():
    s = retting_position(goods6=(0, 0, 0, 9, 0, 0), retting_room_counts="actual_increase")
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax")
    assert goods(s, 0) == G(emmer=2, flax=9, food=0)


def test_retting_room_partly_capped_actual_increase_still_counts():
    s = retting_position(goods6=(0, 0, 0, 8, 0, 0), retting_room_counts="actual_increase")
    do(s, "take Undergrowth", "use Secret Chamber: +3 flax")
    assert goods(s, 0) == G(flax=9, food=1)


def test_retting_room_food_is_capped():
    s = retting_position(goods6=(0, 0, 0, 0, 9, 0))
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax")
    assert goods(s, 0) == G(emmer=2, flax=1, food=9)


# ------------------------------------------------------------------------------------------------
# Blue rooms: Equipment Room (+1 room on activate-2/3)


def equipment_position(tile_ids, with_room=True, **options):
    s = two_player_position(revealed=tile_ids, round=4, **options)
    rooms_ = ["gold_vein", "state_room", "storeroom", "secret_chamber"]
    for rid, sp in zip(rooms_, ("s10", "s0", "s1", "s9")):
        place(s, 0, rid, sp)
    if with_room:
        place(s, 0, "equipment_room", "s3")
    give(s, 0, all=0)
    return s


def _use_all(s):
    """Use rooms one after another while any is offered; return how many were used."""
    n = 0
    while True:
        offered = sorted(t for t in legal_texts(s) if t.startswith("use "))
        if not offered:
            return n
        do(s, offered[0])
        n += 1


@pytest.mark.parametrize("with_room, expected", [(False, 2), (True, 3)])
def test_equipment_room_undermining(with_room, expected):
    s = equipment_position(["undermining"], with_room)
    do(s, "take Undermining")
    assert _use_all(s) == expected


@pytest.mark.parametrize("with_room, expected", [(False, 3), (True, 4)])
def test_equipment_room_expedition(with_room, expected):
    s = equipment_position(["expedition"], with_room)
    do(s, "take Expedition")
    assert _use_all(s) == expected


@pytest.mark.parametrize("tile_name", ["Cultivation", "Undergrowth", "Masonry", "Drift Mining"])
def test_equipment_room_not_on_activate_one(tile_name):
    s = equipment_position(["masonry", "drift_mining"])
    do(s, f"take {tile_name}")
    assert _use_all(s) == 1


# ------------------------------------------------------------------------------------------------
# Blue rooms: Wood Storeroom (+1 wood on an activate-1 use)


def wood_storeroom_position(revealed=("masonry", "undermining", "breach", "expedition", "drift_mining"),
                            **options):
    s = two_player_position(revealed=list(revealed), round=4, **options)
    place(s, 0, "wood_storeroom", "s10")
    place(s, 0, "gold_vein", "s0")
    place(s, 0, "state_room", "s1")
    give(s, 0, all=0)
    return s


@pytest.mark.parametrize("tile_name", ["Cultivation", "Undergrowth", "Masonry", "Drift Mining"])
def test_wood_storeroom_on_activate_one(tile_name):
    s = wood_storeroom_position()
    do(s, f"take {tile_name}", "use Cave Entrance: +1 stone")
    assert goods(s, 0) == G(wood=1, stone=1)


@pytest.mark.parametrize("tile_name", ["Undermining", "Expedition"])
def test_wood_storeroom_not_on_activate_two_or_three(tile_name):
    s = wood_storeroom_position()
    do(s, f"take {tile_name}", "use Cave Entrance: +1 stone", "use Gold Vein: +1 stone +1 gold")
    assert goods(s, 0) == G(stone=2, gold=1)


def test_wood_storeroom_needs_the_activation_used_by_default():
    s = wood_storeroom_position()
    do(s, "take Cultivation", "Cultivation: +2 emmer +1 flax", "end turn")
    assert goods(s, 0) == G(emmer=2, flax=1)


def test_wood_storeroom_without_use_parameter():
    s = wood_storeroom_position(wood_storeroom_requires_subaction_use=False)
    do(s, "take Cultivation")
    assert goods(s, 0) == G(wood=1)
    do(s, "use Cave Entrance: +1 stone")
    assert goods(s, 0) == G(wood=1, stone=1)          # once, not twice
    s = wood_storeroom_position(wood_storeroom_requires_subaction_use=False)
    do(s, "take Undermining")
    assert goods(s, 0) == G()


# ------------------------------------------------------------------------------------------------
# Blue rooms: Dungeon (+2 gold per wall built)


def dungeon_position(**options):
    s = two_player_position(revealed=["masonry", "undermining", "breach", "renovation"], round=7, **options)
    place(s, 0, "dungeon", "s10")
    place(s, 0, "gold_vein", "s0")
    place(s, 0, "state_room", "s1")
    give(s, 0, all=0, gold=1)
    give(s, 1, gold=0)
    return s


def test_dungeon_masonry_wall():
    s = dungeon_position()
    do(s, "take Masonry", "Masonry: build wall w6")
    assert goods(s, 0) == G(gold=3)


def test_dungeon_renovation_wall():
    s = dungeon_position()
    do(s, "take Renovation", "Renovation: build wall w6")
    assert goods(s, 0) == G(gold=3)


def test_dungeon_not_on_razing():
    s = dungeon_position()
    build(s, 0, "w6")
    do(s, "take Breach", "Breach: raze wall w6, +2 stone +3 food +1 gold")
    assert goods(s, 0) == G(stone=2, food=3, gold=2)


def test_dungeon_gold_is_capped():
    s = dungeon_position()
    give(s, 0, gold=18)
    do(s, "take Masonry", "Masonry: build wall w6")
    assert goods(s, 0)["gold"] == 19


def test_dungeon_of_the_opponent_does_not_fire():
    s = two_player_position(revealed=["masonry"])
    place(s, 1, "dungeon", "s10")
    do(s, "take Masonry", "Masonry: build wall w6")
    assert goods(s, 0)["gold"] == 1 and goods(s, 1)["gold"] == 1


def _renovation_dungeon_then_wall(**options):
    s = two_player_position(revealed=["renovation"], round=7, **options)
    place(s, 0, "gold_vein", "s0")
    place(s, 0, "state_room", "s1")
    build(s, 0, "w4", "w6", "w7")                        # s4 closed on all four sides
    s.display |= 1 << room("dungeon")
    give(s, 0, all=0, stone=3, gold=5)
    give(s, 1, gold=0)
    do(s, "take Renovation", "Renovation: furnish Dungeon at s4", "Renovation: build wall w0")
    return s


def test_dungeon_active_from_placement_by_default():
    s = _renovation_dungeon_then_wall()
    assert goods(s, 0) == G(gold=3)


def test_dungeon_active_from_next_turn_parameter():
    s = _renovation_dungeon_then_wall(blue_room_active_from="next_turn")
    assert goods(s, 0) == G(gold=1)


def test_blue_rooms_are_passive_not_in_room_uses():
    table = action_table()
    for rid in BLUE:
        assert table.room_uses[room(rid)] == ()
