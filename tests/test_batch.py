"""The batch runner: seeding invariance across workers, chunk sizes and backends; decision rows; resuming a
match after its process was killed."""
from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.batch import default_chunk_size, plan_tasks, play_chunk, play_game, run_match
from cavekit.analysis.results import load_results
from cavekit.core.api import ConfigError
from cavekit.core.deal import deal_seed, new_deal
from cavekit.core.registry import load_game

RANDOM2 = ["random", "random"]
# A cheap agent whose spec differs from "random", so the decision rows show which seat played which agent.
OTHER = "mcts:iterations=1,rollout=none"


def without_timing(games: pd.DataFrame) -> pd.DataFrame:
    return games.drop(columns="seconds")


@pytest.fixture(scope="module")
def loky_run(tmp_path_factory) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    """12 games of random against a one-iteration MCTS, stored in 4 chunks by the default (loky) backend."""
    out = tmp_path_factory.mktemp("loky") / "run"
    run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, jobs=1, out=out, chunk_size=4)
    games, decisions = load_results(out)
    return out, games, decisions


def test_game_i_is_played_on_deal_i_of_the_master_seed_whatever_the_agents():
    random_play = run_match("cvc", RANDOM2, 6, seed=7, progress=False, jobs=2, chunk_size=4)
    greedy_play = run_match("cvc", ["greedy", "greedy"], 6, seed=7, progress=False)
    assert random_play["deal"].tolist() == greedy_play["deal"].tolist() == [0, 1, 2, 3, 4, 5]
    assert random_play["deal_seed"].tolist() == greedy_play["deal_seed"].tolist() == [deal_seed(7, i) for i in range(6)]
    assert len(set(random_play["deal_seed"])) == 6
    # The agents play differently, so the games differ; the setup they were dealt does not.
    assert random_play["history"].map(list).tolist() != greedy_play["history"].map(list).tolist()


def test_game_i_has_agents_from_child_i_of_the_master_seed_with_seats_rotated():
    games = run_match("cvc", ["random", OTHER], 3, seed=5, progress=False)
    game = load_game("cvc")
    for i in range(3):
        seats = ["random", OTHER] if i % 2 == 0 else [OTHER, "random"]
        row = play_game(game, seats, np.random.SeedSequence(5, spawn_key=(i,)), new_deal(game, deal_seed(5, i)))
        assert games.loc[i, ["agent_0", "agent_1"]].tolist() == seats
        assert games.loc[i, "score_0"] == row["score_0"] and games.loc[i, "decisions"] == row["decisions"]


def test_results_do_not_depend_on_worker_count_or_chunk_size(loky_run):
    _, stored, _ = loky_run
    two_workers = run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, jobs=2, chunk_size=5)
    one_chunk = run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, jobs=1, chunk_size=12)
    pd.testing.assert_frame_equal(without_timing(two_workers), without_timing(stored))
    pd.testing.assert_frame_equal(without_timing(one_chunk), without_timing(stored))


def test_a_local_dask_cluster_gives_the_loky_results_game_for_game(loky_run, tmp_path):
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    _, games, decisions = loky_run
    out = tmp_path / "dask"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit="500MiB") as cluster, distributed.Client(cluster):
        run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, backend="dask", out=out, chunk_size=4)
    dask_games, dask_decisions = load_results(out)
    pd.testing.assert_frame_equal(without_timing(dask_games), without_timing(games))
    pd.testing.assert_frame_equal(dask_decisions, decisions)


def test_ray_gives_the_loky_results_game_for_game(loky_run, tmp_path):
    pytest.importorskip("ray", reason="ray is not installed (optional extra cavekit[ray], too heavy for CI)")
    _, games, decisions = loky_run
    out = tmp_path / "ray"
    run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, backend="ray", jobs=2, out=out, chunk_size=4)
    ray_games, ray_decisions = load_results(out)
    pd.testing.assert_frame_equal(without_timing(ray_games), without_timing(games))
    pd.testing.assert_frame_equal(ray_decisions, decisions)


@pytest.mark.parametrize("backend, module", [("dask", "distributed"), ("ray", "ray")])
def test_a_backend_whose_extra_is_missing_names_the_extra(monkeypatch, backend, module):
    monkeypatch.setitem(sys.modules, module, None)      # makes `import module` fail like a missing package
    with pytest.raises(ConfigError, match=rf"pip install 'cavekit\[{backend}\]'"):
        run_match("cvc", RANDOM2, 2, seed=0, progress=False, backend=backend)


