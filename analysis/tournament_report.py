"""The HTML report of a tournament folder (`cavekit tournament --out DIR`, then `cavekit report DIR`).

One self-contained file like the balance report (`analysis/report.py`, whose layout it shares): the
tournament and how to repeat it, the standings with score-rate and rating intervals, the pairwise score
rates with their Wilson intervals and numbers of encounters, the ratings drawn with their intervals, the
first-seat advantage and, for a `--duplicate` tournament, each pairing's difference paired over its deals.
Everything is read from the files `write_tournament` wrote; nothing is recomputed but the layout.
"""
from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.records import JSONTextError, parse_json
from .plots import interval_points
from .ratings import MIN_ENCOUNTERS_FOR_INTERVAL
from .report import (Section, combine_interval, figure_html, html_document, percent, report_figure, table_html,
                     write_html)
from .results import ResultsError

TOURNAMENT_MANIFEST = "tournament.json"
# The files a report needs, and what each holds (for the error when one is missing).
REQUIRED_FILES = {"standings.parquet": "the standings", "head_to_head.csv": "the head-to-head records"}


def is_tournament_folder(folder: Path) -> bool:
    """Whether `folder` was written by `cavekit tournament --out` (it has tournament.json, no results manifest)."""
    return (folder / TOURNAMENT_MANIFEST).is_file() and not (folder / "manifest.json").exists()


