"""A person against an AI in the terminal: the loop behind `cavekit play`, independent of argparse.

`play(game, ai_spec, seat=..., seed=..., stdin=..., stdout=...)` reads the person's input line by line and
writes everything to `stdout`, so tests drive it with `io.StringIO`. The person chooses a move by its
number in the list, or by its notation (case and spacing do not matter; a unique beginning of a move, or
of the part after its `Tile:` prefix, is enough). Commands are listed by `help` (see `HELP`).

Every random choice flows from one seed: the game is played on the deal of that seed (`cavekit deal GAME
--seed S` shows it), the AI is seeded from child (0,) of `SeedSequence(seed)` and the agent that answers
`hint` from child (1,). The deal fixes the room under each space and the tile of each round, so taking a
move back (`undo`) and playing differently meets the same components: undo cannot re-roll a tile or a room.
A game loaded from a record made on another deal, or a game without deals, draws the chance events the deal
cannot resolve from child (2, i) for history position i, which undo cannot re-roll either.
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Collection
from typing import Any, TextIO

import numpy as np
import pandas as pd

from ..core.api import CHANCE, CavekitError, ConfigError, CorruptRecordError, Game, State, sample_chance_outcome
from ..core.deal import DEAL_SEED_LIMIT, Deal, DealError, deal_for_play
from ..core.spec import resolve
from ..search.agent import Agent, make_agent, resolve_preset
from .batch import replay
from .progress import timed

HINT_FALLBACK_SPEC = "greedy"   # answers `hint` when the AI itself cannot analyse a position
HINT_DEFAULT_COUNT = 5
DEEPER_HINT_SPEC = "mcts:iterations=2000"     # suggested when the hint's search cannot tell the options apart

HELP = """\
Choose a move by its number (e.g. 3) or its notation (e.g. take Excavation; case and spacing do not
matter, and a unique beginning such as "take exc" or "excavate s5" is enough). Commands:
  hint [N]     the AI's evaluation of your N best options (default 5): value for you and, for MCTS, visits
  undo         take back your last move, with the AI's reply and any chance event after it
  save FILE    write the game record (JSON) to FILE
  load FILE    continue a saved game from FILE (a corrupt record is refused; the current game goes on)
  moves        list your legal moves again
  board        show the position again
  help, ?      this help
  quit         leave the game (save first to keep it)"""


@dataclass
class PlayResult:
    """How a session ended: the last position, whether the game was played to its end, and the seed used."""

    state: State
    finished: bool
    seed: int


# ANSI/VT escape sequences (CSI such as arrow keys and colours, OSC titles, SS3 keys, two-byte escapes) and
# the other control characters a keyboard can send; tab and newline are kept.
ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|O.|[@-Z\\-_]|$)"
                             r"|\x9b[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f]")


def strip_escapes(text: str) -> str:
    """`text` without terminal escape sequences and control characters."""
    return ESCAPE_SEQUENCE.sub("", text)


def _is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is a terminal (a stream without isatty, such as a test's StringIO, is not)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:      # a closed stream
        return False


def squash(text: str) -> str:
    """Notation reduced for matching typed text: lower case, all whitespace removed."""
    return "".join(text.lower().split())


def random_seed() -> int:
    """A fresh seed from the operating system's entropy, for a session started without one."""
    return int(np.random.SeedSequence().generate_state(1)[0])


