"""Observation layouts as named segments (OpenSpiel's Observer idea).

A game's view module declares its observation as an ordered list of segments, each a name, a
shape and a one-line meaning. The encoder writes into the slices the layout hands out, the
decoder reads them back, and the environment's documentation table is generated from the same
list, so the docs cannot drift from the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Iterable

import numpy as np


@dataclass(frozen=True)
class Segment:
    name: str
    shape: tuple[int, ...]
    meaning: str
    high: float = 1.0  # largest value an entry can take (for the observation space's bounds)
    start: int = 0

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def stop(self) -> int:
        return self.start + self.size


class Layout:
    """An ordered list of segments laid end to end in one float32 vector."""

    def __init__(self, segments: Iterable[tuple]):
        self.segments: list[Segment] = []
        start = 0
        for spec in segments:
            name, shape, meaning, *rest = spec
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            seg = Segment(name, shape, meaning, float(rest[0]) if rest else 1.0, start)
            self.segments.append(seg)
            start = seg.stop
        self.size = start
        self.by_name = {s.name: s for s in self.segments}
        if len(self.by_name) != len(self.segments):
            raise ValueError("segment names must be unique")
        #: ``slices[name]`` is the slice of the flat vector holding that segment
        self.slices = {s.name: slice(s.start, s.stop) for s in self.segments}
        self.high = np.zeros(self.size, dtype=np.float32)
        for s in self.segments:
            self.high[s.start : s.stop] = s.high
        self.low = np.zeros(self.size, dtype=np.float32)
        self._parts = [(s.name, s.start, s.stop, s.shape) for s in self.segments]  # for split()

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Each segment of ``vector`` under its name, reshaped to the segment's shape.

        The quickest way to read an observation by hand, segment by segment (the values are
        as encoded: one-hots, counts and scaled numbers; ``env.unwrapped.decode(vector)`` gives
        the PlayerView, and its ``readable()`` the same by name)::

            parts = env.unwrapped.observation_layout.split(obs["observation"])
            parts["hand"], parts["contract"]
        """
        if vector.shape != (self.size,):
            raise ValueError(f"observation must have shape ({self.size},), got {vector.shape}")
        return {name: vector[start:stop].reshape(shape) for name, start, stop, shape in self._parts}

    def table(self) -> str:
        """The layout as a reStructuredText/Markdown table for a module docstring."""
        rows = ["| Segment | Indices | Shape | Meaning | Values |", "|---|---|---|---|---|"]
        for s in self.segments:
            shape = "×".join(map(str, s.shape))
            low, high = float(self.low[s.start : s.stop].min()), float(self.high[s.start : s.stop].max())
            rows.append(f"| `{s.name}` | {s.start}–{s.stop - 1} | {shape} | {s.meaning} | {low:g}–{high:g} |")
        return "\n".join(rows)


# ------------------------------------------------------------------ full-information states
#: how a zone's cards are placed: "set" (a multiset: their order carries nothing), "seq"
#: (position = index in the rules' list: a slot, a seat, a pile from its first card, a stock
#: whose first card is the top) or "stack" (the rules' list ends with the top card: position =
#: how many cards lie above it)
ZONE_ORDERS = ("set", "seq", "stack")


@dataclass(frozen=True)
class Zone:
    """A place cards can lie in, named as the rules' ``zones(state)`` names it."""

    name: str
    capacity: int  # the most cards it can hold: positions are 0..capacity-1
    order: str = "set"
    meaning: str = ""

    def __post_init__(self) -> None:
        if self.order not in ZONE_ORDERS:
            raise ValueError(f"zone {self.name!r}: order must be one of {ZONE_ORDERS}, got {self.order!r}")
        if self.capacity < 1:
            raise ValueError(f"zone {self.name!r}: capacity must be at least 1, got {self.capacity}")


