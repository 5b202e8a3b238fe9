"""The fixed Cavum action table: every action id, what it means, and its readable notation.

Ids are grouped in blocks (bids, passes, sequence cards, order cards, tile laying, stations, veins, options,
discards, prospecting steps, sales). The notation is stable: `bid 2`, `take sequence card 1`, `take O05`,
`lay two at -3,4 r2`, `lay six dynamite at -2,1 r0`, `station at -3,4`, `station at S3`, `vein red at -3,3`,
`option: take four from pool`, `option: +3 points`, `discard vein`, `prospect from S3`, `prospect via -3,5`,
`prospect: stop`, `prospect: no route`, `prospect: take stone at -3,3`, `sell 2`, `fulfil O01`, `done`,
`end turn`, `final sale: red`.

Bids: `bid 0` ... `bid MAX_BID`. A bid is one action, and the table holds every bid up to MAX_BID
(`rules.auction_score_bound()`, 462 with the shipped data: the largest score a player can hold when a
sequence auction opens), so a bid is capped by the bidder's score (or, with bid_cap=unbounded, by that
bound), never by the table. Why one action per bid and not a bid spelled as digit actions: a bid stays one
decision for the agents and the analyses that read bids (`bid k` in the records), and with the default cap
the legal bids are still only 0..score; the price is a larger table (about 400 more ids) and, with
bid_cap=unbounded, up to MAX_BID + 1 legal bids at an auction.
Ids: bids 0-60 keep ids 0-60 (the table before issue 19 stopped at 60), and bids 61..MAX_BID are appended
after every other action (ids 5507 onward), so every older id keeps its meaning. Bid ids are therefore
not contiguous: look them up with `ActionTable.id(BID, value)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .rules import KINDS, MAX_BID, NUM_DIRS, NUM_KINDS, rules

LEGACY_MAX_BID = 60      # bids 0..60 come first (their ids predate issue 19); higher bids come last

# Action kinds.
(BID, PASS, CHOOSE_CARD, TAKE_ORDER, FULFIL, DONE, END_TURN, LAY, STATION, VEIN, OPTION_POINTS, OPTION_TAKE,
 DISCARD, PROSPECT_START, PROSPECT_STEP, PROSPECT_STOP, PROSPECT_NONE, PROSPECT_TAKE, SELL, FINAL_SELL) = range(20)

# Pieces a player holds or the buy pool offers: tile pieces are kind*2 + dynamite (0..7), then vein, station.
PIECE_VEIN = 2 * NUM_KINDS
PIECE_STATION = PIECE_VEIN + 1
NUM_PIECES = PIECE_STATION + 1


def piece_name(piece: int) -> str:
    """`six`, `two dynamite`, `vein` or `station`."""
    if piece == PIECE_VEIN:
        return "vein"
    if piece == PIECE_STATION:
        return "station"
    kind, dynamite = divmod(piece, 2)
    return KINDS[kind] + (" dynamite" if dynamite else "")


@dataclass(frozen=True)
class ActionSpec:
    kind: int
    a: int = 0          # bid value, card, order id, node, cell, piece, colour, count
    b: int = 0          # rotation / colour
    c: int = 0          # tile piece for LAY
    text: str = ""


class ActionTable:
    """All actions in id order, with look-ups by notation and by (kind, parameters)."""

    def __init__(self) -> None:
        r = rules()
        specs: list[ActionSpec] = []
        specs += [ActionSpec(BID, v, text=f"bid {v}") for v in range(LEGACY_MAX_BID + 1)]
        specs.append(ActionSpec(PASS, text="pass"))
        specs += [ActionSpec(CHOOSE_CARD, c, text=f"take sequence card {c}") for c in (1, 2, 3, 4)]
        specs += [ActionSpec(TAKE_ORDER, i, text=f"take {o.id}") for i, o in enumerate(r.order_cards)]
        specs += [ActionSpec(FULFIL, i, text=f"fulfil {o.id}") for i, o in enumerate(r.order_cards)]
        specs.append(ActionSpec(DONE, text="done"))
        specs.append(ActionSpec(END_TURN, text="end turn"))
        for piece in range(2 * NUM_KINDS):
            for cell in range(r.num_cells):
                for rot in range(NUM_DIRS):
                    specs.append(ActionSpec(LAY, cell, rot, piece,
                                            text=f"lay {piece_name(piece)} at {r.node_name(cell)} r{rot}"))
        nodes = r.num_cells + r.num_spaces
        specs += [ActionSpec(STATION, n, text=f"station at {r.node_name(n)}") for n in range(nodes)]
        specs += [ActionSpec(VEIN, cell, colour, text=f"vein {r.colours[colour]} at {r.node_name(cell)}")
                  for cell in range(r.num_cells) for colour in range(len(r.colours))]
        specs.append(ActionSpec(OPTION_POINTS, text=f"option: +{r.option_points} points"))
        specs += [ActionSpec(OPTION_TAKE, p, text=f"option: take {piece_name(p)} from pool") for p in range(NUM_PIECES)]
        specs += [ActionSpec(DISCARD, p, text=f"discard {piece_name(p)}") for p in range(NUM_PIECES)]
        specs += [ActionSpec(PROSPECT_START, n, text=f"prospect from {r.node_name(n)}") for n in range(nodes)]
        specs += [ActionSpec(PROSPECT_STEP, n, text=f"prospect via {r.node_name(n)}") for n in range(nodes)]
        specs.append(ActionSpec(PROSPECT_STOP, text="prospect: stop"))
        specs.append(ActionSpec(PROSPECT_NONE, text="prospect: no route"))
        specs += [ActionSpec(PROSPECT_TAKE, cell, text=f"prospect: take stone at {r.node_name(cell)}")
                  for cell in range(r.num_cells)]
        specs += [ActionSpec(SELL, k, text=f"sell {k}") for k in range(1, r.stones_per_colour + 1)]
        specs += [ActionSpec(FINAL_SELL, c, text=f"final sale: {name}") for c, name in enumerate(r.colours)]
        specs += [ActionSpec(BID, v, text=f"bid {v}") for v in range(LEGACY_MAX_BID + 1, MAX_BID + 1)]
        self.specs = tuple(specs)
        self.by_text = {normalize_text(s.text): i for i, s in enumerate(specs)}
        self.by_key = {(s.kind, s.a, s.b, s.c): i for i, s in enumerate(specs)}

    def __len__(self) -> int:
        return len(self.specs)

    def id(self, kind: int, a: int = 0, b: int = 0, c: int = 0) -> int:
        """The id of the action with these parameters."""
        return self.by_key[(kind, a, b, c)]


def normalize_text(text: str) -> str:
    """Notation compared without case, extra spaces, or parentheses round cells."""
    return " ".join(text.lower().replace("(", "").replace(")", "").replace(", ", ",").split())


@lru_cache(maxsize=1)
def action_table() -> ActionTable:
    """The action table (built once)."""
    return ActionTable()
