"""Property tests of the Cave vs Cave reference engine over random games (rules sections 4, 5, 11 and 15).

A game is named by a seed: a numpy Generator built from it samples every chance outcome and picks every
player action (see `cvc_random_play`). `GameChecker` watches a game step by step and checks, independently
of the engine's own bookkeeping where it can:

* at every step: the API shape (legal actions sorted, unique, in range; chance outcomes a distribution;
  terminal states have no moves), goods within 0..9 (gold 0..19), walls on both boards + supply = 7,
  more orange than blue rooms on every cave, every room in exactly one place, scores = room VP + gold;
* at every `take`: the tile is face up and not yet taken this round; Renovation only with strictly more gold;
* at the end: rounds, tile stages, exact turns per player per round, the alternating starting player,
  scores and returns with the tie-break, the history length bound, and that replaying the history
  reproduces the final position.

The default run stays small; `-m slow` plays thousands of games with the same checks.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cavekit.core import load_game
from cavekit.core.api import CHANCE, TERMINAL
from cavekit.core.cvc.actions import ROOM_USE, TAKE, action_table
from cavekit.core.cvc.board import EMPTY, FACE_DOWN, UNAVAILABLE
from cavekit.core.cvc.rules import CAVE_ENTRANCE, CAVERN, CONFIG_CHOICES, NUM_ROOMS, rules

from cvc_random_play import POLICIES, walk

R = rules()
TABLE = action_table()
GOODS_CAPS = (9, 9, 9, 9, 9, 19)          # wood, stone, emmer, flax, food, gold (rules section 5)
GOLD = 5
WALLS_TOTAL = 7
ENTRANCE_SPACE = 6                         # s6 holds the preprinted Cave Entrance
# Rules section 4: turns per player in each round, and the stage of the tile revealed at its start.
TURNS = {2: (2, 2, 2, 3, 3, 3, 3, 4), 1: (2, 2, 2, 3, 3, 3, 4)}
STAGES = {2: (2, 2, 2, 3, 3, 3, 3, 4), 1: (2, 2, 2, 3, 3, 3, 4)}
START_TILES = frozenset(t.index for t in R.tiles if t.stage == 1)
RENOVATION = R.tile_index("renovation")
BREACH = R.tile_index("breach")

FAST = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def popcount(x: int) -> int:
    return bin(x).count("1")


def room_values(player: dict) -> list[int]:
    """VP of the rooms on a player's spaces (the Cave Entrance counts, at 0), highest first."""
    return sorted((R.rooms[c].vp for c in player["spaces"] if c >= 0), reverse=True)


def expected_scores(d: dict) -> list[int]:
    return [sum(room_values(p)) + p["goods"][GOLD] for p in d["players"]]


def expected_returns(d: dict, tie_break: str) -> list[float]:
    """Rules section 11: higher score wins; on a tie, the higher most valuable room; else a draw."""
    scores = expected_scores(d)
    if len(scores) == 1:
        return [float(scores[0])]
    if scores[0] != scores[1]:
        return [1.0, -1.0] if scores[0] > scores[1] else [-1.0, 1.0]
    values = [room_values(p) for p in d["players"]]
    keys = [v[:1] for v in values] if tie_break == "draw" else values
    if keys[0] == keys[1]:
        return [0.0, 0.0]
    return [1.0, -1.0] if keys[0] > keys[1] else [-1.0, 1.0]


