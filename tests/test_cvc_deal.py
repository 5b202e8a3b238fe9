"""Cave vs Cave deals (issue 26): one seed fixes every shuffle of the physical game, whatever the players do.

Rules section 3: setup shuffles each stage's face-down action tiles (turned up one per round, in that order),
puts a shuffled dark room face down on every face-down space of each board (solo: the other nine form the
draw pile) and picks the starting player (solo: three light rooms leave the game). Playing one deal, two lines
of play find the same room under the same space and the same tile in the same round. The tests read what the
players see (boards, display, tiles, pile), not `chance_component`, which is what they check.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE
from cavekit.core.cvc.board import FACE_DOWN
from cavekit.core.cvc.rules import Config, rules
from cavekit.core.cvc.state import StateMixin
from cavekit.core.deal import Deal, DealError, check_fits, describe, new_deal
from cavekit.search import make_agent

from test_cvc_compiled import _alternative, assert_same_game, both

R = rules()
LIGHT = {room.index for room in R.rooms[:24] if room.start_display}
DARK = {room.index for room in R.rooms[:24] if not room.start_display}
ENGINES = ("compiled", "reference")
PLAYERS = (1, 2)


def tiles_of(stage: int, players: int) -> set[int]:
    """Rules section 3: the tiles with that stage's number on the back (solo: Breach is out)."""
    return {t.index for t in R.tiles if t.stage == stage and (players == 2 or t.id != "breach")}


@dataclass
class Seen:
    """What the players of one game saw of the setup, read from the position step by step."""

    starter: int = -1
    removed: int = 0
    tiles: list[int] = field(default_factory=list)                       # by round
    rooms: dict[tuple[int, int], int] = field(default_factory=dict)      # (seat, space) -> room turned up
    dug: list[tuple[int, int]] = field(default_factory=list)             # (seat, space) in the order dug
    pile: list[int] = field(default_factory=list)                        # solo draw-pile rooms, in order
    face_down_spaces: list[int] = field(default_factory=list)            # at setup, in space order


def random_player(seed: int):
    rng = np.random.default_rng(seed)

    def choose(state) -> int:
        legal = state.legal_actions()
        return legal[rng.integers(len(legal))]
    return choose


def greedy_player(game):
    return make_agent("greedy", game, seed=1).step


def play_deal(game, deal: Deal, player) -> Seen:
    """Play `deal` to the end, chance from the deal and moves from `player(state)`, watching the position."""
    state = game.new_initial_state()
    seen = Seen()
    before = state.to_dict()
    seen.face_down_spaces = [s for s, c in enumerate(before["players"][0]["spaces"]) if c == FACE_DOWN]
    waiting: list[tuple[int, int]] = []     # dug spaces whose rooms are still face down
    while not state.is_terminal():
        state.apply_action(deal.outcome(state) if state.current_player() == CHANCE else player(state))
        after = state.to_dict()
        # Spaces dug by this action: their rooms are turned up next, lowest space first.
        for seat, (old, new) in enumerate(zip(before["players"], after["players"])):
            dug = [s for s, (a, b) in enumerate(zip(old["spaces"], new["spaces"])) if a == FACE_DOWN != b]
            waiting += [(seat, s) for s in dug]
            seen.dug += [(seat, s) for s in dug]
        for room in (r for r in DARK if before["pool"] >> r & 1 and not after["pool"] >> r & 1):
            assert after["display"] >> room & 1, "a room turned up goes to the display"
            if after["pile"] < before["pile"]:
                seen.pile.append(room)
            else:
                seen.rooms[waiting.pop(0)] = room
        if len(after["revealed_tiles"]) > len(before["revealed_tiles"]):
            assert len(after["revealed_tiles"]) == after["round"] + 1, "one tile at the start of each round"
            seen.tiles.append(after["revealed_tiles"][-1])
        before = after
    assert not waiting, f"dug spaces whose rooms were never turned up: {waiting}"
    seen.starter, seen.removed = before["starter"], before["removed"]
    return seen


def disagreements(a: Seen, b: Seen) -> list[str]:
    """Where two lines of play on one deal saw different pieces for the same part of the setup."""
    found = []
    if a.starter != b.starter:
        found.append(f"starting player {a.starter} / {b.starter}")
    if a.removed != b.removed:
        found.append(f"light rooms out of play {a.removed:#x} / {b.removed:#x}")
    found += [f"round {r + 1}'s tile {x} / {y}" for r, (x, y) in enumerate(zip(a.tiles, b.tiles)) if x != y]
    found += [f"room under {space}: {a.rooms[space]} / {b.rooms[space]}"
              for space in a.rooms.keys() & b.rooms.keys() if a.rooms[space] != b.rooms[space]]
    found += [f"draw pile card {k}: {x} / {y}" for k, (x, y) in enumerate(zip(a.pile, b.pile)) if x != y]
    return found


