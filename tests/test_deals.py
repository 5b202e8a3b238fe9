"""Deals for every game (issue 26): one seed, one deal for every line of play; batches on deals, their
history column, duplicate matches and the statistics paired over deals.

What each game's deal holds, and that two lines of play see the same components, is tested per game
(tests/test_<game>_deal.py); this file tests what every game shares, driven by the specs.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.batch import replay, run_match, summarize
from cavekit.analysis.paired import first_player_paired, paired_differences
from cavekit.analysis.results import read_manifest
from cavekit.core.api import CHANCE, ConfigError
from cavekit.core.deal import Deal, DealError, check_fits, deal_scheme, deal_seed, describe, new_deal, resolve_chance
from cavekit.core.registry import game_specs, load_game

# (game, players, agents cheap enough for a few games each)
BATCH_CASES = [("cvc", 1, ["random"]), ("cvc", 2, ["random", "greedy"]), ("pairs", 3, ["random"] * 3),
               ("cavum", 2, ["random", "random"]), ("caverna", 1, ["random"])]


def small_counts(spec) -> list[int]:
    return sorted({min(spec.player_counts), spec.default_players})


@pytest.mark.parametrize("spec", game_specs(), ids=lambda s: s.name)
def test_every_game_deals_the_same_components_for_the_same_seed(spec):
    for players in small_counts(spec):
        game = load_game(spec.name, players=players)
        first, again, other = new_deal(game, 11), new_deal(game, 11), new_deal(game, 12)
        assert first == again
        # Caverna solo has nothing to shuffle (fixed card order, no markers): its deal is empty.
        assert first.components != other.components or not any(first.components.values())
        assert first.scheme == deal_scheme(game) and first.players == players and first.seed == 11
        assert Deal.from_json(first.to_json()) == first
        reference = load_game(spec.name, players=players, engine=spec.engines[-1])
        assert new_deal(reference, 11).components == first.components    # the same on every engine


@pytest.mark.parametrize("spec", game_specs(), ids=lambda s: s.name)
def test_a_seeded_initial_state_is_the_setup_of_that_seeds_deal(spec):
    game = load_game(spec.name, players=spec.default_players)
    dealt = resolve_chance(game.new_initial_state(), new_deal(game, 5))
    assert game.new_initial_state(5).history() == dealt.history() != []
    assert game.new_initial_state(5).current_player() != CHANCE


@pytest.mark.parametrize("spec", game_specs(), ids=lambda s: s.name)
def test_a_chance_component_is_named_only_at_chance_nodes(spec):
    game = load_game(spec.name, players=spec.default_players)
    state = game.new_initial_state(seed=3)
    assert state.current_player() >= 0
    with pytest.raises(DealError):
        state.chance_component()
    with pytest.raises(DealError, match="not a chance node"):
        new_deal(game, 3).outcome(state)


def test_a_deal_is_described_component_by_component():
    game = load_game("cvc", players=2)
    text = describe(game, new_deal(game, 3))
    assert text.startswith("Caverna: Cave vs Cave, 2 player(s): deal seed 3")
    for name in new_deal(game, 3).components:
        assert f"  {name}: " in text


def test_a_corrupt_deal_record_is_refused_saying_what_is_wrong():
    with pytest.raises(DealError, match="not cavekit deal|not a cavekit deal"):
        Deal.from_json('{"format": "something else"}')
    with pytest.raises(DealError, match="line 1, column"):
        Deal.from_json("{nope")
    with pytest.raises(DealError, match="missing or malformed"):
        Deal.from_json('{"format": "cavekit-deal", "game": "cvc"}')


def test_a_deal_of_another_game_or_player_count_is_refused():
    two, solo = load_game("cvc", players=2), load_game("cvc", players=1)
    with pytest.raises(ConfigError, match="deal is for cvc with 2 player"):
        check_fits(new_deal(two, 1), solo)
    check_fits(new_deal(two, 1), two)


def test_deal_seeds_are_distinct_63_bit_numbers_per_index_and_master_seed():
    seeds = {deal_seed(master, i) for master in range(3) for i in range(300)}
    assert len(seeds) == 900 and all(0 <= s < 2 ** 63 for s in seeds)


def test_a_deal_seed_out_of_range_gets_a_clear_error():
    with pytest.raises(ConfigError, match="integer from 0 to 2\\*\\*63 - 1, not -1"):
        new_deal(load_game("cvc"), -1)


# ------------------------------------------------------------------------------------------------------
# Batches on deals

@pytest.mark.parametrize("name, players, agents", BATCH_CASES, ids=lambda x: str(x))
def test_a_stored_games_history_replays_to_its_stored_scores(name, players, agents, tmp_path):
    games = run_match(name, agents, 2, seed=3, progress=False, out=tmp_path / "run", players=players)
    game = load_game(name, players=players)
    for row in games.itertuples():
        end = replay(game, row.history)
        assert end.is_terminal()
        assert end.scores() == [getattr(row, f"score_{p}") for p in range(players)]
        assert len(row.history) == row.length
    assert read_manifest(tmp_path / "run")["deal_scheme"] == deal_scheme(game)


def test_the_chance_outcomes_of_a_batch_game_are_its_deals(tmp_path):
    games = run_match("cvc", ["random", "greedy"], 3, seed=9, progress=False)
    game = load_game("cvc")
    for row in games.itertuples():
        deal, state = new_deal(game, row.deal_seed), game.new_initial_state()
        for action in row.history:
            if state.current_player() == CHANCE:
                assert action == deal.outcome(state)
            state.apply_action(int(action))


def test_a_duplicate_match_plays_every_deal_with_both_seatings():
    games = run_match("cvc", ["random", "greedy"], 6, seed=4, progress=False, duplicate=True)
    assert games["deal"].tolist() == [0, 0, 1, 1, 2, 2]
    for _, pair in games.groupby("deal"):
        assert pair["deal_seed"].nunique() == 1
        assert sorted(pair["agent_0"]) == ["greedy", "random"]
    plain = run_match("cvc", ["random", "greedy"], 6, seed=4, progress=False)
    assert plain["deal"].tolist() == list(range(6))


def test_a_solo_duplicate_match_plays_every_agent_on_every_deal():
    games = run_match("cvc", ["random", "greedy"], 4, seed=2, progress=False, players=1, duplicate=True)
    assert games["deal"].tolist() == [0, 0, 1, 1]
    assert games["agent_0"].tolist() == ["random", "greedy", "random", "greedy"]
    tables = summarize(games)
    assert set(tables["solo scores"].index) == {"random", "greedy"}
    paired = tables["solo points, paired over deals"]
    assert paired.loc[0, ["agent", "versus", "deals"]].tolist() == ["greedy", "random", 2]


def test_a_duplicate_match_needs_a_multiple_of_the_seatings():
    with pytest.raises(ConfigError, match="plays every deal 2 times .* multiple of 2, not 5"):
        run_match("cvc", ["random", "greedy"], 5, seed=1, progress=False, duplicate=True)


def test_resuming_a_folder_written_before_deals_is_refused(tmp_path):
    run_match("cvc", ["random", "random"], 2, seed=1, progress=False, out=tmp_path / "run")
    manifest_path = tmp_path / "run" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["deal_scheme"]
    manifest["chunks"] = []
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(Exception, match="written before deals.*not resumed"):
        run_match("cvc", ["random", "random"], 2, seed=1, progress=False, out=tmp_path / "run")


# ------------------------------------------------------------------------------------------------------
# Paired statistics, on tables whose answers are worked out by hand

def two_player_table(rows: list[tuple[int, str, str, float, int, int]]) -> pd.DataFrame:
    """Games of (deal, agent_0, agent_1, return_0, score_0, score_1); seat 0 always moves first."""
    return pd.DataFrame([{"deal": d, "agent_0": a, "agent_1": b, "return_0": r, "return_1": -r,
                          "score_0": s0, "score_1": s1, "first_player": 0} for d, a, b, r, s0, s1 in rows])


def test_paired_differences_are_means_over_deals_of_the_per_deal_difference():
    # Deal 0: A wins both seatings; deal 1: the first seat wins both; deal 2: a draw and a win for B.
    games = two_player_table([(0, "A", "B", 1, 30, 20), (0, "B", "A", -1, 18, 25),
                              (1, "A", "B", 1, 22, 21), (1, "B", "A", 1, 26, 20),
                              (2, "A", "B", 0, 20, 20), (2, "B", "A", 1, 24, 19)])
    rates = paired_differences(games, "score_rate").iloc[0]
    # A's per-deal score rates: 1, 1/2, 1/4; B's: 0, 1/2, 3/4; differences 1, 0, -1/2.
    assert (rates["agent"], rates["versus"], rates["deals"]) == ("A", "B", 3)
    assert rates["difference"] == pytest.approx(1 / 6)
    assert rates["paired_se"] == pytest.approx(np.std([1, 0, -0.5], ddof=1) / np.sqrt(3))
    points = paired_differences(games, "points").iloc[0]
    # A's mean points per deal: 27.5, 21, 19.5; B's: 19, 23.5, 22; differences 8.5, -2.5, -2.5.
    assert points["difference"] == pytest.approx(3.5 / 3)
    first = first_player_paired(games).iloc[0]
    # The first seat's score rates: deal 0: 1, 0; deal 1: 1, 1; deal 2: 1/2, 1.
    assert first["score_rate"] == pytest.approx(4.5 / 6)
    assert first["paired_se"] == pytest.approx(np.std([0.5, 1, 0.75], ddof=1) / np.sqrt(3))


def test_pairing_over_deals_removes_the_luck_a_deal_gives_one_seat():
    # Each deal gives seat 0 `luck` extra points and A is 3 points better: every game's difference is 3 +- luck,
    # but over a deal's two seatings the luck cancels, leaving exactly 3.
    rows = []
    for deal, luck in enumerate([0, 10, 20, 30, 5, 15]):
        rows += [(deal, "A", "B", 1, 23 + luck, 20), (deal, "B", "A", 1, 20 + luck, 23)]
    table = paired_differences(two_player_table(rows), "points").iloc[0]
    assert table["difference"] == pytest.approx(3.0) and table["paired_se"] == pytest.approx(0.0)
    per_game = np.array([3 + luck for luck in [0, 10, 20, 30, 5, 15]] + [3 - luck for luck in [0, 10, 20, 30, 5, 15]])
    assert table["unpaired_se"] == pytest.approx(per_game.std(ddof=1) / np.sqrt(12))


def test_solo_agents_compare_unpaired_by_welch_over_games():
    games = pd.DataFrame({"deal": [0, 0, 1, 1, 2, 2], "agent_0": ["A", "B"] * 3, "return_0": [0.0] * 6,
                          "score_0": [50, 40, 60, 52, 30, 21], "first_player": [0] * 6})
    table = paired_differences(games, "points").iloc[0]
    assert table["difference"] == pytest.approx(9.0)
    a, b = np.array([50, 60, 30]), np.array([40, 52, 21])
    assert table["unpaired_se"] == pytest.approx(np.sqrt(a.var(ddof=1) / 3 + b.var(ddof=1) / 3))
    assert table["paired_se"] == pytest.approx(np.std([10, 8, 9], ddof=1) / np.sqrt(3))


# ------------------------------------------------------------------------------------------------------
# The command line

def cavekit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", *args], capture_output=True, text=True)


def test_cavekit_deal_shows_a_seeds_deal_as_text_and_as_json():
    text = cavekit("deal", "cvc", "--seed", "7")
    assert text.returncode == 0 and "deal seed 7" in text.stdout
    as_json = cavekit("deal", "cvc", "--seed", "7", "--players", "1", "--json")
    deal = Deal.from_json(as_json.stdout)
    assert deal == new_deal(load_game("cvc", players=1), 7)


def test_cavekit_deal_refuses_a_bad_seed_in_one_line():
    result = cavekit("deal", "cvc", "--seed", "-3")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "cavekit: error: a deal seed is an integer from 0 to 2**63 - 1, not -3"


def test_a_duplicate_match_with_an_odd_number_of_games_is_refused_in_one_line():
    result = cavekit("match", "cvc", "--agents", "random", "random", "--games", "3", "--duplicate", "--quiet")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "multiple of 2, not 3" in result.stderr


def test_the_report_says_how_games_were_dealt_and_pairs_a_duplicate_run(tmp_path):
    from cavekit.analysis.report import build_report
    run_match("cvc", ["random", "greedy"], 4, seed=2, progress=False, out=tmp_path / "dup", duplicate=True)
    page = build_report(tmp_path / "dup")
    assert "duplicate: every deal played with every seat assignment (deal scheme 1)" in page
    assert "Paired over deals" in page and "--duplicate" in page
    run_match("cvc", ["random", "greedy"], 2, seed=2, progress=False, out=tmp_path / "plain")
    page = build_report(tmp_path / "plain")
    assert "one deal per game (deal scheme 1)" in page and "Paired over deals" not in page


def test_ties_on_points_are_counted_with_who_won_the_tie_break():
    from cavekit.analysis.balance import tie_counts
    games = pd.DataFrame({"agent_0": ["A"] * 4, "agent_1": ["B"] * 4, "score_0": [30, 25, 25, 20],
                          "score_1": [30, 25, 20, 20], "return_0": [0.0, 1.0, 1.0, -1.0],
                          "return_1": [0.0, -1.0, -1.0, 1.0], "winner": [-1, 0, 0, 1], "first_player": [0, 0, 1, 0]})
    row = tie_counts(games).iloc[0]
    # Games 0, 1 and 3 are level on points: 0 drawn, 1 and 3 settled by the tie-break (1 for the first player).
    assert row.tolist() == [4, 3, 1, 2, 1]
