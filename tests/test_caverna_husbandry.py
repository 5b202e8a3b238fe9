"""Caverna animal husbandry (shared/rules/caverna.md section 9): holdings and their capacities, dogs watching
sheep, and the exact optimal accommodation (checked against brute force on random small boards)."""
from __future__ import annotations

import itertools
import random

import pytest

from cavekit.core.caverna import board as hb
from cavekit.core.caverna import husbandry as hu
from cavekit.core.caverna.board import initial_board, parse_board
from cavekit.core.caverna.rules import FARM_ANIMALS, make_config

START = initial_board()
REPLACE = make_config(dog_capacity_rule="dogs_replace_capacity")


def caps(board, dwarfs=2, config=None):
    return {h.name: (h.capacity, h.types if len(h.types) < 4 else "any") for h in hu.holdings(board, dwarfs, config)}


def fits(board, dwarfs=2, config=None, **animals):
    return hu.can_accommodate(board, animals, dwarfs, config)


# -- holdings ---------------------------------------------------------------------------------------------

def test_pastures_hold_two_per_space_doubled_by_each_stable():
    """Small pasture 2 / 4; large pasture 4 / 8 / 16."""
    b = parse_board("""
        P  P*  .  | . . .
        La Lb* Lc*| . . .
        La Lb  Lc*| C . .
        .  .   .  | E . .
    """)
    got = caps(b)
    assert got["small pasture 0,0"] == (2, "any") and got["small pasture 0,1"] == (4, "any")
    assert got["large pasture 1,0+2,0"] == (4, "any") and got["large pasture 1,1+2,1"] == (8, "any")
    assert got["large pasture 1,2+2,2"] == (16, "any")
    assert [hu.pasture_capacity(1, s) for s in (0, 1)] == [2, 4]


def test_stables_meadows_forest_and_mines():
    b = parse_board("""
        M*  M   .* | O R D
        F   .   .  | T . .
        .   .   .  | C . .
        .   .   .  | E . .
    """)
    got = caps(b)
    assert got["meadow 0,0"] == (1, "any")                   # a stable on a meadow: any 1 farm animal
    assert got["meadow 0,1"] == (0, "any")                   # a meadow alone keeps nothing (dogs aside)
    assert got["forest stable 0,2"] == (1, ("wild_boar",))   # a stable on bare forest: 1 wild boar
    assert got["ore mine 0,3"] == (1, ("donkey",)) and got["ruby mine 0,4"] == (1, ("donkey",))
    assert got["entry_level_dwelling 3,3"] == (2, "any")
    assert not any("1,0" in name or "0,5" in name or "1,3" in name for name in got)   # field, deep tunnel, tunnel


def test_furnishing_rooms():
    b = parse_board("""
        F:g2 F   F | C:mixed_dwelling C:breakfast_room C:cuddle_room
        .    .   . | C:stubble_room . .
        .    .   . | C . .
        .    .   . | E . .
    """)
    got = caps(b, dwarfs=4)
    assert got["mixed_dwelling 0,3"] == (2, "any") and got["breakfast_room 0,4"] == (3, ("cattle",))
    assert got["cuddle_room 0,5"] == (4, ("sheep",))
    assert {n for n in got if n.startswith("stubble_room")} == {"stubble_room field 0,1", "stubble_room field 0,2"}
    assert caps(b, dwarfs=5)["cuddle_room 0,5"] == (5, ("sheep",))       # the newborn of this round counts


# -- the rulebook's husbandry rules -------------------------------------------------------------------------

def test_one_type_per_holding():
    assert fits(START, sheep=2) and fits(START, cattle=2)
    assert not fits(START, sheep=1, donkey=1)
    assert hu.frontier(START, {"sheep": 1, "donkey": 1}, 2) == [
        {"sheep": 0, "donkey": 1, "wild_boar": 0, "cattle": 0, "dog": 0},
        {"sheep": 1, "donkey": 0, "wild_boar": 0, "cattle": 0, "dog": 0}]


def test_dogs_watch_sheep_on_meadows_and_pastures():
    """1/2/3 dogs watch 2/3/4 sheep on a meadow; never on a field or bare forest."""
    meadow = parse_board("M . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")
    for dogs in (1, 2, 3):
        assert fits(meadow, sheep=dogs + 1, dog=dogs) and not fits(meadow, sheep=dogs + 2, dog=dogs)
    assert not fits(meadow, donkey=1, dog=3)                       # dogs watch sheep only
    field = parse_board("F .* . | . . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")
    assert not fits(field, sheep=1, dog=3)
    assert fits(START, dog=20)                                     # dogs live anywhere without limit


