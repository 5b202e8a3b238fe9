"""What the browser's AI workers run: an AI's turn and a hint, each from a game record, in another process.

The web server never searches in its own process: the compiled searchers hold the interpreter lock for a
whole search, which would stall every other request. A job is plain data (game name, parameters as JSON,
engine, the position's record, the agent spec, the session seed), so it can go to a process pool; the worker
rebuilds the position from the record (replayed and checked, `deserialize_state`) and answers with plain data.

Seeds: the agent that plays at history position i for seat s is seeded from child (0, s, i, u) of the session
seed, where u counts the session's undos, and the hint agent from child (1, i); chance is resolved from the
deal and hidden information resampled as in terminal play (`cavekit.analysis.play`: `chance_outcome`,
`seen_by`). So an undo meets the same chance outcomes (the deal's: an undo cannot re-roll them) but an AI that
searches afresh: a seat cannot replay the AI's reply to learn what it holds.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict
from functools import lru_cache
from typing import Any

import numpy as np

from ...core.api import CHANCE, Game
from ...core.registry import load_game
from ...search.agent import make_agent
from ..batch import _exit_with_parent as exit_with_parent
from ..play import chance_outcome, hint_rows, hint_spec, seen_by, session_deal


@lru_cache(maxsize=16)
def cached_game(name: str, params: str, engine: str) -> Game:
    """The game `name` with the JSON-encoded parameters `params` on `engine`, loaded once per process."""
    return load_game(name, engine=engine, **json.loads(params))


@lru_cache(maxsize=16)
def _cached_deal(name: str, params: str, engine: str, seed: int) -> Any:
    return session_deal(cached_game(name, params, engine), seed)


def ai_turn(job: dict[str, Any]) -> dict[str, Any]:
    """Play the turn of the AI to move in `job["record"]`: its decisions and the chance events among and after
    them, until another player is to move or the game ends. Returns the actions (`actions`, in order) and the
    seconds the agent spent choosing (`seconds`)."""
    game = cached_game(job["game"], job["params"], job["engine"])
    deal = _cached_deal(job["game"], job["params"], job["engine"], job["seed"])
    state = game.deserialize_state(job["record"])
    seat = state.current_player()
    seed = job["seed"]
    stream = job.get("stream", 0)
    agent = make_agent(job["spec"], game, seed=np.random.SeedSequence(seed, spawn_key=(0, seat, len(state.history()),
                                                                                      stream)))
    actions: list[int] = []
    thinking = 0.0
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = chance_outcome(state, deal, seed)
        elif player == seat:
            started = time.perf_counter()
            action = int(agent.step(seen_by(state, seat, seed, job["hidden"], stream)))
            thinking += time.perf_counter() - started
        else:
            break
        state.apply_action(action)
        actions.append(action)
    return {"actions": actions, "seconds": thinking}


def hint(job: dict[str, Any]) -> dict[str, Any]:
    """The hint agent's evaluation of the decision in `job["record"]` (`cavekit.analysis.play.Hint` as a dict,
    and the `spec` that answered: the given one if it can analyse, else the fallback)."""
    game = cached_game(job["game"], job["params"], job["engine"])
    state = game.deserialize_state(job["record"])
    seat = state.current_player()
    seed = np.random.SeedSequence(job["seed"], spawn_key=(1, len(state.history())))
    agent = make_agent(job["spec"], game, seed=seed)
    spec = hint_spec(job["spec"], agent)
    if spec != job["spec"]:
        agent = make_agent(spec, game, seed=seed)
    result = hint_rows(agent, game, state, seen_by(state, seat, job["seed"], job["hidden"]), spec)
    return {**asdict(result), "spec": spec}


def start(parent: int) -> None:
    """A new worker process's initializer: end with the server `parent` even if it is killed outright (the
    batch runner's parent watch), and import everything the first move needs (the imports above: engines and
    every agent module, through `cavekit.search`) before that move is asked for."""
    if os.getppid() != parent:      # the server died while this process was importing
        os._exit(1)
    exit_with_parent(parent)
