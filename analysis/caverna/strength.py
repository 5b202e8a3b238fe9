"""The agents' strength report for Caverna, produced by one command (`cavekit strength caverna`).

Parts (`--parts`, all by default; a run of some parts keeps the others' figures in the folder):
- `solo`: `strongest` over seeded solo games: the mean score with its 95% interval, the shares reaching 80
  (the rulebook's realistic good game) and 100 (its advanced players, the solo target), the family at the end;
- `versus`: two-player duplicate games (every deal played with the seats both ways) of `strongest` against
  `caverna_rollout` (the best agent before the compiled core): its score rate and its points per seat;
- `players`: `strongest` in self-play at each `--player-counts` (default 2, 3, 4, 7): the mean score per seat
  and the mean family size at the end, so that a reader sees the agents play the whole game at every count;
- `ladder`: each preset against the next one down at two players, and every preset's solo mean on the same
  seeds (the solo game has no chance, so games differ only by the agents' tie noise);
- every part that plays also counts what the agents did, a seat and game: family growths, dwellings furnished,
  weapons forged and loot items taken on expeditions (`play_figures`), so that a reader sees those lines of
  play appear, or not;
- `cost`: CPU seconds a game (`time.process_time`, in this process) of the analysis agent in two- and
  four-player self-play and of `strongest` solo and at two players.
Every match is a resumable results folder under the output folder (games as Parquet): an interrupted run,
started again with the same arguments, plays only the games it lacks. Each figure is set beside the goal
issue 20 holds it to; verdicts come from the 95% intervals.
"""
from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ...core.api import CHANCE, ConfigError
from ...core.caverna.actions import FORGE, FURNISH, GROW, LOOT, action_table
from ...core.caverna.furnishings import furnishing
from ...core.deal import deal_for_play, deal_seed
from ...core.registry import load_game
from ...core.spec import DIFFICULTIES
from ...search import make_agent
from ...search.agent import resolve_preset
from ..batch import agent_record, run_match
from ..results import load_results
from ..stats import goal_verdict, mean_interval, seat_count
from ..strength import StrengthFolder, check_parts, command_lines, running_lines
from .scores import score_stats

PARTS = ("solo", "versus", "players", "ladder", "cost")
GOALS = {"solo_mean": 100.0, "versus_score_rate": 0.8, "versus_points": 80.0, "ladder": 0.5}
ROLLOUT = "caverna_rollout:candidates=3,horizon=2"
PLAYER_COUNTS = (2, 3, 4, 7)


def family(games: pd.DataFrame) -> float:
    """Mean family size (dwarfs) at the end over every seat of a games table."""
    return float(np.mean(np.concatenate([games[f"dwarfs_{p}"].to_numpy(float) for p in range(seat_count(games))])))


def seat_values(games: pd.DataFrame, spec: str, column: str) -> np.ndarray:
    """`column_{p}` of the seat `spec` played in each game of a two-seat match."""
    return np.where(games["agent_0"] == spec, games[f"{column}_0"], games[f"{column}_1"]).astype(float)


PLAY_COUNTS = ("growths", "dwellings", "weapons", "loot")
"""What `play_figures` counts: family growths, dwellings furnished, weapons forged, loot items taken."""


@lru_cache(maxsize=1)
def _play_count_of_action() -> np.ndarray:
    """Per action id: the index in PLAY_COUNTS of what the action counts towards, -1 for none."""
    counted = {GROW: 0, FORGE: 2, LOOT: 3}
    out = np.full(len(action_table().specs), -1, dtype=np.int64)
    for action, spec in enumerate(action_table().specs):
        if spec.kind == FURNISH and furnishing(spec.fid).is_dwelling:
            out[action] = 1
        elif spec.kind in counted:
            out[action] = counted[spec.kind]
    return out


def play_figures(folder: Path, spec: str) -> dict[str, float]:
    """What `spec` did in a match folder, a seat and game (averaged over its seats): see PLAY_COUNTS."""
    games, decisions = load_results(folder)
    seat_games = sum(int((games[f"agent_{p}"] == spec).sum()) for p in range(seat_count(games)))
    counted = _play_count_of_action()[decisions.loc[decisions["agent"] == spec, "action"].to_numpy(np.int64)]
    return {name: float((counted == k).sum()) / max(1, seat_games) for k, name in enumerate(PLAY_COUNTS)}


def solo_figures(games: pd.DataFrame) -> dict[str, Any]:
    """Score statistics (see `scores.score_stats`) and the family at the end of a solo results table."""
    return {"agent": games["agent_0"].iloc[0], **score_stats(games), "family": family(games)}


