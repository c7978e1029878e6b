"""Rankings and the rank-based zero-sum rewards every game shares (see DESIGN.md).

Pure Python: the rules modules use this without PettingZoo.
"""

from __future__ import annotations

from typing import Sequence


def competition_ranks(values: Sequence[float], lower_is_better: bool) -> list[int]:
    """Standard competition ranking ("1224"): 1 is best, tied players share the best rank of
    their tie, and the next rank skips the tied places (1, 1, 3, 4)."""
    sign = 1 if lower_is_better else -1
    keyed = [sign * v for v in values]
    return [1 + sum(1 for w in keyed if w < v) for v in keyed]


def ranks_from_order(groups: Sequence[Sequence[int]], num_players: int) -> list[int]:
    """Competition ranks from an ordered list of groups of seats (best group first); seats in
    one group are tied."""
    ranks = [0] * num_players
    place = 1
    for group in groups:
        for seat in group:
            ranks[seat] = place
        place += len(group)
    if 0 in ranks:
        raise ValueError(f"every seat must be ranked, got groups {groups!r}")
    return ranks


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """Terminal zero-sum rewards from competition ranks.

    Places are worth +1 (first) down to -1 (last) in equal steps; tied players share the
    average of the places they occupy. 4 players with one winner: +1, -1/3, -1/3, -1/3.
    With one player the only place is worth 0.
    """
    n = len(ranks)
    if n == 1:
        return [0.0]
    worth = [1.0 - 2.0 * p / (n - 1) for p in range(n)]  # place index 0..n-1
    out = []
    for r in ranks:
        tied = sum(1 for q in ranks if q == r)
        places = worth[r - 1 : r - 1 + tied]
        out.append(sum(places) / tied)
    return out
