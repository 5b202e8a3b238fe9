"""`cavekit play`: a person (driven through stdin) against an AI, and the agents' `analyse` behind its reasoning."""
from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys

import pytest

from cavekit.analysis.cli import main
from cavekit.analysis.play import play
from cavekit.core import load_game
from cavekit.core.api import CHANCE
from cavekit.search import make_agent
from toy_games import PigGame

FAST_GREEDY = "greedy:max_nodes=300"


@pytest.fixture(autouse=True)
def in_a_scratch_folder(tmp_path, monkeypatch):
    """Sessions that reach the end take the next input line as a file name to save to: keep those files here."""
    monkeypatch.chdir(tmp_path)


def session(lines: list[str] | str, ai: str = "random", seed: int = 3, seat: int = 0, game=None):
    """Play with `lines` as the person's input; the result and everything printed."""
    text = lines if isinstance(lines, str) else "".join(line + "\n" for line in lines)
    out = io.StringIO()
    result = play(game or load_game("cvc"), ai, seat=seat, seed=seed, stdin=io.StringIO(text), stdout=out)
    return result, out.getvalue()


def first_prompt_moves(output: str) -> list[str]:
    """The numbered moves listed before the first prompt."""
    block = output.split("Your move (you are player", 1)[1].split("your move (", 1)[0]
    return [m.group(1) for m in re.finditer(r"^\s+\d+\. (.+)$", block, re.M)]


def movers(game, history: list[int]) -> list[int]:
    state = game.new_initial_state()
    who = []
    for action in history:
        who.append(state.current_player())
        state.apply_action(action)
    return who


def test_a_whole_game_by_numbers_prints_every_move_and_the_result(tmp_path):
    game = load_game("cvc")
    result, out = session(["1"] * 400, seed=3)
    assert result.finished and result.state.is_terminal()
    assert "Traceback" not in out
    who = movers(game, result.state.history())
    # Every action is printed: the person's, each atomic action of the AI's turns, each chance event in words.
    assert out.count("\n  you: ") == who.count(0)
    assert out.count("\n  AI: ") == who.count(1)
    assert out.count("\n  chance: ") == who.count(CHANCE)
    assert "chance: reveal " in out and re.search(r"chance: player [01] starts", out)
    assert "(random: no reasoning to show, the agent has no analyse)" in out
    scores, returns = result.state.scores(), result.state.returns()
    assert f"Final scores: you (player 0) {scores[0]}, AI (player 1) {scores[1]}." in out
    verdict = {1.0: "You win!", -1.0: "The AI wins.", 0.0: "A draw."}[returns[0]]
    assert verdict in out
    # The end offers to save: the next input line ("1") is taken as the file name.
    assert "Save the game record?" in out
    saved = game.deserialize_state((tmp_path / "1").read_text())
    assert saved.serialize() == result.state.serialize()


@pytest.mark.parametrize("answers, file_name", [(["y", ""], "cvc-seed3.json"), (["yes", "mine.json"], "mine.json")])
def test_yes_to_the_save_prompt_asks_for_a_file_name(tmp_path, answers, file_name):
    game = load_game("cvc")
    whole_game = session(["1"] * 400, seed=3)[0].state.history()
    person_moves = ["1"] * movers(game, whole_game).count(0)
    result, out = session(person_moves + answers, seed=3)
    assert result.finished and not (tmp_path / answers[0]).exists()
    assert "File name (Enter for cvc-seed3.json): " in out
    saved = game.deserialize_state((tmp_path / file_name).read_text())
    assert saved.serialize() == result.state.serialize()


def test_the_same_seed_replays_the_same_game():
    first, _ = session(["1"] * 400, seed=11)
    second, _ = session(["1"] * 400, seed=11)
    other, _ = session(["1"] * 400, seed=12)
    assert first.state.history() == second.state.history()
    assert first.state.history() != other.state.history()


def test_moves_by_notation_ignore_case_and_spacing_and_accept_a_unique_beginning():
    _, out = session(["quit"], seed=5)
    moves = first_prompt_moves(out)
    assert all(m.startswith("take ") for m in moves)
    third = moves[2]
    shouted = "  " + third.upper().replace(" ", "   ") + " "
    _, out = session([shouted, "quit"], seed=5)
    assert f"  you: {third}\n" in out
    tile = moves[1].removeprefix("take ")
    _, out = session([f"take {tile[:4].lower()}", "quit"], seed=5)
    assert f"  you: take {tile}\n" in out


