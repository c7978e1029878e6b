"""Golf's batched twin: ``rules.py`` and ``view.py`` as compiled kernels over many games at once.

The state of N games is a handful of fixed-shape arrays, one row per game (struct of arrays):

    grid      (N, P, 6) int16   the six slots of every layout (card ints)
    up        (N, P, 6) int8    1 if the slot is face up
    closed    (N, P, 3) int8    1 if the column is closed (a face-up pair)
    last_grid (N, P, 6) int16   every layout as revealed at the end of the previous round
    stock     (N, C)    int16   the stock, index 0 at the bottom, ``row[STOCK_LEN]`` cards
    discard   (N, C)    int16   the discard pile, index 0 at the bottom
    seat      (N, P, 2) int32   per seat: [total, last round's score]
    row       (N, F)    int32   per game scalars, named by the field constants below
    rng       (N,)      uint64  each game's own generator (``card_envs.vector``)

Each kernel reads like the method of ``GolfRules`` it mirrors (``_deal``, ``legal_mask``, ``apply``,
``_turn_up``, ``_start_turn``, ``_end_turn``, ``_end_round``) and ``view.Codec.encode``; the
encode kernel writes at the offsets of the same :class:`~card_envs.encoding.Layout` the view
declares, so the two cannot drift apart. ``tests/vector/`` checks them step by step against the
rules engine, byte for byte.

The row drivers (``*_serial``) and what they call compile without numba's reference counting
(``vector.KERNEL_OPTIONS``): nothing in them allocates, and counted, every array an inlined
helper takes costs an atomic increment and decrement per game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from card_envs.golf import view as golf_view
from card_envs.golf.rules import (
    DISCARD_DRAWN,
    DRAW,
    DRAW_STOCK,
    FLIP,
    FLIP_STEP,
    NO_FLIP,
    NUM_ACTIONS,
    NUM_SLOTS,
    OVER,
    PLACE,
    RANK_VALUE,
    STATE,
    GolfRules,
    GolfState,
)
from card_envs.schema import CARDS, PLAYERS, ConfigArray, KernelArray
from card_envs.vector import KERNEL_OPTIONS, GameKernels, drive, randbelow, shuffle, span, wait_row

TOTAL_SCALE, ROUND_SCALE = golf_view.TOTAL_SCALE, golf_view.ROUND_SCALE  # the view's scales
# fields of ``row`` and ``seat`` (declared with the state: ``rules.STATE``)
PHASE, CUR, FLIPS, DEALER, TRIGGER = (STATE.row(f) for f in ("phase", "current_player", "flips_left", "dealer", "trigger"))
TURNS, ROUND, STOCK_LEN, DISCARD_LEN = (STATE.row(f) for f in ("turns", "round", "stock_len", "discard_len"))
PENDING, PENDING_FROM_DISCARD = STATE.row("pending"), STATE.row("pending_from_discard")
TERMINATED, TRUNCATED, STOCK_KNOWN, HAS_LAST = (STATE.row(f) for f in ("terminated", "truncated", "stock_known", "has_last"))
TOTAL, LAST = STATE.column("seat", "total"), STATE.column("seat", "last_round")
FLIP_AFTER = {"never": 0, "may": 1, "must": 2}
# the configuration, as one int array
CONFIG = ConfigArray(
    ("players", lambda r: r.config.num_players),
    ("initial_flips", lambda r: r.config.initial_flips),
    ("turn_up_discard", lambda r: r.config.turn_up_discard),
    ("flip_after_discard", lambda r: FLIP_AFTER[r.config.flip_after_discard]),
    ("final_turns", lambda r: r.config.final_turns),
    ("max_turns", lambda r: r.config.max_turns_per_round),
    ("num_rounds", lambda r: r.config.num_rounds or 0),
    ("target_score", lambda r: r.config.target_score),
    ("max_rounds", lambda r: r.config.max_rounds),
    ("score_mode", lambda r: r.config.reward_mode == "score"),
    ("dealer", lambda r: -1 if r.config.dealer == "random" else r.config.dealer),
)
(C_PLAYERS, C_FLIPS, C_TURN_UP, C_FLIP_AFTER, C_FINAL_TURNS, C_MAX_TURNS, C_NUM_ROUNDS, C_TARGET,
 C_MAX_ROUNDS, C_SCORE_MODE, C_DEALER) = map(CONFIG.index, (
    "players", "initial_flips", "turn_up_discard", "flip_after_discard", "final_turns", "max_turns", "num_rounds",
    "target_score", "max_rounds", "score_mode", "dealer"))

# offsets into the observation, from the view's Layout (``offs`` array indices)
(O_GRID_RANK, O_FACE_DOWN, O_CLOSED, O_PENDING_RANK, O_PENDING_SOURCE, O_DISCARD_TOP, O_DISCARD_COUNTS,
 O_STOCK_SIZE, O_STOCK_KNOWN, O_STOCK_COUNTS, O_PHASE, O_TO_ACT, O_DEALER, O_TRIGGER, O_TOTALS, O_LAST_ROUND,
 O_LAST_GRID, O_TURNS, O_ROUND, O_COPIES, O_CARDS, O_ROUND_LIMIT) = range(22)
_SEGMENTS = ("grid_rank", "grid_face_down", "closed", "pending_rank", "pending_source", "discard_top",
             "discard_counts", "stock_size", "stock_known", "stock_counts", "phase", "to_act", "dealer",
             "trigger", "totals", "last_round", "last_round_grid", "turns", "round")


_RANK_VALUE = np.array(RANK_VALUE, dtype=np.int64)
_PARTNER = np.array((3, 4, 5, 0, 1, 2), dtype=np.int64)
_COLUMN = np.array((0, 1, 2, 0, 1, 2), dtype=np.int64)


# ------------------------------------------------------------------------------ the rules
@njit(**KERNEL_OPTIONS, inline="always")
def _grid_score(grid, g, p):
    """A layout's round score: its three column scores (a pair by rank scores 0)."""
    total = 0
    for c in range(3):
        top = grid[g, p, c] % 13
        bottom = grid[g, p, c + 3] % 13
        if top != bottom:
            total += _RANK_VALUE[top] + _RANK_VALUE[bottom]
    return total


