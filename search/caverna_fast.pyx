"""The Caverna evaluator and heuristic policy in C, on the compiled engine's struct (`core/caverna/compiled.pxd`).

A port of `search/caverna_agents.py`, read side by side with it: the same functions in the same order
(`_timing`, `_room`, `_board_features`, `expected_points`, `caverna_evaluate`, `_representatives`, the
heuristic's `_best_step` with `_settle`, `turn_lines`, `_complete_turn`, `planned`/`follow`, and the rollout agent's
`_rollout`), with the same numbers: the C evaluator equals the Python one within 1e-9 on every kind of
position (tests/test_caverna_fast.py), and the C policy's choices are the Python heuristic's best choices
(the very same choices and planned lines when neither adds tie noise).
The weights are read from `CAVERNA_WEIGHTS` and `CAVERNA_SCALE` when the module loads (one source of
truth); `make_weights` builds other settings for a caller (a tuner) to pass in.

What differs from the Python agents, by design:
- the tie noise (1e-9 times a uniform draw, as in Python) comes from compiled_common's xorshift generator,
  so seeded games differ from the Python agents' games wherever two choices evaluate the same;
- inside C playouts (`heuristic_playout`, the pilot's rollouts) the plan being followed is checked against
  every action applied (a chance outcome or another action drops it), which is what the Python agent's
  history comparison amounts to; the agents' `step` compares histories as the Python agent does;
- the pilot's rollouts each draw one generator state from the pilot's generator and use it for both the
  rollout policy's tie noise and the chance outcomes (Python: a new heuristic seeded from the pilot's
  generator, chance from the pilot's generator).
The agents play compiled states (the default engine); a reference state is converted with
`CompiledState.from_reference` at each step (correct but slower: use the compiled engine).

`caverna_greedy` is `caverna_heuristic` in C, `caverna_pilot` is `caverna_rollout` in C.

Measured 2026-12-02 in one process on the shared 2-core box (load average about 2.8 from other work), solo
games with chance sampled from numpy seeded by the game number, `process_time` per game, on the hand-set
weights (the default then; `weights=hand` now):
    caverna_heuristic (Python)     5 games: mean 47.4 (sd 1.9), 0.976 CPU-s a game, 1.0 games/s
    caverna_greedy                20 games: mean 47.4 (sd 1.5), 0.011 CPU-s a game, 90 games/s (about 88x)
    caverna_pilot:candidates=3    10 games: mean 61.0 (sd 5.0), 0.454 CPU-s a game (caverna_agents.py's
                                  figure for the Python caverna_rollout: 63 points in 24 CPU-s; about 50x)
Command (from any folder but the repository root, whose `cavekit/` shadows the installed package):
    python - <<'EOF'
    import time, numpy as np
    from cavekit.core import load_game
    from cavekit.core.api import CHANCE, sample_chance_outcome
    from cavekit.search import make_agent
    def solo(spec, seed):
        g = load_game("caverna", players=1); a = make_agent(spec, g, seed=seed); rng = np.random.default_rng(seed)
        s = g.new_initial_state()
        while not s.is_terminal():
            s.apply_action(sample_chance_outcome(s.chance_outcomes(), rng.random()) if s.current_player() == CHANCE
                           else a.step(s))
        return s.scores()[0]
    for spec, games in [("caverna_heuristic", 5), ("caverna_greedy:weights=hand", 20),
                        ("caverna_pilot:candidates=3,weights=hand", 10)]:
        t = time.process_time(); scores = [solo(spec, k) for k in range(games)]; cpu = (time.process_time() - t) / games
        print(spec, games, np.mean(scores), np.std(scores, ddof=1), cpu)
    EOF
Since 2026-12-03 the agents play with the tuned weights (`weights=tuned`, `search/caverna_weights.py`), the
pilot nests (`level`) and, solo, follows the best game found; the figures (solo, 2026-12-05, with the weights
from restarts of the tuning: greedy 76.2, pilot 84.2, level 2 90.3, level 2 with noisy rollouts 95.3; two
players) are in results/caverna_strength/.

A whole-game C playout (`heuristic_playouts`) takes about 15 ms solo, 34 ms with two players and 75 ms with
four. Most of that is the engine, not the port: `perf` puts about 70% of a playout in the compiled engine's
legal-action generation (furnish_targets, payment_choices, placement_legal, atom_actions, the affordability
checks) and about 14% in the evaluator (score sheet included), so a faster policy needs a faster
`legal_actions` in core/caverna/compiled.pyx.

The structs (Weights, Line, Policy) and the C functions other modules may `cimport` are declared in
caverna_fast.pxd.
"""
cimport cython
from libc.math cimport INFINITY, tanh
from libc.stdint cimport int8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from cavekit.core.compiled_common cimport next_random, search_rng
from cavekit.core.caverna.compiled cimport (CK_NONE, HK_FEED_1, HK_MARKER, HK_NO_HARVEST, HK_NONE, K_CONVERT,
                                           K_END_TURN, K_ORDER, K_PEACEFUL, K_PLACE, MAX_ACTIONS, MAX_CARDS, MAX_DWARFS,
                                           MAX_PLAYERS, NO_SPACE, NUM_ANIMALS, NUM_GOODS, NUM_GRID, NUM_POS,
                                           PH_CHOICE, PH_FEEDING, PH_OVER, PH_START, PH_WORK, T_CAVERN,
                                           T_DEEP_TUNNEL, T_FIELD, T_MEADOW, T_TUNNEL, Board, Config, CoreState,
                                           GameState, Player, Summary, Tables, apply_action, chance_kind,
                                           chance_outcomes, current_player, dwarf_room, dwarfs_of, family_limit,
                                           feeding_need, legal_actions, make_config, player_summary, returns,
                                           score, tab, weapons_of)

import math

import numpy as np

from ..core.api import ConfigError
from ..core.caverna.actions import CONVERT, END_TURN, FURNISH, ORDER, PEACEFUL, PLACE, SOW, action_table
from ..core.caverna.compiled import CompiledState
from ..core.caverna.rules import ANIMALS, FARM_ANIMALS, GOODS, default_config
from ..core.caverna.spec import SPEC
from .agent import choosable_actions, register_agent
from .caverna_agents import (BOARD_FEATURES, CAVERNA_SCALE, CAVERNA_WEIGHTS, GOODS_WEIGHTED, FollowsLines,
                            settles_by_default)
