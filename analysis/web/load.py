"""A load test of `cavekit serve`: `python -m cavekit.analysis.web.load`.

`--clients` threads each play their own games against the AI over HTTP, as a quick player's page would: fetch
the seat's view (and every few steps the play page), play a random legal move when it is the seat's turn, now
and then ask a hint or undo, and start a new game when one ends. The run stops by itself after `--seconds` or
`--max-requests` requests, whichever comes first, and reports the requests and errors by kind, the games
finished, the AI's replies seen, the latency per kind (p50, p95, max in milliseconds; the page latency is the
p95 of view and play-page requests) and the machine.

It starts the application itself (uvicorn in a thread on a free port of 127.0.0.1, watching the server's log
for warnings and tracebacks), or loads a running server given by `--url` (a loopback address only: the load
test never sends a request to another machine). Client and server then share one interpreter (and its
lock), so the in-process latencies are a little higher than a separate `cavekit serve` process would show.

What counts as an error: a connection error or timeout, a 5xx, any status a request of its kind should never
get (a 409 for a move, hint or undo is a normal answer under concurrency: the AI is thinking, the game moved
on, nothing to undo), an answer that is not the JSON or HTML expected, an AI that could not move (`ai_error`
in a view), and a warning, error or traceback in the server's log. Each client's choices come from child
`SeedSequence`s of `--seed`, so a run asks the same questions in the same situations (which situations come
up depends on timing: when the AI's reply arrives).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import http.client
import ipaddress
import json
import logging
import os
import platform
import socket
import sys
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

KINDS = ("create", "view", "page", "action", "hint", "undo")
EXPECTED = {"catalogue": {200}, "create": {201}, "view": {200}, "page": {200},
            "action": {200, 409}, "hint": {200, 409}, "undo": {200, 409}}
WATCHED_LOGGERS = ("uvicorn.error", "cavekit.web", "concurrent.futures", "asyncio")
KEY_HEADER = "X-Cavekit-Key"
REUSE_IDLE_SECONDS = 2.0     # reconnect after this idle time: uvicorn closes a keep-alive connection idle 5 s
ERROR_SAMPLES = 20
PROGRESS_SECONDS = 10.0


class LoadError(Exception):
    """A load test that cannot run as asked (a non-loopback URL, a server that does not start)."""


class Stop(Exception):
    """The run's time or request bound is reached: the client ends."""


def loopback_target(url: str) -> tuple[str, int]:
    """The address and port of `url`, an http URL of this machine (127.0.0.0/8, ::1 or localhost); LoadError
    for any other host, so that the load test never reaches another machine."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http":
        raise LoadError(f"--url must be an http:// URL of this machine, such as http://127.0.0.1:8765, not {url!r}")
    host = parts.hostname or ""
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise LoadError(f"--url {url!r}: {host or 'no host'} is not a loopback address; the load test only runs "
                            "against this machine (127.0.0.1, ::1 or localhost)")
    try:
        port = parts.port or 80
    except ValueError:
        raise LoadError(f"--url {url!r}: the port is not a number from 0 to 65535") from None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise LoadError(f"--url {url!r}: give the server's root only (http://127.0.0.1:PORT)")
    # localhost is sent to 127.0.0.1 itself: a resolver cannot point the load elsewhere
    return ("127.0.0.1" if host == "localhost" else host), port


# -- the server's log ---------------------------------------------------------------------------------------

class LogWatch(logging.Handler):
    """Keeps the records of level WARNING and above, and any record with a traceback, of the watched loggers."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING or record.exc_info:
            with self._guard:
                self.records.append(record)

    @contextlib.contextmanager
    def watching(self, names: tuple[str, ...] = WATCHED_LOGGERS) -> Iterator[LogWatch]:
        """Attach to the loggers `names` for the duration of the block."""
        loggers = [logging.getLogger(name) for name in names]
        for logger in loggers:
            logger.addHandler(self)
        try:
            yield self
        finally:
            for logger in loggers:
                logger.removeHandler(self)

    def summary(self) -> list[dict[str, Any]]:
        """The kept records as plain data (a traceback's last line only)."""
        with self._guard:
            records = list(self.records)
        rows = []
        for r in records:
            error = r.exc_info[1] if r.exc_info else None
            rows.append({"logger": r.name, "level": r.levelname, "message": r.getMessage()[:300],
                         "exception": f"{type(error).__name__}: {error}"[:300] if error is not None else None})
        return rows


