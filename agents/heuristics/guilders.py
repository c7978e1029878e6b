"""Guilders heuristic: make the call of highest expected points, by exact card counting.

The decoded view counts every card this player has located (score piles, cards lost to the
evil joker, jokers set aside, the discards it has seen) and the calls the others' face-down
misses failed (a card missed on ``suit h`` is no heart), so ``view.match_probabilities()`` is
each call's exact posterior chance of matching. The expected
value of a call is its chance times its points; with the Evil Joker on, drawing an uncalled
joker costs the highest-valued card of our own score pile, so every call but JOKER also carries
``P(joker) × that card's value`` as an expected loss. Ties go to the more valuable call type
(a rank before a suit), then to the lowest index.
"""

from __future__ import annotations

import numpy as np

from card_envs.guilders.rules import CARD_BASE, CARD_POINTS, JOKER_CALL, JOKER_POINTS, RANK_BASE, RANK_POINTS, SUIT_POINTS

#: points of each call when it matches
_POINTS = np.array([SUIT_POINTS] * RANK_BASE + [RANK_POINTS] * (CARD_BASE - RANK_BASE)
                   + [CARD_POINTS] * (JOKER_CALL - CARD_BASE) + [JOKER_POINTS], dtype=float)
_PILE_VALUES = (1, 5, 10, 15)


def expected_points(view, rules) -> np.ndarray:
    """Expected points of each of the 70 calls for the player to act."""
    cfg = rules.config
    p = view.match_probabilities()
    ev = p * _POINTS
    if cfg.evil_joker:
        pile = view.pile_values[0]
        worst = next((v for v, k in zip(reversed(_PILE_VALUES), reversed(list(pile))) if k > 0), 0)
        p_joker = float(p[JOKER_CALL])
        loss = p_joker * worst
        ev = ev - loss
        if cfg.good_joker:
            ev[JOKER_CALL] += loss  # a called joker scores instead of costing a card
    return ev


#: the heuristic's score of every call, which an imitation warm start can fit (``imitation.temperature``)
action_values = expected_points

#: added to every call's expected points: ties go to the more valuable call type
_TIE_BREAK = 1e-9 * _POINTS


def choose(view, mask: np.ndarray, rules, rng: np.random.Generator) -> int:
    ev = expected_points(view, rules)
    ev = np.where(mask > 0, ev + _TIE_BREAK, -np.inf)
    return int(ev.argmax())
