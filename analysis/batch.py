"""Play batches of seeded games between agents and summarise them.

Every random choice flows from one master seed: game i gets the i-th child of `SeedSequence(seed)`, which
seeds its chance events and each seat's agent, so a game's result never depends on how a batch is split.
"""
from __future__ import annotations

import math
import time
from typing import Any, Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from ..core.api import CHANCE, ConfigError, Game, sample_chance_outcome
from ..core.registry import load_game
from ..search.agent import make_agent


def play_game(game: Game, agent_specs: Sequence[str], seed: np.random.SeedSequence) -> dict[str, Any]:
    """Play one game; `agent_specs[p]` plays seat p. Returns one result row."""
    chance_seed, *agent_seeds = seed.spawn(1 + game.num_players)
    chance_rng = np.random.default_rng(chance_seed)
    agents = [make_agent(spec, game, seed=s) for spec, s in zip(agent_specs, agent_seeds)]
    state = game.new_initial_state()
    first_player = -1
    decisions = 0
    started = time.perf_counter()
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = sample_chance_outcome(state.chance_outcomes(), chance_rng.random())
        else:
            if first_player < 0:
                first_player = player
            action = agents[player].step(state)
            decisions += 1
        state.apply_action(action)
    row: dict[str, Any] = {"first_player": first_player, "decisions": decisions,
                           "length": len(state.history()), "seconds": time.perf_counter() - started}
    scores, returns = state.scores(), state.returns()
    for p in range(game.num_players):
        row[f"agent_{p}"] = agent_specs[p]
        row[f"score_{p}"] = scores[p]
        row[f"return_{p}"] = returns[p]
    return row


def _play_numbered(game_name: str, game_params: dict[str, Any], agent_specs: Sequence[str], seed: int,
                   index: int) -> dict[str, Any]:
    """Game `index` of a match: seats rotated by the index, randomness from the index-th child seed."""
    game = load_game(game_name, **game_params)
    shift = index % game.num_players
    seats = [agent_specs[(p + shift) % game.num_players] for p in range(game.num_players)]
    child = np.random.SeedSequence(seed, spawn_key=(index,))
    row = play_game(game, seats, child)
    row["game"] = index
    return row


def run_match(game_name: str, agent_specs: Sequence[str], games: int, seed: int, progress: bool = True,
              jobs: int = 1, **game_params: Any) -> pd.DataFrame:
    """Play `games` games, rotating the agents through the seats; one row per game, in game order.

    Game i's randomness comes from child i of the master seed, so the rows are the same for any `jobs`.
    """
    game = load_game(game_name, **game_params)
    if games < 1:
        raise ConfigError(f"a match needs at least 1 game, not {games}")
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs}")
    if len(agent_specs) != game.num_players:
        raise ConfigError(f"{game_name} with {game.num_players} player(s) needs {game.num_players} agent "
                          f"spec(s), got {len(agent_specs)}")
    for spec in agent_specs:
        make_agent(spec, game)      # refuse a bad spec before playing anything
    params = dict(game_params)
    bar = tqdm(total=games, disable=not progress, unit="game", desc=f"{game_name} match")
    if jobs == 1:
        rows = []
        for i in range(games):
            rows.append(_play_numbered(game_name, params, agent_specs, seed, i))
            bar.update()
    else:
        from joblib import Parallel, delayed
        tasks = (delayed(_play_numbered)(game_name, params, agent_specs, seed, i) for i in range(games))
        rows = []
        for row in Parallel(n_jobs=jobs, backend="loky", return_as="generator")(tasks):
            rows.append(row)
            bar.update()
    bar.close()
    return pd.DataFrame(rows)


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws may count as half successes)."""
    if trials == 0:
        return (math.nan, math.nan)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (centre - half, centre + half)


def summarize(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per-agent results and the first-player advantage of a two-player batch; score spread when solo."""
    players = sum(1 for c in results.columns if c.startswith("agent_"))
    long = pd.concat([pd.DataFrame({"agent": results[f"agent_{p}"], "seat": p, "score": results[f"score_{p}"],
                                    "ret": results[f"return_{p}"], "first": results["first_player"] == p})
                      for p in range(players)], ignore_index=True)
    tables: dict[str, pd.DataFrame] = {}
    if players == 1:
        scores = long["score"]
        tables["solo scores"] = pd.DataFrame({
            "games": [len(scores)], "mean": [scores.mean()], "median": [scores.median()],
            "max": [scores.max()], "share >= 50": [(scores >= 50).mean()], "share > 60": [(scores > 60).mean()]})
        return tables
    rows = []
    for agent, group in long.groupby("agent"):
        wins, draws = int((group["ret"] > 0).sum()), int((group["ret"] == 0).sum())
        lo, hi = wilson_interval(wins + draws / 2, len(group))
        rows.append({"agent": agent, "games": len(group), "wins": wins, "draws": draws,
                     "losses": len(group) - wins - draws, "score_rate": (wins + draws / 2) / len(group),
                     "ci95_low": lo, "ci95_high": hi, "mean_score": group["score"].mean()})
    tables["agents"] = pd.DataFrame(rows).set_index("agent")
    first = long[long["first"]]
    wins, draws = int((first["ret"] > 0).sum()), int((first["ret"] == 0).sum())
    lo, hi = wilson_interval(wins + draws / 2, len(first))
    tables["first player"] = pd.DataFrame({
        "games": [len(first)], "first_player_score_rate": [(wins + draws / 2) / max(1, len(first))],
        "ci95_low": [lo], "ci95_high": [hi], "draws": [draws]})
    return tables
