"""The Cave (Pairs deck) rules data: one table loaded from `data/the-cave-pairs.json`, shared by both engines.

The deck, the hand-size table, the Cave's size and the open-question defaults are read here into small
immutable records, so engine code never looks at JSON. `make_config` turns `load_game("pairs", ...)`
keyword parameters into a validated `Config`: every open question of the rules file is a parameter.

Parameters (defaults first; see `shared/rules/the-cave-pairs.md` section 7):
- `tie_break`: `shared` (tied match leaders are co-winners) or `final_round` (most points in the last round
  wins among them; still tied: shared).
- `burn_cards`: cards dealt face down out of play before the hands, as in basic Pairs (0 to 10; default 0).
- `cave_size`: cards dealt to the Cave and refilled up to (1 to 10; default 5).
- `hand_size`: cards per hand (an int, or a `{players: size}` table; default from the rules table).
- `rounds`: `players` (one round per player) or a number of rounds (1 to 12).
- `score_leftover`: False (cards left in the Cave at the end of a round score nothing) or True (they join
  the score pile of the player who played the round's last card, before scoring, as in fishing games).
- `first_dealer`: `random` (a chance node picks the seat) or a seat number.
- `hand_visibility`: `hidden` or `open` (every hand visible to everyone; the deck stays hidden).
A deal must fit in the deck: players x hand_size + cave_size + burn_cards <= 55.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import resources
from typing import Any

from ..api import ConfigError

NUM_RANKS = 10                 # ranks 1..10; a rank r has index r - 1 (also its action and chance outcome id)
MAX_PLAYERS = 6
MAX_ROUNDS = 12
MAX_BURN = 10
MAX_CAVE = 10
MAX_HAND = 27                  # 2 players x 27 + a Cave of 1 = 55: the largest hand any deal can hold

TIE_BREAKS = ("shared", "final_round")
FIRST_DEALER_RANDOM = "random"
HAND_VISIBILITIES = ("hidden", "open")
ROUNDS_PER_PLAYER = "players"


@dataclass(frozen=True)
class CaptureExample:
    """One worked capture example of the rules file."""

    cave: tuple[int, ...]
    play: int
    captured: tuple[int, ...]
    cave_after: tuple[int, ...]
    refill: int
    source: str


@dataclass(frozen=True)
class Rules:
    """The whole Pairs-deck table of The Cave."""

    copies: tuple[int, ...]                 # copies[i]: cards of rank i + 1
    total: int
    min_players: int
    max_players: int
    hand_size: dict[int, int]               # players -> cards per hand
    cave_size: int
    examples: tuple[CaptureExample, ...]
    scoring_example: dict[str, Any]
    defaults: dict[str, Any]                # config_defaults of the data file


@dataclass(frozen=True)
class Config:
    """The parameters of one game of The Cave (validated; build one with `make_config`)."""

    players: int
    tie_break: str
    burn_cards: int
    cave_size: int
    hand_size: int
    rounds: Any                 # "players" or an int
    score_leftover: bool
    first_dealer: Any           # "random" or a seat number
    hand_visibility: str

    @property
    def num_rounds(self) -> int:
        """Rounds in the match."""
        return self.players if self.rounds == ROUNDS_PER_PLAYER else int(self.rounds)

    @property
    def setup_cards(self) -> int:
        """Cards located at the start of a round: burned, dealt to the hands, dealt to the Cave."""
        return self.burn_cards + self.players * self.hand_size + self.cave_size

    def as_dict(self) -> dict[str, Any]:
        """The parameters as plain JSON values (the game's `parameters()`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _deck(data: dict[str, Any]) -> tuple[int, ...]:
    copies = data["deck"]["copies"]
    return tuple(int(copies[str(rank)]) for rank in range(1, NUM_RANKS + 1))


def _parse(data: dict[str, Any]) -> Rules:
    examples = tuple(CaptureExample(cave=tuple(e["cave"]), play=int(e["play"]), captured=tuple(e["captured"]),
                                    cave_after=tuple(e["cave_after"]), refill=int(e["refill"]), source=e["source"])
                     for e in data["examples"])
    copies = _deck(data)
    if sum(copies) != data["deck"]["total"]:
        raise ValueError("the rules data's deck copies do not add up to its total")
    return Rules(copies=copies, total=int(data["deck"]["total"]), min_players=int(data["players"]["min"]),
                 max_players=int(data["players"]["max"]),
                 hand_size={int(k): int(v) for k, v in data["hand_size"]["by_players"].items()},
                 cave_size=int(data["cave_size"]["value"]), examples=examples,
                 scoring_example=data["scoring_example"], defaults=dict(data["config_defaults"]))


def load_rules_data() -> dict[str, Any]:
    """The raw rules data shipped with the package."""
    text = resources.files(__package__).joinpath("data/the-cave-pairs.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def rules() -> Rules:
    """The parsed rules table (cached)."""
    return _parse(load_rules_data())


PARAMETERS = ("tie_break", "burn_cards", "cave_size", "hand_size", "rounds", "score_leftover", "first_dealer",
              "hand_visibility")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_in(name: str, value: Any, low: int, high: int, extra: str = "") -> int:
    if not _is_int(value) or not low <= value <= high:
        raise ConfigError(f"parameter {name}={value!r} is not allowed; allowed values: {extra}"
                          f"an integer from {low} to {high}")
    return int(value)


def _choice(name: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    if isinstance(value, bool) != isinstance(allowed[0], bool) or value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ConfigError(f"parameter {name}={value!r} is not allowed; allowed values: {shown}")
    return value


def make_config(players: int = 2, **params: Any) -> Config:
    """A Config from keyword parameters, defaults from the rules data; unknown names and values are refused."""
    r = rules()
    if not _is_int(players) or not r.min_players <= players <= r.max_players:
        raise ConfigError(f"The Cave is for {r.min_players} to {r.max_players} players, not {players!r}")
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ConfigError(f"unknown The Cave (pairs) parameter(s) {', '.join(unknown)}; "
                          f"known parameters: players, {', '.join(PARAMETERS)}")
    d = r.defaults
    tie_break = _choice("tie_break", params.get("tie_break", d["tie_break"]), TIE_BREAKS)
    burn = _int_in("burn_cards", params.get("burn_cards", d["burn_cards"]), 0, MAX_BURN)
    cave = _int_in("cave_size", params.get("cave_size", d["cave_size"]), 1, MAX_CAVE)
    hand = params.get("hand_size", {int(k): int(v) for k, v in d["hand_size"].items()})
    if isinstance(hand, dict):
        table = {int(k): v for k, v in hand.items()}
        if players not in table:
            raise ConfigError(f"parameter hand_size={hand!r} has no entry for {players} players")
        hand = table[players]
    hand = _int_in("hand_size", hand, 1, MAX_HAND)
    rounds = params.get("rounds", d["rounds"])
    if rounds != ROUNDS_PER_PLAYER:
        rounds = _int_in("rounds", rounds, 1, MAX_ROUNDS, extra=f"{ROUNDS_PER_PLAYER!r} or ")
    leftover = _choice("score_leftover", params.get("score_leftover", d["score_leftover"]), (False, True))
    dealer = params.get("first_dealer", FIRST_DEALER_RANDOM)
    if dealer != FIRST_DEALER_RANDOM:
        dealer = _int_in("first_dealer", dealer, 0, players - 1, extra=f"{FIRST_DEALER_RANDOM!r} or ")
    visibility = _choice("hand_visibility", params.get("hand_visibility", "hidden"), HAND_VISIBILITIES)
    needed = players * hand + cave + burn
    if needed > r.total:
        raise ConfigError(f"the deal does not fit in the {r.total}-card deck: {players} hands of {hand} + a Cave "
                          f"of {cave} + {burn} burned cards = {needed} cards; allowed: at most {r.total}")
    return Config(players=players, tie_break=tie_break, burn_cards=burn, cave_size=cave, hand_size=hand,
                  rounds=rounds, score_leftover=leftover, first_dealer=dealer, hand_visibility=visibility)


def capture_target(cave: list[int], played: int) -> int:
    """The rank index a card of rank index `played` captures from `cave` (counts per rank index), or -1 if empty.

    The closest rank strictly below the played card; if none is below, the highest rank in the Cave.
    """
    for rank in range(played - 1, -1, -1):
        if cave[rank]:
            return rank
    for rank in range(NUM_RANKS - 1, -1, -1):
        if cave[rank]:
            return rank
    return -1


def round_points(captured: list[list[int]]) -> list[int]:
    """Points of one round from each player's captured counts per rank: rank majorities, ties score in full."""
    points = [0] * len(captured)
    for rank in range(NUM_RANKS):
        most = max(pile[rank] for pile in captured)
        if most == 0:
            continue
        for p, pile in enumerate(captured):
            if pile[rank] == most:
                points[p] += most
    return points
