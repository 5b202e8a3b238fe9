"""What every game's strength report shares: a folder whose summary keeps each part's figures and command.

A report (`cavekit strength GAME`, one module per game: `cvc/strength.py`, `caverna/strength.py`) runs some
of its parts into one folder; a run of some parts keeps the figures the others left there, and each part
remembers the command line that made it. The folder holds `summary.json` (figures by part), `command.txt`
(the command of each part) and the readable `report.md` the game's formatter writes from the summary.
"""
from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from ..core.api import ConfigError


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


class StrengthFolder:
    """A strength report's folder: the summary so far, updated part by part, and its report."""

    def __init__(self, out: str | Path, command: str) -> None:
        self.out = Path(out)
        self.command = command
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

    def record(self, part: str, figures: Any) -> None:
        """Store one part's figures with the command that made them (written at once: a later part may fail).
        An interval of a single game is NaN, written as JSON's common `NaN` extension (Python and pandas read it)."""
        # Read the file again first: another run may be filling other parts of the same folder meanwhile
        # (a long match part beside a quick cost part), and writing back what this run loaded at its start
        # would drop the parts it recorded since.
        self.summary = self._load()
        self.summary.setdefault("commands", {})
        self.summary["parts"][part] = figures
        self.summary["commands"][part] = self.command
        path = self.out / "summary.json"
        partial = path.with_name(f"summary.json.{os.getpid()}.partial")
        partial.write_text(json.dumps(self.summary, indent=2), encoding="utf-8")
        os.replace(partial, path)  # a reader never sees half a file

    def finish(self, format_report: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
        """Write command.txt and report.md from the summary as it stands on disk; the whole summary."""
        self.summary = self._load()
        self.summary.setdefault("commands", {})
        (self.out / "command.txt").write_text(
            "\n".join(f"{part}: {c}" for part, c in self.summary["commands"].items()) + "\n", encoding="utf-8")
        (self.out / "report.md").write_text(format_report(self.summary), encoding="utf-8")
        return self.summary