from .caverna_agents import FOOD_BILL_PLAYERS as _FOOD_BILL_PLAYERS
from .caverna_agents import SETTLE_FROM_PLAYERS as _SETTLE_FROM_PLAYERS
from .caverna_agents import SETTLE_STEPS as _SETTLE_STEPS
from .caverna_weights import WEIGHTS_OPTION, weights_for

assert len(BOARD_FEATURES) == NUM_BOARD_FEATURES, "search/caverna_agents.py BOARD_FEATURES changed"
assert (K_PLACE, K_ORDER, K_END_TURN, K_CONVERT, K_PEACEFUL) == (PLACE, ORDER, END_TURN, CONVERT, PEACEFUL), \
    "core/caverna/compiled.pxd's action kinds disagree with actions.py"

cdef double TIE_NOISE = 1e-9               # the policies' tie noise (a uniform draw times this), as in Python
MAX_ROLLOUT_NOISE = 20.0                   # caverna_pilot's noise option, in points (past a few it plays randomly)

# ------------------------------------------------------------------------------------------------
# Tables read from the Python data once

cdef int NUM_ACTIONS = 0
cdef int FOOD_BILL_PLAYERS = _FOOD_BILL_PLAYERS   # `caverna_agents.FOOD_BILL_PLAYERS`, for nogil code
cdef int SETTLE_STEPS = _SETTLE_STEPS              # `caverna_agents.SETTLE_STEPS`
cdef int SETTLE_FROM_PLAYERS = _SETTLE_FROM_PLAYERS
cdef int8_t KIND[MAX_ACTIONS]              # actions.py kind of each action
cdef int8_t GROUP[MAX_ACTIONS]             # `_representatives` key: furnishing or crop group, -1: the action itself
cdef int GOODS_WEIGHTED_IDX[NUM_GOODS]     # GOODS_WEIGHTED order -> struct goods index
cdef int FARM_IDX[NUM_ANIMALS]
cdef int NUM_FARM = 0
cdef int WOOD, STONE, FOOD, GRAIN, VEGETABLE
cdef int CROP_ON_FIELD                         # BOARD_FEATURES index of the crops on fields
cdef Config DEFAULT_CFG                    # fu.dwarf_room / family_limit read the board with the default config
cdef Weights DEFAULT_WEIGHTS


def _load_tables() -> None:
    """Action kinds and representative groups from the action table; goods and animals indices by name."""
    global NUM_ACTIONS, NUM_FARM, WOOD, STONE, FOOD, GRAIN, VEGETABLE, CROP_ON_FIELD, DEFAULT_CFG
    specs = action_table().specs
    if len(specs) > MAX_ACTIONS:
        raise ValueError(f"caverna_fast: {len(specs)} actions, more than MAX_ACTIONS={MAX_ACTIONS}")
    NUM_ACTIONS = len(specs)
    groups: dict = {}
    for spec in specs:
        KIND[spec.id] = spec.kind
        if spec.kind == FURNISH:
            key = (FURNISH, spec.fid)
        elif spec.kind == SOW:
            key = (SOW, spec.crop)
        else:
            GROUP[spec.id] = -1
            continue
        GROUP[spec.id] = groups.setdefault(key, len(groups))
    if len(groups) > MAX_GROUPS:
        raise ValueError(f"caverna_fast: {len(groups)} representative groups, more than {MAX_GROUPS}")
    for k, name in enumerate(GOODS_WEIGHTED):
        GOODS_WEIGHTED_IDX[k] = GOODS.index(name)
    NUM_FARM = len(FARM_ANIMALS)
    for k, name in enumerate(FARM_ANIMALS):
        FARM_IDX[k] = ANIMALS.index(name)
    WOOD, STONE, FOOD = GOODS.index("wood"), GOODS.index("stone"), GOODS.index("food")
    GRAIN, VEGETABLE = GOODS.index("grain"), GOODS.index("vegetable")
    CROP_ON_FIELD = BOARD_FEATURES.index("crop_on_field")
    DEFAULT_CFG = make_config(default_config())


cdef Weights weights_from(dict weights, double scale) except *:
    cdef Weights w
    cdef int k
    missing = sorted(set(CAVERNA_WEIGHTS) - set(weights))
    unknown = sorted(set(weights) - set(CAVERNA_WEIGHTS))
    if missing or unknown:
        raise ValueError(f"caverna weights need exactly the keys of CAVERNA_WEIGHTS ({', '.join(CAVERNA_WEIGHTS)}); "
                         f"missing: {missing}, unknown: {unknown}")
    for k, name in enumerate(GOODS):
        w.goods[k] = weights[name]
    w.dwarf_round = weights["dwarf_round"]
    w.free_room_round = weights["free_room_round"]
    w.weapon = weights["weapon"]
    w.breeding_pair = weights["breeding_pair"]
    for k, name in enumerate(BOARD_FEATURES):
        w.board[k] = weights[name]
    w.dwelling_plan = weights["dwelling_plan"]
    w.dwarf_food = weights["dwarf_food"]
    w.feeding_urgency = weights["feeding_urgency"]
    w.dwarf_harvest_food = weights["dwarf_harvest_food"]
    w.food_gap = weights["food_gap"]
    w.scale = scale
    return w


cdef class CavernaWeights:
    """A setting of the evaluator's weights for the C code (`make_weights`; the struct `w` is in the .pxd)."""


def make_weights(weights: dict | None = None, scale: float = CAVERNA_SCALE) -> CavernaWeights:
    """C weights from a CAVERNA_WEIGHTS-style dict (default: CAVERNA_WEIGHTS) and the tanh scale."""
    cdef CavernaWeights out = CavernaWeights.__new__(CavernaWeights)
    if not scale > 0:
        raise ValueError(f"the tanh scale must be positive; got {scale}")
    out.w = weights_from(dict(CAVERNA_WEIGHTS if weights is None else weights), scale)
    return out


_load_tables()
DEFAULT_WEIGHTS = weights_from(dict(CAVERNA_WEIGHTS), CAVERNA_SCALE)


# ------------------------------------------------------------------------------------------------
# The evaluator (caverna_agents.expected_points, caverna_evaluate)

