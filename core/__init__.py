"""Rules engines and the shared game API."""
from .api import CHANCE, TERMINAL, ConfigError, CorruptRecordError, Game, IllegalActionError, State
from .registry import game_names, load_game, register_game

__all__ = ["CHANCE", "TERMINAL", "ConfigError", "CorruptRecordError", "Game", "IllegalActionError", "State",
           "game_names", "load_game", "register_game"]
