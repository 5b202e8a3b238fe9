"""The Cavum game object, and what every Cavum state shares: results, notation, records, hidden information.

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

from ..api import CHANCE, ConfigError, mask_of, resolve_chance_from_seed, shared_win_returns
from ..notation import parse_action, table_text
from ..records import RecordedState, read_record
from .actions import action_table, normalize_text
from .rules import MAX_BID, Config, make_config, rules
from .spec import SPEC

RECORD_FORMAT = "cavekit-cavum"
RECORD_VERSION = 1
ENGINES = SPEC.engines
RESAMPLE_TRIES = 500


class StateMixin(RecordedState):
    """Results, notation, records, hidden-information views and rendering shared by Cavum engines."""

    record_format = RECORD_FORMAT
    record_version = RECORD_VERSION

    _game: "Cavum"

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
        from .reference import FINAL_SALE, OVER
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
        for cell in range(r.num_cells):
            code = self.top(cell)  # type: ignore[attr-defined]
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
        hands = world.hands
        others = [q for q in range(n) if q != player]
        counts = [sum(hands[q * k:(q + 1) * k]) for q in others]
        pool = [c for q in others for c in range(k) for _ in range(hands[q * k + c])]
        if not pool:
            return world
        must = world.shown_stone_holders()
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
                return world
        return world   # the true deal: only reached if consistent deals are vanishingly rare

    # -- records ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        from .render import render_state
        return render_state(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} cavum players={self._game.num_players} " \
               f"history={len(self.history())} actions>"  # type: ignore[attr-defined]



class Cavum:
    """Cavum with fixed parameters: `players` (2-4), engine, and the rule options of `rules.py`."""

    spec = SPEC
    name = SPEC.name

    def __init__(self, players: int = 2, engine: str = "compiled", **params: Any):
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r} for cavum; available engines: {', '.join(ENGINES)}")
        self.config: Config = make_config(players, **params)
        self.num_players = players
        self.engine = engine
        r = rules()
        self.num_distinct_actions = len(action_table())
        self.max_chance_outcomes = len(r.order_cards)
        self.hidden_information = self.config.hidden_stones
        nodes = r.num_cells + r.num_spaces
        # Per phase: draws; auctions (each bid raises, so at most MAX_BID + 1 bids, plus passes and the card);
        # picks; building (12 actions, option takes, turn ends, a route through every node, stone choices);
        # the colour sale (bids fall from at most 9) and the order sale; then the final sale of all stones.
        auction = 4 * (MAX_BID + 2 + players)
        picks = len(r.order_cards) + players
        building = players * (3 * r.actions_per_phase + nodes + r.num_cells)
        sales = len(r.colours) * (9 * players + players + 1) + len(r.order_cards) + players
        per_phase = 5 + auction + picks + building + sales
        self.max_game_length = r.phases * per_phase + len(r.colours) * r.stones_per_colour

    def parameters(self) -> dict[str, Any]:
        """Everything that defines the game (not the engine): players and every rule option."""
        return self.config.as_dict()

    def turn_is_over(self, before: Any, action: int, after: Any) -> bool:
        """For turn-based search: a player's turn is over once someone else (or chance) is to move."""
        return before.current_player() != CHANCE and after.current_player() != before.current_player()

    def finish_turn_action(self, state: Any) -> int | None:
        """`end turn` when it is legal (a search out of budget ends the turn with it), else None."""
        from .actions import END_TURN
        end = action_table().id(END_TURN)
        return end if state.current_player() >= 0 and end in state.legal_actions() else None

    def observation_tensor_size(self) -> int:
        """Length of `observation_tensor(player)`."""
        r = rules()
        n = self.num_players
        return (7 * r.num_cells + r.num_spaces + 9 * len(r.colours) + n * (16 + len(r.colours))
                + 3 * len(r.order_cards) + 10 + n + 2 + n)

    def information_state_tensor_layout(self) -> list[tuple[str, tuple[int, ...]]]:
        """The named pieces of `information_state_tensor(player)`, in order, with their shapes."""
        from .actions import NUM_PIECES
        from .rules import MAX_STACK
        r = rules()
        n = self.num_players
        return [("observer", (n,)), ("observation", (self.observation_tensor_size(),)),
                ("scalars", (len(StateMixin._TENSOR_SCALARS),)), ("seats", (len(StateMixin._TENSOR_SEAT_LISTS), n)),
                ("stack", (r.num_cells, MAX_STACK)), ("supply", (NUM_PIECES,)), ("deck", (len(r.order_cards),)),
                ("route", (r.num_cells + r.num_spaces,)), ("to_take", (r.num_cells,))]

    def information_state_tensor_size(self) -> int:
        """Length of `information_state_tensor(player)`."""
        return sum(int(np.prod(shape)) for _, shape in self.information_state_tensor_layout())

    def min_utility(self) -> float:
        return -1.0

    def max_utility(self) -> float:
        return 1.0

    def new_initial_state(self, seed: int | None = None) -> Any:
        """The position before the first order cards are turned up; with a seed they are turned up from it."""
        state = self._state_class()(self)
        return resolve_chance_from_seed(state, seed)

    def _state_class(self) -> type:
        if self.engine == "compiled":
            from .compiled import CompiledState
            return CompiledState
        from .reference import ReferenceState
        return ReferenceState

    def replay(self, history: list[int]) -> Any:
        """The state reached by applying `history` from the start (IllegalActionError if it is not legal)."""
        state = self._state_class()(self)
        for action in history:
            state.apply_action(action)
        return state

    def deserialize_state(self, text: str) -> Any:
        """Rebuild a state from `serialize()` output, replaying and checking it; refuses corrupt records."""
        return read_record(text, RECORD_FORMAT, RECORD_VERSION, "Cavum", self.parameters(),
                           lambda: self._state_class()(self))

    def __repr__(self) -> str:
        return f"Cavum(players={self.num_players}, engine={self.engine!r})"
