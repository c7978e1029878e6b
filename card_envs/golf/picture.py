"""Golf's table as a picture (:mod:`card_envs.pictures` draws it).

The centre: the stock (its size; after a rebuild, the ranks known to be in it), the discard
pile's top card and the card in hand (face up when it came from the discard pile, or in the
drawer's own picture). One band per seat: its 2 × 3 grid (face-down cards as backs, closed
columns framed, each place numbered 0-5 row by row as ``flip N`` and ``replace N`` name it), its total and last round's score, the dealer and the player who triggered the
final turns. Golf's views hold ranks only (suits never matter), so cards show their rank.
"""

from __future__ import annotations

from card_envs import pictures as P
from card_envs.golf.view import RANK_NAMES, _counts_text, view


#: each grid place's number, as ``flip N`` and ``replace N`` name it (row by row)
POSITIONS = tuple(str(i) for i in range(6))


def _face(r: int | None):
    return P.BACK if r is None else P.Face(RANK_NAMES[r])


def scene(rules, state, observer: int, private: bool) -> P.Table:
    """The table seen through ``observer``'s view; ``private=False`` leaves out what only that
    seat knows (a card it drew from the stock), which leaves what every seat sees."""
    v = view(state, observer)
    n = v.num_players
    seat = lambda k: (observer + k) % n  # noqa: E731  relative -> absolute
    rel = lambda p: (p - observer) % n  # noqa: E731
    mine = v.pending_source == "stock" and v.pending is not None  # the drawer's own sighting
    pending = v.pending if (private or not mine) else None
    stock_counts = list(v.stock_counts or [0] * 13)
    if mine and not private and v.stock_known:
        stock_counts[v.pending] += 1  # to the others it is still one of the known stock cards
    who = lambda k: P.seat_name(seat(k), observer if private else None)  # noqa: E731
    if v.phase == "over":
        best = min(v.totals)
        head = f"game over after {v.round} round(s); lowest total {best}: " + ", ".join(
            who(k) for k in range(n) if v.totals[k] == best)
    else:
        head = f"round {v.round + 1}, turn {v.turns + 1}, phase {v.phase}" + (
            "" if v.to_act is None else f"; {who(v.to_act)} to act")
    trigger = "" if v.trigger is None else f"final turns, triggered by {who(v.trigger)}"
    known = f"stock rebuilt, holds: {_counts_text(stock_counts)}" if v.stock_known else ""
    centre = P.Row(
        ["table", f"discards {sum(v.discard_counts)}"],
        [
            P.Group(f"stock {v.stock_size}", [P.BACK] if v.stock_size else [P.GAP]),
            P.Group("discard", [P.GAP] if v.discard_top is None else [_face(v.discard_top)]),
            P.Group(
                "in hand" + ("" if v.pending_source is None else f" ({v.pending_source})"),
                [P.GAP] if v.pending_source is None else [_face(pending)],
            ),
        ],
    )
    seats = []
    for p in range(n):
        k = rel(p)
        closed = [i for i in range(6) if v.closed[k][i % 3]]
        label = [who(k), f"total {v.totals[k]}", f"last round {v.last_round[k]}"]
        if k == v.dealer:
            label[0] += "  D"
        seats.append(P.Row(label, [P.Group("", [_face(r) for r in v.grids[k]], columns=3, marks=closed,
                                           numbers=POSITIONS)], highlight=v.to_act == k))
    return P.Table("Golf", [head, trigger or known or " "], [centre], seats, seat_columns=2 if n <= 4 else 3)
