"""The compiled engine of The Cave (Pairs deck): `reference.py` on one C struct, for search and large batches.

Read it beside `reference.py`: each C function carries the name of the reference method it mirrors
(`play` for `_play`, `end_round` for `_end_round`, ...). Where the reference returns a reason, the C
function returns only yes or no; error messages come from the reference engine on the same position, so
both engines explain an illegal move in the same words. The deck make-up comes from the same rules table.
"""
cimport cython
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, uint64_t
from cavekit.core.compiled_common cimport random_below, seed_generator
from cavekit.core.engine cimport Engine

from ..api import CHANCE as PY_CHANCE, as_action
from .state import StateMixin
from .reference import ReferenceState
from .rules import rules

# ------------------------------------------------------------------------------------------------
# Constants (the same values as in api.py, game.py and reference.py)

cdef enum:
    CHANCE = -1
    TERMINAL = -4
    KIND_DEALER = 0
    KIND_BURN = 1
    KIND_DEAL = 2
    KIND_CAVE = 3
    KIND_REFILL = 4
    KIND_PLAY = 5
    KIND_TERMINAL = 6
    KIND_STRIDE = 8

cdef int8_t COPIES[NUM_RANKS]
cdef int DECK_TOTAL


def _load_tables():
    global DECK_TOTAL
    r = rules()
    for i in range(NUM_RANKS):
        COPIES[i] = r.copies[i]
    DECK_TOTAL = r.total


_load_tables()


# ------------------------------------------------------------------------------------------------
# Setup (ReferenceState.__init__, _start_round)

cdef void start_round(GameState* s) noexcept nogil:
    memset(s.hands, 0, sizeof(s.hands))
    memset(s.captured, 0, sizeof(s.captured))
    memset(s.played, 0, sizeof(s.played))
    memset(s.cave, 0, sizeof(s.cave))
    memset(s.burned, 0, sizeof(s.burned))
    memcpy(s.deck, COPIES, sizeof(s.deck))
    s.deck_size = DECK_TOTAL
    s.cave_count = 0
    s.dealt = 0
    s.turn = 0
    s.refills_pending = 0


cdef void init_state(GameState* s, Config cfg, int first_dealer) noexcept nogil:
    memset(s, 0, sizeof(GameState))
    s.cfg = cfg
    s.first_dealer = first_dealer
    start_round(s)


# ------------------------------------------------------------------------------------------------
# Whose move (dealer, is_terminal, is_chance_node, current_player, node_kind, _deal_recipient)

cdef inline int dealer(const GameState* s) noexcept nogil:
    cdef int r = s.round
    if s.first_dealer < 0:
        return -1
    if r > s.cfg.num_rounds - 1:
        r = s.cfg.num_rounds - 1
    return (s.first_dealer + r) % s.cfg.num_players


cdef bint is_terminal(const GameState* s) noexcept nogil:
    return s.round >= s.cfg.num_rounds


cdef bint is_chance_node(const GameState* s) noexcept nogil:
    return not is_terminal(s) and (s.first_dealer < 0 or s.dealt < s.cfg.setup_cards or s.refills_pending > 0)


cdef int current_player(const GameState* s) noexcept nogil:
    if is_terminal(s):
        return TERMINAL
    if is_chance_node(s):
        return CHANCE
    return (dealer(s) + 1 + s.turn) % s.cfg.num_players


cdef inline int deal_recipient(const GameState* s) noexcept nogil:
    return (dealer(s) + 1 + s.dealt - s.cfg.burn_cards) % s.cfg.num_players


