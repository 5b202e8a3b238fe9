"""The paired-ban estimate (`analysis.bans.access_effects`) when every ban run re-draws the game.

Search agents whose random draws follow the legal moves replay a ban run differently from the baseline even
when the banned item is never wanted, so a ban run is a fresh draw of each deal and the baseline is one fixed
draw. These tests plant that situation: the baseline's luck must not show up as a value of access.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cavekit.analysis.balance import seat_rows
from cavekit.analysis.bans import access_effects

DEALS = 300
LOSS = {"hall": 4.0, "forge": 1.5}             # built often; what losing access costs the barred seat
PLACEBOS = ["shrine", "well", "ladder", "cellar", "loom"]   # never built: banning them changes nothing


def games_of(scores: np.ndarray) -> pd.DataFrame:
    win0 = scores[:, 0] > scores[:, 1]
    return pd.DataFrame({"game": np.arange(len(scores)), "first_player": 0, "agent_0": "a", "agent_1": "a",
                         "score_0": scores[:, 0], "score_1": scores[:, 1],
                         "return_0": np.where(win0, 1.0, -1.0), "return_1": np.where(win0, -1.0, 1.0)})


def redrawn_runs(rng: np.random.Generator, baseline_luck: float):
    """A baseline and one run per (item, seat); each run re-draws every deal around the deal's own value."""
    deal_value = 50 + rng.normal(0, 6, size=(DEALS, 2))

    def draw() -> np.ndarray:
        return deal_value + rng.normal(0, 4, size=(DEALS, 2))

    baseline = seat_rows(games_of(draw() + baseline_luck))
    for item in LOSS:
        baseline[item] = (rng.random(len(baseline)) < 0.6).astype(int)
    for item in PLACEBOS:
        baseline[item] = 0
    banned = {}
    for item in [*LOSS, *PLACEBOS]:
        for seat in (0, 1):
            scores = draw()
            scores[:, seat] -= LOSS.get(item, 0.0)
            banned[(item, seat)] = games_of(scores)
    return baseline, banned


NAMES = {item: item.title() for item in [*LOSS, *PLACEBOS]}


def test_against_the_one_baseline_draw_its_luck_reads_as_a_value_of_access():
    baseline, banned = redrawn_runs(np.random.default_rng(5), baseline_luck=2.0)
    table = access_effects(baseline, banned, NAMES, "item")
    assert (table.loc[PLACEBOS, "score_low"] > 0).all()          # the flaw the placebo reference removes
    assert (table["placebo_runs"] == 0).all() and not table["placebo"].any()


def test_the_placebo_reference_removes_the_baselines_luck_and_keeps_the_planted_losses():
    baseline, banned = redrawn_runs(np.random.default_rng(5), baseline_luck=2.0)
    table = access_effects(baseline, banned, NAMES, "item", placebo_rate=0.01)
    assert list(table.index[:2]) == ["hall", "forge"]
    for item, loss in LOSS.items():
        row = table.loc[item]
        assert row["score_low"] <= loss <= row["score_high"]
        assert row["margin_low"] <= loss <= row["margin_high"]
        assert not row["placebo"] and row["placebo_runs"] == len(PLACEBOS)
        assert math.isclose(row["per_build_score"], row["access_score"] / row["build_rate"])
    for item in PLACEBOS:
        row = table.loc[item]
        assert row["score_low"] <= 0 <= row["score_high"], item
        assert row["placebo"] and row["placebo_runs"] == len(PLACEBOS) - 1     # its own run left out
        assert math.isnan(row["per_build_score"])                              # noise over a zero build rate
    assert (table["paired"] == 2 * DEALS).all()


def test_the_placebo_reference_covers_the_planted_loss_about_95_percent_of_the_time():
    rng = np.random.default_rng(17)
    hits, trials = 0, 150
    for _ in range(trials):
        baseline, banned = redrawn_runs(rng, baseline_luck=rng.normal(0, 1))
        row = access_effects(baseline, banned, NAMES, "item", placebo_rate=0.01).loc["hall"]
        hits += row["score_low"] <= LOSS["hall"] <= row["score_high"]
    assert 0.88 <= hits / trials <= 0.995, f"coverage {hits / trials:.3f}"


def test_with_fewer_than_two_placebos_the_reference_is_the_baseline():
    baseline, banned = redrawn_runs(np.random.default_rng(8), baseline_luck=0.0)
    kept = {key: table for key, table in banned.items() if key[0] in ("hall", "forge", "shrine")}
    table = access_effects(baseline, kept, NAMES, "item", placebo_rate=0.01)
    assert (table["placebo_runs"] == 0).all() and not table["placebo"].any()
    assert table.loc["shrine", "build_rate"] == 0 and math.isnan(table.loc["shrine", "per_build_score"])
