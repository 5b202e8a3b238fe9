"""The agents' strength report for Cave vs Cave, produced by one command (`cavekit strength cvc`).

Parts (`--parts`, all by default; a run of some parts keeps the others' figures in the folder):
- `solo`: the `strongest` solo preset over seeded deals, with its CPU time per game, the mean's interval and
  the shares reaching 50 and 60 points; `ceiling`: the same planner told the whole deal on the same deals
  (how far `strongest` is from the best its search finds when nothing is hidden); `nrpa_ceiling`: NRPA told
  the deal (`cvc_nrpa`: whole games searched on the true deal, the best score our searches find on it);
- `matches`: two-player duplicate matches (each deal played twice, seats swapped): `strongest` against the
  compiled turn MCTS at 500 iterations and against greedy, the analysis agent against the turn MCTS at 50;
- `ladder`: each preset against the next one down (`strongest`-`hard`, `hard`-`medium`, `medium`-`easy`);
- `match:NAME`: one of those matches alone (`match:strongest_vs_greedy`, `match:hard_vs_medium`, ...);
- `cost`: CPU seconds per move of `strongest` and per two-player game of the analysis agent (self-play),
  measured in this process with `time.process_time`;
- `speed`: the compiled MCTS against the generic MCTS on the same positions.
Each figure is set beside the goal issue 23 holds it to. Everything lands in one folder: the command line of
each part, one Parquet table per match (and its results folder of finished chunks, from which an interrupted
run resumes), `solo.parquet`, `summary.json` and a readable `report.md`.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import delayed

from ...core.api import CHANCE, ConfigError, sample_chance_outcome
from ...core.deal import deal_for_play, deal_seed
from ...core.registry import load_game
from ...search import make_agent
from ...search.agent import resolve_preset
from ..balance import tie_counts
from ..batch import agent_record, check_jobs, in_workers, run_match
from ..progress import progress_bar
from ..stats import goal_verdict, mean_interval, wilson_interval
from ..strength import StrengthFolder, check_parts, command_lines, running_lines

PARTS = ("solo", "ceiling", "nrpa_ceiling", "matches", "ladder", "cost", "speed")
SOLO_PARTS = ("solo", "ceiling", "nrpa_ceiling")    # played on the same solo deals, kept in solo.parquet
# What each figure must show (score rates and shares are lower bounds, times upper bounds); issue 23.
GOALS = {"solo_mean": 65.0, "solo_share_50": 0.9, "solo_cpu_seconds": 60.0,
         "strongest_vs_mcts": 0.75, "strongest_vs_greedy": 0.97, "analysis_vs_weak_mcts": 0.65, "ladder": 0.5,
         "move_cpu_seconds": 1.0, "analysis_game_cpu_seconds": 10.0, "speed_ratio": 20.0}
LADDER = (("strongest", "hard"), ("hard", "medium"), ("medium", "easy"))
# The matches of `matches` and `ladder`; each can also be run alone as the part `match:NAME`, e.g. after one
# agent changed (its old games must leave the folder first: a results folder of other agents is refused).
MATCHES = ("analysis_vs_weak_mcts", "strongest_vs_mcts", "strongest_vs_greedy")
LADDER_MATCHES = tuple(f"{a}_vs_{b}" for a, b in LADDER)
MATCH_PARTS = tuple(f"match:{name}" for name in MATCHES + LADDER_MATCHES)


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


def solo_game(spec: str, seed: int, index: int, clairvoyant: bool) -> dict[str, Any]:
    """Solo game `index` of a run on deal (seed, index), as `run_match` deals it: score and CPU seconds.
    `clairvoyant` tells the agent the whole deal first (only planners that take a deal can be told)."""
    game = load_game("cvc", players=1)
    deal = deal_for_play(game, deal_seed(seed, index))
    agent = make_agent(spec, game, seed=np.random.SeedSequence(seed, spawn_key=(index,)))
    if clairvoyant:
        if not hasattr(agent, "deal"):
            raise ConfigError(f"the ceiling tells the solo agent the deal, which {spec!r} cannot be told; "
                              "use a planner (cvc_plan) or cvc_nrpa")
        agent.deal = deal
    state = game.new_initial_state()
    started, wall = time.process_time(), time.perf_counter()
    while not state.is_terminal():
        state.apply_action(deal.outcome(state) if state.current_player() == CHANCE else agent.step(state))
    return {"deal": index, "deal_seed": deal.seed, "seed": seed, "agent": spec, "clairvoyant": clairvoyant,
            "score": int(state.scores()[0]), "cpu_seconds": time.process_time() - started,
            "seconds": time.perf_counter() - wall}


SOLO_CHUNK = 5      # solo games kept per file: an interrupted run loses at most this many


def solo_chunk(spec: str, seed: int, deals: range, clairvoyant: bool) -> pd.DataFrame:
    """The solo games on `deals` (see `solo_game`), one row each."""
    return pd.DataFrame([solo_game(spec, seed, i, clairvoyant) for i in deals])


def kept_solo_chunk(path: Path, spec: str, seed: int, deals: range, clairvoyant: bool) -> pd.DataFrame | None:
    """The games a previous run kept in `path` for these deals, or None when there are none to keep. A file that
    is not such a table, or holds another agent's or seed's games, is refused with its location."""
    if not path.exists():
        return None
    try:
        table = pd.read_parquet(path)
        kept = (list(table["deal"]), set(table["agent"]), set(table["seed"]), set(table["clairvoyant"]))
    except Exception as error:      # pyarrow raises several kinds for a damaged file
        raise ConfigError(f"{path}: not a table of solo games of this report ({type(error).__name__}: {error}); "
                          "remove it to play its games again") from None
    if kept[1:] != ({spec}, {seed}, {clairvoyant}):
        raise ConfigError(f"{path}: games of another run (agents {sorted(kept[1])}, seeds {sorted(kept[2])}), not of "
                          f"{spec} with seed {seed}; choose another --out or remove {path.parent}")
    return table if kept[0] == list(deals) else None     # a shorter run's last chunk is played again


def play_solo(spec: str, games: int, seed: int, jobs: int, clairvoyant: bool, progress: bool,
              folder: Path | None = None, label: str = "cvc solo") -> pd.DataFrame:
    """`games` solo games of `spec` (see `solo_game`), in deal order whatever `jobs`. With `folder`, every
    finished chunk of games is kept there at once, and a run again plays only the games it lacks."""
    chunks = [range(start, min(start + SOLO_CHUNK, games)) for start in range(0, games, SOLO_CHUNK)]
    paths = [folder / f"games-{deals.start:05d}.parquet" if folder else None for deals in chunks]
    tables = {i: kept_solo_chunk(path, spec, seed, chunks[i], clairvoyant) if path else None
              for i, path in enumerate(paths)}
    missing = [i for i, table in tables.items() if table is None]
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
    with progress_bar(sum(len(chunks[i]) for i in missing), label, "game", progress) as bar:
        calls = (delayed(solo_chunk)(spec, seed, chunks[i], clairvoyant) for i in missing)
        for table in in_workers(calls, jobs):
            i = int(table["deal"].iloc[0]) // SOLO_CHUNK
            if paths[i]:
                written = paths[i].with_suffix(".partial")
                table.to_parquet(written, index=False)
                written.replace(paths[i])       # a chunk file is whole or absent, even if the run is killed
            tables[i] = table
            bar.update(len(table))
    return pd.concat([tables[i] for i in range(len(chunks))], ignore_index=True)


def solo_figures(games: pd.DataFrame) -> dict[str, Any]:
    """The solo summary of a `play_solo` table."""
    scores = games["score"]
    mean, low, high = mean_interval(scores)
    return {"agent": games["agent"].iloc[0], "games": len(games), "mean": mean, "mean_low": low, "mean_high": high,
            "std": float(scores.std()), "min": int(scores.min()), "max": int(scores.max()),
            "share_at_least_50": float((scores >= 50).mean()), "share_at_least_60": float((scores >= 60).mean()),
            "cpu_seconds_per_game": float(games["cpu_seconds"].mean()),
            "max_cpu_seconds": float(games["cpu_seconds"].max())}


def move_cost(spec: str, opponent: str, games: int, seed: int) -> dict[str, Any]:
    """CPU seconds per move of `spec` over `games` two-player games against `opponent` (seats alternating),
    and per game of the whole game when `opponent` is `spec` itself; measured in this process."""
    game = load_game("cvc")
    spent, moves, per_game = 0.0, 0, []
    for i in range(games):
        deal = deal_for_play(game, deal_seed(seed, i))
        seats = [spec, opponent] if i % 2 == 0 else [opponent, spec]
        agents = [make_agent(a, game, seed=np.random.SeedSequence(seed, spawn_key=(i, p))) for p, a in enumerate(seats)]
        state = game.new_initial_state()
        game_spent = 0.0
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(deal.outcome(state))
                continue
            started = time.process_time()
            action = agents[player].step(state)
            took = time.process_time() - started
            game_spent += took
            if seats[player] == spec:
                spent += took
                moves += 1
            state.apply_action(action)
        per_game.append(game_spent)
    return {"agent": spec, "opponent": opponent, "games": games, "moves": moves,
            "cpu_seconds_per_move": spent / moves, "cpu_seconds_per_game": float(np.mean(per_game))}


def strength_report(out: Path, games: int, solo_games: int, jobs: int, seed: int, command: str,
                    parts: tuple[str, ...] = PARTS, strongest: str = "strongest", analysis: str = "medium",
                    mcts: str = "cvc_turn_mcts:iterations=500", weak_mcts: str = "cvc_turn_mcts:iterations=50",
                    greedy: str = "greedy", nrpa: str = "cvc_nrpa", cost_games: int = 4,
                    progress: bool = True) -> dict[str, Any]:
    """Run the chosen parts of the report into `out` and return the whole summary."""
    check_parts(parts, PARTS + MATCH_PARTS)
    check_jobs(jobs)
    if games < 2 or games % 2:
        raise ConfigError(f"--games must be even and at least 2 (every deal is played with both seatings), not {games}")
    folder = StrengthFolder(out, command, format_report)
    record = folder.record
    solo_game_spec = resolve_preset(strongest, load_game("cvc", players=1))

    played = [part for part in SOLO_PARTS if part in parts]
    if played:
        solo_runs = {"solo": (solo_game_spec, False), "ceiling": (solo_game_spec, True),
                     "nrpa_ceiling": (resolve_preset(nrpa, load_game("cvc", players=1)), True)}
        tables = []
        for part in played:
            spec, clairvoyant = solo_runs[part]
            with folder.running(part, f"`{spec}`{' told the deal' if clairvoyant else ''}, {solo_games} solo games"):
                games_played = play_solo(spec, solo_games, seed, jobs, clairvoyant, progress, out / f"{part}_games",
                                         label=f"cvc {part}")
            tables.append(games_played.assign(part=part))
        table = pd.concat(tables, ignore_index=True)
        if (out / "solo.parquet").exists():
            kept = pd.read_parquet(out / "solo.parquet")
            if "part" not in kept:      # a folder from before the NRPA ceiling: its told games are the planner's
                kept = kept.assign(part=np.where(kept["clairvoyant"], "ceiling", "solo"))
            table = pd.concat([kept[~kept["part"].isin(played)], table], ignore_index=True)
        table.to_parquet(out / "solo.parquet", index=False)
        for part in played:
            record(part, {**solo_figures(table[table["part"] == part]), "seed": seed})
    every_match = {"analysis_vs_weak_mcts": (analysis, weak_mcts), "strongest_vs_mcts": (strongest, mcts),
                   "strongest_vs_greedy": (strongest, greedy), **{f"{a}_vs_{b}": (a, b) for a, b in LADDER}}
    wanted = [name for name in MATCHES + LADDER_MATCHES
              if f"match:{name}" in parts or ("matches" in parts and name in MATCHES)
              or ("ladder" in parts and name in LADDER_MATCHES)]
    if wanted:
        two = load_game("cvc")
        matches = [(name, *every_match[name]) for name in wanted]
        # Cheapest first (every match is recorded as it ends): `strongest`'s matches cost CPU-hours each.
        matches.sort(key=lambda match: "strongest" in match[1:] or match[1] == strongest)
        for name, first, second in matches:
            first, second = resolve_preset(first, two), resolve_preset(second, two)
            # Each match keeps its finished games in its own results folder, so an interrupted report (a
            # 400-game match of `strongest` takes CPU-hours) resumes where it stopped when run again.
            with folder.running(f"match:{name}", f"`{first}` against `{second}`", results=[name]):
                results = run_match("cvc", [first, second], games, seed, progress=progress, jobs=jobs,
                                    duplicate=True, out=out / name)
            results.to_parquet(out / f"{name}.parquet", index=False)
            ties = tie_counts(results).iloc[0]
            record(f"match:{name}", {"agent": first, "opponent": second, **agent_record(results, first),
                                     "tied_on_points": int(ties["tied on points"]),
                                     "decided_by_tie_break": int(ties["decided by the tie-break"]),
                                     "tie_break_won_by_first_player": int(ties["of which won by the first player"]),
                                     "seed": seed})
    if "cost" in parts:
        two = load_game("cvc")
        record("cost", [move_cost(resolve_preset(strongest, two), resolve_preset(greedy, two), cost_games, seed),
                        move_cost(resolve_preset(analysis, two), resolve_preset(analysis, two), cost_games, seed)])
    if "speed" in parts:
        positions = sample_positions(30, seed)
        with progress_bar(2 * len(positions), "MCTS speed", "position", progress) as bar:
            record("speed", [mcts_speed(positions, "random", 200, 5000, bar),
                             mcts_speed(positions, "none", 500, 50000, bar)])
    return folder.finish()


def match_goal(name: str) -> tuple[float, bool]:
    """A match's goal and whether it must be strictly above it (ladder rungs: more than half)."""
    if name in GOALS:
        return GOALS[name], False
    return GOALS["ladder"], True


