"""The compiled Caverna engine plays exactly the reference engine's game (core/caverna/compiled.pyx).

Both engines are driven through the same seeded random games, every player count 1-7 and every rule option,
and compared at every step: legal actions, whose move, chance outcomes and their probabilities, the record
(`serialize()`: the history and the whole position, `to_dict()`, which is also the observation), the scores,
and at the end the returns (the shared Python ones and those computed in C); every 25th step also the
observation tensor and the rendering. Targeted games (rich supplies injected, a policy that furnishes the
tiles random play rarely builds and uses the furnishings' conversions) show every furnishing tile furnished,
owned through a harvest, and the active ones used. A fuzz test applies illegal actions to both engines:
the same IllegalActionError message, and both states unchanged. The ported sections are also compared
function by function with the reference on many positions (boards, scoring, husbandry, conversions).

Game counts of the default run and of the slow run are in the test names' parameters and the note of
`test_engines_agree_on_random_games`; the slow tests play 100,000 games.
"""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.core.caverna import board as hb
from cavekit.core.caverna import compiled
from cavekit.core.caverna import conversions as cv
from cavekit.core.caverna import furnishings as fu
from cavekit.core.caverna import husbandry as hu
from cavekit.core.caverna.actions import action_table
from cavekit.core.caverna.reference import stable_ids, tile_ids
from cavekit.core.caverna.rules import ANIMALS, GOODS, rules
from cavekit.core.caverna.scoring import score
from cavekit.core.caverna.summary import PlayerSummary

OPTIONS = [{}, {"office_room_overhang_usable": False}, {"first_forest_tile_anchor": "adjacent_to_either_preprinted_space"},
           {"simple_dwelling_vp": 2}, {"food_chamber_counts": "supply_only"}]
FURNISHING_IDS = [f.id for f in rules().furnishings] + [rules().entry_level_dwelling.id]


def random_positions(players: int, seed: int, steps: int, **params):
    """The positions of one seeded random reference game, up to `steps` steps (or its end)."""
    game = load_game("caverna", players=players, engine="reference", **params)
    rng = np.random.default_rng([players, seed])
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        yield state
        if state.current_player() == CHANCE:
            action = sample_chance_outcome(state.chance_outcomes(), rng.random())
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
        state.apply_action(action)
    yield state


def assert_board_sections_agree(board: hb.Board, config, checked: dict) -> None:
    """Every ported board function gives the reference's answer on `board`."""
    table = action_table()
    assert compiled.board_roundtrip(board) == board
    for tile in hb.TILES:
        if tile == "stable":
            continue
        ids = compiled.tile_ids(board, tile, config)
        assert ids == tile_ids(board, tile, config), tile
        for i in ids:
            placement = table.specs[i].placement
            expected = hb.place_with_gains(board, tile, placement, config)
            assert compiled.place_with_gains(board, i, config) == expected, placement
            checked["placements"] += 1
    stables = compiled.stable_ids(board, config)
    assert stables == stable_ids(board, config)
    for i in stables:
        pos = table.specs[i].pos
        assert compiled.place_stable_at(board, pos) == hb.place(board, "stable", hb.Placement("stable", (pos,), ()),
                                                               config)
    fields = compiled.sowable(board, config)
    assert fields == hb.sowable_fields(board, config)
    for pos in fields:
        for crop in ("grain", "vegetable"):
            assert compiled.sow_at(board, pos, crop) == hb.sow(board, pos, crop, config)
    assert compiled.field_phase(board, config) == hb.harvest_fields(board, config)
    for fid in FURNISHING_IDS:
        where = compiled.targets(board, fid, config)
        assert where == fu.furnish_targets(board, fid, config), fid
        for pos in where:
            assert compiled.furnish_at(board, fid, pos) == fu.furnish(board, fid, pos, config)
            checked["furnishings"] += 1
    owned = frozenset(s.furnishing for _, s in board.items(usable_only=False) if s.furnishing)
    assert compiled.board_counts(board) == (hb.unused_spaces(board), hb.stable_count(board), owned)


def assert_positions_agree(players: int, seeds, steps: int, params: dict, checked: dict) -> None:
    seen = set()
    for seed in seeds:
        for state in random_positions(players, seed, steps, **params):
            config = state._config
            for q, p in enumerate(state.players):
                summary = state.summary(q)
                assert compiled.total_score(summary, config) == score(summary, config).total
                if p.board not in seen:
                    seen.add(p.board)
                    assert_board_sections_agree(p.board, config, checked)
                    checked["boards"] += 1
            checked["positions"] += 1


