"""Golden playthroughs: a few seeded random games of every registered game, recorded as text under
tests/golden/, so that a rule change shows up as a reviewed diff (see tests/golden/README.md).

Each file is one game (`<game>-<players>p-seed<S>.txt`) played by `conformance_cases.random_game` on the
game's default engine with its default parameters: one line per ply (ply, who moves, action id, action
text), the position every `SNAPSHOT_EVERY` plies and at the end (the rendering `str(state)`: unlike the
one-line JSON information states of the perfect-information games, it diffs line by line), and the scores
and returns at the end. The games are, per spec,
the fewest, the default and the most players it allows.

A change is accepted with `python -m pytest tests/test_golden.py --update-golden` (or with the environment
variable CAVEKIT_UPDATE_GOLDEN=1), which rewrites every file (and removes files of games no longer made).
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from cavekit.core.api import CHANCE
from cavekit.core.registry import game_specs, load_game

from conformance_cases import random_game

GOLDEN = Path(__file__).parent / "golden"
SNAPSHOT_EVERY = 25
DIFF_LINES = 40
UPDATE_COMMAND = "python -m pytest tests/test_golden.py --update-golden"


def golden_games() -> list[tuple[str, int, int]]:
    """(game, players, seed) of every golden playthrough: per spec the fewest, default and most players."""
    games = []
    for spec in game_specs():
        counts = sorted({min(spec.player_counts), spec.default_players, max(spec.player_counts)})
        games += [(spec.name, players, seed) for seed, players in enumerate(counts, start=1)]
    return games


def file_name(name: str, players: int, seed: int) -> str:
    return f"{name}-{players}p-seed{seed}.txt"


def _indented(text: str) -> list[str]:
    return [("    " + line).rstrip() for line in text.rstrip("\n").split("\n")]


def _position(state) -> list[str]:
    # The rendering for a person: readable, and a rule change shows in it line by line (the information
    # state strings of some games are one-line JSON records, which diff badly).
    return ["  position:"] + _indented(str(state))


def playthrough(name: str, players: int, seed: int, engine: str | None = None) -> str:
    """The golden text of one seeded random game (on `engine`, by default the game's default engine)."""
    spec = next(s for s in game_specs() if s.name == name)
    game = load_game(name, players=players, engine=engine or spec.default_engine)
    lines = [f"# {spec.title}: {players} player(s), seed {seed}, seeded random play, default parameters",
             f"# regenerate: {UPDATE_COMMAND}",
             "# ply  who  action  text"]
    state = None
    for state, action in random_game(game, seed):
        ply = len(state.history())
        if ply and ply % SNAPSHOT_EVERY == 0:
            lines += [f"--- after {ply} plies"] + _position(state)
        player = state.current_player()
        who = "chance" if player == CHANCE else f"p{player}"
        lines.append(f"{ply:4d}  {who}  {action}  {state.action_to_string(action)}")
    assert state is not None and state.is_terminal()
    lines += [f"--- end after {len(state.history())} plies"] + _position(state)
    lines += [f"scores: {list(state.scores())}", f"returns: {[round(float(r), 6) for r in state.returns()]}"]
    return "\n".join(lines) + "\n"


def _updating(request) -> bool:
    return bool(request.config.getoption("--update-golden") or os.environ.get("CAVEKIT_UPDATE_GOLDEN"))


GAMES = golden_games()
IDS = [file_name(*g)[:-4] for g in GAMES]


@pytest.mark.parametrize("name,players,seed", GAMES, ids=IDS)
def test_golden_playthrough_is_unchanged(request, name, players, seed):
    path = GOLDEN / file_name(name, players, seed)
    text = playthrough(name, players, seed)
    if _updating(request):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"{path} is missing; make it with: {UPDATE_COMMAND}"
    expected = path.read_text()
    if text != expected:
        diff = list(difflib.unified_diff(expected.splitlines(), text.splitlines(), f"{path.name} (recorded)",
                                         f"{path.name} (now)", lineterm=""))
        shown = "\n".join(diff[:DIFF_LINES]) + ("\n..." if len(diff) > DIFF_LINES else "")
        pytest.fail(f"the playthrough {path.name} changed:\n{shown}\n"
                    f"If the change is intended, review it and accept it with: {UPDATE_COMMAND}", pytrace=False)


ENGINE_GAMES = [(name, players, seed, engine) for name, players, seed in GAMES
                for engine in next(s for s in game_specs() if s.name == name).engines[1:]]


@pytest.mark.parametrize("name,players,seed,engine", ENGINE_GAMES,
                         ids=[f"{file_name(*g[:3])[:-4]}-{g[3]}" for g in ENGINE_GAMES])
def test_every_engine_plays_the_golden_text(name, players, seed, engine):
    """The files are made with the default engine; every other engine must produce the same text."""
    default = playthrough(name, players, seed)
    other = playthrough(name, players, seed, engine)
    if other != default:
        diff = list(difflib.unified_diff(default.splitlines(), other.splitlines(), "default engine", engine,
                                         lineterm=""))
        pytest.fail("\n".join(diff[:DIFF_LINES]), pytrace=False)


def test_golden_folder_holds_exactly_the_playthroughs(request):
    expected = {file_name(*g) for g in GAMES}
    present = {p.name for p in GOLDEN.glob("*.txt")}
    if _updating(request):
        for stale in present - expected:
            (GOLDEN / stale).unlink()
        return
    assert present == expected, (f"missing {sorted(expected - present)}, stale {sorted(present - expected)}; "
                                 f"regenerate with: {UPDATE_COMMAND}")
    sizes = {p.name: p.stat().st_size for p in GOLDEN.glob("*.txt")}
    assert max(sizes.values()) < 200_000 and sum(sizes.values()) < 2_000_000, sizes
