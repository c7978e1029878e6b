"""Collector's (and Hot's) batched twin: the shared round engine as compiled kernels.

Collector and Hot run one engine (:mod:`card_envs.set_collecting.engine`); so do their kernels. What
differs is the game's variant (``rules.variant``), read into the configuration array: how many
cards a taker and a contest loser draw (``cfg[C_TAKE_DRAWS]``, ``cfg[C_LOSER_DRAWS]``), and whether
the game runs over deals (``cfg[C_DEALS]``: Hot's callers score the deal from their opponents'
missing ranks, into totals, the deals going on to ``target_points``; else Collector's first
completed set ends the game). Each game's kernels module binds its variant. The state of N games, one row per
game (struct of arrays; P = players), declared with the rules' state (``engine.STATE``: each
field of ``SetState`` and where these arrays keep it; the drivers take the arrays in its order):

    counts  (N, P, 13) int8    rank counts of each hand; ``kcounts`` those of ``known``
    seat    (N, P, F)  int32   per seat: hand/known sizes, distinct ranks, this phase's played
                               card and commitment, the asking order (``seat[g, i, ORDER]`` is the
                               i-th seat asked), the last round (played, taker, drawn, claim),
                               first place, winner/caller, Hot's totals and last deal's points,
                               and the resolution's scratch (cards owed)
    shown   (N, P, 13) int8    the hands laid down (``row[HAS_SHOWN]``)
    hand    (N, P, 52) int16   every hand, in the rules engine's list order (``seat[HLEN]`` cards)
    known   (N, P, 52) int16   the cards of each hand every player knows about, in order
    stock   (N, 52)    int16   a ring buffer: the top at ``row[HEAD]``, ``row[STOCK_LEN]`` cards,
                               the top ``row[STOCK_UNKNOWN]`` never seen
    row     (N, F)     int32   per game scalars, named by the field constants below (``STATE.row``)
    rng     (N,)       uint64  each game's own generator (``card_envs.vector``); drawn only for a
                               new game (``dealer="random"``, the shuffle) and Hot's new deals

The asking order is the AEC env's: each commit phase asks its seats one at a time clockwise
from the lead seat (PLAY skips an empty hand), ``row[POS]`` of them have committed, and a
commitment is stored in ``seat[PENDING]`` where no mask and no observation of anyone else reads
it (the mask reads the own hand or the revealed cards; the observation shows only the own
commitment and who has committed).

Each kernel reads like the engine method it mirrors (``SetRules._deal``, ``_start_play``,
``_start_acquire``, ``apply``, ``_reveal``, ``_resolve_cards``, ``_next_round``, ``_end_game``,
``mask_for``; ``CollectorRules._check``, ``ranks``, ``scores``; ``HotRules._check``,
``_end_of_deal``, ``deal_points``, ``ranks``) and ``view.view`` + ``view.encode``, at the offsets
of the view's own Layout. ``tests/vector/`` checks them against the rules engine, byte for byte.

Speed: the kernels are compiled without numba's reference counting (``vector.KERNEL_OPTIONS``),
and on threads ``advance`` runs the whole step in one pass.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from numba import njit, prange

from card_envs.schema import CARDS, PLAYERS, ConfigArray, KernelArray
from card_envs.set_collecting import view as set_view
from card_envs.set_collecting.engine import ACQUIRE, DECK, DRAW_TWO, NUM_RANKS, OVER, PLAY, STATE, SetState
from card_envs.set_collecting.variant import SetVariant
from card_envs.vector import (
    KERNEL_OPTIONS,
    GameKernels,
    add_rank_rewards,
    drive,
    randbelow,
    shuffle,
    span,
    store_final_obs,
    wait_row,
)

DECK_SIZE = len(DECK)  # the stock's ring buffer holds the whole deck
# fields of ``row`` and ``seat`` (declared with the state: ``engine.STATE``)
(PHASE, CUR, POS, ORDER_LEN, ROUND, DEALER, LEAD, TERMINATED, TRUNCATED, HEAD, STOCK_LEN, STOCK_UNKNOWN, HAS_SHOWN,
 LAID_DOWN, DEAL) = map(STATE.row, (
    "phase", "current_player", "pos", "order_len", "round", "dealer", "lead", "terminated", "truncated", "head",
    "stock_len", "stock_unknown", "has_shown", "laid_down", "deal"))
(HLEN, KLEN, DIST, PLAYED, PENDING, ORDER, LAST_PLAYED, LAST_TAKER, LAST_DRAWN, LAST_CLAIM, FIRST, WINNER, SCORE,
 LAST_POINTS, OWED) = (STATE.column("seat", f) for f in STATE.seat_tables["seat"][0])
# the configuration, as one int array
CONFIG = ConfigArray(
    ("players", lambda r: r.num_players),
    ("hand_size", lambda r: r.config.hand_size),
    ("dealer", lambda r: -1 if r.config.dealer == "random" else r.config.dealer),
    ("max_rounds", lambda r: r.max_rounds),
    ("deals", lambda r: r.variant.deals),
    ("take_draws", lambda r: r.take_draws),
    ("loser_draws", lambda r: r.loser_draws),
    # the options of one game or the other (0 where the game has none)
    ("most_ranks", lambda r: getattr(r.config, "truncation_rule", None) == "most_ranks"),
    ("target_points", lambda r: getattr(r.config, "target_points", 0)),
    ("single_deal", lambda r: getattr(r.config, "single_deal", False)),
    ("max_deals", lambda r: getattr(r.config, "max_deals", 0)),
    ("score_mode", lambda r: r.reward_mode == "score"),
    ("actions", lambda r: r.num_actions),
)
(C_PLAYERS, C_HAND, C_DEALER, C_MAX_ROUNDS, C_DEALS, C_TAKE_DRAWS, C_LOSER_DRAWS, C_MOST_RANKS, C_TARGET, C_SINGLE,
 C_MAX_DEALS, C_SCORE_MODE, C_ACTIONS) = (CONFIG.index(name) for name, _ in CONFIG.entries)
# offsets into the observation (``offs`` indices), from the view's Layout (-1: not in this game)
_SEGMENTS = ("phase", "lead", "round", "stock_size", "own_commit", "committed", "played", "last_played",
             "last_taken_by", "hand", "hand_sizes", "last_drawn", "known_cards", "stock_known", "shown_hands",
             "last_claimed", "callers", "first_place", "scores", "dealer", "deal", "last_deal_points")
(O_PHASE, O_LEAD, O_ROUND, O_STOCK_SIZE, O_OWN, O_COMMITTED, O_PLAYED, O_LAST_PLAYED, O_TAKEN, O_HAND,
 O_HAND_SIZES, O_LAST_DRAWN, O_KNOWN, O_STOCK_KNOWN, O_SHOWN, O_CLAIMED, O_CALLERS, O_FIRST, O_SCORES,
 O_DEALER, O_DEAL, O_DEAL_POINTS) = range(22)

#: ``_RANK[c]``: the rank of card int c (suits do not matter), a table instead of ``c % 13``
_RANK = (np.arange(DECK_SIZE) % NUM_RANKS).astype(np.int64)


# ------------------------------------------------------------------------------ the rules
@njit(**KERNEL_OPTIONS)
def _add_card(hand, counts, seat, g, p, c):
    """A card joins the end of ``p``'s hand (a taken card, a drawn card)."""
    hand[g, p, seat[g, p, HLEN]] = c
    seat[g, p, HLEN] += 1
    r = _RANK[c]
    if counts[g, p, r] == 0:
        seat[g, p, DIST] += 1
    counts[g, p, r] += 1