class GameChecker:
    """Checks one game as it is played: call `state` at every step, `action` before each apply, `end`."""

    def __init__(self, game, events: bool = True):
        self.game = game
        self.events = events                          # report hypothesis events (inside @given only)
        self.n = game.num_players
        self.reveals: list[int] = []                  # tiles revealed, in order (one per round)
        self.takes: list[tuple[int, int, int]] = []   # (round, player, tile) of every `take`
        self.first_starter: int | None = 0 if self.n == 1 else None
        self.applied: list[int] = []
        self.steps = 0

    # -- every step ------------------------------------------------------------------------------
    def state(self, s) -> None:
        g = self.game
        self.steps += 1
        cp = s.current_player()
        legal = s.legal_actions()
        assert all(isinstance(a, int) and not isinstance(a, bool) for a in legal), legal
        assert legal == sorted(set(legal)), f"legal actions not sorted and unique: {legal}"
        assert all(0 <= a < g.num_distinct_actions for a in legal), legal
        if s.is_terminal():
            assert cp == TERMINAL and legal == [] and s.chance_outcomes() == [] and not s.is_chance_node()
        elif cp == CHANCE:
            assert s.is_chance_node()
            outcomes = s.chance_outcomes()
            assert legal == [o for o, _ in outcomes] and legal
            assert all(0 <= o < g.max_chance_outcomes for o in legal)
            assert all(p > 0 for _, p in outcomes)
            assert math.isclose(sum(p for _, p in outcomes), 1.0)
        else:
            assert cp in range(self.n) and not s.is_chance_node() and legal
            assert s.chance_outcomes() == []
        if self.steps % 7 == 0:
            mask = s.legal_actions_mask()
            assert len(mask) == g.num_distinct_actions
            assert [a for a, bit in enumerate(mask) if bit] == legal

        d = s.to_dict()
        built = 0
        owned_rooms: list[int] = []
        for p, player in enumerate(d["players"]):
            goods = player["goods"]
            assert len(goods) == 6
            for value, cap in zip(goods, GOODS_CAPS):
                assert 0 <= value <= cap, f"player {p} goods {goods} outside 0..{GOODS_CAPS}"
            spaces = player["spaces"]
            assert spaces[ENTRANCE_SPACE] == CAVE_ENTRANCE
            assert all(c in (FACE_DOWN, EMPTY) or 0 <= c < NUM_ROOMS for i, c in enumerate(spaces)
                       if i not in (ENTRANCE_SPACE, CAVERN))
            if d["cavern_owner"] != p:
                assert spaces[CAVERN] == UNAVAILABLE
            elif not d["cavern_choice"]:
                assert spaces[CAVERN] != UNAVAILABLE
            assert player["walls"] >> 18 == 0
            if spaces[CAVERN] == UNAVAILABLE:
                assert player["walls"] >> 14 == 0, "walls on an Additional Cavern the player does not own"
            built += popcount(player["walls"])
            rooms = [c for c in spaces if c >= 0]
            orange = sum(R.rooms[c].orange for c in rooms)
            blue = len(rooms) - orange
            assert orange > blue, f"player {p} has {orange} orange and {blue} blue rooms"
            owned_rooms += [c for c in rooms if c != CAVE_ENTRANCE]
        supply = WALLS_TOTAL - built
        assert 0 <= supply <= WALLS_TOTAL, f"{built} walls built from a supply of {WALLS_TOTAL}"
        assert s.wall_supply() == supply
        # Every room tile is in exactly one place: the display, the unrevealed pool, out of play, or a cave.
        places = [d["display"], d["pool"], d["removed"], sum(1 << c for c in owned_rooms)]
        assert len(set(owned_rooms)) == len(owned_rooms), f"a room is furnished twice: {owned_rooms}"
        for room in range(NUM_ROOMS):
            assert sum(m >> room & 1 for m in places) == 1, f"room {room} is in {places}"
        face_down = sum(c == FACE_DOWN for p in d["players"] for c in p["spaces"])
        assert popcount(d["pool"]) == face_down + popcount(d["pending_spaces"]) + d["pile"]
        # Rooms wait to be turned up only at a chance node, under spaces the player on turn has just dug out.
        if d["pending_spaces"]:
            assert cp == CHANCE
            mover = 0 if self.n == 1 else d["starter"] ^ d["turn"] % 2
            dug = [c for sp, c in enumerate(d["players"][mover]["spaces"]) if d["pending_spaces"] >> sp & 1]
            assert dug and all(c == EMPTY for c in dug), f"pending spaces {d['pending_spaces']:#x} of player {mover}"
        assert s.scores() == expected_scores(d)
        if not s.is_terminal():
            assert s.returns() == [0.0] * self.n

    # -- before each action -----------------------------------------------------------------------
    def action(self, s, a: int) -> None:
        cp = s.current_player()
        self.applied.append(a)
        if cp == CHANCE:
            text = s.action_to_string(a)
            if text.startswith("player "):
                assert text == f"player {a} starts" and self.first_starter is None
                self.first_starter = a
            elif text.startswith("reveal "):
                assert text == f"reveal {R.tiles[a].name}"
                self.reveals.append(a)
            return
        spec = TABLE.specs[a]
        d = s.to_dict()
        if spec.kind == TAKE:
            rnd = len(self.reveals) - 1
            assert rnd >= 0, "a tile was taken before any round started"
            assert d["round"] == rnd
            tile = spec.tile
            assert tile in START_TILES or tile in self.reveals, f"{R.tiles[tile].name} is not face up"
            taken = [t for r, _, t in self.takes if r == rnd]
            assert tile not in taken, f"{R.tiles[tile].name} taken twice in round {rnd + 1}"
            if tile == RENOVATION and self.n == 2:
                mine, theirs = d["players"][cp]["goods"][GOLD], d["players"][1 - cp]["goods"][GOLD]
                assert mine > theirs, f"Renovation taken with {mine} gold against {theirs}"
            if self.n == 2:
                assert d["starter"] == self.starter_of(rnd)
            self.takes.append((rnd, cp, tile))
        elif spec.kind == ROOM_USE:
            assert R.rooms[spec.room].orange, f"blue room {R.rooms[spec.room].name} activated"
            assert spec.room in d["players"][cp]["spaces"]

    def starter_of(self, rnd: int) -> int:
        assert self.first_starter is not None
        return self.first_starter if rnd % 2 == 0 else 1 - self.first_starter

    # -- at the end -------------------------------------------------------------------------------
    def end(self, s) -> None:
        g = self.game
        assert s.is_terminal()
        turns = TURNS[self.n]
        rounds = len(turns)
        assert len(self.reveals) == rounds, f"{len(self.reveals)} rounds played, expected {rounds}"
        assert len(set(self.reveals)) == rounds
        assert tuple(R.tiles[t].stage for t in self.reveals) == STAGES[self.n]
        if self.n == 1:
            assert BREACH not in self.reveals
        d = s.to_dict()
        assert d["round"] == rounds
        for rnd in range(rounds):
            takes = [(p, t) for r, p, t in self.takes if r == rnd]
            players = [p for p, _ in takes]
            for p in range(self.n):
                assert players.count(p) == turns[rnd], \
                    f"player {p} took {players.count(p)} turns in round {rnd + 1}, expected {turns[rnd]}"
            if self.n == 2:
                first = self.starter_of(rnd)
                assert players == [first, 1 - first] * turns[rnd], f"round {rnd + 1} turn order {players}"
            tiles = [t for _, t in takes]
            assert len(set(tiles)) == len(tiles)
        assert len(self.takes) == self.n * sum(turns)
        assert s.history() == self.applied
        assert len(self.applied) <= g.max_game_length
        assert s.scores() == expected_scores(d)
        expected = expected_returns(d, g.config.tie_break_when_top_rooms_equal)
        assert s.returns() == expected
        if self.n == 2 and self.events:
            scores = s.scores()
            event("tie on score" if scores[0] == scores[1] else "decided on score")
        # The history alone determines the game.
        replay = g.new_initial_state()
        for a in self.applied:
            replay.apply_action(a)
        assert replay.to_dict() == d and replay.returns() == expected


