"""The compiled twin of ``agents/heuristics/golf.py``'s ``choose`` on the batched engine's
state arrays (numba: imported only where the batched engine runs; the heuristic itself needs
only numpy). Read ``choose`` first: this is its second implementation, held to the same choices
by tests/agents/test_heuristic_rows.py.

It reads the engine's state arrays by the indices the game's state declaration gives
(``card_envs.golf.rules.STATE``, through the kernels' constants)."""

from __future__ import annotations

import numpy as np
from numba import njit

from card_envs.golf import kernels as K
from card_envs.golf.kernels import _COLUMN as _COL  # the engine's rank values and slot tables
from card_envs.golf.kernels import _PARTNER as _PART
from card_envs.golf.kernels import _RANK_VALUE as _RV
from card_envs.golf.rules import DISCARD_DRAWN, DRAW, DRAW_STOCK, FLIP, FLIP_STEP, NO_FLIP, NUM_SLOTS, PLACE, TAKE_DISCARD


def choose_rows(arrays: dict, rows: np.ndarray, out: np.ndarray, mask: np.ndarray) -> None:
    """See ``agents.heuristics.golf.choose_rows``."""
    if mask is None:
        raise ValueError("Golf's choose_rows needs the engine's legal mask (the legal actions of each game's player to act)")
    _choose_rows(arrays["grid"], arrays["up"], arrays["closed"], arrays["stock"], arrays["discard"], arrays["seat"],
                 arrays["row"], mask, rows, out)


@njit(cache=True)
def _column_expect(a, b, u):
    """``column_expect`` with -1 for an unknown rank."""
    if a >= 0 and b >= 0:
        return 0.0 if a == b else float(_RV[a] + _RV[b])
    va = u if a < 0 else float(_RV[a])
    vb = u if b < 0 else float(_RV[b])
    return va + vb


@njit(cache=True)
def _layout_expect(ranks, u):
    total = 0.0
    for c in range(3):
        total += _column_expect(ranks[c], ranks[c + 3], u)
    return total


@njit(cache=True)
def _losing_if_round_ends(mine_ranks, others, totals, p, n, u):
    """``losing_if_round_ends``: ``others[k]`` the ranks of seat (p + k) % n's grid."""
    mine = _layout_expect(mine_ranks, u) + totals[p]
    best = np.inf
    for k in range(1, n):
        e = _layout_expect(others[k], u) + totals[(p + k) % n]
        if e < best:
            best = e
    return mine > best