@njit(**KERNEL_OPTIONS)
def _add_known(known, kcounts, seat, g, p, c):
    known[g, p, seat[g, p, KLEN]] = c
    seat[g, p, KLEN] += 1
    kcounts[g, p, _RANK[c]] += 1


@njit(**KERNEL_OPTIONS)
def _start_acquire(seat, row, cfg, g):
    """ACQUIRE asks every seat, clockwise from the lead seat."""
    n = cfg[C_PLAYERS]
    row[g, PHASE] = ACQUIRE
    lead = row[g, LEAD]
    for i in range(n):
        seat[g, i, PENDING] = -1
        seat[g, i, ORDER] = (lead + i) % n
    row[g, ORDER_LEN] = n
    row[g, POS] = 0
    row[g, CUR] = seat[g, 0, ORDER]


@njit(**KERNEL_OPTIONS)
def _start_play(seat, row, cfg, g):
    """PLAY asks every seat holding cards, clockwise from the lead seat."""
    n = cfg[C_PLAYERS]
    row[g, PHASE] = PLAY
    lead = row[g, LEAD]
    for i in range(n):
        seat[g, i, PLAYED] = -1
        seat[g, i, PENDING] = -1
    k = 0
    for i in range(n):
        p = (lead + i) % n
        if seat[g, p, HLEN] > 0:
            seat[g, k, ORDER] = p
            k += 1
    row[g, ORDER_LEN] = k
    row[g, POS] = 0
    if k == 0:  # cannot happen (some hand always holds a card), kept as the engine keeps it
        _start_acquire(seat, row, cfg, g)
        return
    row[g, CUR] = seat[g, 0, ORDER]


