"""The Cave, played with the Pairs deck (2 to 6 players)."""
from .game import ThePairsCave

__all__ = ["ThePairsCave"]
