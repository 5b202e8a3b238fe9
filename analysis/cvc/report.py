"""Cave vs Cave's sections of the HTML balance report: action tiles, rooms and (solo) the 50/60-point marks."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .. import balance
from ..plots import interval_barh
from ..report import (ReportData, Section, combine_interval, figure_html, percent, number, report_figure,
                      score_bins, table_html)
from ...core.cvc.rules import CAVE_ENTRANCE, rules
from . import balance as cvc_balance


def tiles_section(data: ReportData) -> Section:
    """Action tiles: how often taken, when, how their takers fared, and which tile is picked first each round."""
    solo = data.seats == 1
    tiles = [t.name for t in rules().tiles if t.in_solo or not solo]
    table = cvc_balance.tile_table(data.decisions, data.games, tiles)
    fig = report_figure(7, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    if solo:
        interval_barh(ax, tiles, table["mean_score"].to_numpy(float), table["mean_low"].to_numpy(float),
                       table["mean_high"].to_numpy(float), "#55a868")
        ax.set_title("Mean final score of the solo games in which a tile was taken")
        ax.set_xlabel("mean final score (points), 95% interval")
    else:
        interval_barh(ax, tiles, 100 * table["taker_score_rate"].to_numpy(float),
                       100 * table["ci95_low"].to_numpy(float), 100 * table["ci95_high"].to_numpy(float), "#55a868")
        ax.axvline(50, color="#c44e52", linestyle="--", linewidth=1)
        ax.set_title("Score rate of the players who took each tile")
        ax.set_xlabel("score rate of takers (%), Wilson 95% interval")
        ax.set_xlim(0, 100)
    ax.set_ylabel("action tile")
    shown = combine_interval(table, "takers' mean final score (points) [95%]", "mean_score", "mean_low", "mean_high", "mean")
    if not solo:
        shown = combine_interval(shown, "takers' score rate [95% Wilson]", "taker_score_rate", "ci95_low", "ci95_high", "rate")
    shown = shown.rename(columns={"times_taken": "times taken", "per_game": "takes per game",
                                  "games_with": "share of games taken", "mean_round": "mean round taken",
                                  "takers": "takers (player-games)"})
    formats = {"share of games taken": percent, "takes per game": lambda x: number(x, 2)}

    picks = cvc_balance.first_pick_share(data.decisions, tiles)
    heat = report_figure(7, 4.5)
    ax = heat.add_subplot(1, 1, 1)
    image = ax.imshow(100 * picks.to_numpy(), aspect="auto", cmap="viridis", vmin=0, vmax=100)
    ax.set_xticks(range(picks.shape[1]))
    ax.set_xticklabels([str(c) for c in picks.columns])
    ax.set_yticks(range(len(picks)))
    ax.set_yticklabels(list(picks.index), fontsize="small")
    for (i, j), value in np.ndenumerate(100 * picks.to_numpy()):
        if value >= 0.5:
            ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=7,
                    color="black" if value > 60 else "white")
    ax.set_title("First tile taken in each round")
    ax.set_xlabel("round (1-based)")
    ax.set_ylabel("action tile")
    heat.colorbar(image, ax=ax, label="share of games (%)")
    pick_table = picks.rename(columns=lambda c: f"round {c}")
    pick_table = pick_table.loc[(pick_table > 0).any(axis=1)]
    caption = ("How often each action tile is taken, in which round, and how the players who took it fared (a "
               "player counts once per game however often they took it). Correlational: a tile's takers may "
               "win because of the position they were already in; a tile taken every game by both players sits "
               "near 50% by construction.")
    return Section("Action tiles", caption, [
        figure_html(fig, "takers' results per action tile"), table_html(shown, formats),
        "<h3>First pick per round</h3><p>Share of games in which each tile was the first one taken in that round "
        "(each column sums to 100% over the games that reached the round; tiles never picked first are left out "
        "of the table).</p>",
        figure_html(heat, "heat map of first picks per round"), table_html(pick_table, {c: percent for c in pick_table})])


def rooms_section(data: ReportData) -> Section:
    """Rooms: how often each is furnished, when, and how the players who furnished it fared."""
    rooms = [r.name for r in rules().rooms[:CAVE_ENTRANCE]]
    table = cvc_balance.room_table(data.decisions, data.games, rooms)
    solo = data.seats == 1
    order = table.sort_values("per_game", ascending=False)
    fig = report_figure(11 if not solo else 6.5, 6.5)
    ax = fig.add_subplot(1, 1 if solo else 2, 1)
    labels = list(order.index)
    y = np.arange(len(labels))
    ax.barh(y, order["per_game"].to_numpy(float), color="#8172b2")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_title("How often each room is furnished")
    ax.set_xlabel("times furnished per game (count)")
    ax.set_ylabel("room")
    if not solo:
        ax2 = fig.add_subplot(1, 2, 2)
        interval_barh(ax2, labels, 100 * order["taker_score_rate"].to_numpy(float),
                       100 * order["ci95_low"].to_numpy(float), 100 * order["ci95_high"].to_numpy(float), "#8172b2")
        ax2.axvline(50, color="#c44e52", linestyle="--", linewidth=1)
        ax2.set_xlim(0, 100)
        ax2.set_title("Score rate of the players who furnished it")
        ax2.set_xlabel("score rate of furnishers (%), Wilson 95% interval")
    shown = combine_interval(table, "furnishers' mean final score (points) [95%]", "mean_score", "mean_low", "mean_high",
                     "mean")
    if not solo:
        shown = combine_interval(shown, "furnishers' score rate [95% Wilson]", "taker_score_rate", "ci95_low", "ci95_high",
                         "rate")
    shown = shown.rename(columns={"times_furnished": "times furnished", "per_game": "per game",
                                  "games_with": "share of games", "mean_round": "mean round furnished",
                                  "takers": "furnishers (player-games)"})
    formats = {"share of games": percent, "per game": lambda x: number(x, 2)}
    caption = ("How often each room is furnished, in which round, and how the players who furnished it fared; "
               "rooms never furnished show 0. This is correlational, not a room's value: strong positions build "
               "more rooms, so furnishers win more whatever the room.")
    return Section("Rooms", caption, [figure_html(fig, "rooms furnished and furnishers' results"),
                                      table_html(shown, formats)])


def solo_section(data: ReportData) -> Section:
    """Solo scores against the rulebook's goal (50) and remarkable (60) marks."""
    goal, remarkable = rules().solo_goal, rules().solo_remarkable
    table = balance.target_shares(data.games, goal, remarkable)
    table = combine_interval(table, "share [95% Wilson]", "share", "ci95_low", "ci95_high", "rate")
    scores = balance.seat_rows(data.games)["score"].to_numpy(dtype=float)
    fig = report_figure(6.5, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    ax.hist(scores, bins=score_bins(np.append(scores, [goal, remarkable])), color="#4c72b0")
    ax.axvline(goal - 0.5, color="#dd8452", linestyle="--", label=f"goal: {goal} points")
    ax.axvline(remarkable + 0.5, color="#c44e52", linestyle="--", label=f"remarkable: more than {remarkable}")
    ax.set_title("Solo final scores against the rulebook's marks")
    ax.set_xlabel("final score (points)")
    ax.set_ylabel("games (count)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize="small")
    caption = (f"Share of solo games reaching the rulebook's goal ({goal} points or more) and its remarkable mark "
               f"(more than {remarkable}), with Wilson 95% intervals.")
    return Section("Solo targets", caption, [figure_html(fig, "solo score histogram with the 50 and 60 marks"),
                                             table_html(table, {"games": str, "hits": str})])


def report_sections(data: ReportData) -> list[Section]:
    """Cave vs Cave's own sections, from the decisions table."""
    sections = [tiles_section(data), rooms_section(data)]
    if data.seats == 1:
        sections.append(solo_section(data))
    return sections


# A game listed here gets its own sections after the generic ones; others get the generic ones only.
