"""Guillotine's batched twin: ``rules.py`` and ``view.py`` as compiled kernels over many games.

The state of N games is three fixed-shape arrays, one row per game (struct of arrays). Card sets
are the rules engine's 32-bit masks over deck indices ``8·suit + rank``, held in int64:

    seat   (N, 4, 9)  int64   per seat: [hand, played, absent, taken, trick card (-1: none),
                              tricks won, used contracts (6-bit mask), total, last deal's points]
    row    (N, F)     int64   per game scalars, named by the field constants below (phase, seat to
                              act, deal, dealer, contract, the trick's size/leader/led suit, the
                              tricks done and the first/last trick's winners, the Domino layout,
                              its playable cards and anchor, the finishing order)
    rng    (N,)       uint64  each game's own generator (``card_envs.vector``)
    order  (N, 32)    int64   scratch: a deal's card order
    points (N, 4)     int64   scratch: a deal's points

The arrays, the seat table's columns and the row's fields are declared with the state
(``rules.STATE``); the finishing order is kept as its length and two seats (``num_out``,
``out0``, ``out1``), converted in ``Kernels.dump``/``load``.

Each kernel reads like the ``GuillotineRules`` method it mirrors: ``_new_game`` is ``new_game``,
``_start_deal`` / ``_begin_play`` / ``_play_to_trick`` / ``_close_trick`` / ``_trick_points`` /
``_domino_step`` / ``_end_domino_turn`` / ``_end_deal`` are the methods of the same names,
``_legal_row`` is ``legal_mask`` (with ``legal_cards``) and ``_encode_row`` is ``view.view`` then
``view.Codec.encode``, writing at the offsets of the same :class:`~card_envs.encoding.Layout` the
view declares (module constants taken from ``view.LAYOUT``, checked against ``view.layout(rules)``),
so the two cannot drift apart; the card segments are written eight bytes at a time from a table. The generator moves only where the rules draw:
the first dealer (``first_dealer="random"``) and each deal's shuffle. ``tests/vector/`` checks
them step by step against the rules engine, byte for byte.

The row drivers (``*_serial``) and what they call compile without numba's reference counting
(``vector.KERNEL_OPTIONS``): nothing in them allocates, and counted, every array an inlined
helper takes costs an atomic increment and decrement per game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from card_envs.guillotine import view as guillotine_view
from card_envs.guillotine.rules import (
    ACE,
    BONUS,
    CHOOSE,
    CHOOSE_BASE,
    DOMINO,
    DOMINO_FIRST_OUT,
    DOMINO_SECOND_OUT,
    DOMINO_TURN,
    HAND_SIZE,
    INDEX_OF,
    KING_OF_SPADES,
    KINGS,
    NEIGHBOURS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_CONTRACTS,
    NUM_PLAYERS,
    NUM_TRICKS,
    OVER,
    PARLIAMENT,
    PASS_STOP,
    QUEENS,
    QUEENS_MASK,
    ROYALTY,
    SPADES,
    SPADES_SUIT,
    TRICK,
    STATE,
    TRICK_STRENGTH,
    GuillotineRules,
    GuillotineState,
)
from card_envs.schema import CARDS, PLAYERS, ConfigArray, KernelArray
from card_envs.vector import (KERNEL_OPTIONS, GameKernels, add_rank_rewards, drive, final_result, randbelow, shuffle, span,
                              store_final_obs, wait_row)

N = NUM_PLAYERS
assert N == 4  # relative seats are computed as ``& 3``
SCORE_SCALE = guillotine_view.SCORE_SCALE  # the view's scale of totals and points
# fields of ``seat`` and ``row`` (declared with the state: ``rules.STATE``)
HAND, PLAYED, ABSENT, TAKEN, TRICK_CARD, WON, USED, TOTAL, LAST = (STATE.column("seat", f) for f in (
    "hand", "played", "absent", "taken", "trick", "tricks_won", "used", "total", "last_deal"))
PHASE, CUR, TERMINATED, DEAL, FIRST_DEALER, DEALER, CONTRACT = (STATE.row(f) for f in (
    "phase", "current_player", "terminated", "deal", "first_dealer", "dealer", "contract"))
TRICK_SIZE, LEADER, LED, TRICKS_DONE, FIRST_WINNER, LAST_WINNER = (STATE.row(f) for f in (
    "trick_size", "leader", "led", "tricks_done", "first_winner", "last_winner"))
TABLE, PLAYABLE, ANCHOR, NOUT, OUT0, OUT1 = (STATE.row(f) for f in (
    "table", "playable", "anchor", "num_out", "out0", "out1"))
# the configuration, as one int array
CONFIG = ConfigArray(
    ("num_deals", lambda r: r.config.num_deals),
    ("fixed_contract", lambda r: -1 if r.fixed_contract is None else r.fixed_contract),
    ("first_dealer", lambda r: -1 if r.config.first_dealer == "random" else r.config.first_dealer),
    ("every_king", lambda r: r.config.king_rule == "every_king"),
    ("ace_bonus", lambda r: r.config.ace_bonus),
    ("score_mode", lambda r: r.config.reward_mode == "score"),
    ("single", lambda r: r.config.mode == "single"),
)
C_NUM_DEALS, C_FIXED, C_FIRST_DEALER, C_EVERY_KING, C_BONUS, C_SCORE_MODE, C_SINGLE = map(CONFIG.index, (
    "num_deals", "fixed_contract", "first_dealer", "every_king", "ace_bonus", "score_mode", "single"))

# offsets into the observation, from the view's Layout (the same for every configuration), as
# compile-time constants: O_* in floats, W_* (the 32-wide card segments) in uint64 words
_LAYOUT = guillotine_view.LAYOUT
_AT = {seg.name: seg.start for seg in _LAYOUT.segments}
O_LED, O_LEADER, O_FIRST_WINNER, O_ANCHOR, O_OUT = (_AT[s] for s in ("led_suit", "trick_leader", "first_trick_winner",
                                                                     "anchor", "out_order"))
O_PHASE, O_TO_ACT, O_DEALER, O_CONTRACT, O_USED = (_AT[s] for s in ("phase", "to_act", "dealer", "contract",
                                                                    "used_contracts"))
O_DEAL, O_SINGLE, O_HAND_SIZES = _AT["deal"], _AT["single_deal"], _AT["hand_sizes"]
O_TOTALS_PLUS, O_TOTALS_MINUS = _AT["totals_plus"], _AT["totals_minus"]
O_LAST_PLUS, O_LAST_MINUS = _AT["last_deal_plus"], _AT["last_deal_minus"]
W_HAND, W_TRICK, W_PLAYED, W_TAKEN, W_ABSENT = (_AT[s] // 2 for s in ("hand", "trick", "played", "taken",
                                                                      "known_absent"))
OBS_SIZE = _LAYOUT.size

_NEIGHBOURS = np.array(NEIGHBOURS, dtype=np.int64)
_INDEX_OF = np.array(INDEX_OF, dtype=np.int64)
_SUIT_MASK = np.int64(0xFF)
_KINGS = np.int64(KINGS)
_QUEENS = np.int64(QUEENS_MASK)
_KING_OF_SPADES = np.int64(KING_OF_SPADES)
_SPADES = np.int64(0xFF << (8 * SPADES_SUIT))
#: ``_BIT_TABLE[b]``: the eight float32 entries (0.0 / 1.0) of byte b's bits, low bit first, as
#: four uint64 words (the encoder writes card masks eight bytes at a time)
_BIT_TABLE = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32).view(np.uint64).copy()


# ------------------------------------------------------------------------------ the rules
@njit(**KERNEL_OPTIONS, inline="always")
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(**KERNEL_OPTIONS, inline="always")
def _begin_play(seat, row, g, contract):
    """The contract is announced; the dealer leads (or opens the Domino layout)."""
    d = row[g, DEALER]
    row[g, CONTRACT] = contract
    seat[g, d, USED] |= 1 << contract
    row[g, CUR] = d
    if contract == DOMINO:
        row[g, PHASE] = DOMINO_TURN
    else:
        row[g, PHASE] = TRICK
        row[g, LEADER] = d


@njit(**KERNEL_OPTIONS)
def _start_deal(seat, row, rng, cfg, g, order, stacked):
    """Deal all 32 cards one at a time clockwise from the dealer's left (``order``: top card
    first, shuffled here unless stacked), then the dealer chooses the contract (or the fixed
    contract of single mode applies at once)."""
    d = (row[g, FIRST_DEALER] + row[g, DEAL]) % N
    row[g, DEALER] = d
    if not stacked:
        for i in range(NUM_CARDS):
            order[i] = i
        shuffle(rng, g, order, NUM_CARDS)  # numpy's permutation is not reproduced: only the multiset
    for p in range(N):
        seat[g, p, HAND] = 0
        seat[g, p, PLAYED] = 0
        seat[g, p, ABSENT] = 0
        seat[g, p, TAKEN] = 0
        seat[g, p, TRICK_CARD] = -1
        seat[g, p, WON] = 0
    first = d + 1
    for k in range(NUM_CARDS):
        seat[g, (first + k) & 3, HAND] |= np.int64(1) << order[k]
    row[g, TRICK_SIZE] = 0
    row[g, LEADER] = -1
    row[g, LED] = -1
    row[g, TRICKS_DONE] = 0
    row[g, FIRST_WINNER] = -1
    row[g, LAST_WINNER] = -1
    row[g, TABLE] = 0
    row[g, PLAYABLE] = 0
    row[g, ANCHOR] = -1
    row[g, NOUT] = 0
    row[g, OUT0] = -1
    row[g, OUT1] = -1
    row[g, CONTRACT] = -1
    row[g, CUR] = d
    if cfg[C_FIXED] >= 0:
        _begin_play(seat, row, g, cfg[C_FIXED])
    else:
        row[g, PHASE] = CHOOSE


@njit(**KERNEL_OPTIONS)
def _new_game(seat, row, rng, cfg, g, order, stacked):
    row[g, FIRST_DEALER] = randbelow(rng, g, N) if cfg[C_FIRST_DEALER] < 0 else cfg[C_FIRST_DEALER]
    row[g, DEAL] = 0
    row[g, TERMINATED] = 0
    for p in range(N):
        seat[g, p, USED] = 0
        seat[g, p, TOTAL] = 0
        seat[g, p, LAST] = 0
    _start_deal(seat, row, rng, cfg, g, order, stacked)


@njit(**KERNEL_OPTIONS, inline="always")
def _new_games_row(seat, row, rng, cfg, rows, decks, stacked, orders, k):
    g = rows[k]
    order = orders[g]
    if stacked:
        for i in range(NUM_CARDS):
            order[i] = _INDEX_OF[decks[k, i]]
    _new_game(seat, row, rng, cfg, g, order, stacked)


@njit(**KERNEL_OPTIONS, nogil=True)
def new_games_serial(seat, row, rng, cfg, rows, decks, stacked, orders, lo, hi):
    for k in range(lo, hi):
        _new_games_row(seat, row, rng, cfg, rows, decks, stacked, orders, k)


@njit(cache=True, parallel=True)
def new_games_parallel(seat, row, rng, cfg, rows, decks, stacked, orders, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        new_games_serial(seat, row, rng, cfg, rows, decks, stacked, orders, lo, hi)


@njit(**KERNEL_OPTIONS)
def _end_deal(seat, row, rng, cfg, g, points, rewards, order):
    """Add the deal's points to the totals (score mode: pay -(points - mean) / 100); the next
    deal starts, or the game ends."""
    total = 0
    for p in range(N):
        seat[g, p, TOTAL] += points[p]
        seat[g, p, LAST] = points[p]
        total += points[p]
    if cfg[C_SCORE_MODE]:
        mean = total / N
        for p in range(N):
            rewards[g, p] = np.float32(0.0 + -(points[p] - mean) / 100.0)  # 0.0 + r, as the AEC env adds it
    if row[g, DEAL] + 1 >= cfg[C_NUM_DEALS]:
        row[g, TERMINATED] = 1
        row[g, PHASE] = OVER
        row[g, CUR] = -1
        return
    row[g, DEAL] += 1
    _start_deal(seat, row, rng, cfg, g, order, False)


@njit(**KERNEL_OPTIONS)
def _trick_points(seat, row, cfg, g, points):
    """The points each seat takes in the trick contract being played (its scoring table)."""
    c = row[g, CONTRACT]
    for p in range(N):
        t = seat[g, p, TAKEN]
        kings = _popcount(t & _KINGS)
        queens = _popcount(t & _QUEENS)
        if c == ROYALTY:
            pts = 20 * kings + 10 * queens
        elif c == QUEENS:
            pts = 10 * queens - 10 * kings
        elif c == SPADES:
            if cfg[C_EVERY_KING]:
                pen = kings
            else:
                pen = 1 if t & _KING_OF_SPADES else 0
            pts = 5 * _popcount(t & _SPADES) - 10 * pen
        elif c == PARLIAMENT:
            pts = -5 * seat[g, p, WON] - 10 * kings
        else:  # GUILLOTINE
            pts = 5 * _popcount(t) + 10 * kings + 10 * queens
            if row[g, FIRST_WINNER] == p:
                pts += 5
            if row[g, LAST_WINNER] == p:
                pts += 5
        points[p] = pts


@njit(**KERNEL_OPTIONS, inline="always")
def _close_trick(seat, row, rng, cfg, strength, g, rewards, order, points):
    """The winner takes the four cards and leads the next trick."""
    led = row[g, LED]
    best = -1
    w = -1
    gathered = np.int64(0)
    for q in range(N):  # the highest card of the led suit; off-suit cards never win
        c = seat[g, q, TRICK_CARD]
        gathered |= np.int64(1) << c
        if c >> 3 == led and strength[c & 7] > best:
            best = strength[c & 7]
            w = q
    seat[g, w, TAKEN] |= gathered
    seat[g, w, WON] += 1
    if row[g, TRICKS_DONE] == 0:
        row[g, FIRST_WINNER] = w
    row[g, TRICKS_DONE] += 1
    for q in range(N):
        seat[g, q, TRICK_CARD] = -1
    row[g, TRICK_SIZE] = 0
    row[g, LED] = -1
    if row[g, TRICKS_DONE] == NUM_TRICKS:
        row[g, LAST_WINNER] = w
        _trick_points(seat, row, cfg, g, points)
        _end_deal(seat, row, rng, cfg, g, points, rewards, order)
        return
    row[g, LEADER] = w
    row[g, CUR] = w


@njit(**KERNEL_OPTIONS, inline="always")
def _play_to_trick(seat, row, rng, cfg, strength, g, i, rewards, order, points):
    p = row[g, CUR]
    bit = np.int64(1) << i
    seat[g, p, HAND] ^= bit
    seat[g, p, PLAYED] |= bit
    if row[g, TRICK_SIZE] == 0:
        row[g, LED] = i >> 3
    elif i >> 3 != row[g, LED]:
        seat[g, p, ABSENT] |= _SUIT_MASK << (8 * row[g, LED])  # public: p could not follow the led suit
    seat[g, p, TRICK_CARD] = i
    row[g, TRICK_SIZE] += 1
    if row[g, TRICK_SIZE] < N:
        row[g, CUR] = (p + 1) & 3
        return
    _close_trick(seat, row, rng, cfg, strength, g, rewards, order, points)


@njit(**KERNEL_OPTIONS, inline="always")
def _end_domino_turn(seat, row, rng, cfg, g, p, rewards, order, points):
    """A player whose hand is empty is out; the second one out ends the deal."""
    if seat[g, p, HAND] == 0 and row[g, OUT0] != p and row[g, OUT1] != p:
        if row[g, NOUT] == 0:
            row[g, OUT0] = p
            row[g, NOUT] = 1
        else:
            row[g, OUT1] = p
            row[g, NOUT] = 2
            for q in range(N):
                points[q] = 0
            points[row[g, OUT0]] = DOMINO_FIRST_OUT
            points[p] = DOMINO_SECOND_OUT
            _end_deal(seat, row, rng, cfg, g, points, rewards, order)
            return
    q = (p + 1) & 3
    while seat[g, q, HAND] == 0:
        q = (q + 1) & 3
    row[g, CUR] = q


@njit(**KERNEL_OPTIONS, inline="always")
def _domino_step(seat, row, rng, cfg, g, a, rewards, order, points):
    p = row[g, CUR]
    if a == PASS_STOP:
        if row[g, PHASE] == DOMINO_TURN:  # a compulsory pass: public, p holds none of the playable cards
            seat[g, p, ABSENT] |= row[g, PLAYABLE]
        # a STOP ends the bonus and says nothing about p's hand (it is legal either way)
        row[g, PHASE] = DOMINO_TURN
        _end_domino_turn(seat, row, rng, cfg, g, p, rewards, order, points)
        return
    bit = np.int64(1) << a
    opening = row[g, TABLE] == 0
    seat[g, p, HAND] ^= bit
    seat[g, p, PLAYED] |= bit
    row[g, TABLE] |= bit
    if opening:
        anchor = a & 7
        row[g, ANCHOR] = anchor
        rows = np.int64(0)  # the other suits start with the anchor rank; this suit grows from the card
        for suit in range(4):
            if suit != a >> 3:
                rows |= np.int64(1) << (8 * suit + anchor)
        row[g, PLAYABLE] = rows | _NEIGHBOURS[a]
    else:
        row[g, PLAYABLE] = (row[g, PLAYABLE] & ~bit) | (_NEIGHBOURS[a] & ~row[g, TABLE])
    if seat[g, p, HAND] == 0:
        row[g, PHASE] = DOMINO_TURN
        _end_domino_turn(seat, row, rng, cfg, g, p, rewards, order, points)
        return
    if row[g, PHASE] == BONUS or ((a & 7) == ACE and not opening and cfg[C_BONUS]):
        # the bonus lasts until STOP or an empty hand, whether or not a card still fits
        row[g, PHASE] = BONUS
        return
    _end_domino_turn(seat, row, rng, cfg, g, p, rewards, order, points)


@njit(**KERNEL_OPTIONS, inline="always")
def _step_row(seat, row, rng, cfg, strength, actions, rewards, term, trunc, orders, points, g):
    """``GuillotineRules.apply`` in every game: one legal action each (checked by the caller)."""
    for q in range(N):
        rewards[g, q] = 0.0
    a = actions[g]
    phase = row[g, PHASE]
    if phase == TRICK:
        _play_to_trick(seat, row, rng, cfg, strength, g, a, rewards, orders[g], points[g])
    elif phase == DOMINO_TURN or phase == BONUS:
        _domino_step(seat, row, rng, cfg, g, a, rewards, orders[g], points[g])
    elif phase == CHOOSE:
        _begin_play(seat, row, g, a - CHOOSE_BASE)
    term[g] = row[g, TERMINATED] != 0
    trunc[g] = False


@njit(**KERNEL_OPTIONS, nogil=True)
def step_serial(seat, row, rng, cfg, strength, actions, rewards, term, trunc, orders, points, lo, hi):
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
        else:
            _step_row(seat, row, rng, cfg, strength, actions, rewards, term, trunc, orders, points, g)


@njit(cache=True, parallel=True)
def step_parallel(seat, row, rng, cfg, strength, actions, rewards, term, trunc, orders, points, spans):
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        step_serial(seat, row, rng, cfg, strength, actions, rewards, term, trunc, orders, points, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _legal_row(seat, row, cfg, mask, g):
    """``GuillotineRules.legal_mask``: from the actor's hand and public state only (the led suit,
    the layout, the dealer's used contracts). All zeros once a game is over."""
    for a in range(NUM_ACTIONS):
        mask[g, a] = 0
    phase = row[g, PHASE]
    if phase == OVER:
        return
    if phase == CHOOSE:
        used = seat[g, row[g, DEALER], USED]
        for c in range(NUM_CONTRACTS):
            if cfg[C_SINGLE] or not (used >> c) & 1:
                mask[g, CHOOSE_BASE + c] = 1
        return
    hand = seat[g, row[g, CUR], HAND]
    if phase == TRICK:
        legal = hand
        if row[g, TRICK_SIZE]:
            follow = hand & (_SUIT_MASK << (8 * row[g, LED]))
            if follow:
                legal = follow
    elif phase == DOMINO_TURN:
        legal = hand if row[g, TABLE] == 0 else hand & row[g, PLAYABLE]
    else:  # BONUS
        legal = hand & row[g, PLAYABLE]
    for i in range(NUM_CARDS):
        mask[g, i] = (legal >> i) & 1
    if phase == BONUS or (phase == DOMINO_TURN and legal == 0):
        mask[g, PASS_STOP] = 1


