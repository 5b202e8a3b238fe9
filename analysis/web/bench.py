"""How long a person waits for the AI's move in `cavekit serve`: `python -m cavekit.analysis.web.bench`.

Plays `--games` games in which one seat is the AI at `--ai` (a difficulty or agent spec) and the other seats
play `--opponent` (default easy), and times every AI turn exactly as the server runs it: `worker.ai_turn` on
the position's record (rebuilding the position, the agent's search over all its decisions of the turn, the
chance events the turn turns up). One process, one core. Prints the distribution of the seconds per AI turn,
wall clock (what the person waits on this machine now) and CPU (what another process's load does not
inflate), or one JSON object with `--json`.
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from ...core.api import CHANCE
from ...core.registry import default_game_name, game_names, load_game
from ...search.agent import make_agent, resolve_preset
from ..play import chance_outcome, session_deal
from . import worker


def bench_ai_moves(game_name: str | None = None, ai: str = "medium", opponent: str = "easy", games: int = 3,
                   players: int | None = None, seed: int = 0) -> dict[str, Any]:
    """Time every AI turn of `games` games (the AI in seat g mod players of game g); seconds per turn. The
    game defaults to the kit's flagship (Cave vs Cave)."""
    game_name = game_name or default_game_name()
    game = load_game(game_name, **({} if players is None else {"players": players}))
    spec = resolve_preset(ai, game)
    params = json.dumps(game.parameters(), sort_keys=True)
    hidden = bool(getattr(game, "hidden_information", False))
    turns: list[float] = []
    cpu: list[float] = []
    decisions = 0
    for g in range(games):
        session_seed = seed + g
        ai_seat = g % game.num_players
        deal = session_deal(game, session_seed)
        others = make_agent(opponent, game, seed=np.random.SeedSequence(session_seed, spawn_key=(9,)))
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(chance_outcome(state, deal, session_seed))
            elif player == ai_seat:
                job = {"game": game_name, "params": params, "engine": game.engine, "record": state.serialize(),
                       "spec": spec, "seed": session_seed, "hidden": hidden}
                started, cpu_started = time.perf_counter(), time.process_time()
                answer = worker.ai_turn(job)
                turns.append(time.perf_counter() - started)
                cpu.append(time.process_time() - cpu_started)
                for action in answer["actions"]:
                    if state.current_player() != CHANCE:
                        decisions += 1
                    state.apply_action(action)
            else:
                state.apply_action(others.step(state))
    seconds, cpu_seconds = np.array(turns), np.array(cpu)
    return {"game": game_name, "players": game.num_players, "ai": ai, "agent": spec, "opponent": opponent,
            "games": games, "turns": len(turns), "decisions": decisions,
            "mean_s": float(seconds.mean()), "median_s": float(np.median(seconds)),
            "p90_s": float(np.percentile(seconds, 90)), "max_s": float(seconds.max()),
            "share_under_1s": float((seconds < 1.0).mean()), "total_s": float(seconds.sum()),
            "cpu_mean_s": float(cpu_seconds.mean()), "cpu_p90_s": float(np.percentile(cpu_seconds, 90)),
            "cpu_max_s": float(cpu_seconds.max()), "cpu_share_under_1s": float((cpu_seconds < 1.0).mean())}


def format_bench(result: dict[str, Any]) -> str:
    return (f"{result['game']}, {result['players']} players: AI {result['ai']} = {result['agent']} against "
            f"{result['opponent']}, {result['games']} games, {result['turns']} AI turns ({result['decisions']} "
            f"decisions)\nseconds per AI turn: mean {result['mean_s']:.3f}, median {result['median_s']:.3f}, "
            f"90th percentile {result['p90_s']:.3f}, max {result['max_s']:.3f}; "
            f"{100 * result['share_under_1s']:.0f}% of turns under 1 s\n"
            f"CPU seconds per AI turn (what load does not inflate): mean {result['cpu_mean_s']:.3f}, 90th percentile "
            f"{result['cpu_p90_s']:.3f}, max {result['cpu_max_s']:.3f}; {100 * result['cpu_share_under_1s']:.0f}% "
            "under 1 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cavekit.analysis.web.bench",
                                     description="Time the AI's turns as cavekit serve runs them.")
    parser.add_argument("--game", default=default_game_name(), choices=game_names())
    parser.add_argument("--ai", default="medium", help="difficulty or agent spec timed (default medium)")
    parser.add_argument("--opponent", default="easy", help="the other seats (default easy)")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = bench_ai_moves(args.game, args.ai, args.opponent, args.games, args.players, args.seed)
    print(json.dumps(result, indent=2) if args.json else format_bench(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
