"""The Game of Guilders' batched twin: ``rules.py`` and ``view.py`` as compiled kernels.

The state of N games, one row per game (struct of arrays; T = total cards, P = players), in the
order the drivers take them (declared with the state: ``rules.STATE``):

    fan        (N, T)     int16   the face-down fan, index ``row[FAN_LEN] - 1`` drawn next
    disc       (N, T)     int16   the discard pile; ``disc_by`` (int16) who drew each, ``disc_call``
                                  (int16) the call each missed
    lost, aside (N, T)    int16   cards the evil penalty took out; jokers set aside (in order)
    stats      (N, P, 5)  int32   per seat: [score, cards worth 1, 5, 10, 15]
    known      (N, P, 54) int16   per seat: the discards it drew itself
    miss       (N, P, 70) int16   per seat and call: its misses now in the discard pile; ``miss_all``
                                  (N, 70) and ``miss_seat`` (N, P) (int16) its sums over seats and calls
    pile_card  (N, P, T)  int16   every score pile in scoring order; ``pile_val`` (int8) the values
    pile_len   (N, P)     int32
    counts     (N, 4, 54) int16   per card: [scored, lost, set aside, in the discard pile]
    row        (N, F)     int32   per game scalars, named by the field constants below
    rng        (N,)       uint64  each game's own generator

Each kernel reads like the ``GuildersRules`` method it mirrors (``new_game``, ``apply`` with
``_score``, ``_discard``, ``_clear_discards``, ``_penalty``) and ``view.view`` + ``Codec.encode``,
at the offsets of the view's own Layout. ``tests/vector/`` checks them against the rules engine.

Each driver's plain loop holds its row's code itself, and every kernel compiles with numpy's error
model (``_KERNEL``): a row's code written as an inlined function of the state arrays, or one with a
division that may raise ZeroDivisionError, keeps numba's reference counting of every array in the
row loop (two atomic calls per array per row, most of a step's time); no divisor here can be 0
(players, total cards and max turns are at least 1).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from card_envs import cards
from card_envs.guilders import view as guilders_view
from card_envs.guilders.rules import (
    JOKER_CALL,
    JOKER_POINTS,
    MATCH_POINTS,
    MATCHED,
    MISSED,
    JOKER_SCORED,
    NUM_ACTIONS,
    PENALTY,
    REFANNED,
    RESHUFFLED,
    REWARD_SCALE,
    SET_ASIDE,
    STATE,
    VALUES,
    GuildersRules,
    GuildersState,
)
from card_envs.guilders.view import MISS_SCALE, NUM_EVENTS, SCORE_SCALE
from card_envs.schema import CARDS, PLAYERS, ConfigArray
from card_envs.vector import KERNEL_OPTIONS, GameKernels, drive, randbelow, span, wait_row

#: every kernel's compile options: no exception paths for division by zero (see the docstring)
_KERNEL = {**KERNEL_OPTIONS, "error_model": "numpy"}

NUM_CARDS = cards.NUM_CARDS
NUM_STATS = 1 + len(VALUES)  # the columns of ``stats``: the score, then the cards of each value
# fields of ``row`` (declared with the state: ``rules.STATE``)
CUR, TERMINATED, TRUNCATED, TURN, REFANS = (
    STATE.row(f) for f in ("current_player", "terminated", "truncated", "turn", "refans_left"))
FAN_LEN, DISC_LEN, LOST_LEN, ASIDE_LEN = (STATE.row(f) for f in ("fan_len", "disc_len", "lost_len", "aside_len"))
L_MOVER, L_CALL, L_CARD, L_PUBLIC, L_EVENTS, L_GAIN, L_LOSS, L_LOST = (STATE.row(f) for f in (
    "last_mover", "last_call", "last_card", "last_public", "last_events", "last_gain", "last_loss", "last_lost_card"))
L_PLACE_ZONE, L_PLACE_IDX = STATE.row("last_place_zone"), STATE.row("last_place_index")
PLACE_NONE, PLACE_DISCARDS, PLACE_FAN = 0, 1, 2  # ``row[L_PLACE_ZONE]``: the rules' last_place None, "discards", "fan"
# ``counts`` rows
SCORED, LOST, ASIDE, DISCARDED = range(4)
# the configuration, as one int array
CONFIG = ConfigArray(
    ("players", lambda r: r.config.num_players),
    ("public_discards", lambda r: r.config.public_discards),
    ("evil_joker", lambda r: r.config.evil_joker),
    ("good_joker", lambda r: r.config.good_joker),
    ("chaotic_joker", lambda r: r.config.chaotic_joker),
    ("refan_discards", lambda r: r.config.refan_discards),
    ("start_player", lambda r: -1 if r.config.start_player == "random" else r.config.start_player),
    ("max_turns", lambda r: r.config.max_turns),
    ("score_mode", lambda r: r.reward_mode == "score"),
    ("total_cards", lambda r: r.config.total_cards),
    ("max_copies", lambda r: r.max_copies),
)
(C_PLAYERS, C_PUBLIC, C_EVIL, C_GOOD, C_CHAOTIC, C_REFANS, C_START, C_MAX_TURNS, C_SCORE_MODE,
 C_TOTAL, C_COPIES) = map(CONFIG.index, (
    "players", "public_discards", "evil_joker", "good_joker", "chaotic_joker", "refan_discards", "start_player",
    "max_turns", "score_mode", "total_cards", "max_copies"))
# offsets into the observation, from the view's Layout. The segments up to the score piles' come
# first and start at the same index in every configuration: compile-time constants, so the loops
# over them vectorize (an index offset of unknown sign costs numba's negative-index fix-up on every
# entry); ``Kernels`` checks them against each configuration's layout
_FIXED = ("fan_size", "known_discards", "scored", "lost", "set_aside", "unseen", "last_call", "last_card",
          "last_events", "last_points", "last_lost_card", "miss_calls", "own_miss_calls", "holder")
(O_HEAD, O_KNOWN, O_SCORED, O_LOST, O_ASIDE, O_UNSEEN, O_LAST_CALL, O_LAST_CARD, O_EVENTS, O_POINTS,
 O_LOST_CARD, O_MISS, O_OWN_MISS, O_HOLDER) = (
    guilders_view.layout(GuildersRules(num_players=1)).by_name[name].start for name in _FIXED)
# the rest move with the copies of a card and the players (``offs`` indices)
_SEGMENTS = ("scored_value", "scored_place", "standing", "scores", "pile_values", "to_act", "last_mover", "seat_misses")
O_VALUE, O_PLACE, O_STANDING, O_SCORES, O_PILES, O_TO_ACT, O_LAST_MOVER, O_SEAT_MISSES = range(8)

# rows of ``Kernels.tabs``: the view's float32 scalings of the score piles' entries, indexed by the integer
T_HOLDER, T_VALUE, T_PLACE = range(3)

_MATCH = np.array(MATCH_POINTS, dtype=np.int64)
#: ``_VALUE_INDEX[v]``: the stats column of a card worth v points (1, 5, 10, 15)
_VALUE_INDEX = np.full(JOKER_POINTS + 1, -1, dtype=np.int64)
for _i, _v in enumerate(VALUES):
    _VALUE_INDEX[_v] = 1 + _i


# ------------------------------------------------------------------------------ the rules
@njit(**_KERNEL, inline="always")
def _score(pile_card, pile_val, pile_len, counts, stats, g, p, x, value):
    """The card goes to p's score pile worth ``value``."""
    k = pile_len[g, p]
    pile_card[g, p, k] = x
    pile_val[g, p, k] = value
    pile_len[g, p] = k + 1
    stats[g, p, 0] += value
    stats[g, p, _VALUE_INDEX[value]] += 1
    counts[g, SCORED, x] += 1


