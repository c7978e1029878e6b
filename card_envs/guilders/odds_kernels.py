"""The compiled twin of ``odds._probabilities`` (the float path), for the heuristic's speed.

``odds.py`` is the reference: its module docstring derives the counting, and ``_probabilities``
runs the forward-backward programme over the columns with numpy slices, term by term. This
module runs the same programme in one numba kernel, operation for operation in the same order,
so that every float it produces is the reference's, bit for bit (``tests/games/
test_guilders_odds_compiled.py`` checks it on many real positions):

- each column's kernel and each card's marked kernel are the reference's own (the lru-cached
  ``odds._column_kernel`` and ``odds._marked_kernel``, exact Python integers), their
  coefficients rounded to float once, as numpy and Python round an int in ``coef * array`` and
  ``coef * float``; they are stored once per column (``_Tables``), found by the column's
  numbers in a hash table the kernel reads;
- ``out[high] += coef * a[low]`` is the same product and sum per state, the terms in the
  kernel's order (a coefficient of 1 or -1 rounds as the reference's plain add or subtract);
- numpy's ``sum`` of a contiguous float64 array (the weighted total ``z``, each column's pair
  sums) is its pairwise summation (``_pairwise``: eight accumulators per block of at most 128,
  halves above, started from the identity 0.0), which the kernel repeats on the same products
  in the same (C) order;
- the final weight's factors ``1 / falling(n0, k)`` and ``falling(m_s, x)`` are rounded from
  the exact integers as the reference rounds them, into tables (a factor too large for a float,
  where the reference raises OverflowError, sends the count to the reference).

``odds.draw_probabilities`` sends ``exact=True`` and anything odd (negative counts, other
shapes) to the reference.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from card_envs.guilders import odds

NUM_CARDS = odds.NUM_CARDS
JOKER_CALL = odds.JOKER_CALL
#: numbers per column key (``_column_keys``): kind (0 a rank, 1 the jokers), copies per suit
#: (4), exact-card misses per suit (4), the column's own misses, the suits with a state axis (4)
KEY_WIDTH = 14
#: a column's row of ``_Tables.head``: [its kernel's first term, its count, whether it is the
#: identity] then (first term, count) of each cell's marked kernel (count 0: no copies)
HEAD_WIDTH = 11
#: what ``_run`` returns besides 0 (done) and k > 0 (k columns not in the tables yet)
NEED_FACTORS = -1  # the factor tables are too small for this count
OVERFLOW = -2  # a factor of the final weight is past the float range: the reference raises
NEGATIVE = -3  # a count below zero: only the reference knows what it makes of it


@njit(cache=True)
def _column_keys(u, m, jokers_can_miss, dims, keys):
    """Each column's numbers (a row of ``keys``), those ``odds._probabilities`` builds its
    ``cells``, ``local_m`` and ``suit_on`` from; returns the number of columns."""
    for r in range(13):
        keys[r, 0] = 0
        for s in range(4):
            keys[r, 1 + s] = u[13 * s + r]
            keys[r, 5 + s] = m[17 + 13 * s + r]
        keys[r, 9] = m[4 + r]
    ncols = 13
    if jokers_can_miss:
        keys[13, :] = 0
        keys[13, 0] = 1
        keys[13, 1] = u[52]
        keys[13, 2] = u[53]
        keys[13, 9] = m[JOKER_CALL]
        ncols = 14
    for r in range(ncols):
        for s in range(4):
            keys[r, 10 + s] = 1 if dims[s] > 1 else 0
    return ncols


@njit(cache=True)
def _slot(slots, key):
    """The slot of ``key`` (KEY_WIDTH numbers) in the open-addressing table ``slots`` (rows of
    the key then its value, -1 when empty; a power of two rows): where it is, or the empty slot
    where it would go."""
    h = np.uint64(1469598103934665603)
    for a in range(KEY_WIDTH):
        h = (h ^ np.uint64(key[a] & 0xFFFFFFFF)) * np.uint64(1099511628211)
    mask = slots.shape[0] - 1
    i = np.int64(h >> np.uint64(16)) & mask
    while True:
        if slots[i, KEY_WIDTH] < 0:
            return i
        same = True
        for a in range(KEY_WIDTH):
            if slots[i, a] != key[a]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask


@njit(cache=True)
def _insert(slots, key, value):
    i = _slot(slots, key)
    slots[i, :KEY_WIDTH] = key
    slots[i, KEY_WIDTH] = value


@njit(cache=True)
def _block(a, lo, n):
    """numpy's pairwise sum of at most 128 numbers: one by one below 8, else eight accumulators
    (the rest added one by one after them)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    stop = n - (n % 8)
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def _pairwise(a, lo, n):
    """``a[lo:lo + n].sum()`` as numpy sums a contiguous float64 array, less the identity 0.0
    it starts from (``0.0 + _pairwise(...)`` is numpy's result): above 128 numbers, the sum of
    the two halves' sums (the first half's length rounded down to a multiple of 8), each summed
    so in turn. The recursion runs on an explicit stack (numba's cache does not keep recursive
    functions safely)."""
    if n <= 128:
        return _block(a, lo, n)
    # the pending halvings: their start, length, and the left half's sum once known
    start = np.empty(64, dtype=np.int64)
    length = np.empty(64, dtype=np.int64)
    left = np.empty(64)
    has_left = np.zeros(64, dtype=np.bool_)
    depth = 0
    cur, size = lo, n
    while True:
        while size > 128:  # down the left halves
            half = size // 2
            half -= half % 8
            start[depth], length[depth], has_left[depth] = cur, size, False
            depth += 1
            size = half
        value = _block(a, cur, size)
        while depth > 0:  # up: a finished left half sends us right, a finished right half adds up
            top = depth - 1
            if has_left[top]:
                value = left[top] + value
                depth -= 1
            else:
                left[top], has_left[top] = value, True
                half = length[top] // 2
                half -= half % 8
                cur, size = start[top] + half, length[top] - half
                break
        if depth == 0:
            return value


