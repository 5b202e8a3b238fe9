"""Caverna's always-allowed conversions in every cost and precondition (issue 18, rule corrections).

The rulebook: rubies are a wild card "at any time" (1 ruby = 1 wood, stone, ore, grain, vegetable, gold, sheep,
donkey, wild boar or dog; cattle 1 ruby + 1 food), goods may be converted into food at any time (gold 2/3/4 ->
1/2/3 food, a donkey 1 and two donkeys 3, ...), and a dwarf may not be placed on a space without carrying out
at least one of its actions. So a placement, a sub-action and a payment count what the player could convert,
and the engine pays by converting (`core/caverna/conversions.py`). Each test below failed before the fix.
"""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from cavekit.core import CHANCE, IllegalActionError
from cavekit.core import load_game as _load_game
from cavekit.core.caverna import conversions as cv
from cavekit.core.caverna.reference import _satisfied

from test_caverna_actions import can, do, legal, setup, start
from test_caverna_game import skip_to


def load_game(name, **params):
    """The game on the reference engine: these tests build positions by editing the reference engine's fields
    (the compiled engine, the default, plays the same game: tests/test_caverna_compiled.py)."""
    return _load_game(name, **{"engine": "reference", **params})


def with_tile(fid: str, forest: str = ". . .\n. . .\n. . .\n. . .") -> str:
    """A board with furnishing `fid` on the cavern (2,3) beside the entry-level dwelling."""
    rows = forest.split("\n")
    mountain = [". . .", ". . .", f"C:{fid} . .", "E . ."]
    return "\n".join(f"{f} | {m}" for f, m in zip(rows, mountain))


def refusal(state, text) -> str:
    """The reason an illegal action is refused; the state is unchanged after it."""
    before = state.serialize()
    assert not can(state, text)
    with pytest.raises(IllegalActionError) as err:
        do(state, text)
    assert state.serialize() == before
    return str(err.value)


# ------------------------------------------------------------------------------------------------------
# 1. Rubies may be exchanged at any time, also before placing a dwarf and in the middle of a payment

def test_one_ore_and_one_ruby_may_be_placed_on_ore_trading_the_ruby_becomes_the_second_ore():
    s = start()
    p = setup(s, goods={"ore": 1, "ruby": 1}, spaces=["ore_trading"])
    do(s, "place ore_trading", "trade 2 ore -> 2 gold + 1 food")
    assert (p.goods["ore"], p.goods["ruby"], p.goods["gold"], p.goods["food"]) == (0, 0, 2, 1)
    assert not can(s, "trade 2 ore -> 2 gold + 1 food")
    do(s, "end turn")


def test_blacksmithing_forges_with_a_ruby_and_no_ore():
    s = start()
    p = setup(s, goods={"ruby": 1}, spaces=["blacksmithing"])
    do(s, "place blacksmithing")
    assert can(s, "forge weapon 1") and not can(s, "forge weapon 2")
    do(s, "forge weapon 1")
    assert s.turn.dwarf == 1 and p.goods["ruby"] == 0


def test_family_life_sows_with_rubies_in_place_of_grain():
    s = start()
    p = setup(s, goods={"ruby": 1}, spaces=["family_life"], board="""
        . . . | . . .
        . . . | . . .
        . . . | C . .
        . . F | E . .
    """)
    do(s, "place family_life", "sow grain at 3,2", "end turn")
    assert p.board.at((3, 2)).crop_count == 3 and p.goods["ruby"] == 0


def test_slash_and_burn_sows_with_rubies_when_no_tile_fits():
    s = start()
    p = setup(s, goods={"ruby": 2}, board="""
        M M M | . . .
        M M M | . . .
        M M M | C . .
        M F F | E . .
    """)
    do(s, "place slash_and_burn", "sow vegetable at 3,1", "sow grain at 3,2", "end turn")
    assert p.board.at((3, 1)).crop_count == 2 and p.board.at((3, 2)).crop_count == 3 and p.goods["ruby"] == 0


def test_a_ruby_makes_up_the_missing_wood_of_a_dwelling():
    s = start()
    p = setup(s, goods={"wood": 3, "stone": 3, "ruby": 1})
    do(s, "place housework", "furnish dwelling at 2,3")
    assert (p.goods["wood"], p.goods["stone"], p.goods["ruby"]) == (0, 0, 0)
    assert p.board.at((2, 3)).furnishing == "dwelling"


def test_conversions_that_would_leave_the_space_undone_are_refused_until_it_is_carried_out():
    s = start()
    p = setup(s, goods={"ore": 1, "ruby": 1}, spaces=["ore_trading"])
    do(s, "place ore_trading")
    assert not can(s, "convert 1 ruby -> 2 food")       # the ruby must become the second ore
    assert not can(s, "end turn")
    do(s, "trade 2 ore -> 2 gold + 1 food")
    assert can(s, "convert 2 gold -> 1 food") and can(s, "end turn")
    assert p.goods["ruby"] == 0


# ------------------------------------------------------------------------------------------------------
# 2. The food a player can raise: gold 2/3/4 -> 1/2/3, a donkey 1 (two 3), the food furnishings

