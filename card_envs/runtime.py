"""How the batched engine's compiled kernels run in this process: numba's threads, and the one
time the kernels are compiled.

**Threads that wait as the machine allows.** numba runs a parallel loop on its threading layer,
by default OpenMP (GNU libgomp). Between two parallel regions libgomp's threads spin before they
sleep (300,000 spins by default, a few milliseconds), and a region ends only when every thread
has done its share. On a machine where other processes hold cores (a training run beside its
evaluation, a browser, a second experiment), a spinning thread takes a core from them, a thread
is descheduled in the middle of a region and the others spin until it returns: measured on two
cores with two busy processes beside it, `vector_env(num_envs=1024)` fell from 326,000 steps/s on
one thread to 21,000 on two (Guilders). libgomp reads its wait policy once, when numba starts its
threads, so :func:`start_threads` (called on importing :mod:`card_envs.vector`, before any kernel
runs) chooses it from the machine's load at that moment (:meth:`OthersLoad.lately`: since
card_envs was imported, at least a tenth of a second):

- **other processes keep half a core or more busy**: the threads never spin
  (``OMP_WAIT_POLICY=PASSIVE``), and each batched step runs on the thread count its own timing
  found fastest (:class:`ThreadChoice`: one thread or all of them; with passive threads a thread
  a region leaves out costs nothing; a batch under
  :data:`card_envs.vector.BUSY_PARALLEL_MIN_ROWS` games runs one thread). Passive threads ran
  2-30x as fast as spinning ones there, but neither fixed count won everywhere
  (``benchmarks/busy_results.json``);
- **an idle machine**: libgomp's own spinning, the fastest there (a passive wait cost up to half of
  the speed: every region waits for its threads to wake), and :func:`engine_threads` follows the
  load from then on: a parallel region takes only the cores other processes leave free (one
  thread, the plain loop, while they keep the other core busy), re-measured at most every quarter
  of a second, so a load that starts later does not meet spinning threads either.

What this leaves: a process that started on a busy machine keeps passive threads when the machine
becomes idle (its steps then choose between one passive thread and all, both slower than spinning
threads there), and one that started idle runs one thread when a load comes, where passive
threads would sometimes have run faster.
The variable is set only while numba loads its threading layer, so the processes this one starts
keep libgomp's default (torch shares the engine's OpenMP runtime, and so its wait, only where it
is imported after the engine starts: its Linux wheels then load the same ``libgomp``), and not
at all when the process's environment sets
``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` itself (with ``OMP_WAIT_POLICY=PASSIVE`` the steps
then choose their thread count as above). ``CARD_ENVS_FOLLOW_LOAD=0`` leaves the load out: numba's threads,
numba's wait. A program that starts numba's threads itself before card_envs does (a parallel
numba function of its own, ``numba.set_num_threads``) decides their wait instead.

Results never depend on the threads (every game's rows are independent).

**Compiling once, said once.** The kernels are compiled by numba the first time a game's
``vector_env`` runs after card_envs is installed or updated, and kept in numba's cache
(``__pycache__`` beside each kernels module, or ``NUMBA_CACHE_DIR``). That takes tens of seconds,
so :func:`announce_compilation` prints one line on stderr before it starts, and nothing when the
cache already holds the game's kernels.
"""

from __future__ import annotations

import os
import sys
import time
from types import ModuleType
from typing import Iterable

