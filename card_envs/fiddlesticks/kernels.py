"""Fiddlesticks' batched twin: ``rules.py`` and ``view.py`` as compiled kernels over many games.

The state of N games is a handful of fixed-shape arrays, one row per game (struct of arrays;
P = players, K = 4·num_decks the most copies of a rank, C = cards in the deck), declared with the
state (``rules.STATE``), in the order the kernels take them. Card ints (0..51) fit a byte and rank
counts (at most K) do too while K < 128 (int16 beyond): small types mean fewer cache lines per
game, which this memory-bound engine measurably likes.

    hcnt    (N, P, 13)    count   every hand's cards of each rank (``hand_counts``)
    pl      (N, P, 4)     int16   per seat: [hand size, face-up count, SWAP picks, place (0: not out)]
    known   (N, P, 13)    count   the publicly known hand cards by rank; ``absent`` (int8) the flags
    stock   (N, C)        int8    the stock, index 0 at the bottom, ``row[STOCK_LEN]`` cards
    pile    (N, C)        int8    the pile, index 0 at the bottom; ``pcnt`` (N, 13) its rank counts
    cleared (N, C)        int8    the cards cleared from play in order; ``ccnt`` (N, 13) the counts
    hand    (N, P, 13, K) int8    every hand as one stack of card ints per rank (``hand[p][r]``),
                                  ``hcnt`` high
    up      (N, P, 3)     int8    the face-up cards in order, ``pl[.., ULEN]`` of them
    down    (N, P, 3)     int8    the face-down slots, -1 once turned
    picked  (N, P, 3)     int8    the SWAP picks so far (``pl[.., SWAPS]`` of them, SWAP phase only)
    dealt   (N, P, 2, 13) int8    the dealt rank counts: [face up, hand] (``dealt_up``, ``dealt_hand``)
    row     (N, F)        int32   per game scalars, named by the field constants below
    rng     (N,)          uint64  each game's own generator (``card_envs.vector``)

The rules' fields the kernels keep in another form (the hands as stacks, the face-up, face-down
and picked cards in fixed slots, the dealt counts side by side, the places as each seat's place)
are converted by ``Kernels.dump`` and ``Kernels.load``.

Each kernel reads like the method of ``FiddlesticksRules`` it mirrors (``new_game``,
``legal_mask``, ``apply`` with ``_pick``, ``_play``, ``_blind``, ``_put_on_pile``, ``_take_pile``,
``_refill``, ``_end_action``; ``scores``/``ranks`` in ``results``) and ``view.view`` +
``Codec.encode``; the encode kernel writes at the offsets of the same
:class:`~card_envs.encoding.Layout` the view declares, so the two cannot drift apart. The rules
draw randomness only when a game is dealt (the dealer and the shuffle), and so do these kernels.
``tests/vector/`` checks them step by step against the rules engine, byte for byte.

The row drivers (``*_serial``) and the functions they call are compiled without numba's
reference counting (``vector.KERNEL_OPTIONS``): nothing in them allocates, and with it each array an
inlined helper takes, or a view of a row, is counted in and out with atomic instructions in the
middle of the per-game loop, where numba's pruning of those counts gives up on branching code
(measured at 1024 games on one thread: the step kernel ran 5.5x, the mask kernel 1.5x as long).
Without the counts a view of a game's row is free, so the mask and the observation are written
through views that start at each segment, indexed from 0 up.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from card_envs.fiddlesticks import view as fs_view
from card_envs.fiddlesticks.rules import (
    COPIES,
    EMPTY,
    GAME_RANK,
    HAND_TARGET,
    NUM_RANKS,
    NUM_SLOTS,
    OVER,
    PLAY,
    PLAYABLE,
    STATE,
    SWAP,
    TEN,
    FiddlesticksRules,
    FiddlesticksState,
)
from card_envs.schema import CARDS, PLAYERS, ConfigArray, KernelArray
from card_envs.vector import (KERNEL_OPTIONS, GameKernels, add_rank_rewards, drive, randbelow, shuffle, span,
                              store_final_obs, wait_row)

SLOT_SCALE = fs_view.SLOT_SCALE  # the view's scale of face-up cards and SWAP picks
# fields of ``row`` and ``pl`` (declared with the state: ``rules.STATE``)
PHASE, CUR, DEALER, FIRST, TURNS = (STATE.row(f) for f in ("phase", "current_player", "dealer", "first", "turns"))
TERMINATED, TRUNCATED = STATE.row("terminated"), STATE.row("truncated")
STOCK_LEN, PILE_LEN, CLEARED_LEN = (STATE.row(f) for f in ("stock_len", "pile_len", "cleared_len"))
RUN_RANK, RUN_LEN, NUM_OUT = (STATE.row(f) for f in ("run_rank", "run_len", "num_out"))
HSIZE, ULEN, SWAPS, PLACE = (STATE.column("pl", f) for f in ("hand_size", "face_up", "swap_picks", "place"))
# ``dealt`` rows
D_UP, D_HAND = 0, 1
#: the arrays of rank counts: int8 while K < 128, int16 beyond (``Kernels.allocate``)
COUNTS = ("hcnt", "known", "pcnt", "ccnt")
# the configuration, as one int array
CONFIG = ConfigArray(
    ("players", lambda r: r.config.num_players),
    ("copies", lambda r: r.copies),
    ("four_in_a_row_clears", lambda r: r.config.four_in_a_row_clears),
    ("voluntary_pickup", lambda r: r.config.voluntary_pickup),
    ("rank_all", lambda r: r.config.end_mode == "rank_all"),
    ("dealer", lambda r: -1 if r.config.dealer == "random" else r.config.dealer),
    ("max_turns", lambda r: r.config.max_turns),
    ("total", lambda r: 52 * r.config.num_decks),
)
C_PLAYERS, C_K, C_FOUR, C_VOLUNTARY, C_RANK_ALL, C_DEALER, C_MAX_TURNS, C_TOTAL = map(CONFIG.index, (
    "players", "copies", "four_in_a_row_clears", "voluntary_pickup", "rank_all", "dealer", "max_turns", "total"))

# offsets into the observation, from the view's Layout (``offs`` array indices)
_SEGMENTS = ("phase", "to_act", "hand", "picked", "face_up", "face_down", "hand_size", "known", "absent",
             "swap_picks", "out", "pile_top", "pile_run", "pile_counts", "cleared", "stock_size", "turns")
(O_PHASE, O_TO_ACT, O_HAND, O_PICKED, O_FACE_UP, O_FACE_DOWN, O_HAND_SIZE, O_KNOWN, O_ABSENT,
 O_SWAP_PICKS, O_OUT, O_PILE_TOP, O_PILE_RUN, O_PILE_COUNTS, O_CLEARED, O_STOCK_SIZE, O_TURNS) = range(17)

# rows of ``Kernels.tabs``: float32 quotients v / scale, indexed by the integer v
T_K, T_3, T_TOTAL, T_N = range(4)

_RANK = np.array(GAME_RANK, dtype=np.int64)
#: ``_PLAYABLE[top, r]``: may rank r go on a pile whose top rank is ``top`` (EMPTY = 13)?
_PLAYABLE = np.array(PLAYABLE, dtype=np.int8)


# ------------------------------------------------------------------------------ the rules
@njit(cache=True, inline="always")
def _push(hand, hcnt, g, p, c):
    """Card c into p's hand (on top of its rank's stack)."""
    r = _RANK[c]
    k = hcnt[g, p, r]
    hand[g, p, r, k] = c
    hcnt[g, p, r] = k + 1


@njit(**KERNEL_OPTIONS)
def _deal(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng, cfg, deck,
          g, order, stacked):
    """``FiddlesticksRules.new_game``: the dealer, then one card at a time clockwise from the
    dealer's left into face-down slots 0..2, face-up 0..2 and the hand; the rest is the stock
    (``order``: top card first)."""
    n = cfg[C_PLAYERS]
    size = deck.shape[0]
    row[g, DEALER] = randbelow(rng, g, n) if cfg[C_DEALER] < 0 else cfg[C_DEALER]
    if not stacked:
        for i in range(size):
            order[i] = deck[i]
        shuffle(rng, g, order, size)
    first = (row[g, DEALER] + 1) % n
    row[g, FIRST] = first
    for p in range(n):
        for r in range(NUM_RANKS):
            hcnt[g, p, r] = 0
            known[g, p, r] = 0
            absent[g, p, r] = 0
            dealt[g, p, D_UP, r] = 0
            dealt[g, p, D_HAND, r] = 0
        pl[g, p, HSIZE] = NUM_SLOTS
        pl[g, p, ULEN] = NUM_SLOTS
        pl[g, p, SWAPS] = 0
        pl[g, p, PLACE] = 0
    i = 0
    for rnd in range(3 * NUM_SLOTS):
        for k in range(n):
            p = (first + k) % n
            c = order[i]
            i += 1
            if rnd < NUM_SLOTS:
                down[g, p, rnd] = c
            elif rnd < 2 * NUM_SLOTS:
                up[g, p, rnd - NUM_SLOTS] = c
                dealt[g, p, D_UP, _RANK[c]] += 1
            else:
                _push(hand, hcnt, g, p, c)
                dealt[g, p, D_HAND, _RANK[c]] += 1
    rest = size - i
    for j in range(rest):  # the list's end is the stock's top
        stock[g, j] = order[size - 1 - j]
    row[g, STOCK_LEN] = rest
    for r in range(NUM_RANKS):
        pcnt[g, r] = 0
        ccnt[g, r] = 0
    row[g, PILE_LEN] = 0
    row[g, CLEARED_LEN] = 0
    row[g, RUN_RANK] = EMPTY
    row[g, RUN_LEN] = 0
    row[g, NUM_OUT] = 0
    row[g, TURNS] = 0
    row[g, TERMINATED] = 0
    row[g, TRUNCATED] = 0
    row[g, PHASE] = SWAP
    row[g, CUR] = first


@njit(cache=True, inline="always")
def _new_games_row(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng,
                   cfg, deck, rows, decks, stacked, orders, k):
    g = rows[k]
    order = orders[g]
    if stacked:
        for i in range(deck.shape[0]):
            order[i] = decks[k, i]
    _deal(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng, cfg, deck,
          g, order, stacked)


@njit(**KERNEL_OPTIONS, nogil=True)
def new_games_serial(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng,
                     cfg, deck, rows, decks, stacked, orders, lo, hi):
    for k in range(lo, hi):
        _new_games_row(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row,
                       rng, cfg, deck, rows, decks, stacked, orders, k)


@njit(cache=True, parallel=True)
def new_games_parallel(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row,
                       rng, cfg, deck, rows, decks, stacked, orders, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        new_games_serial(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt,
                         row, rng, cfg, deck, rows, decks, stacked, orders, lo, hi)


@njit(cache=True, inline="always")
def _pick(hand, hcnt, up, picked, dealt, known, pl, row, cfg, g, p, r):
    """``_pick``: one card of rank r from p's pool (its first face-up one, else the top of its
    hand's rank-r stack) will lie face up; after the last pick of the last player, the reveal."""
    n = cfg[C_PLAYERS]
    ulen = pl[g, p, ULEN]
    found = -1
    for i in range(ulen):
        if _RANK[up[g, p, i]] == r:
            found = i
            break
    if found >= 0:
        c = up[g, p, found]
        for i in range(found, ulen - 1):
            up[g, p, i] = up[g, p, i + 1]
        pl[g, p, ULEN] = ulen - 1
    else:
        k = hcnt[g, p, r] - 1
        c = hand[g, p, r, k]
        hcnt[g, p, r] = k
        pl[g, p, HSIZE] -= 1
    sp = pl[g, p, SWAPS]
    picked[g, p, sp] = c
    pl[g, p, SWAPS] = sp + 1
    if sp + 1 < NUM_SLOTS:
        return
    nxt = (p + 1) % n
    if nxt != row[g, FIRST]:
        row[g, CUR] = nxt
        return
    # Everyone has committed: reveal the new face-up sets and start play.
    for q in range(n):
        for i in range(pl[g, q, ULEN]):  # dealt face-up cards not picked go into the hand, publicly
            _push(hand, hcnt, g, q, up[g, q, i])
        for r2 in range(NUM_RANKS):
            known[g, q, r2] = dealt[g, q, D_UP, r2]
        for i in range(NUM_SLOTS):
            c = picked[g, q, i]
            up[g, q, i] = c
            known[g, q, _RANK[c]] -= 1
        for r2 in range(NUM_RANKS):
            if known[g, q, r2] < 0:
                known[g, q, r2] = 0
        pl[g, q, ULEN] = NUM_SLOTS
        pl[g, q, HSIZE] = NUM_SLOTS
    row[g, PHASE] = PLAY
    row[g, CUR] = row[g, FIRST]


