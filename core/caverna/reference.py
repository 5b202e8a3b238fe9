"""The readable reference engine for Caverna: The Cave Farmers (1-7 players).

Built on the step-1 modules: `rules` (data, setup, accumulation, imitation cost, loot), `board` (tiles, sowing,
field phase), `furnishings` (costs, placement, effects), `husbandry` (capacity and breeding) and `scoring`.

Game flow (rules file sections 3, 5 and 6):
- setup: who starts is a chance node (2+ players); food by seat from the starting player.
- each round: the round card is a chance node (uniform over the stage's unrevealed cards; Wish for children is
  fixed in round 4; solo: the fixed order), then from round 6 the harvest marker is a chance node (green/red,
  weighted by the markers left). Family life flips Wish for children to Urgent wish. Replenish (solo: the
  clean-up first, where the player may keep an over-full space for 1 ruby), supplier goods and Miner ore.
- work: from the starting player clockwise each player with a dwarf left places one (unarmed first, then
  armed by strength; `pay 1 ruby: place the strength-k dwarf next` breaks the order), carries out the space
  and ends the turn. Newborns do not act. Then all dwarfs return home.
- harvest per the schedule and the markers: field phase (automatic), feeding (each player in turn order:
  conversions, Working cave, then `feed`; missing food becomes begging markers), breeding (automatic when
  there is one best choice; `breed <types>` when several maximal sets of newborns fit). The third red marker
  asks each player `harvest fields` or `harvest breeding` first.
- after the last round's harvest each player who can still convert or trade gets one last turn for it
  ("any time before scoring": Beer parlor, rubies for a missing animal type, ...), ended with `end turn`;
  then the game is over and `scores()` are `scoring.score` totals.

A turn: `place <space>`, then sub-actions, then `end turn`. The space's effect tree (rules file section 8)
decides what is legal: `all` parts in order (optional parts may be skipped), `any` each part at most once,
`then_any` in order, `one` exactly one (Guest room: any), `by_weapon` by the acting dwarf. Goods parts that are
not a choice (`take` on an accumulating space, fixed gains, per-mine gains, the starting player token) are
carried out automatically as soon as the tree reaches them; goods parts that are a choice are `take goods`.
Sowing, expeditions, Ore trading and the Weekly market are repeatable parts: they stay open while the player
keeps doing them and close when the player does anything else. A loot item that needs a placement or a
payment (furnish, stable, tile, pasture, sow, breed) must be carried out next. A dwarf may only be placed on
a space where something can actually be carried out (goods taken automatically, or a feasible choice); the
refusal names the space and what is missing. `end turn` is legal once the tree is satisfied, or when nothing
more can be done after something was carried out.

Any-time conversions (issue 18): every cost and precondition counts what the player could get by converting
now (the food table, rubies as wild cards, the furnishings' trades: `conversions.py`), before a dwarf is placed
and in the middle of a payment, and the one payment routine `_pay` converts what is missing first
(`conversions.payment_plan`: the conversions losing the fewest points; a player who wants another way converts
first). `_affords` is the one affordability check (placement legality, sub-actions, furnishing, sowing,
forging, trading, the market, Imitation) and `food_potential` the one "food this player can raise now"
(Imitation, feeding). Feeding: `feed` raises the missing food by converting as far as the player can, and
only the food still missing becomes begging markers (converting never costs more points than the 3 of a
begging marker per food; ties: the last animal of a type). Imitation's food is paid first, then the space
imitated must still be possible. The Peaceful cave and the Working cave are never used automatically.
Conversions are also offered as actions where they matter: during your own turn after placing a dwarf, during
your feeding, and whenever animals do not fit; single tiles bought with rubies during your own turn after
placing. While the space has not been carried out at all, a conversion (or ruby tile, or weapon discard) that
would leave it impossible is refused: a dwarf never stands on a space without carrying out any of it. Animals: after every change the engine
asks `husbandry.can_accommodate`; while it is false the only legal actions are `release <animal>` and the
animal conversions to food.
Furnishing payments: the cost after the Carpenter and Stone carver discounts; when the Builder makes more than one
payment affordable (`furnishings.payment_choices`), the furnish action is followed by a `pay ...` choice (nothing
else is legal until then, and the parts of the space after the furnishing wait for it).
The Peaceful cave's weapon discard is offered with the conversions. With `anytime_trades_once_per_harvest=True`
each "any time before scoring" building (Trader, Spare part storage, the parlors) trades once per harvest window:
from the end of one harvest to the end of the next (the last turn before scoring is a window of its own).
The Guest room lets a player take both halves of Extension once per game (`guest_room_extension_both`, the data's
note on that space; `every_time` reads the Guest room's text literally).
A dwarf that no space can take (possible with 6-dwarf families at 7 players) stays home: `skip`.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from ..api import CHANCE, TERMINAL, IllegalActionError, as_action
from . import board as hb
from . import conversions as cv
from . import furnishings as fu
from . import husbandry as hu
from .actions import (BREED, BUY_TILE, CONVERT, END_TURN, FEED, FURNISH, HARVEST_CHOICE, IMITATE, ORDER, PAY,
                      PEACEFUL, PLACE, RELEASE, SKIP, SOLO_KEEP, TILE, WORKING_CAVE, ActionSpec, action_table,
                      placement_key)
from .state import HARVEST_MARKER, NO_CHANCE, ROUND_CARD, START_PLAYER, StateMixin
from .rules import (ANIMALS, FARM_ANIMALS, GOODS, Config, Effect, accumulation, add_goods, board_space_ids,
                    fixed_round_card, harvest_event, harvest_marker_mix, imitation_cost, loot_items, rounds_played,
                    rules, shuffled_round_cards, stage_rounds, starting_food)
from .scoring import score
from .summary import PlayerSummary

# chance node kinds
GREEN, RED = 0, 1
AUTO = ("take_accumulated", "gain", "gain_per", "gain_if", "become_starting_player")
REPEATABLE = ("sow", "expedition", "trade", "market")
EXTENSION_SPACES = frozenset(s for s in rules().action_spaces if s.startswith("extension"))
ONCE_PER_HARVEST = frozenset(f.id for f in rules().furnishings if fu.before_scoring_trade(f.id))


# ------------------------------------------------------------------------------------------------------
# Effect trees

@dataclass(frozen=True)
class Tree:
    """An effect tree flattened: node 0 is the root; atoms are the leaves."""

    kinds: tuple[str, ...]
    effects: tuple[Effect, ...]
    children: tuple[tuple[int, ...], ...]
    parent: tuple[int, ...]
    optional: tuple[bool, ...]


@lru_cache(maxsize=None)
def tree_of(effect: Effect) -> Tree:
    """The flattened tree of an effect (by_weapon must be resolved before)."""
    kinds: list[str] = []
    effects: list[Effect] = []
    children: list[tuple[int, ...]] = []
    parent: list[int] = []
    optional: list[bool] = []

    def walk(e: Effect, up: int) -> int:
        n = len(kinds)
        kinds.append(e.kind)
        effects.append(e)
        children.append(())
        parent.append(up)
        optional.append(e.optional)
        if e.is_combinator:
            children[n] = tuple(walk(p, n) for p in e.parts)
        return n

    walk(effect, -1)
    return Tree(tuple(kinds), tuple(effects), tuple(children), tuple(parent), tuple(optional))


def _started(tree: Tree, done: dict[int, int], n: int) -> bool:
    if tree.children[n] or tree.kinds[n] in ("all", "any", "then_any", "one"):
        return any(_started(tree, done, c) for c in tree.children[n])
    return done.get(n, 0) > 0


def _satisfied(tree: Tree, done: dict[int, int], n: int) -> bool:
    kind = tree.kinds[n]
    if kind == "all":
        return all(_satisfied(tree, done, c) for c in tree.children[n] if not tree.optional[c])
    if kind in ("any", "then_any", "one"):
        return any(_satisfied(tree, done, c) for c in tree.children[n])
    return done.get(n, 0) > 0


def _exhausted(tree: Tree, done: dict[int, int], open_: int, n: int) -> bool:
    times = done.get(n, 0)
    if times == 0:
        return False
    kind = tree.kinds[n]
    if kind == "trade":
        return times >= int(tree.effects[n].arg("max_times", 1))
    if kind in ("sow", "expedition", "market"):
        return open_ != n
    return True


def available_atoms(tree: Tree, done: dict[int, int], open_: int, guest: bool) -> list[int]:
    """Atoms the tree allows next, in tree order."""
    out: list[int] = []

    def walk(n: int) -> None:
        kind = tree.kinds[n]
        ch = tree.children[n]
        if kind == "all":
            for k, c in enumerate(ch):
                if any(_started(tree, done, p) for p in ch[k + 1:]):
                    continue
                if all(_satisfied(tree, done, p) or (tree.optional[p] and not _started(tree, done, p))
                       for p in ch[:k]):
                    walk(c)
        elif kind == "any" or (kind == "one" and guest):
            for c in ch:
                walk(c)
        elif kind == "then_any":
            for k, c in enumerate(ch):
                if not any(_started(tree, done, p) for p in ch[k + 1:]):
                    walk(c)
        elif kind == "one":
            for c in ch:
                if not any(_started(tree, done, p) for p in ch if p != c):
                    walk(c)
        elif not _exhausted(tree, done, open_, n):
            out.append(n)

    walk(0)
    return out


def is_auto(tree: Tree, n: int) -> bool:
    """A goods part carried out without a choice: not optional, under `all` (or the root)."""
    up = tree.parent[n]
    return tree.kinds[n] in AUTO and not tree.optional[n] and (up < 0 or tree.kinds[up] == "all")


def resolve_weapon(effect: Effect, armed: bool) -> Effect:
    """The branch of a by_weapon effect for the acting dwarf."""
    if effect.kind == "by_weapon":
        return effect.parts[1] if armed else effect.parts[0]
    return effect


# ------------------------------------------------------------------------------------------------------
# Players and turns

class Player:
    """One player's home board, supply, animals, dwarfs and begging markers."""

    __slots__ = ("board", "goods", "animals", "ready", "placed", "newborns", "begging", "income", "trades_used",
                 "extension_both_used")

    def __init__(self, food: int) -> None:
        self.board = hb.initial_board()
        self.goods = {g: 0 for g in GOODS}
        self.goods["food"] = food
        self.animals = {a: 0 for a in ANIMALS}
        self.ready = [0] * rules().dwarfs_at_start     # weapons of the dwarfs at home, not placed this round
        self.placed: list[int] = []                      # weapons of the dwarfs on action spaces
        self.newborns = 0                                # dwarfs born this round (unarmed, do not act)
        self.begging = 0
        self.income: dict[int, dict[str, int]] = {}      # round index -> supplier goods waiting there
        self.trades_used: frozenset[str] = frozenset()   # once-per-harvest buildings used this window
        self.extension_both_used = False                 # Guest room: both halves of Extension taken

    def copy(self) -> Player:
        other = Player.__new__(Player)
        other.board = self.board
        other.goods = dict(self.goods)
        other.animals = dict(self.animals)
        other.ready = list(self.ready)
        other.placed = list(self.placed)
        other.newborns = self.newborns
        other.begging = self.begging
        other.income = {k: dict(v) for k, v in self.income.items()}
        other.trades_used = self.trades_used
        other.extension_both_used = self.extension_both_used
        return other

    @property
    def dwarfs(self) -> int:
        return len(self.ready) + len(self.placed) + self.newborns

    def weapons(self) -> list[int]:
        return sorted(w for w in self.ready + self.placed if w > 0)

    def to_dict(self) -> dict[str, Any]:
        return {"board": hb.render(self.board), "goods": dict(self.goods), "animals": dict(self.animals),
                "ready": sorted(self.ready), "placed": list(self.placed), "newborns": self.newborns,
                "begging": self.begging, "income": {str(k): v for k, v in sorted(self.income.items()) if v},
                "trades_used": sorted(self.trades_used), "extension_both_used": int(self.extension_both_used)}


