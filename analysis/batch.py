"""Play batches of seeded games between agents, in chunks, on one machine or a cluster, and summarise them.

Every random choice flows from one master seed, so a game's result never depends on how a batch is split, on
the number of workers or on the backend. Game i is played on a deal (`cavekit.core.deal`) whatever the
agents do: deal i of the run, or with `duplicate=True` deal i // k, where k is the number of seat assignments
(the seat rotations; solo: the agents), so that every deal is played with every assignment. Its agents are
seeded from the i-th child of `SeedSequence(seed)`. Every row keeps its deal and its whole history. Work is sent out in chunks of consecutive games (one task per
chunk), which keeps joblib's per-task overhead small for fast games; with `out=` every finished chunk is
stored at once in a results folder (`analysis/results.py`), so an interrupted run resumes where it stopped.
A task also ends after `CHUNK_SECONDS` of play, handing back the games it finished as a chunk of their own
(the rest of its games become a new task), so a run killed outright loses about a minute of play per worker
at most, whatever the agents' speed; and Ctrl-C asks every task to hand back its finished games at once, which
are stored before the run stops, so it loses none.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import os
import secrets
import signal
import sys
import tempfile
import threading
import time
import warnings
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.api import CHANCE, ConfigError, Game
from ..core.deal import ChanceStream, Deal, deal_for_play, deal_scheme, deal_seed
from ..core.registry import load_game
from ..search.agent import agent_data, make_agent, resolve_preset
from .balance import tie_counts
from .decisions import DecisionRecorder
from .outcomes import outcome_values
from .progress import progress_bar
from .paired import first_player_paired, is_paired, paired_differences, score_rate_over_deals
from .results import ResultsWriter, RunSpec, games_schema, load_games
from .stats import seat_count, wilson_interval

try:
    from joblib.externals.loky.process_executor import TerminatedWorkerError
    WORKER_DEATHS: tuple[type[BaseException], ...] = (TerminatedWorkerError,)
except ImportError:         # a joblib without loky
    WORKER_DEATHS = ()

BACKENDS = ("loky", "dask", "ray")
# Automatic chunk size: about this many chunks per run (enough to balance the load over a few workers
# and to lose little work when a run is killed), but never more games per chunk than the cap.
AUTO_CHUNKS_PER_RUN = 32
MAX_AUTO_CHUNK_SIZE = 1000
# A task hands back its finished games as a chunk once it has played this long (after the game that passes
# it), even short of its chunk size: what a run killed outright (kill -9, a lost machine) can lose.
CHUNK_SECONDS = 60.0
# How often a game in play looks whether Ctrl-C asked the batch to stop: the delay it adds to stopping.
STOP_CHECK_SECONDS = 0.1


class GameAbandoned(Exception):
    """A game given up before its end because the batch was asked to stop (its rows are not kept)."""


def play_game(game: Game, agent_specs: Sequence[str], seed: np.random.SeedSequence, deal: Deal | ChanceStream,
              recorder: DecisionRecorder | None = None, stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """Play one game on `deal`; `agent_specs[p]` plays seat p, seeded from `seed`. Returns one result row;
    `recorder` gets each decision.

    The row holds the deal seed, the whole history (chance outcomes included) and the game's outcome
    fields (`analysis/outcomes.py`), read from the final state. `stop`, asked before every move, gives the
    game up (GameAbandoned) when it answers true.
    """
    agents = [make_agent(spec, game, seed=s) for spec, s in zip(agent_specs, seed.spawn(game.num_players))]
    state = game.new_initial_state()
    first_player = -1
    decisions = ply = 0
    started = time.perf_counter()
    while not state.is_terminal():
        if stop is not None and stop():
            raise GameAbandoned
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(deal.outcome(state))
        else:
            if first_player < 0:
                first_player = player
            action = agents[player].step(state)
            if recorder is None:
                state.apply_action(action)
            else:
                recorder.before(state, ply, player, agent_specs[player], action, decisions)
                state.apply_action(action)
                recorder.after(state, player)
            decisions += 1
        ply += 1
    history = state.history()
    row: dict[str, Any] = {"deal_seed": deal.seed, "first_player": first_player, "decisions": decisions,
                           "length": len(history), "seconds": time.perf_counter() - started}
    scores, returns = state.scores(), state.returns()
    for p in range(game.num_players):
        row[f"agent_{p}"] = agent_specs[p]
        row[f"score_{p}"] = scores[p]
        row[f"return_{p}"] = returns[p]
    row["winner"] = winner_of(returns)
    row["history"] = history
    row.update(outcome_values(game, state))
    return row


def replay(game: Game, history: Sequence[int]) -> Any:
    """The position a stored game's `history` column leads to, replayed from the start."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(int(action))
    return state


