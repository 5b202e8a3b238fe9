"""Cavum bidding: what turn order is worth, what players pay for it, and how they sell colours.

Everything here turns results folders of `cavekit match cavum ...` (games and decision rows, see
`analysis/decisions.py`) into tidy pandas tables; nothing is printed or drawn. The notebook
`notebooks/cavum_bidding.ipynb` shows them with figures.

Tables built from the raw rows (one folder or several, e.g. one per player count; `run` names the folder):
- `auctions`: one row per sequence card taken (who, which card, what they paid, whether an auction was held);
- `holdings`: one row per (game, phase, player): the card, the turn position it gave (1 = first), its price,
  the score before the phase's auctions and the final result;
- `colour_sales`: one row per colour auction (price on the scale, opening and accepted bid, stones sold).

What a position in phase p is worth is measured on the points a player makes from the start of phase p's
auctions to the end of the game (earlier points cannot depend on it, so leaving them out only removes
noise), compared with the mean of the other players (a margin). Three versions:
- play (`play_gain`): with the auction payments of phase p and later added back. Its differences by position
  are the value of moving earlier in play (building order, order-card picks, colour-sale priority, the
  phase-3 tie-break), free of what anyone paid; payments are also a large noise, so this is the sharpest;
- phase (`phase_gain`): with only phase p's price added back. It also counts what the position does to later
  auctions: the holder of the lowest card opens the next auction, which costs or earns whatever the agents'
  bidding makes of it;
- net (`gain`): nothing added back.
`margin` is the final margin as the game counts it (the whole game, all payments), shown with the win rate.
The break-even bid for position k is the expected gain of holding k rather than k + 1, paired within each
game; bidding b for k instead of taking k + 1 for nothing gains break-even - b on average.

Intervals are 95%: Student-t for means, Wilson for rates over independent games. "All phases" rows pool the
three phases by first averaging within each game (a game is one cluster: its phases are not independent),
then take the t interval over games; their rates are cluster means too.

Causal reading. A position's value is causal only if who holds which position is unrelated to how well
that player would have done anyway. With `cavum_heuristic:bidding=evaluator` it is, by construction: that
variant's evaluator does not look at sequence cards, so its bids and card choices are seeded random
tie-breaks among equal values (a randomised experiment). `assignment_balance` checks it (the score margin
before the auctions should not differ by position). For agents that bid on their prospects, or by seat
order like the default `cavum_heuristic`, it will not hold, and `break_even_bids(..., adjust=True)` adjusts
for the pre-auction score difference by regression, which removes only the bias that difference explains.
Either way the value measured is the value for the agents that played: a stronger agent may use (or deny)
an early position better.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ...core.cavum.rules import MAX_BID
from ..results import load_results
from ..stats import mean_interval, seat_count, t_quantile, wilson_interval

CLUSTER = ["run", "game"]                        # a game is identified by its results folder and index
DEFAULT_BID_BINS = (0, 1, 5, 10, 20, 30, MAX_BID + 1)   # winning-bid bins [a, b) for the empirical bid curve


# -- intervals -----------------------------------------------------------------------------------------------

def error_bars(table: pd.DataFrame, column: str, scale: float = 1.0) -> np.ndarray:
    """Matplotlib `yerr` for `column` and its `column_low` / `column_high` interval (2 x n, never negative)."""
    value = table[column].to_numpy(float)
    low = value - table[f"{column}_low"].to_numpy(float)
    high = table[f"{column}_high"].to_numpy(float) - value
    return scale * np.clip(np.vstack([low, high]), 0.0, None)


def _mean_columns(values: Iterable[float], prefix: str) -> dict[str, float]:
    mean, low, high = mean_interval(values)
    return {prefix: mean, f"{prefix}_low": low, f"{prefix}_high": high}


def _rate_columns(successes: float, trials: int, prefix: str) -> dict[str, float]:
    low, high = wilson_interval(successes, trials)
    return {prefix: successes / trials if trials else math.nan, f"{prefix}_low": low, f"{prefix}_high": high}


# -- tables from the raw rows --------------------------------------------------------------------------------

def _bid_value(text: pd.Series) -> pd.Series:
    """The value of `bid k` actions (NaN for other actions)."""
    return pd.to_numeric(text.str.extract(r"^bid (\d+)$", expand=False), errors="coerce")


def _margin(table: pd.DataFrame, column: str, by: list[str], players: int) -> pd.Series:
    """`column` minus the mean of the other players' `column` within each group of `by`."""
    total = table.groupby(by)[column].transform("sum")
    return table[column] - (total - table[column]) / (players - 1)


