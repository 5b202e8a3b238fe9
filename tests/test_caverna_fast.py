"""The C Caverna evaluator and heuristic policy (search/caverna_fast.pyx) against the Python ones
(search/caverna_agents.py), and the C agents `caverna_greedy` and `caverna_pilot`."""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import load_game
from cavekit.core.api import CHANCE, ConfigError, sample_chance_outcome
from cavekit.core.caverna.actions import CONVERT, ORDER, PEACEFUL, PLACE, action_table
from cavekit.search import make_agent
from cavekit.search import caverna_fast as cf
from cavekit.search.caverna_agents import (CAVERNA_WEIGHTS, CavernaHeuristicAgent, _representatives,
                                           caverna_evaluate, expected_points)

from agent_play import play_with_agents

PHASES = {"start", "work", "choice", "feeding", "breeding", "final", "over"}
SPECS = action_table().specs


def mixed_game(players: int, seed: int, random_share: float = 0.3):
    """Positions of a game played by caverna_greedy with random moves mixed in (varied, realistic boards)."""
    game = load_game("caverna", players=players)
    agent = make_agent("caverna_greedy", game, seed=seed)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while True:
        yield state
        if state.is_terminal():
            return
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        elif rng.random() < random_share:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        else:
            state.apply_action(agent.step(state))


def close(a: list[float], b: list[float], tol: float = 1e-9) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


# every weight non-zero and different, so that a term the C code drops or mixes up shows (the hand-set
# weights leave the food-bill terms at 0)
DISTINCT = {name: 0.2 + 0.1 * k for k, name in enumerate(CAVERNA_WEIGHTS)}


@pytest.mark.parametrize("seed,random_share", [(100, 0.3), (200, 1.0)])
def test_c_evaluator_equals_python_in_every_phase_and_player_count(seed, random_share):
    distinct = cf.make_weights(DISTINCT)
    seen: set[str] = set()
    unseated = 0
    for players in range(1, 8):
        for k, state in enumerate(mixed_game(players, seed=seed + players, random_share=random_share)):
            assert close(cf.evaluate_state(state), caverna_evaluate(state)), (players, k, state.phase)
            if state.starter < 0:
                unseated += 1
                assert cf.evaluate_state(state) == [0.0] * players
            elif not state.is_terminal():
                assert close(cf.expected_points_state(state), expected_points(state)), (players, k, state.phase)
                assert close(cf.expected_points_state(state, distinct), expected_points(state, DISTINCT)), \
                    (players, k, state.phase)
            seen.add(state.phase)
    # random play keeps too few animals to face a breeding choice
    expected = PHASES if random_share < 1 else PHASES - {"breeding"}
    assert seen == expected, expected - seen
    assert unseated >= 6        # every game of 2-7 players begins by drawing the start player


def test_c_evaluator_reads_reference_states_and_custom_weights():
    game = load_game("caverna", players=2)
    states = [s.clone() for k, s in enumerate(mixed_game(2, seed=3)) if k % 40 == 20]
    for state in states:
        assert cf.evaluate_state(state.to_reference()) == cf.evaluate_state(state)
    doubled = cf.make_weights({k: 2 * v for k, v in CAVERNA_WEIGHTS.items()}, scale=30.0)
    plain = cf.make_weights(dict(CAVERNA_WEIGHTS), scale=15.0)
    assert cf.evaluate_state(states[3], plain) == cf.evaluate_state(states[3])
    assert cf.expected_points_state(states[3], doubled) != cf.expected_points_state(states[3])
    with pytest.raises(ValueError, match="missing: \\['wood'\\]"):
        cf.make_weights({k: v for k, v in CAVERNA_WEIGHTS.items() if k != "wood"})
    with pytest.raises(ValueError, match="positive"):
        cf.make_weights(scale=0.0)
    assert game.num_players == 2


class _NoNoise:
    """A generator stand-in for the Python heuristic: no tie noise, so its values are the evaluations."""

    def random(self) -> float:
        return 0.0


def _step_values(python: CavernaHeuristicAgent, state, options: list[int], player: int) -> dict[int, float]:
    """What the Python heuristic judges each one-step option by (settled from two players on)."""
    return {action: python.step_value(state, action, player) for action in options}


