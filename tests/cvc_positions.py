"""Position builders and small helpers for the Cave vs Cave rules tests.

The reference engine's state is plain Python, so a test resolves the setup chance nodes, then writes the
position it needs straight into the state (goods, rooms on spaces, built walls, revealed tiles, round) and
plays the turn under test through ordinary actions. Names follow the rules file: rooms and tiles by their
`id`, spaces `s0`..`s10` and `ac`, wall slots `w0`..`w13` and `ac-N`/`ac-E`/`ac-S`/`ac-W`.
"""
from __future__ import annotations

from typing import Any, Iterable

from cavekit.core import load_game
from cavekit.core.api import CHANCE, IllegalActionError
from cavekit.core.cvc.board import EMPTY, FACE_DOWN, UNAVAILABLE
from cavekit.core.cvc.rules import CAVE_ENTRANCE, CAVERN, GOODS, rules

R = rules()
# These are rules tests of the reference engine (its state is plain Python and positions are edited
# directly); pass the engine explicitly so a change of the package default does not move them.
ENGINE = "reference"
GOOD_NAMES = GOODS   # wood, stone, emmer, flax, food, gold

# The order in which a two-player game reveals the face-down action tiles, one per round, by stage.
STAGE_ORDER = ("furnishing", "masonry", "undermining",
               "breach", "expansion", "expedition", "drift_mining",
               "renovation")
SOLO_STAGE_ORDER = ("furnishing", "masonry", "undermining",
                    "expansion", "expedition", "drift_mining",
                    "renovation")
START_TILES = ("cultivation", "housework", "excavation", "undergrowth")

__all__ = ["R", "ENGINE", "room", "tile", "room_name", "tile_name", "space", "wall", "two_player_position",
           "solo_position", "do", "try_do", "legal", "legal_texts", "uses", "reveal", "goods", "give",
           "place", "walls", "build", "open_space", "IllegalActionError", "CHANCE", "EMPTY", "FACE_DOWN",
           "UNAVAILABLE", "CAVERN", "CAVE_ENTRANCE", "STAGE_ORDER", "SOLO_STAGE_ORDER", "START_TILES",
           "fill_board", "furnish_texts", "excavate_targets"]


# ----------------------------------------------------------------------------------------------------
# Names

def room(room_id: str) -> int:
    """Room index (tile_no - 1) of a room id; 'cave_entrance' is the preprinted room."""
    if room_id == "cave_entrance":
        return CAVE_ENTRANCE
    return R.room_index(room_id)


def tile(tile_id: str) -> int:
    return R.tile_index(tile_id)


def room_name(room_id: str) -> str:
    return R.rooms[room(room_id)].name


def tile_name(tile_id: str) -> str:
    return R.tiles[tile(tile_id)].name


def space(name: str) -> int:
    return CAVERN if name == "ac" else int(name[1:])


def wall(name: str) -> int:
    if name.startswith("ac-"):
        return 14 + "NESW".index(name[3])
    return int(name[1:])


# ----------------------------------------------------------------------------------------------------
# Positions

def _tiles_for_round(revealed: Iterable[str], round_: int, order: tuple[str, ...]) -> list[int]:
    chosen = [tile(t) for t in revealed]
    for t in order:                      # pad so that every round up to `round_` has revealed a tile
        if len(chosen) > round_:
            break
        if tile(t) not in chosen:
            chosen.append(tile(t))
    return chosen


def two_player_position(revealed: Iterable[str] = (), starter: int = 0, round: int = 0,
                        **options: Any):
    """A two-player state right at the start of round `round` (0-based), player `starter` to move.

    `revealed` names the face-down action tiles already turned up (besides the 4 start tiles); it is
    padded in stage order so that at least round+1 tiles are revealed.
    """
    g = load_game("cvc", players=2, engine=ENGINE, **options)
    s = g.new_initial_state()
    assert s.current_player() == CHANCE
    s.apply_action(starter)                        # chance: who starts
    s.revealed_tiles = _tiles_for_round(revealed, round, STAGE_ORDER)
    s.round = round
    assert s.current_player() == starter, s.current_player()
    return s


def solo_position(revealed: Iterable[str] = (), round: int = 0,
                  removed: Iterable[str] = ("tunnel", "food_corner", "parlor"), **options: Any):
    """A solo state at the start of round `round`, with the named light rooms removed from play."""
    g = load_game("cvc", players=1, engine=ENGINE, **options)
    s = g.new_initial_state()
    for r_id in removed:
        assert s.current_player() == CHANCE
        s.apply_action(room(r_id))
    s.revealed_tiles = _tiles_for_round(revealed, round, SOLO_STAGE_ORDER)
    s.round = round
    assert s.current_player() == 0
    return s


