"""Readable player views: every game's ``PlayerView`` by name, declared once per game.

A ``PlayerView`` keeps the numbers its observation encodes: card ints, card masks, rank counts,
codes (a contract, a call, a suit). Those stay exactly as they are (encoders, compiled kernels
and heuristics read them); this module adds, to every game's ``PlayerView``, the same readable
face:

* ``view.readable()`` — a dict of plain names and numbers (str, int, bool, None, and lists and
  dicts of them; JSON-serialisable): cards by name (``"Ts"``, or a rank ``"10"`` in the games
  where suits do not matter), codes decoded (``contract`` 0 -> ``"royalty"``);
* ``str(view)`` — the same, one field per line; ``repr(view)`` — the same on one line;
* ``PlayerView.card_name(c)`` — the name of one card int *in that game's numbering*.

**One numbering per game.** Each game names its own card ints: Guillotine's card 27 is the
deck index ``8·suit + rank`` (ranks 7..A), ``"Ts"``, while :func:`card_envs.cards.to_str` reads
ints in the 52-card numbering (``13·suit + rank``, Ace low), where 27 is ``"2h"``. Never name
a view's card with ``cards.to_str`` directly: use ``PlayerView.card_name`` (or
``view.readable()``), which always uses the game's numbering. ``PlayerView.CARD_NUMBERING``
says in words what the ints mean.

A game declares its decoding with :func:`readable_view` over its dataclass, naming a decoder
for each field that is not already plain (an undeclared field is converted as is: numpy arrays
and tuples become lists)::

    @readable_view(card_name=card_name, numbering="...",
                   fields={"hand": card_mask(card_name), "contract": code(CONTRACT_NAMES)})
    @dataclass
    class PlayerView: ...

The decoders below are the shared vocabulary; a declaration naming a field the dataclass does
not have is an error at import time.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Sequence

import numpy as np

Decoder = Callable[[Any], Any]

#: a field decoder that leaves the field out of ``readable()`` (its content is given in another
#: form, e.g. by an ``extra`` entry)
OMIT: Decoder = lambda value: None  # noqa: E731


# ------------------------------------------------------------------------------- decoders
def plain(value: Any) -> Any:
    """``value`` as plain Python: numpy scalars and arrays, tuples and lists become ints, floats,
    bools and lists (recursively); dict values too."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def card(name_of: Callable[[int], str]) -> Decoder:
    """One card int (or None) -> its name (or None)."""
    return lambda c: None if c is None else name_of(int(c))


def cards(name_of: Callable[[int], str]) -> Decoder:
    """A sequence of card ints -> their names, in order."""
    return lambda seq: [name_of(int(c)) for c in seq]


def card_mask(name_of: Callable[[int], str]) -> Decoder:
    """A card set as a bitmask (bit ``c`` = card ``c``) -> its cards' names, ascending."""

    def decode(mask: int) -> list[str]:
        mask = int(mask)
        out = []
        while mask:
            low = mask & -mask
            out.append(name_of(low.bit_length() - 1))
            mask ^= low
        return out

    return decode


def counts(name_of: Callable[[int], str]) -> Decoder:
    """Counts indexed by card (or rank) -> the names, each repeated as often as counted, in index
    order (``[2, 0, 1, ...]`` over ranks A 2 3 ... -> ``["A", "A", "3"]``). None stays None."""

    def decode(values) -> list[str] | None:
        if values is None:
            return None
        return [name_of(i) for i, k in enumerate(plain(values)) for _ in range(int(k))]

    return decode


def code(names: Sequence[str]) -> Decoder:
    """An index into ``names`` (or None) -> the name (or None)."""
    return lambda i: None if i is None else names[int(i)]


def flags(names: Sequence[str]) -> Decoder:
    """A bitmask over ``names`` (bit i = ``names[i]``) -> the names whose bit is set."""
    return lambda mask: [name for i, name in enumerate(names) if int(mask) >> i & 1]


def marked(names: Sequence[str]) -> Decoder:
    """A list of booleans over ``names`` -> the names marked True."""
    return lambda values: [names[i] for i, b in enumerate(plain(values)) if b]


