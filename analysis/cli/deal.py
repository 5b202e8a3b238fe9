"""`cavekit deal`: the deal one seed gives a game (every shuffle and draw, whatever the players do)."""
from __future__ import annotations

import argparse

from ...core.deal import check_deal_seed, describe, new_deal
from ...core.registry import game_names, load_game
from .common import Subcommands, add_param_option, game_params


def run(args: argparse.Namespace) -> int:
    """Print the deal of `--seed` as text, or as one line of JSON with `--json`."""
    params = game_params(args.param, args.game)
    if args.players is not None:
        params["players"] = args.players
    game = load_game(args.game, **params)
    deal = new_deal(game, check_deal_seed(args.seed))
    print(deal.to_json() if args.json else describe(game, deal))
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `deal` subcommand."""
    deal = sub.add_parser(
        "deal", help="show the deal a seed gives a game",
        description="A deal fixes every shuffle and draw of the physical game (tiles, rooms under the spaces, "
                    "decks, cards) from one seed, whatever the players do. Game i of `cavekit match --seed S` "
                    "is played on the deal whose seed is in its `deal_seed` column.",
        epilog="examples:\n  cavekit deal cvc --seed 7\n  cavekit deal pairs --seed 7 --players 4 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    deal.add_argument("game", choices=game_names(), help="game name")
    deal.add_argument("--seed", type=int, required=True, help="deal seed (an integer from 0 to 2**63 - 1)")
    deal.add_argument("--players", type=int, help="players (default: the game's default)")
    add_param_option(deal)
    deal.add_argument("--json", action="store_true", help="print the deal as JSON (the form results keep)")
    deal.set_defaults(run=run)
