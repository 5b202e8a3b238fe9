"""What the `cavekit` subcommands share: rule options given as `--param NAME=VALUE`, and `--engine`."""
from __future__ import annotations

import argparse
from typing import Any, Protocol

from ...core.api import CavekitError
from ...core.registry import game_spec


class Subcommands(Protocol):
    """What `ArgumentParser.add_subparsers()` returns: each subcommand module adds its parser to it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def parse_value(text: str, default: object = None) -> object:
    """A `--param` value read as the type of the parameter's default: true/false for a flag, comma-separated
    items for a list (`3,4`); otherwise an integer if it is one, else the text (the game checks the value)."""
    lowered = text.strip().lower()
    if isinstance(default, bool) or (default is None and lowered in ("true", "false")):
        if lowered not in ("true", "false"):
            raise CavekitError(f"expected true or false, not {text!r}")
        return lowered == "true"
    if isinstance(default, (list, tuple)):
        kind = type(default[0]) if default else str
        items = [item.strip() for item in text.split(",") if item.strip()]
        return [parse_value(item, kind()) if kind is not str else item for item in items]
    try:
        return int(text)
    except ValueError:
        return text             # a keyword (some counts also take one, e.g. 'unlimited'): the game checks it


def game_params(items: list[str], game_name: str) -> dict[str, object]:
    """The `--param NAME=VALUE` options as keyword arguments of `load_game`, each read as its parameter's type."""
    spec = game_spec(game_name)
    known = {p.name: p for p in spec.parameters}
    params: dict[str, object] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            raise CavekitError(f"--param {item!r} is not of the form name=value")
        if key == "players":
            raise CavekitError("--param players=...: give the number of players with --players")
        if key not in known:
            raise CavekitError(f"--param {key}: {game_name} has no such parameter; its parameters: "
                               f"{', '.join(sorted(known))} (cavekit games {game_name} lists them)")
        try:
            params[key] = parse_value(value, known[key].default)
        except CavekitError as e:
            raise CavekitError(f"--param {key}: {e}; allowed: {known[key].allowed_text()}") from None
    return params


def add_param_option(parser: argparse.ArgumentParser) -> None:
    """The repeatable `--param NAME=VALUE` option."""
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option of the game, e.g. --param undermining_ignores=one_wall")


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """The `--engine NAME` option (checked against the named game's engines by `engine_param`)."""
    parser.add_argument("--engine", metavar="NAME",
                        help="the rules engine, for a game that has several (cavekit games GAME lists them; "
                             "default: the game's first, e.g. compiled for cvc); results do not depend on it")


def engine_param(engine: str | None, game_name: str) -> dict[str, object]:
    """`{"engine": engine}` for `load_game` if one was named, checked against the game's engines; else empty."""
    if engine is None:
        return {}
    spec = game_spec(game_name)
    if engine not in spec.engines:
        listed = ", ".join(f"{e} (default)" if e == spec.default_engine else e for e in spec.engines)
        raise CavekitError(f"--engine {engine}: {game_name} has no such engine; its engines: {listed}")
    return {"engine": engine}
