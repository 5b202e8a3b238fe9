"""Cavum bidding analysis: its tables on synthetic games with planted answers and one end-to-end run on a tiny
real batch (the t and Wilson intervals it uses are tested in test_stats.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.cavum import bidding as cb
from cavekit.analysis.batch import run_match
from cavekit.analysis.results import load_results

# ---------------------------------------------------------------- synthetic games


def synthetic(games: int, players: int = 2, edge: float = 0.0, noise: float = 10.0, seed: int = 0,
              confound: float = 0.0, colour_discount: int = 2, edge_phases: tuple[int, ...] = (1, 2, 3)
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games and Cavum decision rows of made-up games with known answers.

    Each phase every player ends up with a distinct sequence card; the first players - 1 choosers win an
    auction at a random price (0-15), the last takes a card alone. Holding position 1 in a phase of
    `edge_phases` is worth `edge` points; each phase adds normal noise. Positions are assigned at random,
    unless `confound` > 0: then the player furthest ahead before the auctions gets position 1 and every
    point of lead before a phase also brings `confound` points later (so a raw comparison overstates the
    edge). One colour sale
    per phase: the scale price is 1-9, a random player sells one stone and accepts price - `colour_discount`
    (at least 1).
    """
    rng = np.random.default_rng(seed)
    game_rows, rows = [], []
    for g in range(games):
        score = np.full(players, 20.0)
        ply = 0

        def row(player: int, text: str, stage: str, phase: int, **extra: object) -> None:
            nonlocal ply
            rows.append({"game": g, "ply": ply, "decision": ply, "player": player, "agent": "synthetic",
                         "action": 0, "action_text": text, "phase": phase, "stage": stage,
                         "standing_bid": extra.get("standing_bid"), "standing_bidder": extra.get("bidder"),
                         "seq_card": extra.get("card"), "position": extra.get("position"),
                         "colour": extra.get("colour"), "price": extra.get("price"), "held": extra.get("held"),
                         "score_before": int(score[player]), "score_after": int(score[player])})
            ply += 1

        for phase in (1, 2, 3):
            cards = np.sort(rng.choice([1, 2, 3, 4], size=players, replace=False))
            if confound > 0:
                ranking = np.argsort(-(score + rng.random(players) * 1e-3))     # leader first
                position_of = np.empty(players, dtype=int)
                position_of[ranking] = np.arange(players)
            else:
                position_of = rng.permutation(players)
            card_of = cards[position_of]
            lead = score - (score.sum() - score) / (players - 1)
            choosers = rng.permutation(players)
            for i, p in enumerate(choosers):
                if i < players - 1:
                    price = int(rng.integers(0, 16))
                    other = choosers[i + 1]
                    row(p, f"bid {price}", "auction", phase)
                    row(other, "pass", "auction", phase, standing_bid=price, bidder=p)
                    score[p] -= price
                else:
                    price = 0
                row(p, f"take sequence card {card_of[p]}", "card choice", phase, standing_bid=price, bidder=p)
            planted = edge if phase in edge_phases else 0.0
            gain = rng.normal(0, noise, players) + planted * (position_of == 0) + confound * lead
            score += np.round(gain)
            seller = int(rng.integers(players))
            scale_price = int(rng.integers(1, 10))
            accepted = max(1, scale_price - colour_discount)
            common = dict(colour="red", price=scale_price, held=2, card=int(card_of[seller]),
                          position=int(position_of[seller]) + 1)
            row(seller, f"bid {accepted}", "colour bid", phase, **common)
            row(seller, "sell 1", "colour sell", phase, standing_bid=accepted, bidder=seller, **common)
            score[seller] += accepted
        best = np.flatnonzero(score == score.max())
        winner = int(best[0])
        record = {"game": g}
        for p in range(players):
            record.update({f"agent_{p}": "synthetic", f"score_{p}": int(score[p]),
                           f"return_{p}": 1.0 if p == winner else -1.0 / (players - 1)})
        record.update({"winner": winner, "first_player": 0, "length": ply, "decisions": ply, "seconds": 0.0})
        game_rows.append(record)
    return pd.DataFrame(game_rows), pd.DataFrame(rows)