cdef int node_kind(const GameState* s) noexcept nogil:
    if is_terminal(s):
        return KIND_TERMINAL * KIND_STRIDE
    if s.first_dealer < 0:
        return KIND_DEALER * KIND_STRIDE
    if s.dealt < s.cfg.burn_cards:
        return KIND_BURN * KIND_STRIDE
    if s.dealt < s.cfg.burn_cards + s.cfg.num_players * s.cfg.hand_size:
        return KIND_DEAL * KIND_STRIDE + deal_recipient(s)
    if s.dealt < s.cfg.setup_cards:
        return KIND_CAVE * KIND_STRIDE
    if s.refills_pending:
        return KIND_REFILL * KIND_STRIDE
    return KIND_PLAY * KIND_STRIDE + current_player(s)


# ------------------------------------------------------------------------------------------------
# Chance (chance_outcomes, _apply_chance)

cdef int chance_outcomes(const GameState* s, int* out) noexcept nogil:
    """The outcome ids of a chance node (seats, or ranks left in the deck); their number."""
    cdef int n = 0, i
    if not is_chance_node(s):
        return 0
    if s.first_dealer < 0:
        for i in range(s.cfg.num_players):
            out[i] = i
        return s.cfg.num_players
    for i in range(NUM_RANKS):
        if s.deck[i]:
            out[n] = i
            n += 1
    return n


cdef void apply_chance(GameState* s, int outcome) noexcept nogil:
    if s.first_dealer < 0:
        s.first_dealer = outcome
        return
    s.deck[outcome] -= 1
    s.deck_size -= 1
    if s.dealt < s.cfg.burn_cards:
        s.burned[outcome] += 1
        s.dealt += 1
    elif s.dealt < s.cfg.burn_cards + s.cfg.num_players * s.cfg.hand_size:
        s.hands[deal_recipient(s)][outcome] += 1
        s.dealt += 1
    elif s.dealt < s.cfg.setup_cards:
        s.cave[outcome] += 1
        s.cave_count += 1
        s.dealt += 1
    else:
        s.cave[outcome] += 1
        s.cave_count += 1
        s.refills_pending -= 1


# ------------------------------------------------------------------------------------------------
# Legal actions (legal_actions, illegal_reason)

cdef int legal_actions(const GameState* s, int* out) noexcept nogil:
    cdef int player = current_player(s), n = 0, i
    if player == TERMINAL:
        return 0
    if player == CHANCE:
        return chance_outcomes(s, out)
    for i in range(NUM_RANKS):
        if s.hands[player][i]:
            out[n] = i
            n += 1
    return n


cdef bint is_legal(const GameState* s, int action) noexcept nogil:
    cdef int player = current_player(s)
    if player == TERMINAL:
        return False
    if player == CHANCE:
        if s.first_dealer < 0:
            return 0 <= action < s.cfg.num_players
        return 0 <= action < NUM_RANKS and s.deck[action] > 0
    return 0 <= action < NUM_RANKS and s.hands[player][action] > 0


# ------------------------------------------------------------------------------------------------
# Applying actions (apply_action, _play, _end_round; rules.capture_target, rules.round_points)

cdef int capture_target(const int8_t* cave, int played) noexcept nogil:
    cdef int rank
    for rank in range(played - 1, -1, -1):
        if cave[rank]:
            return rank
    for rank in range(NUM_RANKS - 1, -1, -1):
        if cave[rank]:
            return rank
    return -1


cdef void round_points(const GameState* s, int* out) noexcept nogil:
    cdef int n = s.cfg.num_players, p, rank, most
    for p in range(n):
        out[p] = 0
    for rank in range(NUM_RANKS):
        most = 0
        for p in range(n):
            if s.captured[p][rank] > most:
                most = s.captured[p][rank]
        if most == 0:
            continue
        for p in range(n):
            if s.captured[p][rank] == most:
                out[p] += most


cdef void end_round(GameState* s, int last_player) noexcept nogil:
    cdef int points[MAX_PLAYERS]
    cdef int p, rank
    if s.cfg.score_leftover:
        for rank in range(NUM_RANKS):
            s.captured[last_player][rank] += s.cave[rank]
            s.cave[rank] = 0
        s.cave_count = 0
    round_points(s, points)
    for p in range(s.cfg.num_players):
        s.round_scores[s.round][p] = points[p]
        s.totals[p] += points[p]
    s.round += 1
    if not is_terminal(s):
        start_round(s)


