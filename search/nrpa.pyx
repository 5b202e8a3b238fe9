"""Nested rollout policy adaptation (NRPA): search whole games of a one-player puzzle, then play the best found.

NRPA (Rosin 2011) is the method of choice for one-player games without hidden chance; this is its form with a
prior (GNRPA, Cazenave 2020). A playout plays the game to the end, drawing each decision it adapts from

    softmax over the choices of (the choice's prior logit + W[the choice's code])

where the prior is the game's own value of the choice (over a temperature), the code names the choice in a
way that carries across playouts (a round and an action, a position's hash), and W starts at zero. Level 0
is one playout; level L runs `iterations` searches of level L - 1, each from the level's current W, keeps the
best game (the last of equal scores) and after each moves W towards it: `alpha` times the gradient of the
best game's log-likelihood. A level-L search costs iterations ** L playouts.

The game modules (caverna_nrpa, cvc_nrpa) write the playout and the codes; this module has the rest: the
draw, the adaptation, the nested loop, and `NrpaAgent`, which plays the best game found and searches again
from wherever play leaves it.
"""
from libc.math cimport INFINITY, exp
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from cavekit.core.compiled_common cimport search_rng, uniform

import math
from typing import Any

import numpy as np

from ..core.api import ConfigError, Game as GameRules, State
from .agent import choosable_actions

MAX_LEVEL = 3
MAX_ITERATIONS = 1000


cdef void start_game(Game* game) noexcept nogil:
    """Empty `game` before a playout writes it."""
    game.score = -INFINITY
    game.n_decisions = 0
    game.n_moves = 0


cdef int choose(Game* game, int n, const int* codes, const double* prior, const double* W,
                uint64_t* rng) noexcept nogil:
    """Draw one of `n` choices with probability softmax(prior + W[codes]) and record the decision in `game`
    (if it fits) for the adaptation; the index drawn."""
    cdef double top = -INFINITY, total = 0.0, u
    cdef Decision* d
    cdef int k, chosen = n - 1
    for k in range(n):
        if prior[k] + W[codes[k]] > top:
            top = prior[k] + W[codes[k]]
    for k in range(n):
        total += exp(prior[k] + W[codes[k]] - top)
    u = uniform(rng) * total
    for k in range(n):
        u -= exp(prior[k] + W[codes[k]] - top)
        if u < 0:
            chosen = k
            break
    if game.n_decisions < NRPA_MAX_DECISIONS and n <= NRPA_MAX_CHOICES:
        d = &game.decisions[game.n_decisions]
        game.n_decisions += 1
        d.n, d.chosen = n, chosen
        memcpy(d.codes, codes, n * sizeof(int))
        memcpy(d.prior, prior, n * sizeof(double))
    return chosen


cdef void record_move(Game* game, int action) noexcept nogil:
    """Append `action` to the game's moves (or mark the game too long to keep)."""
    if game.n_moves < 0:
        return
    if game.n_moves == NRPA_MAX_MOVES:
        game.n_moves = -1
        return
    game.moves[game.n_moves] = action
    game.n_moves += 1


cdef void adapt(double* W, const Game* best, double alpha) noexcept nogil:
    """Move W towards `best`: each recorded decision's drawn choice up by alpha, every choice offered down by
    alpha times its probability under W as it was before this decision's update."""
    cdef const Decision* d
    cdef double z[NRPA_MAX_CHOICES]
    cdef double top, total
    cdef int i, k
    for i in range(best.n_decisions):
        d = &best.decisions[i]
        top = -INFINITY
        for k in range(d.n):
            z[k] = d.prior[k] + W[d.codes[k]]
            if z[k] > top:
                top = z[k]
        total = 0.0
        for k in range(d.n):
            z[k] = exp(z[k] - top)
            total += z[k]
        # All from z (the old W): choices may share a code, and each still gets its whole share.
        for k in range(d.n):
            W[d.codes[k]] -= alpha * z[k] / total
        W[d.codes[d.chosen]] += alpha


cdef int nested(const Search* search, int level, const double* W, uint64_t* rng, Game* best) noexcept nogil:
    """The best game of a level-`level` search starting from the policy W, into `best`; -1 if memory ran out."""
    cdef double* mine
    cdef Game* game
    cdef int i, status = 0
    if level == 0:
        start_game(best)
        status = search.playout(search.problem, W, rng, best)
        if best.n_moves < 0:
            best.score = -INFINITY      # a game too long to keep cannot be played: never the best
        return status
    mine = <double*>malloc(search.num_codes * sizeof(double))
    game = <Game*>malloc(sizeof(Game))
    if mine == NULL or game == NULL:
        free(mine)
        free(game)
        return -1
    memcpy(mine, W, search.num_codes * sizeof(double))
    start_game(best)
    for i in range(search.iterations):
        status = nested(search, level - 1, mine, rng, game)
        if status < 0:
            break
        if game.score >= best.score:
            memcpy(best, game, sizeof(Game))
        adapt(mine, best, search.alpha)
    free(mine)
    free(game)
    return status


