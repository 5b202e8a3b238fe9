"""`cavekit games`: the games there are, and one game's players, engines and rule parameters."""
from __future__ import annotations

import argparse

from ...core.registry import game_names, game_spec, game_specs
from ...search.agent import agent_names
from .common import Subcommands


def run(args: argparse.Namespace) -> int:
    """Print the list of games, or the description of one."""
    if args.game is None:
        for spec in game_specs():
            players = f"{min(spec.player_counts)}-{max(spec.player_counts)}" if len(spec.player_counts) > 1 \
                else str(spec.player_counts[0])
            print(f"{spec.name:<8} {spec.title} ({players} players; engines: {', '.join(spec.engines)})")
        print("\ncavekit games NAME shows a game's rule parameters and agents")
        return 0
    spec = game_spec(args.game)
    print(f"{spec.name}: {spec.title}")
    print(f"  players: {', '.join(map(str, spec.player_counts))} (default {spec.default_players})")
    print(f"  engines: {', '.join(spec.engines)} (default {spec.default_engine})")
    print(f"  information: {spec.information}; returns {'zero-sum' if spec.zero_sum else 'general-sum'} "
          "with two or more players")
    print(f"  agents: {', '.join(agent_names(spec.name))}")
    print("  parameters (--param NAME=VALUE; lists as comma-separated items):")
    for p in spec.parameters:
        note = f" ({p.default_note})" if p.default_note else ""
        print(f"    {p.name} = {p.default!r}{note}\n        allowed: {p.allowed_text()}")
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `games` subcommand."""
    games = sub.add_parser("games", help="list the games, or show one game's players, engines and parameters",
                           description="Without a name: one line per game. With one: its player counts, engines, "
                                       "agents and every rule parameter with its default and allowed values.")
    games.add_argument("game", nargs="?", choices=game_names(), help="a game name")
    games.set_defaults(run=run)