@pytest.mark.parametrize("options, message", [
    ({"backend": "spark"}, "available backends: loky, dask, ray"),
    ({"chunk_size": 0}, "chunk size must be a positive number"),
    ({"jobs": 0}, "jobs must be at least 1"),
    ({"seed": -3}, "non-negative integer"),
])
def test_bad_batch_options_are_refused(options, message):
    arguments = {"progress": False, "seed": 0, **options}
    with pytest.raises(ConfigError, match=message):
        run_match("cvc", RANDOM2, 2, **arguments)


def test_default_chunk_size_gives_few_large_tasks():
    assert default_chunk_size(1) == 1
    assert default_chunk_size(200) == 7
    assert default_chunk_size(3200) == 100
    assert default_chunk_size(10_000_000) == 1000


def test_decision_rows_match_the_games_and_the_notation(loky_run):
    _, games, decisions = loky_run
    per_game = decisions.groupby("game").size()
    assert per_game.to_dict() == dict(zip(games["game"], games["decisions"]))
    for game, rows in decisions.groupby("game"):
        assert rows["decision"].tolist() == list(range(len(rows)))
        assert rows["ply"].is_monotonic_increasing and rows["ply"].iloc[-1] < games.loc[game, "length"]
        seats = games.loc[game, ["agent_0", "agent_1"]].tolist()
        assert (rows["agent"] == rows["player"].map(dict(enumerate(seats)))).all()
        for player in (0, 1):       # nothing after a player's last decision changes their score
            assert rows[rows["player"] == player]["score_after"].iloc[-1] == games.loc[game, f"score_{player}"]
    takes = decisions[decisions["kind"] == "take"]
    assert len(takes) > 0 and (takes["action_text"] == "take " + takes["tile"]).all()
    assert decisions.loc[decisions["kind"] != "take", "tile"].isna().all()
    furnished = decisions.dropna(subset=["room_furnished"])
    assert len(furnished) > 0
    for text, room, space in zip(furnished["action_text"], furnished["room_furnished"], furnished["furnish_space"]):
        assert f"furnish {room} at {space}" in text
    assert decisions["round"].between(1, 8).all() and decisions["gold_after"].ge(0).all()
    assert decisions["food_after"].between(0, 9).all()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_chunk_ends_after_its_time_bound_with_the_same_games(loky_run, tmp_path, jobs):
    # A bound of 0 seconds ends every chunk after its first game (a chunk holds one game at least): the games
    # are stored one by one, as chunks numbered after the 3 planned ones, and are the games of any other run.
    _, games, decisions = loky_run
    out = tmp_path / "run"
    run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, jobs=jobs, out=out, chunk_size=4, chunk_seconds=0)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["games_done"] == 12
    held = [(c["first_game"], c["last_game"], c["game_rows"]) for c in manifest["chunks"]]
    assert held == [(i, i, 1) for i in range(12)]
    assert sorted(c["index"] for c in manifest["chunks"]) == list(range(3, 15))
    stored_games, stored_decisions = load_results(out)
    pd.testing.assert_frame_equal(without_timing(stored_games), without_timing(games))
    pd.testing.assert_frame_equal(stored_decisions, decisions)


def test_a_resume_plays_exactly_the_games_not_stored(loky_run, tmp_path):
    _, games, decisions = loky_run
    out = tmp_path / "run"
    run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, out=out, chunk_size=4, chunk_seconds=0)
    manifest = json.loads((out / "manifest.json").read_text())
    lost = {1, 4, 5, 6, 11}         # as if these one-game chunks had not been stored
    manifest["chunks"] = [c for c in manifest["chunks"] if c["first_game"] not in lost]
    (out / "manifest.json").write_text(json.dumps(manifest))
    run_match("cvc", ["random", OTHER], 12, seed=21, progress=False, out=out, chunk_size=4)
    resumed = json.loads((out / "manifest.json").read_text())
    added = [c for c in resumed["chunks"] if c not in manifest["chunks"]]
    # the lost games, a task per run of them within a planned chunk: games 4 to 7 are planned chunk 1
    assert [(c["first_game"], c["last_game"]) for c in added] == [(1, 1), (4, 6), (11, 11)]
    stored_games, stored_decisions = load_results(out)
    pd.testing.assert_frame_equal(without_timing(stored_games), without_timing(games))
    pd.testing.assert_frame_equal(stored_decisions, decisions)


def test_the_tasks_of_a_resume_are_the_missing_games_of_each_planned_chunk():
    assert plan_tasks([range(12)], 4) == [range(0, 4), range(4, 8), range(8, 12)]
    assert plan_tasks([range(1, 2), range(3, 9), range(11, 13)], 4) == [
        range(1, 2), range(3, 4), range(4, 8), range(8, 9), range(11, 12), range(12, 13)]


