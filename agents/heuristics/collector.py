"""Collector heuristic: play duplicates first, take revealed cards of missing ranks.

- PLAY: play a rank held twice or more (the most-held one first), since a duplicate adds
  nothing to the set. With only single cards, give up the rank the other players already hold
  most visibly (taken cards are public), so the card helps them least.
- ACQUIRE: take a revealed card whose rank the hand lacks — preferring the one played by the
  seat nearest clockwise (a contested card goes to the first claimant clockwise from the
  discarder, so the nearest discarder is the likeliest win); otherwise draw (two cards, or in
  Hot one card plus nothing) for the chance of new ranks.

Shared by Hot (``agents/heuristics/hot.py``), whose actions differ only in ACQUIRE.
"""

from __future__ import annotations

import numpy as np

DRAW_TWO = 13
TAKE_BASE = 13  # TAKE(k) / DRAW_ONE_TAKE(k) = 13 + k


def choose(view, mask: np.ndarray, rules, rng: np.random.Generator) -> int:
    legal = set(np.flatnonzero(mask).tolist())
    hand = view.hand
    if view.phase == "play":
        plays = [r for r in range(13) if r in legal]
        dups = [r for r in plays if hand[r] >= 2]
        if dups:
            return max(dups, key=lambda r: (hand[r], -r))
        known_elsewhere = [sum(kc[r] for kc in view.known_cards[1:]) for r in range(13)]
        return max(plays, key=lambda r: (known_elsewhere[r], -r))
    takes = []
    for k in range(1, view.num_players):
        a = TAKE_BASE + k
        r = view.played[k]
        if a in legal and r is not None and hand[r] == 0:
            takes.append((k, a))
    if takes:
        return min(takes)[1]
    return DRAW_TWO if DRAW_TWO in legal else min(legal)
