"""Game records every engine shares: a versioned JSON object of parameters, full history and position.

`serialize()` writes `{"format", "version", "params", "history", "state"}`; `read_record` turns such text back
into a state by replaying the history on a fresh state and checking that it leads to the recorded position.
Anything wrong is a CorruptRecordError that says where: a line and column of bad JSON, a missing or foreign
key, `history[i]` for a move that is not legal there, `state.<key>` for a position that does not match.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from .api import CorruptRecordError, IllegalActionError


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
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise CorruptRecordError(f"line {e.lineno} column {e.colno}", f"not JSON ({e.msg})") from None
    if not isinstance(record, dict):
        raise CorruptRecordError("top level", "a record is a JSON object")
    for key in ("format", "version", "params", "history"):
        if key not in record:
            raise CorruptRecordError(key, "missing")
    if record["format"] != record_format:
        raise CorruptRecordError("format", f"{record['format']!r} is not a {title} record")
    if record["version"] != version:
        raise CorruptRecordError("version", f"version {record['version']!r}; this cavekit reads {version}")
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
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            raise CorruptRecordError(f"history[{i}]", str(e)) from None
    if "state" in record:
        replayed = state.to_dict()
        for key in sorted(set(replayed) | set(record["state"])):
            if key not in replayed:
                raise CorruptRecordError(f"state.{key}", f"not a field of the position (recorded "
                                         f"{record['state'][key]!r}); fields: {', '.join(sorted(replayed))}")
            if key not in record["state"]:
                raise CorruptRecordError(f"state.{key}", f"missing; the history leads to {replayed[key]!r}")
            if record["state"][key] != replayed[key]:
                raise CorruptRecordError(f"state.{key}", f"recorded {record['state'][key]!r}, "
                                         f"but the history leads to {replayed[key]!r}")
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