class PlaySession:
    """One game between a person (at `seat`) and an AI agent, read from `stdin` and written to `stdout`."""

    def __init__(self, game: Game, ai_spec: str, seat: int = 0, seed: int | None = None,
                 state: State | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None):
        if not 0 <= seat < game.num_players:
            raise ConfigError(f"seat {seat} does not exist: {game.name} with {game.num_players} player(s) "
                              f"has seats 0 to {game.num_players - 1}")
        self.game = game
        resolved = resolve_preset(ai_spec, game)
        self.ai_spec = resolved if resolved == ai_spec else f"{ai_spec} = {resolved}"     # what the person sees
        self._ai_agent_spec = resolved
        self.seat = seat
        self.seed = random_seed() if seed is None else seed
        self._deal = session_deal(game, self.seed)
        self.agent: Agent = make_agent(resolved, game, seed=np.random.SeedSequence(self.seed, spawn_key=(0,)))
        self._hint_agent: Agent | None = None
        self._last_hint_seconds: float | None = None
        self.state: State = game.new_initial_state() if state is None else state
        self._in = sys.stdin if stdin is None else stdin
        self._out = sys.stdout if stdout is None else stdout
        self._interactive = self._in is sys.stdin and sys.stdin.isatty()
        self._out_is_terminal = _is_terminal(self._out)
        self._ai_to_move = False      # the AI's turn is under way (so its header is printed once per turn)
        # With hidden information the person sees only their seat's view, and every agent (the AI, hints) is
        # given a position drawn from what its seat may know, never the true one.
        self._hidden = bool(getattr(game, "hidden_information", False))
        spec = getattr(game, "spec", None)
        self._renderer = resolve(spec.renderer) if spec is not None and spec.renderer else None

    # -- input and output ---------------------------------------------------------------------------

    def say(self, *lines: str) -> None:
        """Write each line to the output (with no escape sequences unless it is a terminal)."""
        for line in lines:
            self._out.write((line if self._out_is_terminal else strip_escapes(line)) + "\n")
        self._out.flush()

    def ask(self, prompt: str) -> str | None:
        """One line from the person (stripped), or None at the end of the input."""
        if self._interactive:
            try:
                return strip_escapes(input(prompt)).strip()
            except EOFError:
                self.say("")
                return None
        self._out.write(prompt)
        self._out.flush()
        line = self._in.readline()
        if not line:
            self.say("")
            return None
        # Keys such as the arrows arrive as escape sequences when the input is not line-edited (piped, or a
        # terminal whose output is piped): they are never part of a move, and echoed they would garble a log.
        line = strip_escapes(line.rstrip("\n"))
        # Echo piped input, so a transcript reads like the session a person would have seen.
        self.say(line)
        return line.strip()

    # -- the game loop ------------------------------------------------------------------------------

    def run(self) -> PlayResult:
        """Play until the game ends (then show the result and offer to save) or the person leaves."""
        others = ", ".join(str(p) for p in range(self.game.num_players) if p != self.seat)
        against = f"the AI ({self.ai_spec}) plays player {others}" if others else \
            f"solo game; hint uses {self._hint_spec()}"
        self.say(f"{self.game.name}, {self.game.num_players} player(s): you are player {self.seat}, {against}.",
                 f"Seed {self.seed}: the same seed and the same moves replay the same game. "
                 "Type a move's number or notation; help lists the commands.")
        try:
            while not self.state.is_terminal():
                player = self.state.current_player()
                if player == CHANCE:
                    self._chance()
                elif player == self.seat:
                    self._ai_to_move = False
                    if not self._person_turn():
                        return PlayResult(self.state, False, self.seed)
                else:
                    self._ai_move()
            self._finish()
        except KeyboardInterrupt:
            self.say("", "interrupted: leaving the game")
            return PlayResult(self.state, False, self.seed)
        return PlayResult(self.state, True, self.seed)

    def _chance(self) -> None:
        outcome = chance_outcome(self.state, self._deal, self.seed)
        seen = not self._hidden or visible_to(self.state, outcome, self.seat)
        self.say(f"  chance: {self.state.action_to_string(outcome) if seen else 'an outcome hidden from you'}")
        self.state.apply_action(outcome)

    def _as_seen_by(self, player: int) -> State:
        """The position an agent playing or advising `player` is given (see `seen_by`)."""
        return seen_by(self.state, player, self.seed, self._hidden)

    def _board(self) -> str:
        """The position as the person may see it."""
        if self._renderer is not None and not self.state.is_terminal():
            return self._renderer(self.state, self.seat)
        return str(self.state)

    def _ai_move(self) -> None:
        state = self.state
        if not self._ai_to_move:
            self.say("", f"The AI (player {state.current_player()}, {self.ai_spec}) moves:")
            self._ai_to_move = True
        legal = state.legal_actions()
        seen = self._as_seen_by(state.current_player())
        action = self.agent.step(seen)
        self.say(f"  AI: {state.action_to_string(action)}")
        if len(legal) > 1:
            self.say(*(f"      {line}" for line in self._reasoning(seen, action)))
        state.apply_action(action)

    def _reasoning(self, state: State, chosen: int) -> list[str]:
        """One or two lines on why the AI chose `chosen`, from its `analyse` when it has one."""
        analyse = getattr(self.agent, "analyse", None)
        if analyse is None:
            return [f"({self.agent.name}: no reasoning to show, the agent has no analyse)"]
        entries = analyse(state)
        budget = getattr(self.agent, "analysis_budget", self.agent.name)
        total_visits = sum(e.get("visits", 0) for e in entries)
        mine = next((e for e in entries if e["action"] == chosen), None)
        lines = [f"{budget}: chose {state.action_to_string(chosen)}"
                 + (f" ({_stats(mine, total_visits)})" if mine else "")]
        others = [e for e in entries if e["action"] != chosen]
        if others and not self._hidden:     # the AI's other options would show what it holds
            lines.append(f"next best {others[0]['text']} ({_stats(others[0], total_visits)})")
        return lines

    # -- the person's turn --------------------------------------------------------------------------

    def _person_turn(self) -> bool:
        """Show the position and read input until a move is made (True) or the person leaves (False)."""
        self.say("", self._board(), "")
        self.say(f"Your move (you are player {self.seat}):")
        self._show_moves()
        while True:
            legal = self.state.legal_actions()
            line = self.ask(f"your move (1-{len(legal)}, or help)> ")
            if line is None:
                self.say("end of input: leaving the game (not saved)")
                return False
            if not line:
                continue
            word, _, rest = line.partition(" ")
            command = word.lower()
            rest = rest.strip()
            if command in ("quit", "exit"):
                self.say("leaving the game (use save FILE before quit to keep it)")
                return False
            if command in ("help", "?"):
                self.say(HELP)
            elif command == "moves":
                self._show_moves()
            elif command == "board":
                self.say(self._board())
            elif command == "hint":
                self._hint(rest)
            elif command == "save":
                self._save(rest)
            elif command == "load":
                if self._load(rest):
                    return True
            elif command == "undo":
                if self._undo(rest):
                    return True
            else:
                action, problem = self._parse_move(line)
                if action is None:
                    self.say(problem or "")
                    continue
                self.say(f"  you: {self.state.action_to_string(action)}")
                self.state.apply_action(action)
                return True

    def _show_moves(self) -> None:
        state = self.state
        width = len(str(len(state.legal_actions())))
        self.say(*(f"  {i:>{width}}. {state.action_to_string(a)}" for i, a in enumerate(state.legal_actions(), 1)))

    def _parse_move(self, text: str) -> tuple[int | None, str | None]:
        """The legal action `text` names (a list number or notation), or None and what was wrong."""
        state = self.state
        legal = state.legal_actions()
        if re.fullmatch(r"[+-]?\d+", text):
            n = int(text)
            if 1 <= n <= len(legal):
                return legal[n - 1], None
            return None, f"there is no move {text}: choose a number from 1 to {len(legal)} (moves lists them)"
        notation = {a: state.action_to_string(a) for a in legal}
        key = squash(text)
        for a in legal:
            if squash(notation[a]) == key:
                return a, None
        try:
            named: int | None = state.string_to_action(text)
        except (CavekitError, ValueError):
            named = None
        if named in notation:
            return named, None
        starts = [a for a in legal
                  if squash(notation[a]).startswith(key) or squash(notation[a].partition(": ")[2]).startswith(key)]
        if len(starts) == 1:
            return starts[0], None
        if starts:
            shown = "; ".join(notation[a] for a in starts[:4]) + ("; ..." if len(starts) > 4 else "")
            return None, (f"{text!r} is ambiguous: it could be {len(starts)} moves ({shown}); "
                          "type more of it, or the move's number")
        if named is not None:
            return None, f"{text!r} is not legal now: {self._why_illegal(named)}"
        return None, f"{text!r} is neither a legal move nor a command: moves lists the moves, help the commands"

    def _why_illegal(self, action: int) -> str:
        return why_illegal(self.state, action)

    # -- commands -----------------------------------------------------------------------------------

    def _hint_spec(self) -> str:
        return hint_spec(self._ai_agent_spec, self.agent)

    def _hint(self, argument: str) -> None:
        if argument and not (argument.isdigit() and int(argument) > 0):
            self.say(f"hint takes an optional number of options to show (e.g. hint 10), not {argument!r}")
            return
        count = int(argument) if argument else HINT_DEFAULT_COUNT
        if self._hint_agent is None:
            # A separate instance of the same spec, so asking for hints never changes how the AI plays.
            seed = np.random.SeedSequence(self.seed, spawn_key=(1,))
            self._hint_agent = make_agent(self._hint_spec(), self.game, seed=seed)
        self.say(f"thinking ({self._hint_spec()})...")
        seen = self._as_seen_by(self.seat)
        # A search can take a while: its time goes to a terminal's stderr, against the agent's time budget
        # or, lacking one, the last hint's duration (the first hint of a fixed-size search shows time only).
        budget_seconds = float(getattr(self._hint_agent, "seconds", 0) or 0) or self._last_hint_seconds
        started = time.perf_counter()
        hint = timed(lambda: hint_rows(self._hint_agent, self.game, self.state, seen, self._hint_spec()),
                     "hint search", budget_seconds, enabled=_stderr_is_terminal())
        self._last_hint_seconds = time.perf_counter() - started
        keys = [_rank_key(row) for row in hint.rows]
        if len(keys) > 1 and len(set(keys)) == 1:
            # A column of equal values would read as a verdict ("all +0.00"); it is the search having no
            # opinion, e.g. a Cavum bid, which changes nothing the evaluation sees until the auction closes.
            self.say(f"hint from {hint.budget}: it cannot tell your {len(keys)} options apart here, valuing every "
                     f"one at {hint.rows[0]['value_text']} (its evaluation sees no difference between the positions "
                     f"they lead to), so it has no advice. An AI that searches further can rank them, e.g. "
                     f"cavekit play {self.game.name} --ai {DEEPER_HINT_SPEC}.")
            return
        self.say(f"hint from {hint.budget}; value = its estimate of {hint.scale}:")
        rows = []
        for e in hint.rows[:count]:
            row: dict[str, Any] = {"no.": e["number"], "move": e["text"], "value": e["value_text"]}
            if "visits" in e:
                row["visits"] = f"{e['visits']} ({e['visit_share']:.0f}%)"
            rows.append(row)
        self.say(*("  " + line for line in _left_aligned_table(pd.DataFrame(rows)).splitlines()))
        if len(hint.rows) > count:
            self.say(f"  ({len(hint.rows) - count} more: hint {len(hint.rows)} shows all)")
        shown = keys[:count]
        tied = sum(1 for key in shown if shown.count(key) > 1)
        if tied:
            self.say(f"  ({tied} of these share their value exactly: the search does not rank them against each "
                     "other)")

    def _save(self, argument: str) -> bool:
        if not argument:
            self.say("save needs a file name, e.g. save mygame.json")
            return False
        path = Path(argument).expanduser()
        try:
            path.write_text(self.state.serialize() + "\n", encoding="utf-8")
        except OSError as e:
            self.say(f"cannot save to {argument}: {e.strerror or e}")
            return False
        self.say(f"saved to {path} ({len(self.state.history())} actions)")
        return True

    def _load(self, argument: str) -> bool:
        if not argument:
            self.say("load needs a file name, e.g. load mygame.json")
            return False
        path = Path(argument).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            self.say(f"cannot load {argument}: {e.strerror or e}; the current game goes on")
            return False
        except UnicodeDecodeError:
            self.say(f"cannot load {argument}: it is not a text file; the current game goes on")
            return False
        try:
            state = self.game.deserialize_state(text)
        except CorruptRecordError as e:
            self.say(f"not loaded: {e}; the current game goes on")
            return False
        self.state = state
        self._ai_to_move = False
        self.say(f"loaded {path} ({len(state.history())} actions)")
        return True

    def _undo(self, argument: str) -> bool:
        if argument:
            self.say("undo takes nothing after it: it takes back your last move and what followed")
            return False
        try:
            undone = undo_last_move(self.game, self.state, self.seat, hidden=self._hidden)
        except UndoRefused as refused:
            self.say(str(refused))
            return False
        if undone is None:
            self.say("nothing to undo: you have not made a move yet")
            return False
        self.say(undone.message)
        self.state = undone.state
        return True

    # -- the end ------------------------------------------------------------------------------------

    def _finish(self) -> None:
        state = self.state
        scores = state.scores()
        self.say("", str(state), "", "Game over.")
        if self.game.num_players == 1:
            self.say(f"Final score: {scores[0]} points.")
        else:
            parts = [f"{'you' if p == self.seat else 'AI'} (player {p}) {scores[p]}" for p in range(len(scores))]
            self.say("Final scores: " + ", ".join(parts) + ".")
            self.say(verdict(state, self.seat, other="The AI"))
        while True:
            answer = self.ask("Save the game record? Type a file name, or press Enter (or no) to skip: ")
            # A person who types a command out of habit ("quit", "no") means "don't save", not a file name,
            # and "yes" means "save", which still needs a name: offer one.
            if not answer or answer.lower() in SKIP_SAVE_ANSWERS:
                self.say("not saved")
                return
            if answer.lower() in YES_ANSWERS:
                suggested = f"{self.game.name}-seed{self.seed}.json"
                answer = self.ask(f"File name (Enter for {suggested}): ") or suggested
            if self._save(answer):
                return


