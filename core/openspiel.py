"""OpenSpiel adapter: every cavekit game as an OpenSpiel (pyspiel) Python game named `cavekit_<name>`.

Importing this module registers every game of `cavekit.core.registry.game_names()` with pyspiel, so
`pyspiel.load_game("cavekit_cvc", {"players": 1})` or `pyspiel.load_game("cavekit_cvc(players=1)")` works and
any OpenSpiel algorithm written against the Python API can run on it. Game parameters are the cavekit game's
own (players and every rule option) plus `engine`. OpenSpiel parameters are scalars of one type each, so a
list option is text with `;` between items (`additional_cavern_walls=3;4`), and an option that is a keyword
or a number, or whose default depends on the player count, is a number where -1 means cavekit's default
(see `ParameterCodec`). `load_openspiel_game("cvc", players=1, additional_cavern_walls=[3, 4])` converts.

The state wrapper keeps the cavekit engine state in one attribute. OpenSpiel clones a Python state by deep-
copying its attributes and serializes it by pickling them; that attribute copies itself with the engine's fast
`clone()` and pickles itself as the engine's versioned `serialize()` record (read back by `deserialize_state`),
never as a generic copy of the compiled state.

Use OpenSpiel's Python MCTS (`open_spiel.python.algorithms.mcts.MCTSBot`) and IS-MCTS
(`open_spiel.python.algorithms.ismcts.ISMCTSBot`) on these games: the C++ `pyspiel.MCTSBot` crashes on
Python-defined games.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import pyspiel

from .api import CHANCE, TERMINAL, ConfigError, Game
from .registry import game_names, load_game
from .tensors import (has_information_state_tensor, has_observation_tensor, information_state_encoder,
                      observation_encoder)

GAME_PREFIX = "cavekit_"
LIST_SEPARATOR = ";"
USE_CAVEKIT_DEFAULT = -1

_PLAYER_ID = {CHANCE: int(pyspiel.PlayerId.CHANCE), TERMINAL: int(pyspiel.PlayerId.TERMINAL)}


def openspiel_name(game_name: str) -> str:
    """The OpenSpiel short name of a cavekit game (`cvc` -> `cavekit_cvc`)."""
    return GAME_PREFIX + game_name


def _hidden_information(game: Game) -> bool:
    return bool(getattr(game, "hidden_information", False))


def _utility(game: Game) -> pyspiel.GameType.Utility:
    # One-player games are general-sum in OpenSpiel's own convention (2048, morpion_solitaire, ...); a game
    # whose spec does not declare its returns zero-sum is general-sum, which is true of every game.
    if game.num_players == 1:
        return pyspiel.GameType.Utility.GENERAL_SUM
    return pyspiel.GameType.Utility.ZERO_SUM if game.spec.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM


@dataclass(frozen=True)
class ParameterCodec:
    """How one cavekit game's parameters appear in OpenSpiel, where every parameter has one scalar type.

    - a list option is text with `;` between items (`additional_cavern_walls="3;4"`);
    - an option whose default depends on the player count (pairs `hand_size`), or which takes either a
      keyword or a number (pairs `rounds`: "players" or a count), is an int whose default -1 means
      "cavekit's own default" (one round per player; the rules' hand size for that many players);
    - everything else keeps its type; `engine` is added ("compiled" or "reference").
    """

    name: str
    specification: dict[str, Any]
    list_items: dict[str, type]
    defaulted: frozenset[str]
    keywords: dict[str, str]        # defaulted options whose cavekit default is a keyword ("players")

    def decode(self, given: dict[str, Any]) -> dict[str, Any]:
        """OpenSpiel parameter values (defaults included) as keyword arguments of `load_game`."""
        params: dict[str, Any] = {}
        for key, value in given.items():
            if key in self.defaulted and value == USE_CAVEKIT_DEFAULT:
                continue
            if key in self.list_items and isinstance(value, str):
                item_type = self.list_items[key]
                try:
                    params[key] = [item_type(item) for item in value.split(LIST_SEPARATOR)]
                except ValueError:
                    raise ConfigError(f"parameter {key}={value!r} of {openspiel_name(self.name)}: expected "
                                      f"{item_type.__name__} values separated by {LIST_SEPARATOR!r}, like "
                                      f"{self.specification[key]!r}") from None
            else:
                params[key] = value
        return params

    def encode(self, params: dict[str, Any]) -> dict[str, Any]:
        """`load_game` keyword arguments as OpenSpiel parameter values."""
        encoded: dict[str, Any] = {}
        for key, value in params.items():
            if isinstance(value, (list, tuple)):
                value = LIST_SEPARATOR.join(str(x) for x in value)
            elif key in self.keywords and isinstance(value, str):
                if value != self.keywords[key]:
                    raise ConfigError(f"parameter {key}={value!r} of {openspiel_name(self.name)}: allowed are a "
                                      f"number or {self.keywords[key]!r} (written {USE_CAVEKIT_DEFAULT} in OpenSpiel)")
                value = USE_CAVEKIT_DEFAULT
            encoded[key] = value
        return encoded


def _accepts(name: str, **params: Any) -> bool:
    try:
        load_game(name, **params)
    except ConfigError:
        return False
    return True


@lru_cache(maxsize=None)
def _defaults(name: str) -> tuple[Game, tuple[int, int], ParameterCodec]:
    """The default game, the player counts it accepts and how its parameters look in OpenSpiel, per name."""
    default = load_game(name)
    players = _player_range(name, default)
    return default, players, _parameter_codec(name, default, players)


def _player_range(name: str, default: Game) -> tuple[int, int]:
    """The fewest and most players the game's spec allows."""
    counts = default.spec.player_counts
    return min(counts), max(counts)


def _parameter_codec(name: str, default: Game, players: tuple[int, int]) -> ParameterCodec:
    base = default.parameters()
    by_count = [load_game(name, players=n).parameters() for n in range(players[0], players[1] + 1)] \
        if "players" in base else [base]
    spec: dict[str, Any] = {}
    list_items: dict[str, type] = {}
    defaulted = set()
    keywords: dict[str, str] = {}
    for key, value in base.items():
        varies = key != "players" and any(p.get(key) != value for p in by_count)
        keyword_or_number = isinstance(value, str) and _accepts(name, **{key: 1})
        if (varies and isinstance(value, int) and not isinstance(value, bool)) or keyword_or_number:
            spec[key] = USE_CAVEKIT_DEFAULT
            defaulted.add(key)
            if keyword_or_number:
                keywords[key] = value
        elif isinstance(value, (list, tuple)):
            spec[key] = LIST_SEPARATOR.join(str(v) for v in value)
            list_items[key] = type(value[0]) if value else str
        else:
            spec[key] = value
    spec["engine"] = default.engine
    return ParameterCodec(name, spec, list_items, frozenset(defaulted), keywords)


def _game_type(name: str, game: Game, players: tuple[int, int], spec: dict[str, Any]) -> pyspiel.GameType:
    hidden = _hidden_information(game)
    return pyspiel.GameType(
        short_name=openspiel_name(name),
        long_name=f"cavekit {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if hidden
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=_utility(game),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        min_num_players=players[0],
        max_num_players=players[1],
        provides_information_state_string=True,
        # pairs and cavum: the engine's information_state_tensor (see cavekit.core.tensors); cvc has none.
        provides_information_state_tensor=has_information_state_tensor(game),
        provides_observation_string=True,
        provides_observation_tensor=has_observation_tensor(game),
        parameter_specification=spec,
    )


def _game_info(game: Game) -> pyspiel.GameInfo:
    zero_sum = _utility(game) == pyspiel.GameType.Utility.ZERO_SUM
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions,
        max_chance_outcomes=game.max_chance_outcomes,
        num_players=game.num_players,
        min_utility=float(game.min_utility()),  # type: ignore[attr-defined]
        max_utility=float(game.max_utility()),  # type: ignore[attr-defined]
        utility_sum=0.0 if zero_sum else None,
        max_game_length=game.max_game_length,
    )