@njit(cache=True)
def _in_range(deltas, t, shape):
    """Whether term ``t``'s shift stays inside the state array (``odds._shift_slices`` not None)."""
    for a in range(5):
        if deltas[t, a] >= shape[a]:
            return False
    return True


@njit(cache=True)
def _same_shift(deltas, q, t):
    for a in range(5):
        if deltas[q, a] != deltas[t, a]:
            return False
    return True


@njit(cache=True)
def _shift(deltas, t, shape, strides):
    """Term ``t``'s shift as a flat offset, and the extents of the states ``s`` with ``s + delta``
    inside the array (per axis)."""
    off = 0
    for a in range(5):
        off += deltas[t, a] * strides[a]
    return (off, shape[0] - deltas[t, 0], shape[1] - deltas[t, 1], shape[2] - deltas[t, 2],
            shape[3] - deltas[t, 3], shape[4] - deltas[t, 4])


@njit(cache=True)
def _apply(src, dst, first, count, identity, coefs, deltas, shape, strides, transpose):
    """``odds._apply``: ``dst[s + delta] += coef * src[s]`` (``transpose``: ``dst[s] += coef *
    src[s + delta]``) over the states ``s`` with ``s + delta`` inside, term by term; the identity
    copies ``src``."""
    if identity:
        for k in range(src.shape[0]):
            dst[k] = src[k]
        return
    for t in range(first, first + count):
        if not _in_range(deltas, t, shape):
            continue
        c = coefs[t]
        off, n0, n1, n2, n3, n4 = _shift(deltas, t, shape, strides)
        for i0 in range(n0):
            for i1 in range(n1):
                for i2 in range(n2):
                    for i3 in range(n3):
                        base = i0 * strides[0] + i1 * strides[1] + i2 * strides[2] + i3 * strides[3]
                        if transpose:
                            for i4 in range(n4):
                                dst[base + i4] += c * src[base + off + i4]
                        else:
                            for i4 in range(n4):
                                dst[base + off + i4] += c * src[base + i4]


