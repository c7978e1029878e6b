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
from math import factorial
from operator import add

import numpy as np

NUM_CARDS = 54
JOKER_CALL = 69


def _falling(n: int, k: int) -> int:
    return 0 if k > n else factorial(n) // factorial(n - k)


@lru_cache(maxsize=None)
def _cell_options(suit, u: int, mc: int, suit_forced: bool, column_forced: bool) -> tuple:
    """One cell's splits of its ``u`` copies, as ``(step, coefficient)``: ``a`` suit-forced places
    (only when the suit has a state axis), ``b`` column-forced (only with column misses) and
    ``z`` card-forced (at most its ``mc`` exact-card misses). ``step`` is what the split adds to
    a partial sum ``(x0, x1, x2, x3, b, k)``: ``a`` on its suit, ``b``, and the copies used
    ``k = a + b + z``."""
    opts = []
    amax = u if suit_forced else 0
    for a in range(amax + 1):
        for z in range(min(mc, u) + 1):
            for b in range(u + 1):
                used = a + b + z
                if used > u or (b and not column_forced):
                    continue
                ways = factorial(u) // (factorial(a) * factorial(b) * factorial(z) * factorial(u - used))
                coef = ways * _falling(mc, z) * (-1) ** (a + z)
                if coef:
                    dx = [0, 0, 0, 0]
                    if a:
                        dx[suit] = a
                    opts.append(((*dx, b, used), coef))
    return tuple(opts)


#: the only split of a cell with no copies: nothing used
_NOTHING = (((0, 0, 0, 0, 0, 0), 1),)


@lru_cache(maxsize=32768)
def _column_kernel(cells: tuple, local_m: int, suit_on: tuple) -> dict:
    """The column's transform as ``{(dx0, dx1, dx2, dx3, dk): coefficient}``.

    ``cells``: ``(suit or None, copies u, exact-card misses forbidding the cell)``; ``local_m``:
    misses forbidding the whole column (rank misses, or joker-call misses for the joker column);
    ``suit_on[s]``: whether suit s has a state axis (suit misses it can still take). Each cell's
    copies are split among suit-forced, column-forced and card-forced places (signs and ordered
    placements of labelled places folded in, suits' ordered factor at the end).

    The cells are combined one after another, each partial sum ``(x0..x3, b, k)`` kept once
    with its summed coefficient, in the order it is first reached: the terms come out in the
    order of their first combination of splits, cell by cell."""
    states = {(0, 0, 0, 0, 0, 0): 1}
    for suit, u, mc in cells:
        opts = _cell_options(suit, u, mc, suit is not None and suit_on[suit], local_m > 0)
        if opts == _NOTHING:
            continue
        reached: dict[tuple, int] = {}
        for state, coef in states.items():
            for step, c in opts:
                key = tuple(map(add, state, step))
                if key[4] <= local_m:
                    reached[key] = reached.get(key, 0) + coef * c
        states = reached
    column_factor = [_falling(local_m, b) * (-1) ** b for b in range(local_m + 1)]
    kernel: dict[tuple, int] = {}
    for (x0, x1, x2, x3, b, k), coef in states.items():
        key = (x0, x1, x2, x3, k)
        kernel[key] = kernel.get(key, 0) + coef * column_factor[b]
    return {k: v for k, v in kernel.items() if v}


@lru_cache(maxsize=32768)
def _marked_kernel(cells: tuple, local_m: int, suit_on: tuple, marked: int) -> dict:
    """The column's transform with one copy of cell ``marked`` (which has one at least) put on
    the marked fan place: ``u`` ways to choose that copy, times the transform with the other
    ``u - 1`` copies, one more card used."""
    suit, u, mc = cells[marked]
    rest = (*cells[:marked], (suit, u - 1, mc), *cells[marked + 1 :])
    kernel = _column_kernel(rest, local_m, suit_on)
    return {(x0, x1, x2, x3, k + 1): u * c for (x0, x1, x2, x3, k), c in kernel.items()}


@lru_cache(maxsize=1024)
def _inverse_fallings(n: int, exact: bool) -> np.ndarray:
    """``1 / falling(n, k)`` for k = 0..n (read-only)."""
    one = Fraction(1) if exact else 1.0
    out = np.array([one / _falling(n, k) for k in range(n + 1)], dtype=object if exact else np.float64)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=4096)
def _shift_slices(delta: tuple, shape: tuple) -> tuple | None:
    """``(low, high)``: the states ``s`` with ``s + delta`` in range, and those ``s + delta``;
    None when ``delta`` reaches past the end of some axis."""
    if any(d >= n for d, n in zip(delta, shape)):
        return None
    return tuple(slice(0, n - d) for d, n in zip(delta, shape)), tuple(slice(d, n) for d, n in zip(delta, shape))


#: the transform of a column that constrains nothing
_IDENTITY = {(0, 0, 0, 0, 0): 1}


def _apply(a: np.ndarray, out: np.ndarray, terms: list | None, transpose: bool = False) -> None:
    """Add a column's transform of ``a`` into ``out`` (all zeros), term by term in the kernel's
    order: ``out[high] += coef * a[low]`` for every ``(coef, low, high)`` (``transpose``:
    ``out[low] += coef * a[high]``). A coefficient of 1 or -1 adds or subtracts without the
    product (the same rounding). ``terms`` None (the identity) copies ``a``, as adding it to
    zero would: no array here holds -0.0."""
    if terms is None:
        out[...] = a
        return
    for coef, low, high in terms:
        dst, src = (low, high) if transpose else (high, low)
        if coef == 1:
            out[dst] += a[src]
        elif coef == -1:
            out[dst] -= a[src]
        else:
            out[dst] += coef * a[src]


