"""The learned Cave vs Cave value: its C features and evaluation equal their readable twins, and value files
are loaded from the package or refused with the reason."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, ConfigError
from cavekit.search import make_agent
from cavekit.search.cvc_evaluation import compiled_value_features, evaluation_values, heuristic_values
from cavekit.search.cvc_heuristic import cvc_evaluate
from cavekit.search.cvc_value import (VALUE_FEATURES, learned_evaluate, load_value, parse_value_file,
                                      shipped_models, value_features)


def random_positions(players: int, games: int, seed: int):
    """Every decision position of `games` random games."""
    game = load_game("cvc", players=players)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = [o for o, _ in state.chance_outcomes()] if state.current_player() == CHANCE \
                else state.legal_actions()
            if state.current_player() != CHANCE:
                yield state
            state.apply_action(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("players", [1, 2])
def test_the_c_value_features_are_the_readable_ones(players):
    count = 0
    for state in random_positions(players, 12, seed=players):
        d = state.to_dict()
        for player in range(players):
            assert compiled_value_features(state, player) == value_features(d, player)
            count += 1
    assert count > 500


@pytest.mark.parametrize("players", [1, 2])
def test_the_c_learned_value_is_the_readable_one(players):
    for k, state in enumerate(random_positions(players, 4, seed=10 + players)):
        if k % 5 == 0:
            assert evaluation_values(state, "learned") == pytest.approx(learned_evaluate(state), abs=1e-9)
            assert evaluation_values(state, "heuristic") == pytest.approx(cvc_evaluate(state), abs=1e-9)
            assert heuristic_values(state) == evaluation_values(state, "heuristic")


@pytest.mark.parametrize("players", [1, 2])
def test_the_c_value_of_any_weights_is_the_readable_one(tmp_path, players):
    # Random weights on every feature, the shared ones too: the C sum leaves those out of a two-player lead,
    # where they cancel, and must still give the readable model's numbers.
    import math
    from cavekit.search.cvc_heuristic import cvc_turns_left_share
    rng = np.random.default_rng(players)
    entry = {"by_share": rng.normal(size=len(VALUE_FEATURES)).tolist(),
             "by_share2": rng.normal(size=len(VALUE_FEATURES)).tolist(), "scale": 7.0}
    path = tmp_path / "random.json"
    path.write_text(json.dumps({"features": list(VALUE_FEATURES), "models": {str(players): entry}}))
    model = load_value(players, str(path))
    for k, state in enumerate(random_positions(players, 3, seed=20 + players)):
        if k % 4 == 0:
            d, share = state.to_dict(), cvc_turns_left_share(state)
            points = [model.expected_points(d, p, share) for p in range(players)]
            expected = points if players == 1 else [math.tanh((points[0] - points[1]) / 7.0),
                                                     -math.tanh((points[0] - points[1]) / 7.0)]
            assert evaluation_values(state, str(path)) == pytest.approx(expected, abs=1e-9)


def test_the_shipped_value_covers_both_player_counts_and_every_feature():
    models = shipped_models()
    assert sorted(models) == [1, 2]
    for model in models.values():
        assert len(model.by_share) == len(model.by_share2) == len(VALUE_FEATURES)
        assert model.scale > 0


def test_a_value_file_for_other_features_is_refused_with_what_to_do(tmp_path):
    document = {"features": ["wood"], "models": {}}
    with pytest.raises(ConfigError, match="train it again"):
        parse_value_file(json.dumps(document), "mine.json")
    with pytest.raises(ConfigError, match="mine.json: not a Cave vs Cave value file"):
        parse_value_file("{", "mine.json")
    with pytest.raises(ConfigError, match="cannot read the value file"):
        load_value(1, str(tmp_path / "missing.json"))


def test_agents_take_a_value_file_and_refuse_an_unknown_value(tmp_path):
    game = load_game("cvc", players=1)
    path = tmp_path / "zero.json"
    zero = [0.0] * len(VALUE_FEATURES)
    path.write_text(json.dumps({"features": list(VALUE_FEATURES),
                                "models": {"1": {"by_share": zero, "by_share2": zero, "scale": 10.0}}}))
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.chance_outcomes()[0][0])
    # With every weight zero the value is the points scored: at the start, the one gold everyone holds.
    assert evaluation_values(state, str(path)) == [1.0]
    assert make_agent(f"cvc_expectimax:depth=1,value={path}", game, seed=1).step(state) in state.legal_actions()
    with pytest.raises(ConfigError, match="unknown value 'best'"):
        make_agent("cvc_turn_mcts:value=best", game)


def train(tmp_path, name: str, *args: str) -> dict:
    from cavekit.analysis.cvc.train_value import main
    out = tmp_path / name
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    return json.loads(out.read_text())


def test_training_gives_the_same_value_file_from_the_same_seed_on_any_number_of_workers(tmp_path):
    # solo only: a two-player game's candidate play-outs take ~8 CPU-s each, a solo game's ~1
    small = ("--games", "2", "--iterations", "2", "--candidates", "2", "--futures", "1", "--players", "1",
             "--seed", "5")
    one = train(tmp_path, "one.json", *small, "--jobs", "1")
    two = train(tmp_path, "two.json", *small, "--jobs", "2")
    assert one == two
    assert one["command"].startswith("python -m cavekit.analysis.cvc.train_value --games 2 --iterations 2")
    assert [row["iteration"] for row in one["training"]] == [1, 2]
    other = train(tmp_path, "other.json", *small[:-1], "6", "--jobs", "1")
    assert other["models"] != one["models"]


def test_the_solo_policy_search_is_reproducible_and_reports_real_greedy_scores(tmp_path):
    from cavekit.analysis.cvc.train_value import greedy_solo_score
    fit = ("--games", "1", "--iterations", "1", "--candidates", "1", "--futures", "1", "--players", "1", "--seed", "5")
    search = ("--search-generations", "2", "--search-population", "3", "--search-games", "2")
    one = train(tmp_path, "one.json", *fit, *search, "--jobs", "1")
    two = train(tmp_path, "two.json", *fit, *search, "--jobs", "2")
    assert one == two
    assert one["command"].endswith("--search-generations 2 --search-population 3 --search-games 2 --players 1")
    searched = [row for row in one["training"] if "generation" in row]
    assert [row["generation"] for row in searched] == [1, 2]
    fitted = train(tmp_path, "fitted.json", *fit, "--jobs", "1")
    assert fitted["models"] != one["models"]
    # generation 1 starts from the fit, scored by greedy play on its own deals (seed + 1000)
    assert round(greedy_solo_score(str(tmp_path / "fitted.json"), 5 + 1000, 2), 3) == searched[0]["mean_before"]
    assert searched[0]["best_candidate"] >= searched[0]["elite_mean"]


@pytest.mark.slow
def test_the_shipped_value_is_what_its_recorded_command_makes(tmp_path):
    from importlib import resources
    shipped = json.loads((resources.files("cavekit.search") / "data" / "cvc_value.json").read_text())
    args = shipped["command"].split()[3:]          # after "python -m cavekit.analysis.cvc.train_value"
    made = train(tmp_path, "made.json", *args, "--jobs", "2")
    assert made["models"] == shipped["models"]
    assert made["training"] == shipped["training"]


@pytest.mark.parametrize("players", [1, 2])
def test_the_heuristic_written_as_a_model_evaluates_every_position_as_the_heuristic(tmp_path, players):
    # The two-player policy search starts from it, so generation 1's mean is the heuristic itself.
    from cavekit.analysis.cvc.train_value import heuristic_entry, value_file
    path = tmp_path / "heuristic.json"
    path.write_text(json.dumps(value_file({players: heuristic_entry()}, [], "")))
    for state in random_positions(players, 6, seed=10 + players):
        assert evaluation_values(state, str(path)) == pytest.approx(heuristic_values(state), abs=1e-9)


def test_greedy_margin_is_the_lead_over_greedy_in_the_games_cavekit_match_plays(tmp_path):
    from cavekit.analysis.batch import run_match
    from cavekit.analysis.cvc.train_value import greedy_margin, heuristic_entry, value_file
    path = tmp_path / "heuristic.json"
    path.write_text(json.dumps(value_file({2: heuristic_entry()}, [], "")))
    spec = f"cvc_expectimax:depth=1,value={path}"
    games = run_match("cvc", [spec, "greedy"], 4, seed=9, progress=False, duplicate=True)
    leads = [(row.score_0 - row.score_1) * (1 if row.agent_0 == spec else -1) for row in games.itertuples()]
    assert greedy_margin(str(path), 9, 4) == pytest.approx(np.mean(leads))


def test_the_two_player_policy_search_is_reproducible_and_moves_only_each_seats_own_weights(tmp_path):
    from cavekit.analysis.cvc.train_value import greedy_margin, heuristic_entry, policy_search, value_file
    start = heuristic_entry()
    runs = []
    for jobs in (1, 2):
        work = tmp_path / f"jobs{jobs}"
        work.mkdir()
        runs.append(policy_search(start, 1, 3, 2, 4, jobs, False, work, players=2))
    (model, history), again = runs
    assert again == runs[0]
    assert history[0]["generation"] == 1 and history[0]["best_candidate"] >= history[0]["elite_mean"]
    path = tmp_path / "start.json"
    path.write_text(json.dumps(value_file({2: start}, [], "")))
    assert history[0]["mean_before"] == round(greedy_margin(str(path), 4 + 1000, 2), 3)
    moved = {name for name, before, after in zip(VALUE_FEATURES, start["by_share"], model["by_share"])
             if before != after}
    assert moved and moved <= {"wood", "stone", "emmer", "flax", "food", "gold", "empty_space", "diggable_space",
                               "face_down_space", "own_walls", "usable_space", "best_fitting_room",
                               "best_affordable_room", "orange_lead"}
    assert model["scale"] == start["scale"]


def test_an_odd_number_of_two_player_search_games_is_refused_in_one_line():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.cvc.train_value", "--players", "2",
                           "--search-generations", "1", "--search-games", "3"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--search-games must be even with two players" in done.stderr