cdef void _timing(const GameState* s, double* share, double* work_left_out, double* harvests_out) noexcept nogil:
    """(share of work turns left, rounds of work left, harvests left) from the player's point of view."""
    cdef const Tables* t = tab(s)
    cdef int total = t.n_rounds, r = s.round, q, k, placed = 0, ready = 0, first, event
    cdef double work_left, harvests = 0.0
    if s.phase == PH_START:
        work_left = total - r
    elif s.phase == PH_WORK:
        for q in range(s.num_players):
            placed += s.players[q].n_placed
            ready += s.players[q].n_ready
        work_left = total - r - 1 + (<double>ready / max(1, placed + ready))
    else:
        work_left = total - r - 1
    work_left = max(0.0, work_left)
    first = r if s.phase == PH_START or s.phase == PH_WORK else r + 1
    for k in range(first, total):
        event = t.harvest_event[t.rounds[k]]
        if event == HK_MARKER:
            harvests += 0.75 if s.markers[k] < 0 else (1.0 if s.markers[k] == 0 else 0.6)
        elif event != HK_NONE and event != HK_NO_HARVEST:
            harvests += 1.0
    share[0] = work_left / total
    work_left_out[0] = work_left
    harvests_out[0] = harvests


cdef inline int _room(const Board* b, int dwarfs) noexcept nogil:
    """Free dwelling room up to the family limit (the Python reads the board with the default config)."""
    return max(0, min(dwarf_room(b, &DEFAULT_CFG, dwarfs), family_limit(b, &DEFAULT_CFG)) - dwarfs)


cdef inline bint _usable(const Board* b, const Config* cfg, int pos) noexcept nogil:
    """`board.items(config)`: the printed spaces, and the overhang positions in use when they are usable."""
    return pos < NUM_GRID or (b.sp[pos].terrain != NO_SPACE and cfg.office_usable)


cdef void _board_features(const Board* b, const Config* cfg, int* counts) noexcept nogil:
    """Counts of empty caverns, tunnels, crops on fields, empty fields, meadows and stables (BOARD_FEATURES)."""
    cdef int i, t
    for i in range(NUM_BOARD_FEATURES):
        counts[i] = 0
    for i in range(NUM_POS):
        if not _usable(b, cfg, i):
            continue
        t = b.sp[i].terrain
        if t == T_CAVERN and b.sp[i].furnishing < 0:
            counts[0] += 1
        elif t == T_TUNNEL or t == T_DEEP_TUNNEL:
            counts[1] += 1
        elif t == T_FIELD:
            if b.sp[i].crop:
                counts[2] += b.sp[i].crop_count
            else:
                counts[3] += 1
        elif t == T_MEADOW:
            counts[4] += 1
        if b.sp[i].stable:
            counts[5] += 1


cdef inline int food_supply(const Player* p, int crops_on_fields) noexcept nogil:
    """Food in hand, grain and vegetables (2 each) converted, and the crops still on fields at 1 each."""
    return p.goods[FOOD] + p.goods[GRAIN] + 2 * p.goods[VEGETABLE] + crops_on_fields


cdef inline bint _feeding_now(const GameState* s, int q) noexcept nogil:
    """The player still has to feed in the harvest being carried out."""
    cdef int k
    if s.phase == PH_CHOICE:
        return True
    if s.phase == PH_FEEDING:
        for k in range(s.n_queue):
            if s.queue[k] == q:
                return True
    return False


cdef inline int _need(const GameState* s, const Player* p, bint now) noexcept nogil:
    """Food a player owes at a feeding (now: this harvest's, newborns at 1; else the next, all adults).
    (The Python subtracts `feeding_discount(board, 0)`, which is always 0.)"""
    cdef int need
    if now and s.harvest_kind == HK_FEED_1:
        need = dwarfs_of(p)
    else:
        need = 2 * dwarfs_of(p) - (p.newborns if now else 0)
    return max(0, need)


cdef void expected_points(const GameState* s, const Weights* w, double* out) noexcept nogil:
    """Each player's estimated final score (caverna_agents.expected_points); players must be seated."""
    cdef double share, work_left, harvests, promise, room, value
    cdef const Config* cfg = &tab(s).cfg
    cdef const Player* p
    cdef Summary summary
    cdef int q, k, dwarfs, weapons, armed, n_weapons, pairs, food, need, now
    cdef int counts[NUM_BOARD_FEATURES]
    cdef int weapon_list[MAX_DWARFS]
    _timing(s, &share, &work_left, &harvests)
    for q in range(s.num_players):
        p = &s.players[q]
        dwarfs = dwarfs_of(p)
        # the acting dwarf's weapon as it is now: a weapon forged (or loot's +1) shows before the turn ends
        n_weapons = weapons_of(s, q, weapon_list)
        weapons = armed = 0
        for k in range(n_weapons):
            if weapon_list[k] > 0:
                weapons += weapon_list[k]
                armed += 1
        player_summary(s, q, &summary)
        summary.armed_dwarfs = armed
        now = score(&summary, cfg)
        promise = 0.0
        for k in range(NUM_GOODS):
            promise += w.goods[GOODS_WEIGHTED_IDX[k]] * p.goods[GOODS_WEIGHTED_IDX[k]]
        room = <double>_room(&p.board, dwarfs)
        if not room and dwarfs < family_limit(&p.board, &DEFAULT_CFG):
            room = w.dwelling_plan * (min(p.goods[WOOD], 4) + min(p.goods[STONE], 3)) / 7.0
        promise += w.weapon * weapons
        _board_features(&p.board, cfg, counts)
        for k in range(NUM_BOARD_FEATURES):
            promise += w.board[k] * counts[k]
        value = now + share * promise + (w.dwarf_round * dwarfs + w.free_room_round * room) * work_left
        value -= w.dwarf_food * max(0, min(s.num_players, FOOD_BILL_PLAYERS) - 2) * dwarfs * harvests
        value -= w.dwarf_harvest_food * dwarfs * harvests
        value -= w.food_gap * max(0.0, 2 * dwarfs * harvests - food_supply(p, counts[CROP_ON_FIELD]))
        pairs = 0
        for k in range(NUM_FARM):
            pairs += p.animals[FARM_IDX[k]] >= 2
        value += w.breeding_pair * harvests * pairs
        # the feeding in progress (if the player has yet to feed), then the next one
        food = p.goods[FOOD]
        if _feeding_now(s, q):
            need = feeding_need(s, q) if s.phase == PH_FEEDING else _need(s, p, True)
            value -= 3.0 * max(0, need - food)
            food = max(0, food - need)
        if harvests > 0:
            value -= 3.0 * w.feeding_urgency * max(0, _need(s, p, False) - food)
        out[q] = value


cdef void evaluate(const GameState* s, const Weights* w, double* out) noexcept nogil:
    """Estimated returns of a Caverna state (caverna_agents.caverna_evaluate; exact returns once it is over)."""
    cdef double values[MAX_PLAYERS]
    cdef double best_other
    cdef int n = s.num_players, q, k
    if s.phase == PH_OVER:
        returns(s, out)
        return
    if s.starter < 0:                       # before the start player is drawn: nothing told apart yet
        for q in range(n):
            out[q] = 0.0
        return
    expected_points(s, w, values)
    if n == 1:
        out[0] = values[0]
        return
    for q in range(n):
        best_other = -INFINITY
        for k in range(n):
            if k != q and values[k] > best_other:
                best_other = values[k]
        out[q] = tanh((values[q] - best_other) / w.scale)


