"""Collector's (and Hot's) table as a picture (:mod:`card_envs.pictures` draws it).

The centre: the stock (its size, and the cards known at its bottom: played cards nobody took
go there face up). One band per seat: its hand toward a set (the cards everybody knows it holds,
taken from the table or seen drawn, face up; the rest as backs; the whole hand face up in that
seat's own picture, and every hand once laid down), the card it revealed this round, whether it
has committed (never what), its place. In a seat's own picture every other seat is also named by
its offset from it (``+1``, ``+2``), as the take actions (``take 1``) name them. Hot adds the game totals, the dealer and the last deal's
points. The views hold ranks only (suits never matter), so cards show their rank. Every action is
a hidden commitment: the picture's last action says only that the seat committed (the rules'
``public_action``).
"""

from __future__ import annotations

from card_envs import pictures as P
from card_envs.set_collecting.engine import NUM_RANKS, RANK_NAMES
from card_envs.set_collecting.view import view

HAND_SLOTS = 10  # a longer hand fans out
STOCK_SLOTS = 6


def scene(rules, state, observer: int, private: bool) -> P.Table:
    """The table seen through ``observer``'s view; ``private=False`` leaves out that seat's hand
    and its own commitment, which leaves what every seat sees. The game is ``rules.variant``'s
    (a game of deals shows the deal, the dealer, the totals and the last deal's points)."""
    variant = rules.variant
    deals = variant.deals
    v = view(state, observer, variant)
    n = v.num_players
    seat = lambda k: (observer + k) % n  # noqa: E731
    who = lambda k: P.seat_name(seat(k), observer if private else None)  # noqa: E731
    if v.phase == "over":
        head = "game over; first place: " + (", ".join(who(k) for k in range(n) if v.first_place[k]) or "-")
    else:
        head = (f"round {v.round + 1}" + (f" of deal {v.deal + 1}, dealer {who(v.dealer)}" if deals else "")
                + f", phase {v.phase}, lead {who(v.lead)}")
    waiting = [who((p - observer) % n) for p in range(n) if not v.committed[(p - observer) % n]] if v.phase != "over" else []
    status = [head, ("waiting for: " + ", ".join(waiting)) if waiting else " "]
    centre = P.Row(
        ["table"],
        [
            P.Group(f"stock {v.stock_size}", [P.BACK] if v.stock_size else [P.GAP]),
            P.Group(f"stock bottom, seen ({len(v.stock_known)})",
                    [P.Face(RANK_NAMES[r]) for r in reversed(v.stock_known)], slots=STOCK_SLOTS),
        ],
    )
    seats = []
    for p in range(n):
        k = (p - observer) % n
        if v.shown_hands is not None:
            hand, caption = P.faces_from_counts(v.shown_hands[k], RANK_NAMES), "hand laid down"
        elif k == 0 and private:
            hand, caption = P.faces_from_counts(v.hand, RANK_NAMES), "hand"
        else:
            hand = P.faces_from_counts(v.known_cards[k], RANK_NAMES)
            hand += [P.BACK] * (v.hand_sizes[k] - len(hand))
            caption = "hand (known face up)"
        # in a seat's own picture the others are named by their offset too, as the takes name them
        label = [who(k) + (f"  (+{k})" if private and k else ""), f"{v.hand_sizes[k]} cards"]
        if k == 0 and private:
            label.append(f"ranks held {sum(1 for r in range(NUM_RANKS) if v.hand[r])}/13")
        if deals:
            label.append(f"total {v.scores[k]}" + ("  D" if k == v.dealer else ""))
            label.append(f"last deal {v.last_deal_points[k]}")
        if v.callers[k]:
            label.append("completed a set")
        played = v.played[k]
        seats.append(P.Row(label, [
            P.Group(caption, hand, slots=HAND_SLOTS),
            P.Group("played", [P.GAP if played is None else P.Face(RANK_NAMES[played])]),
        ], highlight=v.phase != "over" and not v.committed[k]))
    return P.Table(variant.title, status, [centre], seats, seat_columns=1)
