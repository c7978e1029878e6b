"""What one player of Collector (or Hot) may know, and its observation vector.

:func:`view` is the only place hidden information is filtered. A player sees its own hand, its
own commitment in the current phase, who has committed (the order of asking is public) but never
what anyone else committed, hand and stock sizes, the cards revealed this round, how the last
round went (who played what, who took it, how many cards each drew), the cards publicly known to
be in each hand (taken cards and seen stock cards drawn, minus those played since), the known
bottom of the stock (the returned cards, in order) and the hands laid down at the end. Hot adds
the game totals, the dealer, the deal number and the points of the last deal.

Seats are relative: 0 is the observer, 1 the next player clockwise, and so on. Cards are ranks
(A=0 .. K=12): suits do not matter in these games.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

import numpy as np

from card_envs.collector.engine import NUM_RANKS, PHASE_NAMES, RANK_NAMES, SetState
from card_envs.encoding import Layout

STOCK_DEPTH = 52  # the stock never holds more than the deck


@dataclass(slots=True)
class PlayerView:
    """Everything one seat may know. Tuples are indexed by relative seat (0 = the observer)."""

    num_players: int
    phase: str  # "play", "acquire" or "over"
    lead: int  # relative seat of the lead seat L_t
    round: int  # t (in Hot, within the deal)
    hand: tuple[int, ...]  # own rank counts, 13
    hand_sizes: tuple[int, ...]
    stock_size: int
    own_commit: int | None  # own action committed in this phase, or None
    committed: tuple[bool, ...]  # who has committed in this phase (not what)
    played: tuple[int | None, ...]  # rank revealed this round (ACQUIRE), None if none
    last_played: tuple[int | None, ...]  # rank played in the last resolved round
    last_taken_by: tuple[int | None, ...]  # relative seat that took that card, None: returned/none
    last_drawn: tuple[int, ...]  # stock cards drawn in the last round
    known_cards: tuple[tuple[int, ...], ...]  # rank counts publicly known in each hand
    stock_known: tuple[int, ...]  # ranks of the seen bottom of the stock, top to bottom
    shown_hands: tuple[tuple[int, ...], ...] | None  # hands laid down (rank counts) or None
    scores: tuple[int, ...] | None = None  # Hot: game totals
    dealer: int | None = None  # Hot: relative seat of the dealer
    deal: int | None = None  # Hot: deal number, 0-based
    last_deal_points: tuple[int, ...] | None = None  # Hot: points of the last finished deal
    game: str = "collector"

    @property
    def hot(self) -> bool:
        return self.game == "hot"


def num_actions(hot: bool) -> int:
    return 16 if hot else 17


def make_layout(num_players: int, hot: bool = False, max_rounds: int = 200, target_points: int = 11,
                max_deals: int = 100) -> Layout:
    """The observation layout for ``num_players`` (the bounds follow the options)."""
    n = num_players
    a = num_actions(hot)
    segs = [
        ("phase", 2, "one-hot: PLAY, ACQUIRE (zeros once the game is over)"),
        ("lead", n, "one-hot relative seat of the lead seat L_t (asked first, served first)"),
        ("round", 1, "round t" + (" of this deal" if hot else ""), max(max_rounds - 1, 1)),
        ("stock_size", 1, "cards in the stock", 52),
        ("own_commit", a, "one-hot: the action this player committed in this phase (hidden from others)"),
        ("committed", n, "1 where that relative seat has committed in this phase (what is hidden)"),
        ("played", (n, NUM_RANKS), "rank one-hot of the card each relative seat revealed this round"),
        ("last_played", (n, NUM_RANKS), "rank one-hot of the card each relative seat played last round"),
        ("last_taken_by", (n, n), "row d: one-hot relative seat that took d's last-round card (zeros: returned)"),
        ("hand", NUM_RANKS, "own cards: count of each rank A..K", 4),
        ("hand_sizes", n, "cards in each hand, by relative seat (0 = self)", 52),
        ("last_drawn", n, "stock cards each relative seat drew last round", 2),
        ("known_cards", (n, NUM_RANKS), "rank counts every player knows to be in each hand (taken, seen draws)", 4),
        ("stock_known", (STOCK_DEPTH, NUM_RANKS),
         "row i: rank one-hot of the stock card i from the top, if seen (returned cards)"),
        ("shown_hands", (n, NUM_RANKS),
         "rank counts of the hands laid down " + ("at the last scored deal" if hot else "at the end"), 4),
    ]
    if hot:
        segs += [
            ("scores", n, "game totals, by relative seat", target_points + 13 * (n - 1)),
            ("dealer", n, "one-hot relative seat of this deal's dealer"),
            ("deal", 1, "deal number, 0-based", max(max_deals - 1, 1)),
            ("last_deal_points", n, "points each relative seat scored in the last finished deal", 13 * (n - 1)),
        ]
    return Layout(segs)


@lru_cache(maxsize=None)
def _slices(num_players: int, hot: bool) -> dict[str, int]:
    layout = make_layout(num_players, hot)
    out = {s.name: s.start for s in layout.segments} | {"_size": layout.size, "_counts": layout.by_name["hand"].start}
    # encode writes these four segments in one go: they must lie end to end in this order
    assert out["hand_sizes"] == out["hand"] + NUM_RANKS and out["last_drawn"] == out["hand_sizes"] + num_players
    assert out["known_cards"] == out["last_drawn"] + num_players
    return out


@lru_cache(maxsize=None)
def _size_to_players(size: int, hot: bool) -> int:
    for n in range(2, 5):
        if make_layout(n, hot).size == size:
            return n
    raise ValueError(f"no {'hot' if hot else 'collector'} observation has {size} entries")


# --------------------------------------------------------------------------------- the filter
_SEATS = {n: [tuple((seat + i) % n for i in range(n)) for seat in range(n)] for n in range(2, 5)}


def view(s: SetState, seat: int, hot: bool = False) -> PlayerView:
    """What ``seat`` may know of state ``s``: the only place hidden information is filtered."""
    n = s.num_players
    seats = _SEATS[n][seat]
    done = s.order[: s.pos]
    own = s.pending[seat]
    played, last_played, last_taker = s.played, s.last_played, s.last_taker
    stock = s.stock
    return PlayerView(
        n,
        PHASE_NAMES[s.phase],
        (s.lead - seat) % n,
        s.round,
        tuple(s.counts[seat]),
        tuple([len(s.hands[p]) for p in seats]),
        len(stock),
        None if own < 0 else own,
        tuple([p in done for p in seats]),
        tuple([None if played[p] < 0 else played[p] % 13 for p in seats]),
        tuple([None if last_played[p] < 0 else last_played[p] % 13 for p in seats]),
        tuple([None if last_taker[p] < 0 else (last_taker[p] - seat) % n for p in seats]),
        tuple([s.last_drawn[p] for p in seats]),
        tuple([tuple(s.known_counts[p]) for p in seats]),
        tuple([c % 13 for c in islice(stock, s.stock_unknown, None)]) if s.stock_unknown < len(stock) else (),
        None if s.shown is None else tuple([tuple(s.shown[p]) for p in seats]),
        tuple([s.scores[p] for p in seats]) if hot else None,
        (s.dealer - seat) % n if hot else None,
        s.deal if hot else None,
        tuple([s.last_deal_points[p] for p in seats]) if hot else None,
        "hot" if hot else "collector",
    )


# ------------------------------------------------------------------------- vector <-> view
def encode(v: PlayerView) -> np.ndarray:
    """The observation vector of a view (layout: :func:`make_layout`)."""
    n = v.num_players
    o = _slices(n, v.hot)
    x = np.zeros(o["_size"], dtype=np.float32)
    ones = [o["lead"] + v.lead]  # entries set to 1
    if v.phase != "over":
        ones.append(o["phase"] + (0 if v.phase == "play" else 1))
    if v.own_commit is not None:
        ones.append(o["own_commit"] + v.own_commit)
    committed, played, last_played, taken = o["committed"], o["played"], o["last_played"], o["last_taken_by"]
    for i in range(n):
        if v.committed[i]:
            ones.append(committed + i)
        if v.played[i] is not None:
            ones.append(played + i * NUM_RANKS + v.played[i])
        if v.last_played[i] is not None:
            ones.append(last_played + i * NUM_RANKS + v.last_played[i])
        if v.last_taken_by[i] is not None:
            ones.append(taken + i * n + v.last_taken_by[i])
    if v.stock_known:
        base = o["stock_known"] + (v.stock_size - len(v.stock_known)) * NUM_RANKS
        ones.extend([base + i * NUM_RANKS + r for i, r in enumerate(v.stock_known)])
    x[ones] = 1
    x[o["round"]] = v.round
    x[o["stock_size"]] = v.stock_size
    # the counts: own hand, hand sizes, last draws, known cards (and shown hands), written at once
    counts = list(v.hand)
    counts += v.hand_sizes
    counts += v.last_drawn
    for row in v.known_cards:
        counts += row
    x[o["_counts"] : o["_counts"] + len(counts)] = counts
    if v.shown_hands is not None:
        sh = o["shown_hands"]
        x[sh : sh + n * NUM_RANKS] = [c for row in v.shown_hands for c in row]
    if v.hot:
        x[o["scores"] : o["scores"] + n] = v.scores
        x[o["dealer"] + v.dealer] = 1
        x[o["deal"]] = v.deal
        x[o["last_deal_points"] : o["last_deal_points"] + n] = v.last_deal_points
    return x


def decode(vector: np.ndarray, hot: bool = False) -> PlayerView:
    """The view an observation vector encodes (``encode(decode(x)) == x``)."""
    x = np.asarray(vector, dtype=np.float32)
    n = _size_to_players(x.shape[0], hot)
    layout = make_layout(n, hot)
    seg = layout.split(x)

    def one_hot(row) -> int | None:
        nz = np.flatnonzero(row)
        return None if len(nz) == 0 else int(nz[0])

    def ints(row) -> tuple[int, ...]:
        return tuple(int(round(float(c))) for c in row)

    phase = one_hot(seg["phase"])
    stock_rows = [one_hot(r) for r in seg["stock_known"]]
    shown = seg["shown_hands"]
    return PlayerView(
        num_players=n,
        phase="over" if phase is None else ("play", "acquire")[phase],
        lead=one_hot(seg["lead"]),
        round=int(seg["round"][0]),
        hand=ints(seg["hand"]),
        hand_sizes=ints(seg["hand_sizes"]),
        stock_size=int(seg["stock_size"][0]),
        own_commit=one_hot(seg["own_commit"]),
        committed=tuple(bool(c) for c in seg["committed"]),
        played=tuple(one_hot(r) for r in seg["played"]),
        last_played=tuple(one_hot(r) for r in seg["last_played"]),
        last_taken_by=tuple(one_hot(r) for r in seg["last_taken_by"]),
        last_drawn=ints(seg["last_drawn"]),
        known_cards=tuple(ints(r) for r in seg["known_cards"]),
        stock_known=tuple(r for r in stock_rows if r is not None),
        shown_hands=None if not shown.any() else tuple(ints(r) for r in shown),
        scores=ints(seg["scores"]) if hot else None,
        dealer=one_hot(seg["dealer"]) if hot else None,
        deal=int(seg["deal"][0]) if hot else None,
        last_deal_points=ints(seg["last_deal_points"]) if hot else None,
        game="hot" if hot else "collector",
    )


# ---------------------------------------------------------------------------------- text
def _ranks_text(counts) -> str:
    out = [RANK_NAMES[r] for r in range(NUM_RANKS) for _ in range(counts[r])]
    return " ".join(out) if out else "-"


def seat_name(i: int) -> str:
    return "you" if i == 0 else f"+{i}"


def render_view(v: PlayerView, action_names: list[str] | None = None) -> str:
    """The table as the viewer sees it, from the view alone (so it cannot leak)."""
    n = v.num_players
    title = "Hot" if v.hot else "Collector"
    head = f"{title}: round {v.round}, {v.phase.upper()}, lead {seat_name(v.lead)}"
    if v.hot:
        head += f", deal {v.deal}, dealer {seat_name(v.dealer)}"
    lines = [head]
    distinct = sum(1 for c in v.hand if c)
    lines.append(f"your hand ({sum(v.hand)} cards, {distinct}/13 ranks): {_ranks_text(v.hand)}")
    if v.own_commit is not None:
        name = action_names[v.own_commit] if action_names else str(v.own_commit)
        lines.append(f"your commitment: {name}")
    for i in range(n):
        parts = [f"seat {seat_name(i)}: {v.hand_sizes[i]} cards"]
        if any(v.known_cards[i]):
            parts.append(f"known {_ranks_text(v.known_cards[i])}")
        if v.hot:
            parts.append(f"{v.scores[i]} points")
        if v.phase != "over":
            parts.append("committed" if v.committed[i] else "to commit")
        if v.played[i] is not None:
            parts.append(f"played {RANK_NAMES[v.played[i]]}")
        lines.append("  " + ", ".join(parts))
    last = []
    for i in range(n):
        if v.last_played[i] is not None:
            fate = "returned" if v.last_taken_by[i] is None else f"taken by {seat_name(v.last_taken_by[i])}"
            last.append(f"{seat_name(i)} played {RANK_NAMES[v.last_played[i]]} ({fate})")
    if last or any(v.last_drawn):
        drew = ", ".join(f"{seat_name(i)} drew {v.last_drawn[i]}" for i in range(n) if v.last_drawn[i])
        lines.append("last round: " + "; ".join(last + ([drew] if drew else [])))
    known = " ".join(RANK_NAMES[r] for r in v.stock_known)
    lines.append(f"stock: {v.stock_size} cards" + (f", seen bottom (top to bottom): {known}" if known else ""))
    if v.hot and any(v.last_deal_points):
        lines.append("last deal points: " + ", ".join(f"{seat_name(i)} {p}" for i, p in enumerate(v.last_deal_points)))
    if v.shown_hands is not None:
        lines.append("hands laid down" + (" at the last scored deal:" if v.hot else ":"))
        for i in range(n):
            lines.append(f"  {seat_name(i)}: {_ranks_text(v.shown_hands[i])}")
    return "\n".join(lines)
