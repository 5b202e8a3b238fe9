"""Tournaments: reproducible pairings, seat balance, standings and cross tables, first-seat advantage, the CLI."""
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from cavekit.analysis.cli import main
from cavekit.analysis.ratings import rate
from cavekit.analysis.stats import Z95
from cavekit.analysis.tournament import (first_seat_advantage, head_to_head, pairing_seed, pairings, run_tournament,
                                         standings_table)
from cavekit.core import registry
from cavekit.core.api import CHANCE, TERMINAL, ConfigError
from cavekit.core.spec import GameSpec

WEAK = "cvc_mcts:iterations=10,rollout=none"
STRONGER = "cvc_mcts:iterations=30,rollout=none"
AGENTS = ["random", WEAK, STRONGER]


def stable(games: pd.DataFrame) -> pd.DataFrame:
    """A games table without its wall-clock column."""
    return games.drop(columns=["seconds"])


@pytest.fixture(scope="module")
def cvc_round_robin():
    return run_tournament("cvc", AGENTS, 4, seed=11, progress=False, n_boot=200)


def test_tiny_cvc_round_robin_is_reproducible_and_seeded(cvc_round_robin):
    again = run_tournament("cvc", AGENTS, 4, seed=11, progress=False, n_boot=200)
    pd.testing.assert_frame_equal(stable(cvc_round_robin.games), stable(again.games))
    pd.testing.assert_frame_equal(cvc_round_robin.standings, again.standings)
    pd.testing.assert_frame_equal(cvc_round_robin.crosstable, again.crosstable)
    other = run_tournament("cvc", AGENTS, 4, seed=12, progress=False, n_boot=0)
    assert not stable(other.games).equals(stable(cvc_round_robin.games))
    assert len(cvc_round_robin.games) == 3 * 4
    assert cvc_round_robin.settings["pairings"][0]["seed"] != other.settings["pairings"][0]["seed"]


def test_every_pairing_swaps_seats_evenly(cvc_round_robin):
    games = cvc_round_robin.games
    assert sorted(games["pairing"].unique()) == [0, 1, 2]
    for _, group in games.groupby("pairing"):
        a, b = group["pairing_agents"].iloc[0].split(" vs ")
        assert (group["agent_0"] == a).sum() == 2 and (group["agent_0"] == b).sum() == 2
        assert group["game"].tolist() == [0, 1, 2, 3]


def test_a_pairing_plays_the_same_games_whoever_else_is_in_the_tournament(cvc_round_robin):
    # listed in the other order, without the third agent: the pairing's seed and games are unchanged
    duel = run_tournament("cvc", [WEAK, "random"], 4, seed=11, progress=False, n_boot=0)
    gauntlet = run_tournament("cvc", [WEAK, STRONGER], 4, seed=11, gauntlet="random", progress=False, n_boot=0)
    label = " vs ".join(sorted(["random", WEAK]))
    in_round_robin = cvc_round_robin.games.query("pairing_agents == @label")
    for result in (duel, gauntlet):
        mine = result.games.query("pairing_agents == @label")
        assert mine["pairing_seed"].iloc[0] == pairing_seed(11, ["random", WEAK])
        pd.testing.assert_frame_equal(stable(mine).drop(columns="pairing").reset_index(drop=True),
                                      stable(in_round_robin).drop(columns="pairing").reset_index(drop=True))
    assert gauntlet.settings["format"] == "gauntlet"
    assert sorted(gauntlet.games["pairing_agents"]) == sorted([label] * 4 + [" vs ".join(sorted(["random",
                                                                                                   STRONGER]))] * 4)


