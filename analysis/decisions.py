"""One row per player decision: the columns every game shares, plus a small table of per-game fields.

Every decision row holds the game index, the ply (its position in the game's full history, chance outcomes
included), the decision number within the game, the player, that seat's agent spec, the action id and its
notation. `GAME_FIELDS` adds columns for games that have more to say about a move (Cave vs Cave: the round
and turn, the kind of action, which tile was taken, which room was used or furnished where, which spaces were
excavated, and the player's gold, food and score right after the action; Cavum: the phase and stage, the
standing bid, the player's sequence card and turn position, the colour on sale with its price, and the
player's score before and after); a game without an entry gets `GENERIC_FIELDS` (the player's score after
the action).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import pyarrow as pa

from ..core.api import Game, State
from ..core.cavum import reference as cavum_stages
from ..core.cavum.rules import rules as cavum_rules
from ..core.cvc.actions import KIND_NAMES, ROOM_USE, TAKE, TILE_OPTION, action_table, space_name
from ..core.cvc.rules import FOOD, GOLD, rules

COMMON_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("game", pa.int64()),            # game index in the match
    ("ply", pa.int32()),             # index of the action in the game's history (chance outcomes count)
    ("decision", pa.int32()),        # index of the decision among the game's player decisions
    ("player", pa.int32()),          # seat that decided
    ("agent", pa.string()),          # spec of the agent in that seat
    ("action", pa.int32()),          # action id
    ("action_text", pa.string()),    # the game's notation of the action
)


@dataclass(frozen=True)
class DecisionFields:
    """Game-specific decision columns: some read before the action is applied, some after it."""

    before_columns: tuple[tuple[str, pa.DataType], ...]
    before: Callable[[State, int, int], tuple[Any, ...]]    # (state, player, action) -> values
    after_columns: tuple[tuple[str, pa.DataType], ...]
    after: Callable[[State, int], tuple[Any, ...]]          # (state after the action, player) -> values

    @property
    def columns(self) -> tuple[tuple[str, pa.DataType], ...]:
        return self.before_columns + self.after_columns


def _nothing(state: State, player: int, action: int) -> tuple[Any, ...]:
    return ()


def _score_after(state: State, player: int) -> tuple[Any, ...]:
    return (int(state.scores()[player]),)


GENERIC_FIELDS = DecisionFields(before_columns=(), before=_nothing,
                                after_columns=(("score_after", pa.int64()),), after=_score_after)


@lru_cache(maxsize=1)
def _cvc_action_facts() -> tuple[tuple[str, str | None, str | None, str | None, str | None, str | None], ...]:
    """Per Cave vs Cave action id: kind, tile taken, room used, room furnished, its space, spaces excavated."""
    r = rules()
    facts = []
    for spec in action_table().specs:
        tile = r.tiles[spec.tile].name if spec.kind == TAKE else None
        room_used = r.rooms[spec.room].name if spec.kind == ROOM_USE else None
        furnished = furnish_space = excavated = None
        if spec.kind in (TILE_OPTION, ROOM_USE):
            slots = r.tiles[spec.tile].slots if spec.kind == TILE_OPTION else r.rooms[spec.room].slots
            for choice in spec.choices:
                for op in slots[choice.slot][choice.option]:
                    if op.kind == "furnish":
                        room, space = choice.param
                        furnished, furnish_space = r.rooms[room].name, space_name(space)
                    elif op.kind == "excavate":
                        excavated = " ".join(space_name(s) for s in choice.param)
        facts.append((KIND_NAMES[spec.kind], tile, room_used, furnished, furnish_space, excavated))
    return tuple(facts)


def _cvc_before(state: State, player: int, action: int) -> tuple[Any, ...]:
    position = state.to_dict()  # type: ignore[attr-defined]
    # Rounds and turns are stored 0-based in the engine; the rulebook counts them from 1.
    return (position["round"] + 1, position["turn"] + 1) + _cvc_action_facts()[action]


def _cvc_after(state: State, player: int) -> tuple[Any, ...]:
    goods = state.to_dict()["players"][player]["goods"]  # type: ignore[attr-defined]
    return (goods[GOLD], goods[FOOD], int(state.scores()[player]))


CVC_FIELDS = DecisionFields(
    before_columns=(("round", pa.int32()),          # 1-based round the decision was made in
                    ("turn", pa.int32()),           # 1-based turn within the round, both players counted
                    ("kind", pa.string()),          # take, end_turn, convert, cavern_side, prospect, ...
                    ("tile", pa.string()),          # the action tile taken (take actions only)
                    ("room_used", pa.string()),     # the orange room (or Cave Entrance) used
                    ("room_furnished", pa.string()),
                    ("furnish_space", pa.string()),
                    ("excavated", pa.string())),    # spaces excavated, space-separated
    before=_cvc_before,
    after_columns=(("gold_after", pa.int32()), ("food_after", pa.int32()), ("score_after", pa.int32())),
    after=_cvc_after)

# Cavum. Everything is read from `to_dict()` (the engine-neutral view every Cavum engine provides), the
# engines' shared `price(colour)` and the game's parameters, so the columns are the same for every engine.
CAVUM_STAGE_NAMES = {cavum_stages.AUCTION: "auction", cavum_stages.CHOOSE: "card choice",
                     cavum_stages.ORDER_PICK: "order pick", cavum_stages.BUILD: "build",
                     cavum_stages.COLOUR_BID: "colour bid", cavum_stages.COLOUR_SELL: "colour sell",
                     cavum_stages.ORDER_SALE: "order sale", cavum_stages.FINAL_SALE: "final sale"}
_CAVUM_BIDDING = (cavum_stages.AUCTION, cavum_stages.CHOOSE, cavum_stages.COLOUR_BID, cavum_stages.COLOUR_SELL)
_CAVUM_COLOUR = (cavum_stages.COLOUR_BID, cavum_stages.COLOUR_SELL)
_cavum_colour_orders: "weakref.WeakKeyDictionary[Any, tuple[int, ...]]" = weakref.WeakKeyDictionary()


def _cavum_colour_order(state: State) -> tuple[int, ...]:
    """The colour-sale order (colour indices) of the state's game, from its parameters (cached per game)."""
    game = state._game  # type: ignore[attr-defined]    # every recorded state carries its game
    order = _cavum_colour_orders.get(game)
    if order is None:
        colours = cavum_rules().colours
        order = tuple(colours.index(c) for c in game.parameters()["colour_sale_colour_order"])
        _cavum_colour_orders[game] = order
    return order


