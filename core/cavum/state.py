"""What every Cavum state shares whichever engine computes it: results, notation, records, hidden information.

The engines import `StateMixin` from here, and `game.py` imports the engines, so nothing imports back.

Returns (2 to 4 players, the same convention as The Cave (pairs)): with k co-winners among n players each
winner gets (n - k) / (k (n - 1)) and every other player -1 / (n - 1); a unique winner gets +1, two players
get +1/-1, and the returns always sum to 0. The winner has the highest score; a tie goes to the lower
phase-3 sequence card (`final_tie_break`; with `draw` tied leaders share the win). `scores()` are the
scoring-track positions.

Hidden information. The only hidden thing in Cavum is the colours of the stones a player holds (the order
deck is a chance node: a card's identity is drawn when it is turned up). Prospecting is public, so a player
with perfect memory can deduce every hand; the default model (`stones_in_hand_visibility =
hidden_colours_public_history`) is the table game as people play it: each player sees the board, the scales,
every order card and how many stones each player holds, but not the colours of the others' stones (it does
not replay the routes to deduce them). `information_state_string(player)` is that view, so two positions
that differ only in the colours of other players' stones look the same. The final sale reveals all stones.
With `stones_in_hand_visibility = public` (the perfect-memory variant) everything is visible and
`hidden_information` is False.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..api import CHANCE, mask_of, shared_win_returns
from ..deal import DealError
from ..notation import parse_action, table_text
from ..records import RecordedState
from .actions import action_table, normalize_text
from .deal import ORDER_DECK
from .render import render_state
from .rules import rules
from .stages import FINAL_SALE, OVER
from .view import PositionView

RECORD_FORMAT = "cavekit-cavum"
RECORD_VERSION = 1
RESAMPLE_TRIES = 500


class StateMixin(RecordedState):
    """Results, notation, records, hidden-information views and rendering shared by Cavum engines."""

    record_format = RECORD_FORMAT
    record_version = RECORD_VERSION

    _game: Any          # the Cavum game this state belongs to

    # -- the public view --------------------------------------------------------------------------

    def view(self) -> PositionView:
        """The position as a read-only `PositionView` (`view.py`): the same for every engine, built on demand
        from `to_dict()`; it is a snapshot, so ask again after `apply_action`."""
        return PositionView(self._game, self.to_dict())  # type: ignore[attr-defined]

    # -- results ------------------------------------------------------------------------------------

    def winners(self) -> list[int]:
        """The winning seats of a finished game (several only if tied under `final_tie_break=draw`)."""
        if not self.is_terminal():  # type: ignore[attr-defined]
            return []
        scores = self.scores()  # type: ignore[attr-defined]
        best = max(scores)
        leaders = [p for p, s in enumerate(scores) if s == best]
        if len(leaders) > 1 and self._game.config.final_tie_break == "lowest_sequence_card_of_phase_3":
            cards = self.to_dict()["last_cards"]  # type: ignore[attr-defined]
            leaders = [min(leaders, key=lambda p: cards[p])]
        return leaders

    def returns(self) -> list[float]:
        """Zero-sum returns (see the module docstring); 0 for everyone until the game is over."""
        return shared_win_returns(self._game.num_players, self.winners())

    def legal_actions_mask(self) -> list[int]:
        """1 for each legal action id, 0 elsewhere (length num_distinct_actions)."""
        return mask_of(self.legal_actions(), self._game.num_distinct_actions)  # type: ignore[attr-defined]

    def chance_component(self) -> tuple[str, int]:
        """The deal component this chance node draws from (`deal.py`): the order deck, at the card numbered by
        how many order cards have been turned up so far."""
        if self.current_player() != CHANCE:  # type: ignore[attr-defined]
            raise DealError("the position is not a chance node, so it draws from no deal component")
        deck = self.to_dict()["deck"]  # type: ignore[attr-defined]
        return ORDER_DECK, len(deck) - sum(deck)

    # -- notation -----------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """Readable, stable notation of an action (a chance outcome names the order card turned up)."""
        if self.current_player() == CHANCE:  # type: ignore[attr-defined]
            cards = rules().order_cards
            return f"turn up {cards[action].id}" if 0 <= action < len(cards) else f"chance outcome {action}"
        return table_text(self, action, action_table())

    def string_to_action(self, text: str) -> int:
        """The action named by `text` (case, spacing and parentheses do not matter); a number is taken as the id."""
        return parse_action(self, text, action_table(), normalize_text)

    # -- hidden information -------------------------------------------------------------------------

    def _check_player(self, player: int) -> None:
        if not isinstance(player, int) or not 0 <= player < self._game.num_players:
            raise ValueError(f"player {player!r} is not a seat of this {self._game.num_players}-player game")

    def _hands_visible(self) -> bool:
        return not self._game.config.hidden_stones or self.to_dict()["stage"] in (FINAL_SALE, OVER)  # type: ignore[attr-defined]

    def observation(self, player: int) -> dict[str, Any]:
        """The position as `player` sees it: others' stones only as counts unless stones are public."""
        self._check_player(player)
        d = self.to_dict()  # type: ignore[attr-defined]
        k = len(rules().colours)
        hands = d.pop("hands")
        view = {"player": player, **d,
                "hand": hands[player * k:(player + 1) * k],
                "stone_counts": [sum(hands[q * k:(q + 1) * k]) for q in range(self._game.num_players)]}
        if self._hands_visible():
            view["hands"] = [hands[q * k:(q + 1) * k] for q in range(self._game.num_players)]
        return view

    def observation_tensor(self, player: int) -> list[float]:
        """A flat numeric view for `player` (length `game.observation_tensor_size()`); seats listed from `player`.

        Per mountain cell: stack height, top kind (1-4, 0 empty), top is dynamite, top rotation, vein stones,
        vein colour (1-6, 0 none), station seat (1 + seat relative to `player`, 0 none); per city space its
        station seat; the 54 scale spaces; per seat: score, sequence card, actions used, the 10 action-board
        pieces, options, prospect, stones held, and stones by colour (0 for others while colours are hidden);
        per order card: owner seat (0 none, n + 1 fulfilled), in the display, chips; the buy pool (10 pieces
        and stations per seat); phase, stage, and one-hot the seat to move.
        """
        view = self.observation(player)
        n = self._game.num_players
        seats = [(player + i) % n for i in range(n)]
        relative = {q: 1 + i for i, q in enumerate(seats)}
        r = rules()
        k = len(r.colours)
        out: list[float] = []
        position = self.view()
        for cell in range(r.num_cells):
            code = position.top(cell)
            piece, rotation = ((code - 1) % 8, (code - 1) // 8) if code else (-2, 0)
            out += [view["height"][cell], piece // 2 + 1 if code else 0, piece % 2 if code else 0, rotation,
                    view["vein_stones"][cell], view["vein_colour"][cell] + 1,
                    relative.get(view["station"][cell], 0)]
        out += [relative.get(owner, 0) for owner in view["city_station"]]
        out += view["scale"]
        hands = view.get("hands")
        for q in seats:
            out += [view["scores_"][q], view["seq_card"][q], view["used"][q], *view["board"][q * 10:(q + 1) * 10],
                    view["options"][q], view["prospects"][q], view["stone_counts"][q]]
            out += hands[q] if hands else (view["hand"] if q == player else [0] * k)
        for i, owner in enumerate(view["owner"]):
            out += [n + 1 if owner == -2 else relative.get(owner, 0), 1 if i in view["display"] else 0,
                    view["chips"][i]]
        out += view["pool"] + [view["pool_stations"][q] for q in seats]
        out += [view["phase"], view["stage"]] + [1 if view["to_move"] == q else 0 for q in seats]
        return [float(x) for x in out]

    # Fields of `observation(player)` that `observation_tensor` holds in full, and the others, which
    # `information_state_tensor` adds (any other field is refused, so none is ever silently dropped).
    _TENSOR_OBSERVED = frozenset({"player", "n", "phase", "stage", "scores_", "seq_card", "height", "vein_colour",
                                  "vein_stones", "station", "city_station", "scale", "pool", "pool_stations",
                                  "board", "options", "prospects", "used", "display", "chips", "owner", "hand",
                                  "stone_counts", "hands"})
    _TENSOR_SCALARS = ("to_move", "chip_supply", "draws_left", "bid", "bidder", "passes_in_row", "opener",
                       "colour_pos", "cursor", "turn_actions", "last_laid", "last_laid_fresh", "pending",
                       "prospect_state", "route_entry")
    _TENSOR_SEAT_LISTS = ("last_cards", "supply_stations", "passed", "penalties")
    _TENSOR_LISTS = ("stack", "supply", "deck")

    def information_state_tensor(self, player: int) -> np.ndarray:
        """What `player` knows now, as a float32 vector of length `game.information_state_tensor_size()`.

        The numeric twin of `information_state_string(player)`, which is the whole view `observation(player)`
        (the position without the colours of other players' stones, see the module docstring): two states
        give equal vectors for `player` exactly when they give equal strings. Layout
        (`game.information_state_tensor_layout()`):
        - `observer` (n): one-hot the seat of `player`;
        - `observation`: `observation_tensor(player)` (seats relative to `player`);
        - `scalars` (15): to_move, chip_supply, draws_left, bid, bidder, passes_in_row, opener, colour_pos,
          cursor, turn_actions, last_laid, last_laid_fresh, pending, prospect_state, route_entry, as the
          engine stores them (seats absolute, -1 for none);
        - `seats` (4 x n): last_cards, supply_stations, passed, penalties, per seat starting with `player`;
        - `stack` (cells x 4): every tile code of every mountain stack, bottom first (0 empty);
        - `supply` (10) and `deck` (order cards): pieces left in the supply, order cards still face down;
        - `route` (cells + city spaces): each node's place on the prospecting route being chosen (1 for
          its start, 2 for the next, ...; 0 off the route; a route never visits a node twice);
        - `to_take` (cells): 1 for each vein on the finished route whose stone may still be taken (the
          engine lists them in route order, so the set and the route give the list).
        Together with the observation tensor this holds every field of the view.
        """
        view = self.observation(player)
        unknown = view.keys() - self._TENSOR_OBSERVED - {*self._TENSOR_SCALARS, *self._TENSOR_SEAT_LISTS,
                                                         *self._TENSOR_LISTS, "route", "to_take"}
        if unknown:
            raise ValueError(f"information_state_tensor has no place for the view field(s) {sorted(unknown)}")
        game = self._game
        n = game.num_players
        r = rules()
        seats = [(player + i) % n for i in range(n)]
        route = view["route"]
        if len(set(route)) != len(route):
            raise ValueError(f"the prospecting route {route} visits a node twice")
        places = [0] * (r.num_cells + r.num_spaces)
        for i, node in enumerate(route):
            places[node] = i + 1
        to_take = [0] * r.num_cells
        for cell in view["to_take"]:
            to_take[cell] = 1
        observer = [0] * n
        observer[player] = 1
        out = observer + self.observation_tensor(player) + [view[key] for key in self._TENSOR_SCALARS]
        for key in self._TENSOR_SEAT_LISTS:
            out += [view[key][q] for q in seats]
        for key in self._TENSOR_LISTS:
            out += view[key]
        out += places + to_take
        tensor = np.asarray(out, np.float32)
        if tensor.shape != (game.information_state_tensor_size(),):
            raise ValueError(f"information_state_tensor has {tensor.size} numbers; the layout says "
                             f"{game.information_state_tensor_size()}")
        return tensor

    def information_state_string(self, player: int) -> str:
        """What `player` knows now, as text: equal for two positions exactly when `player` cannot tell them apart."""
        view = self.observation(player)
        return f"Cavum {json.dumps(self._game.parameters(), sort_keys=True)}; view of p{player}\n" \
               + json.dumps(view, sort_keys=True, separators=(",", ":"))

    def resample_from_infostate(self, player: int, rng: Any) -> Any:
        """A position `player` cannot tell from this one, the others' stone colours redealt at random.

        Think of the stones in other players' hands as distinct physical stones. What `player` sees fixes
        how many each other player holds and, colour by colour, how many are out in other hands (9 minus
        the scale, the veins and their own hand). Every way of handing those stones out with the right
        counts is consistent with the view, except that a player bidding in, or selling, the colour now
        being sold has shown a stone of it; so: shuffle the unseen stones, deal each other player their
        count, and reject deals that break the shown-stone condition (the true deal always satisfies it, so
        rejection gives the uniform distribution over consistent deals). Opponents' choices are not read as
        evidence (a policy-free belief, as in IS-MCTS). The result is a position for search, not a record:
        its history is this game's history, which would replay to the true hands.
        """
        self._check_player(player)
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(rng)
        world = self.clone()  # type: ignore[attr-defined]
        if self._hands_visible():
            return world
        k = len(rules().colours)
        n = self._game.num_players
        d = world.to_dict()
        hands = d["hands"]
        others = [q for q in range(n) if q != player]
        counts = [sum(hands[q * k:(q + 1) * k]) for q in others]
        pool = [c for q in others for c in range(k) for _ in range(hands[q * k + c])]
        if not pool:
            return world
        must = world.view().shown_stone_holders()
        for _ in range(RESAMPLE_TRIES):
            stones = rng.permutation(pool)
            dealt = {}
            i = 0
            for q, count in zip(others, counts):
                row = [0] * k
                for c in stones[i:i + count]:
                    row[int(c)] += 1
                dealt[q] = row
                i += count
            if all(dealt[q][c] > 0 for q, c in must if q != player):
                for q, row in dealt.items():
                    hands[q * k:(q + 1) * k] = row
                return type(world).from_dict(self._game, d, world.history())
        return world   # the true deal: only reached if consistent deals are vanishingly rare

    # -- records ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        return render_state(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} cavum players={self._game.num_players} " \
               f"history={len(self.history())} actions>"  # type: ignore[attr-defined]
