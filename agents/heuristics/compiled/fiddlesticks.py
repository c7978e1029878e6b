"""The compiled twin of ``agents/heuristics/fiddlesticks.py``'s ``choose`` on the batched engine's
state arrays (numba: imported only where the batched engine runs; the heuristic itself needs
only numpy). Read ``choose`` first: this is its second implementation, held to the same choices
by tests/agents/test_heuristic_rows.py.

It reads the engine's state arrays by the indices the game's state declaration gives
(``card_envs.fiddlesticks.rules.STATE``, through the kernels' constants)."""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.heuristics.fiddlesticks import SWAP_PREFERENCE, TEN, TWO
from card_envs.fiddlesticks import kernels as K


def choose_rows(arrays: dict, rows: np.ndarray, out: np.ndarray, mask: np.ndarray) -> None:
    """See ``agents.heuristics.fiddlesticks.choose_rows``."""
    if mask is None:
        raise ValueError("Fiddlesticks' choose_rows needs the engine's legal mask (the legal actions of each game's player to act)")
    _choose_rows(arrays["row"], arrays["pcnt"], mask, rows, out)


_SWAP_ORDER = np.array(SWAP_PREFERENCE, dtype=np.int64)


@njit(cache=True)
def _choose_rows(row, pcnt, mask, rows, out):
    k_max = (mask.shape[1] - 17) // 13
    play_end = 13 * k_max
    pick_base, blind_base, pickup = play_end, play_end + 13, play_end + 16
    best_count = np.zeros(13, dtype=np.int64)
    for w in range(rows.shape[0]):
        g = rows[w]
        if row[g, K.CUR] < 0:
            continue
        # SWAP: the face-up pick earliest in SWAP_PREFERENCE
        pick = -1
        for j in range(13):
            if mask[g, pick_base + _SWAP_ORDER[j]]:
                pick = pick_base + _SWAP_ORDER[j]
                break
        if pick >= 0:
            out[g] = pick
            continue
        # PLAY: the most copies allowed of each rank
        any_play = False
        for r in range(13):
            best_count[r] = 0
            for k in range(k_max):
                if mask[g, r * k_max + k]:
                    best_count[r] = k + 1
                    any_play = True
        if any_play:
            top = row[g, K.RUN_RANK]
            run = row[g, K.RUN_LEN]
            r = -1
            if top < 13 and top != TWO and top != TEN and best_count[top] > 0 and run + best_count[top] >= 4:
                r = top  # completes four of a rank on the pile
            if r < 0:
                for q in range(13):  # the lowest ordinary rank
                    if q != TWO and q != TEN and best_count[q] > 0:
                        r = q
                        break
            if r < 0:
                size = 0
                for q in range(13):
                    size += pcnt[g, q]
                if best_count[TEN] > 0 and (size >= 5 or best_count[TWO] == 0):
                    r = TEN
                else:
                    r = TWO if best_count[TWO] > 0 else TEN
            k = best_count[r]
            if r == TWO or r == TEN:
                k = 1  # a wild card: keep the other copies for later
            out[g] = r * k_max + k - 1
            continue
        chosen = -1
        for a in range(blind_base, pickup):  # a blind face-down play before a forced pick-up
            if mask[g, a]:
                chosen = a
                break
        if chosen < 0:
            for a in range(mask.shape[1]):
                if mask[g, a]:
                    chosen = a
                    break
        out[g] = chosen