@pytest.mark.parametrize("players", [1, 4])
def test_board_and_scoring_sections_agree_on_random_games(players):
    checked = {"positions": 0, "boards": 0, "placements": 0, "furnishings": 0}
    assert_positions_agree(players, range(2), 2500, {}, checked)
    assert checked["boards"] > 20 and checked["placements"] > 300 and checked["furnishings"] > 100, checked


@pytest.mark.parametrize("params", OPTIONS[1:], ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_board_and_scoring_sections_agree_under_each_option(params):
    checked = {"positions": 0, "boards": 0, "placements": 0, "furnishings": 0}
    assert_positions_agree(2, range(2), 2500, params, checked)
    assert checked["boards"] > 20, checked


@pytest.mark.slow
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6, 7])
def test_board_and_scoring_sections_agree_on_many_random_games(players):
    checked = {"positions": 0, "boards": 0, "placements": 0, "furnishings": 0}
    for params in OPTIONS:
        assert_positions_agree(players, range(2, 12), 100000, params, checked)


def test_scoring_tables_agree_far_outside_random_play():
    """Goods, animals, dwarfs, weapons and begging markers up to the tables' domains, on boards of random games."""
    rng = np.random.default_rng(18)
    boards = [s.players[q].board for s in random_positions(2, 0, 3000) for q in range(len(s.players))][::25]
    boards.append(hb.parse_board("""
        . . . | O:weaving_parlor R:milking_parlor T:state_parlor
        . . . | C:stone_storage C:ore_storage C:main_storage
        . . . | C:writing_chamber C:food_chamber C:broom_chamber
        . . . | E C:supplies_storage C:prayer_chamber
    """))
    for params in OPTIONS:
        config = load_game("caverna", players=2, engine="reference", **params).config
        for k in range(600):
            board = boards[k % len(boards)]
            top = int(rng.choice([3, 12, 60, 250]))
            dwarfs = int(rng.integers(1, 7))
            summary = PlayerSummary.make(board, {g: int(rng.integers(0, top + 1)) for g in GOODS},
                                         {a: int(rng.integers(0, top + 1)) * int(rng.random() < 0.7) for a in ANIMALS},
                                         dwarfs, tuple(int(rng.integers(1, 15)) for _ in range(int(rng.integers(0, dwarfs + 1)))),
                                         int(rng.integers(0, top + 1)))
            assert compiled.total_score(summary, config) == score(summary, config).total


def test_husbandry_agrees_on_random_animals():
    """can_accommodate and breeding_options (every max_types) on the boards of random games, random animals."""
    rng = np.random.default_rng(9)
    boards = list(dict.fromkeys(s.players[q].board for players in (2, 5) for s in random_positions(players, 1, 4000)
                                for q in range(len(s.players))))
    assert len(boards) > 80
    for params in ({}, {"dog_capacity_rule": "dogs_replace_capacity"}, {"office_room_overhang_usable": False}):
        config = load_game("caverna", players=2, engine="reference", **params).config
        for board in boards:
            for _ in range(6):
                top = int(rng.choice([2, 4, 8, 16]))
                animals = {a: int(rng.integers(0, top + 1)) for a in ANIMALS}
                dwarfs = int(rng.integers(2, 7))
                assert compiled.accommodates(board, animals, dwarfs, config) == hu.can_accommodate(
                    board, animals, dwarfs, config)
                for most in (1, 2, None):
                    assert compiled.breeding(board, animals, dwarfs, config, most) == [
                        tuple(t) for t in hu.breeding_options(board, animals, dwarfs, config, max_types=most)]


CONVERSION_FURNISHINGS = ("slaughtering_cave", "cooking_cave", "beer_parlor", "blacksmithing_parlor",
                          "spare_part_storage", "trader", "hunting_parlor")


