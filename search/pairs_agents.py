"""Agents and the heuristic evaluation for The Cave (Pairs deck).

- `pairs_evaluate(state)`: estimated returns from public information only (match totals, the round's
  captured piles scored as they stand, cards still to play), for `greedy`, expectimax and MCTS leaves
  (`rollout=none` or cut-off rollouts). It never looks at a hand or the deck, so a searcher using it on
  the true state learns nothing hidden from it.
- `pairs_heuristic` (spec `pairs_heuristic` or `pairs_heuristic:exposure=0.6,potential=0.3`): plays the card
  whose capture most improves its standing in the round's rank majorities, minus what the card it leaves
  in the Cave is expected to hand to the next player. It reads only `state.observation(player)`.
- `dexpectimax` (spec `dexpectimax`, defaults `determinizations=6,depth=4,chance_samples=2,max_nodes=20000`;
  depth in plies, refills not counted): determinized expectimax for any game with `resample_from_infostate`:
  the root action values of `search/expectimax.py` (no pruning, so every root value is exact) averaged
  over states resampled from the mover's information; the best average is played.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.api import CHANCE, ConfigError, Game
from ..core.pairs.spec import SPEC
from ..core.pairs.rules import NUM_RANKS, capture_target
from .agent import register_agent

# Spread of the final margin still to come, in points, per square root of a card still to be played:
# a lead of this many points times sqrt(cards left) is worth about tanh(1/2) ~ 0.46 of a win.
PAIRS_MARGIN_SCALE = 1.2
PAIRS_MIN_SCALE = 1.0
PAIRS_POTENTIAL = 0.3     # the heuristic's credit per captured card in a rank someone else leads


def pairs_cards_left(state: Any) -> int:
    """Cards still to be played in the match (this round's hands and every later round's)."""
    d = state.to_dict()
    config = state.game.config
    rounds_after = max(0, config.num_rounds - d["round"] - 1)
    return sum(map(sum, d["hands"])) + rounds_after * config.players * config.hand_size


def win_shares(points: list[float], scale: float) -> list[float]:
    """Expected returns from points: win probabilities by a softmax of points / scale, mapped like returns()."""
    n = len(points)
    top = max(points)
    weights = [math.exp((p - top) / scale) for p in points]
    total = sum(weights)
    return [(n * w / total - 1) / (n - 1) for w in weights]


def pairs_evaluate(state: Any) -> list[float]:
    """Estimated returns of a position of The Cave from public information (exact returns once it is over)."""
    if state.is_terminal():
        return state.returns()
    # Partial credit for minority piles (as the heuristic agent gives) did not help greedy play (it scored
    # 31% against the heuristic over the same 200 matches, 32% without it), so the round is scored as it stands.
    d = state.to_dict()
    points = [total + score for total, score in zip(d["totals"], state.round_points())]
    scale = max(PAIRS_MIN_SCALE, PAIRS_MARGIN_SCALE * math.sqrt(pairs_cards_left(state)))
    return win_shares(points, scale)




# ----------------------------------------------------------------------------------------------------
# The heuristic agent

def projected_round_scores(captured: list[list[int]], potential: float) -> list[float]:
    """Round points with partial credit: a leader (or co-leader) in a rank scores its count, anyone else
    `potential` times its count (cards that may still become a majority)."""
    n = len(captured)
    scores = [0.0] * n
    for rank in range(NUM_RANKS):
        most = max(pile[rank] for pile in captured)
        for p in range(n):
            c = captured[p][rank]
            scores[p] += c if c == most else potential * c
    return scores


def standing(captured: list[list[int]], player: int, potential: float) -> float:
    """The player's projected round score minus the best of the others'."""
    scores = projected_round_scores(captured, potential)
    return scores[player] - max(s for p, s in enumerate(scores) if p != player)


def holds_probability(unseen: int, pool: int, hand: int) -> float:
    """Chance that a hand of `hand` cards drawn from `pool` unseen cards holds at least one of `unseen` copies."""
    if unseen <= 0 or hand <= 0 or pool <= 0:
        return 0.0
    if pool - unseen < hand:
        return 1.0
    miss = 1.0
    for i in range(hand):
        miss *= (pool - unseen - i) / (pool - i)
    return 1.0 - miss


class PairsHeuristicAgent:
    """Captures towards rank majorities and avoids handing the next player a good capture."""

    name = "pairs_heuristic"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None, exposure: float = 0.6,
                 potential: float = PAIRS_POTENTIAL):
        if game.name != "pairs":
            raise ConfigError(f"pairs_heuristic plays The Cave (pairs), not {game.name!r}")
        if exposure < 0 or not 0 <= potential <= 1:
            raise ConfigError(f"pairs_heuristic: exposure must be >= 0 and potential in [0, 1], "
                              f"not {exposure} and {potential}")
        self.game = game
        self.exposure = exposure
        self.potential = potential
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)

    def action_values(self, state: Any) -> dict[int, float]:
        """The heuristic value of playing each rank in hand, from the mover's observation only."""
        player = state.current_player()
        view = state.observation(player)
        n = self.game.num_players
        cave, captured = view["cave"], view["captured"]
        before = standing(captured, player, self.potential)
        next_player = (player + 1) % n
        last_card = sum(view["hand_sizes"]) == 1
        values = {}
        for rank in range(NUM_RANKS):
            if not view["hand"][rank]:
                continue
            target = capture_target(cave, rank)
            after_piles = [list(pile) for pile in captured]
            after_piles[player][target] += cave[target]
            gain = standing(after_piles, player, self.potential) - before
            after_cave = list(cave)
            after_cave[target] = 0
            after_cave[rank] += 1
            risk = 0.0 if last_card else self._next_player_gain(view, after_cave, after_piles, next_player, rank)
            values[rank] = gain - self.exposure * risk
        return values

    def _next_player_gain(self, view: dict[str, Any], cave: list[int], piles: list[list[int]], opponent: int,
                          played: int) -> float:
        """Expected best standing gain of `opponent` on `cave`, over the ranks their hidden hand may hold."""
        unseen = list(view["unseen"])
        pool = sum(unseen)
        hand = view["hand_sizes"][opponent]
        base = standing(piles, opponent, self.potential)
        gains = []
        for rank in range(NUM_RANKS):
            if not unseen[rank]:
                continue
            target = capture_target(cave, rank)
            trial = [list(pile) for pile in piles]
            trial[opponent][target] += cave[target]
            gains.append((standing(trial, opponent, self.potential) - base,
                          holds_probability(unseen[rank], pool, hand)))
        gains.sort(reverse=True)
        expected, none_better = 0.0, 1.0
        for gain, p in gains:
            expected += max(gain, 0.0) * p * none_better
            none_better *= 1 - p
        return expected

    def step(self, state: Any) -> int:
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("agents choose player actions at decision nodes")
        values = self.action_values(state)
        best = max(values.values())
        ties = [a for a in sorted(values) if values[a] >= best - 1e-9]
        return int(ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))])


