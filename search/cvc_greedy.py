"""Greedy play on compiled Cave vs Cave states searches its turns in C (`cvc_segments.TurnSearcher`)."""
from __future__ import annotations

from ..core.cvc.spec import SPEC
from .cvc_segments import TurnSearcher
from .greedy import register_compiled_turn_search


def compiled_turn_search(seed: int, max_states: int, chance_samples: int) -> TurnSearcher:
    """The C whole-turn search greedy uses on compiled Cave vs Cave states."""
    return TurnSearcher(seed=seed, max_states=max_states, chance_samples=chance_samples)


register_compiled_turn_search(SPEC.name, compiled_turn_search)
