"""Round-robin and gauntlet tournaments between agent specs on any registered game, with standings and ratings.

A pairing is one set of agents that sit at the same table (two agents in a two-player game, a combination of
three in a three-player game). Round robin plays every combination of the agents; a gauntlet plays one
challenger against every combination of the others. Each pairing is one `run_match`, which rotates the seats
by game index, so with a number of games that is a multiple of the player count every agent holds every seat
equally often (otherwise the counts differ by one).

Seeds: a pairing's master seed is derived from the tournament seed and the pairing's agent specs only, never
from which other agents take part or from their order on the command line:
`SeedSequence(seed, spawn_key=<the 8 32-bit words of SHA-256 of the sorted specs joined by newlines>)
.generate_state(1, uint64)[0] >> 1` (63 bits, so the seed fits a signed 64-bit column). The agents play in
sorted spec order from seat 0. So the same pair of agents plays exactly the same games under the same seed in
any tournament, round robin or gauntlet, and different pairings get unrelated randomness.

Standings count a game as a win for the agent with the best return alone, a draw for agents sharing the best
return, a loss otherwise; the score rate counts draws as half. Head-to-head tables and the ratings decompose
each game into encounters of seats (see `ratings`). The first-seat advantage is the score rate, draws half, of the
seat that made the first decision in each game (chosen by the rules, e.g. a chance node in Cave vs Cave).
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..core.api import ConfigError
from ..core.registry import load_game
from ..search.agent import make_agent, resolve_preset
from .batch import run_match
from .paired import paired_differences
from .progress import progress_bar
from .ratings import DEFAULT_ANCHOR_RATING, MIN_ENCOUNTERS_FOR_INTERVAL, pairwise_outcomes, rate
from .stats import seat_count, wilson_interval


@dataclass
class Tournament:
    """A finished tournament: every game, and the tables computed from them."""

    games: pd.DataFrame            # one row per game, with its pairing and agents
    standings: pd.DataFrame        # one row per agent: W/D/L, score rate and ratings with intervals
    head_to_head: pd.DataFrame     # one row per pair of agents that met, with Wilson intervals
    crosstable: pd.DataFrame       # score rate of the row agent against the column agent
    first_seat: pd.DataFrame       # the first mover's score rate over all games
    paired: pd.DataFrame           # duplicate tournaments: each pairing's score-rate differences over deals
    settings: dict[str, Any] = field(default_factory=dict)


def pairing_seed(seed: int, agents: Sequence[str]) -> int:
    """The master seed of one pairing: a function of the tournament seed and the set of agent specs only."""
    key = "\n".join(sorted(agents)).encode("utf-8")
    words = np.frombuffer(hashlib.sha256(key).digest(), dtype=">u4").tolist()
    state = np.random.SeedSequence(seed, spawn_key=tuple(words)).generate_state(1, dtype=np.uint64)
    return int(state[0]) >> 1


def pairings(agents: Sequence[str], players: int, gauntlet: str | None = None) -> list[tuple[str, ...]]:
    """Every table of a round robin (combinations of `players` agents), or of a gauntlet of `gauntlet`
    against the others; each table lists its agents in sorted spec order (seat 0 first)."""
    if gauntlet is None:
        tables = itertools.combinations(agents, players)
    else:
        others = [a for a in agents if a != gauntlet]
        tables = ((gauntlet, *rest) for rest in itertools.combinations(others, players - 1))
    return [tuple(sorted(table)) for table in tables]


def _check_agents(agents: Sequence[str], gauntlet: str | None, players: int, game: Any,
                  game_name: str) -> list[str]:
    """The agent list, validated: distinct specs, enough of them, every spec buildable."""
    specs = [resolve_preset(a.strip(), game) for a in agents]     # tables name what played
    if gauntlet is not None:
        gauntlet = resolve_preset(gauntlet.strip(), game)
        if gauntlet not in specs:
            specs = [gauntlet, *specs]
    duplicates = sorted({a for a in specs if specs.count(a) > 1})
    if duplicates:
        raise ConfigError(f"agent spec(s) listed twice: {', '.join(duplicates)}; a tournament needs distinct "
                          "specs (its tables are keyed by spec)")
    if len(specs) < 2:
        raise ConfigError(f"a tournament needs at least 2 different agents, got {len(specs)}: {', '.join(specs)}")
    if len(specs) < players:
        raise ConfigError(f"{game_name} with {players} players needs at least {players} agents, got {len(specs)}")
    for spec in specs:
        make_agent(spec, game)      # refuse a bad spec before any game is played
    return specs


def run_tournament(game_name: str, agents: Sequence[str], games: int, seed: int, gauntlet: str | None = None,
                   jobs: int = 1, progress: bool = True, n_boot: int = 1000, prior_draws: float = 1.0,
                   anchor: str | None = None, duplicate: bool = False, **game_params: Any) -> Tournament:
    """Play `games` games per pairing (round robin, or `gauntlet` against every other agent) and rate everyone.

    Ratings: see `cavekit.analysis.ratings.rate`; the bootstrap resamples games within each pairing, seeded by
    `seed`. Results do not depend on `jobs`. With `duplicate`, each pairing plays every deal with every seat
    rotation (`run_match`), and `paired` holds each pairing's differences paired over its deals.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ConfigError(f"a tournament needs at least 1 game per pairing, not {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"the tournament seed must be a non-negative integer, not {seed!r}")
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs}")
    if n_boot < 0 or prior_draws < 0:
        raise ConfigError(f"n_boot and prior_draws must be at least 0, not {n_boot} and {prior_draws}")
    game = load_game(game_name, **game_params)
    players = game.num_players
    if players < 2:
        raise ConfigError(f"{game_name} with {players} player is not a contest; tournaments need 2 or more players")
    specs = _check_agents(agents, gauntlet, players, game, game_name)
    anchor = resolve_preset(anchor.strip(), game) if anchor is not None else None
    if anchor is not None and anchor not in specs:
        raise ConfigError(f"anchor agent {anchor!r} is not in the tournament; agents: {', '.join(specs)}")
    challenger = resolve_preset(gauntlet.strip(), game) if gauntlet is not None else None
    tables = pairings(specs, players, challenger)

    parts = []
    # One bar for the whole tournament, moved per game by every pairing's match: nested bars would need
    # cursor movements, escape sequences that garble a log of stderr.
    bar = progress_bar(len(tables) * int(games), f"{game_name} tournament", "game", progress)
    for number, table in enumerate(tables):
        table_seed = pairing_seed(int(seed), table)
        bar.set_postfix_str(" vs ".join(table))
        result = run_match(game_name, list(table), int(games), table_seed, progress=False, jobs=jobs,
                           duplicate=duplicate, bar=bar if progress else None, **game_params)
        result.insert(0, "pairing", number)
        result.insert(1, "pairing_agents", " vs ".join(table))
        result.insert(2, "pairing_seed", table_seed)
        result.insert(3, "game", result.pop("game"))
        parts.append(result)
    bar.close()
    all_games = pd.concat(parts, ignore_index=True)

    ratings = rate(all_games, n_boot=n_boot, seed=int(seed), prior_draws=prior_draws,
                   anchor=anchor.strip() if anchor is not None else None, group="pairing")
    standings = standings_table(all_games, ratings)
    head = head_to_head(all_games)
    paired = pd.DataFrame()
    if duplicate:
        paired = pd.concat([paired_differences(group, "score_rate").assign(pairing=number)
                            for number, group in all_games.groupby("pairing")], ignore_index=True)
    settings = {"game": game_name, "game_params": dict(game_params), "players": players, "agents": specs,
                "duplicate": bool(duplicate),
                "gauntlet": challenger, "format": "gauntlet" if challenger else "round robin",
                "games_per_pairing": int(games), "seed": int(seed), "n_boot": n_boot, "prior_draws": prior_draws,
                "anchor": anchor.strip() if anchor is not None else None,
                "anchor_rating": DEFAULT_ANCHOR_RATING,
                "pairings": [{"agents": list(t), "seed": pairing_seed(int(seed), t)} for t in tables]}
    return Tournament(games=all_games, standings=standings, head_to_head=head,
                      crosstable=crosstable(head, standings["agent"].tolist()),
                      first_seat=first_seat_advantage(all_games), paired=paired, settings=settings)