def _with_run(table: pd.DataFrame, run: str, players: int) -> pd.DataFrame:
    table = table.copy()
    table.insert(0, "run", run)
    table.insert(1, "players", players)
    return table


def auctions(games: pd.DataFrame, decisions: pd.DataFrame, run: str = "run") -> pd.DataFrame:
    """One row per sequence card taken: run, players, game, phase, auction (1-based in the phase), player,
    card, price paid, alone (taken without an auction), bids, bidders, opening bid, and the turn position
    the card gave in that phase (1 = first)."""
    players = seat_count(games)
    rows = decisions[decisions["stage"].isin(["auction", "card choice"])].sort_values(["game", "ply"])
    choice = (rows["stage"] == "card choice").astype(int)
    block = choice.groupby(rows["game"]).cumsum() - choice           # auction rows share their choice's block
    rows = rows.assign(block=block.to_numpy(), bid_value=_bid_value(rows["action_text"]).to_numpy())
    bids = rows[rows["bid_value"].notna()]
    per_block = bids.groupby(["game", "block"]).agg(bids=("bid_value", "size"), bidders=("player", "nunique"),
                                                    opening_bid=("bid_value", "first"))
    auction_rows = rows[rows["stage"] == "auction"].groupby(["game", "block"]).size().rename("auction_rows")
    chosen = rows[rows["stage"] == "card choice"].copy()
    chosen["card"] = pd.to_numeric(chosen["action_text"].str.extract(r"(\d+)$", expand=False)).astype(int)
    chosen = chosen.join(per_block, on=["game", "block"]).join(auction_rows, on=["game", "block"])
    out = pd.DataFrame({
        "game": chosen["game"].to_numpy(), "phase": chosen["phase"].to_numpy(),
        "player": chosen["player"].to_numpy(), "agent": chosen["agent"].to_numpy(),
        "card": chosen["card"].to_numpy(), "price": chosen["standing_bid"].fillna(0).astype(int).to_numpy(),
        "alone": chosen["auction_rows"].isna().to_numpy(),
        "bids": chosen["bids"].fillna(0).astype(int).to_numpy(),
        "bidders": chosen["bidders"].fillna(0).astype(int).to_numpy(),
        "opening_bid": chosen["opening_bid"].to_numpy(),
        "score_before": chosen["score_before"].to_numpy()})
    out.insert(2, "auction", out.groupby(["game", "phase"]).cumcount() + 1)
    out["position"] = out.groupby(["game", "phase"])["card"].rank(method="first").astype(int)
    return _with_run(out, run, players)


