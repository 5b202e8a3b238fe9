"""Difficulty presets: every game has easy, medium, hard and strongest at every player count, usable wherever
an agent spec is, and results record the agent spec a preset stood for."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cavekit.core import load_game
from cavekit.core.api import ConfigError
from cavekit.core.registry import game_specs
from cavekit.core.spec import DIFFICULTIES, GameSpec, Preset
from cavekit.search import make_agent, register_agent, resolve_preset
from cavekit.search.agent import agent_names, parse_spec

GAME_COUNTS = [(spec.name, players) for spec in game_specs() for players in spec.player_counts]


def cavekit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cavekit", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("game_name, players", GAME_COUNTS)
def test_every_game_has_the_four_presets_at_every_player_count_and_each_builds(game_name, players):
    game = load_game(game_name, players=players)
    resolved = [resolve_preset(d, game) for d in DIFFICULTIES]
    for difficulty, spec in zip(DIFFICULTIES, resolved):
        assert parse_spec(spec)[0] in agent_names(game_name), f"{game_name} {difficulty} = {spec}"
        agent = make_agent(difficulty, game, seed=1)
        assert hasattr(agent, "step")


@pytest.mark.parametrize("game_name, players", [("cvc", 1), ("cvc", 2), ("pairs", 2), ("cavum", 2), ("caverna", 1)])
def test_the_easy_preset_plays_a_legal_move(game_name, players):
    game = load_game(game_name, players=players)
    state = game.new_initial_state()
    while state.current_player() < 0 and not state.is_terminal():     # deal what chance deals first
        state.apply_action(state.chance_outcomes()[0][0])
    assert make_agent("easy", game, seed=3).step(state) in state.legal_actions()


def test_a_preset_is_the_agent_spec_it_names():
    game = load_game("cvc", players=2)
    assert resolve_preset("hard", game) == game.spec.preset("hard", 2).agent
    assert resolve_preset("greedy", game) == "greedy"       # an agent spec is left as it is
    assert resolve_preset(" mcts:iterations=5 ", game) == " mcts:iterations=5 "


def test_a_preset_with_options_is_refused_with_what_to_do_instead():
    with pytest.raises(ConfigError, match="takes no options.*cavekit agents cvc"):
        make_agent("strongest:iterations=3", load_game("cvc"))


def test_no_agent_may_take_a_difficulty_name():
    with pytest.raises(ValueError, match="difficulty preset"):
        register_agent("hard", lambda game, seed=None: None, {})


def test_a_spec_whose_presets_miss_a_difficulty_is_refused():
    presets = (Preset("easy", "random"), Preset("medium", "random"), Preset("hard", "random"))
    with pytest.raises(ValueError, match="need each of"):
        GameSpec(name="toy", title="Toy", player_counts=(2,), default_players=2, engines=("reference",),
                 parameters=(), zero_sum=True, information="perfect", game_class=object, presets=presets)
    with pytest.raises(ValueError, match="not one of"):
        GameSpec(name="toy", title="Toy", player_counts=(2,), default_players=2, engines=("reference",),
                 parameters=(), zero_sum=True, information="perfect", game_class=object,
                 presets=presets + (Preset("expert", "random"),))


def test_a_match_with_presets_records_the_agent_specs_they_stand_for(tmp_path):
    out = tmp_path / "run"
    done = cavekit("match", "cvc", "--agents", "easy", "random", "--games", "2", "--seed", "1", "--quiet",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    easy = load_game("cvc").spec.preset("easy", 2).agent
    assert sorted(manifest["agents"]) == sorted([easy, "random"])


def test_cavekit_agents_lists_every_preset_with_what_it_stands_for():
    done = cavekit("agents", "cvc")
    assert done.returncode == 0, done.stderr
    game = load_game("cvc", players=1)
    for players in (1, 2):
        for difficulty in DIFFICULTIES:
            preset = game.spec.preset(difficulty, players)
            assert f"{difficulty:<10} = {preset.agent}" in done.stdout
    assert "1 player:" in done.stdout and "2 players:" in done.stdout


def test_cli_refuses_a_preset_with_options_in_one_line():
    done = cavekit("match", "cvc", "--agents", "strongest:iterations=3", "random", "--games", "2", "--quiet")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "takes no options" in done.stderr
