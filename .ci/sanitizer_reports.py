"""pytest plugin for the debug build (`.ci/run`): a C bounds error fails the test that caused it.

The debug build compiles with `-fsanitize=bounds`, which reports "runtime error: index ... out of bounds
for type ..." with the source line and carries on; with `UBSAN_OPTIONS=log_path=<prefix>` the report goes
to the file `<prefix>.<pid>`. After each test this plugin fails the test if such a report appeared, and
shows it.
"""
from __future__ import annotations

import glob
import os

import pytest


def _log_prefix() -> str | None:
    options = dict(part.split("=", 1) for part in os.environ.get("UBSAN_OPTIONS", "").split(":") if "=" in part)
    return options.get("log_path")


def _take_reports() -> str:
    text = []
    for path in sorted(glob.glob(glob.escape(_log_prefix()) + ".*")):
        with open(path, encoding="utf-8", errors="replace") as handle:
            text.append(handle.read())
        os.remove(path)
    return "".join(text)


def pytest_sessionstart(session):
    if _log_prefix() is None:
        raise pytest.UsageError("sanitizer_reports: set UBSAN_OPTIONS=log_path=<prefix> for the debug build")
    _take_reports()     # nothing left over from an earlier run


@pytest.fixture(autouse=True)
def _fail_on_sanitizer_report():
    yield
    text = _take_reports()
    if text:
        pytest.fail("C sanitizer report (out-of-bounds index in compiled code):\n" + text, pytrace=False)
