"""Agents that play any cavekit game through the common API."""
from .agent import Agent, RandomAgent, agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
