"""Train the learned Cave vs Cave value (`search/cvc_value.py`) from self-play, reproducibly from one seed.

Fitted value iteration on play-out targets. Each iteration plays `--games` self-play games with the greedy
policy (`cvc_planner.GreedyPolicy`, a random one of its eight best segments on three turns in ten), on the
hand-written heuristic in iteration 1 and on the previous iteration's fit after that. At every turn start
the mover's `--candidates` best segment ends (the planner's candidates) are each played out to the end on
`--futures` deals sampled from what is still hidden, by the same greedy policy: each end is a sample, its
`value_features`, share of turns left and points scored with the mean final score as the target. Fitting the
ends a decision chooses between, not only the positions the policy reaches, is what makes the value rank
choices: a value fitted to final scores along the policy's own games only (tried first) made greedy play
worse (42.4 points against 44.2). The weights are the ridge least-squares fit of (target - points) on the
features times the share of turns left and times its square. Two players also fit `scale`, the lead in
expected points that makes tanh(lead / scale) predict the winner best (maximum likelihood, draws half).

The models are then refined by policy search (`--search-generations`): the cross-entropy method on the
weights, each candidate judged by greedy play with it on `--search-games` games (new deals each generation,
the same for every candidate of one generation). A fit predicts outcomes; the search asks directly which
weights make greedy play do best, which is what the searchers need. Solo, it starts from the fit and a
candidate's fitness is greedy play's mean final score. With two players it starts from the hand-written
heuristic, since the two-player fit lost to it (`cvc_turn_mcts:iterations=500` with it won 8 of 20 games against
the same search on the heuristic, 2026-12-04), and moves only the weights of each seat's own goods and cave
(`searched_weights`); a candidate's fitness is the mean point lead of greedy play with it
(`cvc_expectimax:depth=1,value=...`) over `greedy`, the heuristic's, on duplicate deals (`greedy_margin`).
The shipped file's command (below the example) took about 45 min on 2 cores (2026-12-05); its two-player search
moved greedy play's lead from +0.45 points a game (the heuristic) to +5.4 to +7.9 (generations 16-20's means,
each on its generation's 20 new deals); a first scratch run of the same search (120 games a candidate, 36
weights) reached +3 in four generations.

    python -m cavekit.analysis.cvc.train_value --games 30 --iterations 2 --seed 0 --jobs 2
    python -m cavekit.analysis.cvc.train_value --games 20 --iterations 2 --candidates 8 --futures 2 --seed 0 \
        --search-generations 20 --search-population 24 --search-games 40 --players 1 2 --jobs 2   # the shipped file

writes `search/data/cvc_value.json` (with `--out`, another file) holding both player counts' weights, the
command that made them and each iteration's mean score and fit. Game i of iteration k is played on deal
`deal_seed(seed + k, i)` and its choices are seeded from the same number, so the file depends on the seed and
the arguments only (not on `--jobs`); weights are rounded to 6 decimals so that the last bits of a machine's
linear algebra do not change the games of the next iteration.

Tried and dropped (2026-12-05, solo, a scratch script on the shipped value): imitating the planner. At each
decision of a game the first 32 segment ends in `rank_ends` order were each described by the value's inputs
(points, and the features times the share of turns left and its square, averaged over a room turned up), and a
conditional logit (softmax over the ends; ridge towards the shipped weights, or a residual network of 8 or 32
tanh units on the standardised features and share) was fitted to the end the teacher chose; deals split 70/30.
- Teacher `cvc_plan:value=learned` told the deal (55.5 points on those deals), 100 deals, 2,506 decisions: it
  takes the value's own best end in 89% of them. Held out, the refits agree with it less than the shipped value
  does (linear 78-79%, network 60-76%, against 89%); fitted as greedy play's value and iterated (60 deals an
  iteration), greedy play scored 48.9 and 48.5 on 200 other deals, against 48.8 with the shipped value.
- Teacher `strongest` (8 candidates x 8 sampled futures, 52.9 on those deals), 40 deals, 972 decisions: it
  takes the value's best end in 52%. Where it departs, it keeps goods (+0.9 food, +0.3 wood, +0.3 stone, a room
  it can afford in the display) for 1.2 points fewer scored so far; held out, no refit predicts its choices
  better than the shipped value (44-53% against 54%).
The teacher's departures are not predictable from these features (told, they read the deal; not told, they are
mostly the noise of eight sampled futures), so imitation gives the greedy play-outs nothing that the
cross-entropy search on their score has not; a better value needs inputs this one lacks.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from joblib import delayed
from tqdm import tqdm

from ...core import load_game
from ..batch import in_workers, play_numbered
from ..cross_entropy import elite_update
from ...core.api import CHANCE
from ...core.deal import deal_seed, new_deal
from ...search.cvc_evaluation import compiled_value_features
from ...search.cvc_planner import GreedyPolicy, Planner, future_of_deal, sample_future
from ...search.cvc_value import VALUE_FEATURES, VALUE_FILE, parse_value_file, points_scored
from ...search.cvc_heuristic import CVC_DIFFERENCE_SCALE, CVC_WEIGHTS, cvc_turns_left_share

PLAYER_COUNTS = (1, 2)
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "search" / "data" / VALUE_FILE
EXPLORE = 0.3           # share of turns that take a random one of the TOP_EXPLORE best segments
TOP_EXPLORE = 8
RIDGE = 1e-3            # ridge penalty per sample on every weight
SCALES = tuple(round(2.0 + 0.5 * k, 1) for k in range(37))     # candidate two-player scales, 2 to 20 points
DECIMALS = 6
ELITE = 4               # the policy search keeps the best quarter of each generation
SMOOTHING = 0.7         # share of the new mean and spread taken from the elite (the rest kept)
MIN_SPREAD = 0.05
START_SPREAD = {1: 0.5, 2: 0.3}   # the policy search's first spread per weight (the heuristic's are 0.25 to 1.5)
SHARED_FEATURES = ("wall_supply", "display_rooms", "display_vp", "cavern_open", "constant")   # and tile:*
HEURISTIC_FEATURE = {"built_wall": "own_walls"}     # the heuristic's feature names that the value names otherwise


def play_game(players: int, value: str, master_seed: int, index: int, candidates: int, futures: int
              ) -> dict[str, Any]:
    """One self-play game on deal `deal_seed(master_seed, index)`, with the samples of its turn starts.

    At each turn start the mover's `candidates` best segment ends are each played out on `futures` sampled
    deals (`cvc_planner.Planner`, scoring the mover's final points): each end is a sample, its target the mean
    final score. `leads` holds both players' features at each turn start and `returns` the result, for the
    two-player scale.
    """
    game = load_game("cvc", players=players)
    seed = deal_seed(master_seed, index)
    deal = new_deal(game, seed)
    rng = np.random.default_rng(seed)
    policy = GreedyPolicy(value=value, players=players)
    planner = Planner(candidates=candidates, value=value, players=players, own_score=True)
    state = game.new_initial_state()
    rows: list[tuple[list[float], float, float, float]] = []       # (features, share, points, target)
    leads: list[tuple[list[list[float]], float, list[float]]] = []   # (features by seat, share, points by seat)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state))
            continue
        player = state.current_player()
        if state.to_dict()["tile"] < 0:           # a turn start (not a turn resumed after a room was turned up)
            sampled = np.stack([sample_future(state, rng) for _ in range(futures)])
            for child in planner.search(state, sampled):
                end = state.clone()
                for action in child["actions"]:
                    end.apply_action(action)
                rows.append((compiled_value_features(end, player), cvc_turns_left_share(end),
                             float(points_scored(end.to_dict(), player)), child["value"]))
            d = state.to_dict()
            leads.append(([compiled_value_features(state, p) for p in range(players)], cvc_turns_left_share(state),
                          [float(points_scored(d, p)) for p in range(players)]))
        segments = policy.best_segments(state, TOP_EXPLORE)
        pick = int(rng.integers(len(segments))) if len(segments) > 1 and rng.random() < EXPLORE else 0
        for action in segments[pick]:
            state.apply_action(action)
    return {"rows": rows, "leads": leads, "scores": [float(x) for x in state.scores()],
            "returns": [float(x) for x in state.returns()]}


def design(features: np.ndarray, share: np.ndarray) -> np.ndarray:
    """The regression's inputs: every feature times the share of turns left, then times its square."""
    return np.hstack([features * share[:, None], features * (share ** 2)[:, None]])


def fit_weights(games: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """Ridge least squares of (target - points) on the design; the two weight vectors and the fit."""
    rows = [row for g in games for row in g["rows"]]
    x = design(np.asarray([r[0] for r in rows]), np.asarray([r[1] for r in rows]))
    y = np.asarray([r[3] - r[2] for r in rows])
    gram = x.T @ x + RIDGE * len(y) * np.eye(x.shape[1])
    w = np.linalg.solve(gram, x.T @ y).round(DECIMALS)
    residual = y - x @ w
    n = len(VALUE_FEATURES)
    stats = {"samples": len(y), "rmse": float(np.sqrt(np.mean(residual ** 2))),
             "r2": float(1 - residual.var() / y.var()) if y.var() > 0 else 1.0}
    return w[:n], w[n:], stats


def fit_scale(games: list[dict[str, Any]], by_share: np.ndarray, by_share2: np.ndarray) -> float:
    """The two-player scale whose tanh(lead / scale) gives the results the highest likelihood."""
    leads, results = [], []
    for g in games:
        for features, share, points in g["leads"]:
            expected = [p + share * np.dot(by_share, f) + share * share * np.dot(by_share2, f)
                        for f, p in zip(features, points)]
            leads.append(expected[0] - expected[1])
            results.append((g["returns"][0] + 1) / 2)      # 1 win, 1/2 draw, 0 loss for seat 0
    leads_a, results_a = np.asarray(leads), np.asarray(results)

    def log_likelihood(scale: float) -> float:
        p = np.clip((1 + np.tanh(leads_a / scale)) / 2, 1e-6, 1 - 1e-6)
        return float(np.sum(results_a * np.log(p) + (1 - results_a) * np.log(1 - p)))

    return max(SCALES, key=log_likelihood)


def train(players: int, games: int, iterations: int, seed: int, jobs: int, progress: bool, workdir: Path,
          candidates: int, futures: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fitted value iteration for one player count: the final model's entry and each iteration's figures."""
    value = "heuristic"
    history: list[dict[str, Any]] = []
    entry: dict[str, Any] = {}
    for k in range(iterations):
        calls = (delayed(play_game)(players, value, seed + k, i, candidates, futures) for i in range(games))
        bar = tqdm(total=games, disable=not progress, unit="game", desc=f"cvc value, {players}p, iteration {k + 1}")
        played = []
        for result in in_workers(calls, jobs, ordered=True):
            played.append(result)
            bar.update()
        bar.close()
        by_share, by_share2, stats = fit_weights(played)
        scale = fit_scale(played, by_share, by_share2) if players == 2 else 10.0
        entry = {"by_share": by_share.tolist(), "by_share2": by_share2.tolist(), "scale": scale}
        mean = float(np.mean([g["scores"] for g in played]))
        history.append({"iteration": k + 1, "policy": "heuristic" if k == 0 else f"iteration {k}'s fit",
                        "games": games, "mean_score": round(mean, 3),
                        **{key: round(v, 4) if isinstance(v, float) else v for key, v in stats.items()},
                        "scale": scale})
        path = workdir / f"value-{players}p-{k + 1}.json"
        path.write_text(json.dumps(value_file({players: entry}, [], "")))
        value = str(path)
    return entry, history


def greedy_solo_score(value: str, seed: int, games: int) -> float:
    """Mean final score of greedy play (the planner's play-out policy) with `value` on the solo deals
    `deal_seed(seed, i)`, i < games; deterministic, so candidates are compared on the same play."""
    game = load_game("cvc", players=1)
    planner = Planner(candidates=1, value=value, players=1, own_score=True)
    total = 0.0
    for i in range(games):
        deal = new_deal(game, deal_seed(seed, i))
        state = game.new_initial_state()
        while state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state))
        total += planner.search(state, np.stack([future_of_deal(deal)]))[0]["value"]
    return total / games


def greedy_margin(value: str, seed: int, games: int) -> float:
    """Mean point lead of greedy play with `value` (`cvc_expectimax:depth=1`) over `greedy` (the heuristic) in
    games 0 .. games-1 of a duplicate two-player match of master seed `seed` (as `cavekit match --duplicate`
    plays them: deal i // 2, the seats swapped every game), so candidates are compared on the same deals."""
    game = load_game("cvc", players=2)
    spec = f"cvc_expectimax:depth=1,value={value}"
    lead = 0.0
    for i in range(games):
        row = play_numbered(game, [spec, "greedy"], seed, i, duplicate=True)
        seat = 0 if row["agent_0"] == spec else 1
        lead += row[f"score_{seat}"] - row[f"score_{1 - seat}"]
    return lead / games


def searched_weights(players: int) -> np.ndarray:
    """Indices (into by_share then by_share2) of the weights the policy search moves: solo every one; with two
    players those of each seat's own goods and cave but its rooms (features both seats share, such as the
    display and the tiles face up, cancel in the lead, and a room's worth is mostly the points it scored)."""
    n = len(VALUE_FEATURES)
    if players == 1:
        return np.arange(2 * n)
    own = [i for i, name in enumerate(VALUE_FEATURES)
           if name not in SHARED_FEATURES and not name.startswith(("tile:", "room:"))]
    return np.asarray(own + [n + i for i in own])


def policy_search(entry: dict[str, Any], generations: int, population: int, games: int, seed: int, jobs: int,
                  progress: bool, workdir: Path, players: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Refine a model by the cross-entropy method on greedy play (see the module doc): solo on its score, with
    two players on its lead over the heuristic's greedy play (`greedy_margin`)."""
    start = np.asarray(entry["by_share"] + entry["by_share2"])
    moved = searched_weights(players)
    mean = start[moved]
    spread = np.full(len(mean), START_SPREAD[players])
    rng = np.random.default_rng(seed)
    score = greedy_solo_score if players == 1 else greedy_margin

    def model(x: np.ndarray) -> dict[str, Any]:
        weights = start.copy()
        weights[moved] = x
        return model_entry(weights, entry["scale"])

    history = []
    for g in range(generations):
        deals_seed = seed + 1000 + g
        candidates = [(mean + spread * rng.standard_normal(len(mean))).round(DECIMALS) for _ in range(population)]
        paths = []
        for k, weights in enumerate([mean, *candidates]):
            path = workdir / f"search-{players}p-{g}-{k}.json"
            path.write_text(json.dumps(value_file({players: model(weights)}, [], "")))
            paths.append(str(path))
        calls = (delayed(score)(path, deals_seed, games) for path in paths)
        bar = tqdm(total=len(paths), disable=not progress, unit="candidate",
                   desc=f"cvc value search, {players}p, generation {g + 1}")
        scores = []
        for result in in_workers(calls, jobs, ordered=True):
            scores.append(result)
            bar.update()
        bar.close()
        fitness = np.asarray(scores[1:])
        mean, spread, elite = elite_update(mean, spread, candidates, fitness, elite_share=ELITE, smoothing=SMOOTHING,
                                           min_spread=MIN_SPREAD, decimals=DECIMALS)
        history.append({"generation": g + 1, "games": games, "mean_before": round(scores[0], 3),
                        "best_candidate": round(float(fitness.max()), 3),
                        "elite_mean": round(float(np.sort(fitness)[-len(elite):].mean()), 3),
                        "spread": round(float(spread.mean()), 4)})
    return model(mean), history


def heuristic_entry() -> dict[str, Any]:
    """The hand-written heuristic as a model: its weights on the same features, nothing on the share squared,
    its two-player scale (it evaluates every position exactly as `value=heuristic` does)."""
    weights = np.zeros(2 * len(VALUE_FEATURES))
    for name, weight in CVC_WEIGHTS.items():
        weights[VALUE_FEATURES.index(HEURISTIC_FEATURE.get(name, name))] = weight
    return model_entry(weights, CVC_DIFFERENCE_SCALE)


def model_entry(weights: np.ndarray, scale: float) -> dict[str, Any]:
    """A model's entry from its weights (by_share then by_share2) and two-player scale."""
    n = len(VALUE_FEATURES)
    return {"by_share": [float(w) for w in weights[:n]], "by_share2": [float(w) for w in weights[n:]],
            "scale": float(scale)}


def value_file(models: dict[int, dict[str, Any]], history: list[dict[str, Any]], command: str) -> dict[str, Any]:
    """The JSON document of a value file."""
    return {"format": "cavekit cvc value", "version": 1, "command": command, "features": list(VALUE_FEATURES),
            "models": {str(p): models[p] for p in sorted(models)}, "training": history}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cavekit.analysis.cvc.train_value",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="self-play games per iteration (default 400)")
    parser.add_argument("--iterations", type=int, default=3, help="fitted value iterations (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    parser.add_argument("--candidates", type=int, default=8, help="segment ends sampled per turn start (default 8)")
    parser.add_argument("--futures", type=int, default=2, help="play-outs per sampled end (default 2)")
    parser.add_argument("--search-generations", type=int, default=0,
                        help="cross-entropy generations refining the model (default 0: none)")
    parser.add_argument("--search-population", type=int, default=24, help="candidates per generation (default 24)")
    parser.add_argument("--search-games", type=int, default=40, help="games each candidate plays (default 40)")
    parser.add_argument("--players", type=int, nargs="+", default=list(PLAYER_COUNTS), choices=PLAYER_COUNTS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the value file (default the package's {VALUE_FILE})")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    if (min(args.games, args.iterations, args.jobs, args.candidates, args.futures, args.search_population,
            args.search_games) < 1 or args.seed < 0 or args.search_generations < 0):
        parser.error("--games, --iterations, --jobs, --candidates, --futures, --search-population and "
                     "--search-games must be at least 1, --seed and --search-generations at least 0")
    if 2 in args.players and args.search_generations and args.search_games % 2:
        parser.error(f"--search-games must be even with two players (each deal is played with both seatings), "
                     f"not {args.search_games}")
    settings = (("games", args.games), ("iterations", args.iterations), ("candidates", args.candidates),
                ("futures", args.futures), ("seed", args.seed))
    if args.search_generations:
        settings += (("search-generations", args.search_generations), ("search-population", args.search_population),
                     ("search-games", args.search_games))
    command = ("python -m cavekit.analysis.cvc.train_value " + " ".join(f"--{k} {v}" for k, v in settings)
               + f" --players {' '.join(map(str, args.players))}")
    models, history = {}, []
    with tempfile.TemporaryDirectory() as scratch:
        for players in args.players:
            models[players], figures = train(players, args.games, args.iterations, args.seed, args.jobs,
                                             not args.quiet, Path(scratch), args.candidates, args.futures)
            history += [{"players": players, **row} for row in figures]
            if args.search_generations:
                # Two players start from the heuristic, which the fit does not beat (see the module doc).
                start = models[1] if players == 1 else heuristic_entry()
                models[players], figures = policy_search(start, args.search_generations, args.search_population,
                                                         args.search_games, args.seed, args.jobs, not args.quiet,
                                                         Path(scratch), players)
                history += [{"players": players, **row} for row in figures]
    document = value_file(models, history, command)
    parse_value_file(json.dumps(document), str(args.out))          # what is written must load
    args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    for row in history:
        print(", ".join(f"{k} {v}" for k, v in row.items()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