@njit(cache=True)
def _pair_sum(fwd, bwd, deltas, t, shape, strides, buf):
    """``odds._pair_sums`` for one column: ``sum_s fwd[s] * bwd[s + delta]``, the products in
    C order of the states ``s`` summed as numpy sums them."""
    off, n0, n1, n2, n3, n4 = _shift(deltas, t, shape, strides)
    k = 0
    for i0 in range(n0):
        for i1 in range(n1):
            for i2 in range(n2):
                for i3 in range(n3):
                    base = i0 * strides[0] + i1 * strides[1] + i2 * strides[2] + i3 * strides[3]
                    for i4 in range(n4):
                        buf[k] = fwd[base + i4] * bwd[base + off + i4]
                        k += 1
    return 0.0 + _pairwise(buf, 0, k)


@njit(cache=True, error_model="numpy")
def _run(u, m, jokers_can_miss, slots, head, coefs, deltas, inverse, fallings, out, keys, ids):
    """``odds._probabilities(u, m, jokers_can_miss, False)`` into ``out`` (54,); returns 0.
    Returns k > 0 when k columns are not in the tables yet (their keys are the rows of ``keys``
    whose ``ids`` are -1), or NEED_FACTORS / OVERFLOW (``inverse[n, k]``: ``1 / falling(n, k)``,
    ``fallings[n, x]``: ``falling(n, x)``, NaN past the float range) or NEGATIVE."""
    for c in range(NUM_CARDS):
        if u[c] < 0:
            return NEGATIVE
    for a in range(m.shape[0]):
        if m[a] < 0:
            return NEGATIVE
    total_misses = 0
    for a in range(m.shape[0]):
        total_misses += m[a]
    n_ord = 0
    for c in range(52):
        n_ord += u[c]
    n_jok = u[52] + u[53]
    fan = n_ord + n_jok - total_misses
    if fan <= 0:
        out[:] = 0.0
        return 0
    if total_misses == 0:
        for c in range(NUM_CARDS):
            out[c] = u[c] / fan
        return 0
    # the universe the miss places draw from: ordinary cards, plus jokers with good_joker alone
    n0 = n_ord + (n_jok if jokers_can_miss else 0)
    shape = np.empty(5, dtype=np.int64)
    for s in range(4):
        row = 0
        for r in range(13):
            row += u[13 * s + r]
        shape[s] = min(m[s], row) + 1
    shape[4] = n0 + 1
    if n0 >= inverse.shape[0]:
        return NEED_FACTORS
    for s in range(4):
        if m[s] >= fallings.shape[0]:
            return NEED_FACTORS
    for k in range(n0 + 1):
        if np.isnan(inverse[n0, k]):
            return OVERFLOW
    for s in range(4):
        for x in range(shape[s]):
            if np.isnan(fallings[m[s], x]):
                return OVERFLOW
    ncols = _column_keys(u, m, jokers_can_miss, shape, keys)
    missing = 0
    for i in range(ncols):
        j = _slot(slots, keys[i])
        ids[i] = slots[j, KEY_WIDTH]
        if ids[i] < 0:
            missing += 1
    if missing:
        return missing
    strides = np.empty(5, dtype=np.int64)
    strides[4] = 1
    for a in range(3, -1, -1):
        strides[a] = strides[a + 1] * shape[a + 1]
    size = strides[0] * shape[0]
    # final weight: prod_s falling(m_s, x_s) * (n0 - k)! / n0!, as the reference's outer
    # products make it: f0 * (f1 * (f2 * (f3 * inverse)))
    w = np.empty(size)
    for i0 in range(shape[0]):
        for i1 in range(shape[1]):
            for i2 in range(shape[2]):
                for i3 in range(shape[3]):
                    base = i0 * strides[0] + i1 * strides[1] + i2 * strides[2] + i3 * strides[3]
                    for k in range(shape[4]):
                        w[base + k] = fallings[m[0], i0] * (fallings[m[1], i1] * (
                            fallings[m[2], i2] * (fallings[m[3], i3] * inverse[n0, k])))
    # forward[i]: the states after columns 0..i-1; backward[i]: the weight of the state before
    # column i
    forward = np.zeros((ncols + 1, size))
    backward = np.zeros((ncols + 1, size))
    forward[0, 0] = 1.0
    backward[ncols, :] = w
    for i in range(ncols):
        h = ids[i]
        _apply(forward[i], forward[i + 1], head[h, 0], head[h, 1], head[h, 2] != 0, coefs, deltas, shape, strides,
               False)
    for i in range(ncols - 1, -1, -1):
        h = ids[i]
        _apply(backward[i + 1], backward[i], head[h, 0], head[h, 1], head[h, 2] != 0, coefs, deltas, shape, strides,
               True)
    buf = np.empty(size)
    for k in range(size):
        buf[k] = forward[ncols, k] * w[k]
    z = 0.0 + _pairwise(buf, 0, size)
    out[:] = 0.0
    # a column's pair sums, one per shift met (the cells of a column share most of them)
    done = np.empty(64, dtype=np.int64)
    value = np.empty(64)
    for i in range(ncols):
        h = ids[i]
        ndone = 0
        joker_column = i == 13
        for j in range(2 if joker_column else 4):
            card = 52 + j if joker_column else 13 * j + i
            if u[card] == 0:
                continue
            zc = 0.0
            first = head[h, 3 + 2 * j]
            for t in range(first, first + head[h, 4 + 2 * j]):
                if not _in_range(deltas, t, shape):
                    continue
                d = 0
                while d < ndone and not _same_shift(deltas, done[d], t):
                    d += 1
                if d < ndone:
                    pair = value[d]
                else:
                    pair = _pair_sum(forward[i], backward[i + 1], deltas, t, shape, strides, buf)
                    if ndone < done.shape[0]:
                        done[ndone] = t
                        value[ndone] = pair
                        ndone += 1
                zc += coefs[t] * pair
            out[card] = zc * (n0 - total_misses) / (fan * z)
    if not jokers_can_miss:  # every unseen joker lies in the fan
        out[52] = u[52] / fan
        out[53] = u[53] / fan
    return 0


