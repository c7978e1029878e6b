"""Rankings and the rank-based zero-sum rewards every game shares.

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


def rank_reward(rank: int, tied: int, num_players: int) -> float:
    """The terminal reward of a seat of competition rank ``rank`` tied with ``tied`` seats (itself
    included) among ``num_players``.

    Places are worth +1 (first) down to -1 (last) in equal steps, ``(n - 1 - 2p) / (n - 1)`` for
    place index ``p``; tied seats share the average of the places they occupy. That average is
    the rational ``(n + 2 - 2 * rank - tied) / (n - 1)``, computed here as one division of two
    integers, so the float is the exact value rounded once: a full tie pays exactly 0.0, tied
    seats get identical floats, and ranks symmetric under reversal pay exact negations (their
    rewards sum to exactly 0.0). One player alone gets 0.0.
    """
    if num_players == 1:
        return 0.0
    return (num_players + 2 - 2 * rank - tied) / (num_players - 1)


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """Terminal zero-sum rewards from competition ranks (:func:`rank_reward` for each seat).

    4 players with one winner: +1, -1/3, -1/3, -1/3; ranks ``[1, 1, 3, 3]``: +2/3, +2/3, -2/3,
    -2/3; everyone tied: 0.0 for all.
    """
    n = len(ranks)
    return [rank_reward(int(r), sum(1 for q in ranks if q == r), n) for r in ranks]
