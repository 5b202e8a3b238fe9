"""What every Caverna (The Cave Farmers) state shares: results, notation, records, observations, rendering.

`StateMixin` gives states their returns, notation, records and rendering on top of `to_dict()` and `scores()`.
The engines import it from here, and `game.py` imports the engines, so nothing imports back.

Returns: 2+ players, the highest score wins and ties are shared (`api.shared_win_returns`: zero-sum); solo, the
final score. Chance outcomes: the starting player (seat number), the round card (its index in
`rules().round_cards`), the harvest marker (0 green, 1 red). What a chance node decides (`_chance_kind`) and the
deal component it draws from (`chance_component`, see `deal.py`) are read from the public position, so every
engine shares them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..api import CHANCE, mask_of, shared_win_returns
from ..deal import DealError
from ..notation import parse_action, table_text
from ..records import RecordedState
from . import board as hb
from .actions import action_table, normalize_text
from .deal import HARVEST_MARKERS, MARKER_NAMES, START_PLAYER as START_PLAYER_COMPONENT, stage_cards
from .rules import fixed_round_card, harvest_marker_rounds, rules, shuffled_card_rounds
from .scoring import winners

# The kinds of chance node (what the next chance outcome decides).
NO_CHANCE, START_PLAYER, ROUND_CARD, HARVEST_MARKER = range(4)

RECORD_FORMAT = "cavekit-caverna"
RECORD_VERSION = 1

# Upper bound on the actions of one dwarf's turn: place, order, imitate, about 12 sub-actions (4 sown fields,
# 3 trades, 10 market buys, 4 loot items and their follow-ups), and conversions/releases (bounded by goods).
MAX_ACTIONS_PER_TURN = 120
MAX_ACTIONS_PER_HARVEST = 60


class StateMixin(RecordedState):
    """Results, notation, records and rendering of a Caverna state."""

    record_format = RECORD_FORMAT
    record_version = RECORD_VERSION

    _game: Any          # the Caverna game this state belongs to

    def _chance_kind(self) -> int:
        """What the next chance outcome decides: NO_CHANCE, START_PLAYER, ROUND_CARD or HARVEST_MARKER."""
        # Chance only happens before a round's work: the setup, then each round's reveal.
        if self.phase != "start":  # type: ignore[attr-defined]
            return NO_CHANCE
        if self.starter < 0:  # type: ignore[attr-defined]
            return START_PLAYER
        n = self._game.num_players
        round_no = self.round_no  # type: ignore[attr-defined]
        if len(self.cards) <= self.round and fixed_round_card(n, round_no) is None:  # type: ignore[attr-defined]
            return ROUND_CARD
        if round_no in harvest_marker_rounds(n) and self.round not in self.markers:  # type: ignore[attr-defined]
            return HARVEST_MARKER
        return NO_CHANCE

    def chance_component(self) -> tuple[str, int]:
        """The deal component this chance node draws from and which of its items (see `deal.py`)."""
        kind = self._chance_kind()
        n = self._game.num_players
        round_no = self.round_no  # type: ignore[attr-defined]
        if kind == START_PLAYER:
            return START_PLAYER_COMPONENT, 0
        if kind == ROUND_CARD:
            # The round says which card of its stage is turned up, however play got here.
            stage, rounds = next((s, r) for s, r in shuffled_card_rounds(n).items() if round_no in r)
            return stage_cards(stage), rounds.index(round_no)
        if kind == HARVEST_MARKER:
            return HARVEST_MARKERS, harvest_marker_rounds(n).index(round_no)
        raise DealError("the position is not a chance node, so it draws from no deal component")

    def returns(self) -> list[float]:
        """Shared-win returns for 2+ players (zero-sum); solo: the final score. 0 until the end."""
        n = self._game.num_players
        if not self.is_terminal():  # type: ignore[attr-defined]
            return [0.0] * n
        scores = self.scores()  # type: ignore[attr-defined]
        if n == 1:
            return [float(scores[0])]
        return shared_win_returns(n, winners(scores))

    def legal_actions_mask(self) -> list[int]:
        """1 for each legal action id, 0 elsewhere (length num_distinct_actions)."""
        return mask_of(self.legal_actions(), self._game.num_distinct_actions)  # type: ignore[attr-defined]

    def action_to_string(self, action: int) -> str:
        """Readable, stable notation of an action (a chance outcome is named by what it reveals)."""
        if self.current_player() == CHANCE:  # type: ignore[attr-defined]
            return _chance_text(self, action)
        return table_text(self, action, action_table())

    def string_to_action(self, text: str) -> int:
        """The action named by `text` (case and spacing do not matter); a number is taken as the id."""
        return parse_action(self, text, action_table(), normalize_text)

    def information_state_string(self, player: int) -> str:
        """Caverna has no hidden information: every player sees the whole position and its history."""
        return self.serialize()

    def observation_tensor(self, player: int) -> list[float]:
        """The whole position as numbers (length `game.observation_tensor_size()`); see `encode_position`."""
        return encode_position(self, player)

    def information_state_tensor(self, player: int) -> np.ndarray:
        """Perfect information: the observation tensor (the position; the history adds nothing a player
        could not see, only the order in which it happened)."""
        return np.asarray(encode_position(self, player), np.float32)

    def observation(self, player: int) -> dict[str, Any]:
        return self.to_dict()  # type: ignore[attr-defined]

    def resample_from_infostate(self, player: int, rng: Any) -> Any:
        """Nothing is hidden: the only state consistent with a player's view is this one."""
        return self.clone()  # type: ignore[attr-defined]

    def __str__(self) -> str:
        return render_state(self)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} caverna players={self._game.num_players} "
                f"history={len(self.history())} actions>")  # type: ignore[attr-defined]