@njit(cache=True, inline="always")
def _put_on_pile(pile, pcnt, cleared, ccnt, row, cfg, g, r, k):
    """``_put_on_pile`` for the k cards of rank r just laid on ``pile``: clear it (True) after
    10s or a run of 4+ equal ranks on top."""
    pcnt[g, r] += k
    if row[g, RUN_RANK] == r:
        row[g, RUN_LEN] += k
    else:
        row[g, RUN_RANK] = r
        row[g, RUN_LEN] = k
    if r == TEN or (cfg[C_FOUR] != 0 and row[g, RUN_LEN] >= 4):
        m = row[g, PILE_LEN]
        base = row[g, CLEARED_LEN]
        for i in range(m):
            cleared[g, base + i] = pile[g, i]
        row[g, CLEARED_LEN] = base + m
        for i in range(NUM_RANKS):
            ccnt[g, i] += pcnt[g, i]
            pcnt[g, i] = 0
        row[g, PILE_LEN] = 0
        row[g, RUN_RANK] = EMPTY
        row[g, RUN_LEN] = 0
        return True
    return False


@njit(cache=True, inline="always")
def _take_pile(hand, hcnt, known, pile, pcnt, pl, row, g, p):
    """``_take_pile``: the whole pile goes into p's hand (its identities are public)."""
    m = row[g, PILE_LEN]
    for i in range(m):
        _push(hand, hcnt, g, p, pile[g, i])
    for i in range(NUM_RANKS):
        x = pcnt[g, i]
        if x:
            known[g, p, i] += x
            pcnt[g, i] = 0
    pl[g, p, HSIZE] += m
    row[g, PILE_LEN] = 0
    row[g, RUN_RANK] = EMPTY
    row[g, RUN_LEN] = 0


