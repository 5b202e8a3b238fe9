"""The agent protocol, the random agent, and `make_agent`, which builds any agent from a spec string.

A spec is `name` or `name:key=value,key=value` (for example `"random"`), or a difficulty preset (`easy`,
`medium`, `hard`, `strongest`) that the game's spec maps to an agent spec for its player count; the CLI,
batch runner and notebooks all name agents this way.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import logging
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol

import numpy as np

from ..core.api import CHANCE, ConfigError, Game, State
from ..core.spec import DIFFICULTIES, Preset
from ..core.compiled_modules import REBUILD, missing_compiled_module


class Agent(Protocol):
    """Chooses an action for the player to move; all randomness comes from its own seeded generator."""

    name: str

    def step(self, state: State) -> int: ...
    def reset(self) -> None: ...


def choosable_actions(state: State) -> list[int]:
    """The legal actions of the player to move, refusing chance nodes and finished games with a clear error."""
    if state.current_player() == CHANCE:
        raise ValueError("agents choose player actions; sample chance outcomes from chance_outcomes()")
    legal = state.legal_actions()
    if not legal:
        raise ValueError("no legal action: the game is over")
    return legal


class RandomAgent:
    """Plays a uniformly random legal action."""

    name = "random"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None):
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)

    def step(self, state: State) -> int:
        legal = choosable_actions(state)
        return int(legal[self.rng.integers(len(legal))])


_AGENTS: dict[str, tuple[Callable[..., Agent], dict[str, Callable[[str], Any]], str | None]] = {}


class DataOption:
    """The type of an agent option whose value names data the agent plays with (tuned weights, a learned value):
    read as text, like `str`, and besides that able to fingerprint the data a value stands for.

    Results folders record each agent's fingerprints, so that games played with other weights behind the same
    spec (`weights=tuned` after a re-tuning) are never mixed with, or passed off as, today's.
    """

    __name__ = "str"        # what `cavekit agents` and error messages call the option's type

    def __init__(self, data_of: Callable[[str, int], Any]):
        # `data_of(value, players)`: the numbers the agent plays with in a game of `players`, as JSON-able
        # data, or None when the value names no data (a hand-written evaluation, which the code version covers)
        self.data_of = data_of

    def __call__(self, text: str) -> str:
        return text

    def fingerprint(self, value: str, players: int) -> str | None:
        """A short digest of the data `value` stands for in a game of `players`, or None if it names none."""
        data = self.data_of(value, players)
        if data is None:
            return None
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def register_agent(name: str, factory: Callable[..., Agent], options: dict[str, Callable[[str], Any]],
                   game: str | None = None) -> None:
    """Make `factory(game, seed=..., **options)` buildable as the spec `name:key=value,...`.

    `options` maps each option name to the function that parses its text (int, float, str, ...); `game` names
    the one game the agent plays (None: every game), so a spec for another game is refused before any play.
    """
    if name in DIFFICULTIES:
        raise ValueError(f"{name!r} names a difficulty preset, so no agent may be registered under it")
    _AGENTS[name] = (factory, options, game)


register_agent("random", RandomAgent, {})

# Agent modules left out because a compiled module they need cannot be imported: module -> that module.
_LEFT_OUT: dict[str, str] = {}


def import_agent_modules(modules: Iterable[str]) -> None:
    """Import the modules that register agents. One that needs a compiled module that cannot be imported is
    left out, so the other agents and the reference engines stay usable: one line on the `cavekit` logger
    (printed to stderr when logging is not set up) names them, and `make_agent` says why their agents are
    unknown. Any other import error is raised."""
    left_out = {}
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing = missing_compiled_module(error)
            if missing is None:
                raise
            left_out[module] = missing
    if left_out:
        _LEFT_OUT.update(left_out)
        logging.getLogger("cavekit").warning("cavekit: %s", _left_out_text(left_out))


def _left_out_note() -> str:
    """For an unknown agent's error: "; " and what was left out, if any agent module was."""
    return f"; {_left_out_text(_LEFT_OUT)}" if _LEFT_OUT else ""


def _left_out_text(left_out: dict[str, str]) -> str:
    """What is left out and why, and how to rebuild, in one line."""
    missing = ", ".join(sorted(set(left_out.values())))
    return (f"compiled modules cannot be imported: {missing}; the agents that need them are left out (the "
            f"reference engines and the other agents work); {REBUILD}")


@dataclass(frozen=True)
class AgentOption:
    """One option of an agent spec: its name, the type its text is read as, and its default."""

    name: str
    kind: str
    default: Any