def winner_of(returns: Sequence[float]) -> int:
    """The seat with the strictly highest return, or -1 for a draw or a one-player game."""
    if len(returns) < 2:
        return -1
    best = max(returns)
    leaders = [p for p, r in enumerate(returns) if r == best]
    return leaders[0] if len(leaders) == 1 else -1


def seat_assignments(num_players: int, num_agents: int) -> int:
    """How many ways a match seats its agents: the rotations of the seats, or solo, one per agent."""
    return num_players if num_players > 1 else num_agents


def deal_and_rotation(index: int, assignments: int, duplicate: bool) -> tuple[int, int]:
    """Game `index`'s deal and seat rotation: deal i with rotation i mod k, or with `duplicate`, deal i // k."""
    return (index // assignments if duplicate else index), index % assignments


def play_numbered(game: Game, agent_specs: Sequence[str], seed: int, index: int, duplicate: bool,
                  recorder: DecisionRecorder | None = None, stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """Game `index` of a match: its deal and seat rotation from the index, agents seeded from child `index`
    (`stop` as for `play_game`)."""
    deal_index, rotation = deal_and_rotation(index, seat_assignments(game.num_players, len(agent_specs)), duplicate)
    seats = [agent_specs[(p + rotation) % len(agent_specs)] for p in range(game.num_players)]
    child = np.random.SeedSequence(seed, spawn_key=(index,))
    if recorder is not None:
        recorder.game_index = index
    row = play_game(game, seats, child, deal_for_play(game, deal_seed(seed, deal_index)), recorder, stop)
    row["game"] = index
    row["deal"] = deal_index
    return row


@dataclass
class ChunkResult:
    """A played chunk, encoded as Parquet in the worker so the main process only stores bytes."""

    index: int                    # the task that played it
    first_game: int
    stop_game: int                # one past its last game: games first_game to stop_game - 1, maybe fewer than asked
    games: bytes                  # the games table, Parquet
    decisions: bytes | None       # the decisions table, Parquet (None when decisions were not recorded)
    decision_rows: int

    @property
    def played(self) -> int:
        """How many games the chunk holds."""
        return self.stop_game - self.first_game


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    # Page checksums let a reader tell a page damaged on disk from a good one (`results`), at no visible cost.
    pq.write_table(table, sink, write_page_checksum=True)
    return sink.getvalue().to_pybytes()


class StopWatch:
    """Whether the batch has asked its tasks to stop: its stop file exists (the batch makes it on Ctrl-C).

    Called before every move, it looks at the file at most every STOP_CHECK_SECONDS; `now()` looks at once.
    """

    def __init__(self, path: str):
        self.path = path
        self._next = 0.0

    def __call__(self) -> bool:
        clock = time.monotonic()
        if clock < self._next:
            return False
        self._next = clock + STOP_CHECK_SECONDS
        return os.path.exists(self.path)

    def now(self) -> bool:
        """Whether the stop file exists now."""
        return os.path.exists(self.path)


def play_chunk(game_name: str, game_params: dict[str, Any], agent_specs: Sequence[str], seed: int,
               duplicate: bool, index: int, first_game: int, stop_game: int, record_decisions: bool,
               with_outcomes: bool = True, decision_columns: Sequence[str] | None = None,
               max_seconds: float | None = None, stop_file: str | None = None,
               on_game: Callable[[int], None] | None = None) -> ChunkResult:
    """Play games `first_game` to `stop_game - 1` of a match (task `index`): one task of a batch.

    The task ends early, handing back the games it finished, once it has played `max_seconds` (after the game
    that passes them: a chunk holds at least one game), or when `stop_file` exists (then at once, giving up
    the game in play, whose rows are dropped). `with_outcomes=False` leaves the game's outcome columns out, and
    `decision_columns` keeps only those decision columns (both to resume a folder written before the game had
    the others). `on_game(index)` is called after each game (for progress).
    """
    game = load_game(game_name, **game_params)
    recorder = DecisionRecorder(game) if record_decisions else None
    stop = StopWatch(stop_file) if stop_file is not None else None
    started = time.monotonic()
    rows = []
    for i in range(first_game, stop_game):
        if stop is not None and stop.now():
            break
        recorded = len(recorder) if recorder is not None else 0
        try:
            rows.append(play_numbered(game, agent_specs, seed, i, duplicate, recorder, stop))
        except GameAbandoned:
            if recorder is not None:
                recorder.discard_from(recorded)
            break
        if on_game is not None:
            on_game(index)
        if max_seconds is not None and time.monotonic() - started >= max_seconds:
            break
    stopped_at = first_game + len(rows)
    schema = games_schema(game.num_players, game_name if with_outcomes else None)
    games = pa.Table.from_pylist(rows, schema=schema)
    if recorder is None:
        return ChunkResult(index, first_game, stopped_at, _parquet_bytes(games), None, 0)
    decisions = recorder.table()
    if decision_columns is not None:
        decisions = decisions.select(list(decision_columns))
    return ChunkResult(index, first_game, stopped_at, _parquet_bytes(games), _parquet_bytes(decisions),
                       len(recorder))


_WATCHED_PARENT: int | None = None
PARENT_CHECK_SECONDS = 0.5
PR_SET_PDEATHSIG = 1        # prctl(2) option: the signal the kernel sends this process when its parent dies


def _killed_with_parent() -> bool:
    """Ask the kernel (Linux prctl) to SIGKILL this process when the process that started it dies; whether it
    took. Nothing in this process can delay that signal: no lock, no thread, no interpreter state."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import signal
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _exit_with_parent(parent: int) -> None:
    """In a process started by `parent` (a loky worker, from its start; the progress queue's manager), end the
    process as soon as `parent` dies.

    A batch's main process killed outright (kill -9) cannot tell its workers to stop, and they would otherwise
    wait, idle, for minutes. Watching from a worker's first task is not enough: a worker still starting when
    the batch dies (the first chunk can be stored before the second worker has imported its modules) never
    gets one, so the watch starts with the worker (loky's initializer), and a worker that finds its parent
    already gone ends at once. Then on Linux the kernel ends it when the parent dies (the parent death
    signal, which nothing in the worker can delay: no lock, no thread, no interpreter state); elsewhere a
    thread notices the re-parenting.
    """
    global _WATCHED_PARENT
    if _WATCHED_PARENT == parent:
        return
    if os.getppid() != parent:
        # Re-parented already: a worker that was still starting when the batch was killed (the first chunk
        # can be stored before the second worker has imported its modules). Or not a child of `parent`.
        if not _alive(parent):
            os._exit(1)
        return
    _WATCHED_PARENT = parent
    if _killed_with_parent():
        if os.getppid() != parent:      # the parent died before the request was made: nobody will signal
            os._exit(1)
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="cavekit-parent-watch", daemon=True).start()


def _start_batch_worker(parent: int) -> None:
    """Loky's initializer for a batch worker: Ctrl-C is the batch's to handle (it stores what is finished and
    says how to resume), so a worker ignores it rather than dying with a traceback of its own; and the worker
    ends with `parent` (`_exit_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent(parent)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) in this thread while it starts worker processes, and deliver it after.

    A process or thread started meanwhile inherits the held signal and keeps it held: a worker still starting
    when Ctrl-C comes (before its initializer ignores the signal) would otherwise die of it and print a
    traceback of its own under the batch's one-line message. Only this (main) thread handles Ctrl-C: it
    stores what is finished and stops the workers. The resource trackers are started first because starting
    one unblocks SIGINT in the calling thread when it is done.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker
    from joblib.externals.loky.backend import resource_tracker as loky_resource_tracker
    resource_tracker.ensure_running()
    loky_resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def check_jobs(jobs: Any) -> None:
    """Refuse a number of worker processes that is not a whole number of at least 1."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs!r}")


def in_workers(calls: Iterable[Any], jobs: int, *, ordered: bool = False, batch_size: int | str = "auto"
               ) -> Iterator[Any]:
    """The results of joblib `calls` (`delayed(f)(...)`) on `jobs` loky worker processes, each as soon as it is
    ready (in the calls' order when `ordered`). The workers leave Ctrl-C to this process, which keeps what is
    finished and says so, and they end when it does; with one job the calls run in this process."""
    from joblib import Parallel

    check_jobs(jobs)
    return_as = "generator" if ordered else "generator_unordered"
    if jobs == 1:
        return Parallel(n_jobs=1, return_as=return_as)(calls)
    # Parallel starts its executor, its workers and their first tasks before it returns; the initializer runs
    # in each worker as it starts, before it waits for its first task.
    with _ctrl_c_held():
        return Parallel(n_jobs=jobs, backend="loky", return_as=return_as, batch_size=batch_size,
                        initializer=_start_batch_worker, initargs=(os.getpid(),))(calls)


def _alive(pid: int) -> bool:
    """Whether a process `pid` exists and has not ended (a zombie, killed but not yet reaped, has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True             # no /proc: the signal test is all there is
    return state not in ("Z", "X")


def _play_chunk_in_worker(parent: int, finished: Any, *call: Any) -> ChunkResult:
    """`play_chunk(*call)` in a loky worker process, which ends when the batch's process `parent` does;
    each finished game puts its task's index on the `finished` queue (if any) for the progress bar."""
    _exit_with_parent(parent)       # already done at the worker's start, unless the executor predates it
    return play_chunk(*call, on_game=None if finished is None else finished.put)


class GameProgress:
    """A progress bar that advances per finished game, whichever worker finished it, and per stored chunk."""

    def __init__(self, bar: Any):
        self.bar = bar
        self._counted: dict[int, int] = {}
        self._stored: set[int] = set()
        self._lock = threading.Lock()       # games are counted from a queue-draining thread too

    def game_done(self, task: int) -> None:
        """One game of `task` finished (news that comes after its chunk was stored is already counted)."""
        with self._lock:
            if task not in self._stored:
                self._counted[task] = self._counted.get(task, 0) + 1
                self.bar.update(1)

    def chunk_done(self, task: int, games: int) -> None:
        """`task` handed back a chunk of `games` games: count whatever of them were not counted one by one."""
        with self._lock:
            self._stored.add(task)
            self.bar.update(max(0, games - self._counted.pop(task, 0)))


@contextlib.contextmanager
def _finished_games_queue(progress: GameProgress | None) -> Iterator[Any]:
    """A queue that worker processes put a task index on per finished game, drained into `progress` by a
    thread; None when there is no bar to drive. The queue lives in a manager process that, like the
    workers, ends when this process dies."""
    if progress is None:
        yield None
        return
    from multiprocessing.managers import SyncManager
    manager = SyncManager()
    with _ctrl_c_held():
        manager.start(_exit_with_parent, (os.getpid(),))
    finished = manager.Queue()

    def drain() -> None:
        while (chunk := finished.get()) is not None:
            progress.game_done(chunk)

    thread = threading.Thread(target=drain, name="cavekit-progress", daemon=True)
    thread.start()
    try:
        yield finished
    finally:
        with contextlib.suppress(OSError, EOFError):
            finished.put(None)
            thread.join(timeout=5)
        manager.shutdown()


def default_chunk_size(games: int) -> int:
    """Games per chunk when none is given: about 32 chunks per run, at most 1000 games each."""
    return max(1, min(MAX_AUTO_CHUNK_SIZE, math.ceil(games / AUTO_CHUNKS_PER_RUN)))


# Plays chunk tasks (`play_chunk` argument tuples, taken as it goes: the source may stop early) and yields
# each result as soon as it is ready.
Runner = Callable[[Iterator[tuple[Any, ...]]], Iterator[ChunkResult]]


def _missing_extra(backend: str, module: str) -> ConfigError:
    return ConfigError(f"backend {backend!r} needs the {module!r} package, which is not installed; install the "
                       f"extra with: pip install 'cavekit[{backend}]'")


@contextlib.contextmanager
def _runner(backend: str, jobs: int, address: str | None, progress: GameProgress | None = None) -> Iterator[Runner]:
    """A function that plays chunk tasks on `backend` and yields each result as soon as it is ready; on this
    machine (loky) `progress` hears of every finished game, on a cluster of every finished chunk."""
    from joblib import Parallel, delayed, parallel_config

    if backend == "loky":
        if address is not None:
            raise ConfigError("the loky backend runs on this machine only; a cluster address needs "
                              "backend 'dask' or 'ray'")
        if jobs == 1:
            on_game = None if progress is None else progress.game_done
            yield lambda calls: (play_chunk(*call, on_game=on_game) for call in calls)
            return
        parent = os.getpid()
        with _finished_games_queue(progress) as finished:
            def run_loky(calls: Iterator[tuple[Any, ...]]) -> Iterator[ChunkResult]:
                return in_workers((delayed(_play_chunk_in_worker)(parent, finished, *call) for call in calls),
                                  jobs, batch_size=1)
            yield run_loky
        return

    if backend == "dask":
        try:
            import distributed
        except ImportError:
            raise _missing_extra("dask", "distributed") from None
        with contextlib.ExitStack() as stack:
            if address is not None:
                client = stack.enter_context(distributed.Client(address, set_as_default=False))
            else:
                try:
                    client = distributed.get_client()      # a client the caller already started
                except ValueError:
                    import logging
                    cluster = stack.enter_context(distributed.LocalCluster(
                        n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                        silence_logs=logging.ERROR))
                    client = stack.enter_context(distributed.Client(cluster, set_as_default=False))

            def run_dask(calls: Iterator[tuple[Any, ...]]) -> Iterator[ChunkResult]:
                with parallel_config(backend="dask", client=client):
                    yield from Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)(
                        delayed(play_chunk)(*call) for call in calls)
            yield run_dask
        return

    if backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise _missing_extra("ray", "ray") from None
        register_ray()
        started_here = not ray.is_initialized()
        if started_here:
            if address is not None:
                ray.init(address=address)
            else:
                ray.init(num_cpus=jobs, include_dashboard=False)
        try:
            workers = max(1, int(ray.cluster_resources().get("CPU", jobs)))

            def run_ray(calls: Iterator[tuple[Any, ...]]) -> Iterator[ChunkResult]:
                # Ray's joblib backend cannot stream results, so chunks go out in waves of two per CPU:
                # each wave is stored before the next starts, which keeps interrupted runs resumable.
                wave = 2 * workers
                while batch := list(itertools.islice(calls, wave)):
                    with parallel_config(backend="ray", n_jobs=workers):
                        yield from Parallel(batch_size=1)(delayed(play_chunk)(*c) for c in batch)
            yield run_ray
        finally:
            if started_here:
                ray.shutdown()
        return

    raise ConfigError(f"unknown backend {backend!r}; available backends: {', '.join(BACKENDS)}")


def run_match(game_name: str, agent_specs: Sequence[str], games: int, seed: int, progress: bool = True,
              jobs: int = 1, *, out: str | Path | None = None, backend: str = "loky", chunk_size: int | None = None,
              address: str | None = None, duplicate: bool = False, repair: bool = False, bar: Any = None,
              chunk_seconds: float | None = CHUNK_SECONDS, **game_params: Any) -> pd.DataFrame:
    """Play `games` games, rotating the agents through the seats; one row per game, in game order.

    A solo game may name several agents: game i is then played by agent i mod their number. Game i is played
    on deal (seed, i), or with `duplicate` on deal (seed, i // k) with seat rotation i mod k, k the number of
    seat assignments (`seat_assignments`), so every deal is played with every assignment and the results
    pair over deals; `games` must then be a multiple of k. The rows are the same for any `jobs`, `backend`
    and `chunk_size` (so a resume keeps the folder's chunk size, whatever is asked). `repair` lets a resume
    set damaged chunks aside and play their games again instead of refusing the folder. `backend` is "loky" (processes on this machine, the default), "dask" or
    "ray"; `jobs` is the number of worker processes (for dask and ray: of the local cluster started when
    no `address` of a running cluster is given and, for dask, no client is active). With `out`, every
    finished chunk is stored in that results folder, and calling again with the same arguments resumes an
    interrupted run: only missing games are played, and the returned table holds every game of the folder.
    A task then also hands back its finished games as a chunk once it has played `chunk_seconds` (None: no
    time bound), and Ctrl-C stores every finished game before it stops the run (KeyboardInterrupt; a
    second Ctrl-C stops at once).
    `bar`, an open `progress.progress_bar` of a longer job, is advanced per game instead of opening one.
    """
    game = load_game(game_name, **game_params)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ConfigError(f"a match needs at least 1 game, not {games!r}")
    check_jobs(jobs)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"the master seed must be a non-negative integer, not {seed!r}")
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; available backends: {', '.join(BACKENDS)}")
    if chunk_size is None:
        chunk_size = default_chunk_size(games)
    elif isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ConfigError(f"chunk size must be a positive number of games, not {chunk_size!r}")
    if chunk_seconds is not None and (isinstance(chunk_seconds, bool) or not isinstance(chunk_seconds, (int, float))
                                      or not 0 <= chunk_seconds < math.inf):
        raise ConfigError(f"the time bound of a chunk must be a number of seconds, 0 or more (0: one game per "
                          f"chunk), not {chunk_seconds!r}")
    if game.num_players > 1 and len(agent_specs) != game.num_players:
        raise ConfigError(f"{game_name} with {game.num_players} players needs {game.num_players} agent "
                          f"specs, got {len(agent_specs)}")
    if not agent_specs:
        raise ConfigError(f"{game_name} solo needs at least one agent spec")
    agent_specs = [resolve_preset(spec, game) for spec in agent_specs]     # the folder records what played
    for spec in agent_specs:
        make_agent(spec, game)      # refuse a bad spec before playing anything
    assignments = seat_assignments(game.num_players, len(agent_specs))
    if duplicate and games % assignments:
        what = "seat rotation" if game.num_players > 1 else "agent"
        raise ConfigError(f"a duplicate match plays every deal {assignments} times (once per {what}), so the "
                          f"number of games must be a multiple of {assignments}, not {games}")
    run = RunSpec(game=game_name, params=game.parameters(), agents=list(agent_specs), seed=int(seed),
                  games=games, chunk_size=chunk_size, duplicate=bool(duplicate), deal_scheme=deal_scheme(game),
                  agent_data=[agent_data(spec, game) for spec in agent_specs])
    with contextlib.ExitStack() as stack:
        writer = None
        if out is not None:
            writer = stack.enter_context(ResultsWriter(out, run, game.num_players, getattr(game, "engine", None),
                                                       repair=repair))
            run = writer.spec
        done = writer.games_done if writer else 0
        if writer is not None and writer.resumed and progress:
            notes = [f"resuming {out}: {done} of {games} games already stored"]
            if writer.adopted_chunk_size:
                notes.append(f"in the folder's chunks of {run.chunk_size} games")
            if writer.set_aside:
                notes.append(f"chunk(s) {', '.join(map(str, writer.set_aside))} set aside, to be played again")
            print("; ".join(notes), file=sys.stderr)
        with_outcomes = writer.with_outcomes if writer is not None else True
        decision_columns = writer.decision_columns if writer is not None else None
        # Only a stored run has use for chunks cut short (by time, or by Ctrl-C): without `out` nothing is kept.
        stop = stack.enter_context(_stop_request()) if writer is not None else None
        max_seconds = chunk_seconds if writer is not None else None
        missing = writer.missing_games() if writer is not None else [range(games)]
        pending: deque[tuple[int, range]] = deque(enumerate(plan_tasks(missing, run.chunk_size)))
        numbers = itertools.count(len(pending))
        asked: dict[int, range] = {}

        def stopping() -> bool:
            return stop is not None and stop.requested

        def calls() -> Iterator[tuple[Any, ...]]:
            # Taken as the runner goes (from its own threads, for loky): a task handed back short adds the rest
            # of its games to `pending` meanwhile, and after Ctrl-C no task starts.
            while pending and not stopping():
                task, asking = pending.popleft()
                asked[task] = asking
                yield (game_name, dict(game_params), list(agent_specs), int(seed), run.duplicate, task, asking.start,
                       asking.stop, writer is not None, with_outcomes, decision_columns, max_seconds,
                       stop.path if stop is not None else None)

        if bar is None:
            bar = stack.enter_context(progress_bar(games, f"{game_name} match", "game", progress, initial=done))
            counting = progress
        else:
            bar.update(done)
            counting = True
        tables: dict[int, pa.Table] = {}
        counter = GameProgress(bar)
        if pending:
            with (_stop_on_ctrl_c(stop) if stop is not None else contextlib.nullcontext()), \
                    _runner(backend, jobs, address, counter if counting else None) as play_chunks:
                # Rounds: a runner asks for tasks ahead of their results, so the rest of a task handed back
                # short may come after it has taken the last one; such rests are played in another round.
                while pending and not stopping():
                    stream = play_chunks(calls())
                    try:
                        for result in stream:
                            asking = asked.pop(result.index)
                            if result.played and writer is not None:
                                assert result.decisions is not None     # tasks record decisions whenever we store
                                writer.write_chunk(result.games, result.decisions, result.decision_rows)
                            elif result.played:
                                tables[result.first_game] = pq.read_table(pa.BufferReader(result.games))
                            counter.chunk_done(result.index, result.played)
                            if result.stop_game < asking.stop and not stopping():
                                pending.append((next(numbers), range(result.stop_game, asking.stop)))
                    except WORKER_DEATHS:
                        raise ConfigError("a worker process died while playing (killed from outside, out of "
                                          "memory, or crashed); "
                                          + ("the finished chunks are saved: run the same command to resume"
                                             if out is not None else "nothing was kept (a match keeps results "
                                             "with --out)")) from None
                    finally:
                        _close_quietly(stream)
        if stopping() and writer is not None and writer.games_done < games:
            # Ctrl-C: every game finished before it is stored; the caller says so and how to resume
            raise KeyboardInterrupt
    if out is not None:
        return load_games(out)
    return pa.concat_tables([tables[k] for k in sorted(tables)]).to_pandas()


def plan_tasks(missing: Iterable[range], chunk_size: int) -> list[range]:
    """The tasks that play the `missing` games: each planned chunk's missing games, a task per run of them
    (so that a task handed back whole is that planned chunk, and a resume refills the plan)."""
    tasks = []
    for run in missing:
        start = run.start
        while start < run.stop:
            stop = min(run.stop, (start // chunk_size + 1) * chunk_size)
            tasks.append(range(start, stop))
            start = stop
    return tasks


class StopRequest:
    """Ctrl-C's request that a batch's tasks stop and hand back the games they finished: a file at a path of the
    temporary folder that no one can guess, which every task is given and looks for. The workers leave Ctrl-C
    itself to the batch (they may not even hear it: `kill -INT` of the batch alone), and workers of a local
    cluster see the file too. The file exists only from the request to the end of the run, so a run killed
    outright leaves nothing behind."""

    def __init__(self) -> None:
        self.path = os.path.join(tempfile.gettempdir(), f"cavekit-stop-{secrets.token_hex(16)}")
        self.requested = False
        self._made = False

    def request(self) -> None:
        """Ask every task to stop: they give up the game in play and hand back the games they finished."""
        self.requested = True
        with contextlib.suppress(OSError):
            # (exclusive: never through a link someone put there; if anything is there, the tasks stop anyway)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            self._made = True

    def close(self) -> None:
        """Remove the request's file (no task looks for it any more)."""
        if self._made:
            with contextlib.suppress(OSError):
                os.unlink(self.path)


@contextlib.contextmanager
def _stop_request() -> Iterator[StopRequest]:
    request = StopRequest()
    try:
        yield request
    finally:
        request.close()


@contextlib.contextmanager
def _stop_on_ctrl_c(stop: StopRequest) -> Iterator[None]:
    """While a stored run plays: the first Ctrl-C asks its tasks to stop (the run stores what they hand back,
    then raises KeyboardInterrupt), a second one raises KeyboardInterrupt at once, as Ctrl-C does otherwise.

    Only where Python handles Ctrl-C (the main thread, and a handler in place): a process that ignores it (a
    background job, a batch worker) keeps ignoring it.
    """
    if threading.current_thread() is not threading.main_thread() or not callable(signal.getsignal(signal.SIGINT)):
        yield
        return

    def ctrl_c(signum: int, frame: Any) -> None:
        if stop.requested:
            raise KeyboardInterrupt
        stop.request()

    previous = signal.signal(signal.SIGINT, ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _close_quietly(stream: Iterator[ChunkResult]) -> None:
    """Close a chunk stream now, without joblib's warning about the tasks an interrupted run leaves behind
    (the caller says what was saved; left to the garbage collector, the warning would come after that)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*tasks .*(cancelled|not used)", category=UserWarning)
        close = getattr(stream, "close", None)
        if close is not None:
            close()


def summarize(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per-agent results and the first-player advantage of a two-player batch; score spread when solo."""
    players = seat_count(results)
    long = pd.concat([pd.DataFrame({"agent": results[f"agent_{p}"], "seat": p, "score": results[f"score_{p}"],
                                    "ret": results[f"return_{p}"], "first": results["first_player"] == p})
                      for p in range(players)], ignore_index=True)
    tables: dict[str, pd.DataFrame] = {}
    if players == 1:
        tables["solo scores"] = pd.DataFrame([
            {"agent": agent, "games": len(scores), "mean": scores.mean(), "median": scores.median(),
             "max": scores.max(), "share >= 50": (scores >= 50).mean(), "share > 60": (scores > 60).mean()}
            for agent, scores in long.groupby("agent")["score"]]).set_index("agent")
        if is_paired(results) and long["agent"].nunique() > 1:
            tables["solo points, paired over deals"] = paired_differences(results, "points")
        return tables
    rows = []
    for agent, group in long.groupby("agent"):
        wins, draws = int((group["ret"] > 0).sum()), int((group["ret"] == 0).sum())
        lo, hi = wilson_interval(wins + draws / 2, len(group))
        rows.append({"agent": agent, "games": len(group), "wins": wins, "draws": draws,
                     "losses": len(group) - wins - draws, "score_rate": (wins + draws / 2) / len(group),
                     "ci95_low": lo, "ci95_high": hi, "mean_score": group["score"].mean()})
    tables["agents"] = pd.DataFrame(rows).set_index("agent")
    first = long[long["first"]]
    wins, draws = int((first["ret"] > 0).sum()), int((first["ret"] == 0).sum())
    lo, hi = wilson_interval(wins + draws / 2, len(first))
    tables["first player"] = pd.DataFrame({
        "games": [len(first)], "first_player_score_rate": [(wins + draws / 2) / max(1, len(first))],
        "ci95_low": [lo], "ci95_high": [hi], "draws": [draws]})
    tables["ties on points"] = tie_counts(results)
    if is_paired(results):
        tables["score rate, paired over deals"] = paired_differences(results, "score_rate")
        tables["first player, paired over deals"] = first_player_paired(results)
    return tables


def agent_record(results: pd.DataFrame, spec: str) -> dict[str, Any]:
    """Wins, draws, losses and the score rate (draws count half) of `spec` against the other seat of a
    two-seat match, with its Wilson 95% interval and both seats' mean points; for a duplicate match also the
    score rate paired over deals with its t interval (`paired.score_rate_over_deals`)."""
    mine = np.where(results["agent_0"] == spec, results["return_0"], results["return_1"])
    my_score = np.where(results["agent_0"] == spec, results["score_0"], results["score_1"])
    their_score = np.where(results["agent_0"] == spec, results["score_1"], results["score_0"])
    wins, draws = int((mine > 0).sum()), int((mine == 0).sum())
    games = len(results)
    low, high = wilson_interval(wins + draws / 2, games)
    record = {"games": games, "wins": wins, "draws": draws, "losses": games - wins - draws,
              "score_rate": (wins + draws / 2) / games, "ci95_low": low, "ci95_high": high,
              "mean_points": float(my_score.mean()), "opponent_mean_points": float(their_score.mean()),
              "seconds_per_game": float(results["seconds"].mean())}
    if is_paired(results):
        record.update(score_rate_over_deals(results, spec))
    return record