@njit(cache=True, inline="always")
def _refill(hand, hcnt, up, known, absent, stock, pl, row, g, p):
    """``_refill``: draw back up to 3; with the stock gone, a hand below 3 takes in all face-up cards."""
    if pl[g, p, HSIZE] >= HAND_TARGET:
        return
    sl = row[g, STOCK_LEN]
    if sl:
        for r in range(NUM_RANKS):  # cards nobody else sees come in: forced pick-ups' news is void
            absent[g, p, r] = 0
    while pl[g, p, HSIZE] < HAND_TARGET and sl:
        sl -= 1
        _push(hand, hcnt, g, p, stock[g, sl])
        pl[g, p, HSIZE] += 1
    row[g, STOCK_LEN] = sl
    ulen = pl[g, p, ULEN]
    if pl[g, p, HSIZE] < HAND_TARGET and sl == 0 and ulen:
        for i in range(ulen):
            c = up[g, p, i]
            _push(hand, hcnt, g, p, c)
            known[g, p, _RANK[c]] += 1
        pl[g, p, HSIZE] += ulen
        pl[g, p, ULEN] = 0


@njit(cache=True, inline="always")
def _end_action(down, pl, row, cfg, g, p, clear):
    """``_end_action``: out check, game end, truncation, and whose turn it is."""
    n = cfg[C_PLAYERS]
    row[g, TURNS] += 1
    if pl[g, p, HSIZE] == 0 and pl[g, p, ULEN] == 0 and down[g, p, 0] < 0 and down[g, p, 1] < 0 and down[g, p, 2] < 0:
        out = row[g, NUM_OUT] + 1
        row[g, NUM_OUT] = out
        pl[g, p, PLACE] = out
        if cfg[C_RANK_ALL] == 0 or out == n - 1:
            row[g, TERMINATED] = 1
            row[g, PHASE] = OVER
            row[g, CUR] = -1
            return
    if row[g, TURNS] >= cfg[C_MAX_TURNS]:
        row[g, TRUNCATED] = 1
        row[g, PHASE] = OVER
        row[g, CUR] = -1
        return
    if clear and pl[g, p, PLACE] == 0:
        return  # the same player goes again, on the empty pile
    q = (p + 1) % n
    while pl[g, q, PLACE]:
        q = (q + 1) % n
    row[g, CUR] = q


