"""Cavum's sections of the HTML balance report: what the auctions fetched, and turn order against results."""
from __future__ import annotations

import pandas as pd

from ..report import ReportData, Section, combine_interval, percent, table_html
from .bidding import auctions, holdings, position_value, winning_bids


def bids_section(data: ReportData) -> Section:
    """Winning bids of the sequence-card auctions per phase, and how many cards were taken without one."""
    table = auctions(data.games, data.decisions)
    held = winning_bids(table, by=("phase",))
    parts = []
    if len(held):
        held = combine_interval(held.set_index("phase"), "winning bid [95%]", "mean", "mean_low", "mean_high",
                                "mean")
        held = combine_interval(held, "won at 0 [95% Wilson]", "zero_share", "zero_share_low",
                                "zero_share_high", "rate")
        held = combine_interval(held, "contested (2+ bidders) [95% Wilson]", "contested_share",
                                "contested_share_low", "contested_share_high", "rate")
        shown = held[["n", "winning bid [95%]", "median", "max", "won at 0 [95% Wilson]",
                      "contested (2+ bidders) [95% Wilson]"]].rename(columns={"n": "auctions"})
        parts.append(table_html(shown, {"auctions": str}))
    else:
        parts.append("<p>No sequence card was auctioned: every card was taken without a bid.</p>")
    alone = table.groupby("phase").agg(cards=("card", "size"), taken_alone=("alone", "sum"))
    alone["share taken alone"] = alone["taken_alone"] / alone["cards"]
    parts.append("<h3>Sequence cards taken</h3>"
                 + table_html(alone.rename(columns={"taken_alone": "taken without an auction"}),
                              {"share taken alone": percent}))
    caption = ("What players paid for turn order: the winning bid of each sequence-card auction actually held "
               "(in points), per phase, with how often it was won for nothing and how often two or more players "
               "bid; cards left to the last player are taken without an auction.")
    return Section("Bids for turn order (Cavum)", caption, parts)


def turn_order_section(data: ReportData) -> Section:
    """Per phase and turn position: holders, win rate and final margin, with intervals."""
    table = position_value(holdings(data.games, data.decisions))
    table = combine_interval(table, "win rate [95%]", "win_rate", "win_rate_low", "win_rate_high", "rate")
    table = combine_interval(table, "final margin (points) [95%]", "margin", "margin_low", "margin_high", "mean")
    table = combine_interval(table, "points from the phase on, payments added back [95%]", "margin_play",
                             "margin_play_low", "margin_play_high", "mean")
    shown = table.assign(phase=table["phase"].astype(str)).set_index(["phase", "position"])[
        ["n", "games", "win rate [95%]", "no_effect_win_rate", "final margin (points) [95%]",
         "points from the phase on, payments added back [95%]"]]
    shown = shown.rename(columns={"n": "holders", "no_effect_win_rate": "without an effect"})
    caption = ("How the holder of each turn position (1 = first) fared, per phase and over all phases: its win "
               "rate beside 1/players, its final score margin over the other players' mean, and its margin "
               "from that phase's auctions to the end with every payment added back (the value of moving "
               "earlier, free of what was paid). Correlational unless the agents bid at random "
               "(cavum_heuristic:bidding=evaluator; see notebooks/cavum_bidding.ipynb).")
    return Section("Turn order and results (Cavum)", caption,
                   [table_html(pd.DataFrame(shown), {"holders": str, "games": str, "without an effect": percent})])


def report_sections(data: ReportData) -> list[Section]:
    """The report's Cavum sections (read from the decision rows, so a folder must hold them)."""
    if "stage" not in data.decisions.columns or data.seats < 2:
        return []
    return [bids_section(data), turn_order_section(data)]