def imitating(players: int, goods=None, animals=None, board=None):
    """The first player took Forest exploration; the second player, set up as given, is to move."""
    s = start(players=players)
    setup(s)
    forest = "forest_exploration_3p" if players == 3 else "forest_exploration_4_7"
    do(s, f"place {forest}", "end turn")
    p = setup(s, goods=goods, animals=animals, board=board)
    return s, p, forest


IMITATION = {3: "imitation_3p", 4: "imitation_4_7", 6: "imitation_6_7"}     # 4, 2 and 1 food


@pytest.mark.parametrize("players, gold, cost", [(6, 2, 1), (4, 3, 2)])
def test_imitation_is_paid_with_gold_by_the_printed_rates(players, gold, cost):
    s, p, forest = imitating(players, goods={"gold": gold})
    do(s, f"place {IMITATION[players]}", f"imitate {forest}")
    assert p.goods["gold"] == 0 and p.goods["food"] == 2          # n+1 gold paid n food; the space gave 2


def test_four_gold_give_three_food_and_five_gold_no_more_than_three():
    s, p, forest = imitating(3, goods={"gold": 4, "grain": 1})
    do(s, "place imitation_3p", f"imitate {forest}")              # 4 gold -> 3 food, 1 grain -> 1 food
    assert (p.goods["gold"], p.goods["grain"], p.goods["food"]) == (0, 0, 0)
    s, p, _ = imitating(3, goods={"gold": 5})
    assert "raise only 3" in refusal(s, "place imitation_3p")
    s, p, forest = imitating(3, goods={"gold": 6})                # 4 -> 3 and 2 -> 1
    do(s, "place imitation_3p", f"imitate {forest}")
    assert p.goods["gold"] == 0 and p.goods["food"] == 0


def test_a_donkey_is_one_food_and_two_donkeys_are_three():
    s, p, _ = imitating(4, animals={"donkey": 1})
    assert "raise only 1" in refusal(s, "place imitation_4_7")
    s, p, forest = imitating(4, animals={"donkey": 2})
    do(s, "place imitation_4_7", f"imitate {forest}")
    assert p.animals["donkey"] == 0 and p.goods["food"] == 1 + 2


@pytest.mark.parametrize("fid, goods, animals", [
    ("cooking_cave", {"grain": 1, "vegetable": 1}, {}),          # 1 grain + 1 vegetable -> 5 food
    ("beer_parlor", {"grain": 2}, {}),                           # 2 grain -> 4 food
    ("slaughtering_cave", {}, {"sheep": 2}),                     # 1 extra food per animal converted
])
def test_imitation_counts_the_food_furnishings(fid, goods, animals):
    s, p, _ = imitating(3, goods=goods, animals=animals)
    assert not can(s, "place imitation_3p")                      # 3 food, or 2, without the tile
    s, p, forest = imitating(3, goods=goods, animals=animals, board=with_tile(fid))
    do(s, "place imitation_3p", f"imitate {forest}")
    assert p.goods["food"] >= 0 and p.goods["grain"] == 0 and p.animals["sheep"] == 0


def test_feeding_lets_a_player_short_of_food_convert_goods_or_take_begging_markers():
    # Rulebook: "If you do not have enough Food, you may convert goods into Food, or take Begging markers."
    s = skip_to(load_game("caverna", players=2).new_initial_state(seed=1), "feeding", np.random.default_rng(1))
    p = setup(s, goods={"food": 1, "grain": 1, "vegetable": 1, "gold": 2})
    p.ready, p.newborns = [0, 0], 0
    assert "convert 1 grain -> 1 food" in legal(s) and "convert 2 gold -> 1 food" in legal(s)
    do(s, "feed")                                                # begging instead of converting: 3 markers
    assert (p.goods["food"], p.goods["grain"], p.goods["vegetable"], p.goods["gold"], p.begging) == (0, 1, 1, 2, 3)
    p = setup(s, goods={"gold": 3, "grain": 1})
    p.ready, p.newborns = [0, 0], 0
    do(s, "convert 3 gold -> 2 food", "convert 1 grain -> 1 food", "feed")   # 3 of 4 food, 1 marker
    assert (p.goods["gold"], p.goods["grain"], p.goods["food"], p.begging) == (0, 0, 0, 1)


def test_feeding_converting_raises_what_is_missing_cheapest_first_and_begs_only_for_the_rest():
    s = skip_to(load_game("caverna", players=2).new_initial_state(seed=1), "feeding", np.random.default_rng(1))
    p = setup(s, goods={"food": 1, "grain": 1, "vegetable": 1, "gold": 2})
    p.ready, p.newborns = [0, 0], 0
    do(s, "feed, converting what is missing")                    # 4 food: 1 + grain 1 + vegetable 2
    assert (p.goods["food"], p.goods["grain"], p.goods["vegetable"], p.goods["gold"], p.begging) == (0, 0, 0, 2, 0)
    p = setup(s, goods={"gold": 3})
    p.ready, p.newborns = [0, 0], 0
    do(s, "feed, converting what is missing")                    # 3 gold -> 2 food, 2 begging markers
    assert (p.goods["gold"], p.goods["food"], p.begging) == (0, 0, 2)


