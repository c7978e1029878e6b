"""A tournament's progress on the terminal: tqdm's bar when tqdm is installed, else a line on
stderr every two seconds and at the end."""

from __future__ import annotations

import sys
import time


class PlainBar:
    """``done/total`` lines on stderr, at most one every two seconds, and one at the end."""

    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.n, self.last = total, desc, 0, 0.0

    def update(self, k: int) -> None:
        self.n += k
        now = time.perf_counter()
        if now - self.last > 2 or self.n >= self.total:
            self.last = now
            print(f"{self.desc}: {self.n}/{self.total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def progress_bar(total: int, desc: str):
    """A bar counting ``total`` games: ``update(k)`` after k more, ``close()`` at the end."""
    try:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit="game")
    except ImportError:
        return PlainBar(total, desc)