def check_game(game, seed: int, policy: str = "uniform", events: bool = True) -> GameChecker:
    checker = GameChecker(game, events)
    for state, action in walk(game, seed, policy):
        checker.state(state)
        if action is None:
            checker.end(state)
        else:
            checker.action(state, action)
    return checker


ENGINE = "reference"          # these properties are about the readable reference engine
GAMES = {players: load_game("cvc", players=players, engine=ENGINE) for players in (1, 2)}

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.sampled_from([1, 2])
rule_options = st.fixed_dictionaries({name: st.sampled_from(values) for name, values in CONFIG_CHOICES.items()})


def test_schedule_data_matches_the_rules_file():
    assert R.turns == TURNS and R.stages == STAGES
    assert R.caps == GOODS_CAPS and R.wall_supply == WALLS_TOTAL
    for players in (1, 2):
        game = GAMES[players]
        assert game.num_rounds == len(TURNS[players])


@settings(max_examples=1000, **FAST)
@given(seed=seeds, players=player_counts, policy=st.sampled_from(POLICIES))
def test_random_games_keep_the_invariants(seed, players, policy):
    check_game(GAMES[players], seed, policy)


@settings(max_examples=100, **FAST)
@given(seed=seeds, players=player_counts, options=rule_options)
def test_random_games_keep_the_invariants_under_every_rule_option(seed, players, options):
    game = load_game("cvc", players=players, engine=ENGINE, **options)
    check_game(game, seed, "builder" if seed % 2 else "uniform")


@settings(max_examples=80, **FAST)
@given(seed=seeds, players=player_counts)
def test_illegal_reason_is_none_exactly_for_legal_actions(seed, players):
    game = GAMES[players]
    rng = np.random.default_rng(seed ^ 0x5EED)
    n = game.num_distinct_actions
    checked = 0
    for state, _ in walk(game, seed):
        if rng.random() > 0.06 and not state.is_terminal():
            continue
        checked += 1
        legal = set(state.legal_actions())
        sample = set(rng.choice(n, size=250, replace=False).tolist()) | legal
        if state.is_chance_node():
            sample |= set(range(game.max_chance_outcomes))
        for a in sorted(sample) + [-1, n, n + 17]:
            reason = state.illegal_reason(a)
            if a in legal:
                assert reason is None, f"legal {a} ({state.action_to_string(a)}) has illegal_reason {reason!r}"
            else:
                assert isinstance(reason, str) and reason, f"illegal {a} has no reason"
    assert checked >= 1


@pytest.mark.slow
def test_thousands_of_random_games_keep_the_invariants():
    """3000 games: about a third solo, all three policies, a third under random rule options."""
    rng = np.random.default_rng(20240607)
    names = sorted(CONFIG_CHOICES)
    for _ in range(3000):
        players = 1 if rng.random() < 1 / 3 else 2
        seed = int(rng.integers(2**32))
        policy = POLICIES[int(rng.integers(len(POLICIES)))]
        if rng.random() < 1 / 3:
            options = {k: CONFIG_CHOICES[k][int(rng.integers(len(CONFIG_CHOICES[k])))] for k in names}
            game = load_game("cvc", players=players, engine=ENGINE, **options)
        else:
            game = GAMES[players]
        check_game(game, seed, policy, events=False)
