"""The rules states' random generators: copying one, and shuffling with one.

Every rules state holds the ``numpy.random.Generator`` its game draws from (new deals, rebuilt
stocks). A copied state needs its own generator in the same state, so that the copy's future
draws are the original's without consuming them. ``copy.deepcopy`` does that through pickling
and draws fresh OS entropy for the new bit generator on the way; search agents copy states many
times a decision, so the copy is built directly (:func:`copy_generator`). Every shuffle of the
rules goes through :func:`shuffle_order`.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

import numpy as np


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s state, as ``copy.deepcopy(rng)`` makes it: the same
    kind of bit generator, the same state and an equal seed sequence (so ``spawn`` agrees too).
    A stand-in generator (OpenSpiel's chance events, ``card_envs.openspiel.chance``) copies itself."""
    if not isinstance(rng, np.random.Generator):
        return rng.copy()
    bits = rng.bit_generator
    seq = bits.seed_seq
    if not isinstance(seq, np.random.SeedSequence):  # a legacy-seeded bit generator
        return copy.deepcopy(rng)
    twin = type(bits)(np.random.SeedSequence(
        seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size, n_children_spawned=seq.n_children_spawned
    ))
    twin.state = bits.state
    return np.random.Generator(twin)


def shuffle_order(rng: Any, cards: Sequence[Any]) -> np.ndarray:
    """The order a shuffle puts ``cards`` in: ``rng.permutation(len(cards))``, the index of the
    card dealt first first. Every rules engine shuffles through here, and a numpy generator draws
    exactly what ``rng.permutation(len(cards))`` draws. A generator whose draws are decided outside
    (OpenSpiel's chance nodes, :mod:`card_envs.openspiel.chance`) is told the cards first (its
    ``shuffling`` method), so that each chance outcome can be named by its card."""
    tell = getattr(rng, "shuffling", None)
    if tell is not None:
        tell(cards)
    return rng.permutation(len(cards))
