"""What one Golf player may know, and its encoding.

``view(state, seat)`` is the only place hidden information is filtered. A Golf player sees:
every face-up grid card and closed column (everyone's), the whole discard pile (every discard
was face up), the stock's size, the pending card when it drew it from the stock itself or when
it came from the discard pile (public), and the totals, dealer, trigger and turn counters.
Nobody sees a face-down card, its owner included.

A rebuilt stock is not forgotten: when the stock runs out, the discards under the top card
(each seen face up) become the new stock, so from then until the next deal its composition is
public. ``stock_counts`` keeps it, decremented as its cards are drawn and placed; while another
player holds a card drawn from it, that card is still counted there (the seat knows only that it
is one of them), whereas the drawer, who sees its card, gets the exact remaining stock. The
layouts revealed at a round's end are kept in ``last_grids`` (they are turned up for everyone).

Why the encoded summary is sufficient (Markov) for the player: every card that has ever been
face up in a round is either still visible (a grid slot, the discard top, a card taken from the
discard pile) or counted (the discard pile by rank, a rebuilt stock by rank); the only private
sighting is the drawer's own card in hand, which is encoded for it and becomes public when
placed. Everything else is exchangeable: before a rebuild the stock, the face-down slots and a
card another player drew form one uniformly dealt pool (the deck minus every card counted or
visible); after a rebuild the stock (and a card drawn from it) is a known multiset in unknown
order and the face-down slots hold exactly the rest of the deck. The order of the discard pile
under its top is the one thing not encoded, and it cannot matter: a card taken from the pile is
always replaced by a new discard on top, so nothing under the top is ever taken again, and a
rebuild shuffles the pile. Suits never matter in Golf, so ranks lose nothing.

Seats are relative: index 0 is the observer, then the others clockwise, so one policy fits
any seat. Suits do not matter in Golf, so cards are encoded by rank (A23456789TJQK): a view's
card ints are rank indices A=0 .. K=12, not :mod:`card_envs.cards` ints. ``PlayerView.card_name(r)``
names one (``"10"``), and ``view.readable()`` (printed by ``str(view)``) gives the whole view by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from card_envs import views
from card_envs.cards import RANKS, format_many, to_str
from card_envs.encoding import Layout, read_one_hots, read_scaled
from card_envs.golf.rules import (
    MAX_ROUND_SCORE,
    COLUMN_OF,
    NUM_SLOTS,
    PHASE_NAMES,
    RANK_OF,
    RANK_VALUE,
    GolfRules,
    GolfState,
    grid_score,
)

NUM_PHASES = 5
TOTAL_SCALE = 100.0  #: totals are shown divided by this
ROUND_SCALE = float(MAX_ROUND_SCORE)  #: last round's scores are shown divided by this


#: the name of each rank index in a view (A=0 .. K=12), as the rendering spells them
RANK_NAMES = tuple(r.replace("T", "10") for r in RANKS)
_rank = views.rank_names(RANK_NAMES)
_ranks = views.per_seat(views.card(_rank))


@views.readable_view(
    card_name=_rank,
    numbering="Golf: ranks only (suits do not matter): rank index A=0, 2=1 .. 10=9, J=10, Q=11, K=12",
    fields={
        "grids": views.per_seat(_ranks),
        "pending": views.card(_rank),
        "discard_top": views.card(_rank),
        "discard_counts": views.counts(_rank),
        "stock_counts": views.counts(_rank),
        "last_grids": views.per_seat(_ranks),
    },
)
@dataclass
class PlayerView:
    """A Golf player's knowledge. Lists are by relative seat (0 = self, then clockwise).

    ``grids[k][i]`` is the rank index (A=0 .. K=12) of slot i of seat k, or None if face down.
    ``pending`` is the rank of the card the player to act holds, if this player may know it;
    ``pending_source`` is None, "stock" or "discard" (public either way).
    ``stock_known`` is True once the stock has been rebuilt from the discard pile this round;
    ``stock_counts[r]`` is then the number of rank-r cards known to be in the stock, counting a
    card another player drew from it and has not placed yet (all zeros while ``stock_known`` is
    False). ``last_grids[k]`` is seat k's layout (six ranks) as revealed at the end of the
    previous round, or None before the first round ends.
    """

    num_players: int
    grids: list[list[int | None]]
    closed: list[list[bool]]
    pending: int | None
    pending_source: str | None
    discard_top: int | None
    discard_counts: list[int]
    stock_size: int
    phase: str
    to_act: int | None
    dealer: int
    trigger: int | None
    totals: list[int]
    last_round: list[int]
    turns: int
    round: int
    stock_known: bool = False
    stock_counts: list[int] | None = None
    last_grids: list[list[int]] | None = None


def view(s: GolfState, seat: int) -> PlayerView:
    """Filter the state down to what ``seat`` may know."""
    n = len(s.grid)
    order = [(seat + k) % n for k in range(n)]
    grids = []
    for p in order:
        g, up = s.grid[p], s.face_up[p]
        grids.append([g[i] % 13 if up[i] else None for i in range(NUM_SLOTS)])
    counts = [0] * 13
    for c in s.discard:
        counts[RANK_OF[c]] += 1
    if s.pending is None:
        pending, source = None, None
    else:
        source = "discard" if s.pending_from_discard else "stock"
        pending = s.pending % 13 if (s.pending_from_discard or s.current_player == seat) else None
    stock_counts = [0] * 13
    if s.stock_known:
        for c in s.stock:
            stock_counts[RANK_OF[c]] += 1
        if s.pending is not None and not s.pending_from_discard and s.current_player != seat:
            stock_counts[RANK_OF[s.pending]] += 1  # one of the known stock cards, unseen by seat
    last = s.last_layouts
    rel = lambda p: (p - seat) % n  # noqa: E731
    return PlayerView(
        num_players=n,
        grids=grids,
        closed=[list(s.closed[p]) for p in order],
        pending=pending,
        pending_source=source,
        discard_top=s.discard[-1] % 13 if s.discard else None,
        discard_counts=counts,
        stock_size=len(s.stock),
        phase=PHASE_NAMES[s.phase],
        to_act=None if s.current_player < 0 else rel(s.current_player),
        dealer=rel(s.dealer),
        trigger=None if s.trigger is None else rel(s.trigger),
        totals=[s.totals[p] for p in order],
        last_round=[s.last_round[p] for p in order],
        turns=s.turns,
        round=s.round,
        stock_known=bool(s.stock_known),
        stock_counts=stock_counts,
        last_grids=None if last is None else [[c % 13 for c in last[p]] for p in order],
    )


@lru_cache(maxsize=None)
def layout_for(num_players: int, num_decks: int, max_turns: int, round_limit: int) -> Layout:
    n = num_players
    copies = 4 * num_decks
    total_high = ROUND_SCALE * round_limit / TOTAL_SCALE
    return Layout(
        [
            ("grid_rank", (n, NUM_SLOTS, 13), "one-hot rank of each face-up slot, by relative seat (self first)"),
            ("grid_face_down", (n, NUM_SLOTS), "1 if the slot is face down (its card unknown to everyone)"),
            ("closed", (n, 3), "1 if the column is closed (a face-up pair; it scores 0 and cannot be replaced)"),
            ("pending_rank", 13, "one-hot rank of the card in hand, if known to this player"),
            ("pending_source", 2, "the card in hand came from: [stock, discard pile]"),
            ("discard_top", 13, "one-hot rank of the top discard"),
            ("discard_counts", 13, f"cards of each rank in the discard pile, divided by {copies}"),
            ("stock_size", 1, f"cards in the stock, divided by {52 * num_decks}"),
            ("stock_known", 1, "1 once the stock has been rebuilt from the discard pile this round (its composition is public)"),
            (
                "stock_counts",
                13,
                f"after a rebuild, cards of each rank known to be in the stock, divided by {copies}; a card another "
                "player drew from it and has not placed yet is still counted (the drawer's own card is not); zeros before",
            ),
            ("phase", NUM_PHASES, "one-hot phase: flip, draw, place, flip_step, over"),
            ("to_act", n, "one-hot relative seat of the player to act"),
            ("dealer", n, "one-hot relative seat of the dealer"),
            ("trigger", n, "one-hot relative seat of the player who turned all six face up"),
            ("totals", n, f"cumulative scores by relative seat, divided by {TOTAL_SCALE:g}", total_high),
            ("last_round", n, f"each seat's score in the previous round, divided by {ROUND_SCALE:g}"),
            (
                "last_round_grid",
                (n, NUM_SLOTS, 13),
                "one-hot rank of each slot of every seat's layout as revealed at the end of the previous round "
                "(zeros before the first round ends)",
            ),
            ("turns", 1, f"turns played this round, divided by max_turns_per_round ({max_turns})"),
            ("round", 1, f"rounds played, divided by {round_limit}"),
        ]
    )


def layout(rules: GolfRules) -> Layout:
    cfg = rules.config
    return layout_for(cfg.num_players, cfg.decks, cfg.max_turns_per_round, cfg.round_limit)


class Codec:
    """Encodes and decodes PlayerViews for one configuration."""

    def __init__(self, rules: GolfRules):
        cfg = rules.config
        self.layout = layout(rules)
        self.n = cfg.num_players
        self.copies = 4 * cfg.decks
        self.cards = 52 * cfg.decks
        self.max_turns = cfg.max_turns_per_round
        self.round_limit = cfg.round_limit
        sl = self.layout.slices
        self._o = {name: sl[name].start for name in sl}
        # decode reads the small segments between the two rank grids (grid_face_down ..
        # last_round) in one go: once as 0/1 flags, once scaled back to counts and scores
        names = [seg.name for seg in self.layout.segments]
        middle = self.layout.segments[names.index("grid_face_down") : names.index("last_round_grid")]
        first = middle[0].start
        self._middle = slice(first, middle[-1].stop)
        self._middle_parts = {seg.name: slice(seg.start - first, seg.stop - first) for seg in middle}
        scale = {"discard_counts": self.copies, "stock_size": self.cards, "stock_counts": self.copies,
                 "totals": TOTAL_SCALE, "last_round": ROUND_SCALE}
        self._middle_scale = np.concatenate(
            [np.full(seg.size, scale.get(seg.name, 1), dtype=np.float64) for seg in middle]
        )
        self._grid_rank = sl["grid_rank"]
        self._last_round_grid = sl["last_round_grid"]
        self._turns = sl["turns"].start
        self._round = sl["round"].start

    def encode(self, v: PlayerView) -> np.ndarray:
        x = np.zeros(self.layout.size, dtype=np.float32)
        o = self._o
        n = self.n
        gr, fd, cl = o["grid_rank"], o["grid_face_down"], o["closed"]
        ones = []  # indices of the one-hot entries, set in one numpy call
        for k in range(n):
            row = v.grids[k]
            base = k * NUM_SLOTS
            for i in range(NUM_SLOTS):
                r = row[i]
                ones.append(fd + base + i if r is None else gr + (base + i) * 13 + r)
            c = v.closed[k]
            for j in range(3):
                if c[j]:
                    ones.append(cl + 3 * k + j)
        if v.pending is not None:
            ones.append(o["pending_rank"] + v.pending)
        if v.pending_source is not None:
            ones.append(o["pending_source"] + (v.pending_source == "discard"))
        if v.discard_top is not None:
            ones.append(o["discard_top"] + v.discard_top)
        ones.append(o["phase"] + PHASE_NAMES.index(v.phase))
        if v.to_act is not None:
            ones.append(o["to_act"] + v.to_act)
        ones.append(o["dealer"] + v.dealer)
        if v.trigger is not None:
            ones.append(o["trigger"] + v.trigger)
        if v.stock_known:
            ones.append(o["stock_known"])
        if v.last_grids is not None:
            lg = o["last_round_grid"]
            for k in range(n):
                row = v.last_grids[k]
                base = k * NUM_SLOTS
                for i in range(NUM_SLOTS):
                    ones.append(lg + (base + i) * 13 + row[i])
        x[ones] = 1.0
        if v.stock_counts is not None:
            sc = o["stock_counts"]
            x[sc : sc + 13] = v.stock_counts
            x[sc : sc + 13] /= self.copies
        dc = o["discard_counts"]
        x[dc : dc + 13] = v.discard_counts
        x[dc : dc + 13] /= self.copies
        x[o["stock_size"]] = v.stock_size / self.cards
        t = o["totals"]
        x[t : t + n] = v.totals
        x[t : t + n] /= TOTAL_SCALE
        lr = o["last_round"]
        x[lr : lr + n] = v.last_round
        x[lr : lr + n] /= ROUND_SCALE
        x[o["turns"]] = v.turns / self.max_turns
        x[o["round"]] = v.round / self.round_limit
        return x

    def decode(self, x: np.ndarray) -> PlayerView:
        """The PlayerView an observation vector encodes (encode(decode(x)) == x)."""
        x = np.asarray(x, dtype=np.float32)
        if x.shape != (self.layout.size,):
            raise ValueError(f"observation must have shape ({self.layout.size},), got {x.shape}")
        n = self.n
        middle = x[self._middle]
        flags = (middle != 0).tolist()  # its one-hots and 0/1 flags, as bools
        counts = read_scaled(middle, self._middle_scale)  # its counts and scores, as ints
        part = self._middle_parts
        face_down = _rows(flags[part["grid_face_down"]], NUM_SLOTS)
        ranks = read_one_hots(x[self._grid_rank].reshape(n, NUM_SLOTS, 13))
        src = _one_hot(flags[part["pending_source"]])
        last_grids = x[self._last_round_grid]
        return PlayerView(
            num_players=n,
            grids=[[None if down else r for down, r in zip(downs, row)] for downs, row in zip(face_down, ranks)],
            closed=_rows(flags[part["closed"]], 3),
            pending=_one_hot(flags[part["pending_rank"]]),
            pending_source=None if src is None else ("stock", "discard")[src],
            discard_top=_one_hot(flags[part["discard_top"]]),
            discard_counts=counts[part["discard_counts"]],
            stock_size=counts[part["stock_size"]][0],
            phase=PHASE_NAMES[_one_hot(flags[part["phase"]])],
            to_act=_one_hot(flags[part["to_act"]]),
            dealer=_one_hot(flags[part["dealer"]]),
            trigger=_one_hot(flags[part["trigger"]]),
            totals=counts[part["totals"]],
            last_round=counts[part["last_round"]],
            turns=int(round(float(x[self._turns]) * self.max_turns)),
            round=int(round(float(x[self._round]) * self.round_limit)),
            stock_known=flags[part["stock_known"]][0],
            stock_counts=counts[part["stock_counts"]],
            last_grids=read_one_hots(last_grids.reshape(n, NUM_SLOTS, 13)) if last_grids.any() else None,
        )


def _one_hot(flags: list[bool]) -> int | None:
    """The index of the first True of a one-hot read as a list of bools, or None when there is none."""
    return flags.index(True) if True in flags else None


def _rows(values: list, width: int) -> list[list]:
    """A flat list cut into consecutive rows of ``width`` entries."""
    return [values[i : i + width] for i in range(0, len(values), width)]


def _rank_text(r: int | None) -> str:
    return " ##" if r is None else RANKS[r].replace("T", "10").rjust(3)


def _counts_text(counts: list[int]) -> str:
    """Rank counts as ``A 3x2 K`` (rank order), or ``none``."""
    parts = [RANKS[r].replace("T", "10") + (f"x{k}" if k > 1 else "") for r, k in enumerate(counts) if k > 0]
    return " ".join(parts) if parts else "none"


def face_up_value(grid: list[int | None]) -> int:
    """What the face-up cards of a layout score now: a column with both cards up scores as at a
    round's end (0 for a pair of equal rank, closed or revealed at the end); a lone face-up card
    counts its value; face-down cards count nothing."""
    total = 0
    for c in range(3):
        a, b = grid[c], grid[c + 3]
        if a is not None and b is not None:
            total += 0 if a == b else RANK_VALUE[a] + RANK_VALUE[b]
        else:
            total += sum(RANK_VALUE[r] for r in (a, b) if r is not None)
    return total


def _grid_text(g: list[int | None]) -> str:
    return " ".join(_rank_text(r).strip() for r in g[:3]) + " / " + " ".join(_rank_text(r).strip() for r in g[3:])


def render(v: PlayerView, seat_names: list[str] | None = None) -> str:
    """A text table of one player's view. Face-down cards show as ##; closed columns as [ ]."""
    n = v.num_players
    names = seat_names or ["you"] + [f"+{k}" for k in range(1, n)]
    discard_count = sum(v.discard_counts)
    if v.pending_source is None:
        hand = ""
    elif v.pending is None and v.pending_source == "stock" and v.stock_known:
        hand = "in hand: ## (from the stock: one of its known cards)"
    else:
        hand = f"in hand: {_rank_text(v.pending).strip()} (from the {v.pending_source})"
    if v.phase == "over":
        best = min(v.totals)
        head = (
            f"game over after {v.round} round{'s' if v.round != 1 else ''}; lowest total {best}: "
            + ", ".join(names[k] for k in range(n) if v.totals[k] == best)
        )
    else:
        head = (
            f"round {v.round + 1}, turn {v.turns + 1}, phase {v.phase}"
            + ("" if v.to_act is None else f", {names[v.to_act]} to act")
            + ("" if v.trigger is None else f", final turns (triggered by {names[v.trigger]})")
        )
    lines = [
        head,
        f"stock {v.stock_size}  "
        + (f"discard top {_rank_text(v.discard_top).strip()}  " if v.discard_top is not None else "discard pile empty  ")
        + hand,
        f"discard pile ({discard_count}): {_counts_text(v.discard_counts)}",
    ]
    if v.stock_known:
        counted = sum(v.stock_counts or [])
        lines.append(
            f"stock rebuilt from the discards, known cards ({counted}): {_counts_text(v.stock_counts or [0] * 13)}"
            + (" (one of them in hand)" if counted == v.stock_size + 1 else "")
        )
    for k in range(n):
        g = v.grids[k]
        marks = ["[" if v.closed[k][c] else " " for c in range(3)]
        top = " ".join(marks[c] + _rank_text(g[c]) for c in range(3))
        bottom = " ".join(marks[c] + _rank_text(g[c + 3]) for c in range(3))
        tag = "D" if k == v.dealer else " "
        lines.append(f"{names[k]:>5} {tag}: {top}   total {v.totals[k]}, last round {v.last_round[k]}")
        lines.append(f"{'':>5}    {bottom}   face-up value {face_up_value(g)}")
    if v.last_grids is not None and v.phase != "over":  # at the end the grids above show them
        lines.append("previous round's layouts, revealed (top / bottom row):")
        for k in range(n):
            lines.append(f"{names[k]:>5}: {_grid_text(v.last_grids[k])}  scored {v.last_round[k]}")
    lines.append("(## face down, [ closed column, D dealer)")
    return "\n".join(lines)


def render_state(s: GolfState) -> str:
    """Every card, face-down ones included (lowercase marks a face-down card). Debugging only."""

    lines = [
        f"round {s.round + 1} phase {PHASE_NAMES[s.phase]} player {s.current_player} to act, dealer {s.dealer}",
        f"stock (top last): {format_many(s.stock)}",
        f"discard (top last): {format_many(s.discard)}",
        f"pending: {'-' if s.pending is None else to_str(s.pending)}",
    ]
    for p, g in enumerate(s.grid):
        cells = [to_str(c) if s.face_up[p][i] else to_str(c).lower() for i, c in enumerate(g)]
        lines.append(
            f"player {p}: {' '.join(cells[:3])} / {' '.join(cells[3:])}  closed {s.closed[p]}  "
            f"total {s.totals[p]}  layout score {grid_score(g)}"
        )
    return "\n".join(lines)


__all__ = ["PlayerView", "view", "Codec", "layout", "render", "render_state", "face_up_value", "COLUMN_OF"]
