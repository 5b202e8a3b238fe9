"""`cavekit tournament`: a round-robin or gauntlet with standings, cross table and ratings."""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from ...core.registry import game_names
from ..tournament import check_tournament_folder, format_tournament, run_tournament, write_tournament
from .common import Subcommands, add_engine_option, add_param_option, engine_param, game_params


def run(args: argparse.Namespace) -> int:
    """Play the tournament, print its tables and optionally write them to --out."""
    params = {**game_params(args.param, args.game), **engine_param(args.engine, args.game)}
    if args.players is not None:
        params["players"] = args.players
    if args.out:
        check_tournament_folder(Path(args.out))      # before the games, not after them
    result = run_tournament(args.game, args.agents, args.games, args.seed, gauntlet=args.gauntlet, jobs=args.jobs,
                            progress=not args.quiet, n_boot=args.n_boot, prior_draws=args.prior_draws,
                            anchor=args.anchor, duplicate=args.duplicate, **params)
    print(format_tournament(result))
    if args.out:
        written = write_tournament(result, Path(args.out), command_line(args))
        print(f"\nwritten: {', '.join(str(p) for p in written)}")
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command as it would be typed again, rebuilt from the parsed options (defaults made explicit)."""
    words = ["cavekit", "tournament", args.game, "--agents", *args.agents, "--games", str(args.games),
             "--seed", str(args.seed), "--jobs", str(args.jobs), "--n-boot", str(args.n_boot),
             "--prior-draws", str(args.prior_draws)]
    for flag, value in (("--gauntlet", args.gauntlet), ("--anchor", args.anchor), ("--players", args.players),
                        ("--engine", args.engine)):
        if value is not None:
            words += [flag, str(value)]
    if args.duplicate:
        words.append("--duplicate")
    for item in args.param:
        words += ["--param", item]
    words += ["--out", args.out]
    return " ".join(shlex.quote(w) for w in words)


def add_parser(sub: Subcommands) -> None:
    """The `tournament` subcommand."""
    tournament = sub.add_parser(
        "tournament", help="round-robin or gauntlet tournament with standings, cross table and Elo ratings",
        description="Play every pairing of the agents (or one challenger against all others) for --games games\n"
                    "each, seats rotating, and print the standings (W/D/L, score rate with its Wilson 95% interval,\n"
                    "batch Elo and Bradley-Terry strength with bootstrap 95% intervals), the cross table, the\n"
                    "head-to-head records and the first-seat advantage. A pairing's games depend only on --seed\n"
                    "and its own agents, never on which other agents take part.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit tournament cvc --agents random cvc_mcts:iterations=100,rollout=none "
               "cvc_mcts:iterations=1000,rollout=none --games 20 --seed 7\n"
               "  cavekit tournament cvc --agents random greedy cvc_mcts:iterations=500,rollout=none "
               "--gauntlet cvc_mcts:iterations=2000,rollout=none --games 100 --jobs 2 --out results/gauntlet\n"
               "  (--out writes games.parquet, standings.parquet/.csv, crosstable.csv, head_to_head.csv and "
               "tournament.json)")
    tournament.add_argument("game", choices=game_names(), help="game name")
    tournament.add_argument("--agents", nargs="+", required=True, help="distinct agent specs or difficulties (easy, medium, hard, "
                                 "strongest), at least 2")
    tournament.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    tournament.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    tournament.add_argument("--jobs", type=int, default=1,
                            help="worker processes (default 1); results do not depend on it")
    tournament.add_argument("--gauntlet", metavar="CHALLENGER",
                            help="play only CHALLENGER against each of the other agents")
    tournament.add_argument("--players", type=int, help="players per game (default: the game's default)")
    tournament.add_argument("--duplicate", action="store_true",
                            help="each pairing plays every deal with every seat rotation; adds differences "
                                 "paired over deals (--games must be a multiple of the players)")
    add_param_option(tournament)
    add_engine_option(tournament)
    tournament.add_argument("--n-boot", type=int, default=1000,
                            help="bootstrap resamples for the rating intervals (default 1000; 0 for none)")
    tournament.add_argument("--prior-draws", type=float, default=1.0,
                            help="virtual draws of each agent against the pool, keeping ratings finite when "
                                 "an agent wins or loses every game (default 1; 0 for the plain MLE)")
    tournament.add_argument("--anchor", metavar="AGENT", help="agent rated 1500 (default: the mean is 1500)")
    tournament.add_argument("--out", help="folder for games.parquet, standings, cross table and tournament.json")
    tournament.add_argument("--quiet", action="store_true", help="no progress bar")
    tournament.set_defaults(run=run)