def test_dogs_and_a_stable_are_alternatives():
    """With dogs watching, the stable is not used: 2 dogs on a small pasture with a stable = max(4, 3)."""
    b = parse_board("P* . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")
    assert fits(b, sheep=4, dog=2) and not fits(b, sheep=5, dog=2)
    assert fits(b, sheep=5, dog=4) and not fits(b, sheep=6, dog=4)
    two = parse_board("M M . | . . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")
    assert fits(two, sheep=5, dog=3) and not fits(two, sheep=6, dog=3)   # 2+1 and 1+1 dogs: 3 + 2 sheep


@pytest.mark.parametrize("rule", ["max_of_both", "dogs_replace_capacity"])
def test_dog_capacity_rule_for_a_given_layout(rule):
    """Section 14 dog_capacity_rule: the better of dogs+1 and the pasture, or exactly dogs+1 with dogs there."""
    config = make_config(dog_capacity_rule=rule)
    big = hu.Holding("large pasture", ((0, 0), (1, 0)), 16, FARM_ANIMALS, True)
    assert hu.holding_capacity(big, "sheep", 0, config) == 16
    assert hu.holding_capacity(big, "sheep", 1, config) == (16 if rule == "max_of_both" else 2)
    assert hu.holding_capacity(big, "cattle", 1, config) == (16 if rule == "max_of_both" else 0)
    meadow = hu.Holding("meadow", ((0, 0),), 0, FARM_ANIMALS, True)
    assert hu.holding_capacity(meadow, "sheep", 3, config) == 4
    b = parse_board("La* . . | . . .\nLa* . . | . . .\n. . . | C . .\n. . . | C . .")
    layout = hu.Arrangement((("large pasture 0,0+1,0", "sheep", 10, 1),))
    problem = hu.check_layout(b, layout, 2, config)
    assert (problem is None) is (rule == "max_of_both")
    if problem:
        assert "room for 2 with 1 dog" in problem


@pytest.mark.parametrize("rule", ["max_of_both", "dogs_replace_capacity"])
def test_both_dog_rules_give_the_same_optimum(rule):
    """Dogs can always wait somewhere harmless, so the optimum never depends on the reading."""
    config = make_config(dog_capacity_rule=rule)
    b = parse_board("La* M P* | . . .\nLa  M . | . . .\n. . . | C . .\n. . . | C . .")
    assert hu.max_keepable(b, {"sheep": 30, "cattle": 30, "dog": 3}, 2, config) == \
        {"sheep": 8 + 4 + 4 + 1, "donkey": 0, "wild_boar": 0, "cattle": 8 + 4}


def test_mixed_types_on_a_rulebook_like_board():
    b = parse_board("""
        P*  M*  .* | O . .
        La  Lb  .  | T . .
        La  Lb  .  | C:breakfast_room . .
        F   M   M  | E . .
    """)
    # small pasture+stable 4, meadow+stable 1, forest stable 1 boar, 2 large pastures 4 each, ore mine 1 donkey,
    # breakfast room 3 cattle, entry-level dwelling 2, bare meadows 0 (dogs only)
    # fixed: 1 donkey (mine), 1 wild boar (forest stable), 3 cattle (Breakfast room); then 4 of each type are
    # left for P* 4, La 4, Lb 4, entry-level dwelling 2 and M* 1: only three types can get 4
    assert fits(b, sheep=4, donkey=5, wild_boar=5, cattle=6)
    assert not fits(b, sheep=4, donkey=5, wild_boar=5, cattle=7)
    assert hu.max_keepable(b, {a: 40 for a in FARM_ANIMALS}, 2) == {
        "sheep": 4 + 1 + 4 + 4 + 2, "donkey": 1 + 4 + 4 + 4 + 2 + 1, "wild_boar": 1 + 4 + 4 + 4 + 2 + 1,
        "cattle": 3 + 4 + 4 + 4 + 2 + 1}


def test_accommodate_releases_as_few_as_possible():
    b = parse_board("P . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")   # room for 2 (or 2 watched)
    result = hu.accommodate(b, {"sheep": 3, "cattle": 2, "dog": 1}, 2)
    assert sum(result.released.values()) == 3
    assert result.kept == {"sheep": 0, "donkey": 0, "wild_boar": 0, "cattle": 2, "dog": 1}   # more food value
    assert hu.check_layout(b, result.layout, 2) is None
    # with more holdings, the best keeps more types (a missing type costs points)
    b2 = parse_board("P M* . | . . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")
    kept = hu.accommodate(b2, {"sheep": 4, "cattle": 1}, 2).kept
    assert kept["sheep"] == 4 and kept["cattle"] == 1
    kept = hu.accommodate(b2, {"sheep": 5, "donkey": 1, "cattle": 1}, 2).kept
    assert (kept["sheep"], kept["donkey"], kept["cattle"]) == (4, 0, 1)      # 5 kept, 2 types, cattle over donkey
    cattle_first = hu.accommodate(START, {"sheep": 2, "cattle": 2}, 2, value=lambda a, k: (k if a == "cattle" else 0,))
    assert cattle_first.kept["cattle"] == 2 and cattle_first.released == {"sheep": 2}
    everything = hu.accommodate(b2, {"sheep": 2, "cattle": 1, "dog": 1}, 2)
    assert everything.released == {} and everything.kept["sheep"] == 2


