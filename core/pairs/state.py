"""What every state of The Cave (Pairs deck) shares whichever engine computes it.

`StateMixin` gives both engines the same results, notation, records, hidden-information views and rendering on
top of their `to_dict()`, `history()` and `history_kinds()`. The engines import it from here, and `game.py`
imports the engines, so nothing imports back.

Returns (2 to 6 players; the match winner decides them): with k co-winners among n players (highest match
total, after the `tie_break` rule), each winner gets (n - k) / (k (n - 1)) and every other player -1 / (n - 1).
So a unique winner gets +1, a two-player game is +1/-1 or 0/0 for a draw, a match where everyone ties is 0
for all, and the returns always sum to 0. `scores()` are the match totals.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..api import CHANCE, TERMINAL, IllegalActionError, mask_of, shared_win_returns
from ..deal import DealError
from ..records import RecordedState
from .deal import FIRST_DEALER, deck_component
from .rules import NUM_RANKS, round_points, rules

RECORD_FORMAT = "cavekit-pairs"
RECORD_VERSION = 1

# What a node of the game is, recorded for every history entry (`history_kinds()`), so views of the
# history for one player know which entries that player saw: kind * KIND_STRIDE + the player concerned
# (the hand dealt to, or the player playing; 0 otherwise). The compiled core uses the same numbers.
KIND_DEALER, KIND_BURN, KIND_DEAL, KIND_CAVE, KIND_REFILL, KIND_PLAY, KIND_TERMINAL = range(7)
KIND_STRIDE = 8
EVENT_KINDS = KIND_TERMINAL   # kinds a history entry can have (a row of the information-state tensor each)
_SETUP_KINDS = (KIND_BURN, KIND_DEAL, KIND_CAVE)


def _ranks_text(counts: list[int]) -> str:
    """`[0, 2, 1, ...]` as `2 2 3`: each card's rank, ascending."""
    cards = [str(rank + 1) for rank in range(NUM_RANKS) for _ in range(counts[rank])]
    return " ".join(cards) if cards else "-"


