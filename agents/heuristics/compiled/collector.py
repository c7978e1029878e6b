"""The compiled twin of ``agents/heuristics/collector.py``'s ``choose`` on the batched engine's
state arrays (numba: imported only where the batched engine runs; the heuristic itself needs
only numpy). Read ``choose`` first: this is its second implementation, held to the same choices
by tests/agents/test_heuristic_rows.py.

It reads the engine's state arrays by the indices the game's state declaration gives
(``card_envs.set_collecting.engine.STATE``, through the kernels' constants)."""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.heuristics.collector import DRAW_TWO, TAKE_BASE
from card_envs.set_collecting import kernels as K
from card_envs.set_collecting.engine import ACQUIRE, NUM_RANKS, PLAY


def choose_rows(arrays: dict, rows: np.ndarray, out: np.ndarray, mask: np.ndarray | None = None) -> None:
    """See ``agents.heuristics.collector.choose_rows``."""
    _choose_rows(arrays["counts"], arrays["kcounts"], arrays["seat"], arrays["row"], rows, out)


@njit(cache=True)
def _choose_rows(counts, kcounts, seat, row, rows, out):
    n = seat.shape[1]
    for i in range(rows.shape[0]):
        g = rows[i]
        p = row[g, K.CUR]
        phase = row[g, K.PHASE]
        if phase == PLAY:
            # a duplicate first (the most held, then the lowest rank) ...
            best, most = -1, 1
            for r in range(NUM_RANKS):
                if counts[g, p, r] > most:
                    best, most = r, counts[g, p, r]
            if best < 0:  # ... else the single the others are most visibly known to hold
                seen = -1
                for r in range(NUM_RANKS):
                    if counts[g, p, r]:
                        elsewhere = 0
                        for q in range(n):
                            if q != p:
                                elsewhere += kcounts[g, q, r]
                        if elsewhere > seen:
                            best, seen = r, elsewhere
            out[g] = best
        elif phase == ACQUIRE:
            out[g] = DRAW_TWO  # always legal
            for k in range(1, n):  # the nearest seat clockwise whose revealed rank is missing
                q = (p + k) % n
                c = seat[g, q, K.PLAYED]
                if c >= 0 and counts[g, p, c % NUM_RANKS] == 0:
                    out[g] = TAKE_BASE + k
                    break
