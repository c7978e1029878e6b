"""The games' randomness as explicit chance events.

Every rules engine draws its randomness through the generator its state holds, with two calls
only: ``rng.integers(n)`` (a seat: the first dealer, the first player) and
``rng.permutation(k)`` (a shuffle of ``k`` cards: a deal, Golf's rebuilt stock, Guilders' new
fan). OpenSpiel wants each random event as a chance node with its outcomes and their exact
probabilities. :class:`ChanceGenerator` stands in for the state's generator: it serves the
results of chance events already decided, and raises :class:`NeedChance` at the first draw that
is not, naming it. The OpenSpiel state then offers that draw as chance nodes, a seat as one node
(``n`` outcomes, each ``1/n``) and a shuffle card by card (the next card is any of the ``r``
positions not taken yet, each ``1/r``; the last one is forced), which together give every seat
and every order of the cards exactly numpy's uniform probabilities. The rules shuffle through
:func:`card_envs.generators.shuffle_order`, which tells the generator the cards it orders
(``shuffling``), so a chance outcome is named by its card.

:class:`RecordingGenerator` does the reverse for the tests and for replaying an env's game: it
wraps a real generator and records each draw's result, which can be fed back as chance outcomes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

INTEGERS, PERMUTATION = "integers", "permutation"


class NeedChance(Exception):
    """A draw whose result is not decided yet: ``kind`` (``"integers"`` or ``"permutation"``)
    of size ``n``; for a shuffle, the ``cards`` it orders when the rules said (else None)."""

    def __init__(self, kind: str, n: int, cards: list[Any] | None = None):
        super().__init__(f"undecided chance event: {kind}({n})")
        self.kind, self.n, self.cards = kind, int(n), cards


class ChanceGenerator:
    """A generator whose draws are decided outside: ``results`` (ints for ``integers``, lists for
    ``permutation``) served in order; a draw past them raises :class:`NeedChance`."""

    def __init__(self, results: list[Any] | None = None):
        self.results = list(results or [])
        self.used = 0
        self.cards: list[Any] | None = None  # what the next shuffle orders, once the rules say

    def shuffling(self, cards: Any) -> None:
        """The rules are about to shuffle ``cards`` (``card_envs.generators.shuffle_order``)."""
        self.cards = [int(c) for c in cards]

    def feed(self, results: list[Any]) -> None:
        """Decide the next draws."""
        self.results.extend(results)

    def _next(self, kind: str, n: int) -> Any:
        cards, self.cards = self.cards, None
        if self.used >= len(self.results):
            raise NeedChance(kind, n, cards if kind == PERMUTATION and cards is not None and len(cards) == n else None)
        value = self.results[self.used]
        self.used += 1
        return value

    def integers(self, n: int, *args: Any, **kwargs: Any) -> int:
        if args or kwargs:
            raise TypeError("the rules draw a seat as integers(n) only")
        return int(self._next(INTEGERS, n))

    def permutation(self, k: Any) -> np.ndarray:
        if not isinstance(k, (int, np.integer)):
            raise TypeError("the rules shuffle as permutation(k) only")
        return np.asarray(self._next(PERMUTATION, int(k)), dtype=np.int64)

    def copy(self) -> "ChanceGenerator":
        """An independent generator at the same point (a copied rules state's)."""
        twin = ChanceGenerator(self.results)
        twin.used = self.used
        return twin


class RecordingGenerator:
    """A numpy generator that records what each ``integers(n)`` and ``permutation(k)`` drew:
    ``events`` holds ``(kind, n, result)`` in order."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.events: list[tuple[str, int, Any]] = []

    def integers(self, n: int) -> int:
        value = int(self.rng.integers(n))
        self.events.append((INTEGERS, int(n), value))
        return value

    def permutation(self, k: int) -> np.ndarray:
        value = self.rng.permutation(k)
        self.events.append((PERMUTATION, int(k), [int(x) for x in value]))
        return value

    def copy(self) -> "RecordingGenerator":
        from card_envs.generators import copy_generator

        twin = RecordingGenerator(copy_generator(self.rng))
        twin.events = list(self.events)
        return twin

    def outcomes(self) -> list[int]:
        """The recorded draws as OpenSpiel chance outcomes, in order: a seat is one outcome, a
        shuffle of k cards its first k-1 positions (the last is forced)."""
        out: list[int] = []
        for kind, n, value in self.events:
            out.extend([value] if kind == INTEGERS else value[:-1])
        return out