def _long_results(games: pd.DataFrame) -> pd.DataFrame:
    """One row per agent per game: agent, seat, return, and the game-level outcome (win/draw/loss)."""
    seats = seat_count(games)
    returns = games[[f"return_{p}" for p in range(seats)]].to_numpy(dtype=float)
    best = returns.max(axis=1, keepdims=True)
    at_best = returns == best
    shared = at_best.sum(axis=1, keepdims=True) > 1
    outcome = np.where(at_best & ~shared, "win", np.where(at_best, "draw", "loss"))
    return pd.concat([pd.DataFrame({"agent": games[f"agent_{p}"].to_numpy(), "seat": p, "outcome": outcome[:, p],
                                    "first": games["first_player"].to_numpy() == p})
                      for p in range(seats)], ignore_index=True)


def _record(outcomes: pd.Series) -> dict[str, Any]:
    """Games, wins, draws, losses, score rate (draws half) and its Wilson 95% interval."""
    wins, draws = int((outcomes == "win").sum()), int((outcomes == "draw").sum())
    n = len(outcomes)
    low, high = wilson_interval(wins + draws / 2, n)
    return {"games": n, "wins": wins, "draws": draws, "losses": n - wins - draws,
            "score_rate": (wins + draws / 2) / n if n else float("nan"), "score_ci_low": low, "score_ci_high": high}


