"""What each Cave vs Cave room is worth: observational estimates and a causal experiment.

Two questions, two methods:

- **Observational** (`room_regression`): over the (game, player) pairs of a results folder, regress the outcome
  (score rate points: win 1, draw 0.5, loss 0; or the final score) on one indicator per room ("this player
  furnished it"), controlling for the seat that moved first and for the agent in the seat (its strength).
  Least squares with heteroscedasticity-robust (HC1) standard errors, so a coefficient on the points is a
  change in win probability. It is biased: strong positions furnish more rooms, and expensive rooms are
  furnished by players who are already ahead, so a coefficient mixes the room's effect with the position
  that afforded it.
- **Causal** (`run_room_bans`, `room_ban_effects`): the same seeds are played by the same agents once as the
  real game and once per (room, seat) with that seat barred from furnishing that room (the engines' analysis
  variant `banned_rooms_pN`). Game i of every run is played on the same deal (`cavekit.core.deal`: the same
  start player, tiles in the same rounds, rooms under the same spaces) by agents seeded alike, so the runs
  are paired game by game and the paired difference in the barred seat's outcome is the value of *access* to the room, with a
  paired interval. Divided by how often that seat furnishes the room when allowed, it estimates the value
  of the room to a player who builds it (an instrumental-variable ratio; its interval ignores the
  uncertainty of the build rate, which is small next to the effect's).

All intervals are 95%: the regression's are Wald intervals, coefficient +- 1.96 (`stats.Z95`) robust standard
errors; the paired differences' are Student-t intervals, mean +- t(n - 1) standard errors (`stats.mean_interval`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ...core.api import ConfigError
from ...core.cvc.rules import NUM_ROOMS, room_id_of, rules
from ..balance import seat_rows
from ..bans import BASELINE, ban_folder, read_experiment, run_bans, write_or_check_experiment
from ..bans import access_effects as access_effects_of
from ..results import load_games, load_results
from ..stats import Z95

EXPERIMENT_FILE = "room_bans.json"


def room_ids() -> list[str]:
    """The ids of the 24 room tiles, in tile-number order."""
    return [room.id for room in rules().rooms[:NUM_ROOMS]]


def room_names() -> dict[str, str]:
    """Room id -> printed name, for labels."""
    return {room.id: room.name for room in rules().rooms[:NUM_ROOMS]}


# ------------------------------------------------------------------------------------------------
# Which rooms each (game, player) furnished, and when


def furnished_rooms(decisions: pd.DataFrame) -> pd.DataFrame:
    """One row per room furnished: game, player, agent, room (id), round (1-based) it was furnished in."""
    by_name = {name: rid for rid, name in room_names().items()}
    rows = decisions[decisions["room_furnished"].notna()]
    return pd.DataFrame({"game": rows["game"].to_numpy(), "player": rows["player"].to_numpy(),
                         "agent": rows["agent"].to_numpy(),
                         "room": rows["room_furnished"].map(by_name).to_numpy(),
                         "round": rows["round"].to_numpy()})


def build_indicators(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """`seat_rows(games)` plus one 0/1 column per room id: whether that player furnished it in that game."""
    rows = seat_rows(games)
    built = furnished_rooms(decisions)
    built = built[built["game"].isin(games["game"])]
    matrix = pd.crosstab([built["game"], built["player"]], built["room"]).clip(upper=1)
    matrix = matrix.reindex(columns=room_ids(), fill_value=0)
    keyed = rows.set_index(["game", "player"])
    joined = keyed.join(matrix, how="left").fillna({rid: 0 for rid in room_ids()})
    joined[room_ids()] = joined[room_ids()].astype(int)
    return joined.reset_index()


def build_timing(decisions: pd.DataFrame) -> pd.DataFrame:
    """Rooms x rounds: how many times each room was furnished in each round (rooms never furnished: zeros)."""
    built = furnished_rooms(decisions)
    counts = pd.crosstab(built["room"], built["round"]) if len(built) else pd.DataFrame()
    counts = counts.reindex(room_ids(), fill_value=0)
    counts.index.name, counts.columns.name = "room", "round"
    return counts


def room_preferences(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """Agents x rooms: the share of an agent's (game, seat) pairs in which it furnished the room."""
    table = build_indicators(games, decisions)
    return table.groupby("agent")[room_ids()].mean()


# ------------------------------------------------------------------------------------------------
# Observational: regression with room indicators


