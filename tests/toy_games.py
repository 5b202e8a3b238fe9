"""A tiny chance game on the cavekit API, small enough that its exact value can be worked out by hand.

Pig with a loaded die: a turn starts with a roll (a chance node). Face 1 busts (the turn's total is lost
and the turn ends); any other face adds to the turn's total, and the player then chooses `hold` (bank the
total, end the turn) or `roll` again, at most `max_rolls` rolls a turn (the last roll banks by itself).
Each player has `turns` turns, player 0 first. Two players: +1 to the higher total, -1 to the lower, 0 on a
tie; solo: the return is the total. The die is deliberately not uniform so that a search that forgets the
probabilities gets a wrong value. Nothing is registered: tests build `PigGame(...)` directly.
"""
from __future__ import annotations

import json
from typing import Any

from cavekit.core.api import CHANCE, TERMINAL, IllegalActionError, as_action

HOLD, ROLL = 0, 1
ACTION_NAMES = ("hold", "roll")
DIE = ((1, 0.3), (2, 0.5), (3, 0.2))   # (face, probability); outcome id i is face DIE[i][0]


class PigState:
    """One position: totals banked, the running turn's total and rolls, whose turn."""

    def __init__(self, game: "PigGame"):
        self._game = game
        self.banked = [0] * game.num_players
        self.turn_total = 0
        self.rolls = 0
        self.turn = 0              # turns played so far, all players counted
        self.rolling = True        # a roll is pending (chance node)
        self._history: list[int] = []

    # whose move
    def current_player(self) -> int:
        if self.turn >= self._game.turns * self._game.num_players:
            return TERMINAL
        return CHANCE if self.rolling else self.turn % self._game.num_players

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    # moves
    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, p) for i, (_, p) in enumerate(self._game.die)] if self.is_chance_node() else []

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == TERMINAL:
            return []
        if player == CHANCE:
            return list(range(len(self._game.die)))
        return [HOLD, ROLL]

    def legal_actions_mask(self) -> list[int]:
        legal = set(self.legal_actions())
        return [int(a in legal) for a in range(2)]

    def apply_action(self, action: int) -> None:
        player = self.current_player()
        if as_action(action) not in self.legal_actions():
            raise IllegalActionError(action, player, f"legal now: {self.legal_actions()}")
        action = as_action(action)
        if player == CHANCE:
            face = self._game.die[action][0]
            self.rolls += 1
            if face == 1:
                self.turn_total = 0
                self._end_turn()
            else:
                self.turn_total += face
                if self.rolls == self._game.max_rolls:
                    self._end_turn()
                else:
                    self.rolling = False
        elif action == HOLD:
            self._end_turn()
        else:
            self.rolling = True
        self._history.append(action)

    def _end_turn(self) -> None:
        self.banked[self.turn % self._game.num_players] += self.turn_total
        self.turn_total = 0
        self.rolls = 0
        self.turn += 1
        self.rolling = True

    # results
    def scores(self) -> list[int]:
        return list(self.banked)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._game.num_players
        if self._game.num_players == 1:
            return [float(self.banked[0])]
        a, b = self.banked
        return [0.0, 0.0] if a == b else ([1.0, -1.0] if a > b else [-1.0, 1.0])

    # records and notation
    def clone(self) -> "PigState":
        other = PigState.__new__(PigState)
        other.__dict__.update(self.__dict__)
        other.banked = list(self.banked)
        other._history = list(self._history)
        return other

    def history(self) -> list[int]:
        return list(self._history)

    def to_dict(self) -> dict[str, Any]:
        return {"banked": list(self.banked), "turn_total": self.turn_total, "rolls": self.rolls,
                "turn": self.turn, "rolling": self.rolling}

    def serialize(self) -> str:
        """The position only (no history): the searches use it as a transposition key."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def action_to_string(self, action: int) -> str:
        if self.is_chance_node():
            return f"roll {self._game.die[action][0]}"
        return ACTION_NAMES[action]

    def string_to_action(self, text: str) -> int:
        return ACTION_NAMES.index(text.strip())

    def __str__(self) -> str:
        return f"Pig banked={self.banked} turn_total={self.turn_total} rolls={self.rolls} turn={self.turn}"


class PigGame:
    """Pig with a loaded die; `players` 1 or 2, `turns` each, at most `max_rolls` rolls a turn."""

    name = "toy-pig"
    engine = "python"
    num_distinct_actions = 2

    def __init__(self, players: int = 2, turns: int = 1, max_rolls: int = 2,
                 die: tuple[tuple[int, float], ...] = DIE):
        self.num_players = players
        self.turns = turns
        self.max_rolls = max_rolls
        self.die = die
        self.max_chance_outcomes = len(die)
        self.max_game_length = 2 * max_rolls * turns * players

    def new_initial_state(self, seed: int | None = None) -> PigState:
        return PigState(self)

    def parameters(self) -> dict[str, Any]:
        return {"players": self.num_players, "turns": self.turns, "max_rolls": self.max_rolls}

    def min_utility(self) -> float:
        return -1.0 if self.num_players == 2 else 0.0

    def max_utility(self) -> float:
        return 1.0 if self.num_players == 2 else float(self.turns * self.max_rolls * max(f for f, _ in self.die))

    def turn_is_over(self, before: PigState, action: int, after: PigState) -> bool:
        """A turn ends when the turn counter moves (a hold, a bust or the last roll)."""
        return after.turn != before.turn
