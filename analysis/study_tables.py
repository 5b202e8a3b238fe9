"""A study folder's tables: each a Parquet file in `<study>/tables/`, which notebooks and reports read back.

A game's study command plays its raw runs into `<study>/runs/` and keeps what it found as small tables; a saved
full-scale study keeps only these. Reading refuses a missing or damaged
table with its location and the command that makes the folder. A study folder names its game in
`<study>/study.json`, so that `cavekit report` can find the game's study report (`study_report_sections`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..core.records import JSONTextError, parse_json
from .results import ResultsError


STUDY_FILE = "study.json"
STUDY_FORMAT = "cavekit-study"


def write_study_file(study: str | Path, game: str) -> None:
    """Mark `study` as a study folder of `game` (`study.json`)."""
    path = Path(study) / STUDY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": STUDY_FORMAT, "version": 1, "game": game}, indent=2) + "\n",
                    encoding="utf-8")


def is_study_folder(folder: Path) -> bool:
    """Whether `folder` was written by a game's study command (it has study.json)."""
    return (folder / STUDY_FILE).is_file()


def study_game(folder: str | Path) -> str | None:
    """The game of the study folder `folder`, or None if it is not one (no study.json); a damaged study.json
    is refused with its location."""
    path = Path(folder) / STUDY_FILE
    if not path.is_file():
        return None
    try:
        # (parse_json: hostile JSON, such as nesting 100000 deep, is refused with a location, not a traceback)
        marker = parse_json(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise ResultsError(path, f"corrupt study file (not UTF-8 text at byte {error.start})") from None
    except JSONTextError as error:
        raise ResultsError(path, f"corrupt study file ({error.location}: {error.problem})") from None
    if not isinstance(marker, dict) or marker.get("format") != STUDY_FORMAT or not isinstance(marker.get("game"), str):
        raise ResultsError(path, f'corrupt study file (needs "format": "{STUDY_FORMAT}" and the "game")')
    return marker["game"]


def save_tables(tables: dict[str, pd.DataFrame], folder: str | Path) -> None:
    """Write each table as `<name>.parquet` in `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        table.to_parquet(folder / f"{name}.parquet", index=False)


def read_tables(study: str | Path, names: Sequence[str], made_by: str) -> dict[str, pd.DataFrame]:
    """The tables `names` of the study folder `study` (`study/tables/<name>.parquet`); a missing or unreadable
    one is refused with its path, saying that `made_by` (a command) makes such a folder."""
    tables = {}
    for name in names:
        path = Path(study) / "tables" / f"{name}.parquet"
        if not path.is_file():
            raise ResultsError(path, f"missing: not a folder made by `{made_by}`")
        try:
            tables[name] = pd.read_parquet(path)
        except Exception as error:  # pyarrow raises several kinds for a damaged file
            raise ResultsError(path, f"not a readable Parquet table ({error})") from None
    return tables


def estimate_text(value: float, low: float, high: float, digits: int = 3) -> str:
    """An estimate with its interval for a summary table: `0.512 [0.480, 0.544]` (the value alone without one)."""
    if np.isnan(low):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
