"""The base class of the compiled states (see compiled_common.pxd): one history, clone, deepcopy and pickle
for the Cave vs Cave, Cavum and The Cave engines."""
cimport cython

from .records import RecordedState


@cython.auto_pickle(False)   # states pickle through their record (RecordedState.__reduce__), not their fields
cdef class CompiledStateBase:
    """Fields and copies every compiled `CoreState` shares; its C position is the subclass's business."""

    cdef int copy_into(self, CompiledStateBase other) except -1:
        """Copy this position's C struct (and the subclass's own fields) into `other`, a fresh instance."""
        raise NotImplementedError(f"{type(self).__name__} must override copy_into")

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