def standings_table(games: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per agent, best Elo first: games, W/D/L, score rate with its Wilson interval, and the ratings."""
    long = _long_results(games)
    rows = [{"agent": agent, **_record(group["outcome"])} for agent, group in long.groupby("agent", sort=False)]
    table = pd.DataFrame(rows).merge(ratings, on="agent", how="left")
    table = table.sort_values(["elo", "score_rate"], ascending=False, kind="stable").reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    return table


def head_to_head(games: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of agents that met: encounters, A's wins, draws, B's wins, A's score rate (Wilson 95%)."""
    encounters = pairwise_outcomes(games)
    swap = encounters["agent_a"] > encounters["agent_b"]
    first = np.where(swap, encounters["agent_b"], encounters["agent_a"])
    second = np.where(swap, encounters["agent_a"], encounters["agent_b"])
    points = np.where(swap, 1.0 - encounters["points_a"], encounters["points_a"])
    oriented = pd.DataFrame({"agent_a": first, "agent_b": second, "points_a": points})
    rows = []
    for (a, b), group in oriented.groupby(["agent_a", "agent_b"], sort=True):
        p = group["points_a"]
        wins, draws, n = int((p == 1).sum()), int((p == 0.5).sum()), len(p)
        low, high = wilson_interval(wins + draws / 2, n)
        rows.append({"agent_a": a, "agent_b": b, "games": n, "a_wins": wins, "draws": draws,
                     "b_wins": n - wins - draws, "a_score_rate": (wins + draws / 2) / n,
                     "a_ci_low": low, "a_ci_high": high})
    return pd.DataFrame(rows)


def crosstable(head: pd.DataFrame, agents: Sequence[str]) -> pd.DataFrame:
    """Square table: the score rate of the row agent against the column agent (NaN where they never met)."""
    table = pd.DataFrame(np.nan, index=pd.Index(list(agents), name="agent"), columns=list(agents))
    for row in head.itertuples(index=False):
        table.loc[row.agent_a, row.agent_b] = row.a_score_rate
        table.loc[row.agent_b, row.agent_a] = 1.0 - row.a_score_rate
    return table


def first_seat_advantage(games: pd.DataFrame) -> pd.DataFrame:
    """Score rate (draws half) of the seat that made the first decision, over all games, with its Wilson 95%
    interval; an even game sits at 0.5 with two players."""
    long = _long_results(games)
    first = long[long["first"]]
    record = _record(first["outcome"])
    return pd.DataFrame([{"games": record["games"], "first_seat_wins": record["wins"], "draws": record["draws"],
                          "first_seat_losses": record["losses"], "first_seat_score_rate": record["score_rate"],
                          "ci_low": record["score_ci_low"], "ci_high": record["score_ci_high"]}])


TOURNAMENT_FILES = ("games.parquet", "standings.parquet", "standings.csv", "crosstable.csv", "head_to_head.csv",
                    "paired.csv", "tournament.json", "report.html")     # report.html: `cavekit report DIR`


def check_tournament_folder(out: Path) -> None:
    """ConfigError unless `out` is new, empty, or a tournament folder written before (which is replaced)."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; name a new folder for the tournament")
    if out.is_dir():
        others = sorted(p.name for p in out.iterdir() if p.name not in TOURNAMENT_FILES)
        if others:
            shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
            raise ConfigError(f"--out {out} is not empty ({shown}) and is not a tournament folder; choose a new or "
                              "empty folder")


def write_tournament(result: Tournament, out: Path, command: str) -> list[Path]:
    """Write games.parquet, standings.parquet/.csv, crosstable.csv, head_to_head.csv and tournament.json (and
    paired.csv for a duplicate tournament) into a new, empty or earlier tournament folder."""
    check_tournament_folder(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"--out {out} cannot be created ({e.strerror})") from None
    (out / "paired.csv").unlink(missing_ok=True)        # an earlier duplicate tournament's
    (out / "report.html").unlink(missing_ok=True)       # the report of the tournament being replaced
    written = [out / "games.parquet", out / "standings.parquet", out / "standings.csv", out / "crosstable.csv",
               out / "head_to_head.csv", out / "tournament.json"]
    if len(result.paired):
        written.insert(5, out / "paired.csv")
        result.paired.to_csv(written[5], index=False)
    result.games.to_parquet(written[0], index=False)
    result.standings.to_parquet(written[1], index=False)
    result.standings.to_csv(written[2], index=False)
    result.crosstable.to_csv(written[3])
    result.head_to_head.to_csv(written[4], index=False)
    manifest = {"command": command, **result.settings,
                "first_seat": result.first_seat.to_dict("records")[0], "files": [p.name for p in written]}
    written[-1].write_text(json.dumps(manifest, indent=2, default=_json_default) + "\n", encoding="utf-8")
    return written


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def format_tournament(result: Tournament) -> str:
    """The tables a person reads: standings, cross table, head-to-head record, first-seat advantage."""
    s = result.settings
    header = (f"{s['game']} {s['format']}: {len(s['agents'])} agents, {len(s['pairings'])} pairing(s) x "
              f"{s['games_per_pairing']} games = {len(result.games)} games, seed {s['seed']}")
    if s["gauntlet"]:
        header += f", challenger {s['gauntlet']}"
    anchor = f"{s['anchor']} = {s['anchor_rating']:.0f}" if s["anchor"] else f"mean {s['anchor_rating']:.0f}"
    notes = (f"Elo: Bradley-Terry fit on the 400/ln10 scale, {anchor}, {s['prior_draws']:g} virtual draw(s) per "
             f"agent against the pool; intervals: 95% percentile bootstrap over {s['n_boot']} resamples of games "
             f"within pairings (none, NaN, for an agent with fewer than {MIN_ENCOUNTERS_FOR_INTERVAL} encounters). "
             "Score rates count draws as half; their intervals are Wilson 95%.")
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 3):
        return "\n\n".join([
            header,
            "standings\n" + result.standings.to_string(index=False),
            "cross table (score rate of the row agent against the column agent)\n" + result.crosstable.to_string(),
            "head to head\n" + result.head_to_head.to_string(index=False),
            "first-seat advantage (score rate of the seat that moved first)\n"
            + result.first_seat.to_string(index=False),
            *(["score-rate differences paired over deals (agent minus versus; each pairing on its own deals)\n"
               + result.paired.to_string(index=False)] if len(result.paired) else []),
            notes])
