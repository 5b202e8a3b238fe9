"""The readable reference engine for The Cave (Pairs deck): the executable specification.

Every rule of `rules/the-cave-pairs.md` is carried out here in plain Python, in the order the rules give
it; the compiled engine (`compiled.pyx`) mirrors this module function by function.

A position holds cards as counts per rank (index 0 = rank 1 ... index 9 = rank 10) in these places: each
player's hand, captured pile and cards played this round, the Cave, the burned cards and the deck. The deck
is a multiset, not an order: the shuffle is explicit chance. Every card that leaves the deck (burned, dealt
to a hand, dealt to the Cave, drawn to refill it) is a chance node whose outcomes are the ranks still in the
deck, each with probability copies left / cards left. Drawing a uniformly random card from what is left,
one card at a time, is the same as dealing from a uniformly shuffled deck, and it keeps chance outcome ids
small (10 ranks). Which seat deals first (`first_dealer="random"`) is a chance node over the seats.

A match: rounds (one per player by default). A round: burn, deal the hands one card at a time clockwise
from the dealer's left, deal the Cave, then the players play in turn from the dealer's left. A turn: play a
card (action id = rank - 1), capture against the Cave as it was before, the played card joins the Cave,
refill the Cave up to its size while the deck lasts (one chance node per card). After the round's last
card nothing is refilled, since no card is played into the Cave afterwards. The round is scored by rank
majorities, totals are kept, and the deal passes to the left (seat + 1).
"""
from __future__ import annotations

from typing import Any

from ..api import CHANCE, TERMINAL, IllegalActionError, as_action
from .state import (KIND_BURN, KIND_CAVE, KIND_DEAL, KIND_DEALER, KIND_PLAY, KIND_REFILL, KIND_STRIDE, KIND_TERMINAL,
                   StateMixin)
from .rules import NUM_RANKS, Config, capture_target, round_points, rules


