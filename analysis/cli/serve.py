"""`cavekit serve`: play against the AI and replay stored games in the browser."""
from __future__ import annotations

import argparse

from ...core.api import CavekitError
from .common import Subcommands


def run(args: argparse.Namespace) -> int:
    """Start the web application (it runs until interrupted)."""
    try:
        import starlette  # noqa: F401  (the extra's packages, checked before anything starts)
        import uvicorn  # noqa: F401

        from ..web import serve
    except ImportError as e:
        raise CavekitError(f"cavekit serve needs the web extra ({e.name} is not installed): "
                           'pip install "cavekit[web]" (from a checkout: pip install -e ".[web]")') from None
    if args.max_games < 1 or args.idle_hours <= 0 or args.workers < 1 or args.games_per_minute < 1:
        raise CavekitError("--max-games, --workers and --games-per-minute must be at least 1 and --idle-hours "
                           "above 0")
    serve(host=args.host, port=args.port, quiet=args.quiet, max_games=args.max_games,
          idle_seconds=args.idle_hours * 3600, workers=args.workers, results=args.results or None,
          allowed_hosts=args.allowed_host, games_per_minute=args.games_per_minute)
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `serve` subcommand."""
    from ..web import DEFAULT_HOST, DEFAULT_PORT
    serve = sub.add_parser(
        "serve", help="play and replay games in the browser",
        description="Start a local web application: new games against the AI (each seat a person or a difficulty),\n"
                    "boards to click on, hints, undo, game records to save and load, and replays of the games of\n"
                    "results folders. It prints its address; it listens on 127.0.0.1 only unless --host says\n"
                    "otherwise. Needs the web extra: pip install \"cavekit[web]\".",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit serve                               (then open http://127.0.0.1:8765/)\n"
               "  cavekit serve --port 9000 --results results\n"
               "  cavekit report results/run1 --replay-url http://127.0.0.1:8765   (report links to replays)")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--results", action="append", default=[], metavar="DIR",
                       help="a folder whose results folders may be replayed (repeatable; default: the current folder)")
    serve.add_argument("--max-games", type=int, default=100, help="games kept in memory at most (default 100)")
    serve.add_argument("--idle-hours", type=float, default=2.0,
                       help="a game idle this long is forgotten (default 2)")
    serve.add_argument("--workers", type=int, default=2, help="processes that run the AI's moves (default 2)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a host name or address other machines reach the server by (repeatable; it always "
                            "answers to localhost, 127.0.0.1, ::1 and --host; '*' answers to any)")
    serve.add_argument("--games-per-minute", type=int, default=20,
                       help="new games one client may start a minute (default 20)")
    serve.add_argument("--quiet", action="store_true", help="log warnings only, not every request")
    serve.set_defaults(run=run)
