"""`cavekit agents [GAME]`: the agents there are (or those that play GAME), what each does and its options."""
from __future__ import annotations

import argparse
import inspect

from ...core.registry import game_names, game_spec
from ...core.spec import DIFFICULTIES
from ...search.agent import agent_names, describe_agent
from .common import Subcommands


def print_presets(game_name: str) -> None:
    """The game's difficulty presets by player count: the agent spec each stands for, its cost and strength."""
    spec = game_spec(game_name)
    print(f"difficulty presets of {game_name} (usable wherever an agent spec is):")
    groups: dict[tuple, list[int]] = {}         # player counts that share the same four presets
    for players in spec.player_counts:
        groups.setdefault(tuple(spec.preset(d, players) for d in DIFFICULTIES), []).append(players)
    for presets, counts in groups.items():
        print(f"  {', '.join(map(str, counts))} player{'s' if counts != [1] else ''}:")
        for preset in presets:
            print(f"    {preset.difficulty:<10} = {preset.agent}")
            print(f"      cost: {preset.cost or 'not measured yet'}")
            print(f"      strength: {preset.strength or 'not measured yet'}")
    print()


def run(args: argparse.Namespace) -> int:
    """Print the game's presets, then one entry per agent: its name, description, the game it plays and its
    options with defaults."""
    if args.game is not None:
        print_presets(args.game)
    for name in agent_names(args.game):
        description, options, plays = describe_agent(name)
        where = f"  [{plays} only]" if plays and args.game is None else ""
        print(f"{name}{where}\n    {description}")
        if options:
            shown = ", ".join(f"{o.name}={'' if o.default is inspect.Parameter.empty else o.default} ({o.kind})"
                              for o in options)
            print(f"    options: {shown}")
    print("\nan agent spec is NAME or NAME:option=value,option=value, e.g. "
          f"mcts:iterations=500, or a difficulty: {', '.join(DIFFICULTIES)} (`cavekit agents GAME` lists what "
          "each stands for)")
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `agents` subcommand."""
    agents = sub.add_parser("agents", help="list the agents (or those that play one game) with their options",
                            description="Every agent spec name with a one-line description and its options "
                                        "(name=default, type); with a game, only the agents that play it.")
    agents.add_argument("game", nargs="?", choices=game_names(), help="a game name")
    agents.set_defaults(run=run)
