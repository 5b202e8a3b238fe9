"""Speed benchmarks, measured in one process so the ratios hold on a shared, noisy machine.

`cavekit bench GAME` for a game with a compiled engine plays random games with the reference engine, with the
compiled engine through the Python API, and with the compiled engine's C playout, and times move generation and
cloning in C on positions taken from random games; for a game with only its reference engine it times that.
`cavekit bench batch` times the batch runner (random agents, results folder written) on one worker and on two.
`cavekit bench GAME --search` times the Python reference MCTS against the compiled MCTS at equal iterations.
Results are rates and ratios, never pass/fail thresholds.
"""
from __future__ import annotations

import importlib
import time
from typing import Any

import numpy as np

from ..core.api import CHANCE, sample_chance_outcome
from ..core.registry import default_game_name, game_spec, load_game


def _random_game(game: Any, rng: np.random.Generator, keep: list | None = None, keep_every: int = 0) -> int:
    """Play one uniformly random game through the Python API; the number of steps."""
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            action = sample_chance_outcome(state.chance_outcomes(), rng.random())
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            if keep is not None and steps % keep_every == 0:
                keep.append(state.clone())
        state.apply_action(action)
        steps += 1
    return steps


def _playout_rate(game: Any, seconds: float, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    games = steps = 0
    started = time.perf_counter()
    while games < 3 or time.perf_counter() - started < seconds:
        steps += _random_game(game, rng)
        games += 1
    elapsed = time.perf_counter() - started
    return {"games_per_second": games / elapsed, "steps_per_second": steps / elapsed, "games": games}


def bench_engines(name: str, players: int = 2, seconds: float = 3.0, seed: int = 0) -> dict[str, Any]:
    """Playout rates of a game's reference and compiled engines and their ratio, C-level move generation and
    clone times, and the compiled state's size (games with a compiled core)."""
    reference = load_game(name, players=players, engine="reference")
    fast = load_game(name, players=players, engine="compiled")
    compiled = importlib.import_module(type(fast.new_initial_state()).__module__)
    ref = _playout_rate(reference, seconds, seed)
    api = _playout_rate(fast, seconds, seed)

    count = 100
    started = time.perf_counter()
    steps = compiled.random_games(fast, count, seed)
    elapsed = time.perf_counter() - started
    while elapsed < seconds / 2:       # grow the batch until it is long enough to time
        count *= 2
        started = time.perf_counter()
        steps = compiled.random_games(fast, count, seed)
        elapsed = time.perf_counter() - started
    c_playout = {"games_per_second": count / elapsed, "steps_per_second": steps / elapsed, "games": count}

    positions: list = []
    rng = np.random.default_rng(seed)
    while len(positions) < 2000:
        _random_game(fast, rng, keep=positions, keep_every=3)
    timings = compiled.core_timings(positions, 10)
    per_call = {k: timings[k] / timings["calls"] * 1e9 for k in ("legal_actions", "clone", "clone_and_apply")}
    # The same positions in the reference engine (every seventh one: it is slow).
    reference_positions = [_as_reference(p, reference) for p in positions[::7]]
    ref_started = time.perf_counter()
    for p in reference_positions:
        p.legal_actions()
    ref_legal_ns = (time.perf_counter() - ref_started) / len(reference_positions) * 1e9

    return {
        "game": name, "players": players, "seed": seed,
        "reference_playouts_per_second": ref["games_per_second"],
        "compiled_api_playouts_per_second": api["games_per_second"],
        "compiled_c_playouts_per_second": c_playout["games_per_second"],
        "compiled_c_steps_per_second": c_playout["steps_per_second"],
        "ratio_c_playout_to_reference": c_playout["games_per_second"] / ref["games_per_second"],
        "ratio_api_to_reference": api["games_per_second"] / ref["games_per_second"],
        "legal_actions_ns_compiled_c": per_call["legal_actions"],
        "legal_actions_ns_reference": ref_legal_ns,
        "clone_ns_compiled_c": per_call["clone"],
        "clone_and_apply_ns_compiled_c": per_call["clone_and_apply"],
        "state_size_bytes": compiled.state_size_bytes(),
        "positions_timed": len(positions),
        "reference_games_timed": ref["games"],
        "mean_random_game_steps": c_playout["steps_per_second"] / c_playout["games_per_second"],
    }


def bench_reference(name: str, players: int = 2, seconds: float = 3.0, seed: int = 0) -> dict[str, Any]:
    """Speed of a game that has only its reference engine: random playouts through the Python API
    (games/s, steps/s), and per-call times of `legal_actions` (computed afresh after an apply, not cached),
    `clone` and clone + apply on positions taken from random games. A game with a compiled engine too is
    timed on its reference engine here (`bench_engines` compares the two)."""
    engines = game_spec(name).engines
    game = load_game(name, players=players, **({"engine": "reference"} if "reference" in engines else {}))
    rates = _playout_rate(game, seconds, seed)
    positions: list = []
    rng = np.random.default_rng(seed)
    while len(positions) < 300:
        _random_game(game, rng, keep=positions, keep_every=3)
    repeats = 3

    def per_call(fn: Any) -> float:
        started = time.perf_counter()
        for _ in range(repeats):
            for p in positions:
                fn(p)
        return (time.perf_counter() - started) / (repeats * len(positions)) * 1e9

    firsts = [p.legal_actions()[0] for p in positions]
    index = {id(p): a for p, a in zip(positions, firsts)}

    def clone_apply(p: Any) -> Any:
        child = p.clone()
        child.apply_action(index[id(p)])
        return child

    # An engine may cache legal actions; the first call after an apply computes them, so their cost is the
    # time of clone + apply + legal_actions less that of clone + apply.
    clone_and_apply = per_call(clone_apply)
    with_legal = per_call(lambda p: clone_apply(p).legal_actions())
    return {
        "game": name, "players": players, "seed": seed, "engine": getattr(game, "engine", "reference"),
        "reference_playouts_per_second": rates["games_per_second"],
        "reference_steps_per_second": rates["steps_per_second"],
        "reference_games_timed": rates["games"],
        "mean_random_game_steps": rates["steps_per_second"] / rates["games_per_second"],
        "legal_actions_ns_reference": max(0.0, with_legal - clone_and_apply),
        "clone_ns_reference": per_call(lambda p: p.clone()),
        "clone_and_apply_ns_reference": clone_and_apply,
        "positions_timed": len(positions),
    }


def format_bench_reference(result: dict[str, Any]) -> str:
    """`bench_reference` as a table a person reads."""
    rows = [
        ("reference engine, random playouts", f"{result['reference_playouts_per_second']:,.1f} games/s, "
                                              f"{result['reference_steps_per_second']:,.0f} steps/s"),
        ("steps per random game", f"{result['mean_random_game_steps']:,.0f}"),
        ("legal actions, reference", f"{result['legal_actions_ns_reference'] / 1e3:,.1f} us"),
        ("clone, reference", f"{result['clone_ns_reference'] / 1e3:,.1f} us"),
        ("clone + apply, reference", f"{result['clone_and_apply_ns_reference'] / 1e3:,.1f} us"),
        ("positions timed", f"{result['positions_timed']} (from random games)"),
    ]
    width = max(len(name) for name, _ in rows)
    title = (f"cavekit bench {result['game']} ({result['players']} players, reference engine only, "
             "one process, one core)")
    return "\n".join([title] + [f"  {name.ljust(width)}  {value}" for name, value in rows])


def _as_reference(position: Any, reference: Any) -> Any:
    """The reference engine's copy of a compiled position."""
    if hasattr(position, "to_reference"):
        return position.to_reference()
    return type(reference.new_initial_state()).from_dict(reference, position.to_dict(), [])


def format_bench(result: dict[str, Any]) -> str:
    """The benchmark as a table a person reads."""
    rows = [
        ("reference engine, random playouts", f"{result['reference_playouts_per_second']:,.0f} games/s"),
        ("compiled engine via Python API", f"{result['compiled_api_playouts_per_second']:,.0f} games/s "
                                           f"({result['ratio_api_to_reference']:.1f}x reference)"),
        ("compiled engine, C playout", f"{result['compiled_c_playouts_per_second']:,.0f} games/s "
                                       f"({result['ratio_c_playout_to_reference']:.0f}x reference), "
                                       f"{result['compiled_c_steps_per_second'] / 1e6:.2f} M steps/s"),
        ("legal actions, compiled (C)", f"{result['legal_actions_ns_compiled_c']:,.0f} ns"),
        ("legal actions, reference", f"{result['legal_actions_ns_reference']:,.0f} ns"),
        ("clone, compiled (memcpy)", f"{result['clone_ns_compiled_c']:,.1f} ns"),
        ("clone + apply, compiled", f"{result['clone_and_apply_ns_compiled_c']:,.0f} ns"),
        ("state size", f"{result['state_size_bytes']} bytes"),
    ]
    width = max(len(name) for name, _ in rows)
    title = f"cavekit bench {result['game']} ({result['players']} players, one process, one core)"
    return "\n".join([title] + [f"  {name.ljust(width)}  {value}" for name, value in rows])


def bench_search(name: str, players: int = 2, iterations: int = 500, positions: int = 8, seed: int = 0,
                 options: str = "") -> dict[str, Any]:
    """CPU seconds per search of the Python reference MCTS (`mcts`) and the compiled MCTS over the engine
    interface (`compiled_mcts`), at equal iterations and options, on the same positions of random games of the
    compiled engine, in one process; their ratio. `options` are extra agent options for both (`c=0.7`)."""
    from ..search import make_agent
    game = load_game(name, players=players, engine="compiled")
    rng = np.random.default_rng(seed)
    kept: list[Any] = []
    while len(kept) < positions:
        found: list[Any] = []
        _random_game(game, rng, found, keep_every=7)
        kept += [s for s in found if len(s.legal_actions()) > 1][:positions - len(kept)]
    settings = f"iterations={iterations}" + (f",{options}" if options else "")
    seconds = {}
    for agent_name in ("mcts", "compiled_mcts"):
        agent = make_agent(f"{agent_name}:{settings}", game, seed=seed)
        started = time.process_time()
        for state in kept:
            agent.reset()
            agent.step(state)
        seconds[agent_name] = (time.process_time() - started) / len(kept)
    return {"game": name, "players": players, "iterations": iterations, "options": options, "positions": len(kept),
            "python_seconds_per_search": seconds["mcts"], "compiled_seconds_per_search": seconds["compiled_mcts"],
            "ratio": seconds["mcts"] / seconds["compiled_mcts"]}


def format_bench_search(result: dict[str, Any]) -> str:
    """The search benchmark as a table a person reads."""
    options = f", {result['options']}" if result["options"] else ""
    return "\n".join([
        f"cavekit bench {result['game']} --search ({result['players']} players, {result['iterations']} iterations"
        f"{options}, {result['positions']} positions, CPU time, one process)",
        f"  mcts (Python reference)   {result['python_seconds_per_search'] * 1000:,.1f} ms a search",
        f"  compiled_mcts (C)         {result['compiled_seconds_per_search'] * 1000:,.2f} ms a search "
        f"({result['ratio']:.0f}x)"])


def _process_tree_cpu_seconds() -> float | None:
    """CPU seconds used so far by this process and its live child processes (the workers), if psutil is there."""
    try:
        import psutil
    except ImportError:
        return None
    me = psutil.Process()
    total = sum(me.cpu_times()[:2])
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.Error:
            pass
    return total


def bench_batch(games: int = 4000, jobs: int = 2, chunk_size: int | None = None, players: int = 2,
                seed: int = 0, game: str | None = None) -> dict[str, Any]:
    """Games/s of the batch runner (random agents, the game's default engine, results folder written; the
    registry's default game unless `game` names one) on one worker and on `jobs` workers in the same process
    run, their ratio, the CPU time each run used (which, unlike wall time, a busy machine barely changes), and
    whether both stored the same rows."""
    import os
    import tempfile

    from .batch import default_chunk_size, run_match
    from .results import load_results

    name = game or default_game_name()
    agents = ["random"] * players
    chunk = chunk_size or default_chunk_size(games)
    load_before = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    # Start the worker processes before timing, so the figure is play and storage, not process start-up.
    run_match(name, agents, 2 * jobs, seed, progress=False, jobs=jobs, chunk_size=1, players=players)
    rates, cpu = {}, {}
    with tempfile.TemporaryDirectory(prefix="cavekit-bench-") as tmp:
        for workers in (1, jobs):
            cpu_start = _process_tree_cpu_seconds()
            started = time.perf_counter()
            run_match(name, agents, games, seed, progress=False, jobs=workers, chunk_size=chunk,
                      out=f"{tmp}/{workers}", players=players)
            rates[workers] = games / (time.perf_counter() - started)
            cpu_end = _process_tree_cpu_seconds()
            cpu[workers] = None if cpu_start is None or cpu_end is None else (cpu_end - cpu_start) / games
        one, many = load_results(f"{tmp}/1"), load_results(f"{tmp}/{jobs}")
        identical = one[0].drop(columns="seconds").equals(many[0].drop(columns="seconds")) and one[1].equals(many[1])
        decision_rows = len(one[1])
    return {"game": name, "players": players, "agents": agents, "games": games, "chunk_size": chunk,
            "chunks": -(-games // chunk), "workers": jobs, "seed": seed,
            "games_per_second_1_worker": rates[1], f"games_per_second_{jobs}_workers": rates[jobs],
            "speedup": rates[jobs] / rates[1],
            "cpu_ms_per_game_1_worker": None if cpu[1] is None else cpu[1] * 1e3,
            f"cpu_ms_per_game_{jobs}_workers": None if cpu[jobs] is None else cpu[jobs] * 1e3,
            "decision_rows": decision_rows, "results_identical": identical,
            "cpu_count": os.cpu_count(), "load_average_before": load_before}


def format_bench_batch(result: dict[str, Any]) -> str:
    """The batch benchmark as a table a person reads."""
    jobs = result["workers"]
    rows = [
        ("1 worker", f"{result['games_per_second_1_worker']:,.0f} games/s"),
        (f"{jobs} workers", f"{result[f'games_per_second_{jobs}_workers']:,.0f} games/s"),
        ("speedup", f"{result['speedup']:.2f}x"),
    ]
    if result["cpu_ms_per_game_1_worker"] is not None:
        one, many = result["cpu_ms_per_game_1_worker"], result[f"cpu_ms_per_game_{jobs}_workers"]
        rows.append(("CPU per game (all processes)",
                     f"{one:.2f} ms on 1 worker, {many:.2f} ms on {jobs} ({many / one - 1:+.1%} for parallelism)"))
    rows += [
        ("chunks", f"{result['chunks']} of {result['chunk_size']} games"),
        ("decision rows stored", f"{result['decision_rows']:,}"),
        ("same results", "yes" if result["results_identical"] else "NO"),
        ("machine", f"{result['cpu_count']} CPUs, load average {result['load_average_before']} before the run"),
    ]
    width = max(len(name) for name, _ in rows)
    title = (f"cavekit bench batch: {result['games']} {result['game']} games, {' vs '.join(result['agents'])}, "
             "results folder written")
    return "\n".join([title] + [f"  {name.ljust(width)}  {value}" for name, value in rows])
