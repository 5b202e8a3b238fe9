"""Checks of the values a results folder's games and decisions tables hold, once loaded.

`results.load_results` checks that each chunk is there, is Parquet and has the listed columns and rows; but
Parquet columns are nullable, so a damaged or hand-edited chunk can hold a game with a null score or history,
which would surface far away as a NaN in a report or a traceback. `check_loaded` refuses such a folder with a
ResultsError naming the chunk file and the game (for reports, which must not silently drop games);
`row_problem` and `history_of` judge one stored game (for replays, which refuse that game only).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..core.api import as_action
from .decisions import COMMON_COLUMNS
from .results import ResultsError, games_schema, is_dealt


def required_game_columns(manifest: dict[str, Any]) -> list[str]:
    """The games-table columns every stored game has a value in (a game's outcome columns may be empty)."""
    return games_schema(manifest["players"], dealt=is_dealt(manifest)).names


def required_decision_columns() -> list[str]:
    """The decisions-table columns every stored decision has a value in (a game's own fields may be empty)."""
    return [name for name, _ in COMMON_COLUMNS]


def _chunk_of_row(manifest: dict[str, Any], position: int, rows_key: str, file_key: str) -> str:
    """The file of the chunk holding row `position` of a loaded table: chunks are loaded in game order, each
    with the rows the manifest lists (load_results checked those counts)."""
    end = 0
    for chunk in sorted(manifest["chunks"], key=lambda c: c["first_game"]):
        end += chunk[rows_key]
        if position < end:
            return chunk[file_key]
    return "?"


def _first_null(table: pd.DataFrame, columns: list[str]) -> tuple[int, str] | None:
    """The position of the first row with a null in one of `columns`, and that column."""
    present = [c for c in columns if c in table.columns]
    nulls = table[present].isna()
    rows = np.flatnonzero(nulls.any(axis=1).to_numpy())
    if len(rows) == 0:
        return None
    position = int(rows[0])
    return position, next(c for c in present if nulls[c].iat[position])


def check_loaded(folder: str | Path, manifest: dict[str, Any], games: pd.DataFrame,
                 decisions: pd.DataFrame | None = None) -> None:
    """Refuse loaded tables with a null where every game (or decision) has a value: a ResultsError naming the
    chunk file, the game and the column."""
    folder = Path(folder)
    tables = [(games, required_game_columns(manifest), "game_rows", "games_file", "game {}", "row {}", "game")]
    if decisions is not None:
        tables.append((decisions, required_decision_columns(), "decision_rows", "decisions_file",
                       "a decision of game {}", "decision row {}", "decision"))
    for table, columns, rows_key, file_key, named, numbered, kind in tables:
        found = _first_null(table, columns)
        if found is None:
            continue
        position, column = found
        chunk = _chunk_of_row(manifest, position, rows_key, file_key)
        which = named.format(int(table["game"].iat[position])) if column != "game" else numbered.format(position)
        raise ResultsError(folder / chunk, f"{which} has no {column} (null), which every stored {kind} has: the "
                                           "chunk is damaged")


def as_whole(value: Any) -> int | None:
    """`value` as an int if it is a whole number (an int, or a float such as 12.0 that a column with a null
    in it holds), else None (null, NaN, text, a fraction, true/false)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    whole = as_action(value)
    if whole is not None:
        return whole
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    return None


def _is_null(value: Any) -> bool:
    try:
        return value is None or bool(pd.isna(value))
    except (TypeError, ValueError):     # a list or an array: not a null
        return False


def history_of(value: Any) -> list[int]:
    """A stored `history` value as a list of action ids; ValueError saying what is wrong with it."""
    if _is_null(value):
        raise ValueError("it has no history (null)")
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.ndim == 1:
        return value.tolist()
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise ValueError(f"its history should be a list of action numbers, not {type(value).__name__}")
    history = []
    for k, action in enumerate(value):
        whole = as_whole(action)
        if whole is None:
            raise ValueError(f"history[{k}] is {str(action)[:40]!r}, not an action number")
        history.append(whole)
    return history


def row_problem(row: Mapping[str, Any], players: int) -> str | None:
    """What keeps one stored game (a games-table row as a dict) from being listed and replayed, or None:
    a null or non-integer game number, score, winner or length, an agent that is not text, a bad history.
    (Whether the history's actions are legal is found by replaying it.)"""
    for column in ["game", *(f"score_{p}" for p in range(players)), "winner", "length"]:
        if column not in row:
            return f"it has no {column} column"
        if as_whole(row[column]) is None:
            return f"its {column} is {'null' if _is_null(row[column]) else repr(row[column])[:40]}, not a whole number"
    for p in range(players):
        if not isinstance(row.get(f"agent_{p}"), str):
            return f"its agent_{p} is {'null' if _is_null(row.get(f'agent_{p}')) else 'not text'}"
    try:
        history_of(row.get("history"))
    except ValueError as e:
        return str(e)
    return None
