"""Games being played in the browser: seats, the AI's turns in a worker pool, views per seat, the bounded store.

A `GameSession` holds one game: its seats (each a person or an AI difficulty preset), the true position, the
session seed (the deal and every agent's seed come from it, as in terminal play), and a version number that
every change increments. All changes happen under the session's lock. When an AI is to move the session
sends the position's record to the `Thinker` (a process pool by default) and marks itself thinking; the
answer is applied only if nothing changed meanwhile (an undo or a new move makes a late answer stale).

`view(seat)` is everything one seat's page shows, built from what that seat may know: the board drawn for
that seat (`web_board` hook, else the game's renderer for that seat), its own legal actions, a log in which
chance outcomes and moves the seat cannot tell apart are hidden, and the scores once public. Nothing in it
depends on another seat's hidden cards or on the deal (tests check it by comparing the view of a position
with the view of positions resampled from the seat's information).

`SessionStore` keeps at most `max_games` sessions and forgets a session idle for `idle_seconds`; when it is
full, a new game takes the place of the least recently used finished or idle one rather than being refused.

An undo (`GameSession.undo`) takes back only the asking seat's own moves and the AI's replies, never past what
the seat has since seen of the deal or of a hidden hand, and the AI then searches with a fresh random stream.
"""
from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...core.api import CHANCE, CavekitError, Game, State
from ...core.registry import game_spec
from ...core.spec import DIFFICULTIES, resolve
from ...search.agent import resolve_preset
from ..play import UndoRefused, chance_outcome, session_deal, undo_last_move, verdict, visible_to, why_illegal
from . import worker
from .guard import WebError, shown

__all__ = ["HUMAN", "GameSession", "Seat", "SessionStore", "Thinker", "WebError", "parse_seats"]

HUMAN = "human"
LOG_LIMIT = 80                   # log entries a view carries (the most recent)
HINT_SPEC_DEFAULT = "medium"     # answers hints in a game without an AI seat