@njit(cache=True, inline="always")
def _step_row(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, cfg,
              actions, rewards, term, trunc, g):
    """``FiddlesticksRules.apply`` in every game: one legal action each (checked by the caller).
    The rules pay no per-step rewards (rank rewards only, added by the VectorEnv at the end)."""
    n = cfg[C_PLAYERS]
    K = cfg[C_K]
    for q in range(n):
        rewards[g, q] = 0.0
    a = actions[g]
    p = row[g, CUR]
    pick_base = NUM_RANKS * K
    blind_base = pick_base + NUM_RANKS
    pickup = blind_base + NUM_SLOTS
    if row[g, PHASE] == SWAP:
        _pick(hand, hcnt, up, picked, dealt, known, pl, row, cfg, g, p, a - pick_base)
    elif a < pick_base:  # PLAY(r, k): the top k cards of the rank-r stack, in stack order
        r = a // K
        k = a % K + 1
        h = hcnt[g, p, r] - k
        m = row[g, PILE_LEN]
        for i in range(k):
            pile[g, m + i] = hand[g, p, r, h + i]
        row[g, PILE_LEN] = m + k
        hcnt[g, p, r] = h
        pl[g, p, HSIZE] -= k
        kn = known[g, p, r]
        if kn:
            known[g, p, r] = kn - k if kn > k else 0  # the played copies may have been the known ones
        clear = _put_on_pile(pile, pcnt, cleared, ccnt, row, cfg, g, r, k)
        _refill(hand, hcnt, up, known, absent, stock, pl, row, g, p)
        _end_action(down, pl, row, cfg, g, p, clear)
    elif a == pickup:
        if cfg[C_VOLUNTARY] == 0:
            # forced: the table learns p holds no card of a rank that fits, beyond its known ones
            top = row[g, RUN_RANK]
            for r in range(NUM_RANKS):
                if _PLAYABLE[top, r]:
                    absent[g, p, r] = 1
        _take_pile(hand, hcnt, known, pile, pcnt, pl, row, g, p)
        _end_action(down, pl, row, cfg, g, p, False)
    else:  # BLIND(j)
        j = a - blind_base
        c = down[g, p, j]
        down[g, p, j] = -1
        r = _RANK[c]
        if _PLAYABLE[row[g, RUN_RANK], r]:
            m = row[g, PILE_LEN]
            pile[g, m] = c
            row[g, PILE_LEN] = m + 1
            clear = _put_on_pile(pile, pcnt, cleared, ccnt, row, cfg, g, r, 1)
            _end_action(down, pl, row, cfg, g, p, clear)  # nothing to refill after a blind play
        else:
            _push(hand, hcnt, g, p, c)
            pl[g, p, HSIZE] += 1
            known[g, p, r] += 1
            _take_pile(hand, hcnt, known, pile, pcnt, pl, row, g, p)
            _end_action(down, pl, row, cfg, g, p, False)
    term[g] = row[g, TERMINATED] != 0
    trunc[g] = row[g, TRUNCATED] != 0


