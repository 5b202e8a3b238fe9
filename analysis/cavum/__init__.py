"""Cavum's analyses (`bidding`: what turn order is worth and how to bid) and its analysis hook
`DECISION_FIELDS` (phase, stage, bids and prices per decision; see `cavekit.core.spec`)."""
from .decisions import DECISION_FIELDS

__all__ = ["DECISION_FIELDS"]