@njit(**KERNEL_OPTIONS)
def _deal(hand, counts, kcounts, stock, seat, row, rng, cfg, deck, g, order, stacked, dealer):
    """``SetRules._deal``: shuffle (unless stacked), deal ``hand_size`` cards one at a time
    clockwise from the dealer's left; the rest is the stock, its top ``order``'s next card."""
    n = cfg[C_PLAYERS]
    if not stacked:
        for i in range(DECK_SIZE):
            order[i] = deck[i]
        shuffle(rng, g, order, DECK_SIZE)  # numpy's permutation is not reproduced: only the multiset
    row[g, DEALER] = dealer
    for p in range(n):
        seat[g, p, HLEN] = 0
        seat[g, p, KLEN] = 0
        seat[g, p, DIST] = 0
        for r in range(NUM_RANKS):
            counts[g, p, r] = 0
            kcounts[g, p, r] = 0
        seat[g, p, LAST_PLAYED] = -1
        seat[g, p, LAST_TAKER] = -1
        seat[g, p, LAST_DRAWN] = 0
        seat[g, p, LAST_CLAIM] = -1
    dealt = cfg[C_HAND] * n
    for i in range(dealt):
        _add_card(hand, counts, seat, g, (dealer + 1 + i) % n, order[i])
    row[g, LAID_DOWN] = 0
    rest = DECK_SIZE - dealt
    for j in range(rest):
        stock[g, j] = order[dealt + j]
    row[g, HEAD] = 0
    row[g, STOCK_LEN] = rest
    row[g, STOCK_UNKNOWN] = rest
    row[g, ROUND] = 0
    row[g, LEAD] = (dealer + 1) % n
    _start_play(seat, row, cfg, g)


@njit(**KERNEL_OPTIONS, inline="always")
def _new_games_row(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, rows, decks, stacked, orders, k):
    """``SetRules.new_game`` in game ``rows[k]`` (from stacked deck ``decks[k]`` if ``stacked``)."""
    n = cfg[C_PLAYERS]
    g = rows[k]
    order = orders[g]
    if stacked:
        for i in range(DECK_SIZE):
            order[i] = decks[k, i]
    row[g, TERMINATED] = 0
    row[g, TRUNCATED] = 0
    row[g, HAS_SHOWN] = 0
    row[g, DEAL] = 0
    for p in range(n):
        seat[g, p, WINNER] = 0
        seat[g, p, SCORE] = 0
        seat[g, p, LAST_POINTS] = 0
        seat[g, p, FIRST] = 0
    dealer = randbelow(rng, g, n) if cfg[C_DEALER] < 0 else cfg[C_DEALER]
    _deal(hand, counts, kcounts, stock, seat, row, rng, cfg, deck, g, order, stacked, dealer)


@njit(**KERNEL_OPTIONS, nogil=True)
def new_games_serial(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, rows, decks, stacked, orders, lo, hi):
    for k in range(lo, hi):
        _new_games_row(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, rows, decks, stacked, orders, k)


