"""`cavekit agents [GAME]`: the agents there are (or those that play GAME), what each does and its options."""
from __future__ import annotations

import argparse
import inspect

from ...core.registry import game_names
from ...search.agent import agent_names, describe_agent
from .common import Subcommands


def run(args: argparse.Namespace) -> int:
    """Print one entry per agent: its name, description, the game it plays and its options with defaults."""
    for name in agent_names(args.game):
        description, options, plays = describe_agent(name)
        where = f"  [{plays} only]" if plays and args.game is None else ""
        print(f"{name}{where}\n    {description}")
        if options:
            shown = ", ".join(f"{o.name}={'' if o.default is inspect.Parameter.empty else o.default} ({o.kind})"
                              for o in options)
            print(f"    options: {shown}")
    print("\nan agent spec is NAME or NAME:option=value,option=value, e.g. "
          "mcts:iterations=500")
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `agents` subcommand."""
    agents = sub.add_parser("agents", help="list the agents (or those that play one game) with their options",
                            description="Every agent spec name with a one-line description and its options "
                                        "(name=default, type); with a game, only the agents that play it.")
    agents.add_argument("game", nargs="?", choices=game_names(), help="a game name")
    agents.set_defaults(run=run)