@njit(cache=True)
def _choose_rows(grid, up, closed, stock, discard, seat, row, mask, rows, out):
    n = grid.shape[1]
    copies = stock.shape[1] // 13
    ranks = np.empty((n, NUM_SLOTS), dtype=np.int64)  # each seat's face-up ranks (-1 face down), from p
    remaining = np.empty(13, dtype=np.int64)
    totals = np.empty(n, dtype=np.float64)
    trial = np.empty(NUM_SLOTS, dtype=np.int64)
    for w in range(rows.shape[0]):
        g = rows[w]
        p = row[g, K.CUR]
        phase = row[g, K.PHASE]
        if p < 0 or phase == K.OVER:
            continue
        for k in range(n):
            q = (p + k) % n
            totals[q] = seat[g, q, K.TOTAL]
            for i in range(NUM_SLOTS):
                ranks[k, i] = grid[g, q, i] % 13 if up[g, q, i] else -1
        # unseen_mean: the cards the player cannot see, valued at their mean
        for r in range(13):
            remaining[r] = copies
        for k in range(n):
            for i in range(NUM_SLOTS):
                if ranks[k, i] >= 0:
                    remaining[ranks[k, i]] -= 1
        for j in range(row[g, K.DISCARD_LEN]):
            remaining[discard[g, j] % 13] -= 1
        if row[g, K.STOCK_KNOWN]:
            for j in range(row[g, K.STOCK_LEN]):
                remaining[stock[g, j] % 13] -= 1
        pending = row[g, K.PENDING]
        if pending >= 0:  # the player to act sees its own pending card, from either source
            remaining[pending % 13] -= 1
        count, value = 0, 0
        for r in range(13):
            if remaining[r] > 0:
                count += remaining[r]
                value += remaining[r] * _RV[r]
        u = 5.6 if count <= 0 else value / count
        own = ranks[0]
        if phase == FLIP:
            pick = -1
            for i in range(3):  # a column with no face-up card yet, top row first
                if own[i] < 0 and own[_PART[i]] < 0 and mask[g, i]:
                    pick = i
                    break
            if pick < 0:
                for i in range(NUM_SLOTS):
                    if own[i] < 0 and mask[g, i]:
                        pick = i
                        break
            out[g] = pick
        elif phase == DRAW:
            take = False
            n_discard = row[g, K.DISCARD_LEN]
            if mask[g, TAKE_DISCARD] and n_discard > 0:
                top = discard[g, n_discard - 1] % 13
                best = -99.0
                found = False
                pairs = False
                for i in range(NUM_SLOTS):
                    if closed[g, p, _COL[i]]:
                        continue
                    before = _column_expect(own[i], own[_PART[i]], u)
                    after = _column_expect(top, own[_PART[i]], u)
                    gain = before - after
                    if not found or gain > best:
                        best, found = gain, True
                    if own[i] == top and own[_PART[i]] != top:
                        pairs = True
                take = (pairs and best > 0) or (_RV[top] <= 2 and best > 1.0)
            if take:
                out[g] = TAKE_DISCARD
            elif mask[g, DRAW_STOCK]:
                out[g] = DRAW_STOCK
            else:
                out[g] = _first_legal(mask, g)
        elif phase == PLACE:
            x = pending % 13
            face_down_left = 0
            for i in range(NUM_SLOTS):
                if own[i] < 0:
                    face_down_left += 1
            best_gain, best_i, best_a = -np.inf, 0, -1
            for i in range(NUM_SLOTS):
                if not mask[g, i]:
                    continue
                gain = _column_expect(own[i], own[_PART[i]], u) - _column_expect(x, own[_PART[i]], u)
                if own[i] < 0 and face_down_left == 1:
                    for j in range(NUM_SLOTS):
                        trial[j] = own[j]
                    trial[i] = x
                    if _losing_if_round_ends(trial, ranks, totals, p, n, u):
                        gain -= 100.0  # do not end a round it is losing
                # max over (gain, -i, i): a larger gain, then the lower slot
                if best_a < 0 or gain > best_gain:
                    best_gain, best_i, best_a = gain, -i, i
            if mask[g, DISCARD_DRAWN]:  # (0.25, 0, DISCARD_DRAWN) wins ties with any slot
                if best_a < 0 or 0.25 > best_gain or (0.25 == best_gain and 0 >= best_i):
                    best_a = DISCARD_DRAWN
            out[g] = best_a
        elif phase == FLIP_STEP:
            face_down, first = 0, -1
            own_down = 0
            for i in range(NUM_SLOTS):
                if own[i] < 0:
                    own_down += 1
                    if mask[g, i]:
                        face_down += 1
            last = own_down == 1
            if mask[g, NO_FLIP] and ((last and _losing_if_round_ends(own, ranks, totals, p, n, u)) or face_down == 0):
                out[g] = NO_FLIP
            elif face_down > 0:
                # the face-down slot whose partner is known and lowest (unknown partners last)
                best_key0, best_key1 = 2, 0
                for i in range(NUM_SLOTS):
                    if own[i] < 0 and mask[g, i]:
                        q = own[_PART[i]]
                        k0 = 1 if q < 0 else 0
                        k1 = 0 if q < 0 else _RV[q]
                        if k0 < best_key0 or (k0 == best_key0 and k1 < best_key1):
                            best_key0, best_key1, first = k0, k1, i
                out[g] = first
            else:
                out[g] = _first_legal(mask, g)
        else:
            out[g] = _first_legal(mask, g)


@njit(cache=True)
def _first_legal(mask, g):
    for a in range(mask.shape[1]):
        if mask[g, a]:
            return a
    return -1
