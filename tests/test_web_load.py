"""A small load test of `cavekit serve` (`cavekit.analysis.web.load`): clients playing, hinting and undoing at once.

The server runs in a thread of the test process (uvicorn on a free port of 127.0.0.1, one AI worker process).
Nothing here holds a latency to a bound (the machine is shared and its timings are noise); the report, p95s
included, is printed for whoever runs the test with -s.
"""
from __future__ import annotations

import logging

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from cavekit.analysis.web.load import KINDS, format_report, main, parser, run_load  # noqa: E402


class Records(logging.Handler):
    """Every record of the loggers it is attached to."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_clients_playing_hinting_and_undoing_at_once_get_no_error(capsys):
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "cavekit.web")]
    log = Records()
    for logger in loggers:
        logger.addHandler(log)
    try:
        # hints and undos more often than the defaults, so that a short run on a busy machine makes some
        options = parser().parse_args(["--clients", "4", "--seconds", "8", "--game", "cvc", "--ai", "easy",
                                       "--workers", "1", "--hint-rate", "0.3", "--undo-rate", "0.2", "--seed", "1"])
        report = run_load(options)
    finally:
        for logger in loggers:
            logger.removeHandler(log)
    with capsys.disabled():
        print("\n" + format_report(report))

    assert report["errors"] == 0, report["error_samples"]
    assert report["server_log"] == []
    assert report["stopped_by"] == "time" and report["requests"] < options.max_requests
    for kind in KINDS:
        assert report["requests_by_kind"][kind] > 0, f"no {kind} request was made: {report['requests_by_kind']}"
        latency = report["latency_ms"][kind]
        assert latency["n"] > 0 and 0 < latency["p50"] <= latency["p95"] <= latency["max"], (kind, latency)
    assert report["statuses"]["action"].get("200", 0) > 0 and report["statuses"]["hint"].get("200", 0) > 0
    assert report["ai_replies"] >= 1
    assert report["page_latency_p95_ms"] > 0
    assert report["machine"]["cpu_count"] >= 1 and report["machine"]["platform"]
    tracebacks = [r for r in log.records if r.exc_info or "Traceback" in r.getMessage()
                  or "Exception" in r.getMessage() or r.levelno >= logging.ERROR]
    assert tracebacks == [], [f"{r.name} {r.levelname}: {r.getMessage()}" for r in tracebacks]


@pytest.mark.parametrize("url", ["http://10.0.0.1:8765", "http://example.com:8765", "http://192.168.1.1",
                                 "https://127.0.0.1:8765", "http://0.0.0.0:8765"])
def test_only_a_server_of_this_machine_is_loaded(url, capsys):
    assert main(["--url", url, "--seconds", "1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--url" in err, err