def _cavum_before(state: State, player: int, action: int) -> tuple[Any, ...]:
    d = state.to_dict()  # type: ignore[attr-defined]
    stage = d["stage"]
    cards = d["seq_card"]
    card = cards[player]
    position = None
    if all(cards):
        position = 1 + sum(1 for c in cards if c < card)     # rank in this phase's turn order, 1 = first
    bid = bidder = colour_name = price = held = None
    if stage in _CAVUM_BIDDING and d["bid"] >= 0:
        # Auction: the highest bid so far; card choice: what the chooser paid (0 when left alone);
        # colour sale: the lowest bid so far (the price the seller gets).
        bid, bidder = d["bid"], d["bidder"]
    if stage in _CAVUM_COLOUR:
        r = cavum_rules()
        colour = _cavum_colour_order(state)[d["colour_pos"]]
        price = state.price(colour)  # type: ignore[attr-defined]    # both engines: highest empty space
        colour_name = r.colours[colour]
        held = d["hands"][player * len(r.colours) + colour]
    return (d["phase"] + 1, CAVUM_STAGE_NAMES.get(stage, str(stage)), bid, bidder, card or None, position,
            colour_name, price, held, d["scores_"][player])


CAVUM_FIELDS = DecisionFields(
    before_columns=(("phase", pa.int32()),          # 1-based phase (the rulebook's round)
                    ("stage", pa.string()),         # auction, card choice, order pick, build, colour bid,
                                                    # colour sell, order sale, final sale
                    ("standing_bid", pa.int32()),   # auction: high bid; card choice: price the chooser paid;
                                                    # colour bid/sell: lowest bid; null when no bid stands
                    ("standing_bidder", pa.int32()),
                    ("seq_card", pa.int32()),       # the player's sequence card this phase (null before choosing)
                    ("position", pa.int32()),       # the player's turn position this phase, 1 = first (null
                                                    # until every player holds a card)
                    ("colour", pa.string()),        # colour sale: the colour on sale
                    ("price", pa.int32()),          # colour sale: its price (highest empty scale space, 0 full)
                    ("held", pa.int32()),           # colour sale: the player's stones of that colour
                    ("score_before", pa.int32())),  # when deciding (at a card choice the price is paid)
    before=_cavum_before,
    after_columns=(("score_after", pa.int32()),),   # includes what the action set off: city scoring, and
    after=_score_after)                             # after the last sale of phase 3 the penalties

GAME_FIELDS: dict[str, DecisionFields] = {"cvc": CVC_FIELDS, "cavum": CAVUM_FIELDS}


def fields_for(game_name: str) -> DecisionFields:
    """The game-specific decision fields of a game, or the generic ones when it has no entry."""
    return GAME_FIELDS.get(game_name, GENERIC_FIELDS)


def decisions_schema(game_name: str) -> pa.Schema:
    """The Arrow schema of a game's decision rows (common columns first)."""
    return pa.schema(list(COMMON_COLUMNS + fields_for(game_name).columns))


class DecisionRecorder:
    """Collects decision rows as tuples (cheap to append), converted to one Arrow table per chunk."""

    def __init__(self, game: Game):
        self.fields = fields_for(game.name)
        self.schema = decisions_schema(game.name)
        self._rows: list[tuple[Any, ...]] = []
        self._pending: tuple[Any, ...] = ()
        self.game_index = -1

    def before(self, state: State, ply: int, player: int, agent: str, action: int, decision: int) -> None:
        """Note what is known when `player` has chosen `action` (the `ply`-th of the game), before it is applied."""
        self._pending = (self.game_index, ply, decision, player, agent, int(action),
                         state.action_to_string(action)) + self.fields.before(state, player, action)

    def after(self, state: State, player: int) -> None:
        """Complete the noted row with the deciding player's situation right after the action."""
        self._rows.append(self._pending + self.fields.after(state, player))

    def __len__(self) -> int:
        return len(self._rows)

    def table(self) -> pa.Table:
        """Every recorded row as one Arrow table with the game's schema."""
        columns = list(zip(*self._rows)) if self._rows else [() for _ in self.schema.names]
        return pa.table({name: pa.array(values, type=self.schema.field(name).type)
                         for name, values in zip(self.schema.names, columns)}, schema=self.schema)