@pytest.mark.parametrize("seed", range(3))
def test_conversions_agree_on_random_holdings(seed):
    """food_potential, can_afford and payment_plan (the conversions chosen, in order) on random holdings,
    costs, conversion sources and once-per-harvest limits."""
    rng = np.random.default_rng([18, seed])
    for _ in range(6000):
        h = tuple(int(rng.integers(0, int(rng.choice([2, 4, 7])) + 1)) for _ in cv.KEYS)
        sources = frozenset({"food_conversion", "ruby"} | {f for f in CONVERSION_FURNISHINGS if rng.random() < 0.4})
        if rng.random() < 0.1:
            sources -= {"ruby"}
        once = frozenset(f for f in sources if f in CONVERSION_FURNISHINGS and rng.random() < 0.3)
        cost = [0] * len(cv.KEYS)
        for _ in range(int(rng.integers(1, 4))):
            cost[int(rng.integers(0, len(cv.KEYS)))] += int(rng.integers(1, 6))
        cost = tuple(cost)
        assert compiled.potential(h, sources, once) == cv.food_potential(h, sources, once)
        assert compiled.affords(h, cost, sources, once) == cv.can_afford(h, cost, sources, once)
        assert compiled.plan(h, cost, sources, once) == cv.payment_plan(h, cost, sources, once), (h, cost)


def test_formulas_are_tables_not_expressions():
    """Every scoring and bonus formula of the data is held as coefficients or a lookup table."""
    kinds = compiled.formula_kinds()
    assert set(kinds.values()) <= {"affine", "sum table", "dense table"}
    assert kinds["sheep + donkey + wild_boar + cattle + dog"] == "affine"
    assert kinds["ceil(grain_total / 2)"] == "sum table"
    assert kinds["2 * min(grain_total, vegetable_total)"] == "dense table"


# -- whole games, step by step --------------------------------------------------------------------------

from collections import Counter  # noqa: E402

from cavekit.core import IllegalActionError  # noqa: E402
from cavekit.core.caverna.actions import (BREED, CONVERT, FEED, FURNISH, LOOT, PEACEFUL,  # noqa: E402
                                          RELEASE, WORKING_CAVE)
from cavekit.core.caverna.compiled import CompiledState  # noqa: E402
from cavekit.core.caverna.rules import CONFIG_CHOICES, make_config  # noqa: E402

TABLE = action_table()
ACTIVE = ("trader", "spare_part_storage", "cooking_cave", "hunting_parlor", "beer_parlor", "blacksmithing_parlor",
          "working_cave", "peaceful_cave")


def both(players: int, **params):
    return (load_game("caverna", players=players, engine="reference", **params),
            load_game("caverna", players=players, engine="compiled", **params))


def random_policy(state, legal, rng):
    return legal[rng.integers(len(legal))]


def note(coverage: Counter, ref, action: int) -> None:
    """Count what the move exercises: furnishing, conversions by source, feeding, begging, breeding, loot."""
    spec = TABLE.specs[action]
    if spec.kind == FURNISH:
        coverage[f"furnish {spec.fid}"] += 1
    elif spec.kind == CONVERT:
        coverage[f"use {spec.source}"] += 1
    elif spec.kind == WORKING_CAVE:
        coverage["use working_cave"] += 1
    elif spec.kind == PEACEFUL:
        coverage["use peaceful_cave"] += 1
    elif spec.kind == FEED:
        coverage["feed"] += 1
        p = ref.players[ref.current_player()]
        if ref.feeding_need(ref.current_player()) > p.goods["food"]:
            coverage["feed with begging"] += 1
        for fid in {s.furnishing for _, s in p.board.items(usable_only=False) if s.furnishing}:
            coverage[f"owned at a harvest {fid}"] += 1
    elif spec.kind == BREED:
        coverage["breeding choice"] += 1
    elif spec.kind == LOOT:
        coverage["expedition loot"] += 1


