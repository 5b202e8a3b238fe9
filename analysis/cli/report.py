"""`cavekit report`: the HTML balance report of a results folder."""
from __future__ import annotations

import argparse

from .common import Subcommands


def run(args: argparse.Namespace) -> int:
    """Write the HTML balance report of a results folder and say where it went."""
    from ..report import write_report
    path = write_report(args.folder, args.out, replay_url=args.replay_url)
    print(f"report written to {path}")
    return 0


def add_parser(sub: Subcommands) -> None:
    """The `report` subcommand."""
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
               "  cavekit report results/run1 --out run1.html\n"
               "  cavekit report results/run1 --replay-url http://127.0.0.1:8765   (links to cavekit serve's replays)")
    report.add_argument("folder", metavar="DIR", help="results folder (holds manifest.json)")
    report.add_argument("--out", metavar="FILE.html", help="where to write the report (default: DIR/report.html)")
    report.add_argument("--replay-url", metavar="URL",
                        help="address of a `cavekit serve` (e.g. http://127.0.0.1:8765): the report then links "
                             "every game to its replay there")
    report.set_defaults(run=run)