register_agent("pairs_heuristic", PairsHeuristicAgent, {"exposure": float, "potential": float}, game=SPEC.name)


# ----------------------------------------------------------------------------------------------------
# Determinized expectimax

class DeterminizedExpectimaxAgent:
    """Averages expectimax root values over `determinizations` states resampled from the mover's information."""

    name = "dexpectimax"

    def __init__(self, game: Game, seed: int | np.random.SeedSequence | None = None, determinizations: int = 6,
                 depth: int = 4, chance_samples: int = 2, max_nodes: int = 20000):
        if determinizations < 1:
            raise ConfigError(f"dexpectimax: determinizations must be at least 1, not {determinizations}")
        if depth < 1:
            raise ConfigError(f"dexpectimax: depth must be at least 1 (plies), not {depth}")
        from .expectimax import ExpectimaxAgent
        self.game = game
        self.determinizations = determinizations
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        # One searcher, one ply per player action; no pruning, so every root action's value is exact.
        self.searcher = ExpectimaxAgent(game, seed=seed, depth=depth, turn=0, pruning="none",
                                        chance_samples=chance_samples, deep_samples=chance_samples,
                                        max_nodes=max_nodes)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self._seed)
        self.searcher.reset()

    def action_values(self, state: Any) -> dict[int, float]:
        """Each legal action's expectimax value for the mover, averaged over the determinizations."""
        player = state.current_player()
        hidden = getattr(self.game, "hidden_information", False) and hasattr(state, "resample_from_infostate")
        totals: dict[int, float] = {a: 0.0 for a in state.legal_actions()}
        for _ in range(self.determinizations if hidden else 1):
            world = state.resample_from_infostate(player, self.rng) if hidden else state.clone()
            self.searcher.reset()
            for entry in self.searcher.analyse(world):
                totals[entry["action"]] += entry["value"]
        runs = self.determinizations if hidden else 1
        return {a: v / runs for a, v in totals.items()}

    def step(self, state: Any) -> int:
        if state.current_player() == CHANCE or state.is_terminal():
            raise ValueError("agents choose player actions at decision nodes")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(state)
        best = max(values.values())
        ties = [a for a in sorted(values) if values[a] >= best - 1e-9]
        return int(ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))])


register_agent("dexpectimax", DeterminizedExpectimaxAgent, {"determinizations": int, "depth": int,
                                                            "chance_samples": int, "max_nodes": int})