def _stderr_is_terminal() -> bool:
    """Whether a person watches stderr (progress is drawn there only then, never into a log or a pipe)."""
    return sys.stderr is not None and _is_terminal(sys.stderr)


SKIP_SAVE_ANSWERS = ("n", "no", "skip", "quit", "exit", "q")
YES_ANSWERS = ("y", "yes")

# -- what terminal play and the browser (`cavekit.analysis.web`) share ----------------------------------

def session_deal(game: Game, seed: int) -> Deal | None:
    """The deal a session of `seed` is played on, or None for a game without deals."""
    deal = deal_for_play(game, seed % DEAL_SEED_LIMIT)
    return deal if isinstance(deal, Deal) else None


def chance_outcome(state: State, deal: Deal | None, seed: int) -> int:
    """The outcome of the chance node `state` in a session of `seed`: the deal's, or (a game without deals,
    or a record from another deal) one drawn from child (2, position) of the seed, which undo cannot re-roll."""
    if deal is not None:
        try:
            return deal.outcome(state)
        except DealError:       # a loaded game from another deal
            pass
    position = len(state.history())
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2, position)))
    return sample_chance_outcome(state.chance_outcomes(), rng.random())


def why_illegal(state: State, action: int) -> str:
    """Why `action` is not legal in `state`, in the engine's words (tried on a copy)."""
    probe = state.clone()
    try:
        probe.apply_action(action)
    except CavekitError as e:
        return getattr(e, "reason", str(e))
    except ValueError as e:
        return str(e)
    return "it is not among the legal moves"


