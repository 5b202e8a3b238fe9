"""Greedy and expectimax: exact values on a toy chance game, winning moves in Cave vs Cave end games,
sound pruning, reproducible and always legal play, and refused bad specs."""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import ConfigError, load_game
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.search import make_agent
from cavekit.search.expectimax import ExpectimaxAgent
from cavekit.search.turn_search import TurnSearch, chance_children, turn_rule_for

from cvc_end_games import (block_the_housework, compiled, play_turn, treasury_after_conversions,
                           treasury_by_renovation)
from agent_play import play_with_agents
from cvc_positions import give
from toy_games import DIE, HOLD, ROLL, PigGame

# ----------------------------------------------------------------------------------------------------
# Exact values on the toy game, computed here without the engine


def best_turn(total: int, rolls: int, max_rolls: int, payoff) -> float:
    """Value of deciding with `total` after `rolls` rolls: hold, or roll on (face 1 busts)."""
    return max(payoff(total), roll_on(total, rolls, max_rolls, payoff))


def roll_on(total: int, rolls: int, max_rolls: int, payoff) -> float:
    value = 0.0
    for face, p in DIE:
        if face == 1:
            value += p * payoff(0)
        elif rolls + 1 == max_rolls:
            value += p * payoff(total + face)
        else:
            value += p * best_turn(total + face, rolls + 1, max_rolls, payoff)
    return value


def decision_after_first_roll(game: PigGame, face: int):
    state = game.new_initial_state()
    state.apply_action([f for f, _ in DIE].index(face))
    assert state.current_player() == 0
    return state


EXACT_SPECS = ["expectimax:depth=0,evaluator=none", "expectimax:depth=0,evaluator=none,turn=0",
               "expectimax:depth=0,evaluator=none,pruning=alphabeta",
               "expectimax:depth=0,evaluator=none,pruning=none"]


@pytest.mark.parametrize("spec", EXACT_SPECS)
def test_solo_value_is_the_hand_computed_expectation(spec):
    game = PigGame(players=1, turns=1, max_rolls=2)
    # Hand calculation: holding 2, rolling on is worth 0.5 * 4 + 0.2 * 5 = 3.0; holding 3, 0.5 * 5 + 0.2 * 6 = 3.7;
    # so the game is worth 0.3 * 0 + 0.5 * 3.0 + 0.2 * 3.7 = 2.24.
    after_two = make_agent(spec, game, seed=0).search(decision_after_first_roll(game, 2))
    after_three = make_agent(spec, game, seed=0).search(decision_after_first_roll(game, 3))
    assert after_two.value == pytest.approx(3.0, abs=1e-12) and after_two.action == ROLL
    assert after_three.value == pytest.approx(3.7, abs=1e-12) and after_three.action == ROLL
    assert 0.5 * after_two.value + 0.2 * after_three.value == pytest.approx(2.24, abs=1e-12)


@pytest.mark.parametrize("spec", EXACT_SPECS)
def test_solo_two_turns_value_matches_the_closed_form(spec):
    game = PigGame(players=1, turns=2, max_rolls=3)
    one_turn = roll_on(0, 0, 3, lambda total: total)            # a turn's expectation under the best play
    for face in (2, 3):
        expected = best_turn(face, 1, 3, lambda total: total) + one_turn
        assert make_agent(spec, game, seed=0).value(decision_after_first_roll(game, face)) == \
            pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("spec", EXACT_SPECS)
def test_two_player_value_matches_an_independent_minimax(spec):
    game = PigGame(players=2, turns=1, max_rolls=3)

    def first_player_payoff(s0: int) -> float:       # player 1 replies knowing s0; zero-sum, so negate
        return -roll_on(0, 0, 3, lambda s1: float(np.sign(s1 - s0)))

    for face in (2, 3):
        expected = best_turn(face, 1, 3, first_player_payoff)
        result = make_agent(spec, game, seed=0).search(decision_after_first_roll(game, face))
        assert result.value == pytest.approx(expected, abs=1e-12)
    # The second player's decision is searched from its own point of view.
    state = decision_after_first_roll(game, 3)
    state.apply_action(HOLD)                          # player 0 banks 3
    state.apply_action(1)                             # player 1 rolls a 2: holding loses, rolling on may win
    expected = best_turn(2, 1, 3, lambda s1: float(np.sign(s1 - 3)))
    result = make_agent(spec, game, seed=0).search(state)
    assert result.value == pytest.approx(expected, abs=1e-12) and result.action == ROLL


