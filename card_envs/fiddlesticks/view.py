"""What one Fiddlesticks player may know, and its encoding.

``view(state, seat)`` is the only place hidden information is filtered. A Fiddlesticks player
sees: its own hand; every face-up card on the table; how many face-down cards each player has
left (their identities are unknown to everyone, the owner included, until a BLIND turns one);
every hand's size; the pile (its top rank, the length of the run of equal ranks on top, and
the count of every rank in it: every card was played face up); the cards cleared from play;
the stock's size; and, for every player, the hand cards everybody knows about: cards picked up
from the pile, a failed blind card, face-up cards taken into the hand, and dealt face-up cards
that were swapped into the hand, less what that player has played of those ranks since; and,
for every player, the ranks it is known to hold no more of than those known cards (``absent``).

``absent``: without ``voluntary_pickup`` a PICKUP is legal only when no card in the hand fits the
pile, so a pick-up shows the table that the player held no card of any rank playable on that top
card (2s, 10s, and the ranks the comparison allows: equal or higher, or 2..9 on a 9). The cards it
picks up are seen by all and join ``known``, so what stays known is "no rank-r card beyond its
known ones": ``absent[r]`` makes ``known[r]`` the exact count. Plays keep it true (copies of an
absent rank can only be known ones, and ``known`` drops by the number played), so do face-up
cards taken into the hand, further pick-ups (which add the new top card's playable ranks) and a
failed blind card (public). It ends, for every rank, when the hand draws from the stock: a card
nobody else saw comes in. (What survives a draw, "at most d of the hidden cards are of those
ranks", is not kept.)

Why this is sufficient (Markov): the rules' future depends on the pile (top, run, counts), the
cleared cards, the stock size, every zone's size and the cards in hands and face-down slots.
Everything public in the history of plays is summarised exactly by the pile, the cleared
counts, the face-up rows, ``known`` and ``absent`` (plays of a rank only lower what is known of
it; suits do not matter), and the player's own private sightings are its hand (cards it drew it
still holds or has played onto the public pile). Face-down cards are seen by nobody until turned.

In the SWAP phase every player sees the dealt face-up cards and its own dealt hand and picks;
nobody sees another player's picks until everyone has picked (then the new face-up sets are
on the table).

Seats are relative: index 0 is the observer, then the others clockwise, so one policy fits
any seat. Suits do not matter in Fiddlesticks, so cards are encoded by rank (2..A): a view's
rank index is 0 for a 2 up to 12 for an Ace (not the Ace-low :mod:`card_envs.cards` ranks).
``PlayerView.card_name(r)`` names one, and ``view.readable()`` (printed by ``str(view)``) gives
the whole view by name: rank counts as the cards they count (``["2", "2", "10"]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from card_envs import views
from card_envs.cards import format_many, to_str
from card_envs.encoding import Layout, read_scaled
from card_envs.fiddlesticks.rules import (
    EMPTY,
    NUM_RANKS,
    NUM_SLOTS,
    PHASE_NAMES,
    RANK_NAMES,
    SWAP,
    FiddlesticksRules,
    FiddlesticksState,
)

NUM_PHASES = 3
SLOT_SCALE = NUM_SLOTS  #: face-up cards and SWAP picks (at most one a slot) are shown divided by this

_rank = views.rank_names(RANK_NAMES)
_counts = views.counts(_rank)


@views.readable_view(
    card_name=_rank,
    numbering="Fiddlesticks: ranks only (suits do not matter): rank index 2=0, 3=1 .. 10=8, J=9, Q=10, K=11, A=12",
    fields={
        "hand": _counts,
        "picked": _counts,
        "face_up": views.per_seat(_counts),
        "known": views.per_seat(_counts),
        "absent": views.per_seat(views.marked(RANK_NAMES)),
        "pile_top": views.card(_rank),
        "pile_counts": _counts,
        "cleared": _counts,
    },
)
@dataclass
class PlayerView:
    """A Fiddlesticks player's knowledge. Lists by seat are relative (0 = self, then clockwise);
    rank lists are counts for ranks 2..A (index 0..12).

    In the SWAP phase ``hand`` is the observer's dealt hand, ``picked`` its picks so far and
    ``face_up`` the dealt face-up cards (the observer's pool is hand + its face-up row, less
    ``picked``); afterwards ``picked`` is all zeros. ``out`` is each seat's finishing place
    (1 = first out), 0 while it still has cards. ``pile_top`` is None for an empty pile.
    ``absent[k][r]``: everybody knows seat k holds no rank-r card beyond its ``known[k][r]``
    (from a forced pick-up, until it next draws from the stock).
    """

    num_players: int
    phase: str
    to_act: int | None
    hand: list[int]
    picked: list[int]
    face_up: list[list[int]]
    face_down: list[list[bool]]
    hand_sizes: list[int]
    known: list[list[int]]
    absent: list[list[bool]]
    swap_picks: list[int]
    out: list[int]
    pile_top: int | None
    pile_run: int
    pile_counts: list[int]
    cleared: list[int]
    stock_size: int
    turns: int


@lru_cache(maxsize=None)
def _seat_order(n: int, seat: int) -> tuple[int, ...]:
    """Absolute seats seen from ``seat``: itself first, then the others clockwise."""
    return tuple((seat + k) % n for k in range(n))


def view(s: FiddlesticksState, seat: int) -> PlayerView:
    """Filter the state down to what ``seat`` may know."""
    n = len(s.hand_size)
    order = _seat_order(n, seat)
    out = [0] * n
    for place, p in enumerate(s.places):
        out[(p - seat) % n] = place + 1
    if s.phase == SWAP:
        hand = list(s.dealt_hand[seat])
        picked = list(s.picked_counts[seat])
        face_up = [list(s.dealt_up[p]) for p in order]
        hand_sizes = [NUM_SLOTS] * n  # picks from the hand are part of the hidden commitment
    else:
        hand = list(s.hand_counts[seat])
        picked = [0] * NUM_RANKS
        face_up = [list(s.face_up_counts[p]) for p in order]
        hand_sizes = [s.hand_size[p] for p in order]
    return PlayerView(
        num_players=n,
        phase=PHASE_NAMES[s.phase],
        to_act=None if s.current_player < 0 else (s.current_player - seat) % n,
        hand=hand,
        picked=picked,
        face_up=face_up,
        face_down=[[c is not None for c in s.face_down[p]] for p in order],
        hand_sizes=hand_sizes,
        known=[list(s.known[p]) for p in order],
        absent=[list(s.absent[p]) for p in order],
        swap_picks=[s.swap_picks[p] for p in order],
        out=out,
        pile_top=None if s.run_rank == EMPTY else s.run_rank,
        pile_run=s.run_len,
        pile_counts=list(s.pile_counts),
        cleared=list(s.cleared_counts),
        stock_size=len(s.stock),
        turns=s.turns,
    )


@lru_cache(maxsize=None)
def layout_for(num_players: int, num_decks: int, max_turns: int) -> Layout:
    n = num_players
    K = 4 * num_decks
    total = 52 * num_decks
    return Layout(
        [
            ("phase", NUM_PHASES, "one-hot phase: swap, play, over"),
            ("to_act", n, "one-hot relative seat of the player to act (all 0 once the game is over)"),
            ("hand", NUM_RANKS, f"own hand: cards of each rank 2..A, divided by {K} (SWAP: the dealt hand)"),
            ("picked", NUM_RANKS, f"own SWAP picks so far, by rank, divided by {SLOT_SCALE} (0 after the SWAP)"),
            ("face_up", (n, NUM_RANKS), "face-up cards of each relative seat (self first), by rank, divided by "
             f"{SLOT_SCALE} (SWAP: the dealt face-up cards)"),
            ("face_down", (n, NUM_SLOTS), "1 if the face-down slot still holds a card (unknown to everyone)"),
            ("hand_size", n, f"cards in each seat's hand, divided by {total}"),
            ("known", (n, NUM_RANKS), f"hand cards everybody knows each seat holds, by rank, divided by {K}"),
            ("absent", (n, NUM_RANKS), "1 if everybody knows the seat holds no card of the rank beyond its known "
             "ones (a forced pick-up: nothing fitted the pile; void once it draws from the stock)"),
            ("swap_picks", n, f"SWAP picks each seat has made, divided by {SLOT_SCALE}"),
            ("out", n, f"finishing place of each seat (1 = first out), divided by {n}; 0 while it has cards"),
            ("pile_top", NUM_RANKS, "one-hot rank of the pile's top card (all 0: empty pile)"),
            ("pile_run", 1, f"length of the run of equal ranks on top of the pile, divided by {K}"),
            ("pile_counts", NUM_RANKS, f"cards of each rank in the pile, divided by {K}"),
            ("cleared", NUM_RANKS, f"cards of each rank cleared from play, divided by {K}"),
            ("stock_size", 1, f"cards in the stock, divided by {total}"),
            ("turns", 1, f"play actions so far (PLAY, BLIND, PICKUP), divided by max_turns ({max_turns})"),
        ]
    )


def layout(rules: FiddlesticksRules) -> Layout:
    cfg = rules.config
    return layout_for(cfg.num_players, cfg.num_decks, cfg.max_turns)


class Codec:
    """Encodes and decodes PlayerViews for one configuration.

    The encoder lays the raw numbers out in one list in layout order and divides by a
    per-entry scale in float32 (exact for the decoder's rounding back to ints).
    """

    def __init__(self, rules: FiddlesticksRules):
        cfg = rules.config
        self.layout = lo = layout(rules)
        self.n = n = cfg.num_players
        K = 4 * cfg.num_decks
        total = 52 * cfg.num_decks
        scale_of = {
            "hand": K, "picked": SLOT_SCALE, "face_up": SLOT_SCALE, "hand_size": total, "known": K,
            "swap_picks": SLOT_SCALE, "out": n, "pile_run": K, "pile_counts": K, "cleared": K, "stock_size": total,
            "turns": cfg.max_turns,
        }
        self.scale = np.ones(lo.size, dtype=np.float32)
        for seg in lo.segments:
            self.scale[seg.start : seg.stop] = scale_of.get(seg.name, 1)
        self._scale64 = self.scale.astype(np.float64)
        #: each segment's name, span and row width (0 for a 1-D segment), for decode
        self._parts = [
            (seg.name, seg.start, seg.stop, seg.shape[1] if len(seg.shape) == 2 else 0) for seg in lo.segments
        ]
        self._turns = lo.slices["turns"].start
        self._phase = [[1 if i == k else 0 for i in range(NUM_PHASES)] for k in range(NUM_PHASES)]
        self._one_hot_n = [[1 if i == k else 0 for i in range(n)] for k in range(n)] + [[0] * n]
        self._one_hot_r = [[1 if i == k else 0 for i in range(NUM_RANKS)] for k in range(NUM_RANKS)]
        self._one_hot_r.append([0] * NUM_RANKS)

    def encode(self, v: PlayerView) -> np.ndarray:
        vals = list(self._phase[PHASE_NAMES.index(v.phase)])
        vals += self._one_hot_n[-1 if v.to_act is None else v.to_act]
        vals += v.hand
        vals += v.picked
        for row in v.face_up:
            vals += row
        for row in v.face_down:
            vals += row
        vals += v.hand_sizes
        for row in v.known:
            vals += row
        for row in v.absent:
            vals += [1 if b else 0 for b in row]
        vals += v.swap_picks
        vals += v.out
        vals += self._one_hot_r[EMPTY if v.pile_top is None else v.pile_top]
        vals.append(v.pile_run)
        vals += v.pile_counts
        vals += v.cleared
        vals.append(v.stock_size)
        vals.append(0)  # turns, written below: it can exceed a byte
        try:  # every other entry is a small count: bytes() is the fastest way into numpy
            x = np.frombuffer(bytes(vals), dtype=np.uint8).astype(np.float32)
        except ValueError:  # a count above 255 (very many decks)
            x = np.array(vals, dtype=np.float32)
        x[self._turns] = v.turns
        x /= self.scale
        return x

    def decode(self, x: np.ndarray) -> PlayerView:
        """The PlayerView an observation vector encodes (encode(decode(x)) == x)."""
        x = np.asarray(x, dtype=np.float32)
        if x.shape != (self.layout.size,):
            raise ValueError(f"observation must have shape ({self.layout.size},), got {x.shape}")
        seg = _split(read_scaled(x, self._scale64), self._parts)  # every entry as the int it encodes
        return PlayerView(
            num_players=self.n,
            phase=PHASE_NAMES[_one_hot(seg["phase"])],
            to_act=_one_hot(seg["to_act"]),
            hand=seg["hand"],
            picked=seg["picked"],
            face_up=seg["face_up"],
            face_down=[[c != 0 for c in row] for row in seg["face_down"]],
            hand_sizes=seg["hand_size"],
            known=seg["known"],
            absent=[[c != 0 for c in row] for row in seg["absent"]],
            swap_picks=seg["swap_picks"],
            out=seg["out"],
            pile_top=_one_hot(seg["pile_top"]),
            pile_run=seg["pile_run"][0],
            pile_counts=seg["pile_counts"],
            cleared=seg["cleared"],
            stock_size=seg["stock_size"][0],
            turns=seg["turns"][0],
        )


def _split(values: list, parts: list[tuple[str, int, int, int]]) -> dict[str, list]:
    """A flat list cut into named segments (``parts``: name, start, stop, row width or 0 for a
    1-D segment): a 1-D segment as a list, a 2-D one as a list of rows."""
    out = {}
    for name, start, stop, width in parts:
        part = values[start:stop]
        out[name] = [part[i : i + width] for i in range(0, len(part), width)] if width else part
    return out


def _one_hot(values: list[int]) -> int | None:
    """The index of the first nonzero entry of a one-hot read as a list, or None when it is all zero."""
    for i, v in enumerate(values):
        if v:
            return i
    return None


def _ranks_text(counts: list[int]) -> str:
    """``"5 5 9 K"`` for rank counts; ``"-"`` for none."""
    words = [RANK_NAMES[r] for r in range(NUM_RANKS) for _ in range(counts[r])]
    return " ".join(words) if words else "-"


def render(v: PlayerView, seat_names: list[str] | None = None) -> str:
    """A text table of one player's view. Face-down cards show as ##."""
    n = v.num_players
    names = seat_names or ["you"] + [f"+{k}" for k in range(1, n)]
    head = f"phase {v.phase}, play action {v.turns}"
    if v.to_act is not None:
        head += f", {names[v.to_act]} to act"
    top = "empty" if v.pile_top is None else f"{RANK_NAMES[v.pile_top]} (run of {v.pile_run})"
    lines = [
        head,
        f"pile: {top}; holds {_ranks_text(v.pile_counts)}",
        f"stock {v.stock_size}; cleared {_ranks_text(v.cleared)}",
        f"your hand: {_ranks_text(v.hand)}",
    ]
    if v.phase == PHASE_NAMES[SWAP]:
        # A pick takes a dealt face-up card of its rank first (it stays face up), else a hand card.
        from_hand = [max(0, p - u) for p, u in zip(v.picked, v.face_up[0])]
        hand = [h - x for h, x in zip(v.hand, from_hand)]
        pool = [h + u - p for h, u, p in zip(v.hand, v.face_up[0], v.picked)]
        lines[3] = f"your hand: {_ranks_text(hand)}"
        lines.append(
            f"your face-up picks: {_ranks_text(v.picked)} (hidden from the others until all have picked); "
            f"still to choose from: {_ranks_text(pool)}"
        )
    for k in range(n):
        down = " ".join("##" if b else "--" for b in v.face_down[k])
        label = "dealt face-up" if v.phase == PHASE_NAMES[SWAP] else "face-up"
        status = f"  out (place {v.out[k]})" if v.out[k] else ""
        extra = f"  swap picks {v.swap_picks[k]}/3" if v.phase == PHASE_NAMES[SWAP] else ""
        absent = [r for r in range(NUM_RANKS) if v.absent[k][r]]
        none_of = f"; no other {' '.join(RANK_NAMES[r] for r in absent)}" if absent else ""
        lines.append(
            f"{names[k]:>5}: hand {v.hand_sizes[k]} (known: {_ranks_text(v.known[k])}{none_of})  "
            f"{label} {_ranks_text(v.face_up[k])}  face-down {down}{extra}{status}"
        )
    return "\n".join(lines)


def render_state(s: FiddlesticksState) -> str:
    """Every card, face-down ones included. Debugging only."""
    lines = [
        f"phase {PHASE_NAMES[s.phase]}, player {s.current_player} to act, dealer {s.dealer}, play action {s.turns}",
        f"stock (top last): {format_many(s.stock)}",
        f"pile (top last): {format_many(s.pile)}",
        f"cleared: {format_many(s.cleared)}",
    ]
    for p in range(len(s.hand)):
        hand = " ".join(to_str(c) for h in s.hand[p] for c in h)
        down = " ".join("--" if c is None else to_str(c) for c in s.face_down[p])
        lines.append(
            f"player {p}: hand {hand or '-'} | face-up {format_many(s.face_up[p]) or '-'} | "
            f"face-down {down}" + (f" | picked {format_many(s.picked[p])}" if s.phase == SWAP else "")
            + (" | out" if s.out[p] else "")
        )
    return "\n".join(lines)


__all__ = ["PlayerView", "view", "Codec", "layout", "render", "render_state"]
