"""Tune the Caverna evaluator's weights for caverna_greedy's play, reproducibly from one seed.

The evaluator (`search/caverna_agents.py`) is a weighted sum of what a position promises; its hand-set
weights (`CAVERNA_WEIGHTS`) are the baseline. This is the cross-entropy method on those weights: each
generation draws `--population` candidates around the current mean (a normal spread per weight, weights kept
at 0 or above, rounded to `DECIMALS`), scores each by the mean final score per seat of `--games` games in
which caverna_greedy with the candidate plays every seat, and moves the mean and spread towards the best
quarter. Generation g plays deals `deal_seed(seed + 1000 + g, i)` with the agents seeded from the same
numbers, the same games for every candidate of a generation, so candidates are compared on equal terms and
the file depends on the arguments only (not on `--jobs`). The solo game has no chance (its round cards lie
in a fixed order), so its "deals" differ only in the agents' tie noise.

Greedy play is what the other Caverna agents are built on (caverna_pilot's candidates and rollouts). Solo,
`--pilot-generations` then refines the weights for the pilot itself: the same method from the greedy
stage's mean (spread `PILOT_SPREAD` of each weight), each candidate scored by `PILOT` (caverna_pilot with 3
candidates, 0.5 s a solo game) on `--pilot-games` games, since the pilot ranks its candidates by whole-game
rollouts and may profit from weights that greedy play alone cannot use. Measured 2026-12-03 on 8 games
outside the search (seed 777): a first trial (minimum spread 0.03, other deals) moved the pilot from 74.9
points to 81.0, but `--pilot-generations 15 --pilot-games 3` gave 75.3 (3 games a candidate are too few
against the solo games' tie noise). The shipped file's `--pilot-generations 15 --pilot-games 8` (about 20 min
on 2 cores) moved the pilot, on 20 games outside the search (agent seeds 777-796), from 72.8 to 76.0 points
(`candidates=3`) and, on 10 of them, from 78.8 to 82.8 at `level=2`.
Each player count has its own generator and deals, so tuning one count never changes another's weights.
The 3-, 5- and 7-player weights were added on 2026-12-04 with `--resume` (the 1, 2 and 4 entries are unchanged
to the byte; about 15, 20 and 25 min on 2 cores): greedy self-play per seat went from 38.1 to 51.6 points (3
players), from 29.7 to 46.0 (5 players) and from 23.9 to 43.4 (7 players), the hand-set baseline against
generation 25's mean, and the family stays near 2 dwarfs (2.2, 2.7 and 2.3 at the end): the score-per-seat
fitness finds that growing does not pay at these counts, as it does not solo. Before, 3 players used the
2-player weights (medium: 32.9 points a seat, 4.9 dwarfs and about 10 points of begging; with their own
weights 51.3 and 2.1, 40 games each).
The family's food bill (`dwarf_harvest_food`, `food_gap`) is only used once tuned: the baseline sets it to 0.

Solo, the tuning has more than one local optimum: the plain run (seed 0) ends with weights with which the
level-2 pilot keeps a family of 2 and scores 82.8 (10 games outside the tuning), while other random paths reach
weights that grow it to 3. `--solo-restarts N` runs the greedy stage N times, the r-th from seed + r (the
first is the plain run), plays each result with `SELECT` (the `hard` preset's level-2 pilot, about 11 CPU-s a
solo game) on `--select-games` games of deals `deal_seed(seed + 9000, i)`, which no stage plays, and gives the
best (the earliest on a tie) to the pilot stage. Every restart's rows carry `"restart": r`, and each restart's
selection row its score and family, the kept one `"kept": true`. The shipped solo weights (2026-12-05, 6
restarts, about 60 min on 2 cores with `--resume`, the 2-7 player entries unchanged): the level-2 pilot scored
82.2, 74.5, 77.1, 87.4, 81.6 and 81.2 on the six greedy stages; restart 3 (3 dwarfs) was kept, and after the
pilot stage `hard` scores 88.6 +- 0.7 on the 10 outside games (agent seeds 777-786), a family of 3.0.
Tried and dropped (2026-12-05, scratch scripts, two players, from the shipped 2-player weights): the fitness
"lead against an opponent" instead of the score a seat. With caverna_greedy against the current mean (16
candidates, 300 duplicate games each, a generation about 3 CPU-min) the new mean led the shipped weights by -3.3
and then -0.6 points (300 games each) after generations 2 and 3: no gain. With the `hard` pilot against the
shipped weights' `hard` (16 games a candidate) the noise swamps the signal: the shipped weights led themselves by
6.2 points over the 16 games of the first generation (the sd of a game's lead is about 26 points).
Solo, scaling single weights of the shipped ones (the level-1 pilot, 20 games): `dwarf_round` x 1.3 or x 1.6 and
`weapon` x 5 change no game (84.9 each; no line the play-outs reach is tipped to a fourth dwarf or a forge),
`free_room_round` x 2 builds dwellings it cannot fill: 59.7 with 3.65 dwarfs (with `dwarf_round` x 1.3: 66.9, 3.9).
Two players, the `hard` pilot with one weight scaled against the shipped `hard` (200 duplicate games, seed 11,
lead +- 1.8 s.e.): `feeding_urgency` x 3 -15.5 points (22% won), `food_gap` x 10 and x 30 -24.6 and -24.5 (begging
in 6% and 0% of games, against 10%), `dwarf_harvest_food` x 3 -0.6, `dwarf_round` x 0.7 +1.1. More weight on
food without a feature for food income (fields, breeding, food furnishings) buys security by hoarding food.
Tried and dropped (2026-12-06, scratch scripts). Two players, restarts of the greedy stage (seeds 1-4, the
shipped run being seed 0; about 8 min each on 2 cores; greedy self-play 47.1, 50.3, 46.3 and 48.5 points a seat
against the shipped 50.0), each judged by `hard` with it against the shipped `hard` (200 duplicate games, seed 11,
+- 1.5-1.9 s.e.): -5.5, +2.7, -4.1 and +0.2 points of lead (the shipped weights against themselves: -1.2). The
best, seed 2, did not hold on other deals: -0.4 +- 1.4 (seed 12) and, as `strongest`, -6.6 +- 1.8 (seed 13, 42%
won): a 200-game selection among restarts picks noise, so two-player restarts would need far more games to judge.
Solo, the greedy stage from a weapon-minded start (the shipped solo weights with `ore` x 5 and `weapon` x 30, with
which greedy play arms 1.3 dwarfs a game; 12 generations): greedy play 47 -> 60 points and no dwarf armed at the
end (weapon 3.2 a point of strength, ore 1.4), against 77 for the shipped weights; the level-1 pilot with those
weights 71.8. Greedy play with the shipped weights arms no dwarf even at `weapon` x 30 (5 points a point of
strength): it never holds the ore to forge, and lines that forge score worse in its play-outs.
Solo, a third stage judged by the `hard` preset's level-2 pilot itself (`SELECT`), from the shipped solo weights
(8 generations of 12 candidates x 4 games, the pilot stage's spreads, about 60 min on 2 cores): the mean's score
wandered between 85.5 and 90.8 without a trend, and on 10 solo games outside it (deal_seed(777, i)) `hard` scored
88.8 +- 0.5 with its weights against 90.4 +- 0.7 with the shipped ones: 4 games a candidate cannot tell weights
apart at level 2, and more games cost more than a session.
The weapon experiments above ran with an evaluator that did not see a weapon until its dwarf's turn ended, so a
turn's own steps forged the cheapest weapon; it sees it since 2026-12-06 (the weights were not re-tuned). With it,
solo, the level-1 pilot (6 games, agent seeds 777-782) with the shipped solo weights and `weapon` x 5 or x 20 still
arms no dwarf (84.7, 84.7 and 83.8 points), nor with `ore` x 3 too (73.7); in the strength report's 100 solo
games `strongest` takes Ore mine construction 0.16 times a game and Ore mining, Blacksmithing and Adventure never.
The two-player greedy stage run again on that evaluator (seed 0, about 8 min) gave weights whose `hard` led the
shipped `hard` by -8.4 +- 1.2 points (400 duplicate games, seed 11): kept the shipped ones.

    python -m cavekit.analysis.caverna.train_weights --generations 25 --population 24 --games 40 --seed 0 \
        --players 1 2 3 4 5 7 --pilot-generations 15 --pilot-games 8 --solo-restarts 6 --select-games 10

writes `search/data/caverna_weights.json` (with `--out`, another file): the mean of the last generation per
player count, the command, and each generation's figures (the mean's score before the generation, the best
candidate's, the elite's mean, the mean family size at the end; the pilot stage's rows say `"agent": PILOT`).
With `--resume`, a player count that the file at `--out` already holds, made by a command with the same
settings for that count (the solo-only options matter to the solo weights only), keeps its weights and
figures instead of being tuned again: since each count has its own generator and deals, the result is the
file the whole command makes from scratch, and adding a player count costs only that count's games. The file is written once, at the end: a long run is kept safe from a stop by tuning
its counts in separate `--resume` runs.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from joblib import delayed
from tqdm import tqdm

from ...core import load_game
from ..batch import in_workers
from ..cross_entropy import elite_update
from ...core.api import CHANCE, ConfigError
from ...core.deal import deal_seed, new_deal
from ...search.caverna_agents import CAVERNA_WEIGHTS
from ...search.caverna_fast import CavernaGreedyAgent, CavernaPilotAgent, make_weights
from ...search.caverna_weights import FORMAT, WEIGHTS_FILE, parse_weights_file

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "search" / "data" / WEIGHTS_FILE
NAMES = tuple(CAVERNA_WEIGHTS)
DECIMALS = 4
ELITE = 4               # the best quarter of each generation
SMOOTHING = 0.7         # share of the new mean and spread taken from the elite (the rest kept)
START_SPREAD = 0.5      # times the baseline weight, at least MIN_START_SPREAD
MIN_START_SPREAD = 0.3
MIN_SPREAD = 0.05
PILOT = "caverna_pilot:candidates=3"
PILOT_SPREAD = 0.3      # times the greedy stage's weight, at least PILOT_MIN_SPREAD
PILOT_MIN_SPREAD = 0.15
PILOT_SEED_OFFSET = 5000  # the pilot stage's deals: deal_seed(seed + 5000 + g, i)
SELECT = "caverna_pilot:candidates=3,level=2"   # the `hard` preset's search, which judges solo restarts
SELECT_SEED = 9000      # the selection games: deal_seed(seed + 9000, i), played by no stage
# How each stage's agent is built around the candidate weights (compiled, so not from a spec string).
AGENTS = {
    "caverna_greedy": lambda game, seed, weights: CavernaGreedyAgent(game, seed=seed, weights=weights),
    PILOT: lambda game, seed, weights: CavernaPilotAgent(game, seed=seed, candidates=3, weights=weights),
    SELECT: lambda game, seed, weights: CavernaPilotAgent(game, seed=seed, candidates=3, level=2, weights=weights),
}


def greedy_games(weights: dict[str, float], players: int, seed: int, games: int,
                 agent: str = "caverna_greedy", first: int = 0) -> tuple[float, float]:
    """(mean final score per seat, mean family size at the end) of `games` games of `agent` (one of `AGENTS`)
    with `weights` in every seat, on deals `deal_seed(seed, i)` from i = `first` on."""
    game = load_game("caverna", players=players)
    c_weights = make_weights(weights)
    scores, family = [], []
    for i in range(first, first + games):
        number = deal_seed(seed, i)
        deal = new_deal(game, number)
        player = AGENTS[agent](game, number, c_weights)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(deal.outcome(state) if state.current_player() == CHANCE else player.step(state))
        scores.append(float(np.mean(state.scores())))
        family.append(float(np.mean([state.summary(p).dwarfs for p in range(players)])))
    return float(np.mean(scores)), float(np.mean(family))


def cross_entropy(players: int, generations: int, population: int, games: int, seed: int, jobs: int,
                  progress: bool, start: dict[str, float] | None = None, agent: str = "caverna_greedy"
                  ) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The tuned weights for `players` and each generation's figures (see the module docstring): from the
    baseline with caverna_greedy, or from `start` with the pilot."""
    pilot = agent == PILOT
    base = np.array([(CAVERNA_WEIGHTS if start is None else start)[name] for name in NAMES])
    mean = base.copy()
    spread = (np.maximum(PILOT_MIN_SPREAD, PILOT_SPREAD * np.abs(base)) if pilot else
              np.maximum(MIN_START_SPREAD, START_SPREAD * np.abs(base)))
    rng = np.random.default_rng([seed, players, 1] if pilot else [seed, players])
    history = []
    for g in range(generations):
        deals = seed + (PILOT_SEED_OFFSET if pilot else 1000) + g
        candidates = [np.maximum(0.0, mean + spread * rng.standard_normal(len(mean))).round(DECIMALS)
                      for _ in range(population)]
        calls = (delayed(greedy_games)(dict(zip(NAMES, map(float, w))), players, deals, games, agent)
                 for w in [mean, *candidates])
        bar = tqdm(total=population + 1, disable=not progress, unit="candidate",
                   desc=f"caverna weights, {players} player(s), {agent}, generation {g + 1}/{generations}")
        results = []
        for result in in_workers(calls, jobs, ordered=True):
            results.append(result)
            bar.update()
        bar.close()
        fitness = np.array([score for score, _ in results[1:]])
        mean, spread, best = elite_update(mean, spread, candidates, fitness, elite_share=ELITE, smoothing=SMOOTHING,
                                          min_spread=MIN_SPREAD, decimals=DECIMALS)
        history.append({"players": players, **({"agent": agent} if pilot else {}), "generation": g + 1,
                        "games": games, "mean_before": round(results[0][0], 3),
                        "family_before": round(results[0][1], 3),
                        "best_candidate": round(float(fitness[best[0]]), 3),
                        "elite_mean": round(float(fitness[best].mean()), 3),
                        "spread": round(float(spread.mean()), 4)})
    return {name: float(w) for name, w in zip(NAMES, mean)}, history


