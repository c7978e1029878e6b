"""Fiddlesticks' table as a picture (:mod:`card_envs.pictures` draws it).

The centre: the stock, the pile's top card with its size and top run, and the ranks cleared
from play. One band per seat: its hand (cards everybody knows it holds, from a forced pick-up,
face up; the rest as backs; the whole hand face up in that seat's own picture), its face-up
row, its face-down cards as backs (their places numbered as ``blind N`` names them), and its
place once out. Fiddlesticks' views hold ranks only
(suits never matter), so cards show their rank. In the SWAP phase each pick is part of a hidden
commitment: the picture's last action then says only that a card was picked.
"""

from __future__ import annotations

from card_envs import pictures as P
from card_envs.fiddlesticks.rules import NUM_SLOTS, RANK_NAMES
from card_envs.fiddlesticks.view import view

HAND_SLOTS = 9  # a longer hand fans out


def _counts_text(counts) -> str:
    parts = [RANK_NAMES[r] + (f"x{k}" if k > 1 else "") for r, k in enumerate(counts) if k]
    return " ".join(parts) if parts else "none"


def scene(rules, state, observer: int, private: bool) -> P.Table:
    """The table seen through ``observer``'s view; ``private=False`` leaves out that seat's own
    hand (and, in SWAP, its picks), which leaves what every seat sees."""
    v = view(state, observer)
    n = v.num_players
    seat = lambda k: (observer + k) % n  # noqa: E731
    who = lambda k: P.seat_name(seat(k), observer if private else None)  # noqa: E731
    if v.phase == "over":
        head = "game over; places: " + ", ".join(f"{who(k)} {v.out[k]}" for k in range(n) if v.out[k])
    else:
        head = f"{v.phase} phase, turn {v.turns + 1}" + ("" if v.to_act is None else f"; {who(v.to_act)} to act")
    pile_size = sum(v.pile_counts)
    centre = P.Row(
        ["table", f"cleared: {_counts_text(v.cleared)}"],
        [
            P.Group(f"stock {v.stock_size}", [P.BACK] if v.stock_size else [P.GAP]),
            P.Group(f"pile {pile_size}" + (f", run {v.pile_run}" if v.pile_top is not None else ""),
                    [P.GAP] if v.pile_top is None else [P.Face(RANK_NAMES[v.pile_top])]),
        ],
    )
    seats = []
    for p in range(n):
        k = (p - observer) % n
        if k == 0 and private:
            hand = P.faces_from_counts(v.hand, RANK_NAMES)
            caption = f"hand {len(hand)}" + (f", picked {_counts_text(v.picked)}" if v.phase == "swap" else "")
        else:
            hand = P.faces_from_counts(v.known[k], RANK_NAMES)
            hand += [P.BACK] * (v.hand_sizes[k] - len(hand))
            caption = f"hand {v.hand_sizes[k]}"
        label = [who(k)]
        if v.phase == "swap":
            label.append(f"picks {v.swap_picks[k]}")
        if v.out[k]:
            label.append(f"out: place {v.out[k]}")
        seats.append(P.Row(label, [
            P.Group(caption, hand, slots=HAND_SLOTS),
            P.Group("face up", P.faces_from_counts(v.face_up[k], RANK_NAMES), slots=NUM_SLOTS),
            P.Group("face down", [P.BACK if b else P.GAP for b in v.face_down[k]], slots=NUM_SLOTS,
                    numbers=[str(j) for j in range(NUM_SLOTS)]),
        ], highlight=v.to_act == k))
    return P.Table("Fiddlesticks", [head], [centre], seats, seat_columns=1 if n <= 4 else 2)
