"""Replays of stored games: a results folder's games, and the position after any step of one of them.

A results folder (`cavekit match ... --out DIR`) keeps one row per game with its whole `history` (chance
outcomes included), so any position of any game is that history's prefix replayed (`batch.replay`). Steps
are history positions: step k is the position after the first k actions. A replay shows everything (the game
is over and nobody plays it), so boards are drawn with no viewer.

Folders are named by path; the server reads only folders inside the roots it was started with
(`cavekit serve --results DIR`, default the current folder), so a page cannot make it read elsewhere.

Stored games are data from disk, not trusted: a folder whose manifest is bad, or whose game cannot be set up
from it, is refused (404) with the problem, and a damaged game (a null score or history, an illegal action in
its history) is left out of the list and refused on its own (422) while the folder's other games replay.
Messages name folders as the pages do (relative to the served root), never by their absolute path.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ...core.api import CHANCE, CavekitError, Game
from ...core.registry import game_spec, load_game
from ..batch import replay
from ..results import MANIFEST, load_games, read_manifest
from ..stored_games import as_whole, history_of, row_problem
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
    name: str = ""               # how pages and messages name it (relative to the served root)
    # the stored games that cannot be listed or replayed: {"game": number or None, "problem": why}
    problems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def shown(self) -> str:
        """The folder's name in messages: its display name, else its last part (never the absolute path)."""
        return self.name or self.path.name


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
            # (roots by their own names, as the home page shows them: no absolute path of the server's)
            roots = ", ".join(r.name or str(r) for r in self.roots)
            raise WebError(403, f"{str(folder)[:200]} is outside the folders this server reads ({roots}); start "
                                f"it with --results DIR to read another")
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
        shown = self.display_name(path)
        try:
            manifest = read_manifest(path)
            games = load_games(path)
        except CavekitError as e:
            raise WebError(404, self._public(str(e), path, shown)) from None
        except (OSError, pa.ArrowException) as e:
            # (a chunk that passed the checks of load_games but cannot be decoded)
            raise WebError(404, f"{shown}: its games cannot be read ({self._public(str(e), path, shown)})") from None
        game = self._game_of(manifest, shown)
        if "history" not in games.columns:
            raise WebError(404, f"{shown} was written before games kept their history, so they cannot be replayed")
        games = games.sort_values("game").reset_index(drop=True)
        loaded = Folder(path, manifest, game, games, stamp, shown, _problems(games, game.num_players))
        with self._lock:
            if len(self._cache) >= 8:
                self._cache.pop(next(iter(self._cache)))
            self._cache[path] = loaded
        return loaded

    @staticmethod
    def _game_of(manifest: dict[str, Any], shown: str) -> Game:
        """The game a manifest (already read by read_manifest) describes, set up for replay; 404 if it cannot be."""
        spec = game_spec(manifest["game"])
        engine = manifest.get("engine") or spec.default_engine
        if engine not in spec.engines:
            raise WebError(404, f"{shown}: its manifest names engine {str(engine)[:40]!r}, which {spec.name} does not "
                                f"have (engines: {', '.join(spec.engines)})")
        if "engine" in manifest["params"]:
            raise WebError(404, f"{shown}: its manifest's params name an engine; the engine is its own field")
        try:
            game = load_game(manifest["game"], engine=engine, **manifest["params"])
        except (CavekitError, TypeError, ValueError) as e:
            raise WebError(404, f"{shown}: its game cannot be set up from the manifest's params ({str(e)[:300]})") \
                from None
        if game.num_players != manifest["players"]:
            raise WebError(404, f"{shown}: its manifest says {manifest['players']} players, but its params make a "
                                f"game of {game.num_players}")
        return game

    def _public(self, text: str, path: Path, shown: str) -> str:
        """`text` with the server's absolute paths replaced by the names pages use."""
        text = text.replace(str(path), shown)
        for root in sorted(self.roots, key=lambda r: len(str(r)), reverse=True):
            text = text.replace(str(root), ".")
        return text

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


def _problems(games: pd.DataFrame, players: int) -> list[dict[str, Any]]:
    """The stored games that cannot be listed or replayed, with why (row_problem)."""
    problems = []
    for d in games.to_dict("records"):
        problem = row_problem(d, players)
        if problem is not None:
            problems.append({"game": as_whole(d.get("game")), "problem": problem})
    return problems


def game_list(folder: Folder) -> list[dict[str, Any]]:
    """One entry per stored game: its index, agents by seat, scores, winner and length. A damaged game (a
    null score or history, say) is left out, so the rest still list: `folder.problems` says which and why."""
    players = folder.game.num_players
    rows = []
    for d in folder.games.to_dict("records"):
        if row_problem(d, players) is not None:
            continue
        rows.append({"game": int(d["game"]), "agents": [d[f"agent_{p}"] for p in range(players)],
                     "scores": [int(d[f"score_{p}"]) for p in range(players)], "winner": int(d["winner"]),
                     "length": int(d["length"])})
    return rows


def _numbers(folder: Folder) -> str:
    numbers = [g for g in (as_whole(v) for v in folder.games["game"]) if g is not None]
    return f"games: {min(numbers)} to {max(numbers)}" if numbers else "it holds no games"


def replay_step(folder: Folder, index: Any, step: Any) -> dict[str, Any]:
    """The position after `step` actions of stored game `index`, with who made the last action and the next;
    404 for a game not stored, 422 for a stored game that is damaged (the message says how)."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise WebError(400, f"a game is named by its number, not {index!r}")
    players = folder.game.num_players
    # (game numbers are int64 in the chunks; a larger number would overflow the comparison)
    found = folder.games.index[folder.games["game"] == index] if -2 ** 63 <= index < 2 ** 63 else []
    if len(found) == 0:
        raise WebError(404, f"{folder.shown} holds no game {index} ({_numbers(folder)})")
    row = folder.games.loc[found[0]].to_dict()
    problem = row_problem(row, players)
    if problem is not None:
        raise WebError(422, f"game {index} of {folder.shown} cannot be replayed: {problem}")
    history = history_of(row["history"])
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= len(history):
        raise WebError(400, f"step must be an integer from 0 to {len(history)}, not {step!r}")
    game = folder.game
    agents = [str(row[f"agent_{p}"]) for p in range(players)]
    state = game.new_initial_state()
    movers = []
    texts = []
    for k, action in enumerate(history):
        # The whole history is replayed (for who moved when), so an action that is not legal where it stands
        # is found here, whatever the step asked for.
        try:
            movers.append(state.current_player())
            texts.append(state.action_to_string(action))
            state.apply_action(action)
        except (CavekitError, ValueError, IndexError, OverflowError) as e:
            raise WebError(422, f"game {index} of {folder.shown} cannot be replayed: its history[{k}] = "
                                f"{str(action)[:40]} is not legal there ({str(e)[:200]})") from None
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
