"""The agents' strength report for Cave vs Cave, produced by one command (`cavekit strength cvc`).

Head-to-head duplicate matches, every deal played twice with the seats swapped (MCTS vs random, MCTS vs
greedy, expectimax vs greedy), so their score rates also get an interval paired over deals,
the solo score distribution against the rulebook's 50 and 60 marks, and the speed of the compiled MCTS
against the generic MCTS on the same positions. Each figure is set beside the goal the project holds it to
(issue 4). Everything lands in one folder: the command line, one Parquet table per match, `summary.json` and
a readable `report.md`.
"""
from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ...core.api import CHANCE, sample_chance_outcome
from ...core.registry import load_game
from ..batch import agent_record, run_match
from ..progress import progress_bar
from ..stats import goal_verdict, mean_interval


# What each part of the report must show (score rates are lower bounds, the solo mean is an aim).
GOALS = {"mcts_vs_random": 0.95, "mcts_vs_greedy": 0.75, "expectimax_vs_greedy": 0.5, "solo_mean": 60.0,
         "speed_ratio": 20.0}


def sample_positions(count: int, seed: int) -> list[Any]:
    """Decision positions taken from random two-player games (compiled engine)."""
    game = load_game("cvc")
    rng = np.random.default_rng(seed)
    positions: list[Any] = []
    while len(positions) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(positions) < count:
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
                continue
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.1:
                positions.append(state.clone())
            state.apply_action(legal[rng.integers(len(legal))])
    return positions


def mcts_speed(positions: list[Any], rollout: str, generic_iterations: int, compiled_iterations: int,
               bar: Any = None) -> dict[str, float]:
    """Simulations per second of the generic and the compiled MCTS from the same positions, and their ratio;
    `bar` (a progress bar) advances per position."""
    from ...search.cvc_mcts import CompiledMCTS
    from ...search.mcts import MCTSAgent
    game = load_game("cvc")
    generic_runs = generic_seconds = compiled_runs = compiled_seconds = 0.0
    for i, state in enumerate(positions):
        result = MCTSAgent(game, seed=i, iterations=generic_iterations, rollout=rollout, reuse=0).search(state)
        generic_runs += result.iterations
        generic_seconds += result.seconds
        _, _, done, seconds, _ = CompiledMCTS(iterations=compiled_iterations, rollout=rollout, seed=i).search(state)
        compiled_runs += done
        compiled_seconds += seconds
        if bar is not None:
            bar.update(1)
    generic_rate, compiled_rate = generic_runs / generic_seconds, compiled_runs / compiled_seconds
    return {"rollout": rollout, "positions": len(positions), "generic_sims_per_second": generic_rate,
            "compiled_sims_per_second": compiled_rate, "ratio": compiled_rate / generic_rate}


