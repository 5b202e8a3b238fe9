"""Caverna agents through the common API: the evaluator, the heuristic agent, MCTS and expectimax, the bench and
the score report."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.search import make_agent
from cavekit.search.evaluation import evaluator_for

from agent_play import play_with_agents as play_match


def random_positions(game, seed, every=7):
    """Positions along one random game, and its end."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    kept = []
    steps = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            if steps % every == 0:
                kept.append(state.clone())
            state.apply_action(legal[rng.integers(len(legal))])
        steps += 1
    return kept, state


@pytest.mark.parametrize("players", [1, 2, 4])
def test_evaluator_exact_at_the_end_and_in_range(players):
    game = load_game("caverna", players=players)
    evaluate = evaluator_for(game)
    assert evaluate.__name__ == "caverna_evaluate"
    positions, end = random_positions(game, seed=players)
    assert evaluate(end) == end.returns()
    for state in positions + [game.new_initial_state(), game.new_initial_state(seed=3)]:
        values = evaluate(state)
        assert len(values) == players and all(np.isfinite(values))
        if players > 1:
            assert all(-1.0 <= v <= 1.0 for v in values)
        else:
            assert game.min_utility() <= values[0] <= game.max_utility()
    if players == 2:
        mid = positions[len(positions) // 2]
        assert abs(sum(evaluate(mid))) < 1e-9, "two players: zero-sum like returns()"


def test_solo_evaluation_is_points_near_the_score():
    """Solo: the estimate is on the scale of points (the final score), close to the score sheet late on."""
    game = load_game("caverna", players=1)
    positions, _ = random_positions(game, seed=11, every=3)
    late = positions[-1]
    value = evaluator_for(game)(late)[0]
    assert abs(value - late.scores()[0]) < 25


def test_the_evaluator_sees_a_weapon_forged_before_the_turn_ends():
    """The acting dwarf's weapon joins `Player.placed` only when its turn ends; the evaluator must count it as
    soon as it is forged, or the turn's one-step choices forge the cheapest weapon (strength 1) every time."""
    from cavekit.search import caverna_fast as cf
    from cavekit.search.caverna_agents import CAVERNA_WEIGHTS, _timing, expected_points
    from test_caverna_actions import do, setup, start

    s = start(players=2)
    mover = s.current_player()
    setup(s, goods={"ore": 8}, spaces=["blacksmithing"])
    do(s, "place blacksmithing")
    values = {}
    for strength in (1, 8):
        forged = s.clone()
        do(forged, f"forge weapon {strength}")
        assert forged.players[mover].placed == [0]            # not written before the turn ends
        assert forged.weapons_of(mover)[-1] == strength
        values[strength] = expected_points(forged)[mover]
        assert cf.expected_points_state(forged)[mover] == pytest.approx(values[strength], abs=1e-9)
    share = _timing(forged)[0]                                 # the same round, the same share
    w = CAVERNA_WEIGHTS
    assert values[8] - values[1] == pytest.approx(7 * share * (w["weapon"] - w["ore"]), abs=1e-9)


def test_from_two_players_on_a_one_step_choice_is_judged_once_what_it_leaves_owing_is_done():
    """A loot animal the board cannot hold must go before the turn may end; the heuristic judges taking it by the
    position once that is done (greedily, conversions left out as in the rest of its turn look-ahead), not by
    the half-done position, which counts an animal it cannot keep."""
    from cavekit.search import caverna_fast as cf
    from cavekit.search.caverna_agents import CavernaHeuristicAgent, caverna_evaluate
    from test_caverna_actions import do, legal, setup, start

    s = start(players=2)
    mover = s.current_player()
    setup(s, goods={"ore": 5}, animals={"sheep": 1, "donkey": 1}, spaces=["blacksmithing"])
    do(s, "place blacksmithing", "forge weapon 5")
    boar = s.string_to_action("loot wild_boar")
    half_done = s.clone()
    half_done.apply_action(boar)
    assert "end turn" not in legal(half_done)
    settled = half_done.clone()
    do(settled, "release sheep", "release donkey")          # the first of equal choices, twice
    assert "end turn" in legal(settled)

    heuristic = CavernaHeuristicAgent(s.game, seed=0)
    heuristic.rng = _NoNoise()
    assert heuristic.settle
    assert heuristic.step_value(s, boar, mover) == pytest.approx(caverna_evaluate(settled)[mover], abs=1e-12)
    assert caverna_evaluate(settled)[mover] < caverna_evaluate(half_done)[mover]
    unsettled = CavernaHeuristicAgent(s.game, seed=0, settle=0)
    assert unsettled.step_value(s, boar, mover) == caverna_evaluate(half_done)[mover]
    # settled, the boar is worth less than a wood; half-done it looked worth more
    wood = s.string_to_action("loot wood")
    assert heuristic.step_value(s, boar, mover) < heuristic.step_value(s, wood, mover)
    assert unsettled.step_value(s, boar, mover) > unsettled.step_value(s, wood, mover)
    # the C policy takes a loot item the Python heuristic values most, settled or not
    for settle, python in ((1, heuristic), (0, unsettled)):
        values = {a: python.step_value(s, a, mover) for a in s.legal_actions()}
        c_choice = make_agent(f"caverna_greedy:weights=hand,settle={settle}", s.game, seed=0).step(s)
        assert values[c_choice] == pytest.approx(max(values.values()), abs=1e-6)
    assert cf.evaluate_state(settled) == pytest.approx(caverna_evaluate(settled), abs=1e-9)


class _NoNoise:
    """A generator stand-in for the Python heuristic: no tie noise, the first of equal values wins."""

    def random(self) -> float:
        return 0.0


def test_heuristic_beats_random_by_a_wide_margin():
    game = load_game("caverna", players=2)
    margins, wins = [], 0
    for seed in range(3):
        specs = ["caverna_heuristic", "random"] if seed % 2 == 0 else ["random", "caverna_heuristic"]
        me = 0 if seed % 2 == 0 else 1
        end = play_match(game, specs, seed=40 + seed)
        scores = end.scores()
        margins.append(scores[me] - scores[1 - me])
        wins += end.returns()[me] > 0
    assert wins == 3
    assert min(margins) >= 20, margins


def test_heuristic_solo_scores_well_above_random():
    game = load_game("caverna", players=1)
    heuristic = play_match(game, ["caverna_heuristic"], seed=5).scores()[0]
    random_ = play_match(game, ["random"], seed=5).scores()[0]
    assert heuristic >= 30 and heuristic - random_ >= 30, (heuristic, random_)


def test_heuristic_is_seeded_and_options_parse():
    game = load_game("caverna", players=2)
    a = play_match(game, ["caverna_heuristic", "caverna_heuristic:turn_lookahead=0"], seed=8)
    b = play_match(game, ["caverna_heuristic", "caverna_heuristic:turn_lookahead=0"], seed=8)
    assert a.history() == b.history()


def solo_position(round_index: int, seed: int = 5):
    """A solo game played by the heuristic up to the first placement of round `round_index` (0-based)."""
    game = load_game("caverna", players=1)
    state = game.new_initial_state()
    agent = make_agent("caverna_heuristic", game, seed=seed)
    while not (state.round == round_index and state.phase == "work" and state.turn is None):
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(agent.step(state))
    return game, state


def finish(game, state, spec, seed):
    agent = make_agent(spec, game, seed=seed)
    state = state.clone()
    while not state.is_terminal():
        state.apply_action(agent.step(state))
    return state.scores()[0]


def test_rollout_agent_scores_at_least_what_the_heuristic_scores_from_the_same_solo_position():
    """Solo has no chance: the first candidate is the heuristic's own line and its rollout is the heuristic's
    own continuation, so choosing by rollouts can only match or beat it (the pilot method's guarantee)."""
    game, state = solo_position(8)
    heuristic = finish(game, state, "caverna_heuristic", seed=1)
    rollout = finish(game, state, "caverna_rollout:candidates=3", seed=1)
    assert rollout >= heuristic, (rollout, heuristic)


def test_rollout_agent_is_seeded_and_refuses_bad_budgets():
    game = load_game("caverna", players=2)
    state = game.new_initial_state(seed=4)
    picks = [make_agent("caverna_rollout:candidates=2,horizon=1", game, seed=9).step(state) for _ in range(2)]
    assert picks[0] == picks[1] and picks[0] in state.legal_actions()
    with pytest.raises(ValueError, match="candidates >= 1"):
        make_agent("caverna_rollout:candidates=0", game, seed=0)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_mcts_and_expectimax_finish_games(players):
    game = load_game("caverna", players=players)
    end = play_match(game, ["mcts:iterations=4,rollout=none"] * players, seed=players)
    assert end.is_terminal() and len(end.scores()) == players
    specs = ["expectimax:depth=1"] + ["random"] * (players - 1)
    end = play_match(game, specs, seed=10 + players)
    assert end.is_terminal()


def test_mcts_with_heuristic_rollouts_plays_a_solo_game():
    game = load_game("caverna", players=1)
    end = play_match(game, ["mcts:iterations=2,rollout=greedy,rollout_steps=8"], seed=3)
    assert end.is_terminal()


def test_bench_reference_returns_sane_numbers():
    from cavekit.analysis.bench import bench_reference, format_bench_reference
    result = bench_reference("caverna", players=2, seconds=0.3, seed=1)
    assert result["reference_playouts_per_second"] > 0.5
    assert 50 < result["mean_random_game_steps"] < 2000
    for key in ("legal_actions_ns_reference", "clone_ns_reference", "clone_and_apply_ns_reference"):
        assert 0 < result[key] < 1e8
    assert result["clone_ns_reference"] < result["clone_and_apply_ns_reference"]
    assert "caverna" in format_bench_reference(result)


def test_bench_command_line_accepts_caverna_player_counts(capsys):
    from cavekit.analysis.cli import main
    assert main(["bench", "caverna", "--players", "1", "--seconds", "0.2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["players"] == 1 and result["game"] == "caverna"


def test_score_report_on_a_tiny_run(tmp_path):
    from cavekit.analysis.caverna.scores import score_report
    summary = score_report("random", {1: 2, 2: 1, 4: 1}, seed=0, out=tmp_path)
    assert set(summary["results"]) == {"1", "2", "4"}
    solo = summary["results"]["1"]
    assert solo["games"] == 2 and solo["scores"] == 2
    assert solo["mean_low"] <= solo["mean"] <= solo["mean_high"]
    assert solo["distance_from_100"] == pytest.approx(100 - solo["mean"])
    assert summary["results"]["4"]["scores"] == 4 and 0 <= summary["results"]["4"]["share_ge_80"] <= 1
    report = (tmp_path / "report.md").read_text()
    assert "| 4 | 1 (4) |" in report and "[n/a]" in report
    assert json.loads((tmp_path / "summary.json").read_text())["results"]["4"]["mean_low"] is None
    assert (tmp_path / "players-2" / "manifest.json").exists()
    again = score_report("random", {1: 2, 2: 1, 4: 1}, seed=0, out=tmp_path,     # resumes: nothing new to play
                         notes="A reading.")
    assert again["results"]["1"]["mean"] == solo["mean"]
    assert (tmp_path / "report.md").read_text().endswith("## Reading\n\nA reading.\n")


def test_score_report_command_line(tmp_path, capsys):
    from cavekit.analysis.caverna.scores import main
    notes = tmp_path / "notes.md"
    notes.write_text("Read me.\n")
    assert main(["--agent", "random", "--solo", "1", "--two", "1", "--four", "0", "--out", str(tmp_path / "r"),
                 "--notes-file", str(notes), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| 1 | 1 (1) |" in out and "| 2 | 1 (2) |" in out and "Read me." in out
    assert not (tmp_path / "r" / "players-4").exists()