def read_tournament(folder: Path) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The settings, standings, head-to-head records and paired differences (empty unless duplicate)."""
    path = folder / TOURNAMENT_MANIFEST
    try:
        # (parse_json: hostile JSON, such as nesting 100000 deep, is refused with a location, not a traceback)
        settings = parse_json(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ResultsError(path, f"not valid JSON (not UTF-8 text at byte {e.start})") from None
    except JSONTextError as e:
        raise ResultsError(path, f"not valid JSON ({e.location}: {e.problem})") from None
    needed = {"game", "agents", "format", "games_per_pairing", "seed", "pairings"}
    if not isinstance(settings, dict) or not needed <= set(settings):
        raise ResultsError(path, f"not a tournament record (needs {', '.join(sorted(needed))})")
    for name, what in REQUIRED_FILES.items():
        if not (folder / name).is_file():
            raise ResultsError(folder / name, f"missing: {what} of the tournament; run the tournament again "
                                              "with --out to rewrite the folder")
    try:
        standings = pd.read_parquet(folder / "standings.parquet")
        head = pd.read_csv(folder / "head_to_head.csv")
        paired = pd.read_csv(folder / "paired.csv") if (folder / "paired.csv").is_file() else pd.DataFrame()
    except (OSError, ValueError) as e:
        raise ResultsError(folder, f"a tournament file cannot be read ({e})") from None
    return settings, standings, head, paired


def _elo_text(row: Any) -> str:
    if math.isnan(row.elo_ci_low):
        return f"{row.elo:.0f}"
    return f"{row.elo:.0f} [{row.elo_ci_low:.0f}, {row.elo_ci_high:.0f}]"


def tournament_section(settings: dict[str, Any], folder: Path) -> Section:
    """What was played: game, format, agents, games per pairing, seed, and the command that repeats it."""
    facts = [("game", settings["game"]), ("players", settings.get("players", "")), ("format", settings["format"]),
             ("agents", ", ".join(settings["agents"])), ("challenger", settings.get("gauntlet") or "none"),
             ("pairings", len(settings["pairings"])), ("games per pairing", settings["games_per_pairing"]),
             ("deals", "duplicate: every deal played with every seat rotation" if settings.get("duplicate")
              else "one deal per game"),
             ("tournament seed", settings["seed"]),
             ("game parameters", ", ".join(f"{k}={v}" for k, v in (settings.get("game_params") or {}).items())
              or "defaults")]
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in facts)
    parts = [f'<table class="facts">{rows}</table>']
    if settings.get("command"):
        parts.append(f"<p>To play it again (a pairing's games depend only on the seed and its agents):</p>"
                     f"<pre>{html.escape(settings['command'])}</pre>")
    caption = f"What was played, read from {folder / TOURNAMENT_MANIFEST}."
    return Section("Tournament", caption, parts)


def standings_section(settings: dict[str, Any], standings: pd.DataFrame) -> Section:
    """Rank, W/D/L, score rate with its Wilson interval, Elo and Bradley-Terry strength with bootstrap intervals."""
    table = standings.set_index("agent")
    table["Elo [95% bootstrap]"] = [_elo_text(row) for row in table.itertuples()]
    table = combine_interval(table, "score rate [95% Wilson]", "score_rate", "score_ci_low", "score_ci_high", "rate")
    table = combine_interval(table, "Bradley-Terry strength [95%]", "bt_strength", "bt_ci_low", "bt_ci_high", "mean")
    shown = table[["rank", "games", "wins", "draws", "losses", "score rate [95% Wilson]", "Elo [95% bootstrap]",
                   "Bradley-Terry strength [95%]"]]
    anchor = (f"{settings['anchor']} fixed at {settings.get('anchor_rating', 1500):.0f}" if settings.get("anchor")
              else f"the mean fixed at {settings.get('anchor_rating', 1500):.0f}")
    caption = ("Each agent's games over all its pairings (draws count half in the score rate) and its rating: a "
               f"Bradley-Terry fit on the Elo scale with {anchor}, {settings.get('prior_draws', 1):g} virtual "
               f"draw(s) per agent against the pool, and 95% percentile-bootstrap intervals over "
               f"{settings.get('n_boot', 0)} resamples of games within pairings (no interval for an agent with "
               f"fewer than {MIN_ENCOUNTERS_FOR_INTERVAL} encounters).")
    fig = report_figure(7, 0.5 + 0.45 * len(table))
    ax = fig.add_subplot(1, 1, 1)
    low = np.where(np.isnan(table["elo_ci_low"].to_numpy(float)), table["elo"], table["elo_ci_low"])
    high = np.where(np.isnan(table["elo_ci_high"].to_numpy(float)), table["elo"], table["elo_ci_high"])
    interval_points(ax, list(table.index), table["elo"].to_numpy(float), low, high,
                    reference=float(settings.get("anchor_rating", 1500)))
    ax.set_title("Ratings")
    ax.set_xlabel("Elo (95% bootstrap interval where there are enough encounters)")
    return Section("Standings", caption, [table_html(shown, {"rank": str, "games": str}),
                                          figure_html(fig, "ratings with their intervals")])


def matrix_section(agents: list[str], head: pd.DataFrame) -> Section:
    """The pairwise score-rate matrix: row agent against column agent, Wilson interval and encounters."""
    cells = pd.DataFrame("", index=pd.Index(agents, name="agent (row) against"), columns=agents)
    rates = pd.DataFrame(np.nan, index=agents, columns=agents)
    for row in head.itertuples(index=False):
        for me, them, rate, low, high in ((row.agent_a, row.agent_b, row.a_score_rate, row.a_ci_low, row.a_ci_high),
                                          (row.agent_b, row.agent_a, 1 - row.a_score_rate, 1 - row.a_ci_high,
                                           1 - row.a_ci_low)):
            if me in cells.index and them in cells.columns:
                cells.loc[me, them] = f"{percent(rate)} [{100 * low:.1f}, {100 * high:.1f}] (n={row.games})"
                rates.loc[me, them] = rate
    for agent in agents:
        cells.loc[agent, agent] = "-"
    fig = report_figure(4.5 + 1.0 * len(agents), 3 + 0.8 * len(agents))
    ax = fig.add_subplot(1, 1, 1)
    image = ax.imshow(100 * rates.to_numpy(float), cmap="RdBu", vmin=0, vmax=100)
    short = [a if len(a) <= 24 else a[:22] + "..." for a in agents]
    ax.set_xticks(range(len(agents)))
    ax.set_xticklabels(short, rotation=90, fontsize="small")     # upright long names would collide
    ax.set_yticks(range(len(agents)))
    ax.set_yticklabels(short, fontsize="small")
    for (i, j), value in np.ndenumerate(100 * rates.to_numpy(float)):
        if not np.isnan(value):
            ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=8)
    ax.set_title("Score rate of the row agent against the column agent (%)")
    fig.colorbar(image, ax=ax, label="score rate (%)")
    caption = ("Each cell: the score rate of the row agent against the column agent over their encounters (draws "
               "count half), its Wilson 95% interval and the number of encounters n; blank where they never met. "
               "Cells mirror each other: row against column is 100% minus column against row.")
    return Section("Pairwise score rates", caption, [table_html(cells),
                                                     figure_html(fig, "heat map of pairwise score rates")])


def first_seat_section(settings: dict[str, Any]) -> Section | None:
    """The score rate of the seat that moved first, over every game of the tournament."""
    first = settings.get("first_seat")
    if not first:
        return None
    table = pd.DataFrame([first], index=pd.Index(["first seat"], name=""))
    table = combine_interval(table, "first seat's score rate [95% Wilson]", "first_seat_score_rate", "ci_low",
                             "ci_high", "rate")
    caption = ("The seat that made each game's first decision, whichever agent held it: an interval that excludes "
               f"{percent(1 / max(2, int(settings.get('players') or 2)))} is an advantage (or handicap) of moving first.")
    return Section("First-seat advantage", caption, [table_html(table, {c: str for c in table.columns
                                                                       if "score rate" not in c})])


def paired_section(settings: dict[str, Any], paired: pd.DataFrame) -> Section | None:
    """Each pairing's score-rate difference paired over its deals (duplicate tournaments only)."""
    if paired.empty:
        return None
    table = combine_interval(paired, "score-rate difference [95% t over deals]", "difference", "ci95_low",
                             "ci95_high", "mean")
    shown = table.drop(columns=[c for c in ("measure", "pairing") if c in table.columns]).set_index("agent")
    caption = ("A duplicate tournament plays every deal of a pairing with every seat rotation, so each agent's "
               "score-rate difference from its opponent is a mean over deals of the per-deal difference (agent "
               "minus versus), beside the standard error the same games would give unpaired; the variance ratio "
               "is how many times fewer games pairing needs for the same precision.")
    return Section("Paired over deals", caption, [table_html(shown, {"deals": str})])


def build_tournament_report(folder: str | Path) -> str:
    """The report of a tournament folder as one self-contained HTML document."""
    folder = Path(folder)
    settings, standings, head, paired = read_tournament(folder)
    agents = list(standings["agent"])
    title = f"Tournament report: {settings['game']}, {settings['format']} of {len(agents)} agents"
    games = int(standings["games"].sum() // max(1, int(settings.get("players") or 2)))
    intro = [f"<h1>{html.escape(title)}</h1>",
             f"<p>{games} games from <code>{html.escape(str(folder))}</code>, tournament seed {settings['seed']}.</p>"]
    sections = [tournament_section(settings, folder), standings_section(settings, standings),
                matrix_section(agents, head), first_seat_section(settings), paired_section(settings, paired)]
    return html_document(title, intro, [s for s in sections if s is not None])


def write_tournament_report(folder: str | Path, out: str | Path | None = None) -> Path:
    """Write the report of the tournament folder `folder` to `out` (default: FOLDER/report.html); the path."""
    folder = Path(folder)
    return write_html(build_tournament_report(folder), Path(out) if out is not None else folder / "report.html")
