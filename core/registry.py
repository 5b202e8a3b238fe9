"""The game registry: `load_game("cvc", players=2, engine="reference", **rule_options)`."""
from __future__ import annotations

from typing import Any, Callable

from .api import ConfigError, Game

_GAMES: dict[str, Callable[..., Game]] = {}


def register_game(name: str, factory: Callable[..., Game]) -> None:
    """Make `factory(**params)` available as `load_game(name, **params)`."""
    _GAMES[name] = factory


def game_names() -> list[str]:
    """Names of every registered game."""
    return sorted(_GAMES)


def load_game(name: str, **params: Any) -> Game:
    """A game by name with its parameters; unknown names and parameters get a clear ConfigError."""
    if name not in _GAMES:
        raise ConfigError(f"unknown game {name!r}; available games: {', '.join(game_names())}")
    return _GAMES[name](**params)


def _register_builtin_games() -> None:
    from .cvc.game import CaveVsCave
    register_game("cvc", CaveVsCave)
    from .pairs.game import ThePairsCave
    register_game("pairs", ThePairsCave)
    from .cavum.game import Cavum
    register_game("cavum", Cavum)
    from .caverna.game import Caverna
    register_game("caverna", Caverna)


_register_builtin_games()