def _pair_sums(forward: np.ndarray, backward: np.ndarray, low: tuple, high: tuple) -> list:
    """``sum_s forward[i][s] backward[i + 1][s + delta]`` for every column i (``low``, ``high``:
    ``delta``'s slices), each row summed as one array, as a single column's product would be."""
    products = forward[(slice(0, -1), *low)] * backward[(slice(1, None), *high)]
    return products.reshape(len(products), -1).sum(axis=1).tolist()


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
    w = _inverse_fallings(n0, exact)
    for s in reversed(range(4)):
        w = np.multiply.outer(np.array([_falling(m[s], x) for x in range(dims[s])], dtype=dtype), w)
    columns = []
    for r in range(13):
        cells = tuple((s, u[13 * s + r], m[17 + 13 * s + r]) for s in range(4))
        columns.append((cells, m[4 + r], [13 * s + r for s in range(4)]))
    if jokers_can_miss:
        columns.append((((None, u[52], 0), (None, u[53], 0)), m[JOKER_CALL], [52, 53]))
    suit_on = tuple(d > 1 for d in dims)
    # forward[i]: the states after columns 0..i-1; backward[i]: the weight of the state before
    # column i
    forward = np.zeros((len(columns) + 1, *shape), dtype=dtype)
    backward = np.zeros((len(columns) + 1, *shape), dtype=dtype)
    forward[(0,) * 6] = 1
    backward[-1] = w
    terms = []  # per column, its kernel's terms (coef, low, high) inside the array; None: the identity
    for cells, lm, _ in columns:
        kernel = _column_kernel(cells, lm, suit_on)
        inside = [(coef, _shift_slices(delta, shape)) for delta, coef in kernel.items()]
        terms.append(None if kernel == _IDENTITY else [(coef, *where) for coef, where in inside if where is not None])
    for i, t in enumerate(terms):
        _apply(forward[i], forward[i + 1], t)
    for i in reversed(range(len(columns))):
        _apply(backward[i + 1], backward[i], terms[i], transpose=True)
    z = (forward[-1] * w).sum()
    pairs: dict[tuple, list | None] = {}  # delta -> _pair_sums for it, None past the end
    out = [0.0] * NUM_CARDS
    for i, (cells, lm, ids) in enumerate(columns):
        for j, card in enumerate(ids):
            if not u[card]:
                continue
            zc = 0
            for delta, coef in _marked_kernel(cells, lm, suit_on, j).items():
                if delta not in pairs:
                    where = _shift_slices(delta, shape)
                    pairs[delta] = None if where is None else _pair_sums(forward, backward, *where)
                if pairs[delta] is not None:
                    zc += coef * pairs[delta][i]
            out[card] = zc * (n0 - total_misses) / (fan * z)
    if not jokers_can_miss:  # every unseen joker lies in the fan
        out[52], out[53] = u[52] / fan, u[53] / fan
    return tuple(float(p) for p in out)


def draw_probabilities(unseen, misses, jokers_can_miss: bool, exact: bool = False,
                       compiled: bool = True) -> np.ndarray:
    """(54,) the exact chance that the next card drawn is each card identity.

    ``unseen``: (54,) counts of the cards not located; ``misses``: (70,) face-down misses per
    call among them; ``jokers_can_miss``: good_joker alone (an ordinary call may miss on a
    joker). ``exact=True`` counts with integers and fractions (slow; for tests).

    The float path runs the compiled twin of ``_probabilities`` (``odds_kernels.py``: the same
    floats, bit for bit), cached by the bytes of the counts; ``compiled=False`` runs the
    readable reference here (with its own cache), as ``exact=True`` always does, and so does an
    install without numba (the ``vector`` extra): the same floats, slower."""
    u = np.asarray(unseen)
    m = np.asarray(misses)
    if exact or not compiled or not _has_numba() or u.shape != (NUM_CARDS,) or m.shape != (JOKER_CALL + 1,):
        return _reference(u, m, jokers_can_miss, exact)
    if u.dtype != np.int64:
        u = u.astype(np.int64)
    if m.dtype != np.int64:
        m = m.astype(np.int64)
    return _compiled_probabilities(u.tobytes() + m.tobytes(), bool(jokers_can_miss)).copy()


@lru_cache(maxsize=1)
def _has_numba() -> bool:
    """Whether numba can be imported (an optional dependency: the ``vector`` extra)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _reference(unseen, misses, jokers_can_miss: bool, exact: bool) -> np.ndarray:
    u = tuple(int(x) for x in unseen)
    m = tuple(int(x) for x in misses)
    return np.array(_probabilities(u, m, bool(jokers_can_miss), bool(exact)))


@lru_cache(maxsize=4096)
def _compiled_probabilities(key: bytes, jokers_can_miss: bool) -> np.ndarray:
    """The float path of :func:`draw_probabilities` (read-only), keyed by the bytes of the
    int64 counts ``unseen`` then ``misses``."""
    global _kernels
    if _kernels is None:
        from card_envs.guilders import odds_kernels as _kernels  # numba: imported at the first count
    counts = np.frombuffer(key, dtype=np.int64)
    out = _kernels.probabilities(counts[:NUM_CARDS], counts[NUM_CARDS:], jokers_can_miss)
    out.flags.writeable = False
    return out


_kernels = None  # odds_kernels, once imported


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
