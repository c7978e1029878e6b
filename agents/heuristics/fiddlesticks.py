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
    from agents.heuristics.compiled.fiddlesticks import choose_rows as compiled  # numba, only here

    compiled(arrays, rows, out, mask)
