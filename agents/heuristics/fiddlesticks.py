"""Fiddlesticks heuristic: shed the lowest playable rank in full multiples, save 2s and 10s,
and put the best cards face up in the swap.

- SWAP: pick 10s, then 2s, then Aces, Kings, Queens, Jacks, 9s, and so on down: the face-up
  row is played late, when strong cards matter most.
- PLAY: among the legal plays, prefer one that completes four of a rank on top of the pile (it
  clears the pile and plays again); otherwise the lowest ordinary rank (not 2 or 10), with every
  copy allowed at once. A 10 (which clears) comes before a 2 only when the pile is big enough to
  be worth burning (5+ cards), else the 2 goes first. Never pick up voluntarily while a play
  exists; a blind face-down play is tried before a forced pick-up (it may fit).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from card_envs.fiddlesticks import kernels as K

TWO, NINE, TEN = 0, 7, 8  # rank indices 2..A = 0..12
SWAP_PREFERENCE = (TEN, TWO, 12, 11, 10, 9, NINE, 6, 5, 4, 3, 2, 1)


def choose(view, mask: np.ndarray, rules, rng: np.random.Generator) -> int:
    k_max = 4 * rules.config.num_decks
    play_end = 13 * k_max
    pick_base, blind_base, pickup = play_end, play_end + 13, play_end + 16
    legal = np.flatnonzero(mask)
    picks = [a - pick_base for a in legal if pick_base <= a < blind_base]
    if picks:
        return pick_base + min(picks, key=SWAP_PREFERENCE.index)
    plays = [a for a in legal if a < play_end]
    if plays:
        best_count: dict[int, int] = {}
        for a in plays:
            r, k = divmod(int(a), k_max)
            best_count[r] = max(best_count.get(r, 0), k + 1)
        top, run = view.pile_top, view.pile_run
        completing = [r for r, k in best_count.items() if r == top and run + k >= 4 and r not in (TWO, TEN)]
        if completing:
            r = min(completing)
        else:
            ordinary = [r for r in best_count if r not in (TWO, TEN)]
            if ordinary:
                r = min(ordinary)
            elif TEN in best_count and (sum(view.pile_counts) >= 5 or TWO not in best_count):
                r = TEN
            else:
                r = TWO if TWO in best_count else TEN
        k = best_count[r]
        if r in (TWO, TEN):
            k = 1  # a wild card: keep the other copies for later
        return r * k_max + k - 1
    blinds = [a for a in legal if blind_base <= a < pickup]
    if blinds:
        return int(blinds[0])
    return int(legal[0])


# ------------------------------------------------------------------ the batched engine's twin
def choose_rows(arrays: dict, rows: np.ndarray, out: np.ndarray, mask: np.ndarray) -> None:
    """:func:`choose` for the player to act in each game ``rows[i]`` of a batched engine
    (``card_envs.fiddlesticks_v0.vector_env``'s state arrays), written to ``out[rows[i]]``, with
    ``mask`` the engine's (N, 13K + 17) legal mask of each game's player to act: the same choice
    as ``choose`` of that player's view (tests/agents/test_heuristic_rows.py), at compiled speed,
    for batched training's heuristic opponents and the search agents' rollouts. Besides the mask
    it reads only the pile's public top rank, run and size."""
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
