"""The Cave's extra games-table columns (its `OUTCOME_FIELDS`).

`rank_points_{p}`, a list of 10 ints per seat p: the majority points seat p scored with
each rank (index 0 = rank 1), summed over the match's rounds. Each round's captured piles come from the
engine itself (the match replayed up to that round's last card), and each rank's points from the engine's
scoring function `round_points` applied to that rank alone; the ten ranks add up to the engine's own round
score, which is checked for every round.
"""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ...core.api import Game, State
from ...core.pairs.state import KIND_PLAY, KIND_STRIDE
from ...core.pairs.rules import NUM_RANKS, round_points
from ...core.pairs.spec import SPEC
from ...core.registry import load_game
from ..outcomes import Columns, OutcomeFields


def _pairs_columns(players: int) -> Columns:
    return tuple((f"rank_points_{p}", pa.list_(pa.int32())) for p in range(players))


def pairs_round_captures(game: Game, state: State) -> list[list[list[int]]]:
    """Each round's captured piles (round -> seat -> count per rank) at the moment the round was scored.

    The engine keeps only the current round's piles, so round k's are read from the same match replayed
    in a game of k + 1 rounds (same parameters and engine otherwise), which ends, and stops, right after
    that round is scored.
    """
    if not state.is_terminal():
        raise ValueError("rank points are read from a finished match; this one is still being played")
    config = game.config  # type: ignore[attr-defined]
    plays_per_round = config.players * config.hand_size
    history = state.history()
    plays = [i for i, code in enumerate(state.history_kinds())  # type: ignore[attr-defined]
             if code // KIND_STRIDE == KIND_PLAY]
    round_scores = state.to_dict()["round_scores"]  # type: ignore[attr-defined]
    params = {k: v for k, v in game.parameters().items() if k != "players"}
    captures = []
    for k in range(config.num_rounds):
        if k == config.num_rounds - 1:
            piles = state.to_dict()["captured"]  # type: ignore[attr-defined]
        else:
            last_card = plays[(k + 1) * plays_per_round - 1]
            shorter = load_game(SPEC.name, players=config.players, engine=game.engine,  # type: ignore[attr-defined]
                                **{**params, "rounds": k + 1})
            piles = shorter.replay(history[:last_card + 1]).to_dict()["captured"]  # type: ignore[attr-defined]
        if round_points(piles) != list(round_scores[k]):
            raise RuntimeError(f"round {k + 1}: the replayed piles score {round_points(piles)}, but the match "
                               f"recorded {round_scores[k]}")
        captures.append([list(pile) for pile in piles])
    return captures


def pairs_rank_points(game: Game, state: State) -> list[list[int]]:
    """Majority points per seat and rank (seat -> rank index -> points), summed over the match's rounds."""
    totals = [[0] * NUM_RANKS for _ in range(game.num_players)]
    for piles in pairs_round_captures(game, state):
        for rank in range(NUM_RANKS):
            # The engine's own majority scoring, shown one rank at a time.
            alone = [[pile[rank] if r == rank else 0 for r in range(NUM_RANKS)] for pile in piles]
            for p, points in enumerate(round_points(alone)):
                totals[p][rank] += points
    if [sum(row) for row in totals] != list(state.scores()):
        raise RuntimeError(f"rank points add up to {[sum(row) for row in totals]}, not the match scores "
                           f"{list(state.scores())}")
    return totals


def _pairs_values(game: Game, state: State) -> dict[str, Any]:
    return {f"rank_points_{p}": points for p, points in enumerate(pairs_rank_points(game, state))}


OUTCOME_FIELDS = OutcomeFields(columns=_pairs_columns, values=_pairs_values)