@njit(cache=True, parallel=True)
def new_games_parallel(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, rows, decks, stacked, orders, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        new_games_serial(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, rows, decks, stacked,
                         orders, lo, hi)


@njit(**KERNEL_OPTIONS)
def _reveal(hand, known, counts, kcounts, seat, row, g):
    """``SetRules._reveal``: every asked seat plays a card of its committed rank, a publicly
    known copy first (the first in ``known``), else the first of that rank in its hand."""
    for i in range(row[g, ORDER_LEN]):
        p = seat[g, i, ORDER]
        r = seat[g, p, PENDING]
        card = -1
        if kcounts[g, p, r]:
            kl = seat[g, p, KLEN]
            for j in range(kl):
                if _RANK[known[g, p, j]] == r:
                    card = known[g, p, j]
                    for m in range(j, kl - 1):
                        known[g, p, m] = known[g, p, m + 1]
                    seat[g, p, KLEN] = kl - 1
                    kcounts[g, p, r] -= 1
                    break
        hl = seat[g, p, HLEN]
        at = -1
        for j in range(hl):
            c = hand[g, p, j]
            if (c == card) if card >= 0 else (_RANK[c] == r):
                at = j
                break
        card = hand[g, p, at]
        for m in range(at, hl - 1):
            hand[g, p, m] = hand[g, p, m + 1]
        seat[g, p, HLEN] = hl - 1
        counts[g, p, r] -= 1
        if counts[g, p, r] == 0:
            seat[g, p, DIST] -= 1
        seat[g, p, PLAYED] = card


@njit(**KERNEL_OPTIONS)
def _resolve_cards(hand, known, counts, kcounts, stock, seat, row, cfg, g):
    """``SetRules._resolve_cards``: contests, returns to the stock bottom, draws from the top,
    all in seat order from the lead seat; the commitments become the public last round."""
    n = cfg[C_PLAYERS]
    for p in range(n):
        a = seat[g, p, PENDING]
        if a == DRAW_TWO:
            seat[g, p, OWED] = 2
            seat[g, p, LAST_CLAIM] = -1
        else:
            seat[g, p, OWED] = 0
            d = p + a - DRAW_TWO
            seat[g, p, LAST_CLAIM] = d - n if d >= n else d
        seat[g, p, LAST_TAKER] = -1
        seat[g, p, LAST_DRAWN] = 0
    # 1. contests: the first claimant clockwise from the discarder's left gets the card
    take_draws = cfg[C_TAKE_DRAWS]
    loser_draws = cfg[C_LOSER_DRAWS]
    for d in range(n):
        winner = -1
        best = n
        for p in range(n):
            if seat[g, p, LAST_CLAIM] == d:
                dist = p - d if p > d else p - d + n
                if dist < best:
                    best = dist
                    winner = p
        if winner < 0:
            continue
        seat[g, d, LAST_TAKER] = winner
        for p in range(n):
            if seat[g, p, LAST_CLAIM] == d:
                seat[g, p, OWED] = take_draws if p == winner else loser_draws
        c = seat[g, d, PLAYED]
        _add_card(hand, counts, seat, g, winner, c)
        _add_known(known, kcounts, seat, g, winner, c)
    # 2. untaken cards to the bottom of the stock, in seat order from the lead seat
    lead = row[g, LEAD]
    for i in range(n):
        p = (lead + i) % n
        if seat[g, p, PLAYED] >= 0 and seat[g, p, LAST_TAKER] < 0:
            at = row[g, HEAD] + row[g, STOCK_LEN]
            if at >= DECK_SIZE:
                at -= DECK_SIZE
            stock[g, at] = seat[g, p, PLAYED]
            row[g, STOCK_LEN] += 1
    # 3. draws from the top, in seat order from the lead seat, while the stock lasts
    for i in range(n):
        p = (lead + i) % n
        want = seat[g, p, OWED]
        while want > 0 and row[g, STOCK_LEN] > 0:
            head = row[g, HEAD]
            c = stock[g, head]
            row[g, HEAD] = head + 1 if head + 1 < DECK_SIZE else 0
            row[g, STOCK_LEN] -= 1
            if row[g, STOCK_UNKNOWN] > 0:
                row[g, STOCK_UNKNOWN] -= 1
            else:  # it had been seen face up: everyone knows who has it now
                _add_known(known, kcounts, seat, g, p, c)
            _add_card(hand, counts, seat, g, p, c)
            seat[g, p, LAST_DRAWN] += 1
            want -= 1
    for p in range(n):
        seat[g, p, LAST_PLAYED] = seat[g, p, PLAYED]
        seat[g, p, PLAYED] = -1
        seat[g, p, PENDING] = -1


@njit(**KERNEL_OPTIONS)
def _rank(seat, row, cfg, g, p):
    """The competition rank of ``p`` once the game is over (``CollectorRules.ranks`` /
    ``HotRules.ranks``): by total in a game of deals, else by completion."""
    n = cfg[C_PLAYERS]
    if cfg[C_DEALS]:
        if row[g, TRUNCATED]:
            return 1
        better = 0
        for q in range(n):
            if seat[g, q, SCORE] > seat[g, p, SCORE]:
                better += 1
        return 1 + better
    if row[g, TERMINATED]:
        best = 0
        for q in range(n):
            best += seat[g, q, WINNER]
        return 1 if seat[g, p, WINNER] else 1 + best
    if row[g, TRUNCATED] and cfg[C_MOST_RANKS]:
        most = 0
        for q in range(n):
            most = max(most, seat[g, q, DIST])
        best = 0
        for q in range(n):
            if seat[g, q, DIST] == most:
                best += 1
        return 1 if seat[g, p, DIST] == most else 1 + best
    return 1


@njit(**KERNEL_OPTIONS)
def _lay_down(counts, shown, seat, row, cfg, g):
    for p in range(cfg[C_PLAYERS]):
        for r in range(NUM_RANKS):
            shown[g, p, r] = counts[g, p, r]
    row[g, HAS_SHOWN] = 1
    row[g, LAID_DOWN] = 1


@njit(**KERNEL_OPTIONS)
def _end_game(seat, row, cfg, g, terminated):
    n = cfg[C_PLAYERS]
    row[g, PHASE] = OVER
    row[g, CUR] = -1
    row[g, ORDER_LEN] = 0
    row[g, POS] = 0
    for p in range(n):
        seat[g, p, PENDING] = -1
    row[g, TERMINATED] = 1 if terminated else 0
    row[g, TRUNCATED] = 0 if terminated else 1
    for p in range(n):
        seat[g, p, FIRST] = 1 if _rank(seat, row, cfg, g, p) == 1 else 0


@njit(**KERNEL_OPTIONS)
def _next_round(seat, row, cfg, g):
    row[g, ROUND] += 1
    row[g, LEAD] = (row[g, DEALER] + 1 + row[g, ROUND]) % cfg[C_PLAYERS]
    _start_play(seat, row, cfg, g)


@njit(**KERNEL_OPTIONS)
def _check(hand, counts, kcounts, shown, stock, seat, row, rng, cfg, deck, g, order, rewards):
    """CHECK: ``CollectorRules._check`` (the winners end the game; the round guard truncates)
    or ``HotRules._check`` + ``_end_of_deal`` (the callers score the deal; a deal at the round
    guard is void; then the game ends or the next deal is dealt)."""
    n = cfg[C_PLAYERS]
    complete = 0
    for p in range(n):
        if seat[g, p, DIST] == NUM_RANKS:
            complete += 1
    if not cfg[C_DEALS]:
        if complete:
            for p in range(n):
                seat[g, p, WINNER] = 1 if seat[g, p, DIST] == NUM_RANKS else 0
            _lay_down(counts, shown, seat, row, cfg, g)
            _end_game(seat, row, cfg, g, True)
        elif row[g, ROUND] + 1 >= cfg[C_MAX_ROUNDS]:
            _lay_down(counts, shown, seat, row, cfg, g)
            _end_game(seat, row, cfg, g, False)
        else:
            _next_round(seat, row, cfg, g)
        return
    if complete:
        total = 0
        for p in range(n):
            pts = 0
            if seat[g, p, DIST] == NUM_RANKS:
                for o in range(n):
                    if o != p:
                        pts += NUM_RANKS - seat[g, o, DIST]
            seat[g, p, LAST_POINTS] = pts
            seat[g, p, SCORE] += pts
            seat[g, p, WINNER] = 1 if seat[g, p, DIST] == NUM_RANKS else 0
            total += pts
        _lay_down(counts, shown, seat, row, cfg, g)
        if cfg[C_SCORE_MODE]:
            mean = total / n
            for p in range(n):
                rewards[g, p] = np.float32((seat[g, p, LAST_POINTS] - mean) / 12)  # 0.0 + r, as the AEC env adds it
        scored = True
    elif row[g, ROUND] + 1 >= cfg[C_MAX_ROUNDS]:
        for p in range(n):
            seat[g, p, LAST_POINTS] = 0
            seat[g, p, WINNER] = 0
        scored = False
    else:
        _next_round(seat, row, cfg, g)
        return
    # HotRules._end_of_deal
    top = seat[g, 0, SCORE]
    for p in range(1, n):
        top = max(top, seat[g, p, SCORE])
    if scored and (top >= cfg[C_TARGET] or cfg[C_SINGLE]):
        _end_game(seat, row, cfg, g, True)
    elif cfg[C_SINGLE] or row[g, DEAL] + 1 >= cfg[C_MAX_DEALS]:
        _end_game(seat, row, cfg, g, False)
    else:
        row[g, DEAL] += 1
        _deal(hand, counts, kcounts, stock, seat, row, rng, cfg, deck, g, order, False, (row[g, DEALER] + 1) % n)


@njit(**KERNEL_OPTIONS, inline="always")
def _step_row(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, actions, rewards, term, trunc, orders, g):
    """``SetRules.apply`` in every game: the player to act commits (one legal action each,
    checked by the caller); the phase's last commitment reveals (PLAY) or resolves (ACQUIRE)."""
    n = cfg[C_PLAYERS]
    for q in range(n):
        rewards[g, q] = 0.0
    p = row[g, CUR]
    seat[g, p, PENDING] = actions[g]
    pos = row[g, POS] + 1
    row[g, POS] = pos
    if pos < row[g, ORDER_LEN]:
        row[g, CUR] = seat[g, pos, ORDER]
    elif row[g, PHASE] == PLAY:
        _reveal(hand, known, counts, kcounts, seat, row, g)
        _start_acquire(seat, row, cfg, g)
    else:
        _resolve_cards(hand, known, counts, kcounts, stock, seat, row, cfg, g)
        _check(hand, counts, kcounts, shown, stock, seat, row, rng, cfg, deck, g, orders[g], rewards)
    term[g] = row[g, TERMINATED] != 0
    trunc[g] = row[g, TRUNCATED] != 0


@njit(**KERNEL_OPTIONS, nogil=True)
def step_serial(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, actions, rewards, term, trunc, orders, lo, hi):
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
        else:
            _step_row(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, actions, rewards, term, trunc, orders, g)


@njit(cache=True, parallel=True)
def step_parallel(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, actions, rewards, term, trunc, orders, spans):
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        step_serial(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, actions, rewards, term,
                    trunc, orders, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _legal_row(counts, seat, row, cfg, mask, g):
    """``SetRules.mask_for`` the player to act: its own hand (PLAY) or the revealed cards
    (ACQUIRE), never anyone's pending commitment; WAIT is never legal; zeros once over."""
    n = cfg[C_PLAYERS]
    for a in range(mask.shape[1]):
        mask[g, a] = 0
    p = row[g, CUR]
    phase = row[g, PHASE]
    if phase == PLAY:
        for r in range(NUM_RANKS):
            mask[g, r] = counts[g, p, r] != 0  # (no branch: which ranks a hand holds is anyone's guess)
    elif phase == ACQUIRE:
        mask[g, DRAW_TWO] = 1  # always, even from a short stock
        for k in range(1, n):
            q = p + k
            if seat[g, q - n if q >= n else q, PLAYED] >= 0:
                mask[g, DRAW_TWO + k] = 1


@njit(**KERNEL_OPTIONS, nogil=True)
def legal_serial(counts, seat, row, cfg, mask, lo, hi):
    for g in range(lo, hi):
        _legal_row(counts, seat, row, cfg, mask, g)


@njit(cache=True, parallel=True)
def legal_parallel(counts, seat, row, cfg, mask, spans):
    n = mask.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        legal_serial(counts, seat, row, cfg, mask, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _encode_row(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, seats, out, w):
    """``view.view`` then ``view.encode``: the observation of game g from seat ``seats[g]``,
    for the games g in ``rows`` (relative seats: 0 = the observer, then clockwise).

    Every segment is zeroed, then set: a caller may have written into the buffer it returned.
    """
    n = cfg[C_PLAYERS]
    g = rows[w]
    me = seats[g]
    o = out[g]
    st = seat[g]
    rg = row[g]
    stock_at = offs[O_STOCK_KNOWN]
    o[:] = 0.0
    phase = rg[PHASE]
    if phase != OVER:
        o[offs[O_PHASE] + phase] = 1.0
    rel = rg[LEAD] - me
    o[offs[O_LEAD] + (rel + n if rel < 0 else rel)] = 1.0
    o[offs[O_ROUND]] = np.float32(rg[ROUND])
    sl = rg[STOCK_LEN]
    o[offs[O_STOCK_SIZE]] = np.float32(sl)
    own = st[me, PENDING]
    if own >= 0:
        o[offs[O_OWN] + own] = 1.0
    for i in range(rg[POS]):  # who has committed (the order of asking is public), not what
        rel = st[i, ORDER] - me
        o[offs[O_COMMITTED] + (rel + n if rel < 0 else rel)] = 1.0
    deals = cfg[C_DEALS]
    has_shown = rg[HAS_SHOWN]
    o_played, o_last, o_taken, o_claimed = offs[O_PLAYED], offs[O_LAST_PLAYED], offs[O_TAKEN], offs[O_CLAIMED]
    o_sizes, o_drawn, o_known, o_shown = offs[O_HAND_SIZES], offs[O_LAST_DRAWN], offs[O_KNOWN], offs[O_SHOWN]
    for k in range(n):
        p = me + k
        if p >= n:
            p -= n
        sp = st[p]
        c = sp[PLAYED]
        if c >= 0:
            o[o_played + k * NUM_RANKS + _RANK[c]] = 1.0
        c = sp[LAST_PLAYED]
        if c >= 0:
            o[o_last + k * NUM_RANKS + _RANK[c]] = 1.0
        t = sp[LAST_TAKER]
        if t >= 0:
            rel = t - me
            o[o_taken + k * n + (rel + n if rel < 0 else rel)] = 1.0
        t = sp[LAST_CLAIM]
        if t >= 0:
            rel = t - me
            o[o_claimed + k * n + (rel + n if rel < 0 else rel)] = 1.0
        o[o_sizes + k] = np.float32(sp[HLEN])
        o[o_drawn + k] = np.float32(sp[LAST_DRAWN])
        kc = kcounts[g, p]
        base = o_known + k * NUM_RANKS
        for r in range(NUM_RANKS):
            o[base + r] = np.float32(kc[r])
        if has_shown:
            sh = shown[g, p]
            base = o_shown + k * NUM_RANKS
            for r in range(NUM_RANKS):
                o[base + r] = np.float32(sh[r])
        if sp[WINNER]:
            o[offs[O_CALLERS] + k] = 1.0
        if sp[FIRST]:
            o[offs[O_FIRST] + k] = 1.0
        if deals:
            o[offs[O_SCORES] + k] = np.float32(sp[SCORE])
            o[offs[O_DEAL_POINTS] + k] = np.float32(sp[LAST_POINTS])
    cm = counts[g, me]
    base = offs[O_HAND]
    for r in range(NUM_RANKS):
        o[base + r] = np.float32(cm[r])
    # the seen bottom of the stock: row i is the card i from the top
    unknown = rg[STOCK_UNKNOWN]
    head = rg[HEAD]
    sk = stock[g]
    for i in range(unknown, sl):
        at = head + i
        if at >= DECK_SIZE:
            at -= DECK_SIZE
        o[stock_at + i * NUM_RANKS + _RANK[sk[at]]] = 1.0
    if deals:
        rel = rg[DEALER] - me
        o[offs[O_DEALER] + (rel + n if rel < 0 else rel)] = 1.0
        o[offs[O_DEAL]] = np.float32(rg[DEAL])


@njit(**KERNEL_OPTIONS, nogil=True)
def encode_serial(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, seats, out, lo, hi):
    for w in range(lo, hi):
        _encode_row(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, seats, out, w)


@njit(cache=True, parallel=True)
def encode_parallel(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, seats, out, spans):
    n = rows.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        encode_serial(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, seats, out, lo, hi)


@njit(**KERNEL_OPTIONS, inline="always")
def _result_row(seat, row, cfg, scores, ranks, g):
    """The finished game g's final scores (one deal, Collector: different ranks held; deals, Hot:
    game totals) and competition ranks."""
    for p in range(cfg[C_PLAYERS]):
        scores[g, p] = seat[g, p, SCORE] if cfg[C_DEALS] else seat[g, p, DIST]
        ranks[g, p] = _rank(seat, row, cfg, g, p)


@njit(**KERNEL_OPTIONS)
def results_kernel(seat, row, cfg, rows, scores, ranks):
    for k in range(rows.shape[0]):
        _result_row(seat, row, cfg, scores, ranks, rows[k])


@njit(**KERNEL_OPTIONS)
def _finish_game(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, offs, no_decks, orders,
                 final_obs, scores, ranks, observed, seats, rows, g):
    """The game g that ended in this step (``rows[g] == g``): every seat's final observation, the
    results and a new game (not inlined: it runs only for the few games that end)."""
    for s in range(cfg[C_PLAYERS]):
        seats[g] = s
        _encode_row(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, seats, observed, g)
        store_final_obs(observed, final_obs, g, s)
    _result_row(seat, row, cfg, scores, ranks, g)
    _new_games_row(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, rows, no_decks, False,
                   orders, g)


@njit(**KERNEL_OPTIONS, nogil=True)
def advance_serial(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, offs, no_decks, orders,
                   actions, rewards, term, trunc, done, final_obs, scores, ranks, reward_rank,
                   observed, seats, current, mask, obs, rows, lo, hi):
    """``VectorEnv.step`` in the games ``lo:hi`` (``Kernels.advance``), each game's row touched once:
    the action; if the game ends, every seat's final observation, the results, rank rewards and a
    new game; then the seat to act, the mask and the observation. A waiting game keeps its
    observation and mask."""
    for g in range(lo, hi):
        if actions[g] < 0:  # this game waits (VectorEnv.step's WAIT)
            wait_row(rewards, term, trunc, g)
            done[g] = False
            continue
        _step_row(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, actions, rewards, term, trunc,
                  orders, g)
        done[g] = term[g] or trunc[g]
        if done[g]:
            _finish_game(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, offs, no_decks, orders,
                         final_obs, scores, ranks, observed, seats, rows, g)
            if reward_rank:
                add_rank_rewards(ranks, rewards, g)
        current[g] = row[g, CUR]
        _legal_row(counts, seat, row, cfg, mask, g)
        _encode_row(counts, kcounts, seat, shown, stock, row, cfg, offs, rows, current, obs, g)


@njit(cache=True, parallel=True)
def advance_parallel(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, offs, no_decks, orders,
                     actions, rewards, term, trunc, done, final_obs, scores, ranks,
                     reward_rank, observed, seats, current, mask, obs, rows, spans):
    """:func:`advance_serial` in every game, its spans on numba's threads."""
    n = actions.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        advance_serial(counts, kcounts, seat, shown, hand, known, stock, row, rng, cfg, deck, offs, no_decks, orders,
                       actions, rewards, term, trunc, done, final_obs, scores, ranks,
                       reward_rank, observed, seats, current, mask, obs, rows, lo, hi)


class Kernels(GameKernels):
    """The kernels of one set-collecting table (the interface ``card_envs.vector.VectorEnv``
    uses), for the game ``rules.variant`` says; each game's kernels module subclasses it naming
    its variant (``card_envs.collector.kernels.Kernels``, ``card_envs.hot.kernels.Kernels``)."""

    CURRENT = CUR
    LOWER_IS_BETTER = False
    #: the game these kernels run (a game's subclass names its own; None: the rules' game)
    variant: SetVariant | None = None

    def __init__(self, rules):
        if self.variant is not None and rules.variant is not self.variant:
            raise ValueError(f"{self.variant.title}'s kernels cannot run {rules.name}'s rules")
        super().__init__(rules, set_view)
        self.variant = rules.variant
        self.cfg = CONFIG.array(rules)
        layout = set_view.layout(rules)
        self.offs = np.array([layout.by_name[s].start if s in layout.by_name else -1 for s in _SEGMENTS],
                             dtype=np.int64)
        self._no_decks = np.zeros((1, 1), dtype=np.int64)
        stock_known = layout.by_name["stock_known"]
        assert stock_known.size == DECK_SIZE * NUM_RANKS and self.offs[O_STOCK_KNOWN] == stock_known.start

    def allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        return STATE.allocate(num_envs, {PLAYERS: self.num_players, CARDS: DECK_SIZE},
                              KernelArray("order", np.int16, (CARDS,)))  # scratch: a deal's card order

    @staticmethod
    def _game(a):
        return STATE.arrays_of(a)

    def new_games(self, a, rows, decks) -> None:
        stacked = decks is not None
        drive(new_games_serial, new_games_parallel, len(rows),
            *self._game(a), a["rng"], self.cfg, self.deck, rows, decks if stacked else self._no_decks, stacked, a["order"])

    def step(self, a, actions, rewards, term, trunc) -> None:
        drive(step_serial, step_parallel, len(actions),
            *self._game(a), a["rng"], self.cfg, self.deck, actions, rewards, term, trunc, a["order"])

    def advance(self, a, actions, out) -> None:
        """The whole step of every game in one pass, on numba's threads (``VectorEnv.step``)."""
        (rewards, term, trunc, done, final_obs, scores, ranks, reward_rank, observed, seats, current, mask, obs,
         rows) = out
        drive(advance_serial, advance_parallel, len(actions), *self._game(a), a["rng"], self.cfg, self.deck, self.offs,
              self._no_decks, a["order"], actions, rewards,
              term, trunc, done, final_obs, scores, ranks, reward_rank, observed, seats, current, mask, obs, rows)

    def legal(self, a, mask) -> None:
        drive(legal_serial, legal_parallel, len(mask), a["counts"], a["seat"], a["row"], self.cfg, mask)

    def encode(self, a, rows, seats, out) -> None:
        drive(encode_serial, encode_parallel, len(rows), a["counts"], a["kcounts"], a["seat"], a["shown"], a["stock"],
              a["row"], self.cfg, self.offs, rows, seats, out)

    def points(self, a) -> np.ndarray:
        """``(N, P)``: the game totals in a game of deals (Hot); else (Collector) the different ranks
        held (a copy)."""
        if self.variant.deals:
            return a["seat"][:, :, SCORE]
        return a["seat"][:, :, DIST].copy()

    def results(self, a, rows, scores, ranks) -> None:
        """Collector ranks by completion (or ``most_ranks``), not by its score; Hot by totals,
        everyone first when truncated."""
        results_kernel(a["seat"], a["row"], self.cfg, rows, scores, ranks)

    # ----------------------------------------------------------------- exchange with rules
    def dump(self, a, g: int) -> SetState:
        """Game g as a ``SetState`` (its ``rng`` a numpy Generator seeded from the row's)."""
        n = self.num_players
        r = a["row"][g]
        st = a["seat"][g]
        s = SetState()
        STATE.dump(a, g, s)
        # the fields the kernels keep in another form (``Derived``)
        s.num_players = n
        s.hands = [a["hand"][g, p, : st[p, HLEN]].tolist() for p in range(n)]
        s.known = [a["known"][g, p, : st[p, KLEN]].tolist() for p in range(n)]
        head = int(r[HEAD])
        s.stock = deque(a["stock"][g, (head + np.arange(int(r[STOCK_LEN]))) % DECK_SIZE].tolist())
        s.order = st[: r[ORDER_LEN], ORDER].tolist()
        s.winners = [p for p in range(n) if st[p, WINNER]]
        return s

    def load(self, a, g: int, s: SetState) -> None:
        """Make game g the state ``s`` (the row's generator goes on)."""
        STATE.load(a, g, s)
        n = self.num_players
        r = a["row"][g]
        st = a["seat"][g]
        for p in range(n):
            a["hand"][g, p, : len(s.hands[p])] = s.hands[p]
            a["known"][g, p, : len(s.known[p])] = s.known[p]
        stock = list(s.stock)
        a["stock"][g, : len(stock)] = stock
        r[HEAD] = 0
        r[STOCK_LEN] = len(stock)
        r[ORDER_LEN] = len(s.order)
        st[:, HLEN] = [len(h) for h in s.hands]
        st[:, KLEN] = [len(k) for k in s.known]
        st[:, DIST] = [NUM_RANKS - c.count(0) for c in s.counts]
        st[:, ORDER] = 0
        st[: len(s.order), ORDER] = s.order
        st[:, WINNER] = [int(p in s.winners) for p in range(n)]
        st[:, OWED] = 0