@njit(**_KERNEL, inline="always")
def _discard(disc, disc_by, disc_call, counts, known, miss, miss_all, miss_seat, row, g, p, x, call):
    """A miss: the card goes to the discard pile (the drawer knows it; the table knows the call
    it failed)."""
    k = row[g, DISC_LEN]
    disc[g, k] = x
    disc_by[g, k] = p
    disc_call[g, k] = call
    row[g, DISC_LEN] = k + 1
    miss[g, p, call] += 1
    miss_all[g, call] += 1
    miss_seat[g, p] += 1
    counts[g, DISCARDED, x] += 1
    known[g, p, x] += 1


@njit(**_KERNEL, inline="always")
def _clear_discards(counts, known, miss, miss_all, miss_seat, row, g, n):
    """The discard pile went into the fan: nobody knows where any of its cards lies now."""
    row[g, DISC_LEN] = 0
    for a in range(NUM_ACTIONS):
        miss_all[g, a] = 0
    for c in range(NUM_CARDS):
        counts[g, DISCARDED, c] = 0
    for p in range(n):
        miss_seat[g, p] = 0
        for c in range(NUM_CARDS):
            known[g, p, c] = 0
        for a in range(NUM_ACTIONS):
            miss[g, p, a] = 0


@njit(**_KERNEL, inline="always")
def _penalty(pile_card, pile_val, pile_len, counts, stats, lost, row, g, p):
    """Evil joker: p loses the highest-valued card of its score pile, the most recently scored
    among equal values; it leaves the game. Returns (card, value), or (-1, 0) if the pile is empty."""
    m = pile_len[g, p]
    if m == 0:
        return -1, 0
    best = m - 1
    for i in range(m - 2, -1, -1):  # strictly higher only: the latest wins ties
        if pile_val[g, p, i] > pile_val[g, p, best]:
            best = i
    card = pile_card[g, p, best]
    value = pile_val[g, p, best]
    for i in range(best, m - 1):
        pile_card[g, p, i] = pile_card[g, p, i + 1]
        pile_val[g, p, i] = pile_val[g, p, i + 1]
    pile_len[g, p] = m - 1
    stats[g, p, 0] -= value
    stats[g, p, _VALUE_INDEX[value]] -= 1
    counts[g, SCORED, card] -= 1
    lost[g, row[g, LOST_LEN]] = card
    row[g, LOST_LEN] += 1
    counts[g, LOST, card] += 1
    return card, value