class _Tables:
    """Every column met so far, its terms appended to flat arrays: ``coefs`` (float) and
    ``deltas`` (the shifts, 5 ints), a row of ``head`` (HEAD_WIDTH) per column, and ``slots``,
    the hash table from a column's key to its row; and the final weight's factor tables
    ``inverse`` and ``fallings``."""

    #: a bound on the columns kept: past it the tables start again (they are a cache)
    MAX_COLUMNS = 1 << 16

    def __init__(self):
        self.clear()
        self.inverse = np.zeros((0, 0))
        self.fallings = np.zeros((0, 0))

    def clear(self) -> None:
        self.slots = np.full((1 << 12, KEY_WIDTH + 1), -1, dtype=np.int64)
        self.head = np.zeros((1024, HEAD_WIDTH), dtype=np.int64)
        self.coefs = np.zeros(8192)
        self.deltas = np.zeros((8192, 5), dtype=np.int64)
        self.columns = 0
        self.terms = 0

    def _append(self, items) -> tuple[int, int]:
        """Append ``(delta, coefficient)`` pairs; return (first, count)."""
        items = list(items)
        need = self.terms + len(items)
        if need > len(self.coefs):
            size = max(need, 2 * len(self.coefs))
            self.coefs = np.concatenate([self.coefs, np.zeros(size - len(self.coefs))])
            self.deltas = np.concatenate([self.deltas, np.zeros((size - len(self.deltas), 5), dtype=np.int64)])
        first = self.terms
        for t, (delta, coef) in enumerate(items, first):
            self.coefs[t] = float(coef)  # correctly rounded, as numpy and Python round the int
            self.deltas[t] = delta
        self.terms = need
        return first, len(items)

    def add(self, row: np.ndarray) -> None:
        """The column whose key is ``row``, from the reference's own kernels."""
        kind, lm = int(row[0]), int(row[9])
        suit_on = tuple(bool(x) for x in row[10:14])
        if kind == 0:
            cells = tuple((s, int(row[1 + s]), int(row[5 + s])) for s in range(4))
        else:
            cells = ((None, int(row[1]), 0), (None, int(row[2]), 0))
        kernel = odds._column_kernel(cells, lm, suit_on)
        h = np.zeros(HEAD_WIDTH, dtype=np.int64)
        h[0], h[1] = self._append(kernel.items())
        h[2] = kernel == odds._IDENTITY
        for j, (_, copies, _) in enumerate(cells):
            if copies:
                h[3 + 2 * j], h[4 + 2 * j] = self._append(odds._marked_kernel(cells, lm, suit_on, j).items())
        if self.columns == len(self.head):
            self.head = np.concatenate([self.head, np.zeros_like(self.head)])
        if 2 * (self.columns + 1) > len(self.slots):  # keep the hash table at most half full
            old = self.slots[self.slots[:, KEY_WIDTH] >= 0]
            self.slots = np.full((2 * len(self.slots), KEY_WIDTH + 1), -1, dtype=np.int64)
            for r in old:
                _insert(self.slots, r[:KEY_WIDTH], r[KEY_WIDTH])
        self.head[self.columns] = h
        _insert(self.slots, np.ascontiguousarray(row), self.columns)
        self.columns += 1

    def grow_factors(self, n: int) -> None:
        """``inverse`` and ``fallings`` for every n up to ``n`` at least: ``1.0 / falling(n, k)``
        and ``falling(n, x)`` as the reference rounds them, NaN where it would raise
        OverflowError."""
        size = max(n + 1, 2 * len(self.inverse), 64)
        inverse = np.full((size, size), np.nan)
        fallings = np.full((size, size), np.nan)
        for a in range(size):
            for k in range(a + 1):
                f = odds._falling(a, k)
                try:
                    inverse[a, k] = 1.0 / f  # as odds._inverse_fallings
                except OverflowError:
                    pass
                try:
                    fallings[a, k] = float(f)  # as np.array([...], dtype=float64)
                except OverflowError:
                    pass
        self.inverse, self.fallings = inverse, fallings