def tally(names: Sequence[str]) -> Decoder:
    """Counts over ``names`` -> ``{name: count}`` of the nonzero ones, in index order."""
    return lambda values: {names[i]: int(k) for i, k in enumerate(plain(values)) if k}


def per_seat(decoder: Decoder) -> Decoder:
    """A list by relative seat (0 = the observer) -> the decoder applied to each seat's entry.
    None (the whole list absent) stays None."""
    return lambda values: None if values is None else [decoder(v) for v in values]


class from_view:
    """A field decoder that reads the whole view, for a field whose name depends on another one
    (Collector's and Hot's ``own_commit``: the action names differ by game): ``f(view)``."""

    def __init__(self, f: Callable[[Any], Any]):
        self.f = f


def rank_names(symbols: Iterable[str]) -> Callable[[int], str]:
    """The ``card_name`` of a game whose cards are ranks: index i -> ``symbols[i]``."""
    table = tuple(symbols)

    def name(r: int) -> str:
        if not 0 <= r < len(table):
            raise ValueError(f"rank index {r!r} out of range: ranks are 0..{len(table) - 1} ({' '.join(table)})")
        return table[r]

    return name


# ----------------------------------------------------------------------------- the face
def _text(value: Any) -> str:
    """A readable value as compact text: a list of names as space-separated names."""
    if value is None:
        return "-"
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " ".join(value) if value else "-"
        sep = " | " if any(isinstance(v, (list, dict)) for v in value) else ", "
        return "[" + sep.join(_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.items()) + "}" if value else "-"
    return str(value)


def readable_view(
    *,
    card_name: Callable[[int], str],
    numbering: str,
    fields: dict[str, Decoder] | None = None,
    extra: dict[str, Callable[[Any], Any]] | None = None,
) -> Callable[[type], type]:
    """Class decorator: give a game's PlayerView dataclass ``readable()``, ``str``, ``repr``,
    ``card_name`` and ``CARD_NUMBERING`` (apply it above ``@dataclass``).

    ``card_name``: the game's card int -> name. ``numbering``: what the card ints mean, in words.
    ``fields``: a decoder per field that is not plain already (:data:`OMIT` leaves one out;
    :class:`from_view` reads the whole view).
    ``extra``: further readable entries computed from the view (``name -> f(view)``), after the
    fields. Nothing about the dataclass itself changes: its fields, equality and constructor
    stay as they were.
    """
    fields = dict(fields or {})
    extra = dict(extra or {})

    def decorate(cls: type) -> type:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"readable_view decorates a dataclass (put it above @dataclass), got {cls!r}")
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(fields) - set(names))
        if unknown:
            raise ValueError(f"{cls.__qualname__} has no field(s) {unknown}; its fields are {names}")
        clash = sorted(set(extra) & set(names))
        if clash:
            raise ValueError(f"extra entries {clash} of {cls.__qualname__} clash with its fields")
        order = [(n, fields.get(n, plain)) for n in names if fields.get(n) is not OMIT]

        def readable(self) -> dict[str, Any]:
            """This view with cards by name and codes decoded: a dict of plain names and numbers
            (the attributes keep the raw numbers the observation encodes)."""
            out = {
                n: plain(decode.f(self) if isinstance(decode, from_view) else decode(getattr(self, n)))
                for n, decode in order
            }
            for n, f in extra.items():
                out[n] = plain(f(self))
            return out

        def __str__(self) -> str:
            return f"{cls.__name__}\n" + "\n".join(f"  {k}: {_text(v)}" for k, v in self.readable().items())

        def __repr__(self) -> str:
            return f"{cls.__name__}(" + ", ".join(f"{k}={v!r}" for k, v in self.readable().items()) + ")"

        cls.readable = readable
        cls.__str__ = __str__
        cls.__repr__ = __repr__
        cls.card_name = staticmethod(card_name)
        cls.CARD_NUMBERING = numbering
        return cls

    return decorate


__all__ = [
    "OMIT",
    "card",
    "card_mask",
    "cards",
    "code",
    "counts",
    "flags",
    "from_view",
    "marked",
    "per_seat",
    "plain",
    "rank_names",
    "readable_view",
    "tally",
]
