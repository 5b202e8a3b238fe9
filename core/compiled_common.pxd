# What every compiled engine and searcher shares: the random generator (inline, so it costs nothing across
# modules) and the base class of the compiled states (history, clone, deepcopy, pickle).
# One definition here; core/cvc, core/cavum, core/pairs and search/cvc_* `cimport` it. Streams must stay
# bit-identical: seeded games, benchmarks and committed results depend on them.
from libc.stdint cimport uint64_t

from cavekit.core.engine cimport Engine


# ------------------------------------------------------------------------------------------------
# Random numbers in C: xorshift64* (Vigna); the state is any non-zero uint64_t.

cdef inline uint64_t next_random(uint64_t* rng) noexcept nogil:
    """The next 64 random bits; advances the generator state."""
    cdef uint64_t x = rng[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    rng[0] = x
    return x * 0x2545F4914F6CDD1DULL


cdef inline int random_below(uint64_t* rng, int n) noexcept nogil:
    """A uniform integer in [0, n) from the high 32 bits (multiply-shift, no modulo); n > 0."""
    return <int>(((next_random(rng) >> 32) * <uint64_t>n) >> 32)


cdef inline double uniform(uint64_t* rng) noexcept nogil:
    """A uniform double in [0, 1) from the top 53 bits."""
    return (next_random(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline uint64_t seed_generator(object seed) except 0:
    """The engines' non-zero generator state from a Python int seed (splitmix64 of the seed)."""
    cdef uint64_t z = (<uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)) + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    z = z ^ (z >> 31)
    return z if z else 1


cdef inline uint64_t search_rng(object seed) except 0:
    """A searcher's non-zero generator state from a Python int seed (a different, older mix than
    `seed_generator`; kept so the compiled searchers' seeded choices stay the same)."""
    cdef uint64_t state = (<uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)) * 0x9E3779B97F4A7C15ULL + 1
    return state if state else 1


# ------------------------------------------------------------------------------------------------
# The base of every compiled state: the action history, the game, and the copies built on them.
# An engine's `CoreState` adds its C struct `s` (and any fields of its own) and overrides `copy_into`.

cdef class CompiledStateBase:
    cdef list _hist
    cdef public object _game

    cdef int copy_into(self, CompiledStateBase other) except -1
    cdef Engine engine(self) except *          # the C interface of this state's engine (core/engine.pxd)
    cdef void* position(self) noexcept         # this state's C position, which the engine's functions take