@njit(**KERNEL_OPTIONS, inline="always")
def _turn_up(grid, up, closed, g, p, slot):
    """Turn a slot face up; its column closes if both cards are face up and of equal rank."""
    up[g, p, slot] = 1
    partner = _PARTNER[slot]
    if up[g, p, partner] and grid[g, p, slot] % 13 == grid[g, p, partner] % 13:
        closed[g, p, _COLUMN[slot]] = 1


@njit(**KERNEL_OPTIONS, inline="always")
def _all_up(up, g, p):
    for i in range(NUM_SLOTS):
        if not up[g, p, i]:
            return False
    return True


@njit(**KERNEL_OPTIONS, inline="always")
def _start_turn(stock, discard, row, rng, g, p):
    """TURN_START: an empty stock is rebuilt from the discards under the top card."""
    row[g, CUR] = p
    row[g, PHASE] = DRAW
    if row[g, STOCK_LEN] == 0:
        n = row[g, DISCARD_LEN]
        top = discard[g, n - 1]
        shuffle(rng, g, discard[g], n - 1)  # numpy's permutation order is not reproduced: only the multiset
        for i in range(n - 1):
            stock[g, i] = discard[g, i]
        row[g, STOCK_LEN] = n - 1
        discard[g, 0] = top
        row[g, DISCARD_LEN] = 1
        row[g, STOCK_KNOWN] = 1


