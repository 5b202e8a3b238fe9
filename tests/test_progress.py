"""Progress of the long commands: a bar with rate and ETA on stderr, off with --quiet (issue 22)."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading

import pytest

CLI = [sys.executable, "-m", "cavekit.analysis.cli"]
# tqdm redraws at most ten times a second, so a game or search that ends within 0.1 s of the one before shows
# only in the next draw: fast greedy games skip most counts on a quick machine. Tests that check the bar moves
# per game ask tqdm (through its environment defaults) to draw every step.
EVERY_STEP_DRAWN = {**os.environ, "TQDM_MININTERVAL": "0"}


def bar_counts(stderr: str, unit: str) -> list[tuple[int, int]]:
    """(done, total) of every redraw of a tqdm bar in `unit`s that shows a rate (units/s, or s/unit when slow)
    and an ETA."""
    rate = rf"(?:(?:[\d.]+|\?){unit}/s|[\d.]+s/{unit})"
    return [(int(done), int(total)) for done, total in
            re.findall(rf"(\d+)/(\d+) \[\d\d:\d\d<(?:\d\d:\d\d|\?), +{rate}(?:, [^\]]*)?\]", stderr)]


def test_the_opening_search_counts_the_nodes_of_its_tree():
    done = subprocess.run(CLI + ["openings", "--agent", "cvc_turn_mcts:iterations=3000", "--depth", "2",
                                 "--branching", "2"], capture_output=True, text=True, timeout=300,
                          env=EVERY_STEP_DRAWN)
    assert done.returncode == 0, done.stderr
    counts = bar_counts(done.stderr, "node")
    # 1 root search and 2 replies: the bar moves per node, towards the size of the full tree.
    assert {total for _, total in counts} == {3} and {1, 2, 3} <= {n for n, _ in counts}
    assert "opening search" in done.stderr and "deep search with" in done.stdout


def test_the_opening_search_is_silent_with_quiet():
    done = subprocess.run(CLI + ["openings", "--agent", "cvc_turn_mcts:iterations=30", "--depth", "1",
                                 "--branching", "2", "--quiet"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == ""


def test_room_bans_move_per_game_across_every_run(tmp_path):
    done = subprocess.run(CLI + ["room-bans", "--agent", "greedy", "--games", "3", "--rooms", "tunnel",
                                 "--chunk-size", "3", "--out", str(tmp_path / "bans")],
                          capture_output=True, text=True, timeout=300, env=EVERY_STEP_DRAWN)
    assert done.returncode == 0, done.stderr
    counts = bar_counts(done.stderr, "game")
    # Baseline and two ban runs of 3 games in one bar; one chunk per run, yet the bar moves game by game.
    assert {total for _, total in counts} == {9} and set(range(1, 10)) <= {n for n, _ in counts}
    assert "cvc match" not in done.stderr     # no bar per run under the experiment's bar


def test_the_strength_report_shows_the_speed_measurement_progress(tmp_path):
    done = subprocess.run(CLI + ["strength", "cvc", "--games", "2", "--solo-games", "1", "--jobs", "1",
                                 "--parts", "solo,matches,speed", "--strongest", "greedy", "--analysis", "greedy",
                                 "--mcts", "cvc_turn_mcts:iterations=5", "--weak-mcts", "random",
                                 "--out", str(tmp_path / "strength")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (60, 60) in bar_counts(done.stderr, "position")    # 30 positions, each timed for two rollouts
    assert bar_counts(done.stderr, "game")                     # and each match its games


def hint_session(stderr_on_terminal: bool) -> str:
    """A play session that asks for one hint from a time-budgeted search; what it wrote to stderr."""
    command = CLI + ["play", "cvc", "--ai", "mcts:seconds=1.5,rollout_steps=5", "--seed", "3"]
    if not stderr_on_terminal:
        done = subprocess.run(command, input="hint\nquit\n", capture_output=True, text=True, timeout=120)
        assert done.returncode == 0
        return done.stderr
    main_end, terminal_end = pty.openpty()
    # A new pseudo-terminal is 0 columns wide, in which tqdm draws nothing: give it a terminal's size.
    fcntl.ioctl(terminal_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    chunks: list[bytes] = []

    def read_terminal() -> None:
        # Read while the command runs: a terminal whose writer has exited may drop what was not read.
        while True:
            try:
                chunk = os.read(main_end, 4096)
            except OSError:         # the terminal's other end is closed: all read
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=terminal_end,
                                   text=True)
        os.close(terminal_end)
        stdout, _ = process.communicate("hint\nquit\n", timeout=120)
        assert process.returncode == 0 and "hint from MCTS" in stdout
        reader.join(timeout=10)
    finally:
        os.close(main_end)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_hint_search_shows_its_time_against_the_budget_on_a_terminal():
    stderr = hint_session(stderr_on_terminal=True)
    seconds = [float(s) for s in re.findall(r"hint search: +\d+%\|[^|]*\| ([\d.]+)/1\.5 s \[ETA", stderr)]
    assert seconds and max(seconds) == 1.5 and min(seconds) < 1.5


def test_a_hint_search_draws_no_bar_into_a_pipe():
    assert "hint search" not in hint_session(stderr_on_terminal=False)


def test_a_tournament_has_one_bar_per_game_and_no_cursor_movements():
    done = subprocess.run(CLI + ["tournament", "cvc", "--agents", "random", "greedy:max_nodes=300",
                                 "cvc_expectimax:depth=1,width=4", "--games", "2", "--n-boot", "0"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    counts = bar_counts(done.stderr, "game")
    assert {total for _, total in counts} == {6} and (6, 6) in counts     # 3 pairings x 2 games, one bar
    assert "\x1b" not in done.stderr        # nested bars would move the cursor up with escape sequences