def assert_same_game(ref, fast, rng, coverage: Counter | None = None, policy=random_policy, max_steps=None) -> int:
    """Play both states with the same moves, comparing them at every step; the number of steps."""
    steps = 0
    players, scores = None, []
    while True:
        legal = ref.legal_actions()
        assert fast.legal_actions() == legal, f"legal actions differ at step {steps}"
        assert fast.current_player() == ref.current_player()
        # The record is the parameters, the history (the same moves) and `to_dict()`: the position is compared
        # at every step, the whole JSON record every 25th step and at the end.
        position = ref.to_dict()
        assert fast.to_dict() == position, f"positions differ at step {steps}"
        if position["players"] != players:     # the reference's (slow) scoring reads only a player's own part
            scores = [scores[q] if players and part == players[q] else ref.score_sheet(q).total
                      for q, part in enumerate(position["players"])] or ref.scores()
            players = position["players"]
        assert fast.scores() == scores, f"scores differ at step {steps}"
        if steps % 25 == 0 or ref.is_terminal():
            assert fast.serialize() == ref.serialize(), f"records differ at step {steps}"
            assert fast.observation_tensor(0) == ref.observation_tensor(0)
            assert str(fast) == str(ref)
        if ref.is_terminal():
            assert fast.is_terminal()
            assert fast.returns() == ref.returns() == fast.c_returns()
            if coverage is not None:
                coverage["games"] += 1
                for q, p in enumerate(ref.players):
                    coverage["begging at the end"] += p.begging > 0
            return steps
        if max_steps is not None and steps >= max_steps:
            if coverage is not None:
                coverage["prefixes"] += 1
            return steps
        if ref.is_chance_node():
            assert fast.chance_outcomes() == ref.chance_outcomes()
            action = sample_chance_outcome(ref.chance_outcomes(), rng.random())
        else:
            action = policy(ref, legal, rng)
            if coverage is not None:
                note(coverage, ref, action)
        ref.apply_action(action)
        fast.apply_action(action)
        steps += 1


# Games per player count in the default run: 2,000 in all (one reference solo game takes ~0.07 CPU-s compared
# step by step, a 7-player one ~1.2 s), and in the slow run 100,000 more. Each count is played in chunks of
# about 20 CPU-seconds, so that `pytest -n 2` shares them between the cores.
DEFAULT_GAMES = {1: 1200, 2: 500, 3: 150, 4: 80, 5: 30, 6: 20, 7: 20}
SLOW_GAMES = {1: 50000, 2: 30000, 3: 8000, 4: 6000, 5: 2500, 6: 2000, 7: 1500}
DEFAULT_CHUNK = {1: 300, 2: 100, 3: 50, 4: 40, 5: 30, 6: 20, 7: 10}
SLOW_CHUNK = {1: 2500, 2: 1000, 3: 500, 4: 400, 5: 250, 6: 200, 7: 150}


def chunks(games: dict[int, int], size: dict[int, int], start: dict[int, int] | None = None):
    """(players, first seed, games) for each chunk of the counts."""
    return [(players, (start or {}).get(players, 0) + first, min(size[players], n - first))
            for players, n in games.items() for first in range(0, n, size[players])]


def play_random_games(players: int, first: int, games: int) -> Counter:
    """Seeds first .. first + games - 1 of `players`' random games, compared step by step; the coverage."""
    ref_game, fast_game = both(players)
    coverage = Counter()
    for seed in range(first, first + games):
        rng = np.random.default_rng([players, seed])
        assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng, coverage)
    assert coverage["games"] == games
    return coverage


@pytest.mark.parametrize("players,first,games", chunks(DEFAULT_GAMES, DEFAULT_CHUNK),
                         ids=lambda v: str(v))
def test_engines_agree_on_random_games(players, first, games):
    coverage = play_random_games(players, first, games)
    assert coverage["feed"] > 0 and coverage["feed with begging"] > 0 and coverage["expedition loot"] > 0


def test_the_default_run_compares_two_thousand_games():
    assert sum(games for _, _, games in chunks(DEFAULT_GAMES, DEFAULT_CHUNK)) == sum(DEFAULT_GAMES.values()) == 2000
    assert sum(games for _, _, games in chunks(SLOW_GAMES, SLOW_CHUNK, DEFAULT_GAMES)) == 100000


def _alternatives():
    defaults = make_config().as_dict()
    for name, choices in CONFIG_CHOICES.items():
        for value in choices:
            if value != defaults[name]:
                yield {name: value}
    yield {"solo_covered_spaces": ["supplies", "wood_gathering"]}


