"""The `cavekit` command line: one module per subcommand, plus each game's own studies.

The generic subcommands (`match`, `tournament`, `bench`, `play`, `report`, `games`, `agents`, `deal`,
`serve`, `strength`) live here; a game adds its strength report through the `add_strength_parser` hook and
its own studies through the `add_commands(subparsers)` hook of its spec's analysis module.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys

from ... import __version__
from ...core.api import CavekitError
from ...core.registry import game_specs
from . import agents, bench, deal, games, match, play, report, tournament
from . import serve, strength

GENERIC_COMMANDS = (match, bench, tournament, play, report, games, agents, deal, serve, strength)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand: the generic ones, then each game's studies."""
    parser = argparse.ArgumentParser(prog="cavekit", description="AI play and strategy analysis for cave games.")
    parser.add_argument("--version", action="version", version=f"cavekit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in GENERIC_COMMANDS:
        command.add_parser(sub)
    for spec in game_specs():
        add_commands = spec.analysis_hook("add_commands")
        if add_commands is not None:
            add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `cavekit` with `argv` (default: the process's arguments); the exit status."""
    try:
        args = build_parser().parse_args(argv)     # (the games' own commands are loaded here)
    except KeyboardInterrupt:
        print("cavekit: interrupted", file=sys.stderr)
        return 130
    args.argv = list(sys.argv[1:] if argv is None else argv)    # the command as typed (for resume messages)
    try:
        return args.run(args)
    except CavekitError as e:
        print(f"cavekit: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # (`match` says how many games it kept; this covers every other long command)
        print(interrupted_message(args), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of the output went away (`cavekit ... | head`): stop quietly, pointing stdout at
        # /dev/null so that Python's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def interrupted_message(args: argparse.Namespace) -> str:
    """What Ctrl-C leaves: for a command that resumes (`resumes=True` on its parser), where its finished games
    are and the command that carries on from there."""
    if getattr(args, "resumes", False) and getattr(args, "out", None):
        command = " ".join(shlex.quote(word) for word in ["cavekit", *args.argv])
        return (f"cavekit: interrupted; the finished games are kept in {args.out}. Run the same command to carry on "
                f"from there: {command}")
    return "cavekit: interrupted"


if __name__ == "__main__":
    sys.exit(main())
