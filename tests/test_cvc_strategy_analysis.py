"""The Cave vs Cave strategy analyses (room values, tiles, openings, budget sensitivity) on data with known answers.

Synthetic games and decisions tables are built here with planted effects: a room made artificially strong
must come out on top, intervals must cover the true value at about their stated 95% rate over many
simulated data sets, and small hand-made tables must give the counts a person computes by hand.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.cvc.balance import first_pick_outcomes, tile_pick_positions
from cavekit.analysis.cvc.openings import format_tree, opening_lines, opening_tree, search_openings
from cavekit.analysis.results import ResultsError
from cavekit.analysis.cvc.room_values import (access_effects, build_indicators, build_timing, room_ban_effects,
                                          room_ids, room_names, room_regression, run_room_bans)
from cavekit.analysis.cvc.sensitivity import spearman, stable_from
from cavekit.core.api import ConfigError

NAMES = room_names()
STRONG = "treasury"


def synthetic(n_games: int, rng: np.random.Generator, strong_effect: float = 8.0, build_p: float = 0.3,
              noise: float = 6.0) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """Games and decisions where each player furnishes each room with probability `build_p` (in a random
    round), and the final score is 40 + `strong_effect` * (furnished the strong room) + 2 * (moved first) +
    normal noise. The winner has the higher score. Returns the tables and the planted score effect."""
    games, decisions = [], []
    for g in range(n_games):
        first = int(rng.integers(2))
        scores = []
        for p in range(2):
            built = [rid for rid in room_ids() if rng.random() < build_p]
            score = 40 + strong_effect * (STRONG in built) + 2 * (p == first) + rng.normal(0, noise)
            scores.append(round(score, 3))
            for ply, rid in enumerate(built):
                decisions.append({"game": g, "ply": 10 * ply + p, "player": p, "agent": "a", "kind": "furnish",
                                  "tile": None, "room_furnished": NAMES[rid], "round": int(rng.integers(1, 9))})
        ret = [1.0, -1.0] if scores[0] > scores[1] else [-1.0, 1.0]
        games.append({"game": g, "first_player": first, "agent_0": "a", "agent_1": "a", "score_0": scores[0],
                      "score_1": scores[1], "return_0": ret[0], "return_1": ret[1]})
    return pd.DataFrame(games), pd.DataFrame(decisions), strong_effect


# ------------------------------------------------------------------------------------------------
# Room values: regression


def test_an_artificially_strong_room_comes_out_on_top_of_the_regression():
    games, decisions, effect = synthetic(1500, np.random.default_rng(1))
    by_score = room_regression(games, decisions, outcome="score")
    assert by_score.index[0] == STRONG
    top = by_score.loc[STRONG]
    assert top["ci95_low"] <= effect <= top["ci95_high"]
    by_points = room_regression(games, decisions, outcome="points")
    assert by_points.index[0] == STRONG
    assert by_points.loc[STRONG, "ci95_low"] > 0
    # Rooms with no planted effect: most intervals cover 0.
    others = by_score.drop(index=STRONG)
    covered = ((others["ci95_low"] <= 0) & (others["ci95_high"] >= 0)).mean()
    assert covered >= 0.8


def test_regression_intervals_cover_the_planted_effect_at_about_95_percent():
    rng = np.random.default_rng(7)
    hits, runs = 0, 150
    for _ in range(runs):
        games, decisions, effect = synthetic(150, rng, strong_effect=5.0)
        row = room_regression(games, decisions, outcome="score").loc[STRONG]
        hits += row["ci95_low"] <= effect <= row["ci95_high"]
    assert 0.89 <= hits / runs <= 0.99, f"coverage {hits / runs:.3f}"


def test_build_indicators_and_timing_count_each_furnished_room():
    games = pd.DataFrame({"game": [0, 1], "first_player": [0, 1], "agent_0": "a", "agent_1": "b",
                          "score_0": [50, 40], "score_1": [45, 47], "return_0": [1.0, -1.0],
                          "return_1": [-1.0, 1.0]})
    decisions = pd.DataFrame({"game": [0, 0, 1], "ply": [1, 2, 3], "player": [0, 1, 1], "agent": ["a", "b", "b"],
                              "kind": "furnish", "tile": None,
                              "room_furnished": ["Parlor", "Parlor", "Treasury"], "round": [2, 5, 5]})
    table = build_indicators(games, decisions).set_index(["game", "player"])
    assert table.loc[(0, 0), "parlor"] == 1 and table.loc[(0, 1), "parlor"] == 1
    assert table.loc[(1, 1), "treasury"] == 1 and table.loc[(1, 0), "treasury"] == 0
    assert table[room_ids()].to_numpy().sum() == 3
    timing = build_timing(decisions)
    assert timing.loc["parlor", 2] == 1 and timing.loc["parlor", 5] == 1 and timing.loc["treasury", 5] == 1
    assert list(timing.index) == room_ids()


def test_regression_refuses_bad_outcomes_and_solo_points():
    games, decisions, _ = synthetic(20, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="outcome must be 'points' or 'score'"):
        room_regression(games, decisions, outcome="wins")
    solo = games.drop(columns=["agent_1", "score_1", "return_1"])
    with pytest.raises(ConfigError, match="solo games have no win"):
        room_regression(solo, decisions[decisions["player"] == 0], outcome="points")


# ------------------------------------------------------------------------------------------------
# Room values: the paired ban experiment


def ban_tables(rng: np.random.Generator, n: int, penalty: dict[str, float]) -> tuple[pd.DataFrame, dict]:
    """A baseline and, per (room, seat), a banned run of the same n games: the barred seat loses
    `penalty[room]` points of score (and wins less often accordingly); everything else is common noise."""
    base_scores = 45 + rng.normal(0, 6, size=(n, 2))

    def games_of(scores: np.ndarray) -> pd.DataFrame:
        win0 = scores[:, 0] > scores[:, 1]
        return pd.DataFrame({"game": np.arange(n), "first_player": 0, "agent_0": "a", "agent_1": "a",
                             "score_0": scores[:, 0], "score_1": scores[:, 1],
                             "return_0": np.where(win0, 1.0, -1.0), "return_1": np.where(win0, -1.0, 1.0)})

    baseline = build_indicators(games_of(base_scores), pd.DataFrame(
        {"game": [], "ply": [], "player": [], "agent": [], "kind": [], "tile": [], "room_furnished": [],
         "round": []}))
    banned = {}
    for room, loss in penalty.items():
        for seat in (0, 1):
            scores = base_scores + rng.normal(0, 2, size=(n, 2))
            scores[:, seat] -= loss
            banned[(room, seat)] = games_of(scores)
    return baseline, banned


def test_access_effects_rank_the_planted_strongest_room_first_with_covering_intervals():
    penalty = {"treasury": 6.0, "parlor": 2.0, "shelf": 0.0}
    baseline, banned = ban_tables(np.random.default_rng(3), 400, penalty)
    table = access_effects(baseline, banned)
    assert list(table.index) == ["treasury", "parlor", "shelf"]
    for room, loss in penalty.items():
        row = table.loc[room]
        assert row["paired"] == 800
        assert row["score_low"] <= loss <= row["score_high"]
        assert row["margin_low"] <= loss <= row["margin_high"]     # the opponent is unaffected
    assert table.loc["treasury", "ci95_low"] > 0


def test_access_interval_coverage_is_about_95_percent():
    rng = np.random.default_rng(11)
    hits, runs = 0, 200
    for _ in range(runs):
        baseline, banned = ban_tables(rng, 60, {"treasury": 3.0})
        row = access_effects(baseline, banned).loc["treasury"]
        hits += row["score_low"] <= 3.0 <= row["score_high"]
    assert 0.9 <= hits / runs <= 0.99, f"coverage {hits / runs:.3f}"


def test_room_ban_experiment_runs_pairs_and_resumes(tmp_path):
    out = tmp_path / "bans"
    run_room_bans("greedy", 2, 5, out, rooms=["parlor"], progress=False)
    table = room_ban_effects(out)
    assert list(table.index) == ["parlor"] and table.loc["parlor", "paired"] == 4
    assert {p.name for p in out.iterdir()} == {"room_bans.json", "baseline", "ban_parlor_p0", "ban_parlor_p1"}
    manifest = json.loads((out / "ban_parlor_p1" / "manifest.json").read_text())
    assert manifest["params"]["banned_rooms_p1"] == ["parlor"]
    # Same arguments: nothing to play, same table. Different ones: refused with the folder named.
    again = run_room_bans("greedy", 2, 5, out, rooms=["parlor"], progress=False)
    pd.testing.assert_frame_equal(room_ban_effects(again), table)
    with pytest.raises(ResultsError, match="room_bans.json: this folder holds a different room-ban experiment"):
        run_room_bans("greedy", 3, 5, out, rooms=["parlor"], progress=False)
    with pytest.raises(ConfigError, match="unknown room id"):
        run_room_bans("greedy", 2, 5, tmp_path / "other", rooms=["lounge"], progress=False)
    (out / "room_bans.json").write_text("{not json")
    with pytest.raises(ResultsError, match="room_bans.json: corrupt experiment file"):
        room_ban_effects(out)


# ------------------------------------------------------------------------------------------------
# Action tiles


def take_rows(plan: list[tuple[int, int, int, str]]) -> pd.DataFrame:
    """Decision rows of tile takes from (game, round, player, tile), in play order."""
    return pd.DataFrame([{"game": g, "ply": i, "player": p, "agent": "a", "kind": "take", "tile": t,
                          "room_furnished": None, "round": r} for i, (g, r, p, t) in enumerate(plan)])


TWO_GAMES = pd.DataFrame({"game": [0, 1], "first_player": [0, 1], "agent_0": "a", "agent_1": "a",
                          "score_0": [50, 40], "score_1": [45, 47], "return_0": [1.0, -1.0], "return_1": [-1.0, 1.0]})


def test_pick_positions_and_first_pick_outcomes_by_hand():
    decisions = take_rows([(0, 1, 0, "Excavation"), (0, 1, 1, "Housework"), (0, 1, 0, "Cultivation"),
                           (0, 2, 1, "Excavation"), (0, 2, 0, "Masonry"),
                           (1, 1, 1, "Excavation"), (1, 1, 0, "Cultivation")])
    positions = tile_pick_positions(decisions)
    assert positions.loc["Excavation", 1] == 1.0          # all three Excavation takes opened their round
    assert positions.loc["Cultivation", 2] == 0.5 and positions.loc["Cultivation", 3] == 0.5
    assert np.allclose(positions.sum(axis=1), 1.0)
    firsts = first_pick_outcomes(decisions, TWO_GAMES)
    row = firsts.loc[(1, "Excavation")]
    assert row["picks"] == 2 and row["share"] == 1.0
    assert row["score_rate"] == 1.0                       # game 0: p0 won; game 1: p1 won
    late = firsts.loc[(2, "Excavation")]
    assert late["picks"] == 1 and late["score_rate"] == 0.0 and late["mean_score"] == 45


# ------------------------------------------------------------------------------------------------
# Openings


def test_opening_lines_and_tree_count_games_and_first_player_results():
    decisions = take_rows([(0, 1, 0, "Excavation"), (0, 1, 1, "Housework"),
                           (1, 1, 1, "Excavation"), (1, 1, 0, "Housework")])
    three = pd.concat([TWO_GAMES, pd.DataFrame({"game": [2], "first_player": [0], "agent_0": "a", "agent_1": "a",
                                                "score_0": [30], "score_1": [50], "return_0": [-1.0],
                                                "return_1": [1.0]})], ignore_index=True)
    decisions = pd.concat([decisions, take_rows([(2, 1, 0, "Excavation"), (2, 1, 1, "Masonry")])],
                          ignore_index=True)
    lines = opening_lines(decisions, three, depth=2)
    top = lines.iloc[0]
    assert top["line"] == "A:Excavation > B:Housework" and top["games"] == 2
    assert top["first_player_score_rate"] == 1.0       # both games won by the player who moved first
    tree = opening_tree(decisions, three, depth=2)
    assert list(tree["line"]) == ["A:Excavation", "A:Excavation > B:Housework", "A:Excavation > B:Masonry"]
    assert list(tree["games"]) == [3, 2, 1]
    assert tree.iloc[0]["first_player_score_rate"] == pytest.approx(2 / 3)
    text = format_tree(tree)
    assert text.splitlines()[1].startswith("  A:Excavation > B:Housework") or "  B:Housework" in text


def test_search_openings_builds_a_consistent_tree_of_whole_turns():
    tree = search_openings("cvc_turn_mcts:iterations=150", depth=2, branching=2, seed=3)
    assert list(tree["depth"]) == [1, 2, 2, 1, 2, 2]
    assert set(tree[tree["depth"] == 1]["player"]) == {"A"} and set(tree[tree["depth"] == 2]["player"]) == {"B"}
    parents = tree[tree["depth"] == 1]["line"].tolist()
    for i, row in tree.iterrows():
        if row["depth"] == 2:
            assert row["line"].startswith(parents[0 if i < 3 else 1] + " > ")
    assert tree["value"].between(-1, 1).all() and (tree["visits"] > 0).all()
    assert tree[tree["depth"] == 1]["tile"].nunique() == 2          # alternatives, not variants of one tile
    assert all(seg.split("; ")[-1] == "end turn" or "end turn" in seg for seg in tree["segment"])


# ------------------------------------------------------------------------------------------------
# Budget sensitivity


def test_spearman_and_its_interval():
    a = pd.Series(np.arange(10.0), index=list("abcdefghij"))
    rho, low, high, n = spearman(a, a * 3 + 1)
    assert rho == pytest.approx(1.0) and n == 10
    rho, low, high, _ = spearman(a, -a)
    assert rho == pytest.approx(-1.0)
    rng = np.random.default_rng(0)
    rho, low, high, _ = spearman(pd.Series(rng.normal(size=200)), pd.Series(rng.normal(size=200)))
    assert low < 0 < high
    assert np.isnan(spearman(a.iloc[:3], a.iloc[:3])[0])


def test_stable_from_names_the_first_budget_after_which_nothing_moves():
    table = pd.DataFrame({"first_low": [0.60, 0.52, 0.50, 0.49], "first_high": [0.70, 0.60, 0.58, 0.57],
                          "room_rank_rho": [0.3, 0.8, 0.9, 1.0], "tile_rank_rho": [0.5, 0.75, 0.95, 1.0]},
                         index=["weak", "medium", "strong", "strongest"])
    assert stable_from(table) == "medium"
    assert stable_from(table, min_rho=0.9) == "strong"
    moving = table.assign(first_low=[0.6, 0.52, 0.40, 0.49], first_high=[0.7, 0.6, 0.45, 0.57])
    assert stable_from(moving) == "strongest"


# ------------------------------------------------------------------------------------------------
# Command line


def test_openings_and_room_bans_commands(tmp_path, capsys):
    from cavekit.analysis.cli import main
    folder = tmp_path / "run"
    assert main(["match", "cvc", "--agents", "greedy", "greedy", "--games", "3", "--seed", "1", "--out", str(folder),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["openings", "--results", str(folder), "--depth", "2", "--out", str(tmp_path / "tree.csv")]) == 0
    printed = capsys.readouterr().out
    assert "openings of 3 games" in printed and "A:" in printed and "games 3" in printed
    assert pd.read_csv(tmp_path / "tree.csv")["depth"].max() == 2
    assert main(["room-bans", "--agent", "greedy", "--games", "1", "--rooms", "parlor", "--out",
                 str(tmp_path / "bans"), "--quiet"]) == 0
    assert "Parlor" in capsys.readouterr().out
    assert main(["openings", "--results", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_budget_sensitivity_on_the_committed_ladder_sample():
    from pathlib import Path
    from cavekit.analysis.cvc.sensitivity import budget_sensitivity
    ladder = Path(__file__).parent.parent / "results" / "samples" / "cvc_ladder"
    folders = {name: ladder / name for name in ("greedy", "turn_mcts20", "turn_mcts50")}
    table = budget_sensitivity(folders)
    assert list(table.index) == list(folders)
    assert table.loc["turn_mcts50", "room_rank_rho"] == pytest.approx(1.0)
    assert table.loc["turn_mcts50", "tile_rank_rho"] == pytest.approx(1.0)
    assert ((table["first_low"] <= table["first_player_score_rate"])
            & (table["first_player_score_rate"] <= table["first_high"])).all()
    assert (table["games"] > 0).all() and table["mean_score"].between(10, 100).all()
    with pytest.raises(ValueError, match="reference 'nope' is not one of the budgets"):
        budget_sensitivity(folders, reference="nope")


def test_ladder_rungs_are_named_from_agent_specs_and_the_main_set_joins_as_its_rung():
    from pathlib import Path
    from cavekit.analysis.cvc.sensitivity import ladder_folders, rung_name
    assert rung_name("cvc_turn_mcts:iterations=50") == "turn_mcts50"
    assert rung_name("cvc_expectimax:depth=1,width=32") == "expectimax1"
    assert rung_name("greedy") == "greedy"
    samples = Path(__file__).parent.parent / "results" / "samples"
    folders = ladder_folders(samples)
    assert list(folders) == ["greedy", "expectimax1", "turn_mcts20", "turn_mcts50"]   # weakest first
    assert folders["expectimax1"] == samples / "cvc_selfplay"
