"""What the Caverna balance study found, laid out once and rendered twice: as `summary.md` (Markdown, what
`cavekit caverna-study` prints) and as the HTML study report (`cavekit report STUDY`, with the figures).

Each `Part` is a heading, a table of text cells (its index is the first column) and notes; `summary_parts`
makes them from the study's tables (`study.load_tables`), in reading order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..report import Section, figure_html, report_figure, table_html
from ..study_tables import estimate_text as fmt
from .balance import PLACEBO_RATE
from .figures import (draw_archetypes, draw_armed_seats, draw_ban_effects, draw_categories, draw_seat_advantage,
                      draw_space_heatmap)
from .outcomes import CATEGORIES

PER_BUILD_RATE = 0.1      # a tile's per-build value is shown from this build rate on (below, it magnifies noise)


@dataclass(frozen=True)
class Part:
    """One part of the summary: `key` names it (and its figure), then a heading, a table, notes."""

    key: str
    title: str
    table: pd.DataFrame | None          # text cells, the index being the first column; None: no table
    notes: tuple[str, ...] = ()


def _table(rows: list[dict[str, str]], columns: list[str]) -> pd.DataFrame:
    """Text rows as a table whose first column is its index."""
    return pd.DataFrame(rows, columns=columns).set_index(columns[0])


def seat_part(seats: pd.DataFrame) -> Part:
    """Win share and mean score by starting position, at each player count."""
    rows = [{"players": str(r.players), "position": str(r.position), "games": str(r.games),
             "win share [95%]": fmt(r.win_share, r.win_low, r.win_high), "fair": f"{r.fair:.3f}",
             "mean score [95%]": fmt(r.mean_score, r.mean_score_low, r.mean_score_high, 1)}
            for r in seats.itertuples()]
    return Part("seat_advantage", "Seat advantage (win share by starting position; fair = 1/players)",
                _table(rows, ["players", "position", "games", "win share [95%]", "fair", "mean score [95%]"]))


def family_part(family: pd.DataFrame) -> Part:
    """Dwarfs at the end and score a seat, at each player count."""
    rows = [{"players": str(r.players), "games": str(r.games),
             "dwarfs at the end [95%]": fmt(r.dwarfs, r.dwarfs_low, r.dwarfs_high, 2), "grew past 2": f"{r.grew:.0%}",
             "score a seat [95%]": fmt(r.score, r.score_low, r.score_high, 1)} for r in family.itertuples()]
    return Part("family", "Family and score a seat",
                _table(rows, ["players", "games", "dwarfs at the end [95%]", "grew past 2", "score a seat [95%]"]))


def armed_part(armed: pd.DataFrame) -> Part:
    """The seats that forged a weapon against the others, at each player count."""
    columns = ["players", "seats that forged", "their win share [95%]", "the others'", "fair",
               "their score / the others'", "weapons a game", "position that forged most (share of the forges)"]
    rows = []
    for r in armed.itertuples():
        top = f"{int(r.top_position)} ({r.top_position_share:.0%})" if r.top_position else "-"
        rows.append(dict(zip(columns, [str(r.players), f"{r.armed:.0%}", fmt(r.win_share, r.win_low, r.win_high),
                                       f"{r.others_win_share:.3f}", f"{r.fair:.3f}",
                                       f"{r.armed_score:.1f} / {r.others_score:.1f}", f"{r.forges:.2f}", top])))
    return Part("armed_seats", "Seats that forged a weapon against the others (win share; fair = 1/players)",
                _table(rows, columns))


def category_part(categories: pd.DataFrame, winners: pd.DataFrame) -> Part:
    """Each scoring category's mean points a seat by player count, and what the winners score more."""
    counts = sorted(categories["players"].unique())
    points = categories.pivot(index="category", columns="players", values="points")
    by_winners = winners.pivot_table(index=["category", "players"], columns="winners", values="points")
    by_winners = by_winners.reindex(columns=["winners", "the others"])     # every game shared: no others
    lead = (by_winners["winners"] - by_winners["the others"]).unstack("players")
    columns = ["category"] + [f"{n} players" for n in counts]
    rows = []
    for category in (c for c in CATEGORIES if c in points.index):
        cells = [f"{points.at[category, n]:.1f}" + ("" if np.isnan(lead.at[category, n]) else
                                                    f" ({lead.at[category, n]:+.1f})") for n in counts]
        rows.append(dict(zip(columns, [category.replace("_", " ")] + cells)))
    return Part("categories", "Points per category, a seat (mean by player count; in brackets, the winners' lead "
                "over the others)", _table(rows, columns))