def versus_figures(games: pd.DataFrame, spec: str, opponent: str) -> dict[str, Any]:
    """`agent_record` of `spec`, with both sides' points a seat (with an interval) and family sizes."""
    _, low, high = mean_interval(seat_values(games, spec, "score"))
    return {"agent": spec, "opponent": opponent, **agent_record(games, spec), "points_low": low,
            "points_high": high, "family": float(seat_values(games, spec, "dwarfs").mean()),
            "opponent_family": float(np.where(games["agent_0"] == spec, games["dwarfs_1"], games["dwarfs_0"]).mean())}


def cpu_per_game(spec: str, players: int, games: int, seed: int) -> dict[str, Any]:
    """CPU seconds a game of `spec` in every seat, measured in this process over `games` seeded games."""
    game = load_game("caverna", players=players)
    spec = resolve_preset(spec, game)
    spent = []
    for i in range(games):
        deal = deal_for_play(game, deal_seed(seed, i))
        agents = [make_agent(spec, game, seed=np.random.SeedSequence(seed, spawn_key=(i, p))) for p in range(players)]
        state = game.new_initial_state()
        started = time.process_time()
        while not state.is_terminal():
            player = state.current_player()
            state.apply_action(deal.outcome(state) if player == CHANCE else agents[player].step(state))
        spent.append(time.process_time() - started)
    return {"agent": spec, "players": players, "games": games, "cpu_seconds_per_game": float(np.mean(spent))}


def strength_report(out: str | Path, command: str, parts: Sequence[str] = PARTS, solo_games: int = 100,
                    games: int = 200, player_games: int = 20, ladder_games: int = 100, ladder_solo_games: int = 20,
                    cost_games: int = 4, player_counts: Sequence[int] = PLAYER_COUNTS, strongest: str = "strongest",
                    analysis: str = "medium", rollout: str = ROLLOUT, seed: int = 0, jobs: int = 2,
                    progress: bool = True) -> dict[str, Any]:
    """Run the chosen parts into `out` (one resumable results folder per match) and return the summary."""
    check_parts(parts, PARTS)
    for name, value in (("--games", games), ("--ladder-games", ladder_games)):
        if value < 2 or value % 2:
            raise ConfigError(f"{name} must be even and at least 2 (every deal is played with both seatings), "
                              f"not {value}")
    for name, value in (("--solo-games", solo_games), ("--player-games", player_games),
                        ("--ladder-solo-games", ladder_solo_games), ("--cost-games", cost_games)):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1, not {value}")
    bad = [n for n in player_counts if not 1 <= n <= 7]
    if bad:
        raise ConfigError(f"--player-counts: Caverna has 1 to 7 players, not {', '.join(map(str, bad))}")
    folder = StrengthFolder(out, command, format_report)
    out = folder.out

    def match(name: str, specs: list[str], count: int, players: int, duplicate: bool) -> pd.DataFrame:
        return run_match("caverna", specs, count, seed, progress=progress, jobs=jobs, out=out / name,
                         duplicate=duplicate, players=players)

    def rerun(part: str, names: list[str]):
        """The running mark of a part whose games go to the results folders `names`."""
        return folder.running(part, f"{len(names)} match{'es' if len(names) > 1 else ''} "
                                    f"({', '.join(f'`{n}/`' for n in names)})", results=names)

    def preset(spec: str, players: int) -> str:
        return resolve_preset(spec, load_game("caverna", players=players))

    if "solo" in parts:
        solo = preset(strongest, 1)
        with rerun("solo", ["solo"]):
            table = match("solo", [solo], solo_games, 1, False)
        folder.record("solo", {**solo_figures(table), "play": play_figures(out / "solo", solo), "seed": seed})
    if "versus" in parts:
        first, second = preset(strongest, 2), preset(rollout, 2)
        with rerun("versus", ["strongest_vs_rollout"]):
            games_table = match("strongest_vs_rollout", [first, second], games, 2, True)
        folder.record("versus", {**versus_figures(games_table, first, second), "seed": seed,
                                 "play": play_figures(out / "strongest_vs_rollout", first),
                                 "opponent_play": play_figures(out / "strongest_vs_rollout", second)})
    if "players" in parts:
        rows = []
        with rerun("players", [f"players-{players}" for players in player_counts]):
            for players in player_counts:
                spec = preset(strongest, players)
                table = match(f"players-{players}", [spec] * players, player_games, players, False)
                rows.append({"agent": spec, **score_stats(table), "family": family(table),
                             "play": play_figures(out / f"players-{players}", spec)})
        folder.record("players", rows)
    if "ladder" in parts:
        rungs, solo_rows = [], []
        rung_names = {f"ladder-{a}_vs_{b}": (a, b) for a, b in zip(DIFFICULTIES[:0:-1], DIFFICULTIES[-2::-1])}
        solo_names = {f"ladder-solo-{d}": d for d in DIFFICULTIES}
        with rerun("ladder", [*rung_names, *solo_names]):
            for name, (stronger, weaker) in rung_names.items():
                first, second = preset(stronger, 2), preset(weaker, 2)
                table = match(name, [first, second], ladder_games, 2, True)
                rungs.append({"preset": stronger, "next_down": weaker, **versus_figures(table, first, second)})
            for name, difficulty in solo_names.items():
                table = match(name, [preset(difficulty, 1)], ladder_solo_games, 1, False)
                solo_rows.append({"preset": difficulty, **solo_figures(table)})
        folder.record("ladder", {"two_players": rungs, "solo": solo_rows, "seed": seed})
    if "cost" in parts:
        rows = [{"role": "analysis", **cpu_per_game(analysis, players, cost_games, seed)} for players in (2, 4)]
        rows += [{"role": "strongest", **cpu_per_game(strongest, players, cost_games, seed)} for players in (1, 2)]
        folder.record("cost", rows)
    return folder.finish()