def restarted_greedy_stage(restarts: int, select_games: int, generations: int, population: int, games: int,
                           seed: int, jobs: int, progress: bool) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Solo: the greedy stage run `restarts` times, the r-th from seed + r, and the result that `SELECT` plays
    best over `select_games` games on deals of its own (the first restart on a tie), with every restart's
    figures (tagged with its number) and each one's selection row (the kept one says so)."""
    results, history = [], []
    for r in range(restarts):
        weights, figures = cross_entropy(1, generations, population, games, seed + r, jobs, progress)
        calls = (delayed(greedy_games)(weights, 1, seed + SELECT_SEED, 1, SELECT, first=i)
                 for i in range(select_games))
        played = list(tqdm(in_workers(calls, jobs, ordered=True), total=select_games, disable=not progress,
                           unit="game", desc=f"caverna weights, solo restart {r + 1}/{restarts}, selection"))
        score, family = (round(float(np.mean(column)), 3) for column in zip(*played))
        history += [{**row, "restart": r} for row in figures]
        history.append({"players": 1, "restart": r, "agent": SELECT, "selection_games": select_games,
                        "score": score, "family": family})
        results.append((score, r, weights))
    score, kept, weights = max(results, key=lambda result: (result[0], -result[1]))
    next(row for row in history if row.get("restart") == kept and "score" in row)["kept"] = True
    return weights, history


