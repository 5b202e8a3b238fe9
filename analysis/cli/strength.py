"""`cavekit strength GAME ...`: a game's agent-strength report; each game with one adds its own options.

A game offers a report through the `add_strength_parser(games)` hook of its spec's analysis module, which
adds the parser named after the game to `games` (the sub-subcommands of `strength`) and sets its `run`.
"""
from __future__ import annotations

from ...core.registry import game_specs
from .common import Subcommands


def add_parser(sub: Subcommands) -> None:
    """The `strength` subcommand, with one sub-subcommand per game that has a strength report."""
    hooks = [(spec.name, spec.analysis_hook("add_strength_parser")) for spec in game_specs()]
    hooks = [(name, hook) for name, hook in hooks if hook is not None]
    strength = sub.add_parser(
        "strength", help=f"a game's agent-strength report ({', '.join(name for name, _ in hooks)})",
        description="Play the matches and solo games a game's strength report is made of and write report.md, "
                    "summary.json and the games as Parquet into one folder. `cavekit strength GAME --help` "
                    "shows a game's parts and options.")
    games = strength.add_subparsers(dest="game", required=True, metavar="GAME")
    for _, hook in hooks:
        hook(games)
