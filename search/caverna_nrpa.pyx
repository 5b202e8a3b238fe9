"""Nested rollout policy adaptation (NRPA) for solo Caverna, biased by the heuristic's whole-turn lines.

Solo Caverna has no chance (the round cards lie in a fixed order), so it is a one-player puzzle: a playout
replays exactly and the agent can search whole games before its first move, then follow the best one found.
The search is the shared NRPA (search/nrpa.pyx: Rosin 2011, with a prior as in Cazenave's GNRPA). A playout
is the heuristic policy (`caverna_fast`: conversions, feeding and every other decision one step greedy,
placements by whole-turn lines), except that at each placement it draws the line from a softmax over

    the line's evaluation / temperature + W[round, the line's first action]

where W starts at zero and is what the search adapts. A search of level L costs iterations ** L playouts
(about 15 ms each).

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
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc

from cavekit.core.caverna.compiled cimport (CK_NONE, MAX_ACTIONS, MAX_PLAYERS, PH_OVER, CoreState, GameState,
                                           apply_action, chance_kind, current_player, legal_actions)
from cavekit.search.caverna_fast cimport (Line, Policy, Weights, CavernaWeights, _any_place, _best_step,
                                          _compiled, _follow, _init_policy, _observe, _planned, _sample_chance,
                                          _turn_lines, evaluate)
from cavekit.search.nrpa cimport Game, choose, record_move, run_nrpa

from ..core.caverna.spec import SPEC
from ..core.api import ConfigError
from .agent import register_agent
from .caverna_fast import agent_weights
from .caverna_weights import WEIGHTS_OPTION
from .nrpa import NrpaAgent

cdef enum:
    MAX_ROUNDS = 16                 # rounds a code can name (a game has at most 12)
    NUM_CODES = MAX_ROUNDS * MAX_ACTIONS

ctypedef struct Problem:
    const GameState* root
    const Weights* w
    double temperature


cdef inline int code_of(const GameState* s, int action) noexcept nogil:
    """A placement's code: the round and the line's first action (the action space taken)."""
    cdef int r = s.round if s.round < MAX_ROUNDS else MAX_ROUNDS - 1
    return r * MAX_ACTIONS + action


cdef int playout(void* problem, const double* W, uint64_t* rng, Game* game) noexcept nogil:
    """Play the heuristic with drawn placements from the root to the end into `game`; -1 if memory ran out."""
    cdef const Problem* p = <const Problem*>problem
    cdef GameState s
    cdef Policy pol
    cdef int legal[MAX_ACTIONS]
    cdef double prior[MAX_ACTIONS]
    cdef int codes[MAX_ACTIONS]
    cdef double values[MAX_PLAYERS]
    cdef Line* lines = <Line*>malloc(MAX_ACTIONS * sizeof(Line))
    cdef int n, k, j, action, player
    if lines == NULL:
        return -1
    s = p.root[0]
    _init_policy(&pol, p.w, rng, True, 12, False)    # solo: unsettled (caverna_agents.SETTLE_FROM_PLAYERS)
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
                    prior[j] = lines[j].value / p.temperature
                k = choose(game, n, codes, prior, W, rng)
                _follow(&pol, &lines[k])
                action = lines[k].actions[0]
            else:
                action = _best_step(&s, legal, n, player, &pol, NULL)
        apply_action(&s, action)
        _observe(&pol, action)
        record_move(game, action)
    free(lines)
    evaluate(&s, p.w, values)
    game.score = values[0]
    return 0


def search_game(state, CavernaWeights weights, int level, int iterations, double alpha, double temperature,
                seed: int) -> tuple[float, list[int]]:
    """(score, moves) of the best game a level-`level` NRPA finds from the solo position `state`."""
    cdef CoreState cs = _compiled(state)
    cdef Problem problem
    problem.root, problem.w, problem.temperature = &cs.s, &weights.w, temperature
    return run_nrpa(&problem, playout, NUM_CODES, level, iterations, alpha, seed, "caverna_nrpa")


class CavernaNrpaAgent(NrpaAgent):
    """Solo Caverna by nested rollout policy adaptation: searches whole games, then plays the best found.

    Spec `caverna_nrpa:level=L,iterations=N,alpha=A,temperature=T,weights=W` (defaults 2, 30, 1, 1, tuned):
    iterations ** level playouts of the heuristic whose placements are drawn from a softmax of each
    whole-turn line's evaluation / T plus the adapted weight of (round, line's first action); see the module
    docstring (level 3 with 10 iterations: 82-85 points in 9 CPU-s, as the nested pilot). Solo only: with more
    players the game has chance and opponents, and a searched game does not replay (use caverna_pilot).
    """

    name = "caverna_nrpa"

    def __init__(self, game, seed=None, level: int = 2, iterations: int = 30, alpha: float = 1.0,
                 temperature: float = 1.0, weights: CavernaWeights | str = "tuned"):
        if game.num_players != 1:
            raise ConfigError(f"caverna_nrpa plays solo Caverna only (a one-player puzzle without chance); "
                              f"this game has {game.num_players} players: use caverna_pilot")
        self.weights = agent_weights(game, weights)
        super().__init__(game, seed, level, iterations, alpha, temperature)

    def search_game(self, state, seed: int) -> tuple[float, list[int]]:
        """The best game a search from `state` finds: its score and its moves to the end."""
        return search_game(state, self.weights, self.level, self.iterations, self.alpha, self.temperature, seed)


register_agent("caverna_nrpa", CavernaNrpaAgent, {"level": int, "iterations": int, "alpha": float,
                                                  "temperature": float, "weights": WEIGHTS_OPTION}, game=SPEC.name)
