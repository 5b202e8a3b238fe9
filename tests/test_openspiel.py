"""The OpenSpiel adapter: what only some games have (tensors, hidden information), parameters, and OpenSpiel's
searchers playing. The checks every game gets (registration, `random_sim_test`, game type and info, the
adapter following the engine) are in test_conformance.py, driven by the game specs."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts, tabular_qlearner
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from open_spiel.python.observation import make_observation

from cavekit.core import ConfigError, game_names, load_game
from cavekit.core.api import sample_chance_outcome
from cavekit.core.openspiel import CavekitBot, from_engine_state, load_openspiel_game, seeded_resampler
from cavekit.core.tensors import has_information_state_tensor, observation_encoder
from cavekit.search import make_agent


def _random_playout(state: pyspiel.State, rng: np.random.Generator, stop_after: int | None = None) -> None:
    while not state.is_terminal() and (stop_after is None or len(state.history()) < stop_after):
        if state.is_chance_node():
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


def test_only_cave_vs_cave_has_no_information_state_tensor():
    for name in game_names():
        game = load_openspiel_game(name)
        assert game.get_type().provides_information_state_tensor == has_information_state_tensor(
            game.cavekit_game) == (name != "cvc")


def test_player_ranges_and_solo_returns_points():
    assert (pyspiel.load_game("cavekit_cvc").get_type().min_num_players,
            pyspiel.load_game("cavekit_cvc").get_type().max_num_players) == (1, 2)
    solo = load_openspiel_game("cvc", players=1)
    state = solo.new_initial_state()
    _random_playout(state, np.random.default_rng(3))
    assert state.returns() == [float(state.engine_state.scores()[0])]   # solo: the final score


def test_illegal_action_is_refused_and_leaves_the_state_unchanged():
    game = load_openspiel_game("cvc")
    state = game.new_initial_state()
    _random_playout(state, np.random.default_rng(5), stop_after=30)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    before = state.serialize()
    with pytest.raises(ValueError, match=r"illegal action 0 \(take Cultivation\) for player 0: "
                                         "you already took an action tile this turn"):
        state.apply_action(illegal)
    assert state.serialize() == before


def test_clone_is_an_independent_copy_made_by_the_engine():
    game = load_openspiel_game("cvc")
    state = game.new_initial_state()
    _random_playout(state, np.random.default_rng(2), stop_after=60)
    copy_ = state.clone()
    assert copy_.history() == state.history()
    assert copy_.engine_state is not state.engine_state
    assert copy_.engine_state.to_dict() == state.engine_state.to_dict()
    _random_playout(copy_, np.random.default_rng(9))
    assert copy_.is_terminal() and not state.is_terminal()
    assert len(state.history()) == 60
    # Python's copy module goes through the engine's clone too (OpenSpiel clones attributes this way).
    slot = copy.deepcopy(state._slot)
    assert slot.state is not state.engine_state and slot.state.to_dict() == state.engine_state.to_dict()


@pytest.mark.parametrize("name,params", [("cvc", {"players": 2, "additional_cavern_walls": [3, 4]}),
                                         ("pairs", {"players": 3})])
def test_serialization_round_trips_through_openspiel_and_pickle(name, params):
    game = load_openspiel_game(name, **params)
    state = game.new_initial_state()
    _random_playout(state, np.random.default_rng(4), stop_after=50)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert state2.history() == state.history()
    assert state2.engine_state.serialize() == state.engine_state.serialize()
    restored = pickle.loads(pickle.dumps(state))
    assert restored.engine_state.to_dict() == state.engine_state.to_dict()
    assert str(pickle.loads(pickle.dumps(game))) == str(game)


def test_parameters_pass_through_game_strings():
    game = pyspiel.load_game("cavekit_cvc(players=1,additional_cavern_walls=3;4,undermining_ignores=one_wall)")
    params = game.cavekit_game.parameters()
    assert (params["players"], params["additional_cavern_walls"], params["undermining_ignores"]) == (1, [3, 4], "one_wall")
    assert pyspiel.load_game("cavekit_cvc(engine=reference)").cavekit_game.engine == "reference"
    pairs = pyspiel.load_game("cavekit_pairs(players=4)").cavekit_game
    assert pairs.config.hand_size == load_game("pairs", players=4).config.hand_size   # -1: the rules' default
    assert pyspiel.load_game("cavekit_pairs(rounds=1)").cavekit_game.config.num_rounds == 1


def test_bad_parameters_get_errors_naming_what_is_allowed():
    with pytest.raises(ConfigError, match="1 .solo. or 2 players"):
        pyspiel.load_game("cavekit_cvc(players=3)")
    with pytest.raises(ConfigError, match="allowed values: 'all_walls', 'one_wall'"):
        pyspiel.load_game("cavekit_cvc(undermining_ignores=none)")
    with pytest.raises(ConfigError, match="int values separated by ';'"):
        pyspiel.load_game("cavekit_cvc(additional_cavern_walls=a;b)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'walls'.*Available parameters"):
        pyspiel.load_game("cavekit_cvc(walls=3)")
    with pytest.raises(ConfigError, match="a number or 'players'"):
        load_openspiel_game("pairs", rounds="all")


@pytest.mark.parametrize("players", [1, 2])
def test_cvc_observation_tensor_holds_the_whole_position_within_its_bounds(players):
    game = load_openspiel_game("cvc", players=players)
    encoder = observation_encoder(game.cavekit_game)
    low, high = encoder.low, encoder.high
    state = game.new_initial_state()
    rng = np.random.default_rng(8)
    seen: dict[bytes, dict] = {}
    while not state.is_terminal():
        tensor = np.asarray(state.observation_tensor(0), np.float32)
        assert tensor.shape == tuple(game.observation_tensor_shape())
        assert np.all(tensor >= low) and np.all(tensor <= high)
        position = state.engine_state.to_dict()
        # Different positions never share a vector (the two lookups agree both ways).
        assert seen.setdefault(tensor.tobytes(), position) == position
        _random_playout(state, rng, stop_after=len(state.history()) + 1)
    assert len(seen) > 50


def test_perfect_information_views_agree_and_resampling_returns_the_same_state():
    game = load_openspiel_game("cvc")
    state = game.new_initial_state()
    _random_playout(state, np.random.default_rng(1), stop_after=40)
    assert state.observation_string(0) == state.observation_string(1)
    assert state.information_state_string(0) == state.engine_state.serialize()
    world = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
    assert world.history() == state.history()


def test_hidden_information_views_and_resampling():
    game = load_openspiel_game("pairs", players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(6)
    _random_playout(state, rng, stop_after=40)
    while state.is_chance_node():
        _random_playout(state, rng, stop_after=len(state.history()) + 1)
    player = state.current_player()
    assert state.information_state_string(player) != state.information_state_string((player + 1) % 3)
    worlds = [seeded_resampler(seed)(state, player) for seed in range(8)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_string(player) == state.observation_string(player)
        assert world.legal_actions() == state.legal_actions()
    # The other hands are redrawn: some determinization differs from the true deal.
    assert any(w.history() != state.history() for w in worlds)
    # Same seed, same determinization.
    assert seeded_resampler(3)(state, player).history() == seeded_resampler(3)(state, player).history()


@pytest.mark.parametrize("name,params,stop_after", [("pairs", {"players": 3}, None),
                                                     ("pairs", {"players": 2, "burn_cards": 1}, None),
                                                     ("cavum", {"players": 3}, 80)],
                         ids=["pairs-3", "pairs-2-burn", "cavum-3"])
def test_information_state_observation_carries_the_engine_tensor(name, params, stop_after):
    """OpenSpiel's perfect-recall observation (what its information-state algorithms read) is the engine's
    information_state_tensor, piece by piece, at every step of a game; `state.information_state_tensor` too."""
    game = load_openspiel_game(name, **params)
    ours = game.cavekit_game
    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert [(piece, value.shape) for piece, value in observation.dict.items()] == \
        [(piece, tuple(shape)) for piece, shape in ours.information_state_tensor_layout()]
    state = game.new_initial_state()
    rng = np.random.default_rng(13)
    steps = 0
    while True:
        for player in range(game.num_players()):
            expected = state.engine_state.information_state_tensor(player)
            observation.set_from(state, player)
            assert np.array_equal(observation.tensor, expected)
            assert np.array_equal(np.concatenate([v.ravel() for v in observation.dict.values()]), expected)
            assert np.array_equal(np.asarray(state.information_state_tensor(player), np.float32), expected)
            assert observation.string_from(state, player) == state.information_state_string(player)
        if state.is_terminal() or (stop_after is not None and steps >= stop_after):
            break
        _random_playout(state, rng, stop_after=len(state.history()) + 1)
        steps += 1
    # Cave vs Cave keeps its information state as a string (the record of a perfect-information game).
    cvc = make_observation(load_openspiel_game("cvc"), pyspiel.IIGObservationType(perfect_recall=True))
    assert cvc.tensor is None


@pytest.mark.parametrize("name,params,episodes", [("pairs", {"players": 2}, 4), ("cavum", {"players": 2}, 1)],
                         ids=["pairs", "cavum"])
def test_rl_environment_and_q_learning_run_on_information_state_tensors(name, params, episodes):
    """OpenSpiel's RL environment hands agents `information_state_tensor`s (its default when a game offers
    them); tabular Q-learning keyed on those tensors trains through whole games."""
    game = load_openspiel_game(name, **params)
    env = rl_environment.Environment(game)
    env.seed(3)    # chance outcomes
    assert env.observation_spec()["info_state"] == (game.cavekit_game.information_state_tensor_size(),)
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=game.num_distinct_actions())
              for p in range(game.num_players())]
    np.random.seed(3)   # QLearner explores with numpy's global generator
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            engine = env.get_state.engine_state
            assert np.array_equal(np.asarray(time_step.observations["info_state"][player], np.float32),
                                  engine.information_state_tensor(player))
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        assert sum(time_step.rewards) == pytest.approx(0.0)
    assert all(len(agent._q_values) > 10 for agent in agents)


def _play_with_bots(game: pyspiel.Game, bots: list, seed: int) -> list[float]:
    return evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))


MCTS_VARIANTS = {"cvc": [{"players": 2}, {"players": 1}], "pairs": [{"players": 2}, {"players": 6}]}
MCTS_GAMES = [(name, params) for name in game_names() for params in MCTS_VARIANTS.get(name, [{}])]
# Each simulation ends in a random rollout; Cavum's reference engine plays about 7 random games per second.
MCTS_SIMULATIONS = {"cavum": 2}


@pytest.mark.parametrize("name,params", MCTS_GAMES, ids=[f"{n}-{p}" for n, p in MCTS_GAMES])
def test_openspiel_python_mcts_plays_a_full_game_against_a_cavekit_agent(name, params):
    game = load_openspiel_game(name, **params)
    random_state = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=MCTS_SIMULATIONS.get(name, 6),
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state),
                       random_state=random_state)
    bots = [bot] + [CavekitBot(make_agent("random", game.cavekit_game, seed=p)) for p in range(1, game.num_players())]
    returns = _play_with_bots(game, bots, seed=7)
    assert len(returns) == game.num_players()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    if game.num_players() > 1:
        assert sum(returns) == pytest.approx(0.0)


def test_openspiel_ismcts_plays_a_full_hidden_information_game_reproducibly():
    game = load_openspiel_game("pairs", players=2)

    def play() -> list[int]:
        random_state = np.random.RandomState(5)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state),
                               uct_c=1.0, max_simulations=20, random_state=random_state)
        bot.set_resampler(seeded_resampler(5))
        state = game.new_initial_state()
        opponent = CavekitBot(make_agent("random", game.cavekit_game, seed=1))
        rng = np.random.default_rng(5)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            else:
                state.apply_action(int(bot.step(state)) if state.current_player() == 0 else opponent.step(state))
        assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
        return state.history()

    assert play() == play()


def test_from_engine_state_rebuilds_the_same_position():
    engine = load_game("cvc").new_initial_state()
    rng = np.random.default_rng(12)
    while len(engine.history()) < 70:
        if engine.current_player() < 0:
            engine.apply_action(sample_chance_outcome(engine.chance_outcomes(), rng.random()))
        else:
            engine.apply_action(int(rng.choice(engine.legal_actions())))
    state = from_engine_state(load_openspiel_game("cvc"), engine)
    assert state.history() == engine.history()
    assert state.engine_state.to_dict() == engine.to_dict()