class Turn:
    """The dwarf being placed this turn and how far its action space has been carried out."""

    __slots__ = ("space", "dwarf", "tree", "imitating", "target", "done", "open", "sown", "exp_items",
                 "exp_strength", "bought", "pending", "fence_discounted", "did_something", "payment")

    def __init__(self, space: str, dwarf: int) -> None:
        self.space = space
        self.dwarf = dwarf                 # weapon strength of the acting dwarf (0: unarmed)
        self.tree: Tree | None = None
        self.imitating = False
        self.target = ""                   # the space imitated
        self.done: dict[int, int] = {}
        self.open = -1                     # the repeatable atom in progress
        self.sown = {"grain": 0, "vegetable": 0}
        self.exp_items: list[str] = []
        self.exp_strength = 0
        self.bought: list[str] = []
        self.pending: list[list[Any]] = []   # loot follow-ups: [effect, grain sown, vegetables sown]
        self.fence_discounted = False
        self.did_something = False
        self.payment: tuple | None = None    # a furnishing waiting for its payment choice: (fid, pos, pay, n)

    def copy(self) -> Turn:
        other = Turn.__new__(Turn)
        for name in Turn.__slots__:
            setattr(other, name, getattr(self, name))
        other.done = dict(self.done)
        other.sown = dict(self.sown)
        other.exp_items = list(self.exp_items)
        other.bought = list(self.bought)
        other.pending = [list(p) for p in self.pending]
        return other

    def to_dict(self) -> dict[str, Any]:
        return {"space": self.space, "dwarf": self.dwarf, "target": self.target,
                "done": {str(k): v for k, v in sorted(self.done.items())}, "open": self.open,
                "sown": dict(self.sown), "exp_items": list(self.exp_items), "exp_strength": self.exp_strength,
                "bought": list(self.bought), "pending": [[p[0].kind, p[1], p[2]] for p in self.pending],
                "fence_discounted": int(self.fence_discounted), "did_something": int(self.did_something),
                "payment": [self.payment[0], list(self.payment[1])] if self.payment else None}


@lru_cache(maxsize=8192)
def tile_ids(board: hb.Board, tile: str, config: Config) -> tuple[int, ...]:
    """Action ids of the legal placements of a tile on a board (TILE ids; memoised: boards are immutable)."""
    table = action_table()
    return tuple(sorted(table.tile_key[placement_key(pl)] for pl in hb.legal_placements(board, tile, config)
                        if placement_key(pl) in table.tile_key))


@lru_cache(maxsize=8192)
def stable_ids(board: hb.Board, config: Config) -> tuple[int, ...]:
    """STABLE action ids of the legal stable positions."""
    table = action_table()
    return tuple(sorted(table.stable[pl.cells[0]] for pl in hb.legal_placements(board, "stable", config)
                        if pl.cells[0] in table.stable))


@lru_cache(maxsize=8192)
def owned_ids(board: hb.Board) -> frozenset[str]:
    """Furnishings lying on a board (memoised)."""
    return frozenset(s.furnishing for _, s in board.items(usable_only=False) if s.furnishing)


@lru_cache(maxsize=16384)
def furnish_targets(board: hb.Board, fid: str, config: Config) -> tuple:
    """`furnishings.furnish_targets`, memoised."""
    return tuple(fu.furnish_targets(board, fid, config))


@lru_cache(maxsize=16384)
def payment_choices(board: hb.Board, fid: str, config: Config, cost: tuple | None) -> tuple:
    """`furnishings.payment_choices` as (swaps, ((good, amount), ...)) pairs, memoised."""
    choices = fu.payment_choices(board, fid, config, cost=dict(cost) if cost is not None else None)
    return tuple((swaps, tuple(option.items())) for swaps, option in choices.items())


def _pay_ok(supply: dict[str, int], cost: dict[str, int]) -> bool:
    return all(supply.get(g, 0) >= n for g, n in cost.items())


# ------------------------------------------------------------------------------------------------------
# The state