cdef void play(GameState* s, int player, int rank) noexcept nogil:
    cdef int target, room
    s.hands[player][rank] -= 1
    s.played[player][rank] += 1
    target = capture_target(s.cave, rank)
    s.captured[player][target] += s.cave[target]
    s.cave_count -= s.cave[target]
    s.cave[target] = 0
    s.cave[rank] += 1
    s.cave_count += 1
    s.turn += 1
    if s.turn == s.cfg.num_players * s.cfg.hand_size:
        end_round(s, player)
    else:
        room = s.cfg.cave_size - s.cave_count
        if room < 0:
            room = 0
        s.refills_pending = room if room < s.deck_size else s.deck_size


cdef void apply_action(GameState* s, int action) noexcept nogil:
    """Apply a legal action (check it with is_legal first)."""
    cdef int player = current_player(s)
    if player == CHANCE:
        apply_chance(s, action)
    else:
        play(s, player, action)


cdef void returns(const GameState* s, double* out) noexcept nogil:
    """StateMixin.returns in C: winners share (n - k) / (k (n - 1)), the others get -1 / (n - 1)."""
    cdef int n = s.cfg.num_players, p, best = -1, top = -1, k = 0
    cdef bint winner[MAX_PLAYERS]
    for p in range(n):
        out[p] = 0.0
    if not is_terminal(s):
        return
    for p in range(n):
        if s.totals[p] > best:
            best = s.totals[p]
    for p in range(n):
        winner[p] = s.totals[p] == best
        if winner[p]:
            k += 1
    if k > 1 and s.cfg.tie_final_round:
        for p in range(n):
            if winner[p] and s.round_scores[s.cfg.num_rounds - 1][p] > top:
                top = s.round_scores[s.cfg.num_rounds - 1][p]
        k = 0
        for p in range(n):
            winner[p] = winner[p] and s.round_scores[s.cfg.num_rounds - 1][p] == top
            if winner[p]:
                k += 1
    for p in range(n):
        out[p] = (n - k) / <double>(k * (n - 1)) if winner[p] else -1.0 / (n - 1)


# ------------------------------------------------------------------------------------------------
# Random playouts in C (the shared xorshift64* generator of compiled_common.pxd, seeded by seed_generator)

cdef int sample_chance(const GameState* s, uint64_t* rng) noexcept nogil:
    """A chance outcome drawn with its probability (a seat uniformly, or a rank by copies left in the deck)."""
    cdef int u, rank
    if s.first_dealer < 0:
        return random_below(rng, s.cfg.num_players)
    u = random_below(rng, s.deck_size)
    for rank in range(NUM_RANKS):
        u -= s.deck[rank]
        if u < 0:
            return rank
    return NUM_RANKS - 1


cdef int chance_probabilities(const GameState* s, int* out, double* probabilities) noexcept nogil:
    """The outcomes of a chance node and their probabilities (a seat uniformly, a rank by the copies left in
    the deck); their number."""
    cdef int n = chance_outcomes(s, out), i
    for i in range(n):
        probabilities[i] = 1.0 / n if s.first_dealer < 0 else <double>s.deck[out[i]] / s.deck_size
    return n


cdef inline int draw_rank(int8_t* pool, int* size, uint64_t* rng) noexcept nogil:
    """One card drawn uniformly from `pool` (counts per rank, `size` cards), taken out of it; its rank."""
    cdef int u = random_below(rng, size[0]), rank
    for rank in range(NUM_RANKS):
        u -= pool[rank]
        if u < 0:
            break
    pool[rank] -= 1
    size[0] -= 1
    return rank


