"""Cavum's decision columns: the phase and stage, the standing bid, the player's sequence card and turn
position, the colour on sale with its price, and the player's score before and after.

Everything is read from `state.view()` (the read-only `PositionView` every Cavum engine provides: the
`to_dict()` fields and derived queries such as `price(colour)`) and the game's parameters, so the columns
are the same for every engine.
"""
from __future__ import annotations

import weakref
from typing import Any

import pyarrow as pa

from ...core.api import State
from ...core.cavum import stages as cavum_stages
from ...core.cavum.rules import rules as cavum_rules
from ..decisions import DecisionFields, score_after

CAVUM_STAGE_NAMES = {cavum_stages.AUCTION: "auction", cavum_stages.CHOOSE: "card choice",
                     cavum_stages.ORDER_PICK: "order pick", cavum_stages.BUILD: "build",
                     cavum_stages.COLOUR_BID: "colour bid", cavum_stages.COLOUR_SELL: "colour sell",
                     cavum_stages.ORDER_SALE: "order sale", cavum_stages.FINAL_SALE: "final sale"}
_CAVUM_BIDDING = (cavum_stages.AUCTION, cavum_stages.CHOOSE, cavum_stages.COLOUR_BID, cavum_stages.COLOUR_SELL)
_CAVUM_COLOUR = (cavum_stages.COLOUR_BID, cavum_stages.COLOUR_SELL)
_cavum_colour_orders: "weakref.WeakKeyDictionary[Any, tuple[int, ...]]" = weakref.WeakKeyDictionary()


def _cavum_colour_order(state: State) -> tuple[int, ...]:
    """The colour-sale order (colour indices) of the state's game, from its parameters (cached per game)."""
    game = state.game  # type: ignore[attr-defined]
    order = _cavum_colour_orders.get(game)
    if order is None:
        colours = cavum_rules().colours
        order = tuple(colours.index(c) for c in game.parameters()["colour_sale_colour_order"])
        _cavum_colour_orders[game] = order
    return order


def _cavum_before(state: State, player: int, action: int) -> tuple[Any, ...]:
    view = state.view()  # type: ignore[attr-defined]
    stage = view.stage
    cards = view.seq_card
    card = cards[player]
    position = None
    if all(cards):
        position = 1 + sum(1 for c in cards if c < card)     # rank in this phase's turn order, 1 = first
    bid = bidder = colour_name = price = held = None
    if stage in _CAVUM_BIDDING and view.bid >= 0:
        # Auction: the highest bid so far; card choice: what the chooser paid (0 when left alone);
        # colour sale: the lowest bid so far (the price the seller gets).
        bid, bidder = view.bid, view.bidder
    if stage in _CAVUM_COLOUR:
        r = cavum_rules()
        colour = _cavum_colour_order(state)[view.colour_pos]
        price = view.price(colour)                          # the highest empty scale space
        colour_name = r.colours[colour]
        held = view.hand(player)[colour]
    return (view.phase + 1, CAVUM_STAGE_NAMES.get(stage, str(stage)), bid, bidder, card or None, position,
            colour_name, price, held, view.scores_[player])


DECISION_FIELDS = DecisionFields(
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
    after=score_after)                             # after the last sale of phase 3 the penalties