cdef CoreState _compiled(object state):
    """The compiled state to read: the state itself, or a reference state converted (slower)."""
    if isinstance(state, CoreState):
        return <CoreState>state
    from ..core.caverna.reference import ReferenceState
    if isinstance(state, ReferenceState):
        return CompiledState.from_reference(state)
    raise TypeError(f"caverna_fast reads Caverna states of the compiled engine (load_game('caverna', "
                    f"engine='compiled'), the default) or the reference engine; got {type(state).__name__}")


cdef const Weights* _weights_of(object weights) except NULL:
    if weights is None:
        return &DEFAULT_WEIGHTS
    if not isinstance(weights, CavernaWeights):
        raise TypeError("weights must come from make_weights(...)")
    return &(<CavernaWeights>weights).w


def evaluate_state(state, weights: CavernaWeights | None = None) -> list[float]:
    """The C evaluation of a Caverna state (the numbers of caverna_agents.caverna_evaluate)."""
    cdef CoreState cs = _compiled(state)
    cdef double out[MAX_PLAYERS]
    evaluate(&cs.s, _weights_of(weights), out)
    return [out[k] for k in range(cs.s.num_players)]


def expected_points_state(state, weights: CavernaWeights | None = None) -> list[float]:
    """The C expected points of a Caverna state whose players are seated (caverna_agents.expected_points)."""
    cdef CoreState cs = _compiled(state)
    cdef double out[MAX_PLAYERS]
    if cs.s.starter < 0:
        raise ValueError("expected points need seated players: draw the start player first")
    expected_points(&cs.s, _weights_of(weights), out)
    return [out[k] for k in range(cs.s.num_players)]


# ------------------------------------------------------------------------------------------------
# The heuristic policy (CavernaHeuristicAgent)

cdef int _representatives(const int* actions, int n, int* out) noexcept nogil:
    """The look-ahead's candidates among the actions that are not conversions, peaceful-cave or order
    choices: one position per furnishing and one field per crop sown (the Python's `_representatives` of
    the filtered list)."""
    cdef bint seen[MAX_GROUPS]
    cdef int k, a, g, m = 0
    memset(seen, 0, sizeof(seen))
    for k in range(n):
        a = actions[k]
        if KIND[a] == K_CONVERT or KIND[a] == K_PEACEFUL or KIND[a] == K_ORDER:
            continue
        g = GROUP[a]
        if g >= 0:
            if seen[g]:
                continue
            seen[g] = True
        out[m] = a
        m += 1
    return m


cdef double _step_value(const GameState* s, int action, int player, Policy* pol, bint settle) noexcept nogil:
    """The evaluation for `player` after `action` (settled first if `settle`), plus the policy's tie noise."""
    cdef GameState child
    cdef double values[MAX_PLAYERS]
    memcpy(&child, s, sizeof(GameState))
    apply_action(&child, action)
    if settle:
        _settle(&child, player, pol)
    evaluate(&child, pol.w, values)
    return values[player] + pol.noise * uniform(pol.rng)


cdef int _best_of(const GameState* s, const int* legal, int n, int player, Policy* pol, bint settle,
                  double* value_out) noexcept nogil:
    """The action of the best `_step_value` (ties broken by the policy's noise)."""
    cdef double value, best_value = -INFINITY
    cdef int k, best = legal[0]
    for k in range(n):
        value = _step_value(s, legal[k], player, pol, settle)
        if value > best_value:
            best, best_value = legal[k], value
    if value_out != NULL:
        value_out[0] = best_value
    return best


cdef inline bint _settles_by_default(int players) noexcept nogil:
    """`caverna_agents.settles_by_default`."""
    return players >= SETTLE_FROM_PLAYERS


cdef void _settle(GameState* s, int player, Policy* pol) noexcept nogil:
    """Carry out what an action leaves owing before the turn may end (an animal overflow, a furnishing's
    payment, a loot item's tile, the rest of a compulsory part) one step greedily, so that the action is
    judged by what it comes to rather than by a half-done position."""
    cdef int legal[MAX_ACTIONS]
    cdef int options[MAX_ACTIONS]
    cdef int step, n, m
    cdef const int* choices
    for step in range(SETTLE_STEPS):
        if s.phase != PH_WORK or current_player(s) != player or not s.has_turn:
            return
        n = legal_actions(s, legal)
        if n == 0 or _any_of_kind(legal, n, K_END_TURN):
            return
        m = _representatives(legal, n, options)       # as in `_complete_turn`: conversions left out
        choices = options
        if m == 0:
            choices, m = legal, n
        apply_action(s, choices[0] if m == 1 else _best_of(s, choices, m, player, pol, False, NULL))


cdef int _best_step(const GameState* s, const int* legal, int n, int player, Policy* pol,
                    double* value_out) noexcept nogil:
    """The action whose result evaluates best for `player`, once what it leaves owing is settled if the policy
    settles (`_settle`); ties broken by the policy's noise."""
    return _best_of(s, legal, n, player, pol, pol.settle, value_out)


cdef int _complete_turn(GameState* s, int player, Policy* pol, int* line) noexcept nogil:
    """Play the rest of the turn greedily in `s` (conversions left out); the number of actions played."""
    cdef int legal[MAX_ACTIONS]
    cdef int options[MAX_ACTIONS]
    cdef int step, n, m, action, played = 0
    cdef const int* choices
    for step in range(pol.max_turn_steps):
        if s.phase == PH_OVER or current_player(s) != player or not s.has_turn:
            break
        n = legal_actions(s, legal)
        m = _representatives(legal, n, options)
        choices = options
        if m == 0:
            choices, m = legal, n
        if m == 1:
            action = choices[0]
        else:
            action = _best_step(s, choices, m, player, pol, NULL)
        apply_action(s, action)
        line[played] = action
        played += 1
        if KIND[action] == K_END_TURN:
            break
    return played


