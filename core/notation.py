"""Move notation shared by the games with an action table: id -> text and text -> id, with clear errors.

A game's action table lists every atomic action's notation (`specs[i].text`) and the reverse lookup on
normalised text (`by_text`); chance outcomes are named by the state itself (`action_to_string` at a chance
node). The games' state mixins call these two functions so every game parses and prints moves alike.
"""
from __future__ import annotations

from typing import Any, Callable

from .api import CHANCE, IllegalActionError

LEGAL_SHOWN = 12        # legal moves listed in an error about unknown notation


def table_text(state: Any, action: int, table: Any) -> str:
    """The notation of player action `action` in `table`; an IllegalActionError names the valid range."""
    if not 0 <= action < len(table):
        raise IllegalActionError(action, state.current_player(), f"actions are numbered 0 to {len(table) - 1}")
    return table.specs[action].text


def parse_action(state: Any, text: str, table: Any, normalize: Callable[[str], str]) -> int:
    """The action named by `text` (compared after `normalize`); a number is taken as the id itself."""
    stripped = text.strip()
    if stripped.lstrip("-").isdigit():
        return int(stripped)
    wanted = normalize(stripped)
    if state.current_player() == CHANCE:
        for outcome, _ in state.chance_outcomes():
            if normalize(state.action_to_string(outcome)) == wanted:
                return outcome
    action = table.by_text.get(wanted)
    if action is None:
        legal = "; ".join(state.action_to_string(a) for a in state.legal_actions()[:LEGAL_SHOWN])
        raise IllegalActionError(text, state.current_player(), f"no action has that notation; legal now: {legal or 'none'}")
    return action