def test_tables_agree_with_the_games(cvc_round_robin):
    standings = cvc_round_robin.standings.set_index("agent")
    games = cvc_round_robin.games
    assert (standings["games"] == 8).all()
    assert standings["wins"].sum() == standings["losses"].sum()
    assert (standings["wins"] + standings["draws"] + standings["losses"] == standings["games"]).all()
    for agent, row in standings.iterrows():
        seat_returns = pd.concat([games.loc[games[f"agent_{p}"] == agent, f"return_{p}"] for p in (0, 1)])
        assert row["wins"] == (seat_returns > 0).sum()
        assert row["score_ci_low"] <= row["score_rate"] <= row["score_ci_high"]
        # 8 encounters each: too few for a bootstrap interval, which would be narrower than 8 games allow
        assert np.isnan(row["elo_ci_low"]) and np.isnan(row["elo_ci_high"])
    cross = cvc_round_robin.crosstable
    assert list(cross.index) == list(cvc_round_robin.standings["agent"])        # best first
    assert np.isnan(np.diag(cross.to_numpy())).all()
    off = ~np.eye(3, dtype=bool)
    assert (cross.to_numpy() + cross.to_numpy().T)[off] == pytest.approx(np.ones(6))
    assert standings["elo"].mean() == pytest.approx(1500.0)
    assert list(cvc_round_robin.standings["rank"]) == [1, 2, 3]


def test_jobs_do_not_change_the_results(cvc_round_robin):
    parallel = run_tournament("cvc", AGENTS, 4, seed=11, jobs=2, progress=False, n_boot=200)
    pd.testing.assert_frame_equal(stable(parallel.games), stable(cvc_round_robin.games))
    pd.testing.assert_frame_equal(parallel.standings, cvc_round_robin.standings)


def handmade(results: list[tuple[str, str, float, int]]) -> pd.DataFrame:
    """Games from (seat-0 agent, seat-1 agent, seat-0 return, first player) tuples."""
    return pd.DataFrame([{"agent_0": a, "agent_1": b, "return_0": r, "return_1": -r, "first_player": f}
                         for a, b, r, f in results])


def test_score_rates_count_draws_half_with_wilson_intervals():
    # A vs B over 10 games: 4 wins, 2 draws, 4 losses = 5 of 10; C loses all 10 to A
    games = handmade([("A", "B", 1, 0)] * 4 + [("A", "B", 0, 0)] * 2 + [("A", "B", -1, 0)] * 4
                     + [("A", "C", 1, 0)] * 10)
    head = head_to_head(games).set_index(["agent_a", "agent_b"])
    ab = head.loc[("A", "B")]
    assert (ab["games"], ab["a_wins"], ab["draws"], ab["b_wins"]) == (10, 4, 2, 4)
    assert ab["a_score_rate"] == 0.5
    assert (ab["a_ci_low"], ab["a_ci_high"]) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    ac = head.loc[("A", "C")]
    assert ac["a_score_rate"] == 1.0 and (ac["a_ci_low"], ac["a_ci_high"]) == pytest.approx((0.7225, 1.0), abs=1e-4)
    standings = standings_table(games, rate(games, n_boot=0)).set_index("agent")
    c = standings.loc["C"]
    assert (c["games"], c["wins"], c["losses"], c["score_rate"]) == (10, 0, 10, 0.0)
    assert c["score_ci_low"] == 0.0 and c["score_ci_high"] == pytest.approx(0.2775, abs=1e-4)
    assert standings.loc["A", "score_rate"] == pytest.approx(15 / 20)


def test_first_seat_advantage_counts_the_first_movers_points():
    # the first mover (seat 0 or 1) wins 6, draws 2 and loses 2 of 10: 7 of 10 points
    games = handmade([("A", "B", 1, 0)] * 3 + [("A", "B", -1, 1)] * 3 + [("A", "B", 0, 0)] * 2
                     + [("A", "B", -1, 0)] * 2)
    first = first_seat_advantage(games).iloc[0]
    assert (first["games"], first["first_seat_wins"], first["draws"], first["first_seat_losses"]) == (10, 6, 2, 2)
    assert first["first_seat_score_rate"] == pytest.approx(0.7)
    z = Z95                      # the exact normal quantile, 1.959963984540054
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    assert (first["ci_low"] + first["ci_high"]) / 2 == pytest.approx(centre)