def visible_to(state: State, action: int, seat: int) -> bool:
    """Whether `seat` can tell `action` (a chance outcome, or another player's move) from the alternatives
    in `state`: its information state after the action differs from that after every other choice."""
    if state.current_player() == seat:
        return True
    choices = [a for a, _ in state.chance_outcomes()] if state.current_player() == CHANCE else state.legal_actions()
    views = {}
    for other in choices:
        after = state.clone()
        after.apply_action(other)
        views[other] = after.information_state_string(seat)
    return list(views.values()).count(views[action]) == 1


def seen_by(state: State, player: int, seed: int, hidden: bool, stream: int = 0) -> State:
    """The position an agent playing or advising `player` is given: with hidden information, one drawn from
    that seat's information state (seeded by the session seed, the position and the random `stream`), else the
    true one."""
    if not hidden:
        return state
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3, len(state.history()), stream)))
    return state.resample_from_infostate(player, rng)


def hint_spec(ai_spec: str, agent: Agent | None = None) -> str:
    """The agent spec that answers hints: the AI's own when it can analyse a position, else greedy."""
    return ai_spec if agent is not None and hasattr(agent, "analyse") else HINT_FALLBACK_SPEC


@dataclass
class Hint:
    """An agent's evaluation of the options at a decision: who evaluated it (`budget`), on what scale, and
    one row per option, best first (`number` in the legal-move list, `text`, `value`, `value_text`, and
    `visits` with `visit_share` in percent when the agent counts visits)."""

    budget: str
    scale: str
    rows: list[dict[str, Any]]


