"""What a game tells the generic layers about itself: one `GameSpec` per game, owned by the game's package.

The generic layers (the registry, the OpenSpiel and PettingZoo adapters, tensors, search, the batch runner,
reports and the CLI) read a game's spec and never test its name. A spec says what the game is (name, title,
player counts, engines, rule parameters with their defaults and allowed values, zero-sum or not, whether
players hold hidden information) and where the game's code for each layer lives, as `module:attribute`
paths resolved only when that layer asks (so `core` never imports `search` or `analysis`):

- `game_class`: the `Game` class, called with `players`, `engine` and the rule parameters (a game defined
  outside the package, such as a test's, may give the class itself);
- `observation_encoder`: a factory `(game) -> ObservationEncoder` for a hand-written observation layout
  (None: the engine computes `observation_tensor(player)` itself, if it can);
- `evaluator`: the heuristic evaluation `(state) -> list[float]` that greedy play, MCTS leaves and
  expectimax cut-offs use (None: only finished games have a value);
- `renderer`: `(state, player) -> str`, the position as text as `player` may see it (None: `str(state)`, which
  shows everything, for games where every player sees everything);
- `dealer`: the module that deals the game (`cavekit.core.deal`): its random components, drawn from one
  seed whatever the players do (None: the game has no deals);
- `agents`: modules that register the game's own agents (and search hooks) when imported;
- `presets`: the difficulty presets `easy`, `medium`, `hard`, `strongest` (`DIFFICULTIES`) as agent specs,
  by player count where they differ, each with its measured strength (`Preset`); `make_agent` accepts a
  difficulty wherever it accepts an agent spec;
- `analysis`: a module of the game's analysis hooks, each optional: `DECISION_FIELDS` (per-decision
  columns), `OUTCOME_FIELDS` (per-game columns), `report_sections(data)` (HTML report sections),
  `study_report_sections(folder)` (the HTML report sections of the game's study folder, `study.json`),
  `add_commands(subparsers)` (the game's own studies as `cavekit` subcommands), `add_strength_parser(games)`
  (its strength report as `cavekit strength GAME`), and for the browser
  (`cavekit serve`) `web_board(state, viewer)` (the position as `viewer` may see it: `{"svg": ..., "targets":
  {name: [action ids]}}`, elements carrying `data-target="name"`) and `web_score_breakdown(state)` (rows of
  `player`, `source`, `points`); a game without them is shown as its renderer's text.

A game's package declares its spec in `<package>/spec.py` as `SPEC`; `cavekit.core.registry` finds every
such module under `cavekit.core`, so adding a game is adding its package.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

INFORMATION_KINDS = ("perfect", "imperfect", "by_parameters")
DIFFICULTIES = ("easy", "medium", "hard", "strongest")     # weakest first; every game has all four


@dataclass(frozen=True)
class Preset:
    """One difficulty of a game: the agent spec it stands for, at the player counts it covers.

    `strength` is the measured strength in words with the run that measured it (a match against the next
    preset down, say), so `cavekit agents GAME` can show what the name promises.
    """

    difficulty: str                     # one of DIFFICULTIES
    agent: str                          # an agent spec, e.g. "cvc_turn_mcts:iterations=500"
    players: tuple[int, ...] = ()       # the player counts it is for (empty: every count)
    strength: str = ""                  # measured strength and the command that measured it
    cost: str = ""                      # its budget in time, measured (CPU-seconds per move or per game)


@dataclass(frozen=True)
class Parameter:
    """One rule option of a game: its name, default and the values it allows."""

    name: str
    default: Any                        # the value when the option is not given (see `default_note`)
    choices: tuple[Any, ...] = ()       # every allowed value, when they can be listed
    allowed: str = ""                   # the allowed values in words, when they cannot ("an integer from 0 to 9")
    default_note: str = ""              # how the default depends on other parameters, if it does

    def allowed_text(self) -> str:
        """The allowed values as a person reads them."""
        if self.allowed:
            return self.allowed
        return ", ".join(repr(c) for c in self.choices)


@dataclass(frozen=True)
class GameSpec:
    """Everything the generic layers know about one game (see the module docstring)."""

    name: str
    title: str
    player_counts: tuple[int, ...]
    default_players: int
    engines: tuple[str, ...]                    # the default engine first
    parameters: tuple[Parameter, ...]
    zero_sum: bool                              # returns sum to zero whenever two or more play
    information: str                            # one of INFORMATION_KINDS
    game_class: str | Callable[..., Any]        # "module:Class", or the class itself
    observation_encoder: str | None = None      # "module:factory" or None (the engine's own tensor)
    evaluator: str | None = None                # "module:function" or None (finished games only)
    renderer: str | None = None                 # "module:function(state, player)" or None (str(state) for all)
    dealer: str | None = None                   # dealer module (see cavekit.core.deal) or None
    agents: tuple[str, ...] = ()                # modules registering the game's agents
    analysis: str | None = None                 # module of the game's analysis hooks
    presets: tuple[Preset, ...] = ()            # the difficulty presets (see `Preset`)
    default: bool = False                       # the kit's flagship, used where a command needs one game

    def __post_init__(self) -> None:
        if self.information not in INFORMATION_KINDS:
            raise ValueError(f"{self.name}: information must be one of {INFORMATION_KINDS}, not {self.information!r}")
        if self.default_players not in self.player_counts:
            raise ValueError(f"{self.name}: default_players {self.default_players} not in {self.player_counts}")
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: a parameter is declared twice in {names}")
        for preset in self.presets:
            if preset.difficulty not in DIFFICULTIES:
                raise ValueError(f"{self.name}: preset {preset.difficulty!r} is not one of {DIFFICULTIES}")
        if self.presets:
            for players in self.player_counts:
                given = [p.difficulty for p in self.presets if not p.players or players in p.players]
                if sorted(given, key=DIFFICULTIES.index) != list(DIFFICULTIES):
                    raise ValueError(f"{self.name} with {players} player(s): presets {given}, need each of "
                                     f"{DIFFICULTIES} once")

    @property
    def default_engine(self) -> str:
        """The engine `load_game` uses when none is named."""
        return self.engines[0]

    def parameter(self, name: str) -> Parameter:
        """The parameter called `name` (KeyError if the game has none)."""
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)

    def preset(self, difficulty: str, players: int) -> Preset:
        """The preset called `difficulty` at `players` players (KeyError if the game has none)."""
        for p in self.presets:
            if p.difficulty == difficulty and (not p.players or players in p.players):
                return p
        raise KeyError(difficulty)

    def analysis_hook(self, attribute: str) -> Any:
        """The game's analysis hook `attribute` (see the module docstring), or None if it has none."""
        if self.analysis is None:
            return None
        return getattr(importlib.import_module(self.analysis), attribute, None)


def resolve(path: str | Any) -> Any:
    """The object named by a `module:attribute` path (an object that is not a string is itself)."""
    if not isinstance(path, str):
        return path
    module, _, attribute = path.partition(":")
    if not attribute:
        raise ValueError(f"{path!r} is not of the form module:attribute")
    return getattr(importlib.import_module(module), attribute)
