# Nested rollout policy adaptation in C (nrpa.pyx): the search every game's NRPA agent shares. A game module
# writes the playout (where it draws its decisions with `choose` and records its moves) and hands it to
# `run_nrpa` (`search_best_game` from C); the drawing, the adaptation and the nested loop are here, once.
from libc.stdint cimport uint64_t

cdef enum:
    NRPA_MAX_DECISIONS = 160        # decisions one game records for adaptation (later ones are drawn, not adapted)
    NRPA_MAX_CHOICES = 96           # choices a recorded decision may offer (more: drawn, not adapted)
    NRPA_MAX_MOVES = 1024           # moves a game keeps (a solo game of either Caverna has a few hundred)

ctypedef struct Decision:
    int n                           # choices offered
    int chosen                      # the index of the choice drawn
    int codes[NRPA_MAX_CHOICES]     # each choice's code: its index into the adapted weights W
    double prior[NRPA_MAX_CHOICES]  # each choice's prior logit (the game's value of it / temperature)

ctypedef struct Game:
    double score                    # -INFINITY: not played
    int n_decisions
    Decision decisions[NRPA_MAX_DECISIONS]
    int n_moves                     # -1: the game was longer than NRPA_MAX_MOVES (not kept)
    int moves[NRPA_MAX_MOVES]       # every action from the search's root, chance outcomes included

# A playout: play `problem` from its root to the end into `game` (its score, decisions and moves), drawing
# each adapted decision with `choose(game, ..., W, rng)`; 0, or -1 if memory ran out.
ctypedef int (*Playout)(void* problem, const double* W, uint64_t* rng, Game* game) noexcept nogil

ctypedef struct Search:
    void* problem                   # the game's search object, passed to `playout` as is
    Playout playout
    int num_codes                   # the size of W: every code is in 0 .. num_codes - 1
    int iterations                  # searches of level L - 1 a level-L search runs
    double alpha                    # the adaptation's step

cdef void start_game(Game* game) noexcept nogil
cdef int choose(Game* game, int n, const int* codes, const double* prior, const double* W,
                uint64_t* rng) noexcept nogil
cdef void record_move(Game* game, int action) noexcept nogil
cdef int search_best_game(const Search* search, int level, uint64_t* rng, Game* best) noexcept nogil
cdef tuple run_nrpa(void* problem, Playout playout, int num_codes, int level, int iterations, double alpha,
                    object seed, str name)


cdef class BestGame:
    cdef Game* game
