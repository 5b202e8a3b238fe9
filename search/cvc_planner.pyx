"""The Cave vs Cave planner: whole turns chosen by playing each candidate out on many sampled futures.

Solo Cave vs Cave is a one-player game against the shuffle: which action tile each round turns up and which
room lies under each space and in the draw pile. The planner chooses a segment (the rest of the mover's turn,
or up to a room turned up inside it; see `cvc_segments`) like this:
1. Candidates: the segment ends in `SegmentEnumerator.rank_ends` order (each tile's best line by the value
   first, then each tile's second best, ...), the first `candidates` of them.
2. Futures: `futures` deals sampled from what the mover does not know yet (`sample_future`: the stages'
   tiles still face down in random order, the rooms not yet seen shuffled onto the face-down spaces and the
   draw pile), the same futures for every candidate, so candidates are compared on equal luck.
3. Each candidate is played out to the end of the game on each future by the greedy policy (every later
   segment chosen by the value, with the rooms it turns up averaged, not peeked at; chance taken from the
   future), and scored by its mean final result: solo the final score, with two players the mean of
   tanh(score lead / scale) (both seats play greedily in the play-outs).
Told the real deal (`deal=`, the clairvoyant ceiling), every future is that deal, so the planner shows the
best its play-outs find when nothing is hidden. The play-outs choose by the hand-written heuristic unless `value`
names another (`learned`, or a value file; see `cvc_evaluation`).

Measured (solo, 2026-12-02, a loaded 2-core machine): `cvc_plan` scores 50.0 over 20 deals (seed 0) at about
23 CPU-s a game, against 43.4 for its greedy play-out policy alone; told the deal, 52.0 on the same deals.
The play-out policy bounds it: choosing the first turn well cannot make up for greedy play after it.

Tried and dropped (2026-12-02): a turn-synchronised beam search on the true deal (the `width` best distinct
positions after each turn by the value, plus the best line from each root candidate) as a second ceiling.
Over 10 deals (seed 0), heuristic value: width 1 42.3 points, 4 45.0, 16 45.8, 64 50.0 (3.2 CPU-s a deal),
256 52.2 (11.6 CPU-s); with the learned value of that day (the fit alone, before the policy search) 45.4,
46.7 and 48.0 at widths 4, 16 and 64. Wider search told
everything lands where this planner told the deal does (52.0), so the value, not the search, is the limit;
the beam added nothing the planner lacks and was removed.

Tried and dropped (2026-12-05, learned value, paired with `strongest` = 8 candidates x 8 futures on the strength
report's solo deals of seed 0, whose 200 deals score 52.9; paired mean +- standard error): 16 candidates x 4
futures (the same play-outs) lose 2.2 +- 0.6 points (20 deals: picking among more ends on fewer futures picks
noise); 4 candidates x 16 futures +0.6 +- 1.2 (15 deals); successive halving (8 candidates on 5 futures, the better
half on 5 more, then the best two on 5 more: 70 play-outs) -0.7 +- 1.0 (16 deals). Told the deal, the same planner
scores 56.0 [55.6, 56.4] on the 200 deals (+3.1 [2.6, 3.6] over not told). Refining the shipped value by 15 more
cross-entropy generations (`train_value.policy_search` from it, 24 candidates x 100 deals a generation, 28 CPU-min)
lifts greedy play from 48.7 to 49.1 on 600 other deals: the linear value has about reached what greedy play with it
can score, and the greedy play-outs, not the allocation of play-outs or the hidden deal, bound the planner.
"""
cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport tanh
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memcpy

from cavekit.core.cvc.compiled cimport (DEAL_DRAW_PILE, DEAL_REMOVED_LIGHT_ROOMS, DEAL_ROOMS, DEAL_START_PLAYER,
                                        DEAL_TILES_STAGE_2, FACE_DOWN_PER_BOARD, MAX_DEAL_ITEMS,
                                        NUM_DEAL_COMPONENTS, GameState, apply_action, current_player,
                                        is_terminal, scores)
from cavekit.search.cvc_evaluation cimport CaveMemo, Evaluator, make_evaluator, use_memo
from cavekit.search.cvc_future cimport Future, future_outcome, load_future
from cavekit.search.cvc_segments cimport SegmentEnumerator, now, position_value, state_struct

import numpy as np

from ..core.api import ConfigError
from ..core.cvc.deal import DRAW_PILE, REMOVED_LIGHT_ROOMS, ROOMS, START_PLAYER, face_down_stages, tiles_component
from ..core.cvc.rules import DARK_ROOMS, FACE_DOWN_SPACES, SOLO_PILE_SIZE, rules, stage_tiles
from ..core.cvc.spec import SPEC
from .agent import register_agent
from .cvc_segment_agent import SegmentPlanAgent
from .cvc_value import VALUE_OPTION

cdef enum:
    CHANCE = -1