class StateMixin(RecordedState):
    """Results, notation, records, hidden-information views and rendering shared by both engines."""

    record_format = RECORD_FORMAT
    record_version = RECORD_VERSION

    _game: Any          # the ThePairsCave this state belongs to

    # -- results ------------------------------------------------------------------------------------

    def winners(self) -> list[int]:
        """The winning seats of a finished match (several if tied after the tie-break), [] before the end."""
        if not self.is_terminal():  # type: ignore[attr-defined]
            return []
        d = self.to_dict()  # type: ignore[attr-defined]
        totals = d["totals"]
        best = max(totals)
        leaders = [p for p, t in enumerate(totals) if t == best]
        if len(leaders) > 1 and self._game.config.tie_break == "final_round":
            final = d["round_scores"][-1]
            top = max(final[p] for p in leaders)
            leaders = [p for p in leaders if final[p] == top]
        return leaders

    def returns(self) -> list[float]:
        """Zero-sum match returns (see the module docstring); 0 for everyone until the match is over."""
        return shared_win_returns(self._game.num_players, self.winners())

    def legal_actions_mask(self) -> list[int]:
        """1 for each legal action id, 0 elsewhere (length num_distinct_actions)."""
        return mask_of(self.legal_actions(), self._game.num_distinct_actions)  # type: ignore[attr-defined]

    def dealer_seat(self) -> int:
        """The seat dealing the current round (the last round once the match is over; -1 before the first deal)."""
        d = self.to_dict()  # type: ignore[attr-defined]
        if d["first_dealer"] < 0:
            return -1
        return (d["first_dealer"] + min(d["round"], self._game.config.num_rounds - 1)) % self._game.num_players

    def chance_component(self) -> tuple[str, int]:
        """The deal component this chance node draws from (`deal.py`): the first dealer, or the next card of
        this round's deck, numbered by the cards that have left that deck so far."""
        if self.current_player() != CHANCE:  # type: ignore[attr-defined]
            raise DealError("the position is not a chance node, so it draws from no deal component")
        d = self.to_dict()  # type: ignore[attr-defined]
        if d["first_dealer"] < 0:
            return FIRST_DEALER, 0
        return deck_component(d["round"]), rules().total - sum(d["deck"])

    # -- notation -----------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """`play 7` for a player's action; a chance outcome is named by what it does (`refill 7`)."""
        player = self.current_player()  # type: ignore[attr-defined]
        if player == CHANCE:
            return _chance_text(self.node_kind(), action)  # type: ignore[attr-defined]
        if not 0 <= action < NUM_RANKS:
            raise IllegalActionError(action, player, f"actions are numbered 0 to {NUM_RANKS - 1} (play rank 1 to 10)")
        return f"play {action + 1}"

    def string_to_action(self, text: str) -> int:
        """The action named by `text` (`play 7`; case and spacing do not matter); a bare number is the id."""
        stripped = " ".join(text.strip().lower().split())
        if stripped.lstrip("-").isdigit():
            return int(stripped)
        player = self.current_player()  # type: ignore[attr-defined]
        if player == CHANCE:
            for outcome, _ in self.chance_outcomes():  # type: ignore[attr-defined]
                if _chance_text(self.node_kind(), outcome) == stripped:  # type: ignore[attr-defined]
                    return outcome
        word, _, number = stripped.partition(" ")
        if word == "play" and number.isdigit() and 1 <= int(number) <= NUM_RANKS:
            return int(number) - 1
        legal = "; ".join(self.action_to_string(a) for a in self.legal_actions())  # type: ignore[attr-defined]
        raise IllegalActionError(text, player, f"no action has that notation; legal now: {legal or 'none'}")

    # -- hidden information -------------------------------------------------------------------------

    def _hands_visible(self) -> bool:
        return self._game.config.hand_visibility == "open"

    def _check_player(self, player: int) -> None:
        if not 0 <= player < self._game.num_players:
            raise ValueError(f"player {player!r} is not a seat of this {self._game.num_players}-player game")

    def observation(self, player: int) -> dict[str, Any]:
        """Everything `player` can see now (no other hand unless hands are open, no burned card, no deck).

        `unseen` counts, per rank, the cards the player cannot see (other hands, burned cards, deck).
        """
        self._check_player(player)
        d = self.to_dict()  # type: ignore[attr-defined]
        n = self._game.num_players
        unseen = list(rules().copies)
        visible_hands = range(n) if self._hands_visible() else [player]
        for rank in range(NUM_RANKS):
            unseen[rank] -= d["cave"][rank] + sum(pile[rank] for pile in d["captured"])
            unseen[rank] -= sum(d["hands"][q][rank] for q in visible_hands)
        view = {"player": player, "round": min(d["round"], self._game.config.num_rounds - 1),
                "rounds": self._game.config.num_rounds, "dealer": self.dealer_seat(),
                "current_player": self.current_player(),  # type: ignore[attr-defined]
                "hand": list(d["hands"][player]), "hand_sizes": [sum(h) for h in d["hands"]],
                "cave": list(d["cave"]), "captured": [list(c) for c in d["captured"]],
                "played": [list(p) for p in d["played"]], "deck_size": sum(d["deck"]),
                "burned_count": sum(d["burned"]), "unseen": unseen, "totals": list(d["totals"]),
                "round_scores": [list(s) for s in d["round_scores"]], "round_points": round_points(d["captured"])}
        if self._hands_visible():
            view["hands"] = [list(h) for h in d["hands"]]
        return view

    def observation_tensor(self, player: int) -> list[float]:
        """A flat numeric view for `player` (length `game.observation_tensor_size()`); seats listed from `player`.

        Per rank: own hand, Cave, unseen cards; per seat (starting with `player`): captured counts per rank,
        hand size, match total, points the round would give now; then deck size, rounds left, and one-hot
        the seat to move (relative to `player`; all zero at chance and terminal nodes).
        """
        view = self.observation(player)
        n = self._game.num_players
        seats = [(player + i) % n for i in range(n)]
        tensor: list[float] = [*view["hand"], *view["cave"], *view["unseen"]]
        for q in seats:
            tensor += view["captured"][q]
        tensor += [view["hand_sizes"][q] for q in seats]
        tensor += [view["totals"][q] for q in seats]
        tensor += [view["round_points"][q] for q in seats]
        tensor += [view["deck_size"], self._game.config.num_rounds - len(view["round_scores"])]
        tensor += [1.0 if view["current_player"] == q else 0.0 for q in seats]
        return [float(x) for x in tensor]

    def information_state_tensor(self, player: int) -> np.ndarray:
        """Everything `player` has seen, as a float32 vector of length `game.information_state_tensor_size()`.

        The numeric twin of `information_state_string(player)`: two states of one game give equal vectors
        for `player` exactly when they give equal strings. Layout (`game.information_state_tensor_layout()`),
        seats relative to `player` (0 is `player`, 1 the next seat, ...) except in `observer`:
        - `observer` (n): one-hot the absolute seat of `player`, so views of different seats never coincide;
        - `observation` (`observation_tensor_size()`): `observation_tensor(player)`, the current view;
        - `events` (`max_game_length` x (6 + n + 11)): one row per history entry in order (rows past the
          history are zero), each made of one-hot the kind (first dealer, burn, deal, cave, refill, play),
          one-hot the seat concerned (the first dealer, the hand dealt to, the player playing; none for
          burn, cave and refill), and one-hot the rank (10) or `hidden` (1) for a card `player` did not see
          (burned cards; other players' deals unless hands are open); the first-dealer row has no rank.
        The events are the `seen:` list of the string and the observation is its remaining lines, which
        the seen events determine, so the vector holds exactly what the string holds.
        """
        self._check_player(player)
        game = self._game
        n = game.num_players
        out = np.zeros(game.information_state_tensor_size(), np.float32)
        out[player] = 1.0
        observation = self.observation_tensor(player)
        start = n + len(observation)
        out[n:start] = observation
        history = np.asarray(self.history(), np.int64)  # type: ignore[attr-defined]
        if len(history) > game.max_game_length:
            raise ValueError(f"history of {len(history)} entries exceeds max_game_length {game.max_game_length}")
        kind, who = np.divmod(np.asarray(self.history_kinds(), np.int64), KIND_STRIDE)  # type: ignore[attr-defined]
        if len(kind) and kind.max() >= EVENT_KINDS:
            raise ValueError(f"history kind {int(kind.max())} has no row in the information-state tensor")
        rows = start + (EVENT_KINDS + n + NUM_RANKS + 1) * np.arange(len(history))
        out[rows + kind] = 1.0
        seated = (kind == KIND_DEALER) | (kind == KIND_DEAL) | (kind == KIND_PLAY)
        seat = np.where(kind == KIND_DEALER, history, who)
        out[(rows + EVENT_KINDS + (seat - player) % n)[seated]] = 1.0
        hidden = (kind == KIND_BURN) | ((kind == KIND_DEAL) & (who != player) & (not self._hands_visible()))
        rank = np.where(hidden, NUM_RANKS, history)
        out[(rows + EVENT_KINDS + n + rank)[kind != KIND_DEALER]] = 1.0
        return out

    def information_state_string(self, player: int) -> str:
        """Everything `player` has seen, in order: the deal as it reached them, every play and refill, and now.

        Hidden cards (other hands unless hands are open, burned cards) appear as `?`; the deck's order
        is never shown. Two states give the same string exactly when `player` cannot tell them apart.
        """
        self._check_player(player)
        lines = [f"The Cave (pairs) {json.dumps(self._game.parameters(), sort_keys=True)}; view of p{player}"]
        events: list[str] = []
        for action, code in zip(self.history(), self.history_kinds()):  # type: ignore[attr-defined]
            kind, who = divmod(code, KIND_STRIDE)
            if kind == KIND_DEALER:
                events.append(f"p{action} deals first")
            elif kind == KIND_BURN:
                events.append("burn ?")
            elif kind == KIND_DEAL:
                events.append(f"deal p{who} {action + 1 if who == player or self._hands_visible() else '?'}")
            elif kind == KIND_CAVE:
                events.append(f"cave {action + 1}")
            elif kind == KIND_REFILL:
                events.append(f"refill {action + 1}")
            else:
                events.append(f"p{who} plays {action + 1}")
        lines.append("seen: " + ", ".join(events))
        view = self.observation(player)
        lines.append(f"your hand: {_ranks_text(view['hand'])}")
        if self._hands_visible():
            lines.append("hands: " + "; ".join(f"p{q} {_ranks_text(h)}" for q, h in enumerate(view["hands"])))
        lines.append(f"cave: {_ranks_text(view['cave'])}; deck: {view['deck_size']} cards; "
                     f"burned: {view['burned_count']}; hand sizes: {view['hand_sizes']}")
        lines.append("captured: " + "; ".join(f"p{q} {_ranks_text(c)}" for q, c in enumerate(view["captured"])))
        lines.append(f"totals: {view['totals']}; rounds: {view['round_scores']}; to move: {view['current_player']}")
        return "\n".join(lines)

    def resample_from_infostate(self, player: int, rng: Any) -> Any:
        """A full state `player` cannot tell from this one, with the cards they cannot see dealt at random.

        Why this is the right distribution. Think of the 55 cards as distinct physical cards, shuffled
        uniformly. What `player` has seen in a round fixes some cards' places (their own hand, the Cave's
        deal, every refill) and says that each card another player played came from that player's hand.
        Every arrangement of the remaining, unseen physical cards over the remaining places (the rest of
        each hidden hand, the burned cards, the deck) extends to exactly one deal consistent with all of it,
        and all deals were equally likely, so given what was seen the unseen cards lie in a uniformly random
        arrangement. That a played card was in its player's hand only removes that card from the unseen
        pool; it says nothing about the others, because the unseen cards are exchangeable. So: shuffle the
        unseen cards, give each hidden hand its known played cards plus the next cards of the shuffle, burn
        the next ones, and leave the rest in the deck (as ranks this gives the multivariate hypergeometric
        split of the unseen ranks). Earlier rounds are redrawn the same way (their burned cards and the
        order hands were dealt are hidden too). The one assumption: opponents' choices of which card to play
        are not read as evidence about the rest of their hand (a policy-free belief, as in IS-MCTS).

        `rng` is a numpy Generator (or a seed for one). The new state is rebuilt by replaying the redrawn
        history in the same engine, so it is a legal state of this game with its own valid record.
        """
        self._check_player(player)
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(rng)
        # A search resamples the same position many times: what is hidden where is worked out once.
        history = self.history()  # type: ignore[attr-defined]
        cached = getattr(self, "_resample_plan", None)
        if cached is None or cached[0] != (player, len(history)):
            kinds = self.history_kinds()  # type: ignore[attr-defined]
            plan = _ResamplePlan(history, kinds, player, self._hands_visible())
            self._resample_plan = ((player, len(history)), plan)
        else:
            plan = cached[1]
        return self._game.replay(plan.draw(rng))

    # -- records ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        return render_state(self)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} pairs players={self._game.num_players} "
                f"history={len(self.history())} actions>")  # type: ignore[attr-defined]



