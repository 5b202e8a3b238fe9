"""`cavekit report`: one self-contained HTML balance report from a results folder.

The report is a single file: styles inline, figures embedded as base64 PNG (matplotlib, Agg), no scripts and
nothing fetched from the network, so it can be mailed or archived as it is. The tables come from
`analysis/balance.py`; this module only lays them out and draws them. Every game gets the generic sections
(the run, results per agent, first-player advantage, score distributions, game length); a game's analysis
hook `report_sections(data)` adds its own (Cave vs Cave: action tiles, rooms, solo targets). A study folder
(`study.json`, written by a game's study command) gets the game's study report (`study_report_sections`).
"""
from __future__ import annotations

import base64
import html
import io
import math
import shlex
import textwrap
from urllib.parse import quote
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..core.api import CavekitError
from ..core.registry import game_spec
from . import balance
from .paired import first_player_paired, is_paired, paired_differences
from .results import ResultsError, load_results, read_manifest
from .stored_games import check_loaded
from .stats import seat_count
from .study_tables import STUDY_FILE, study_game

FIGURE_DPI = 96


@dataclass
class ReportData:
    """What every section reads: the folder's manifest and its games and decisions tables."""

    folder: Path
    manifest: dict[str, Any]
    games: pd.DataFrame
    decisions: pd.DataFrame

    @property
    def seats(self) -> int:
        return seat_count(self.games)

    @property
    def partial(self) -> bool:
        return len(self.games) < self.manifest["games"]


@dataclass
class Section:
    """One titled part of the report: a one-line caption, then tables and figures as HTML."""

    title: str
    caption: str
    parts: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- formatting