cdef void resample(GameState* s, int player, uint64_t* rng) noexcept nogil:
    """StateMixin.resample_from_infostate for search, in C: the cards `player` cannot see (the other hands
    unless hands are open, the burned cards, the deck) pooled and dealt again at random, each hand keeping its
    size. The unseen cards lie in a uniformly random arrangement given what `player` saw (the argument is in
    resample_from_infostate's docstring), so this draws a position from the same distribution; earlier rounds
    are not redrawn, since nothing of them but the public scores bears on the rest of the match."""
    cdef int8_t pool[NUM_RANKS]
    cdef int counts[MAX_PLAYERS]
    cdef int size = 0, burned = 0, q, r, k
    if is_terminal(s) or s.first_dealer < 0:
        return
    for r in range(NUM_RANKS):
        pool[r] = s.deck[r] + s.burned[r]
        burned += s.burned[r]
        s.burned[r] = 0
    for q in range(s.cfg.num_players):
        counts[q] = 0
        if q == player or s.cfg.hands_open:
            continue
        for r in range(NUM_RANKS):
            counts[q] += s.hands[q][r]
            pool[r] += s.hands[q][r]
            s.hands[q][r] = 0
    for r in range(NUM_RANKS):
        size += pool[r]
    for k in range(burned):
        s.burned[draw_rank(pool, &size, rng)] += 1
    for q in range(s.cfg.num_players):
        for k in range(counts[q]):
            s.hands[q][draw_rank(pool, &size, rng)] += 1
    memcpy(s.deck, pool, sizeof(s.deck))


# ------------------------------------------------------------------------------------------------
# The engine interface (core/engine.pxd): the functions above on an opaque position, for the compiled searches

cdef int engine_current_player(const void* s) noexcept nogil:
    return current_player(<const GameState*>s)


cdef int engine_legal_actions(const void* s, int* out) noexcept nogil:
    return legal_actions(<const GameState*>s, out)


cdef int engine_chance_outcomes(const void* s, int* out, double* probabilities) noexcept nogil:
    return chance_probabilities(<const GameState*>s, out, probabilities)


cdef void engine_apply_action(void* s, int action) noexcept nogil:
    apply_action(<GameState*>s, action)


cdef void engine_returns(const void* s, double* out) noexcept nogil:
    returns(<const GameState*>s, out)


cdef void engine_resample(void* s, int player, uint64_t* rng) noexcept nogil:
    resample(<GameState*>s, player, rng)


cdef int random_playout(GameState* s, uint64_t* rng) noexcept nogil:
    """Play uniformly random legal actions (and chance outcomes by probability) to the end; the steps."""
    cdef int buffer[NUM_RANKS]
    cdef int steps = 0, n
    while not is_terminal(s):
        if is_chance_node(s):
            apply_chance(s, sample_chance(s, rng))
        else:
            n = legal_actions(s, buffer)
            play(s, current_player(s), buffer[random_below(rng, n)])
        steps += 1
    return steps


# ------------------------------------------------------------------------------------------------
# The Python-facing state

cdef Config make_c_config(object config):
    cdef Config c
    memset(&c, 0, sizeof(Config))
    c.num_players = config.players
    c.hand_size = config.hand_size
    c.cave_size = config.cave_size
    c.burn_cards = config.burn_cards
    c.num_rounds = config.num_rounds
    c.setup_cards = config.setup_cards
    c.tie_final_round = config.tie_break == "final_round"
    c.score_leftover = config.score_leftover
    c.hands_open = config.hand_visibility != "hidden"
    return c


