"""Nested rollout policy adaptation (NRPA) for solo Cave vs Cave over turn segments, on one deal.

Told the real deal, solo Cave vs Cave has no chance left: a puzzle that NRPA (search/nrpa.pyx) searches as a
whole, which makes this agent the project's tightest measured ceiling: the best score our searches find on a
deal when nothing is hidden. A playout plays the deal from the root to the end; at each decision it
enumerates the mover's segments (`cvc_segments`: the rest of the turn, or up to a room turned up), takes the
first `candidates` ends in `rank_ends` order (each tile's best line by the value first, then the second
bests, ...) and draws one from the softmax of

    the end's value / temperature + W[the end position's code]

where the code is the end position's hash cut to 18 bits (positions that share a code share a weight: rare
among the positions one deal's playouts reach, and harmless, since a playout still scores what it played).
Not told the deal, the agent samples a deal that agrees with what it has seen (`sample_future`), searches
it and follows the game found until the real deal turns up something else, then searches again from there:
a determinised NRPA, much weaker per CPU-second than the planner (it commits to one guessed future).

Measured on the first solo deals of seed 0 as the strength report deals them (the learned value, 16
candidates; the shared 2-core box with two other runs on it):
    told the deal, level 3 x 10 (a scratch version, 2026-12-03), deals 0-10: 55.1 points (63 53 55 52 55 56
        55 56 56 53 52), about 33 CPU-s a deal, against 55.0 for the report's ceiling (the `strongest` planner
        told the deal) and 52.7 for `strongest` not told; deals 0-2 at level 3 x 16: 58.0 (2-3 CPU-min a deal);
    told the deal, level 3 x 10 (this module, 2026-12-04), deals 0-2: 60 51 53 in 25-44 CPU-s;
    told the deal, level 3 x 30 (2026-12-05), deals 0-1: 65 and 60 in 877 and 971 CPU-s: the ceiling keeps
        rising with search (deal 1: 51-53 at 3 x 10), so the 3 x 10 default is a lower bound on it;
    told the deal, level 3 x 10, the strength report's 200 solo deals (2026-12-05): 55.5 [55.1, 56.0] at 32.3
        CPU-s a deal (max 48.9), against 56.0 [55.6, 56.4] for the planner told the deal (paired -0.5 [-0.8,
        -0.1]; the better of the two averages 57.0) and 52.9 for `strongest` not told;
    not told, level 2 x 10, deals 0-2: 53 45 47 (7-10 searches a game, 18-27 CPU-s), against 54 50 56 for
        `strongest`: committing to one sampled deal at a time plays worse than the planner's averaging.
"""
cimport cython
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memcpy

from cavekit.core.cvc.compiled cimport (MAX_DEAL_ITEMS, NUM_DEAL_COMPONENTS, GameState, apply_action,
                                        current_player, is_terminal, scores)
from cavekit.search.cvc_evaluation cimport CaveMemo, Evaluator, make_evaluator, use_memo
from cavekit.search.cvc_future cimport Future, future_outcome, load_future
from cavekit.search.cvc_segments cimport SegmentEnumerator, state_struct
from cavekit.search.nrpa cimport NRPA_MAX_CHOICES, NRPA_MAX_MOVES, Game, choose, record_move, run_nrpa

import numpy as np

from ..core.api import ConfigError
from ..core.cvc.spec import SPEC
from .agent import register_agent
from .cvc_planner import future_of_deal, sample_future
from .nrpa import NrpaAgent
from .cvc_value import VALUE_OPTION

cdef enum:
    CHANCE = -1
    CODE_BITS = 18
    NUM_CODES = 1 << CODE_BITS


cdef int cvc_playout(void* problem, const double* W, uint64_t* rng, Game* game) noexcept nogil:
    return (<DealSearch>problem).playout(W, rng, game)


