"""How many torch threads the PPO update takes under ``torch_threads: "auto"``: the cores no
other process keeps busy.

The update runs while the games wait, so on an idle machine it may take every core (on two
cores, two threads train about 15% faster than one). But torch's OpenMP threads spin while they
wait for each other: when another process holds a core, a thread sharing that core is descheduled
in the middle of every parallel region and the others spin until it returns, and the update
collapses (measured on two cores with one held by a busy loop: two threads trained at 4,016
learner steps/s, one at 10,859). So under ``"auto"`` the threads follow the machine:

- each update measures, from ``/proc/stat``, how much CPU the *other* processes used while it ran
  (the machine's busy time minus this process's own CPU time, per second of the update), and
  so does the first collection, before the first update;
- the next update takes every core minus the cores they kept busy (rounded), at least one.

(The first collection's measurement counts the helper processes that compute the heuristic's
moves beside it as others: in those games the first update may take fewer threads than it could,
and the next update corrects it.)

The measurement costs two small file reads per update. Without ``/proc/stat`` (not Linux) the
threads stay at their starting number. A fixed ``torch_threads`` (or ``OMP_NUM_THREADS``) is
never changed.
"""

from __future__ import annotations

import time

from card_envs.runtime import machine_busy_seconds  # noqa: F401  (the one reading of /proc/stat)


class AdaptiveThreads:
    """The update's threads: every core minus those other processes kept busy during the last
    update (see the module docstring). ``begin()`` before an update returns the threads to take;
    ``end()`` after it measures the others' load."""

    def __init__(self, cores: int, busy_threshold: float = 0.5):
        self.cores = max(1, int(cores))
        self.threads = self.cores
        self.threshold = float(busy_threshold)
        self.others = 0.0  # cores the other processes kept busy during the last update
        self._start: tuple[float, float, float] | None = None

    def begin(self) -> int:
        busy = machine_busy_seconds()
        self._start = None if busy is None else (busy, time.process_time(), time.perf_counter())
        return self.threads

    def end(self) -> None:
        if self._start is None:
            return
        busy = machine_busy_seconds()
        busy0, own0, wall0 = self._start
        self._start = None
        wall = time.perf_counter() - wall0
        if busy is None or wall < 0.05:  # too short to say anything
            return
        self.others = max(0.0, ((busy - busy0) - (time.process_time() - own0)) / wall)
        taken = int(self.others + 1.0 - self.threshold)  # a core counts as taken from `threshold` of it
        self.threads = max(1, self.cores - taken)


def limit_threads(env_threads: int) -> None:
    """The batched engine's threads (numba) and numpy's BLAS threads, for the whole training.

    The environment runs in this process between the PPO updates; on a 2-core machine a parallel
    region or a multithreaded BLAS call of a few hundred rows costs more in scheduling than it
    saves (measured: numba's parallel regions 10 ms each and an opponent policy's 256-row forward
    19 ms under load, against 0.3 ms on one thread), so one thread each is the default."""
    try:
        import numba

        from card_envs.runtime import start_threads

        start_threads()  # their wait policy is set as the engine sets it, before they start
        numba.set_num_threads(max(1, min(env_threads, numba.config.NUMBA_NUM_THREADS)))
    except ImportError:  # the single-game path needs no numba
        pass
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(env_threads, user_api="blas")
    except ImportError:
        pass