class ReferenceState(StateMixin):
    """A Caverna position in the reference engine; see `cavekit.core.api.State` for the protocol."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self._config: Config = game.config
        self._n = game.num_players
        self._rounds = rounds_played(self._n)
        self.players: list[Player] = []
        self.starter = 0 if self._n == 1 else -1
        if self._n == 1:
            self._seat_players()
        self.round = 0                         # index into the rounds played
        self.phase = "start"                   # start, work, choice, feeding, breeding, final, over
        self.cards: list[str] = []             # round card revealed per round index
        self.markers: dict[int, int] = {}      # round index -> GREEN / RED
        self.markers_left = list(harvest_marker_mix(self._n))
        self.reds_seen = 0
        self.spaces: list[str] = list(board_space_ids(self._n, self._config))
        self.goods_on: dict[str, dict[str, int]] = {s: {} for s in self.spaces}
        self.occupied: dict[str, int] = {}
        self.imitated: dict[str, str] = {}     # imitation space -> the space it copied this round
        self.built: list[str] = []             # unique furnishings built by anyone
        self.actor = 0
        self.turn: Turn | None = None
        self.next_dwarf = -1                   # strength chosen out of order with a ruby
        self.queue: list[int] = []             # players still to act in a harvest phase
        self.harvest_kind = ""
        self.choices: dict[int, str] = {}      # field_or_breeding choices
        self.working_cave_used = False
        self.cleanup: list[str] = []           # solo: over-full spaces still to decide
        self.revealed = -1                     # the round whose spaces were last made visible
        self.overflow = False                  # the acting player's animals do not fit
        self._history: list[int] = []
        self._legal: list[int] | None = None

    def _seat_players(self) -> None:
        self.players = [Player(starting_food((p - self.starter) % self._n, self._n)) for p in range(self._n)]

    # ----------------------------------------------------------------------------------------------
    # Whose move

    @property
    def round_no(self) -> int:
        """The printed number of the current round (2 players and solo skip 9)."""
        return self._rounds[min(self.round, len(self._rounds) - 1)]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def is_chance_node(self) -> bool:
        return self._chance_kind() != NO_CHANCE

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self._chance_kind() != NO_CHANCE:
            return CHANCE
        return self.actor

    # ----------------------------------------------------------------------------------------------
    # Chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        kind = self._chance_kind()
        if kind == START_PLAYER:
            return [(p, 1.0 / self._n) for p in range(self._n)]
        if kind == ROUND_CARD:
            cards = self._card_choices()
            return [(c, 1.0 / len(cards)) for c in cards]
        if kind == HARVEST_MARKER:
            green, red = self.markers_left
            return [(o, n / (green + red)) for o, n in ((GREEN, green), (RED, red)) if n]
        return []

    def _card_choices(self) -> list[int]:
        stage = next(s for s, rounds in stage_rounds(self._n).items() if self.round_no in rounds)
        ids = [c.id for c in rules().round_cards]
        return [ids.index(cid) for cid in shuffled_round_cards(self._n)[stage] if cid not in self.cards]

    def _apply_chance(self, outcome: int) -> None:
        kind = self._chance_kind()
        if kind == START_PLAYER:
            self.starter = outcome
            self._seat_players()
        elif kind == ROUND_CARD:
            self.cards.append(rules().round_cards[outcome].id)
        else:
            self.markers[self.round] = outcome
            self.markers_left[outcome] -= 1

    # ----------------------------------------------------------------------------------------------
    # Legal actions

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        player = self.current_player()
        if player == TERMINAL:
            return []
        if player == CHANCE:
            return sorted(o for o, _ in self.chance_outcomes())
        table = action_table()
        p = self.players[player]
        if self.phase == "start":          # solo clean-up
            return sorted(([table.solo_keep[self.cleanup[0]]] if p.goods["ruby"] else []) + [table.skip])
        if self.overflow:
            return sorted([table.release[a] for a in FARM_ANIMALS if p.animals[a] > 0]
                          + [i for i in self._conversions(player) if _animal_pay(table.specs[i])])
        if self.phase == "choice":
            return sorted(table.harvest_choice.values())
        if self.phase == "final":
            return sorted(self._conversions(player) + [table.end_turn])
        if self.phase == "feeding":
            actions = [table.feed] + self._conversions(player)
            food, need = p.goods["food"], self.feeding_need(player)
            if food < need and self.food_potential(player) > food:
                actions.append(table.feed_converting)
            if fu.feeding_substitutes(p.board) and not self.working_cave_used:
                actions += [table.working_cave[g] for g, n in (("wood", 1), ("stone", 1), ("ore", 2))
                            if p.goods[g] >= n]
            return sorted(actions)
        if self.phase == "breeding":
            return sorted(table.breed[t] for t in self._breeding_options(player))
        t = self.turn
        if t is None:
            actions = [table.place[s] for s in self.spaces if self._place_problem(player, s) is None]
            if not actions:             # no space can take this dwarf: it stays home this round
                return [table.skip]
            if p.goods["ruby"] > 0 and self.next_dwarf < 0:
                default = min(p.ready) if p.ready else 0
                actions += [table.order[w] for w in set(p.ready) if w > 0 and w != default]
            return sorted(actions)
        actions = self._conversions(player) + self._ruby_tiles(player)
        if self._nothing_done_yet(t):   # the space must still be carried out after any conversion
            actions = [a for a in actions if self._keeps_turn_possible(player, table.specs[a])]
        if t.tree is None:              # on an Imitation space, target not chosen yet
            targets = [table.imitate[s] for s in self._imitation_targets(player)
                       if self._imitate_problem(player, s) is None]
            actions += targets
            if not targets:             # unreachable: the placement was refused then
                actions.append(table.end_turn)
            return sorted(actions)
        if t.payment is not None:
            return sorted(table.pay[swaps] for swaps in self._payment_choices(player, t.payment[0], t.payment[2]))
        if t.pending:
            own = self._pending_actions(player, t)
            actions += own
            top = t.pending[-1]
            if not own or (top[0].kind == "sow" and top[1] + top[2] > 0):
                actions.append(table.skip)
            return sorted(set(actions))
        own = self._tree_actions(player, t)
        actions += own
        if _satisfied(t.tree, t.done, 0) or not own:
            actions.append(table.end_turn)
        return sorted(set(actions))

    def _conversions(self, player: int) -> list[int]:
        table = action_table()
        p = self.players[player]
        have = {**p.goods, **p.animals}
        result = []
        sources = {"food_conversion", "ruby"} | owned_ids(p.board)
        if self._config.anytime_trades_once_per_harvest:
            sources -= p.trades_used
        for i in table.convert:
            spec = table.specs[i]
            if spec.source in sources and _pay_ok(have, dict(spec.pay)):
                result.append(i)
        if "peaceful_cave" in sources:
            result.extend(table.peaceful[w] for w in sorted(set(self.weapons_of(player))) if w > 0)
        return result

    def weapons_of(self, player: int) -> list[int]:
        """Weapons of all the player's dwarfs (0: unarmed), the acting dwarf's as it is now (forged or made
        stronger during its turn; `Player.placed` gets it when the turn ends)."""
        p = self.players[player]
        acting = self.turn is not None and self.actor == player and self.phase == "work"
        placed = p.placed[:-1] + [self.turn.dwarf] if acting and p.placed else p.placed  # type: ignore[union-attr]
        return p.ready + placed

    def _ruby_tiles(self, player: int) -> list[int]:
        p = self.players[player]
        if p.goods["ruby"] == 0:
            return []
        table = action_table()
        result = []
        for tile, rubies in rules().ruby_tiles.items():
            if p.goods["ruby"] >= rubies:
                for i in tile_ids(p.board, tile, self._config):
                    result.append(table.buy_key[placement_key(table.specs[i].placement)])
        return result

    # placing a dwarf --------------------------------------------------------------------------------

    def _next_weapon(self, p: Player) -> int:
        if self.next_dwarf >= 0:
            return self.next_dwarf
        return min(p.ready)

    def _place_problem(self, player: int, space: str) -> str | None:
        if space not in self.spaces:
            return f"{space} is not an action space of this game (yet)"
        if space in self.occupied:
            return f"{space} is occupied"
        p = self.players[player]
        if not p.ready:
            return "you have no dwarf left to place"
        s = rules().action_spaces[space]
        if s.food_cost is not None:
            targets = self._imitation_targets(player)
            if not targets:
                return f"{space}: no action space occupied by an opponent can be imitated now"
            cost = imitation_cost(space, self._n, self._config)
            if not self._affords(player, {"food": cost}):
                return self._imitate_problem(player, targets[0], space)
            problems = []
            for target in targets:
                why = self._imitate_problem(player, target, space)
                if why is None:
                    return None
                problems.append(why)
            return f"{space}: nothing of the spaces you could imitate can be carried out now ({'; '.join(problems)})"
        t = Turn(space, self._next_weapon(p))
        t.tree = tree_of(resolve_weapon(s.effect, t.dwarf > 0))
        if not self._tree_feasible(player, t):
            return f"{space}: nothing on it can be carried out now ({self._tree_problems(player, t)})"
        return None

    def _tree_feasible(self, player: int, t: Turn) -> bool:
        """Whether placing there carries out something: goods taken automatically, or a feasible choice."""
        tree = t.tree
        assert tree is not None
        done: dict[int, int] = {}
        guest = self._guest(player, t)
        while True:
            autos = [n for n in available_atoms(tree, done, -1, guest) if is_auto(tree, n)]
            if not autos:
                break
            for n in autos:
                if self._auto_yield(player, t, tree.effects[n]):
                    return True
                done[n] = 1
        saved = t.done
        t.done = done
        try:
            return any(self._atom_actions(player, t, tree.effects[n], n, first=True)
                       for n in available_atoms(tree, done, -1, guest))
        finally:
            t.done = saved

    def _imitation_targets(self, player: int) -> list[str]:
        result = []
        for space, occupant in self.occupied.items():
            if occupant == player:
                continue
            s = rules().action_spaces[space]
            if s.food_cost is not None:
                if not self._config.imitation_may_copy_imitation or space not in self.imitated:
                    continue
                copied = self.imitated[space]
                if self.occupied.get(copied) == player:
                    continue
                result.append(space)
            elif s.imitable:
                result.append(space)
        return result

    def _imitate_problem(self, player: int, target: str, imitation: str | None = None) -> str | None:
        p = self.players[player]
        imitation = imitation or (self.turn.space if self.turn else "")
        cost = imitation_cost(imitation, self._n, self._config)
        if not self._affords(player, {"food": cost}):
            return (f"{imitation}: imitation costs {cost} food and you can raise only {self.food_potential(player)}"
                    f" (food in hand and conversions counted)")
        real = self.imitated.get(target, target)
        t = Turn(imitation, self.turn.dwarf if self.turn else self._next_weapon(p))
        t.imitating = True
        t.tree = tree_of(resolve_weapon(rules().action_spaces[real].effect, t.dwarf > 0))
        if p.goods["food"] >= cost:     # what is left once the food is paid
            p.goods["food"] -= cost
            try:
                feasible = self._tree_feasible(player, t)
            finally:
                p.goods["food"] += cost
        else:
            with self._trial(player):
                self._pay(player, {"food": cost})
                feasible = self._tree_feasible(player, t)
        if not feasible:
            return f"nothing of {real} can be carried out now ({self._tree_problems(player, t)})"
        return None

    # the tree's atoms --------------------------------------------------------------------------------

    def _tree_actions(self, player: int, t: Turn) -> list[int]:
        tree = t.tree
        assert tree is not None
        guest = self._guest(player, t)
        result: list[int] = []
        for n in available_atoms(tree, t.done, t.open, guest):
            result.extend(self._atom_actions(player, t, tree.effects[n], n))
        return result

    def _pending_actions(self, player: int, t: Turn) -> list[int]:
        return self._atom_actions(player, t, t.pending[-1][0], -2)

    def _atom_actions(self, player: int, t: Turn, e: Effect, n: int, first: bool = False) -> list[int]:
        """The actions that carry out atom `e` (node n of the tree; -2 a loot follow-up) now."""
        table = action_table()
        p = self.players[player]
        kind = e.kind
        out: list[int] = []
        if kind in ("take_accumulated", "gain"):
            if kind == "gain" or (not t.imitating and any(self.goods_on.get(t.space, {}).values())):
                out.append(table.collect)
            return out
        if kind in ("gain_per", "gain_if", "become_starting_player", "increase_all_weapons", "imitate"):
            return out
        if kind == "family_growth":
            return [table.grow] if fu.can_grow_family(p.board, p.dwarfs) else []
        if kind == "trade":
            return [table.trade] if self._affords(player, e.arg("pay")) else []
        if kind == "market":
            bought = t.bought if t.open == n else []
            return [i for g, i in table.market.items()
                    if g not in bought and self._affords(player, {"gold": table.specs[i].number})]
        if kind == "forge_weapon":
            if t.dwarf > 0:
                return []
            return [i for k, i in table.forge.items() if k <= int(e.arg("max_strength", 8))
                    and self._affords(player, fu.forge_cost(p.board, k))]
        if kind == "expedition":
            if t.dwarf == 0:
                return []
            items = t.exp_items if t.open == n else []
            strength = t.exp_strength if (t.open == n and self._config.loot_eligibility == "strength_at_start") \
                else t.dwarf
            for item in loot_items(self._config):
                if item.id in items or item.min_strength > strength:
                    continue
                if self._loot_feasible(player, t, item.effect):
                    out.append(table.loot[item.id])
                    if first:
                        return out
            return out
        if kind == "sow":
            sown = t.sown if n != -2 else {"grain": t.pending[-1][1], "vegetable": t.pending[-1][2]}
            limits = rules().sow_max_fields
            fields = hb.sowable_fields(p.board, self._config)
            for crop in ("grain", "vegetable"):
                mx = int(e.arg(f"max_{crop}_fields", limits[crop]))
                if sown[crop] < mx and self._affords(player, {crop: 1}):
                    for pos in fields:
                        if (crop, pos) in table.sow:
                            out.append(table.sow[crop, pos])
            return out
        if kind == "breed":
            return [table.breed[ts] for ts in self._breed_choices(player, int(e.arg("max_types", 2)))]
        if kind == "build_stable":
            cost = fu.stable_cost(p.board, e.arg("cost", {}))
            if not self._affords(player, cost):
                return []
            return list(stable_ids(p.board, self._config))
        if kind == "furnish":
            wording = e.arg("filter", "any")
            pay = e.arg("pay", "printed cost")
            banned = self._config.banned_furnishings(player)
            for f in rules().furnishings:
                if not fu.may_furnish(f.id, wording) or f.id in banned:
                    continue
                if not f.unlimited and f.id in self.built:
                    continue
                if not self._can_pay_furnishing(player, f.id, pay):
                    continue
                for pos in furnish_targets(p.board, f.id, self._config):
                    if (f.id, pos) in table.furnish:
                        out.append(table.furnish[f.id, pos])
                        if first:
                            return out
            return out
        # tile placements
        tiles = self._atom_tiles(e)
        if kind in ("fence_small_pasture", "fence_large_pasture"):
            cost = self._fence_cost(p, t, e)
            if not self._affords(player, cost):
                return []
        for tile in tiles:
            for i in tile_ids(p.board, tile, self._config):
                if kind == "place_tile" and not self._on_ok(p, e, table.specs[i].placement):
                    continue
                out.append(i)
                if first:
                    return out
        return out

    @staticmethod
    def _atom_tiles(e: Effect) -> tuple[str, ...]:
        kind = e.kind
        if kind == "place_twin_tile":
            return tuple(e.arg("tiles"))
        if kind in ("place_tile", "place_single_tile"):
            return (e.arg("tile"),)
        if kind == "fence_small_pasture":
            return ("small_pasture",)
        if kind == "fence_large_pasture":
            return ("large_pasture",)
        raise ValueError(f"effect atom {kind} has no tiles")

    @staticmethod
    def _on_ok(p: Player, e: Effect, pl: hb.Placement) -> bool:
        on = e.arg("on", "")
        if on == "ordinary tunnel":
            return p.board.at(pl.cells[0]).terrain == hb.TUNNEL  # type: ignore[union-attr]
        if on == "deep tunnel":
            return p.board.at(pl.cells[0]).terrain == hb.DEEP_TUNNEL  # type: ignore[union-attr]
        return True

    def _fence_cost(self, p: Player, t: Turn, e: Effect) -> dict[str, int]:
        small = e.kind == "fence_small_pasture"
        cost = e.arg("cost", {})
        if self._config.carpenter_fence_discount == "per_action" and t.fence_discounted:
            return dict(cost)
        return fu.fence_cost(p.board, small, not small, self._config,
                             small_cost=cost if small else None, large_cost=None if small else cost)

    def _payments(self, p: Player, fid: str, pay: Any) -> tuple:
        """Every way to pay for `fid` on this player's board (`pay`: the space's "printed cost" or a cost)."""
        cost = None if pay == "printed cost" else tuple(sorted(pay.items()))
        return payment_choices(p.board, fid, self._config, cost)

    def _payment_choices(self, player: int, fid: str, pay: Any) -> dict[tuple[str, ...], dict[str, int]]:
        """The ways to pay for `fid` (keyed by Builder swaps; one per distinct payment): those the player holds,
        or if none, those the player can pay by converting."""
        p = self.players[player]
        held: dict[tuple[str, ...], dict[str, int]] = {}
        converted: dict[tuple[str, ...], dict[str, int]] = {}
        for swaps, option in self._payments(p, fid, pay):
            cost = dict(option)
            if cost in held.values() or cost in converted.values():
                continue
            if _pay_ok(p.goods, cost):
                held[swaps] = cost
            elif not held and self._affords(player, cost):
                converted[swaps] = cost
        return held or converted

    def _can_pay_furnishing(self, player: int, fid: str, pay: Any) -> bool:
        """Whether some payment for `fid` is affordable, conversions counted (`_payment_choices` lists them)."""
        return any(self._affords(player, dict(option)) for _, option in self._payments(self.players[player], fid, pay))

    def _guest(self, player: int, t: Turn) -> bool:
        """Whether the Guest room turns this turn's either/or into and/or."""
        p = self.players[player]
        if "guest_room" not in owned_ids(p.board):
            return False
        return not (p.extension_both_used and (t.target or t.space) in EXTENSION_SPACES
                    and self._config.guest_room_extension_both == "once_per_game")

    def _loot_feasible(self, player: int, t: Turn, e: Effect) -> bool:
        if e.kind in ("gain", "increase_all_weapons"):
            return True
        if e.kind == "sow":
            p = self.players[player]
            return bool(hb.sowable_fields(p.board, self._config)) and (
                self._affords(player, {"grain": 1}) or self._affords(player, {"vegetable": 1}))
        return bool(self._atom_actions(player, t, e, -3, first=True))

    def _breed_choices(self, player: int, max_types: int) -> list[tuple[str, ...]]:
        p = self.players[player]
        options = hu.breeding_options(p.board, p.animals, p.dwarfs, self._config, max_types=max_types)
        return [tuple(ts) for ts in options if ts]

    def _breeding_options(self, player: int) -> list[tuple[str, ...]]:
        return self._breed_choices(player, len(FARM_ANIMALS))

    def _auto_yield(self, player: int, t: Turn, e: Effect) -> dict[str, int]:
        p = self.players[player]
        kind = e.kind
        if kind == "take_accumulated":
            return {} if t.imitating else {g: n for g, n in self.goods_on.get(t.space, {}).items() if n}
        if kind == "gain":
            return dict(e.arg("goods"))
        if kind == "gain_per":
            ore_mines = hb.mine_counts(p.board)[0]
            return {g: n * ore_mines for g, n in e.arg("goods").items() if n * ore_mines}
        if kind == "gain_if":
            need = e.arg("condition")["ruby_mines_at_least"]
            return dict(e.arg("goods")) if hb.mine_counts(p.board)[1] >= need else {}
        if kind == "become_starting_player":
            return {"starting player": 1}
        raise ValueError(kind)

    # ----------------------------------------------------------------------------------------------
    # Illegal actions

    def illegal_reason(self, action: Any) -> str | None:
        """Why `action` is illegal here, or None if it is legal."""
        player = self.current_player()
        if player == TERMINAL:
            return "the game is over"
        index = as_action(action)
        if index is None:
            return f"an action is an int in [0, {self._game.num_distinct_actions})"
        if player == CHANCE:
            outcomes = [o for o, _ in self.chance_outcomes()]
            return None if index in outcomes else f"this chance node's outcomes are {outcomes}"
        table = action_table()
        if not 0 <= index < len(table):
            return f"actions are numbered 0 to {len(table) - 1}"
        if index in self.legal_actions():
            return None
        return self._explain(player, table.specs[index])

    def _explain(self, player: int, spec: ActionSpec) -> str:
        p = self.players[player]
        if spec.kind == CONVERT and spec.source in p.trades_used:
            return f"{spec.source} was already used in this harvest window (anytime_trades_once_per_harvest)"
        if self.phase == "start":
            return "solo clean-up: keep the next over-full space for 1 ruby, or skip"
        if self.overflow:
            return "your animals do not fit: release animals or convert them to food first"
        if self.phase == "choice":
            return "choose `harvest fields` or `harvest breeding` first"
        if self.phase == "feeding":
            return "it is your feeding phase: convert goods or `feed`"
        if self.phase == "breeding":
            return "choose which animals breed"
        if self.phase == "final":
            return "the game is over but for trades before scoring: convert, or `end turn`"
        if self.turn is None:
            if spec.kind == PLACE:
                return self._place_problem(player, spec.space) or "not now"
            if spec.kind == ORDER:
                return "you need 1 ruby and an unplaced armed dwarf of that strength other than the next one"
            return "place a dwarf on an action space first"
        if self.turn.payment is not None:
            return "choose how to pay for the furnishing first (`pay ...`)"
        if spec.kind == PLACE:
            return "you already placed a dwarf this turn"
        if spec.kind == CONVERT:
            return f"you cannot pay {dict(spec.pay)} (or do not own {spec.source})"
        if spec.kind == PEACEFUL:
            return "you need the Peaceful cave and a dwarf with a weapon of that strength"
        if spec.kind == END_TURN:
            if self.turn.pending:
                return "finish the loot item you chose first"
            return "the action space is not carried out yet (a required part is missing)"
        if self.turn.pending:
            return f"finish the loot item first ({self.turn.pending[-1][0].kind})"
        if spec.kind == FURNISH:
            if spec.fid in self._config.banned_furnishings(player):
                return f"{spec.fid} is banned for p{player} in this game (banned_furnishings_p{player})"
            targets = fu.furnish_targets(p.board, spec.fid, self._config)
            if spec.fid in self.built and not fu.furnishing(spec.fid).unlimited:
                return f"{spec.fid} was already built"
            if spec.pos not in targets:
                return f"{spec.fid} cannot go on {spec.pos}"
        if spec.kind in (TILE, BUY_TILE) and spec.placement is not None:
            why = hb.check_placement(p.board, spec.placement, self._config)
            if why:
                return why
        return "this space does not allow it now (or you cannot pay for it)"

    # ----------------------------------------------------------------------------------------------
    # Applying actions

    def apply_action(self, action: Any) -> None:
        """Apply a legal action; an illegal one raises IllegalActionError and changes nothing."""
        player = self.current_player()
        reason = self.illegal_reason(action)
        if reason is not None:
            index = as_action(action)
            text = None
            if player >= 0 and index is not None and 0 <= index < len(action_table()):
                text = action_table().specs[index].text
            raise IllegalActionError(action, player, reason, text)
        index = as_action(action)
        assert index is not None
        if player == CHANCE:
            self._apply_chance(index)
        else:
            self._apply_player(player, action_table().specs[index])
        self._history.append(index)
        self._legal = None
        self._advance()

    def _apply_player(self, player: int, spec: ActionSpec) -> None:
        p = self.players[player]
        kind = spec.kind
        t = self.turn
        if kind == SOLO_KEEP:
            p.goods["ruby"] -= 1
            self.cleanup.pop(0)
        elif kind == SKIP and self.phase == "start":
            self.goods_on[self.cleanup.pop(0)] = {}
        elif kind == RELEASE:
            p.animals[spec.good] -= 1
            self._check_animals(player)
        elif kind == CONVERT:
            self._convert(player, spec)
        elif kind == PEACEFUL:
            self._discard_weapon(player, spec.number)
        elif kind == HARVEST_CHOICE:
            self.choices[player] = spec.good
            self.queue.pop(0)
        elif kind == FEED:
            self._feed(player, converting=spec.number == 1)
        elif kind == WORKING_CAVE:
            p.goods[spec.good] -= spec.number
            self.working_cave_used = True
        elif kind == BREED and self.phase == "breeding":
            self._breed(player, spec.types)
            self.queue.pop(0)
        elif kind == ORDER:
            p.goods["ruby"] -= 1
            self.next_dwarf = spec.number
        elif kind == PLACE:
            self._place(player, spec.space)
        elif kind == END_TURN and self.phase == "final":
            self.queue.pop(0)
        elif kind == END_TURN:
            self._end_turn(player)
        elif kind == BUY_TILE:
            p.goods["ruby"] -= spec.number
            self._place_tile(player, spec.placement)  # type: ignore[arg-type]
        elif kind == IMITATE:
            assert t is not None
            self._pay(player, {"food": imitation_cost(t.space, self._n, self._config)})
            real = self.imitated.get(spec.space, spec.space)
            t.target = real
            t.imitating = True
            self.imitated[t.space] = real
            t.tree = tree_of(resolve_weapon(rules().action_spaces[real].effect, t.dwarf > 0))
            self._propagate(player)
        elif kind == SKIP and t is None:      # no space for this dwarf: it stays home
            weapon = self._next_weapon(p)
            p.ready.remove(weapon)
            p.placed.append(weapon)
            self.next_dwarf = -1
            self.turn = Turn("", weapon)
            self._end_turn(player)
        elif kind == SKIP:
            assert t is not None
            t.pending.pop()
        elif kind == PAY:
            self._pay_furnishing(player, spec.swaps)
        else:
            self._carry_out(player, spec)

    def _place(self, player: int, space: str) -> None:
        p = self.players[player]
        weapon = self._next_weapon(p)
        p.ready.remove(weapon)
        p.placed.append(weapon)          # the acting dwarf: its weapon is kept in the Turn until the end
        self.next_dwarf = -1
        self.occupied[space] = player
        t = Turn(space, weapon)
        self.turn = t
        s = rules().action_spaces[space]
        if s.food_cost is None:
            t.tree = tree_of(resolve_weapon(s.effect, weapon > 0))
            self._propagate(player)

    def _propagate(self, player: int) -> None:
        """Carry out the goods parts the tree reaches without a choice."""
        t = self.turn
        assert t is not None and t.tree is not None
        guest = self._guest(player, t)
        while True:
            autos = [n for n in available_atoms(t.tree, t.done, t.open, guest) if is_auto(t.tree, n)]
            if not autos:
                return
            n = autos[0]
            self._do_auto(player, t, t.tree.effects[n])
            t.done[n] = 1

    def _do_auto(self, player: int, t: Turn, e: Effect) -> None:
        if e.kind == "become_starting_player":
            self.starter = player
            return
        goods = self._auto_yield(player, t, e)
        if e.kind == "take_accumulated" and not t.imitating:
            self.goods_on[t.space] = {}
        self._gain(player, goods)

    def _gain(self, player: int, goods: dict[str, int]) -> None:
        """Add goods and animals with what they trigger (Seam, Dog school); animals are checked for room."""
        p = self.players[player]
        goods = add_goods(goods, fu.triggered_gains(p.board, goods))
        for g, n in goods.items():
            if g in p.goods:
                p.goods[g] += n
            else:
                p.animals[g] += n
                if g in FARM_ANIMALS and n > 0:
                    self._check_animals(player)

    def _check_animals(self, player: int) -> None:
        p = self.players[player]
        if not any(p.animals[a] for a in FARM_ANIMALS):
            self.overflow = False
            return
        self.overflow = not hu.can_accommodate(p.board, p.animals, p.dwarfs, self._config)

    def _convert(self, player: int, spec: ActionSpec) -> None:
        p = self.players[player]
        get = dict(spec.get)
        animals = sum(n for g, n in spec.pay if g in FARM_ANIMALS)
        if spec.source == "food_conversion" and animals and hb.owns(p.board, "slaughtering_cave"):
            get = add_goods(get, {"food": animals * fu._slaughter_bonus()})
        for g, n in spec.pay:
            if g in p.goods:
                p.goods[g] -= n
            else:
                p.animals[g] -= n
        self._gain(player, get)
        if animals and self.overflow:
            self._check_animals(player)
        if self._config.anytime_trades_once_per_harvest and spec.source in ONCE_PER_HARVEST:
            p.trades_used = p.trades_used | {spec.source}

    def _discard_weapon(self, player: int, strength: int) -> None:
        """Peaceful cave: a dwarf at home (else one already placed, else the acting one) gives up its weapon."""
        p = self.players[player]
        p.goods["food"] += strength
        if strength in p.ready:
            p.ready[p.ready.index(strength)] = 0
            p.ready.sort()
            return
        acting = self.turn is not None and self.actor == player and self.phase == "work"
        others = p.placed[:-1] if acting else p.placed
        if strength in others:
            p.placed[p.placed.index(strength)] = 0
            return
        assert self.turn is not None and self.turn.dwarf == strength
        self.turn.dwarf = 0

    def _find_atom(self, player: int, t: Turn, spec: ActionSpec) -> int:
        """The tree node the action carries out (-2: the pending loot follow-up)."""
        if t.pending:
            return -2
        tree = t.tree
        assert tree is not None
        guest = self._guest(player, t)
        for n in available_atoms(tree, t.done, t.open, guest):
            if spec.id in self._atom_actions(player, t, tree.effects[n], n):
                return n
        raise AssertionError(f"no part of the space takes {spec.text}")

    def _carry_out(self, player: int, spec: ActionSpec) -> None:
        t = self.turn
        assert t is not None and t.tree is not None
        n = self._find_atom(player, t, spec)
        if n == -2:
            top = t.pending[-1]
            e = top[0]
            self._do_atom(player, t, e, spec, -2)
            if t.payment is not None:       # the rest waits for the `pay ...` choice
                return
            if e.kind == "sow":
                top[1 if spec.crop == "grain" else 2] += 1
                if not self._atom_actions(player, t, e, -2):
                    t.pending.pop()
            else:
                t.pending.pop()
            return
        if t.open != n and t.open >= 0:
            self._close_session(player, t)
        e = t.tree.effects[n]
        if e.kind in REPEATABLE and t.open != n:
            t.open = n
            t.exp_strength = t.dwarf
        t.done[n] = t.done.get(n, 0) + 1
        t.did_something = True
        self._do_atom(player, t, e, spec, n)
        if t.payment is not None:           # the rest waits for the `pay ...` choice
            return
        if e.kind == "expedition" and len(t.exp_items) >= int(e.arg("level")):
            self._close_session(player, t)
        self._propagate(player)

    def _pay_furnishing(self, player: int, swaps: tuple[str, ...]) -> None:
        """The `pay ...` choice: pay, furnish, then carry on where the furnish action left off."""
        t = self.turn
        assert t is not None and t.payment is not None
        fid, pos, pay, n = t.payment
        t.payment = None
        self._pay(player, self._payment_choices(player, fid, pay)[swaps])
        self._furnish(player, fid, pos)
        if n == -2:
            t.pending.pop()
        else:
            self._propagate(player)

    def _close_session(self, player: int, t: Turn) -> None:
        if t.open >= 0 and t.tree is not None and t.tree.kinds[t.open] == "expedition":
            t.dwarf = min(rules().weapon_max_strength, t.dwarf + 1)
        t.open = -1
        t.sown = {"grain": 0, "vegetable": 0}
        t.exp_items = []
        t.bought = []

    def _do_atom(self, player: int, t: Turn, e: Effect, spec: ActionSpec, n: int) -> None:
        p = self.players[player]
        kind = e.kind
        if kind == "take_accumulated":
            goods = {g: c for g, c in self.goods_on.get(t.space, {}).items() if c}
            self.goods_on[t.space] = {}
            self._gain(player, goods)
        elif kind == "gain":
            self._gain(player, dict(e.arg("goods")))
        elif kind == "family_growth":
            p.newborns += 1
        elif kind == "trade":
            self._pay(player, e.arg("pay"))
            self._gain(player, dict(e.arg("get")))
        elif kind == "market":
            t.bought.append(spec.good)
            self._pay(player, {"gold": spec.number})
            self._gain(player, {spec.good: 1})
        elif kind == "forge_weapon":
            self._pay(player, fu.forge_cost(p.board, spec.number))
            t.dwarf = spec.number
        elif kind == "expedition":
            t.exp_items.append(spec.item)
            item = next(x for x in loot_items(self._config) if x.id == spec.item)
            self._loot(player, t, item.effect)
        elif kind == "sow":
            self._pay(player, {spec.crop: 1})
            p.board = hb.sow(p.board, spec.pos, spec.crop, self._config)  # type: ignore[arg-type]
            if n != -2:
                t.sown[spec.crop] += 1
            if hb.owns(p.board, "stubble_room"):
                self._check_animals(player)  # a sown field no longer holds a Stubble-room animal
        elif kind == "breed":
            self._breed(player, spec.types)
        elif kind == "build_stable":
            self._pay(player, fu.stable_cost(p.board, e.arg("cost", {})))
            stable = hb.Placement("stable", (spec.pos,), ())  # type: ignore[arg-type]
            p.board = hb.place(p.board, "stable", stable, self._config)
        elif kind == "furnish":
            pay = e.arg("pay", "printed cost")
            choices = self._payment_choices(player, spec.fid, pay)
            if len(choices) > 1:
                t.payment = (spec.fid, spec.pos, pay, n)
                return
            self._pay(player, next(iter(choices.values())))
            self._furnish(player, spec.fid, spec.pos)  # type: ignore[arg-type]
        elif kind in ("fence_small_pasture", "fence_large_pasture"):
            self._pay(player, self._fence_cost(p, t, e))
            if n != -2:
                t.fence_discounted = True
            self._place_tile(player, spec.placement)  # type: ignore[arg-type]
        else:   # place_twin_tile, place_tile, place_single_tile
            self._place_tile(player, spec.placement)  # type: ignore[arg-type]

    # paying, converting when needed ------------------------------------------------------------------

    def _conversion_sources(self, player: int) -> tuple[frozenset[str], frozenset[str]]:
        """(sources, once) for `conversions`: the food table, rubies and the furnishings' trades the player may
        use now, and those of them limited to one more use (`anytime_trades_once_per_harvest`)."""
        p = self.players[player]
        sources = frozenset({"food_conversion", "ruby"}) | owned_ids(p.board)
        if not self._config.anytime_trades_once_per_harvest:
            return sources, frozenset()
        sources -= p.trades_used
        return sources, sources & ONCE_PER_HARVEST

    def _affords(self, player: int, cost: dict[str, int]) -> bool:
        """Whether the player holds `cost` or can get it by converting now (`conversions.can_afford`)."""
        p = self.players[player]
        if all((p.goods[g] if g in p.goods else p.animals[g]) >= n for g, n in cost.items()):
            return True
        sources, once = self._conversion_sources(player)
        return cv.can_afford(cv.holdings(p.goods, p.animals), cv.as_cost(cost), sources, once)

    def food_potential(self, player: int) -> int:
        """The most food the player can hold now, converting what the rules allow (`conversions.food_potential`)."""
        p = self.players[player]
        sources, once = self._conversion_sources(player)
        return cv.food_potential(cv.holdings(p.goods, p.animals), sources, once)

    def _raise(self, player: int, cost: dict[str, int]) -> None:
        """Carry out the conversions `conversions.payment_plan` chooses, so that the player holds `cost` (the
        caller checked `_affords`); nothing when the player holds it already."""
        p = self.players[player]
        if all((p.goods[g] if g in p.goods else p.animals[g]) >= n for g, n in cost.items()):
            return
        sources, once = self._conversion_sources(player)
        plan = cv.payment_plan(cv.holdings(p.goods, p.animals), cv.as_cost(cost), sources, once)
        assert plan is not None, f"cannot pay {cost}"
        specs = action_table().specs
        for i in plan:
            self._convert(player, specs[i])

    def _pay(self, player: int, cost: dict[str, int]) -> None:
        """The one payment routine: pay `cost`, converting first when the player does not hold all of it."""
        p = self.players[player]
        self._raise(player, cost)
        for g, n in cost.items():
            if g in p.goods:
                p.goods[g] -= n
            else:
                p.animals[g] -= n

    @contextmanager
    def _trial(self, player: int) -> Iterator[None]:
        """Try something on the player's supply, animals, board and dwarfs; everything is put back after."""
        p = self.players[player]
        t = self.turn
        saved = (p.goods, p.animals, p.board, p.trades_used, p.ready, p.placed, self.overflow,
                 t.dwarf if t is not None else 0)
        p.goods, p.animals, p.ready, p.placed = dict(p.goods), dict(p.animals), list(p.ready), list(p.placed)
        try:
            yield
        finally:
            p.goods, p.animals, p.board, p.trades_used, p.ready, p.placed, self.overflow = saved[:7]
            if t is not None:
                t.dwarf = saved[7]

    @staticmethod
    def _nothing_done_yet(t: Turn) -> bool:
        """The dwarf stands on its space but nothing of it has been carried out yet."""
        if t.payment is not None or t.pending:
            return False
        return t.tree is None or (not t.did_something and not _satisfied(t.tree, t.done, 0))

    def _turn_possible(self, player: int) -> bool:
        t = self.turn
        assert t is not None
        if t.tree is None:
            return any(self._imitate_problem(player, s) is None for s in self._imitation_targets(player))
        return bool(self._tree_actions(player, t))

    def _keeps_turn_possible(self, player: int, spec: ActionSpec) -> bool:
        """Whether the space can still be carried out after this conversion (or ruby tile, or weapon discard):
        a dwarf may not stand on a space without carrying out any of it."""
        with self._trial(player):
            if spec.kind == CONVERT:
                self._convert(player, spec)
            elif spec.kind == PEACEFUL:
                self._discard_weapon(player, spec.number)
            else:                       # BUY_TILE
                self.players[player].goods["ruby"] -= spec.number
                self._place_tile(player, spec.placement)  # type: ignore[arg-type]
            return self._turn_possible(player)

    def _tree_problems(self, player: int, t: Turn) -> str:
        """Why none of the space's parts that could come first can be carried out (for error messages)."""
        tree = t.tree
        assert tree is not None
        done: dict[int, int] = {}
        guest = self._guest(player, t)
        reasons = []
        for n in available_atoms(tree, done, -1, guest):
            why = self._atom_problem(player, t, tree.effects[n])
            if why not in reasons:
                reasons.append(why)
        return "; ".join(reasons) or "nothing to do"

    def _atom_problem(self, player: int, t: Turn, e: Effect) -> str:
        p = self.players[player]
        kind = e.kind

        def needs(what: str, cost: dict[str, int]) -> str:
            return f"{what} needs {cv_text(cost)}, conversions counted"

        if kind in ("take_accumulated", "gain", "gain_per", "gain_if"):
            return "there is nothing to take"
        if kind == "trade":
            return needs("trading", e.arg("pay"))
        if kind == "forge_weapon":
            if t.dwarf > 0:
                return "an armed dwarf cannot forge a weapon"
            return needs("forging a weapon", fu.forge_cost(p.board, rules().forge_range[0]))
        if kind == "expedition":
            return "an expedition needs an armed dwarf" if t.dwarf == 0 else "no loot item can be taken"
        if kind == "family_growth":
            return "growing the family needs room in your dwellings"
        if kind == "sow":
            if not hb.sowable_fields(p.board, self._config):
                return "sowing needs an empty field"
            return "sowing needs 1 grain or 1 vegetable, conversions counted"
        if kind == "build_stable":
            cost = fu.stable_cost(p.board, e.arg("cost", {}))
            return needs("a stable", cost) + ", and a space for it"
        if kind in ("fence_small_pasture", "fence_large_pasture"):
            return needs("fencing", self._fence_cost(p, t, e)) + ", and meadows to fence"
        if kind == "furnish":
            return "no furnishing tile you can pay for (conversions counted) fits an empty cavern"
        if kind == "market":
            return "buying needs gold"
        if kind == "breed":
            return "no animals can breed"
        if kind in ("place_twin_tile", "place_tile", "place_single_tile"):
            return f"no legal place for {' or '.join(self._atom_tiles(e))}"
        return f"{kind} is not possible now"

    def _place_tile(self, player: int, placement: hb.Placement) -> None:
        p = self.players[player]
        p.board, gains = hb.place_with_gains(p.board, placement.tile, placement, self._config)
        self._gain(player, gains)

    def _furnish(self, player: int, fid: str, pos: Any) -> None:
        p = self.players[player]
        p.board = fu.furnish(p.board, fid, pos, self._config)
        if not fu.furnishing(fid).unlimited:
            self.built.append(fid)
        self._gain(player, fu.on_build_gains(p.board, fid, pos, p.animals, self._config))
        sup = fu.supplier(fid)
        if sup:
            good, count = sup
            for k in range(self.round + 1, min(len(self._rounds), self.round + 1 + count)):
                p.income.setdefault(k, {})
                p.income[k][good] = p.income[k].get(good, 0) + 1

    def _loot(self, player: int, t: Turn, e: Effect) -> None:
        p = self.players[player]
        if e.kind == "gain":
            self._gain(player, dict(e.arg("goods")))
        elif e.kind == "increase_all_weapons":
            cap = rules().weapon_max_strength
            amount = int(e.arg("amount", 1))
            t.dwarf = min(cap, t.dwarf + amount) if t.dwarf else 0
            p.ready = [min(cap, w + amount) if w else 0 for w in p.ready]
            p.placed[:-1] = [min(cap, w + amount) if w else 0 for w in p.placed[:-1]]
        else:
            t.pending.append([e, 0, 0])

    def _breed(self, player: int, types: tuple[str, ...]) -> None:
        p = self.players[player]
        for a in types:
            p.animals[a] += 1
        gains = {"food": fu.breeding_food(p.board, len(types))}
        stone = fu.breeding_stone(p.board, 1 if "donkey" in types else 0)
        if stone:
            gains["stone"] = stone
        self._gain(player, {g: n for g, n in gains.items() if n})

    def _end_turn(self, player: int) -> None:
        p = self.players[player]
        t = self.turn
        assert t is not None
        self._close_session(player, t)
        if (t.target or t.space) in EXTENSION_SPACES and t.tree is not None and all(
                _started(t.tree, t.done, child) for child in t.tree.children[0]):
            p.extension_both_used = True
        p.placed[-1] = t.dwarf
        self.turn = None
        order = [(player + k) % self._n for k in range(1, self._n + 1)]
        for q in order:
            if self.players[q].ready:
                self.actor = q
                return
        self._end_work()

    # ----------------------------------------------------------------------------------------------
    # Rounds and harvests

    def _advance(self) -> None:
        """Carry out everything that needs no decision, up to the next decision or chance node."""
        while True:
            if self.phase == "start":
                if self._chance_kind() != NO_CHANCE:
                    return
                if len(self.cards) <= self.round:
                    self.cards.append(fixed_round_card(self._n, self.round_no))  # type: ignore[arg-type]
                if self.revealed != self.round:
                    self._reveal()
                if self.cleanup:
                    self.actor = 0
                    return
                self._start_round()
            elif self.phase == "feeding":
                if self.queue:
                    self.actor = self.queue[0]
                    return
                self._breeding_phase()
            elif self.phase == "breeding":
                while self.queue:
                    q = self.queue[0]
                    options = self._breeding_options(q)
                    if len(options) > 1:
                        self.actor = q
                        return
                    if options:
                        self._breed(q, options[0])
                    self.queue.pop(0)
                self._next_round()
            elif self.phase == "final":
                if self.queue:
                    self.actor = self.queue[0]
                    return
                self.phase = "over"
            elif self.phase == "choice":
                if self.queue:
                    self.actor = self.queue[0]
                    return
                for q in self._order():
                    if self.choices.get(q) == "fields":
                        self._field_phase(q)
                self._feeding_phase()
            else:
                return

    def _order(self) -> list[int]:
        return [(self.starter + k) % self._n for k in range(self._n)]

    def _reveal(self) -> None:
        """The new round's spaces are visible (Wish for children flipped once Family life is out); solo: the
        over-full spaces to clean up (cleared at once when the player has no ruby to keep one)."""
        self.revealed = self.round
        self.spaces = self._visible_spaces()
        if "urgent_wish_for_children" in self.spaces:
            self.goods_on.pop("wish_for_children", None)
        for s in self.spaces:
            self.goods_on.setdefault(s, {})
        if self._n == 1:
            limit = self._config.solo_cleanup_min_goods
            over = [s for s in self.spaces if sum(self.goods_on[s].values()) >= limit]
            if self.players[0].goods["ruby"] > 0:
                self.cleanup = over
            else:
                for s in over:
                    self.goods_on[s] = {}

    def _visible_spaces(self) -> list[str]:
        spaces = list(board_space_ids(self._n, self._config))
        flipped = "family_life" in self.cards
        for cid in self.cards[: self.round + 1]:
            if cid == "wish_for_children" and flipped:
                cid = rules().action_spaces[cid].flips_to or cid
            spaces.append(cid)
        return spaces

    def _start_round(self) -> None:
        """Reveal and clean-up done: replenish, round-start income (suppliers, Miner); then the work phase."""
        for s in self.spaces:
            refill = accumulation(s, self._config, self._n, self.round_no)
            if not refill:
                continue
            held = self.goods_on.setdefault(s, {})
            empty = not any(held.values())
            for acc in refill:
                amount = acc.if_empty if empty else acc.otherwise
                if amount:
                    held[acc.good] = held.get(acc.good, 0) + amount
        for q in self._order():
            p = self.players[q]
            income = dict(p.income.pop(self.round, {}))
            miner = fu.round_start_ore(p.board, hu.ore_mines_with_donkeys(p.board, p.animals["donkey"]))
            if miner:
                income["ore"] = income.get("ore", 0) + miner
            if income:
                self._gain(q, income)
        self.phase = "work"
        self.occupied = {}
        self.imitated = {}
        self.actor = self.starter

    def _end_work(self) -> None:
        """All dwarfs placed: they return home; the harvest this round calls for."""
        for p in self.players:
            p.ready = sorted(p.ready + p.placed)
            p.placed = []
        event = harvest_event(self.round_no, self._n)
        if event == "marker":
            if self.markers[self.round] == GREEN:
                event = "normal"
            else:
                event = rules().harvest_red_events[self.reds_seen]
                self.reds_seen += 1
        self.harvest_kind = event
        if event in ("none", "no_harvest"):
            self._next_round()
        elif event == "field_or_breeding":
            self.choices = {}
            self.phase = "choice"
            self.queue = self._order()
        elif event == "feed_1_per_dwarf":
            self._feeding_phase()
        else:
            for q in self._order():
                self._field_phase(q)
            self._feeding_phase()

    def _field_phase(self, q: int) -> None:
        p = self.players[q]
        p.board, crops = hb.harvest_fields(p.board, self._config)
        self._gain(q, crops)

    def _feeding_phase(self) -> None:
        self.phase = "feeding"
        self.queue = self._order()
        self.working_cave_used = False

    def feeding_need(self, player: int) -> int:
        """Food this player owes in the current feeding (Working cave and Mining cave applied)."""
        p = self.players[player]
        if self.harvest_kind == "feed_1_per_dwarf":
            per_adult, per_newborn = 1, 1
        else:
            per_adult, per_newborn = 2, 1
        adults = p.dwarfs - p.newborns
        need = per_adult * adults + per_newborn * p.newborns
        if self.working_cave_used and self.actor == player:
            need -= per_adult if adults else per_newborn
        need -= fu.feeding_discount(p.board, hu.donkeys_in_mines(p.board, p.animals["donkey"]))
        return max(0, need)

    def _feed(self, player: int, converting: bool) -> None:
        """Pay the feeding; one begging marker per food still missing.

        The rulebook lets a player short of food "convert goods into Food, or take Begging markers", so both are
        offered: `feed` pays with the food held and begs for the rest (after any conversions the player chose),
        `feed, converting what is missing` first raises as much of it as `food_potential` allows, by the
        payment routine's conversions (the cheapest by the score sheet), and begs only for what remains.
        """
        p = self.players[player]
        need = self.feeding_need(player)
        if converting:
            self._raise(player, {"food": min(need, self.food_potential(player))})
        paid = min(need, p.goods["food"])
        p.goods["food"] -= paid
        p.begging += need - paid
        self.queue.pop(0)
        self.working_cave_used = False

    def _breeding_phase(self) -> None:
        if self.harvest_kind == "feed_1_per_dwarf":
            self._next_round()
            return
        self.phase = "breeding"
        self.queue = [q for q in self._order()
                      if self.harvest_kind == "normal" or self.choices.get(q) == "breeding"]

    def _next_round(self) -> None:
        harvested = self.harvest_kind not in ("none", "no_harvest")
        for p in self.players:
            p.ready = sorted(p.ready + [0] * p.newborns)
            p.newborns = 0
            if harvested:
                p.trades_used = frozenset()   # a new harvest window
        self.queue = []
        self.round += 1
        if self.round < len(self._rounds):
            self.phase = "start"
            return
        # any time before scoring: each player who can still convert or trade gets a last turn for it
        self.phase = "final"
        self.queue = [q for q in self._order() if self._conversions(q)]

    # ----------------------------------------------------------------------------------------------
    # Results and bookkeeping

    def summary(self, player: int) -> PlayerSummary:
        """The player's position as scoring reads it."""
        p = self.players[player]
        return PlayerSummary.make(p.board, {g: n for g, n in p.goods.items() if n}, dict(p.animals), p.dwarfs,
                                  tuple(p.weapons()), p.begging)

    def score_sheet(self, player: int) -> Any:
        """`scoring.score` of the player's position."""
        return score(self.summary(player), self._config)

    def scores(self) -> list[int]:
        """Each player's points (the game's own scoring, whenever asked)."""
        if not self.players:
            return [0] * self._n
        return [self.score_sheet(q).total for q in range(self._n)]

    def clone(self) -> ReferenceState:
        other = ReferenceState.__new__(ReferenceState)
        other.__dict__.update(self.__dict__)
        other.players = [p.copy() for p in self.players]
        other.cards = list(self.cards)
        other.markers = dict(self.markers)
        other.markers_left = list(self.markers_left)
        other.spaces = list(self.spaces)
        other.goods_on = {s: dict(g) for s, g in self.goods_on.items()}
        other.occupied = dict(self.occupied)
        other.imitated = dict(self.imitated)
        other.built = list(self.built)
        other.turn = self.turn.copy() if self.turn else None
        other.queue = list(self.queue)
        other.choices = dict(self.choices)
        other.cleanup = list(self.cleanup)
        other._history = list(self._history)
        return other

    def history(self) -> list[int]:
        return list(self._history)

    def to_dict(self) -> dict[str, Any]:
        """Every field of the position, in a canonical JSON form."""
        return {
            "round": self.round, "phase": self.phase, "starter": self.starter, "actor": self.actor,
            "cards": list(self.cards), "markers": {str(k): v for k, v in sorted(self.markers.items())},
            "markers_left": list(self.markers_left), "reds_seen": self.reds_seen, "spaces": list(self.spaces),
            "goods_on": {s: {g: n for g, n in sorted(v.items()) if n} for s, v in sorted(self.goods_on.items())},
            "occupied": dict(sorted(self.occupied.items())), "imitated": dict(sorted(self.imitated.items())),
            "built": sorted(self.built), "turn": self.turn.to_dict() if self.turn else None,
            "next_dwarf": self.next_dwarf, "queue": list(self.queue), "harvest_kind": self.harvest_kind,
            "choices": {str(k): v for k, v in sorted(self.choices.items())},
            "working_cave_used": int(self.working_cave_used), "cleanup": list(self.cleanup), "revealed": self.revealed,
            "overflow": int(self.overflow), "players": [p.to_dict() for p in self.players],
        }


def _animal_pay(spec: ActionSpec) -> bool:
    return any(g in FARM_ANIMALS for g, _ in spec.pay)


def cv_text(cost: dict[str, int]) -> str:
    """`2 ore`, `4 wood + 3 stone`."""
    return " + ".join(f"{n} {g}" for g, n in cost.items() if n) or "nothing"