def test_a_stopped_task_hands_back_the_games_it_finished_and_no_row_of_the_one_in_play(tmp_path):
    stop = tmp_path / "stop"
    stop.touch()
    stopped = play_chunk("cvc", {}, RANDOM2, 3, False, 0, 0, 5, True, stop_file=str(stop))
    assert (stopped.first_game, stopped.stop_game, stopped.decision_rows) == (0, 0, 0)
    timed = play_chunk("cvc", {}, RANDOM2, 3, False, 0, 2, 5, True, max_seconds=0)
    assert (timed.first_game, timed.stop_game) == (2, 3)
    whole = play_chunk("cvc", {}, RANDOM2, 3, False, 0, 2, 5, True)
    assert whole.stop_game == 5 and whole.decision_rows > timed.decision_rows > 0


def _chunks_listed(out: Path) -> int:
    try:
        return len(json.loads((out / "manifest.json").read_text())["chunks"])
    except (OSError, ValueError):
        return 0


def long_match_command(out: Path, *extra: str, games: int = 400) -> list[str]:
    """A random match (400 games: 50 chunks) on 2 workers: long enough to be interrupted after its first chunk."""
    return [sys.executable, "-m", "cavekit.analysis.cli", "match", "cvc", "--agents", "random", "random",
            "--games", str(games), "--seed", "11", "--chunk-size", "8", "--jobs", "2", *extra, "--out", str(out)]


def started_match(command: list[str], out: Path, **streams) -> subprocess.Popen:
    """`command` running in a session of its own, once it has stored its first chunk in `out`."""
    # Ctrl-C as from a shell: the test runner's process (pytest-xdist's workers) may be ignoring SIGINT, and a
    # child would inherit that
    process = subprocess.Popen(command, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **streams)
    deadline = time.monotonic() + 180
    while _chunks_listed(out) < 1:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the match ended or stored no chunk within 3 minutes (exit {process.poll()})")
        time.sleep(0.005)
    return process