_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def machine_busy_seconds() -> float | None:
    """CPU seconds all processes have spent busy since boot (``/proc/stat``), None elsewhere."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
    steal = ticks[7] if len(ticks) > 7 else 0  # another machine's, not this one's
    guest = sum(ticks[8:10]) if len(ticks) > 9 else 0  # already counted in user and nice
    return (sum(ticks) - idle - steal - guest) / _HZ


class OthersLoad:
    """How many cores the other processes keep busy: the machine's busy CPU time (``/proc/stat``)
    minus this process's own, per second of wall time, re-measured at most every :attr:`period`
    seconds (two small file reads); 0 where ``/proc/stat`` is missing. A reading older than
    :attr:`stale` seconds (the process did not ask for a while: it waited, or worked elsewhere)
    starts a new measurement instead and the last one stands until then: the load over a long pause
    says what the machine did then, not now (a process that waited while another worked would
    otherwise take one thread for the first quarter second after it)."""

    period = 0.25
    stale = 1.0

    def __init__(self):
        self._mark: tuple[float, float, float] | None = None
        self.others = 0.0

    def cores(self) -> float:
        now = time.monotonic()
        if self._mark is not None and now - self._mark[2] < self.period:
            return self.others
        if self._mark is not None and now - self._mark[2] > self.stale:
            busy = machine_busy_seconds()
            if busy is not None:
                self._mark = (busy, time.process_time(), now)
            return self.others
        return self._measure(now)

    def lately(self, window: float = 0.1, recent: float = 2.0) -> float:
        """The cores the other processes kept busy over the last ``window`` to ``recent`` seconds,
        measured now: from the last reading if it is that old (importing card_envs takes one),
        else after sleeping until ``window`` has passed since a reading."""
        if machine_busy_seconds() is None:
            return 0.0
        if self._mark is None or time.monotonic() - self._mark[2] > recent:
            self._mark = None
            self._measure(time.monotonic())
        wait = window - (time.monotonic() - self._mark[2])
        if wait > 0:
            time.sleep(wait)
        return self._measure(time.monotonic())

    def _measure(self, now: float) -> float:
        busy = machine_busy_seconds()
        if busy is None:
            return 0.0
        own = time.process_time()
        if self._mark is not None and now > self._mark[2]:
            busy0, own0, then = self._mark
            self.others = max(0.0, ((busy - busy0) - (own - own0)) / (now - then))
        self._mark = (busy, own, now)
        return self.others


#: the other processes' load, as the engine sees it (one per process)
LOAD = OthersLoad()
LOAD.cores()  # the first reading, on importing card_envs: the load at the engine's start is measured from it
#: ``CARD_ENVS_FOLLOW_LOAD=0`` keeps numba's thread count whatever the machine's load
FOLLOW_LOAD = os.environ.get("CARD_ENVS_FOLLOW_LOAD", "1") != "0"
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def engine_threads() -> int:
    """The threads the engine's next parallel region takes: numba's (``numba.set_num_threads``),
    fewer by the cores other processes kept busy lately (a core counts as taken from half of it,
    as the PPO update's threads count them), at least one; where they wait passively
    (:data:`PASSIVE`), as many as the running :class:`ThreadChoice` found fastest (all of numba's
    outside a batched step that chooses)."""
    import numba

    threads = numba.get_num_threads()
    if threads <= 1 or not FOLLOW_LOAD:
        return threads
    if PASSIVE:
        return min(threads, _chosen) if _chosen > 0 else threads
    taken = int(LOAD.cores() + 0.5)
    return max(1, min(threads, _CORES - taken))


#: the threads the running :class:`ThreadChoice` chose for the engine's regions (0: none chose)
_chosen = 0


class ThreadChoice:
    """The thread count a batched step runs fastest on, found by timing the steps themselves
    (used where numba's threads wait passively, so a thread a region leaves out costs nothing).

    Beside busy processes neither fixed count wins everywhere: measured on two cores
    (``benchmarks/busy_results.json``), one thread ran a game up to 1.46x as fast as two passive
    threads beside one busy process, and two ran up to 1.64x as fast as one beside two. Nor does
    one count win for long: where the OS places the threads beside the busy loops changes every
    few seconds (two passive threads ran Guillotine at 2.3M steps/s while the busy loops shared one
    core, 0.9M while each engine thread shared a core with one). So the steps run in blocks of one
    count each: every count first gets a trial block (:attr:`trial` seconds of steps), or ``first``
    holds before any trial, then the fastest holds for up to :attr:`hold` seconds, then each other
    count gets a trial block again, and so on. Every :attr:`trial` seconds of a block its mean step
    is averaged with that count's earlier ones at half their weight (so one unlucky stretch does
    not decide), and a hold ends early once its count's mean is slower than another's. A block's
    first :attr:`settle` seconds of steps are left out: right after a change of count the first
    steps measured up to 60 ms each (the woken thread waits for a core, the one left alone has
    used up its share), which says nothing of how the count runs. Blocks rather than steps in
    turn: a step's time depends on the steps before it (whether the threads slept, where the OS
    placed them).

    A step counts from the end of the step before, so the caller's own work between steps counts
    too: with two threads the OS deschedules the calling thread more often between regions
    (Guillotine beside two busy processes: random actions drawn in 204 us a step against 85 us
    with one thread, which outweighed its faster steps, 378 us against 467). Where the caller paused longer than
    :attr:`pause` (a learner's update), only the step's own time counts. The trials take about a
    tenth of the steps; a load that comes or goes is followed within a second or two."""

    trial = 0.2
    hold = 2.0
    pause = 0.02
    settle = 0.05

    def __init__(self, candidates: Iterable[int], first: int | None = None):
        self.candidates = tuple(sorted(set(int(c) for c in candidates)))
        if not self.candidates or self.candidates[0] < 1:
            raise ValueError(f"thread counts must be >= 1, got {self.candidates}")
        if first is not None and first not in self.candidates:
            raise ValueError(f"the first count must be one of {self.candidates}, got {first}")
        self.best = self.candidates[-1] if first is None else first
        self.means = [0.0] * len(self.candidates)  # each count's mean step (seconds), smoothed; 0: untried
        if first is None:  # a trial of each count first
            self._queue = list(range(1, len(self.candidates)))  # the counts (indices) to try next
            self._block = 0  # the count (its index) the steps run on now
            self._holding = False  # whether that block is a hold (else a trial)
        else:  # a hold of ``first`` first, then the others' trials
            self._queue, self._block, self._holding = [], self.candidates.index(first), True
        self._steps = 0  # the block's steps so far (the first one left out of its time)
        self._spent = 0.0  # the block's timed seconds
        self._chunk = 0.0  # the seconds since the block's mean step was last taken
        self._chunk_from = 0  # the steps the block had then
        self._settling = self.settle  # the seconds of steps still to leave out of the block's time
        self._ended = float("-inf")  # when the last step ended

    def threads(self) -> int:
        """The threads the next step runs on (and makes :func:`engine_threads` return)."""
        global _chosen
        _chosen = self.candidates[self._block]
        return _chosen

    def stepped(self, began: float, ended: float) -> None:
        """A step run on :meth:`threads` began and ended at these :func:`time.perf_counter`
        readings: it counts from the end of the step before, unless the caller paused longer than
        :attr:`pause` in between (then from ``began``)."""
        last, self._ended = self._ended, ended
        self.took(ended - (last if 0.0 <= began - last < self.pause else began))

    def took(self, seconds: float) -> None:
        """The step just run on :meth:`threads` took ``seconds``."""
        self._steps += 1
        if self._settling > 0.0:  # the block's first steps, while the threads settle: not timed
            self._settling -= seconds
            self._chunk_from = self._steps
            return
        self._spent += seconds
        self._chunk += seconds
        if self._chunk < self.trial or self._steps - self._chunk_from < 4:
            return
        k = self._block
        mean = self._chunk / (self._steps - self._chunk_from)
        self.means[k] = mean if self.means[k] == 0.0 else (self.means[k] + mean) / 2
        self._chunk, self._chunk_from = 0.0, self._steps
        if self._holding and self._spent + self.trial / 2 < self.hold and self._fastest() == k:
            return  # the hold goes on while its count stays the fastest
        self._steps, self._spent, self._chunk_from, self._settling = 0, 0.0, 0, self.settle
        if self._queue:  # the next trial
            self._block, self._holding = self._queue.pop(0), False
            return
        best = self._fastest()
        self.best = self.candidates[best]
        if self._holding:  # after a hold, the other counts' trials
            self._queue = [i for i in range(len(self.candidates)) if i != best]
            self._block, self._holding = self._queue.pop(0), False
        else:  # after the trials, the fastest holds
            self._block, self._holding = best, True


    def _fastest(self) -> int:
        """The count (its index) of the fastest mean step so far (an untried count is not)."""
        return min(range(len(self.candidates)), key=lambda i: self.means[i] or float("inf"))


def thread_choice() -> ThreadChoice | None:
    """A :class:`ThreadChoice` between one thread and all of numba's for a batched engine, where
    its threads wait passively and follow the load; None where the count is not chosen so. Its
    first hold is every thread where the other processes leave under 0.9 of a core free (on two
    cores beside two busy processes, two passive threads were the faster fixed choice in five games
    of six in one run and three in another, and steps that tried one thread first fell to half of
    their speed in some games), else one (beside one busy process one thread was the faster in
    every game)."""
    start_threads()
    if not (PASSIVE and FOLLOW_LOAD):
        return None
    import numba

    threads = numba.get_num_threads()
    if threads <= 1:
        return None
    # the first hold: every thread where the other processes leave under 0.9 of a core free, else one
    return ThreadChoice((1, threads), first=threads if LOAD.cores() > _CORES - 0.9 else 1)


#: measured first-call time with an empty cache, two cores (``benchmarks/bench_vector.py``)
COMPILE_ESTIMATE = "about half a minute on a 2-core machine"

_announced: set[str] = set()

#: the other processes' load (cores) from which numba's threads start waiting passively
BUSY_AT_START = 0.5
#: whether numba's threads wait passively (never spin): chosen by :func:`start_threads`
PASSIVE = False


def start_threads() -> None:
    """Start numba's threads with the wait policy the machine's load calls for (see the module
    docstring): a no-op once they run, or when numba is not installed."""
    global PASSIVE
    try:
        from numba.np.ufunc import parallel
    except ImportError:  # pragma: no cover - the batched engine needs numba
        return
    if getattr(parallel, "_is_initialized", False):
        return
    import numba

    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        PASSIVE = (os.environ.get("OMP_WAIT_POLICY", "").strip().lower() == "passive"
                   or os.environ.get("GOMP_SPINCOUNT", "").strip() == "0")
        numba.get_num_threads()  # starts the threading layer, as the environment says
        return
    one_thread = _CORES <= 1 or os.environ.get("NUMBA_NUM_THREADS", "").strip() == "1"
    if not FOLLOW_LOAD or one_thread or LOAD.lately() < BUSY_AT_START:
        numba.get_num_threads()  # libgomp's own spinning
        return
    PASSIVE = True
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        numba.get_num_threads()  # libgomp reads its environment when numba loads it, now
    finally:
        del os.environ["OMP_WAIT_POLICY"]


def threading_layer() -> str:
    """The threading layer numba runs the parallel kernels on (``omp``, ``tbb``, ``workqueue``)."""
    import numba

    start_threads()
    return numba.threading_layer()


def cached(modules: Iterable[ModuleType]) -> bool:
    """Whether numba's cache holds compiled kernels of every module of ``modules`` for its current
    source (at least one each: a module with none is compiled anew at its first call, as after
    installing or updating card_envs). Kernels a run has not used yet (the parallel drivers of a
    process that ran one thread) may still compile later, without a word."""
    from numba.core.dispatcher import Dispatcher

    for module in modules:
        indexes = []
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and getattr(value.py_func, "__module__", None) == module.__name__:
                index = getattr(getattr(getattr(value, "_cache", None), "_cache_file", None), "_load_index", None)
                if index is not None:
                    indexes.append(index)
        if indexes and not any(_holds(index) for index in indexes):
            return False
    return True


def _holds(index) -> bool:
    try:
        return bool(index())
    except Exception:  # noqa: BLE001 - an unreadable index is compiled anew by numba too
        return False


def announce_compilation(game: str, modules: Iterable[ModuleType]) -> None:
    """Print one line on stderr if ``game``'s kernels are about to be compiled (once a process)."""
    if game in _announced:
        return
    _announced.add(game)
    if cached(modules):
        return
    print(f"card_envs: compiling the batched engine's kernels for {game} ({COMPILE_ESTIMATE}); numba keeps "
          "them in its cache, so this happens once after installing or updating card_envs", file=sys.stderr,
          flush=True)
