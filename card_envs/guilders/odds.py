"""The exact chance of the next draw, given everything one player has seen.

**What the posterior depends on.** A fan starts as a uniform shuffle of a multiset every player
knows: the whole deck at the start, and at every refan or chaotic reshuffle all cards not in a
score pile, lost or set aside (the fan is empty at a refan; a chaotic joker pools fan and
discards), shuffled by a fresh uniform permutation, so nothing said about the old places of those
cards matters any more. Within one fan, each draw takes the next place. For one player the drawn
places are of three kinds: cards it saw (shown to all, or drawn by itself), and face-down misses
of the others, each known only to fail its call (``suit h`` missed: not a heart; with evil or
chaotic on: not a joker; with good_joker alone an ordinary call may miss on a joker, a joker call
never does). Every arrangement of the fan's multiset is equally likely a priori and the history
is a function of the arrangement (taking the calls as given), so the posterior is uniform over the
arrangements consistent with it; by exchangeability of the places it depends only on

- ``unseen``: the cards this player has not located (the fan plus the others' face-down misses), and
- ``misses[a]``: how many of those face-down misses there are in the discard pile for each call ``a``.

Order, seats and earlier fans do not matter. The fan's places are exchangeable, so the next card
is ``c`` with the chance that any one fan place holds ``c``.

**Counting.** With ``U`` the unseen physical cards and ``S`` the miss places, each forbidding the
cards that match its call, the number of consistent fillings is, by inclusion-exclusion over the
places put on forbidden cards, ``sum_k (-1)^k r_k (|U|-k)!`` (``r_k``: ways to put ``k`` chosen
places injectively on forbidden cards). Forbidden cells are local: a rank miss forbids one
column of the 4 x 13 grid, an exact-card miss one cell, a joker-call miss the jokers (a "column"
of its own); only suit misses span a row. So ``r`` is a dynamic programme over columns whose
state is (places put per suit, cards used): a convolution per column with a small kernel.
Marking one fan place as put on cell ``c`` and running the same programme gives the count with
that place holding ``c``; a forward-backward pass gives all 54 at the cost of about three passes.
The state is at most ``prod_s (misses of suit s + 1) x (|U| + 1)`` numbers.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import factorial

import numpy as np

NUM_CARDS = 54
JOKER_CALL = 69


def _falling(n: int, k: int) -> int:
    return 0 if k > n else factorial(n) // factorial(n - k)


@lru_cache(maxsize=65536)
def _column_kernel(cells: tuple, local_m: int, suit_dims: tuple, f0_cell=None) -> dict:
    """The column's transform as ``{(dx0, dx1, dx2, dx3, dk): coefficient}``.

    ``cells``: ``(suit or None, copies u, exact-card misses forbidding the cell)``; ``local_m``:
    misses forbidding the whole column (rank misses, or joker-call misses for the joker column).
    Each cell's copies are split among suit-forced, column-forced and card-forced places (signs
    and ordered placements of labelled places folded in, suits' ordered factor at the end) and,
    if it is ``f0_cell``, one copy for the marked fan place."""
    per_cell = []
    for idx, (suit, u, mc) in enumerate(cells):
        opts = []
        need_f = 1 if idx == f0_cell else 0
        amax = u if (suit is not None and suit_dims[suit] > 1) else 0
        for a in range(amax + 1):
            for z in range(min(mc, u) + 1):
                for b in range(u + 1):
                    used = a + b + z + need_f
                    if used > u or (b and not local_m):
                        continue
                    ways = factorial(u) // (factorial(a) * factorial(b) * factorial(z) * factorial(need_f) * factorial(u - used))
                    coef = ways * _falling(mc, z) * (-1) ** (a + z)
                    if coef:
                        opts.append((suit, a, b, used, coef))
        per_cell.append(opts)
    kernel: dict[tuple, int] = {}
    for combo in product(*per_cell):
        dx = [0, 0, 0, 0]
        btot = dk = 0
        coef = 1
        for suit, a, b, used, c in combo:
            if a:
                dx[suit] += a
            btot += b
            dk += used
            coef *= c
        if btot > local_m:
            continue
        coef *= _falling(local_m, btot) * (-1) ** btot
        if coef:
            key = (*dx, dk)
            kernel[key] = kernel.get(key, 0) + coef
    return {k: v for k, v in kernel.items() if v}


def _apply(a: np.ndarray, kernel: dict, transpose: bool = False) -> np.ndarray:
    out = np.zeros_like(a)
    shape = a.shape
    for delta, coef in kernel.items():
        if any(d >= n for d, n in zip(delta, shape)):
            continue
        src = tuple(slice(0, n - d) for d, n in zip(delta, shape))
        dst = tuple(slice(d, n) for d, n in zip(delta, shape))
        if transpose:
            out[src] += coef * a[dst]
        else:
            out[dst] += coef * a[src]
    return out


def _pair(f: np.ndarray, g: np.ndarray, delta) -> object:
    """sum_s f[s] g[s + delta]."""
    shape = f.shape
    if any(d >= n for d, n in zip(delta, shape)):
        return 0
    src = tuple(slice(0, n - d) for d, n in zip(delta, shape))
    dst = tuple(slice(d, n) for d, n in zip(delta, shape))
    return (f[src] * g[dst]).sum()


@lru_cache(maxsize=4096)
def _probabilities(unseen: tuple, misses: tuple, jokers_can_miss: bool, exact: bool) -> tuple:
    u = list(unseen)
    m = list(misses)
    total_misses = sum(m)
    n_ord = sum(u[:52])
    n_jok = sum(u[52:])
    fan = n_ord + n_jok - total_misses
    if fan <= 0:
        return (0.0,) * NUM_CARDS
    if total_misses == 0:
        return tuple(x / fan for x in u)
    # the universe the miss places draw from: ordinary cards, plus jokers with good_joker alone
    n0 = n_ord + (n_jok if jokers_can_miss else 0)
    rows = [sum(u[13 * s : 13 * s + 13]) for s in range(4)]
    dims = [min(m[s], rows[s]) + 1 for s in range(4)]
    shape = (*dims, n0 + 1)
    dtype = object if exact else np.float64
    # final weight: prod_s falling(m_s, x_s) * (n0 - k)! / n0!
    one = Fraction(1) if exact else 1.0
    w = np.array([one / _falling(n0, k) for k in range(n0 + 1)], dtype=dtype)
    for s in reversed(range(4)):
        w = np.multiply.outer(np.array([_falling(m[s], x) for x in range(dims[s])], dtype=dtype), w)
    columns = []
    for r in range(13):
        cells = tuple((s, u[13 * s + r], m[17 + 13 * s + r]) for s in range(4))
        columns.append((cells, m[4 + r], [13 * s + r for s in range(4)]))
    if jokers_can_miss:
        columns.append((((None, u[52], 0), (None, u[53], 0)), m[JOKER_CALL], [52, 53]))
    dims = tuple(dims)
    kernels = [_column_kernel(cells, lm, dims) for cells, lm, _ in columns]
    forward = [np.zeros(shape, dtype=dtype)]
    forward[0][(0,) * 5] = 1
    for k in kernels:
        forward.append(_apply(forward[-1], k))
    backward = [w]
    for k in reversed(kernels):
        backward.append(_apply(backward[-1], k, transpose=True))
    backward.reverse()  # backward[i]: the weight of the state before column i
    z = (forward[-1] * w).sum()
    out = [0.0] * NUM_CARDS
    for i, (cells, lm, ids) in enumerate(columns):
        for j, card in enumerate(ids):
            if not u[card]:
                continue
            kern = _column_kernel(cells, lm, dims, f0_cell=j)
            zc = sum(coef * _pair(forward[i], backward[i + 1], delta) for delta, coef in kern.items())
            out[card] = zc * (n0 - total_misses) / (fan * z)
    if not jokers_can_miss:  # every unseen joker lies in the fan
        out[52], out[53] = u[52] / fan, u[53] / fan
    return tuple(float(p) for p in out)


def draw_probabilities(unseen, misses, jokers_can_miss: bool, exact: bool = False) -> np.ndarray:
    """(54,) the exact chance that the next card drawn is each card identity.

    ``unseen``: (54,) counts of the cards not located; ``misses``: (70,) face-down misses per
    call among them; ``jokers_can_miss``: good_joker alone (an ordinary call may miss on a
    joker). ``exact=True`` counts with integers and fractions (slow; for tests)."""
    u = tuple(int(x) for x in unseen)
    m = tuple(int(x) for x in misses)
    return np.array(_probabilities(u, m, bool(jokers_can_miss), bool(exact)))


def brute_force_probabilities(unseen, misses, jokers_can_miss: bool) -> np.ndarray:
    """The same chance by enumerating every filling of the miss places (tiny cases only)."""
    from itertools import permutations

    from card_envs.guilders.rules import MATCH_POINTS

    physical = [c for c in range(NUM_CARDS) for _ in range(int(unseen[c]))]
    calls = [a for a in range(len(misses)) for _ in range(int(misses[a]))]

    def fits(call, x):
        if x < 52:
            return call == JOKER_CALL or MATCH_POINTS[call * 52 + x] == 0
        return jokers_can_miss and call != JOKER_CALL

    counts = np.zeros(NUM_CARDS)
    for perm in permutations(range(len(physical))):
        placed = [physical[i] for i in perm]
        if all(fits(a, placed[j]) for j, a in enumerate(calls)):
            counts[placed[len(calls)]] += 1  # the first fan place
    return counts / counts.sum()