class CardCensus:
    """Where every card of the deck lies, as two layout segments (the card-location table of
    OpenSpiel's card games: one row per card, one column per place).

    The deck's cards are rows, in the order given (copies of one card next to each other):
    ``card_zone[row]`` is the one-hot zone the card lies in, ``card_position[row]`` its position
    there divided by the zone's capacity (0 in a "set" zone; see :data:`ZONE_ORDERS`). Copies of
    one card are interchangeable: they fill their rows in zone order, then position order, so a
    census has exactly one encoding. Every row has exactly one zone: the encoding covers every
    card exactly once, and :meth:`encode` refuses a census that does not (a ValueError).
    """

    def __init__(self, deck: Iterable[int], zones: Iterable[Zone], card_name=None):
        self.deck = np.asarray(list(deck), dtype=np.int64)
        self.zones = list(zones)
        self.num_cards = len(self.deck)
        self.num_zones = len(self.zones)
        self.index = {z.name: i for i, z in enumerate(self.zones)}
        if len(self.index) != self.num_zones:
            raise ValueError("zone names must be unique")
        ids = self.deck.tolist()
        first: dict[int, int] = {}
        for row, c in enumerate(ids):
            if c in first and ids[row - 1] != c:
                raise ValueError("copies of a card must be consecutive rows of the census deck")
            first.setdefault(c, row)
        #: ``first_row[c]``: the first row of card ``c`` (sorting by it orders cards as the rows)
        self.first_row = np.full(max(ids) + 1, -1, dtype=np.int64)
        for c, row in first.items():
            self.first_row[c] = row
        self.capacity = np.array([z.capacity for z in self.zones], dtype=np.float64)
        self._order = [ZONE_ORDERS.index(z.order) for z in self.zones]
        self.card_name = card_name or str

    def segments(self) -> list[tuple]:
        """The census's two segments, for a :class:`Layout`."""
        return [
            ("card_zone", (self.num_cards, self.num_zones),
             "one-hot zone of each card: rows are the deck's cards (see the card rows below), columns the zones "
             "(see the zone table)"),
            ("card_position", self.num_cards,
             "each card's position in its zone divided by the zone's capacity (0 in an unordered zone)"),
        ]

    def place(self, contents: dict[str, list]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(zone, position, index)`` of every row, for the census ``contents`` (zone name ->
        the rules' list of that zone, None for an empty slot). ``index`` is the card's index in
        the rules' list, for game segments that describe a card where it lies. A census holding
        other cards than the deck, or one of them twice, is a ValueError."""
        cards, zone, pos, idx = [], [], [], []
        for name, items in contents.items():
            z = self.index[name]
            order = self._order[z]
            m = len(items)
            for i, c in enumerate(items):
                if c is None:
                    continue
                cards.append(c)
                zone.append(z)
                idx.append(i)
                pos.append(0 if order == 0 else i if order == 1 else m - 1 - i)
        cards_a = np.asarray(cards, dtype=np.int64)
        zone_a = np.asarray(zone, dtype=np.int64)
        pos_a = np.asarray(pos, dtype=np.int64)
        unknown = cards_a.size and (cards_a.max() >= len(self.first_row) or cards_a.min() < 0)
        if len(cards_a) != self.num_cards or unknown:
            raise ValueError(
                f"the census holds {len(cards_a)} cards, the deck {self.num_cards}: every card exactly once"
            )
        rows = np.lexsort((pos_a, zone_a, self.first_row[cards_a]))
        if not np.array_equal(cards_a[rows], self.deck):
            raise ValueError("the census does not hold the deck's cards exactly once each")
        return zone_a[rows], pos_a[rows], np.asarray(idx, dtype=np.int64)[rows]

    def encode(self, out: np.ndarray, layout: Layout, contents: dict[str, list]) -> np.ndarray:
        """Write the census into ``out`` (at ``layout``'s census segments); returns the zone of
        every row and the card's index in its rules' list (see :meth:`place`)."""
        zone, pos, idx = self.place(contents)
        zs = layout.by_name["card_zone"].start
        out[zs + np.arange(self.num_cards) * self.num_zones + zone] = 1.0
        ps = layout.slices["card_position"]
        out[ps] = pos / self.capacity[zone]
        return zone, idx

    def decode(self, vector: np.ndarray, layout: Layout) -> dict[str, list[int]]:
        """The census a state vector encodes: zone name -> its cards, in the rules' list order
        ("seq" and "stack" zones, empty slots left out) or ascending ("set" zones)."""
        parts = layout.split(np.asarray(vector, dtype=np.float32))
        onehot = parts["card_zone"]
        if not np.all(onehot.sum(axis=1) == 1):
            raise ValueError("a state vector's card_zone rows must each hold exactly one 1 (every card in one zone)")
        zone = onehot.argmax(axis=1)
        pos = np.rint(parts["card_position"].astype(np.float64) * self.capacity[zone]).astype(np.int64)
        out: dict[str, list[int]] = {}
        for z, spec in enumerate(self.zones):
            rows = np.flatnonzero(zone == z)
            cards = self.deck[rows]
            if spec.order == "set":
                out[spec.name] = sorted(cards.tolist())
                continue
            by_pos = cards[np.argsort(pos[rows], kind="stable")].tolist()
            out[spec.name] = by_pos[::-1] if spec.order == "stack" else by_pos
        return out

    def zone_table(self) -> str:
        """The zones as a Markdown table (column of ``card_zone``, name, order, meaning)."""
        rows = ["| Column | Zone | Capacity | Order | Meaning |", "|---|---|---|---|---|"]
        what = {"set": "unordered", "seq": "position = index (slot, seat, or from the pile's first card)",
                "stack": "position = cards above it (0 = the top)"}
        for i, z in enumerate(self.zones):
            rows.append(f"| {i} | `{z.name}` | {z.capacity} | {what[z.order]} | {z.meaning} |")
        return "\n".join(rows)

    def document(self, layout: Layout) -> str:
        """A state layout's docs: its segment table, this census's zone table and card rows."""
        return (
            layout.table() + "\n\nZones (columns of `card_zone`):\n\n" + self.zone_table() + "\n\n"
            + self.rows_text() + "."
        )

    def rows_text(self) -> str:
        """Which card each row of ``card_zone`` stands for, in runs (``0–12: Ac..Kc``)."""
        names = [self.card_name(int(c)) for c in self.deck]
        copies = self.num_cards // max(1, len(set(self.deck.tolist())))
        head = ", ".join(f"{i}: {n}" for i, n in enumerate(names[: min(len(names), 16)]))
        tail = f", … {self.num_cards - 1}: {names[-1]}" if len(names) > 16 else ""
        each = f"{copies} cop{'y' if copies == 1 else 'ies'} of each card in sequence"
        return f"rows ({self.num_cards}, {each}): {head}{tail}"


def signed_segments(name: str, shape, meaning: str, scale: float, most: float, least: float) -> list[tuple]:
    """Two segments for a signed quantity (all bounds stay >= 0): ``<name>_plus`` and
    ``<name>_minus``, its positive and negative parts divided by ``scale``."""
    return [
        (f"{name}_plus", shape, f"positive part of {meaning}, / {scale:g}", max(most, 0) / scale or 1.0),
        (f"{name}_minus", shape, f"negative part of {meaning} (as a positive number), / {scale:g}",
         max(-least, 0) / scale or 1.0),
    ]


def write_signed(out: np.ndarray, layout: Layout, name: str, values, scale: float) -> None:
    """Write ``values`` into the two segments :func:`signed_segments` declared."""
    v = np.asarray(values, dtype=np.float64) / scale
    out[layout.slices[f"{name}_plus"]] = np.maximum(v, 0).ravel()
    out[layout.slices[f"{name}_minus"]] = np.maximum(-v, 0).ravel()


def write_one_hot(out: np.ndarray, layout: Layout, name: str, index: int | None, row: int = 0) -> None:
    """Set entry ``index`` of row ``row`` of segment ``name`` (nothing for None or a negative index)."""
    if index is None or index < 0:
        return
    seg = layout.by_name[name]
    width = seg.shape[-1]
    out[seg.start + row * width + index] = 1.0


# ------------------------------------------------------------------- reading a vector back
# The decoders' shared readers: whole segments at once (one numpy call, then plain lists), not
# an np.flatnonzero per one-hot: decoding is on the path of every heuristic decision.
def read_one_hots(a: np.ndarray) -> list:
    """The first nonzero index of every one-hot along the last axis of ``a`` (None where it is all
    zero): nested lists with ``a``'s leading shape."""
    nz = a != 0
    idx = np.where(nz.any(axis=-1), nz.argmax(axis=-1), -1).tolist()
    if a.ndim == 2:
        return [None if i < 0 else i for i in idx]
    if a.ndim == 3:
        return [[None if i < 0 else i for i in row] for row in idx]
    raise ValueError(f"read_one_hots reads 2-D or 3-D segments, got shape {a.shape}")


def read_scaled(a: np.ndarray, scale: float) -> list:
    """``int(round(float(v) * scale))`` of every entry of ``a`` (a scaled count read back), as
    nested lists with ``a``'s shape: one numpy call (``np.rint`` rounds halves to even, as
    Python's ``round`` does)."""
    return np.rint(a.astype(np.float64) * scale).astype(np.int64).tolist()