def test_hint_ranks_the_options_with_the_ais_values_and_their_menu_numbers():
    result, out = session(["hint 10", "quit"], ai=FAST_GREEDY, seed=3)
    moves = first_prompt_moves(out)
    hint = out.split("hint from ", 1)[1].split("your move", 1)[0]
    assert hint.startswith("greedy turn search")
    rows = re.findall(r"^\s+(\d+)\s+(.+?)\s+([+-]\d\.\d\d)\s*$", hint, re.M)
    assert len(rows) == len(moves)           # hint 10 asks for more than there are: all of them
    for number, move, _ in rows:
        assert moves[int(number) - 1] == move   # the number shown is the one to type for that move
    values = [float(v) for _, _, v in rows]
    assert values == sorted(values, reverse=True)
    assert not result.finished


def test_hint_with_an_ai_that_cannot_analyse_uses_greedy_and_mcts_shows_visits():
    _, out = session(["hint", "quit"], ai="random", seed=3)
    assert "thinking (greedy)" in out and "hint from greedy turn search" in out
    _, out = session(["hint 3", "quit"], ai="mcts:iterations=60", seed=3)
    assert "hint from MCTS, 60 iterations" in out
    visits = [int(v) for v in re.findall(r"[+-]\d\.\d\d\s+(\d+) \(\d+%\)", out)]
    assert len(visits) == 3 and visits == sorted(visits, reverse=True) and sum(visits) <= 60


def test_the_ai_explains_each_choice_in_a_summary_line():
    _, out = session(["1", "1", "1", "1", "quit"], ai=FAST_GREEDY, seed=4, seat=1)
    lines = out.splitlines()
    ai_lines = [i for i, line in enumerate(lines) if line.startswith("  AI: ")]
    assert ai_lines
    explained = [i for i in ai_lines if lines[i + 1].lstrip().startswith("greedy turn search")]
    assert explained
    for i in explained:
        chose = lines[i + 1]
        assert f"chose {lines[i].removeprefix('  AI: ')} (value " in chose
        assert lines[i + 2].lstrip().startswith("next best ")


def test_undo_does_not_take_back_a_move_after_which_chance_was_revealed(tmp_path):
    before, after, undone = (tmp_path / f"{name}.json" for name in ("before", "after", "undone"))
    # take a tile, save, end the turn (the AI replies and the next round's tile is revealed), save, undo, save
    result, out = session(["1", f"save {before}", "1", f"save {after}", "undo", f"save {undone}", "quit"], seed=3)
    game = load_game("cvc")
    taken_back = movers(game, game.deserialize_state(after.read_text()).history())[
        len(game.deserialize_state(before.read_text()).history()):]
    assert taken_back[0] == 0 and 1 in taken_back and CHANCE in taken_back
    # taking `end turn` back would let the person replay the round knowing the tile chance has shown
    assert "cannot take back your move end turn: chance has since shown you" in out
    assert undone.read_text() == after.read_text()
    assert result.state.serialize() == after.read_text().strip()


def test_undo_at_the_start_has_nothing_to_undo_and_undo_after_one_move_returns_to_the_start(tmp_path):
    start = tmp_path / "start.json"
    again = tmp_path / "again.json"
    _, out = session(["undo", f"save {start}", "1", "undo", f"save {again}", "quit"], seed=3)
    assert "nothing to undo: you have not made a move yet" in out
    assert again.read_text() == start.read_text()


def test_save_then_load_restores_the_same_position(tmp_path):
    saved, reloaded = tmp_path / "a.json", tmp_path / "b.json"
    result, out = session([f"save {saved}", "1", "1", "1", "1", f"load {saved}", f"save {reloaded}", "quit"],
                          seed=3)
    assert reloaded.read_text() == saved.read_text()
    assert f"loaded {saved}" in out
    assert result.state.serialize() == saved.read_text().strip()


def test_a_saved_game_continues_from_the_command_line(tmp_path, monkeypatch, capsys):
    saved = tmp_path / "a.json"
    session(["1", f"save {saved}", "quit"], seed=3)
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"save {tmp_path / 'b.json'}\nquit\n"))
    assert main(["play", "cvc", "--ai", "random", "--seed", "3", "--load", str(saved)]) == 0
    assert (tmp_path / "b.json").read_text() == saved.read_text()