cdef int greedy_end(SegmentEnumerator e, const GameState* s, const Evaluator* ev) noexcept nogil:
    """Enumerate the mover's segments from `s` and return the index of the end the value likes best."""
    cdef int i, best = -1, player = current_player(s)
    cdef double out[2]
    cdef double value, best_value = -1e300
    e.run(s)
    for i in range(e.n):
        if e.is_end[i]:
            position_value(&e.states[i], out, ev)
            value = out[player]
            if value > best_value:
                best, best_value = i, value
    return best


cdef double final_result(const GameState* s, int player, double scale) noexcept nogil:
    """Solo (or with `scale` 0): the player's final score; two players: tanh(the player's score lead / scale)."""
    cdef int points[2]
    scores(s, points)
    if s.num_players == 1 or scale <= 0:
        return points[player]
    return tanh((points[player] - points[1 - player]) / scale)


cdef double play_out(GameState* s, const Future* f, SegmentEnumerator e, const Evaluator* ev, int player,
                     double scale) noexcept nogil:
    """Play `s` to the end greedily on the future `f`; the final result for `player`."""
    cdef int end
    while not is_terminal(s):
        if current_player(s) == CHANCE:
            apply_action(s, future_outcome(s, f))
            continue
        end = greedy_end(e, s, ev)
        memcpy(s, &e.states[end], sizeof(GameState))
    return final_result(s, player, scale)


def sample_future(state, rng) -> np.ndarray:
    """A deal (as a NUM_DEAL_COMPONENTS x MAX_DEAL_ITEMS array) that agrees with everything `state` has shown:
    the tiles and rooms turned up stay where they were, the rest is shuffled uniformly."""
    d = state.to_dict()
    players = len(d["players"])
    future = np.zeros((NUM_DEAL_COMPONENTS, MAX_DEAL_ITEMS), dtype=np.int8)
    r = rules()
    for stage in face_down_stages(players):
        shown = [t for t in d["revealed_tiles"] if r.tiles[t].stage == stage]
        hidden = [t for t in stage_tiles(stage, players) if t not in shown]
        future[DEAL_TILES_STAGE_2 + stage - 2, :len(shown) + len(hidden)] = shown + list(rng.permutation(hidden))
    unseen = [room for room in DARK_ROOMS if d["pool"] >> room & 1]
    slots = []                                  # (component, item) of every room not yet turned up
    for seat, board in enumerate(d["players"]):
        for k, space in enumerate(FACE_DOWN_SPACES):
            if board["spaces"][space] == -1 or d["pending_spaces"] >> space & 1:
                slots.append((DEAL_ROOMS, seat * FACE_DOWN_PER_BOARD + k))
    if players == 1:
        slots += [(DEAL_DRAW_PILE, k) for k in range(SOLO_PILE_SIZE - d["pile"], SOLO_PILE_SIZE)]
    if len(slots) != len(unseen):
        raise ValueError(f"{len(unseen)} rooms unseen but {len(slots)} places hide one: not a position of play")
    for (component, item), room in zip(slots, rng.permutation(unseen)):
        future[component, item] = room
    return future


def future_of_deal(deal) -> np.ndarray:
    """The whole deal `deal` (a cavekit.core.deal.Deal of Cave vs Cave) as a future."""
    future = np.zeros((NUM_DEAL_COMPONENTS, MAX_DEAL_ITEMS), dtype=np.int8)
    rows = {START_PLAYER: DEAL_START_PLAYER, REMOVED_LIGHT_ROOMS: DEAL_REMOVED_LIGHT_ROOMS, ROOMS: DEAL_ROOMS,
            DRAW_PILE: DEAL_DRAW_PILE}
    rows.update({tiles_component(stage): DEAL_TILES_STAGE_2 + stage - 2 for stage in (2, 3, 4)})
    for name, outcomes in deal.components.items():
        future[rows[name], :len(outcomes)] = outcomes
    return future


