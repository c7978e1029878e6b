"""Playing cards as small ints, their notation, and decks.

A card is an int: ``suit * 13 + rank`` for the 52 standard cards, with

* ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` as 0..12 (Ace low; a game that ranks the
  Ace high or orders ranks differently maps ranks through its own table), and
* suits ``c d h s`` (clubs, diamonds, hearts, spades) as 0..3,

and two jokers: ``BJ`` (black joker) = 52 and ``RJ`` (red joker) = 53.

Notation is rank then suit, ``"As"``, ``"Td"``, ``"7h"``; ``"10h"`` is read as
``"Th"`` and suits may also be given as the symbols ♣♦♥♠. Several decks are
shuffled together as a multiset: a 2-deck game simply holds two ``"As"`` ints.

**This is the 52-card numbering**, the one stacked decks, rules states and Guilders' views
use. A player view's card ints are not always these: Guillotine's views and play actions use
its deck index ``8·suit + rank`` over 32 cards (its card 27 is ``"Ts"``, where ``to_str(27)``
is ``"2h"``), and Golf, Fiddlesticks, Collector and Hot views hold ranks only (Fiddlesticks
counts 2..A as 0..12). Name a view's cards with its own ``PlayerView.card_name`` (or
``view.readable()``), never with :func:`to_str` (see :mod:`card_envs.views`).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
NUM_RANKS = 13
NUM_SUITS = 4
NUM_STANDARD = 52
BLACK_JOKER = 52
RED_JOKER = 53
JOKERS = (BLACK_JOKER, RED_JOKER)
NUM_CARDS = 54  # distinct card identities, jokers included

_NAMES = [RANKS[c % 13] + SUITS[c // 13] for c in range(52)] + ["BJ", "RJ"]
_PARSE = {name: c for c, name in enumerate(_NAMES)}
for _c in range(52):
    _r, _s = RANKS[_c % 13], SUITS[_c // 13]
    _PARSE[_r + _s.upper()] = _c
    _PARSE[_r.lower() + _s] = _c
    _PARSE[_r + SUIT_SYMBOLS[_c // 13]] = _c
    if _r == "T":
        _PARSE["10" + _s] = _c
        _PARSE["10" + _s.upper()] = _c
        _PARSE["10" + SUIT_SYMBOLS[_c // 13]] = _c
_PARSE.update({"bj": BLACK_JOKER, "rj": RED_JOKER})


def card(rank: int, suit: int) -> int:
    """The card of rank index ``rank`` (A=0 .. K=12) and suit index ``suit`` (c d h s)."""
    return suit * 13 + rank


def rank_of(c: int) -> int:
    """Rank index A=0 .. K=12. Jokers have no rank (ValueError)."""
    if c >= 52:
        raise ValueError(f"a joker ({_NAMES[c]}) has no rank")
    return c % 13


def suit_of(c: int) -> int:
    """Suit index c=0, d=1, h=2, s=3. Jokers have no suit (ValueError)."""
    if c >= 52:
        raise ValueError(f"a joker ({_NAMES[c]}) has no suit")
    return c // 13


def is_joker(c: int) -> bool:
    return c >= 52


def to_str(c: int) -> str:
    """``"As"``, ``"Td"``, ``"RJ"``: the name of a card int in the 52-card numbering
    (``13·suit + rank``). Not for Guillotine's deck indices (use
    ``card_envs.guillotine.rules.card_name``) or a view's rank indices (``PlayerView.card_name``)."""
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"card int {c!r} out of range: cards are 0..{NUM_CARDS - 1}")
    return _NAMES[c]


def parse(text: str | int) -> int:
    """Read one card: ``"As"``, ``"Td"``/``"10d"``, ``"7♥"``, ``"RJ"``/``"BJ"``.

    An int already in 0..53 is returned as is. Anything else is a ValueError that
    says what is accepted.
    """
    if isinstance(text, (int,)) and not isinstance(text, bool):
        if 0 <= text < NUM_CARDS:
            return int(text)
        raise ValueError(f"card int {text!r} out of range: cards are 0..{NUM_CARDS - 1}")
    if isinstance(text, str):
        t = text.strip()
        c = _PARSE.get(t)
        if c is None and len(t) >= 2:
            c = _PARSE.get(t[:-1].upper() + t[-1].lower())
        if c is not None:
            return c
    raise ValueError(
        f"malformed card {text!r}: a card is a rank from {'/'.join(RANKS)} (or 10) followed by "
        f"a suit from {'/'.join(SUITS)}, like 'As', 'Td', '7h'; or a joker 'RJ'/'BJ'"
    )


def parse_many(cards: Iterable[str | int] | str) -> list[int]:
    """Read a list of cards, or one string of cards separated by spaces or commas."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [parse(c) for c in cards]


def format_many(cards: Iterable[int]) -> str:
    return " ".join(_NAMES[c] for c in cards)


def make_deck(num_decks: int = 1, jokers_per_deck: int = 0, ranks: Sequence[int] | None = None) -> list[int]:
    """An unshuffled deck: ``num_decks`` copies of the 52 cards (or of the cards whose rank index
    is in ``ranks``), each copy with ``jokers_per_deck`` jokers (alternating BJ, RJ)."""
    if num_decks < 1:
        raise ValueError(f"num_decks must be at least 1, got {num_decks!r}")
    if jokers_per_deck < 0:
        raise ValueError(f"jokers_per_deck must be 0 or more, got {jokers_per_deck!r}")
    keep = range(52) if ranks is None else [c for c in range(52) if c % 13 in set(ranks)]
    one = list(keep) + [JOKERS[i % 2] for i in range(jokers_per_deck)]
    return one * num_decks


def check_stacked_deck(deck: Sequence[str | int], expected: Sequence[int], what: str = "") -> list[int]:
    """Parse a stacked deck (top card first) and check it is exactly the multiset ``expected``.

    Returns the card ints. A deck of the wrong size, with cards this configuration does not
    use, or with the wrong number of copies of a card, is a ValueError saying so.
    """
    if isinstance(deck, (str, bytes)) or not hasattr(deck, "__iter__"):
        raise ValueError(f"options['deck'] must be a list of cards (top card first), got {type(deck).__name__}")
    cards = [parse(c) for c in deck]
    suffix = f" ({what})" if what else ""
    if len(cards) != len(expected):
        raise ValueError(
            f"stacked deck has {len(cards)} cards, this configuration uses {len(expected)}{suffix}"
        )
    have, want = Counter(cards), Counter(expected)
    if have != want:
        def counted(counter: Counter) -> str:
            items = sorted(counter.items())
            text = " ".join(_NAMES[c] + (f"×{k}" if k > 1 else "") for c, k in items[:20])
            return text + (f" … ({len(items) - 20} more)" if len(items) > 20 else "")

        extra, missing = have - want, want - have
        parts = []
        if extra:
            parts.append("cards this configuration does not use (or too many copies): " + counted(extra))
        if missing:
            parts.append("missing: " + counted(missing))
        raise ValueError(f"stacked deck does not match the configuration's deck{suffix}: " + "; ".join(parts))
    return cards