def space_part(spaces: pd.DataFrame) -> Part:
    """The action spaces whose takers' win share has an interval that excludes the fair share."""
    apart = spaces[(spaces["win_high"] < spaces["fair"]) | (spaces["win_low"] > spaces["fair"])]
    apart = apart.sort_values(["players", "win_share"], ascending=[True, False])
    columns = ["players", "space", "placements a game", "takers' win share [95%]", "fair"]
    rows = [dict(zip(columns, [str(r.players), r.space, f"{r.per_game:.2f}", fmt(r.win_share, r.win_low, r.win_high),
                               f"{r.fair:.3f}"])) for r in apart.itertuples()]
    return Part("action_spaces", f"Action spaces whose takers win more or less than their fair share ({len(apart)} "
                f"of {len(spaces)} space and player-count pairs)", _table(rows, columns) if rows else None)


def ban_part(bans: pd.DataFrame) -> Part:
    """The ten largest access values of the tiles built, the tiles whose access lowers the score, and the
    placebo check."""
    placebos, built = bans[bans["placebo"]], bans[~bans["placebo"]]
    reference = (f"against the mean of the {len(placebos)} placebo tiles' runs (built by under "
                 f"{PLACEBO_RATE:.0%} of seats)" if len(placebos) else "against the baseline run")
    columns = ["tile", "built by (share of seats)", "access value, points [95%]",
               f"per build, points (built by {PER_BUILD_RATE:.0%}+)"]
    rows = [dict(zip(columns, [r.name, f"{r.build_rate:.0%}", fmt(r.access_score, r.score_low, r.score_high, 2),
                               f"{r.per_build_score:.1f}" if r.build_rate >= PER_BUILD_RATE else "-"]))
            for r in built.head(10).itertuples()]
    notes = []
    below = built[built["score_high"] < 0]
    if len(below):
        notes.append("Access lowers the score (interval below 0): " + ", ".join(
            f"{r.name} {fmt(r.access_score, r.score_low, r.score_high, 2)}, built by {r.build_rate:.0%}"
            for r in below.itertuples()) + ".")
    if len(placebos):
        apart = int(((placebos["score_low"] > 0) | (placebos["score_high"] < 0)).sum())
        notes.append(f"Placebo check: the placebo tiles' own values (each against the others) average "
                     f"{placebos['access_score'].mean():+.2f} points, sd {placebos['access_score'].std():.2f}; "
                     f"{apart} of {len(placebos)} intervals exclude 0 (about 1 in 20 would by chance).")
    return Part("furnishing_bans", f"Furnishing tiles: value of access (two players, paired bans; "
                f"{int(bans['paired'].max())} paired seat-games a tile, {reference}), the ten largest",
                _table(rows, columns), tuple(notes))


def archetype_part(arche: pd.DataFrame, players: int = 2) -> Part:
    """The archetypes found at `players` players, best mean score first."""
    columns = ["archetype", "share", "win share [95%]", "mean score [95%]", "dwarfs"]
    rows = [dict(zip(columns, [r.archetype, f"{r.share:.0%}", fmt(r.win_share, r.win_low, r.win_high),
                               fmt(r.mean_score, r.mean_score_low, r.mean_score_high, 1), f"{r.dwarfs:.2f}"]))
            for r in arche[arche["players"] == players].itertuples()]
    return Part("archetypes", f"Archetypes (k-means on end positions), {'two' if players == 2 else players} players",
                _table(rows, columns))


