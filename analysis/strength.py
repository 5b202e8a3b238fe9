"""What every game's strength report shares: a folder whose summary keeps each part's figures and command.

A report (`cavekit strength GAME`, one module per game: `cvc/strength.py`, `caverna/strength.py`) runs some
of its parts into one folder; a run of some parts keeps the figures the others left there, and each part
remembers the command line that made it. The folder holds `summary.json` (figures by part), `command.txt`
(the command of each part) and the readable `report.md` the game's formatter writes from the summary.

A part that takes hours (a 400-game match of the strongest agent) is marked as running while it runs
(`StrengthFolder.running`); if the run stops before the part records its figures (Ctrl-C, an error), the report
is written at once with the mark, so report.md says that the part's figures are still the earlier run's and how
many games the new run has stored, until the same command resumes and finishes it.
"""
from __future__ import annotations

import json
import os
import shlex
import sys
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..core.api import ConfigError
from .results import ResultsError, read_manifest


def command_line() -> str:
    """The `cavekit` command as typed, quoted so it can be pasted back into a shell."""
    return "cavekit " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def check_parts(parts: Sequence[str], known: Sequence[str]) -> None:
    """ConfigError naming the unknown parts and the known ones."""
    unknown = [p for p in parts if p not in known]
    if unknown:
        raise ConfigError(f"unknown report part(s) {', '.join(unknown)}; parts: {', '.join(known)}")


def command_lines(summary: dict[str, Any]) -> list[str]:
    """Markdown bullets of the commands that made the summary's parts (parts one command made share a line)."""
    by_command: dict[str, list[str]] = {}
    for part, command in summary.get("commands", {}).items():
        by_command.setdefault(command, []).append(part)
    return [f"- {', '.join(parts)}: `{command}`" for command, parts in by_command.items()]


def running_lines(summary: dict[str, Any]) -> list[str]:
    """Markdown lines naming the parts a run left unfinished (see `StrengthFolder.running`); none if none."""
    running = summary.get("running", {})
    if not running:
        return []
    lines = ["", "## Parts being re-run", "",
             "A run of these parts stopped before they finished (or is still going): their figures in this report, "
             "if any, are the earlier run's. The same command resumes them where they stopped.", ""]
    for part, mark in running.items():
        stored = ""
        if "stored" in mark:
            planned = f" of {mark['planned']}" if "planned" in mark else ""
            games = "game" if mark.get("planned", mark["stored"]) == 1 else "games"
            stored = f"; {mark['stored']}{planned} {games} stored so far"
        lines.append(f"- {part}: {mark['what']}{stored}: `{mark['command']}`")
    return lines


class StrengthFolder:
    """A strength report's folder: the summary so far, updated part by part, and its report (`format_report`
    turns a summary into report.md)."""

    def __init__(self, out: str | Path, command: str, format_report: Callable[[dict[str, Any]], str]) -> None:
        self.out = Path(out)
        self.command = command
        self.format_report = format_report
        self.out.mkdir(parents=True, exist_ok=True)
        self.summary = self._load()
        self.summary.setdefault("commands", {})

    def _load(self) -> dict[str, Any]:
        path = self.out / "summary.json"
        if not path.exists():
            return {"parts": {}}
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(summary.get("parts"), dict):
                raise ValueError("no parts")
            return summary
        except (ValueError, AttributeError) as error:
            raise ConfigError(f"{path}: not a strength summary of this version ({error}); remove it or choose "
                              "another --out") from None

    def _update(self, change: Callable[[dict[str, Any]], None]) -> None:
        """Apply `change` to the summary on disk and write it back at once."""
        # Read the file again first: another run may be filling other parts of the same folder meanwhile
        # (a long match part beside a quick cost part), and writing back what this run loaded at its start
        # would drop the parts it recorded since.
        self.summary = self._load()
        self.summary.setdefault("commands", {})
        change(self.summary)
        if not self.summary.get("running"):
            self.summary.pop("running", None)
        path = self.out / "summary.json"
        partial = path.with_name(f"summary.json.{os.getpid()}.partial")
        partial.write_text(json.dumps(self.summary, indent=2), encoding="utf-8")
        os.replace(partial, path)  # a reader never sees half a file

    def record(self, part: str, figures: Any) -> None:
        """Store one part's figures with the command that made them (written at once: a later part may fail),
        which ends the part's running mark. An interval of a single game is NaN, written as JSON's common `NaN`
        extension (Python and pandas read it)."""
        def change(summary: dict[str, Any]) -> None:
            summary["parts"][part] = figures
            summary["commands"][part] = self.command
            summary.get("running", {}).pop(part, None)
        self._update(change)

    @contextmanager
    def running(self, part: str, what: str, results: Sequence[str] = ()) -> Iterator[None]:
        """Mark `part` as running while the block runs (`what` says what it plays; `results` names the results
        folders under the report's folder where its finished games are kept). If the block stops, report.md is
        written with the mark before the stop goes on; if it ends, so does the mark."""
        def start(summary: dict[str, Any]) -> None:
            summary.setdefault("running", {})[part] = {"what": what, "command": self.command, "results": list(results)}

        def end(summary: dict[str, Any]) -> None:
            summary.get("running", {}).pop(part, None)

        self._update(start)
        try:
            yield
        except BaseException:
            self.finish()
            raise
        self._update(end)

    def _count_stored(self) -> None:
        """Each running mark's games stored so far, from its results folders' manifests, and the games planned
        when every one of its folders has been started (a folder not started, or unreadable, counts nothing)."""
        for mark in self.summary.get("running", {}).values():
            manifests = []
            for name in mark.get("results", ()):
                with suppress(ResultsError):
                    manifests.append(read_manifest(self.out / name))
            if manifests:
                mark["stored"] = sum(m["games_done"] for m in manifests)
                if len(manifests) == len(mark["results"]):
                    mark["planned"] = sum(m["games"] for m in manifests)

    def finish(self) -> dict[str, Any]:
        """Write command.txt and report.md from the summary as it stands on disk; the whole summary."""
        self.summary = self._load()
        self.summary.setdefault("commands", {})
        self._count_stored()
        (self.out / "command.txt").write_text(
            "\n".join(f"{part}: {c}" for part, c in self.summary["commands"].items()) + "\n", encoding="utf-8")
        (self.out / "report.md").write_text(self.format_report(self.summary), encoding="utf-8")
        return self.summary
