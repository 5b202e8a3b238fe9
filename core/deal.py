"""Deals: one seed fixes every shuffle and draw a game makes, whatever the players do.

The engines keep explicit chance nodes (searchers sample them from what a seat may know), so a deal is not
part of a state: it sits beside the game, with whoever plays it (the batch runner, terminal play), and
resolves each chance node to the deal's outcome for the component that node draws from. A state names that
component with `chance_component() -> (name, index)`: the room under a given space, the k-th tile of a
stage, the k-th card of a round's deck. Because the index says *which* item of the component is drawn, and
not how many chance nodes came before, two lines of play on one deal see the same room under the same
space and the same tile in the same round.

A game that declares no dealer (a game defined outside the package, say) is played on a `ChanceStream`
instead: its chance nodes draw from one generator seeded by the deal seed, in the order play meets them, so
its games are reproducible but two lines of play share only their start. Its deal scheme is 0.

Each game says what its deals hold in a dealer module (the spec's `dealer` path) with:

- `SCHEME`: the version of the game's deal scheme (bumped whenever the same seed would deal differently);
- `components(game) -> list[Component]`: every component of a deal of `game`, in a fixed order;
- `draw(game, rng) -> dict[str, list[int]]`: one outcome list per component, drawn from a numpy Generator;
- `outcome_name(game, component, outcome) -> str`: an outcome as a person reads it.
"""
from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .api import CHANCE, CavekitError, ConfigError, sample_chance_outcome

DEAL_FORMAT = "cavekit-deal"
# Deal seeds are non-negative 63-bit integers, so they fit an int64 results column.
DEAL_SEED_LIMIT = 2 ** 63
# The first word of a deal's spawn key, so deal seeds never coincide with the agents' seeds of a game.
DEAL_SPAWN_KEY = 0xDEA1


class DealError(CavekitError, ValueError):
    """A deal that does not fit the game or position it is used with, or a corrupt deal record."""


@dataclass(frozen=True)
class Component:
    """One randomly ordered part of a game's setup: a stage's tiles, the rooms under a board, a deck."""

    name: str
    description: str


@dataclass(frozen=True)
class Deal:
    """Every random component of one game, drawn from one seed (see the module docstring)."""

    game: str
    players: int
    seed: int
    scheme: int
    components: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def outcome(self, state: Any) -> int:
        """The deal's outcome for the chance node `state` is at (DealError if it does not fit)."""
        if state.current_player() != CHANCE:
            raise DealError("the position is not a chance node, so no deal outcome applies")
        name, index = state.chance_component()
        drawn = self.components.get(name)
        if drawn is None:
            raise DealError(f"the position draws from component {name!r}, which this {self.game} deal does "
                            f"not hold (it holds {', '.join(self.components) or 'nothing'})")
        if not 0 <= index < len(drawn):
            raise DealError(f"the position draws item {index} of component {name!r}, which holds "
                            f"{len(drawn)} item(s)")
        outcome = drawn[index]
        if outcome not in {o for o, _ in state.chance_outcomes()}:
            raise DealError(f"the deal's outcome {outcome} for item {index} of {name!r} is not possible in "
                            f"this position (a deal of another game variant?)")
        return outcome

    def to_dict(self) -> dict[str, Any]:
        """The deal as plain data (JSON-ready)."""
        return {"format": DEAL_FORMAT, "game": self.game, "players": self.players, "seed": self.seed,
                "scheme": self.scheme, "components": {k: list(v) for k, v in self.components.items()}}

    def to_json(self) -> str:
        """The deal as one line of JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Deal":
        """A deal from `to_json()` output; DealError names what is wrong with a corrupt one."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise DealError(f"a deal is JSON, and this is not (line {e.lineno}, column {e.colno}: {e.msg})") from None
        if not isinstance(data, dict) or data.get("format") != DEAL_FORMAT:
            raise DealError(f"not a cavekit deal (its 'format' must be {DEAL_FORMAT!r})")
        try:
            components = {str(k): tuple(int(x) for x in v) for k, v in data["components"].items()}
            return cls(str(data["game"]), int(data["players"]), int(data["seed"]), int(data["scheme"]), components)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise DealError(f"corrupt deal: field {e} is missing or malformed") from None