def describe_agent(name: str) -> tuple[str, list[AgentOption], str | None]:
    """An agent's one-line description, its options (with their defaults) and the game it plays (None: any)."""
    if name not in _AGENTS:
        raise ConfigError(f"unknown agent {name!r}; agents: {', '.join(agent_names())}{_left_out_note()}")
    factory, options, plays = _AGENTS[name]
    lines = (factory.__doc__ or "").strip().splitlines()
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):     # a factory whose signature Python cannot read (a compiled one)
        parameters = {}
    described = [AgentOption(option, getattr(parse, "__name__", "value"),
                             parameters[option].default if option in parameters else None)
                 for option, parse in options.items()]
    return (lines[0] if lines else ""), described, plays


def agent_names(game_name: str | None = None) -> list[str]:
    """Every registered agent, or those that play the game called `game_name`."""
    return sorted(name for name, (_, _, plays) in _AGENTS.items()
                  if game_name is None or plays is None or plays == game_name)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split `name:key=value,...` into the name and its raw option strings."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    for item in (part.strip() for part in rest.split(",")) if rest.strip() else ():
        if not item:
            raise ConfigError(f"agent spec {spec!r}: an empty option between commas; write name:key=value,key=value")
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"agent spec {spec!r}: option {item!r} is not of the form key=value")
        options[key.strip()] = value.strip()
    return name.strip(), options


def game_presets(game: Game) -> list[Preset]:
    """The difficulty presets of `game` at its player count, weakest first (none for a game without a spec)."""
    spec = getattr(game, "spec", None)
    if spec is None or not spec.presets:
        return []
    return [spec.preset(difficulty, game.num_players) for difficulty in DIFFICULTIES]


def resolve_preset(spec: str, game: Game) -> str:
    """The agent spec that a difficulty preset stands for in `game`; any other spec is returned unchanged.

    Batches record the resolved spec, so a results folder says what played even after a preset changes.
    """
    name, raw = parse_spec(spec)
    if name not in DIFFICULTIES:
        return spec
    if raw:
        raise ConfigError(f"preset {name!r} takes no options (it stands for a fixed agent spec); name that agent "
                          f"spec instead: `cavekit agents {game.name}` lists the presets and what they stand for")
    presets = {p.difficulty: p.agent for p in game_presets(game)}
    if name not in presets:
        raise ConfigError(f"{game.name} has no difficulty presets; name an agent: {', '.join(agent_names(game.name))}")
    return presets[name]


def make_agent(spec: str, game: Game, seed: int | np.random.SeedSequence | None = None) -> Agent:
    """Build an agent from its spec string or a difficulty preset; unknown agents and options get a
    ConfigError saying what exists."""
    spec = resolve_preset(spec, game)
    name, raw = parse_spec(spec)
    if name not in _AGENTS:
        raise ConfigError(f"unknown agent {name!r} in spec {spec!r}; available agents: {', '.join(agent_names())}"
                          f" (or a difficulty: {', '.join(DIFFICULTIES)}){_left_out_note()}")
    factory, option_types, plays = _AGENTS[name]
    if plays is not None and plays != game.name:
        raise ConfigError(f"agent {name!r} plays {plays} only, not {game.name}; agents for {game.name}: "
                          f"{', '.join(agent_names(game.name))}")
    options: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in option_types:
            allowed = ", ".join(sorted(option_types)) or "none"
            raise ConfigError(f"agent {name!r} has no option {key!r}; its options: {allowed}")
        try:
            options[key] = option_types[key](value)
        except ValueError:
            raise ConfigError(f"agent {name!r}: option {key}={value!r} is not a valid "
                              f"{option_types[key].__name__}") from None
    return factory(game, seed=seed, **options)


def agent_data(spec: str, game: Game) -> dict[str, str]:
    """The fingerprint of the data each data option of the agent `spec` plays with in `game` (its default when
    the spec does not set it), by option name; {} for an agent that reads no data."""
    name, raw = parse_spec(resolve_preset(spec, game))
    if name not in _AGENTS:
        make_agent(spec, game)      # refuses it, saying which agents exist
    defaults = {option.name: option.default for option in describe_agent(name)[1]}
    found = {}
    for option, parse in _AGENTS[name][1].items():
        if isinstance(parse, DataOption):
            fingerprint = parse.fingerprint(str(raw.get(option, defaults[option])), game.num_players)
            if fingerprint is not None:
                found[option] = fingerprint
    return found