BAD_INPUTS = [
    ("frobnicate", "'frobnicate' is neither a legal move nor a command"),
    ("99", "there is no move 99: choose a number from 1 to"),
    ("0", "there is no move 0"),
    ("take", "'take' is ambiguous: it could be"),
    ("hint many", "hint takes an optional number of options to show"),
    ("save", "save needs a file name"),
    ("load", "load needs a file name"),
    ("undo now", "undo takes nothing after it"),
]


@pytest.mark.parametrize("line, message", BAD_INPUTS)
def test_bad_input_gets_a_one_line_message_and_the_prompt_again(line, message):
    result, out = session([line, "quit"], seed=3)
    after = out.split(f"> {line}\n", 1)[1]
    assert after.startswith(message)
    assert after.split("\n", 1)[1].startswith("your move (")     # one line, then the prompt again
    assert "Traceback" not in out and not result.finished


def test_an_illegal_move_says_why(tmp_path):
    _, out = session(["1", "take Housework", "quit"], seed=3)
    assert "'take Housework' is not legal now: you already took an action tile this turn" in out


def test_files_that_cannot_be_written_or_read_are_refused_and_the_game_goes_on(tmp_path):
    game = load_game("cvc")
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json")
    tampered = tmp_path / "tampered.json"
    record = json.loads(game.new_initial_state(seed=1).serialize())
    record["history"][1] = 9999
    tampered.write_text(json.dumps(record))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    here, still = tmp_path / "here.json", tmp_path / "still.json"
    lines = [f"save {tmp_path / 'no' / 'such' / 'dir.json'}", f"save {tmp_path}", f"load {tmp_path / 'missing.json'}",
             f"load {corrupt}", f"load {tampered}", f"load {binary}", f"save {here}", "1", "undo",
             f"load {corrupt}", f"save {still}", "quit"]
    result, out = session(lines, seed=3)
    assert f"cannot save to {tmp_path / 'no' / 'such' / 'dir.json'}: No such file or directory" in out
    assert f"cannot save to {tmp_path}: Is a directory" in out
    assert f"cannot load {tmp_path / 'missing.json'}: No such file or directory; the current game goes on" in out
    assert "not loaded: corrupt game record at line 1 column 2: not JSON" in out
    assert "not loaded: corrupt game record at history[1]: illegal action 9999" in out
    assert f"cannot load {binary}: it is not a text file" in out
    assert still.read_text() == here.read_text()
    assert "Traceback" not in out and not result.finished


def test_end_of_input_leaves_cleanly():
    result, out = session("1\n", seed=3)
    assert out.rstrip().endswith("end of input: leaving the game (not saved)")
    assert not result.finished and len(result.state.history()) > 0


def test_a_bad_seat_or_record_is_a_clear_command_line_error(tmp_path, capsys):
    assert main(["play", "cvc", "--seat", "2"]) == 2
    assert "cavekit: error: seat 2 does not exist: cvc with 2 player(s) has seats 0 to 1" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "cavekit-cvc"}')
    assert main(["play", "cvc", "--load", str(bad)]) == 2
    assert "cavekit: error: corrupt game record at version: missing" in capsys.readouterr().err
    assert main(["play", "cvc", "--load", str(tmp_path / "none.json")]) == 2
    assert "cannot read the game record" in capsys.readouterr().err