def holdings(games: pd.DataFrame, decisions: pd.DataFrame, run: str = "run") -> pd.DataFrame:
    """One row per (game, phase, player): card, position, price paid, whether it won an auction, the score
    and margin before the phase's auctions, the final score, margin, return and win share (1/k for k
    co-winners), the auction payments of this and later phases, and what the player scored from the start of
    the phase's auctions to the end: `gain` (net), `play_gain` (payments of this and later phases added
    back), `phase_gain` (this phase's price added back), each also as a margin over the other players' mean
    (`margin_play`, `margin_phase`; `margin` is the final margin as the game counts it)."""
    players = seat_count(games)
    a = auctions(games, decisions, run).drop(columns=["run", "players"])
    final = []
    for p in range(players):
        final.append(pd.DataFrame({"game": games["game"].to_numpy(), "player": p,
                                   "score": games[f"score_{p}"].to_numpy(),
                                   "ret": games[f"return_{p}"].astype(float).to_numpy()}))
    f = pd.concat(final, ignore_index=True)
    winners = f.groupby("game")["ret"].transform(lambda r: (r > 0).sum())
    f["win"] = np.where(f["ret"] > 0, 1.0 / winners.clip(lower=1), 0.0)
    f["margin"] = _margin(f, "score", ["game"], players)
    h = a[["game", "phase", "player", "agent", "card", "position", "price", "alone", "auction"]].copy()
    h["won_auction"] = ~h.pop("alone")
    h["pre_score"] = (a["score_before"] + a["price"]).to_numpy()       # before the phase's auctions
    h["pre_margin"] = _margin(h, "pre_score", ["game", "phase"], players)
    # Payments of this phase and every later one: a reversed cumulative sum over the phases.
    h = h.sort_values(["game", "player", "phase"], ascending=[True, True, False], ignore_index=True)
    h["paid_from"] = h.groupby(["game", "player"])["price"].cumsum()
    h = h.merge(f, on=["game", "player"], how="left")
    h["gain"] = h["score"] - h["pre_score"]
    h["play_gain"] = h["gain"] + h["paid_from"]
    h["phase_gain"] = h["gain"] + h["price"]
    h["margin_play"] = _margin(h, "play_gain", ["game", "phase"], players)
    h["margin_phase"] = _margin(h, "phase_gain", ["game", "phase"], players)
    h = h.sort_values(["game", "phase", "position"], ignore_index=True)
    return _with_run(h, run, players)


def colour_sales(games: pd.DataFrame, decisions: pd.DataFrame, run: str = "run") -> pd.DataFrame:
    """One row per colour auction with at least one decision: phase, colour, price on the scale, holders
    who decided, bids, opening and accepted bid, sold, stones sold, the seller, its turn position and the
    stones of that colour it held."""
    players = seat_count(games)
    rows = decisions[decisions["stage"].isin(["colour bid", "colour sell"])].sort_values(["game", "ply"])
    rows = rows.assign(bid_value=_bid_value(rows["action_text"]).to_numpy(),
                       sold=pd.to_numeric(rows["action_text"].str.extract(r"^sell (\d+)$", expand=False),
                                          errors="coerce").to_numpy())
    rows["bidder_id"] = rows["player"].where(rows["bid_value"].notna())
    key = ["game", "phase", "colour"]
    out = rows.groupby(key, sort=False).agg(price=("price", "first"), deciders=("player", "nunique"),
                                            bids=("bid_value", "count"), bidders=("bidder_id", "nunique"),
                                            opening_bid=("bid_value", "first")).reset_index()
    sells = rows[rows["stage"] == "colour sell"].set_index(key)
    sells = pd.DataFrame({"accepted": sells["standing_bid"].astype(float), "stones_sold": sells["sold"],
                          "seller": sells["player"], "seller_position": sells["position"],
                          "seller_held": sells["held"]})
    out = out.join(sells, on=key)
    out["sold"] = out["accepted"].notna()
    out["stones_sold"] = out["stones_sold"].fillna(0).astype(int)
    out["seller"] = out["seller"].fillna(-1).astype(int)
    out["price"] = out["price"].astype(int)
    columns = ["game", "phase", "colour", "price", "deciders", "bids", "bidders", "opening_bid", "accepted",
               "sold", "stones_sold", "seller", "seller_position", "seller_held"]
    return _with_run(out[columns].reset_index(drop=True), run, players)


def load_bidding(folders: str | Path | Sequence[str | Path]) -> dict[str, pd.DataFrame]:
    """`games`, `auctions`, `holdings` and `colour_sales` of one or more Cavum results folders, stacked (column
    `run` is the folder name, `players` the player count)."""
    if isinstance(folders, (str, Path)):
        folders = [folders]
    parts: dict[str, list[pd.DataFrame]] = {"games": [], "auctions": [], "holdings": [], "colour_sales": []}
    for folder in folders:
        games, decisions = load_results(folder)
        if "stage" not in decisions.columns:
            raise ValueError(f"{folder} has no Cavum decision columns (is it a cavum results folder?)")
        run = Path(folder).name
        parts["games"].append(_with_run(games, run, seat_count(games)))
        parts["auctions"].append(auctions(games, decisions, run))
        parts["holdings"].append(holdings(games, decisions, run))
        parts["colour_sales"].append(colour_sales(games, decisions, run))
    return {name: pd.concat(tables, ignore_index=True) for name, tables in parts.items()}


def game_speed(game_table: pd.DataFrame) -> pd.DataFrame:
    """Per player count: games, mean seconds per game (play time recorded by the batch runner, wall clock in
    each worker) with t interval, games per second, and mean decisions and steps per game."""
    out = []
    for players, g in game_table.groupby("players", sort=True):
        mean, low, high = mean_interval(g["seconds"])
        out.append({"players": players, "games": len(g), "seconds_per_game": mean, "seconds_low": low,
                    "seconds_high": high, "games_per_second": 1 / mean if mean else math.nan,
                    "decisions_per_game": g["decisions"].mean(), "steps_per_game": g["length"].mean()})
    return pd.DataFrame(out)


# -- summaries ------------------------------------------------------------------------------------------------

MEASURES = {"play": "play_gain", "phase": "phase_gain", "net": "gain"}
MARGINS = {"play": "margin_play", "phase": "margin_phase", "net": "margin"}


def _measure(measure: str) -> str:
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}, not {measure!r}")
    return measure


def winning_bids(auction_table: pd.DataFrame, by: Sequence[str] = ("players", "phase")) -> pd.DataFrame:
    """Distribution of winning bids of the auctions actually held (cards taken alone left out): n, mean with
    t interval, sd, quartiles, max, share of auctions won at 0 (Wilson) and share contested (two or more
    bidders, Wilson), per group of `by` (for example add "auction" for the 1st, 2nd, ... auction)."""
    held = auction_table[~auction_table["alone"]]
    out = []
    for key, g in held.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        price = g["price"].astype(float)
        row = dict(zip(by, key))
        row.update({"n": len(g), **_mean_columns(price, "mean"), "sd": price.std(ddof=1),
                    "p25": price.quantile(0.25), "median": price.median(), "p75": price.quantile(0.75),
                    "max": price.max()})
        row.update(_rate_columns(int((price == 0).sum()), len(g), "zero_share"))
        row.update(_rate_columns(int((g["bidders"] >= 2).sum()), len(g), "contested_share"))
        out.append(row)
    return pd.DataFrame(out)


def _phase_groups(table: pd.DataFrame, pooled: bool) -> Iterable[tuple[object, pd.DataFrame]]:
    """(phase, rows) for each phase, then ("all", every row) when `pooled`."""
    for phase, g in table.groupby("phase", sort=True):
        yield int(phase), g
    if pooled:
        yield "all", table