cdef int _turn_lines(const GameState* s, const int* legal, int n, int player, Policy* pol, uint64_t* rng,
                     Line* lines) noexcept nogil:
    """(evaluation, line) of every legal action into `lines`, best first (stable): a placement's line is its
    whole turn played greedily by `pol`; ties are broken by `rng`."""
    cdef GameState child
    cdef double values[MAX_PLAYERS]
    cdef Line tmp
    cdef int k, j
    for k in range(n):
        memcpy(&child, s, sizeof(GameState))
        apply_action(&child, legal[k])
        lines[k].actions[0] = legal[k]
        lines[k].n = 1
        if KIND[legal[k]] == K_PLACE:
            lines[k].n += _complete_turn(&child, player, pol, &lines[k].actions[1])
        evaluate(&child, pol.w, values)
        lines[k].value = values[player] + pol.noise * uniform(rng)
    for k in range(1, n):                       # insertion sort: the first of equal values stays first
        if lines[k].value > lines[k - 1].value:
            memcpy(&tmp, &lines[k], sizeof(Line))
            j = k
            while j > 0 and lines[j - 1].value < tmp.value:
                memcpy(&lines[j], &lines[j - 1], sizeof(Line))
                j -= 1
            memcpy(&lines[j], &tmp, sizeof(Line))
    return n


cdef void _follow(Policy* pol, const Line* line) noexcept nogil:
    """Keep `line` as the plan (its first action is the one about to be played)."""
    memcpy(pol.plan, line.actions, line.n * sizeof(int))
    pol.plan_n = line.n
    pol.plan_pos = 0


cdef void _observe(Policy* pol, int action) noexcept nogil:
    """An action was applied: the plan moves on if it was the planned one, else it is dropped."""
    if pol.plan_pos < pol.plan_n and pol.plan[pol.plan_pos] == action:
        pol.plan_pos += 1
    else:
        pol.plan_n = pol.plan_pos = 0


cdef int _planned(Policy* pol, const int* legal, int n) noexcept nogil:
    """The next action of the line being followed if it is legal; else -1 (and the plan is dropped)."""
    cdef int k, action
    if pol.plan_pos < pol.plan_n:
        action = pol.plan[pol.plan_pos]
        for k in range(n):
            if legal[k] == action:
                return action
    pol.plan_n = pol.plan_pos = 0
    return -1


cdef inline bint _any_of_kind(const int* legal, int n, int kind) noexcept nogil:
    cdef int k
    for k in range(n):
        if KIND[legal[k]] == kind:
            return True
    return False


cdef bint _any_place(const int* legal, int n) noexcept nogil:
    return _any_of_kind(legal, n, K_PLACE)


cdef int _choose(Policy* pol, const GameState* s, const int* legal, int n) noexcept nogil:
    """`step` past the plan and the single-action case: a placement by whole turns (the best line becomes
    the plan), anything else one step greedy. -1 only when memory runs out."""
    cdef int player = current_player(s), action
    cdef Line* lines
    if pol.turn_lookahead and _any_place(legal, n):
        lines = <Line*>malloc(n * sizeof(Line))
        if lines == NULL:
            return -1
        _turn_lines(s, legal, n, player, pol, pol.rng, lines)
        _follow(pol, &lines[0])
        action = lines[0].actions[0]
        free(lines)
        return action
    return _best_step(s, legal, n, player, pol, NULL)


cdef int policy_step(Policy* pol, const GameState* s) noexcept nogil:
    """The heuristic's action at a player decision (CavernaHeuristicAgent.step, the plan kept in `pol`)."""
    cdef int legal[MAX_ACTIONS]
    cdef int n = legal_actions(s, legal), action
    action = _planned(pol, legal, n)
    if action >= 0:
        return action
    if n == 1:
        return legal[0]
    return _choose(pol, s, legal, n)


cdef void _init_policy(Policy* pol, const Weights* w, uint64_t* rng, bint turn_lookahead,
                       int max_turn_steps, bint settle) noexcept nogil:
    pol.w = w
    pol.settle = settle
    pol.rng = rng
    pol.turn_lookahead = turn_lookahead
    pol.max_turn_steps = max_turn_steps
    pol.noise = TIE_NOISE
    pol.plan_n = pol.plan_pos = 0


cdef int _sample_chance(const GameState* s, uint64_t* rng) noexcept nogil:
    """A chance outcome drawn by its probability (as api.sample_chance_outcome)."""
    cdef int out[MAX_CARDS]
    cdef double prob[MAX_CARDS]
    cdef int n = chance_outcomes(s, out, prob), k
    cdef double u = uniform(rng), total = 0.0
    for k in range(n):
        total += prob[k]
        if u < total:
            return out[k]
    return out[n - 1]


cdef int play_policy(GameState* s, Policy* pol, int stop_round) noexcept nogil:
    """Play `pol` in every seat (chance from its generator) to the end, or until round `stop_round` starts
    (stop_round < 0: to the end); the number of steps, -1 if memory ran out."""
    cdef int action, steps = 0
    while s.phase != PH_OVER and not (stop_round >= 0 and s.round >= stop_round and s.phase == PH_START):
        if chance_kind(s) != CK_NONE:
            action = _sample_chance(s, pol.rng)
        else:
            action = policy_step(pol, s)
            if action < 0:
                return -1
        apply_action(s, action)
        _observe(pol, action)
        steps += 1
    return steps


cdef int heuristic_playout(GameState* s, uint64_t* rng) noexcept nogil:
    """The heuristic (hand-set weights, turn look-ahead, 12 steps) in every seat to the end; chance and tie
    noise from `rng`. The number of steps (-1 if memory ran out)."""
    cdef Policy pol
    _init_policy(&pol, &DEFAULT_WEIGHTS, rng, True, 12, _settles_by_default(s.num_players))
    return play_policy(s, &pol, -1)


# ------------------------------------------------------------------------------------------------
# The pilot (CavernaRolloutAgent)

cdef inline void _record(Record* rec, int action) noexcept nogil:
    if rec == NULL or rec.n < 0:
        return
    if rec.n == MAX_RECORD:
        rec.n = -1
        return
    rec.actions[rec.n] = action
    rec.n += 1


