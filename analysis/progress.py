"""The one progress bar of every long command: tqdm on stderr with its rate and ETA, off when not wanted.

Batches, tournaments, room bans, opening searches, the strength reports and terminal-play hints all draw
their progress here, so they look alike and `--quiet` (``enabled=False``) silences each the same way.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Any, Callable, TypeVar

from tqdm import tqdm

T = TypeVar("T")

# Weight of the latest speed in tqdm's moving average: low, so a slow first game does not swing the ETA.
SMOOTHING = 0.1
TICK_SECONDS = 0.2


def progress_bar(total: float | None, desc: str, unit: str, enabled: bool = True, initial: float = 0,
                 **options: Any) -> Any:
    """A tqdm bar on stderr counting `unit`s towards `total`, showing rate and ETA; inert unless `enabled`.

    It redraws at most ten times a second, but never skips a step because earlier ones came fast (tqdm's
    adaptive `miniters` would hide, say, the second of three slow searches after two quick ones)."""
    options.setdefault("miniters", 1)
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, disable=not enabled, smoothing=SMOOTHING,
                file=sys.stderr, **options)


def timed(work: Callable[[], T], desc: str, expected_seconds: float | None, enabled: bool = True) -> T:
    """`work()`, with a bar of the seconds it takes against `expected_seconds` (None: elapsed time only).

    For a search that reports nothing while it runs: the bar ticks from a thread, so it moves whenever the
    search lets other Python threads run (a compiled searcher that holds the interpreter shows its time at
    the end). With an expected duration (a time budget, or the last search of the same kind) the ETA is that.
    """
    if not enabled:
        return work()
    done = threading.Event()
    with progress_bar(expected_seconds, desc, "s", bar_format=_TIMED_FORMAT if expected_seconds else
                      _ELAPSED_FORMAT, leave=False, miniters=0) as bar:      # redraw on every tick
        started = time.perf_counter()

        def tick() -> None:
            while not done.wait(TICK_SECONDS):
                _show_elapsed(bar, time.perf_counter() - started, expected_seconds)

        ticker = threading.Thread(target=tick, name="cavekit-timed-progress", daemon=True)
        ticker.start()
        try:
            return work()
        finally:
            done.set()
            ticker.join()
            _show_elapsed(bar, time.perf_counter() - started, expected_seconds)
            bar.refresh()       # the last tick may have been too soon after the one before to be drawn


_TIMED_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} s [ETA {remaining}]"
_ELAPSED_FORMAT = "{desc}: {n:.1f} s"


def _show_elapsed(bar: Any, elapsed: float, expected: float | None) -> None:
    """Move `bar` to `elapsed` seconds (at most the expected total, which a slow search may overrun)."""
    target = min(elapsed, expected) if expected else elapsed
    bar.update(target - bar.n)