class ChanceStream:
    """The stand-in for a deal of a game without deal components: one generator, consumed in play order."""

    def __init__(self, seed: int):
        self.seed = seed
        self._rng = np.random.default_rng(seed)

    def outcome(self, state: Any) -> int:
        """The next outcome of the stream for this chance node (uniform draws against its probabilities)."""
        return sample_chance_outcome(state.chance_outcomes(), self._rng.random())


def _dealer_path(game: Any) -> str | None:
    return getattr(getattr(game, "spec", None), "dealer", None)


def dealer_of(game: Any) -> Any:
    """The dealer module of `game` (from its spec's `dealer` path)."""
    path = _dealer_path(game)
    if path is None:
        raise ConfigError(f"{game.name} declares no deals (its spec has no dealer)")
    return importlib.import_module(path)


def deal_for_play(game: Any, seed: int) -> "Deal | ChanceStream":
    """What a game of `game` is played on from deal seed `seed`: its deal, or a `ChanceStream` if it has none."""
    if _dealer_path(game) is None:
        return ChanceStream(check_deal_seed(seed))
    return new_deal(game, seed)


def check_deal_seed(seed: Any) -> int:
    """`seed` as a deal seed, or ConfigError saying what a deal seed may be."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < DEAL_SEED_LIMIT:
        raise ConfigError(f"a deal seed is an integer from 0 to 2**63 - 1, not {seed!r}")
    return int(seed)


def new_deal(game: Any, seed: int) -> Deal:
    """The deal of `game` for `seed`: the same components for the same seed, on any engine."""
    seed = check_deal_seed(seed)
    dealer = dealer_of(game)
    drawn = dealer.draw(game, np.random.default_rng(seed))
    names = [c.name for c in dealer.components(game)]
    if list(drawn) != names:
        raise AssertionError(f"{game.name} dealer drew {list(drawn)}, but declares {names}")
    return Deal(game.name, game.num_players, seed, dealer.SCHEME, {k: tuple(int(x) for x in v) for k, v in drawn.items()})


def deal_scheme(game: Any) -> int:
    """The version of `game`'s deal scheme (recorded in results manifests; 0: a chance stream, no dealer)."""
    if _dealer_path(game) is None:
        return 0
    return int(dealer_of(game).SCHEME)


def deal_seed(master_seed: int, index: int) -> int:
    """The seed of deal `index` of a run with master seed `master_seed` (deal (S, i) of a batch)."""
    sequence = np.random.SeedSequence(int(master_seed), spawn_key=(DEAL_SPAWN_KEY, int(index)))
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))


def check_fits(deal: Deal, game: Any) -> None:
    """ConfigError unless `deal` was dealt for `game`'s name, player count and deal scheme."""
    if deal.game != game.name or deal.players != game.num_players:
        raise ConfigError(f"the deal is for {deal.game} with {deal.players} player(s), but the game is "
                          f"{game.name} with {game.num_players}")
    scheme = deal_scheme(game)
    if deal.scheme != scheme:
        raise ConfigError(f"the deal uses {game.name}'s deal scheme {deal.scheme}; this version deals with "
                          f"scheme {scheme}")


def setup_from_seed(game: Any, state: Any, seed: int | None) -> Any:
    """`state` with its setup chance nodes resolved from deal `seed` (nothing when `seed` is None)."""
    if seed is None:
        return state
    return resolve_chance(state, new_deal(game, seed))


def resolve_chance(state: Any, deal: "Deal | ChanceStream") -> Any:
    """Apply the deal's outcomes to `state` until a player is to move (or the game is over)."""
    while state.current_player() == CHANCE:
        state.apply_action(deal.outcome(state))
    return state


def describe(game: Any, deal: Deal) -> str:
    """The deal as a person reads it: each component with its description and its outcomes in order."""
    dealer = dealer_of(game)
    lines = [f"{game.spec.title}, {deal.players} player(s): deal seed {deal.seed} (deal scheme {deal.scheme})"]
    for component in dealer.components(game):
        outcomes = deal.components[component.name]
        names = ", ".join(dealer.outcome_name(game, component.name, o) for o in outcomes)
        lines.append(f"  {component.name}: {component.description}")
        lines.append(f"    {names}")
    return "\n".join(lines)
