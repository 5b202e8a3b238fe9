"""Nested rollout policy adaptation (NRPA) for solo Caverna, biased by the heuristic's whole-turn lines.

Solo Caverna has no chance (the round cards lie in a fixed order), so it is a one-player puzzle: a playout
replays exactly and the agent can search whole games before its first move, then follow the best one found.
NRPA (Rosin 2011) is the method of choice for such puzzles; this is its generalised form with a prior (GNRPA,
Cazenave 2020). A playout is the heuristic policy (`caverna_fast`: conversions, feeding and every other
decision one step greedy, placements by whole-turn lines), except that at each placement it draws the line
from a softmax over

    the line's evaluation / temperature + W[round, the line's first action]

where W starts at zero and is what the search adapts. Level 0 is one playout; level L runs `iterations`
searches of level L - 1, each from the level's current W, keeps the best game (the last of equal scores) and
after each moves W towards it (`alpha` times the gradient of the best game's log-likelihood). A search of
level L costs iterations ** L playouts (about 15 ms each).

Measured 2026-12-04 on the shared 2-core box (two other searches running): games from the solo start by
`make_agent(SPEC, load_game("caverna", players=1), seed=k)` for k = 0 .. n-1, process time a game:
    level 1, 100 iterations                       73 (1 seed)       0.9 CPU-s
    level 2, 30 iterations                        87 (1 seed)       8 CPU-s
    level 3, 10 iterations                        85.0 (sd 5.3, 6 seeds: 80 to 95)   9 CPU-s
    level 3, 10 iterations, temperature 0.5/0.7/2 83.8 / 83.0 / 76.5 (6 seeds)
    level 3, 10 iterations, alpha 0.5/2/4         81.0 (6) / 78.5 / 76.0 (4 seeds)
    level 3, 14 iterations                        83.8 (4 seeds)    26 CPU-s
    level 2, 45 iterations                        84.0 (4 seeds)    20 CPU-s
and `cavekit match caverna --players 1 --agents caverna_nrpa:level=3,iterations=10 --games 10 --seed 0`: 81.8
(median 81.5, max 88), about 10 s a game,
against caverna_pilot's level 2 (the `hard` preset, 83.0 over 20 seeds in 9 s) and its noisy level 2 (the
`strongest` preset, 88.4 over 100 in 19 s). So NRPA matches the nested pilot at equal cost and, like it,
plateaus in the mid 80s: both draw every game from the heuristic's whole-turn lines. Tried and dropped:
drawing the turn's other decisions too (furnishings, crops; 69 at level 3, the space is too wide for these
budgets), uniform noise on the heuristic's own choices (noise 0.5 / 1: 84.5 / 80.8), the shipped weights
with growth pressure (free room x dwarf per round 2 x 6, 3.5 x 6, 5 x 8: 81.7 / 75.3 / 83.3), and a new
level-3 search from each third round's start keeping the best game (88.3 over 4 seeds in 25 s).
The 95-point games score bonus tiles (53 points) with two dwarfs; the 80-point ones hoard gold instead.
"""
from libc.math cimport INFINITY, exp
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from cavekit.core.compiled_common cimport search_rng
from cavekit.core.caverna.compiled cimport (CK_NONE, MAX_ACTIONS, MAX_PLAYERS, PH_OVER, CoreState, GameState,
                                           apply_action, chance_kind, current_player, legal_actions)
from cavekit.search.caverna_fast cimport (Line, Policy, Record, Weights, CavernaWeights, _any_place,
                                          _best_step, _compiled, _follow, _init_policy, _observe, _planned,
                                          _record, _sample_chance, _turn_lines, evaluate, uniform)

import math

import numpy as np

from ..core.api import ConfigError
from ..core.caverna.spec import SPEC
from .agent import choosable_actions, register_agent
from .caverna_fast import agent_weights

cdef enum:
    MAX_ROUNDS = 16                 # rounds a code can name (a game has at most 12)
    MAX_DECISIONS = 160             # placements one playout records (solo: at most 12 rounds x 6 dwarfs)
    MAX_CHOICES = 96                # lines a recorded placement may offer (more: the placement is not adapted)
    NUM_CODES = MAX_ROUNDS * MAX_ACTIONS

MAX_LEVEL = 3
MAX_ITERATIONS = 1000

ctypedef struct Decision:
    int n                           # lines offered
    int chosen                      # the index of the line drawn
    int codes[MAX_CHOICES]          # round * MAX_ACTIONS + the line's first action
    double prior[MAX_CHOICES]       # the line's evaluation / temperature

