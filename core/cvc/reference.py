"""The readable reference engine for Caverna: Cave vs Cave (two players and solo).

This is the executable specification: every rule of `rules/cave-vs-cave.md` is carried out here in plain
Python, in the order the rulebook gives it. The compiled engine mirrors this module function by function.

Chance is explicit: who starts (two players), which light rooms leave a solo game, which action tile is
revealed at a round's start, and which room lies under a space when it is excavated (or on top of the solo
draw pile). Revealing a face-down room only when it is dug is the same game as shuffling them at setup:
nobody knows any of them, so each unrevealed room is equally likely to be the one turned up.
"""
from __future__ import annotations

from typing import Any

from ..api import CHANCE, TERMINAL, IllegalActionError, as_action
from .actions import (CAVERN_SIDE, CONVERT, END_TURN, PROSPECT, TAKE, TILE_OPTION, Choice,
                      action_table, is_activation, option_params)
from .state import (NO_CHANCE, REMOVE_LIGHT_ROOM, REVEAL_ROOM, REVEAL_TILE, START_PLAYER, StateMixin,
                    player_of_turn)
from .board import (ALL_WALLS, EMPTY, FACE_DOWN, UNAVAILABLE, accessible_spaces, board_full,
                    cavern_natural_sides, slot_spaces, wall_pattern)
from .rules import (CAVE_ENTRANCE, CAVERN, DARK_ROOMS, FLAX, FOOD, GOLD, GOODS, LIGHT_ROOMS,
                    NUM_BOARD_SPACES, NUM_BOARD_WALL_SLOTS, NUM_LIGHT_ROOMS_REMOVED_SOLO, NUM_SPACES,
                    NUM_WALL_SLOTS, SOLO_PILE_SIZE, WOOD, Config, Op, Option, rules,
                    stage_tiles)

# Chance node kinds, in the order they are checked.

PROSPECTING_SITE = rules().room_index("prospecting_site")
RETTING_ROOM = rules().room_index("retting_room")
EQUIPMENT_ROOM = rules().room_index("equipment_room")
WOOD_STOREROOM = rules().room_index("wood_storeroom")
DUNGEON = rules().room_index("dungeon")
UNDERGROWTH = rules().tile_index("undergrowth")


def _bits(indices: Any) -> int:
    mask = 0
    for i in indices:
        mask |= 1 << i
    return mask


