"""Cavum (Kramer & Kiesling, 2008): tunnels, veins, stations and gem sales, for 2 to 4 players."""
from .game import Cavum

__all__ = ["Cavum"]