def random_decisions(game, count: int, seed: int) -> list:
    """Decision states met in random play."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state(seed=int(rng.integers(1 << 30))) if game.name == "cvc" \
            else game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
                continue
            if rng.random() < 0.2:
                found.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    return found


def test_star1_is_exact_and_visits_fewer_nodes_on_the_toy_game():
    game = PigGame(players=2, turns=2, max_rolls=3)
    visited = {"none": 0, "star1": 0}
    for state in random_decisions(game, 8, seed=1):
        values = {}
        for pruning in visited:
            agent = ExpectimaxAgent(game, seed=0, depth=0, evaluator="none", pruning=pruning)
            result = agent.search(state)
            values[pruning] = result.value
            visited[pruning] += result.nodes
        assert values["star1"] == pytest.approx(values["none"], abs=1e-12)
    assert visited["star1"] < visited["none"]


def test_pruning_is_exact_on_cave_vs_cave_atomic_plies():
    # Atomic plies (turn=0), every chance outcome, the heuristic at the leaves: bounds [-1, 1] (two players)
    # or [0, max points] (solo) are far from the values, so Star1 rarely cuts here; the values must agree.
    for players in (2, 1):
        game = load_game("cvc", players=players)
        for state in random_decisions(game, 3, seed=players):
            values = {pruning: ExpectimaxAgent(game, seed=0, depth=3, turn=0, pruning=pruning, chance_samples=0,
                                               deep_samples=0, max_nodes=0).value(state)
                      for pruning in ("none", "alphabeta", "star1")}
            assert values["star1"] == pytest.approx(values["none"], abs=1e-9)
            assert values["alphabeta"] == pytest.approx(values["none"], abs=1e-9)


def test_star1_is_exact_and_visits_fewer_nodes_in_cave_vs_cave_end_games():
    # Whole turns, depth 2 (the game ends within it): values near +-1, where Star1's bounds bite.
    rng = np.random.default_rng(0)
    for variant in range(2):
        reference = block_the_housework()
        for p in (0, 1):                     # random small stocks make each position a little different
            give(reference, p, wood=int(rng.integers(0, 2)), emmer=int(rng.integers(0, 2)))
        state = compiled(reference)
        results = {pruning: ExpectimaxAgent(state._game, seed=0, depth=2, pruning=pruning, chance_samples=2,
                                            deep_samples=2, max_nodes=0).search(state)
                   for pruning in ("none", "alphabeta", "star1")}
        assert results["star1"].value == pytest.approx(results["none"].value, abs=1e-9)
        assert results["alphabeta"].value == pytest.approx(results["none"].value, abs=1e-9)
        assert results["star1"].nodes < results["alphabeta"].nodes < results["none"].nodes


def test_chance_samples_are_weighted_and_common_to_equal_chance_nodes():
    game = load_game("cvc")
    state = game.new_initial_state(seed=0)
    state.apply_action(state.string_to_action("take Excavation"))
    state.apply_action(state.string_to_action("Excavation: excavate s5"))
    assert state.current_player() == CHANCE and len(state.chance_outcomes()) > 3
    drawn = chance_children(state, 3, salt=7)
    assert 1 <= len(drawn) <= 3 and sum(w for _, w in drawn) == pytest.approx(1.0)
    assert chance_children(state.clone(), 3, salt=7) == drawn
    assert chance_children(state, 0, salt=7) == state.chance_outcomes()


# ----------------------------------------------------------------------------------------------------
# Cave vs Cave end games

END_GAME_SPECS = ["greedy", "expectimax:depth=1", "expectimax:depth=2"]


@pytest.mark.parametrize("spec", END_GAME_SPECS)
def test_agents_furnish_the_treasury_with_renovation(spec):
    state = compiled(treasury_by_renovation())
    played = play_turn(state, make_agent(spec, state._game, seed=1))
    assert played[0] == "take Renovation" and "Renovation: furnish Treasury at s4" in played
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


@pytest.mark.parametrize("spec", END_GAME_SPECS)
def test_agents_convert_food_before_furnishing(spec):
    state = compiled(treasury_after_conversions())
    played = play_turn(state, make_agent(spec, state._game, seed=2))
    assert played[0] == "take Housework" and played.count("convert emmer->food") == 2
    assert "Housework: furnish Treasury at s4 paying food per turn" in played
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_depth_two_blocks_the_opponent_where_greedy_does_not():
    start = compiled(block_the_housework())
    greedy_first = play_turn(start.clone(), make_agent("greedy", start._game, seed=3))[0]
    assert greedy_first != "take Housework"                 # greedy grabs goods and loses
    state = start.clone()
    agent = make_agent("expectimax:depth=2", state._game, seed=3)
    assert agent.search(state).value == pytest.approx(1.0)  # a certain win, seen through the reply
    assert play_turn(state, agent)[0] == "take Housework"
    opponent = make_agent("expectimax:depth=1", state._game, seed=4)
    play_turn(state, opponent)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


# ----------------------------------------------------------------------------------------------------
# Turn search machinery

def test_turn_rule_sees_end_turn_only():
    game = load_game("cvc")
    rule = turn_rule_for(game)
    state = game.new_initial_state(seed=1)
    take = state.clone()
    take.apply_action(take.legal_actions()[0])
    assert not rule(state, state.legal_actions()[0], take)
    end = take.clone()
    end.apply_action(end.string_to_action("end turn"))
    assert rule(take, take.string_to_action("end turn"), end)


def test_turn_search_budget_falls_back_and_stays_legal():
    game = load_game("cvc")
    state = game.new_initial_state(seed=5)
    search = TurnSearch(game, max_nodes=60, chance_samples=2, rng=np.random.default_rng(0))
    values = search.action_values(state)
    assert sorted(values) == state.legal_actions()
    assert search.fallbacks > 0 and search.nodes <= 60
    full = TurnSearch(game, max_nodes=0, chance_samples=2, rng=np.random.default_rng(0))
    assert full.value(state) >= max(values.values()) - 1e-12    # more search never finds less here
    assert full.fallbacks == 0


def test_later_steps_of_a_searched_turn_are_look_ups():
    game = load_game("cvc")
    state = game.new_initial_state(seed=6)
    for spec in ("greedy:max_nodes=0,chance_samples=1,compiled=0", "expectimax:depth=2"):
        agent = make_agent(spec, game, seed=0)
        s = state.clone()
        s.apply_action(agent.step(s))
        assert s.current_player() == state.current_player()       # a tile was taken; the turn goes on
        if isinstance(agent, ExpectimaxAgent):
            assert agent.search(s).nodes < 200                     # table look-ups, no new search
        else:
            agent.step(s)
            assert agent.search.nodes == 1                         # only the root is expanded again


def test_compiled_turn_search_gives_the_python_turn_search_values():
    """With every chance outcome searched and no budget cut, the C and Python greedy searches agree exactly."""
    from cavekit.search.cvc_segments import TurnSearcher
    from cvc_scenarios import next_action
    game = load_game("cvc")
    rng = np.random.default_rng(12)
    compared = excavations = 0
    while compared < 25:
        state = game.new_initial_state(seed=int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 300))):
            if state.is_terminal():
                break
            state.apply_action(next_action(state, rng, busy=True))
        if state.is_terminal() or state.current_player() == CHANCE:
            continue
        compiled = TurnSearcher(max_states=100000, chance_samples=0)
        compiled_values = compiled.action_values(state)
        if compiled.positions > 1500:       # the exhaustive Python search of a big turn takes seconds
            continue
        python_values = TurnSearch(game, max_nodes=0, chance_samples=0, rng=np.random.default_rng(0)).action_values(state)
        assert compiled_values.keys() == python_values.keys()
        for action, value in python_values.items():
            assert compiled_values[action] == pytest.approx(value, abs=1e-9), state.action_to_string(action)
        excavations += any("excavate" in state.action_to_string(a) for a in python_values)
        compared += 1
    assert excavations > 0          # some compared turns had rooms turned up inside them


def test_greedy_uses_the_compiled_search_on_compiled_states_only():
    assert make_agent("greedy", load_game("cvc"), seed=0).compiled_search is not None
    assert make_agent("greedy:compiled=0", load_game("cvc"), seed=0).compiled_search is None
    assert make_agent("greedy", load_game("cvc", engine="reference"), seed=0).compiled_search is None


# ----------------------------------------------------------------------------------------------------
# Whole games: legal, reproducible

FAST_SPECS = ["greedy:max_nodes=1000,chance_samples=2", "expectimax:depth=2,max_nodes=1000,chance_samples=1"]




def test_two_player_games_are_legal_and_reproducible():
    game = load_game("cvc", players=2)
    first = play_with_agents(game, FAST_SPECS, 11)
    assert play_with_agents(game, FAST_SPECS, 11).history() == first.history()


@pytest.mark.parametrize("spec", FAST_SPECS)
def test_solo_games_are_legal_and_reproducible(spec):
    game = load_game("cvc", players=1)
    first = play_with_agents(game, [spec], 21)
    assert play_with_agents(game, [spec], 21).history() == first.history()
    assert first.returns()[0] > 10


@pytest.mark.parametrize("spec", FAST_SPECS)
def test_reset_replays_the_same_choices(spec):
    game = load_game("cvc")
    states = random_decisions(game, 4, seed=8)
    agent = make_agent(spec, game, seed=5)
    first = [agent.step(s) for s in states]
    agent.reset()
    assert [agent.step(s) for s in states] == first


def test_one_agent_can_play_both_seats():
    game = PigGame(players=2, turns=2, max_rolls=3)
    shared = make_agent("expectimax:depth=2,deep_samples=0", game, seed=0)
    for state in random_decisions(game, 10, seed=4):
        fresh = make_agent("expectimax:depth=2,deep_samples=0", game, seed=0).search(state)
        assert shared.search(state).value == pytest.approx(fresh.value, abs=1e-12)


@pytest.mark.slow
def test_greedy_beats_random():
    from cavekit.analysis.batch import run_match
    results = run_match("cvc", ["greedy", "random"], 20, seed=3, progress=False)
    greedy_return = np.where(results["agent_0"] == "greedy", results["return_0"], results["return_1"])
    assert (greedy_return > 0).mean() >= 0.9


def test_toy_games_are_legal_with_every_agent():
    for players in (1, 2):
        game = PigGame(players=players, turns=3, max_rolls=3)
        for spec in ("greedy", "expectimax:depth=2", "expectimax:depth=3,turn=0", "random"):
            specs = [spec] * players
            assert play_with_agents(game, specs, 5).history() == play_with_agents(game, specs, 5).history()


# ----------------------------------------------------------------------------------------------------
# Specs

@pytest.mark.parametrize("spec, match", [
    ("greedy:depth=2", "its options"),
    ("greedy:max_nodes=-1", "max_nodes"),
    ("greedy:chance_samples=few", "not a valid int"),
    ("expectimax:depth=deep", "not a valid int"),
    ("expectimax:width=3", "its options"),
    ("expectimax:depth=-1", "depth"),
    ("expectimax:turn=2", "0/1"),
    ("expectimax:pruning=star2", "pruning"),
    ("expectimax:evaluator=magic", "evaluator"),
    ("expectimax:max_nodes=-5", "max_nodes"),
])
def test_bad_specs_are_config_errors(spec, match):
    with pytest.raises(ConfigError, match=match):
        make_agent(spec, load_game("cvc"))


def test_good_specs_build_the_options_they_name():
    game = load_game("cvc")
    agent = make_agent("expectimax:depth=3,turn=off,evaluator=none,pruning=alphabeta,chance_samples=2,"
                       "deep_samples=0,max_nodes=10", game)
    assert (agent.depth, agent.turn_mode, agent.pruning, agent.chance_samples, agent.deep_samples,
            agent.max_nodes) == (3, False, "alphabeta", 2, 0, 10)
    assert make_agent("expectimax", game).turn_mode                    # Cave vs Cave: whole turns by default
    assert make_agent("expectimax", PigGame(), seed=0).turn_mode                # the toy defines turn_is_over

    class OneActionTurns(PigGame):
        turn_is_over = None

    assert not make_agent("expectimax", OneActionTurns(), seed=0).turn_mode     # no turn rule: atomic plies
    greedy = make_agent("greedy:max_nodes=7,chance_samples=1", game)
    assert (greedy.search.max_nodes, greedy.search.chance_samples) == (7, 1)