def dug_in_another_order(a: Seen, b: Seen) -> bool:
    """True when a space both lines dug was dug at a different place in their order (a count would not do)."""
    return any(a.dug.index(space) != b.dug.index(space) for space in set(a.dug) & set(b.dug))


# ------------------------------------------------------------------------------------------------
# Two lines of play on one deal


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("lines", ["random-random", "greedy-random"])
def test_two_lines_of_play_on_one_deal_see_the_same_setup(players, lines):
    game = load_game("cvc", players=players)
    reordered = 0
    for seed in range(8):
        deal = new_deal(game, seed)
        first = greedy_player(game) if lines == "greedy-random" else random_player(100 + seed)
        a, b = play_deal(game, deal, first), play_deal(game, deal, random_player(200 + seed))
        assert disagreements(a, b) == []
        assert a.tiles == b.tiles and len(a.tiles) == game.num_rounds
        reordered += dug_in_another_order(a, b)
    # The lines dug shared spaces in different orders, so a deal dealt by reveal count would have failed.
    assert reordered > 0


def test_a_deal_dealt_in_reveal_order_fails_the_two_lines_test(monkeypatch):
    # The control: hand out the rooms in the order they are turned up, whatever the space.
    dealt = StateMixin.chance_component

    def by_reveal_count(state):
        name, index = dealt(state)
        if name != "rooms":
            return name, index
        d = state.to_dict()
        return name, len(DARK) - bin(d["pool"]).count("1")
    monkeypatch.setattr(StateMixin, "chance_component", by_reveal_count)
    game = load_game("cvc", players=2)
    found = [disagreements(play_deal(game, deal, random_player(1)), play_deal(game, deal, random_player(2)))
             for deal in (new_deal(game, seed) for seed in range(4))]
    assert any(found)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", PLAYERS)
def test_the_game_turns_up_what_the_deal_laid_out(players, engine):
    game = load_game("cvc", players=players, engine=engine)
    for seed in range(40 if engine == "compiled" else 10):
        deal = new_deal(game, seed)
        seen = play_deal(game, deal, random_player(seed))
        c = deal.components
        assert seen.tiles == [*c["tiles_stage_2"], *c["tiles_stage_3"], *c["tiles_stage_4"]]
        assert len(seen.face_down_spaces) == 9
        for (seat, space), room in seen.rooms.items():
            assert room == c["rooms"][9 * seat + seen.face_down_spaces.index(space)]
        if players == 2:
            assert seen.starter == c["start_player"][0]
        else:
            assert seen.removed == sum(1 << room for room in c["removed_light_rooms"])
            assert seen.pile == list(c["draw_pile"][:len(seen.pile)])


# ------------------------------------------------------------------------------------------------
# The deals themselves


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", PLAYERS)
def test_every_chance_node_of_random_games_has_a_legal_deal_outcome(players, engine):
    game = load_game("cvc", players=players, engine=engine)
    chance_nodes = 0
    for seed in range(200 if engine == "compiled" else 40):
        deal, choose, state = new_deal(game, 1000 + seed), random_player(seed), game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                outcome = deal.outcome(state)     # raises DealError if it is not a legal outcome here
                assert outcome in [o for o, _ in state.chance_outcomes()]
                chance_nodes += 1
            else:
                with pytest.raises(DealError):
                    state.chance_component()
                outcome = choose(state)
            state.apply_action(outcome)
    assert chance_nodes > 0


@pytest.mark.parametrize("players", PLAYERS)
def test_each_component_holds_the_right_pieces(players):
    game = load_game("cvc", players=players)
    setup = ["start_player"] if players == 2 else ["removed_light_rooms"]
    rooms = ["rooms"] if players == 2 else ["rooms", "draw_pile"]
    for seed in range(300):
        c = new_deal(game, seed).components
        assert list(c) == setup + ["tiles_stage_2", "tiles_stage_3", "tiles_stage_4"] + rooms
        for stage in (2, 3, 4):
            drawn = c[f"tiles_stage_{stage}"]
            assert sorted(drawn) == sorted(tiles_of(stage, players))
        if players == 2:
            assert len(c["start_player"]) == 1 and c["start_player"][0] in (0, 1)
            assert sorted(c["rooms"]) == sorted(DARK)
        else:
            assert len(set(c["removed_light_rooms"])) == 3 and set(c["removed_light_rooms"]) <= LIGHT
            assert len(c["rooms"]) == len(c["draw_pile"]) == 9
            assert sorted(c["rooms"] + c["draw_pile"]) == sorted(DARK)


