"""The `cavekit` command line: one module per subcommand, plus each game's own studies.

The generic subcommands (`match`, `tournament`, `bench`, `play`, `report`, `games`, `agents`, `deal`,
`serve`, `strength`) live here; a game adds its strength report through the `add_strength_parser` hook and
its own studies through the `add_commands(subparsers)` hook of its spec's analysis module.
"""
from __future__ import annotations

import argparse
import os
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
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)    # the command as typed (for resume messages)
    try:
        return args.run(args)
    except CavekitError as e:
        print(f"cavekit: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of the output went away (`cavekit ... | head`): stop quietly, pointing stdout at
        # /dev/null so that Python's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
