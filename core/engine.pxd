# The C interface every compiled engine offers a search: a table of functions over an opaque position of
# `state_size` bytes, so that each compiled algorithm (search/compiled_mcts.pyx, ...) is written once for every
# game. A compiled state hands out its table and its position (`CompiledStateBase.engine` and `.position`,
# compiled_common.pxd); a search copies the position with memcpy and plays on the copies without Python.
# The functions mean what the Python API's methods of the same name mean (core/api.py), on the C position:
# tests/test_engine_interface.py plays random games through the table and checks every step against the API.
from libc.stdint cimport uint64_t

cdef enum:
    ENGINE_CHANCE = -1          # current_player at a chance node (core.api.CHANCE)
    ENGINE_TERMINAL = -4        # current_player once the game is over (core.api.TERMINAL)
    ENGINE_MAX_PLAYERS = 8      # the most players of any game here (Caverna: 7)

ctypedef int (*PlayerFn)(const void* s) noexcept nogil
ctypedef int (*ActionsFn)(const void* s, int* out) noexcept nogil
ctypedef int (*ChanceFn)(const void* s, int* outcomes, double* probabilities) noexcept nogil
ctypedef void (*ApplyFn)(void* s, int action) noexcept nogil
ctypedef void (*ValuesFn)(const void* s, double* out) noexcept nogil
ctypedef void (*ResampleFn)(void* s, int player, uint64_t* rng) noexcept nogil

ctypedef struct Engine:
    const char* name
    size_t state_size           # bytes of a position: memcpy copies one
    int num_players
    int max_actions             # the most actions or chance outcomes a position offers: the buffers' size
    PlayerFn current_player     # a player, ENGINE_CHANCE or ENGINE_TERMINAL
    ActionsFn legal_actions     # the legal actions, ascending, into `out`; their number
    ChanceFn chance_outcomes    # the chance outcomes, ascending, and their probabilities; their number
    ApplyFn apply_action        # apply a legal action or chance outcome (not checked: the caller knows it is)
    ValuesFn returns            # a finished game's returns, one per player
    ValuesFn evaluate           # the game's heuristic estimate of the returns (NULL: the game has none)
    ResampleFn resample         # redraw what `player` cannot see, from its information state (NULL: nothing
                                # is hidden); the result is a position `player` cannot tell from this one