def _cluster_means(g: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """`columns` averaged within each game (one row per game: the cluster mean over its phases)."""
    return g.groupby(CLUSTER)[columns].mean()


def position_value(holding_table: pd.DataFrame, by: str = "position", pooled: bool = True) -> pd.DataFrame:
    """Per player count, phase (and "all") and position (or `by="card"`): holders, games, the mean play and
    phase margins from the phase's start and the final margin (see the module docstring) with t intervals,
    and the win rate (Wilson within a phase; over all phases a t interval on per-game means, clipped to
    [0, 1]). Without an effect the margins are 0 and the win rate is 1/players."""
    margins = list(MARGINS.values())
    out = []
    for players, hp in holding_table.groupby("players", sort=True):
        for phase, g in _phase_groups(hp, pooled):
            for key, k in g.groupby(by, sort=True):
                row: dict[str, object] = {"players": players, "phase": phase, by: key, "n": len(k),
                                          "games": k.groupby(CLUSTER).ngroups}
                values = _cluster_means(k, margins + ["win"]) if phase == "all" else k
                for column in margins:
                    row.update(_mean_columns(values[column], column))
                if phase == "all":
                    mean, low, high = mean_interval(values["win"])
                    row.update({"win_rate": mean, "win_rate_low": max(0.0, low), "win_rate_high": min(1.0, high)})
                else:
                    row.update(_rate_columns(float(k["win"].sum()), len(k), "win_rate"))
                row["no_effect_win_rate"] = 1 / players
                out.append(row)
    return pd.DataFrame(out)


def assignment_balance(holding_table: pd.DataFrame) -> pd.DataFrame:
    """Per player count, phase and position: the holders' score margin before the phase's auctions (t interval),
    their share of auction wins (Wilson) and mean price. Under random assignment of positions the margin is 0
    within its interval; a clear difference means positions went to players already ahead (or behind), and
    unadjusted values are biased."""
    out = []
    for (players, phase, position), g in holding_table.groupby(["players", "phase", "position"], sort=True):
        row = {"players": players, "phase": phase, "position": position, "n": len(g)}
        row.update(_mean_columns(g["pre_margin"], "pre_margin"))
        row.update(_rate_columns(int(g["won_auction"].sum()), len(g), "won_auction_share"))
        row.update(_mean_columns(g["price"], "price"))
        out.append(row)
    return pd.DataFrame(out)


def position_pairs(holding_table: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, phase, position k < players): the holder of k against the holder of k + 1: the
    differences of their play, phase and net gains from the phase's start (`gain_play`, `gain_phase`,
    `gain_net`), the price each paid, whether the holder of k won an auction, and the difference of their
    scores before the phase's auctions (`pre_diff`)."""
    h = holding_table
    key = CLUSTER + ["phase"]
    scores = list(MEASURES.values())
    nxt = h[key + ["position", "price", "pre_score"] + scores].copy()
    nxt["position"] -= 1
    pairs = h.merge(nxt, on=key + ["position"], suffixes=("", "_next"))
    out = pairs[["run", "players", "game", "phase", "position"]].copy()
    for measure, column in MEASURES.items():
        out[f"gain_{measure}"] = pairs[column] - pairs[f"{column}_next"]
    out["price"], out["price_next"] = pairs["price"], pairs["price_next"]
    out["won_auction"] = pairs["won_auction"]
    out["pre_diff"] = pairs["pre_score"] - pairs["pre_score_next"]
    return out.reset_index(drop=True)


