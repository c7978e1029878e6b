"""Golf heuristic: keep low cards, complete pairs, take the discard only when it helps, and do
not end a round it is losing.

- Unknown cards are valued at the mean value of the cards not yet seen (card counting over
  the face-up grids, the discard pile and a rebuilt stock's known cards).
- Initial flips: one card in each of two different columns (more information for pairing).
- Draw: take the top discard if it pairs a face-up card in an open column, or if it is worth at
  most 2 points and would lower the expected score; otherwise draw from the stock.
- Place: put the card where it lowers the expected layout score most (pairs score 0); if nothing
  improves, discard a stock card (or put a discard-pile card in the least bad place).
- Never turn the last face-down card (which ends the round) while its expected total is behind
  an opponent's, unless nothing else is legal.
- Optional flips: turn a face-down card whose partner is low, or skip when allowed.
"""

from __future__ import annotations

import numpy as np

from card_envs.golf.rules import COLUMN_OF, DISCARD_DRAWN, DRAW_STOCK, NO_FLIP, PARTNER, RANK_VALUE, TAKE_DISCARD

NUM_SLOTS = 6


def unseen_mean(view, copies: int) -> float:
    """Mean value of the cards a face-down slot may hold: those not visible anywhere (face-up
    grids, discard pile, held card) and not known to be in a rebuilt stock."""
    remaining = [copies] * 13
    for g in view.grids:
        for r in g:
            if r is not None:
                remaining[r] -= 1
    for r, k in enumerate(view.discard_counts):
        remaining[r] -= k
    for r, k in enumerate(view.stock_counts or ()):
        remaining[r] -= k  # a rebuilt stock (and a card drawn from it) is not face down
    if view.pending is not None:
        remaining[view.pending] -= 1
    total = sum(max(k, 0) for k in remaining)
    if total <= 0:
        return 5.6
    return sum(max(k, 0) * RANK_VALUE[r] for r, k in enumerate(remaining)) / total


def column_expect(a, b, u: float) -> float:
    """Expected score of a column with ranks a, b (None = unknown, valued u)."""
    if a is not None and b is not None:
        return 0.0 if a == b else RANK_VALUE[a] + RANK_VALUE[b]
    va = u if a is None else RANK_VALUE[a]
    vb = u if b is None else RANK_VALUE[b]
    return va + vb


def layout_expect(grid, u: float) -> float:
    return sum(column_expect(grid[c], grid[c + 3], u) for c in range(3))


def place_gain(grid, slot: int, rank: int, u: float) -> float:
    """How much the expected layout score drops when ``rank`` goes into ``slot``."""
    p = PARTNER[slot]
    before = column_expect(grid[slot], grid[p], u)
    after = column_expect(rank, grid[p], u)
    return before - after


def losing_if_round_ends(view, my_grid, u: float) -> bool:
    mine = layout_expect(my_grid, u) + view.totals[0]
    others = [layout_expect(g, u) + view.totals[k] for k, g in enumerate(view.grids) if k > 0]
    return mine > min(others)


def choose(view, mask: np.ndarray, rules, rng: np.random.Generator) -> int:
    legal = set(np.flatnonzero(mask).tolist())
    copies = 4 * rules.config.decks
    u = unseen_mean(view, copies)
    grid = view.grids[0]
    closed = view.closed[0]
    if view.phase == "flip":
        face_down = [i for i in range(NUM_SLOTS) if grid[i] is None]
        # prefer a column with no face-up card yet (top row first)
        fresh = [i for i in face_down if grid[PARTNER[i]] is None and i < 3 and i in legal]
        pick = fresh[0] if fresh else next(i for i in face_down if i in legal)
        return pick
    if view.phase == "draw":
        top = view.discard_top
        if TAKE_DISCARD in legal and top is not None:
            best = max(
                (place_gain(grid, i, top, u) for i in range(NUM_SLOTS) if not closed[COLUMN_OF[i]]), default=-99
            )
            pairs = any(
                grid[i] == top and not closed[COLUMN_OF[i]] and grid[PARTNER[i]] != top for i in range(NUM_SLOTS)
            )
            if (pairs and best > 0) or (RANK_VALUE[top] <= 2 and best > 1.0):
                return TAKE_DISCARD
        return DRAW_STOCK if DRAW_STOCK in legal else min(legal)
    if view.phase == "place":
        x = view.pending
        options = []
        face_down_left = sum(1 for r in grid if r is None)
        for i in range(NUM_SLOTS):
            if i not in legal:
                continue
            gain = place_gain(grid, i, x, u)
            if grid[i] is None and face_down_left == 1:
                new_grid = list(grid)
                new_grid[i] = x
                if losing_if_round_ends(view, new_grid, u):
                    gain -= 100.0  # do not end a round it is losing
            options.append((gain, -i, i))
        if DISCARD_DRAWN in legal:
            options.append((0.25, 0, DISCARD_DRAWN))  # a small bias to keep a stable layout
        return max(options)[2]
    if view.phase == "flip_step":
        face_down = [i for i in range(NUM_SLOTS) if grid[i] is None and i in legal]
        last = len([r for r in grid if r is None]) == 1
        if NO_FLIP in legal and (last and losing_if_round_ends(view, grid, u) or not face_down):
            return NO_FLIP
        if face_down:
            # flip where the partner is low (a low known partner makes a good column either way)
            face_down.sort(key=lambda i: (grid[PARTNER[i]] is None, RANK_VALUE[grid[PARTNER[i]]] if grid[PARTNER[i]] is not None else 0))
            return face_down[0]
        return min(legal)
    return min(legal)


# ------------------------------------------------------------------ the batched engine's twin
def choose_rows(arrays: dict, rows: np.ndarray, out: np.ndarray, mask: np.ndarray) -> None:
    """:func:`choose` for the player to act in each game ``rows[i]`` of a batched engine
    (``card_envs.golf_v0.vector_env``'s state arrays), written to ``out[rows[i]]``, with ``mask``
    the engine's (N, 10) legal mask of each game's player to act: the same choice as ``choose``
    of that player's view, float for float (tests/agents/test_heuristic_rows.py), at compiled
    speed, for batched training's heuristic opponents and the search agents' rollouts. It reads
    only what the player's view holds: its own face-down cards, the stock's order and the
    others' pending cards are never read (the unseen mean counts the cards the view shows)."""
    from agents.heuristics.compiled.golf import choose_rows as compiled  # numba, only here

    compiled(arrays, rows, out, mask)