def test_feeding_converting_is_offered_only_when_a_conversion_would_pay_some_of_the_feeding():
    s = skip_to(load_game("caverna", players=2).new_initial_state(seed=1), "feeding", np.random.default_rng(1))
    p = setup(s, goods={"food": 4, "grain": 2})
    p.ready, p.newborns = [0, 0], 0
    assert "feed, converting what is missing" not in legal(s)    # the food held pays it all
    p = setup(s, goods={"wood": 3, "stone": 2})
    p.ready, p.newborns = [0, 0], 0
    assert "feed, converting what is missing" not in legal(s)    # nothing converts into food
    p = setup(s, goods={"food": 1, "sheep": 0, "grain": 1})
    p.ready, p.newborns = [0, 0], 0
    assert "feed, converting what is missing" in legal(s)


def _most_food(h, sources, once):
    """The most food any sequence of conversions reaches (a search over all of them)."""
    best, seen = 0, set()
    stack = [(h, sources, once)]
    while stack:
        h, sources, once = stack.pop()
        if (h, sources, once) in seen:
            continue
        seen.add((h, sources, once))
        best = max(best, h[cv.FOOD])
        for r in cv.rows(sources):
            if cv.covers(h, r.pay):
                used = {r.source} if r.source in once else set()
                stack.append((cv._apply(h, r), sources - used, once - used))
    return best


def test_food_potential_is_the_most_any_conversion_sequence_reaches_and_payments_reach_it():
    rng = random.Random(18)
    furnishings = ["cooking_cave", "slaughtering_cave", "beer_parlor", "hunting_parlor", "blacksmithing_parlor",
                   "spare_part_storage", "trader"]
    for _ in range(40):
        h = tuple(rng.choice((0, 0, 0, 1, 2)) if k in ("grain", "vegetable", "ruby", "ore", "wood", "stone", "sheep",
                                                     "donkey", "wild_boar", "cattle", "food")
                  else rng.choice((0, 2, 3, 5)) if k == "gold" else 0 for k in cv.KEYS)
        owned = frozenset(f for f in furnishings if rng.random() < 0.4)
        sources = frozenset({"food_conversion", "ruby"}) | owned
        once = frozenset(owned - {"cooking_cave", "slaughtering_cave"}) if rng.random() < 0.3 else frozenset()
        most = cv.food_potential(h, sources, once)
        assert most == _most_food(h, sources, once), (dict(zip(cv.KEYS, h)), sorted(owned))
        for need in range(h[cv.FOOD], most + 2):
            plan = cv.payment_plan(h, cv.as_cost({"food": need}), sources, once)
            assert (plan is None) == (need > most)
            if plan is not None:
                after, s2, o2 = h, sources, once
                for i in plan:
                    r = next(r for r in cv.rows(s2) if r.id == i)
                    assert cv.covers(after, r.pay)
                    after = cv._apply(after, r)
                    if r.source in o2:
                        s2, o2 = s2 - {r.source}, o2 - {r.source}
                assert after[cv.FOOD] >= need


# ------------------------------------------------------------------------------------------------------
# 3. A dwarf may not be placed where nothing can be carried out; the refusal names the space and the lack

def test_imitation_without_the_food_is_refused_at_placement_with_the_reason():
    s, p, _ = imitating(4, goods={"grain": 1})
    why = refusal(s, "place imitation_4_7")
    assert "imitation_4_7" in why and "2 food" in why and "raise only 1" in why
    assert "place imitation_4_7" not in legal(s)


@pytest.mark.parametrize("space, goods, lack", [
    ("ore_trading", {"ore": 1}, "2 ore"),
    ("blacksmithing", {"wood": 3}, "1 ore"),
])
def test_a_space_whose_mandatory_cost_cannot_be_paid_is_refused_with_the_reason(space, goods, lack):
    s = start()
    setup(s, goods=goods, spaces=[space])
    why = refusal(s, f"place {space}")
    assert space in why and lack in why


@pytest.mark.parametrize("players, seed", [(2, 3), (3, 4), (4, 5)])
def test_in_random_games_a_placed_dwarf_always_carries_out_its_space(players, seed):
    """`end turn` is legal only once the space has been carried out (with random conversions in between)."""
    s = load_game("caverna", players=players).new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    end = s.string_to_action("end turn")
    while not s.is_terminal():
        if s.current_player() == CHANCE:
            outcomes, probs = zip(*s.chance_outcomes())
            s.apply_action(int(rng.choice(outcomes, p=np.array(probs) / sum(probs))))
            continue
        actions = s.legal_actions()
        t = s.turn
        if s.phase == "work" and t is not None and end in actions and not t.pending:
            assert t.tree is not None and (t.did_something or _satisfied(t.tree, t.done, 0)), \
                f"{t.space}: end turn with nothing carried out"
        s.apply_action(int(rng.choice(actions)))