def synthetic_holdings(games: int, **kwargs: object) -> pd.DataFrame:
    g, d = synthetic(games, **kwargs)
    return cb.holdings(g, d, run="synthetic")


# ---------------------------------------------------------------- tables from raw rows


def test_auctions_and_holdings_recover_cards_prices_and_positions():
    games, decisions = synthetic(30, players=3, seed=1)
    a = cb.auctions(games, decisions, run="s")
    assert len(a) == 30 * 3 * 3
    assert (a.groupby(["game", "phase"])["alone"].sum() == 1).all()          # one card taken alone per phase
    assert (a.loc[a["alone"], "price"] == 0).all() and (a.loc[a["alone"], "bids"] == 0).all()
    assert (a.loc[~a["alone"], "opening_bid"] == a.loc[~a["alone"], "price"]).all()
    assert (a.groupby(["game", "phase"])["position"].apply(sorted).map(tuple) == (1, 2, 3)).all()
    h = cb.holdings(games, decisions, run="s")
    assert len(h) == 30 * 3 * 3
    # Play gain adds back the payments of the phase and later ones (all of them in phase 1); margins sum to 0.
    paid = a.groupby(["game", "player"])["price"].sum()
    first = h[h["phase"] == 1]
    assert (first["paid_from"] == paid.reindex(pd.MultiIndex.from_frame(first[["game", "player"]])).to_numpy()).all()
    last = h[h["phase"] == 3]
    assert (last["paid_from"] == last["price"]).all()
    assert (h["play_gain"] == h["score"] - h["pre_score"] + h["paid_from"]).all()
    assert (h["phase_gain"] == h["gain"] + h["price"]).all()
    assert h.groupby(["game", "phase"])["margin"].sum().abs().max() < 1e-9
    assert h.groupby(["game", "phase"])["margin_play"].sum().abs().max() < 1e-9
    assert h.groupby(["game", "phase"])["pre_margin"].sum().abs().max() < 1e-9
    assert (h.loc[h["phase"] == 1, "pre_score"] == 20).all()
    assert h.groupby(["game", "phase"])["win"].sum().eq(1).all()


def test_winning_bids_describe_the_planted_uniform_prices():
    games, decisions = synthetic(300, players=2, seed=2)
    table = cb.winning_bids(cb.auctions(games, decisions))
    assert list(table["phase"]) == [1, 2, 3] and (table["n"] == 300).all()
    for _, r in table.iterrows():           # prices are uniform on 0..15: mean 7.5
        assert r["mean_low"] <= 7.5 <= r["mean_high"]
        assert r["max"] <= 15 and r["contested_share"] == 0


# ---------------------------------------------------------------- planted answers


def test_a_position_given_an_edge_shows_it_and_the_others_do_not():
    h = synthetic_holdings(400, players=3, edge=8.0, seed=3)
    value = cb.position_value(h).set_index(["phase", "position"])
    for phase in (1, 2, 3, "all"):
        first, second = value.loc[(phase, 1)], value.loc[(phase, 2)]
        assert first["margin_play_low"] > 0              # the edge shows
        assert first["win_rate_low"] > 1 / 3
        # The others share the cost of the edge: position 2's margin is -8 / 2 (vs the mean of the others).
        assert second["margin_play_low"] <= -4.0 <= second["margin_play_high"]
    be = cb.break_even_bids(h).set_index(["phase", "position"])
    for phase in (1, 2, 3, "all"):
        assert be.loc[(phase, 1), "break_even_low"] <= 8.0 <= be.loc[(phase, 1), "break_even_high"]
        assert be.loc[(phase, 2), "break_even_low"] <= 0.0 <= be.loc[(phase, 2), "break_even_high"]
    assert be.loc[("all", 1), "break_even_low"] > 0