def comparison_part(comparison: pd.DataFrame) -> Part:
    """The measures whose intervals are apart between the analysis agent and `strongest`."""
    changed = comparison[comparison["changes"]]
    columns = ["measure", "analysis [95%]", "strongest [95%]"]
    rows = [dict(zip(columns, [r.measure, fmt(r.analysis, r.analysis_low, r.analysis_high, 2),
                               fmt(r.strongest, r.strongest_low, r.strongest_high, 2)])) for r in changed.itertuples()]
    return Part("agent_comparison", f"Analysis agent against strongest ({int(comparison['games'].iloc[0])} "
                f"two-player deals): {len(changed)} of {len(comparison)} measures change (intervals apart)",
                _table(rows, columns) if rows else None)


def summary_parts(tables: dict[str, pd.DataFrame]) -> list[Part]:
    """The summary's parts in reading order."""
    return [seat_part(tables["seat_advantage"]), family_part(tables["family"]), armed_part(tables["armed_seats"]),
            category_part(tables["categories"], tables["winners_categories"]),
            space_part(tables["action_spaces_by_count"]), ban_part(tables["furnishing_bans"]),
            archetype_part(tables["archetypes"]), comparison_part(tables["agent_comparison"])]


# ---------------------------------------------------------------- Markdown (summary.md)

def markdown_lines(part: Part) -> list[str]:
    """A part as Markdown: `## title`, its table, its notes."""
    lines = ["", f"## {part.title}", ""]
    if part.table is not None:
        table = part.table.reset_index()
        lines += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
        lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in table.itertuples(index=False)]
    for note in part.notes:
        lines += ["", note]
    return lines


def summary_markdown(tables: dict[str, pd.DataFrame], command: str | None = None) -> str:
    """The study's headline tables as Markdown (what `cavekit caverna-study` prints and writes to summary.md)."""
    lines = ["# Caverna balance study"]
    if command:
        lines += ["", f"Command: `{command}`"]
    for part in summary_parts(tables):
        lines += markdown_lines(part)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- HTML (cavekit report STUDY)

def _figure(draw: Callable[[Any, pd.DataFrame], None], table: pd.DataFrame, width: float, height: float,
            alt: str) -> str:
    fig = report_figure(width, height)
    draw(fig.add_subplot(), table)
    return figure_html(fig, alt)


def _figures(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The study report's figures by part key, as HTML."""
    seats, armed, bans = tables["seat_advantage"], tables["armed_seats"], tables["furnishing_bans"]
    two_spaces = tables["action_spaces"]
    arche = tables["archetypes"]
    heatmap = report_figure(10, 1.5 + 0.3 * two_spaces["space"].nunique())
    draw_space_heatmap(heatmap, heatmap.add_subplot(), two_spaces)
    return {
        "seat_advantage": _figure(draw_seat_advantage, seats, 9, 1.2 + 0.3 * len(seats),
                                  "win share above the fair share by starting position"),
        "armed_seats": _figure(draw_armed_seats, armed, 8, 1.5 + 0.45 * len(armed),
                               "win share of the seats that forged a weapon and of the others"),
        "categories": _figure(draw_categories, tables["categories"], 11, 4.5, "mean points a seat by category"),
        "action_spaces": "<p>The figure: two players, by round; the table: every player count, the whole game.</p>"
                         + figure_html(heatmap, "two players: takers' win share by action space and round"),
        "furnishing_bans": _figure(draw_ban_effects, bans, 9, 1.5 + 0.3 * min(20, int((~bans["placebo"]).sum())),
                                   "value of access to each furnishing tile"),
        "archetypes": _figure(draw_archetypes, arche[arche["players"] == 2].set_index("archetype"), 9, 3.5,
                              "mean score of each two-player archetype"),
    }


def report_sections(tables: dict[str, pd.DataFrame]) -> list[Section]:
    """The Caverna study report's sections (`cavekit report STUDY`): each summary part with its figure."""
    figures = _figures(tables)
    sections = []
    for part in summary_parts(tables):
        parts = [figures[part.key]] if part.key in figures else []
        if part.table is not None:
            parts.append(table_html(part.table))
        sections.append(Section(part.title, " ".join(part.notes), parts))
    return sections