def _chance_text(kind_code: int, outcome: int) -> str:
    kind, who = divmod(kind_code, KIND_STRIDE)
    if kind == KIND_DEALER:
        return f"p{outcome} deals first"
    rank = outcome + 1
    return {KIND_BURN: f"burn {rank}", KIND_DEAL: f"deal {rank} to p{who}", KIND_CAVE: f"cave {rank}",
            KIND_REFILL: f"refill {rank}"}.get(kind, f"chance outcome {outcome}")


def _round_segments(kinds: list[int]) -> list[list[int]]:
    """History indices of each round (the first-dealer choice belongs to none): setup draws start a round."""
    segments: list[list[int]] = []
    previous = -1
    for i, code in enumerate(kinds):
        kind = code // KIND_STRIDE
        if kind == KIND_DEALER:
            continue
        if kind in _SETUP_KINDS and (not segments or previous not in _SETUP_KINDS):
            segments.append([])
        segments[-1].append(i)
        previous = kind
    return segments


class _ResamplePlan:
    """Where one player's unseen cards go in each round of a history, and which ranks are unseen.

    Per round: the unseen cards (the full deck minus every card the player saw leave it, minus the cards
    other hidden hands have played), each hidden hand's deal slots with the cards known to have been in it,
    and the burn slots. `draw` shuffles the unseen cards into those places (see `resample_from_infostate`).
    """

    def __init__(self, history: list[int], kinds: list[int], player: int, hands_visible: bool):
        self.history = list(history)
        self.rounds: list[tuple[np.ndarray, list[tuple[list[int], np.ndarray]], list[int]]] = []
        for segment in _round_segments(kinds):
            seen = [0] * NUM_RANKS
            hidden_slots: dict[int, list[int]] = {}
            known_in_hand: dict[int, list[int]] = {}
            burn_slots: list[int] = []
            for i in segment:
                kind, who = divmod(kinds[i], KIND_STRIDE)
                rank = history[i]
                if kind == KIND_BURN:
                    burn_slots.append(i)
                elif kind == KIND_DEAL and who != player and not hands_visible:
                    hidden_slots.setdefault(who, []).append(i)
                elif kind in (KIND_DEAL, KIND_CAVE, KIND_REFILL):
                    seen[rank] += 1
                elif kind == KIND_PLAY and who != player and not hands_visible:
                    known_in_hand.setdefault(who, []).append(rank)
            unseen = [copies - seen[rank] for rank, copies in enumerate(rules().copies)]
            for cards in known_in_hand.values():
                for rank in cards:
                    unseen[rank] -= 1
            pool = np.repeat(np.arange(NUM_RANKS), unseen)
            hands = [(hidden_slots[who], np.asarray(known_in_hand.get(who, []), dtype=pool.dtype))
                     for who in sorted(hidden_slots)]
            self.rounds.append((pool, hands, burn_slots))

    def draw(self, rng: np.random.Generator) -> list[int]:
        """A history with every hidden card redrawn."""
        new_history = list(self.history)
        for pool, hands, burn_slots in self.rounds:
            pool = pool.copy()
            rng.shuffle(pool)
            taken = 0
            for slots, known in hands:
                free = len(slots) - len(known)
                cards = np.concatenate([known, pool[taken:taken + free]])
                taken += free
                rng.shuffle(cards)
                for i, rank in zip(slots, cards.tolist()):
                    new_history[i] = rank
            for i, rank in zip(burn_slots, pool[taken:taken + len(burn_slots)].tolist()):
                new_history[i] = rank
        return new_history


