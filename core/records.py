"""Game records every engine shares: a versioned JSON object of parameters, full history and position.

`serialize()` writes `{"format", "version", "params", "history", "state"}`; `read_record` turns such text back
into a state by replaying the history on a fresh state and checking that it leads to the recorded position.
Anything wrong is a CorruptRecordError that says where: a line and column of bad JSON, a missing or foreign
key, `history[i]` for a move that is not legal there, `state.<key>` for a position that does not match.
Records come from files and web requests, so `parse_json` reads them (and results manifests) without letting
hostile JSON through as another exception: nesting too deep for Python's parser, integers too long for
`int()`, NaN or infinite numbers all become a JSONTextError with a line and column.
"""
from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Callable

from .api import CorruptRecordError, IllegalActionError, as_action

# Records nest 5 levels at most, manifests 3; the limit keeps every reader of parsed JSON (comparisons,
# repr in messages) far from Python's recursion limit, which a document of "[" * 100000 would reach.
MAX_JSON_DEPTH = 64
SHOWN_LIMIT = 120           # characters of a recorded value quoted in a message

# A JSON string (escapes included) or a bracket: brackets inside strings are not nesting.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
# A JSON string or a number-like token (NaN and Infinity too, which Python's json module reads).
_STRING_OR_NUMBER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:NaN|Infinity|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')


class JSONTextError(ValueError):
    """Text that is not JSON cavekit reads: `location` says where (a line and column), `problem` what is wrong."""

    def __init__(self, location: str, problem: str):
        self.location = location
        self.problem = problem
        super().__init__(f"{location}: {problem}")


def _line_column(text: str, position: int) -> str:
    """A position of `text` as json's own messages give it (both counted from 1)."""
    return f"line {text.count(chr(10), 0, position) + 1} column {position - text.rfind(chr(10), 0, position)}"


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):        # 1e400 reads as inf
        raise ValueError(text)
    return value


def _number_problem(text: str) -> JSONTextError:
    """Where `text` holds the number json could not read: an integer of more digits than Python converts to
    an int, or a number that is not finite."""
    digits = sys.get_int_max_str_digits()
    for match in _STRING_OR_NUMBER.finditer(text):
        token = match.group()
        if token.startswith('"'):
            continue
        where = _line_column(text, match.start())
        if token.lstrip("-") in ("NaN", "Infinity"):
            return JSONTextError(where, f"{token} is not a number cavekit reads: numbers must be finite")
        if "." not in token and "e" not in token.lower():
            if digits and len(token.lstrip("-")) > digits:
                return JSONTextError(where, f"an integer of {len(token.lstrip('-'))} digits; at most {digits} "
                                            "digits are read")
        elif not math.isfinite(float(token)):
            return JSONTextError(where, f"{_brief(token)} is too large: numbers must be finite")
    return JSONTextError("top level", "a number that cannot be read")


