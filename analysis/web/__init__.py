"""Play and replay in the browser: the application behind `cavekit serve`.

`create_app(...)` builds the ASGI application (Starlette; `app.py` lists its routes); `serve(...)` runs it with
uvicorn. Games live in memory (`sessions.py`: seats, the AI's turns in a worker pool, each seat's view of the
position); replays read results folders (`replay.py`); pages are server-rendered HTML (`pages.py`) with the
package's own small script and style sheet (`data/`). A game draws its board through its analysis hooks
`web_board` and `web_score_breakdown` (see `cavekit.core.spec`); a game without them shows its text renderer.
Needs the `web` extra (`pip install "cavekit[web]"`).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def create_app(**options: Any) -> Any:
    """The ASGI application (options: `max_games`, `idle_seconds`, `workers`, `executor`, `results`,
    `allowed_hosts`, `games_per_minute`, `evict_after_seconds`)."""
    from .app import create_app as create
    return create(**options)


def answered_hosts(host: str, allowed_hosts: Iterable[str] = ()) -> list[str]:
    """The host names a server listening on `host` answers to: this machine's loopback names, `host` itself
    unless it is a wildcard address, and `allowed_hosts` (a name others reach it by; "*" for any)."""
    from .guard import LOCAL_HOSTS
    names = list(LOCAL_HOSTS) + list(allowed_hosts)
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    return names


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, quiet: bool = False,
          allowed_hosts: Iterable[str] = (), **options: Any) -> None:
    """Run the application with uvicorn until interrupted, printing its address first."""
    import uvicorn
    app = create_app(allowed_hosts=answered_hosts(host, allowed_hosts), **options)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning" if quiet else "info",
                            server_header=False, timeout_keep_alive=5)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"cavekit serve: open http://{shown}:{port}/ (Ctrl+C stops the server)", flush=True)
    if host in ("0.0.0.0", "::") and not allowed_hosts:
        print("cavekit serve: it answers only to localhost names: add --allowed-host NAME for each name or address "
              "other machines use to reach it", flush=True)
    server.run()