cdef int play_pilot(GameState* s, Policy* pol, uint64_t* rng, const PilotSettings* ps, int level, int stop_round,
                    Record* rec) noexcept nogil:
    """Play the level-`level` pilot in every seat (level 0: the policy; chance from `rng`) to the end, or until
    round `stop_round` starts (< 0: to the end), appending each action to `rec` (NULL: none); the number of
    steps, -1 if memory ran out. Solo to the end (no chance: a playout replays exactly) each level follows
    the best playout its placements have found so far, as CavernaPilotAgent does."""
    cdef int legal[MAX_ACTIONS]
    cdef int n, action, steps = 0, memory_pos = 0
    cdef bint memorize = level > 0 and s.num_players == 1 and stop_round < 0
    cdef double value, memory_value = -INFINITY
    cdef Record* memory = NULL
    cdef Record* found = NULL
    cdef Line best
    if level == 0 and rec == NULL:
        return play_policy(s, pol, stop_round)
    if memorize:
        memory = <Record*>malloc(sizeof(Record))
        found = <Record*>malloc(sizeof(Record))
        if memory == NULL or found == NULL:
            free(memory)
            free(found)
            return -1
        memory.n = 0
    while s.phase != PH_OVER and not (stop_round >= 0 and s.round >= stop_round and s.phase == PH_START):
        if chance_kind(s) != CK_NONE:
            action = _sample_chance(s, rng)
        elif level == 0:
            action = policy_step(pol, s)
        else:
            n = legal_actions(s, legal)
            action = _planned(pol, legal, n) if not memorize else -1
            if action < 0 and n > 1 and _any_place(legal, n):
                if pilot_choose(s, pol, rng, ps, level, &best, found, &value if memorize else NULL) < 0:
                    action = -2
                elif memorize and found.n > 0 and value > memory_value:
                    memcpy(memory, found, sizeof(Record))
                    memory_value, memory_pos = value, 0
                elif not memorize:
                    _follow(pol, &best)
                    action = best.actions[0]
            if action == -1 and memorize and memory_pos < memory.n:
                action = memory.actions[memory_pos]
                memory_pos += 1
            elif action == -1 and n == 1:
                action = legal[0]
            elif action == -1:
                action = _choose(pol, s, legal, n)
        if action < 0:
            free(memory)
            free(found)
            return -1
        apply_action(s, action)
        _observe(pol, action)
        _record(rec, action)
        steps += 1
    free(memory)
    free(found)
    return steps


cdef double _rollout(const GameState* s, const Line* line, int player, const Policy* outer, const PilotSettings* ps,
                     int level, uint64_t* pilot_rng, Record* rec) noexcept nogil:
    """The mover's value after `line` and the level-`level` pilot (0: the heuristic) playing on for
    `ps.horizon` rounds (0: to the end) with `ps.rollout_noise` on its policy's choices, the line and the
    playout's actions into `rec` (NULL: none); -INFINITY if memory ran out."""
    cdef GameState sim
    cdef Policy pol
    cdef double values[MAX_PLAYERS]
    cdef uint64_t rng = next_random(pilot_rng)
    cdef int k
    if rng == 0:
        rng = 1
    memcpy(&sim, s, sizeof(GameState))
    if rec != NULL:
        rec.n = 0
    for k in range(line.n):
        apply_action(&sim, line.actions[k])
        _record(rec, line.actions[k])
    _init_policy(&pol, outer.w, &rng, True, 12, outer.settle)
    # the noise is in points; with two or more players the policy compares tanh(lead / scale) values, in
    # which a point of lead near an even position is worth 1 / scale
    pol.noise = ps.rollout_noise if s.num_players == 1 else ps.rollout_noise / outer.w.scale
    if play_pilot(&sim, &pol, &rng, ps, level, sim.round + ps.horizon if ps.horizon else -1, rec) < 0:
        return -INFINITY
    evaluate(&sim, outer.w, values)
    return values[player]


cdef int pilot_choose(const GameState* s, Policy* pol, uint64_t* pilot_rng, const PilotSettings* ps, int level,
                      Line* best, Record* best_record, double* record_value) noexcept nogil:
    """At a placement: the best of the policy's `ps.candidates` whole-turn lines by the mean of `ps.rollouts`
    rollouts of the level-(`level` - 1) pilot (level 1: rollouts of the heuristic) into `best`; unless
    `best_record` is NULL, the actions of the single best rollout of any candidate (its line included) into
    `best_record` and its value into `record_value`. 0, or -1 if memory ran out."""
    cdef int legal[MAX_ACTIONS]
    cdef int n = legal_actions(s, legal), player = current_player(s), k, r
    cdef double value, one, top = -INFINITY, top_rollout = -INFINITY
    cdef Record* rec = NULL
    cdef Line* lines = <Line*>malloc(n * sizeof(Line))
    if lines == NULL:
        return -1
    if best_record != NULL:
        rec = <Record*>malloc(sizeof(Record))
        if rec == NULL:
            free(lines)
            return -1
    _turn_lines(s, legal, n, player, pol, pilot_rng, lines)
    memcpy(best, &lines[0], sizeof(Line))
    for k in range(min(ps.candidates, n)):
        value = 0.0
        for r in range(ps.rollouts):
            one = _rollout(s, &lines[k], player, pol, ps, level - 1, pilot_rng, rec)
            if one == -INFINITY:
                free(lines)
                free(rec)
                return -1
            value += one
            if rec != NULL and one > top_rollout:
                top_rollout = one
                memcpy(best_record, rec, sizeof(Record))
        value /= ps.rollouts
        if value > top:
            top = value
            memcpy(best, &lines[k], sizeof(Line))
    if record_value != NULL:
        record_value[0] = top_rollout
    free(lines)
    free(rec)
    return 0


# ------------------------------------------------------------------------------------------------
# The agents

def _seed_state(seed) -> int:
    """A Python int from any agent seed (int, SeedSequence or None), for the C generator."""
    return int(np.random.default_rng(seed).integers(1 << 62))


cdef class _FastPolicy:
    """The C policy with its generator and weights, for the Python-facing agents."""
    cdef Policy pol
    cdef uint64_t rng
    cdef CavernaWeights weights

    def __init__(self, seed: int, bint turn_lookahead, int max_turn_steps, CavernaWeights weights, bint settle,
                 double tie_noise=1e-9):
        self.rng = search_rng(seed)
        self.weights = weights
        _init_policy(&self.pol, &weights.w, &self.rng, turn_lookahead, max_turn_steps, settle)
        self.pol.noise = tie_noise

    def choose(self, state) -> tuple[int, list[int]]:
        """(action, line) at a decision past the plan with several legal actions; line is [] unless a whole
        turn was planned."""
        cdef CoreState cs = _compiled(state)
        cdef int legal[MAX_ACTIONS]
        cdef int n = legal_actions(&cs.s, legal), action
        self.pol.plan_n = self.pol.plan_pos = 0
        with nogil:
            action = _choose(&self.pol, &cs.s, legal, n)
        if action < 0:
            raise MemoryError()
        line = [self.pol.plan[k] for k in range(self.pol.plan_n)]
        self.pol.plan_n = 0
        return action, line

    def turn_lines(self, state, double noise=1e-9) -> list[tuple[float, list[int]]]:
        """(evaluation, line) of every legal action, best first, as CavernaHeuristicAgent.turn_lines (tie
        noise of this size from the policy's generator; 0: none, the first of equal values first)."""
        cdef CoreState cs = _compiled(state)
        cdef int legal[MAX_ACTIONS]
        cdef int n = legal_actions(&cs.s, legal), k, j
        cdef double kept = self.pol.noise
        cdef Line* lines = <Line*>malloc(max(n, 1) * sizeof(Line))
        if lines == NULL:
            raise MemoryError()
        self.pol.noise = noise
        try:
            with nogil:
                _turn_lines(&cs.s, legal, n, current_player(&cs.s), &self.pol, self.pol.rng, lines)
            return [(lines[k].value, [lines[k].actions[j] for j in range(lines[k].n)]) for k in range(n)]
        finally:
            self.pol.noise = kept
            free(lines)