cdef int search_best_game(const Search* search, int level, uint64_t* rng, Game* best) noexcept nogil:
    """The best game a level-`level` NRPA from zero weights finds, into `best`; -1 if memory ran out."""
    cdef double* W = <double*>malloc(search.num_codes * sizeof(double))
    cdef int status
    if W == NULL:
        return -1
    memset(W, 0, search.num_codes * sizeof(double))
    status = nested(search, level, W, rng, best)
    free(W)
    return status


cdef tuple run_nrpa(void* problem, Playout playout, int num_codes, int level, int iterations, double alpha,
                    object seed, str name):
    """(score, moves) of the best game a level-`level` NRPA from zero weights finds with `playout` on `problem`
    (the moves from the root to the end); a MemoryError naming `name` if it could not finish."""
    cdef Search search
    cdef uint64_t rng = search_rng(seed)
    cdef BestGame best = BestGame()
    cdef int status
    search.problem, search.playout, search.num_codes = problem, playout, num_codes
    search.iterations, search.alpha = iterations, alpha
    with nogil:
        status = search_best_game(&search, level, &rng, best.game)
    if status < 0:
        raise MemoryError(f"{name}: memory ran out, or a playout found no move to play")
    return best.result(name)


cdef class BestGame:
    """A `Game` on the heap, for the Python side of a search: allocate, search into `game`, read the result."""

    def __cinit__(self):
        self.game = <Game*>malloc(sizeof(Game))
        if self.game == NULL:
            raise MemoryError()
        start_game(self.game)

    def __dealloc__(self):
        free(self.game)

    def result(self, str name) -> tuple[float, list[int]]:
        """(score, moves) of the game found; `name` (the agent's) words the error if there is none to play."""
        if self.game.n_moves < 0 or self.game.score == -INFINITY:
            raise MemoryError(f"{name}: no game to play (one longer than {NRPA_MAX_MOVES} moves, or memory ran out)")
        return self.game.score, [self.game.moves[k] for k in range(self.game.n_moves)]


class NrpaAgent:
    """Base class of the NRPA agents: plays the best game its search finds and searches again from wherever
    play leaves that game (a chance outcome other than the one searched, or a move of someone else).

    Subclasses set `name` and implement `search_game(state, seed) -> (score, moves)`: the best game found from
    `state`, as the moves from it to the end.
    """

    name = "nrpa"

    def __init__(self, game: GameRules, seed: Any, level: int, iterations: int, alpha: float, temperature: float):
        if not 1 <= level <= MAX_LEVEL:
            raise ConfigError(f"{self.name}: level must be 1..{MAX_LEVEL}; got level={level}")
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ConfigError(f"{self.name}: iterations must be 1..{MAX_ITERATIONS}; got iterations={iterations}")
        if not (alpha > 0 and math.isfinite(alpha)):
            raise ConfigError(f"{self.name}: alpha must be a positive number; got alpha={alpha}")
        if not (temperature > 0 and math.isfinite(temperature)):
            raise ConfigError(f"{self.name}: temperature must be a positive number of points; got "
                              f"temperature={temperature}")
        self.game = game
        self.level, self.iterations, self.alpha, self.temperature = level, iterations, alpha, temperature
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        """Restart the generator from the seed and forget the game found."""
        self._rng = np.random.default_rng(self._seed)
        self._memory: list[int] = []
        self.best_found: float | None = None
        self.searches = 0

    def search_game(self, state: State, seed: int) -> tuple[float, list[int]]:
        """The best game found from `state`: its score and its moves from `state` to the end."""
        raise NotImplementedError

    def step(self, state: State) -> int:
        """The next move of the best game found (searched again if play left it)."""
        legal = choosable_actions(state)
        history = list(state.history())
        memory = self._memory
        if not (len(memory) > len(history) and memory[:len(history)] == history):
            score, moves = self.search_game(state, int(self._rng.integers(1 << 62)))
            self._memory = memory = history + moves
            self.best_found = score
            self.searches += 1
        action = memory[len(history)]
        if action not in legal:
            raise AssertionError(f"{self.name}: the searched game's move {action} is not legal here")
        return action
