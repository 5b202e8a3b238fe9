"""The game registry: `load_game("cvc", players=2, engine="reference", **rule_options)`.

Every game package under `cavekit.core` that has a `spec` module with a `SPEC` (a `GameSpec`) is registered
when this module is imported; `register_game` adds a game from elsewhere.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from typing import Any

from .api import ConfigError, Game
from .spec import GameSpec, resolve

_SPECS: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> None:
    """Make the game described by `spec` available as `load_game(spec.name, **params)`."""
    _SPECS[spec.name] = spec


def game_names() -> list[str]:
    """Names of every registered game."""
    return sorted(_SPECS)


def game_spec(name: str) -> GameSpec:
    """The spec of the game called `name`; a ConfigError naming the games there are if there is none."""
    if name not in _SPECS:
        raise ConfigError(f"unknown game {name!r}; available games: {', '.join(game_names())}")
    return _SPECS[name]


def game_specs() -> list[GameSpec]:
    """Every registered game's spec, by name."""
    return [_SPECS[name] for name in game_names()]


def default_game_name() -> str:
    """The game a command uses when it needs one and none is named (the spec marked `default`)."""
    return next(spec.name for spec in game_specs() if spec.default)


def load_game(name: str, **params: Any) -> Game:
    """A game by name with its parameters; unknown names and parameters get a clear ConfigError."""
    return resolve(game_spec(name).game_class)(**params)


def _register_builtin_games() -> None:
    core = importlib.import_module(__package__)
    for module in pkgutil.iter_modules(core.__path__):
        if module.ispkg and importlib.util.find_spec(f"{__package__}.{module.name}.spec") is not None:
            register_game(importlib.import_module(f"{__package__}.{module.name}.spec").SPEC)


_register_builtin_games()