def percent(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def number(x: float, digits: int = 1) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _rate_with_interval(rate: float, low: float, high: float) -> str:
    if isinstance(rate, float) and math.isnan(rate):
        return ""
    return f"{percent(rate)} [{100 * low:.1f}, {100 * high:.1f}]"


def _mean_with_interval(mean: float, low: float, high: float) -> str:
    if isinstance(mean, float) and math.isnan(mean):
        return ""
    if isinstance(low, float) and math.isnan(low):
        return f"{mean:.1f}"
    return f"{mean:.1f} [{low:.1f}, {high:.1f}]"


def combine_interval(table: pd.DataFrame, name: str, value: str, low: str, high: str, kind: str) -> pd.DataFrame:
    """Replace three columns (value and its 95% bounds) by one text column `name`."""
    fmt = _rate_with_interval if kind == "rate" else _mean_with_interval
    out = table.copy()
    out.insert(out.columns.get_loc(value), name,
               [fmt(v, lo, hi) for v, lo, hi in zip(out[value], out[low], out[high])])
    return out.drop(columns=[value, low, high])


def table_html(table: pd.DataFrame, formats: dict[str, Callable[[Any], str]] | None = None) -> str:
    """A DataFrame as an HTML table, numbers right-aligned, with per-column formatters."""
    formatters = dict(formats or {})
    for column in table.columns:
        if column not in formatters and pd.api.types.is_float_dtype(table[column]):
            formatters[column] = number
    # The index becomes the first column so the header is one row, not pandas' two.
    return table.reset_index().to_html(formatters=formatters, index=False, border=0, na_rep="", justify="right",
                                       classes="data")


def tidy_figure(fig: Figure) -> Figure:
    """Lay a report figure out so that its labels keep apart: each title wrapped to its plot's width, then
    matplotlib's constrained layout, which spaces titles, tick labels, axis labels and colour bars so they
    neither overlap nor run into a neighbouring plot (long room names beside a second plot did)."""
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")     # (a figure with a colour bar must be made with report_figure)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()                                # the layout, to measure each title against its plot
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        title = ax.title
        text = " ".join(title.get_text().split())
        plot, drawn = ax.get_window_extent(renderer).width, title.get_window_extent(renderer).width
        if text and drawn > plot:
            title.set_text(textwrap.fill(text, max(12, int(len(text) * plot / drawn * 0.9))))
    return fig


def report_figure(width: float, height: float) -> Figure:
    """A new figure for the report, `width` x `height` inches, laid out by matplotlib's constrained layout."""
    return Figure(figsize=(width, height), layout="constrained")


def figure_html(fig: Figure, alt: str) -> str:
    """A matplotlib figure, tidied (`tidy_figure`), as an embedded PNG <img> (base64 data URI)."""
    tidy_figure(fig)
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></figure>'


def score_bins(scores: np.ndarray) -> np.ndarray:
    low, high = int(np.floor(scores.min())), int(np.ceil(scores.max()))
    width = max(1, math.ceil((high - low + 1) / 40))
    return np.arange(low, high + width + 1, width) - 0.5


# ---------------------------------------------------------------- run section

def _is_cli_value(value: Any) -> bool:
    return isinstance(value, (str, int, bool)) and not (isinstance(value, str) and ("=" in value or not value))


def _default_params(game: str, players: int) -> dict[str, Any] | None:
    from ..core.registry import load_game
    try:
        return load_game(game, players=players).parameters()
    except (CavekitError, TypeError, ValueError):
        return None


def _default_engine(game: str) -> str | None:
    try:
        return game_spec(game).default_engine
    except CavekitError:
        return None


def reproduce_commands(manifest: dict[str, Any], folder: Path) -> tuple[str | None, str]:
    """The `cavekit match` command that repeats (or resumes) the run, if the CLI can express its parameters
    (those that differ from the defaults), and the equivalent `run_match` Python call, which always can (with
    every parameter of the manifest, as a dict literal: no manifest content can become code in it)."""
    game, players = manifest["game"], manifest["players"]
    params = {k: v for k, v in manifest["params"].items() if k != "players"}
    defaults = _default_params(game, players)
    changed = {k: v for k, v in params.items() if defaults is None or defaults.get(k) != v}
    words = ["cavekit", "match", game, "--agents", *manifest["agents"], "--games", str(manifest["games"]),
             "--seed", str(manifest["seed"]), "--players", str(players), "--chunk-size", str(manifest["chunk_size"])]
    duplicate = bool(manifest.get("duplicate", False))
    if duplicate:
        words.append("--duplicate")
    engine = manifest.get("engine")
    if engine is not None and engine != _default_engine(game):
        words += ["--engine", str(engine)]
        changed_engine = f", engine={str(engine)!r}"
    else:
        changed_engine = ""
    cli: str | None = None
    # `--param NAME=VALUE` splits at the first "=", so only a plain name can be given on the command line.
    if all(_is_cli_value(v) and _is_cli_name(k) for k, v in changed.items()):
        for key, value in changed.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words += ["--param", f"{key}={text}"]
        words += ["--out", str(folder)]
        cli = " ".join(shlex.quote(w) for w in words)
    # The game's parameters go in as one dict literal (`**{...}`) built by repr, never as `name=value` text: a
    # name comes from the manifest, and spliced in as a keyword it could be any code (`x=print('hi'),y`). All
    # of them, defaults too, so the call is exactly the folder's game even if a later cavekit changes a default.
    keyword = f", **{python_literal(manifest['params'])}" if manifest["params"] else ""
    seats = "" if "players" in manifest["params"] else f", players={int(players)}"
    python = (f"from cavekit.analysis.batch import run_match; run_match({game!r}, {python_literal(manifest['agents'])}, "
              f"{int(manifest['games'])}, {int(manifest['seed'])}, out={str(folder)!r}, "
              f"chunk_size={int(manifest['chunk_size'])}{seats}"
              f"{', duplicate=True' if duplicate else ''}{changed_engine}{keyword})")
    return cli, python


def _is_cli_name(name: str) -> bool:
    return name.isidentifier()


def python_literal(value: Any) -> str:
    """`value` (read from JSON: dicts, lists, text, numbers, true/false/null) as Python source that
    `ast.literal_eval` reads back as an equal value: repr of every part, so no text in it can be code."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{python_literal(str(k))}: {python_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if value is None or isinstance(value, (str, bool, int)):
        return repr(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    # (read_manifest refuses NaN and infinities; anything else has no literal, so it is spelled as text)
    return repr(str(value))


def _deals_fact(manifest: dict[str, Any]) -> str:
    if manifest.get("deal_scheme") is None:
        return "none: written before deals, chance drawn from one stream in the order play met it"
    plan = ("duplicate: every deal played with every seat assignment" if manifest.get("duplicate")
            else "one deal per game")
    return f"{plan} (deal scheme {manifest['deal_scheme']})"


def run_section(data: ReportData) -> Section:
    """The run: game, parameters, agents, seed, games done of requested, code version, dates, how to reproduce."""
    m = data.manifest
    version = m.get("code_version") or {}
    commit = version.get("git_commit")
    code = f"cavekit {version.get('cavekit') or 'unknown'}"
    if commit:
        code += f", git {commit[:12]}" + (" with uncommitted changes" if version.get("git_dirty") else "")
    done = f"{len(data.games)} of {m['games']}"
    if data.partial:
        done += " (partial run: every number below covers the finished games only)"
    facts = [("game", m["game"]), ("players", m["players"]), ("engine", m.get("engine") or "default"),
             ("agents (seat order of game 0; seats rotate every game)", ", ".join(m["agents"])),
             ("master seed", m["seed"]), ("games done / requested", done), ("chunk size", m["chunk_size"]),
             ("deals", _deals_fact(m)),
             ("code version", code), ("created", m.get("created", "")), ("last updated", m.get("updated", ""))]
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in facts)
    params = pd.DataFrame({"value": [str(v) for v in m["params"].values()]},
                          index=pd.Index(list(m["params"].keys()), name="parameter"))
    cli, python = reproduce_commands(m, data.folder)
    how = "<p>To reproduce (or resume) this run:</p>"
    if cli:
        how += f"<pre>{html.escape(cli)}</pre><p>or from Python:</p>"
    else:
        how += "<p>(a parameter value cannot be given on the command line, so from Python:)</p>"
    how += f"<pre>{html.escape(python)}</pre>"
    caption = "What was played and with which code; the master seed and parameters fix every game."
    return Section("Run", caption, [f'<table class="facts">{rows}</table>',
                                    "<h3>Game parameters</h3>" + table_html(params), how])


# ---------------------------------------------------------------- generic sections

def agents_section(data: ReportData) -> Section:
    """Per-agent results: W/D/L and score rate with Wilson intervals, mean score with its interval."""
    table = balance.agent_results(data.games)
    table = combine_interval(table, "mean score (points) [95%]", "mean_score", "mean_low", "mean_high", "mean")
    if data.seats > 1:
        table = combine_interval(table, "score rate [95% Wilson]", "score_rate", "ci95_low", "ci95_high", "rate")
        caption = ("Results of each agent over all the seats it played; the score rate counts a draw as half a "
                   "win. Brackets are 95% intervals (Wilson for rates, Student t for means).")
    else:
        caption = "Final scores of the solo agent; brackets are a Student-t 95% interval."
    return Section("Results per agent", caption, [table_html(table)])


def first_player_section(data: ReportData) -> Section:
    """How the player who moved first fared, with its interval and the mean score margin."""
    table = balance.first_player_advantage(data.games)
    table = combine_interval(table, "first player's score rate [95% Wilson]", "score_rate", "ci95_low", "ci95_high", "rate")
    table = combine_interval(table, "mean score margin, first minus other (points) [95%]", "mean_score_margin",
                     "margin_low", "margin_high", "mean")
    caption = ("The player who made the first decision of each game, whichever agent it was: a score rate whose "
               "interval excludes 50% means moving first is an advantage (or a handicap) for these agents.")
    table.index = pd.Index(["first player"], name="")
    return Section("First-player advantage", caption, [table_html(table, {"games": str})])


def ties_section(data: ReportData) -> Section:
    """How many games ended level on points, and how the rules' tie-break settled them."""
    caption = ("Games in which two or more players shared the best points: drawn, or decided by the game's "
               "tie-break (Cave vs Cave: the most valuable rooms). A tie-break that mostly favours one seat is "
               "part of that seat's advantage.")
    return Section("Ties", caption, [table_html(balance.tie_counts(data.games))])


def paired_section(data: ReportData) -> Section:
    """Differences between agents paired over deals, beside their unpaired standard errors."""
    measures = ["points"] if data.seats == 1 else ["score_rate", "points"]
    parts = []
    for measure in measures:
        table = paired_differences(data.games, measure)
        if len(table):
            table = combine_interval(table, f"difference in {measure.replace('_', ' ')} [95% t over deals]",
                                     "difference", "ci95_low", "ci95_high", "mean")
            parts.append(table_html(table.set_index("agent"), {"deals": str}))
    if data.seats > 1:
        first = first_player_paired(data.games)
        parts.append("<h3>First player's score rate</h3>" + table_html(first, {"games": str, "deals": str}))
    caption = ("Every deal was played by both sides, so each difference is a mean over deals of the per-deal "
               "difference (first agent minus the second). The unpaired standard error is the one the same games "
               "would give if each had a deal of its own; the variance ratio, (unpaired / paired) squared, is how many times fewer games "
               "pairing needs for the same precision.")
    return Section("Paired over deals", caption, parts)


def scores_section(data: ReportData) -> Section:
    """Score histograms per agent and per seat, with their summary tables."""
    rows = balance.seat_rows(data.games)
    bins = score_bins(rows["score"].to_numpy(dtype=float))
    by_seat = data.seats > 1
    fig = report_figure(11 if by_seat else 6.5, 3.8)
    groups = [("agent", "per agent")] + ([("player", "per seat")] if by_seat else [])
    for k, (key, label) in enumerate(groups):
        ax = fig.add_subplot(1, len(groups), k + 1)
        for value, group in rows.groupby(key, sort=True):
            name = f"seat {value}" if key == "player" else str(value)
            ax.hist(group["score"], bins=bins, histtype="step", linewidth=1.8, label=f"{name} (n={len(group)})")
        ax.set_title(f"Final scores {label}")
        ax.set_xlabel("final score (points)")
        ax.set_ylabel("games (count)")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize="small")
    parts = [figure_html(fig, "histograms of final scores")]
    formats = {"n": str}
    for key, label in groups:
        table = balance.score_summary(data.games, by=key)
        table = combine_interval(table, "mean [95%]", "mean", "mean_low", "mean_high", "mean")
        parts.append(f"<h3>Scores {label} (points)</h3>" + table_html(table, formats))
    caption = ("Distribution of final scores in points" + (" for each agent and for each seat (seat 0 is the "
               "first listed seat, not necessarily the first to move)." if by_seat else "."))
    return Section("Score distributions", caption, parts)


