"""The batched engine every game shares: thousands of games stepped at once, at compiled speed.

``card_envs.<game>_v0.vector_env(num_envs=1024, **options)`` takes exactly the options of
``env()`` and plays ``num_envs`` independent games of that configuration side by side::

    venv = card_envs.golf_v0.vector_env(num_envs=1024, num_players=2, num_rounds=1)
    obs, infos = venv.reset(seed=0)              # or options={"decks": [deck_0, ..., deck_N-1]}
    obs["observation"]       # (N, D) float32: each game's observation from its player to act
    obs["action_mask"]       # (N, A) int8
    obs["current_player"]    # (N,) int64: the seat to act in each game
    obs, rewards, terminations, truncations, infos = venv.step(actions)   # actions: (N,) ints
                             # (vector.WAIT = -1: that game does not move in this step; its
                             # observation and mask stay what they were)
    rewards                  # (N, num_players) float32: every seat's reward from this step
    venv.observe(seats)      # (N, D) float32: each game's observation from the given seat
    venv.sample_actions(rng) # (N,) uniformly random legal actions
    venv.get_state(i), venv.set_state(i, state)   # game i as the rules engine's state, and back
    venv.set_states(states, games=None)          # many games at once (one re-encode at the end)

It is the same game as ``raw_env()``: for the same state and action, the observations (every seat),
masks, rewards, scores, ranks, terminations and truncations are byte-identical; the differential
tests (``tests/vector/``) check that step by step. The pure-Python rules stay the readable
reference; each game's ``kernels.py`` is its batched twin.

**Autoreset** (``metadata["autoreset_mode"]`` is Gymnasium's ``AutoresetMode.SAME_STEP``): a game
that ends in a step is restarted in place in that same step, so the observation returned for it is
the new game's first. What the finished game left is in ``infos``:

- ``infos["final_obs"]``: ``(N, num_players, D)`` float32, every seat's final observation;
- ``infos["final_info"]["score"]`` ``(N, num_players)`` float64 and ``["rank"]`` int64: the final
  scores and competition ranks (1 = best), as ``raw_env()``'s ``infos[agent]`` has them;
- ``infos["_final_obs"]``, ``infos["_final_info"]`` (and ``final_info["_score"]``, ``["_rank"]``):
  ``(N,)`` bool, True for the games that ended in this step (Gymnasium's vector-info convention).

The rewards, terminations and truncations of that step are the finished game's.

**Buffers are preallocated and reused**: every array returned by ``reset``, ``step``, ``observe``
and ``sample_actions`` (and those inside ``infos``) is overwritten by the next call. Copy what you
keep (``obs["observation"].copy()``).

**Randomness** lives in the games: each row has its own small generator (splitmix64) seeded from
``reset(seed)``, so a batch's trajectories depend only on the seed and the actions — not on the
thread count, the batch order or any global generator. The rows' streams are not numpy's, so a
game of ``vector_env`` and one of ``raw_env`` from the same seed deal different cards; the same
*state* plays identically (``set_state``).

**Bad input** is a ValueError naming the problem and what is allowed, and changes nothing: an
illegal action names the game index, the action and the legal set; wrong shapes, dtypes, seats and
decks are refused before any game moves.

Needs numba (the ``vector`` extra: ``pip install -e ".[vector]"`` in the checkout); ``import card_envs`` works without it and
``vector_env`` then raises an ImportError naming the extra.

Threads: ``numba.set_num_threads(k)`` before stepping runs the games of a batch on k threads
(each game's rows are independent, and each row has its own generator, so results do not depend
on k); with one thread a plain loop is used. By default a parallel region takes the cores other
processes leave free, and numba's threads spin only briefly between regions before they sleep, so
a batch keeps its speed when other processes hold cores (:mod:`card_envs.runtime`). The first ``vector_env`` of a game after installing or updating
card_envs compiles its kernels (tens of seconds, said in one line on stderr); numba caches them.

A game supplies a *kernels* object (``card_envs/<game>/kernels.py``) with fixed-shape state arrays
(one row per game) and compiled kernels::

    Kernels(rules)                      constants of one configuration
    .num_players, .num_actions, .obs_size
    .allocate(n) -> dict[str, ndarray]  the state arrays of n games
    .new_games(arrays, rows, decks)     deal new games in the given rows (decks: (len(rows), C)
                                        card ints, top first, or None to shuffle with each row's rng)
    .step(arrays, actions, rewards, terminated, truncated)     one action in every game
    .legal(arrays, mask)                the legal mask of each game's player to act
    .encode(arrays, rows, seats, out)   observation of each game g in rows from seat seats[g]
    .current(arrays, out)               the seat to act in each game
    .results(arrays, rows, scores, ranks)   final scores and competition ranks
    .dump(arrays, i) -> rules state     load(arrays, i, state)   the exchange with the rules engine
    .advance(arrays, actions, out)      optional, used on threads: all of ``step`` after the
                                        action checks in one parallel pass over the games, where
                                        the step-by-step kernels above are four parallel regions
                                        and a serial part (on two cores the forks and joins bound
                                        the gain; Guillotine, Fiddlesticks, Collector and Hot
                                        have it, the games whose one-core step is fastest): each
                                        game that moves is
                                        stepped; if it ends, every seat's final observation, its
                                        results, rank rewards and a new game; then its seat to
                                        act, mask and observation. A game that waits keeps its
                                        (unchanged)
                                        observation and mask. ``out``: ``VectorEnv._out``, the
                                        step's output buffers. On one thread the step-by-step
                                        kernels are faster (tight loops, measured), so they run.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

try:  # numba is an optional dependency: the `vector` extra
    import numba
    from numba import njit, prange
except ImportError as exc:  # pragma: no cover - exercised by tests that hide numba
    raise ImportError(
        "card_envs' batched engine (vector_env) needs numba, the vector extra: "
        "pip install -e \".[vector]\" in the card_envs checkout"
    ) from exc

from gymnasium.vector import AutoresetMode

from card_envs import runtime
from card_envs.checks import check_reset_options, check_seed
from card_envs.runtime import announce_compilation, engine_threads, start_threads, thread_choice

start_threads()  # before any kernel runs: numba's threads wait as the machine's load calls for (card_envs.runtime)

#: numba's options for the serial kernels and every compiled helper they call
#: (``@njit(**KERNEL_OPTIONS)``, with ``inline`` or ``nogil`` added where wanted): cached, and
#: compiled without numba's reference counting (``_nrt=False``, as numba compiles its own sorting
#: and string helpers). A kernel only indexes arrays its caller holds and allocates nothing, so
#: nothing needs counting; counted, every array handed to a compiled function (inlined or not) and
#: every view taken costs an atomic increment and decrement: Collector's and Hot's step kernel took
#: four times as long with them (measured on this 2-core machine), the whole step 2.4 times. A
#: kernel that allocated would not compile. The ``prange`` drivers keep the default: they only
#: hand spans out.
KERNEL_OPTIONS = {"cache": True, "_nrt": False}

# ------------------------------------------------------------------------ per-row randomness
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(**KERNEL_OPTIONS, inline="always")
def next_u64(rng, g):
    """splitmix64: the next 64 random bits of game ``g``'s generator (state ``rng[g]``)."""
    z = rng[g] + _GOLDEN
    rng[g] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(**KERNEL_OPTIONS, inline="always")