@njit(**KERNEL_OPTIONS)
def _deal(grid, up, closed, stock, discard, row, rng, cfg, deck, g, order, stacked):
    """Deal six cards to each player one at a time clockwise from the dealer's left into slots
    0..5, turn up the stock's top card, and start the FLIP phase (``order``: top card first)."""
    n = cfg[C_PLAYERS]
    size = deck.shape[0]
    if not stacked:
        for i in range(size):
            order[i] = deck[i]
        shuffle(rng, g, order, size)
    first = (row[g, DEALER] + 1) % n
    i = 0
    for slot in range(NUM_SLOTS):
        for k in range(n):
            grid[g, (first + k) % n, slot] = order[i]
            i += 1
    rest = size - i
    for j in range(rest):  # the list's end is the stock's top
        stock[g, j] = order[size - 1 - j]
    row[g, STOCK_LEN] = rest
    row[g, DISCARD_LEN] = 0
    row[g, STOCK_KNOWN] = 0
    if cfg[C_TURN_UP]:
        row[g, STOCK_LEN] = rest - 1
        discard[g, 0] = stock[g, rest - 1]
        row[g, DISCARD_LEN] = 1
    for p in range(n):
        for s in range(NUM_SLOTS):
            up[g, p, s] = 0
        for c in range(3):
            closed[g, p, c] = 0
    row[g, PENDING] = -1
    row[g, PENDING_FROM_DISCARD] = 0
    row[g, TRIGGER] = -1
    row[g, TURNS] = 0
    row[g, CUR] = first
    if cfg[C_FLIPS] > 0:
        row[g, PHASE] = FLIP
        row[g, FLIPS] = cfg[C_FLIPS]
    else:
        _start_turn(stock, discard, row, rng, g, first)


@njit(**KERNEL_OPTIONS)
def _new_game(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, order, stacked):
    n = cfg[C_PLAYERS]
    row[g, DEALER] = randbelow(rng, g, n) if cfg[C_DEALER] < 0 else cfg[C_DEALER]
    for p in range(n):
        seat[g, p, TOTAL] = 0
        seat[g, p, LAST] = 0
    row[g, HAS_LAST] = 0
    row[g, ROUND] = 0
    row[g, TERMINATED] = 0
    row[g, TRUNCATED] = 0
    _deal(grid, up, closed, stock, discard, row, rng, cfg, deck, g, order, stacked)


@njit(**KERNEL_OPTIONS, inline="always")
def _new_games_row(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, rows, decks, stacked, orders, k):
    g = rows[k]
    order = orders[g]
    if stacked:
        for i in range(deck.shape[0]):
            order[i] = decks[k, i]
    _new_game(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, order, stacked)


@njit(**KERNEL_OPTIONS, nogil=True)
def new_games_serial(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, rows, decks, stacked, orders, lo, hi):
    for k in range(lo, hi):
        _new_games_row(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, rows, decks, stacked, orders, k)


