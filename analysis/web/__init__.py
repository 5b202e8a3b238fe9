"""Play and replay in the browser: the application behind `cavekit serve`.

`create_app(...)` builds the ASGI application (Starlette; `app.py` lists its routes); `serve(...)` runs it with
uvicorn. Games live in memory (`sessions.py`: seats, the AI's turns in a worker pool, each seat's view of the
position); replays read results folders (`replay.py`); pages are server-rendered HTML (`pages.py`) with the
package's own small script and style sheet (`data/`). A game draws its board through its analysis hooks
`web_board` and `web_score_breakdown` (see `cavekit.core.spec`); a game without them shows its text renderer.
Needs the `web` extra (`pip install "cavekit[web]"`).
"""
from __future__ import annotations

from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def create_app(**options: Any) -> Any:
    """The ASGI application (options: `max_games`, `idle_seconds`, `workers`, `executor`, `results`)."""
    from .app import create_app as create
    return create(**options)


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, quiet: bool = False, **options: Any) -> None:
    """Run the application with uvicorn until interrupted, printing its address first."""
    import uvicorn
    app = create_app(**options)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning" if quiet else "info")
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"cavekit serve: open http://{shown}:{port}/ (Ctrl+C stops the server)", flush=True)
    server.run()
