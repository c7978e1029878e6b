"""The Game of Guilders' table as a picture (:mod:`card_envs.pictures` draws it).

The centre: the face-down fan, the discard pile (face up with ``public_discards``; otherwise
backs, with the seat's own misses face up in its own picture), the card drawn last turn (face
up unless it was a face-down miss: then only its drawer knows it), the jokers set aside and the
cards the evil penalty took. One band per seat: its score and its score pile card by card.
Guilders' cards are :mod:`card_envs.cards` ints (52-card numbering, jokers 52/53).
"""

from __future__ import annotations

from card_envs import cards
from card_envs import pictures as P
from card_envs.guilders.rules import ACTION_NAMES
from card_envs.guilders.view import view

FAN_SLOTS = 8
PILE_SLOTS = 8


def face(c: int) -> P.Face:
    """The face of card int ``c`` (13·suit + rank; BJ = 52, RJ = 53)."""
    if c >= 52:
        return P.Face("JK", None, joker="black" if c == cards.BLACK_JOKER else "red")
    return P.Face(cards.RANKS[c % 13].replace("T", "10"), c // 13)


def _faces(counts) -> list[P.Face]:
    return [face(c) for c, k in enumerate(counts) for _ in range(int(k))]


def scene(rules, state, observer: int, private: bool) -> P.Table:
    """The table seen through ``observer``'s view; ``private=False`` leaves out what only that
    seat saw (its own face-down misses, the card of its last miss), which leaves what every seat
    sees."""
    v = view(state, observer)
    cfg = rules.config
    n = v.num_players
    seat = lambda k: (observer + k) % n  # noqa: E731
    who = lambda k: P.seat_name(seat(k), observer if private else None)  # noqa: E731
    refans = "unlimited" if v.refans_left < 0 else str(v.refans_left)
    head = f"turn {v.turns + 1}, refans left {refans}" + ("" if v.to_act is None else f"; {who(v.to_act)} to act")
    if v.last_mover is None:
        last = " "
    else:
        last = f"{who(v.last_mover)} called {ACTION_NAMES[v.last_call]}: " + (", ".join(v.last_events) or "-")
        if v.last_gain or v.last_loss:
            last += f" (+{v.last_gain} / -{v.last_loss})"
    hidden_miss = "missed" in v.last_events and not cfg.public_discards  # a face-down miss
    if v.last_card is None or (hidden_miss and not private):
        drawn = [P.BACK] if v.last_mover is not None else [P.GAP]
    else:
        drawn = [face(v.last_card)]
    if cfg.public_discards or private:
        discards = _faces(v.known_discards)
        discards += [P.BACK] * (v.discard_size - len(discards))
    else:
        discards = [P.BACK] * v.discard_size
    centre = P.Row(
        ["table", f"misses in the pile {int(v.miss_calls.sum())}"],
        [
            P.Group(f"fan {v.fan_size}", [P.BACK] * v.fan_size, slots=FAN_SLOTS),
            P.Group(f"discards {v.discard_size}", discards, slots=FAN_SLOTS),
            P.Group("drawn", drawn),
            P.Group("set aside", [face(52 + i) for i, k in enumerate(v.set_aside) for _ in range(int(k))], slots=2),
            P.Group("lost", _faces(v.lost), slots=3),
        ],
    )
    piles = v.piles
    seats = []
    for p in range(n):
        k = (p - observer) % n
        pile = piles[k]
        worth = " ".join(f"{int(c)}x{w}" for c, w in zip(v.pile_values[k], (1, 5, 10, 15)) if c)
        seats.append(P.Row(
            [who(k), f"score {int(v.scores[k])}", f"misses {int(v.seat_misses[k])}"],
            [P.Group(f"score pile {len(pile)}" + (f": {worth}" if worth else ""), [face(c) for c, _ in pile],
                     slots=PILE_SLOTS)],
            highlight=v.to_act == k,
        ))
    return P.Table("The Game of Guilders", [head, last], [centre], seats, seat_columns=1 if n <= 4 else 2)