def _ols_intercept(y: np.ndarray, x: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Intercept of y ~ 1 + x (the value at x = 0, equal pre-auction scores) with an HC1-robust t interval."""
    n = len(y)
    if n < 3 or np.all(x == x[0]):
        return mean_interval(y, level)
    X = np.column_stack([np.ones(n), x])
    xtx_inv = np.linalg.inv(X.T @ X)
    beta = xtx_inv @ X.T @ y
    resid = y - X @ beta
    meat = (X * resid[:, None] ** 2).T @ X
    cov = xtx_inv @ meat @ xtx_inv * n / (n - 2)
    half = t_quantile(0.5 + level / 2, n - 2) * math.sqrt(cov[0, 0])
    return (float(beta[0]), float(beta[0] - half), float(beta[0] + half))


def break_even_bids(holding_table: pd.DataFrame, measure: str = "play", adjust: bool = False,
                    pooled: bool = True) -> pd.DataFrame:
    """Per player count, phase (and "all") and position k: the expected gain in `measure` score of holding k
    rather than k + 1 (paired within each game), with its t interval. This is the break-even bid: paying less
    for k than it, instead of taking k + 1 for nothing, gains on average. `adjust=True` estimates it at equal
    pre-auction scores (regression on the pre-auction score difference, HC1-robust interval)."""
    gain = f"gain_{_measure(measure)}"
    pairs = position_pairs(holding_table)
    out = []
    for players, pp in pairs.groupby("players", sort=True):
        for phase, g in _phase_groups(pp, pooled):
            for position, k in g.groupby("position", sort=True):
                values = _cluster_means(k, [gain, "pre_diff"]) if phase == "all" else k
                y, x = values[gain].to_numpy(float), values["pre_diff"].to_numpy(float)
                mean, low, high = _ols_intercept(y, x) if adjust else mean_interval(y)
                out.append({"players": players, "phase": phase, "position": position, "vs_position": position + 1,
                            "measure": measure, "adjusted": adjust, "n": len(y), "break_even": mean,
                            "break_even_low": low, "break_even_high": high})
    return pd.DataFrame(out)


def best_response_curve(break_even: pd.DataFrame, bids: Iterable[int] = range(0, 31)) -> pd.DataFrame:
    """Expected gain of bidding b for position k instead of taking position k + 1 for nothing: break-even - b,
    with the break-even's interval shifted by b, for each row of `break_even_bids` and each bid b."""
    bids = list(bids)
    out = []
    for _, r in break_even.iterrows():
        for b in bids:
            out.append({"players": r["players"], "phase": r["phase"], "position": r["position"], "bid": b,
                        "expected_gain": r["break_even"] - b, "gain_low": r["break_even_low"] - b,
                        "gain_high": r["break_even_high"] - b})
    return pd.DataFrame(out)


def empirical_bid_gain(holding_table: pd.DataFrame, measure: str = "play",
                       bins: Sequence[int] = DEFAULT_BID_BINS) -> pd.DataFrame:
    """E[gain | b] as observed: per player count, position k and bin [a, b) of the price the holder of k paid
    (auctions won, all phases), the mean of (gain in `measure` score over the holder of k + 1) - price, with a
    t interval (pairs treated as independent) and the bin's mean price. If a position is worth the same
    however hard it was fought for, the points lie on the line of `best_response_curve`."""
    gain = f"gain_{_measure(measure)}"
    pairs = position_pairs(holding_table)
    pairs = pairs[pairs["won_auction"]].copy()
    pairs["bin"] = pd.cut(pairs["price"], list(bins), right=False)
    pairs["gain"] = pairs[gain] - pairs["price"]
    out = []
    for (players, position, interval), g in pairs.groupby(["players", "position", "bin"], sort=True,
                                                            observed=True):
        row = {"players": players, "position": position, "bid_bin": f"{interval.left}-{interval.right - 1}",
               "n": len(g), "mean_bid": g["price"].mean()}
        row.update(_mean_columns(g["gain"], "gain"))
        out.append(row)
    return pd.DataFrame(out)


def colour_sale_summary(sale_table: pd.DataFrame, by: Sequence[str] = ("price",)) -> pd.DataFrame:
    """Per price on the scale (or other `by` columns): colour auctions, share that sold (Wilson), accepted
    price of sales with t interval, accepted / price, stones sold per sale, and the opening bid."""
    out = []
    for key, g in sale_table.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        sold = g[g["sold"]]
        row = dict(zip(by, key))
        row["auctions"] = len(g)
        row.update(_rate_columns(int(g["sold"].sum()), len(g), "sold_share"))
        row["sales"] = len(sold)
        row.update(_mean_columns(sold["accepted"], "accepted"))
        row.update(_mean_columns(sold["accepted"] / sold["price"].where(sold["price"] > 0), "accepted_share"))
        row.update(_mean_columns(sold["stones_sold"], "stones_sold"))
        row.update(_mean_columns(g["opening_bid"], "opening_bid"))
        out.append(row)
    return pd.DataFrame(out)
