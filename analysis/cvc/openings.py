"""Cave vs Cave opening lines: what strong self-play opens with, and what a deep search of the first turns finds.

- `opening_lines` and `opening_tree` read a results folder: a game's opening is the sequence of its first
  `depth` action tiles taken, each marked with the player who took it (A moves first, B second). Each line
  and each prefix gets its number of games and the first player's score rate (Wilson 95% interval).
- `search_openings` grows a tree from the starting position with a turn-level searcher (by default the
  compiled `cvc_turn_mcts`): at each node it searches, keeps the `branching` most visited turns, plays each
  and searches again, to `depth` turns. Every line is played on the deal of the seed (`cavekit.core.deal`),
  so a room turned up by an excavation is the room under that space in every line that digs it, and the
  lines differ only by the moves; the searcher never sees the deal. The rest of a turn after a room is turned
  up is the searcher's best continuation.
`format_tree` prints either tree as indented text.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...core import load_game
from ...core.api import CHANCE
from ...core.deal import new_deal
from ...search import make_agent
from ..balance import outcome_columns, seat_rows
from ..progress import progress_bar

SEPARATOR = " > "


def _openings(decisions: pd.DataFrame, games: pd.DataFrame, depth: int) -> pd.DataFrame:
    """Per game: its opening (the first `depth` tiles taken, as 'A:Tile' / 'B:Tile') and the first player's points."""
    takes = decisions[decisions["kind"] == "take"].sort_values(["game", "ply"])
    takes = takes[takes["game"].isin(games["game"])]
    first = games.set_index("game")["first_player"]
    role = np.where(takes["player"].to_numpy() == first.loc[takes["game"]].to_numpy(), "A", "B")
    labelled = takes.assign(move=[f"{r}:{t}" for r, t in zip(role, takes["tile"])])
    moves = labelled.groupby("game", sort=True)["move"].apply(lambda m: tuple(m.iloc[:depth]))
    rows = seat_rows(games)
    points = rows[rows["first"]].set_index("game")["points"]
    return pd.DataFrame({"moves": moves, "points": points.reindex(moves.index)})


def opening_lines(decisions: pd.DataFrame, games: pd.DataFrame, depth: int = 4, top: int | None = 20) -> pd.DataFrame:
    """The most frequent openings of `depth` tile picks: games, share, first player's score rate + interval."""
    table = _openings(decisions, games, depth)
    total = len(table)
    out = []
    for moves, group in table.groupby("moves", sort=False):
        outcome = outcome_columns(group["points"])
        out.append({"line": SEPARATOR.join(moves), "games": len(group), "share": len(group) / total,
                    "first_player_score_rate": outcome["score_rate"], "ci95_low": outcome["ci95_low"],
                    "ci95_high": outcome["ci95_high"]})
    result = pd.DataFrame(out).sort_values(["games", "line"], ascending=[False, True], ignore_index=True)
    return result.head(top) if top is not None else result


def opening_tree(decisions: pd.DataFrame, games: pd.DataFrame, depth: int = 4, min_games: int = 1) -> pd.DataFrame:
    """Every prefix of the openings with at least `min_games` games, depth first (children by frequency).

    Columns: depth (1 = first pick), move, line (the prefix), games, share_of_parent, first_player_score_rate
    with ci95_low/ci95_high.
    """
    table = _openings(decisions, games, depth)
    rows: list[dict[str, Any]] = []

    def grow(prefix: tuple[str, ...], group: pd.DataFrame) -> None:
        level = len(prefix)
        if level >= depth:
            return
        longer = group[group["moves"].map(len) > level]
        children = longer.groupby(longer["moves"].map(lambda m: m[level]), sort=False)
        for move, child in sorted(children, key=lambda item: (-len(item[1]), item[0])):
            if len(child) < min_games:
                continue
            outcome = outcome_columns(child["points"])
            rows.append({"depth": level + 1, "move": move, "line": SEPARATOR.join(prefix + (move,)),
                         "games": len(child), "share_of_parent": len(child) / len(group),
                         "first_player_score_rate": outcome["score_rate"], "ci95_low": outcome["ci95_low"],
                         "ci95_high": outcome["ci95_high"]})
            grow(prefix + (move,), child)

    grow((), table)
    return pd.DataFrame(rows, columns=["depth", "move", "line", "games", "share_of_parent",
                                       "first_player_score_rate", "ci95_low", "ci95_high"])