def hint_rows(agent: Agent, game: Game, state: State, seen: State, spec: str) -> Hint:
    """`agent`'s analysis of the decision in `state` (of `game`), searched on `seen` (the position as the mover may see
    it, see `seen_by`); `spec` names the agent when it does not describe its own budget."""
    entries = agent.analyse(seen)  # type: ignore[attr-defined]
    budget = getattr(agent, "analysis_budget", spec)
    scale = "your result, -1 loss to +1 win" if game.num_players > 1 else "your final score"
    number = {a: i for i, a in enumerate(state.legal_actions(), 1)}
    total_visits = sum(e.get("visits", 0) for e in entries)
    rows = []
    for e in entries:
        row: dict[str, Any] = {"action": int(e["action"]), "number": number[e["action"]], "text": e["text"],
                               "value": float(e["value"]), "value_text": _value_text(e)}
        if "visits" in e:
            row["visits"] = int(e["visits"])
            row["visit_share"] = 100 * e["visits"] / max(1, total_visits)
        rows.append(row)
    return Hint(str(budget), scale, rows)


@dataclass
class Undone:
    """The position before a seat's last move, and a sentence saying what was taken back."""

    state: State
    message: str


class UndoRefused(CavekitError):
    """An undo that would take back another person's move, or replay what chance or a hidden hand showed."""