def strength_report(out: Path, games: int, solo_games: int, jobs: int, seed: int, mcts: str, greedy: str,
                    expectimax: str, command: str, progress: bool = True) -> dict[str, Any]:
    """Run every part of the report into `out` and return the summary."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text(command + "\n", encoding="utf-8")
    summary: dict[str, Any] = {"command": command, "seed": seed, "matches": {}}
    for name, first, second in (("mcts_vs_random", mcts, "random"), ("mcts_vs_greedy", mcts, greedy),
                                ("expectimax_vs_greedy", expectimax, greedy)):
        started = time.perf_counter()
        results = run_match("cvc", [first, second], games, seed, progress=progress, jobs=jobs, duplicate=True)
        results.to_parquet(out / f"{name}.parquet", index=False)
        summary["matches"][name] = {"agent": first, "opponent": second, **agent_record(results, first),
                                    "wall_seconds": time.perf_counter() - started}
    solo = run_match("cvc", [mcts], solo_games, seed, progress=progress, jobs=jobs, players=1)
    solo.to_parquet(out / "solo.parquet", index=False)
    scores = solo["score_0"]
    _, mean_low, mean_high = mean_interval(scores)
    summary["solo"] = {"agent": mcts, "games": len(scores), "mean": float(scores.mean()),
                       "mean_low": mean_low, "mean_high": mean_high,
                       "std": float(scores.std()), "min": int(scores.min()), "max": int(scores.max()),
                       "share_at_least_50": float((scores >= 50).mean()), "share_above_60": float((scores > 60).mean()),
                       "seconds_per_game": float(solo["seconds"].mean())}
    positions = sample_positions(30, seed)
    with progress_bar(2 * len(positions), "MCTS speed", "position", progress) as bar:
        summary["speed"] = [mcts_speed(positions, "random", 200, 5000, bar),
                            mcts_speed(positions, "none", 500, 50000, bar)]
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (out / "report.md").write_text(format_report(summary), encoding="utf-8")
    return summary


def format_report(summary: dict[str, Any]) -> str:
    """The summary as a Markdown report."""
    lines = ["# Cave vs Cave agent strength", "", f"Command: `{summary['command']}`", "",
             "## Head to head (every deal played twice, seats swapped; draws count half)", "",
             "Verdicts come from the 95% interval: met when all of it reaches the goal, not met when none of it "
             "does, undecided otherwise (too few games to tell).", "",
             "| match | games | wins | draws | losses | score rate | 95% interval | paired over deals | goal | "
             "points (mean) | opponent points | s/game |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in summary["matches"].items():
        goal = GOALS[name]
        verdict = goal_verdict(m["ci95_low"], m["ci95_high"], goal, strictly_above=goal == 0.5)
        lines.append(f"| `{m['agent']}` vs `{m['opponent']}` | {m['games']} | {m['wins']} | {m['draws']} | "
                     f"{m['losses']} | {m['score_rate']:.1%} | {m['ci95_low']:.1%} - {m['ci95_high']:.1%} | "
                     f"{m['paired_ci95_low']:.1%} - {m['paired_ci95_high']:.1%} ({m['deals']} deals) | "
                     f"{'>' if goal == 0.5 else '>='} {goal:.0%}: {verdict} | "
                     f"{m['mean_points']:.1f} | {m['opponent_mean_points']:.1f} | {m['seconds_per_game']:.2f} |")
    s = summary["solo"]
    lines += ["", "## Solo (rulebook: 50 points is the goal, more than 60 remarkable)", "",
              f"`{s['agent']}` over {s['games']} games: mean {s['mean']:.1f} points (sd {s['std']:.1f}, "
              f"range {s['min']}-{s['max']}); {s['share_at_least_50']:.0%} reach 50, "
              f"{s['share_above_60']:.0%} exceed 60; {s['seconds_per_game']:.2f} s per game "
              f"(aim: a mean above {GOALS['solo_mean']:.0f}: "
              f"{goal_verdict(s['mean_low'], s['mean_high'], GOALS['solo_mean'], strictly_above=True)}, "
              f"95% interval {s['mean_low']:.1f}-{s['mean_high']:.1f}).", "",
              "## Speed: compiled MCTS against generic MCTS on the same positions", "",
              "| leaves | positions | generic sims/s | compiled sims/s | ratio |", "|---|---|---|---|---|"]
    for sp in summary["speed"]:
        lines.append(f"| {sp['rollout']} | {sp['positions']} | {sp['generic_sims_per_second']:,.0f} | "
                     f"{sp['compiled_sims_per_second']:,.0f} | {sp['ratio']:.0f}x |")
    lines += ["", f"Goal: at least {GOALS['speed_ratio']:.0f}x. Both searches run on the compiled engine, so the "
              "ratio measures what compiling the search itself gains. A random playout is mostly engine work "
              "(move generation and moves, in C for both; the generic search only adds a Python call per "
              "move), which bounds that ratio; with the heuristic leaf evaluation the MCTS agents play with, "
              "the generic search's Python tree and evaluation are the whole cost."]
    return "\n".join(lines) + "\n"


def command_line() -> str:
    return "cavekit " + " ".join(shlex.quote(a) for a in sys.argv[1:])