def render_state(state: Any, player: int | None = None) -> str:
    """The position for a person: every hand (`player` None), or what `player` sees (others' hands and the
    deck as counts, unless hands are open or the match is over)."""
    game = state._game
    d = state.to_dict()
    n = game.num_players
    rounds = game.config.num_rounds
    viewer, player = player, state.current_player()
    if player == TERMINAL:
        status = "match over; winner(s): " + ", ".join(f"p{p}" for p in state.winners())
    elif player == CHANCE:
        status = "dealing" if d["first_dealer"] < 0 or d["dealt"] < game.config.setup_cards else "refilling the Cave"
    else:
        status = f"p{player} to play"
    dealer = state.dealer_seat()
    lines = [f"The Cave (pairs), {n} players, round {min(d['round'], rounds - 1) + 1} of {rounds}, "
             f"dealer {'?' if dealer < 0 else f'p{dealer}'}; {status}",
             f"Cave: {_ranks_text(d['cave'])}   deck: {sum(d['deck'])} cards"
             + (f"   burned: {sum(d['burned'])}" if game.config.burn_cards else "")]
    points = round_points(d["captured"])
    hidden = viewer is not None and player != TERMINAL and not state._hands_visible()
    for p in range(n):
        hand = f"{sum(d['hands'][p])} cards" if hidden and p != viewer else _ranks_text(d["hands"][p])
        lines.append(f"p{p}: hand {hand} | captured {_ranks_text(d['captured'][p])} "
                     f"({points[p]} pts this round) | total {d['totals'][p]}")
    if d["round_scores"]:
        lines.append("rounds: " + "; ".join(" ".join(str(x) for x in s) for s in d["round_scores"]))
    return "\n".join(lines)
