"""The Cave (Pairs deck) agent strength report, produced by one command:

    python -m cavekit.analysis.pairs.strength --games 200 --jobs 2 --seed 0 --out results/pairs_strength

Two-player duplicate matches, every deal played twice with the seats swapped (`analysis.batch.run_match`,
so score rates also get an interval paired over deals): IS-MCTS against the
heuristic and against random, the heuristic against random, determinized expectimax against the heuristic,
and the cheating MCTS (`perfect_information=1`: it searches the true state,
every hand visible; analysis only) with the same budget against the heuristic and against IS-MCTS, which
measures what hidden information costs the fair searcher. Also the engines' random-playout speed (the
reference and the compiled engine through the Python API in one process, and the compiled C playout).
Everything lands in the output folder: the command line, one results folder of Parquet chunks per match
(resumable: rerunning the same command plays only missing games), `summary.json` and `report.md`.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...core.api import CHANCE, CavekitError, sample_chance_outcome
from ...core.registry import load_game
from ..batch import agent_record, run_match

DEFAULT_MCTS = "mcts:iterations=1000,c=0.7"
DEFAULT_HEURISTIC = "pairs_heuristic"
DEFAULT_DEXPECTIMAX = "dexpectimax:determinizations=6,depth=4,chance_samples=2"


def cheating_spec(mcts: str) -> str:
    """The same MCTS searching the true state (every hand visible): the perfect-information upper bound."""
    return mcts + ("," if ":" in mcts else ":") + "perfect_information=1"


def playout_speed(players: int = 2, seconds: float = 2.0, seed: int = 0) -> dict[str, Any]:
    """Random playouts per second: reference and compiled engines through the Python API, and the C playout.

    Both engines play the same kind of loop (chance outcomes by probability, uniformly random plays) for
    about `seconds` each, in this process, so the ratio is fair even when the machine is loaded.
    """
    from ...core.pairs import compiled
    rates: dict[str, Any] = {"players": players}
    for engine in ("reference", "compiled"):
        game = load_game("pairs", players=players, engine=engine)
        rng = np.random.default_rng(seed)
        games = steps = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.current_player() == CHANCE:
                    state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.integers(len(legal))])
                steps += 1
            games += 1
        elapsed = time.perf_counter() - started
        rates[f"{engine}_games_per_second"] = games / elapsed
        rates["steps_per_game"] = steps / games
    game = load_game("pairs", players=players)
    count = 1000
    started = time.perf_counter()
    while True:
        compiled.random_games(game, count, seed)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds / 4 or count > 10**7:
            break
        count *= 4
        started = time.perf_counter()
    rates["c_playout_games_per_second"] = count / elapsed
    rates["python_api_ratio"] = rates["compiled_games_per_second"] / rates["reference_games_per_second"]
    rates["c_playout_ratio"] = rates["c_playout_games_per_second"] / rates["reference_games_per_second"]
    return rates


def pairs_strength_report(out: Path, games: int = 200, jobs: int = 2, seed: int = 0, mcts: str = DEFAULT_MCTS,
                          heuristic: str = DEFAULT_HEURISTIC, dexpectimax: str | None = DEFAULT_DEXPECTIMAX,
                          command: str = "", progress: bool = True, speed_seconds: float = 2.0) -> dict[str, Any]:
    """Play every match of the report into `out`, measure the playout speed, write the report; the summary.

    `dexpectimax` (None: skipped) adds determinized expectimax against the heuristic.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text(command + "\n", encoding="utf-8")
    cheat = cheating_spec(mcts)
    matches = (("ismcts_vs_heuristic", mcts, heuristic), ("ismcts_vs_random", mcts, "random"),
               ("cheating_vs_heuristic", cheat, heuristic), ("cheating_vs_ismcts", cheat, mcts),
               ("heuristic_vs_random", heuristic, "random"))
    if dexpectimax:
        matches += (("dexpectimax_vs_heuristic", dexpectimax, heuristic),)
    summary: dict[str, Any] = {"command": command, "seed": seed, "games": games, "players": 2, "mcts": mcts,
                               "heuristic": heuristic, "matches": {}}
    for name, first, second in matches:
        results = run_match("pairs", [first, second], games, seed, progress=progress, jobs=jobs, out=out / name,
                            duplicate=True)
        stats = agent_record(results, first)
        mine = np.where(results["agent_0"] == first, 0, 1)
        decisions = results["decisions"].to_numpy() / 2.0
        summary["matches"][name] = {"agent": first, "opponent": second, **stats,
                                    "decisions_per_game_each": float(decisions.mean()),
                                    "first_seat_share": float((mine == 0).mean())}
    m = summary["matches"]
    summary["gap_to_cheating_upper_bound"] = {
        "vs_heuristic_score_rate_gap": (m["cheating_vs_heuristic"]["score_rate"]
                                        - m["ismcts_vs_heuristic"]["score_rate"]),
        "cheating_vs_ismcts_score_rate": m["cheating_vs_ismcts"]["score_rate"]}
    summary["speed"] = playout_speed(2, speed_seconds, seed)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (out / "report.md").write_text(format_report(summary), encoding="utf-8")
    return summary