def test_play_help_shows_examples(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "cavekit play cvc --ai mcts:seconds=5" in text


def test_the_command_plays_a_whole_game_from_stdin(tmp_path):
    command = shutil.which("cavekit")
    argv = [command] if command else [sys.executable, "-m", "cavekit.analysis.cli"]
    done = subprocess.run(argv + ["play", "cvc", "--ai", "random", "--seed", "3"], input="1\n" * 400,
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "Game over." in done.stdout and "Final scores: you (player 0)" in done.stdout
    assert load_game("cvc").deserialize_state((tmp_path / "1").read_text()).is_terminal()


@pytest.mark.parametrize("game", ["cvc", "pairs", "cavum", "caverna"])
def test_piped_output_holds_no_escape_sequences_even_when_the_keys_sent_them(tmp_path, game):
    command = shutil.which("cavekit")
    argv = [command] if command else [sys.executable, "-m", "cavekit.analysis.cli"]
    # Arrow keys, a colour code and a backspace typed into a session whose input is not line-edited.
    keys = "\x1b[A\n\x1b[B1\n\x1b[1;31mmoves\x1b[0m\n\x1bOD\x7fhint 2\nboard\n1\nquit\n"
    done = subprocess.run(argv + ["play", game, "--ai", "random", "--seed", "3"], input=keys,
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x1b" not in done.stderr and "[A" not in done.stdout
    assert "  you: " in done.stdout and "hint from " in done.stdout       # the keys around them still count
    assert "neither a legal move nor a command" not in done.stdout


def test_solo_and_other_games_play_through_the_same_loop():
    result, out = session(["1"] * 300, ai="random", seed=2, game=load_game("cvc", players=1))
    assert result.finished and f"Final score: {result.state.scores()[0]} points." in out
    pig = PigGame(players=2, turns=2, max_rolls=2)
    result, out = session(["roll"] * 10, ai="expectimax:depth=0,evaluator=none", seed=2, game=pig)
    assert result.finished and "chance: roll " in out and "\n  AI: " in out and "expectimax, unlimited depth" in out


# -- the agents' analyse ------------------------------------------------------------------------------

def midgame_state(seed: int = 3, steps: int = 25):
    """A cvc decision some way into a seeded random game."""
    game = load_game("cvc")
    state = game.new_initial_state(seed=seed)
    agent = make_agent("random", game, seed=seed)
    for _ in range(steps):
        if state.current_player() == CHANCE:
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(agent.step(state))
    while state.current_player() == CHANCE or len(state.legal_actions()) < 3:
        state.apply_action(state.chance_outcomes()[0][0] if state.current_player() == CHANCE
                           else state.legal_actions()[-1])
    return game, state


def test_mcts_analyse_reads_the_search_step_just_did():
    game, state = midgame_state()
    agent = make_agent("mcts:iterations=200,rollout=none", game, seed=1)
    action = agent.step(state)
    searched = agent.last_result
    entries = agent.analyse(state)
    assert agent.last_result is searched                     # no second search
    assert entries[0]["action"] == action
    assert [e["visits"] for e in entries] == sorted((e["visits"] for e in entries), reverse=True)
    assert sum(e["visits"] for e in entries) <= 200 and {e["text"] for e in entries} <= \
        {state.action_to_string(a) for a in state.legal_actions()}
    assert all(-1.0 <= e["value"] <= 1.0 for e in entries)
    assert agent.analysis_budget.startswith("MCTS, 200 iterations in ")
    fresh = make_agent("mcts:iterations=200,rollout=none", game, seed=1)
    assert sum(e["visits"] for e in fresh.analyse(state)) == 200    # without a step, analyse searches


def test_greedy_analyse_gives_every_legal_action_its_turn_value_best_first():
    game, state = midgame_state()
    agent = make_agent(FAST_GREEDY, game, seed=1)
    action = agent.step(state)
    entries = agent.analyse(state)
    assert sorted(e["action"] for e in entries) == state.legal_actions()
    values = [e["value"] for e in entries]
    assert values == sorted(values, reverse=True)
    assert next(e["value"] for e in entries if e["action"] == action) == values[0]   # it played a best one
    assert "greedy turn search" in agent.analysis_budget


def test_expectimax_analyse_bounds_hold_against_the_unpruned_values():
    game = PigGame(players=2, turns=2, max_rolls=3)
    state = game.new_initial_state()
    state.apply_action(1)                          # roll a 2: player 0 decides
    exact = make_agent("expectimax:depth=0,evaluator=none,pruning=none", game, seed=0).analyse(state)
    assert all(e["bound"] == "exact" for e in exact)
    true_value = {e["action"]: e["value"] for e in exact}
    bounds = []
    # The root's moves are searched in a random order: some seeds meet the worse move second, and prune it.
    for seed in range(3):
        for pruning in ("star1", "alphabeta"):
            pruned_agent = make_agent(f"expectimax:depth=0,evaluator=none,pruning={pruning}", game, seed=seed)
            action = pruned_agent.step(state)
            pruned = pruned_agent.analyse(state)
            assert pruned[0]["action"] == action == exact[0]["action"]
            assert pruned[0]["value"] == pytest.approx(true_value[action])
            for e in pruned:
                bounds.append(e["bound"])
                if e["bound"] == "exact":
                    assert e["value"] == pytest.approx(true_value[e["action"]])
                else:
                    assert e["bound"] == "upper" and e["value"] >= true_value[e["action"]] - 1e-12
    assert "upper" in bounds


def test_expectimax_analyse_later_in_a_searched_turn_reads_the_table():
    game, state = midgame_state()
    agent = make_agent("expectimax:depth=2,max_nodes=20000,deep_samples=1", game, seed=1)
    first = agent.step(state)
    entries = agent.analyse(state)
    assert entries[0]["action"] == first and entries[0]["bound"] == "exact"
    assert all(e["value"] <= entries[0]["value"] + 1e-12 for e in entries)
    state.apply_action(first)
    if state.current_player() >= 0 and len(state.legal_actions()) > 1:
        later = agent.step(state)
        assert agent.analyse(state)[0]["action"] == later


@pytest.mark.parametrize("answer", ["quit", "no"])
def test_a_command_typed_at_the_save_offer_skips_saving(tmp_path, answer):
    game = load_game("pairs", players=2)
    played, _ = session(["1"] * 400, game=game)
    decisions = movers(game, played.state.history()).count(0)
    result, out = session(["1"] * decisions + [answer], game=load_game("pairs", players=2))
    assert result.finished and result.state.history() == played.state.history()
    assert out.rstrip().endswith("not saved")
    assert not (tmp_path / answer).exists()


@pytest.mark.parametrize("ai, pattern", [
    # Compiled: the limit caps each enumeration (one per first action), so the total may pass it.
    ("greedy:max_nodes=50", r"greedy turn search, ([\d,]+) positions over all its enumerations \(each one, per "
                            r"first action or chance outcome, stops expanding at 50\)"),
    # Python: one budget per decision, shared among the moves.
    ("greedy:max_nodes=50,compiled=0", r"greedy turn search, ([\d,]+) states expanded or evaluated \(a budget of "
                                       r"50 per decision, shared among the moves; [\d,]+ finished early"),
])
def test_the_hint_says_what_the_greedy_search_limit_counts(tmp_path, ai, pattern):
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "play", "cvc", "--ai", ai, "--seed", "3"],
                          input="hint\nquit\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "of at most" not in done.stdout
    match = re.search("hint from " + pattern, done.stdout)
    assert match, done.stdout
    if "compiled=0" not in ai:
        assert int(match.group(1).replace(",", "")) > 50     # the count a per-enumeration limit does not bound


def cavum_hint(ai: str, tmp_path) -> str:
    """The output of asking for every option's hint at Cavum's first decision (an opening bid)."""
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "play", "cavum", "--ai", ai, "--seed", "3"],
                          input="hint 30\nquit\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "bid 0" in done.stdout                   # the first decision is a bid
    return done.stdout.split("> hint 30", 1)[1].split("your move", 1)[0]


def test_a_cavum_bid_hint_from_a_search_that_cannot_tell_bids_apart_says_so(tmp_path):
    hint = cavum_hint("greedy", tmp_path)
    # A bid changes nothing the evaluation sees until the auction closes: no column of equal values.
    assert "+0.00" not in hint.split("(its evaluation", 1)[1] and not re.search(r"^\s+\d+\s+bid \d+", hint, re.M)
    assert "it cannot tell your 21 options apart here" in hint and "--ai mcts:iterations=2000" in hint


def test_a_cavum_bid_hint_from_a_deeper_search_ranks_the_bids(tmp_path):
    hint = cavum_hint("mcts:iterations=600", tmp_path)
    values = re.findall(r"^\s+\d+\s+bid \d+\s+([+-]\d\.\d\d)", hint, re.M)
    assert len(values) == 21 and len(set(values)) > 3


def test_the_caverna_board_in_play_is_labelled_by_row_and_column(tmp_path):
    done = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "play", "caverna", "--ai", "random",
                           "--seed", "3"], input="quit\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    board = done.stdout.split("board (a space is row,col: rows down the left, columns along the top):\n", 1)[1]
    header, *rows = board.splitlines()[:5]
    assert header.split() == ["0", "1", "2", "3", "4", "5"]
    assert [row.split()[0] for row in rows] == ["0", "1", "2", "3"]
    assert rows[3].split()[5] == "E"           # the entry-level dwelling, at 3,3 in the notation
