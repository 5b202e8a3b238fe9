"""The `cavekit` command line."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from ..core.api import CavekitError
from ..core.registry import game_names
from .batch import run_match, summarize


def _parse_value(text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _game_params(items: list[str]) -> dict[str, object]:
    params: dict[str, object] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise CavekitError(f"--param {item!r} is not of the form name=value")
        params[key] = _parse_value(value)
    return params


def cmd_match(args: argparse.Namespace) -> int:
    params = _game_params(args.param)
    players = args.players if args.players is not None else len(args.agents)
    results = run_match(args.game, args.agents, args.games, args.seed, progress=not args.quiet,
                        jobs=args.jobs, players=players, **params)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        results.to_csv(out / "games.csv", index=False)
    with pd.option_context("display.width", 160, "display.precision", 3):
        print(f"{args.game}: {args.games} games, agents {' vs '.join(args.agents)}, master seed {args.seed}")
        for title, table in summarize(results).items():
            print(f"\n{title}\n{table.to_string()}")
        if args.out:
            print(f"\none row per game written to {Path(args.out) / 'games.csv'}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import bench_cvc, format_bench
    result = bench_cvc(players=args.players, seconds=args.seconds, seed=args.seed)
    print(json.dumps(result, indent=2) if args.json else format_bench(result))
    return 0


def cmd_strength(args: argparse.Namespace) -> int:
    from .strength import command_line, strength_report
    summary = strength_report(Path(args.out), games=args.games, solo_games=args.solo_games, jobs=args.jobs,
                              seed=args.seed, mcts=args.mcts, greedy=args.greedy, expectimax=args.expectimax,
                              command=command_line(), progress=not args.quiet)
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    return 0 if summary else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cavekit", description="AI play and strategy analysis for cave games.")
    sub = parser.add_subparsers(dest="command", required=True)
    match = sub.add_parser(
        "match", help="play a batch of AI-vs-AI games and print a balance summary",
        description="Play seeded games between agents (seats rotate every game) and summarise them.",
        epilog="example: cavekit match cvc --agents random random --games 200 --seed 7")
    match.add_argument("game", choices=game_names(), help="game name")
    match.add_argument("--agents", nargs="+", required=True, help="one agent spec per seat, e.g. random")
    match.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    match.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    match.add_argument("--players", type=int, help="players (default: number of agents)")
    match.add_argument("--jobs", type=int, default=1, help="worker processes (default 1); results do not depend on it")
    match.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                       help="a rule option of the game, e.g. --param undermining_ignores=one_wall")
    match.add_argument("--out", help="folder to write one row per game (games.csv)")
    match.add_argument("--quiet", action="store_true", help="no progress bar")
    match.set_defaults(run=cmd_match)

    bench = sub.add_parser(
        "bench", help="measure engine speed (playouts/s, move generation and clone times)",
        description="Benchmark the reference and compiled engines in one process and report their ratio.",
        epilog="example: cavekit bench cvc --json")
    bench.add_argument("game", choices=["cvc"], help="game name (only cvc has a compiled engine so far)")
    bench.add_argument("--players", type=int, default=2, choices=[1, 2], help="players (default 2)")
    bench.add_argument("--seconds", type=float, default=3.0, help="time per playout measurement (default 3)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    bench.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    bench.set_defaults(run=cmd_bench)

    strength = sub.add_parser(
        "strength", help="agent strength report: head-to-head matches, solo scores, MCTS speed",
        description="Play MCTS vs random, MCTS vs greedy and expectimax vs greedy (seats swapped), solo games, "
                    "and time compiled against generic MCTS; write report.md, summary.json and Parquet tables.",
        epilog="example: cavekit strength cvc --games 200 --solo-games 100 --jobs 2 --out results/strength")
    strength.add_argument("game", choices=["cvc"], help="game name")
    strength.add_argument("--games", type=int, default=200, help="games per head-to-head match (default 200)")
    strength.add_argument("--solo-games", type=int, default=100, help="solo games (default 100)")
    strength.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    strength.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    strength.add_argument("--mcts", default="cvc_mcts:iterations=5000,rollout=none", help="the MCTS agent spec")
    strength.add_argument("--greedy", default="greedy", help="the greedy agent spec")
    strength.add_argument("--expectimax", default="expectimax:depth=1", help="the expectimax agent spec")
    strength.add_argument("--out", default="results/strength", help="output folder (default results/strength)")
    strength.add_argument("--quiet", action="store_true", help="no progress bars")
    strength.set_defaults(run=cmd_strength)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except CavekitError as e:
        print(f"cavekit: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
