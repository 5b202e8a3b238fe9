"""Caverna (The Cave Farmers) score report: how many points an agent makes, solo and in self-play.

    python -m cavekit.analysis.caverna.scores --agent caverna_heuristic --solo 20 --two 10 --four 6 \\
        --seed 0 --jobs 2 --chunk-size 10 --out results/caverna_scores

Plays solo games, then 2- and 4-player self-play (every seat the same agent spec) with the batch runner
(`analysis.batch.run_match`, one resumable results folder per player count under the output folder) and
writes `summary.json` and `report.md`: per player count the mean score with its 95% interval, sd, quantiles,
the share of scores >= 80 (the rulebook's realistic good score) and >= 100 (advanced players; solo, the
"magical" score) with Wilson intervals, and how far the mean is from 100. The agent spec is the budget and
is stated with the measured seconds per game.

In self-play every seat's score is one observation, but the seats of one game are not independent (they share
the round cards and compete for spaces), so the mean's interval is computed over per-game mean scores (the
game is the unit); the shares' Wilson intervals count seats and are therefore somewhat too narrow.
"""
from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..batch import run_match
from ..stats import mean_interval, seat_count, wilson_interval

GOOD, TARGET = 80, 100
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def score_stats(games: pd.DataFrame) -> dict[str, Any]:
    """Score statistics of one results table (every seat pooled; the mean's interval over per-game means)."""
    seats = seat_count(games)
    scores = np.concatenate([games[f"score_{p}"].to_numpy(float) for p in range(seats)])
    per_game = games[[f"score_{p}" for p in range(seats)]].to_numpy(float).mean(axis=1)
    mean, low, high = mean_interval(per_game)
    out: dict[str, Any] = {
        "players": seats, "games": int(len(games)), "scores": int(len(scores)),
        "mean": mean, "mean_low": low, "mean_high": high,
        "sd": float(scores.std(ddof=1)) if len(scores) > 1 else 0.0,
        "min": float(scores.min()), "max": float(scores.max()),
        "quantiles": {f"{q:.2f}": float(np.quantile(scores, q)) for q in QUANTILES},
        "distance_from_100": TARGET - mean, "distance_low": TARGET - high, "distance_high": TARGET - low,
        "seconds_per_game": float(games["seconds"].mean()) if "seconds" in games else None,
        "mean_game_length": float(games["length"].mean()) if "length" in games else None,
    }
    for threshold in (GOOD, TARGET):
        hits = int((scores >= threshold).sum())
        lo, hi = wilson_interval(hits, len(scores))
        out[f"share_ge_{threshold}"] = hits / len(scores)
        out[f"share_ge_{threshold}_low"], out[f"share_ge_{threshold}_high"] = lo, hi
    if seats > 1:
        best = games[[f"score_{p}" for p in range(seats)]].to_numpy(float).max(axis=1)
        out["winner_mean"], out["winner_low"], out["winner_high"] = mean_interval(best)
    return out


def score_report(agent: str = "caverna_heuristic", counts: dict[int, int] | None = None, seed: int = 0,
                 out: str | Path = "results/caverna_scores", jobs: int = 1, chunk_size: int | None = None,
                 progress: bool = False, command: str | None = None, notes: str = "") -> dict[str, Any]:
    """Play `counts[players]` games per player count (default: 20 solo, 10 two-player, 6 four-player) of the
    agent against copies of itself, store them under `out/players-<n>/`, write `summary.json` and
    `report.md` there (with `notes`, a paragraph of reading, at the end), and return the summary."""
    counts = counts or {1: 20, 2: 10, 4: 6}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"game": "caverna", "agent": agent, "seed": seed,
                               "counts": {str(k): v for k, v in counts.items()},
                               "command": command, "notes": notes, "results": {}}
    for players, games in sorted(counts.items()):
        if games <= 0:
            continue
        table = run_match("caverna", [agent] * players, games, seed + players, progress=progress, jobs=jobs,
                          out=out / f"players-{players}", chunk_size=chunk_size or games, players=players)
        summary["results"][str(players)] = score_stats(table)
    (out / "summary.json").write_text(json.dumps(_json_safe(summary), indent=2) + "\n")
    (out / "report.md").write_text(format_report(summary))
    return summary