# ----------------------------------------------------------------------------------------------------
# Acting

def do(s, *texts: str) -> None:
    """Apply each action by its notation (chance nodes must be resolved separately with `reveal`)."""
    for text in texts:
        s.apply_action(s.string_to_action(text))


def try_do(s, text: str) -> str | None:
    """The engine's reason why `text` is illegal now, or None (the action is NOT applied)."""
    return s.illegal_reason(s.string_to_action(text))


def legal_texts(s) -> set[str]:
    return {s.action_to_string(a) for a in s.legal_actions()}


def legal(s, text: str) -> bool:
    return try_do(s, text) is None


def uses(s, room_id: str) -> set[str]:
    """The legal `use <Room>: ...` actions of one room right now."""
    prefix = f"use {room_name(room_id)}:"
    return {t for t in legal_texts(s) if t.startswith(prefix)}


def furnish_texts(s, prefix: str) -> set[str]:
    """The legal furnish actions whose notation starts with `prefix` (e.g. 'Housework: furnish')."""
    return {t for t in legal_texts(s) if t.startswith(prefix)}


def excavate_targets(s, prefix: str) -> set[str]:
    """Space names of the legal single excavations `<prefix> sX` (e.g. 'Excavation: excavate')."""
    out = set()
    for t in legal_texts(s):
        if t.startswith(prefix + " "):
            rest = t[len(prefix) + 1:].replace(" through walls", "").split()
            if len(rest) == 1:
                out.add(rest[0])
    return out


def reveal(s, *room_ids: str) -> None:
    """Resolve pending 'which room is turned up' chance nodes with the named rooms, in order."""
    for r_id in room_ids:
        assert s.current_player() == CHANCE, "no chance node to resolve"
        s.apply_action(room(r_id))


# ----------------------------------------------------------------------------------------------------
# Editing a position

def goods(s, p: int) -> dict[str, int]:
    return dict(zip(GOOD_NAMES, s.players[p].goods))


def give(s, p: int, **amounts: int) -> None:
    """Set the named goods of player p (others unchanged); `all=n` sets every good first."""
    if "all" in amounts:
        s.players[p].goods = [amounts.pop("all")] * 6
    for name, n in amounts.items():
        s.players[p].goods[GOOD_NAMES.index(name)] = n


def place(s, p: int, room_id: str, where: str, placed_round: int = -1) -> None:
    """Put a room on a space of player p as if furnished in an earlier round."""
    r = room(room_id)
    sp = space(where)
    s.players[p].spaces[sp] = r
    s.players[p].placed_round[sp] = placed_round
    s.display &= ~(1 << r)
    s.pool &= ~(1 << r)


def open_space(s, p: int, where: str) -> None:
    """Make a face-down space of player p an empty excavated space."""
    s.players[p].spaces[space(where)] = EMPTY


def build(s, p: int, *names: str) -> None:
    """Put built walls into the named slots of player p (straight into the position)."""
    for n in names:
        s.players[p].walls |= 1 << wall(n)


def walls(s, p: int) -> set[str]:
    out = set()
    for w in range(18):
        if s.players[p].walls >> w & 1:
            out.add(f"w{w}" if w < 14 else "ac-" + "NESW"[w - 14])
    return out


def to_display(s, *room_ids: str) -> None:
    for r_id in room_ids:
        s.display |= 1 << room(r_id)
        s.pool &= ~(1 << room(r_id))


__all__.append("to_display")

# Distinct orange dark rooms used to fill boards in tests that need many rooms.
FILLER_ORANGE = ("warehouse", "stall", "sacrificial_altar", "storeroom", "weaving_room",
                 "furniture_workshop", "gold_vein", "junction_room", "digging_cave", "bakehouse",
                 "state_room", "secret_chamber", "treasury")


def fill_board(s, p: int, leave_empty: Iterable[str] = (), rooms: Iterable[str] | None = None) -> None:
    """Put distinct orange rooms on every board space of player p except s6 and `leave_empty`."""
    keep = {space(n) for n in leave_empty}
    supply = list(rooms if rooms is not None else FILLER_ORANGE)
    for sp in range(11):
        if sp == R.entrance_space:
            continue
        if sp in keep:
            s.players[p].spaces[sp] = EMPTY
            continue
        place(s, p, supply.pop(0), f"s{sp}")


__all__.append("FILLER_ORANGE")
