"""What the `cavekit` subcommands share: rule options given as `--param NAME=VALUE`."""
from __future__ import annotations

import argparse
from typing import Any, Protocol

from ...core.api import CavekitError


class Subcommands(Protocol):
    """What `ArgumentParser.add_subparsers()` returns: each subcommand module adds its parser to it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def parse_value(text: str) -> object:
    """A `--param` value: true/false as a bool, an integer as an int, anything else as text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text


def game_params(items: list[str]) -> dict[str, object]:
    """The `--param NAME=VALUE` options as keyword arguments of `load_game`."""
    params: dict[str, object] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise CavekitError(f"--param {item!r} is not of the form name=value")
        params[key] = parse_value(value)
    return params


def add_param_option(parser: argparse.ArgumentParser) -> None:
    """The repeatable `--param NAME=VALUE` option."""
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option of the game, e.g. --param undermining_ignores=one_wall")
