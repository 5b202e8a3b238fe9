"""Tune the Cave vs Cave evaluation weights by hill climbing on the compiled MCTS's solo score.

Every candidate plays the same solo deals (`cavekit.core.deal`: deal (seed, i) for game i, whatever the
moves), so differences come from the weights, not the deal. Run: `python -m cavekit.analysis.cvc.tune --rounds 3 --games 16 --iterations 3000`;
it prints the best weights, to be copied into `search/evaluation.py` with the command line that found them.
"""
from __future__ import annotations

import argparse
import json

from ...core.api import CHANCE
from ...core.deal import deal_seed, new_deal
from ...core.registry import load_game
from ...search import cvc_evaluation, cvc_mcts
from ...search.cvc_heuristic import CVC_WEIGHTS


def solo_mean_score(weights: dict[str, float], games: int, iterations: int, seed: int) -> float:
    """Mean final score of compiled MCTS (heuristic leaves) with these weights over seeded solo games."""
    cvc_evaluation.set_weights(weights)
    game = load_game("cvc", players=1)
    total = 0
    for i in range(games):
        deal = new_deal(game, deal_seed(seed, i))
        agent = cvc_mcts.CompiledMCTSAgent(game, seed=i, iterations=iterations, rollout="none")
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(deal.outcome(state))
            else:
                state.apply_action(agent.step(state))
        total += state.scores()[0]
    cvc_evaluation.set_weights(CVC_WEIGHTS)
    return total / games


def hill_climb(rounds: int, games: int, iterations: int, seed: int,
               start: dict[str, float] | None = None) -> tuple[dict[str, float], float]:
    """Try each weight up and down in turn, keeping any change that raises the mean solo score."""
    best = dict(CVC_WEIGHTS, **(start or {}))
    best_score = solo_mean_score(best, games, iterations, seed)
    print(f"start {best_score:.2f} {json.dumps(best)}", flush=True)
    step = 0.5
    for r in range(rounds):
        for name in best:
            for candidate in (best[name] + step * max(1.0, best[name]), max(0.0, best[name] - step * max(1.0, best[name]))):
                trial = dict(best, **{name: round(candidate, 3)})
                score = solo_mean_score(trial, games, iterations, seed)
                if score > best_score:
                    best, best_score = trial, score
                    print(f"round {r} {name}={trial[name]} -> {score:.2f}", flush=True)
        step /= 2
    return best, best_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=json.loads, default=None, help="JSON weights to start from")
    args = parser.parse_args()
    weights, score = hill_climb(args.rounds, args.games, args.iterations, args.seed, args.start)
    print(json.dumps({"mean_solo_score": score, "weights": weights}))


if __name__ == "__main__":
    main()
