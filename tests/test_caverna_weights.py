"""The tuned Caverna evaluator weights: shipped in the package, chosen per player count, made reproducibly by
their recorded command, refused with the reason when a file is not one, and better than the baseline."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cavekit.core import load_game
from cavekit.core.api import ConfigError
from cavekit.search import make_agent
from cavekit.search.agent import agent_data
from cavekit.search.caverna_agents import CAVERNA_WEIGHTS
from cavekit.search.caverna_weights import nearest_tuned, parse_weights_file, shipped_weights, weights_for


def train(tmp_path, name: str, *args: str) -> dict:
    from cavekit.analysis.caverna.train_weights import main
    out = tmp_path / name
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    return json.loads(out.read_text())


def test_the_package_ships_weights_for_one_to_five_and_seven_players_with_every_key():
    tuned = shipped_weights()
    assert sorted(tuned) == [1, 2, 3, 4, 5, 7]
    for weights in tuned.values():
        assert set(weights) == set(CAVERNA_WEIGHTS) and min(weights.values()) >= 0
        assert weights != CAVERNA_WEIGHTS


@pytest.mark.parametrize("players, stand_in", [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 7), (7, 7)])
def test_an_untuned_player_count_uses_the_nearest_tuned_one(players, stand_in):
    assert nearest_tuned(players, shipped_weights()) == stand_in
    assert weights_for(players) == shipped_weights()[stand_in]


def test_hand_weights_are_the_baseline_and_files_are_read_or_refused_with_the_reason(tmp_path):
    assert weights_for(2, "hand") == CAVERNA_WEIGHTS
    good = tmp_path / "w.json"
    good.write_text(json.dumps({"format": "cavekit caverna weights", "version": 1, "command": "",
                                "weights": {"3": dict(CAVERNA_WEIGHTS, wood=9.0)}, "training": []}))
    assert weights_for(7, str(good))["wood"] == 9.0
    with pytest.raises(ConfigError, match="weights must be one of tuned, hand or a weights file; cannot read"):
        weights_for(1, str(tmp_path / "missing.json"))
    wrong_keys = tmp_path / "keys.json"
    wrong_keys.write_text(json.dumps({"format": "cavekit caverna weights", "version": 1,
                                      "weights": {"1": {"wood": 1.0}}}))
    with pytest.raises(ConfigError, match=r"keys.json: the 1-player weights need exactly the evaluator's keys; "
                                          r"missing \['breeding_pair'"):
        weights_for(1, str(wrong_keys))
    with pytest.raises(ConfigError, match="corrupt.json: not a Caverna weights file"):
        parse_weights_file("{not json", "corrupt.json")
    with pytest.raises(ConfigError, match="Caverna has 1 to 7"):
        parse_weights_file(json.dumps({"format": "cavekit caverna weights", "version": 1,
                                       "weights": {"9": dict(CAVERNA_WEIGHTS)}}), "nine.json")


def test_agents_take_the_weights_option_and_a_bad_one_is_a_clear_cli_error():
    game = load_game("caverna", players=1)
    tuned = make_agent("caverna_greedy", game, seed=0)
    hand = make_agent("caverna_greedy:weights=hand", game, seed=0)
    state = game.new_initial_state()
    assert tuned.step(state) in state.legal_actions() and hand.step(state) in state.legal_actions()
    done = subprocess.run([sys.executable, "-m", "cavekit", "match", "caverna", "--players", "1", "--agents",
                           "caverna_pilot:weights=nowhere.json", "--games", "1"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "cannot read 'nowhere.json'" in done.stderr


def test_a_weights_fingerprint_covers_only_the_player_count_it_plays(tmp_path):
    # Results folders record it, so re-tuning the solo weights must leave the two-player folders valid.
    data = {"format": "cavekit caverna weights", "version": 1,
            "weights": {str(n): dict(w) for n, w in shipped_weights().items()}}
    data["weights"]["1"]["ore"] += 0.25
    retuned = tmp_path / "retuned.json"
    retuned.write_text(json.dumps(data))
    solo, duo = load_game("caverna", players=1), load_game("caverna", players=2)
    assert agent_data(f"caverna_pilot:weights={retuned}", duo) == agent_data("caverna_pilot", duo)
    assert agent_data(f"caverna_pilot:weights={retuned}", solo) != agent_data("caverna_pilot", solo)
    assert agent_data("caverna_greedy:weights=hand", solo) != agent_data("caverna_greedy", solo)
    assert set(agent_data("caverna_nrpa", solo)) == {"weights"}


def test_the_tuned_solo_weights_make_greedy_score_more_than_the_baseline():
    from cavekit.analysis.caverna.train_weights import greedy_games
    tuned, _ = greedy_games(shipped_weights()[1], 1, seed=77, games=4)
    hand, _ = greedy_games(dict(CAVERNA_WEIGHTS), 1, seed=77, games=4)
    assert tuned > hand + 5


def test_tuning_gives_the_same_file_from_the_same_seed_on_any_number_of_workers(tmp_path):
    from cavekit.analysis.caverna.train_weights import PILOT, greedy_games
    small = ("--generations", "2", "--population", "3", "--games", "2", "--players", "1", "2",
             "--pilot-generations", "1", "--pilot-games", "1", "--seed", "5")
    one = train(tmp_path, "one.json", *small, "--jobs", "1")
    two = train(tmp_path, "two.json", *small, "--jobs", "2")
    assert one == two
    assert one["command"] == ("python -m cavekit.analysis.caverna.train_weights --generations 2 --population 3 "
                              "--games 2 --seed 5 --players 1 2 --pilot-generations 1 --pilot-games 1")
    assert [(row["players"], row.get("agent"), row["generation"]) for row in one["training"]] == \
        [(1, None, 1), (1, None, 2), (1, PILOT, 1), (2, None, 1), (2, None, 2)]
    # generation 1 scores the baseline (its mean before any update) on deals seed + 1000
    first = one["training"][3]
    assert (first["mean_before"], first["family_before"]) == tuple(round(x, 3) for x in
                                                                     greedy_games(dict(CAVERNA_WEIGHTS), 2, 1005, 2))
    assert first["best_candidate"] >= first["elite_mean"]
    # the pilot stage starts from the greedy stage's result and is scored by the pilot's play
    without = train(tmp_path, "without.json", *small[:6], "--players", "1", "--seed", "5", "--jobs", "1")
    pilot_row = one["training"][2]
    assert pilot_row["mean_before"] == round(greedy_games(without["weights"]["1"], 1, 5 + 5000, 1, PILOT)[0], 3)
    assert one["weights"]["2"] == train(tmp_path, "duo.json", *small[:6], "--players", "2", "--seed", "5")["weights"]["2"]
    other = train(tmp_path, "other.json", *small[:-1], "6", "--jobs", "1")
    assert other["weights"] != one["weights"]


def test_resuming_keeps_the_counts_already_tuned_and_gives_the_file_made_from_scratch(tmp_path, capsys):
    small = ("--generations", "2", "--population", "3", "--games", "2", "--seed", "5", "--pilot-generations", "1",
             "--pilot-games", "1")
    scratch = train(tmp_path, "scratch.json", *small, "--players", "1", "2", "3")
    train(tmp_path, "grown.json", *small, "--players", "1", "3")
    capsys.readouterr()
    grown = train(tmp_path, "grown.json", *small, "--players", "1", "2", "3", "--resume")
    said = capsys.readouterr().out
    assert grown == scratch
    assert "1 player(s): kept from" in said and "3 player(s): kept from" in said and "2 player(s): kept" not in said
    # a file made with other settings is tuned again, count by count
    train(tmp_path, "other.json", *small[:-1], "2", "--players", "1")
    capsys.readouterr()
    redone = train(tmp_path, "other.json", *small, "--players", "1", "--resume")
    assert "kept" not in capsys.readouterr().out
    assert redone["weights"]["1"] == scratch["weights"]["1"]


def test_solo_restarts_keep_the_greedy_stage_the_level_2_pilot_plays_best(tmp_path, capsys):
    from cavekit.analysis.caverna.train_weights import SELECT, greedy_games
    small = ("--generations", "1", "--population", "2", "--games", "1")
    plain = train(tmp_path, "weights.json", *small, "--seed", "5", "--players", "1", "2")
    capsys.readouterr()
    # restarts change the solo weights only: resuming a plain run's file keeps its two-player weights
    restarted = train(tmp_path, "weights.json", *small, "--seed", "5", "--players", "1", "2", "--solo-restarts", "2",
                      "--select-games", "1", "--resume")
    said = capsys.readouterr().out
    assert "2 player(s): kept from" in said and "1 player(s): kept" not in said
    assert restarted["weights"]["2"] == plain["weights"]["2"]
    assert restarted["command"].endswith("--players 1 2 --solo-restarts 2 --select-games 1")
    chosen = [row for row in restarted["training"] if "score" in row]
    assert [(row["restart"], row["agent"], row["selection_games"]) for row in chosen] == [(0, SELECT, 1), (1, SELECT, 1)]
    kept = [row["restart"] for row in chosen if row.get("kept")]
    assert len(kept) == 1 and chosen[kept[0]]["score"] == max(row["score"] for row in chosen)
    # restart r is the plain greedy stage from seed + r, and its selection score is SELECT's play of it
    solo = {0: plain["weights"]["1"],
            1: train(tmp_path, "seed6.json", *small, "--seed", "6", "--players", "1")["weights"]["1"]}
    assert restarted["weights"]["1"] == solo[kept[0]]
    assert chosen[1]["score"] == round(greedy_games(solo[1], 1, 5 + 9000, 1, SELECT)[0], 3)


def test_bad_tuning_arguments_are_refused_by_the_real_command():
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.caverna.train_weights", "--games", "0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--games, --pilot-games, --solo-restarts, --select-games and --jobs must be at least 1" in done.stderr


def test_resuming_from_a_corrupt_file_is_refused_with_its_name(tmp_path):
    corrupt = tmp_path / "weights.json"
    corrupt.write_text("{not json")
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.caverna.train_weights", "--resume", "--out",
                           str(corrupt)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--resume: {corrupt}: not a Caverna weights file" in done.stderr


@pytest.mark.slow
def test_the_shipped_weights_are_what_their_recorded_command_makes(tmp_path):
    from importlib import resources
    shipped = json.loads((resources.files("cavekit.search") / "data" / "caverna_weights.json").read_text())
    args = shipped["command"].split()[3:]          # after "python -m cavekit.analysis.caverna.train_weights"
    made = train(tmp_path, "made.json", *args, "--jobs", "2")
    assert made["weights"] == shipped["weights"]
    assert made["training"] == shipped["training"]


def test_resuming_from_a_file_whose_recorded_command_is_unreadable_names_the_file(tmp_path):
    from importlib import resources
    mangled = tmp_path / "weights.json"
    document = json.loads((resources.files("cavekit.search") / "data" / "caverna_weights.json").read_text())
    document["command"] = "python -m cavekit.analysis.caverna.train_weights --generations many"
    mangled.write_text(json.dumps(document))
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.caverna.train_weights", "--resume", "--out",
                           str(mangled)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--resume: {mangled}: its recorded command" in done.stderr and "is not one this version can read" in done.stderr