def weights_document(tuned: dict[int, dict[str, float]], history: list[dict[str, Any]], command: str) -> dict:
    """The JSON document of a weights file."""
    return {"format": FORMAT, "version": 1, "command": command,
            "weights": {str(p): tuned[p] for p in sorted(tuned)}, "training": history}


# The options a player count's weights depend on: every count's, and the solo tuning's own.
SETTINGS = ("generations", "population", "games", "seed")
SOLO_SETTINGS = ("pilot_generations", "pilot_games", "solo_restarts", "select_games")


def settings_of(players: int, args: argparse.Namespace) -> dict[str, int | None]:
    """The option values the weights for `players` depend on."""
    settings = {name: getattr(args, name) for name in SETTINGS + (SOLO_SETTINGS if players == 1 else ())}
    if settings.get("solo_restarts") == 1:
        settings["select_games"] = None     # nothing is selected from one run
    return settings


def reusable(out: Path, args: argparse.Namespace, parser: argparse.ArgumentParser
             ) -> tuple[dict[int, dict[str, float]], list[dict[str, Any]]]:
    """The weights and figures of each player count in the file at `out` whose recorded command had the settings
    of `args` that the count depends on (`settings_of`); nothing when there is no such file."""
    if not out.is_file():
        return {}, []
    text = out.read_text(encoding="utf-8")
    tuned = parse_weights_file(text, str(out))
    document = json.loads(text)
    try:
        with contextlib.redirect_stderr(io.StringIO()):     # argparse prints its usage before it exits
            made = parser.parse_args(document["command"].split()[3:])   # after "python -m <module>"
    except (SystemExit, KeyError, AttributeError):
        raise ConfigError(f"{out}: its recorded command ({document.get('command')!r}) is not one this version can "
                          "read; remove the file or choose another --out") from None
    same = {n for n in tuned if settings_of(n, made) == settings_of(n, args)}
    return {n: tuned[n] for n in same}, [row for row in document["training"] if row["players"] in same]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cavekit.analysis.caverna.train_weights",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--generations", type=int, default=25, help="cross-entropy generations (default 25)")
    parser.add_argument("--population", type=int, default=24, help="candidates per generation (default 24)")
    parser.add_argument("--games", type=int, default=40, help="games each candidate plays (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--players", type=int, nargs="+", default=[1, 2, 3, 4, 5, 7], choices=range(1, 8),
                        metavar="{1..7}", help="player counts to tune (default 1 2 3 4 5 7)")
    parser.add_argument("--pilot-generations", type=int, default=0,
                        help="solo: generations refining the weights for caverna_pilot (default 0: none)")
    parser.add_argument("--pilot-games", type=int, default=3, help="solo games each pilot candidate plays (default 3)")
    parser.add_argument("--solo-restarts", type=int, default=1,
                        help="solo: run the greedy stage this many times (from seed, seed + 1, ...) and keep the "
                             "result the level-2 pilot plays best (default 1)")
    parser.add_argument("--select-games", type=int, default=10,
                        help="solo games that judge each restart (default 10; used with --solo-restarts)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the weights file (default the package's "
                                                                      f"{WEIGHTS_FILE})")
    parser.add_argument("--resume", action="store_true", help="keep the player counts that --out already holds "
                                                                 "from a command with the same settings")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    if min(args.generations, args.population, args.games, args.jobs, args.pilot_games, args.solo_restarts,
           args.select_games) < 1 or min(args.seed, args.pilot_generations) < 0:
        parser.error("--generations, --population, --games, --pilot-games, --solo-restarts, --select-games and "
                     "--jobs must be at least 1, --seed and --pilot-generations at least 0")
    players = sorted(set(args.players))
    command = (f"python -m cavekit.analysis.caverna.train_weights --generations {args.generations} "
               f"--population {args.population} --games {args.games} --seed {args.seed} "
               f"--players {' '.join(map(str, players))}")
    if args.pilot_generations:
        command += f" --pilot-generations {args.pilot_generations} --pilot-games {args.pilot_games}"
    if args.solo_restarts > 1:
        command += f" --solo-restarts {args.solo_restarts} --select-games {args.select_games}"
    try:
        kept, kept_history = reusable(args.out, args, parser) if args.resume else ({}, [])
    except ConfigError as error:
        parser.error(f"--resume: {error}")
    tuned, history = {}, []
    for n in players:
        if n in kept:
            tuned[n] = kept[n]
            history += [row for row in kept_history if row["players"] == n]
            print(f"{n} player(s): kept from {args.out}")
            continue
        if n == 1 and args.solo_restarts > 1:
            tuned[n], figures = restarted_greedy_stage(args.solo_restarts, args.select_games, args.generations,
                                                       args.population, args.games, args.seed, args.jobs,
                                                       not args.quiet)
        else:
            tuned[n], figures = cross_entropy(n, args.generations, args.population, args.games, args.seed,
                                              args.jobs, not args.quiet)
        history += figures
        if n == 1 and args.pilot_generations:
            tuned[n], figures = cross_entropy(n, args.pilot_generations, args.population, args.pilot_games, args.seed,
                                              args.jobs, not args.quiet, start=tuned[n], agent=PILOT)
            history += figures
    document = weights_document(tuned, history, command)
    parse_weights_file(json.dumps(document), str(args.out))          # what is written must load
    try:
        args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        parser.error(f"cannot write {args.out}: {error.strerror}")
    for row in history:
        print(", ".join(f"{k} {v}" for k, v in row.items()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