def _members(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


class PlayerBoard:
    """One player's cave and goods."""

    __slots__ = ("spaces", "walls", "goods", "cavern_sides", "placed_round")

    def __init__(self) -> None:
        r = rules()
        self.spaces = [FACE_DOWN] * NUM_BOARD_SPACES + [UNAVAILABLE]
        self.spaces[r.pre_excavated_space] = EMPTY
        self.spaces[r.entrance_space] = CAVE_ENTRANCE
        self.walls = 0                        # bit w: a wall built in slot w
        self.goods = list(r.start_goods)
        self.cavern_sides = 0                 # natural sides of the Additional Cavern, once owned
        self.placed_round = [-1] * NUM_SPACES  # round in which the room on a space was furnished

    def copy(self) -> "PlayerBoard":
        other = PlayerBoard.__new__(PlayerBoard)
        other.spaces = list(self.spaces)
        other.walls = self.walls
        other.goods = list(self.goods)
        other.cavern_sides = self.cavern_sides
        other.placed_round = list(self.placed_round)
        return other

    def rooms(self) -> list[int]:
        return [s for s in self.spaces if s >= 0]

    def has_room(self, room: int) -> bool:
        return room in self.spaces

    def to_dict(self) -> dict[str, Any]:
        return {"spaces": list(self.spaces), "walls": self.walls, "goods": list(self.goods),
                "cavern_sides": self.cavern_sides, "placed_round": list(self.placed_round)}


class ReferenceState(StateMixin):
    """A Cave vs Cave position in the reference engine; see `cavekit.core.api.State` for the protocol."""

    def __init__(self, game: Any) -> None:
        r = rules()
        self._game = game
        self._config: Config = game.config
        self._solo = game.num_players == 1
        self._turns = r.turns[game.num_players]
        self._stages = r.stages[game.num_players]
        self.players = [PlayerBoard() for _ in range(game.num_players)]
        self.round = 0
        self.turn = 0                      # turn index within the round, both players counted
        self.starter = 0 if self._solo else -1
        self.revealed_tiles: list[int] = []   # face-down tiles turned up so far, in order
        self.taken = 0                     # tiles taken this round (bits)
        self.display = _bits(LIGHT_ROOMS)  # rooms in the central display (bits)
        self.pool = _bits(DARK_ROOMS)      # dark rooms not yet revealed (bits)
        self.removed = 0                   # light rooms out of play (solo)
        self.pile = SOLO_PILE_SIZE if self._solo else 0   # solo draw pile size
        self.cavern_owner = -1
        # Spaces the acting player excavated whose rooms are still face down (bits; chance turns them up,
        # lowest space first), so a deal knows which space's room is being turned up.
        self.pending_spaces = 0
        self.pending_pile_reveals = 0      # solo draw-pile rooms still to be turned up (chance)
        self._history: list[int] = []
        self._reset_turn()

    def _reset_turn(self) -> None:
        self.tile = -1                     # tile taken this turn, -1 before taking one
        self.slots_used = 0                # bits of the tile's slots already used
        self.activation_left = 0           # rooms the running activation may still use
        self.activation_used = 0           # rooms used by the running activation (bits)
        self.prospected = False
        self.sub_actions = 0               # sub-actions done this turn (conversions not counted)
        self.excavated = 0                 # spaces excavated this turn
        self.furnished_now = 0             # rooms furnished this turn (bits)
        self.cavern_choice = False         # the Additional Cavern's side must be chosen now
        self.ending = False                # `end turn` waits for the Additional Cavern's side

    # ----------------------------------------------------------------------------------------------
    # Whose move

    def _chance_kind(self) -> int:
        if self.pending_spaces or self.pending_pile_reveals:
            return REVEAL_ROOM
        if self.round >= len(self._turns):
            return NO_CHANCE
        if self.starter < 0:
            return START_PLAYER
        if self._solo and bin(self.removed).count("1") < NUM_LIGHT_ROOMS_REMOVED_SOLO:
            return REMOVE_LIGHT_ROOM
        if len(self.revealed_tiles) <= self.round:
            return REVEAL_TILE
        return NO_CHANCE

    def is_terminal(self) -> bool:
        return self.round >= len(self._turns) and self._chance_kind() == NO_CHANCE

    def is_chance_node(self) -> bool:
        return self._chance_kind() != NO_CHANCE

    def current_player(self) -> int:
        if self._chance_kind() != NO_CHANCE:
            return CHANCE
        if self.round >= len(self._turns):
            return TERMINAL
        return self._player_of_turn(self.turn)

    def _player_of_turn(self, turn: int) -> int:
        return player_of_turn(len(self.players), self.starter, turn)

    def turns_per_player(self) -> int:
        """Turns each player takes in the current round (also the per-turn food price)."""
        return self._turns[min(self.round, len(self._turns) - 1)]

    # ----------------------------------------------------------------------------------------------
    # Chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        kind = self._chance_kind()
        if kind == START_PLAYER:
            outcomes = [0, 1]
        elif kind == REMOVE_LIGHT_ROOM:
            outcomes = [room for room in LIGHT_ROOMS if not self.removed >> room & 1]
        elif kind == REVEAL_TILE:
            outcomes = self._unrevealed_tiles(self._stages[self.round])
        elif kind == REVEAL_ROOM:
            outcomes = _members(self.pool)
        else:
            return []
        p = 1.0 / len(outcomes)
        return [(o, p) for o in outcomes]

    def _unrevealed_tiles(self, stage: int) -> list[int]:
        return [t for t in stage_tiles(stage, len(self.players)) if t not in self.revealed_tiles]

    def _apply_chance(self, outcome: int) -> None:
        kind = self._chance_kind()
        if kind == START_PLAYER:
            self.starter = outcome
        elif kind == REMOVE_LIGHT_ROOM:
            self.removed |= 1 << outcome
            self.display &= ~(1 << outcome)
        elif kind == REVEAL_TILE:
            self.revealed_tiles.append(outcome)
        else:  # REVEAL_ROOM: an excavated room first, then a draw-pile room
            self.pool &= ~(1 << outcome)
            self.display |= 1 << outcome
            if self.pending_spaces:
                self.pending_spaces &= self.pending_spaces - 1   # the lowest pending space's room
            else:
                self.pending_pile_reveals -= 1
                self.pile -= 1

    # ----------------------------------------------------------------------------------------------
    # Legal actions

    def tiles_on_board(self) -> list[int]:
        """Action tiles face up on the action board this round (taken or not)."""
        return [t.index for t in rules().tiles if t.stage == 1] + self.revealed_tiles

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == TERMINAL:
            return []
        if player == CHANCE:
            return [o for o, _ in self.chance_outcomes()]
        table = action_table()
        if self.cavern_choice:
            return sorted(table.cavern_side[w] for w in self._config.additional_cavern_walls)
        if self.tile < 0:
            return sorted(table.take[t] for t in self.tiles_on_board() if self._take_problem(t) is None)
        board = self.players[player]
        actions = [table.end_turn]
        for good, action in table.convert.items():
            if board.goods[good] > 0 and board.goods[FOOD] < rules().caps[FOOD]:
                actions.append(action)
        if self._prospect_problem(player) is None:
            actions.append(table.prospect)
        actions.extend(self._legal_tile_options(player))
        actions.extend(self._legal_room_uses(player))
        return sorted(actions)

    def _legal_tile_options(self, player: int) -> list[int]:
        ids = action_table().tile_option_id
        result = []
        for s, slot in enumerate(rules().tiles[self.tile].slots):
            if self.slots_used >> s & 1:
                continue
            for o, option in enumerate(slot):
                if is_activation(option):
                    continue
                for param in self._candidate_params(player, option):
                    if self._option_problem(player, option, param) is None:
                        result.append(ids[self.tile, s, o, param])
        return result

    def _candidate_params(self, player: int, option: Option) -> list[Any]:
        """The option's parameters worth checking: rooms in the display on empty spaces, face-down targets."""
        spaces = self.players[player].spaces
        for op in option:
            if op.kind == "furnish":
                empty = [s for s in range(NUM_SPACES) if spaces[s] == EMPTY]
                return [(room, s) for room in _members(self.display) for s in empty]
            if op.kind == "excavate":
                return [p for p in option_params(option) if all(spaces[s] == FACE_DOWN for s in p)]
        return option_params(option)

    def _legal_room_uses(self, player: int) -> list[int]:
        if self._activation_capacity() == 0:
            return []
        table = action_table()
        result = []
        for room in self.players[player].rooms():
            if self._room_problem(player, room) is not None:
                continue
            for action in table.room_uses[room]:
                if self._choices_problem(player, rules().rooms[room].slots, table.specs[action].choices) is None:
                    result.append(action)
        return result

    # ----------------------------------------------------------------------------------------------
    # Why an action is illegal (None: it is legal). Error messages and legality come from here.

    def _take_problem(self, tile_index: int) -> str | None:
        tile = rules().tiles[tile_index]
        if tile_index not in self.tiles_on_board():
            return f"{tile.name} is not face up on the action board"
        if self.taken >> tile_index & 1:
            return f"{tile.name} was already taken this round"
        if tile.needs_more_gold and not self._solo:
            player = self.current_player()
            mine, theirs = self.players[player].goods[GOLD], self.players[1 - player].goods[GOLD]
            if mine <= theirs:
                return f"{tile.name} needs strictly more gold than the opponent ({mine} against {theirs})"
        return None

    def _prospect_problem(self, player: int) -> str | None:
        if self.tile != UNDERGROWTH:
            return "the Prospecting Site works only on a turn in which you took Undergrowth"
        if not self._blue_room_active(player, PROSPECTING_SITE):
            return "you have no (active) Prospecting Site"
        if self.prospected:
            return "the Prospecting Site was already used this turn"
        if self._config.prospecting_site_timing == "on_choosing_only" and self.sub_actions:
            return "the Prospecting Site may be used only right after choosing Undergrowth"
        if self.players[player].goods[FOOD] < 1:
            return "the Prospecting Site needs 1 food"
        return None

    def _activation_slot(self) -> tuple[int, Op] | None:
        """The unused slot of the taken tile that offers an activation, with its op."""
        for s, slot in enumerate(rules().tiles[self.tile].slots):
            if self.slots_used >> s & 1:
                continue
            for option in slot:
                if is_activation(option):
                    return s, option[0]
        return None

    def _activation_capacity(self) -> int:
        if self.tile < 0:
            return 0
        if self.activation_left:
            return self.activation_left
        found = self._activation_slot()
        return 0 if found is None else self._activation_count(found[1])

    def _activation_count(self, op: Op) -> int:
        player = self.current_player()
        extra = 1 if op.count in (2, 3) and self._blue_room_active(player, EQUIPMENT_ROOM) else 0
        return op.count + extra

    def _room_problem(self, player: int, room: int) -> str | None:
        info = rules().rooms[room]
        board = self.players[player]
        if not board.has_room(room):
            return f"{info.name} is not in your cave"
        if not info.orange:
            return f"{info.name} is a blue room; blue rooms are never activated"
        if self.activation_used >> room & 1:
            return f"{info.name} was already used in this activation"
        if room != CAVE_ENTRANCE:
            if self._config.orange_room_usable_from == "next_round":
                if board.placed_round[board.spaces.index(room)] >= self.round:
                    return f"{info.name} was furnished this round and can be used from the next round"
            elif self.furnished_now >> room & 1:
                return f"{info.name} was furnished this turn and cannot be used right away"
        return None

    def _choices_problem(self, player: int, slots: tuple, choices: tuple[Choice, ...]) -> str | None:
        goods = list(self.players[player].goods)
        for choice in choices:
            option = slots[choice.slot][choice.option]
            problem = self._option_problem(player, option, choice.param, goods)
            if problem is not None:
                return problem
            self._simulate_goods(option, choice.param, goods)
        return None

    def _simulate_goods(self, option: Option, param: Any, goods: list[int]) -> None:
        caps = rules().caps
        for op in option:
            if op.kind == "pay":
                for g in range(6):
                    goods[g] -= op.goods[g]
            elif op.kind == "pay_distinct":
                for g in param:
                    goods[g] -= 1
            elif op.kind == "gain":
                for g in range(6):
                    goods[g] = min(caps[g], goods[g] + op.goods[g])

    def _option_problem(self, player: int, option: Option, param: Any,
                        goods: list[int] | None = None) -> str | None:
        """Why `option` with `param` cannot be started now (an option runs only if all its ops can)."""
        board = self.players[player]
        goods = list(board.goods if goods is None else goods)
        for op in option:
            if op.kind == "pay":
                problem = self._pay_problem(goods, op.goods)
                if problem:
                    return problem
                for g in range(6):
                    goods[g] -= op.goods[g]
            elif op.kind == "pay_distinct":
                if not self._config.junction_room_gold_allowed and GOLD in param:
                    return "gold may not be one of the goods paid (junction_room_gold_allowed=False)"
                short = [GOODS[g] for g in param if goods[g] < 1]
                if short:
                    return f"you need 1 {' and 1 '.join(short)}"
                for g in param:
                    goods[g] -= 1
            elif op.kind == "gain":
                if op.below is not None and goods[op.below[0]] >= op.below[1]:
                    return f"only with fewer than {op.below[1]} {GOODS[op.below[0]]}"
            elif op.kind == "replenish":
                if not any(0 <= goods[g] < v for g, v in enumerate(op.targets) if v >= 0):
                    return "nothing to replenish: every good named is already at its value"
            elif op.kind == "replenish_one_of":
                if goods[param] >= op.amount:
                    return f"{GOODS[param]} is already at {op.amount} or more"
            elif op.kind == "excavate":
                problem = self._excavation_problem(player, op, param)
                if problem:
                    return problem
            elif op.kind == "furnish":
                problem = self._furnish_problem(player, op, param, goods)
                if problem:
                    return problem
            elif op.kind == "build_wall":
                problem = self._build_wall_problem(player, param)
                if problem:
                    return problem
            elif op.kind == "raze_wall":
                if not board.walls >> param & 1:
                    return f"there is no wall of yours in slot {_wall(param)} to raze"
        return None

    @staticmethod
    def _pay_problem(goods: list[int], cost: tuple[int, ...] | list[int]) -> str | None:
        short = [f"{cost[g]} {GOODS[g]} (you have {goods[g]})" for g in range(6) if goods[g] < cost[g]]
        return f"you cannot pay {', '.join(short)}" if short else None

    def wall_budget(self, op: Op) -> int:
        """How many walls an excavation may pass: none, or Undermining's (all, or one by parameter)."""
        if not op.through_walls:
            return 0
        return ALL_WALLS if self._config.undermining_ignores == "all_walls" else 1

    def _excavation_problem(self, player: int, op: Op, targets: tuple[int, ...]) -> str | None:
        if len(targets) > op.count:
            return f"this excavates at most {op.count} space(s)"
        if op.count == 2 and len(targets) == 1 and self._config.double_excavation_requires_two_targets:
            return "the double excavation needs two targets (double_excavation_requires_two_targets=True)"
        board = self.players[player]
        orders = [targets] if len(targets) == 1 else [targets, targets[::-1]]
        for order in orders:
            spaces = list(board.spaces)
            for space in order:
                if space not in accessible_spaces(rules(), spaces, board.walls, self.wall_budget(op)):
                    break
                spaces[space] = EMPTY
            else:
                return None
        names = " and ".join(_space(s) for s in targets)
        return f"{names} cannot be excavated: not an accessible face-down space"

    def furnish_extra(self, op: Op) -> list[int]:
        """The extra goods a furnish option charges on top of the room's cost."""
        extra = list(op.extra)
        if op.extra_food_per_turn:
            extra[FOOD] += self.turns_per_player()
        return extra

    def _furnish_problem(self, player: int, op: Op, param: tuple[int, int], goods: list[int]) -> str | None:
        room, space = param
        info = rules().rooms[room]
        board = self.players[player]
        if not self.display >> room & 1:
            return f"{info.name} is not in the display"
        if info.id in self._config.banned_rooms(player):
            return f"{info.name} is banned for p{player} in this game (banned_rooms_p{player})"
        if board.spaces[space] != EMPTY:
            return f"{_space(space)} is not an empty excavated space of yours"
        pattern = wall_pattern(rules(), space, board.walls, board.cavern_sides)
        if not info.wall_masks >> pattern & 1:
            return f"{info.name} does not fit the walls of {_space(space)} ({_sides(pattern)})"
        orange = sum(1 for r in board.rooms() if rules().rooms[r].orange) + info.orange
        blue = sum(1 for r in board.rooms() if not rules().rooms[r].orange) + (not info.orange)
        if orange <= blue:
            return f"you must keep more orange than blue rooms ({orange} orange, {blue} blue after)"
        cost = [c + e for c, e in zip(info.cost, self.furnish_extra(op))]
        return self._pay_problem(goods, cost)

    def wall_supply(self) -> int:
        return rules().wall_supply - sum(bin(b.walls).count("1") for b in self.players)

    def _build_wall_problem(self, player: int, wall: int) -> str | None:
        board = self.players[player]
        if self.wall_supply() == 0:
            return "no wall is left in the supply"
        if board.walls >> wall & 1:
            return f"slot {_wall(wall)} already holds a wall"
        if wall >= NUM_BOARD_WALL_SLOTS:
            if board.spaces[CAVERN] == UNAVAILABLE:
                return "you do not have the Additional Cavern"
            if board.cavern_sides >> (wall - NUM_BOARD_WALL_SLOTS) & 1:
                return f"{_wall(wall)} is a natural wall of the Additional Cavern"
            if not self._config.additional_cavern_open_sides_accept_walls:
                return "the Additional Cavern takes no walls (additional_cavern_open_sides_accept_walls=False)"
        elif not self._config.walls_between_face_down_spaces_allowed:
            a, b = slot_spaces(rules(), wall)
            if board.spaces[a] == FACE_DOWN and board.spaces[b] == FACE_DOWN:
                return "no wall between two face-down spaces (walls_between_face_down_spaces_allowed=False)"
        return None

    def _blue_room_active(self, player: int, room: int) -> bool:
        # Rooms are unique, so a room furnished this turn belongs to the player whose turn it is.
        if not self.players[player].has_room(room):
            return False
        return not (self._config.blue_room_active_from == "next_turn" and self.furnished_now >> room & 1)

    def illegal_reason(self, action: int) -> str | None:
        """Why `action` is illegal here, or None if it is legal."""
        player = self.current_player()
        if player == TERMINAL:
            return "the game is over"
        if as_action(action) is None:
            return f"an action is an int in [0, {self._game.num_distinct_actions})"
        action = as_action(action)
        if player == CHANCE:
            if action in [o for o, _ in self.chance_outcomes()]:
                return None
            return f"this chance node's outcomes are {[o for o, _ in self.chance_outcomes()]}"
        table = action_table()
        if not 0 <= action < len(table):
            return f"actions are numbered 0 to {len(table) - 1}"
        spec = table.specs[action]
        if self.cavern_choice:
            if spec.kind == CAVERN_SIDE and spec.walls in self._config.additional_cavern_walls:
                return None
            return "you must first choose the side of the Additional Cavern"
        if spec.kind == CAVERN_SIDE:
            return "the Additional Cavern is not yours to take now"
        if self.tile < 0:
            if spec.kind != TAKE:
                return "you must first take an action tile"
            return self._take_problem(spec.tile)
        if spec.kind == TAKE:
            return "you already took an action tile this turn"
        if spec.kind == END_TURN:
            return None
        if spec.kind == CONVERT:
            board = self.players[player]
            if board.goods[spec.good] == 0:
                return f"you have no {GOODS[spec.good]} to convert"
            if board.goods[FOOD] >= rules().caps[FOOD]:
                return "your food is at its limit; converting would only lose goods"
            return None
        if spec.kind == PROSPECT:
            return self._prospect_problem(player)
        if spec.kind == TILE_OPTION:
            tile = rules().tiles[self.tile]
            if spec.tile != self.tile:
                return f"it belongs to {rules().tiles[spec.tile].name}, but you took {tile.name}"
            choice = spec.choices[0]
            if self.slots_used >> choice.slot & 1:
                return "that part of the tile was already used this turn"
            return self._option_problem(player, tile.slots[choice.slot][choice.option], choice.param)
        # ROOM_USE
        if self._activation_capacity() == 0:
            return "no room activation is left on this turn's tile"
        problem = self._room_problem(player, spec.room)
        return problem or self._choices_problem(player, rules().rooms[spec.room].slots, spec.choices)

    # ----------------------------------------------------------------------------------------------
    # Applying actions

    def apply_action(self, action: int) -> None:
        """Apply a legal action; an illegal one raises IllegalActionError and changes nothing."""
        reason = self.illegal_reason(action)
        player = self.current_player()
        if reason is not None:
            index = as_action(action)
            text = None
            if player >= 0 and index is not None and 0 <= index < len(action_table()):
                text = action_table().specs[index].text
            raise IllegalActionError(action, player, reason, text)
        action = as_action(action)
        if player == CHANCE:
            self._apply_chance(action)
        else:
            self._apply_player_action(player, action_table().specs[action])
        self._history.append(action)

    def _apply_player_action(self, player: int, spec: Any) -> None:
        board = self.players[player]
        if spec.kind == CAVERN_SIDE:
            board.spaces[CAVERN] = EMPTY
            board.cavern_sides = cavern_natural_sides(spec.walls, self._config.additional_cavern_two_wall_layout)
            self.cavern_choice = False
            if self.ending:
                self._end_turn(player)
        elif spec.kind == TAKE:
            self.tile = spec.tile
            self.taken |= 1 << spec.tile
            if not self._config.wood_storeroom_requires_subaction_use and self._tile_has_activate_one():
                self._wood_storeroom(player)
        elif spec.kind == END_TURN:
            self._end_turn(player)
        elif spec.kind == CONVERT:
            board.goods[spec.good] -= 1
            board.goods[FOOD] += 1
        elif spec.kind == PROSPECT:
            self.prospected = True
            board.goods[FOOD] -= 1
            self._gain(player, _single(GOLD, 1))
        elif spec.kind == TILE_OPTION:
            choice = spec.choices[0]
            self.slots_used |= 1 << choice.slot
            self.sub_actions += 1
            self._carry_out(player, rules().tiles[self.tile].slots[choice.slot][choice.option], choice.param)
        else:  # ROOM_USE
            self._use_room(player, spec.room, spec.choices)

    def _tile_has_activate_one(self) -> bool:
        return any(op.kind == "activate_rooms" and op.count == 1
                   for slot in rules().tiles[self.tile].slots for option in slot for op in option)

    def _use_room(self, player: int, room: int, choices: tuple[Choice, ...]) -> None:
        if self.activation_left == 0:
            slot, op = self._activation_slot()  # type: ignore[misc]
            self.slots_used |= 1 << slot
            self.activation_left = self._activation_count(op)
            self.activation_used = 0
            if op.count == 1 and self._config.wood_storeroom_requires_subaction_use:
                self._wood_storeroom(player)
        self.sub_actions += 1
        self.activation_left -= 1
        self.activation_used |= 1 << room
        slots = rules().rooms[room].slots
        for choice in choices:
            self._carry_out(player, slots[choice.slot][choice.option], choice.param)

    def _wood_storeroom(self, player: int) -> None:
        if self._blue_room_active(player, WOOD_STOREROOM):
            self._gain(player, _single(WOOD, 1))

    def _carry_out(self, player: int, option: Option, param: Any) -> None:
        board = self.players[player]
        for op in option:
            if op.kind == "pay":
                for g in range(6):
                    board.goods[g] -= op.goods[g]
            elif op.kind == "pay_distinct":
                for g in param:
                    board.goods[g] -= 1
            elif op.kind == "gain":
                self._gain(player, op.goods)
            elif op.kind == "gain_one_of":
                self._gain(player, _single(param, op.amount))
            elif op.kind == "replenish":
                self._replenish(player, op.targets)
            elif op.kind == "replenish_one_of":
                self._replenish(player, tuple(op.amount if g == param else -1 for g in range(6)))
            elif op.kind == "excavate":
                self._excavate(player, op, param)
            elif op.kind == "furnish":
                self._furnish(player, op, param)
            elif op.kind == "build_wall":
                board.walls |= 1 << param
                if self._blue_room_active(player, DUNGEON):
                    self._gain(player, _single(GOLD, 2))
            elif op.kind == "raze_wall":
                board.walls &= ~(1 << param)

    def _gain(self, player: int, goods: tuple[int, ...] | list[int]) -> None:
        """Add goods up to their caps (the excess is lost); the Retting Room reacts to 1-3 flax."""
        board = self.players[player]
        caps = rules().caps
        before_flax = board.goods[FLAX]
        for g in range(6):
            board.goods[g] = min(caps[g], board.goods[g] + goods[g])
        counted = goods[FLAX] if self._config.retting_room_counts == "nominal_gain" else board.goods[FLAX] - before_flax
        if 1 <= counted <= 3 and self._blue_room_active(player, RETTING_ROOM):
            board.goods[FOOD] = min(caps[FOOD], board.goods[FOOD] + 1)

    def _replenish(self, player: int, targets: tuple[int, ...]) -> None:
        """Raise each targeted good below its value to that value; a raised flax is a flax gain."""
        board = self.players[player]
        raised = [max(0, v - board.goods[g]) if v >= 0 else 0 for g, v in enumerate(targets)]
        self._gain(player, raised)

    def _excavate(self, player: int, op: Op, targets: tuple[int, ...]) -> None:
        board = self.players[player]
        order = targets
        if len(targets) == 2:
            first_ok = targets[0] in accessible_spaces(rules(), board.spaces, board.walls, self.wall_budget(op))
            order = targets if first_ok else targets[::-1]
        for space in order:
            board.spaces[space] = EMPTY
            self.excavated += 1
            self.pending_spaces |= 1 << space
            if rules().spaces[space].food_bonus:
                self._gain(player, _single(FOOD, rules().spaces[space].food_bonus))
        if (self._solo and len(targets) == 1
                and self._config.solo_reveal_timing == "per_single_excavation_effect"):
            self._queue_pile_reveal()

    def _queue_pile_reveal(self) -> None:
        if self.pile - self.pending_pile_reveals > 0:
            self.pending_pile_reveals += 1

    def _furnish(self, player: int, op: Op, param: tuple[int, int]) -> None:
        room, space = param
        board = self.players[player]
        cost = [c + e for c, e in zip(rules().rooms[room].cost, self.furnish_extra(op))]
        for g in range(6):
            board.goods[g] -= cost[g]
        board.spaces[space] = room
        board.placed_round[space] = self.round
        self.display &= ~(1 << room)
        self.furnished_now |= 1 << room
        if self._config.additional_cavern_award_timing == "immediately":
            self._offer_cavern(player)

    def _offer_cavern(self, player: int) -> bool:
        if self.cavern_owner < 0 and board_full(self.players[player].spaces):
            self.cavern_owner = player
            self.cavern_choice = True
            return True
        return False

    def _end_turn(self, player: int) -> None:
        if self._config.additional_cavern_award_timing == "end_of_turn" and not self.ending:
            if self._offer_cavern(player):
                self.ending = True
                return
        solo_reveal = (self._solo and self.excavated == 1
                       and self._config.solo_reveal_timing == "end_of_turn_if_exactly_one")
        self._reset_turn()
        self.turn += 1
        if self.turn == self.turns_per_player() * len(self.players):
            self.round += 1
            self.turn = 0
            self.taken = 0
            if not self._solo:
                self.starter = 1 - self.starter
        if solo_reveal and self.round < len(self._turns):
            self._queue_pile_reveal()

    # ----------------------------------------------------------------------------------------------
    # Results and bookkeeping

    def scores(self) -> list[int]:
        """Room points plus one point per gold, for each player."""
        return [sum(rules().rooms[r].vp for r in b.rooms()) + b.goods[GOLD] for b in self.players]

    def room_values(self, player: int) -> list[int]:
        """Points of the player's rooms, highest first (the tie-break compares these)."""
        return sorted((rules().rooms[r].vp for r in self.players[player].rooms()), reverse=True)

    def clone(self) -> "ReferenceState":
        other = ReferenceState.__new__(ReferenceState)
        other.__dict__.update(self.__dict__)
        other.players = [b.copy() for b in self.players]
        other.revealed_tiles = list(self.revealed_tiles)
        other._history = list(self._history)
        return other

    def history(self) -> list[int]:
        return list(self._history)

    @classmethod
    def from_dict(cls, game: Any, d: dict[str, Any], history: list[int]) -> "ReferenceState":
        """The position described by `to_dict()` output (used to explain a compiled state's illegal moves)."""
        state = cls(game)
        for key, value in d.items():
            if key == "players":
                for board, fields in zip(state.players, value):
                    for name, v in fields.items():
                        setattr(board, name, list(v) if isinstance(v, list) else v)
            elif key in ("prospected", "cavern_choice", "ending"):
                setattr(state, key, bool(value))
            else:
                setattr(state, key, list(value) if isinstance(value, list) else value)
        state._history = list(history)
        return state

    def to_dict(self) -> dict[str, Any]:
        """Every field of the position, in a canonical form shared with the compiled engine."""
        return {
            "round": self.round, "turn": self.turn, "starter": self.starter,
            "revealed_tiles": list(self.revealed_tiles), "taken": self.taken, "display": self.display,
            "pool": self.pool, "removed": self.removed, "pile": self.pile,
            "cavern_owner": self.cavern_owner, "pending_spaces": self.pending_spaces,
            "pending_pile_reveals": self.pending_pile_reveals, "tile": self.tile,
            "slots_used": self.slots_used, "activation_left": self.activation_left,
            "activation_used": self.activation_used, "prospected": int(self.prospected),
            "sub_actions": self.sub_actions, "excavated": self.excavated,
            "furnished_now": self.furnished_now, "cavern_choice": int(self.cavern_choice),
            "ending": int(self.ending),
            "players": [b.to_dict() for b in self.players],
        }


def _single(good: int, amount: int) -> list[int]:
    goods = [0] * 6
    goods[good] = amount
    return goods


def _space(space: int) -> str:
    return "ac" if space == CAVERN else f"s{space}"


def _wall(wall: int) -> str:
    return f"w{wall}" if wall < NUM_BOARD_WALL_SLOTS else f"ac-{'NESW'[wall - NUM_BOARD_WALL_SLOTS]}"


def _sides(pattern: int) -> str:
    names = [d for i, d in enumerate("NESW") if pattern >> i & 1]
    return "walls " + "".join(names) if names else "no walls"


assert NUM_WALL_SLOTS == NUM_BOARD_WALL_SLOTS + 4
