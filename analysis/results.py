"""The results folder: a manifest plus Parquet chunks, written crash-safely so interrupted runs resume.

A results folder holds
- `manifest.json`: format "cavekit-results", version 1, the run (game, its parameters, agent specs, master
  seed, games requested, chunk size), the code version, timestamps, and one entry per stored chunk (its
  file names, the consecutive game indices it holds, its row counts);
- `games-NNNNN.parquet`: one row per game of chunk NNNNN, with the game's deal (`deal`, its index in the run,
  and `deal_seed`) and its whole `history` (action ids, chance outcomes included), from which it replays; the
  manifest names the game's `deal_scheme` and whether the run is `duplicate` (a folder written before deals
  has neither, nor those columns); games with outcome fields (`analysis/outcomes.py`) add their columns,
  which the manifest lists as `outcome_columns` (a folder written before a game had them lists none and still
  loads without them);
- `decisions-NNNNN.parquet`: one row per player decision of those games (see `analysis/decisions.py`); the
  manifest lists their columns as `decision_columns`, so a folder written before a game gained decision
  columns still loads (and resumes) with the columns it has; a folder without the key has the current ones.

The run is planned in chunks of `chunk_size` games: chunk k, for k below the planned number of chunks, holds
games k*chunk_size onwards, all of them. A chunk cut short (by its time bound, so that a killed run loses
little play, or by Ctrl-C, so that it loses no finished game) holds the consecutive games its entry lists and
is numbered from the planned number of chunks on; the games it did not reach are played into chunks of their
own. Whatever the chunks, every game of the run is stored at most once, and the run is complete when all are.

A chunk is written to a hidden temporary file, flushed to disk and renamed into place, and only then listed
in the manifest, which is itself replaced atomically; so after a crash at any moment the manifest lists
exactly the chunks that are complete on disk, and anything else is debris that resuming removes. Chunks are
written with Parquet page checksums, and every read decodes them whole, so a chunk damaged on disk is refused
(naming its file) rather than read as other games; a chunk file must lie inside its folder (a link leading
out of it is refused).
pandas reads a folder with `load_results(folder)`; DuckDB with `SELECT ... FROM 'folder/games-*.parquet'`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..core.api import CavekitError
from .decisions import decisions_schema
from .outcomes import outcome_columns

FORMAT = "cavekit-results"
VERSION = 1
MANIFEST = "manifest.json"
LOCK = ".cavekit-results.lock"
SET_ASIDE = "set-aside"     # where `--repair` moves damaged chunks
CHUNK_FILE = re.compile(r"^(games|decisions)-(\d{5,})\.parquet$")
TEMP_FILE = re.compile(r"^\..+\.tmp$")


class ResultsError(CavekitError):
    """A results folder that cannot be used: `location` names the file (or folder) and `problem` says why."""

    def __init__(self, location: str | Path, problem: str):
        self.location = str(location)
        self.problem = problem
        super().__init__(f"results folder problem in {self.location}: {problem}")


def games_schema(players: int, game: str | None = None, dealt: bool = True) -> pa.Schema:
    """The Arrow schema of the one-row-per-game table for `players` seats, plus `game`'s outcome columns if
    given; `dealt=False` is the table of a folder written before deals (no deal or history columns)."""
    fields = [("game", pa.int64())]
    if dealt:
        fields += [("deal", pa.int64()), ("deal_seed", pa.int64())]
    for p in range(players):
        fields += [(f"agent_{p}", pa.string()), (f"score_{p}", pa.int64()), (f"return_{p}", pa.float64())]
    fields += [("winner", pa.int64()),          # seat with the strictly best return; -1 for a draw or solo
               ("first_player", pa.int64()), ("length", pa.int64()), ("decisions", pa.int64()),
               ("seconds", pa.float64())]
    if dealt:
        fields += [("history", pa.list_(pa.int32()))]
    if game is not None:
        fields += outcome_columns(game, players)
    return pa.schema(fields)


def is_dealt(manifest: dict[str, Any]) -> bool:
    """Whether a folder's games were played on deals (folders from before deals were not)."""
    return manifest.get("deal_scheme") is not None