def format_report(summary: dict[str, Any]) -> str:
    """The summary as a Markdown report."""
    lines = ["# The Cave (Pairs deck): agent strength, two players", "",
             f"Command: `{summary['command']}`", "",
             f"{summary['games']} matches per pairing (a match is one round per player: two rounds of 7 cards "
             f"each), every deal played twice with the seats swapped, master seed {summary['seed']}. A match win scores 1, a drawn "
             "match 1/2. Budget of both MCTS agents: "
             f"`{summary['mcts']}` per decision (IS-MCTS resamples the hidden cards every iteration; the cheating "
             "MCTS searches the true state with every hand visible, chance draws still unknown).", "",
             "| match | games | wins | draws | losses | score rate | 95% interval | paired over deals | points (mean) "
             "| opponent points | s/match |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in summary["matches"].values():
        lines.append(f"| `{m['agent']}` vs `{m['opponent']}` | {m['games']} | {m['wins']} | {m['draws']} | "
                     f"{m['losses']} | {m['score_rate']:.1%} | {m['ci95_low']:.1%} - {m['ci95_high']:.1%} | "
                     f"{m['paired_ci95_low']:.1%} - {m['paired_ci95_high']:.1%} | {m['mean_points']:.1f} | {m['opponent_mean_points']:.1f} | {m['seconds_per_game']:.2f} |")
    gap = summary["gap_to_cheating_upper_bound"]
    lines += ["", "## Gap to the cheating upper bound", "",
              f"Against the heuristic the cheating MCTS's score rate is "
              f"{100 * gap['vs_heuristic_score_rate_gap']:+.1f} percentage points above IS-MCTS's with the same "
              "budget; head to head it scores "
              f"{gap['cheating_vs_ismcts_score_rate']:.1%} against IS-MCTS.", ""]
    s = summary["speed"]
    lines += ["## Engine speed (random playouts of a whole two-player match, one process)", "",
              "| engine | matches/s | ratio to reference |", "|---|---|---|",
              f"| reference (Python API) | {s['reference_games_per_second']:,.0f} | 1x |",
              f"| compiled (Python API) | {s['compiled_games_per_second']:,.0f} | {s['python_api_ratio']:.1f}x |",
              f"| compiled (C playout) | {s['c_playout_games_per_second']:,.0f} | {s['c_playout_ratio']:.0f}x |", "",
              f"A random match is {s['steps_per_game']:.0f} steps (plays and chance draws)."]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m cavekit.analysis.pairs.strength",
                                     description="Strength report of the agents of The Cave (Pairs deck).")
    parser.add_argument("--games", type=int, default=200, help="matches per pairing (default 200)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--mcts", default=DEFAULT_MCTS, help=f"the IS-MCTS spec (default {DEFAULT_MCTS})")
    parser.add_argument("--heuristic", default=DEFAULT_HEURISTIC, help="the heuristic agent spec")
    parser.add_argument("--dexpectimax", default=DEFAULT_DEXPECTIMAX,
                        help="the determinized expectimax spec, or 'none' to skip that match")
    parser.add_argument("--speed-seconds", type=float, default=2.0, help="seconds per playout-speed measurement")
    parser.add_argument("--out", default="results/pairs_strength", help="output folder")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report from the command line; print it."""
    args = build_parser().parse_args(argv)
    command = "python -m cavekit.analysis.pairs.strength " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    try:
        pairs_strength_report(Path(args.out), games=args.games, jobs=args.jobs, seed=args.seed, mcts=args.mcts,
                              heuristic=args.heuristic,
                              dexpectimax=None if args.dexpectimax == "none" else args.dexpectimax,
                              command=command, progress=not args.quiet,
                              speed_seconds=args.speed_seconds)
    except CavekitError as e:
        print(f"cavekit: error: {e}", file=sys.stderr)
        return 2
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
