"""Caverna's decision columns: the round, the kind of move, the action space a dwarf was placed on (or imitated),
the furnishing tile furnished, and the player's score right after.

They are what the balance study groups by (`balance.action_space_rates`: the win rate and score share of the
players who took each action space, by round; `balance.furnishing_rates`: who furnished what).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import pyarrow as pa

from ...core.api import State
from ...core.caverna.actions import FURNISH, IMITATE, KIND_NAMES, PLACE, action_table
from ..decisions import DecisionFields


@lru_cache(maxsize=1)
def _caverna_action_facts() -> tuple[tuple[str, str | None, str | None], ...]:
    """Per action id: kind name, action space placed on or imitated, furnishing tile furnished."""
    facts = []
    for spec in action_table().specs:
        space = spec.space if spec.kind in (PLACE, IMITATE) else None
        facts.append((KIND_NAMES[spec.kind], space, spec.fid if spec.kind == FURNISH else None))
    return tuple(facts)


def _caverna_before(state: State, player: int, action: int) -> tuple[Any, ...]:
    return (int(state.round_no),) + _caverna_action_facts()[action]  # type: ignore[attr-defined]


def _caverna_after(state: State, player: int) -> tuple[Any, ...]:
    return (int(state.scores()[player]),)


DECISION_FIELDS = DecisionFields(
    before_columns=(("round", pa.int32()),          # the printed round number (1-2 players skip round 9)
                    ("kind", pa.string()),          # place, furnish, tile, sow, breed, feed, convert, ...
                    ("space", pa.string()),         # the action space placed on (place) or imitated (imitate)
                    ("furnishing", pa.string())),   # the furnishing tile furnished (furnish)
    before=_caverna_before,
    after_columns=(("score_after", pa.int64()),),   # as the generic column, which older folders hold
    after=_caverna_after)