def folder_games_schema(manifest: dict[str, Any], location: str | Path = MANIFEST) -> pa.Schema:
    """The games schema a results folder's chunks have: the common columns plus the outcome columns it lists."""
    listed = manifest.get("outcome_columns", [])
    dealt = is_dealt(manifest)
    base = games_schema(manifest["players"], dealt=dealt)
    if not listed:
        return base
    full = games_schema(manifest["players"], manifest["game"], dealt=dealt)
    known = full.names[len(base.names):]
    if list(listed) != known:
        raise ResultsError(location, f"lists outcome columns {listed}, but this cavekit knows "
                                     f"{known or 'none'} for {manifest['game']!r} with {manifest['players']} players")
    return full


def folder_decisions_schema(manifest: dict[str, Any], location: str | Path = MANIFEST) -> pa.Schema:
    """The decisions schema a results folder's chunks have: the columns it lists (all of today's if none)."""
    full = decisions_schema(manifest["game"])
    listed = manifest.get("decision_columns")
    if listed is None or list(listed) == full.names:
        return full
    unknown = [c for c in listed if c not in full.names]
    if unknown:
        raise ResultsError(location, f"lists decision columns {unknown} that this cavekit does not know for "
                                     f"{manifest['game']!r} (it knows {full.names})")
    return pa.schema([full.field(c) for c in listed])


def chunk_file_names(index: int) -> tuple[str, str]:
    """The games and decisions file names of chunk `index`."""
    return f"games-{index:05d}.parquet", f"decisions-{index:05d}.parquet"


