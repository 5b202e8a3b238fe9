"""`cavekit report`: the HTML balance report of a results folder."""
from __future__ import annotations

import argparse

from .common import Subcommands


def run(args: argparse.Namespace) -> int:
    """Write the HTML report of a results, tournament or study folder, and say where it went."""
    from pathlib import Path
    from ..report import write_report, write_study_report
    from ..study_tables import is_study_folder
    from ..tournament_report import is_tournament_folder, write_tournament_report
    if is_study_folder(Path(args.folder)):
        path = write_study_report(args.folder, args.out)
    elif is_tournament_folder(Path(args.folder)):
        path = write_tournament_report(args.folder, args.out)
    else:
        path = write_report(args.folder, args.out, replay_url=args.replay_url)
    print(f"report written to {path}")
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `report` subcommand."""
    report = sub.add_parser(
        "report", help="write an HTML report of a results, tournament or study folder",
        description="Read a results folder written by `cavekit match --out DIR` and write one self-contained HTML\n"
                    "file (figures embedded, no network or scripts needed): the run and how to reproduce it,\n"
                    "results per agent, first-player advantage, score distributions and game length, with 95%\n"
                    "intervals, and each game's own sections (Cave vs Cave: action tiles, rooms, solo marks;\n"
                    "The Cave: seat order, points per rank; Cavum: bids, turn order; Caverna: seat advantage,\n"
                    "scoring categories, family size, action spaces by round, furnishing tiles, archetypes).\n"
                    "A partial run is reported over its finished games.\n"
                    "A tournament folder (`cavekit tournament --out DIR`) gets the tournament report instead:\n"
                    "standings, ratings and pairwise score rates with their intervals, the first-seat advantage\n"
                    "and, for --duplicate, the differences paired over deals.\n"
                    "A study folder (written by a game's study command; it holds study.json) gets that game's\n"
                    "study report: the tables of its summary with their figures (Caverna: `cavekit caverna-study`).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  cavekit match cvc --agents random greedy --games 200 --seed 7 --out results/run1\n"
               "  cavekit report results/run1                  (writes results/run1/report.html)\n"
               "  cavekit report results/run1 --out run1.html\n"
               "  cavekit report results/run1 --replay-url http://127.0.0.1:8765   (links to cavekit serve's replays)\n"
               "  cavekit tournament cvc --agents random greedy --games 20 --out results/t1\n"
               "  cavekit report results/t1                    (writes results/t1/report.html)\n"
               "  cavekit report results/caverna_balance       (a study folder: its study report)")
    report.add_argument("folder", metavar="DIR",
                        help="results folder (holds manifest.json), tournament folder (holds tournament.json) or "
                             "study folder (holds study.json)")
    report.add_argument("--out", metavar="FILE.html", help="where to write the report (default: DIR/report.html)")
    report.add_argument("--replay-url", metavar="URL",
                        help="address of a `cavekit serve` (e.g. http://127.0.0.1:8765): the report then links "
                             "every game to its replay there")
    report.set_defaults(run=run)