def _json_safe(value: Any) -> Any:
    """NaN (an interval of one game) as null, so summary.json is strict JSON."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _ci(low: float, high: float) -> str:
    return "[n/a]" if low is None or math.isnan(low) else f"[{low:.1f}, {high:.1f}]"


def format_report(summary: dict[str, Any]) -> str:
    """The summary as markdown."""
    lines = [f"# Caverna scores: `{summary['agent']}`", ""]
    if summary.get("command"):
        lines += ["Produced by", "", "```sh", summary["command"], "```", ""]
    lines += [f"Budget: every seat is `{summary['agent']}` (self-play); master seed {summary['seed']} "
              "(player count n uses seed + n). Scores are the game's own totals (`scores()`); the rulebook calls "
              "about 80 a realistic good score, advanced players pass 100, and 100 is the solo target. Solo Caverna "
              "has no chance (fixed round-card order, no harvest markers), so the solo spread is only the agent's own "
              "randomness (a deterministic agent scores the same every game).", "",
              "| players | games (scores) | mean [95% CI] | sd | 10% / 25% / 50% / 75% / 90% | min to max "
              "| >= 80 [95% CI] | >= 100 [95% CI] | 100 - mean [95% CI] | s/game |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for key, r in summary["results"].items():
        q = " / ".join(f"{v:.0f}" for v in r["quantiles"].values())
        seconds = f"{r['seconds_per_game']:.1f}" if r.get("seconds_per_game") is not None else ""
        lines.append(
            f"| {key} | {r['games']} ({r['scores']}) | {r['mean']:.1f} {_ci(r['mean_low'], r['mean_high'])} "
            f"| {r['sd']:.1f} | {q} | {r['min']:.0f} to {r['max']:.0f} "
            f"| {_pct(r['share_ge_80'])} [{_pct(r['share_ge_80_low'])}, {_pct(r['share_ge_80_high'])}] "
            f"| {_pct(r['share_ge_100'])} [{_pct(r['share_ge_100_low'])}, {_pct(r['share_ge_100_high'])}] "
            f"| {r['distance_from_100']:.1f} {_ci(r['distance_low'], r['distance_high'])} | {seconds} |")
    winners = [(k, r) for k, r in summary["results"].items() if "winner_mean" in r]
    if winners:
        lines += ["", "Winner's score in self-play: " + "; ".join(
            f"{k} players {r['winner_mean']:.1f} {_ci(r['winner_low'], r['winner_high'])}" for k, r in winners)
            + "."]
    lines += ["", "Intervals: the mean's is a t-interval over per-game mean scores (the seats of one game are not "
              "independent); the shares' are Wilson intervals over all seats' scores (somewhat too narrow in "
              "self-play for that reason). Results folders: `players-<n>/` (Parquet, resumable).", ""]
    if summary.get("notes"):
        lines += ["## Reading", "", summary["notes"], ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cavekit.analysis.caverna.scores",
                                     description="Caverna score report: solo, 2- and 4-player self-play of one agent.")
    parser.add_argument("--agent", default="caverna_heuristic", help="agent spec (default caverna_heuristic)")
    parser.add_argument("--solo", type=int, default=20, help="solo games (default 20)")
    parser.add_argument("--two", type=int, default=10, help="two-player games (default 10)")
    parser.add_argument("--four", type=int, default=6, help="four-player games (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--chunk-size", type=int, help="games per stored chunk (default: all of a count in one)")
    parser.add_argument("--out", default="results/caverna_scores")
    parser.add_argument("--notes-file", help="a markdown file whose text is appended to report.md as its reading")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    command = "python -m cavekit.analysis.caverna.scores " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    summary = score_report(args.agent, {1: args.solo, 2: args.two, 4: args.four}, args.seed, args.out, args.jobs,
                           args.chunk_size, progress=not args.quiet, command=command,
                           notes=Path(args.notes_file).read_text().strip() if args.notes_file else "")
    print(format_report(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
