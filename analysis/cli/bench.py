"""`cavekit bench`: engine speed of a game, or batch-runner throughput."""
from __future__ import annotations

import argparse

from .common import Subcommands
import json

from ...core.api import CavekitError
from ...core.registry import default_game_name, game_names, game_spec

BATCH = "batch"


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print it as a table (or one JSON object)."""
    from .. import bench
    spec = game_spec(default_game_name() if args.game == BATCH else args.game)
    if args.players not in spec.player_counts:
        raise CavekitError(f"cavekit bench {args.game}: --players must be one of "
                           f"{', '.join(map(str, spec.player_counts))}")
    if args.search:
        if args.game == BATCH or "compiled" not in spec.engines:
            raise CavekitError(f"cavekit bench {args.game} --search: the compiled search needs a game with a "
                               "compiled engine")
        if args.iterations < 1 or args.positions < 1:
            raise CavekitError(f"cavekit bench {args.game} --search: --iterations and --positions must be at least 1")
        result = bench.bench_search(spec.name, players=args.players, iterations=args.iterations,
                                    positions=args.positions, seed=args.seed, options=args.options)
        text = bench.format_bench_search(result)
    elif args.game == BATCH:
        result = bench.bench_batch(games=args.games, jobs=args.jobs, chunk_size=args.chunk_size,
                                   players=args.players, seed=args.seed, game=spec.name)
        text = bench.format_bench_batch(result)
    elif len(spec.engines) > 1:
        result = bench.bench_engines(spec.name, players=args.players, seconds=args.seconds, seed=args.seed)
        text = bench.format_bench(result)
    else:
        result = bench.bench_reference(spec.name, players=args.players, seconds=args.seconds, seed=args.seed)
        text = bench.format_bench_reference(result)
    print(json.dumps(result, indent=2) if args.json else text)
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `bench` subcommand."""
    batch_game = default_game_name()
    bench = sub.add_parser(
        "bench", help="measure a game's engine speed, or batch-runner throughput (batch)",
        description="GAME with a compiled engine: benchmark the reference and compiled engines in one process and\n"
                    "            report their ratio.\n"
                    "GAME with only its reference engine: random playouts, legal actions, clone.\n"
                    f"batch:      play random {batch_game} games with the batch runner (default engine, results\n"
                    "            folder written) on 1 worker and on --jobs workers in one run; report games/s, the\n"
                    "            speedup and the CPU time per game of each.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  cavekit bench cvc --json\n  cavekit bench cavum --players 3\n"
               "  cavekit bench pairs --search --options c=0.7\n"
               "  cavekit bench caverna --players 4\n"
               "  cavekit bench batch --games 4000 --jobs 2")
    bench.add_argument("game", choices=[*game_names(), BATCH],
                       help="a game: its engine speed; batch: batch runner speed")
    bench.add_argument("--players", type=int, default=2,
                       help="players (default 2; any count the game allows)")
    bench.add_argument("--seconds", type=float, default=3.0,
                       help="engine benchmarks: time per playout measurement (default 3)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    bench.add_argument("--games", type=int, default=4000, help="batch: games per timed run (default 4000)")
    bench.add_argument("--jobs", type=int, default=2, help="batch: workers compared with one (default 2)")
    bench.add_argument("--chunk-size", type=int, metavar="GAMES",
                       help="batch: games per task (default: games/32, at most 1000)")
    bench.add_argument("--search", action="store_true",
                       help="time the Python reference MCTS against the compiled MCTS at equal iterations")
    bench.add_argument("--iterations", type=int, default=500, help="--search: iterations a search (default 500)")
    bench.add_argument("--positions", type=int, default=8, help="--search: positions searched (default 8)")
    bench.add_argument("--options", default="", help="--search: more options for both searches, e.g. c=0.7")
    bench.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    bench.set_defaults(run=run)