@cython.final
cdef class DealSearch:
    """NRPA over segments on one deal (a future) from one position (see the module docstring)."""

    cdef SegmentEnumerator e
    cdef Evaluator ev
    cdef CaveMemo memos[2]               # the evaluator's memo of each seat's cave facts
    cdef Future f
    cdef GameState root
    cdef int candidates
    cdef double temperature

    def __init__(self, str value="learned", int candidates=16, double temperature=1.0, int max_states=20000):
        if not 1 <= candidates <= NRPA_MAX_CHOICES:
            raise ConfigError(f"cvc_nrpa: candidates must be 1..{NRPA_MAX_CHOICES}; got candidates={candidates}")
        if max_states < 1:
            raise ConfigError(f"cvc_nrpa: max_states must be at least 1; got max_states={max_states}")
        self.e = SegmentEnumerator(max_states)
        self.ev = make_evaluator(value, 1)
        use_memo(&self.ev, self.memos)
        self.candidates, self.temperature = candidates, temperature

    cdef void record_path(self, int index, Game* game) noexcept nogil:
        """Record the moves from the enumeration's root to position `index`."""
        cdef int path[NRPA_MAX_MOVES]
        cdef int n = 0
        while self.e.parent[index] >= 0:
            if n == NRPA_MAX_MOVES:
                game.n_moves = -1
                return
            path[n] = self.e.via[index]
            n += 1
            index = self.e.parent[index]
        while n > 0:
            n -= 1
            record_move(game, path[n])

    cdef int playout(self, const double* W, uint64_t* rng, Game* game) noexcept nogil:
        """Play the deal from the root to the end with drawn segments into `game`; -1 if a decision had no end."""
        cdef GameState s
        cdef int codes[NRPA_MAX_CHOICES]
        cdef double prior[NRPA_MAX_CHOICES]
        cdef int points[2]
        cdef int n, j, index, action
        memcpy(&s, &self.root, sizeof(GameState))
        while not is_terminal(&s):
            if current_player(&s) == CHANCE:
                action = future_outcome(&s, &self.f)
                apply_action(&s, action)
                record_move(game, action)
                continue
            self.e.run(&s)
            n = self.e.rank_ends(current_player(&s), &self.ev)
            if n == 0:
                return -1
            if n > self.candidates:
                n = self.candidates
            for j in range(n):
                index = self.e.ranked[j].index
                codes[j] = <int>(self.e.hashes[index] & (NUM_CODES - 1))
                prior[j] = -self.e.ranked[j].key / self.temperature
            index = self.e.ranked[choose(game, n, codes, prior, W, rng)].index
            self.record_path(index, game)
            memcpy(&s, &self.e.states[index], sizeof(GameState))
        scores(&s, points)
        game.score = points[0]
        return 0

    def candidate_ends(self, state) -> list[list[int]]:
        """The segments a playout draws from at the decision `state` (the first `candidates` ends in
        `rank_ends` order), each as its moves; for tests and tools."""
        cdef const GameState* s = state_struct(state)
        cdef int n, j
        if current_player(s) == CHANCE or is_terminal(s):
            raise ValueError("candidate_ends needs a position where a player is to move")
        self.e.run(s)
        n = min(self.e.rank_ends(current_player(s), &self.ev), self.candidates)
        return [self.e.path(self.e.ranked[j].index) for j in range(n)]

    def search(self, state, const int8_t[:, ::1] future, int level, int iterations, double alpha,
               seed) -> tuple[float, list[int]]:
        """(score, moves) of the best game a level-`level` NRPA finds from `state` on the deal `future`."""
        memcpy(&self.root, state_struct(state), sizeof(GameState))
        if self.root.num_players != 1:
            raise ValueError("cvc_nrpa searches solo games")
        if future.shape[0] != NUM_DEAL_COMPONENTS or future.shape[1] != MAX_DEAL_ITEMS:
            raise ValueError("future must be an array of shape (NUM_DEAL_COMPONENTS, MAX_DEAL_ITEMS)")
        load_future(future, &self.f)
        return run_nrpa(<void*>self, cvc_playout, NUM_CODES, level, iterations, alpha, seed, "cvc_nrpa")


class CvcNrpaAgent(NrpaAgent):
    """Solo Cave vs Cave by NRPA over turn segments on one deal: searches whole games, plays the best found.

    Spec `cvc_nrpa:level=L,iterations=N,alpha=A,temperature=T,candidates=K,value=V,max_states=M` (defaults 3,
    10, 1, 1, 16, learned, 20000): iterations ** level playouts, each drawing every segment from the first K
    ends in the value's order (see the module docstring). `deal=` (from Python; the strength report's NRPA
    ceiling sets it) tells it the real deal, and it searches once a game; not told, it searches a sampled deal
    again whenever the real one turns up something else. Solo only.
    """

    name = "cvc_nrpa"

    def __init__(self, game, seed=None, level: int = 3, iterations: int = 10, alpha: float = 1.0,
                 temperature: float = 1.0, candidates: int = 16, value: str = "learned", max_states: int = 20000,
                 deal=None):
        if game.name != SPEC.name or game.engine != "compiled":
            raise ConfigError("cvc_nrpa plays Cave vs Cave on the compiled engine")
        if game.num_players != 1:
            raise ConfigError(f"cvc_nrpa plays solo Cave vs Cave only (told the deal, a puzzle without chance); "
                              f"this game has {game.num_players} players: use cvc_plan or a preset")
        self.settings = dict(value=value, candidates=candidates, temperature=temperature, max_states=max_states)
        DealSearch(**self.settings)      # refuse bad settings now
        self.deal = deal
        super().__init__(game, seed, level, iterations, alpha, temperature)

    def search_game(self, state, seed: int) -> tuple[float, list[int]]:
        """The best game a search from `state` finds on the told deal (or a sampled one): score and moves."""
        rng = np.random.default_rng(seed)
        future = future_of_deal(self.deal) if self.deal is not None else sample_future(state, rng)
        return DealSearch(**self.settings).search(state, future, self.level, self.iterations, self.alpha, int(rng.integers(1 << 62)))


register_agent("cvc_nrpa", CvcNrpaAgent, {"level": int, "iterations": int, "alpha": float, "temperature": float,
                                          "candidates": int, "value": VALUE_OPTION, "max_states": int}, game=SPEC.name)