class EngineSlot:
    """Holds a cavekit engine state inside an OpenSpiel state; copies with `clone()`, pickles as a record."""

    __slots__ = ("state", "game")

    def __init__(self, state: Any, game: Game):
        self.state = state
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> "EngineSlot":
        return EngineSlot(self.state.clone(), self.game)

    def __reduce__(self) -> tuple[Any, ...]:
        game = self.game
        return (_restore_slot, (game.name, game.engine, game.parameters(), self.state.serialize()))


def _restore_slot(name: str, engine: str, params: dict[str, Any], record: str) -> EngineSlot:
    game = load_game(name, engine=engine, **params)
    return EngineSlot(game.deserialize_state(record), game)


class CavekitGame(pyspiel.Game):
    """A cavekit game with fixed parameters, seen through OpenSpiel's Game interface.

    Each cavekit game gets a subclass naming it (`cavekit_name`); OpenSpiel calls that subclass with the
    parameters to make a game.
    """

    cavekit_name = ""

    def __init__(self, params: dict[str, Any] | None = None):
        name = self.cavekit_name
        default, players, codec = _defaults(name)
        given = {**codec.specification, **(params or {})}
        engine = given.pop("engine")
        self.cavekit_game: Game = load_game(name, engine=engine, **codec.decode(given))
        # Cloning this is ~15x cheaper than building a new engine state; OpenSpiel's clone starts from one.
        self.initial_engine_state = self.cavekit_game.new_initial_state()
        super().__init__(_game_type(name, self.cavekit_game, players, codec.specification),
                         _game_info(self.cavekit_game), {**codec.specification, **(params or {})})

    def new_initial_state(self) -> "CavekitState":
        """The position before setup (chance nodes first), wrapped for OpenSpiel."""
        return CavekitState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> "CavekitObserver":
        """The observer OpenSpiel uses for observation and information-state strings and tensors."""
        return CavekitObserver(self.cavekit_game, iig_obs_type, params)