def worker_ready(_: Any) -> int:
    """A job for a worker process: its process id, a moment later (so that one worker cannot take every job)."""
    time.sleep(0.1)
    return os.getpid()


def warm_up(thinker: Any, workers: int, deadline: float) -> None:
    """Wait until each of the `workers` AI processes has started (spawned and imported the engines): otherwise
    the first seconds of a run measure the workers' start, not the server (each is ~1 s of imports alone, more
    with the clients competing for the cores). LoadError past `deadline` (time.monotonic)."""
    seen: set[int] = set()
    while len(seen) < workers:
        futures = [thinker.submit(worker_ready, {}) for _ in range(workers)]
        try:
            seen.update(future.result(timeout=max(1.0, deadline - time.monotonic())) for future in futures)
        except concurrent.futures.TimeoutError:     # (the built-in TimeoutError only from Python 3.11)
            pass
        if len(seen) < workers and time.monotonic() > deadline:
            raise LoadError(f"only {len(seen)} of the {workers} AI worker processes started")


@contextlib.contextmanager
def local_server(workers: int = 2, games_per_minute: int = 100_000, max_games: int = 1000,
                 start_seconds: float = 60.0) -> Iterator[str]:
    """`cavekit serve`'s application run by uvicorn in a thread on a free port of 127.0.0.1; yields its URL."""
    import uvicorn

    from . import create_app
    app = create_app(workers=workers, games_per_minute=games_per_minute, max_games=max_games)
    # proto named: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets whose proto is TCP, and an
    # accepted socket inherits it; with proto 0 every response's body waits ~40 ms for the client's delayed ACK
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))         # held from here on: no other process can take the port meanwhile
    port = sock.getsockname()[1]
    # log_config=None: uvicorn leaves the logging setup alone, so the handlers watching its log stay attached
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", log_config=None,
                            server_header=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="cavekit-load-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + start_seconds
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise LoadError("the server did not start (see its log above)")
            time.sleep(0.05)
        warm_up(app.state.web.thinker, workers, deadline)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)
        sock.close()


# -- the clients ------------------------------------------------------------------------------------------

@dataclass
class Tally:
    """What every client saw, under one lock: statuses, latencies, errors, games and refusals by kind."""

    sent: Counter = field(default_factory=Counter)
    statuses: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    error_samples: list[dict[str, Any]] = field(default_factory=list)
    refusals: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    games_started: int = 0
    games_finished: int = 0
    ai_replies: int = 0

    def __post_init__(self) -> None:
        self.lock = threading.Lock()

    def send(self, kind: str) -> None:
        with self.lock:
            self.sent[kind] += 1

    def request(self, kind: str, status: int, seconds: float, refusal: str | None = None) -> None:
        with self.lock:
            self.statuses[kind][status] += 1
            self.seconds[kind].append(seconds)
            if refusal is not None:
                self.refusals[kind][refusal] += 1

    def error(self, what: str, detail: str, path: str = "") -> None:
        with self.lock:
            self.errors[what] += 1
            if len(self.error_samples) < ERROR_SAMPLES:
                self.error_samples.append({"error": what, "detail": detail[:300], "path": path})

    def count(self, name: str, n: int = 1) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + n)

    def requests(self) -> int:
        with self.lock:
            return sum(self.sent.values())


