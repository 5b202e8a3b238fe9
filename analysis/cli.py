"""The `cavekit` command line."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from ..core.api import CavekitError
from ..core.registry import game_names
from .batch import BACKENDS, run_match, summarize


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
                        jobs=args.jobs, out=args.out, backend=args.backend, chunk_size=args.chunk_size,
                        address=args.address, players=players, **params)
    with pd.option_context("display.width", 160, "display.precision", 3):
        print(f"{args.game}: {args.games} games, agents {' vs '.join(args.agents)}, master seed {args.seed}")
        for title, table in summarize(results).items():
            print(f"\n{title}\n{table.to_string()}")
        if args.out:
            print(f"\nresults in {args.out}: manifest.json, games-*.parquet (one row per game), "
                  "decisions-*.parquet (one row per decision)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    allowed = {"cvc": (1, 2), "batch": (1, 2), "cavum": (2, 3, 4),   # batch plays cvc
               "caverna": tuple(range(1, 8))}[args.game]
    if args.players not in allowed:
        raise CavekitError(f"cavekit bench {args.game}: --players must be one of {', '.join(map(str, allowed))}")
    if args.game == "batch":
        from .bench import bench_batch, format_bench_batch
        result = bench_batch(games=args.games, jobs=args.jobs, chunk_size=args.chunk_size, players=args.players,
                             seed=args.seed)
        print(json.dumps(result, indent=2) if args.json else format_bench_batch(result))
        return 0
    if args.game == "caverna":          # reference engine only
        from .bench import bench_reference, format_bench_reference
        result = bench_reference("caverna", players=args.players, seconds=args.seconds, seed=args.seed)
        print(json.dumps(result, indent=2) if args.json else format_bench_reference(result))
        return 0
    from .bench import bench_cavum, bench_cvc, format_bench
    bench = bench_cvc if args.game == "cvc" else bench_cavum
    result = bench(players=args.players, seconds=args.seconds, seed=args.seed)
    print(json.dumps(result, indent=2) if args.json else format_bench(result))
    return 0


def cmd_strength(args: argparse.Namespace) -> int:
    from .strength import command_line, strength_report
    summary = strength_report(Path(args.out), games=args.games, solo_games=args.solo_games, jobs=args.jobs,
                              seed=args.seed, mcts=args.mcts, greedy=args.greedy, expectimax=args.expectimax,
                              command=command_line(), progress=not args.quiet)
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    return 0 if summary else 1


def cmd_room_bans(args: argparse.Namespace) -> int:
    """Play the paired room-ban experiment and print the value of access to each room."""
    from .room_values import room_ban_effects, run_room_bans
    run_room_bans(args.agent, args.games, args.seed, args.out, rooms=args.rooms, jobs=args.jobs,
                  progress=not args.quiet, chunk_size=args.chunk_size)
    table = room_ban_effects(args.out)
    with pd.option_context("display.width", 160, "display.precision", 3):
        print(table[["name", "pairs", "access_points", "ci95_low", "ci95_high", "access_score", "score_low",
                     "score_high", "build_rate", "per_build_points"]].to_string())
    return 0


def cmd_openings(args: argparse.Namespace) -> int:
    """Print the opening tree of a self-play results folder, or of a deep search of the first turns."""
    from .openings import format_tree, opening_tree, search_openings
    from .results import load_results
    if args.results:
        games, decisions = load_results(args.results)
        tree = opening_tree(decisions, games, depth=args.depth, min_games=args.min_games)
        print(f"openings of {len(games)} games in {args.results} (A moves first; first {args.depth} tiles taken)")
        print(format_tree(tree, stats=("games",)))
    else:
        tree = search_openings(args.agent, depth=args.depth, branching=args.branching, seed=args.seed)
        print(f"deep search with {args.agent}: the {args.branching} most visited turns per node, {args.depth} turns "
              "deep (value: the searcher's mean return for the player to move)")
        print(format_tree(tree, label="segment", stats=("visits", "value")))
    if args.out:
        tree.to_csv(args.out, index=False)
        print(f"tree written to {args.out}")
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    """Play a round-robin or gauntlet tournament, print its tables and optionally write them to --out."""
    import shlex

    from .tournament import format_tournament, run_tournament, write_tournament
    params = _game_params(args.param)
    if args.players is not None:
        params["players"] = args.players
    result = run_tournament(args.game, args.agents, args.games, args.seed, gauntlet=args.gauntlet, jobs=args.jobs,
                            progress=not args.quiet, n_boot=args.n_boot, prior_draws=args.prior_draws,
                            anchor=args.anchor, **params)
    print(format_tournament(result))
    if args.out:
        # the command as it would be typed again, rebuilt from the parsed options (defaults made explicit)
        words = ["cavekit", "tournament", args.game, "--agents", *args.agents, "--games", str(args.games),
                 "--seed", str(args.seed), "--jobs", str(args.jobs), "--n-boot", str(args.n_boot),
                 "--prior-draws", str(args.prior_draws)]
        for flag, value in (("--gauntlet", args.gauntlet), ("--anchor", args.anchor), ("--players", args.players)):
            if value is not None:
                words += [flag, str(value)]
        for item in args.param:
            words += ["--param", item]
        words += ["--out", args.out]
        written = write_tournament(result, Path(args.out), " ".join(shlex.quote(w) for w in words))
        print(f"\nwritten: {', '.join(str(p) for p in written)}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play a game against an AI in the terminal (input from stdin)."""
    from ..core.registry import load_game
    from .play import load_record, play
    params = _game_params(args.param)
    if args.players is not None:
        params["players"] = args.players
    game = load_game(args.game, **params)
    state = load_record(game, args.load) if args.load else None
    play(game, args.ai, seat=args.seat, seed=args.seed, state=state)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Write the HTML balance report of a results folder and say where it went."""
    from .report import write_report
    path = write_report(args.folder, args.out)
    print(f"report written to {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cavekit", description="AI play and strategy analysis for cave games.")
    sub = parser.add_subparsers(dest="command", required=True)
    match = sub.add_parser(
        "match", help="play a batch of AI-vs-AI games and print a balance summary",
        description="Play seeded games between agents and summarise them. Seats rotate every game; game i's\n"
                    "randomness comes from the i-th child of the master seed, so results never depend on --jobs,\n"
                    "--backend or --chunk-size. With --out, every finished chunk of games is stored in a results\n"
                    "folder at once; if the run is interrupted, repeat the same command to play only the missing\n"
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
    match.add_argument("--agents", nargs="+", required=True, help="one agent spec per seat, e.g. random")
    match.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    match.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    match.add_argument("--players", type=int, help="players (default: number of agents)")
    match.add_argument("--jobs", type=int, default=1,
                       help="worker processes (default 1); for dask/ray without --address, the size of the "
                            "local cluster; results do not depend on it")
    match.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                       help="a rule option of the game, e.g. --param undermining_ignores=one_wall")
    match.add_argument("--out", metavar="DIR",
                       help="results folder to write (or to resume: same command, same folder)")
    match.add_argument("--backend", choices=BACKENDS, default="loky",
                       help="joblib backend: loky (processes on this machine, default), dask (needs "
                            "cavekit[dask]) or ray (needs cavekit[ray])")
    match.add_argument("--chunk-size", type=int, metavar="GAMES",
                       help="games per task and per Parquet chunk (default: games/32, at most 1000)")
    match.add_argument("--address", metavar="ADDRESS",
                       help="a running cluster to use: dask scheduler (tcp://host:8786) or ray address")
    match.add_argument("--quiet", action="store_true", help="no progress bar")
    match.set_defaults(run=cmd_match)

    bench = sub.add_parser(
        "bench", help="measure engine speed (cvc, cavum, caverna) or batch-runner throughput (batch)",
        description="cvc, cavum: benchmark the reference and compiled engines in one process and report their ratio.\n"
                    "caverna:    the reference engine (the only one): random playouts, legal actions, clone.\n"
                    "batch:      play random cvc games with the batch runner (compiled engine, results folder\n"
                    "            written) on 1 worker and on --jobs workers in one run; report games/s, the speedup\n"
                    "            and the CPU time per game of each.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  cavekit bench cvc --json\n  cavekit bench cavum --players 3\n"
               "  cavekit bench caverna --players 4\n"
               "  cavekit bench batch --games 4000 --jobs 2")
    bench.add_argument("game", choices=["cvc", "cavum", "caverna", "batch"],
                       help="cvc, cavum, caverna: engine speed; batch: batch runner speed")
    bench.add_argument("--players", type=int, default=2, choices=[1, 2, 3, 4, 5, 6, 7],
                       help="players (default 2; cvc and batch 1-2, cavum 2-4, caverna 1-7)")
    bench.add_argument("--seconds", type=float, default=3.0,
                       help="cvc, cavum, caverna: time per playout measurement (default 3)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    bench.add_argument("--games", type=int, default=4000, help="batch: games per timed run (default 4000)")
    bench.add_argument("--jobs", type=int, default=2, help="batch: workers compared with one (default 2)")
    bench.add_argument("--chunk-size", type=int, metavar="GAMES",
                       help="batch: games per task (default: games/32, at most 1000)")
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
    strength.add_argument("--mcts", default="cvc_turn_mcts:iterations=500", help="the MCTS agent spec")
    strength.add_argument("--greedy", default="greedy", help="the greedy agent spec")
    strength.add_argument("--expectimax", default="cvc_expectimax:depth=2", help="the expectimax agent spec")
    strength.add_argument("--out", default="results/strength", help="output folder (default results/strength)")
    strength.add_argument("--quiet", action="store_true", help="no progress bars")
    strength.set_defaults(run=cmd_strength)

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
    tournament.add_argument("--agents", nargs="+", required=True, help="distinct agent specs, at least 2")
    tournament.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    tournament.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    tournament.add_argument("--jobs", type=int, default=1,
                            help="worker processes (default 1); results do not depend on it")
    tournament.add_argument("--gauntlet", metavar="CHALLENGER",
                            help="play only CHALLENGER against each of the other agents")
    tournament.add_argument("--players", type=int, help="players per game (default: the game's default)")
    tournament.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                            help="a rule option of the game, e.g. --param undermining_ignores=one_wall")
    tournament.add_argument("--n-boot", type=int, default=1000,
                            help="bootstrap resamples for the rating intervals (default 1000; 0 for none)")
    tournament.add_argument("--prior-draws", type=float, default=1.0,
                            help="virtual draws of each agent against the pool, keeping ratings finite when "
                                 "an agent wins or loses every game (default 1; 0 for the plain MLE)")
    tournament.add_argument("--anchor", metavar="AGENT", help="agent rated 1500 (default: the mean is 1500)")
    tournament.add_argument("--out", help="folder for games.parquet, standings, cross table and tournament.json")
    tournament.add_argument("--quiet", action="store_true", help="no progress bar")
    tournament.set_defaults(run=cmd_tournament)

    play = sub.add_parser(
        "play", help="play a game against an AI in the terminal",
        description="Play against an AI: the position is shown whenever you are to move, with your legal moves\n"
                    "numbered. Type a number or a move's notation (any case and spacing; a unique beginning is\n"
                    "enough), or a command: hint [N], undo, save FILE, load FILE, moves, board, help, quit.\n"
                    "The AI prints each of its moves with a line of reasoning; chance events are announced.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit play cvc --ai greedy\n"
               "  cavekit play cvc --ai mcts:seconds=5,rollout=none --seat 1 --seed 7\n"
               "  cavekit play cvc --ai expectimax:depth=2 --load mygame.json\n"
               "  cavekit play cvc --players 1 --ai greedy        (solo: the AI only answers hint)")
    play.add_argument("game", choices=game_names(), help="game name")
    play.add_argument("--ai", default="greedy", metavar="SPEC", help="the AI's agent spec (default greedy)")
    play.add_argument("--seat", type=int, default=0, help="your seat: 0 or 1 (default 0); who starts is dealt")
    play.add_argument("--seed", type=int, help="seed of chance and the AI (default: a fresh one, printed)")
    play.add_argument("--players", type=int, help="players (default: the game's default; cvc: 2, or 1 for solo)")
    play.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                      help="a rule option of the game, e.g. --param undermining_ignores=one_wall")
    play.add_argument("--load", metavar="FILE", help="continue the game saved in FILE (by save FILE)")
    play.set_defaults(run=cmd_play)

    report = sub.add_parser(
        "report", help="write an HTML balance report of a results folder",
        description="Read a results folder written by `cavekit match --out DIR` and write one self-contained HTML\n"
                    "file (figures embedded, no network or scripts needed): the run and how to reproduce it,\n"
                    "results per agent, first-player advantage, score distributions and game length, with 95%\n"
                    "intervals; for Cave vs Cave also action tiles, rooms and (solo) the 50/60-point marks.\n"
                    "A partial run is reported over its finished games.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit match cvc --agents random greedy --games 200 --seed 7 --out results/run1\n"
               "  cavekit report results/run1                  (writes results/run1/report.html)\n"
               "  cavekit report results/run1 --out run1.html")
    report.add_argument("folder", metavar="DIR", help="results folder (holds manifest.json)")
    report.add_argument("--out", metavar="FILE.html", help="where to write the report (default: DIR/report.html)")
    report.set_defaults(run=cmd_report)

    bans = sub.add_parser(
        "room-bans", help="Cave vs Cave: the causal value of each room (paired games with one seat barred from it)",
        description="Play --games games of the agent against itself as the real game, and again for every room\n"
                    "and seat with that seat barred from furnishing the room (same seeds, so game i of every run\n"
                    "is paired with game i of the baseline). Prints per room the change in the barred seat's\n"
                    "score rate and final score with paired 95% intervals. Resumes when run again.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: cavekit room-bans --agent cvc_expectimax:depth=1 --games 200 --seed 2026 --jobs 2 "
               "--out results/full/room_bans")
    bans.add_argument("--agent", default="cvc_expectimax:depth=1", help="agent spec for both seats")
    bans.add_argument("--games", type=int, default=200, help="games per run, each run has 2 seats (default 200)")
    bans.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    bans.add_argument("--rooms", nargs="+", metavar="ROOM", help="room ids (default: all 24)")
    bans.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    bans.add_argument("--chunk-size", type=int, metavar="GAMES", help="games per stored chunk (default: automatic)")
    bans.add_argument("--out", required=True, metavar="DIR", help="experiment folder (one results folder per run)")
    bans.add_argument("--quiet", action="store_true", help="no progress bar")
    bans.set_defaults(run=cmd_room_bans)

    openings = sub.add_parser(
        "openings", help="Cave vs Cave opening tree: from self-play results, or from a deep search of the first turns",
        description="With --results DIR: the tree of the first action tiles taken in the folder's games, each\n"
                    "prefix with its number of games and the first player's score rate (Wilson 95% interval).\n"
                    "Without it: search the starting position with --agent, keep the --branching most visited turns\n"
                    "(of different tiles), play each and search the reply, --depth turns deep.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit openings --agent cvc_turn_mcts:iterations=20000 --depth 3 --branching 3\n"
               "  cavekit openings --results results/main --depth 4 --min-games 5")
    openings.add_argument("--results", metavar="DIR", help="a Cave vs Cave results folder (default: search instead)")
    openings.add_argument("--agent", default="cvc_turn_mcts:iterations=20000", help="searcher spec (search mode)")
    openings.add_argument("--depth", type=int, default=3, help="turns (search) or tile picks (results); default 3")
    openings.add_argument("--branching", type=int, default=3, help="turns kept per node (search; default 3)")
    openings.add_argument("--min-games", type=int, default=1, help="smallest prefix shown (results; default 1)")
    openings.add_argument("--seed", type=int, default=0, help="seed of the search and sampled chance (default 0)")
    openings.add_argument("--out", metavar="FILE.csv", help="also write the tree as CSV")
    openings.set_defaults(run=cmd_openings)
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