_TABLES = _Tables()


def probabilities(u: np.ndarray, m: np.ndarray, jokers_can_miss: bool) -> np.ndarray:
    """``odds._probabilities(tuple(u), tuple(m), jokers_can_miss, False)`` as a (54,) array,
    every float the same. ``u`` (54,) and ``m`` (70,): nonnegative int64 counts."""
    t = _TABLES
    out = np.empty(NUM_CARDS)
    keys = np.zeros((14, KEY_WIDTH), dtype=np.int64)
    ids = np.zeros(14, dtype=np.int64)
    while True:
        status = _run(u, m, jokers_can_miss, t.slots, t.head, t.coefs, t.deltas, t.inverse, t.fallings, out, keys, ids)
        if status == 0:
            return out
        if status in (OVERFLOW, NEGATIVE):  # the reference (raises OverflowError as it does)
            return odds._reference(u, m, jokers_can_miss, False)
        if status == NEED_FACTORS:
            t.grow_factors(max(int(u.sum()), int(m[:4].max())))
        elif t.columns + status > t.MAX_COLUMNS:
            t.clear()
        else:
            for i in np.flatnonzero(ids < 0).tolist():
                if t.slots[_slot(t.slots, keys[i]), KEY_WIDTH] < 0:  # not added just now (equal columns)
                    t.add(keys[i])