@pytest.mark.parametrize("params", list(_alternatives()), ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_engines_agree_with_each_rule_option_changed(params):
    for players, games in ((1, 2), (2, 1), (4, 1)):
        ref_game, fast_game = both(players, **params)
        for seed in range(games):
            rng = np.random.default_rng([players, seed, 7])
            assert_same_game(ref_game.new_initial_state(), fast_game.new_initial_state(), rng)


def test_engines_agree_on_dealt_games():
    """`new_initial_state(seed)` deals the same setup in both engines (core/deal.py)."""
    for players in (1, 2, 5):
        ref_game, fast_game = both(players)
        for seed in range(2):
            rng = np.random.default_rng([players, seed, 3])
            assert_same_game(ref_game.new_initial_state(seed), fast_game.new_initial_state(seed), rng)


def _source(spec) -> str:
    return {WORKING_CAVE: "working_cave", PEACEFUL: "peaceful_cave"}.get(spec.kind, spec.source)


def busy_policy(targets: set[str], coverage: Counter):
    """Furnish a tile still in `targets` when possible, use a furnishing's conversion or the Working / Peaceful
    cave when possible (one not used yet first); otherwise a random move."""
    def choose(state, legal, rng):
        furnish = [a for a in legal if TABLE.specs[a].kind == FURNISH and TABLE.specs[a].fid in targets]
        if furnish:
            return furnish[rng.integers(len(furnish))]
        use = [a for a in legal if (TABLE.specs[a].kind == CONVERT and TABLE.specs[a].source not in
                                    ("food_conversion", "ruby")) or TABLE.specs[a].kind in (WORKING_CAVE, PEACEFUL)]
        new = [a for a in use if coverage[f"use {_source(TABLE.specs[a])}"] == 0]
        if new:
            return new[rng.integers(len(new))]
        if use and rng.random() < 0.3:
            return use[rng.integers(len(use))]
        return legal[rng.integers(len(legal))]
    return choose


def enrich(ref, amount: int):
    """Give every player `amount` of each good and 2 wild boars, as if they had been thrifty (the acting
    player's animals are checked for room, as after any gain)."""
    for p in ref.players:
        for g in GOODS:
            p.goods[g] += amount
        p.animals["wild_boar"] += 2
    ref._check_animals(ref.current_player())
    ref._legal = None
    return ref


def opening(players: int, seed: int):
    """A reference position of the work phase after a random opening, and the generator to go on with."""
    rng = np.random.default_rng([players, seed, 13])
    ref = load_game("caverna", players=players, engine="reference").new_initial_state()
    for _ in range(int(rng.integers(30, 120))):
        if ref.is_chance_node():
            ref.apply_action(sample_chance_outcome(ref.chance_outcomes(), rng.random()))
        else:
            legal = ref.legal_actions()
            ref.apply_action(legal[rng.integers(len(legal))])
    return (ref, rng) if ref.phase == "work" and ref.turn is None else (None, rng)


def give_tile(ref, q: int, fid: str) -> None:
    """Furnish `fid` on player q's board for free (a test position)."""
    p = ref.players[q]
    where = fu.furnish_targets(p.board, fid, ref._config)
    if where and fid not in ref.built:
        p.board = fu.furnish(p.board, fid, where[0], ref._config)
        if not fu.furnishing(fid).unlimited:
            ref.built.append(fid)
    ref._legal = None


def test_every_furnishing_is_built_owned_through_a_harvest_and_used():
    """Targeted games: from positions of random games, rich players and a policy that furnishes the tiles not
    yet covered; both engines compared at every step to the end."""
    coverage = Counter()
    every = [f.id for f in rules().furnishings]
    wanted = set(every)
    seed = 0
    while seed < 40 and (wanted or any(coverage[f"use {fid}"] == 0 for fid in ACTIVE)):
        players = (2, 3, 4)[seed % 3]
        ref_game, fast_game = both(players)
        rng = np.random.default_rng([players, seed, 11])
        ref = ref_game.new_initial_state()
        for _ in range(int(rng.integers(30, 120))):          # a random opening
            if ref.is_chance_node():
                ref.apply_action(sample_chance_outcome(ref.chance_outcomes(), rng.random()))
            else:
                legal = ref.legal_actions()
                ref.apply_action(legal[rng.integers(len(legal))])
        if ref.phase != "work":
            seed += 1
            continue
        enrich(ref, 12)
        fast = CompiledState.from_reference(ref)
        assert fast.to_dict() == ref.to_dict()
        assert_same_game(ref, fast, rng, coverage, policy=busy_policy(wanted, coverage), max_steps=300)
        wanted = {fid for fid in every if coverage[f"furnish {fid}"] == 0 or coverage[f"owned at a harvest {fid}"] == 0}
        seed += 1
    for fid in ACTIVE:          # conversions random play rarely reaches: the tile and its inputs handed over
        attempt = 0
        while coverage[f"use {fid}"] == 0 and attempt < 6:
            ref, rng = opening(2 + attempt % 3, 100 + attempt)
            if ref is not None:
                give_tile(ref, ref.current_player(), fid)
                enrich(ref, 6)
                assert_same_game(ref, CompiledState.from_reference(ref), rng, coverage,
                                 policy=busy_policy(set(), coverage), max_steps=80)
            attempt += 1
    missing = [fid for fid in every if coverage[f"furnish {fid}"] == 0 or coverage[f"owned at a harvest {fid}"] == 0]
    assert not missing, missing
    assert all(coverage[f"use {fid}"] > 0 for fid in ACTIVE), {fid: coverage[f"use {fid}"] for fid in ACTIVE}


BREEDING_BOARD = """
    . . . | . . .
    . . . | . . .
    . . P | C . .
    . . P | E . .
"""


def test_breeding_with_a_choice_of_newborns():
    """Two small pastures and the dwelling for 2 sheep and 2 wild boars: room for the sheep's newborn or the
    boars', not both, so the breeding phase asks (and breeding happens in both engines alike)."""
    coverage = Counter()
    attempt = 0
    def keep_animals(state, legal, rng):
        kept = [a for a in legal if TABLE.specs[a].kind != RELEASE and not (
            TABLE.specs[a].kind == CONVERT and any(g in ANIMALS for g, _ in TABLE.specs[a].pay))]
        return (kept or legal)[rng.integers(len(kept or legal))]

    while coverage["breeding choice"] == 0 and attempt < 40:
        ref, rng = opening(2 + attempt % 2, 200 + attempt)
        attempt += 1
        if ref is None:
            continue
        for p in ref.players:
            p.board = hb.parse_board(BREEDING_BOARD)
            p.animals.update(sheep=2, wild_boar=2)
        ref._check_animals(ref.current_player())
        ref._legal = None
        assert_same_game(ref, CompiledState.from_reference(ref), rng, coverage, policy=keep_animals)
    assert coverage["breeding choice"] > 0


def test_fuzz_illegal_actions_are_refused_alike_and_change_nothing():
    """Random illegal actions (other ids, out of range, not numbers) at random positions of random games."""
    rng = np.random.default_rng(18)
    refused = 0
    for players in (1, 2, 3, 5, 7):
        ref_game, fast_game = both(players)
        for seed in range(2 if players < 5 else 1):
            ref, fast = ref_game.new_initial_state(), fast_game.new_initial_state()
            game_rng = np.random.default_rng([players, seed, 5])
            while not ref.is_terminal():
                legal = ref.legal_actions()
                if rng.random() < 0.12:
                    before, history = ref.serialize(), ref.history()
                    candidates = [a for a in range(TABLE.__len__()) if a not in legal]
                    for action in [candidates[rng.integers(len(candidates))], -1, len(TABLE), 10 ** 6, "x", 2.5]:
                        errors = []
                        for state in (ref, fast):
                            with pytest.raises(IllegalActionError) as info:
                                state.apply_action(action)
                            errors.append(str(info.value))
                        assert errors[0] == errors[1], action
                        assert ref.serialize() == fast.serialize() == before
                        assert ref.history() == fast.history() == history
                        refused += 1
                if ref.is_chance_node():
                    action = sample_chance_outcome(ref.chance_outcomes(), game_rng.random())
                else:
                    action = legal[game_rng.integers(len(legal))]
                ref.apply_action(action)
                fast.apply_action(action)
    assert refused > 500


def test_compiled_states_clone_pickle_and_replay():
    import copy
    import pickle
    _, fast_game = both(3)
    rng = np.random.default_rng(4)
    state = fast_game.new_initial_state()
    for _ in range(150):
        legal = state.legal_actions()
        action = (sample_chance_outcome(state.chance_outcomes(), rng.random()) if state.is_chance_node()
                  else legal[rng.integers(len(legal))])
        state.apply_action(action)
    twin = state.clone()
    assert twin.serialize() == state.serialize() and type(twin) is CompiledState
    assert copy.deepcopy(state).serialize() == state.serialize()
    assert pickle.loads(pickle.dumps(state)).serialize() == state.serialize()
    assert fast_game.deserialize_state(state.serialize()).serialize() == state.serialize()
    twin.apply_action(twin.legal_actions()[0])
    assert twin.history() != state.history()
    assert len(state.random_playout(5)) == 3


@pytest.mark.slow
@pytest.mark.parametrize("players,first,games", chunks(SLOW_GAMES, SLOW_CHUNK, DEFAULT_GAMES), ids=lambda v: str(v))
def test_engines_agree_on_many_random_games(players, first, games):
    """The seeds after the default run's."""
    play_random_games(players, first, games)