class Bounds:
    """The run's bounds, shared by the clients: a deadline and a number of requests; `stopped` once either is
    reached (or the run is stopped)."""

    def __init__(self, seconds: float, max_requests: int):
        self.deadline = time.monotonic() + seconds
        self.left = max_requests
        self.reason = ""
        self.stopped = threading.Event()
        self._lock = threading.Lock()

    def stop(self, reason: str) -> None:
        with self._lock:
            if not self.reason:
                self.reason = reason
        self.stopped.set()

    def take(self) -> None:
        """Count one request about to be sent; Stop when a bound is reached."""
        if time.monotonic() >= self.deadline:
            self.stop("time")
        with self._lock:
            if self.left <= 0:
                self.reason = self.reason or "max-requests"
                self.stopped.set()
            if self.stopped.is_set():
                raise Stop
            self.left -= 1

    def pause(self, seconds: float) -> None:
        """Wait `seconds` (a person's pace between requests); Stop if the run stops meanwhile."""
        if self.stopped.wait(min(seconds, max(0.0, self.deadline - time.monotonic()))):
            raise Stop


def refusal_text(message: str) -> str:
    """A 409's message without its particulars (versions, players, the move), to count refusals by reason."""
    if message.startswith("cannot take back your move") and ": " in message:
        # "cannot take back your move MOVE: WHY, ...": the reason without the move and what was shown
        why = message.split(": ", 1)[1]
        return "undo refused: " + ("something was shown since" if "shown you" in why else
                                   "another person moved since" if "moved since" in why else why.split(",")[0][:40])
    for mark in (":", "(", ";"):
        message = message.split(mark, 1)[0]
    return message.strip()[:60]


class Connection:
    """One keep-alive HTTP connection to the server (a browser tab's), reopened after an error or a long idle."""

    def __init__(self, host: str, port: int, timeout: float):
        self.host, self.port, self.timeout = host, port, timeout
        self._conn: http.client.HTTPConnection | None = None
        self._used = 0.0

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        """Send one request; its status, content type and body (OSError/HTTPException on a connection error)."""
        if self._conn is not None and time.monotonic() - self._used > REUSE_IDLE_SECONDS:
            self.close()
        sent = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        try:
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                self._conn.connect()
                # as browsers do: http.client sends a request's headers and body in two writes, and Nagle's
                # algorithm would hold the body until the server's delayed ACK (40 ms on Linux) on every POST
                self._conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conn.request(method, path, body=data, headers=sent)
            response = self._conn.getresponse()
            payload = response.read()
        except BaseException:
            self.close()
            raise
        self._used = time.monotonic()
        if response.will_close:
            self.close()
        return response.status, response.getheader("content-type", ""), payload


@dataclass
class Game:
    """A game a client plays: its id, its seat and the seat's key."""

    id: str
    seat: int
    key: str

    @property
    def api(self) -> str:
        return f"/api/games/{self.id}/seats/{self.seat}"


