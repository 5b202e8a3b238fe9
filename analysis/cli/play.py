"""`cavekit play`: a person against an AI in the terminal."""
from __future__ import annotations

import argparse

from ...core.registry import game_names, load_game
from .common import Subcommands, add_engine_option, add_param_option, engine_param, game_params


def run(args: argparse.Namespace) -> int:
    """Play a game against an AI in the terminal (input from stdin)."""
    from ..play import load_record, play
    params = {**game_params(args.param, args.game), **engine_param(args.engine, args.game)}
    if args.players is not None:
        params["players"] = args.players
    game = load_game(args.game, **params)
    state = load_record(game, args.load) if args.load else None
    play(game, args.ai, seat=args.seat, seed=args.seed, state=state)
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `play` subcommand."""
    play = sub.add_parser(
        "play", help="play a game against an AI in the terminal",
        description="Play against an AI: the position is shown whenever you are to move, with your legal moves\n"
                    "numbered. Type a number or a move's notation (any case and spacing; a unique beginning is\n"
                    "enough), or a command: hint [N], undo, save FILE, load FILE, moves, board, help, quit.\n"
                    "The AI prints each of its moves with a line of reasoning; chance events are announced.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit play cvc --ai medium                  (a difficulty: easy, medium, hard, strongest)\n"
               "  cavekit play cvc --ai greedy\n"
               "  cavekit play cvc --ai mcts:seconds=5,rollout=none --seat 1 --seed 7\n"
               "  cavekit play cvc --ai expectimax:depth=2 --load mygame.json\n"
               "  cavekit play cvc --players 1 --ai greedy        (solo: the AI only answers hint)")
    play.add_argument("game", choices=game_names(), help="game name")
    play.add_argument("--ai", default="greedy", metavar="SPEC", help="the AI's agent spec or difficulty (easy, medium, hard, strongest; "
                           "`cavekit agents GAME` lists them; default greedy)")
    play.add_argument("--seat", type=int, default=0,
                      help="your seat, from 0 to the number of players - 1 (default 0); who starts is dealt")
    play.add_argument("--seed", type=int, help="seed of chance and the AI (default: a fresh one, printed)")
    play.add_argument("--players", type=int, help="players (default: the game's default; cvc: 2, or 1 for solo)")
    add_param_option(play)
    add_engine_option(play)
    play.add_argument("--load", metavar="FILE", help="continue the game saved in FILE (by save FILE)")
    play.set_defaults(run=run)