def parse_json(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`text` parsed as JSON, for documents from outside (records, manifests): JSONTextError, a ValueError with
    a line and column, for anything not read, including nesting deeper than `max_depth`, integers too long
    for Python and numbers that are not finite (NaN, Infinity, 1e400), never RecursionError or another error."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise JSONTextError(f"byte {e.start}", "not UTF-8 text") from None
    if not isinstance(text, str):
        raise JSONTextError("top level", f"expected JSON text, not {type(text).__name__}")
    # Measured before parsing: json's parser recurses once per level, so deep nesting must never reach it.
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            depth += 1
            if depth > max_depth:
                raise JSONTextError(_line_column(text, match.start()),
                                    f"nested more than {max_depth} levels deep; cavekit's files nest a few levels")
        elif token == "]" or token == "}":
            depth -= 1
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise JSONTextError(f"line {e.lineno} column {e.colno}", f"not JSON ({e.msg})") from None
    except RecursionError:          # (the depth check above should make this unreachable)
        raise JSONTextError("top level", "nested too deeply") from None
    except ValueError:              # from int() beyond its digit limit, or from the two hooks above
        raise _number_problem(text) from None


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's words (for messages: "an array", "null")."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a number")


def _brief(text: str, limit: int = SHOWN_LIMIT) -> str:
    """`text`, cut to `limit` characters, so that a hostile value cannot flood a one-line message."""
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _shown(value: Any) -> str:
    """A recorded value as a message quotes it: its repr, cut short."""
    return _brief(repr(value))


def write_record(record_format: str, version: int, params: dict[str, Any], history: list[int],
                 state: dict[str, Any]) -> str:
    """The record text of a position (compact JSON)."""
    return json.dumps({"format": record_format, "version": version, "params": params, "history": history,
                       "state": state}, separators=(",", ":"))


def read_record(text: str, record_format: str, version: int, title: str, params: dict[str, Any],
                new_state: Callable[[], Any]) -> Any:
    """Rebuild the state recorded in `text`: `title` names the game in messages, `params` are the game's
    parameters (the record's must equal them), `new_state()` makes the starting state to replay on."""
    try:
        record = parse_json(text)
    except JSONTextError as e:
        raise CorruptRecordError(e.location, e.problem) from None
    if not isinstance(record, dict):
        raise CorruptRecordError("top level", f"a record is a JSON object, not {json_kind(record)}")
    for key in ("format", "version", "params", "history"):
        if key not in record:
            raise CorruptRecordError(key, "missing")
    if record["format"] != record_format:
        raise CorruptRecordError("format", f"{_shown(record['format'])} is not a {title} record "
                                           f"(expected {record_format!r})")
    if isinstance(record["version"], bool) or record["version"] != version:
        raise CorruptRecordError("version", f"version {_shown(record['version'])}; this cavekit reads {version}")
    if not isinstance(record["params"], dict):
        raise CorruptRecordError("params", "must be a JSON object of game parameters")
    if "state" in record and not isinstance(record["state"], dict):
        raise CorruptRecordError("state", "must be a JSON object (the position)")
    if record["params"] != params:
        diff = sorted(k for k in set(record["params"]) | set(params) if record["params"].get(k) != params.get(k))
        raise CorruptRecordError("params", f"the record's parameters differ from this game's in {', '.join(diff)}")
    if not isinstance(record["history"], list):
        raise CorruptRecordError("history", "must be a list of action numbers")
    state = new_state()
    for i, action in enumerate(record["history"]):
        if as_action(action) is None:
            raise CorruptRecordError(f"history[{i}]", f"{_shown(action)} is not an action number (an integer)")
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            raise CorruptRecordError(f"history[{i}]", _brief(str(e), 4 * SHOWN_LIMIT)) from None
    if "state" in record:
        replayed = state.to_dict()
        for key in sorted(set(replayed) | set(record["state"])):
            where = f"state.{_brief(key)}"
            if key not in replayed:
                raise CorruptRecordError(where, f"not a field of the position (recorded "
                                         f"{_shown(record['state'][key])}); fields: {', '.join(sorted(replayed))}")
            if key not in record["state"]:
                raise CorruptRecordError(where, f"missing; the history leads to {_shown(replayed[key])}")
            if record["state"][key] != replayed[key]:
                raise CorruptRecordError(where, f"recorded {_shown(record['state'][key])}, "
                                         f"but the history leads to {_shown(replayed[key])}")
    return state


class RecordedState:
    """Records, equality and pickling for a game's states, from their `to_dict()` and `history()`.

    A game's state mixin sets `record_format` and `record_version`; a state pickles as its record and is
    rebuilt by replaying it in a game loaded by name from the registry.
    """

    _game: Any
    record_format: str
    record_version: int

    @property
    def game(self) -> Any:
        """The game (with its parameters) this state belongs to."""
        return self._game

    def serialize(self) -> str:
        """A versioned JSON record: game parameters, full history, and the position it leads to."""
        return write_record(self.record_format, self.record_version, self._game.parameters(),
                            self.history(), self.to_dict())  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RecordedState) and self._game.name == other._game.name \
            and self._game.parameters() == other._game.parameters() \
            and self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (restore_state, (self._game.name, self._game.parameters(), self._game.engine, self.serialize()))


def restore_state(game_name: str, params: dict[str, Any], engine: str, record: str) -> Any:
    """The state a pickled `RecordedState` stood for: its record replayed in the named game."""
    from .registry import load_game
    return load_game(game_name, engine=engine, **params).deserialize_state(record)