def randbelow(rng, g, n):
    """A uniform integer in 0..n-1 from game ``g``'s generator (rejection: no modulo bias)."""
    un = np.uint64(n)
    while True:
        r = next_u64(rng, g)
        # rejected below 2**64 mod n, which is below n: that remainder is only computed for r < n
        if r >= un or r >= (np.uint64(0) - un) % un:
            return np.int64(r % un)


@njit(**KERNEL_OPTIONS)
def shuffle(rng, g, a, length):
    """Fisher–Yates shuffle of ``a[:length]`` in place with game ``g``'s generator."""
    for i in range(length - 1, 0, -1):
        j = randbelow(rng, g, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(**KERNEL_OPTIONS, inline="always")
def rank_reward(ranks, g, p):
    """Seat p's terminal zero-sum reward in game g from the competition ranks ``ranks[g]``, as
    ``card_envs.scoring.rank_reward`` computes it: ``(n + 2 - 2 * rank - tied) / (n - 1)``, one
    division of two integers (the exact average of the places the tied seats occupy, rounded
    once); one player alone gets 0."""
    n = ranks.shape[1]
    if n == 1:
        return 0.0
    r = np.int64(ranks[g, p])
    tied = 0
    for q in range(n):
        if ranks[g, q] == r:
            tied += 1
    return np.float64(n + 2 - 2 * r - tied) / np.float64(n - 1)


@njit(**KERNEL_OPTIONS, inline="always")
def add_rank_rewards(ranks, rewards, g):
    """Add the finished game g's rank rewards to its step rewards, as the AEC env pays them."""
    for p in range(rewards.shape[1]):
        rewards[g, p] = np.float32(np.float64(rewards[g, p]) + rank_reward(ranks, g, p))


@njit(**KERNEL_OPTIONS)
def column(table, field, out):
    """``out[g] = table[g, field]`` for every game (e.g. the seat to act from the row scalars)."""
    for g in range(out.shape[0]):
        out[g] = table[g, field]


@njit(**KERNEL_OPTIONS, inline="always")
def final_result(points, lower_is_better, scores, ranks, g):
    """The finished game g: each seat's game points (``points[g, p]``) and their competition
    ranks (1 = best, ties share the best rank of their tie)."""
    n = points.shape[1]
    for p in range(n):
        scores[g, p] = points[g, p]
        better = 0
        for q in range(n):
            if (points[g, q] < points[g, p]) if lower_is_better else (points[g, q] > points[g, p]):
                better += 1
        ranks[g, p] = 1 + better


@njit(**KERNEL_OPTIONS)
def final_results(points, rows, lower_is_better, scores, ranks):
    """``final_result`` for the finished games in ``rows``."""
    for k in range(rows.shape[0]):
        final_result(points, lower_is_better, scores, ranks, rows[k])


@njit(**KERNEL_OPTIONS, inline="always")
def store_final_obs(observed, final_obs, g, seat):
    """``final_obs[g, seat] = observed[g]``: seat's final observation of game g, encoded into the
    scratch row ``observed[g]`` (a game's row is its own: safe in a ``prange`` loop)."""
    for i in range(observed.shape[1]):
        final_obs[g, seat, i] = observed[g, i]


class GameKernels:
    """What every game's kernels share: the configuration's sizes and deck, the seat to act
    (``row[:, CURRENT]``) and the final results from a per-seat points table. A game subclasses
    it (``card_envs/<game>/kernels.py``) and supplies the rest of the interface above."""

    #: the game's field of ``arrays["row"]`` holding the seat to act (-1 once over)
    CURRENT: int
    #: lower game points rank first (Golf) or higher (Guilders)
    LOWER_IS_BETTER: bool
    #: a game with the one-pass ``advance`` runs it on one thread too (else only on threads, and
    #: the step-by-step kernels on one): set where it measured faster there
    ONE_PASS_ON_ONE_THREAD = False

    def __init__(self, rules: Any, view: Any):
        self.rules = rules
        self.num_players = rules.num_players
        self.num_actions = rules.num_actions
        self.obs_size = view.layout(rules).size
        self.deck = np.array(rules.deck(), dtype=np.int16)

    def points(self, arrays: dict) -> np.ndarray:
        """``(N, P)``: each seat's game points (a view of the state arrays)."""
        raise NotImplementedError

    def current(self, arrays: dict, out: np.ndarray) -> None:
        column(arrays["row"], self.CURRENT, out)

    def results(self, arrays: dict, rows: np.ndarray, scores: np.ndarray, ranks: np.ndarray) -> None:
        final_results(self.points(arrays), rows, self.LOWER_IS_BETTER, scores, ranks)


#: ``VectorEnv.step``'s action for a game that does not move in this step
WAIT = -1


@njit(**KERNEL_OPTIONS)
def _first_illegal(mask, actions):
    for g in range(actions.shape[0]):
        a = actions[g]
        if a == WAIT:
            continue
        if a < 0 or a >= mask.shape[1] or mask[g, a] == 0:
            return g
    return -1


@njit(**KERNEL_OPTIONS, inline="always")
def wait_row(rewards, terminated, truncated, g):
    """A game that waits in this step (its action is ``WAIT``): nothing moves, nobody is paid."""
    for p in range(rewards.shape[1]):
        rewards[g, p] = 0.0
    terminated[g] = False
    truncated[g] = False


@njit(**KERNEL_OPTIONS, nogil=True)
def _sample_serial(mask, rng, out, lo, hi):
    """A uniformly random legal action for each game g of ``lo:hi``, from the sampler's generator
    of that row: the k-th legal action, k uniform below their count (whole runs of 8 actions
    before it are counted off at once, then it is looked for one action at a time). The row's
    code is in the loop itself: numba keeps no reference counting there."""
    width = mask.shape[1]
    for g in range(lo, hi):
        count = 0
        for a in range(width):
            count += mask[g, a]
        k = randbelow(rng, g, count)
        a = 0
        while a + 8 <= width:
            run = 0
            for i in range(8):
                run += mask[g, a + i]
            if k < run:
                break
            k -= run
            a += 8
        while a < width:
            if mask[g, a]:
                if k == 0:
                    out[g] = a
                    break
                k -= 1
            a += 1


@njit(cache=True, parallel=True)
def _sample_parallel(mask, rng, out, spans):
    n = mask.shape[0]
    for c in prange(spans):
        lo, hi = span(n, spans, c)
        _sample_serial(mask, rng, out, lo, hi)


#: a parallel driver splits its rows into this many spans per thread, handed out one at a time to
#: whichever thread is free (a thread the machine deschedules holds up one span, not a share)
SPANS_PER_THREAD = 4


@njit(**KERNEL_OPTIONS, inline="always")
def span(rows, spans, c):
    """Span ``c`` of ``spans``: the rows ``lo:hi`` it covers."""
    return rows * c // spans, rows * (c + 1) // spans


def drive(serial, parallel, rows: int, *args) -> None:
    """Run one kernel over ``rows`` rows: on numba's threads (:func:`threaded`) its parallel driver,
    ``parallel(*args, spans)``, which runs the serial driver over each of ``spans`` spans of the
    rows, handed out one at a time to whichever thread is free; else the serial driver over every
    row, ``serial(*args, 0, rows)``. (The row's code is compiled once, in the serial driver; the
    serial drivers release the GIL, so a program may also run them on threads of its own.)"""
    threads = engine_threads() if rows >= parallel_min_rows() else 1
    if threads <= 1:
        serial(*args, 0, rows)
        return
    numba_threads = numba.get_num_threads()
    if threads < numba_threads:  # other processes hold cores: this region leaves them be
        numba.set_num_threads(threads)
    try:
        with numba.parallel_chunksize(1):
            parallel(*args, max(1, min(rows, SPANS_PER_THREAD * threads)))
    finally:
        if threads < numba_threads:
            numba.set_num_threads(numba_threads)


@njit(**KERNEL_OPTIONS)
def _nonzero(flags, out):
    """``np.flatnonzero`` into a preallocated buffer: the indices where ``flags`` is set go to
    ``out[:count]``; returns count."""
    count = 0
    for g in range(flags.shape[0]):
        if flags[g]:
            out[count] = g
            count += 1
    return count


@njit(**KERNEL_OPTIONS)
def _copy_seat_rows(src, rows, seat, out):
    """``out[g, seat] = src[g]`` for the games g in ``rows`` (no fancy-indexing temporaries)."""
    for k in range(rows.shape[0]):
        g = rows[k]
        for i in range(src.shape[1]):
            out[g, seat, i] = src[g, i]


@njit(**KERNEL_OPTIONS)
def _finish_rewards(rows, ranks, rewards, reward_mode_rank):
    """Add the rank rewards of the games that ended (rank mode), as the AEC env pays them."""
    if not reward_mode_rank:
        return
    for k in range(rows.shape[0]):
        add_rank_rewards(ranks, rewards, rows[k])


class VectorEnv:
    """``num_envs`` games of one configuration stepped together (see the module docstring)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, name: str, rules: Any, kernels: Any, num_envs: int):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.metadata = {**VectorEnv.metadata, "name": name}
        self.rules = rules
        self.kernels = kernels
        self.num_envs = n = int(num_envs)
        self.num_players = p = kernels.num_players
        self.num_actions = a = kernels.num_actions
        self.obs_size = d = kernels.obs_size
        self.possible_agents = [f"player_{i}" for i in range(p)]
        self.arrays = kernels.allocate(n)
        self._all_rows = np.arange(n, dtype=np.int64)
        self._obs = np.zeros((n, d), dtype=np.float32)
        self._observed = np.zeros((n, d), dtype=np.float32)
        self._mask = np.zeros((n, a), dtype=np.int8)
        self._current = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, p), dtype=np.float32)
        self._term = np.zeros(n, dtype=np.bool_)
        self._trunc = np.zeros(n, dtype=np.bool_)
        self._done = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros((n, p, d), dtype=np.float32)
        self._score = np.zeros((n, p), dtype=np.float64)
        self._rank = np.zeros((n, p), dtype=np.int64)
        self._seat_buf = np.zeros(n, dtype=np.int64)
        self._done_rows = np.zeros(n, dtype=np.int64)  # the rows of the games that ended in a step
        self._actions = np.zeros(n, dtype=np.int64)
        self._sampled = np.zeros(n, dtype=np.int64)
        self._sample_rng = np.zeros(n, dtype=np.uint64)  # one sampler generator per game
        self._reward_rank = rules.reward_mode == "rank"
        self._obs_dict = {"observation": self._obs, "action_mask": self._mask, "current_player": self._current}
        self._final_info = {"score": self._score, "rank": self._rank, "_score": self._done, "_rank": self._done}
        self._infos = {"final_obs": self._final_obs, "_final_obs": self._done, "final_info": self._final_info, "_final_info": self._done}
        # a game's ``advance`` kernel (on threads) does all of ``step`` after the action checks in
        # one parallel pass, into these buffers
        self._out = (self._rewards, self._term, self._trunc, self._done, self._final_obs, self._score, self._rank,
                     self._reward_rank, self._observed, self._seat_buf, self._current, self._mask, self._obs,
                     self._all_rows)
        self._one_pass_always = getattr(kernels, "advance", None) is not None and kernels.ONE_PASS_ON_ONE_THREAD
        # where numba's threads wait passively, each step runs on the thread count found fastest
        self._thread_choice = thread_choice() if n >= parallel_min_rows() else None
        self._ready = False

    # ----------------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict | None = None):
        """New games in every row. ``seed`` makes the whole batch reproducible bit for bit;
        ``options={"decks": [...]}`` deals game i from stacked deck i (top card first, as
        ``raw_env().reset(options={"deck": ...})``); later games shuffle with each row's rng."""
        seed = check_seed(seed)
        options = check_reset_options(options, ("decks",), "vector_env")
        decks = None
        if options.get("decks") is not None:
            decks = self._check_decks(options["decks"])
        if seed is not None:
            seeds = np.random.SeedSequence(int(seed)).generate_state(2 * self.num_envs, dtype=np.uint64)
        elif not self._ready:
            seeds = np.random.SeedSequence().generate_state(2 * self.num_envs, dtype=np.uint64)
        else:
            seeds = None
        if seeds is not None:
            self.arrays["rng"][:] = seeds[: self.num_envs]
            self._sample_rng[:] = seeds[self.num_envs :]
        self.kernels.new_games(self.arrays, self._all_rows, decks)
        self._done[:] = False
        self._rewards[:] = 0.0
        self._ready = True
        self._refresh()
        return self._obs_dict, self._infos

    def _check_decks(self, decks: Any) -> np.ndarray:
        from card_envs import cards

        if isinstance(decks, (str, bytes)) or not hasattr(decks, "__len__") or len(decks) != self.num_envs:
            got = len(decks) if hasattr(decks, "__len__") and not isinstance(decks, (str, bytes)) else type(decks).__name__
            raise ValueError(f"options['decks'] must hold one stacked deck per game ({self.num_envs}), got {got}")
        expected = self.rules.deck()
        out = np.zeros((self.num_envs, len(expected)), dtype=np.int64)
        for i, deck in enumerate(decks):
            try:
                out[i] = cards.check_stacked_deck(deck, expected, self.metadata["name"])
            except ValueError as exc:
                raise ValueError(f"options['decks'][{i}]: {exc}") from None
        return out

    # ------------------------------------------------------------------------------ step
    def step(self, actions: Any):
        """One action in every game (``actions[i]`` for game i's player to act), or ``WAIT`` (-1)
        for a game that does not move in this step: its state stays as it is, its rewards are 0
        and it is neither terminated nor truncated (a learner's games wait while the opponents of
        other games move, ``training/batched.py``)."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before step")
        acts = self._check_actions(actions)
        bad = _first_illegal(self._mask, acts)
        if bad >= 0:
            legal = np.flatnonzero(self._mask[bad]).tolist()
            raise ValueError(
                f"game {bad}: action {int(acts[bad])} is illegal for player_{int(self._current[bad])}; "
                f"legal actions: {legal}"
            )
        choice = self._thread_choice
        if choice is None:
            return self._step(acts)
        choice.threads()
        began = time.perf_counter()
        out = self._step(acts)
        choice.stepped(began, time.perf_counter())
        return out

    def _step(self, acts: np.ndarray):
        k = self.kernels
        advance = getattr(k, "advance", None)
        if advance is not None and (self._one_pass_always or threaded(self.num_envs)):  # the whole step in one pass
            advance(self.arrays, acts, self._out)
            return self._obs_dict, self._rewards, self._term, self._trunc, self._infos
        k.step(self.arrays, acts, self._rewards, self._term, self._trunc)
        np.logical_or(self._term, self._trunc, out=self._done)
        if self._done.any():
            rows = self._done_rows[: _nonzero(self._done, self._done_rows)]
            for seat in range(self.num_players):
                self._seat_buf[:] = seat
                k.encode(self.arrays, rows, self._seat_buf, self._observed)
                _copy_seat_rows(self._observed, rows, seat, self._final_obs)
            k.results(self.arrays, rows, self._score, self._rank)
            _finish_rewards(rows, self._rank, self._rewards, self._reward_rank)
            k.new_games(self.arrays, rows, None)
        self._refresh()
        return self._obs_dict, self._rewards, self._term, self._trunc, self._infos

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per game), got {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be integers (an index in 0..{self.num_actions - 1} per game), got dtype {a.dtype}")
        self._actions[:] = a
        return self._actions

    def _refresh(self) -> None:
        k = self.kernels
        k.current(self.arrays, self._current)
        k.legal(self.arrays, self._mask)
        k.encode(self.arrays, self._all_rows, self._current, self._obs)

    # ---------------------------------------------------------------------------- observe
    def observe(self, seats: Any) -> np.ndarray:
        """``(N, D)``: game i's observation from seat ``seats[i]`` (a reused buffer)."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before observe")
        s = np.asarray(seats)
        if s.shape != (self.num_envs,) or not np.issubdtype(s.dtype, np.integer):
            raise ValueError(f"seats must be an int array of shape ({self.num_envs},), got {s.dtype} {s.shape}")
        if s.min() < 0 or s.max() >= self.num_players:
            raise ValueError(f"seats must be in 0..{self.num_players - 1}, got {int(s.min())}..{int(s.max())}")
        self._seat_buf[:] = s
        self.kernels.encode(self.arrays, self._all_rows, self._seat_buf, self._observed)
        return self._observed

    def sample_actions(self, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """``(N,)`` uniformly random legal actions (a reused buffer). ``rng``: a numpy Generator
        or an int seed reseeds the sampler; None continues the sampler seeded by ``reset``."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before sample_actions")
        if rng is not None:
            if isinstance(rng, np.random.Generator):
                self._sample_rng[:] = rng.integers(0, 2**63, size=self.num_envs, dtype=np.uint64)
            elif isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
                self._sample_rng[:] = np.random.SeedSequence(int(rng)).generate_state(self.num_envs, dtype=np.uint64)
            else:
                raise ValueError(f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}")
        drive(_sample_serial, _sample_parallel, self.num_envs, self._mask, self._sample_rng, self._sampled)
        return self._sampled

    # -------------------------------------------------------------------- state exchange
    def _check_index(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"game index must be an int in 0..{self.num_envs - 1}, got {i!r}")
        return int(i)

    def get_state(self, i: int):
        """Game i as a state of the rules engine behind ``raw_env()`` (a copy)."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before get_state")
        return self.kernels.dump(self.arrays, self._check_index(i))

    def set_state(self, i: int, state: Any) -> None:
        """Make game i the given rules-engine state (from ``raw_env().unwrapped.game_state`` or
        ``get_state``); its own generator goes on. A finished game cannot be loaded."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before set_state")
        i = self._check_index(i)
        if state.terminated or state.truncated:
            raise ValueError("set_state needs a game in progress, got a finished one")
        self.kernels.load(self.arrays, i, state)
        self._refresh()

    def set_states(self, states: Any, games: Any = None):
        """``set_state`` for many games at once (``games``: their indices, default ``0..len-1``),
        with one refresh of the observations at the end. Returns the observation dict, as
        ``reset`` does. Every state is checked before any game changes."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before set_states")
        states = list(states)
        games = range(len(states)) if games is None else list(games)
        if len(games) != len(states):
            raise ValueError(f"set_states needs one game index per state, got {len(games)} for {len(states)} states")
        games = [self._check_index(i) for i in games]
        if len(set(games)) != len(games):
            raise ValueError("set_states got the same game index twice")
        for k, state in enumerate(states):
            if state.terminated or state.truncated:
                raise ValueError(f"set_states needs games in progress: states[{k}] is finished")
        for i, state in zip(games, states):
            self.kernels.load(self.arrays, i, state)
        self._refresh()
        return self._obs_dict

    def refresh(self):
        """Recompute every game's seat to act, mask and observation from the state arrays, after
        writing them directly (``kernels.load``, copying rows: ``agents/search.py``); returns the
        observation dict. ``step`` re-encodes only the games that moved."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before refresh")
        self._refresh()
        return self._obs_dict

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"<VectorEnv {self.metadata['name']} num_envs={self.num_envs} num_players={self.num_players}>"


#: batches of fewer rows than this run the plain loop even with several threads: a parallel region
#: costs more than a few hundred rows' work (the final observations of the games that ended, small
#: batches, PIMC's rollouts of W worlds x A actions), and far more on a busy machine, where a region
#: waits for a descheduled worker (measured here: 2-8 ms per region under load for 32 rows). On an
#: idle 2-core machine two spinning threads ran 256 games slower than the plain loop in three games
#: of four (Golf 0.66x, Guilders 0.89x, Fiddlesticks 0.85x) and 512 as fast or faster (1.0-1.3x);
#: PIMC's batched rollouts in Golf (at most 448 rows) made 52-64 decisions/s with parallel regions
#: from 128 rows, 73-80 with the plain loop. Results are the same either way.
PARALLEL_MIN_ROWS = 512
#: beside busy processes (threads that wait passively and follow the load), batches of fewer rows
#: than this run the plain loop: waking a passive thread costs far more than spinning, and one
#: thread ran 1.4-2.2x as fast as two at 384 and 512 games beside one or two busy processes
#: (Golf, Fiddlesticks); from here on each step chooses (:class:`card_envs.runtime.ThreadChoice`)
BUSY_PARALLEL_MIN_ROWS = 1024


def parallel_min_rows() -> int:
    """The fewest rows a batch needs for a parallel region: ``BUSY_PARALLEL_MIN_ROWS`` where the
    engine's threads wait passively because other processes were busy, else ``PARALLEL_MIN_ROWS``."""
    return BUSY_PARALLEL_MIN_ROWS if runtime.PASSIVE and runtime.FOLLOW_LOAD else PARALLEL_MIN_ROWS


