"""Guillotine's table as a picture (:mod:`card_envs.pictures` draws it).

The centre: the deal and its contract, the current trick (each seat's card), and the Domino
layout (every card played this deal, one line per suit, 7 to A; empty outside Domino). One band
per seat: its hand (backs; face up in that seat's own picture), the cards it has taken this
deal, its total and last deal's points, the contracts it has chosen as dealer, the dealer mark.
Guillotine's cards are its own deck indices ``8·suit + rank`` (ranks 7..A), named through its
rules' tables, never through the 52-card numbering.
"""

from __future__ import annotations

from card_envs import pictures as P
from card_envs.guillotine.rules import CONTRACT_NAMES, DOMINO, HAND_SIZE, NUM_CARDS, RANK_NAMES
from card_envs.guillotine.view import SUIT_LETTERS, view


def face(i: int) -> P.Face:
    """The face of deck index ``i`` (``8·suit + rank``, ranks 7..A)."""
    return P.Face(RANK_NAMES[i % 8], i // 8)


def _faces(mask: int) -> list[P.Face]:
    return [face(i) for i in range(NUM_CARDS) if mask >> i & 1]


def scene(rules, state, observer: int, private: bool) -> P.Table:
    """The table seen through ``observer``'s view; ``private=False`` leaves out that seat's hand,
    which leaves what every seat sees."""
    v = view(state, observer)
    n = len(v.hand_sizes)
    seat = lambda k: (observer + k) % n  # noqa: E731
    who = lambda k: P.seat_name(seat(k), observer if private else None)  # noqa: E731
    contract = "-" if v.contract is None else CONTRACT_NAMES[v.contract]
    head = f"deal {v.deal + 1} of {v.num_deals}, dealer {who(v.dealer)}, contract {contract}, phase {v.phase}"
    if v.to_act is not None:
        head += f"; {who(v.to_act)} to act"
    more = []
    if v.led_suit is not None:
        more.append(f"led suit {SUIT_LETTERS[v.led_suit]}")
    if v.contract == DOMINO and v.anchor is not None:
        more.append(f"Domino anchor {RANK_NAMES[v.anchor]}")
    if v.out_order:
        more.append("out: " + ", ".join(who(k) for k in v.out_order))
    layout = v.layout
    centre = P.Row(
        ["table"],
        [
            P.Group("trick: " + " ".join(f"p{p}" for p in range(n)),
                    [P.GAP if v.trick[(p - observer) % n] is None else face(v.trick[(p - observer) % n])
                     for p in range(n)]),
            P.Group("Domino layout (c d h s, 7..A)",
                    [face(i) if layout >> i & 1 else P.GAP for i in range(NUM_CARDS)], columns=8),
        ],
    )
    seats = []
    for p in range(n):
        k = (p - observer) % n
        hand = _faces(v.hand) if (k == 0 and private) else [P.BACK] * v.hand_sizes[k]
        used = [CONTRACT_NAMES[c][:3] for c in range(len(CONTRACT_NAMES)) if v.used_contracts[k] >> c & 1]
        label = [who(k) + ("  D" if k == v.dealer else ""), f"total {v.totals[k]}",
                 f"last deal {v.last_deal[k]}", "chose: " + (" ".join(used) or "-")]
        taken = _faces(v.taken[k])
        seats.append(P.Row(label, [
            P.Group(f"hand {v.hand_sizes[k]}", hand, slots=HAND_SIZE),
            P.Group(f"taken {len(taken)}", taken, slots=5),
        ], highlight=v.to_act == k))
    return P.Table("Guillotine", [head, "; ".join(more) or " "], [centre], seats, seat_columns=1)