def length_section(data: ReportData) -> Section:
    """Game length: decisions per game histogram and the length table."""
    fig = report_figure(6.5, 3.5)
    ax = fig.add_subplot(1, 1, 1)
    decisions = data.games["decisions"].to_numpy()
    width = max(1, math.ceil((decisions.max() - decisions.min() + 1) / 40))
    ax.hist(decisions, bins=np.arange(decisions.min(), decisions.max() + width + 1, width) - 0.5, color="#4c72b0")
    ax.set_title("Game length")
    ax.set_xlabel("player decisions per game (count)")
    ax.set_ylabel("games (count)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    table = balance.length_summary(data.games)
    table = combine_interval(table, "mean [95%]", "mean", "mean_low", "mean_high", "mean")
    caption = ("How long games are, in player decisions (every atomic action counts, so a turn is several) and in "
               "steps of the full history (chance outcomes included).")
    return Section("Game length", caption, [figure_html(fig, "histogram of decisions per game"), table_html(table)])


# ---------------------------------------------------------------- Cave vs Cave

def report_sections(data: ReportData) -> list[Section]:
    """Every section of the report for this folder, in reading order."""
    sections = [run_section(data), agents_section(data)]
    if data.seats > 1:
        sections += [first_player_section(data), ties_section(data)]
    if is_paired(data.games) and data.games[[f"agent_{p}" for p in range(data.seats)]].stack().nunique() > 1:
        sections.append(paired_section(data))
    sections += [scores_section(data), length_section(data)]
    game_sections = game_spec(data.manifest["game"]).analysis_hook("report_sections")
    if game_sections is not None:
        sections += game_sections(data)
    return sections


# ---------------------------------------------------------------- links to replays (`cavekit serve`)

REPLAY_LINKS_LIMIT = 500         # games listed with a replay link; the replay page lists them all


def replays_section(data: ReportData, replay_url: str) -> Section:
    """The games behind the numbers, each linked to its replay on a `cavekit serve` at `replay_url`."""
    from .web.pages import replay_link
    folder = str(data.folder.resolve())
    rows = []
    for d in data.games.head(REPLAY_LINKS_LIMIT).to_dict("records"):
        agents = ", ".join(str(d[f"agent_{p}"]) for p in range(data.seats))
        scores = " - ".join(str(d[f"score_{p}"]) for p in range(data.seats))
        winner = "draw" if d["winner"] < 0 and data.seats > 1 else ("" if d["winner"] < 0 else f"seat {d['winner']}")
        link = html.escape(replay_link(replay_url, folder, int(d["game"])))
        rows.append(f'<tr><td><a href="{link}">game {int(d["game"])}</a></td><td>{html.escape(agents)}</td>'
                    f"<td>{scores}</td><td>{winner}</td></tr>")
    listing = html.escape(f"{replay_url.rstrip('/')}/replay?folder={quote(folder)}")
    more = (f"<p>The first {REPLAY_LINKS_LIMIT} of {len(data.games)} games; <a href=\"{listing}\">the replay page</a> "
            "lists every one.</p>") if len(data.games) > REPLAY_LINKS_LIMIT else \
        f'<p><a href="{listing}">All games on the replay page</a>.</p>'
    table = ('<table class="data"><tr><th>game</th><th>agents by seat</th><th>scores</th><th>winner</th></tr>'
             + "".join(rows) + "</table>")
    caption = ("Every game behind these numbers, replayable step by step (with the acting agent and the score) in "
               "`cavekit serve` running at " + replay_url + ".")
    return Section("Games (replays)", caption, [more, table])


# ---------------------------------------------------------------- assembly

STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1150px; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
p.caption { color: #444; font-style: italic; margin-top: 0; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.6em 1em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #e3e3e3; }
table.data td { text-align: right; } table.data td:first-child { text-align: left; } table.facts th { text-align: left; }
pre { background: #f5f5f5; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 0.5em 0; } img { max-width: 100%; }
"""


def build_report(folder: str | Path, replay_url: str | None = None) -> str:
    """The balance report of a results folder as one self-contained HTML document; with `replay_url` (the
    address of a `cavekit serve`, e.g. http://127.0.0.1:8765) it ends with links to every game's replay."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    games, decisions = load_results(folder)
    # A null score or agent would become NaN in every table and fail deep in a section: refuse it here, naming
    # the chunk and the game.
    check_loaded(folder, manifest, games, decisions)
    if games.empty:
        raise ResultsError(folder, f"holds no finished games yet (0 of {manifest['games']}); nothing to report")
    data = ReportData(folder, manifest, games, decisions)
    title = f"Balance report: {manifest['game']}, {' vs '.join(manifest['agents'])}"
    body = [f"<h1>{html.escape(title)}</h1>",
            f"<p>{len(games)} games from <code>{html.escape(str(folder))}</code>, master seed {manifest['seed']}.</p>"]
    if data.partial:
        body.append(f'<p class="warning">Partial run: {len(games)} of the {manifest["games"]} requested games are '
                    "finished. Every number covers the finished games only; the command in the Run section "
                    "resumes the run.</p>")
    sections = report_sections(data) + ([replays_section(data, replay_url)] if replay_url else [])
    return html_document(title, body, sections)


def build_study_report(folder: str | Path) -> str:
    """The HTML report of a study folder (one with `study.json`, written by a game's study command): the game's
    `study_report_sections` hook lays out its tables and figures."""
    folder = Path(folder)
    game = study_game(folder)
    if game is None:
        raise ResultsError(folder, f"not a study folder (no {STUDY_FILE})")
    spec = game_spec(game)
    sections_of = spec.analysis_hook("study_report_sections")
    if sections_of is None:
        raise ResultsError(folder / STUDY_FILE, f"{spec.title} has no study report")
    title = f"Balance study: {spec.title}"
    intro = [f"<h1>{html.escape(title)}</h1>", f"<p>From the tables in <code>{html.escape(str(folder))}/tables</code>"
             " (every estimate with its 95% interval).</p>"]
    command = folder / "command.txt"
    if command.is_file():
        intro.append(f"<p>Made by <code>{html.escape(command.read_text(encoding='utf-8').strip())}</code>; the same "
                     "command resumes or re-makes it.</p>")
    return html_document(title, intro, sections_of(folder))


def html_document(title: str, intro: list[str], sections: list[Section]) -> str:
    """A self-contained HTML document: the title, `intro` (HTML), then each section with its caption."""
    body = list(intro)
    for section in sections:
        body.append(f"<section><h2>{html.escape(section.title)}</h2>"
                    f'<p class="caption">{html.escape(section.caption)}</p>{"".join(section.parts)}</section>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def write_report(folder: str | Path, out: str | Path | None = None, replay_url: str | None = None) -> Path:
    """Write the report of the results folder `folder` to `out` (default: FOLDER/report.html); the path written.
    `replay_url` links every game to its replay in a `cavekit serve` at that address. (A tournament folder's
    report: `tournament_report.write_tournament_report`.)"""
    folder = Path(folder)
    return write_html(build_report(folder, replay_url=replay_url),
                      Path(out) if out is not None else folder / "report.html")


def write_study_report(folder: str | Path, out: str | Path | None = None) -> Path:
    """Write the report of the study folder `folder` to `out` (default: FOLDER/report.html); the path written."""
    folder = Path(folder)
    return write_html(build_study_report(folder), Path(out) if out is not None else folder / "report.html")


def write_html(document: str, path: Path) -> Path:
    """Write an HTML report to `path`; a one-line CavekitError if it cannot be written."""
    try:
        path.write_text(document, encoding="utf-8")
    except OSError as e:
        raise CavekitError(f"cannot write the report to {path}: {e.strerror or e}") from None
    return path
