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

    python -m cavekit.analysis.cvc.train_value --games 30 --iterations 2 --seed 0 --jobs 2

writes `search/data/cvc_value.json` (with `--out`, another file) holding both player counts' weights, the
command that made them and each iteration's mean score and fit. Game i of iteration k is played on deal
`deal_seed(seed + k, i)` and its choices are seeded from the same number, so the file depends on the seed and
the arguments only (not on `--jobs`); weights are rounded to 6 decimals so that the last bits of a machine's
linear algebra do not change the games of the next iteration.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from tqdm import tqdm

from ...core import load_game
from ...core.api import CHANCE
from ...core.deal import deal_seed, new_deal
from ...search.cvc_evaluation import compiled_value_features
from ...search.cvc_planner import GreedyPolicy, Planner, sample_future
from ...search.cvc_value import VALUE_FEATURES, VALUE_FILE, parse_value_file, points_scored
from ...search.cvc_heuristic import cvc_turns_left_share

PLAYER_COUNTS = (1, 2)
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "search" / "data" / VALUE_FILE
EXPLORE = 0.3           # share of turns that take a random one of the TOP_EXPLORE best segments
TOP_EXPLORE = 8
RIDGE = 1e-3            # ridge penalty per sample on every weight
SCALES = tuple(round(2.0 + 0.5 * k, 1) for k in range(37))     # candidate two-player scales, 2 to 20 points
DECIMALS = 6


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
        for result in Parallel(n_jobs=jobs, return_as="generator")(calls):
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
    parser.add_argument("--players", type=int, nargs="+", default=list(PLAYER_COUNTS), choices=PLAYER_COUNTS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the value file (default the package's {VALUE_FILE})")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    if min(args.games, args.iterations, args.jobs, args.candidates, args.futures) < 1 or args.seed < 0:
        parser.error("--games, --iterations, --jobs, --candidates and --futures must be at least 1, --seed at least 0")
    settings = (("games", args.games), ("iterations", args.iterations), ("candidates", args.candidates),
                ("futures", args.futures), ("seed", args.seed))
    command = ("python -m cavekit.analysis.cvc.train_value " + " ".join(f"--{k} {v}" for k, v in settings)
               + f" --players {' '.join(map(str, args.players))}")
    models, history = {}, []
    with tempfile.TemporaryDirectory() as scratch:
        for players in args.players:
            models[players], figures = train(players, args.games, args.iterations, args.seed, args.jobs,
                                             not args.quiet, Path(scratch), args.candidates, args.futures)
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