def _check_policy_game(players: int, seed: int, max_decisions: int, exact: bool) -> int:
    """Play the C heuristic (one agent in every seat) and check each of its choices against the Python
    heuristic's values of the same decision; the number of decisions checked.

    exact: both without tie noise (the first of equal values wins), so every choice, and every planned line,
    must be the Python heuristic's own. Otherwise (the C agent's seeded noise) each choice must be one of the
    Python's best, except placements: a tie inside a look-ahead (buying a tunnel for a ruby is worth exactly
    as much as ending the turn) can change what that turn's later steps reach, so a placement's value depends
    on how ties were broken, in the Python heuristic as well."""
    from cavekit.search.caverna_fast import CavernaGreedyAgent
    game = load_game("caverna", players=players)
    agent = CavernaGreedyAgent(game, seed=seed, weights="hand", tie_noise=0.0 if exact else 1e-9)
    python = CavernaHeuristicAgent(game, seed=0)
    python.rng = _NoNoise()
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < max_decisions:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            continue
        legal = state.legal_actions()
        in_plan = agent.planned(state, legal) is not None
        action = agent.step(state)
        assert action in legal
        values = {action: 0.0}
        if in_plan:
            # a sub-action of the planned turn: the best of the look-ahead's options (Python _complete_turn)
            options = _representatives([a for a in legal if SPECS[a].kind not in (CONVERT, PEACEFUL, ORDER)]) or legal
            assert action in options
            if len(options) > 1:
                values = _step_values(python, state, options, player)
        elif len(legal) == 1:
            pass
        elif any(SPECS[a].kind == PLACE for a in legal):
            if exact:
                python_line = python.turn_lines(state, legal, player, _NoNoise())[0][1]
                assert agent._plan == python_line, (players, seed, checked)
        else:
            values = _step_values(python, state, legal, player)
        best = max(values.values())
        assert values[action] >= best - 1e-6, (players, seed, checked, state.phase, action)
        if exact:       # the first of the best, as the Python heuristic without noise
            assert action == next(a for a, v in values.items() if v == best)
        state.apply_action(action)
        checked += 1
    return checked


@pytest.mark.parametrize("players,seed,exact", [(1, 1, True), (1, 2, False), (2, 3, True), (2, 5, False),
                                                (4, 4, True)])
def test_c_policy_chooses_a_best_action_of_the_python_heuristic(players, seed, exact):
    assert _check_policy_game(players, seed, 150 if players > 1 else 400, exact) >= 80     # solo: about 90


def test_c_turn_lines_match_python_turn_lines_at_a_placement():
    game = load_game("caverna", players=2)
    state = next(s for s in mixed_game(2, seed=8, random_share=0.0)
                 if s.current_player() >= 0 and s.round == 3 and s.turn is None and s.phase == "work")
    player = state.current_player()
    python = CavernaHeuristicAgent(game, seed=0)
    python.rng = _NoNoise()
    expected = python.turn_lines(state, state.legal_actions(), player, _NoNoise())
    policy = make_agent("caverna_greedy:weights=hand", game, seed=0).policy
    got = policy.turn_lines(state, noise=0.0)
    assert [line for _, line in got] == [line for _, line in expected]
    assert close([v for v, _ in got], [v for v, _ in expected])


def test_agents_are_seeded_and_play_whole_games_legally():
    solo, duo = load_game("caverna", players=1), load_game("caverna", players=2)
    for spec in ("caverna_greedy", "caverna_pilot:candidates=2,horizon=1"):
        a, b = (play_with_agents(solo, [spec], seed=5) for _ in range(2))
        assert a.history() == b.history() and a.is_terminal()
        c = play_with_agents(duo, [spec, "caverna_greedy"], seed=6)
        assert c.is_terminal() and len(c.scores()) == 2
    greedy = [play_with_agents(solo, ["caverna_greedy"], seed=s).scores()[0] for s in range(3)]
    assert min(greedy) >= 30        # far above random play (about -12 solo)


def test_c_playouts_are_seeded_and_end_the_game():
    state = load_game("caverna", players=3).new_initial_state()
    first = cf.heuristic_playouts(state, 2, seed=1)
    assert first == cf.heuristic_playouts(state, 2, seed=1)
    assert all(len(r) == 3 and abs(sum(r)) < 1e-9 for r in first)


def _solo_position(round_index: int):
    game = load_game("caverna", players=1)
    state = game.new_initial_state()
    agent = make_agent("caverna_greedy", game, seed=5)
    while not (state.round == round_index and state.phase == "work" and state.turn is None):
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(agent.step(state))
    return game, state