def format_report(summary: dict[str, Any]) -> str:
    """The summary as a Markdown report."""
    parts = summary["parts"]
    lines = ["# Cave vs Cave agent strength", "",
             "Verdicts come from the 95% interval: met when all of it reaches the goal, not met when none of it "
             "does, undecided otherwise (too few games to tell). Commands, by part:", ""]
    lines += command_lines(summary)
    lines += running_lines(summary)
    if any(part in parts for part in SOLO_PARTS):
        lines += ["", "## Solo (rulebook: 50 points is the goal, more than 60 remarkable)", "",
                  "| run | games | mean | 95% interval | sd | range | reach 50 | reach 60 | CPU-s/game (max) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        labels = {"solo": "`{agent}`", "ceiling": "`{agent}` told the deal (ceiling)",
                  "nrpa_ceiling": "`{agent}` told the deal (NRPA ceiling: whole games searched on the deal)"}
        for key in SOLO_PARTS:
            if key in parts:
                r = parts[key]
                lines.append(f"| {labels[key].format(agent=r['agent'])} | {r['games']} | {r['mean']:.1f} | "
                             f"{r['mean_low']:.1f}-{r['mean_high']:.1f} | {r['std']:.1f} | {r['min']}-{r['max']} | "
                             f"{r['share_at_least_50']:.0%} | {r['share_at_least_60']:.0%} | "
                             f"{r['cpu_seconds_per_game']:.1f} ({r['max_cpu_seconds']:.1f}) |")
    if "solo" in parts:
        s = parts["solo"]
        share_low, share_high = wilson_interval(s["share_at_least_50"] * s["games"], s["games"])
        lines += ["", f"Goals: a mean of at least {GOALS['solo_mean']:.0f} "
                      f"({goal_verdict(s['mean_low'], s['mean_high'], GOALS['solo_mean'])}); "
                      f"at least {GOALS['solo_share_50']:.0%} of games reaching 50 "
                      f"({goal_verdict(share_low, share_high, GOALS['solo_share_50'])}); at most "
                      f"{GOALS['solo_cpu_seconds']:.0f} CPU-s a game "
                      f"({'met' if s['cpu_seconds_per_game'] <= GOALS['solo_cpu_seconds'] else 'not met'})."]
    matches = {k.split(":", 1)[1]: v for k, v in parts.items() if k.startswith("match:")}
    if matches:
        lines += ["", "## Two players (every deal played twice, seats swapped; draws count half)", "",
                  "| match | games | wins | draws | losses | score rate | 95% interval | paired over deals | goal | "
                  "points (mean) | opponent points | s/game |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, m in matches.items():
            goal, strictly = match_goal(name)
            verdict = goal_verdict(m["ci95_low"], m["ci95_high"], goal, strictly_above=strictly)
            lines.append(f"| `{m['agent']}` vs `{m['opponent']}` | {m['games']} | {m['wins']} | {m['draws']} | "
                         f"{m['losses']} | {m['score_rate']:.1%} | {m['ci95_low']:.1%} - {m['ci95_high']:.1%} | "
                         f"{m['paired_ci95_low']:.1%} - {m['paired_ci95_high']:.1%} ({m['deals']} deals) | "
                         f"{'>' if strictly else '>='} {goal:.0%}: {verdict} | "
                         f"{m['mean_points']:.1f} | {m['opponent_mean_points']:.1f} | {m['seconds_per_game']:.2f} |")
        tie_rows = [m for m in matches.values() if "tied_on_points" in m]
        if tie_rows:
            lines += ["", "Games tied on points go to the player whose most valuable room is worth more (a draw "
                      "when those are equal); how many ties each match had, and who won them:", "",
                      "| match | tied on points | decided by the tie-break | won by the first player | drawn |",
                      "|---|---|---|---|---|"]
            for m in tie_rows:
                lines.append(f"| `{m['agent']}` vs `{m['opponent']}` | {m['tied_on_points']} | "
                             f"{m['decided_by_tie_break']} | {m['tie_break_won_by_first_player']} | {m['draws']} |")
    if "cost" in parts:
        strongest, analysis = parts["cost"]
        lines += ["", "## Cost (CPU seconds, measured in one process)", "",
                  f"- `{strongest['agent']}`: {strongest['cpu_seconds_per_move']:.2f} CPU-s per move over "
                  f"{strongest['moves']} moves against `{strongest['opponent']}` (goal at most "
                  f"{GOALS['move_cpu_seconds']:.0f}: "
                  f"{'met' if strongest['cpu_seconds_per_move'] <= GOALS['move_cpu_seconds'] else 'not met'}).",
                  f"- analysis agent `{analysis['agent']}`: {analysis['cpu_seconds_per_game']:.1f} CPU-s per "
                  f"two-player self-play game over {analysis['games']} games (goal at most "
                  f"{GOALS['analysis_game_cpu_seconds']:.0f}: "
                  f"{'met' if analysis['cpu_seconds_per_game'] <= GOALS['analysis_game_cpu_seconds'] else 'not met'})."]
    if "speed" in parts:
        lines += ["", "## Speed: compiled MCTS against generic MCTS on the same positions", "",
                  "| leaves | positions | generic sims/s | compiled sims/s | ratio |", "|---|---|---|---|---|"]
        for sp in parts["speed"]:
            lines.append(f"| {sp['rollout']} | {sp['positions']} | {sp['generic_sims_per_second']:,.0f} | "
                         f"{sp['compiled_sims_per_second']:,.0f} | {sp['ratio']:.0f}x |")
        lines += ["", f"Goal: at least {GOALS['speed_ratio']:.0f}x. Both searches run on the compiled engine, so the "
                  "ratio measures what compiling the search itself gains. A random playout is mostly engine work "
                  "(move generation and moves, in C for both; the generic search only adds a Python call per "
                  "move), which bounds that ratio; with the heuristic leaf evaluation the MCTS agents play with, "
                  "the generic search's Python tree and evaluation are the whole cost."]
    return "\n".join(lines) + "\n"