def _interval(low: float | None, high: float | None, digits: int = 1) -> str:
    if low is None or high is None or np.isnan(low):
        return "[n/a]"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _rate_interval(low: float | None, high: float | None) -> str:
    if low is None or high is None or np.isnan(low):
        return "[n/a]"
    return f"[{low:.0%}, {high:.0%}]"


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _play_rows(parts: dict[str, Any]) -> list[tuple[str, str, dict[str, float]]]:
    """(part, agent, play figures) of every part whose record counts what the agents did."""
    rows = []
    if "play" in parts.get("solo", {}):
        rows.append(("solo", parts["solo"]["agent"], parts["solo"]["play"]))
    if "play" in parts.get("versus", {}):
        v = parts["versus"]
        rows += [("two players, versus", v["agent"], v["play"]),
                 ("two players, versus", v["opponent"], v["opponent_play"])]
    rows += [(f"{r['players']} players, self-play", r["agent"], r["play"]) for r in parts.get("players", [])
             if "play" in r]
    return rows


def format_report(summary: dict[str, Any]) -> str:
    """The summary as a Markdown report."""
    parts = summary["parts"]
    lines = ["# Caverna agent strength", "",
             "Verdicts come from the 95% interval: met when all of it reaches the goal, not met when none of it "
             "does, undecided otherwise (too few games to tell). The rulebook calls about 80 points a realistic "
             "good game and 100 or more the mark of advanced players (and the solo target). Commands, by part:", ""]
    lines += command_lines(summary)
    lines += running_lines(summary)
    if "solo" in parts:
        s = parts["solo"]
        verdict = goal_verdict(_nan(s["mean_low"]), _nan(s["mean_high"]), GOALS["solo_mean"])
        lines += ["", "## Solo", "",
                  "| agent | games | mean [95%] | sd | min to max | >= 80 [95%] | >= 100 [95%] | family at the end | "
                  "s/game |", "|---|---|---|---|---|---|---|---|---|",
                  f"| `{s['agent']}` | {s['games']} | {s['mean']:.1f} {_interval(s['mean_low'], s['mean_high'])} | "
                  f"{s['sd']:.1f} | {s['min']:.0f} to {s['max']:.0f} | {s['share_ge_80']:.0%} "
                  f"{_rate_interval(s['share_ge_80_low'], s['share_ge_80_high'])} | {s['share_ge_100']:.0%} "
                  f"{_rate_interval(s['share_ge_100_low'], s['share_ge_100_high'])} | {s['family']:.1f} | "
                  f"{s['seconds_per_game']:.1f} |", "",
                  f"Goal: a mean of at least {GOALS['solo_mean']:.0f} ({verdict}). The solo game has no chance (the "
                  "round cards lie in a fixed order), so its games differ only by the agent's tie noise: the "
                  "interval says how well this agent's mean is known, not how it would fare on other deals."]
    if "versus" in parts:
        v = parts["versus"]
        rate = goal_verdict(v["ci95_low"], v["ci95_high"], GOALS["versus_score_rate"])
        points = goal_verdict(_nan(v["points_low"]), _nan(v["points_high"]), GOALS["versus_points"])
        lines += ["", "## Two players against the rollout search (every deal played twice, seats swapped)", "",
                  "| agent | opponent | games | wins | draws | losses | score rate [95% Wilson] | paired over deals | "
                  "points a seat [95%] | opponent points | family / opponent's | s/game |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|",
                  f"| `{v['agent']}` | `{v['opponent']}` | {v['games']} | {v['wins']} | {v['draws']} | {v['losses']} | "
                  f"{v['score_rate']:.1%} {_rate_interval(v['ci95_low'], v['ci95_high'])} | "
                  f"{_rate_interval(v.get('paired_ci95_low'), v.get('paired_ci95_high'))} ({v['deals']} deals) | "
                  f"{v['mean_points']:.1f} {_interval(v['points_low'], v['points_high'])} | "
                  f"{v['opponent_mean_points']:.1f} | {v['family']:.1f} / {v['opponent_family']:.1f} | "
                  f"{v['seconds_per_game']:.1f} |", "",
                  f"Goals: a score rate of at least {GOALS['versus_score_rate']:.0%} ({rate}); at least "
                  f"{GOALS['versus_points']:.0f} points a seat ({points}). A tie on points is a shared win and "
                  "counts half."]
    if "players" in parts:
        lines += ["", "## Self-play at each player count (every seat the same agent)", "",
                  "| players | agent | games | points a seat [95%] | winner's points [95%] | family at the end | "
                  "s/game |", "|---|---|---|---|---|---|---|"]
        for r in parts["players"]:
            winner = (f"{r['winner_mean']:.1f} {_interval(r['winner_low'], r['winner_high'])}"
                      if "winner_mean" in r else "")
            lines.append(f"| {r['players']} | `{r['agent']}` | {r['games']} | {r['mean']:.1f} "
                         f"{_interval(r['mean_low'], r['mean_high'])} | {winner} | {r['family']:.1f} | "
                         f"{r['seconds_per_game']:.1f} |")
        lines += ["", "The interval of the points a seat is taken over per-game means (the seats of one game share "
                  "its round cards and compete for spaces)."]
    play_rows = _play_rows(parts)
    if play_rows:
        lines += ["", "## What the agents do (a seat and game)", "",
                  "| part | agent | family growths | dwellings furnished | weapons forged | loot items taken |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {part} | `{agent}` | " + " | ".join(f"{play[name]:.2f}" for name in PLAY_COUNTS) + " |"
                  for part, agent, play in play_rows]
        lines += ["", "A seat starts with 2 dwarfs and may grow to 5 (6 with the Additional dwelling); loot items "
                  "are taken on expeditions (1 to 4 items each, by the expedition's level)."]
    if "ladder" in parts:
        ladder = parts["ladder"]
        lines += ["", "## The preset ladder", "", "Two players (each preset against the next one down; every deal "
                  "played twice, seats swapped):", "",
                  "| preset | next down | games | score rate [95% Wilson] | goal | points a seat | opponent points | "
                  "family / opponent's |", "|---|---|---|---|---|---|---|---|"]
        for r in ladder["two_players"]:
            verdict = goal_verdict(r["ci95_low"], r["ci95_high"], GOALS["ladder"], strictly_above=True)
            lines.append(f"| {r['preset']} (`{r['agent']}`) | {r['next_down']} (`{r['opponent']}`) | {r['games']} | "
                         f"{r['score_rate']:.1%} {_rate_interval(r['ci95_low'], r['ci95_high'])} | "
                         f"> 50%: {verdict} | {r['mean_points']:.1f} | {r['opponent_mean_points']:.1f} | "
                         f"{r['family']:.1f} / {r['opponent_family']:.1f} |")
        lines += ["", "Solo (the same seeds for every preset):", "",
                  "| preset | agent | games | mean [95%] | max | family at the end | s/game |",
                  "|---|---|---|---|---|---|---|"]
        for r in ladder["solo"]:
            lines.append(f"| {r['preset']} | `{r['agent']}` | {r['games']} | {r['mean']:.1f} "
                         f"{_interval(r['mean_low'], r['mean_high'])} | {r['max']:.0f} | {r['family']:.1f} | "
                         f"{r['seconds_per_game']:.2f} |")
    if "cost" in parts:
        lines += ["", "## Cost (CPU seconds a game, every seat the agent, measured in one process)", "",
                  "| role | agent | players | games | CPU-s a game |", "|---|---|---|---|---|"]
        for r in parts["cost"]:
            lines.append(f"| {r['role']} | `{r['agent']}` | {r['players']} | {r['games']} | "
                         f"{r['cpu_seconds_per_game']:.2f} |")
    return "\n".join(lines) + "\n"