def _chance_text(state: Any, outcome: int) -> str:
    kind = state._chance_kind()
    if kind == START_PLAYER:
        return f"player {outcome} starts"
    if kind == ROUND_CARD and 0 <= outcome < len(rules().round_cards):
        return f"reveal {rules().round_cards[outcome].id}"
    if kind == HARVEST_MARKER and outcome in (0, 1):
        return f"harvest marker {MARKER_NAMES[outcome]}"
    return f"chance outcome {outcome}"


NUM_POSITIONS = 44          # 24 board spaces + 20 overhang positions (Office room)
TURN_NODES = 20             # effect-tree nodes tracked per turn (the largest tree has 12)
MAX_PENDING = 4
PHASES = ("start", "work", "choice", "feeding", "breeding", "final", "over")
HARVEST_KINDS = ("", "none", "normal", "feed_1_per_dwarf", "no_harvest", "field_or_breeding")


def observation_layout(players: int) -> list[tuple[str, int]]:
    """The pieces of the observation vector with `players` seats: (name, size), in order."""
    r = rules()
    spaces, loot, furn = len(r.action_spaces), len(r.loot), len(r.furnishings)
    terrains = len(_TERRAINS)
    per_player = (8 + 5 + 6 + 6 + 1 + 1 + 12 * 3 + NUM_POSITIONS * (terrains + 1 + 1 + 2 + 2 + 4))
    return [("observer", players), ("current", players + 2), ("round", 12), ("phase", len(PHASES)),
            ("starter", players), ("cards", len(r.round_cards) + 1), ("markers", 12 + 3),
            ("spaces", spaces * 15), ("imitated", spaces), ("built", furn),
            ("turn", 1 + 1 + 1 + 1 + TURN_NODES + 1 + 2 + loot + 1 + 10 + 3 * MAX_PENDING + 2),
            ("harvest", 1 + players + len(HARVEST_KINDS) + players + 1 + spaces + 2),
            ("players", players * per_player)]


def _terrains() -> tuple[str, ...]:
    from . import board as hb
    return (hb.EMPTY,) + hb.FOREST_TERRAINS + hb.MOUNTAIN_TERRAINS


