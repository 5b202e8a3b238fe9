"""`cavekit match`: a batch of seeded AI-vs-AI games and its balance summary."""
from __future__ import annotations

import argparse
import shlex
import sys

import pandas as pd

from ...core.api import CavekitError
from ...core.registry import game_names
from ..batch import BACKENDS, CHUNK_SECONDS, run_match, summarize
from ..results import read_manifest
from .common import Subcommands, add_engine_option, add_param_option, engine_param, game_params


def run(args: argparse.Namespace) -> int:
    """Play the batch, print its summary tables and say where the results went."""
    params = {**game_params(args.param, args.game), **engine_param(args.engine, args.game)}
    players = args.players if args.players is not None else len(args.agents)
    try:
        results = run_match(args.game, args.agents, args.games, args.seed, progress=not args.quiet,
                            jobs=args.jobs, out=args.out, backend=args.backend, chunk_size=args.chunk_size,
                            address=args.address, duplicate=args.duplicate, repair=args.repair, players=players,
                            chunk_seconds=args.chunk_seconds, **params)
    except KeyboardInterrupt:
        print(interrupted_message(args), file=sys.stderr)
        return 130
    with pd.option_context("display.width", 160, "display.precision", 3):
        print(f"{args.game}: {args.games} games, agents {' vs '.join(args.agents)}, master seed {args.seed}")
        for title, table in summarize(results).items():
            print(f"\n{title}\n{table.to_string()}")
        if args.out:
            print(f"\nresults in {args.out}: manifest.json, games-*.parquet (one row per game), "
                  "decisions-*.parquet (one row per decision)")
    return 0


def interrupted_message(args: argparse.Namespace) -> str:
    """What an interrupted match kept, and the command that carries on from there."""
    if not args.out:
        return "cavekit: interrupted; nothing was kept (without --out a match keeps no results)"
    try:
        done = read_manifest(args.out)["games_done"]
    except (CavekitError, OSError):
        done = 0
    command = " ".join(shlex.quote(word) for word in ["cavekit", *args.argv])
    return (f"cavekit: interrupted; {done} of {args.games} games are saved in {args.out}. "
            f"Run the same command to play the rest: {command}")


def add_parser(sub: Subcommands) -> None:
    """The `match` subcommand."""
    match = sub.add_parser(
        "match", help="play a batch of AI-vs-AI games and print a balance summary",
        description="Play seeded games between agents and summarise them. Seats rotate every game; game i is\n"
                    "played on deal i of the master seed (every shuffle fixed, whatever the agents do) and its\n"
                    "agents are seeded from the i-th child of the master seed, so results never depend on --jobs,\n"
                    "--backend or --chunk-size. With --duplicate, every deal is played with every seat rotation\n"
                    "(solo: by every agent), and the summary adds differences paired over deals. With --out, every finished chunk of games is stored in a results\n"
                    "folder at once (a chunk also ends after --chunk-seconds of play, and Ctrl-C stores every game\n"
                    "finished so far); if the run is interrupted, repeat the same command to play only the missing\n"
                    "games.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit match cvc --agents random random --games 200 --seed 7\n"
               "  cavekit match cvc --agents cvc_mcts:iterations=500 greedy --games 1000 --jobs 2 --seed 7 "
               "--out results/run1\n"
               "  cavekit match cvc --agents random random --games 100000 --chunk-size 1000 --backend dask "
               "--address tcp://scheduler:8786 --out results/big\n"
               "\n"
               "results folder (--out): manifest.json (run, code version, finished chunks),\n"
               "  games-NNNNN.parquet (one row per game), decisions-NNNNN.parquet (one row per decision).\n"
               "  pandas: from cavekit.analysis.results import load_results; games, decisions = "
               "load_results('results/run1')\n"
               "  DuckDB: SELECT winner, count(*) FROM 'results/run1/games-*.parquet' GROUP BY winner")
    match.add_argument("game", choices=game_names(), help="game name")
    match.add_argument("--agents", nargs="+", required=True, help="one agent spec per seat, e.g. random, or a difficulty (easy, medium, hard, "
                            "strongest), which the results record as the agent spec it stands for")
    match.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    match.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    match.add_argument("--players", type=int, help="players (default: number of agents; solo may name several "
                                                  "agents, which take turns over the games)")
    match.add_argument("--duplicate", action="store_true",
                       help="play every deal with every seat rotation (solo: every agent), so results pair "
                            "over deals; --games must be a multiple of the rotations")
    match.add_argument("--jobs", type=int, default=1,
                       help="worker processes (default 1); for dask/ray without --address, the size of the "
                            "local cluster; results do not depend on it")
    add_param_option(match)
    add_engine_option(match)
    match.add_argument("--out", metavar="DIR",
                       help="results folder to write (or to resume: same command, same folder)")
    match.add_argument("--repair", action="store_true",
                       help="on resume, move damaged chunks of --out into its set-aside/ folder and play their "
                            "games again")
    match.add_argument("--backend", choices=BACKENDS, default="loky",
                       help="joblib backend: loky (processes on this machine, default), dask (needs "
                            "cavekit[dask]) or ray (needs cavekit[ray])")
    match.add_argument("--chunk-size", type=int, metavar="GAMES",
                       help="games per task and per Parquet chunk (default: games/32, at most 1000)")
    match.add_argument("--chunk-seconds", type=float, metavar="SECONDS", default=CHUNK_SECONDS,
                       help=f"with --out, a task also hands back its finished games as a chunk once it has played "
                            f"this long (default {CHUNK_SECONDS:g}), so a run killed outright loses at most about "
                            "this much play per worker; results do not depend on it")
    match.add_argument("--address", metavar="ADDRESS",
                       help="a running cluster to use: dask scheduler (tcp://host:8786) or ray address")
    match.add_argument("--quiet", action="store_true", help="no progress bar")
    match.set_defaults(run=run)