def agent_weights(game, weights: CavernaWeights | str) -> CavernaWeights:
    """The C weights an agent plays with: given, or `tuned` / `hand` / a file path (`caverna_weights`)."""
    if isinstance(weights, CavernaWeights):
        return weights
    return make_weights(weights_for(game.num_players, weights))


def _check_range(agent: str, name: str, value: int, low: int, high: int | None = None) -> None:
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{agent}: {name} must be {allowed}; got {name}={value}")


class CavernaGreedyAgent(FollowsLines):
    """caverna_heuristic in C: placements valued by the whole turn played greedily, the rest one step greedy.

    `settle` (default: 1 from two players on, 0 solo) judges a one-step choice once what it leaves owing is done
    (`_settle`; measurements at `caverna_agents.SETTLE_STEPS`)."""

    name = "caverna_greedy"

    def __init__(self, game, seed=None, turn_lookahead: int = 1, max_turn_steps: int = 12,
                 weights: CavernaWeights | str = "tuned", tie_noise: float = 1e-9, settle: int | None = None):
        # tie_noise (not a spec option): 0 makes the first of equal values win, as tests need to compare
        # choices with the Python heuristic's exactly
        _check_range("caverna_greedy", "turn_lookahead", turn_lookahead, 0, 1)
        _check_range("caverna_greedy", "max_turn_steps", max_turn_steps, 0, MAX_TURN_STEPS)
        if settle is not None:
            _check_range("caverna_greedy", "settle", settle, 0, 1)
        self.game = game
        # caverna_agents.SETTLE_STEPS: by default from two players on
        self.settle = settles_by_default(game.num_players) if settle is None else bool(settle)
        self._seed = seed
        self.turn_lookahead = bool(turn_lookahead)
        self.max_turn_steps = max_turn_steps
        self.weights = agent_weights(game, weights)
        self.tie_noise = tie_noise
        self.reset()

    def reset(self) -> None:
        """Restart the generator from the seed and drop the plan."""
        self.policy = _FastPolicy(_seed_state(self._seed), self.turn_lookahead, self.max_turn_steps, self.weights,
                                  self.settle, self.tie_noise)
        self._plan: list[int] = []
        self._plan_history: list[int] = []

    def step(self, state) -> int:
        """The heuristic's action for the player to move."""
        legal = choosable_actions(state)
        planned = self.planned(state, legal)
        if planned is not None:
            return planned
        if len(legal) == 1:
            return int(legal[0])
        action, line = self.policy.choose(state)
        if line:
            self.follow(state, line)
        return action


@cython.final
cdef class _Pilot:
    """The pilot's generator and its C search at placements."""
    cdef uint64_t rng
    cdef PilotSettings settings
    cdef int level

    def __init__(self, seed: int, int candidates, int rollouts, int horizon, int level, double rollout_noise):
        self.rng = search_rng(seed)
        self.settings = PilotSettings(candidates=candidates, rollouts=rollouts, horizon=horizon,
                                      rollout_noise=rollout_noise)
        self.level = level

    def choose(self, state, _FastPolicy policy, bint record=False) -> tuple[list[int], list[int], float]:
        """(line, playout, value) at a placement: the line to follow (the best of the policy's candidates by
        rollouts) and, with `record`, the actions of the best single rollout (its line included; [] if it was
        too long to keep) with its value."""
        cdef CoreState cs = _compiled(state)
        cdef Line best
        cdef Record* rec = NULL
        cdef double value = -INFINITY
        cdef int status
        if record:
            rec = <Record*>malloc(sizeof(Record))
            if rec == NULL:
                raise MemoryError()
            rec.n = 0
        try:
            policy.pol.plan_n = policy.pol.plan_pos = 0
            with nogil:
                status = pilot_choose(&cs.s, &policy.pol, &self.rng, &self.settings, self.level, &best, rec,
                                      &value)
            if status < 0:
                raise MemoryError()
            playout = [rec.actions[k] for k in range(rec.n)] if rec != NULL else []
            return [best.actions[k] for k in range(best.n)], playout, value
        finally:
            free(rec)


