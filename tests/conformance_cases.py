"""The cases of the conformance suite and the golden playthroughs, derived from the registry's game specs only.

Nothing here names a game: every registered spec (`cavekit.core.registry.game_specs()`) contributes
- one *default* case per engine x player count, with the rule parameters at their defaults, played on
  `DEFAULT_SEEDS` seeded random games;
- one *variant* case per non-default value of each parameter that lists its `choices`, played once (seed
  `VARIANT_SEED`) on the default engine (the engine-agreement check mirrors it on the others) and one player
  count, rotating through the small counts (up to one past the default) so that each meets some variants (a
  count the value is refused with is skipped for the next one).
A game added to the registry later gets every case by declaring its spec.

`random_game(game, seed)` is the one seeded random player everything uses: a numpy Generator from the seed
picks a uniformly random legal action at decision nodes and samples chance outcomes (by their
probabilities) at chance nodes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from cavekit.core import ConfigError
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.core.registry import game_specs, load_game

DEFAULT_SEEDS = (0, 1)
VARIANT_SEED = 7


@dataclass(frozen=True)
class Case:
    """One game configuration the suite checks: game, engine, parameters and the seeds of its random games."""

    game: str
    engine: str
    params: tuple[tuple[str, Any], ...]     # (name, value) pairs; players always included
    seeds: tuple[int, ...]
    variant: str = ""                       # "name=value" of the non-default parameter, "" for defaults

    @property
    def players(self) -> int:
        return dict(self.params)["players"]

    @property
    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of `load_game` (engine included)."""
        return {**dict(self.params), "engine": self.engine}

    @property
    def id(self) -> str:
        return f"{self.game}-{self.engine}-{self.players}p" + (f"-{self.variant}" if self.variant else "")

    def load(self, engine: str | None = None) -> Any:
        return load_game(self.game, **{**self.kwargs, "engine": engine or self.engine})


def _accepted(name: str, **params: Any) -> bool:
    try:
        load_game(name, **params)
    except ConfigError:
        return False
    return True


def default_cases() -> list[Case]:
    """Every game x engine x player count with the default rule parameters."""
    return [Case(spec.name, engine, (("players", n),), DEFAULT_SEEDS)
            for spec in game_specs() for engine in spec.engines for n in spec.player_counts]


def variant_cases() -> list[Case]:
    """Each non-default listed choice of each parameter once: default engine, a rotating small player count."""
    cases = []
    for spec in game_specs():
        # Small tables only (the default cases cover every count): from the fewest players to one past the default.
        counts = [spec.default_players] + [n for n in spec.player_counts
                                           if n != spec.default_players and n <= spec.default_players + 1]
        i = 0
        for parameter in spec.parameters:
            for choice in parameter.choices:
                if choice == parameter.default:
                    continue
                engine = spec.default_engine
                rotated = counts[i % len(counts):] + counts[:i % len(counts)]
                players = next((n for n in rotated if _accepted(spec.name, players=n, engine=engine,
                                                                **{parameter.name: choice})), None)
                i += 1
                # A choice no player count accepts still becomes a case: loading it fails the tests, loudly.
                cases.append(Case(spec.name, engine, (("players", players or spec.default_players),
                                                      (parameter.name, choice)),
                                  (VARIANT_SEED,), f"{parameter.name}={choice}"))
    return cases


def all_cases() -> list[Case]:
    return default_cases() + variant_cases()


def game_player_cases() -> list[Case]:
    """One case per game x player count: default engine, default parameters, the first default seed."""
    return [Case(spec.name, spec.default_engine, (("players", n),), DEFAULT_SEEDS[:1])
            for spec in game_specs() for n in spec.player_counts]


def is_small_table(case: Case) -> bool:
    """Whether the case plays the fewest or the default number of players (the expensive adapter checks run
    on these by default and on the other counts with `-m slow`)."""
    spec = next(s for s in game_specs() if s.name == case.game)
    return case.players in (min(spec.player_counts), spec.default_players)


def choose(state: Any, rng: np.random.Generator) -> int:
    """The seeded random move: a chance outcome by its probability, or a uniformly random legal action."""
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state.chance_outcomes(), rng.random())
    legal = state.legal_actions()
    return legal[rng.integers(len(legal))]


def random_game(game: Any, seed: int) -> Iterator[tuple[Any, int]]:
    """Play one seeded random game of `game`: yields (state, action) before each action is applied to state;
    the generator ends with the state terminal (keep a reference to read the end position)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        action = choose(state, rng)
        yield state, action
        state.apply_action(action)


def final_state(game: Any, seed: int) -> Any:
    """The end position of the seeded random game."""
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        state.apply_action(choose(state, rng))
    return state
