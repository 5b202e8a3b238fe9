"""The Cave's analyses (`study`: seat advantage, value of hand information, deciding ranks; `strength`) and
its analysis hook `OUTCOME_FIELDS` (majority points per rank, per seat; see `cavekit.core.spec`)."""
from .outcomes import OUTCOME_FIELDS

__all__ = ["OUTCOME_FIELDS"]