def search_openings(agent: str = "cvc_turn_mcts:iterations=20000", depth: int = 3, branching: int = 3,
                    seed: int = 0, distinct_tiles: bool = True, progress: bool = False) -> pd.DataFrame:
    """A tree of the best first turns by deep search (see the module docstring), depth first.

    With `distinct_tiles`, the `branching` turns kept at a node take different action tiles (the most visited
    turn of each of the most visited tiles), so the tree shows alternatives rather than one tile's variants
    (the same tile with another excavation target, say). Columns: depth, player (A moves first), segment (the
    turn's notation), tile (the action tile it takes, if
    any), visits and share (of the node's search), value (the searcher's mean value for the player to move,
    in returns units: +1 certain win, -1 certain loss), line (the segments from the start), chance (the
    outcomes dealt on the way to this node, if any). `progress` shows a bar of the tree's nodes searched.
    """
    game = load_game("cvc")
    rng = np.random.default_rng(seed)
    deal = new_deal(game, seed)
    state = game.new_initial_state()
    chance: list[str] = []
    while state.current_player() == CHANCE:
        outcome = deal.outcome(state)
        chance.append(state.action_to_string(outcome))
        state.apply_action(outcome)
    first = state.current_player()
    rows: list[dict[str, Any]] = []

    def search(node: Any) -> list[dict[str, Any]]:
        return make_agent(agent, game, seed=int(rng.integers(2**31))).analyse(node)

    def play(node: Any, actions: list[int], seen: list[str]) -> Any:
        """`node` after `actions` and the chance events that follow them (dealt, noted in `seen`)."""
        child = node.clone()
        for action in actions:
            child.apply_action(action)
        while child.current_player() == CHANCE:
            outcome = deal.outcome(child)
            seen.append(child.action_to_string(outcome))
            child.apply_action(outcome)
        return child

    def nodes_below(level: int) -> int:
        """The searched nodes of a full subtree whose root is at `level`: 1 + b + ... + b^(depth-level-1)."""
        return sum(branching ** k for k in range(depth - level))

    def grow(node: Any, level: int, line: list[str], seen: list[str]) -> None:
        if level >= depth:
            return
        if node.is_terminal():
            bar.update(nodes_below(level))      # a subtree that will never be searched counts as done
            return
        entries = search(node)
        bar.update(1)
        total = sum(e.get("visits", 0) for e in entries) or 1
        mover = node.current_player()
        player = "A" if mover == first else "B"
        kept = _keep(entries, branching, distinct_tiles)
        bar.update((branching - len(kept)) * nodes_below(level + 1))    # fewer turns to keep than asked
        for entry in kept:
            child_seen = list(seen)
            child = play(node, entry["actions"], child_seen)
            texts = [entry["text"]]
            # A turn interrupted by chance (a room turned up) goes on with the searcher's best continuation,
            # so each node of the tree is a whole turn.
            while not child.is_terminal() and child.current_player() == mover:
                best = search(child)[0]
                texts.append(best["text"])
                child = play(child, best["actions"], child_seen)
            segment = "; ".join(texts)
            tile = _tile_of(segment)
            move = f"{player}:{tile or segment}"
            rows.append({"depth": level + 1, "player": player, "segment": segment, "tile": tile,
                         "visits": entry.get("visits", 0), "share": entry.get("visits", 0) / total,
                         "value": entry.get("value", float("nan")), "line": SEPARATOR.join(line + [move]),
                         "chance": "; ".join(child_seen)})
            grow(child, level + 1, line + [move], child_seen)

    # The bar counts the nodes of the full tree, so its ETA holds from the first search on.
    with progress_bar(nodes_below(0), "opening search", "node", progress) as bar:
        grow(state, 0, [], chance)
    return pd.DataFrame(rows, columns=["depth", "player", "segment", "tile", "visits", "share", "value", "line",
                                       "chance"])


def _tile_of(text: str) -> str:
    """The action tile a segment's notation takes ('' if it takes none)."""
    return next((t[len("take "):] for t in text.split("; ") if t.startswith("take ")), "")


def _keep(entries: list[dict[str, Any]], branching: int, distinct_tiles: bool) -> list[dict[str, Any]]:
    """The `branching` most visited entries, or with `distinct_tiles` the most visited of each tile."""
    ranked = sorted(entries, key=lambda e: -e.get("visits", 0))
    if not distinct_tiles:
        return ranked[:branching]
    kept: dict[str, dict[str, Any]] = {}
    for entry in ranked:
        kept.setdefault(_tile_of(entry["text"]), entry)
    return list(kept.values())[:branching]


def format_tree(tree: pd.DataFrame, label: str = "move", stats: tuple[str, ...] = ("games",)) -> str:
    """An indented text rendering of `opening_tree` or `search_openings` output (one line per node)."""
    lines = []
    for _, row in tree.iterrows():
        facts = []
        for column in stats:
            value = row[column]
            facts.append(f"{column} {value:.2f}" if isinstance(value, float) else f"{column} {value}")
        if "first_player_score_rate" in row:
            facts.append(f"A scores {100 * row['first_player_score_rate']:.0f}% "
                         f"[{100 * row['ci95_low']:.0f}-{100 * row['ci95_high']:.0f}]")
        lines.append(f"{'  ' * (int(row['depth']) - 1)}{row[label]}  ({', '.join(facts)})")
    return "\n".join(lines)