def test_a_killed_match_resumes_with_the_same_command(tmp_path):
    out = tmp_path / "run"
    command = long_match_command(out, "--quiet")
    process = started_match(command, out, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.killpg(process.pid, signal.SIGKILL)          # the CLI and its loky workers, with no chance to clean up
    process.wait()
    stored_before = _chunks_listed(out)
    assert 1 <= stored_before < 50, "the kill should interrupt the run"

    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "first_player_score_rate" in resumed.stdout
    games, decisions = load_results(out)
    assert games["game"].tolist() == list(range(400))         # every game once, none lost or duplicated
    assert sorted(decisions["game"].unique()) == list(range(400))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["games_done"] == 400 and len(manifest["resumed"]) == 1
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(
        ["manifest.json"] + [f"{kind}-{k:05d}.parquet" for k in range(50) for kind in ("games", "decisions")])

    reference = tmp_path / "reference"
    run_match("cvc", RANDOM2, 400, seed=11, progress=False, out=reference, chunk_size=8)
    ref_games, ref_decisions = load_results(reference)
    pd.testing.assert_frame_equal(without_timing(games), without_timing(ref_games))
    pd.testing.assert_frame_equal(decisions, ref_decisions)


def test_an_interrupted_match_says_what_it_kept_and_the_command_that_resumes(tmp_path):
    out = tmp_path / "run"
    command = long_match_command(out, "--quiet")
    process = started_match(command, out, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.killpg(process.pid, signal.SIGINT)           # Ctrl-C reaches the CLI and its workers
    _, stderr = process.communicate(timeout=120)
    saved = json.loads((out / "manifest.json").read_text())["games_done"]
    assert process.returncode == 130 and "Traceback" not in stderr
    assert stderr.strip() == (f"cavekit: interrupted; {saved} of 400 games are saved in {out}. Run the same command "
                              f"to play the rest: cavekit {' '.join(command[3:])}")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    """The 40 games of `interruptible_match`, played in one go."""
    out = tmp_path_factory.mktemp("uninterrupted") / "run"
    run_match("cvc", ["greedy", "random"], 40, seed=5, progress=False, out=out, chunk_size=40)
    return out


def interruptible_match(out: Path, jobs: str) -> list[str]:
    """40 games of greedy against random (a few hundredths of a second each) in chunks of 20: Ctrl-C comes
    long before a chunk is finished."""
    return [sys.executable, "-m", "cavekit.analysis.cli", "match", "cvc", "--agents", "greedy", "random", "--games",
            "40", "--seed", "5", "--chunk-size", "20", "--jobs", jobs, "--out", str(out)]


def read_until_games_shown(process: subprocess.Popen, games: int, total: int) -> bytes:
    """What `process` wrote to stderr until its progress bar showed `games` finished games."""
    import select
    seen, deadline = b"", time.monotonic() + 180
    while max(map(int, re.findall(rb"\| (\d+)/%d \[" % total, seen)), default=0) < games:
        assert process.poll() is None and time.monotonic() < deadline, f"no {games} games shown: {seen[-300:]!r}"
        if select.select([process.stderr], [], [], 1)[0]:
            seen += os.read(process.stderr.fileno(), 65536)
    return seen


# (the default run keeps the usual case; the other two ways of interrupting are long runs, behind -m slow)
@pytest.mark.parametrize("jobs, ctrl_c", [("2", os.killpg),
                                          pytest.param("2", os.kill, marks=pytest.mark.slow),
                                          pytest.param("1", os.killpg, marks=pytest.mark.slow)],
                         ids=["2 jobs, Ctrl-C", "2 jobs, kill -INT of the command alone", "1 job, Ctrl-C"])
def test_an_interrupted_match_keeps_every_finished_game_and_resumes_to_the_same_games(uninterrupted, tmp_path,
                                                                                      jobs, ctrl_c):
    out = tmp_path / "run"
    command = interruptible_match(out, jobs)
    process = subprocess.Popen(command, start_new_session=True, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               env={**os.environ, "TQDM_MININTERVAL": "0"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    shown = read_until_games_shown(process, 5, 40)
    ctrl_c(process.pid, signal.SIGINT)          # the terminal's Ctrl-C reaches the workers too; kill -INT does not
    stderr = (shown + process.communicate(timeout=120)[1]).decode()
    assert process.returncode == 130 and "Traceback" not in stderr
    manifest = json.loads((out / "manifest.json").read_text())
    saved = manifest["games_done"]
    # every game the bar counted as finished, up to the last, is stored: none is left behind in its chunk
    assert saved == max(int(n) for n in re.findall(r"\| (\d+)/40 \[", stderr)) >= 5
    assert stderr.replace("\r", "\n").strip().splitlines()[-1] == (
        f"cavekit: interrupted; {saved} of 40 games are saved in {out}. Run the same command to play the rest: "
        f"cavekit {' '.join(command[3:])}")

    resumed = subprocess.run(command + ["--quiet"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    games, decisions = load_results(out)
    ref_games, ref_decisions = load_results(uninterrupted)
    pd.testing.assert_frame_equal(without_timing(games), without_timing(ref_games))
    pd.testing.assert_frame_equal(decisions, ref_decisions)


def _signals(pid: int, field: str) -> int:
    """A process's signal set `field` (SigBlk, SigIgn) from /proc, as a bit mask."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split(f"{field}:")[1].split()[0], 16)


def _loky_workers(pid: int) -> list[int]:
    """The loky worker processes under `pid`."""
    found = []
    for child in _children(pid):
        with contextlib.suppress(OSError):
            if "popen_loky_posix" in Path(f"/proc/{child}/cmdline").read_text():
                found.append(child)
    return found


def assert_helpers_deaf_to_ctrl_c(process: subprocess.Popen) -> None:
    """Every helper process of `process` (its 2 loky workers; with a progress bar the queue's manager) was born
    with Ctrl-C blocked, or ignores it (the resource trackers), while `process` itself hears it."""
    deadline = time.monotonic() + 120
    while len(_loky_workers(process.pid)) < 2:
        assert process.poll() is None and time.monotonic() < deadline, "no 2 workers started within 2 minutes"
        time.sleep(0.01)
    ctrl_c = 1 << (signal.SIGINT - 1)
    for helper in _children(process.pid):
        if "resource_tracker" in Path(f"/proc/{helper}/cmdline").read_text():
            # Python's own: started with it blocked, then ignores it
            assert (_signals(helper, "SigIgn") | _signals(helper, "SigBlk")) & ctrl_c, _describe(helper)
        else:
            assert _signals(helper, "SigBlk") & ctrl_c, _describe(helper)
    # The command holds every signal back for an instant each time it starts a process (CPython's fork does),
    # so it has to be seen hearing Ctrl-C once that is over, not at any one moment.
    deadline = time.monotonic() + 60
    while _signals(process.pid, "SigBlk") & ctrl_c:
        assert process.poll() is None and time.monotonic() < deadline, "the command itself does not hear Ctrl-C"
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize("quiet", [["--quiet"], []], ids=["quiet", "with progress"])
def test_the_batch_workers_are_born_deaf_to_ctrl_c(tmp_path, quiet):
    # Ctrl-C is the batch's to handle. A worker that only ignored it from its initializer on could die of a
    # Ctrl-C that came while it was still starting, with a traceback of its own under the batch's message.
    out = tmp_path / "run"
    process = started_match(long_match_command(out, *quiet), out, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        assert_helpers_deaf_to_ctrl_c(process)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_the_solo_strength_workers_are_born_deaf_to_ctrl_c(tmp_path):
    # The solo parts of `cavekit strength cvc` play on workers of their own (`batch.in_workers`), and so do
    # the value and weights trainers: the same rule as the batch's.
    command = [sys.executable, "-m", "cavekit.analysis.cli", "strength", "cvc", "--parts", "solo", "--solo-games",
               "4000", "--strongest", "greedy", "--jobs", "2", "--out", str(tmp_path / "strength")]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert_helpers_deaf_to_ctrl_c(process)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_an_interrupted_strength_report_says_where_its_games_are_and_how_to_carry_on(tmp_path):
    out = tmp_path / "strength"
    command = [sys.executable, "-m", "cavekit.analysis.cli", "strength", "caverna", "--parts", "solo",
               "--solo-games", "4000", "--strongest", "caverna_greedy", "--jobs", "2", "--quiet", "--out", str(out)]
    process = started_match(command, out / "solo", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.killpg(process.pid, signal.SIGINT)           # Ctrl-C in the middle of the report's solo match
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in stderr
    assert stderr.strip() == (f"cavekit: interrupted; the finished games are kept in {out}. Run the same command "
                              f"to carry on from there: cavekit {' '.join(command[3:])}")
    assert json.loads((out / "solo" / "manifest.json").read_text())["games_done"] >= 1


def _children(pid: int) -> set[int]:
    """The live child processes of `pid` (from /proc), and theirs."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(entry.name))
    return found | {g for c in found for g in _children(c)}


def _describe(pid: int) -> str:
    """A process's id, parent, state and command line, for a failure message."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return f"{pid} (gone)"
    threads = len(list(Path(f"/proc/{pid}/task").iterdir()))
    return f"{pid} (parent {fields[1]}, state {fields[0]}, {threads} threads): {command}"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize("quiet", [["--quiet"], []], ids=["quiet", "with progress"])
def test_the_workers_of_a_killed_batch_end_with_it(tmp_path, quiet):
    # With a progress bar a manager process relays finished games: it must end with the batch too. The kill
    # often comes while the second worker is still starting (the first chunk is stored before it has
    # imported its modules): it must end too, although it never gets a task.
    out = tmp_path / "run"
    process = started_match(long_match_command(out, *quiet), out, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    workers = _children(process.pid)
    assert len(workers) >= 2, "the match runs worker processes"
    process.kill()                                  # kill -9: the main process cannot clean up
    process.wait()
    deadline = time.monotonic() + 60
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [w for w in workers if _alive(w)]
    assert not left, "worker processes outlived the killed batch: " + "; ".join(_describe(w) for w in left)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_a_worker_killed_from_outside_ends_the_match_in_one_line(tmp_path):
    out = tmp_path / "run"
    # far more games than the others: random games take milliseconds, and on a loaded machine 400 of them
    # could all be played while the test reads the process table to find a worker to kill (seen: exit 0)
    process = started_match(long_match_command(out, "--quiet", games=40000), out, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    workers = sorted(w for w in _children(process.pid) if "LokyProcess" in Path(f"/proc/{w}/cmdline").read_text())
    os.kill(workers[0], signal.SIGKILL)             # as the out-of-memory killer would
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2 and "Traceback" not in stderr
    assert stderr.strip() == ("cavekit: error: a worker process died while playing (killed from outside, out of "
                              "memory, or crashed); the finished chunks are saved: run the same command to resume")
    assert json.loads((out / "manifest.json").read_text())["games_done"] >= 8


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_progress_bar_counts_every_game_not_only_every_chunk(jobs):
    # (tqdm redraws at most ten times a second unless told otherwise; greedy games take a few hundredths.)
    result = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "match", "cvc", "--agents", "greedy",
                             "greedy", "--games", "6", "--chunk-size", "6", "--jobs", jobs],
                            capture_output=True, text=True, env={**os.environ, "TQDM_MININTERVAL": "0"})
    assert result.returncode == 0, result.stderr
    counts = [int(m) for m in re.findall(r"\| (\d+)/6 \[", result.stderr)]
    # One chunk of six games: a bar that moved per chunk would jump from 0 to 6.
    assert {1, 2, 3, 4, 5, 6} <= set(counts) and max(counts) == 6