def test_no_edge_means_no_position_value():
    h = synthetic_holdings(300, players=2, edge=0.0, seed=4)
    value = cb.position_value(h)
    assert ((value["margin_play_low"] <= 0) & (0 <= value["margin_play_high"])).all()
    assert ((value["win_rate_low"] <= 0.5) & (0.5 <= value["win_rate_high"])).all()


def test_break_even_bid_equals_the_planted_value_and_the_curve_crosses_zero_there():
    h = synthetic_holdings(500, players=2, edge=6.0, noise=6.0, seed=5)
    be = cb.break_even_bids(h, pooled=False)
    for _, r in be.iterrows():
        assert r["break_even_low"] <= 6.0 <= r["break_even_high"]
        assert r["break_even_high"] - r["break_even_low"] < 6.0          # and it is informative
    curve = cb.best_response_curve(be, bids=range(0, 13))
    for phase, c in curve.groupby("phase"):
        c = c.set_index("bid")
        assert (c["expected_gain"].diff().dropna() == -1).all()
        assert c.loc[0, "gain_low"] > 0 and c.loc[12, "gain_high"] < 0
        crossing = c.index[np.argmin(np.abs(c["expected_gain"].to_numpy()))]
        assert abs(crossing - 6) <= 2
    # The observed E[gain | b] follows the line: its points lie within reach of edge - b.
    emp = cb.empirical_bid_gain(h, bins=(0, 5, 10, 16))
    assert len(emp) == 3
    for _, r in emp.iterrows():
        assert r["gain_low"] <= 6.0 - r["mean_bid"] <= r["gain_high"]


def test_measures_differ_only_by_payments():
    h = synthetic_holdings(200, players=2, edge=5.0, seed=6)
    play = cb.break_even_bids(h, measure="play").set_index("phase")
    net = cb.break_even_bids(h, measure="net").set_index("phase")
    pairs = cb.position_pairs(h)
    assert (pairs["gain_phase"] - pairs["gain_net"] == pairs["price"] - pairs["price_next"]).all()
    assert not np.isclose(play.loc[1, "break_even"], net.loc[1, "break_even"])
    with pytest.raises(ValueError, match="measure"):
        cb.break_even_bids(h, measure="gross")


def test_break_even_intervals_cover_the_planted_value_at_about_the_stated_rate():
    # 150 small experiments of 20 games each, cut from one synthetic run (games are independent).
    h = synthetic_holdings(3000, players=2, edge=4.0, noise=8.0, seed=100)
    hits = reps = 0
    for start in range(0, 3000, 20):
        be = cb.break_even_bids(h[h["game"].between(start, start + 19)], pooled=False)
        hits += int(((be["break_even_low"] <= 4.0) & (4.0 <= be["break_even_high"])).sum())
        reps += len(be)
    # 450 intervals: a true 95% rate gives 0.92-0.97 nearly always.
    assert reps == 450
    assert 0.91 <= hits / reps <= 0.98


def test_confounded_assignment_is_detected_and_adjustment_removes_the_bias():
    # The leader before the auctions gets position 1, and every point of lead brings more points later.
    # The edge is planted in phase 3 only, so no earlier position feeds back into who leads.
    h = synthetic_holdings(400, players=2, edge=3.0, noise=4.0, confound=0.3, edge_phases=(3,), seed=7)
    balance = cb.assignment_balance(h).set_index(["phase", "position"])
    assert balance.loc[(3, 1), "pre_margin_low"] > 0                 # the leader got position 1
    raw = cb.break_even_bids(h, pooled=False).set_index("phase")
    adjusted = cb.break_even_bids(h, adjust=True, pooled=False).set_index("phase")
    assert raw.loc[3, "break_even_low"] > 3.0                        # a raw comparison overstates the edge
    assert adjusted.loc[3, "break_even_low"] <= 3.0 <= adjusted.loc[3, "break_even_high"]
    # Random assignment: balanced.
    fair = cb.assignment_balance(synthetic_holdings(300, players=3, seed=8))
    assert ((fair["pre_margin_low"] <= 0) & (0 <= fair["pre_margin_high"])).mean() >= 0.8