def undo_last_move(game: Game, state: State, seat: int, people: Collection[int] = (),
                   hidden: bool = False) -> Undone | None:
    """The position just before `seat`'s last move (rebuilt from the record's prefix, so exactly the one the
    move was made in), or None if `seat` has not moved yet. Refused (`UndoRefused`) when a seat in `people`
    (other persons) moved after it, or when something after it showed `seat` what it could not know before:
    a chance outcome it saw, or (with `hidden` information) another seat's move it could tell apart. Taking
    such a move back would let the seat replay with knowledge of the deal or of another hand."""
    history = state.history()
    position = game.new_initial_state()
    movers = []
    revealed: list[str | None] = []     # per action: what it showed `seat` that it could not know, if anything
    for action in history:
        player = position.current_player()
        movers.append(player)
        showed = player != seat and (player == CHANCE or hidden) and visible_to(position, action, seat)
        revealed.append(position.action_to_string(action) if showed else None)
        position.apply_action(action)
    mine = [i for i, p in enumerate(movers) if p == seat]
    if not mine:
        return None
    last = mine[-1]
    rebuilt = replay(game, history[:last])
    move = rebuilt.action_to_string(history[last])
    person = next((p for p in movers[last + 1:] if p in people), None)
    if person is not None:
        raise UndoRefused(f"cannot take back your move {move}: player {person} has moved since, and an undo takes "
                          "back only your own moves and the AI's replies")
    for later in range(last + 1, len(history)):
        if revealed[later] is not None:
            what = "chance" if movers[later] == CHANCE else f"player {movers[later]}"
            raise UndoRefused(f"cannot take back your move {move}: {what} has since shown you {revealed[later]}, "
                              "and an undo may not replay what you have seen")
    after = movers[last + 1:]
    counts = {"AI action": sum(1 for p in after if p >= 0), "chance event": sum(1 for p in after if p == CHANCE)}
    also = " and ".join(f"{n} {what}{'s' if n > 1 else ''}" for what, n in counts.items() if n)
    return Undone(rebuilt, f"took back your move {move}" + (f" and the {also} after it" if also else ""))


def verdict(state: State, seat: int, other: str = "The AI") -> str:
    """Who won a finished game of two or more players, as `seat` reads it ("You win!", "A draw.")."""
    scores, returns = state.scores(), state.returns()
    best = max(returns)
    if returns.count(best) > 1:
        text = "A draw."
    elif returns[seat] == best:
        text = "You win!"
    else:
        text = f"{other} wins."
    if len(set(scores)) == 1 and returns.count(best) == 1:
        text += " (equal points: decided by the tie-break)"
    return text


def _left_aligned_table(frame: pd.DataFrame, column: str = "move") -> str:
    """The frame as text with `column` aligned left (pandas right-aligns text; moves read better left)."""
    width = int(frame[column].astype(str).str.len().max())
    return frame.to_string(index=False, justify="left", formatters={column: lambda value: f"{value:<{width}}"})


def _value_text(entry: dict[str, Any]) -> str:
    prefix = {"upper": "<=", "lower": ">="}.get(entry.get("bound", "exact"), "")
    return f"{prefix}{entry['value']:+.2f}"


def _rank_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What a hint ranks an option by (a `hint_rows` row): its value (and bound), and its visits for a sampling
    search."""
    return row["value"], row["value_text"], row.get("visits")


def _stats(entry: dict[str, Any], total_visits: int) -> str:
    parts = []
    if "visits" in entry and total_visits:
        parts.append(f"visits {100 * entry['visits'] / total_visits:.0f}%")
    parts.append(f"value {_value_text(entry)}")
    return ", ".join(parts)


def play(game: Game, ai_spec: str, seat: int = 0, seed: int | None = None, state: State | None = None,
         stdin: TextIO | None = None, stdout: TextIO | None = None) -> PlayResult:
    """Play `game` from `state` (default: the start) with a person at `seat` against the agent `ai_spec`."""
    return PlaySession(game, ai_spec, seat=seat, seed=seed, state=state, stdin=stdin, stdout=stdout).run()


def load_record(game: Game, path: str) -> State:
    """The position saved in the record file `path`; a missing or corrupt file raises a CavekitError."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CavekitError(f"cannot read the game record {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        return game.deserialize_state(text)
    except CorruptRecordError as e:
        # The record's own location (a line and column, a key) first; the file second, as a user has one open.
        raise CorruptRecordError(e.location, f"{e.problem} (in {path})") from None
