"""Replays of stored games: a results folder's games, and the position after any step of one of them.

A results folder (`cavekit match ... --out DIR`) keeps one row per game with its whole `history` (chance
outcomes included), so any position of any game is that history's prefix replayed (`batch.replay`). Steps
are history positions: step k is the position after the first k actions. A replay shows everything (the game
is over and nobody plays it), so boards are drawn with no viewer.

Folders are named by path; the server reads only folders inside the roots it was started with
(`cavekit serve --results DIR`, default the current folder), so a page cannot make it read elsewhere.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...core.api import CHANCE, CavekitError, Game
from ...core.registry import game_spec, load_game
from ..batch import replay
from ..results import MANIFEST, ResultsError, load_games, read_manifest
from .sessions import WebError

FOLDER_SEARCH_DEPTH = 3          # how deep under a root the home page looks for results folders
FOLDER_SEARCH_LIMIT = 200


@dataclass
class Folder:
    """A results folder read for replay: its manifest, game, and games table (in game order)."""

    path: Path
    manifest: dict[str, Any]
    game: Game
    games: pd.DataFrame
    stamp: float


class Replays:
    """Reads results folders under `roots` (cached by the manifest's modification time)."""

    def __init__(self, roots: list[Path]):
        self.roots = [Path(r).resolve() for r in roots]
        self._cache: dict[Path, Folder] = {}
        self._lock = threading.Lock()

    def resolve(self, folder: Any) -> Path:
        """The folder a request names, if it lies inside a root (403 otherwise, 400 for no name)."""
        if not isinstance(folder, str) or not folder.strip() or "\0" in folder:
            raise WebError(400, "name a results folder: ?folder=PATH")
        path = Path(folder).expanduser()
        if not path.is_absolute():
            path = self.roots[0] / path
        path = path.resolve()
        if not any(path == root or root in path.parents for root in self.roots):
            roots = ", ".join(str(r) for r in self.roots)
            raise WebError(403, f"{folder} is outside the folders this server reads ({roots}); start it with "
                                f"--results DIR to read another")
        return path

    def folder(self, name: Any) -> Folder:
        """The results folder `name` (404 if it is none; cached until its manifest changes)."""
        path = self.resolve(name)
        try:
            stamp = (path / MANIFEST).stat().st_mtime
        except OSError:
            raise WebError(404, f"{name} is not a cavekit results folder (it has no {MANIFEST})") from None
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached.stamp == stamp:
                return cached
        try:
            manifest = read_manifest(path)
            games = load_games(path)
            game = load_game(manifest["game"], engine=manifest.get("engine") or game_spec(manifest["game"]).default_engine,
                             **manifest["params"])
        except (ResultsError, CavekitError) as e:
            raise WebError(404, str(e)) from None
        if "history" not in games.columns:
            raise WebError(404, f"{name} was written before games kept their history, so they cannot be replayed")
        loaded = Folder(path, manifest, game, games.sort_values("game").reset_index(drop=True), stamp)
        with self._lock:
            if len(self._cache) >= 8:
                self._cache.pop(next(iter(self._cache)))
            self._cache[path] = loaded
        return loaded

    def found(self) -> list[Path]:
        """Results folders under the roots (a few levels deep), for the home page."""
        found: list[Path] = []
        for root in self.roots:
            for depth in range(FOLDER_SEARCH_DEPTH + 1):
                for manifest in sorted(root.glob("/".join(["*"] * depth + [MANIFEST]))):
                    found.append(manifest.parent)
                    if len(found) >= FOLDER_SEARCH_LIMIT:
                        return found
        return found

    def display_name(self, path: Path) -> str:
        """`path` relative to the first root that holds it (what links use)."""
        for root in self.roots:
            if path == root or root in path.parents:
                return str(path.relative_to(root)) or "."
        return str(path)


def game_list(folder: Folder) -> list[dict[str, Any]]:
    """One entry per stored game: its index, agents by seat, scores, winner and length."""
    players = folder.game.num_players
    rows = []
    for d in folder.games.to_dict("records"):
        rows.append({"game": int(d["game"]), "agents": [d[f"agent_{p}"] for p in range(players)],
                     "scores": [int(d[f"score_{p}"]) for p in range(players)], "winner": int(d["winner"]),
                     "length": int(d["length"])})
    return rows


def replay_step(folder: Folder, index: Any, step: Any) -> dict[str, Any]:
    """The position after `step` actions of stored game `index`, with who made the last action and the next."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise WebError(400, f"a game is named by its number, not {index!r}")
    rows = folder.games.index[folder.games["game"] == index]
    if len(rows) == 0:
        raise WebError(404, f"{folder.path.name} holds no game {index} (games: {int(folder.games['game'].min())} to "
                            f"{int(folder.games['game'].max())})")
    row = folder.games.loc[rows[0]]
    history = [int(a) for a in row["history"]]
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= len(history):
        raise WebError(400, f"step must be an integer from 0 to {len(history)}, not {step!r}")
    game = folder.game
    players = game.num_players
    agents = [str(row[f"agent_{p}"]) for p in range(players)]
    state = game.new_initial_state()
    movers = []
    texts = []
    for action in history:
        movers.append(state.current_player())
        texts.append(state.action_to_string(action))
        state.apply_action(action)
    state = replay(game, history[:step])

    def who(k: int) -> str:
        p = movers[k]
        return "chance" if p == CHANCE else f"player {p} ({agents[p]})"

    decisions = [k for k, p in enumerate(movers) if p != CHANCE]
    spec = game_spec(folder.manifest["game"])
    board_hook = spec.analysis_hook("web_board")
    board = board_hook(state, None) if board_hook is not None else None
    turn_starts = [k for k in range(len(movers)) if movers[k] != CHANCE and
                   (k == 0 or movers[k] != next((movers[j] for j in range(k - 1, -1, -1) if movers[j] != CHANCE),
                                                None))]
    return {
        "game": index, "step": step, "steps": len(history), "agents": agents,
        "scores": state.scores(), "final_scores": [int(row[f"score_{p}"]) for p in range(players)],
        "to_move": state.current_player(), "over": state.is_terminal(),
        "last": {"player": movers[step - 1], "by": who(step - 1), "text": texts[step - 1]} if step else None,
        "next": {"player": movers[step], "by": who(step), "text": texts[step]} if step < len(history) else None,
        "decisions_done": sum(1 for k in decisions if k < step), "decisions": len(decisions),
        "previous_turn": max((k for k in turn_starts if k < step), default=0),
        "next_turn": min((k for k in turn_starts if k > step), default=len(history)),
        "board": board["svg"] if board is not None else None, "text": str(state),
    }