@pytest.mark.parametrize("players", PLAYERS)
def test_the_same_seed_deals_the_same_and_different_seeds_differ(players):
    game = load_game("cvc", players=players)
    reference = load_game("cvc", players=players, engine="reference")
    deals = [new_deal(game, seed) for seed in range(50)]
    assert all(new_deal(game, d.seed) == d == new_deal(reference, d.seed) for d in deals)
    assert len({tuple(d.components["rooms"]) for d in deals}) == len(deals)
    assert len({tuple(map(tuple, d.components.values())) for d in deals}) == len(deals)


@pytest.mark.parametrize("players", PLAYERS)
def test_a_deal_round_trips_through_json(players):
    deal = new_deal(load_game("cvc", players=players), 2 ** 63 - 1)
    again = Deal.from_json(deal.to_json())
    assert again == deal and again.components == deal.components


@pytest.mark.parametrize("players", PLAYERS)
def test_describe_names_seats_tiles_and_rooms(players):
    game = load_game("cvc", players=players)
    deal = new_deal(game, 7)
    text = describe(game, deal)
    c = deal.components
    for stage in (2, 3, 4):
        assert ", ".join(R.tiles[t].name for t in c[f"tiles_stage_{stage}"]) in text
    assert ", ".join(R.rooms[r].name for r in c["rooms"]) in text
    if players == 2:
        assert f"seat {c['start_player'][0]}" in text
    else:
        assert ", ".join(R.rooms[r].name for r in c["draw_pile"]) in text
        assert ", ".join(R.rooms[r].name for r in c["removed_light_rooms"]) in text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", PLAYERS)
def test_a_seeded_initial_state_is_set_up_from_the_deal_of_its_seed(players, engine):
    game = load_game("cvc", players=players, engine=engine)
    for seed in range(20):
        c, d = new_deal(game, seed).components, game.new_initial_state(seed=seed).to_dict()
        assert d["revealed_tiles"] == [c["tiles_stage_2"][0]]
        if players == 2:
            assert d["starter"] == c["start_player"][0]
        else:
            assert d["removed"] == sum(1 << room for room in c["removed_light_rooms"])


# ------------------------------------------------------------------------------------------------
# Both engines on dealt games; rule options and deals


def _engines_agree_on_dealt_games(players: int, games: int) -> None:
    ref_game, fast_game = both(players)
    for seed in range(games):
        deal, rng = new_deal(ref_game, seed), np.random.default_rng([players, seed, 26])
        ref, fast = ref_game.new_initial_state(), fast_game.new_initial_state()

        def choose(state) -> int:
            if state.current_player() != CHANCE:
                legal = state.legal_actions()
                return legal[rng.integers(len(legal))]
            assert fast.chance_component() == state.chance_component()
            return deal.outcome(state)
        assert_same_game(ref, fast, rng, choose=choose)


@pytest.mark.parametrize("players", PLAYERS)
def test_engines_agree_on_60_dealt_games(players):
    _engines_agree_on_dealt_games(players, 60)


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYERS)
def test_engines_agree_on_1000_dealt_games(players):
    _engines_agree_on_dealt_games(players, 1000)


@pytest.mark.parametrize("name", [f.name for f in fields(Config)])
def test_no_rule_option_changes_the_deal(name):
    for players in (2, 1) if name != "banned_rooms_p1" else (2,):
        default = load_game("cvc", players=players)
        variant = load_game("cvc", players=players, **{name: _alternative(name)})
        assert all(new_deal(variant, seed) == new_deal(default, seed) for seed in range(5))


@pytest.mark.parametrize("players", PLAYERS)
def test_a_banned_rooms_game_plays_a_deal_of_the_default_game(players):
    # The room-value study plays the same deals with a room barred: the deal must fit the barred game.
    bans = {"banned_rooms_p0": ["shelf", "spinning_wheel", "grindstone"]}
    if players == 2:
        bans["banned_rooms_p1"] = ["tunnel"]
    default, barred = load_game("cvc", players=players), load_game("cvc", players=players, **bans)
    for seed in range(10):
        deal = new_deal(default, seed)
        check_fits(deal, barred)
        assert disagreements(play_deal(barred, deal, random_player(seed)),
                             play_deal(default, deal, random_player(seed + 1))) == []
