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
        return {s.name: vector[s.start : s.stop].reshape(s.shape) for s in self.segments}

    def table(self) -> str:
        """The layout as a reStructuredText/Markdown table for a module docstring."""
        rows = ["| Segment | Indices | Shape | Meaning |", "|---|---|---|---|"]
        for s in self.segments:
            shape = "×".join(map(str, s.shape))
            rows.append(f"| `{s.name}` | {s.start}–{s.stop - 1} | {shape} | {s.meaning} |")
        return "\n".join(rows)