class Client:
    """One player: creates games and plays them to the end through the API (see the module docstring)."""

    def __init__(self, index: int, target: tuple[str, int], options: argparse.Namespace, players: int,
                 seed: np.random.SeedSequence, bounds: Bounds, tally: Tally):
        self.index = index
        self.http = Connection(*target, timeout=options.timeout)
        self.options = options
        self.players = players
        self.rng = np.random.default_rng(seed)
        self.bounds = bounds
        self.tally = tally

    def call(self, kind: str, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        """One request of `kind`: its JSON answer (the page's HTML), or None for a refusal (409) or an error."""
        self.bounds.take()
        self.tally.send(kind)
        started = time.perf_counter()
        try:
            status, media, payload = self.http.request(method, path, body, {KEY_HEADER: key} if key else None)
        except (TimeoutError, socket.timeout) as e:
            self.tally.error(f"{kind}: timeout", f"{type(e).__name__}: {e}", path)
            return None
        except (OSError, http.client.HTTPException) as e:
            self.tally.error(f"{kind}: connection", f"{type(e).__name__}: {e}", path)
            return None
        seconds = time.perf_counter() - started
        text = payload.decode("utf-8", "replace")
        answer: Any = text
        if media.startswith("application/json"):
            try:
                answer = json.loads(text)
            except ValueError:
                answer = None
        refusal = refusal_text(answer.get("error", "")) if status == 409 and isinstance(answer, dict) else None
        self.tally.request(kind, status, seconds, refusal)
        if status not in EXPECTED[kind]:
            detail = answer.get("error", "") if isinstance(answer, dict) else text[:200]
            self.tally.error(f"{kind}: HTTP {status}", f"{method} -> {status}: {detail}", path)
            return None
        wanted = "text/html" if kind == "page" else "application/json"
        if not media.startswith(wanted) or (wanted == "application/json" and not isinstance(answer, (dict, list))):
            self.tally.error(f"{kind}: bad answer", f"{method} -> {status} {media}: {text[:200]}", path)
            return None
        return None if status == 409 else answer

    def run(self) -> None:
        """Play games until the run stops."""
        try:
            while True:
                game = self.new_game()
                if game is not None:
                    self.play(game)
                self.bounds.pause(self.options.pause)
        except Stop:
            pass
        except Exception as e:          # a fault of the load test itself: counted, never silent
            self.tally.error("client: crashed", f"{type(e).__name__}: {e}")
        finally:
            self.http.close()

    def new_game(self) -> Game | None:
        """A new game with one human seat (at a random place) and the AI at `--ai` in the others."""
        seats = [self.options.ai] * self.players
        seats[int(self.rng.integers(self.players))] = "human"
        body = {"game": self.options.game, "seats": seats, "seed": int(self.rng.integers(2**31))}
        created = self.call("create", "POST", "/api/games", body)
        if created is None:
            return None
        self.tally.count("games_started")
        seat = created["seat"]
        return Game(created["id"], seat, next(s["key"] for s in created["seats"] if s["index"] == seat))

    def play(self, game: Game) -> None:
        """Play `game` to its end (or to an error, after which the client starts another game)."""
        o = self.options
        known = 0               # the last version this client saw or made: any later one is the AI's reply
        step = 0
        while True:
            step += 1
            if step % o.page_every == 0 and self.call("page", "GET", f"/play/{game.id}/{game.seat}",
                                                      key=game.key) is None:
                return
            view = self.call("view", "GET", f"{game.api}/view", key=game.key)
            if view is None:
                return
            if view["version"] > known:
                self.tally.count("ai_replies")
                known = view["version"]
            if view["ai_error"]:
                self.tally.error("view: ai_error", view["ai_error"], f"{game.api}/view")
                return
            if view["result"] is not None:
                self.tally.count("games_finished")
                return
            if view["can_undo"] and self.rng.random() < o.undo_rate:
                # asked whatever the AI is doing: a refusal while it thinks is part of the load
                undone = self.call("undo", "POST", f"{game.api}/undo", key=game.key)
                if undone is not None:
                    known = undone["version"]
            elif view["your_turn"] and view["actions"]:
                if self.rng.random() < o.hint_rate:
                    self.call("hint", "POST", f"{game.api}/hint", {"count": 3}, key=game.key)
                action = view["actions"][int(self.rng.integers(len(view["actions"])))]["id"]
                moved = self.call("action", "POST", f"{game.api}/action",
                                  {"action": action, "version": view["version"]}, key=game.key)
                if moved is not None:
                    # the move makes version + 1; more means the AI replied before this answer was made
                    if moved["version"] > view["version"] + 1:
                        self.tally.count("ai_replies")
                    known = moved["version"]
            self.bounds.pause(o.pause)


# -- the run ----------------------------------------------------------------------------------------------

def percentiles_ms(seconds: list[float]) -> dict[str, Any]:
    """p50, p95 and max of `seconds`, in milliseconds (rounded to 0.1)."""
    if not seconds:
        return {"n": 0, "p50": None, "p95": None, "max": None}
    ms = np.array(seconds) * 1000
    return {"n": len(ms), "p50": round(float(np.percentile(ms, 50)), 1), "p95": round(float(np.percentile(ms, 95)), 1),
            "max": round(float(ms.max()), 1)}


def machine() -> dict[str, Any]:
    """The machine the numbers come from."""
    return {"cpu_count": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None}


def game_players(target: tuple[str, int], game: str, timeout: float) -> int:
    """The default number of players of `game`, from the server's catalogue (LoadError if it has no such game)."""
    connection = Connection(*target, timeout=timeout)
    try:
        status, _, payload = connection.request("GET", "/api/catalogue")
    except (OSError, http.client.HTTPException) as e:
        raise LoadError(f"no server answers at {target[0]}:{target[1]} ({type(e).__name__}: {e})") from None
    finally:
        connection.close()
    if status != 200:
        raise LoadError(f"the server's catalogue answered {status}: {payload[:200]!r}")
    for entry in json.loads(payload):
        if entry["name"] == game:
            return int(entry["default_players"])
    raise LoadError(f"the server has no game {game!r}")


def drive(url: str, options: argparse.Namespace, progress: bool = False) -> dict[str, Any]:
    """Run the clients against the server at `url` (a loopback URL) within the bounds; the report's numbers."""
    target = loopback_target(url)
    players = game_players(target, options.game, options.timeout)
    tally = Tally()
    bounds = Bounds(options.seconds, options.max_requests)
    seeds = np.random.SeedSequence(options.seed).spawn(options.clients)
    clients = [Client(i, target, options, players, seeds[i], bounds, tally) for i in range(options.clients)]
    threads = [threading.Thread(target=c.run, name=f"cavekit-load-client-{c.index}", daemon=True) for c in clients]
    started = time.monotonic()
    machine_before = machine()
    for thread in threads:
        thread.start()
    next_progress = started + PROGRESS_SECONDS
    while not bounds.stopped.wait(0.1):
        now = time.monotonic()
        if now >= bounds.deadline:
            bounds.stop("time")
        elif progress and now >= next_progress:
            next_progress += PROGRESS_SECONDS
            print(f"load: {now - started:.0f} s, {tally.requests()} requests, {sum(tally.errors.values())} errors, "
                  f"{tally.games_finished} games finished", file=sys.stderr, flush=True)
    for thread in threads:
        thread.join(options.timeout + 10)       # a request under way is answered or times out
    elapsed = time.monotonic() - started
    with tally.lock:
        by_kind = {kind: tally.sent[kind] for kind in KINDS}
        latency = {kind: percentiles_ms(tally.seconds[kind]) for kind in KINDS}
        pages = percentiles_ms(tally.seconds["view"] + tally.seconds["page"])
        return {
            "url": url, "game": options.game, "ai": options.ai, "clients": options.clients,
            "seconds": options.seconds, "max_requests": options.max_requests, "seed": options.seed,
            "pause": options.pause, "stopped_by": bounds.reason or "time", "elapsed_s": round(elapsed, 2),
            "requests": sum(by_kind.values()), "requests_per_s": round(sum(by_kind.values()) / elapsed, 1),
            "requests_by_kind": by_kind,
            "statuses": {kind: {str(s): n for s, n in sorted(tally.statuses[kind].items())} for kind in KINDS},
            "refusals": {kind: dict(tally.refusals[kind].most_common()) for kind in KINDS if tally.refusals[kind]},
            "errors": sum(tally.errors.values()), "errors_by_kind": dict(tally.errors.most_common()),
            "error_samples": list(tally.error_samples),
            "games_started": tally.games_started, "games_finished": tally.games_finished,
            "ai_replies": tally.ai_replies,
            "latency_ms": latency, "page_latency_p95_ms": pages["p95"],
            "machine": {**machine_before, "loadavg_after": machine()["loadavg"]},
        }


def run_load(options: argparse.Namespace, progress: bool = False) -> dict[str, Any]:
    """The load test as `options` (the command line's) say: against `options.url`, or a server started here
    (whose log is watched; its warnings and tracebacks count as errors)."""
    if options.url:
        report = drive(options.url, options, progress)
        report["server"] = "given by --url (its log is not watched here)"
        report["server_log"] = None
        return report
    watch = LogWatch()
    with watch.watching(), local_server(workers=options.workers) as url:
        report = drive(url, options, progress)
    log = watch.summary()
    report["server"] = f"in this process (uvicorn in a thread, {options.workers} AI worker processes)"
    report["server_log"] = log
    for row in log:
        what = "server log: traceback" if row["exception"] else f"server log: {row['level']}"
        report["errors_by_kind"][what] = report["errors_by_kind"].get(what, 0) + 1
        report["errors"] += 1
        if len(report["error_samples"]) < ERROR_SAMPLES:
            report["error_samples"].append({"error": what, "detail": f"{row['message']} {row['exception'] or ''}",
                                            "path": ""})
    return report


def format_report(report: dict[str, Any]) -> str:
    """The report as a few lines of text."""
    lines = [f"cavekit serve load: {report['clients']} clients playing {report['game']} against {report['ai']} for "
             f"{report['elapsed_s']:.1f} s (stopped by {report['stopped_by']}), {report['url']}, server "
             f"{report['server']}",
             f"requests: {report['requests']} ({report['requests_per_s']}/s); errors: {report['errors']}; games "
             f"started {report['games_started']}, finished {report['games_finished']}; AI replies seen "
             f"{report['ai_replies']}",
             f"{'kind':<8}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}  statuses"]
    for kind in KINDS:
        lat = report["latency_ms"][kind]
        shown = {k: ("-" if v is None else f"{v:.1f}") for k, v in lat.items() if k != "n"}
        statuses = ", ".join(f"{s}: {n}" for s, n in report["statuses"][kind].items())
        lines.append(f"{kind:<8}{report['requests_by_kind'][kind]:>9}{shown['p50']:>9}{shown['p95']:>9}"
                     f"{shown['max']:>9}  {statuses}")
    lines.append(f"page latency (p95 of view and play-page requests): {report['page_latency_p95_ms']} ms")
    for kind, reasons in report["refusals"].items():
        lines.append(f"409 {kind}: " + "; ".join(f"{reason} ({n})" for reason, n in reasons.items()))
    if report["errors"]:
        lines.append("errors: " + "; ".join(f"{what} ({n})" for what, n in report["errors_by_kind"].items()))
        lines += [f"  {s['error']}: {s['path']} {s['detail']}" for s in report["error_samples"]]
    m = report["machine"]
    lines.append(f"machine: {m['cpu_count']} CPUs, {m['platform']}, Python {m['python']}, load average "
                 f"{m['loadavg']} before, {m['loadavg_after']} after")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    from ...core.registry import default_game_name
    p = argparse.ArgumentParser(prog="python -m cavekit.analysis.web.load",
                                description="Load-test cavekit serve on this machine: clients playing, hinting and "
                                            "undoing at once; requests, errors and latencies by kind.")
    p.add_argument("--clients", type=int, default=8, help="players at once (default 8)")
    p.add_argument("--seconds", type=float, default=30.0, help="stop after this long (default 30)")
    p.add_argument("--max-requests", type=int, default=20_000,
                   help="stop after this many requests in all, whichever bound comes first (default 20000)")
    p.add_argument("--game", default=default_game_name(), help="the game played (default %(default)s)")
    p.add_argument("--ai", default="easy", help="the AI's difficulty in the other seats (default easy)")
    p.add_argument("--seed", type=int, default=0, help="seed of the clients' choices (default 0)")
    p.add_argument("--url", help="load a running server at this loopback URL (http://127.0.0.1:PORT) instead of "
                                 "starting one; start it with a high --games-per-minute")
    p.add_argument("--workers", type=int, default=2, help="AI worker processes of the server started here (default 2)")
    p.add_argument("--pause", type=float, default=0.1,
                   help="seconds a client waits between its steps (default 0.1; a page polls every 0.4)")
    p.add_argument("--page-every", type=int, default=5, help="fetch the play page every this many steps (default 5)")
    p.add_argument("--hint-rate", type=float, default=0.15, help="chance of a hint before a move (default 0.15)")
    p.add_argument("--undo-rate", type=float, default=0.05,
                   help="chance of an undo at a step where one is possible (default 0.05)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds a request may take (default 30)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the load test; exit status 1 if any error was counted."""
    args = parser().parse_args(argv)
    name = "python -m cavekit.analysis.web.load"
    if args.clients < 1 or args.seconds <= 0 or args.max_requests < 1 or args.workers < 1 or args.page_every < 1 \
            or args.pause < 0 or args.timeout <= 0:
        print(f"{name}: --clients, --max-requests, --workers and --page-every must be at least 1, --seconds and "
              "--timeout above 0, --pause at least 0", file=sys.stderr)
        return 2
    try:
        report = run_load(args, progress=not args.quiet)      # a --url not of this machine: refused at once
    except LoadError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