@njit(**_KERNEL, inline="always")
def _shuffle_fan(fan, rng, g, length, follow):
    """Fisher-Yates shuffle of game g's first ``length`` fan cards in place (``vector.shuffle``'s
    draws and swaps); returns where the card at index ``follow`` went (-1: follow none)."""
    for i in range(length - 1, 0, -1):
        j = randbelow(rng, g, i + 1)
        t = fan[g, i]
        fan[g, i] = fan[g, j]
        fan[g, j] = t
        if follow == i:
            follow = j
        elif follow == j:
            follow = i
    return follow


@njit(**_KERNEL, nogil=True)
def new_games_serial(fan, disc, disc_by, disc_call, lost, aside, stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, rng, cfg, deck, rows, decks, stacked, lo, hi):
    """Shuffle every card into a face-down fan (or take the stacked deck, drawn top card first);
    empty discard pile and score piles; ``start_player`` calls first."""
    n = cfg[C_PLAYERS]
    size = deck.shape[0]
    for w in range(lo, hi):
        g = rows[w]
        row[g, CUR] = randbelow(rng, g, n) if cfg[C_START] < 0 else cfg[C_START]
        if stacked:
            for j in range(size):  # the end of the fan is drawn first
                fan[g, j] = decks[w, size - 1 - j]
        else:
            for j in range(size):
                fan[g, j] = deck[j]
            _shuffle_fan(fan, rng, g, size, -1)
        row[g, FAN_LEN] = size
        row[g, TERMINATED] = 0
        row[g, TRUNCATED] = 0
        row[g, TURN] = 0
        row[g, LOST_LEN] = 0
        row[g, ASIDE_LEN] = 0
        row[g, REFANS] = cfg[C_REFANS]
        for p in range(n):
            pile_len[g, p] = 0
            for v in range(NUM_STATS):
                stats[g, p, v] = 0
        for r in range(4):
            for c in range(NUM_CARDS):
                counts[g, r, c] = 0
        _clear_discards(counts, known, miss, miss_all, miss_seat, row, g, n)
        row[g, L_MOVER] = -1
        row[g, L_CALL] = -1
        row[g, L_CARD] = -1
        row[g, L_LOST] = -1
        row[g, L_PUBLIC] = 0
        row[g, L_EVENTS] = 0
        row[g, L_GAIN] = 0
        row[g, L_LOSS] = 0
        row[g, L_PLACE_ZONE] = PLACE_NONE
        row[g, L_PLACE_IDX] = 0