class CoinState:
    """Three-player toy: each player picks `safe` (1 point) or `risky` (a coin: 0 or 3 points) once."""

    def __init__(self, players: int):
        self.players = players
        self.points = [0] * players
        self.turn = 0
        self.flipping = False
        self._history: list[int] = []

    def current_player(self) -> int:
        if self.turn >= self.players:
            return TERMINAL
        return CHANCE if self.flipping else self.turn

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)] if self.flipping else []

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1]

    def apply_action(self, action: int) -> None:
        if self.flipping:
            self.points[self.turn] += 3 * action
            self.flipping, self.turn = False, self.turn + 1
        elif action == 1:
            self.flipping = True
        else:
            self.points[self.turn] += 1
            self.turn += 1
        self._history.append(int(action))

    def scores(self) -> list[int]:
        return list(self.points)

    def returns(self) -> list[float]:
        """+1 to a sole leader, 0 to leaders sharing the top, -1 to everyone else."""
        top = max(self.points)
        leaders = self.points.count(top)
        return [(1.0 if leaders == 1 else 0.0) if p == top else -1.0 for p in self.points]

    def clone(self) -> "CoinState":
        other = CoinState(self.players)
        other.points, other.turn, other.flipping = list(self.points), self.turn, self.flipping
        other._history = list(self._history)
        return other

    def history(self) -> list[int]:
        return list(self._history)

    def action_to_string(self, action: int) -> str:
        return ("tails", "heads")[action] if self.flipping else ("safe", "risky")[action]


class CoinGame:
    name = "test-coins"
    engine = "python"
    num_distinct_actions = 2
    max_chance_outcomes = 2

    def __init__(self, players: int = 3):
        self.num_players = players
        self.max_game_length = 2 * players

    def new_initial_state(self, seed: int | None = None) -> CoinState:
        return CoinState(self.num_players)

    def parameters(self) -> dict:
        return {"players": self.num_players}


@pytest.fixture
def coin_game(monkeypatch):
    spec = GameSpec(name="test-coins", title="coins", player_counts=(2, 3, 4), default_players=3, engines=("python",),
                    parameters=(), zero_sum=False, information="perfect", game_class=CoinGame)
    monkeypatch.setitem(registry._SPECS, spec.name, spec)
    return spec.name


def test_three_player_round_robin_plays_every_combination(coin_game):
    agents = ["random", "mcts:iterations=4", "mcts:iterations=8", "mcts:iterations=16"]
    result = run_tournament(coin_game, agents, 3, seed=5, progress=False, n_boot=50)
    assert len(result.settings["pairings"]) == math.comb(4, 3)
    assert len(result.games) == 4 * 3
    for _, group in result.games.groupby("pairing"):
        # three games at a three-seat table: every agent holds every seat once
        for p in range(3):
            assert group[f"agent_{p}"].nunique() == 3
    standings = result.standings.set_index("agent")
    assert (standings["games"] == 9).all()                       # each agent sits at 3 of the 4 tables
    assert np.isfinite(standings["elo"]).all()
    # every pair of agents shares two tables: two pairwise encounters per pair (6 pairs)
    assert (result.head_to_head["games"] == 6).all() and len(result.head_to_head) == 6
    wins = sum((group[[f"return_{p}" for p in range(3)]] == 1).to_numpy().sum() for _, group in
               result.games.groupby("pairing"))
    assert standings["wins"].sum() == wins
    again = run_tournament(coin_game, agents, 3, seed=5, progress=False, n_boot=50)
    pd.testing.assert_frame_equal(result.standings, again.standings)
    gauntlet = run_tournament(coin_game, agents, 3, seed=5, gauntlet="random", progress=False, n_boot=0)
    assert len(gauntlet.settings["pairings"]) == math.comb(3, 2)
    assert all("random" in p["agents"] for p in gauntlet.settings["pairings"])