@njit(**KERNEL_OPTIONS, nogil=True)
def step_serial(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, cfg,
                actions, rewards, term, trunc, lo, hi):
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
        else:
            _step_row(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row,
                      cfg, actions, rewards, term, trunc, g)


@njit(cache=True, parallel=True)
def step_parallel(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, cfg,
                  actions, rewards, term, trunc, spans):
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        step_serial(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row,
                    cfg, actions, rewards, term, trunc, lo, hi)


@njit(cache=True, inline="always")
def _legal_row(hcnt, up, down, pl, row, cfg, mask, g):
    """``legal_mask``: the actor's own hand (or SWAP pool), the public pile and which face-down
    slots still hold a card, never a face-down card's identity. All zeros once a game is over.
    A PLAY turn writes all K entries of every rank, ``PLAY(r, k)`` legal for k up to the rank's
    count where the rank fits on the pile (a count of 0 where it does not): no branch on the
    hand, whose ranks come and go at random."""
    m = mask[g]
    for a in range(m.shape[0]):
        m[a] = 0
    p = row[g, CUR]
    phase = row[g, PHASE]
    K = cfg[C_K]
    if phase == PLAY:
        if pl[g, p, HSIZE]:
            fits = _PLAYABLE[row[g, RUN_RANK]]
            h = hcnt[g, p]
            any_play = 0
            for r in range(NUM_RANKS):
                c = h[r] * fits[r]
                any_play |= c
                run = m[r * K:]
                for i in range(K):
                    run[i] = i < c
            if any_play == 0 or (cfg[C_VOLUNTARY] != 0 and row[g, PILE_LEN] > 0):
                m[NUM_RANKS * K + NUM_RANKS + NUM_SLOTS] = 1
        else:
            blind = m[NUM_RANKS * K + NUM_RANKS:]
            d = down[g, p]
            for j in range(NUM_SLOTS):
                blind[j] = d[j] >= 0
    elif phase == SWAP:
        pick = m[NUM_RANKS * K:]
        h = hcnt[g, p]
        for r in range(NUM_RANKS):
            if h[r]:
                pick[r] = 1
        u = up[g, p]
        for i in range(pl[g, p, ULEN]):
            pick[_RANK[u[i]]] = 1


@njit(**KERNEL_OPTIONS, nogil=True)
def legal_serial(hcnt, up, down, pl, row, cfg, mask, lo, hi):
    for g in range(lo, hi):
        _legal_row(hcnt, up, down, pl, row, cfg, mask, g)


@njit(cache=True, parallel=True)
def legal_parallel(hcnt, up, down, pl, row, cfg, mask, spans):
    n = mask.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        legal_serial(hcnt, up, down, pl, row, cfg, mask, lo, hi)


@njit(cache=True, inline="always")
def _at(table, i):
    """``table[i]`` for an index i >= 0 (a count, a card), indexed as unsigned: numba then leaves
    out its negative-index wraparound."""
    return table[np.uint64(i)]