class CavernaPilotAgent:
    """caverna_rollout in C: each placement's best few whole turns played out by the C heuristic (pilot method).

    At a placement the heuristic's whole-turn look-ahead ranks every space; the `candidates` best lines are each
    played out `rollouts` times with the C heuristic in every seat for `horizon` more rounds (0: to the end),
    valued by the C evaluator for the mover (exact returns when the game ends); the best mean wins and its
    line is followed. Every other decision is `caverna_greedy`'s. `level` nests the method (nested Monte
    Carlo search): at level 2 the rollouts are themselves played by the level-1 pilot in every seat, so each
    placement costs about `candidates` times a whole level-1 game's placements.

    Solo with rollouts to the end (`horizon=0`), every rollout is a whole game that replays exactly (the solo
    game has no chance), so the pilot keeps the best one found so far and follows it, replacing it only by a
    better one (nested Monte Carlo search's memorised sequence): it never ends below a game it has seen, and
    `best_found` is the score it is heading for. Each nested level does the same inside its rollouts.

    `settle` (0 or 1; default 1 from two players on, 0 solo: `caverna_agents.SETTLE_STEPS` has the measurements)
    makes the policy judge its one-step choices once what they leave owing is done, in the agent and its rollouts.

    `noise` (points, default 0: ties only; with two or more players points of lead, about noise / 15 in
    the policy's tanh values) is added to the rollout policies' choices as a uniform draw, so
    that repeated rollouts of a line differ: solo, with several `rollouts` a line, the memorised game is the
    best of more distinct games (without noise the rollouts of a line replay the same game). Measured solo, 3
    candidates, 4 seeded games each, CPU-s a game (2026-12-04, loaded 2-core box): level 1 78.0 in 0.2 s, with
    noise=1 and 8 rollouts 83.0 in 1.6 s (16: 83.2 in 3.2 s; 32: 83.2 in 6.7 s); level 2 84.8 in 5 s, with 2
    rollouts and noise 0.5 / 1 / 2: 84.5 / 91.5 / 89.2 in 18-20 s (3 rollouts: 88.0 in 42 s; 4 candidates:
    89.2 in 33 s). The solo presets use it; results/caverna_strength/report/ has them over 20 and 100 games.
    At two players it does not help (candidates=5, horizon=2, 2 rollouts, noise=1 against the same without
    noise: 48% of 60 duplicate games, seed 5, 40.2 points a seat to 45.0), so the other presets keep 0.
    Tried and dropped (2026-12-05, solo, a Python copy of the level-1 pilot with the shipped solo weights, 20
    games, agent seeds 1000-1019; 84.9 +- 0.3 s.e. at 3 candidates): more breadth, 6 and 12 candidates (85.1 and
    85.9 +- 0.6), and each candidate line joined by the lines that take the next 2 furnishings at its first
    furnishing (84.8): the greedy play-outs, not the candidates, bound the pilot.
    Two players (same day): `strongest` begs in 32 of its 200 games against caverna_rollout in the strength report
    (a family of 5-6 it cannot feed; it wins 56% of those games and 84% of the others), but charging the pilot's
    rollouts 6 or 20 more points a begging marker the mover takes (a scratch build) cut `hard`'s begging against
    `hard` from 10% of games to 3.5% and 1.5% without moving its lead (-1.0 and -1.7 +- 1.8 points against -1.2,
    200 duplicate games, seed 11): begging marks games already lost more than it loses them.
    Two players, play-outs to the end (2026-12-06, scratch script): `hard` with `horizon=0` against `hard` led by
    -12.4 +- 2.9 points (35% won, 40 duplicate games, seed 21): the greedy play-outs misjudge a whole game more
    than the evaluator misjudges the position two rounds on.
    """

    name = "caverna_pilot"

    def __init__(self, game, seed=None, candidates: int = 3, rollouts: int = 1, horizon: int = 0, level: int = 1,
                 weights: CavernaWeights | str = "tuned", noise: float = 0.0, settle: int | None = None):
        _check_range("caverna_pilot", "candidates", candidates, 1)
        _check_range("caverna_pilot", "rollouts", rollouts, 1)
        _check_range("caverna_pilot", "horizon", horizon, 0)
        _check_range("caverna_pilot", "level", level, 1, 3)
        if not 0.0 <= noise <= MAX_ROLLOUT_NOISE:
            raise ConfigError(f"caverna_pilot: noise must be 0..{MAX_ROLLOUT_NOISE:g} points; got noise={noise}")
        self.game = game
        self._seed = seed
        self.candidates, self.rollouts, self.horizon, self.level = candidates, rollouts, horizon, level
        self.noise = noise
        if settle is not None:
            _check_range("caverna_pilot", "settle", settle, 0, 1)
        self.settle = settle
        self.weights = agent_weights(game, weights)
        # solo rollouts to the end are whole games that replay exactly: keep the best one (see step)
        self.memorize = game.num_players == 1 and horizon == 0
        self.reset()

    def reset(self) -> None:
        """Restart the generators from the seed and forget the remembered game."""
        self._memory: list[int] = []
        self._memory_value = -math.inf
        rng = np.random.default_rng(self._seed)
        self.pilot = _Pilot(int(rng.integers(1 << 62)), self.candidates, self.rollouts, self.horizon, self.level,
                            self.noise if self.noise > 0 else TIE_NOISE)
        self.policy = CavernaGreedyAgent(self.game, seed=int(rng.integers(1 << 62)), weights=self.weights,
                                         settle=self.settle)

    def step(self, state) -> int:
        """The pilot's action for the player to move."""
        policy = self.policy
        legal = choosable_actions(state)
        placing = len(legal) > 1 and any(KIND[a] == K_PLACE for a in legal)
        if self.memorize:
            return self._memorized_step(state, legal, placing)
        if not placing:
            return policy.step(state)
        planned = policy.planned(state, legal)
        if planned is not None:
            return planned
        return policy.follow(state, self.pilot.choose(state, policy.policy)[0])

    @property
    def best_found(self) -> float | None:
        """Solo to the end: the final score of the game being followed (the best found so far); else None."""
        return self._memory_value if self.memorize and self._memory else None

    def _memorized_step(self, state, legal: list[int], placing: bool) -> int:
        """Solo to the end: the next action of the best game found so far, which a placement's rollouts may
        replace by a better one (the game has no chance, so replaying a playout scores what it scored)."""
        history = list(state.history())
        memory = self._memory
        valid = len(memory) > len(history) and memory[:len(history)] == history
        if placing:
            _, playout, value = self.pilot.choose(state, self.policy.policy, record=True)
            if playout and (not valid or value > self._memory_value):
                memory, valid = history + playout, True
                self._memory, self._memory_value = memory, value
        if not valid:                   # before the first placement, or a state the agent did not play to
            self._memory, self._memory_value = [], -math.inf
            return self.policy.step(state)
        action = memory[len(history)]
        if action not in legal:
            raise AssertionError(f"caverna_pilot: the remembered action {action} is not legal here")
        return action


# ------------------------------------------------------------------------------------------------
# Playouts and the measurement

def heuristic_playouts(state, int count, seed) -> list[list[float]]:
    """Play `count` games on from `state` with the C heuristic in every seat (in C); each game's returns."""
    cdef CoreState cs = _compiled(state)
    cdef GameState sim
    cdef uint64_t rng = search_rng(_seed_state(seed))
    cdef double out[MAX_PLAYERS]
    cdef int i, steps
    results = []
    for i in range(count):
        memcpy(&sim, &cs.s, sizeof(GameState))
        with nogil:
            steps = heuristic_playout(&sim, &rng)
        if steps < 0:
            raise MemoryError()
        returns(&sim, out)
        results.append([out[k] for k in range(cs.s.num_players)])
    return results


register_agent("caverna_greedy", CavernaGreedyAgent,
               {"turn_lookahead": int, "max_turn_steps": int, "weights": WEIGHTS_OPTION, "settle": int},
               game=SPEC.name)
register_agent("caverna_pilot", CavernaPilotAgent,
               {"candidates": int, "rollouts": int, "horizon": int, "level": int, "weights": WEIGHTS_OPTION,
                "noise": float, "settle": int}, game=SPEC.name)
