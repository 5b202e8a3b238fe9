"""Caverna: Cave vs Cave (two players and solo)."""
from .game import CaveVsCave

__all__ = ["CaveVsCave"]