class ReferenceState(StateMixin):
    """A position of The Cave in the reference engine; see `cavekit.core.api.State` for the protocol."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self._config: Config = game.config
        n = game.num_players
        self.round = 0
        self.first_dealer = -1 if self._config.first_dealer == "random" else int(self._config.first_dealer)
        self.totals = [0] * n
        self.round_scores: list[list[int]] = []
        self._history: list[int] = []
        self._kinds: list[int] = []
        self._start_round()

    def _start_round(self) -> None:
        n = self._game.num_players
        self.hands = [[0] * NUM_RANKS for _ in range(n)]
        self.captured = [[0] * NUM_RANKS for _ in range(n)]
        self.played = [[0] * NUM_RANKS for _ in range(n)]
        self.cave = [0] * NUM_RANKS
        self.burned = [0] * NUM_RANKS
        self.deck = list(rules().copies)
        self.dealt = 0              # cards located by this round's setup so far (burned, hands, Cave)
        self.turn = 0               # cards played this round
        self.refills_pending = 0    # cards still to draw into the Cave this turn

    # ----------------------------------------------------------------------------------------------
    # Whose move

    def dealer(self) -> int:
        """The seat dealing this round (-1 before the first dealer is chosen)."""
        if self.first_dealer < 0:
            return -1
        return (self.first_dealer + min(self.round, self._config.num_rounds - 1)) % self._game.num_players

    def is_terminal(self) -> bool:
        return self.round >= self._config.num_rounds

    def is_chance_node(self) -> bool:
        return not self.is_terminal() and (self.first_dealer < 0 or self.dealt < self._config.setup_cards
                                           or self.refills_pending > 0)

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        if self.is_chance_node():
            return CHANCE
        return (self.dealer() + 1 + self.turn) % self._game.num_players

    def node_kind(self) -> int:
        """What this node is: kind * KIND_STRIDE + the player concerned (see KIND_*)."""
        if self.is_terminal():
            return KIND_TERMINAL * KIND_STRIDE
        if self.first_dealer < 0:
            return KIND_DEALER * KIND_STRIDE
        c = self._config
        if self.dealt < c.burn_cards:
            return KIND_BURN * KIND_STRIDE
        if self.dealt < c.burn_cards + c.players * c.hand_size:
            return KIND_DEAL * KIND_STRIDE + self._deal_recipient()
        if self.dealt < c.setup_cards:
            return KIND_CAVE * KIND_STRIDE
        if self.refills_pending:
            return KIND_REFILL * KIND_STRIDE
        return KIND_PLAY * KIND_STRIDE + self.current_player()

    def _deal_recipient(self) -> int:
        """The hand the next dealt card goes to: one at a time, clockwise from the dealer's left."""
        return (self.dealer() + 1 + self.dealt - self._config.burn_cards) % self._game.num_players

    def deck_size(self) -> int:
        return sum(self.deck)

    # ----------------------------------------------------------------------------------------------
    # Chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance_node():
            return []
        if self.first_dealer < 0:
            n = self._game.num_players
            return [(seat, 1.0 / n) for seat in range(n)]
        left = self.deck_size()
        return [(rank, self.deck[rank] / left) for rank in range(NUM_RANKS) if self.deck[rank]]

    def _apply_chance(self, outcome: int) -> None:
        if self.first_dealer < 0:
            self.first_dealer = outcome
            return
        c = self._config
        self.deck[outcome] -= 1
        if self.dealt < c.burn_cards:
            self.burned[outcome] += 1
            self.dealt += 1
        elif self.dealt < c.burn_cards + c.players * c.hand_size:
            self.hands[self._deal_recipient()][outcome] += 1
            self.dealt += 1
        elif self.dealt < c.setup_cards:
            self.cave[outcome] += 1
            self.dealt += 1
        else:
            self.cave[outcome] += 1
            self.refills_pending -= 1

    # ----------------------------------------------------------------------------------------------
    # Legal actions

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == TERMINAL:
            return []
        if player == CHANCE:
            return [o for o, _ in self.chance_outcomes()]
        return [rank for rank in range(NUM_RANKS) if self.hands[player][rank]]

    def illegal_reason(self, action: Any) -> str | None:
        """Why `action` is illegal here, or None if it is legal."""
        player = self.current_player()
        if player == TERMINAL:
            return "the game is over"
        index = as_action(action)
        if index is None:
            return f"an action is an int in [0, {NUM_RANKS})"
        if player == CHANCE:
            outcomes = [o for o, _ in self.chance_outcomes()]
            if index in outcomes:
                return None
            return f"this chance node's outcomes are {outcomes}"
        if not 0 <= index < NUM_RANKS:
            return f"actions are numbered 0 to {NUM_RANKS - 1} (play rank 1 to {NUM_RANKS})"
        if not self.hands[player][index]:
            held = [r + 1 for r in range(NUM_RANKS) if self.hands[player][r]]
            return f"you hold no {index + 1}; your hand holds ranks {held}"
        return None

    # ----------------------------------------------------------------------------------------------
    # Applying actions

    def apply_action(self, action: Any) -> None:
        """Apply a legal action; an illegal one raises IllegalActionError and changes nothing."""
        reason = self.illegal_reason(action)
        player = self.current_player()
        if reason is not None:
            index = as_action(action)
            text = f"play {index + 1}" if player >= 0 and index is not None and 0 <= index < NUM_RANKS else None
            raise IllegalActionError(action, player, reason, text)
        action = as_action(action)
        self._kinds.append(self.node_kind())
        if player == CHANCE:
            self._apply_chance(action)
        else:
            self._play(player, action)
        self._history.append(action)

    def _play(self, player: int, rank: int) -> None:
        """Play a card: capture against the Cave as it was, the card joins the Cave, then refill or end the round."""
        self.hands[player][rank] -= 1
        self.played[player][rank] += 1
        target = capture_target(self.cave, rank)
        self.captured[player][target] += self.cave[target]
        self.cave[target] = 0
        self.cave[rank] += 1
        self.turn += 1
        c = self._config
        if self.turn == c.players * c.hand_size:
            self._end_round(player)
        else:
            self.refills_pending = min(max(0, c.cave_size - sum(self.cave)), self.deck_size())

    def _end_round(self, last_player: int) -> None:
        if self._config.score_leftover:
            for rank in range(NUM_RANKS):
                self.captured[last_player][rank] += self.cave[rank]
                self.cave[rank] = 0
        points = round_points(self.captured)
        self.round_scores.append(points)
        self.totals = [t + p for t, p in zip(self.totals, points)]
        self.round += 1
        if not self.is_terminal():
            self._start_round()

    # ----------------------------------------------------------------------------------------------
    # Results and bookkeeping

    def scores(self) -> list[int]:
        """Match totals: the points of every finished round."""
        return list(self.totals)

    def round_points(self) -> list[int]:
        """Points the current round's captured piles would score if it ended now."""
        return round_points(self.captured)

    def clone(self) -> "ReferenceState":
        other = ReferenceState.__new__(ReferenceState)
        other.__dict__.update(self.__dict__)
        for name in ("hands", "captured", "played", "round_scores"):
            setattr(other, name, [list(row) for row in getattr(self, name)])
        for name in ("cave", "burned", "deck", "totals", "_history", "_kinds"):
            setattr(other, name, list(getattr(self, name)))
        return other

    def history(self) -> list[int]:
        return list(self._history)

    def history_kinds(self) -> list[int]:
        """`node_kind()` of the node each history entry was applied at (same length as `history()`)."""
        return list(self._kinds)

    @classmethod
    def from_dict(cls, game: Any, d: dict[str, Any], history: list[int], kinds: list[int]) -> "ReferenceState":
        """The position described by `to_dict()` output (used to explain a compiled state's illegal moves)."""
        state = cls(game)
        for key, value in d.items():
            setattr(state, key, [list(row) if isinstance(row, list) else row for row in value]
                    if isinstance(value, list) else value)
        state._history = list(history)
        state._kinds = list(kinds)
        return state

    def to_dict(self) -> dict[str, Any]:
        """Every field of the position, in a canonical form shared with the compiled engine."""
        return {
            "round": self.round, "first_dealer": self.first_dealer, "dealt": self.dealt, "turn": self.turn,
            "refills_pending": self.refills_pending,
            "hands": [list(h) for h in self.hands], "captured": [list(c) for c in self.captured],
            "played": [list(p) for p in self.played], "cave": list(self.cave), "burned": list(self.burned),
            "deck": list(self.deck), "totals": list(self.totals),
            "round_scores": [list(s) for s in self.round_scores],
        }
