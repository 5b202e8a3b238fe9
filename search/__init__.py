"""Agents that play any cavekit game through the common API, built from spec strings by `make_agent`.

The generic agents (random, greedy, mcts, expectimax) are defined here; every registered game's own agents
are registered by importing the modules its spec lists under `agents`.
"""
from ..core.registry import game_specs
from . import mcts  # noqa: F401  (registers "mcts")
from .agent import (Agent, RandomAgent, agent_names, game_presets, import_agent_modules, make_agent, register_agent,
                    resolve_preset)
from .expectimax import ExpectimaxAgent    # registers "expectimax"
from .greedy import GreedyAgent            # registers "greedy"
from .turn_search import TurnSearch

# the compiled searches over the engine interface (core/engine.pxd, every compiled engine), then each game's own
import_agent_modules(["cavekit.search.compiled_mcts", *(module for spec in game_specs() for module in spec.agents)])

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "ExpectimaxAgent", "TurnSearch", "agent_names", "game_presets",
           "make_agent", "register_agent", "resolve_preset"]
