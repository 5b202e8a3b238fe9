"""MCTS: the generic search (any game) and the compiled Cave vs Cave search play sound, reproducible moves."""
from __future__ import annotations

import numpy as np
import pytest

from cavekit.core import ConfigError, load_game
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.core.cvc.compiled import CompiledState
from cavekit.search import make_agent
from cavekit.search.cvc_evaluation import heuristic_values
from cavekit.search.cvc_heuristic import cvc_evaluate
from cavekit.search.mcts import MCTSAgent

from agent_play import play_with_agents
from cvc_end_games import last_turn_of_the_game

def finish_turn(state, agent):
    player = state.current_player()
    first = None
    while not state.is_terminal() and state.current_player() == player:
        action = agent.step(state)
        first = action if first is None else first
        state.apply_action(action)
    return first


@pytest.mark.parametrize("spec", ["mcts:iterations=300", "mcts:iterations=300,rollout=none",
                                  "mcts:iterations=300,rollout=greedy", "mcts:iterations=300,rollout=epsilon"])
def test_generic_mcts_finds_the_winning_last_turn(spec):
    state = last_turn_of_the_game()
    agent = make_agent(spec, state._game, seed=1)
    first = finish_turn(state, agent)
    assert state.action_to_string(first) == "take Housework"
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


@pytest.mark.parametrize("rollout", ["random", "none"])
def test_compiled_mcts_finds_the_winning_last_turn(rollout):
    reference = last_turn_of_the_game()
    game = load_game("cvc")
    state = CompiledState.from_dict(game, reference.to_dict(), [])
    agent = make_agent(f"cvc_mcts:iterations=3000,rollout={rollout}", game, seed=1)
    first = finish_turn(state, agent)
    assert state.action_to_string(first) == "take Housework"
    assert state.is_terminal() and state.returns() == [1.0, -1.0]




@pytest.mark.parametrize("spec", ["mcts:iterations=20,rollout=none", "cvc_mcts:iterations=300,rollout=none",
                                  "cvc_mcts:iterations=100,rollout=random"])
def test_full_games_are_legal_and_reproducible(spec):
    for players in (2, 1):
        game = load_game("cvc", players=players)
        specs = [spec] + ["random"] * (players - 1)
        first, second = play_with_agents(game, specs, 3), play_with_agents(game, specs, 3)
        assert first.history() == second.history()
    assert play_with_agents(game, specs, 4).history() != first.history()


def test_mcts_beats_random_with_a_small_budget():
    from cavekit.analysis.batch import run_match
    results = run_match("cvc", ["cvc_mcts:iterations=1000,rollout=none", "random"], 10, seed=5, progress=False)
    mcts_return = np.where(results["agent_0"] == "random", results["return_1"], results["return_0"])
    assert (mcts_return > 0).mean() >= 0.9


def test_tree_is_reused_between_moves_of_one_turn():
    game = load_game("cvc")
    state = game.new_initial_state(seed=2)
    agent = MCTSAgent(game, seed=0, iterations=200, rollout="none")
    state.apply_action(agent.step(state))
    carried = agent._reused_root(state)
    assert carried is not None and carried.visits > 0
    agent.step(state)
    assert agent.last_result.iterations == 200


def test_root_parallel_search_is_reproducible_and_adds_visits():
    game = load_game("cvc")
    state = game.new_initial_state(seed=4)
    one = MCTSAgent(game, seed=9, iterations=60, rollout="none", workers=2)
    two = MCTSAgent(game, seed=9, iterations=60, rollout="none", workers=2)
    assert one.step(state) == two.step(state)
    assert one.last_result.iterations == 120
    assert sum(one.last_result.visits.values()) == 120


def test_bad_specs_are_refused_with_what_is_allowed():
    game = load_game("cvc")
    with pytest.raises(ConfigError, match="rollout"):
        make_agent("mcts:rollout=smart", game)
    with pytest.raises(ConfigError, match="its options"):
        make_agent("mcts:depth=3", game)
    with pytest.raises(ConfigError, match="compiled"):
        make_agent("cvc_mcts", load_game("cvc", engine="reference"))
    with pytest.raises(ConfigError, match="not a valid int"):
        make_agent("cvc_mcts:iterations=many", game)


def test_compiled_heuristic_equals_the_python_heuristic():
    for players in (2, 1):
        game = load_game("cvc", players=players)
        rng = np.random.default_rng(players)
        for _ in range(5):
            state = game.new_initial_state()
            while not state.is_terminal():
                assert heuristic_values(state) == cvc_evaluate(state)
                if state.current_player() == CHANCE:
                    state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.integers(len(legal))])


class HiddenCardGame:
    """One hidden card (0, 1 or 2 with chances 0.5, 0.3, 0.2) that nobody sees; one player guesses it."""

    name = "hidden_card"
    num_players = 1
    hidden_information = True


class HiddenCardState:
    def __init__(self, card: int | None = None):
        self.card, self.guess = card, None

    def current_player(self):
        return CHANCE if self.card is None else (-4 if self.guess is not None else 0)

    def is_terminal(self):
        return self.guess is not None

    def chance_outcomes(self):
        return [(0, 0.5), (1, 0.3), (2, 0.2)]

    def legal_actions(self):
        return [0, 1, 2]

    def apply_action(self, action):
        if self.card is None:
            self.card = action
        else:
            self.guess = action

    def returns(self):
        return [1.0 if self.guess == self.card else 0.0] if self.is_terminal() else [0.0]

    def history(self):
        return [a for a in (self.card, self.guess) if a is not None]

    def clone(self):
        other = HiddenCardState(self.card)
        other.guess = self.guess
        return other

    def resample_from_infostate(self, player, rng):
        return HiddenCardState(sample_chance_outcome(self.chance_outcomes(), rng.random()))


def test_is_mcts_bets_on_what_the_player_can_know():
    game = HiddenCardGame()
    state = HiddenCardState(card=2)           # the card is 2, but the guesser cannot see it
    guess = MCTSAgent(game, seed=0, iterations=2000, rollout="random", reuse=0).step(state)
    assert guess == 0                          # the likeliest card, from the player's information
    game.hidden_information = False            # a search allowed to look at the card finds it
    assert MCTSAgent(game, seed=0, iterations=2000, rollout="random", reuse=0).step(state) == 2