def threaded(rows: int | None = None) -> bool:
    """Whether the kernels run their ``prange`` drivers for a batch of ``rows`` games
    (``numba.set_num_threads(k)``, k > 1, at least :func:`parallel_min_rows` rows, and more than one
    core not kept busy by other processes: :func:`card_envs.runtime.engine_threads`).

    Each game kernel is a row function with two drivers, a plain loop and a ``prange`` loop; with
    one thread the plain loop is used, since numba's parallel scheduling costs about a quarter of
    an encode kernel's time even when it has a single thread to schedule (measured here)."""
    return (rows is None or rows >= parallel_min_rows()) and engine_threads() > 1


def make(game: str, num_envs: int, options: dict[str, Any]) -> VectorEnv:
    """The batched engine of ``card_envs.<game>_v0`` with ``env()``'s options (``vector_env``)."""
    import card_envs
    from card_envs.contract import part

    name = f"{game}_v0"
    module = card_envs.ENVIRONMENTS[name]
    options = dict(options)
    render_mode = options.pop("render_mode", None)
    if render_mode is not None:
        raise ValueError(f"vector_env renders nothing: render_mode must be None, got {render_mode!r}")
    rules = module.raw_env.Rules(**options)
    kernels_module = part(game, "kernels")
    announce_compilation(name, (kernels_module, sys.modules[__name__]))
    kernels = kernels_module.Kernels(rules)
    return VectorEnv(name, rules, kernels, num_envs)
