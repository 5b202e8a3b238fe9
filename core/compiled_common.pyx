"""The base class of the compiled states (see compiled_common.pxd): one history, clone, deepcopy and pickle
for the Cave vs Cave, Cavum and The Cave engines."""
cimport cython
from libc.stdlib cimport free, malloc

from cavekit.core.engine cimport ENGINE_CHANCE, ENGINE_MAX_PLAYERS, Engine

from .records import RecordedState


@cython.auto_pickle(False)   # states pickle through their record (RecordedState.__reduce__), not their fields
cdef class CompiledStateBase:
    """Fields and copies every compiled `CoreState` shares; its C position is the subclass's business."""

    cdef int copy_into(self, CompiledStateBase other) except -1:
        """Copy this position's C struct (and the subclass's own fields) into `other`, a fresh instance."""
        raise NotImplementedError(f"{type(self).__name__} must override copy_into")

    cdef Engine engine(self) except *:
        """The engine's C interface (core/engine.pxd), with this game's number of players."""
        raise NotImplementedError(f"{type(self).__name__} must override engine")

    cdef void* position(self) noexcept:
        """The C position the engine's functions take (the subclass's struct `s`)."""
        return NULL

    # -- the engine interface seen from Python, for tests/test_engine_interface.py -------------------------

    def engine_view(self):
        """What the engine interface says of this position: {"name", "player", "legal", "chance" (pairs of
        outcome and probability), "returns", "evaluate" (None if the engine has no evaluation)}."""
        cdef Engine e = self.engine()
        cdef const void* s = self.position()
        cdef int* buffer = <int*>malloc(e.max_actions * sizeof(int))
        cdef double* probabilities = <double*>malloc(e.max_actions * sizeof(double))
        cdef double values[ENGINE_MAX_PLAYERS]
        cdef int n, i
        if buffer == NULL or probabilities == NULL:
            free(buffer)
            free(probabilities)
            raise MemoryError()
        try:
            view = {"name": e.name.decode(), "player": e.current_player(s)}
            n = e.legal_actions(s, buffer) if view["player"] >= 0 else 0
            view["legal"] = [buffer[i] for i in range(n)]
            n = e.chance_outcomes(s, buffer, probabilities) if view["player"] == ENGINE_CHANCE else 0
            view["chance"] = [(buffer[i], probabilities[i]) for i in range(n)]
            e.returns(s, values)
            view["returns"] = [values[i] for i in range(e.num_players)]
            view["evaluate"] = None
            if e.evaluate != NULL:
                e.evaluate(s, values)
                view["evaluate"] = [values[i] for i in range(e.num_players)]
            return view
        finally:
            free(buffer)
            free(probabilities)

    def engine_applied(self, int action):
        """A copy of this state with `action` applied through the engine's `apply_action` (not checked: it must
        be legal) and appended to its history."""
        cdef Engine e = self.engine()
        cdef CompiledStateBase other = self.clone()
        e.apply_action(other.position(), action)
        other._hist.append(action)
        return other

    def engine_resampled(self, int player, seed):
        """A copy of this state whose C position the engine's `resample` redrew for `player` (its history is
        this state's: a position for search, not a record); a plain copy if the engine hides nothing."""
        cdef Engine e = self.engine()
        cdef CompiledStateBase other = self.clone()
        cdef uint64_t rng = seed_generator(seed)
        if e.resample != NULL:
            e.resample(other.position(), player, &rng)
        return other

    def history(self):
        """Every action and chance outcome applied so far."""
        return list(self._hist)

    def clone(self):
        """An independent copy (one memcpy of the C position, a copy of the history)."""
        cdef CompiledStateBase other = type(self).__new__(type(self))
        self.copy_into(other)
        other._hist = list(self._hist)
        other._game = self._game
        return other

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        # The engines' Python mixins come after CoreState in the MRO; pickling goes through the record.
        return RecordedState.__reduce__(self)