@cython.final
cdef class Planner:
    """One planner search (see the module docstring)."""

    cdef SegmentEnumerator roots, playouts
    cdef Evaluator ev
    cdef CaveMemo memos[2]               # the evaluator's memo of each seat's cave facts
    cdef public int candidates
    cdef public double scale
    cdef public double last_seconds
    cdef public long playout_count

    def __init__(self, int candidates=8, int max_states=20000, str value="heuristic", int players=1,
                 bint own_score=False):
        if candidates < 1 or max_states < 1:
            raise ConfigError("cvc_plan: candidates and max_states must be at least 1")
        self.candidates = candidates
        self.roots = SegmentEnumerator(max_states)
        self.playouts = SegmentEnumerator(max_states)
        self.ev = make_evaluator(value, players)
        use_memo(&self.ev, self.memos)
        self.scale = 0.0 if own_score else self.ev.scale    # own_score: play-outs score the mover's points

    def search(self, state, const int8_t[:, :, ::1] futures) -> list:
        """Each candidate segment from `state` with its mean result over the futures, best first."""
        cdef const GameState* root = state_struct(state)
        cdef GameState s
        cdef Future* f = <Future*>PyMem_Malloc(futures.shape[0] * sizeof(Future))
        cdef int n, kept, i, k, index, player = current_player(root)
        cdef double total, started = now()
        if player < 0:
            raise ValueError("cvc_plan searches from a position where a player is to move")
        if futures.shape[1] != NUM_DEAL_COMPONENTS or futures.shape[2] != MAX_DEAL_ITEMS or futures.shape[0] < 1:
            raise ValueError("futures must be an array of shape (n >= 1, NUM_DEAL_COMPONENTS, MAX_DEAL_ITEMS)")
        if not f:
            raise MemoryError()
        try:
            for k in range(futures.shape[0]):
                load_future(futures[k], &f[k])
            self.roots.run(root)
            n = self.roots.rank_ends(player, &self.ev)
            kept = n if n < self.candidates else self.candidates
            children = []
            self.playout_count = 0
            for i in range(kept):
                index = self.roots.ranked[i].index
                total = 0.0
                with nogil:
                    for k in range(futures.shape[0]):
                        memcpy(&s, &self.roots.states[index], sizeof(GameState))
                        total += play_out(&s, &f[k], self.playouts, &self.ev, player, self.scale)
                self.playout_count += futures.shape[0]
                children.append({"actions": self.roots.path(index), "value": total / futures.shape[0],
                                 "rank": i})
        finally:
            PyMem_Free(f)
        children.sort(key=lambda child: (-child["value"], child["rank"]))
        self.last_seconds = now() - started
        return children


@cython.final
cdef class GreedyPolicy:
    """The planner's play-out policy for Python callers (self-play for training the value): the segment
    ends the value likes best."""

    cdef SegmentEnumerator enumerator
    cdef Evaluator ev
    cdef CaveMemo memos[2]               # the evaluator's memo of each seat's cave facts

    def __init__(self, str value="heuristic", int players=1, int max_states=20000):
        self.enumerator = SegmentEnumerator(max_states)
        self.ev = make_evaluator(value, players)
        use_memo(&self.ev, self.memos)

    def best_segments(self, state, int k=1) -> list:
        """The action lists of the `k` best segments from `state` by the value (a room turned up inside
        them counted as the average over the rooms it could be), best first."""
        cdef const GameState* s = state_struct(state)
        cdef int i, player = current_player(s)
        cdef double out[2]
        if player < 0:
            raise ValueError("the policy chooses where a player is to move")
        self.enumerator.run(s)
        ends = []
        for i in range(self.enumerator.n):
            if self.enumerator.is_end[i]:
                position_value(&self.enumerator.states[i], out, &self.ev)
                ends.append((-out[player], i))
        ends.sort()
        return [self.enumerator.path(i) for _, i in ends[:k]]


class PlannerAgent(SegmentPlanAgent):
    """Plays each candidate turn out on sampled futures and keeps the best (see cvc_planner).

    Spec `cvc_plan:candidates=K,futures=F,value=V,max_states=M` (defaults 8, 8, heuristic, 20000): K segment
    ends tried per decision, F futures each is played out on, V the value of the play-outs' greedy choices
    (`learned`, `heuristic` or a value file), M the positions one segment enumeration may visit. `deal=` (from
    Python only) tells it the real deal: every future is that deal (the clairvoyant ceiling).
    """

    name = "cvc_plan"
    describe = "play-outs of candidate turns on sampled futures"

    def __init__(self, game, seed=None, candidates=8, futures=8, value="heuristic", max_states=20000, deal=None):
        if futures < 1:
            raise ConfigError(f"cvc_plan: futures must be at least 1, not {futures}")
        settings = dict(candidates=candidates, value=value, max_states=max_states, players=game.num_players)
        Planner(**settings)      # refuse bad settings now
        self.futures = futures
        self.deal = deal
        super().__init__(game, seed, settings)

    def _run_search(self, state, seed):
        rng = np.random.default_rng(seed)
        if self.deal is not None:
            futures = np.stack([future_of_deal(self.deal)])
        else:
            futures = np.stack([sample_future(state, rng) for _ in range(self.futures)])
        planner = Planner(**self.settings)
        children = planner.search(state, futures)
        budget = (f"{self.describe}, {planner.playout_count:,} play-outs in {planner.last_seconds:.2f} s")
        return children, {"playouts": planner.playout_count, "seconds": planner.last_seconds,
                          "children": len(children)}, budget

    def best_first(self, children):
        return children          # the search sorts them by mean result


register_agent("cvc_plan", PlannerAgent,
               {"candidates": int, "futures": int, "value": VALUE_OPTION, "max_states": int}, game=SPEC.name)


def dealt_outcome(state, const int8_t[:, ::1] future) -> int:
    """The outcome `future` deals at the chance node `state` is at (what the play-outs apply there)."""
    cdef const GameState* s = state_struct(state)
    cdef Future f
    if current_player(s) != CHANCE:
        raise ValueError("the position is not a chance node")
    load_future(future, &f)
    return future_outcome(s, &f)