_TERRAINS = _terrains()


def encode_position(state: Any, player: int) -> list[float]:
    """Every field of the position as numbers, absolute seats (nothing is hidden in Caverna).

    Pieces (`Caverna.observation_tensor_layout()`): observer and current player one-hot; round and phase
    one-hot; starting player; the round (index + 1) each round card was revealed in; harvest markers; each
    action space's visibility, occupant + 1 and goods; imitations; unique furnishings built; the turn in
    progress (space, dwarf, tree progress, sessions, loot follow-ups); harvest bookkeeping; and per player the
    supply, animals, dwarfs' weapons, begging, supplier income and every board position (terrain one-hot,
    stable, crops, furnishing and overbuilt tile index + 1, large-pasture partner direction).
    """
    from . import board as hb
    from .actions import MARKET_PRICES
    from .rules import ANIMALS, GOODS
    r = rules()
    game = state._game
    n = game.num_players
    space_ids = list(r.action_spaces)
    furn_ids = [f.id for f in r.furnishings]
    loot_ids = [x.id for x in r.loot]
    out: list[float] = []

    def one_hot(index: int, size: int) -> None:
        row = [0.0] * size
        if 0 <= index < size:
            row[index] = 1.0
        out.extend(row)

    one_hot(player, n)
    cur = state.current_player()
    one_hot(cur if cur >= 0 else (n if cur == CHANCE else n + 1), n + 2)
    one_hot(state.round, 12)
    one_hot(PHASES.index(state.phase), len(PHASES))
    one_hot(state.starter, n)
    cards = list(state.cards)
    out.extend(float(cards.index(c.id) + 1) if c.id in cards else 0.0 for c in r.round_cards)
    out.append(float("urgent_wish_for_children" in state.spaces))
    out.extend(float(state.markers.get(k, -1)) for k in range(12))
    out.extend([float(state.markers_left[0]) if state.markers_left else 0.0,
                float(state.markers_left[1]) if len(state.markers_left) > 1 else 0.0, float(state.reds_seen)])
    goods_names = GOODS + ANIMALS
    for sid in space_ids:
        held = state.goods_on.get(sid, {})
        out.append(float(sid in state.spaces))
        out.append(float(state.occupied.get(sid, -1) + 1))
        out.extend(float(held.get(g, 0)) for g in goods_names)
    out.extend(float(space_ids.index(state.imitated[s]) + 1) if s in state.imitated else 0.0 for s in space_ids)
    out.extend(float(f in state.built) for f in furn_ids)
    t = state.turn
    if t is None:
        out.extend([0.0] * (4 + TURN_NODES + 1 + 2 + len(loot_ids) + 1 + 10 + 3 * MAX_PENDING + 2))
    else:
        out.extend([1.0, float(space_ids.index(t.space) + 1), float(t.dwarf),
                    float(space_ids.index(t.target) + 1) if t.target else 0.0])
        out.extend(float(t.done.get(k, 0)) for k in range(TURN_NODES))
        out.append(float(t.open + 1))
        out.extend([float(t.sown["grain"]), float(t.sown["vegetable"])])
        out.extend(float(x in t.exp_items) for x in loot_ids)
        out.append(float(t.exp_strength))
        out.extend(float(g in t.bought) for g in MARKET_PRICES)
        atoms = r.raw["effect_dsl"]["atoms"]
        for k in range(MAX_PENDING):
            if k < len(t.pending):
                e, g, v = t.pending[k]
                out.extend([float(atoms.index(e.kind) + 1), float(g), float(v)])
            else:
                out.extend([0.0, 0.0, 0.0])
        out.extend([float(t.fence_discounted), float(t.did_something)])
    out.append(float(state.next_dwarf))
    queue = list(state.queue)
    out.extend(float(queue[k] + 1) if k < len(queue) else 0.0 for k in range(n))
    one_hot(HARVEST_KINDS.index(state.harvest_kind), len(HARVEST_KINDS))
    out.extend({"fields": 1.0, "breeding": 2.0}.get(state.choices.get(q, ""), 0.0) for q in range(n))
    out.append(float(state.working_cave_used))
    out.extend(float(s in state.cleanup) for s in space_ids)
    out.extend([float(state.revealed), float(state.overflow)])
    positions = ([(row, col) for row in range(r.rows) for col in range(r.cols)]
                 + hb.overhang_positions(hb.FOREST) + hb.overhang_positions(hb.MOUNTAIN))
    for q in range(n):
        if q >= len(state.players):
            out.extend([0.0] * (observation_layout(n)[-1][1] // n))
            continue
        p = state.players[q]
        out.extend(float(p.goods[g]) for g in GOODS)
        out.extend(float(p.animals[a]) for a in ANIMALS)
        ready = sorted(p.ready) + [-1] * (6 - len(p.ready))
        placed = list(p.placed) + [-1] * (6 - len(p.placed))
        out.extend(float(w) for w in ready[:6])
        out.extend(float(w) for w in placed[:6])
        out.extend([float(p.newborns), float(p.begging)])
        for k in range(12):
            inc = p.income.get(k, {})
            out.extend(float(inc.get(g, 0)) for g in ("wood", "stone", "ruby"))
        for pos in positions:
            sp = p.board.at(pos)
            if sp is None:
                out.extend([0.0] * (len(_TERRAINS) + 1 + 1 + 2 + 2 + 4))
                continue
            one_hot(_TERRAINS.index(sp.terrain), len(_TERRAINS))
            out.append(1.0)
            out.append(float(sp.stable))
            out.extend([float(sp.crop_count if sp.crop == "grain" else 0),
                        float(sp.crop_count if sp.crop == "vegetable" else 0)])
            out.extend([float(furn_ids.index(sp.furnishing) + 1) if sp.furnishing in furn_ids
                        else (-1.0 if sp.furnishing else 0.0),
                        float(furn_ids.index(sp.overbuilt) + 1) if sp.overbuilt in furn_ids else 0.0])
            partner = sp.partner
            dirs = [0.0] * 4
            if partner is not None:
                d = (partner[0] - pos[0], partner[1] - pos[1])
                dirs[[(-1, 0), (1, 0), (0, -1), (0, 1)].index(d)] = 1.0
            out.extend(dirs)
    return out


def render_state(state: Any) -> str:
    """The position for a person: round, spaces with goods and dwarfs, each player's board and supply."""
    lines = [f"Caverna, {state._game.num_players} player(s), round {state.round_no} "
             f"({state.round + 1}/{len(state._rounds)}), phase {state.phase}"]
    if state.is_terminal():
        lines.append("game over; scores " + ", ".join(str(s) for s in state.scores()))
    elif state.current_player() == CHANCE:
        lines.append("chance to move")
    else:
        lines.append(f"player {state.current_player()} to move")
    spaces = []
    for s in state.spaces:
        goods = ", ".join(f"{n} {g}" for g, n in state.goods_on.get(s, {}).items() if n)
        who = state.occupied.get(s)
        spaces.append(f"  {s}" + (f" [{goods}]" if goods else "") + (f" <- player {who}" if who is not None else ""))
    lines.append("action spaces:")
    lines.extend(spaces)
    for q, p in enumerate(state.players):
        mark = " (starting player)" if q == state.starter else ""
        lines.append(f"player {q}{mark}: dwarfs {p.dwarfs} (weapons {p.weapons() or 'none'}), "
                     f"begging {p.begging}")
        lines.append("  goods: " + (", ".join(f"{n} {g}" for g, n in p.goods.items() if n) or "none"))
        lines.append("  animals: " + (", ".join(f"{n} {a}" for a, n in p.animals.items() if n) or "none"))
        lines.append("  board (a space is row,col: rows down the left, columns along the top):")
        lines.extend("    " + row for row in hb.render_labelled(p.board).splitlines())
    return "\n".join(lines)