class Thinker:
    """Runs AI turns and hints away from the server's event loop: in a pool of `workers` processes (`kind`
    "process", the default: searches never hold the server's interpreter lock) or threads ("thread")."""

    def __init__(self, workers: int = 2, kind: str = "process"):
        if kind not in ("process", "thread"):
            raise ValueError(f"kind must be 'process' or 'thread', not {kind!r}")
        self.workers = max(1, workers)
        self.kind = kind
        self._lock = threading.Lock()
        self._pool: concurrent.futures.Executor | None = None

    def _executor(self) -> concurrent.futures.Executor:
        with self._lock:
            if self._pool is None:
                if self.kind == "process":
                    self._pool = concurrent.futures.ProcessPoolExecutor(
                        self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=worker.start,
                        initargs=(os.getpid(),))
                    for _ in range(self.workers):       # start the processes now, not at the first move
                        self._pool.submit(int)
                else:
                    self._pool = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="cavekit-ai")
            return self._pool

    def start(self) -> None:
        """Start the pool (its processes import the engines and agents) before the first move is asked for."""
        self._executor()

    def submit(self, function: Callable[[dict[str, Any]], Any], job: dict[str, Any]) -> concurrent.futures.Future:
        """Run `function(job)` in the pool (a pool whose process died is replaced)."""
        try:
            return self._executor().submit(function, job)
        except concurrent.futures.process.BrokenProcessPool:
            with self._lock:
                self._pool = None
            return self._executor().submit(function, job)

    def shutdown(self) -> None:
        """Stop the pool: queued jobs are dropped, a running one is finished, the processes end."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class Seat:
    """One seat: a person (`kind` HUMAN, with the `key` their page uses) or an AI difficulty preset."""

    index: int
    kind: str                    # HUMAN or a difficulty
    agent_spec: str = ""         # what the difficulty stands for in this game
    key: str = ""

    @property
    def human(self) -> bool:
        return self.kind == HUMAN

    def label(self) -> str:
        if self.human:
            return f"player {self.index} (person)"
        return f"player {self.index} (AI: {self.kind} = {self.agent_spec})"


@dataclass
class LogEntry:
    """One step of the history: who acted, and its notation as each human seat may see it."""

    player: int
    texts: dict[int, str]


def parse_seats(game: Game, kinds: Any) -> list[Seat]:
    """The seats a new-game request names: a list with one entry per player, each "human" or a difficulty."""
    if not isinstance(kinds, list) or len(kinds) != game.num_players:
        raise WebError(400, f"seats must be a list of {game.num_players} entries, each 'human' or a difficulty "
                            f"({', '.join(DIFFICULTIES)})")
    seats = []
    for index, kind in enumerate(kinds):
        if kind == HUMAN:
            seats.append(Seat(index, HUMAN, key=secrets.token_urlsafe(12)))
        elif kind in DIFFICULTIES:
            seats.append(Seat(index, kind, agent_spec=resolve_preset(kind, game)))
        else:
            raise WebError(400, f"seat {index}: {kind!r} is neither 'human' nor a difficulty "
                                f"({', '.join(DIFFICULTIES)})")
    if not any(seat.human for seat in seats):
        raise WebError(400, "at least one seat must be played by a person")
    return seats


class GameSession:
    """One game in the browser (see the module docstring)."""

    def __init__(self, game_name: str, game: Game, seats: list[Seat], seed: int, thinker: Thinker,
                 state: State | None = None):
        self.id = secrets.token_urlsafe(9)
        self.game_name = game_name
        self.game = game
        self.spec = game_spec(game_name)
        self.seats = seats
        self.seed = seed
        self.thinker = thinker
        self.hidden = bool(getattr(game, "hidden_information", False))
        self.deal = session_deal(game, seed)
        self.lock = threading.RLock()
        self.version = 0
        self.undos = 0           # the AI's random stream: fresh after each undo, so a seat cannot replay a reply
        self.thinking = False
        self.ai_seconds: float | None = None
        self.ai_error: str | None = None
        self.last_used = time.monotonic()
        self._params = json.dumps(game.parameters(), sort_keys=True)
        self._renderer = resolve(self.spec.renderer) if self.spec.renderer else None
        self._board = self.spec.analysis_hook("web_board")
        self._breakdown = self.spec.analysis_hook("web_score_breakdown")
        self.state: State = game.new_initial_state()
        self.log: list[LogEntry] = []
        if state is not None:
            for action in state.history():
                self._apply(action)
        with self.lock:
            self._advance()

    # -- changes (all under the lock) ---------------------------------------------------------------------

    def _apply(self, action: int) -> None:
        state = self.state
        player = state.current_player()
        text = state.action_to_string(action)
        texts = {}
        for seat in self.seats:
            if not seat.human:
                continue
            if not self.hidden or visible_to(state, action, seat.index):
                texts[seat.index] = text
            elif player == CHANCE:
                texts[seat.index] = "an outcome hidden from you"
            else:
                texts[seat.index] = "a move hidden from you"
        state.apply_action(action)
        self.log.append(LogEntry(player, texts))

    def _advance(self) -> None:
        """Resolve chance, then start the AI if one is to move."""
        while not self.state.is_terminal() and self.state.current_player() == CHANCE:
            self._apply(chance_outcome(self.state, self.deal, self.seed))
        if self.state.is_terminal() or self.thinking or self.ai_error:
            return
        seat = self.seats[self.state.current_player()]
        if seat.human:
            return
        self.thinking = True
        version = self.version
        job = self._job(seat.agent_spec)
        future = self.thinker.submit(worker.ai_turn, job)
        future.add_done_callback(lambda done: self._ai_done(done, version))

    def _job(self, spec: str) -> dict[str, Any]:
        return {"game": self.game_name, "params": self._params, "engine": self.game.engine,
                "record": self.state.serialize(), "spec": spec, "seed": self.seed, "hidden": self.hidden,
                "stream": self.undos}

    def _ai_done(self, future: concurrent.futures.Future, version: int) -> None:
        with self.lock:
            if version != self.version:
                return              # an undo made the answer stale; thinking was reset then
            self.thinking = False
            try:
                answer = future.result()
                for action in answer["actions"]:
                    if action not in (self.state.legal_actions() if self.state.current_player() != CHANCE
                                      else [a for a, _ in self.state.chance_outcomes()]):
                        raise CavekitError(f"the AI answered {action}, which is not legal here")
                    self._apply(action)
                self.ai_seconds = answer["seconds"]
            except Exception as error:      # shown on the page; the game stays as it was
                self.ai_error = f"the AI could not move: {type(error).__name__}: {error}"
            self.version += 1
            self._advance()

    def _replace_state(self, state: State) -> None:
        self.state = self.game.new_initial_state()
        self.log = []
        for action in state.history():
            self._apply(action)
        self.thinking = False
        self.ai_error = None
        self.version += 1

    # -- what a seat may do ---------------------------------------------------------------------------------

    def seat_index(self, index: Any) -> int:
        """`index` if it is a seat of this game (404 otherwise)."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.seats):
            raise WebError(404, f"this game has seats 0 to {len(self.seats) - 1}, not {shown(index)}")
        return index

    def seat(self, index: Any, key: Any) -> Seat:
        """The human seat `index` whose browser holds `key` (403 for another seat's key or an AI seat)."""
        seat = self.seats[self.seat_index(index)]
        if not seat.human:
            raise WebError(403, f"seat {index} is played by the AI ({seat.kind})")
        # compared as bytes: compare_digest refuses str with characters outside ASCII
        given = key.encode("utf-8", "replace") if isinstance(key, str) else b""
        if not secrets.compare_digest(given, seat.key.encode()):
            raise WebError(403, f"this browser has not joined seat {index}: open the invitation link this seat "
                                "was given")
        return seat

    def play(self, seat: Seat, action: Any, version: Any = None) -> None:
        """Apply the person's `action` (an action id among the legal ones) at `seat`'s decision."""
        with self.lock:
            self._check_turn(seat)
            if version is not None and version != self.version:
                raise WebError(409, f"the game has moved on (version {self.version}, the page had {version!r}): "
                                    "reload the view")
            if isinstance(action, bool) or not isinstance(action, int):
                raise WebError(400, f"an action is an integer action id, not {action!r}")
            legal = self.state.legal_actions()
            if action not in legal:
                raise WebError(400, f"action {action} is not legal now: {why_illegal(self.state, action)}")
            self._apply(action)
            self.version += 1
            self._advance()

    def _check_turn(self, seat: Seat) -> None:
        if self.state.is_terminal():
            raise WebError(409, "the game is over")
        if self.thinking:
            raise WebError(409, "the AI is thinking: wait for its move")
        if self.state.current_player() != seat.index:
            raise WebError(409, f"it is not your turn: player {self.state.current_player()} is to move")

    def undo(self, seat: Seat) -> str:
        """Take back `seat`'s last move and the AI's replies after it; what was taken back, in words. Refused
        (409) when another person has moved since, or the seat has since seen a chance outcome or a hidden card
        (`undo_last_move`). The AI then searches with a fresh random stream."""
        with self.lock:
            if self.thinking:
                raise WebError(409, "the AI is thinking: wait for its move, then undo")
            people = {s.index for s in self.seats if s.human and s.index != seat.index}
            try:
                undone = undo_last_move(self.game, self.state, seat.index, people=people, hidden=self.hidden)
            except UndoRefused as refused:
                raise WebError(409, str(refused)) from None
            if undone is None:
                raise WebError(409, "nothing to undo: you have not made a move yet")
            self.undos += 1
            self._replace_state(undone.state)
            self._advance()
            return undone.message

    def record(self, seat: Seat) -> str:
        """The game record (the format of terminal play's `save`); refused while it would show hidden cards."""
        with self.lock:
            if self.hidden and not self.state.is_terminal():
                raise WebError(409, "the record holds every hidden card and the deck order, so it can be saved "
                                    "once the game is over")
            return self.state.serialize() + "\n"

    def hint_job(self, seat: Seat) -> dict[str, Any]:
        """The job that answers `seat`'s request for a hint (see `worker.hint`)."""
        with self.lock:
            self._check_turn(seat)
            ai = [s.agent_spec for s in self.seats if not s.human]
            return {**self._job(ai[0] if ai else resolve_preset(HINT_SPEC_DEFAULT, self.game)),
                    "version": self.version}

    # -- what a seat sees -------------------------------------------------------------------------------------

    def view(self, seat: Seat) -> dict[str, Any]:
        """Everything `seat`'s page shows, from what that seat may know (see the module docstring)."""
        with self.lock:
            state = self.state
            player = state.current_player()
            over = state.is_terminal()
            viewer = seat.index
            board = self._board(state, viewer) if self._board is not None else None
            text = self._renderer(state, viewer) if self._renderer is not None and not over else str(state)
            mine = not over and not self.thinking and player == viewer
            targets = board["targets"] if board is not None and mine else {}
            actions = []
            if mine:
                touched: dict[int, list[str]] = {}
                for name, ids in targets.items():
                    for a in ids:
                        touched.setdefault(a, []).append(name)
                actions = [{"id": a, "text": state.action_to_string(a), "targets": touched.get(a, [])}
                           for a in state.legal_actions()]
            if over:
                status = "Game over."
            elif self.thinking:
                status = f"Player {player} (AI) is thinking..."
            elif player == viewer:
                status = f"Your move (you are player {viewer})."
            else:
                status = f"Waiting for player {player}."
            log = [{"player": entry.player, "text": entry.texts.get(viewer, "")} for entry in self.log[-LOG_LIMIT:]]
            view: dict[str, Any] = {
                "game": self.game_name, "title": self.spec.title, "seat": viewer, "players": self.game.num_players,
                "seats": [{"index": s.index, "kind": s.kind, "label": s.label()} for s in self.seats],
                "version": self.version, "to_move": player, "status": status, "your_turn": mine,
                "thinking": self.thinking, "ai_seconds": self.ai_seconds, "ai_error": self.ai_error,
                "board": board["svg"] if board is not None else None, "text": text,
                "show_text": board is None or bool(board.get("show_text")),
                "targets": targets, "actions": actions, "log": log, "history_length": len(self.log),
                "scores": state.scores() if over or not self.hidden else None,
                "can_undo": any(e.player == viewer for e in self.log) and not over,
                "can_save": over or not self.hidden, "result": self._result(viewer) if over else None,
                # the seed gives away the deal (every chance outcome to come), so it is shown once the game is over
                "seed": self.seed if over else None}
            return view

    def _result(self, viewer: int) -> dict[str, Any]:
        state = self.state
        scores = state.scores()
        if self.game.num_players == 1:
            words = f"Final score: {scores[0]} points."
        else:
            words = verdict(state, viewer, other="Player " + str(max(range(len(scores)),
                                                                     key=lambda p: state.returns()[p])))
        rows = self._breakdown(state) if self._breakdown is not None else \
            [{"player": p, "source": "total", "points": s} for p, s in enumerate(scores)]
        return {"scores": scores, "returns": state.returns(), "verdict": words, "breakdown": rows}