@njit(cache=True, inline="always")
def _encode_row(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows, seats, out, w):
    """``view.view`` then ``Codec.encode``: the observation of game g from seat ``seats[g]``, for
    the games g in ``rows``. Every entry is its integer divided by its scale in float32, as the
    codec divides (``tabs`` holds those quotients), written without branching on the values.
    Each segment is written through a view that starts at its offset (indices from 0 up, which
    the compiler sees are never negative)."""
    n = cfg[C_PLAYERS]
    by_copies = tabs[T_K]
    by_total = tabs[T_TOTAL]
    third = tabs[T_3, 1]
    g = rows[w]
    me = seats[g]
    o = out[g]
    for i in range(o.shape[0]):
        o[i] = 0.0
    o[offs[O_PHASE] + row[g, PHASE]] = 1.0
    cur = row[g, CUR]
    if cur >= 0:
        rel = cur - me
        o[offs[O_TO_ACT] + (rel + n if rel < 0 else rel)] = 1.0
    hand_out = o[offs[O_HAND]:]
    counts = hcnt[g, me]
    for r in range(NUM_RANKS):
        hand_out[r] = _at(by_copies, counts[r])
    face_up_out = o[offs[O_FACE_UP]:]
    face_down_out = o[offs[O_FACE_DOWN]:]
    hand_size_out = o[offs[O_HAND_SIZE]:]
    known_out = o[offs[O_KNOWN]:]
    absent_out = o[offs[O_ABSENT]:]
    swap_picks_out = o[offs[O_SWAP_PICKS]:]
    places_out = o[offs[O_OUT]:]
    p = me
    for k in range(n):
        seat_up_out = face_up_out[k * NUM_RANKS:]
        cards = up[g, p]
        for i in range(pl[g, p, ULEN]):  # thirds add up exactly: 1/3 + 1/3 + 1/3 == 3/3 in float32
            seat_up_out[_at(_RANK, cards[i])] += third
        hand_size_out[k] = _at(by_total, pl[g, p, HSIZE])
        slots = down[g, p]
        for j in range(NUM_SLOTS):
            face_down_out[k * NUM_SLOTS + j] = 1.0 if slots[j] >= 0 else 0.0
        seat_known_out = known_out[k * NUM_RANKS:]
        seat_absent_out = absent_out[k * NUM_RANKS:]
        kn = known[g, p]
        ab = absent[g, p]
        for r in range(NUM_RANKS):  # branch-free: the tables' entry 0 is 0.0
            seat_known_out[r] = _at(by_copies, kn[r])
            seat_absent_out[r] = np.float32(ab[r])
        swap_picks_out[k] = _at(tabs[T_3], pl[g, p, SWAPS])
        places_out[k] = _at(tabs[T_N], pl[g, p, PLACE])
        p += 1
        if p == n:
            p = 0
    top = row[g, RUN_RANK]
    if top != EMPTY:
        o[offs[O_PILE_TOP] + top] = 1.0
    o[offs[O_PILE_RUN]] = _at(by_copies, row[g, RUN_LEN])
    pile_out = o[offs[O_PILE_COUNTS]:]
    cleared_out = o[offs[O_CLEARED]:]
    pc = pcnt[g]
    cc = ccnt[g]
    for r in range(NUM_RANKS):
        pile_out[r] = _at(by_copies, pc[r])
        cleared_out[r] = _at(by_copies, cc[r])
    o[offs[O_STOCK_SIZE]] = _at(by_total, row[g, STOCK_LEN])
    v = row[g, TURNS]
    if v:
        o[offs[O_TURNS]] = np.float32(v) / np.float32(cfg[C_MAX_TURNS])


@njit(**KERNEL_OPTIONS)
def encode_swap(picked, dealt, pl, row, cfg, offs, tabs, rows, seats, out):
    """The SWAP phase's view over what ``_encode_row`` wrote, in the games of ``rows`` still in
    it: the observer's dealt hand and picks so far, every seat's dealt face-up cards, every hand
    size 3 (the picks are hidden). A pass of its own: in line, the rare branch slows the encoder."""
    n = cfg[C_PLAYERS]
    for w in range(rows.shape[0]):
        g = rows[w]
        if row[g, PHASE] == SWAP:
            _encode_swap_row(picked, dealt, pl, n, offs, tabs, g, seats[g], out)


@njit(**KERNEL_OPTIONS)
def _encode_swap_row(picked, dealt, pl, n, offs, tabs, g, me, out):
    o_hand = offs[O_HAND]
    for r in range(NUM_RANKS):
        out[g, o_hand + r] = tabs[T_K, dealt[g, me, D_HAND, r]]
    o_picked = offs[O_PICKED]
    m = pl[g, me, SWAPS]
    for i in range(m):
        ri = _RANK[picked[g, me, i]]
        same = 0
        for j in range(m):
            if _RANK[picked[g, me, j]] == ri:
                same += 1
        out[g, o_picked + ri] = tabs[T_3, same]
    p = me
    for k in range(n):
        base = offs[O_FACE_UP] + k * NUM_RANKS
        for r in range(NUM_RANKS):
            out[g, base + r] = tabs[T_3, dealt[g, p, D_UP, r]]
        out[g, offs[O_HAND_SIZE] + k] = tabs[T_TOTAL, NUM_SLOTS]
        p += 1
        if p == n:
            p = 0


@njit(**KERNEL_OPTIONS, nogil=True)
def encode_serial(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows, seats, out,
                  lo, hi):
    for w in range(lo, hi):
        _encode_row(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows, seats,
                    out, w)