ctypedef struct Game:
    double score                    # -INFINITY: not played (or memory ran out)
    int n_decisions
    Decision decisions[MAX_DECISIONS]
    Record actions                  # every action of the game from the search's root

ctypedef struct Settings:
    int iterations
    double alpha
    double temperature
    const Weights* w


cdef inline int code_of(const GameState* s, int action) noexcept nogil:
    cdef int r = s.round if s.round < MAX_ROUNDS else MAX_ROUNDS - 1
    return r * MAX_ACTIONS + action


cdef int draw(const double* logits, int n, uint64_t* rng) noexcept nogil:
    """An index drawn with probability softmax(logits)."""
    cdef double top = -INFINITY, total = 0.0, u
    cdef int k
    for k in range(n):
        if logits[k] > top:
            top = logits[k]
    for k in range(n):
        total += exp(logits[k] - top)
    u = uniform(rng) * total
    for k in range(n):
        u -= exp(logits[k] - top)
        if u < 0:
            return k
    return n - 1


cdef void note(Game* game, int n, int chosen, const int* codes, const double* logits, const double* W) noexcept nogil:
    """Record a decision (its codes and priors: the logits less the adapted weights) for `adapt`, if it fits."""
    cdef Decision* d
    cdef int j
    if game.n_decisions == MAX_DECISIONS or n > MAX_CHOICES:
        return
    d = &game.decisions[game.n_decisions]
    game.n_decisions += 1
    d.n, d.chosen = n, chosen
    for j in range(n):
        d.codes[j] = codes[j]
        d.prior[j] = logits[j] - W[codes[j]]


cdef int playout(const GameState* root, const double* W, const Settings* st, uint64_t* rng,
                 Game* game) noexcept nogil:
    """Play the heuristic with softmax placements from `root` to the end into `game`; -1 if memory ran out."""
    cdef GameState s
    cdef Policy pol
    cdef int legal[MAX_ACTIONS]
    cdef double logits[MAX_ACTIONS]
    cdef int codes[MAX_ACTIONS]
    cdef double values[MAX_PLAYERS]
    cdef Line* lines = <Line*>malloc(MAX_ACTIONS * sizeof(Line))
    cdef int n, k, j, action, player
    if lines == NULL:
        return -1
    memcpy(&s, root, sizeof(GameState))
    _init_policy(&pol, st.w, rng, True, 12)
    game.n_decisions = 0
    game.actions.n = 0
    while s.phase != PH_OVER:
        if chance_kind(&s) != CK_NONE:
            action = _sample_chance(&s, rng)
        else:
            n = legal_actions(&s, legal)
            player = current_player(&s)
            action = _planned(&pol, legal, n)
            if action >= 0:
                pass
            elif n == 1:
                action = legal[0]
            elif _any_place(legal, n):
                _turn_lines(&s, legal, n, player, &pol, rng, lines)
                for j in range(n):
                    codes[j] = code_of(&s, lines[j].actions[0])
                    logits[j] = lines[j].value / st.temperature + W[codes[j]]
                k = draw(logits, n, rng)
                note(game, n, k, codes, logits, W)
                _follow(&pol, &lines[k])
                action = lines[k].actions[0]
            else:
                action = _best_step(&s, legal, n, player, &pol, NULL)
        apply_action(&s, action)
        _observe(&pol, action)
        _record(&game.actions, action)
    free(lines)
    evaluate(&s, st.w, values)
    game.score = values[0] if game.actions.n >= 0 else -INFINITY
    return 0


cdef void adapt(double* W, const Game* best, double alpha) noexcept nogil:
    """Move W towards `best`: each recorded placement's drawn line up by alpha, every line offered down by
    alpha times its probability under W as it was."""
    cdef const Decision* d
    cdef double z[MAX_CHOICES]
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
        for k in range(d.n):        # all from the old W: the drawn line's code differs from the others'
            W[d.codes[k]] -= alpha * z[k] / total
        W[d.codes[d.chosen]] += alpha