def test_colour_sale_summary_recovers_the_planted_discount():
    games, decisions = synthetic(200, players=2, seed=9, colour_discount=2)
    sales = cb.colour_sales(games, decisions)
    assert len(sales) == 600 and sales["sold"].all() and (sales["stones_sold"] == 1).all()
    summary = cb.colour_sale_summary(sales).set_index("price")
    for price, r in summary.iterrows():
        assert r["accepted"] == max(1, price - 2)
        assert r["sold_share"] == 1.0


# ---------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def tiny_batches(tmp_path_factory):
    """Two tiny real batches: 2 heuristic players (2 games) and 3 random players (2 games)."""
    root = tmp_path_factory.mktemp("cavum_bidding")
    run_match("cavum", ["cavum_heuristic"] * 2, 2, seed=5, progress=False, out=root / "two", players=2)
    run_match("cavum", ["random"] * 3, 2, seed=6, progress=False, out=root / "three", players=3)
    return [root / "two", root / "three"]


def test_real_batch_end_to_end(tiny_batches):
    tables = cb.load_bidding(tiny_batches)
    h, a, sales = tables["holdings"], tables["auctions"], tables["colour_sales"]
    assert set(h["run"]) == {"two", "three"} and set(h["players"]) == {2, 3}
    assert len(h) == 2 * 3 * 2 + 2 * 3 * 3
    for (run, game, phase), g in h.groupby(["run", "game", "phase"]):
        n = g["players"].iloc[0]
        assert sorted(g["position"]) == list(range(1, n + 1))
        assert g["card"].nunique() == n
        assert sorted(g["card"]) == sorted(g.sort_values("position")["card"])
    # Each card's price is what the engine took off the chooser's score.
    assert ((a["price"] >= 0) & (a["price"] <= 60)).all()
    assert (a.loc[a["alone"], "price"] == 0).all()
    assert (a.groupby(["run", "game", "phase"])["alone"].sum() == 1).all()
    for folder in tiny_batches:
        games, decisions = load_results(folder)
        choice = decisions[decisions["stage"] == "card choice"].sort_values(["game", "ply"])
        assert choice["standing_bid"].notna().all()
        assert (choice["standing_bidder"] == choice["player"]).all()
        # The position recorded during building matches the one derived from the card choices.
        built = decisions[decisions["stage"] == "build"].groupby(["game", "phase", "player"])["position"].first()
        mine = h[h["run"] == folder.name].set_index(["game", "phase", "player"])["position"]
        assert (built.reindex(mine.index).to_numpy() == mine.to_numpy()).all()
        # Final scores agree with the games table.
        final = h[h["run"] == folder.name].groupby(["game", "player"])["score"].first()
        for p in range(int(h.loc[h["run"] == folder.name, "players"].iloc[0])):
            assert (final.xs(p, level="player").to_numpy() == games[f"score_{p}"].to_numpy()).all()
        colour = decisions[decisions["stage"].isin(["colour bid", "colour sell"])]
        assert colour["colour"].notna().all() and (colour["price"].between(0, 9)).all()
        assert (colour["held"] >= 1).all()
    sold = sales[sales["sold"]]
    assert (sold["accepted"] <= sold["price"]).all() and (sold["stones_sold"] >= 1).all()
    # Every summary runs on real rows.
    assert len(cb.winning_bids(a)) == 6
    assert set(cb.position_value(h)["phase"]) == {1, 2, 3, "all"}
    assert len(cb.break_even_bids(h)) == 4 * 1 + 4 * 2
    assert not cb.colour_sale_summary(sales).empty
    assert not cb.assignment_balance(h).empty