@cython.auto_pickle(False)
cdef class CoreState(CompiledStateBase):
    """A position of The Cave held in one C struct (`GameState`); the API of `cavekit.core.api.State`.

    Its fields (`s`, `_kinds`; `_hist` and `_game` from CompiledStateBase) are declared in .pxd files so compiled
    searchers can reach `s`.
    """

    def __init__(self, game):
        config = game.config
        self._game = game
        self._hist = []
        self._kinds = []
        init_state(&self.s, make_c_config(config),
                   -1 if config.first_dealer == "random" else int(config.first_dealer))

    # whose move
    def current_player(self):
        return current_player(&self.s)

    def is_terminal(self):
        return is_terminal(&self.s)

    def is_chance_node(self):
        return is_chance_node(&self.s)

    def node_kind(self):
        """What this node is: kind * KIND_STRIDE + the player concerned (see game.KIND_*)."""
        return node_kind(&self.s)

    def dealer(self):
        return dealer(&self.s)

    def deck_size(self):
        return self.s.deck_size

    # moves
    def chance_outcomes(self):
        cdef int buffer[NUM_RANKS]
        cdef double probabilities[NUM_RANKS]
        cdef int n = chance_probabilities(&self.s, buffer, probabilities), i
        return [(buffer[i], probabilities[i]) for i in range(n)]

    def legal_actions(self):
        cdef int buffer[NUM_RANKS]
        cdef int n = legal_actions(&self.s, buffer), i
        return [buffer[i] for i in range(n)]

    def illegal_reason(self, action):
        """Why `action` is illegal here, or None: asked of the reference engine on the same position."""
        return ReferenceState.from_dict(self._game, self.to_dict(), self._hist, self._kinds).illegal_reason(action)

    def _refuse(self, action):
        reference = ReferenceState.from_dict(self._game, self.to_dict(), self._hist, self._kinds)
        reference.apply_action(action)   # raises the reference's IllegalActionError
        raise AssertionError(f"engines disagree on action {action}: the reference finds it legal")

    def apply_action(self, action):
        """Apply a legal action; an illegal one raises IllegalActionError (same message as the reference)."""
        index = action if type(action) is int else as_action(action)   # plain ints skip the general check
        if index is None or not -1 < index < 64 or not is_legal(&self.s, index):
            self._refuse(action)
        self._kinds.append(node_kind(&self.s))
        apply_action(&self.s, index)
        self._hist.append(index)

    def apply_all(self, actions):
        """Apply a sequence of actions (a replay), each checked; stops at the first illegal one with its error."""
        cdef int index
        for action in actions:
            if type(action) is not int or not -1 < action < 64:
                self.apply_action(action)      # anything unusual takes the fully checked path
                continue
            index = action
            if not is_legal(&self.s, index):
                self._refuse(action)
            self._kinds.append(node_kind(&self.s))
            apply_action(&self.s, index)
            self._hist.append(index)

    # results
    def scores(self):
        return [self.s.totals[i] for i in range(self.s.cfg.num_players)]

    def round_points(self):
        """Points the current round's captured piles would score if it ended now."""
        cdef int out[MAX_PLAYERS]
        round_points(&self.s, out)
        return [out[i] for i in range(self.s.cfg.num_players)]

    def c_returns(self):
        """The returns as computed in C (the Python `returns()` is shared with the reference engine)."""
        cdef double out[MAX_PLAYERS]
        returns(&self.s, out)
        return [out[i] for i in range(self.s.cfg.num_players)]

    def history_kinds(self):
        """`node_kind()` of the node each history entry was applied at (same length as `history()`)."""
        return list(self._kinds)

    cdef int copy_into(self, CompiledStateBase other) except -1:
        """The position and node kinds for `clone` (history, clone, deepcopy and pickle are CompiledStateBase's)."""
        memcpy(&(<CoreState>other).s, &self.s, sizeof(GameState))
        (<CoreState>other)._kinds = list(self._kinds)
        return 0

    cdef Engine engine(self) except *:
        cdef Engine e
        e.name = b"pairs"
        e.state_size = sizeof(GameState)
        e.num_players = self.s.cfg.num_players
        e.max_actions = NUM_RANKS
        e.current_player = engine_current_player
        e.legal_actions = engine_legal_actions
        e.chance_outcomes = engine_chance_outcomes
        e.apply_action = engine_apply_action
        e.returns = engine_returns
        e.evaluate = NULL
        e.resample = NULL
        if not self.s.cfg.hands_open or self.s.cfg.burn_cards > 0:      # something is hidden
            e.resample = engine_resample
        return e

    cdef void* position(self) noexcept:
        return &self.s

    def random_playout(self, seed):
        """Play the rest of the match with uniformly random moves in C on a copy; its final returns."""
        cdef GameState copy
        cdef uint64_t rng = seed_generator(seed)
        cdef double out[MAX_PLAYERS]
        memcpy(&copy, &self.s, sizeof(GameState))
        with nogil:
            random_playout(&copy, &rng)
        returns(&copy, out)
        return [out[i] for i in range(self.s.cfg.num_players)]

    @classmethod
    def from_dict(cls, game, d, history, kinds):
        """The position described by `to_dict()` output (for tests that start both engines anywhere)."""
        cdef CoreState state = cls(game)
        cdef GameState* s = &state.s
        cdef int p, i
        s.round = d["round"]
        s.first_dealer = d["first_dealer"]
        s.dealt = d["dealt"]
        s.turn = d["turn"]
        s.refills_pending = d["refills_pending"]
        for p in range(s.cfg.num_players):
            for i in range(NUM_RANKS):
                s.hands[p][i] = d["hands"][p][i]
                s.captured[p][i] = d["captured"][p][i]
                s.played[p][i] = d["played"][p][i]
            s.totals[p] = d["totals"][p]
        for i in range(NUM_RANKS):
            s.cave[i] = d["cave"][i]
            s.burned[i] = d["burned"][i]
            s.deck[i] = d["deck"][i]
        s.deck_size = sum(d["deck"])
        s.cave_count = sum(d["cave"])
        for r, row in enumerate(d["round_scores"]):
            for p in range(s.cfg.num_players):
                s.round_scores[r][p] = row[p]
        state._hist = list(history)
        state._kinds = list(kinds)
        return state

    def to_dict(self):
        """The same canonical dict as ReferenceState.to_dict."""
        cdef GameState* s = &self.s
        cdef int n = s.cfg.num_players, p, i, r
        return {
            "round": s.round, "first_dealer": s.first_dealer, "dealt": s.dealt, "turn": s.turn,
            "refills_pending": s.refills_pending,
            "hands": [[s.hands[p][i] for i in range(NUM_RANKS)] for p in range(n)],
            "captured": [[s.captured[p][i] for i in range(NUM_RANKS)] for p in range(n)],
            "played": [[s.played[p][i] for i in range(NUM_RANKS)] for p in range(n)],
            "cave": [s.cave[i] for i in range(NUM_RANKS)], "burned": [s.burned[i] for i in range(NUM_RANKS)],
            "deck": [s.deck[i] for i in range(NUM_RANKS)], "totals": [s.totals[p] for p in range(n)],
            "round_scores": [[s.round_scores[r][p] for p in range(n)] for r in range(min(s.round, s.cfg.num_rounds))],
        }


class CompiledState(CoreState, StateMixin):
    """A position of The Cave computed by the compiled core, with the shared notation, views and records."""


def state_size_bytes():
    """Bytes of one position (the C struct copied by `clone`)."""
    return sizeof(GameState)


def random_games(game, int count, seed):
    """Play `count` random matches from the start entirely in C; the total number of steps (for benchmarks)."""
    cdef GameState start, s
    cdef uint64_t rng = seed_generator(seed)
    cdef long total = 0
    cdef int i
    config = game.config
    init_state(&start, make_c_config(config), -1 if config.first_dealer == "random" else int(config.first_dealer))
    with nogil:
        for i in range(count):
            memcpy(&s, &start, sizeof(GameState))
            total += random_playout(&s, &rng)
    return total