def ols_hc1(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares coefficients of y on the columns of x and their HC1 robust standard errors.

    Columns that are linear combinations of others (a room nobody built) get NaN, like a dropped regressor.
    """
    n, k = x.shape
    keep = _independent_columns(x)
    xk = x[:, keep]
    xtx_inv = np.linalg.inv(xk.T @ xk)
    beta = xtx_inv @ xk.T @ y
    resid = y - xk @ beta
    meat = (xk * resid[:, None] ** 2).T @ xk
    dof = max(n - len(keep), 1)
    cov = xtx_inv @ meat @ xtx_inv * n / dof
    coef, se = np.full(k, np.nan), np.full(k, np.nan)
    coef[keep], se[keep] = beta, np.sqrt(np.diag(cov))
    return coef, se


def _independent_columns(x: np.ndarray) -> list[int]:
    """Indices of a maximal set of linearly independent columns, greedily from the left."""
    keep: list[int] = []
    for j in range(x.shape[1]):
        if np.linalg.matrix_rank(x[:, keep + [j]]) == len(keep) + 1:
            keep.append(j)
    return keep


def room_regression(games: pd.DataFrame, decisions: pd.DataFrame, outcome: str = "points") -> pd.DataFrame:
    """Per room: its regression coefficient on `outcome` ("points" or "score") with a 95% interval.

    Controls: an intercept, the first-player indicator and one indicator per agent but the first (so
    agents of different strength are compared with themselves). Columns: coef, ci95_low, ci95_high, se,
    built (pairs that furnished it), build_rate; sorted by coefficient, largest first; rooms never
    furnished (or furnished in every pair) get NaN.
    """
    if outcome not in ("points", "score"):
        raise ConfigError(f"outcome must be 'points' or 'score', not {outcome!r}")
    table = build_indicators(games, decisions)
    if outcome == "points" and table["points"].isna().all():
        raise ConfigError("solo games have no win or loss; use outcome='score'")
    agents = sorted(table["agent"].unique())
    columns = [np.ones(len(table)), table["first"].to_numpy(float)]
    columns += [(table["agent"] == a).to_numpy(float) for a in agents[1:]]
    columns += [table[rid].to_numpy(float) for rid in room_ids()]
    coef, se = ols_hc1(np.column_stack(columns), table[outcome].to_numpy(float))
    first_room = 2 + len(agents) - 1
    out = pd.DataFrame({"coef": coef[first_room:], "se": se[first_room:]}, index=pd.Index(room_ids(), name="room"))
    out["ci95_low"] = out["coef"] - Z95 * out["se"]
    out["ci95_high"] = out["coef"] + Z95 * out["se"]
    out["built"] = [int(table[rid].sum()) for rid in room_ids()]
    out["build_rate"] = out["built"] / len(table)
    out.insert(0, "name", [room_names()[rid] for rid in room_ids()])
    return out[["name", "coef", "ci95_low", "ci95_high", "se", "built", "build_rate"]].sort_values(
        "coef", ascending=False, na_position="last")


# ------------------------------------------------------------------------------------------------
# Causal: paired room-ban experiment


def run_room_bans(agent: str, games: int, seed: int, out: str | Path, rooms: Sequence[str] | None = None,
                  jobs: int = 1, progress: bool = True, backend: str = "loky", chunk_size: int | None = None) -> Path:
    """Play the baseline and one run per (room, seat) ban, `games` games each, `agent` in both seats.

    Every run uses the master seed `seed`, so game i of each ban run pairs with game i of the baseline.
    Results go to `out/baseline` and `out/ban_<room>_p<seat>` (ordinary results folders); calling again
    with the same arguments resumes, playing only the games not yet stored. `jobs`, `backend` and
    `chunk_size` are passed to `run_match`. Returns `out`.
    """
    out = Path(out)
    named = list(rooms) if rooms is not None else room_ids()
    unknown = sorted(r for r in named if room_id_of(r) is None)
    rooms = list(dict.fromkeys(room_id_of(r) for r in named if room_id_of(r) is not None))
    if unknown:
        raise ConfigError(f"unknown room id(s) {', '.join(unknown)}; room ids: {', '.join(room_ids())}")
    write_or_check_experiment(out, EXPERIMENT_FILE, {"agent": agent, "games": games, "seed": seed, "rooms": rooms},
                              "room-ban")
    return run_bans("cvc", [agent, agent], games, seed, out, rooms, (0, 1), "banned_rooms_p{seat}", jobs=jobs,
                    progress=progress, backend=backend, chunk_size=chunk_size, label="room bans")


def room_ban_effects(out: str | Path, started_only: bool = False) -> pd.DataFrame | None:
    """Per room of a `run_room_bans` folder: the value of access to it, paired game by game (`access_effects`).

    With `started_only`, an experiment still being played counts the ban runs it has started (and their
    finished games; the `paired` column says how many), or gives None before the first; otherwise every
    ban run must be there."""
    out = Path(out)
    spec = read_experiment(out, EXPERIMENT_FILE, ("agent", "games", "seed", "rooms"))
    base_games, base_decisions = load_results(out / BASELINE)
    runs = [(room, seat) for room in spec["rooms"] for seat in (0, 1)]
    if started_only:
        runs = [(room, seat) for room, seat in runs if ban_folder(out, room, seat).is_dir()]
        if not runs:
            return None
    banned = {(room, seat): load_games(ban_folder(out, room, seat)) for room, seat in runs}
    return access_effects(build_indicators(base_games, base_decisions), banned)


def access_effects(baseline: pd.DataFrame, banned: dict[tuple[str, int], pd.DataFrame]) -> pd.DataFrame:
    """The value of access to each room: baseline minus banned outcome of the barred seat, paired by game.

    `baseline` is `build_indicators` of the baseline run; `banned[(room, seat)]` is the games table of the run
    in which `seat` was barred from `room`. The columns are `bans.access_effects`'s (access_points: the change
    in score rate, i.e. win probability with draws as halves; access_score; access_margin: own minus opponent
    final score; build_rate; per_build_points and per_build_score), indexed by room and sorted by
    access_points, largest first. Only games finished in both runs count.
    """
    return access_effects_of(baseline, banned, room_names(), "room", sort_by="access_points")
