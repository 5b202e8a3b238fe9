"""Caverna's studies as `cavekit` subcommands: the balance study (`cavekit caverna-study`) and the strength
report (`cavekit strength caverna`)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ...core.api import ConfigError
from ...core.caverna.spec import SPEC
from .strength import PARTS, PLAYER_COUNTS, ROLLOUT


def player_counts(text: str) -> tuple[int, ...]:
    """The --player-counts option as numbers, refused with an example when it is not comma-separated numbers."""
    try:
        return tuple(int(n) for n in text.split(","))
    except ValueError:
        raise ConfigError(f"--player-counts must be comma-separated numbers of players (e.g. 2,3,4,7), not "
                          f"{text!r}") from None


def run_strength(args: argparse.Namespace) -> int:
    """Write the strength report and print it."""
    from ..strength import command_line
    from .strength import strength_report
    counts = player_counts(args.player_counts)
    strength_report(Path(args.out), command_line(), parts=tuple(args.parts.split(",")), solo_games=args.solo_games,
                    games=args.games, player_games=args.player_games, ladder_games=args.ladder_games,
                    ladder_solo_games=args.ladder_solo_games, cost_games=args.cost_games, player_counts=counts,
                    strongest=args.strongest, analysis=args.analysis, rollout=args.rollout, seed=args.seed,
                    jobs=args.jobs, progress=not args.quiet)
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    return 0


def add_strength_parser(games: Any) -> None:
    """`cavekit strength caverna` (`games`: the sub-subcommands of `strength`)."""
    strength = games.add_parser(
        SPEC.name, help="agent strength report: solo, against the rollout search, every player count, the ladder",
        description="Play the strongest preset solo and against caverna_rollout (two players, every deal played "
                    "with the seats both ways), in self-play at several player counts (score a seat, family at "
                    "the end), each preset against the next one down, and time the agents; write report.md, "
                    "summary.json and one resumable results folder per match. A run of some --parts keeps the "
                    "folder's others; run the same command again to resume.",
        epilog="example: cavekit strength caverna --solo-games 100 --games 200 --jobs 2 --out results/caverna_strength/report")
    strength.add_argument("--parts", default=",".join(PARTS),
                          help=f"comma-separated parts to run (default all: {','.join(PARTS)})")
    strength.add_argument("--solo-games", type=int, default=100, help="solo games of strongest (default 100)")
    strength.add_argument("--games", type=int, default=200, help="games against the rollout search, even (default 200)")
    strength.add_argument("--player-games", type=int, default=20,
                          help="self-play games per player count (default 20)")
    strength.add_argument("--player-counts", default=",".join(map(str, PLAYER_COUNTS)),
                          help=f"player counts of the self-play part (default {','.join(map(str, PLAYER_COUNTS))})")
    strength.add_argument("--ladder-games", type=int, default=100,
                          help="two-player games per ladder rung, even (default 100)")
    strength.add_argument("--ladder-solo-games", type=int, default=20, help="solo games per preset (default 20)")
    strength.add_argument("--cost-games", type=int, default=4, help="games timed per cost row (default 4)")
    strength.add_argument("--strongest", default="strongest", help="the agent measured as strongest (default the preset)")
    strength.add_argument("--analysis", default="medium", help="the analysis agent for batches (default the medium preset)")
    strength.add_argument("--rollout", default=ROLLOUT, help=f"the opponent of the versus part (default {ROLLOUT})")
    strength.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    strength.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    strength.add_argument("--out", default="results/caverna_strength/report",
                          help="output folder (default results/caverna_strength/report)")
    strength.add_argument("--quiet", action="store_true", help="no progress bars")
    strength.set_defaults(run=run_strength, resumes=True)


def run_study(args: argparse.Namespace) -> int:
    """Play (or resume) the balance study, write its tables and print the summary."""
    from ..strength import command_line
    from .study import run_study as study
    counts = player_counts(args.player_counts)
    study(Path(args.out), games=args.games, large_games=args.large_games, ban_games=args.ban_games,
          strongest_games=args.strongest_games, player_counts=counts, tiles=args.tiles, agent=args.agent,
          strongest=args.strongest, clusters=args.clusters, seed=args.seed, jobs=args.jobs,
          progress=not args.quiet, command=command_line())
    print((Path(args.out) / "summary.md").read_text(encoding="utf-8"))
    return 0


def add_commands(sub: Any) -> None:
    """`cavekit caverna-study` (`sub`: the `cavekit` subcommands)."""
    from .study import PLAYER_COUNTS
    study = sub.add_parser(
        "caverna-study", help="Caverna balance study: seat advantage, furnishing bans, action spaces, archetypes",
        description="Play the games of the Caverna balance study (self-play of the analysis agent at each player "
                    "count, the paired furnishing-ban experiment at two players, and a two-player subsample with "
                    "the strongest preset on the same deals) into OUT/runs/, one resumable results folder each; "
                    "then write the tables notebooks/caverna_balance.ipynb reads to OUT/tables/ and a summary to "
                    "OUT/summary.md. Run the same command again to resume.",
        epilog="example: cavekit caverna-study --jobs 2 --out results/caverna_balance")
    study.add_argument("--games", type=int, default=500, help="self-play games at 2-4 players (default 500)")
    study.add_argument("--large-games", type=int, default=200, help="self-play games at 5-7 players (default 200)")
    study.add_argument("--ban-games", type=int, default=100,
                       help="two-player games per (tile, seat) ban (default 100)")
    study.add_argument("--strongest-games", type=int, default=200,
                       help="two-player games of the strongest preset, at most --games (default 200)")
    study.add_argument("--player-counts", default=",".join(map(str, PLAYER_COUNTS)),
                       help=f"player counts, with 2 (default {','.join(map(str, PLAYER_COUNTS))})")
    study.add_argument("--tiles", nargs="+", metavar="TILE", help="furnishing ids to ban (default: all 48)")
    study.add_argument("--agent", default="medium", help="the analysis agent (default the medium preset)")
    study.add_argument("--strongest", default="strongest", help="the stronger agent (default the preset)")
    study.add_argument("--clusters", type=int, default=5, help="archetypes per player count (default 5)")
    study.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    study.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    study.add_argument("--out", required=True, metavar="DIR", help="study folder")
    study.add_argument("--quiet", action="store_true", help="no progress bars")
    study.set_defaults(run=run_study, resumes=True)