class CavekitState(pyspiel.State):
    """One cavekit position as an OpenSpiel state; `engine_state` is the underlying cavekit state."""

    def __init__(self, game: CavekitGame):
        super().__init__(game)
        # The only Python attribute: OpenSpiel's clone and serialize act on every attribute (see module doc).
        self._slot = EngineSlot(game.initial_engine_state.clone(), game.cavekit_game)

    @property
    def engine_state(self) -> Any:
        """The cavekit state this wraps (live: apply actions through OpenSpiel, not to it)."""
        return self._slot.state

    def current_player(self) -> int:
        """The player to move, or OpenSpiel's CHANCE (-1) / TERMINAL (-4), which are cavekit's too."""
        player = self._slot.state.current_player()
        return _PLAYER_ID.get(player, player)

    def _legal_actions(self, player: int) -> list[int]:
        return self._slot.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node."""
        return self._slot.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._slot.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        state = self._slot.state
        if player == pyspiel.PlayerId.CHANCE and state.current_player() != CHANCE:
            return f"chance outcome {action}"
        return state.action_to_string(int(action))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._slot.state.is_terminal()

    def returns(self) -> list[float]:
        """The engine's returns (0 for everyone until the end)."""
        return [float(r) for r in self._slot.state.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "CavekitState":
        """A state `player_id` cannot tell from this one, its hidden cards dealt with the sampler's randomness.

        OpenSpiel's IS-MCTS calls this with a fresh `pyspiel.UniformProbabilitySampler(0., 1.)`, which is
        seeded from the clock; for reproducible searches give the bot `seeded_resampler(seed)` instead.
        """
        # One uniform in [0, 1) from the sampler seeds the engine's generator.
        return self.resample_with_rng(player_id, np.random.default_rng(int(probability_sampler() * 2**53)))

    def resample_with_rng(self, player_id: int, rng: np.random.Generator) -> "CavekitState":
        """`resample_from_infostate` drawing from a numpy Generator.

        For hidden-information games the engine redraws what `player_id` has not seen; the result is
        rebuilt by replaying its history, so OpenSpiel's own history agrees with it. Without hidden
        information the only such state is this one.
        """
        if not _hidden_information(self._slot.game):
            return self.clone()
        world = self._slot.state.resample_from_infostate(player_id, rng)
        rebuilt = self.get_game().new_initial_state()
        for action in world.history():
            rebuilt.apply_action(action)
        return rebuilt

    def __str__(self) -> str:
        return str(self._slot.state)


def _observation_text(state: Any, player: int) -> str:
    seen = state.observation(player)
    return seen if isinstance(seen, str) else json.dumps(seen, sort_keys=True, separators=(",", ":"))


class CavekitObserver:
    """OpenSpiel's Python observer interface: `tensor`, `dict`, `set_from(state, player)`, `string_from`.

    Observation (no perfect recall): the engine's `observation(player)` as text, and the numeric vector of
    `cavekit.core.tensors.observation_encoder`. Information state (perfect recall): the engine's
    `information_state_string`, and for games whose engine has one (pairs, cavum) its
    `information_state_tensor` (`information_state_encoder`); `dict` holds the named pieces of the vector
    (views of `tensor`, shaped as the layout says). OpenSpiel's `state.information_state_tensor(player)` and
    `state.observation_tensor(player)` read these observers. With hidden information only a single player's
    own view (private info of that player plus public info) is offered.
    """

    def __init__(self, game: Game, iig_obs_type: Any, params: dict[str, Any] | None):
        if params:
            raise ValueError(f"cavekit observers take no parameters; got {params}")
        iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if _hidden_information(game) and (
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info):
            raise ValueError(f"{openspiel_name(game.name)} offers one player's own view only (private_info="
                             f"SINGLE_PLAYER, public_info=True); asked for {iig_obs_type}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        if self.perfect_recall:
            self._encoder = information_state_encoder(game) if has_information_state_tensor(game) else None
        else:
            self._encoder = observation_encoder(game) if has_observation_tensor(game) else None
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        if self._encoder is not None:
            self.tensor = np.zeros(self._encoder.size, np.float32)
            at = 0
            for piece in self._encoder.pieces:
                self.dict[piece.name] = self.tensor[at:at + piece.size].reshape(piece.shape or (piece.size,))
                at += piece.size

    def set_from(self, state: CavekitState, player: int) -> None:
        """Write `player`'s view of `state` into `tensor` (and so into the views of `dict`)."""
        if self._encoder is None:
            raise ValueError("this observer has no tensor (this game's information states are strings only)")
        self.tensor[:] = self._encoder.encode(state.engine_state, player)

    def string_from(self, state: CavekitState, player: int) -> str:
        """`player`'s view of `state` as text: the information state or the observation."""
        engine = state.engine_state
        if self.perfect_recall:
            return engine.information_state_string(player)
        return _observation_text(engine, player)


class CavekitBot(pyspiel.Bot):
    """A cavekit agent (anything with `step(state) -> action`) playing in OpenSpiel, e.g. in evaluate_bots."""

    def __init__(self, agent: Any):
        pyspiel.Bot.__init__(self)
        self.agent = agent

    def step(self, state: CavekitState) -> int:
        """The agent's action in the cavekit state underneath `state`."""
        return int(self.agent.step(state.engine_state.clone()))

    def restart_at(self, state: CavekitState) -> None:
        """Nothing to do: the agent reads the whole state at every step."""

    def inform_action(self, state: CavekitState, player_id: int, action: int) -> None:
        """Nothing to do: the agent reads the whole state at every step."""


def seeded_resampler(seed: int | np.random.SeedSequence) -> Callable[[CavekitState, int], CavekitState]:
    """A resampler for `ISMCTSBot.set_resampler` whose determinizations all flow from `seed`."""
    rng = np.random.default_rng(seed)

    def resample(state: CavekitState, player: int) -> CavekitState:
        return state.resample_with_rng(player, rng)
    return resample


def register_games() -> list[str]:
    """Register every cavekit game with pyspiel (again-safe; games registered later are added); their names."""
    known = set(pyspiel.registered_names())
    names = []
    for name in game_names():
        short = openspiel_name(name)
        if short not in known:
            default, players, codec = _defaults(name)
            # A class, not a closure: pyspiel keeps the factory until after the interpreter is finalized, and a
            # closure freed then (without the GIL) aborts the process at exit; classes are never freed there.
            game_class = type(f"CavekitGame_{name}", (CavekitGame,), {"cavekit_name": name,
                                                                        "__module__": __name__})
            globals()[game_class.__name__] = game_class   # so pickle finds the class by name
            pyspiel.register_game(_game_type(name, default, players, codec.specification), game_class)
        names.append(short)
    return names


def load_openspiel_game(name: str, **params: Any) -> pyspiel.Game:
    """`pyspiel.load_game` for a cavekit game by its cavekit name and parameters (lists given as lists)."""
    register_games()
    return pyspiel.load_game(openspiel_name(name), _defaults(name)[2].encode(params))


def from_engine_state(game: pyspiel.Game, engine_state: Any) -> CavekitState:
    """An OpenSpiel state of `game` at the same position as a cavekit state (its history is replayed)."""
    state = game.new_initial_state()
    for action in engine_state.history():
        state.apply_action(action)
    return state


register_games()