def test_pairings_are_sorted_tables():
    assert pairings(["b", "a", "c"], 2) == [("a", "b"), ("b", "c"), ("a", "c")]
    assert pairings(["b", "a", "c"], 2, gauntlet="c") == [("b", "c"), ("a", "c")]
    assert pairing_seed(3, ["x", "y"]) == pairing_seed(3, ["y", "x"]) != pairing_seed(4, ["x", "y"])


@pytest.mark.parametrize("kwargs, message", [
    ({"agents": ["random"]}, "at least 2 different agents"),
    ({"agents": ["random", "random"]}, "listed twice"),
    ({"agents": ["random", "nonsense:depth=2"]}, "unknown agent 'nonsense'"),
    ({"agents": ["random", "mcts:budget=3"]}, "no option 'budget'"),
    ({"games": 0}, "at least 1 game per pairing"),
    ({"seed": -1}, "non-negative integer"),
    ({"players": 1}, "not a contest"),
    ({"anchor": "greedy"}, "anchor agent 'greedy' is not in the tournament"),
    ({"n_boot": -5}, "n_boot and prior_draws must be at least 0"),
    ({"gauntlet": "nonsense"}, "unknown agent 'nonsense'"),
])
def test_bad_input_is_refused_before_any_game(kwargs, message):
    args = {"agents": ["random", WEAK], "games": 2, "seed": 0, **kwargs}
    players = args.pop("players", None)
    extra = {"players": players} if players is not None else {}
    with pytest.raises(ConfigError, match=message):
        run_tournament("cvc", progress=False, **args, **extra)


def test_cli_prints_the_tables_and_writes_the_files(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["tournament", "cvc", "--agents", "random", WEAK, "--games", "4", "--seed", "9", "--n-boot", "50",
                 "--quiet", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    for heading in ("standings", "cross table", "head to head", "first-seat advantage"):
        assert heading in printed
    games = pd.read_parquet(out / "games.parquet")
    assert len(games) == 4 and set(games["agent_0"]) == {"random", WEAK}
    standings = pd.read_csv(out / "standings.csv")
    pd.testing.assert_frame_equal(standings, pd.read_parquet(out / "standings.parquet"), check_dtype=False)
    assert list(pd.read_csv(out / "crosstable.csv", index_col=0).index) == list(standings["agent"])
    manifest = json.loads((out / "tournament.json").read_text())
    assert manifest["seed"] == 9 and manifest["games_per_pairing"] == 4
    assert manifest["command"].startswith("cavekit tournament cvc --agents random")
    assert "--seed 9" in manifest["command"]
    assert manifest["pairings"][0]["seed"] == pairing_seed(9, ["random", WEAK])


def test_cli_reports_bad_input_without_a_traceback(capsys):
    assert main(["tournament", "cvc", "--agents", "random", "--games", "3", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("cavekit: error: a tournament needs at least 2 different agents")
    assert main(["tournament", "cvc", "--agents", "random", WEAK, "--games", "0", "--quiet"]) == 2
    assert "at least 1 game per pairing" in capsys.readouterr().err


def test_out_into_a_folder_that_is_not_a_tournament_is_refused_before_any_game(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    # A million games could not finish within the timeout: the refusal has to come first.
    result = subprocess.run([sys.executable, "-m", "cavekit.analysis.cli", "tournament", "cvc", "--agents", "random",
                             "greedy", "--games", "1000000", "--quiet", "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"cavekit: error: --out {tmp_path} is not empty (notes.txt) and is not a "
                                     "tournament folder; choose a new or empty folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_tournament_folder_can_be_written_again(tmp_path, capsys):
    out = tmp_path / "run"
    for games in (4, 2):
        assert main(["tournament", "cvc", "--agents", "random", WEAK, "--games", str(games), "--n-boot", "20",
                     "--quiet", "--out", str(out)]) == 0
    assert len(pd.read_parquet(out / "games.parquet")) == 2