def test_accommodate_agrees_with_the_frontier():
    rng = random.Random(5)
    for _ in range(30):
        b = random_board(rng)
        animals = dict(zip(FARM_ANIMALS, (rng.randint(0, 5) for _ in FARM_ANIMALS)), dog=rng.randint(0, 2))
        points = hu.frontier(b, animals, 3)
        best = max(sum(p[a] for a in FARM_ANIMALS) for p in points)
        result = hu.accommodate(b, animals, 3)
        assert sum(result.kept[a] for a in FARM_ANIMALS) == best
        assert {a: result.kept[a] for a in FARM_ANIMALS} in [{a: p[a] for a in FARM_ANIMALS} for p in points]
        assert hu.check_layout(b, result.layout, 3) is None


def test_breeding_newborns_need_room():
    b = parse_board("P . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")   # 2 + 2
    assert hu.breeding_options(b, {"sheep": 2, "donkey": 2}, 2) == []          # no newborn fits
    b = parse_board("P* . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")  # 4 + 2
    assert hu.breeding_options(b, {"sheep": 2, "donkey": 2}, 2) == [("sheep",), ("donkey",)]   # not both
    b = parse_board("P* P* . | . . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")
    assert hu.breeding_options(b, {"sheep": 2, "donkey": 2, "cattle": 1}, 2) == [("sheep", "donkey")]
    assert set(hu.breeding_options(b, {"sheep": 2, "donkey": 2}, 2, max_types=1)) == {("sheep",), ("donkey",)}
    one_slot = parse_board("P* . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | E . .")
    assert hu.breeding_options(one_slot, {"sheep": 2, "donkey": 1}, 2) == [("sheep",)]   # a single donkey never breeds


def test_donkeys_in_mines():
    b = parse_board(". . . | O R D\n. . . | O . .\n. . . | C . .\n. . . | E . .")
    assert hu.donkeys_in_mines(b, 5) == 3 and hu.donkeys_in_mines(b, 2) == 2
    assert hu.ore_mines_with_donkeys(b, 5) == 2 and hu.ore_mines_with_donkeys(b, 1) == 1


def test_stubble_room_uses_only_unsown_fields():
    b = parse_board("F F:g3 F:v1 | C:stubble_room . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")
    assert fits(b, sheep=1) and not fits(b, sheep=2)
    b = parse_board("F F F:v1 | C:stubble_room . .\n. . . | . . .\n. . . | C . .\n. . . | C . .")
    assert fits(b, sheep=1, cattle=1) and not fits(b, sheep=1, cattle=1, donkey=1)


@pytest.mark.parametrize("usable", [True, False])
def test_overhang_meadows_hold_animals_only_when_usable(usable):
    config = make_config(office_room_overhang_usable=usable)
    b = parse_board("M* . . | . . .\n. . . | . . .\n. . . | C:office_room . .\n. . . | C . .\n@-1,0 P*")
    assert hu.can_accommodate(b, {"cattle": 5}, 2, config) is usable


def test_arrange_gives_a_valid_layout_or_none():
    b = parse_board("La* M P | O . .\nLa M . | . . .\n. . . | C:cuddle_room . .\n. . . | E . .")
    animals = {"sheep": 9, "donkey": 1, "cattle": 2, "dog": 2}
    layout = hu.arrange(b, animals, 3)
    assert layout is not None and hu.check_layout(b, layout, 3) is None
    kept = {a: 0 for a in FARM_ANIMALS}
    for _, animal, count, _ in layout.placed:
        kept[animal] += count
    assert kept == {"sheep": 9, "donkey": 1, "wild_boar": 0, "cattle": 2}
    assert layout.wandering_dogs + sum(d for *_, d in layout.placed) == 2
    assert hu.arrange(b, {"wild_boar": 12}, 3) is not None                    # 8 + 2 + 2 (entry-level)
    assert hu.arrange(b, {"wild_boar": 13}, 3) is None
    assert "more than one farm animal type" in hu.check_layout(b, hu.Arrangement((
        ("small pasture 0,2", "sheep", 1, 0), ("small pasture 0,2", "cattle", 1, 0))), 3)
    assert "no holding named" in hu.check_layout(b, hu.Arrangement((("barn", "sheep", 1, 0),)), 3)