@njit(**KERNEL_OPTIONS, nogil=True)
def legal_serial(seat, row, cfg, mask, lo, hi):
    for g in range(lo, hi):
        _legal_row(seat, row, cfg, mask, g)


@njit(cache=True, parallel=True)
def legal_parallel(seat, row, cfg, mask, spans):
    n = mask.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        legal_serial(seat, row, cfg, mask, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _bits(o, base, word, tab):
    """The 32 entries of a card mask, 0.0 or 1.0, as 16 eight-byte stores from ``tab`` (the
    float32 bytes of each byte's eight bits); ``o`` is the row as uint64, ``base`` in its words."""
    for j in range(4):
        byte = (word >> (8 * j)) & 0xFF
        for i in range(4):
            o[base + 4 * j + i] = tab[byte, i]


@njit(**KERNEL_OPTIONS, inline="always")
def _encode_row(seat, row, cfg, tab, rows, seats, out, w):
    """``view.view`` then ``Codec.encode``: the observation of game g from seat ``seats[g]``,
    for the games g in ``rows``. The card segments are written whole from the masks; the rest is
    zeroed, then its one-hot entries and scalings are set. Relative seats are ``(p - me) & 3``
    (four players: Python's ``% 4``)."""
    g = rows[w]
    me = seats[g]
    o = out[g].view(np.uint64)
    for k in range(N):  # relative seat k is absolute seat (me + k) % N
        p = (me + k) & 3
        t = seat[g, p, TRICK_CARD]
        _bits(o, W_TRICK + 16 * k, np.int64(0) if t < 0 else np.int64(1) << t, tab)
        _bits(o, W_PLAYED + 16 * k, seat[g, p, PLAYED], tab)
        _bits(o, W_TAKEN + 16 * k, seat[g, p, TAKEN], tab)
        _bits(o, W_ABSENT + 16 * k, seat[g, p, ABSENT], tab)
    _bits(o, W_HAND, seat[g, me, HAND], tab)
    x = out[g]
    for i in range(O_LED, OBS_SIZE):
        x[i] = 0.0
    phase = row[g, PHASE]
    x[O_PHASE + phase] = 1.0
    x[O_DEALER + ((row[g, DEALER] - me) & 3)] = 1.0
    cur = row[g, CUR]
    if cur >= 0:
        x[O_TO_ACT + ((cur - me) & 3)] = 1.0
    if row[g, CONTRACT] >= 0:
        x[O_CONTRACT + row[g, CONTRACT]] = 1.0
    if row[g, LED] >= 0:
        x[O_LED + row[g, LED]] = 1.0
    if phase == TRICK and row[g, LEADER] >= 0:
        x[O_LEADER + ((row[g, LEADER] - me) & 3)] = 1.0
    if row[g, FIRST_WINNER] >= 0:
        x[O_FIRST_WINNER + ((row[g, FIRST_WINNER] - me) & 3)] = 1.0
    if row[g, ANCHOR] >= 0:
        x[O_ANCHOR + row[g, ANCHOR]] = 1.0
    if row[g, NOUT] >= 1:
        x[O_OUT + 2 * ((row[g, OUT0] - me) & 3)] = 1.0
    if row[g, NOUT] >= 2:
        x[O_OUT + 2 * ((row[g, OUT1] - me) & 3) + 1] = 1.0
    x[O_DEAL + row[g, DEAL]] = 1.0
    if cfg[C_NUM_DEALS] == 1:
        x[O_SINGLE] = 1.0
    for k in range(N):
        p = (me + k) & 3
        used = seat[g, p, USED]
        for c in range(NUM_CONTRACTS):
            if (used >> c) & 1:
                x[O_USED + NUM_CONTRACTS * k + c] = 1.0
        x[O_HAND_SIZES + k] = np.float32(_popcount(seat[g, p, HAND]) / HAND_SIZE)
        t = seat[g, p, TOTAL]
        if t > 0:
            x[O_TOTALS_PLUS + k] = np.float32(t / SCORE_SCALE)
        elif t < 0:
            x[O_TOTALS_MINUS + k] = np.float32(-t / SCORE_SCALE)
        t = seat[g, p, LAST]
        if t > 0:
            x[O_LAST_PLUS + k] = np.float32(t / SCORE_SCALE)
        elif t < 0:
            x[O_LAST_MINUS + k] = np.float32(-t / SCORE_SCALE)


@njit(**KERNEL_OPTIONS, nogil=True)
def encode_serial(seat, row, cfg, tab, rows, seats, out, lo, hi):
    for w in range(lo, hi):
        _encode_row(seat, row, cfg, tab, rows, seats, out, w)


@njit(cache=True, parallel=True)
def encode_parallel(seat, row, cfg, tab, rows, seats, out, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        encode_serial(seat, row, cfg, tab, rows, seats, out, lo, hi)



@njit(**KERNEL_OPTIONS)
def _finish_game(seat, row, rng, cfg, tab, orders, final_obs, scores, ranks, observed, seats, rows, g):
    """The game g that ended in this step: every seat's final observation, the results (the lowest
    total first) and a new game (not inlined: it runs only for the few games that end)."""
    for s in range(N):
        seats[g] = s
        _encode_row(seat, row, cfg, tab, rows, seats, observed, g)
        store_final_obs(observed, final_obs, g, s)
    final_result(seat[:, :, TOTAL], True, scores, ranks, g)
    _new_game(seat, row, rng, cfg, g, orders[g], False)


@njit(**KERNEL_OPTIONS, nogil=True)
def advance_serial(seat, row, rng, cfg, strength, tab, orders, points, actions, rewards, term, trunc, done, final_obs,
                   scores, ranks, reward_rank, observed, seats, current, mask, obs, rows, lo, hi):
    """``VectorEnv.step`` in the games ``lo:hi`` (``Kernels.advance``): the action; if the game
    ends, every seat's final observation, the results (the lowest total first), rank rewards and a
    new game; then the seat to act, the mask and the observation. A waiting game keeps its
    observation."""
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
            done[g] = False
        else:
            _step_row(seat, row, rng, cfg, strength, actions, rewards, term, trunc, orders, points, g)
            done[g] = term[g] or trunc[g]
            if done[g]:
                _finish_game(seat, row, rng, cfg, tab, orders, final_obs, scores, ranks, observed, seats, rows, g)
                if reward_rank:
                    add_rank_rewards(ranks, rewards, g)
            current[g] = row[g, CUR]
            _legal_row(seat, row, cfg, mask, g)
            _encode_row(seat, row, cfg, tab, rows, current, obs, g)


@njit(cache=True, parallel=True)
def advance_parallel(seat, row, rng, cfg, strength, tab, orders, points, actions, rewards, term, trunc, done, final_obs,
                     scores, ranks, reward_rank, observed, seats, current, mask, obs, rows, spans):
    """:func:`advance_serial` in every game, its spans on numba's threads."""
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        advance_serial(seat, row, rng, cfg, strength, tab, orders, points, actions, rewards, term, trunc, done,
                       final_obs, scores, ranks, reward_rank, observed, seats, current, mask, obs, rows, lo, hi)


class Kernels(GameKernels):
    """Guillotine's kernels for one configuration (the interface ``card_envs.vector.VectorEnv`` uses)."""

    CURRENT = CUR
    LOWER_IS_BETTER = True  # the lowest total first
    #: measured on one core at 1024 games: the one pass ran 1.23-1.27x the step-by-step kernels
    ONE_PASS_ON_ONE_THREAD = True

    def __init__(self, rules: GuillotineRules):
        cfg = rules.config
        super().__init__(rules, guillotine_view)
        self.cfg = CONFIG.array(rules)
        self.strength = np.array(TRICK_STRENGTH[cfg.trick_rank_order], dtype=np.int64)
        # the encoder's constants come from view.LAYOUT: it must be this configuration's layout, its
        # card segments 32 wide, laid end to end up to led_suit (written whole, eight bytes at a
        # time, so at even float offsets); everything from led_suit on is zeroed, then set
        assert guillotine_view.layout(rules) is _LAYOUT and self.obs_size == OBS_SIZE
        card_segments = ("hand", "trick", "played", "taken", "known_absent")
        assert [seg.name for seg in _LAYOUT.segments[:5]] == list(card_segments)
        assert all(_LAYOUT.by_name[name].size % NUM_CARDS == 0 and _AT[name] % 2 == 0 for name in card_segments)
        assert _AT["led_suit"] == _LAYOUT.by_name["known_absent"].stop and OBS_SIZE % 2 == 0
        self._no_decks = np.zeros((1, 1), dtype=np.int64)

    def allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        return STATE.allocate(num_envs, {PLAYERS: N, CARDS: NUM_CARDS},
                              KernelArray("order", np.int64, (CARDS,)),  # scratch: a deal's card order
                              KernelArray("points", np.int64, (PLAYERS,)))  # scratch: a deal's points

    def new_games(self, a, rows, decks) -> None:
        stacked = decks is not None
        drive(new_games_serial, new_games_parallel, rows.shape[0],
            a["seat"], a["row"], a["rng"], self.cfg, rows, decks if stacked else self._no_decks, stacked, a["order"])

    def step(self, a, actions, rewards, term, trunc) -> None:
        drive(step_serial, step_parallel, actions.shape[0],
            a["seat"], a["row"], a["rng"], self.cfg, self.strength, actions, rewards, term, trunc, a["order"],
            a["points"])

    def legal(self, a, mask) -> None:
        drive(legal_serial, legal_parallel, mask.shape[0], a["seat"], a["row"], self.cfg, mask)

    def encode(self, a, rows, seats, out) -> None:
        drive(encode_serial, encode_parallel, rows.shape[0],
            a["seat"], a["row"], self.cfg, _BIT_TABLE, rows, seats, out)

    def advance(self, a, actions, out) -> None:
        """The one-pass step of every game (``VectorEnv.step``), on numba's threads or one."""
        drive(advance_serial, advance_parallel, actions.shape[0], a["seat"], a["row"], a["rng"], self.cfg,
              self.strength, _BIT_TABLE, a["order"], a["points"], actions, *out)

    def points(self, a) -> np.ndarray:
        return a["seat"][:, :, TOTAL]

    # ----------------------------------------------------------------- exchange with rules
    def dump(self, a, g: int) -> GuillotineState:
        """Game g as a ``GuillotineState`` (its ``rng`` a numpy Generator seeded from the row's)."""
        r = a["row"][g]
        s = GuillotineState()
        STATE.dump(a, g, s)
        s.truncated = False
        s.num_deals = int(self.cfg[C_NUM_DEALS])
        s.out = [int(r[OUT0]), int(r[OUT1])][: r[NOUT]]
        return s

    def load(self, a, g: int, s: GuillotineState) -> None:
        """Make game g the state ``s`` (the row's generator goes on)."""
        if s.num_deals != self.cfg[C_NUM_DEALS]:
            raise ValueError(f"the state is a game of {s.num_deals} deal(s), this configuration plays "
                             f"{self.cfg[C_NUM_DEALS]}")
        STATE.load(a, g, s)
        r = a["row"][g]
        r[NOUT] = len(s.out)
        r[OUT0] = s.out[0] if len(s.out) > 0 else -1
        r[OUT1] = s.out[1] if len(s.out) > 1 else -1


__all__ = ["Kernels"]