def _finish(game, state, spec: str, seed: int) -> int:
    agent = make_agent(spec, game, seed=seed)
    state = state.clone()
    while not state.is_terminal():
        state.apply_action(agent.step(state))
    return state.scores()[0]


@pytest.mark.parametrize("round_index", [4, 8])
def test_pilot_scores_at_least_what_greedy_scores_from_the_same_solo_position(round_index):
    """Solo has no chance: the pilot's first candidate is the greedy line, and its rollout greedy's own game."""
    game, state = _solo_position(round_index)
    for seed in (1, 2):
        assert _finish(game, state, "caverna_pilot:candidates=3", seed) >= _finish(game, state, "caverna_greedy", seed)


@pytest.mark.parametrize("spec", ["caverna_pilot:candidates=3", "caverna_pilot:candidates=2,level=2",
                                  "caverna_pilot:candidates=2,rollouts=3,noise=1"])
def test_the_solo_pilot_follows_the_best_game_it_has_found_to_its_score(spec):
    game, state = _solo_position(7)
    agent = make_agent(spec, game, seed=3)
    found = []
    while not state.is_terminal():
        state.apply_action(agent.step(state))
        found.append(agent.best_found)
    assert found == sorted(found)                   # replaced only by a better game
    assert state.scores()[0] == found[-1]           # and that game is the one played
    assert make_agent("caverna_pilot:horizon=1", game).best_found is None


def test_rollout_noise_is_drawn_from_the_agents_seed():
    """Noisy rollouts explore different games, but the same seed plays the same game (and 0 is the default)."""
    game, state = _solo_position(8)
    spec = "caverna_pilot:candidates=2,rollouts=4,noise=2"
    games = []
    for seed in (6, 6):
        agent, played = make_agent(spec, game, seed=seed), state.clone()
        while not played.is_terminal():
            played.apply_action(agent.step(played))
        games.append(played.history())
    assert games[0] == games[1]
    assert make_agent("caverna_pilot", game).noise == 0.0


def test_a_nested_pilot_scores_at_least_what_the_pilot_scores_from_the_same_solo_position():
    """Level 2 rolls each candidate out with the level-1 pilot, whose own choice is among the candidates."""
    game, state = _solo_position(9)
    for seed in (1, 2):
        nested = _finish(game, state, "caverna_pilot:candidates=2,level=2", seed)
        assert nested >= _finish(game, state, "caverna_pilot:candidates=2", seed)


def test_agents_take_reference_states():
    game = load_game("caverna", players=2)
    state = next(s for s in mixed_game(2, seed=9, random_share=0.0) if s.round == 2 and s.current_player() >= 0)
    for spec in ("caverna_greedy", "caverna_pilot:candidates=2,horizon=1"):
        on_compiled = make_agent(spec, game, seed=4).step(state)
        assert make_agent(spec, game, seed=4).step(state.to_reference()) == on_compiled


def test_bad_options_say_what_is_allowed():
    game = load_game("caverna", players=1)
    for spec, message in [("caverna_greedy:max_turn_steps=-1", "max_turn_steps must be 0..64"),
                          ("caverna_greedy:turn_lookahead=2", "turn_lookahead must be 0..1"),
                          ("caverna_pilot:candidates=0", "candidates must be >= 1"),
                          ("caverna_pilot:rollouts=0", "rollouts must be >= 1"),
                          ("caverna_pilot:horizon=-2", "horizon must be >= 0"),
                          ("caverna_pilot:level=4", "level must be 1..3"),
                          ("caverna_pilot:noise=-0.5", "noise must be 0..20 points; got noise=-0.5"),
                          ("caverna_pilot:noise=25", "noise must be 0..20 points"),
                          ("caverna_greedy:weights=heavy", "weights must be one of tuned, hand or a weights file"),
                          ("caverna_greedy:settle=2", "settle must be 0..1; got settle=2"),
                          ("caverna_pilot:settle=-1", "settle must be 0..1")]:
        with pytest.raises(ValueError, match=message):
            make_agent(spec, game, seed=0)
    with pytest.raises(ConfigError, match="its options: candidates, horizon, level, noise, rollouts, settle, weights"):
        make_agent("caverna_pilot:depth=2", game, seed=0)
    with pytest.raises(TypeError, match="compiled engine"):
        cf.evaluate_state(object())
    duo = load_game("caverna", players=2)
    with pytest.raises(ValueError, match="chance"):
        make_agent("caverna_greedy", duo, seed=0).step(duo.new_initial_state())
