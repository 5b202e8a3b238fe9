"""Cave vs Cave's own studies as `cavekit` subcommands: `cvc-study`, `room-bans` and `openings`, and its strength
report (`cavekit strength cvc`)."""
from __future__ import annotations

import argparse
from typing import Any
from pathlib import Path

import pandas as pd

from ...core.cvc.spec import SPEC
from .strength import PARTS
from .study import REFERENCE


def run_strength(args: argparse.Namespace) -> int:
    """Write the strength report and print it."""
    from ..strength import command_line
    from .strength import strength_report
    parts = tuple(args.parts.split(","))
    summary = strength_report(Path(args.out), games=args.games, solo_games=args.solo_games, jobs=args.jobs,
                              seed=args.seed, command=command_line(), parts=parts, strongest=args.strongest,
                              analysis=args.analysis, mcts=args.mcts, weak_mcts=args.weak_mcts, greedy=args.greedy,
                              nrpa=args.nrpa, cost_games=args.cost_games, progress=not args.quiet)
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    return 0 if summary else 1


def run_study(args: argparse.Namespace) -> int:
    """Play (or resume) the balance study and print its summary."""
    from ..strength import command_line
    from .study import run_study as play_study
    from .study import summary_markdown
    tables = play_study(Path(args.out), games=args.games, ban_games=args.ban_games, agent=args.agent,
                        reference=args.reference, seed=args.seed, jobs=args.jobs, progress=not args.quiet,
                        command=command_line())
    print(summary_markdown(tables, command_line()))
    return 0


def run_room_bans(args: argparse.Namespace) -> int:
    """Play the paired room-ban experiment and print the value of access to each room."""
    from .room_values import room_ban_effects, run_room_bans
    run_room_bans(args.agent, args.games, args.seed, args.out, rooms=args.rooms, jobs=args.jobs,
                  progress=not args.quiet, chunk_size=args.chunk_size)
    table = room_ban_effects(args.out)
    with pd.option_context("display.width", 160, "display.precision", 3):
        print(table[["name", "paired", "access_points", "ci95_low", "ci95_high", "access_score", "score_low",
                     "score_high", "build_rate", "per_build_points"]].to_string())
    return 0


def run_openings(args: argparse.Namespace) -> int:
    """Print the opening tree of a self-play results folder, or of a deep search of the first turns."""
    from .openings import format_tree, opening_tree, search_openings
    from ..results import load_results
    if args.results:
        games, decisions = load_results(args.results)
        tree = opening_tree(decisions, games, depth=args.depth, min_games=args.min_games)
        print(f"openings of {len(games)} games in {args.results} (A moves first; first {args.depth} tiles taken)")
        print(format_tree(tree, stats=("games",)))
    else:
        tree = search_openings(args.agent, depth=args.depth, branching=args.branching, seed=args.seed,
                               progress=not args.quiet)
        print(f"deep search with {args.agent}: the {args.branching} most visited turns per node, {args.depth} turns "
              "deep (value: the searcher's mean return for the player to move)")
        print(format_tree(tree, label="segment", stats=("visits", "value")))
    if args.out:
        tree.to_csv(args.out, index=False)
        print(f"tree written to {args.out}")
    return 0


def add_strength_parser(games: Any) -> None:
    """`cavekit strength cvc` (`games`: the sub-subcommands of `strength`)."""
    strength = games.add_parser(
        SPEC.name, help="agent strength report: solo scores and their ceiling, matches, the preset ladder, cost",
        description="Play the strongest solo preset (and, told each deal, its ceiling and NRPA's), two-player duplicate matches "
                    "(strongest against the turn MCTS and greedy, the analysis agent against a small turn MCTS), "
                    "each preset against the next one down; time the agents and the compiled MCTS; write "
                    "report.md, summary.json and Parquet tables. A run of some --parts keeps the folder's others.",
        epilog="example: cavekit strength cvc --games 400 --solo-games 200 --jobs 2 --out results/strength")
    strength.add_argument("--games", type=int, default=400, help="games per two-player match, even (default 400)")
    strength.add_argument("--solo-games", type=int, default=200, help="solo games (default 200)")
    strength.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    strength.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    strength.add_argument("--parts", default=",".join(PARTS),
                          help=f"comma-separated parts to run (default all: {','.join(PARTS)}); "
                               "match:NAME runs one match of matches or ladder (match:strongest_vs_greedy, ...)")
    strength.add_argument("--strongest", default="strongest", help="the agent measured as strongest (default the preset)")
    strength.add_argument("--analysis", default="medium", help="the analysis agent for batches (default the medium preset)")
    strength.add_argument("--mcts", default="cvc_turn_mcts:iterations=500", help="the reference MCTS opponent")
    strength.add_argument("--weak-mcts", default="cvc_turn_mcts:iterations=50", help="the analysis agent's opponent")
    strength.add_argument("--greedy", default="greedy", help="the greedy agent spec")
    strength.add_argument("--nrpa", default="cvc_nrpa",
                          help="the search told each solo deal for the NRPA ceiling (default cvc_nrpa: level 3 x 10)")
    strength.add_argument("--cost-games", type=int, default=4, help="games timed for the cost part (default 4)")
    strength.add_argument("--out", default="results/strength", help="output folder (default results/strength)")
    strength.add_argument("--quiet", action="store_true", help="no progress bars")
    strength.set_defaults(run=run_strength, resumes=True)


def add_commands(sub: Any) -> None:
    """Add the `cvc-study`, `room-bans` and `openings` subcommands."""
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
    bans.set_defaults(run=run_room_bans, resumes=True)

    study = sub.add_parser(
        "cvc-study", help="Cave vs Cave balance study: the analysis agent's findings beside a weaker agent's",
        description="Play self-play games of the analysis agent and of a weaker reference agent on the same deals,\n"
                    "and each agent's paired room-ban experiment, into OUT/runs/ (one resumable results folder\n"
                    "each); write the tables (first-player advantage and tie-breaks, action tiles, first picks,\n"
                    "openings, room regression and bans, and what changed between the agents, with intervals) to\n"
                    "OUT/tables/ and OUT/summary.md. Run the same command again to resume.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: cavekit cvc-study --games 2000 --ban-games 100 --jobs 2 --out results/cvc_study")
    study.add_argument("--games", type=int, default=2000, help="self-play games of each agent (default 2000)")
    study.add_argument("--ban-games", type=int, default=100,
                       help="games per barred (room, seat) for each agent; 0 skips the bans (default 100)")
    study.add_argument("--agent", default="medium", help="the analysis agent (default the medium preset)")
    study.add_argument("--reference", default=REFERENCE,
                       help=f"the weaker agent it is compared with (default {REFERENCE})")
    study.add_argument("--seed", type=int, default=2026, help="master seed (default 2026)")
    study.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    study.add_argument("--out", default="results/cvc_study", help="study folder (default results/cvc_study)")
    study.add_argument("--quiet", action="store_true", help="no progress bars")
    study.set_defaults(run=run_study, resumes=True)

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
    openings.add_argument("--quiet", action="store_true", help="no progress bar (search)")
    openings.set_defaults(run=run_openings)