def code_version() -> dict[str, Any]:
    """The installed cavekit version and, when the source is a git checkout, its commit and dirtiness."""
    try:
        version = metadata.version("cavekit")
    except metadata.PackageNotFoundError:
        version = None
    source = Path(__file__).resolve().parent.parent
    commit = dirty = None
    # Only a checkout's own repository: installed from a wheel or sdist, `source` is site-packages/cavekit, and
    # a repository around it (a virtual environment inside some checkout) would not be cavekit's.
    try:
        if (source / ".git").exists():
            commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True,
                                    timeout=10, check=True).stdout.strip() or None
            status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=source,
                                    capture_output=True, text=True, timeout=10, check=True).stdout
            dirty = bool(status.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return {"cavekit": version, "git_commit": commit, "git_dirty": dirty}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class RunSpec:
    """What defines a run: resuming is allowed only into a folder whose manifest has the same values."""

    game: str
    params: dict[str, Any]
    agents: list[str]
    seed: int
    games: int
    chunk_size: int
    duplicate: bool = False             # every deal played with every seat assignment
    deal_scheme: int | None = None      # the game's deal scheme; None: a folder from before deals
    # per agent, the fingerprint of the data it plays with by option (search.agent.agent_data); None: a folder
    # from before they were recorded, whose games cannot be checked against today's data
    agent_data: list[dict[str, str]] | None = None

    # Compared in this order, so the first difference a user sees is the most basic one.
    # The chunk size is not among them: the games do not depend on it, so a resume keeps the folder's.
    IDENTITY = ("game", "params", "agents", "seed", "duplicate", "deal_scheme", "games")

    @property
    def num_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    def chunk_range(self, index: int) -> range:
        """The game indices chunk `index` holds."""
        start = index * self.chunk_size
        return range(start, min(start + self.chunk_size, self.games))


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return          # platforms without directory handles
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that `path` is either its old content or all of `data`, even after a crash."""
    temp = path.with_name(f".{path.name}.tmp")
    with open(temp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
    _fsync_dir(path.parent)


def _check_type(location: Path, where: str, value: Any, kind: type | tuple[type, ...], what: str) -> None:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ResultsError(location, f"{where} should be {what}, found {value!r}")


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a results folder, checked for format, version, fields and chunk entries."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ResultsError(folder, "no such folder")
    if not path.is_file():
        raise ResultsError(path, "missing: this is not a cavekit results folder (it has no manifest.json)")
    from ..core.records import JSONTextError, json_kind, parse_json
    from ..core.registry import game_names
    try:
        # parse_json, not json.loads: a hostile manifest (nested 100000 deep, an integer of 5000 digits, NaN)
        # must be refused with a location, not raise RecursionError or ValueError, nor put NaN in a report.
        manifest = parse_json(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ResultsError(path, f"not valid JSON (not UTF-8 text at byte {e.start})") from None
    except OSError as e:
        raise ResultsError(path, f"cannot be read ({e.strerror or e})") from None
    except JSONTextError as e:
        raise ResultsError(path, f"not valid JSON ({e.location}: {e.problem})") from None
    if not isinstance(manifest, dict):
        raise ResultsError(path, f"the manifest should be a JSON object, not {json_kind(manifest)}")

    def shown(value: Any) -> str:
        # A manifest value quoted in a message, cut short: a hostile one could be megabytes long.
        text = repr(value)
        return text if len(text) <= 80 else text[:80] + "..."
    if manifest.get("format") != FORMAT:
        raise ResultsError(path, f"format is {manifest.get('format')!r}, expected {FORMAT!r}: not a cavekit "
                             "results folder")
    if manifest.get("version") != VERSION:
        raise ResultsError(path, f"version {manifest.get('version')!r} is not supported; this cavekit reads "
                             f"version {VERSION}")
    expected = {"game": (str, "a game name"), "params": (dict, "an object of game parameters"),
                "players": (int, "a player count"), "agents": (list, "a list of agent specs"),
                "seed": (int, "an integer"), "games": (int, "a number of games"),
                "chunk_size": (int, "a positive integer"), "chunks": (list, "a list of chunk entries")}
    for key, (kind, what) in expected.items():
        if key not in manifest:
            raise ResultsError(path, f"field {key!r} is missing")
        _check_type(path, f"field {key!r}", manifest[key], kind, what)
    if manifest["chunk_size"] < 1 or manifest["games"] < 1:
        raise ResultsError(path, "games and chunk_size must be at least 1")
    # Game numbers are int64 in the chunks; a larger count would also overflow len() of a chunk's range.
    if manifest["chunk_size"] >= 2 ** 63 or manifest["games"] >= 2 ** 63:
        raise ResultsError(path, "games and chunk_size must be less than 2**63")
    if manifest["game"] not in game_names():
        raise ResultsError(path, f"field 'game' is {shown(manifest['game'])}, a game this cavekit does not know "
                                 f"(it knows {', '.join(game_names())})")
    # The games table has columns per seat, so a wild player count would make a schema of millions of columns.
    if not 1 <= manifest["players"] <= 100:
        raise ResultsError(path, f"field 'players' is {manifest['players']}; a player count is from 1 to 100")
    if "players" in manifest["params"] and manifest["params"]["players"] != manifest["players"]:
        raise ResultsError(path, f"params.players is {shown(manifest['params']['players'])} but field 'players' "
                                 f"is {manifest['players']}; they must agree")
    if not all(isinstance(a, str) for a in manifest["agents"]):
        raise ResultsError(path, "field 'agents' should list agent spec strings")
    # Optional fields that reports, replays and resumes read: wrong types would surface later as tracebacks.
    engine = manifest.get("engine")
    if engine is not None and not (isinstance(engine, str) and engine):
        raise ResultsError(path, f"field 'engine' should be an engine name (text) or null, found {shown(engine)}")
    version = manifest.get("code_version")
    if version is not None:
        kinds = {"cavekit": (str, "text or null"), "git_commit": (str, "text or null"),
                 "git_dirty": (bool, "true, false or null")}
        if not isinstance(version, dict):
            raise ResultsError(path, "field 'code_version' should be an object (cavekit, git_commit, git_dirty) "
                                     f"or null, found {shown(version)}")
        for key, (kind, what) in kinds.items():
            value = version.get(key)
            if value is not None and not isinstance(value, kind):
                raise ResultsError(path, f"code_version.{key} should be {what}, found {shown(value)}")
    for key in ("created", "updated"):
        if manifest.get(key) is not None and not isinstance(manifest[key], str):
            raise ResultsError(path, f"field {key!r} should be a date and time (text), found {shown(manifest[key])}")
    if "games_done" in manifest:
        _check_type(path, "field 'games_done'", manifest["games_done"], int, "a number of games")
    if "complete" in manifest:
        _check_type(path, "field 'complete'", manifest["complete"], bool, "true or false")
    resumed = manifest.get("resumed", [])
    if not isinstance(resumed, list) or not all(isinstance(r, dict) for r in resumed):
        raise ResultsError(path, f"field 'resumed' should list objects (one per resume), found {shown(resumed)}")
    if manifest.get("deal_scheme") is not None:
        _check_type(path, "field 'deal_scheme'", manifest["deal_scheme"], int, "an integer")
    _check_type(path, "field 'duplicate'", manifest.get("duplicate", False), bool, "true or false")
    agent_data = manifest.get("agent_data")
    if agent_data is not None and not (
            isinstance(agent_data, list) and len(agent_data) == len(manifest["agents"])
            and all(isinstance(d, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in d.items())
                    for d in agent_data)):
        raise ResultsError(path, "field 'agent_data' should hold, for each agent, an object of data fingerprints "
                                 "by option name")
    outcomes = manifest.get("outcome_columns", [])
    if not isinstance(outcomes, list) or not all(isinstance(c, str) for c in outcomes):
        raise ResultsError(path, f"field 'outcome_columns' should list column names, found {outcomes!r}")
    folder_games_schema(manifest, path)
    if "decision_columns" not in manifest and manifest["chunks"]:
        # Folders written before manifests listed the decision columns hold the columns of their day, which
        # may be fewer than today's: read them from the first chunk, so resuming writes the same columns.
        manifest["decision_columns"] = _chunk_decision_columns(folder, manifest["chunks"][0])
    decisions = manifest.get("decision_columns", [])
    if not isinstance(decisions, list) or not all(isinstance(c, str) for c in decisions):
        raise ResultsError(path, f"field 'decision_columns' should list column names, found {decisions!r}")
    folder_decisions_schema(manifest, path)
    spec = run_spec_of(manifest)
    seen: set[int] = set()
    for n, chunk in enumerate(manifest["chunks"]):
        where = f"chunks[{n}]"
        if not isinstance(chunk, dict):
            raise ResultsError(path, f"{where} should be an object")
        for key in ("index", "first_game", "last_game", "game_rows", "decision_rows"):
            _check_type(path, f"{where}.{key}", chunk.get(key), int, "an integer")
        index = chunk["index"]
        if index < 0 or index in seen:
            raise ResultsError(path, f"{where}.index {index} is negative or listed twice (each chunk has a number "
                                 "of its own, from 0)")
        seen.add(index)
        names = chunk_file_names(index)
        if (chunk.get("games_file"), chunk.get("decisions_file")) != names:
            raise ResultsError(path, f"{where} should name the files {names[0]} and {names[1]}")
        held = (chunk["first_game"], chunk["last_game"], chunk["game_rows"])
        if index < spec.num_chunks:
            games = spec.chunk_range(index)
            if held != (games[0], games[-1], len(games)):
                raise ResultsError(path, f"{where} should hold games {games[0]} to {games[-1]} ({len(games)} rows) "
                                     f"with chunk size {spec.chunk_size}")
        elif not 0 <= held[0] <= held[1] < spec.games or held[2] != held[1] - held[0] + 1:
            # a chunk cut short: any consecutive games of the run
            raise ResultsError(path, f"{where} should hold consecutive games between 0 and {spec.games - 1}, its "
                                 f"game_rows counting them; it lists games {held[0]} to {held[1]} in {held[2]} rows")
    previous = None
    for chunk in sorted(manifest["chunks"], key=lambda c: c["first_game"]):
        if previous is not None and chunk["first_game"] <= previous["last_game"]:
            raise ResultsError(path, f"chunks {previous['index']} and {chunk['index']} both list game "
                                 f"{chunk['first_game']}; a game is stored once")
        previous = chunk
    return manifest


def _chunk_decision_columns(folder: Path, chunk: Any) -> list[str]:
    """The column names of a listed chunk's decisions file (an older manifest lists none)."""
    name = chunk.get("decisions_file") if isinstance(chunk, dict) else None
    if not isinstance(name, str) or not CHUNK_FILE.match(name):
        raise ResultsError(folder / MANIFEST, "chunks[0] should name its decisions file")
    path = _chunk_file(folder, name)
    try:
        with open(path, "rb") as f:
            return list(pq.read_metadata(f).schema.to_arrow_schema().names)
    except FileNotFoundError:
        raise ResultsError(path, f"missing, but {MANIFEST} lists it (chunk 0)") from None
    except (OSError, ValueError, pa.ArrowException) as e:
        raise ResultsError(path, f"not a readable Parquet file ({_one_line(e, path)})") from None


def run_spec_of(manifest: dict[str, Any]) -> RunSpec:
    """The run a manifest describes."""
    return RunSpec(game=manifest["game"], params=manifest["params"], agents=list(manifest["agents"]),
                   seed=manifest["seed"], games=manifest["games"], chunk_size=manifest["chunk_size"],
                   duplicate=manifest.get("duplicate", False), deal_scheme=manifest.get("deal_scheme"),
                   agent_data=manifest.get("agent_data"))


def _one_line(error: BaseException, path: Path) -> str:
    """What a failed read says, on one line (pyarrow's messages span several) and naming the file as the
    results folder does, never by the absolute path it may have been opened with."""
    text = " ".join(str(error).split()) or type(error).__name__
    for spelling in sorted({os.path.realpath(path), os.path.abspath(path), str(path)}, key=len, reverse=True):
        text = text.replace(spelling, path.name)
    return text


def _chunk_file(folder: Path, name: str) -> Path:
    """The path of chunk file `name` of `folder`, refused if it is a link that leads out of the folder: a chunk
    lies inside its folder, so that reading a folder (as `cavekit serve` does) reads nothing else."""
    path = folder / name
    if not path.is_symlink():
        return path
    try:
        target = path.resolve(strict=True)
        inside = target.is_relative_to(folder.resolve(strict=True))
    except FileNotFoundError:
        return path         # a link to nothing: the reader reports the chunk missing
    except (OSError, RuntimeError):         # a loop of links (RuntimeError up to Python 3.12)
        raise ResultsError(path, "is a link that cannot be followed (a loop of links); a chunk must be a file "
                                 "inside its results folder") from None
    if not inside:
        raise ResultsError(path, "is a link to a file outside the results folder; a chunk must be a file inside "
                                 "its results folder")
    return path


def _read_chunk_file(folder: Path, chunk: dict[str, Any], key: str, schema: pa.Schema,
                     decode: bool = True) -> pa.Table | None:
    """One listed chunk file, checked: it is a file inside the folder, Parquet with `schema`'s columns and the
    listed row count and, with `decode`, readable whole (every page's checksum verified where it has one) and
    holding the games its entry lists. Any problem is a ResultsError naming the file. None without `decode`."""
    name = chunk[key]
    path = _chunk_file(folder, name)
    if not path.is_file():
        if path.exists():
            raise ResultsError(path, "is not a regular file; a chunk is a Parquet file")
        raise ResultsError(path, f"missing, but {MANIFEST} lists it (chunk {chunk['index']})")
    listed = chunk["game_rows" if key == "games_file" else "decision_rows"]
    try:
        with open(path, "rb") as f:
            # Read from memory, so that what pyarrow says names no path (its messages may name the source).
            source = pa.BufferReader(f.read()) if decode else f
            parquet = pq.ParquetFile(source, page_checksum_verification=True)
            columns = parquet.schema_arrow.names
            rows = parquet.metadata.num_rows
            table = parquet.read() if decode and columns == schema.names and rows == listed else None
    except (OSError, ValueError, pa.ArrowException) as e:
        # whatever the damage: a cut-off file, a mangled footer, a page that does not decode or whose checksum
        # fails (OSError, ArrowInvalid, UnicodeDecodeError, ...)
        raise ResultsError(path, f"not a readable Parquet file ({_one_line(e, path)})") from None
    if columns != schema.names:
        raise ResultsError(path, f"has columns {columns}, expected {schema.names}")
    if rows != listed:
        raise ResultsError(path, f"has {rows} rows but {MANIFEST} lists {listed}")
    if table is None:
        return None
    try:
        table = table.cast(schema)
    except (ValueError, pa.ArrowException) as e:
        raise ResultsError(path, f"has columns of other types than this folder's ({_one_line(e, path)})") from None
    games = table.column("game")
    first, last = chunk["first_game"], chunk["last_game"]
    if key == "games_file":
        if games.to_pylist() != list(range(first, last + 1)):
            raise ResultsError(path, f"holds games {games.to_pylist()[:3]}... but {MANIFEST} lists games "
                                     f"{first} to {last}")
        return table
    low, high = pc.min(games).as_py(), pc.max(games).as_py()        # (None if every row's game is null)
    if low is not None and not first <= low <= high <= last:
        raise ResultsError(path, f"holds decisions of games {low} to {high}, but {MANIFEST} lists games "
                                 f"{first} to {last}")
    return table


def _chunk_problem(folder: Path, manifest: dict[str, Any], chunk: dict[str, Any]) -> ResultsError | None:
    """What is wrong with one listed chunk's files (a link out of the folder, missing, unreadable to the last
    page, other columns, rows or games than listed), if anything."""
    try:
        _read_chunk_file(folder, chunk, "games_file", folder_games_schema(manifest))
        _read_chunk_file(folder, chunk, "decisions_file", folder_decisions_schema(manifest))
    except ResultsError as problem:
        return problem
    return None


def _check_chunk_files(folder: Path, manifest: dict[str, Any]) -> None:
    """Every listed chunk file exists inside the folder, is Parquet with the expected columns, and has the listed
    row count (its pages are decoded when it is read)."""
    for chunk in manifest["chunks"]:
        _read_chunk_file(folder, chunk, "games_file", folder_games_schema(manifest), decode=False)
        _read_chunk_file(folder, chunk, "decisions_file", folder_decisions_schema(manifest), decode=False)


def _read_chunks(folder: Path, manifest: dict[str, Any], key: str, schema: pa.Schema) -> pa.Table:
    """One kind of chunk file (`key`: games_file or decisions_file) of every listed chunk, decoded and checked,
    in game order."""
    tables = [_read_chunk_file(folder, chunk, key, schema)
              for chunk in sorted(manifest["chunks"], key=lambda c: c["first_game"])]
    return pa.concat_tables(tables) if tables else schema.empty_table()


def load_games(folder: str | Path) -> pd.DataFrame:
    """The one-row-per-game table of a results folder (finished chunks only), in game order."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    _check_chunk_files(folder, manifest)
    return _read_chunks(folder, manifest, "games_file", folder_games_schema(manifest)).to_pandas()


def load_results(folder: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The games and decisions tables of a results folder (finished chunks only), in game order."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    _check_chunk_files(folder, manifest)
    games = _read_chunks(folder, manifest, "games_file", folder_games_schema(manifest))
    decisions = _read_chunks(folder, manifest, "decisions_file", folder_decisions_schema(manifest))
    return games.to_pandas(), decisions.to_pandas()


class ResultsWriter:
    """Writes one run's chunks into a results folder, creating it or resuming the run it already holds.

    Use as a context manager: it holds an exclusive lock on the folder (released by the OS if the
    process dies) so two runs never write into the same folder at once.
    """

    def __init__(self, folder: str | Path, spec: RunSpec, players: int, engine: str | None = None,
                 repair: bool = False):
        self.folder = Path(folder)
        self.spec = spec
        self.repair = repair            # set unreadable chunks aside (and replay their games) instead of refusing
        self.set_aside: list[int] = []  # the chunks `repair` set aside
        self.adopted_chunk_size = False
        self.players = players
        self.engine = engine
        self.manifest: dict[str, Any] = {}
        self.resumed = False
        self._lock_file: Any = None

    def __enter__(self) -> "ResultsWriter":
        if self.folder.exists() and not self.folder.is_dir():
            raise ResultsError(self.folder, "is a file, not a results folder; name a new folder, or one this "
                                            "command wrote before (to resume it)")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ResultsError(self.folder, f"the results folder cannot be created ({e.strerror})") from None
        lock_was_there = (self.folder / LOCK).exists()
        self._lock()
        try:
            self._open()
        except BaseException:
            self._unlock()
            if not lock_was_there:      # a refused folder is left as it was found
                (self.folder / LOCK).unlink(missing_ok=True)
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._unlock()

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:     # no advisory locks on this platform: run unguarded
            return
        self._lock_file = open(self.folder / LOCK, "a+b")
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            self._lock_file = None
            raise ResultsError(self.folder, "another cavekit run is writing into this folder right now") from None

    def _unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()     # closing releases the flock
            self._lock_file = None

    def _open(self) -> None:
        manifest_path = self.folder / MANIFEST
        if not manifest_path.exists():
            others = [p.name for p in self.folder.iterdir() if p.name != LOCK and not TEMP_FILE.match(p.name)]
            if others:
                shown = ", ".join(sorted(others)[:5]) + (", ..." if len(others) > 5 else "")
                raise ResultsError(self.folder, f"not empty ({shown}) and has no {MANIFEST}, so it is not a cavekit "
                                            "results folder; choose a new or empty folder")
            self._remove_debris(listed=set())
            self.manifest = self._fresh_manifest()
            self._save_manifest()
            return
        manifest = read_manifest(self.folder)
        theirs, ours = run_spec_of(manifest), self.spec
        if theirs.deal_scheme is None:
            raise ResultsError(manifest_path, "this folder was written before deals: its games drew chance from "
                                              "one stream in the order play met it, so it can be read and reported "
                                              "but not resumed; start a new folder")
        for field in RunSpec.IDENTITY:
            old, new = getattr(theirs, field), _jsonable(getattr(ours, field))
            if old != new:
                raise ResultsError(manifest_path, f"this folder holds a different run: {field} is {old!r} there but "
                                              f"{new!r} now; to resume it, repeat its command exactly; a different "
                                              "run needs a different folder")
        self._check_agent_data(theirs, manifest_path)
        if theirs.chunk_size != ours.chunk_size:
            # The games do not depend on the chunk size, so a resume keeps the folder's chunks as they are.
            self.spec = dataclasses.replace(ours, chunk_size=theirs.chunk_size)
            self.adopted_chunk_size = True
        self._check_or_set_aside(manifest)
        listed = {name for c in manifest["chunks"] for name in (c["games_file"], c["decisions_file"])}
        self._remove_debris(listed)
        self.manifest = manifest
        self.resumed = True
        if manifest.get("complete") and not self.set_aside:
            return      # nothing to play: a finished folder is read as it is, not stamped with a resume
        resumed = {"time": _now(), "code_version": code_version()}
        if self.set_aside:
            resumed["set_aside_chunks"] = list(self.set_aside)
        self.manifest.setdefault("resumed", []).append(resumed)
        self._save_manifest()

    def _check_agent_data(self, theirs: RunSpec, manifest_path: Path) -> None:
        """Refuse a folder whose agents played with other data (weights, a learned value) than the same specs
        read today: its games would be passed off as today's agents' games."""
        if theirs.agent_data is None or self.spec.agent_data is None:
            return
        for seat, (spec, old, new) in enumerate(zip(self.spec.agents, theirs.agent_data, self.spec.agent_data)):
            for option in sorted(set(old) | set(new)):
                if old.get(option) != new.get(option):
                    raise ResultsError(manifest_path, f"this folder holds games that agent {seat + 1} ({spec}) played "
                                                      f"with other {option} data: {old.get(option, 'none')} there, "
                                                      f"{new.get(option, 'none')} now (its data file has changed "
                                                      "since); those games are not today's agent's, so play them "
                                                      "in a new folder (or move this one aside)")

    def _check_or_set_aside(self, manifest: dict[str, Any]) -> None:
        """Refuse a folder with a damaged chunk, naming the file and the way on; with `repair`, move each damaged
        chunk's files into `set-aside/` and drop it from the manifest, so that its games are played again."""
        for chunk in list(manifest["chunks"]):
            problem = _chunk_problem(self.folder, manifest, chunk)
            if problem is None:
                continue
            if not self.repair:
                raise ResultsError(problem.location, f"{problem.problem}; to set chunk {chunk['index']} aside (into "
                                                     f"{self.folder / SET_ASIDE}) and play its games again, repeat "
                                                     "the command with --repair")
            aside = self.folder / SET_ASIDE
            aside.mkdir(exist_ok=True)
            for key in ("games_file", "decisions_file"):
                path = self.folder / chunk[key]
                if path.exists() or path.is_symlink():      # (a link is moved as it is, not what it leads to)
                    os.replace(path, _free_name(aside / path.name))
            manifest["chunks"].remove(chunk)
            self.set_aside.append(chunk["index"])

    def _remove_debris(self, listed: set[str]) -> None:
        """Delete temporary files and chunk files the manifest does not list (left by an interrupted write)."""
        for path in self.folder.iterdir():
            if TEMP_FILE.match(path.name) or CHUNK_FILE.match(path.name) and path.name not in listed:
                path.unlink()
        _fsync_dir(self.folder)

    def _fresh_manifest(self) -> dict[str, Any]:
        s = self.spec
        now = _now()
        outcomes = [name for name, _ in outcome_columns(s.game, self.players)]
        return {"format": FORMAT, "version": VERSION, "game": s.game, "params": _jsonable(s.params),
                "players": self.players, "engine": self.engine, "agents": list(s.agents), "seed": s.seed,
                "duplicate": s.duplicate, "deal_scheme": s.deal_scheme, "agent_data": s.agent_data,
                "outcome_columns": outcomes, "decision_columns": decisions_schema(s.game).names,
                "games": s.games, "chunk_size": s.chunk_size, "code_version": code_version(),
                "created": now, "updated": now, "games_done": 0, "complete": False, "chunks": []}

    def _save_manifest(self) -> None:
        self.manifest["updated"] = _now()
        self.manifest["chunks"].sort(key=lambda c: c["first_game"])
        self.manifest["games_done"] = sum(c["game_rows"] for c in self.manifest["chunks"])
        # (no game is listed twice, so all are stored when as many as the run's are)
        self.manifest["complete"] = self.manifest["games_done"] == self.spec.games
        text = json.dumps(self.manifest, indent=1) + "\n"
        _write_atomically(self.folder / MANIFEST, text.encode("utf-8"))

    @property
    def games_done(self) -> int:
        return int(self.manifest["games_done"])

    @property
    def with_outcomes(self) -> bool:
        """Whether this folder's game rows carry the game's outcome columns (folders from before them do not)."""
        return bool(self.manifest.get("outcome_columns"))

    @property
    def decision_columns(self) -> list[str]:
        """The decision columns this folder's chunks have (older folders may have fewer than today's)."""
        return folder_decisions_schema(self.manifest).names

    def missing_games(self) -> list[range]:
        """The runs of consecutive games not yet stored, in game order."""
        runs, start = [], 0
        for chunk in sorted(self.manifest["chunks"], key=lambda c: c["first_game"]):
            if chunk["first_game"] > start:
                runs.append(range(start, chunk["first_game"]))
            start = chunk["last_game"] + 1
        if start < self.spec.games:
            runs.append(range(start, self.spec.games))
        return runs

    def missing_chunks(self) -> list[int]:
        """Indices of the planned chunks not wholly on disk yet, in order."""
        size = self.spec.chunk_size
        return sorted({k for run in self.missing_games() for k in range(run.start // size, (run.stop - 1) // size + 1)})

    def _chunk_index(self, games: range) -> int:
        """The number of a new chunk holding `games`: planned chunk k's when it holds all of k's games (so an
        uninterrupted run has the planned chunks), otherwise the next one after the planned chunks and those
        already listed."""
        planned = games.start // self.spec.chunk_size
        used = {c["index"] for c in self.manifest["chunks"]}
        if games == self.spec.chunk_range(planned) and planned not in used:
            return planned
        return max(used | {self.spec.num_chunks - 1}) + 1

    def write_chunk(self, games_parquet: bytes, decisions_parquet: bytes, decision_rows: int) -> int:
        """Store one finished chunk of consecutive games not stored yet (both files, then its manifest entry);
        safe to interrupt at any point. Returns the chunk's number."""
        try:
            held = pq.read_table(pa.BufferReader(games_parquet), columns=["game"]).column("game").to_pylist()
        except (OSError, ValueError, KeyError, pa.ArrowException) as e:
            raise ResultsError(self.folder, f"a chunk to store has no readable game column ({e})") from None
        games = range(held[0], held[-1] + 1) if held else range(0)
        if not held or held != list(games) or games.start < 0 or games.stop > self.spec.games:
            raise ResultsError(self.folder, f"a chunk holds consecutive games of the run (0 to {self.spec.games - 1}), "
                                            f"not games {held[:3]}...")
        for run in self.missing_games():
            if games.start in run:
                break
        else:
            run = range(0)
        if games.stop > run.stop or games.start not in run:
            raise ResultsError(self.folder, f"games {games.start} to {games.stop - 1} are stored already, in part or "
                                            "whole; a game is stored once")
        index = self._chunk_index(games)
        games_file, decisions_file = chunk_file_names(index)
        expected = folder_games_schema(self.manifest).names
        columns = pq.read_schema(pa.BufferReader(games_parquet)).names
        if columns != expected:
            raise ResultsError(self.folder / games_file, f"chunk {index} has game columns {columns}, but this "
                                                         f"folder's games have {expected}")
        expected = self.decision_columns
        columns = pq.read_schema(pa.BufferReader(decisions_parquet)).names
        if columns != expected:
            raise ResultsError(self.folder / decisions_file, f"chunk {index} has decision columns {columns}, but "
                                                             f"this folder's decisions have {expected}")
        _write_atomically(self.folder / games_file, games_parquet)
        _write_atomically(self.folder / decisions_file, decisions_parquet)
        self.manifest["chunks"].append({"index": index, "games_file": games_file, "decisions_file": decisions_file,
                                        "first_game": games.start, "last_game": games.stop - 1,
                                        "game_rows": len(games), "decision_rows": decision_rows})
        self._save_manifest()
        return index


def _free_name(path: Path) -> Path:
    """`path`, or if that is taken `path` with the first free suffix .1, .2, ... (set-aside files are kept)."""
    candidate, n = path, 0
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate


def _jsonable(value: Any) -> Any:
    """`value` as it reads back from JSON (tuples become lists), so it compares equal to a stored manifest."""
    return json.loads(json.dumps(value))
