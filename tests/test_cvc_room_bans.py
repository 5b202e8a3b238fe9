"""The room-ban analysis variant: `banned_rooms_pN` stops seat N (only) from furnishing the named rooms.

It is not a rule of the game: the room-value analysis plays the same seeds with and without a ban to measure
what access to a room is worth. Both engines must honour it identically (tests/test_cvc_compiled.py runs the
cross-check with bans), it must not change anything else, and real games' records must not mention it.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from cvc_positions import do, give, open_space, try_do, two_player_position  # noqa: E402

from cavekit.core import load_game  # noqa: E402
from cavekit.core.api import ConfigError, CorruptRecordError  # noqa: E402


def spinning_wheel_position(starter: int, **options):
    """`starter` to move with Housework available, s4 empty (one natural wall fits Spinning Wheel)."""
    s = two_player_position(starter=starter, **options)
    open_space(s, starter, "s4")
    give(s, starter, all=5, gold=5)
    do(s, "take Housework")
    return s


def test_a_banned_seat_cannot_furnish_the_room_and_is_told_why():
    s = spinning_wheel_position(starter=0, banned_rooms_p0=["spinning_wheel"])
    reason = try_do(s, "Housework: furnish Spinning Wheel at s4 paying 1 gold")
    assert reason is not None and "banned for p0" in reason and "banned_rooms_p0" in reason
    # The other start-display rooms stay available to the banned seat.
    assert try_do(s, "Housework: furnish Shelf at s4 paying 1 gold") is None


def test_the_other_seat_is_not_affected():
    s = spinning_wheel_position(starter=1, banned_rooms_p0=["spinning_wheel"])
    assert try_do(s, "Housework: furnish Spinning Wheel at s4 paying 1 gold") is None


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_the_ban_removes_exactly_the_banned_furnish_actions(engine):
    options = {"banned_rooms_p0": "spinning_wheel, shelf"}
    free = spinning_wheel_position(starter=0)
    banned = spinning_wheel_position(starter=0, **options)
    if engine == "compiled":
        from cavekit.core.cvc.compiled import CompiledState
        game = load_game("cvc", engine="compiled", **options)
        free = CompiledState.from_dict(load_game("cvc", engine="compiled"), free.to_dict(), [])
        banned = CompiledState.from_dict(game, banned.to_dict(), [])
    removed = {free.action_to_string(a) for a in set(free.legal_actions()) - set(banned.legal_actions())}
    assert removed and all("Spinning Wheel" in text or "Shelf" in text for text in removed)
    assert set(banned.legal_actions()) <= set(free.legal_actions())


def test_options_are_checked_and_only_recorded_when_set():
    assert "banned_rooms_p0" not in load_game("cvc").parameters()
    game = load_game("cvc", banned_rooms_p1="parlor,tunnel")
    assert game.parameters()["banned_rooms_p1"] == ["parlor", "tunnel"]
    with pytest.raises(ConfigError, match="unknown room id.*'lounge'.*room ids: shelf"):
        load_game("cvc", banned_rooms_p0=["lounge"])
    with pytest.raises(ConfigError, match="must be a list of room ids"):
        load_game("cvc", banned_rooms_p0=3)
    with pytest.raises(ConfigError, match="solo game has only seat 0"):
        load_game("cvc", players=1, banned_rooms_p1=["parlor"])
    # A saved game keeps its bans: the record names them and refuses to load into an unbanned game.
    state = game.new_initial_state(seed=3)
    assert load_game("cvc", banned_rooms_p1=["parlor", "tunnel"]).deserialize_state(state.serialize()).history() \
        == state.history()
    with pytest.raises(CorruptRecordError, match=r"at params: .*parameters differ from this game's in banned_rooms_p1"):
        load_game("cvc").deserialize_state(state.serialize())


def test_rooms_are_named_by_id_or_printed_name_in_any_case():
    game = load_game("cvc", banned_rooms_p0="Spinning Wheel, TUNNEL", banned_rooms_p1=["food-corner"])
    assert game.config.banned_rooms_p0 == ("spinning_wheel", "tunnel")
    assert game.config.banned_rooms_p1 == ("food_corner",)
    with pytest.raises(ConfigError, match="unknown room id\\(s\\) 'spinning'"):
        load_game("cvc", banned_rooms_p0="spinning")


def test_the_command_line_takes_room_names_in_any_case():
    result = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "match", "cvc", "--agents", "random",
                             "random", "--games", "1", "--quiet", "--param", "banned_rooms_p0=Tunnel,Parlor"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
