"""Agents that play any cavekit game through the common API, built from spec strings by `make_agent`."""
from . import cvc_expectimax, cvc_mcts, cvc_turn_mcts, mcts  # noqa: F401  (register the compiled agents, "mcts")
from .agent import Agent, RandomAgent, agent_names, make_agent, register_agent
from .expectimax import ExpectimaxAgent    # registers "expectimax"
from .greedy import GreedyAgent            # registers "greedy"
from . import pairs_agents  # noqa: F401  (registers "pairs_heuristic" and the pairs evaluator)
from . import cavum_agents  # noqa: F401  (registers "cavum_heuristic" and the cavum evaluator)
from . import caverna_agents  # noqa: F401  (registers "caverna_heuristic" and the caverna evaluator)
from .turn_search import TurnSearch

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "ExpectimaxAgent", "TurnSearch", "agent_names", "make_agent",
           "register_agent"]
