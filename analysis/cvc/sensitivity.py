"""How the balance conclusions move with the agents' search budget.

Weak agents give biased balance answers (a weak player may never exploit a strong room or the first move).
`budget_sensitivity` takes self-play results folders at increasing budgets and reports, per budget, the
first-player score rate, the mean score, and how closely the room ranking (room regression coefficients on
the score rate) and the tile ranking (their takers' score rates) agree with those of the strongest budget
(Spearman rank correlation with a Fisher-z 95% interval). `stable_from` names the smallest budget from
which the conclusions no longer move by a stated criterion.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..balance import first_player_advantage, score_summary
from .balance import tile_table
from ..results import load_results, read_manifest
from ..stats import Z95
from .room_values import room_regression


def spearman(a: pd.Series, b: pd.Series) -> tuple[float, float, float, int]:
    """Spearman rank correlation of the values two series share (NaN dropped), its Fisher-z 95% interval, n."""
    both = pd.concat([a, b], axis=1, join="inner").dropna()
    n = len(both)
    if n < 4:
        return (math.nan, math.nan, math.nan, n)
    ranks = both.rank()
    rho = float(np.corrcoef(ranks.iloc[:, 0], ranks.iloc[:, 1])[0, 1])
    if not np.isfinite(rho):
        return (math.nan, math.nan, math.nan, n)
    # Fisher's z with the Spearman variance correction (Bonett & Wright): sqrt((1 + rho^2 / 2) / (n - 3)).
    z = math.atanh(min(max(rho, -0.999999), 0.999999))
    half = Z95 * math.sqrt((1 + rho * rho / 2) / (n - 3))
    # At |rho| = 1 the clipped z puts a bound a hair inside rho; an interval always contains its estimate.
    return (rho, min(math.tanh(z - half), rho), max(math.tanh(z + half), rho), n)


LADDER = ("greedy", "expectimax1", "turn_mcts20", "turn_mcts50", "turn_mcts200", "turn_mcts500")


def rung_name(spec: str) -> str:
    """A ladder rung's short name for a Cave vs Cave agent spec (`cvc_turn_mcts:iterations=50` -> `turn_mcts50`)."""
    name, _, options = spec.partition(":")
    values = dict(o.split("=", 1) for o in options.split(",") if "=" in o)
    if name == "cvc_turn_mcts" and "iterations" in values:
        return f"turn_mcts{values['iterations']}"
    if name == "cvc_expectimax" and "depth" in values:
        return f"expectimax{values['depth']}"
    return spec


def ladder_folders(data: str | Path, order: Sequence[str] = LADDER) -> dict[str, Path]:
    """The self-play folders of a data folder's budget ladder, weakest first: `cvc_ladder/<rung>/`, and the main
    `cvc_selfplay/` set as the rung its agent names (preferred over a smaller ladder folder of the same rung)."""
    data = Path(data)
    found: dict[str, Path] = {}
    ladder = data / "cvc_ladder"
    if ladder.is_dir():
        found = {p.name: p for p in sorted(ladder.iterdir()) if (p / "manifest.json").exists()}
    main = data / "cvc_selfplay"
    if (main / "manifest.json").exists():
        manifest = read_manifest(main)
        rung = rung_name(manifest["agents"][0])
        if rung not in found or read_manifest(found[rung])["games_done"] < manifest["games_done"]:
            found[rung] = main
    return {name: found[name] for name in order if name in found}


def budget_sensitivity(folders: Mapping[str, str | Path], reference: str | None = None) -> pd.DataFrame:
    """One row per budget (in the order given): first-player advantage, mean score, ranking agreement.

    `folders` maps a budget label (e.g. "turn MCTS 200") to a self-play results folder; `reference` is the
    label whose rankings the others are compared with (default: the last one, the strongest budget).
    """
    labels = list(folders)
    if not labels:
        raise ValueError("budget_sensitivity needs at least one results folder")
    reference = reference if reference is not None else labels[-1]
    if reference not in folders:
        raise ValueError(f"reference {reference!r} is not one of the budgets: {', '.join(labels)}")
    loaded = {label: load_results(folders[label]) for label in labels}
    rooms = {label: room_regression(g, d)["coef"] for label, (g, d) in loaded.items()}
    tiles = {label: tile_table(d, g)["taker_score_rate"] for label, (g, d) in loaded.items()}
    rows = []
    for label, (games, decisions) in loaded.items():
        first = first_player_advantage(games).iloc[0]
        scores = score_summary(games, by="agent")
        room_rho = spearman(rooms[label], rooms[reference])
        tile_rho = spearman(tiles[label], tiles[reference])
        rows.append({"budget": label, "games": len(games),
                     "first_player_score_rate": first["score_rate"],
                     "first_low": first["ci95_low"], "first_high": first["ci95_high"],
                     "mean_score": float(scores["mean"].mean()),
                     "room_rank_rho": room_rho[0], "room_rho_low": room_rho[1], "room_rho_high": room_rho[2],
                     "tile_rank_rho": tile_rho[0], "tile_rho_low": tile_rho[1], "tile_rho_high": tile_rho[2]})
    return pd.DataFrame(rows).set_index("budget")


def stable_from(table: pd.DataFrame, min_rho: float = 0.7) -> str | None:
    """The first budget from which every later budget's first-player interval overlaps the strongest budget's
    and its room and tile rank correlations with the strongest budget are at least `min_rho`; None if none."""
    last = table.iloc[-1]
    ok = ((table["first_low"] <= last["first_high"]) & (table["first_high"] >= last["first_low"])
          & (table["room_rank_rho"].fillna(-1) >= min_rho) & (table["tile_rank_rho"].fillna(-1) >= min_rho))
    ok.iloc[-1] = True
    for i in range(len(table)):
        if ok.iloc[i:].all():
            return str(table.index[i])
    return None
