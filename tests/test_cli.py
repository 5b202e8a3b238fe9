"""The `cavekit` command as a user meets it: listings, `--version`, and one-line errors for bad options."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

import cavekit
from cavekit.core.registry import game_specs


def cavekit_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", *args], capture_output=True, text=True,
                          timeout=300)


def test_version_is_the_package_version():
    done = cavekit_command("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"cavekit {cavekit.__version__}"


def test_games_lists_every_registered_game_with_its_players_and_engines():
    done = cavekit_command("games")
    assert done.returncode == 0
    for spec in game_specs():
        line = next(line for line in done.stdout.splitlines() if line.split()[:1] == [spec.name])
        assert spec.title in line and ", ".join(spec.engines) in line


def test_games_name_shows_every_parameter_with_its_default_and_allowed_values():
    spec = next(s for s in game_specs() if s.default)
    done = cavekit_command("games", spec.name)
    assert done.returncode == 0
    for p in spec.parameters:
        assert f"{p.name} = {p.default!r}" in done.stdout and p.allowed_text() in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--param", "players=3"], "give the number of players with --players"),
    (["--param", "no_such_rule=1"], "cvc has no such parameter; its parameters: "),
    (["--param", "junction_room_gold_allowed=maybe"], "expected true or false, not 'maybe'"),
    (["--param", "additional_cavern_walls=3,5"], "additional_cavern_walls=(3, 5) is not allowed; allowed values"),
    (["--param", "undermining_ignores"], "is not of the form name=value"),
], ids=["players", "unknown", "bool", "list", "no-equals"])
def test_a_bad_rule_option_is_one_line_saying_what_is_allowed(args, message):
    done = cavekit_command("match", "cvc", "--agents", "random", "random", "--games", "1", "--quiet", *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr


def test_a_list_option_is_given_as_comma_separated_items():
    done = cavekit_command("match", "cvc", "--agents", "random", "random", "--games", "1", "--quiet",
                           "--param", "additional_cavern_walls=3,4")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("agents, message", [
    (["caverna_heuristic", "random"], "agent 'caverna_heuristic' plays caverna only, not cvc; agents for cvc: "),
    (["mcts:iterations=10,,c=1", "random"], "an empty option between commas"),
], ids=["other-game", "empty-option"])
def test_an_agent_spec_that_cannot_play_is_refused_before_any_game(agents, message):
    done = cavekit_command("match", "cvc", "--agents", *agents, "--games", "1", "--quiet")
    assert done.returncode == 2 and "Traceback" not in done.stderr and message in done.stderr


def test_output_cut_short_by_the_reader_ends_quietly():
    # `cavekit games cvc | head -n 1` and the like: the reader is gone before the output is written.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "games", "cvc"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 1 and done.stderr == ""


def test_out_naming_a_file_or_an_impossible_folder_is_one_line(tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    for out, message in ((a_file, "is a file, not a results folder"),
                         (a_file / "run", "the results folder cannot be created")):
        done = cavekit_command("match", "cvc", "--agents", "random", "random", "--games", "1", "--quiet",
                               "--out", str(out))
        assert done.returncode == 2 and "Traceback" not in done.stderr and message in done.stderr
    assert a_file.read_text() == "mine"


def test_a_refused_results_folder_is_left_as_it_was(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = cavekit_command("match", "cvc", "--agents", "random", "random", "--games", "1", "--quiet",
                           "--out", str(tmp_path))
    assert done.returncode == 2 and "not a cavekit results folder" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_cavekit_agents_lists_a_games_agents_with_what_they_do_and_their_options():
    result = cavekit_command("agents", "cvc")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "cvc_turn_mcts\n    MCTS over turn segments on the compiled core." in out
    assert "iterations=1000 (int)" in out and "random\n    Plays a uniformly random legal action." in out
    assert "caverna_heuristic" not in out and "pairs_heuristic" not in out


def test_cavekit_agents_without_a_game_says_which_game_each_agent_is_for():
    out = cavekit_command("agents").stdout
    assert "pairs_heuristic  [pairs only]" in out and "cvc_mcts  [cvc only]" in out
    assert "\ngreedy\n" in out          # plays every game


@pytest.mark.parametrize("command", [["match", "cvc", "--agents", "random", "random", "--games", "1"],
                                     ["tournament", "cvc", "--agents", "random", "greedy", "--games", "1"],
                                     ["play", "cvc", "--ai", "random"]])
def test_an_unknown_engine_is_one_line_naming_the_games_engines(command):
    done = cavekit_command(*command, "--engine", "fast")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "cavekit: error: --engine fast: cvc has no such engine; its engines: compiled (default), " \
                          "reference\n"


def test_the_engine_error_names_the_games_own_engines():
    done = cavekit_command("match", "caverna", "--agents", "random", "random", "--games", "1", "--engine", "fast")
    assert done.returncode == 2
    assert done.stderr.strip() == ("cavekit: error: --engine fast: caverna has no such engine; its engines: "
                                   "compiled (default), reference")


@pytest.mark.parametrize("game", ["cvc", "pairs", "cavum"])
def test_a_match_on_either_engine_plays_the_same_games_and_records_its_engine(tmp_path, game):
    import json
    from cavekit.analysis.results import load_games
    folders = {}
    for engine in ("reference", "compiled"):
        folders[engine] = tmp_path / engine
        done = cavekit_command("match", game, "--agents", "random", "random", "--games", "3", "--seed", "4",
                               "--engine", engine, "--out", str(folders[engine]), "--quiet")
        assert done.returncode == 0, done.stderr
        assert json.loads((folders[engine] / "manifest.json").read_text())["engine"] == engine
    reference, compiled = (load_games(folders[e]) for e in ("reference", "compiled"))
    assert reference["history"].map(list).tolist() == compiled["history"].map(list).tolist()
    report = cavekit_command("report", str(folders["reference"]))
    assert report.returncode == 0
    assert "--engine reference" in (folders["reference"] / "report.html").read_text()   # the command to repeat it


def test_play_and_tournament_take_an_engine(tmp_path):
    played = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "play", "cvc", "--ai", "random", "--seed",
                             "3", "--engine", "reference"], input="1\nquit\n", capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert played.returncode == 0 and "  you: " in played.stdout
    done = cavekit_command("tournament", "pairs", "--agents", "random", "pairs_heuristic", "--games", "2",
                           "--engine", "reference", "--quiet", "--n-boot", "0", "--out", str(tmp_path / "t"))
    assert done.returncode == 0, done.stderr
    assert "--engine reference" in (tmp_path / "t" / "tournament.json").read_text()


CTRL_C_ON_IMPORT = """
import os, signal, sys
module = sys.argv.pop(1)
class CtrlCOnImport:
    # presses Ctrl-C when the command first imports `module`, as a user may while it loads
    def find_spec(self, name, path=None, target=None):
        if name == module:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, CtrlCOnImport())
from cavekit.launch import main
sys.exit(main())
"""


@pytest.mark.parametrize("module", ["scipy", "cavekit.analysis.caverna.commands"],
                         ids=["while the command loads", "while the games' commands load"])
def test_ctrl_c_while_the_command_loads_is_one_line(module):
    done = subprocess.run([sys.executable, "-c", CTRL_C_ON_IMPORT, module, "games"], capture_output=True, text=True,
                          timeout=300, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stderr) == (130, "cavekit: interrupted\n")


@pytest.mark.parametrize("agent, message", [
    ("caverna_greedy:settle=2", "caverna_greedy: settle must be 0..1; got settle=2"),
    ("caverna_pilot:noise=30", "caverna_pilot: noise must be 0..20 points; got noise=30"),
    ("caverna_rollout:settle=3", "settle 0 or 1; got candidates=3, rollouts=1, horizon=0, settle=3"),
], ids=["greedy-settle", "pilot-noise", "rollout-settle"])
def test_a_caverna_agent_option_out_of_range_is_one_line_and_exit_2(agent, message):
    done = cavekit_command("match", "caverna", "--agents", agent, "caverna_greedy", "--games", "1", "--quiet")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr
