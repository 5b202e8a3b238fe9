"""Per-game outcome columns (analysis/outcomes.py): The Cave's rank points from the engine's own scoring, carried
into games rows and results folders; folders written before outcome columns still load and resume; mismatched
game columns are refused naming the file."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cavekit.analysis.batch import play_chunk, play_game, run_match
from cavekit.core.deal import new_deal
from cavekit.analysis.outcomes import fields_for, outcome_columns
from cavekit.analysis.pairs.outcomes import pairs_rank_points, pairs_round_captures
from cavekit.analysis.results import ResultsError, games_schema, load_games, load_results, read_manifest
from cavekit.core import CHANCE, load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.pairs.rules import NUM_RANKS, round_points, rules

PAIRS_RUN = {"game_name": "pairs", "agent_specs": ["pairs_heuristic", "random", "random"], "games": 6, "seed": 4,
             "chunk_size": 2, "players": 3}


def random_match(game, seed: int, snapshots: list | None = None):
    """A finished random match; `snapshots` gets (to_dict, action, player) before every play if given."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            if snapshots is not None:
                snapshots.append((state.to_dict(), action, player))
            state.apply_action(action)
    return state


@pytest.mark.parametrize("players, params", [(2, {}), (3, {"score_leftover": True}), (4, {"rounds": 2}),
                                             (6, {"burn_cards": 3, "tie_break": "final_round"})])
def test_rank_points_are_the_engines_majority_points_and_add_up_to_the_scores(players, params):
    for seed in range(4):
        per_engine = []
        for engine in ("compiled", "reference"):
            game = load_game("pairs", players=players, engine=engine, **params)
            state = random_match(game, seed)
            points = pairs_rank_points(game, state)
            assert [sum(row) for row in points] == state.scores()
            rounds = game.config.num_rounds
            for rank in range(NUM_RANKS):
                # In a round at most every seat ties for a rank's majority, each scoring at most its copies.
                assert all(0 <= row[rank] <= rounds * rules().copies[rank] for row in points)
            per_engine.append(points)
        assert per_engine[0] == per_engine[1]


def test_each_rounds_piles_are_the_piles_the_round_was_scored_with():
    # Before a round's last card the piles are visible; the last card can add one capture to its player's pile,
    # of one rank, as many cards as the Cave held of it. Checked on the reference engine, step by step.
    game = load_game("pairs", players=3, engine="reference")
    for seed in range(3):
        snapshots: list = []
        state = random_match(game, seed, snapshots)
        captures = pairs_round_captures(game, state)
        per_round = game.config.players * game.config.hand_size
        assert len(captures) == game.config.num_rounds
        for k, piles in enumerate(captures):
            before, action, player = snapshots[(k + 1) * per_round - 1]
            assert before["turn"] == per_round - 1 and before["round"] == k
            changed = [(p, r) for p in range(3) for r in range(NUM_RANKS) if piles[p][r] != before["captured"][p][r]]
            assert len(changed) <= 1
            for p, r in changed:
                assert p == player and piles[p][r] - before["captured"][p][r] == before["cave"][r]
            assert round_points(piles) == state.to_dict()["round_scores"][k]


def test_rank_points_need_a_finished_match():
    game = load_game("pairs")
    with pytest.raises(ValueError, match="finished match"):
        pairs_rank_points(game, game.new_initial_state(seed=1))


def test_pairs_games_rows_and_folders_carry_rank_points(tmp_path):
    games = run_match(**PAIRS_RUN, progress=False, out=tmp_path / "run")
    manifest = read_manifest(tmp_path / "run")
    assert manifest["outcome_columns"] == ["rank_points_0", "rank_points_1", "rank_points_2"]
    for p in range(3):
        points = np.stack(games[f"rank_points_{p}"].to_numpy())
        assert points.shape == (6, NUM_RANKS)
        assert (points.sum(axis=1) == games[f"score_{p}"].to_numpy()).all()
    schema = pq.read_schema(tmp_path / "run" / "games-00000.parquet")
    assert schema.field("rank_points_1").type == pa.list_(pa.int32())
    in_memory = run_match(**PAIRS_RUN, progress=False)
    assert [list(x) for x in in_memory["rank_points_2"]] == [list(x) for x in games["rank_points_2"]]