@njit(**_KERNEL, parallel=True)
def new_games_parallel(fan, disc, disc_by, disc_call, lost, aside, stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, rng, cfg, deck, rows, decks, stacked, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        new_games_serial(fan, disc, disc_by, disc_call, lost, aside, stats, known, miss, miss_all, miss_seat,
                         pile_card, pile_val, pile_len, counts, row, rng, cfg, deck, rows, decks, stacked, lo, hi)


@njit(**_KERNEL, nogil=True)
def step_serial(fan, disc, disc_by, disc_call, lost, aside, stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, rng, cfg, actions, rewards, term, trunc, lo, hi):
    """One whole turn (CALL, DRAW, RESOLVE, ADVANCE) in each game of ``lo:hi`` (``GuildersRules.apply``);
    a game whose action is negative waits (``VectorEnv.step``'s WAIT)."""
    n = cfg[C_PLAYERS]
    for g in range(lo, hi):
        if actions[g] < 0:
            wait_row(rewards, term, trunc, g)
            continue
        for q in range(n):
            rewards[g, q] = 0.0
        action = actions[g]
        p = row[g, CUR]
        row[g, FAN_LEN] -= 1
        x = fan[g, row[g, FAN_LEN]]
        events = 0
        gain = 0
        loss = 0
        lost_card = -1
        public = 1
        place_zone = PLACE_NONE
        place_idx = 0
        if x < 52:
            v = _MATCH[action * 52 + x] if action < JOKER_CALL else 0  # JOKER never matches a card
            if v:
                _score(pile_card, pile_val, pile_len, counts, stats, g, p, x, v)
                gain = v
                events = MATCHED
            else:
                _discard(disc, disc_by, disc_call, counts, known, miss, miss_all, miss_seat, row, g, p, x, action)
                events = MISSED
                public = cfg[C_PUBLIC]
                place_zone = PLACE_DISCARDS
                place_idx = row[g, DISC_LEN] - 1
        else:
            if cfg[C_GOOD] and action == JOKER_CALL:  # step 1: no evil penalty
                _score(pile_card, pile_val, pile_len, counts, stats, g, p, x, JOKER_POINTS)
                gain = JOKER_POINTS
                events = JOKER_SCORED
            else:
                if cfg[C_EVIL]:  # step 2
                    card, value = _penalty(pile_card, pile_val, pile_len, counts, stats, lost, row, g, p)
                    if card >= 0:
                        lost_card = card
                        loss = value
                        events |= PENALTY
                if cfg[C_EVIL] or cfg[C_CHAOTIC]:  # step 3
                    aside[g, row[g, ASIDE_LEN]] = x
                    row[g, ASIDE_LEN] += 1
                    counts[g, ASIDE, x] += 1
                    events |= SET_ASIDE
                else:
                    _discard(disc, disc_by, disc_call, counts, known, miss, miss_all, miss_seat, row, g, p, x, action)
                    events |= MISSED
                    public = cfg[C_PUBLIC]
                    place_zone = PLACE_DISCARDS
                    place_idx = row[g, DISC_LEN] - 1
            if cfg[C_CHAOTIC]:  # step 4: the discards are shuffled back into the fan
                m = row[g, FAN_LEN]
                for i in range(row[g, DISC_LEN]):
                    fan[g, m + i] = disc[g, i]
                m += row[g, DISC_LEN]
                _shuffle_fan(fan, rng, g, m, -1)
                row[g, FAN_LEN] = m
                _clear_discards(counts, known, miss, miss_all, miss_seat, row, g, n)
                events |= RESHUFFLED
        # ADVANCE
        if row[g, FAN_LEN] == 0:
            d = row[g, DISC_LEN]
            if d > 0 and row[g, REFANS] != 0:
                for i in range(d):
                    fan[g, i] = disc[g, i]
                place_idx = _shuffle_fan(fan, rng, g, d, place_idx)  # the card missed this turn, followed
                if place_zone == PLACE_DISCARDS:
                    place_zone = PLACE_FAN
                row[g, FAN_LEN] = d
                _clear_discards(counts, known, miss, miss_all, miss_seat, row, g, n)
                if row[g, REFANS] > 0:
                    row[g, REFANS] -= 1
                events |= REFANNED
            else:
                row[g, TERMINATED] = 1
        row[g, TURN] += 1
        if not row[g, TERMINATED] and row[g, TURN] >= cfg[C_MAX_TURNS]:
            row[g, TRUNCATED] = 1
        row[g, CUR] = -1 if (row[g, TERMINATED] or row[g, TRUNCATED]) else (p + 1) % n
        row[g, L_MOVER] = p
        row[g, L_CALL] = action
        row[g, L_CARD] = x
        row[g, L_PUBLIC] = public
        row[g, L_EVENTS] = events
        row[g, L_GAIN] = gain
        row[g, L_LOSS] = loss
        row[g, L_LOST] = lost_card
        row[g, L_PLACE_ZONE] = place_zone
        row[g, L_PLACE_IDX] = place_idx
        delta = gain - loss
        if delta != 0 and cfg[C_SCORE_MODE]:
            if n == 1:
                rewards[g, 0] += np.float32(delta / REWARD_SCALE)
            else:  # (points gained - mean gained by the table) / 10, for every seat
                others = -delta / (n * REWARD_SCALE)
                for q in range(n):
                    rewards[g, q] += np.float32(others)
                rewards[g, p] = np.float32(0.0 + delta * (n - 1) / (n * REWARD_SCALE))
        term[g] = row[g, TERMINATED] != 0
        trunc[g] = row[g, TRUNCATED] != 0


@njit(**_KERNEL, parallel=True)
def step_parallel(fan, disc, disc_by, disc_call, lost, aside, stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, rng, cfg, actions, rewards, term, trunc, spans):
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        step_serial(fan, disc, disc_by, disc_call, lost, aside, stats, known, miss, miss_all, miss_seat, pile_card,
                    pile_val, pile_len, counts, row, rng, cfg, actions, rewards, term, trunc, lo, hi)


@njit(**_KERNEL, nogil=True)
def legal_serial(row, good_joker, mask, lo, hi):
    """Every call is always legal, exhausted cards included; JOKER only with good_joker. The
    mask never depends on the fan."""
    for g in range(lo, hi):
        live = row[g, CUR] >= 0
        for a in range(NUM_ACTIONS):
            mask[g, a] = 1 if live else 0
        if not good_joker:
            mask[g, JOKER_CALL] = 0


@njit(**_KERNEL, parallel=True)
def legal_parallel(row, good_joker, mask, spans):
    n = mask.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        legal_serial(row, good_joker, mask, lo, hi)


@njit(**_KERNEL, nogil=True)
def encode_serial(stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, cfg, deck_counts,
                  offs, tabs, rows, seats, out, lo, hi):
    """``view.view`` then ``Codec.encode``: for each game g in ``rows[lo:hi]``, its observation
    from seat ``seats[g]``. A count scaled by the codec is the same float32 quotient the codec
    divides (``np.float32(count) / np.float32(scale)``); the other scalings are the view's own
    tables (``Kernels.tabs``), so the values are the view's to the bit. Relative seats are
    ``seat - me`` wrapped once (no modulo)."""
    n = cfg[C_PLAYERS]
    total = cfg[C_TOTAL]
    refans = max(cfg[C_REFANS], 1)
    max_turns = cfg[C_MAX_TURNS]
    public = cfg[C_PUBLIC] != 0
    copies = cfg[C_COPIES]
    per_copy = np.float32(copies)
    miss_scale = np.float32(MISS_SCALE)
    score_scale = np.float32(SCORE_SCALE)
    o_value, o_place, o_standing, o_scores = offs[O_VALUE], offs[O_PLACE], offs[O_STANDING], offs[O_SCORES]
    o_piles, o_to_act, o_last_mover, o_seat_misses = offs[O_PILES], offs[O_TO_ACT], offs[O_LAST_MOVER], offs[O_SEAT_MISSES]
    width = out.shape[1]
    for w in range(lo, hi):
        g = rows[w]
        me = seats[g]
        for i in range(width):
            out[g, i] = 0.0
        out[g, O_HEAD] = np.float32(row[g, FAN_LEN] / total)
        out[g, O_HEAD + 1] = np.float32(row[g, DISC_LEN] / total)
        if row[g, REFANS] < 0:
            out[g, O_HEAD + 3] = 1.0
        else:
            out[g, O_HEAD + 2] = np.float32(row[g, REFANS] / refans)
        out[g, O_HEAD + 4] = np.float32(row[g, TURN] / max_turns)
        for c in range(NUM_CARDS):
            kn = counts[g, DISCARDED, c] if public else known[g, me, c]
            sc = counts[g, SCORED, c]
            gone = counts[g, LOST, c]
            out[g, O_KNOWN + c] = np.float32(kn) / per_copy
            out[g, O_SCORED + c] = np.float32(sc) / per_copy
            out[g, O_LOST + c] = np.float32(gone) / per_copy
            out[g, O_UNSEEN + c] = np.float32(deck_counts[c] - sc - gone - counts[g, ASIDE, c] - kn) / per_copy
        out[g, O_ASIDE] = np.float32(counts[g, ASIDE, 52]) / per_copy
        out[g, O_ASIDE + 1] = np.float32(counts[g, ASIDE, 53]) / per_copy
        out[g, O_POINTS] = np.float32(row[g, L_GAIN] / SCORE_SCALE)
        out[g, O_POINTS + 1] = np.float32(row[g, L_LOSS] / SCORE_SCALE)
        if n > 1:  # standing: the best opponent score, the opponents ahead of and tied with this player
            my = stats[g, me, 0]
            best = -1
            ahead = 0
            tied = 0
            for q in range(n):
                if q != me:
                    s = stats[g, q, 0]
                    best = max(best, s)
                    if s > my:
                        ahead += 1
                    elif s == my:
                        tied += 1
            out[g, o_standing] = np.float32(best / SCORE_SCALE)
            out[g, o_standing + 1] = np.float32(ahead / (n - 1))
            out[g, o_standing + 2] = np.float32(tied / (n - 1))
        mover = row[g, L_MOVER]
        if mover >= 0:
            out[g, O_LAST_CALL + row[g, L_CALL]] = 1.0
            k = mover - me
            out[g, o_last_mover + (k + n if k < 0 else k)] = 1.0
            if row[g, L_PUBLIC] or mover == me:
                out[g, O_LAST_CARD + row[g, L_CARD]] = 1.0
        if row[g, L_LOST] >= 0:
            out[g, O_LOST_CARD + row[g, L_LOST]] = 1.0
        cur = row[g, CUR]
        if cur >= 0:
            k = cur - me
            out[g, o_to_act + (k + n if k < 0 else k)] = 1.0
        events = row[g, L_EVENTS]
        for i in range(NUM_EVENTS):
            if events >> i & 1:
                out[g, O_EVENTS + i] = 1.0
        for a in range(NUM_ACTIONS):
            out[g, O_MISS + a] = np.float32(miss_all[g, a]) / miss_scale
            out[g, O_OWN_MISS + a] = np.float32(miss[g, me, a]) / miss_scale
        for k in range(n):
            p = me + k if me + k < n else me + k - n
            out[g, o_scores + k] = np.float32(stats[g, p, 0]) / score_scale
            for v in range(NUM_STATS - 1):
                out[g, o_piles + (NUM_STATS - 1) * k + v] = np.float32(stats[g, p, 1 + v])
            out[g, o_seat_misses + k] = np.float32(miss_seat[g, p]) / miss_scale
        # the score piles, per card identity and copy: holder, value, place. Copies of a card are
        # numbered in (relative seat, place) order, as the view sorts them.
        for k in range(n):
            p = me + k if me + k < n else me + k - n
            for i in range(pile_len[g, p]):
                c = pile_card[g, p, i]
                j = c * copies
                while out[g, O_HOLDER + j] != 0.0:  # the next free copy of c
                    j += 1
                out[g, O_HOLDER + j] = tabs[T_HOLDER, k]
                out[g, o_value + j] = tabs[T_VALUE, pile_val[g, p, i]]
                out[g, o_place + j] = tabs[T_PLACE, i]


@njit(**_KERNEL, parallel=True)
def encode_parallel(stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, cfg, deck_counts, offs, tabs, rows, seats, out, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        encode_serial(stats, known, miss, miss_all, miss_seat, pile_card, pile_val, pile_len, counts, row, cfg,
                      deck_counts, offs, tabs, rows, seats, out, lo, hi)


class Kernels(GameKernels):
    """Guilders' kernels for one configuration (the interface ``card_envs.vector.VectorEnv`` uses)."""

    CURRENT = CUR
    LOWER_IS_BETTER = False  # highest score first; equal scores share the rank

    def __init__(self, rules: GuildersRules):
        cfg = rules.config
        super().__init__(rules, guilders_view)
        n = self.num_players
        layout = guilders_view.layout(rules)
        self.total = cfg.total_cards
        self.cfg = CONFIG.array(rules)
        fixed = tuple(layout.by_name[name].start for name in _FIXED)
        if fixed != (O_HEAD, O_KNOWN, O_SCORED, O_LOST, O_ASIDE, O_UNSEEN, O_LAST_CALL, O_LAST_CARD, O_EVENTS,
                     O_POINTS, O_LOST_CARD, O_MISS, O_OWN_MISS, O_HOLDER):
            raise AssertionError(f"the view's fixed segments moved: {dict(zip(_FIXED, fixed))}")
        self.offs = np.array([layout.by_name[name].start for name in _SEGMENTS], dtype=np.int64)
        self.deck_counts = np.array(rules.deck_counts, dtype=np.int64)
        self._no_decks = np.zeros((1, 1), dtype=np.int64)
        # the view's scalings of the score piles' entries, exactly as numpy computes them
        size = max(cfg.total_cards, JOKER_POINTS, n) + 1
        i = np.arange(size)
        self.tabs = np.zeros((3, size), dtype=np.float32)
        self.tabs[T_HOLDER] = ((i + 1) / n).astype(np.float32)
        self.tabs[T_VALUE] = (i / JOKER_POINTS).astype(np.float32)
        self.tabs[T_PLACE] = ((i + 1) / cfg.total_cards).astype(np.float32)

    def allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        return STATE.allocate(num_envs, {PLAYERS: self.num_players, CARDS: self.total})

    @staticmethod
    def _game(a):
        return STATE.arrays_of(a)

    def new_games(self, a, rows, decks) -> None:
        stacked = decks is not None
        drive(new_games_serial, new_games_parallel, len(rows), *self._game(a), a["rng"], self.cfg, self.deck, rows,
                         decks if stacked else self._no_decks, stacked)

    def step(self, a, actions, rewards, term, trunc) -> None:
        drive(step_serial, step_parallel, len(actions), *self._game(a), a["rng"], self.cfg, actions, rewards, term, trunc)

    def legal(self, a, mask) -> None:
        drive(legal_serial, legal_parallel, len(mask), a["row"], bool(self.cfg[C_GOOD]), mask)

    def encode(self, a, rows, seats, out) -> None:
        drive(encode_serial, encode_parallel, len(rows),
            a["stats"], a["known"], a["miss"], a["miss_all"], a["miss_seat"], a["pile_card"], a["pile_val"],
            a["pile_len"], a["counts"], a["row"], self.cfg, self.deck_counts, self.offs, self.tabs, rows, seats, out)

    def points(self, a) -> np.ndarray:
        return a["stats"][:, :, 0]

    # ----------------------------------------------------------------- exchange with rules
    def dump(self, a, g: int) -> GuildersState:
        """Game g as a ``GuildersState`` (its ``rng`` a numpy Generator seeded from the row's)."""
        rules = self.rules
        r = a["row"][g]
        # a new game of these rules gives the configuration, the deck counts, the generator and the
        # copy slots; every field the kernels keep is then set from the arrays
        s = rules.new_game(np.random.default_rng(int(a["rng"][g])), None)
        STATE.dump(a, g, s)
        # the counters the rules keep as int64 arrays (STATE.dump gives lists)
        s.stats = np.array(s.stats, dtype=np.int64)
        s.known = np.array(s.known, dtype=np.int64)
        s.miss_calls = np.array(s.miss_calls, dtype=np.int64)
        # the fields the kernels keep in another form
        held, values = a["pile_card"][g], a["pile_val"][g]
        s.piles = [[(int(c), int(v)) for c, v in zip(held[p, :m], values[p, :m])] for p, m in enumerate(a["pile_len"][g])]
        s.scored_counts = a["counts"][g, SCORED].astype(np.int64)
        s.lost_counts = a["counts"][g, LOST].astype(np.int64)
        s.aside_counts = a["counts"][g, ASIDE].astype(np.int64)
        s.discard_counts = a["counts"][g, DISCARDED].astype(np.int64)
        rules.index_piles(s)  # the per-copy mirrors of the piles, miss_all, miss_seat and face_down_counts
        zone = int(r[L_PLACE_ZONE])
        s.last_place = None if zone == PLACE_NONE else ("discards" if zone == PLACE_DISCARDS else "fan", int(r[L_PLACE_IDX]))
        return s

    def load(self, a, g: int, s: GuildersState) -> None:
        """Make game g the state ``s`` (the row's generator goes on)."""
        STATE.load(a, g, s)
        r = a["row"][g]
        for p, pile in enumerate(s.piles):
            a["pile_len"][g, p] = len(pile)
            a["pile_card"][g, p, : len(pile)] = [c for c, _ in pile]
            a["pile_val"][g, p, : len(pile)] = [v for _, v in pile]
        a["counts"][g, SCORED] = s.scored_counts
        a["counts"][g, LOST] = s.lost_counts
        a["counts"][g, ASIDE] = s.aside_counts
        a["counts"][g, DISCARDED] = s.discard_counts
        if s.last_place is None:
            r[L_PLACE_ZONE], r[L_PLACE_IDX] = PLACE_NONE, 0
        else:
            r[L_PLACE_ZONE] = PLACE_DISCARDS if s.last_place[0] == "discards" else PLACE_FAN
            r[L_PLACE_IDX] = s.last_place[1]