@njit(cache=True, parallel=True)
def new_games_parallel(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, rows, decks, stacked, orders, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        new_games_serial(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, rows, decks,
                         stacked, orders, lo, hi)


@njit(**KERNEL_OPTIONS)
def _end_round(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, rewards, order):
    """ROUND_END: reveal and score; the game ends at the target (or after num_rounds)."""
    n = cfg[C_PLAYERS]
    total = 0
    for p in range(n):
        for s in range(NUM_SLOTS):
            up[g, p, s] = 1
            last_grid[g, p, s] = grid[g, p, s]
        score = _grid_score(grid, g, p)
        seat[g, p, LAST] = score
        seat[g, p, TOTAL] += score
        total += score
    row[g, HAS_LAST] = 1
    row[g, ROUND] += 1
    if cfg[C_SCORE_MODE]:
        mean = total / n
        for p in range(n):
            rewards[g, p] += np.float32(-(seat[g, p, LAST] - mean) / ROUND_SCALE)  # 0.0 + r, as the AEC env adds it
    if cfg[C_NUM_ROUNDS] > 0:
        over = row[g, ROUND] >= cfg[C_NUM_ROUNDS]
    else:
        best = 0
        for p in range(n):
            best = max(best, seat[g, p, TOTAL])
        over = best >= cfg[C_TARGET]
    if over:
        row[g, TERMINATED] = 1
    elif cfg[C_NUM_ROUNDS] == 0 and row[g, ROUND] >= cfg[C_MAX_ROUNDS]:
        row[g, TRUNCATED] = 1
    if row[g, TERMINATED] or row[g, TRUNCATED]:
        row[g, PHASE] = OVER
        row[g, CUR] = -1
        return
    row[g, DEALER] = (row[g, DEALER] + 1) % n
    _deal(grid, up, closed, stock, discard, row, rng, cfg, deck, g, order, False)


@njit(**KERNEL_OPTIONS, inline="always")
def _end_turn(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, p, rewards, order):
    """END_CHECK: the first player with six face-up cards triggers the final turns."""
    n = cfg[C_PLAYERS]
    row[g, TURNS] += 1
    if row[g, TRIGGER] < 0 and _all_up(up, g, p):
        row[g, TRIGGER] = p
        if not cfg[C_FINAL_TURNS]:
            _end_round(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, rewards, order)
            return
    if row[g, TURNS] >= cfg[C_MAX_TURNS]:  # the stalling guard
        _end_round(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, rewards, order)
        return
    nxt = (p + 1) % n
    if row[g, TRIGGER] >= 0 and nxt == row[g, TRIGGER]:
        _end_round(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, rewards, order)
        return
    _start_turn(stock, discard, row, rng, g, nxt)


@njit(**KERNEL_OPTIONS, inline="always")
def _step_row(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, actions, rewards, term, trunc, orders, g):
    """``GolfRules.apply`` in every game: one legal action each (checked by the caller)."""
    n = cfg[C_PLAYERS]
    for q in range(n):
        rewards[g, q] = 0.0
    a = actions[g]
    p = row[g, CUR]
    phase = row[g, PHASE]
    if phase == FLIP:
        _turn_up(grid, up, closed, g, p, a)
        row[g, FLIPS] -= 1
        if row[g, FLIPS] == 0 or _all_up(up, g, p):
            nxt = (p + 1) % n
            if nxt == (row[g, DEALER] + 1) % n:  # everyone has flipped
                _start_turn(stock, discard, row, rng, g, nxt)
            else:
                row[g, CUR] = nxt
                row[g, FLIPS] = cfg[C_FLIPS]
    elif phase == DRAW:
        if a == DRAW_STOCK:
            row[g, STOCK_LEN] -= 1
            row[g, PENDING] = stock[g, row[g, STOCK_LEN]]
            row[g, PENDING_FROM_DISCARD] = 0
        else:
            row[g, DISCARD_LEN] -= 1
            row[g, PENDING] = discard[g, row[g, DISCARD_LEN]]
            row[g, PENDING_FROM_DISCARD] = 1
        row[g, PHASE] = PLACE
    elif phase == PLACE:
        x = row[g, PENDING]
        row[g, PENDING] = -1
        if a == DISCARD_DRAWN:
            discard[g, row[g, DISCARD_LEN]] = x
            row[g, DISCARD_LEN] += 1
            if cfg[C_FLIP_AFTER] != 0 and not _all_up(up, g, p):
                row[g, PHASE] = FLIP_STEP
            else:
                _end_turn(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, p, rewards, orders[g])
        else:
            discard[g, row[g, DISCARD_LEN]] = grid[g, p, a]  # revealed only now, on the pile
            row[g, DISCARD_LEN] += 1
            grid[g, p, a] = x
            _turn_up(grid, up, closed, g, p, a)
            _end_turn(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, p, rewards, orders[g])
    else:  # FLIP_STEP
        if a != NO_FLIP:
            _turn_up(grid, up, closed, g, p, a)
        _end_turn(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, g, p, rewards, orders[g])
    term[g] = row[g, TERMINATED] != 0
    trunc[g] = row[g, TRUNCATED] != 0


@njit(**KERNEL_OPTIONS, nogil=True)
def step_serial(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, actions, rewards, term, trunc, orders, lo, hi):
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
        else:
            _step_row(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, actions, rewards, term, trunc, orders, g)


@njit(cache=True, parallel=True)
def step_parallel(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, actions, rewards, term, trunc, orders, spans):
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        step_serial(grid, up, closed, last_grid, stock, discard, seat, row, rng, cfg, deck, actions, rewards, term,
                    trunc, orders, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _legal_row(closed, up, row, cfg, mask, g):
    """``GolfRules.legal_mask``: depends only on face-up/face-down status, closed columns and
    where the pending card came from, never on a hidden card. All zeros once a game is over."""
    for a in range(NUM_ACTIONS):
        mask[g, a] = 0
    p = row[g, CUR]
    phase = row[g, PHASE]
    if phase == FLIP or phase == FLIP_STEP:
        for i in range(NUM_SLOTS):
            if not up[g, p, i]:
                mask[g, i] = 1
        if phase == FLIP_STEP and cfg[C_FLIP_AFTER] == 1:
            mask[g, NO_FLIP] = 1
    elif phase == DRAW:
        if row[g, STOCK_LEN] > 0:
            mask[g, DRAW_STOCK] = 1
        if row[g, DISCARD_LEN] > 0 and not (closed[g, p, 0] and closed[g, p, 1] and closed[g, p, 2]):
            mask[g, 7] = 1
    elif phase == PLACE:
        for i in range(NUM_SLOTS):
            if not closed[g, p, _COLUMN[i]]:
                mask[g, i] = 1
        if not row[g, PENDING_FROM_DISCARD]:
            mask[g, DISCARD_DRAWN] = 1


@njit(**KERNEL_OPTIONS, nogil=True)
def legal_serial(closed, up, row, cfg, mask, lo, hi):
    for g in range(lo, hi):
        _legal_row(closed, up, row, cfg, mask, g)


@njit(cache=True, parallel=True)
def legal_parallel(closed, up, row, cfg, mask, spans):
    n = mask.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        legal_serial(closed, up, row, cfg, mask, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _encode_row(grid, up, closed, last_grid, stock, discard, seat, row, cfg, offs, rows, seats, out, w):
    """``view.view`` then ``Codec.encode``: the observation of game g from seat ``seats[g]``,
    for the games g in ``rows``."""
    n = cfg[C_PLAYERS]
    copies = np.float32(offs[O_COPIES])
    cards = offs[O_CARDS]
    max_turns = cfg[C_MAX_TURNS]
    round_limit = offs[O_ROUND_LIMIT]
    g = rows[w]
    me = seats[g]
    for i in range(out.shape[1]):
        out[g, i] = 0.0
    for k in range(n):
        p = (me + k) % n
        base = k * NUM_SLOTS
        for i in range(NUM_SLOTS):
            if up[g, p, i]:
                out[g, offs[O_GRID_RANK] + (base + i) * 13 + grid[g, p, i] % 13] = 1.0
            else:
                out[g, offs[O_FACE_DOWN] + base + i] = 1.0
        for j in range(3):
            if closed[g, p, j]:
                out[g, offs[O_CLOSED] + 3 * k + j] = 1.0
        out[g, offs[O_TOTALS] + k] = np.float32(seat[g, p, TOTAL]) / np.float32(TOTAL_SCALE)
        out[g, offs[O_LAST_ROUND] + k] = np.float32(seat[g, p, LAST]) / np.float32(ROUND_SCALE)
        if row[g, HAS_LAST]:
            for i in range(NUM_SLOTS):
                out[g, offs[O_LAST_GRID] + (base + i) * 13 + last_grid[g, p, i] % 13] = 1.0
    cur = row[g, CUR]
    pending = row[g, PENDING]
    if pending >= 0:
        from_discard = row[g, PENDING_FROM_DISCARD]
        if from_discard or cur == me:
            out[g, offs[O_PENDING_RANK] + pending % 13] = 1.0
        out[g, offs[O_PENDING_SOURCE] + from_discard] = 1.0
    dl = row[g, DISCARD_LEN]
    if dl > 0:
        out[g, offs[O_DISCARD_TOP] + discard[g, dl - 1] % 13] = 1.0
    for i in range(dl):
        out[g, offs[O_DISCARD_COUNTS] + discard[g, i] % 13] += 1.0
    for r in range(13):
        out[g, offs[O_DISCARD_COUNTS] + r] = out[g, offs[O_DISCARD_COUNTS] + r] / copies
    sl = row[g, STOCK_LEN]
    out[g, offs[O_STOCK_SIZE]] = np.float32(sl / cards)
    if row[g, STOCK_KNOWN]:
        out[g, offs[O_STOCK_KNOWN]] = 1.0
        for i in range(sl):
            out[g, offs[O_STOCK_COUNTS] + stock[g, i] % 13] += 1.0
        if pending >= 0 and not row[g, PENDING_FROM_DISCARD] and cur != me:
            out[g, offs[O_STOCK_COUNTS] + pending % 13] += 1.0
        for r in range(13):
            out[g, offs[O_STOCK_COUNTS] + r] = out[g, offs[O_STOCK_COUNTS] + r] / copies
    out[g, offs[O_PHASE] + row[g, PHASE]] = 1.0
    if cur >= 0:
        out[g, offs[O_TO_ACT] + (cur - me) % n] = 1.0
    out[g, offs[O_DEALER] + (row[g, DEALER] - me) % n] = 1.0
    if row[g, TRIGGER] >= 0:
        out[g, offs[O_TRIGGER] + (row[g, TRIGGER] - me) % n] = 1.0
    out[g, offs[O_TURNS]] = np.float32(row[g, TURNS] / max_turns)
    out[g, offs[O_ROUND]] = np.float32(row[g, ROUND] / round_limit)


@njit(**KERNEL_OPTIONS, nogil=True)
def encode_serial(grid, up, closed, last_grid, stock, discard, seat, row, cfg, offs, rows, seats, out, lo, hi):
    for w in range(lo, hi):
        _encode_row(grid, up, closed, last_grid, stock, discard, seat, row, cfg, offs, rows, seats, out, w)


@njit(cache=True, parallel=True)
def encode_parallel(grid, up, closed, last_grid, stock, discard, seat, row, cfg, offs, rows, seats, out, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        encode_serial(grid, up, closed, last_grid, stock, discard, seat, row, cfg, offs, rows, seats, out, lo, hi)


class Kernels(GameKernels):
    """Golf's kernels for one configuration (the interface ``card_envs.vector.VectorEnv`` uses)."""

    CURRENT = CUR
    LOWER_IS_BETTER = True  # lowest total first (also on truncation)

    def __init__(self, rules: GolfRules):
        cfg = rules.config
        super().__init__(rules, golf_view)
        n = self.num_players
        layout = golf_view.layout(rules)
        self.cfg = CONFIG.array(rules)
        self.offs = np.array(
            [layout.by_name[name].start for name in _SEGMENTS] + [4 * cfg.decks, 52 * cfg.decks, cfg.round_limit],
            dtype=np.int64,
        )
        self._no_decks = np.zeros((1, 1), dtype=np.int64)

    def allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        return STATE.allocate(num_envs, {PLAYERS: self.num_players, CARDS: len(self.deck)},
                              KernelArray("order", np.int16, (CARDS,)))  # scratch: a deal's card order

    @staticmethod
    def _game(a):
        return STATE.arrays_of(a)

    def new_games(self, a, rows, decks) -> None:
        stacked = decks is not None
        drive(new_games_serial, new_games_parallel, len(rows), *self._game(a), a["rng"], self.cfg, self.deck, rows,
                         decks if stacked else self._no_decks, stacked, a["order"])

    def step(self, a, actions, rewards, term, trunc) -> None:
        drive(step_serial, step_parallel, len(actions), *self._game(a), a["rng"], self.cfg, self.deck, actions, rewards,
              term, trunc, a["order"])

    def legal(self, a, mask) -> None:
        drive(legal_serial, legal_parallel, len(mask), a["closed"], a["up"], a["row"], self.cfg, mask)

    def encode(self, a, rows, seats, out) -> None:
        drive(encode_serial, encode_parallel, len(rows), *self._game(a), self.cfg, self.offs, rows, seats, out)

    def points(self, a) -> np.ndarray:
        return a["seat"][:, :, TOTAL]

    # ----------------------------------------------------------------- exchange with rules
    def dump(self, a, g: int) -> GolfState:
        """Game g as a ``GolfState`` (its ``rng`` a numpy Generator seeded from the row's)."""
        s = GolfState()
        STATE.dump(a, g, s)
        return s

    def load(self, a, g: int, s: GolfState) -> None:
        """Make game g the state ``s`` (the row's generator goes on)."""
        STATE.load(a, g, s)