# -- exactness against brute force ----------------------------------------------------------------------------

FOREST_TOKENS = [".", ".*", "M", "M*", "P", "P*", "F"]
MOUNTAIN_TOKENS = [".", "O", "R", "C", "C:mixed_dwelling", "C:breakfast_room", "C:cuddle_room", "C:stubble_room"]


def random_board(rng):
    """A random small board: a few forest holdings, maybe a large pasture, a few mountain rooms."""
    forest = [rng.choice(FOREST_TOKENS) if rng.random() < 0.35 else "." for _ in range(12)]
    if rng.random() < 0.4:
        forest[0], forest[3] = "La" + rng.choice(["", "*"]), "La" + rng.choice(["", "*"])
    mountain = [rng.choice(MOUNTAIN_TOKENS) if rng.random() < 0.3 else "." for _ in range(12)]
    seen, unique = set(), []
    for token in mountain:
        unique.append("C" if token.startswith("C:") and token in seen else token)
        seen.add(token)
    unique[11] = "E"
    rows = [" ".join(forest[3 * r:3 * r + 3]) + " | " + " ".join(unique[3 * r:3 * r + 3]) for r in range(4)]
    return parse_board("\n".join(rows))


def brute_force_capacities(holdings, dogs, config):
    """Every capacity vector reachable by giving each holding one type (or none) and spreading the dogs."""
    options = []
    for h in holdings:
        choices = [(None, 0)]
        for animal in FARM_ANIMALS:
            for d in (range(dogs + 1) if h.watchable else (0,)):
                if hu.holding_capacity(h, animal, d, config) > 0:
                    choices.append((animal, d))
        options.append(choices)
    vectors = set()
    for combo in itertools.product(*options):
        if sum(d for _, d in combo) > dogs:
            continue
        v = [0] * 4
        for h, (animal, d) in zip(holdings, combo):
            if animal:
                v[FARM_ANIMALS.index(animal)] += hu.holding_capacity(h, animal, d, config)
        vectors.add(tuple(v))
    return vectors


@pytest.mark.parametrize("config", [make_config(), REPLACE], ids=["max_of_both", "dogs_replace"])
def test_optimum_matches_brute_force_on_random_boards(config):
    rng = random.Random(11)
    checked = 0
    while checked < 25:
        b = random_board(rng)
        dwarfs = rng.randint(2, 4)
        dogs = rng.randint(0, 2)
        hs = hu.holdings(b, dwarfs, config)
        if len([h for h in hs if h.watchable or len(h.types) > 1]) > 5 or len(hs) > 7:
            continue
        checked += 1
        vectors = brute_force_capacities(hs, dogs, config)
        for counts in itertools.product(range(4), repeat=4):
            animals = dict(zip(FARM_ANIMALS, counts), dog=dogs)
            expected = any(all(v[t] >= counts[t] for t in range(4)) for v in vectors)
            assert hu.can_accommodate(b, animals, dwarfs, config) is expected, (hb.render(b), animals)
            if expected and sum(counts) and rng.random() < 0.1:
                layout = hu.arrange(b, animals, dwarfs, config)
                assert layout is not None and hu.check_layout(b, layout, dwarfs, config) is None
        big = {a: 5 for a in FARM_ANIMALS}
        for point in hu.frontier(b, dict(big, dog=dogs), dwarfs, config):
            assert hu.can_accommodate(b, point, dwarfs, config)
            for a in FARM_ANIMALS:                      # Pareto-maximal: no single extra animal fits
                if point[a] < 5:
                    assert not hu.can_accommodate(b, dict(point, **{a: point[a] + 1}), dwarfs, config)


def test_large_counts_stay_fast():
    b = parse_board("""
        La* Lb* Lc*  | O O R
        La  Lb  Lc   | C:cuddle_room C:breakfast_room C:stubble_room
        P   P   P    | C:mixed_dwelling C C
        F   F   F    | E C C
    """)
    animals = {"sheep": 30, "donkey": 25, "wild_boar": 25, "cattle": 25, "dog": 6}
    kept = hu.accommodate(b, animals, 5).kept
    # 3 large pastures 8, 3 small pastures 2, 3 mines, Cuddle room 5, Breakfast room 3, 3 Stubble fields,
    # Mixed and entry-level dwelling 2 each, and 6 dogs watching 7 sheep on one small pasture (+5)
    assert sum(kept[a] for a in FARM_ANIMALS) == 8 * 3 + 2 * 3 + 3 + 5 + 3 + 3 + 2 + 2 + 5
