"""The ASGI application behind `cavekit serve` (Starlette): pages, the JSON API, and the static files.

Routes (the API answers JSON; a refused request gets a 4xx status and `{"error": "..."}`, and changes nothing):

    GET  /                                          home: new game, load a record, replays
    GET  /join/{game_id}/{seat}#KEY                 an invitation: joins this browser to the seat, then plays
    GET  /play/{game_id}/{seat}                     one seat's page (for a browser that joined the seat)
    GET  /replay?folder=DIR                         the games of a results folder
    GET  /replay/{game}?folder=DIR&step=N           a stored game after N steps
    GET  /static/{app.js|style.css}
    GET  /api/catalogue                             games, player counts, rule options, difficulties
    POST /api/games                                 new game {game, players, seats, params?, seed?, record?}
    POST /api/games/{game_id}/seats/{seat}/join     joins the seat (its key in the X-Cavekit-Key header)
    GET  /api/games/{game_id}/seats/{seat}/view
    POST /api/games/{game_id}/seats/{seat}/action   {action, version?}
    POST /api/games/{game_id}/seats/{seat}/undo
    POST /api/games/{game_id}/seats/{seat}/hint     {count?}
    GET  /api/games/{game_id}/seats/{seat}/record   the game record (terminal play's format)
    GET  /api/replay/games?folder=DIR
    GET  /api/replay/games/{game}?folder=DIR&step=N

Seats and their secrets: each human seat has a key. `POST /api/games` answers the creator with one
invitation link per human seat (`/join/ID/SEAT#KEY`: the key sits in the address's fragment, which a browser
never sends to a server, so it stays out of every log) and joins the creator's browser to the first human
seat. Joining sets an HttpOnly, SameSite=Strict cookie for that one seat; a program may send the key in the
`X-Cavekit-Key` header instead. A key in the address's query is refused. No page of one seat carries another
seat's key, and the game's seed (which gives away the deal) is told to no one before the game is over.

What a client sends is checked at the edge (`guard.py`: hosts, origins, body size, time, depth and numbers);
nothing is evaluated or unpickled: game names, options and seats are checked against the game's spec, actions
against the legal ones, records by replaying them (`deserialize_state`).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.middleware import Middleware
from starlette.routing import Route

from ...core.api import CavekitError, ConfigError
from ...core.deal import DEAL_SEED_LIMIT
from ...core.registry import game_names, game_spec, load_game
from ...core.spec import DIFFICULTIES
from ...search.agent import game_presets
from ..play import random_seed
from . import pages, worker
from .guard import (
    LOCAL_HOSTS,
    shown,
    MAX_RECORD_BODY,
    EdgeGuard,
    RateLimit,
    WebError,
    bounded_int,
    parse_json,
    read_json,
)
from .replay import Replays, game_list, replay_step
from .sessions import HUMAN, GameSession, Seat, SessionStore, Thinker, parse_seats

STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
KEY_HEADER = "x-cavekit-key"
MAX_SEATS = 999
MAX_STEP = 10**9                 # a replay step (histories are far shorter; the replay says its own length)
MAX_GAME_NUMBER = 2**62
MANIFEST_SHOWN = ("game", "players", "params", "agents", "games", "seed", "engine", "deals", "duplicate")
MANIFEST_VALUE_LIMIT = 4096      # characters of one manifest value the replay list echoes


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


def seat_number(request: Request) -> int:
    """The seat number of the request's address (its range is the game's to check)."""
    return bounded_int(request.path_params["seat"], "a seat number", 0, MAX_SEATS)


def seat_cookie(game_id: str, seat: int) -> str:
    """The name of the cookie that holds the key of `seat` in game `game_id` (one cookie a seat)."""
    return f"cavekit_{game_id}_{seat}"


def manifest_summary(manifest: dict[str, Any]) -> dict[str, Any]:
    """What the replay list shows of a manifest: its main fields, each cut to a bounded size."""
    summary = {}
    for name in MANIFEST_SHOWN:
        if name in manifest:
            value = manifest[name]
            summary[name] = value if len(json.dumps(value, default=str)) <= MANIFEST_VALUE_LIMIT else "(too long to show)"
    return summary


class CavekitWeb:
    """The application's state: sessions, AI workers, replay roots; `app` is the Starlette application."""

    def __init__(self, max_games: int = 100, idle_seconds: float = 2 * 3600, workers: int = 2,
                 executor: str = "process", results: list[str | Path] | None = None,
                 allowed_hosts: Iterable[str] = LOCAL_HOSTS, games_per_minute: int = 20,
                 evict_after_seconds: float = 60.0):
        roots = [Path(r) for r in (results or [os.getcwd()])]
        for root in roots:
            if not root.is_dir():
                raise ConfigError(f"--results {root}: {'not a folder' if root.exists() else 'no such folder'}; "
                                  "name a folder that holds results folders (default: the current folder)")
        self.store = SessionStore(max_games=max_games, idle_seconds=idle_seconds,
                                  evict_after_seconds=evict_after_seconds)
        self.thinker = Thinker(workers, executor)
        self.replays = Replays(roots)
        self.creations = RateLimit(games_per_minute, 60.0, "new games")
        self._catalogue: list[dict[str, Any]] | None = None
        seat = "/api/games/{game_id}/seats/{seat}"
        routes = [
            Route("/", self.home), Route("/join/{game_id}/{seat}", self.join_page),
            Route("/play/{game_id}/{seat}", self.play_page),
            Route("/replay", self.replay_list_page), Route("/replay/{game}", self.replay_page),
            Route("/static/{name}", self.static),
            Route("/api/catalogue", self.api_catalogue),
            Route("/api/games", self.api_new_game, methods=["POST"]),
            Route(f"{seat}/join", self.api_join, methods=["POST"]),
            Route(f"{seat}/view", self.api_view),
            Route(f"{seat}/action", self.api_action, methods=["POST"]),
            Route(f"{seat}/undo", self.api_undo, methods=["POST"]),
            Route(f"{seat}/hint", self.api_hint, methods=["POST"]),
            Route(f"{seat}/record", self.api_record),
            Route("/api/replay/games", self.api_replay_games),
            Route("/api/replay/games/{game}", self.api_replay_step),
        ]
        handlers = {WebError: self._web_error, HTTPException: self._http_error}
        self.app = Starlette(routes=routes, exception_handlers=handlers, lifespan=self._lifespan,
                             middleware=[Middleware(EdgeGuard, allowed_hosts=list(allowed_hosts))])

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.thinker.start()
        yield
        await asyncio.get_running_loop().run_in_executor(None, self.thinker.shutdown)

    # -- errors -------------------------------------------------------------------------------------------

    @staticmethod
    def _error(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status, headers=headers)
        return HTMLResponse(pages.error_page(status, message), status_code=status, headers=headers)

    async def _web_error(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, WebError)
        return self._error(request, error.status, error.message, error.headers)

    async def _http_error(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        path = shown(request.url.path, 80)
        message = {404: f"no page {path} here", 405: f"{request.method} is not allowed on {path}"}.get(
            error.status_code, str(error.detail))
        return self._error(request, error.status_code, message)

    # -- games --------------------------------------------------------------------------------------------

    def _session_and_seat(self, request: Request) -> tuple[GameSession, Seat]:
        """The game and the human seat of the address, for a request that holds that seat's key."""
        if "key" in request.query_params:
            raise WebError(400, "a seat's key is not accepted in the address (it would be logged and passed on): "
                                f"open the seat's invitation link, or send the key in the {KEY_HEADER} header")
        session = self.store.get(request.path_params["game_id"])
        index = seat_number(request)
        key = request.headers.get(KEY_HEADER)
        if key is None:
            key = request.cookies.get(seat_cookie(session.id, index))
        return session, session.seat(index, key)

    @staticmethod
    def invitations(session: GameSession) -> list[dict[str, Any]]:
        """One invitation per human seat: its key and its link (the key in the fragment, never sent to a server)."""
        return [{"index": s.index, "key": s.key, "invitation": f"/join/{session.id}/{s.index}#{s.key}"}
                for s in session.seats if s.kind == HUMAN]

    def _join(self, response: Response, request: Request, session: GameSession, seat: Seat) -> None:
        """Give the browser of `request` the cookie of `seat` (for this one seat of this one game)."""
        response.set_cookie(seat_cookie(session.id, seat.index), seat.key, max_age=int(self.store.idle_seconds),
                            path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https")

    def new_session(self, data: dict[str, Any], client: str = "local") -> GameSession:
        """A session from a new-game request of `client` (see the module docstring); 400 for anything not
        allowed, 429 past the client's limit of new games."""
        name = data.get("game")
        record = data.get("record")
        state = None
        if record is not None:
            if not isinstance(record, str):
                raise WebError(400, "record must be the text of a saved game record")
            recorded = parse_json(record, "not loaded: the record")
            if not isinstance(recorded, dict) or not isinstance(recorded.get("params"), dict):
                raise WebError(400, "not loaded: a record is a JSON object with the game's params")
            params = recorded["params"]
            formats = {g["record_format"]: g["name"] for g in self.catalogue()}
            if not isinstance(recorded.get("format"), str) or recorded["format"] not in formats:
                raise WebError(400, f"not loaded: {shown(recorded.get('format'))} is not the record format of a game "
                                    f"here ({', '.join(sorted(formats))})")
            if name is not None and name != formats[recorded["format"]]:
                raise WebError(400, f"not loaded: that is a {formats[recorded['format']]} record, not {name}")
            name = formats[recorded["format"]]
        if not isinstance(name, str) or name not in game_names():
            raise WebError(400, f"unknown game {shown(name)}; games: {', '.join(game_names())}")
        spec = game_spec(name)
        if record is None:
            params = data.get("params", {})
            if not isinstance(params, dict):
                raise WebError(400, "params must be a JSON object of rule options")
            params = dict(params)
            players = bounded_int(data.get("players", spec.default_players), "players", 1, 99)
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
            except (CavekitError, ValueError, TypeError, KeyError, IndexError, RecursionError) as e:
                # (the engines' own checks raise CorruptRecordError; the rest are a record damaged in ways
                # they do not look for, and are refused all the same)
                raise WebError(400, f"not loaded: {e}") from None
        seed = data.get("seed")
        seed = random_seed() if seed in (None, "") else bounded_int(seed, "seed", 0, DEAL_SEED_LIMIT - 1)
        seats = parse_seats(game, data.get("seats"))
        self.creations.check(client)
        session = GameSession(name, game, seats, seed, self.thinker, state=state)
        self.store.add(session)
        return session

    async def api_new_game(self, request: Request) -> Response:
        """A new game: the creator's browser joins its first human seat; the answer holds every human seat's
        invitation (to be passed on by the creator) and never the seed."""
        data = await read_json(request, MAX_RECORD_BODY)
        session = self.new_session(data, request.client.host if request.client else "unknown")
        seats = self.invitations(session)
        first = session.seats[seats[0]["index"]]
        response = JSONResponse({"id": session.id, "seat": first.index, "url": f"/play/{session.id}/{first.index}",
                                 "seats": seats}, status_code=201)
        self._join(response, request, session, first)
        return response

    async def api_join(self, request: Request) -> Response:
        """Join this browser to the seat whose key the X-Cavekit-Key header holds (what an invitation does)."""
        session, seat = self._session_and_seat(request)
        response = JSONResponse({"id": session.id, "seat": seat.index, "url": f"/play/{session.id}/{seat.index}"})
        self._join(response, request, session, seat)
        return response

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
        count = bounded_int(data.get("count", 5), "count", 1, 1000)
        job = session.hint_job(seat)
        answer = await asyncio.wrap_future(self.thinker.submit(worker.hint, job))
        if session.version != job["version"]:
            raise WebError(409, "the game moved on while the hint was computed: ask again")
        return JSONResponse({"budget": answer["budget"], "scale": answer["scale"], "spec": answer["spec"],
                             "rows": answer["rows"][:count], "more": max(0, len(answer["rows"]) - count)})

    async def api_record(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        text = session.record(seat)
        filename = f"{session.game_name}-{session.id}.json"
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
        step = bounded_int(request.query_params.get("step", "0"), "step", 0, MAX_STEP)
        game = bounded_int(request.path_params["game"], "a game number", 0, MAX_GAME_NUMBER)
        found = replay_step(folder, game, step)
        return self.replays.display_name(folder.path), found

    async def api_replay_games(self, request: Request) -> Response:
        folder = self.replays.folder(request.query_params.get("folder"))
        return JSONResponse({"folder": self.replays.display_name(folder.path),
                             "manifest": manifest_summary(folder.manifest), "damaged": folder.problems,
                             "games": game_list(folder)})

    async def api_replay_step(self, request: Request) -> Response:
        return JSONResponse(self._replay_step(request)[1])

    # -- pages --------------------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        folders = [self.replays.display_name(f) for f in self.replays.found()]
        # the page names the roots by their folder names: a visitor needs no absolute path of the server's
        return HTMLResponse(pages.home_page(self.catalogue(), folders, [r.name or str(r) for r in self.replays.roots]))

    async def join_page(self, request: Request) -> Response:
        """An invitation's page: its script sends the key from the address's fragment to `api_join`."""
        session = self.store.get(request.path_params["game_id"])
        index = session.seat_index(seat_number(request))
        return HTMLResponse(pages.join_page(f"{session.spec.title}: join as player {index}",
                                            {"join_url": f"/api/games/{session.id}/seats/{index}/join"}))

    async def play_page(self, request: Request) -> Response:
        session, seat = self._session_and_seat(request)
        base = f"/api/games/{session.id}/seats/{seat.index}"
        config = {f"{name}_url": f"{base}/{name}" for name in ("view", "action", "undo", "hint", "record")}
        return HTMLResponse(pages.play_page(f"{session.spec.title}: player {seat.index}", config,
                                            session.view(seat)))

    async def replay_list_page(self, request: Request) -> Response:
        folder = self.replays.folder(request.query_params.get("folder"))
        name = self.replays.display_name(folder.path)
        return HTMLResponse(pages.replay_list_page(name, folder.manifest, game_list(folder), folder.problems))

    async def replay_page(self, request: Request) -> Response:
        name, found = self._replay_step(request)
        return HTMLResponse(pages.replay_page(name, found))

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            raise WebError(404, f"no file {shown(name)} here")
        text = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
        return Response(text, media_type=STATIC[name], headers={"Cache-Control": "no-cache"})


def create_app(**options: Any) -> Starlette:
    """The application (options as `CavekitWeb`); its `state.web` is the `CavekitWeb` behind it."""
    web = CavekitWeb(**options)
    web.app.state.web = web
    return web.app

