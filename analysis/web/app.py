"""The ASGI application behind `cavekit serve` (Starlette): pages, the JSON API, and the static files.

Routes (the API answers JSON; a refused request gets a 4xx status and `{"error": "..."}`, and changes nothing):

    GET  /                                          home: new game, load a record, replays
    GET  /play/{game_id}/{seat}?key=K               one seat's page
    GET  /replay?folder=DIR                         the games of a results folder
    GET  /replay/{game}?folder=DIR&step=N           a stored game after N steps
    GET  /static/{app.js|style.css}
    GET  /api/catalogue                             games, player counts, rule options, difficulties
    POST /api/games                                 new game {game, players, seats, params?, seed?, record?}
    GET  /api/games/{game_id}/seats/{seat}/view?key=K
    POST /api/games/{game_id}/seats/{seat}/action?key=K     {action, version?}
    POST /api/games/{game_id}/seats/{seat}/undo?key=K
    POST /api/games/{game_id}/seats/{seat}/hint?key=K       {count?}
    GET  /api/games/{game_id}/seats/{seat}/record?key=K     the game record (terminal play's format)
    GET  /api/replay/games?folder=DIR
    GET  /api/replay/games/{game}?folder=DIR&step=N

Bodies are JSON objects of at most `MAX_BODY` bytes (a record: `MAX_RECORD_BODY`); nothing a client sends is
evaluated or unpickled: game names, options and seats are checked against the game's spec, actions against
the legal ones, records by replaying them (`deserialize_state`).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Route

from ...core.api import CavekitError, CorruptRecordError
from ...core.deal import DEAL_SEED_LIMIT
from ...core.registry import game_names, game_spec, load_game
from ...core.spec import DIFFICULTIES
from ...search.agent import game_presets
from ..play import random_seed
from . import pages, worker
from .replay import Replays, game_list, replay_step
from .sessions import HUMAN, GameSession, SessionStore, Thinker, WebError, parse_seats

MAX_BODY = 16 * 1024
MAX_RECORD_BODY = 4 * 1024 * 1024
STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}


def catalogue() -> list[dict[str, Any]]:
    """What the new-game form offers: each game's player counts, rule options and difficulties."""
    games = []
    for name in game_names():
        spec = game_spec(name)
        params = [{"name": p.name, "default": p.default, "choices": list(p.choices), "allowed": p.allowed_text()}
                  for p in spec.parameters]
        presets = {}
        for players in spec.player_counts:
            try:
                presets[players] = {p.difficulty: p.agent for p in game_presets(load_game(name, players=players))}
            except CavekitError:
                presets[players] = {}
        games.append({"name": name, "title": spec.title, "players": list(spec.player_counts),
                      "default_players": spec.default_players, "params": params, "presets": presets,
                      "difficulties": list(DIFFICULTIES), "default": spec.default,
                      "record_format": getattr(load_game(name).new_initial_state(), "record_format", None)})
    return games


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's body as a JSON object (413 if larger than `limit` bytes, 400 if not a JSON object)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise WebError(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise WebError(413, f"the body is {declared} bytes; at most {limit} are accepted")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise WebError(413, f"the body is larger than {limit} bytes, the most accepted")
    if not body:
        return {}
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WebError(400, f"the body is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise WebError(400, "the body must be a JSON object")
    return data


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.lstrip("-").isdigit():
            return int(value)
        raise WebError(400, f"{what} must be an integer, not {value!r}")
    return value


class CavekitWeb:
    """The application's state: sessions, AI workers, replay roots; `app` is the Starlette application."""

    def __init__(self, max_games: int = 100, idle_seconds: float = 2 * 3600, workers: int = 2,
                 executor: str = "process", results: list[str | Path] | None = None):
        self.store = SessionStore(max_games=max_games, idle_seconds=idle_seconds)
        self.thinker = Thinker(workers, executor)
        self.replays = Replays([Path(r) for r in (results or [os.getcwd()])])
        self._catalogue: list[dict[str, Any]] | None = None
        routes = [
            Route("/", self.home), Route("/play/{game_id}/{seat:int}", self.play_page),
            Route("/replay", self.replay_list_page), Route("/replay/{game:int}", self.replay_page),
            Route("/static/{name}", self.static),
            Route("/api/catalogue", self.api_catalogue),
            Route("/api/games", self.api_new_game, methods=["POST"]),
            Route("/api/games/{game_id}/seats/{seat:int}/view", self.api_view),
            Route("/api/games/{game_id}/seats/{seat:int}/action", self.api_action, methods=["POST"]),
            Route("/api/games/{game_id}/seats/{seat:int}/undo", self.api_undo, methods=["POST"]),
            Route("/api/games/{game_id}/seats/{seat:int}/hint", self.api_hint, methods=["POST"]),
            Route("/api/games/{game_id}/seats/{seat:int}/record", self.api_record),
            Route("/api/replay/games", self.api_replay_games),
            Route("/api/replay/games/{game:int}", self.api_replay_step),
        ]
        handlers = {WebError: self._web_error, HTTPException: self._http_error}
        self.app = Starlette(routes=routes, exception_handlers=handlers, lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.thinker.start()
        yield
        await asyncio.get_running_loop().run_in_executor(None, self.thinker.shutdown)

    # -- errors -------------------------------------------------------------------------------------------

    @staticmethod
    def _error(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status)
        return HTMLResponse(pages.error_page(status, message), status_code=status)

    async def _web_error(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, WebError)
        return self._error(request, error.status, error.message)

    async def _http_error(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = {404: f"no page {request.url.path} here", 405: f"{request.method} is not allowed on "
                   f"{request.url.path}"}.get(error.status_code, str(error.detail))
        return self._error(request, error.status_code, message)

    # -- games --------------------------------------------------------------------------------------------

    def _session_and_seat(self, request: Request) -> tuple[GameSession, Any]:
        session = self.store.get(request.path_params["game_id"])
        return session, session.seat(request.path_params["seat"], request.query_params.get("key"))

    def seat_urls(self, session: GameSession) -> list[dict[str, Any]]:
        return [{"index": s.index, "key": s.key, "url": f"/play/{session.id}/{s.index}?{urlencode({'key': s.key})}"}
                for s in session.seats if s.kind == HUMAN]

    def new_session(self, data: dict[str, Any]) -> GameSession:
        """A session from a new-game request (see the module docstring); 400 for anything not allowed."""
        name = data.get("game")
        record = data.get("record")
        state = None
        if record is not None:
            if not isinstance(record, str):
                raise WebError(400, "record must be the text of a saved game record")
            try:
                recorded = json.loads(record)
            except json.JSONDecodeError as e:
                raise WebError(400, f"not loaded: corrupt game record at line {e.lineno} column {e.colno}: "
                                    "not JSON") from None
            if not isinstance(recorded, dict) or not isinstance(recorded.get("params"), dict):
                raise WebError(400, "not loaded: a record is a JSON object with the game's params")
            params = recorded["params"]
            formats = {g["record_format"]: g["name"] for g in self.catalogue()}
            if recorded.get("format") not in formats:
                raise WebError(400, f"not loaded: {recorded.get('format')!r} is not the record format of a game here")
            if name is not None and name != formats[recorded["format"]]:
                raise WebError(400, f"not loaded: that is a {formats[recorded['format']]} record, not {name}")
            name = formats[recorded["format"]]
        if name not in game_names():
            raise WebError(400, f"unknown game {name!r}; games: {', '.join(game_names())}")
        spec = game_spec(name)
        if record is None:
            params = data.get("params", {})
            if not isinstance(params, dict):
                raise WebError(400, "params must be a JSON object of rule options")
            params = dict(params)
            players = _int(data.get("players", spec.default_players), "players")
            if players not in spec.player_counts:
                raise WebError(400, f"{name} is for {', '.join(map(str, spec.player_counts))} players, not {players}")
            params["players"] = players
        known = {p.name for p in spec.parameters} | {"players"}
        unknown = sorted(set(params) - known)
        if unknown:
            raise WebError(400, f"{name} has no option {', '.join(unknown)}; its options: {', '.join(sorted(known))}")
        try:
            game = load_game(name, **params)
        except (CavekitError, TypeError, ValueError) as e:
            raise WebError(400, f"cannot set up {name}: {e}") from None
        if record is not None:
            try:
                state = game.deserialize_state(record)
            except (CorruptRecordError, CavekitError, ValueError, TypeError) as e:
                raise WebError(400, f"not loaded: {e}") from None
        seed = data.get("seed")
        seed = random_seed() if seed in (None, "") else _int(seed, "seed")
        if not 0 <= seed < DEAL_SEED_LIMIT:
            raise WebError(400, "seed must be an integer from 0 to 2**63 - 1")
        seats = parse_seats(game, data.get("seats"))
        session = GameSession(name, game, seats, seed, self.thinker, state=state)
        self.store.add(session)
        return session

    async def api_new_game(self, request: Request) -> Response:
        data = await read_json(request, MAX_RECORD_BODY)
        session = self.new_session(data)
        seats = self.seat_urls(session)
        return JSONResponse({"id": session.id, "seed": session.seed, "seats": seats, "url": seats[0]["url"]},
                            status_code=201)

    async def api_view(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        return JSONResponse(session.view(seat))

    async def api_action(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        data = await read_json(request)
        if "action" not in data:
            raise WebError(400, 'the body must name the action: {"action": ID}')
        session.play(seat, data["action"], data.get("version"))
        return JSONResponse(session.view(seat))

    async def api_undo(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        message = session.undo(seat)
        return JSONResponse({**session.view(seat), "message": message})

    async def api_hint(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        data = await read_json(request)
        count = _int(data.get("count", 5), "count")
        if count < 1:
            raise WebError(400, "count must be at least 1")
        job = session.hint_job(seat)
        answer = await asyncio.wrap_future(self.thinker.submit(worker.hint, job))
        if session.version != job["version"]:
            raise WebError(409, "the game moved on while the hint was computed: ask again")
        return JSONResponse({"budget": answer["budget"], "scale": answer["scale"], "spec": answer["spec"],
                             "rows": answer["rows"][:count], "more": max(0, len(answer["rows"]) - count)})

    async def api_record(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        text = session.record(seat)
        filename = f"{session.game_name}-seed{session.seed}.json"
        return PlainTextResponse(text, media_type="application/json",
                                 headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    async def api_catalogue(self, request: Request) -> Response:
        return JSONResponse(self.catalogue())

    def catalogue(self) -> list[dict[str, Any]]:
        if self._catalogue is None:
            self._catalogue = catalogue()
        return self._catalogue

    # -- replays ------------------------------------------------------------------------------------------

    def _replay_step(self, request: Request) -> tuple[str, dict[str, Any]]:
        folder = self.replays.folder(request.query_params.get("folder"))
        step = request.query_params.get("step", "0")
        found = replay_step(folder, request.path_params["game"], _int(step, "step"))
        return self.replays.display_name(folder.path), found

    async def api_replay_games(self, request: Request) -> Response:
        folder = self.replays.folder(request.query_params.get("folder"))
        return JSONResponse({"folder": self.replays.display_name(folder.path), "manifest": folder.manifest,
                             "games": game_list(folder)})

    async def api_replay_step(self, request: Request) -> Response:
        return JSONResponse(self._replay_step(request)[1])

    # -- pages --------------------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        folders = [self.replays.display_name(f) for f in self.replays.found()]
        return HTMLResponse(pages.home_page(self.catalogue(), folders, [str(r) for r in self.replays.roots]))

    async def play_page(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        base = f"/api/games/{session.id}/seats/{seat.index}"
        query = "?" + urlencode({"key": seat.key})
        config = {name: f"{base}/{name}{query}" for name in ("view", "action", "undo", "hint", "record")}
        config = {f"{name}_url": url for name, url in config.items()}
        config["other_seats"] = [s for s in self.seat_urls(session) if s["index"] != seat.index]
        return HTMLResponse(pages.play_page(f"{session.spec.title}: player {seat.index}", config,
                                            session.view(seat)))

    async def replay_list_page(self, request: Request) -> Response:
        folder = self.replays.folder(request.query_params.get("folder"))
        name = self.replays.display_name(folder.path)
        return HTMLResponse(pages.replay_list_page(name, folder.manifest, game_list(folder)))

    async def replay_page(self, request: Request) -> Response:
        name, found = self._replay_step(request)
        return HTMLResponse(pages.replay_page(name, found))

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            raise WebError(404, f"no file {name!r} here")
        text = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
        return Response(text, media_type=STATIC[name], headers={"Cache-Control": "no-cache"})


def create_app(**options: Any) -> Starlette:
    """The application (options as `CavekitWeb`); its `state.web` is the `CavekitWeb` behind it."""
    web = CavekitWeb(**options)
    web.app.state.web = web
    return web.app