@dataclass
class SessionStore:
    """The sessions in memory: at most `max_games`, each forgotten after `idle_seconds` without a request.
    When it is full a new game takes the place of the least recently used finished game, else of the least
    recently used game idle for `evict_after_seconds`; only when every game is in use is a new one refused, so
    a burst of abandoned games cannot lock the server (they are the first to go)."""

    max_games: int = 100
    idle_seconds: float = 2 * 3600
    evict_after_seconds: float = 60.0
    sessions: dict[str, GameSession] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, s in self.sessions.items() if now - s.last_used > self.idle_seconds]:
            del self.sessions[key]

    def _room(self) -> None:
        now = self.clock()
        finished = [s for s in self.sessions.values() if s.state.is_terminal()]
        idle = [s for s in self.sessions.values() if now - s.last_used >= self.evict_after_seconds]
        victims = finished or idle
        if not victims:
            raise WebError(503, f"{self.max_games} games are being played here, the most this server keeps: try "
                                f"again in a minute (a game idle for {self.evict_after_seconds:g} s makes room)",
                           headers={"Retry-After": str(int(self.evict_after_seconds))})
        del self.sessions[min(victims, key=lambda s: s.last_used).id]

    def add(self, session: GameSession) -> None:
        """Keep `session`, making room as the class docstring says (503 when every game is in use)."""
        with self._lock:
            self._expire()
            if len(self.sessions) >= self.max_games:
                self._room()
            session.last_used = self.clock()
            self.sessions[session.id] = session

    def get(self, game_id: str) -> GameSession:
        """The session `game_id` (404 if there is none, or it expired)."""
        with self._lock:
            self._expire()
            session = self.sessions.get(game_id)
            if session is None:
                raise WebError(404, f"no game {shown(game_id)} here (an idle game is forgotten after "
                                    f"{self.idle_seconds / 3600:g} h, and a restarted server forgets every game)")
            session.last_used = self.clock()
            return session

    def __len__(self) -> int:
        return len(self.sessions)