cdef int nrpa(const GameState* root, int level, const double* W, const Settings* st, uint64_t* rng,
              Game* best) noexcept nogil:
    """The best game of a level-`level` search from `root` starting from the policy W into `best`; -1 if
    memory ran out."""
    cdef double* mine
    cdef Game* game
    cdef int i
    if level == 0:
        return playout(root, W, st, rng, best)
    mine = <double*>malloc(NUM_CODES * sizeof(double))
    game = <Game*>malloc(sizeof(Game))
    if mine == NULL or game == NULL:
        free(mine)
        free(game)
        return -1
    memcpy(mine, W, NUM_CODES * sizeof(double))
    best.score = -INFINITY
    for i in range(st.iterations):
        if nrpa(root, level - 1, mine, st, rng, game) < 0:
            free(mine)
            free(game)
            return -1
        if game.score >= best.score:
            memcpy(best, game, sizeof(Game))
        adapt(mine, best, st.alpha)
    free(mine)
    free(game)
    return 0


def search_game(state, CavernaWeights weights, int level, int iterations, double alpha, double temperature,
                seed: int) -> tuple[float, list[int]]:
    """(score, actions) of the best game a level-`level` NRPA finds from the solo position `state`."""
    cdef CoreState cs = _compiled(state)
    cdef Settings st
    cdef uint64_t rng = search_rng(seed)
    cdef double* W = <double*>malloc(NUM_CODES * sizeof(double))
    cdef Game* best = <Game*>malloc(sizeof(Game))
    cdef int status
    if W == NULL or best == NULL:
        free(W)
        free(best)
        raise MemoryError()
    st.iterations, st.alpha, st.temperature, st.w = iterations, alpha, temperature, &weights.w
    memset(W, 0, NUM_CODES * sizeof(double))
    try:
        with nogil:
            status = nrpa(&cs.s, level, W, &st, &rng, best)
        if status < 0 or best.actions.n < 0:
            raise MemoryError("caverna_nrpa: a game longer than the record holds, or memory ran out")
        return best.score, [best.actions.actions[k] for k in range(best.actions.n)]
    finally:
        free(W)
        free(best)


class CavernaNrpaAgent:
    """Solo Caverna by nested rollout policy adaptation: searches whole games, then plays the best found.

    Spec `caverna_nrpa:level=L,iterations=N,alpha=A,temperature=T,weights=W` (defaults 2, 30, 1, 1, tuned):
    iterations ** level playouts of the heuristic whose placements are drawn from a softmax of each
    whole-turn line's evaluation / T plus the adapted weight of (round, line's first action); see the module
    docstring (level 3 with 10 iterations: 82-85 points in 9 CPU-s, as the nested pilot). Solo only: with more players the game has chance and opponents, and a searched game does not
    replay (use caverna_pilot).
    """

    name = "caverna_nrpa"

    def __init__(self, game, seed=None, level: int = 2, iterations: int = 30, alpha: float = 1.0,
                 temperature: float = 1.0, weights: CavernaWeights | str = "tuned"):
        if game.num_players != 1:
            raise ConfigError(f"caverna_nrpa plays solo Caverna only (a one-player puzzle without chance); "
                              f"this game has {game.num_players} players: use caverna_pilot")
        if not 1 <= level <= MAX_LEVEL:
            raise ConfigError(f"caverna_nrpa: level must be 1..{MAX_LEVEL}; got level={level}")
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ConfigError(f"caverna_nrpa: iterations must be 1..{MAX_ITERATIONS}; got iterations={iterations}")
        if not (alpha > 0 and math.isfinite(alpha)):
            raise ConfigError(f"caverna_nrpa: alpha must be a positive number; got alpha={alpha}")
        if not (temperature > 0 and math.isfinite(temperature)):
            raise ConfigError(f"caverna_nrpa: temperature must be a positive number of points; got "
                              f"temperature={temperature}")
        self.game = game
        self.level, self.iterations, self.alpha, self.temperature = level, iterations, alpha, temperature
        self.weights = agent_weights(game, weights)
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        """Restart the generator from the seed and forget the game found."""
        self._rng = np.random.default_rng(self._seed)
        self._memory: list[int] = []
        self.best_found: float | None = None

    def step(self, state) -> int:
        """The next action of the best game found (searched again if play left it)."""
        history = list(state.history())
        memory = self._memory
        if not (len(memory) > len(history) and memory[:len(history)] == history):
            score, actions = search_game(state, self.weights, self.level, self.iterations, self.alpha,
                                         self.temperature, int(self._rng.integers(1 << 62)))
            self._memory = memory = history + actions
            self.best_found = score
        action = memory[len(history)]
        if action not in choosable_actions(state):
            raise AssertionError(f"caverna_nrpa: the searched game's action {action} is not legal here")
        return action


register_agent("caverna_nrpa", CavernaNrpaAgent, {"level": int, "iterations": int, "alpha": float,
                                                  "temperature": float, "weights": str}, game=SPEC.name)