@njit(cache=True, parallel=True)
def encode_parallel(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows, seats, out, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        encode_serial(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows,
                      seats, out, lo, hi)


@njit(cache=True, inline="always")
def _result_row(down, pl, row, cfg, scores, ranks, g):
    """``scores`` (the cards each player still holds) and ``ranks`` of the finished game g:
    first_out: the winner 1, everyone else 2; rank_all: the finishing order; a truncated game
    ranks everyone 1."""
    n = cfg[C_PLAYERS]
    over = row[g, TERMINATED] != 0 and row[g, TRUNCATED] == 0
    for p in range(n):
        left = pl[g, p, HSIZE] + pl[g, p, ULEN]
        for j in range(NUM_SLOTS):
            if down[g, p, j] >= 0:
                left += 1
        scores[g, p] = left
        place = pl[g, p, PLACE]
        if not over:
            ranks[g, p] = 1
        elif cfg[C_RANK_ALL] == 0:
            ranks[g, p] = 1 if place == 1 else 2
        else:
            ranks[g, p] = place if place > 0 else n


@njit(**KERNEL_OPTIONS)
def results_kernel(down, pl, row, cfg, rows, scores, ranks):
    for w in range(rows.shape[0]):
        _result_row(down, pl, row, cfg, scores, ranks, rows[w])


@njit(**KERNEL_OPTIONS)
def _finish_game(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng,
                 cfg, deck, orders, offs, tabs, final_obs, scores, ranks, observed, seats, rows, g):
    """The game g that ended in this step: every seat's final observation, the results and a new game
    (not inlined: it runs only for the few games that end)."""
    for s in range(cfg[C_PLAYERS]):
        seats[g] = s
        _encode_row(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows, seats,
                    observed, g)
        if row[g, PHASE] == SWAP:
            _encode_swap_row(picked, dealt, pl, cfg[C_PLAYERS], offs, tabs, g, s, observed)
        store_final_obs(observed, final_obs, g, s)
    _result_row(down, pl, row, cfg, scores, ranks, g)
    _deal(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng, cfg, deck,
          g, orders[g], False)


@njit(**KERNEL_OPTIONS, nogil=True)
def advance_serial(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng,
                   cfg, deck, orders, offs, tabs, actions, rewards, term, trunc, done, final_obs, scores, ranks,
                   reward_rank, observed, seats, current, mask, obs, rows, lo, hi):
    """``VectorEnv.step`` in the games ``lo:hi`` (``Kernels.advance``): the action; if the game
    ends, every seat's final observation, the results, rank rewards and a new deal; then the seat
    to act, the mask and the observation. A waiting game keeps its observation."""
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
            done[g] = False
        else:
            _step_row(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row,
                      cfg, actions, rewards, term, trunc, g)
            done[g] = term[g] or trunc[g]
            if done[g]:
                _finish_game(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt,
                             row, rng, cfg, deck, orders, offs, tabs, final_obs, scores, ranks, observed, seats, rows,
                             g)
                if reward_rank:
                    add_rank_rewards(ranks, rewards, g)
            current[g] = row[g, CUR]
            _legal_row(hcnt, up, down, pl, row, cfg, mask, g)
            _encode_row(hcnt, up, down, picked, dealt, known, absent, pcnt, ccnt, pl, row, cfg, offs, tabs, rows,
                        current, obs, g)
            if row[g, PHASE] == SWAP:
                _encode_swap_row(picked, dealt, pl, cfg[C_PLAYERS], offs, tabs, g, current[g], obs)


@njit(cache=True, parallel=True)
def advance_parallel(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt, row, rng,
                     cfg, deck, orders, offs, tabs, actions, rewards, term, trunc, done, final_obs, scores, ranks,
                     reward_rank, observed, seats, current, mask, obs, rows, spans):
    """:func:`advance_serial` in every game, its spans on numba's threads."""
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        advance_serial(hcnt, pl, known, absent, stock, pile, pcnt, cleared, ccnt, hand, up, down, picked, dealt,
                       row, rng, cfg, deck, orders, offs, tabs, actions, rewards, term, trunc, done, final_obs,
                       scores, ranks, reward_rank, observed, seats, current, mask, obs, rows, lo, hi)


class Kernels(GameKernels):
    """Fiddlesticks' kernels for one configuration (the interface ``card_envs.vector.VectorEnv`` uses)."""

    CURRENT = CUR
    LOWER_IS_BETTER = True  # unused: results() ranks by the finishing order, as the rules do
    #: measured on one core at 1024 games: the one pass ran 1.08-1.14x the step-by-step kernels
    #: (0.93x while the kernels still counted references)
    ONE_PASS_ON_ONE_THREAD = True

    def __init__(self, rules: FiddlesticksRules):
        cfg = rules.config
        super().__init__(rules, fs_view)
        n = self.num_players
        layout = fs_view.layout(rules)
        self.copies = rules.copies
        self.cfg = CONFIG.array(rules)
        self.offs = np.array([layout.by_name[name].start for name in _SEGMENTS], dtype=np.int64)
        self._no_decks = np.zeros((1, 1), dtype=np.int64)
        # the view's scalings as tables of float32 quotients, exactly as the codec divides
        total = 52 * cfg.num_decks
        f = np.arange(total + 1).astype(np.float32)
        self.tabs = np.zeros((4, total + 1), dtype=np.float32)
        self.tabs[T_K] = f / np.float32(rules.copies)
        self.tabs[T_3] = f / np.float32(SLOT_SCALE)
        self.tabs[T_TOTAL] = f / np.float32(total)
        self.tabs[T_N] = f / np.float32(n)

    def allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        # card ints 0..51 (-1: an empty face-down slot) fit a byte, and so do rank counts while K < 128
        a = STATE.allocate(num_envs, {PLAYERS: self.num_players, CARDS: len(self.deck), COPIES: self.copies},
                           KernelArray("order", np.int8, (CARDS,)))  # scratch: a deal's card order
        if self.copies >= 128:  # rank counts: at most K each
            for name in COUNTS:
                a[name] = a[name].astype(np.int16)
        return a

    @staticmethod
    def _game(a):
        return STATE.arrays_of(a)

    def new_games(self, a, rows, decks) -> None:
        stacked = decks is not None
        drive(new_games_serial, new_games_parallel, len(rows), *self._game(a), a["rng"], self.cfg, self.deck, rows,
              decks if stacked else self._no_decks, stacked, a["order"])

    def step(self, a, actions, rewards, term, trunc) -> None:
        drive(step_serial, step_parallel, len(actions), *self._game(a), self.cfg, actions, rewards, term, trunc)

    def legal(self, a, mask) -> None:
        drive(legal_serial, legal_parallel, len(mask), a["hcnt"], a["up"], a["down"], a["pl"], a["row"], self.cfg, mask)

    def encode(self, a, rows, seats, out) -> None:
        drive(encode_serial, encode_parallel, len(rows),
            a["hcnt"], a["up"], a["down"], a["picked"], a["dealt"], a["known"], a["absent"], a["pcnt"], a["ccnt"],
            a["pl"], a["row"], self.cfg, self.offs, self.tabs, rows, seats, out)
        encode_swap(a["picked"], a["dealt"], a["pl"], a["row"], self.cfg, self.offs, self.tabs, rows, seats, out)

    def advance(self, a, actions, out) -> None:
        """The one-pass step of every game on numba's threads (``VectorEnv.step``)."""
        drive(advance_serial, advance_parallel, len(actions), *self._game(a), a["rng"], self.cfg, self.deck,
              a["order"], self.offs, self.tabs, actions, *out)

    def results(self, a, rows, scores, ranks) -> None:
        results_kernel(a["down"], a["pl"], a["row"], self.cfg, rows, scores, ranks)

    def points(self, a) -> np.ndarray:
        """``(N, P)``: the cards each player still holds (the rules' ``scores``)."""
        return a["pl"][:, :, HSIZE] + a["pl"][:, :, ULEN] + (a["down"] >= 0).sum(axis=2)

    # ----------------------------------------------------------------- exchange with rules
    def dump(self, a, g: int) -> FiddlesticksState:
        """Game g as a ``FiddlesticksState`` (its ``rng`` a numpy Generator seeded from the row's):
        the schema's fields, then those the kernels keep in another form."""
        n = self.num_players
        r = a["row"][g]
        pl = a["pl"][g]
        s = FiddlesticksState()
        STATE.dump(a, g, s)
        s.hand = [[[int(c) for c in a["hand"][g, p, k, : a["hcnt"][g, p, k]]] for k in range(NUM_RANKS)]
                  for p in range(n)]
        s.face_up = [[int(c) for c in a["up"][g, p, : pl[p, ULEN]]] for p in range(n)]
        s.face_up_counts = [_rank_counts(s.face_up[p]) for p in range(n)]
        s.face_down = [[None if c < 0 else int(c) for c in a["down"][g, p]] for p in range(n)]
        swap = r[PHASE] == SWAP
        s.picked = [[int(c) for c in a["picked"][g, p, : pl[p, SWAPS]]] if swap else [] for p in range(n)]
        s.picked_counts = [_rank_counts(s.picked[p]) for p in range(n)]
        s.dealt_up = [[int(x) for x in a["dealt"][g, p, D_UP]] for p in range(n)]
        s.dealt_hand = [[int(x) for x in a["dealt"][g, p, D_HAND]] for p in range(n)]
        s.out = [bool(pl[p, PLACE]) for p in range(n)]
        s.places = sorted((p for p in range(n) if pl[p, PLACE]), key=lambda p: pl[p, PLACE])
        return s

    def load(self, a, g: int, s: FiddlesticksState) -> None:
        """Make game g the state ``s`` (the row's generator goes on): the schema's fields, then
        those the kernels keep in another form (``hand_counts`` gives the hand stacks' heights)."""
        STATE.load(a, g, s)
        n = self.num_players
        pl = a["pl"][g]
        for p in range(n):
            for k in range(NUM_RANKS):
                h = s.hand[p][k]
                a["hand"][g, p, k, : len(h)] = h
            a["up"][g, p, : len(s.face_up[p])] = s.face_up[p]
            pl[p, ULEN] = len(s.face_up[p])
            a["down"][g, p] = [-1 if c is None else c for c in s.face_down[p]]
            a["picked"][g, p, : len(s.picked[p])] = s.picked[p]
            a["dealt"][g, p, D_UP] = s.dealt_up[p]
            a["dealt"][g, p, D_HAND] = s.dealt_hand[p]
            pl[p, PLACE] = s.places.index(p) + 1 if s.out[p] else 0
        a["row"][g, NUM_OUT] = len(s.places)


def _rank_counts(cs: list[int]) -> list[int]:
    counts = [0] * NUM_RANKS
    for c in cs:
        counts[GAME_RANK[c]] += 1
    return counts
