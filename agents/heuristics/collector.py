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

from card_envs.set_collecting.engine import NUM_RANKS, OVER

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


def explain_world(world, view_of, rules, rng: np.random.Generator) -> bool:
    """The search agents' opponent model (``model=heuristic``): make a sampled ``world`` (the
    observer is seat 0) one in which every other seat plays this heuristic, or say it cannot be.

    ``card_envs.<game>_v0.sample_world`` draws the exact posterior for card-blind opponents:
    another seat's hidden hand uniform among the consistent ones, its pending commitment uniform
    among its legal choices. Against players who follow a rule, what they did says more. Here:

    - a pending commitment of another seat becomes this heuristic's choice from that seat's view
      of the world (nothing has changed for it since it committed in this phase);
    - a card another seat revealed this round must be the one the heuristic plays from that hand
      (the hand with the card back): the most-held rank when it held a duplicate (any single
      otherwise: the choice among singles reads public counts of that moment, not kept);
    - last round's claims: a seat that drew (not took) while another seat's card of rank r was on
      offer held an r then, so it holds one now (its card revealed this round counted back); a
      seat that took a card of rank r lacked r then, so it holds at most one r more than the
      taken card and the cards it drew since.

    The commitments are set in every case; returns False when the world contradicts the last two
    (the caller draws another). The checks are necessary conditions of the heuristic's play, not
    its whole likelihood.
    """
    n = world.num_players
    if world.phase == OVER:  # nothing is pending
        return True
    for p in range(1, n):
        if world.pending[p] >= 0:
            world.pending[p] = int(choose(view_of(world, p), rules.mask_for(world, p), rules, rng))
    for p in range(1, n):
        back = world.counts[p][:]  # the hand with this round's revealed card back in it
        if world.played[p] >= 0:
            played = world.played[p] % NUM_RANKS
            back[played] += 1
            dups = [r for r in range(NUM_RANKS) if back[r] >= 2]
            if dups and max(dups, key=lambda r: (back[r], -r)) != played:
                return False
        claim = world.last_claim[p]
        for d in range(n):
            r = world.last_played[d]
            if d == p or r < 0:
                continue
            r %= NUM_RANKS
            if claim < 0 and back[r] == 0:
                return False
            if claim == d and back[r] > 1 + world.last_drawn[p]:
                return False
    return True


# ------------------------------------------------------------------ the batched engine's twin
def choose_rows(arrays: dict, rows: np.ndarray, out: np.ndarray, mask: np.ndarray | None = None) -> None:
    """:func:`choose` for the player to act in each game ``rows[i]`` of a batched engine
    (``card_envs.<game>_v0.vector_env``'s state arrays), written to ``out[rows[i]]``: the same
    choice as ``choose`` of that player's view (tests/agents/test_heuristic_rows.py), at compiled
    speed, for batched training's heuristic opponents and the search agents' heuristic rollouts.
    Collector's and Hot's state arrays are the same, and so is the heuristic (Hot's actions differ
    only in name). ``mask`` (the engine's legal mask, which every game's twin is handed) is not
    needed: the choice is always legal."""
    from agents.heuristics.compiled.collector import choose_rows as compiled  # numba, only here

    compiled(arrays, rows, out, mask)
