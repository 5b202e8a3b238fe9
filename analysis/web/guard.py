"""What `cavekit serve` accepts at its edge: bounded request bodies and numbers, trusted hosts and origins,
security headers, creation limits, and one error type (`WebError`) for everything it refuses.

Every request passes `EdgeGuard` (an ASGI middleware) before it reaches a route:
- its `Host` must be one the server answers to (so a page of another site cannot reach it by DNS rebinding);
- a state-changing request (any method but GET, HEAD and OPTIONS) must come from the server's own pages: an
  `Origin` or `Sec-Fetch-Site` header that names another site is refused, and bodies must be JSON (which a
  cross-site form cannot send without a preflight this server never answers);
- every response carries a content security policy with no inline script, `frame-ancestors 'none'`,
  no referrer and no content sniffing, and API answers are not cached;
- an exception no route handled becomes a 500 with a one-line message (and one log line), never a traceback
  sent to the client.
Routes read bodies with `read_json` (size, time, depth and number bounds) and numbers with `bounded_int`.
"""
from __future__ import annotations

import asyncio
import collections
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from starlette.requests import ClientDisconnect, Request

from ...core import records
from ...core.api import CavekitError

MAX_BODY = 16 * 1024                 # bytes of a move, hint or undo request
MAX_RECORD_BODY = 4 * 1024 * 1024    # bytes of a new-game request that carries a saved record
BODY_SECONDS = 10.0                  # a body must arrive within this (a stalled client does not hold a request)
MAX_JSON_DEPTH = 32                  # nesting of a body or a record (a record nests about 6 deep)
INT_PATTERN_DIGITS = 19              # digits of an integer in an address or a field (a seed is below 2**63)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
     b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

log = logging.getLogger("cavekit.web")


class WebError(CavekitError):
    """A request the server refuses: `status` is the HTTP status (4xx), the message says why."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        self.status = status
        self.message = message
        self.headers = headers or {}
        super().__init__(message)


def shown(value: Any, limit: int = 40) -> str:
    """`value` as a message may quote it: its repr, cut to `limit` characters (an address can be very long)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def bounded_int(value: Any, what: str, low: int, high: int) -> int:
    """`value` (a JSON integer, or a string of ASCII digits as an address carries it) as an int in
    [`low`, `high`]; 400 naming `what` and the range for anything else."""
    allowed = f"{what} must be an integer from {low} to {high}"
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text.startswith("-") else text
        # str.isdigit() accepts "²" and other digits int() refuses; only ASCII digits are numbers here
        if not (0 < len(digits) <= INT_PATTERN_DIGITS and digits.isascii() and digits.isdigit()):
            raise WebError(400, f"{allowed}, not {shown(value)}")
        value = int(text)
    elif isinstance(value, bool) or not isinstance(value, int):
        raise WebError(400, f"{allowed}, not {shown(value)}")
    if not low <= value <= high:
        raise WebError(400, f"{allowed}, not {shown(value)}")
    return value


def parse_json(text: str | bytes, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`text` parsed as JSON with bounded nesting and numbers (`core.records.parse_json`, which reads records
    and manifests the same way); 400 saying what is wrong with `what`."""
    try:
        return records.parse_json(text, max_depth)
    except records.JSONTextError as e:
        raise WebError(400, f"{what} is not accepted: {e}") from None


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body: 413 past `limit` bytes, 408 if it does not arrive within `BODY_SECONDS`."""
    declared = request.headers.get("content-length")
    if declared is not None:
        size = bounded_int(declared, "Content-Length", 0, 2**62)
        if size > limit:
            raise WebError(413, f"the body is {size} bytes; at most {limit} are accepted")
    body = bytearray()

    async def receive() -> None:
        async for chunk in request.stream():
            body.extend(chunk)
            if len(body) > limit:
                raise WebError(413, f"the body is larger than {limit} bytes, the most accepted")

    try:
        await asyncio.wait_for(receive(), BODY_SECONDS)
    except asyncio.TimeoutError:
        raise WebError(408, f"the body did not arrive within {BODY_SECONDS:g} s") from None
    except ClientDisconnect:
        raise WebError(400, "the client closed the connection before sending its body") from None
    return bytes(body)


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's body as a JSON object ({} for none): 415 unless it is sent as JSON, 400 if it is not an
    object, and the bounds of `read_body` and `parse_json`."""
    body = await read_body(request, limit)
    if not body.strip():
        return {}
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise WebError(415, f"send the body as JSON (Content-Type: application/json), not {shown(media or 'none')}")
    data = parse_json(body, "the body")
    if not isinstance(data, dict):
        raise WebError(400, "the body must be a JSON object")
    return data


class RateLimit:
    """At most `count` events per `seconds` for each client (a sliding window); `check` refuses with 429."""

    def __init__(self, count: int, seconds: float, what: str, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 10_000):
        self.count = count
        self.seconds = seconds
        self.what = what
        self.clock = clock
        self.max_clients = max_clients
        self._events: collections.OrderedDict[str, collections.deque[float]] = collections.OrderedDict()

    def check(self, client: str) -> None:
        """Count one event of `client`, or refuse it (429, with Retry-After) when its window is full."""
        now = self.clock()
        events = self._events.pop(client, None) or collections.deque()
        while events and now - events[0] >= self.seconds:
            events.popleft()
        self._events[client] = events               # most recent client last
        while len(self._events) > self.max_clients:
            self._events.popitem(last=False)
        if len(events) >= self.count:
            wait = max(1, int(self.seconds - (now - events[0])) + 1)
            raise WebError(429, f"{self.count} {self.what} per {self.seconds:g} s is the most one client may "
                                f"start: try again in {wait} s", headers={"Retry-After": str(wait)})
        events.append(now)


def host_name(host_header: str) -> str:
    """The host name of a `Host` header or an origin's authority, without port or brackets, lower case."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]


class EdgeGuard:
    """The ASGI middleware that checks hosts and origins, adds the security headers and turns any unhandled
    exception into a one-line 500 (see the module docstring). `allowed_hosts` ("*" allows any)."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = LOCAL_HOSTS):
        self.app = app
        self.allowed_hosts = {host_name(h) for h in allowed_hosts}

    def _host_allowed(self, name: str) -> bool:
        return "*" in self.allowed_hosts or name in self.allowed_hosts

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why the request of `scope` is refused before any route sees it, or None."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if not self._host_allowed(host_name(host)):
            allowed = ", ".join(sorted(self.allowed_hosts))
            return 421, (f"this server answers to {allowed}, not to the host {shown(host)}; "
                         "start it with --allowed-host NAME to be reached by another name")
        if scope.get("method", "GET") in SAFE_METHODS:
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return 403, f"a request from another site ({shown(site)}) may not change anything here"
        origin = headers.get("origin")
        if origin is not None:
            authority = origin.split("://", 1)[1] if "://" in origin else ""
            if authority.lower() != host.lower():
                return 403, f"a request from another site ({shown(origin, 60)}) may not change anything here"
        return None

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope.get("path", "").startswith("/api/")
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                extra = list(SECURITY_HEADERS)
                if api:
                    extra.append((b"cache-control", b"no-store"))
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [h for h in extra if h[0] not in present]
            await send(message)

        refused = self.refusal(scope)
        if refused is not None:
            await self._answer(send_with_headers, *refused)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            # A fault of the server, not of the request: logged once here, answered without its details.
            log.exception("cavekit serve: unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await self._answer(send_with_headers, 500, "the server could not answer this request (an internal "
                                                           "error, logged on the server)")

    @staticmethod
    async def _answer(send: Callable[[Message], Awaitable[None]], status: int, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