def test_a_game_without_an_entry_gets_no_extra_columns(tmp_path):
    assert fields_for("cvc") is None and outcome_columns("cvc", 2) == ()
    assert games_schema(2, "cvc") == games_schema(2)
    game = load_game("cvc")
    row = play_game(game, ["random", "random"], np.random.SeedSequence(3), new_deal(game, 3))
    assert set(row) == set(games_schema(2).names) - {"game", "deal"}
    run_match("cvc", ["random", "random"], 2, seed=1, progress=False, out=tmp_path / "cvc")
    assert read_manifest(tmp_path / "cvc")["outcome_columns"] == []
    assert list(load_games(tmp_path / "cvc").columns) == games_schema(2).names


def _as_before_outcome_columns(folder: Path) -> None:
    """Turn a pairs results folder into one written before outcome columns existed."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for chunk in manifest["chunks"]:
        path = folder / chunk["games_file"]
        table = pq.read_table(path)
        pq.write_table(table.drop_columns([c for c in table.column_names if c.startswith("rank_points_")]), path)
    del manifest["outcome_columns"]
    (folder / "manifest.json").write_text(json.dumps(manifest))


@pytest.fixture(scope="module")
def pairs_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("outcomes") / "run"
    run_match(**PAIRS_RUN, progress=False, out=out)
    return out


def test_a_folder_from_before_outcome_columns_still_loads_and_resumes_without_them(pairs_run, tmp_path):
    old = Path(shutil.copytree(pairs_run, tmp_path / "old"))
    _as_before_outcome_columns(old)
    games, decisions = load_results(old)
    assert len(games) == 6 and not any(c.startswith("rank_points") for c in games.columns)
    assert len(decisions) == games["decisions"].sum()
    # Lose the last chunk, then resume: the new chunk matches the folder's older columns.
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["chunks"] = manifest["chunks"][:-1]
    (old / "manifest.json").write_text(json.dumps(manifest))
    resumed = run_match(**PAIRS_RUN, progress=False, out=old)
    assert resumed["game"].tolist() == list(range(6)) and "rank_points_0" not in resumed
    fresh = load_games(pairs_run)
    assert resumed["score_1"].tolist() == fresh["score_1"].tolist()


def test_mismatched_game_columns_are_refused_naming_the_file(pairs_run, tmp_path):
    lost = Path(shutil.copytree(pairs_run, tmp_path / "lost"))
    table = pq.read_table(lost / "games-00001.parquet")
    pq.write_table(table.drop_columns(["rank_points_2"]), lost / "games-00001.parquet")
    with pytest.raises(ResultsError, match="has columns .* expected .*rank_points_2") as refused:
        load_games(lost)
    assert refused.value.location.endswith("games-00001.parquet")

    unknown = Path(shutil.copytree(pairs_run, tmp_path / "unknown"))
    manifest = json.loads((unknown / "manifest.json").read_text())
    manifest["outcome_columns"] = ["rank_points_0", "bonus_0"]
    (unknown / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ResultsError, match=r"lists outcome columns \['rank_points_0', 'bonus_0'\]") as refused:
        load_games(unknown)
    assert refused.value.location.endswith("manifest.json")


def test_the_writer_refuses_a_chunk_whose_columns_differ_from_the_folders(pairs_run, tmp_path):
    old = Path(shutil.copytree(pairs_run, tmp_path / "old"))
    _as_before_outcome_columns(old)
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["chunks"] = manifest["chunks"][:-1]
    (old / "manifest.json").write_text(json.dumps(manifest))
    from cavekit.analysis.results import ResultsWriter, run_spec_of
    chunk = play_chunk("pairs", {"players": 3}, PAIRS_RUN["agent_specs"], PAIRS_RUN["seed"], False, 2, 4, 6, True,
                       with_outcomes=True)
    with ResultsWriter(old, run_spec_of(manifest), players=3) as writer:
        with pytest.raises(ResultsError, match="chunk 2 has game columns .*rank_points_0"):
            writer.write_chunk(chunk.games, chunk.decisions, chunk.decision_rows)
    assert not (old / "games-00002.parquet").exists()
