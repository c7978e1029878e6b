"""What every game's ``sample_world`` (determinization from an observation) shares.

``card_envs.<game>_v0.sample_world(observation, rng, **options)`` turns one player's
observation into a full rules state, in that player's frame (the observer is seat 0), whose
hidden cards are drawn from the posterior the observation leaves. Each game's
``card_envs/<game>/worlds.py`` does the game's part; the plumbing lives here once:

- :func:`table` builds, once per configuration, the rules, the codec and whatever the game
  precomputes from the options alone (a search agent samples thousands of worlds per decision
  with the same options, so nothing option-dependent is redone per sample);
- :func:`observation_vector` accepts the observation vector or the observation dict and
  checks it against the configuration's layout (a ValueError names the problem);
- :class:`PlanCache` keeps what one observation fixes (the decoded view, the unseen pool,
  the constraint tables) for the last observations seen, so repeated samples from the same
  observation redo only the random part;
- :func:`check_rng` and :func:`world_rng`: everything random comes from the caller's numpy
  Generator, which also seeds the world's own generator (its future shuffles and draws);
- :func:`shuffled_by_rank`: a uniformly random copy (suit) for every card a rank-only view places;
- :class:`CountDeal`: the exact uniform deal of unseen cards over hands known to hold none of
  some classes (ranks, suits), several such hands coupled through one pool, without rejection.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

_TABLES: dict[tuple, Any] = {}


def _options_key(game: str, options: dict[str, Any]) -> tuple:
    try:
        key = (game,) + tuple(sorted(options.items()))
        hash(key)
    except TypeError as exc:  # an unhashable option value: the rules will reject it anyway
        raise ValueError(f"{game}: options must be the env's options (hashable values), got {options!r}") from exc
    return key


def table(game: str, options: dict[str, Any], build: Callable[[dict[str, Any]], Any]) -> Any:
    """``build(options)`` for this game and configuration, computed once and cached.

    ``build`` constructs the rules (which reject unknown or bad options with a ValueError)
    and whatever the game's sampler precomputes from the options."""
    key = _options_key(game, options)
    t = _TABLES.get(key)
    if t is None:
        t = _TABLES[key] = build(dict(options))
    return t


def observation_vector(observation: Any, size: int, game: str) -> np.ndarray:
    """The float32 observation vector of ``observation`` (an env observation dict or the vector
    itself), checked to have this configuration's size."""
    if isinstance(observation, dict):
        if "observation" not in observation:
            raise ValueError(f"{game}: an observation dict must hold 'observation'; got keys {sorted(observation)}")
        observation = observation["observation"]
    x = np.asarray(observation, dtype=np.float32)
    if x.shape != (size,):
        raise ValueError(
            f"{game}: the observation must be a vector of {size} floats for these options, got shape {x.shape} "
            "(pass the options the env was made with)"
        )
    return x


def check_rng(rng: Any) -> None:
    """Everything random in a sample comes from ``rng``: a numpy Generator."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}")


def world_rng(rng: np.random.Generator) -> np.random.Generator:
    """The sampled world's own generator, seeded from ``rng`` (so its future is sampled too)."""
    check_rng(rng)
    return np.random.Generator(np.random.PCG64(int(rng.integers(1 << 63))))


def shuffled_by_rank(deck: np.ndarray, rank_of: np.ndarray, num_ranks: int, rng: np.random.Generator) -> list[list[int]]:
    """The deck's cards grouped by rank, each group in uniformly random order: handing them out
    in order gives every place that holds rank r a uniformly random copy (suit) of rank r."""
    perm = deck[rng.permutation(len(deck))]
    order = np.argsort(rank_of[perm], kind="stable")
    grouped = perm[order].tolist()
    counts = np.bincount(rank_of[perm], minlength=num_ranks).tolist()
    out, i = [], 0
    for k in counts:
        out.append(grouped[i : i + k])
        i += k
    return out



def _hypergeometric(rng: np.random.Generator, colors: list[int], k: int) -> list[int]:
    """A uniformly random k-subset of the labelled cards, as counts per class."""
    if k == 0:
        return [0] * len(colors)
    return rng.multivariate_hypergeometric(colors, k).tolist()


class CountDeal:
    """Exact uniform deal of unseen cards under "holds no card of these classes" constraints.

    The unseen cards fall into classes (ranks, suits): ``counts[r]`` of class r. They fill
    labelled places: each constrained group g (say an opponent's hidden hand, known to hold no
    card of class r where ``allowed[g][r]`` is False) has ``capacities[g]`` places, and one free
    group takes the rest (any class). The target is the uniform law over every arrangement of
    the physical cards over the places that keeps each constraint: in class counts ``x[g][r]``
    that is the weight ``prod_r 1 / (prod_g x[g][r]! * f[r]!)`` (``f[r]``: class-r cards in the
    free group; a multinomial of each class over the groups, the places' orders cancel). The
    caller then puts each group's cards in uniformly random order on its places. Exact, and no
    rejection, in two ways:

    - groups with the same allowed classes are merged (one group of their summed size whose
      cards are then split uniformly at random among them: the same law);
    - when the allowed sets form a chain (each inside the next, as Fiddlesticks' "nothing
      playable on that top card" sets mostly do), the number of ways to fill a group does not
      depend on which cards the smaller groups took, only on how many, so the groups draw in
      turn, smallest set first, a uniform subset of the remaining allowed cards (a multivariate
      hypergeometric draw);
    - otherwise a dynamic programme over the classes whose state is the groups' remaining
      capacities: ``total(r, c)``, the summed weight of every way to fill capacities ``c`` with
      classes ``r..``, then a forward walk choosing each class's split with probability
      ``weight * total(r + 1, c - split) / total(r, c)``.

    Everything depends only on the arguments: a caller caches one CountDeal per observation.
    """

    def __init__(self, counts, capacities, allowed):
        from math import factorial

        self.counts = [int(u) for u in counts]
        self.capacities = [int(h) for h in capacities]
        R = len(self.counts)
        if min(self.counts, default=0) < 0 or min(self.capacities, default=0) < 0:
            raise ValueError("CountDeal: counts and capacities must be >= 0")
        if sum(self.capacities) > sum(self.counts):
            raise ValueError(f"{sum(self.capacities)} constrained places cannot be filled from {sum(self.counts)} cards")
        live = [r for r in range(R) if self.counts[r]]
        # merge groups with the same allowed classes (among the classes that have cards)
        key_of: dict[tuple, int] = {}
        self.members: list[list[int]] = []  # merged group -> original groups
        for g, row in enumerate(allowed):
            if not self.capacities[g]:
                continue
            key = tuple(bool(row[r]) for r in live)
            if key not in key_of:
                key_of[key] = len(self.members)
                self.members.append([])
            self.members[key_of[key]].append(g)
        self.num_groups = len(self.capacities)
        masks = [None] * len(self.members)
        for key, m in key_of.items():
            masks[m] = key
        self.allowed = [[False] * R for _ in self.members]
        for m, key in enumerate(masks):
            for r, a in zip(live, key):
                self.allowed[m][r] = a
        self.sizes = [sum(self.capacities[g] for g in group) for group in self.members]
        for m in range(len(self.members)):
            room = sum(self.counts[r] for r in range(R) if self.allowed[m][r])
            if room < self.sizes[m]:
                raise ValueError("no arrangement of the unseen cards keeps every known-absent constraint")
        order = sorted(range(len(self.members)), key=lambda m: sum(self.allowed[m]))
        self.chain = all(
            all(b or not a for a, b in zip(self.allowed[order[i]], self.allowed[order[i + 1]]))
            for i in range(len(order) - 1)
        )
        self.order = order
        if not self.chain:
            self._classes = [r for r in live if any(self.allowed[m][r] for m in range(len(self.members)))]
            inv = [1.0 / factorial(k) for k in range(max(self.counts, default=0) + 1)]
            self._splits = []
            G = len(self.members)
            for r in self._classes:
                u = self.counts[r]
                groups = [m for m in range(G) if self.allowed[m][r]]
                splits = []

                def rec(i, left, x, w):
                    if i == len(groups):
                        splits.append((tuple(x), w * inv[left]))
                        return
                    m = groups[i]
                    for k in range(min(left, self.sizes[m]) + 1):
                        x[m] = k
                        rec(i + 1, left - k, x, w * inv[k])
                    x[m] = 0

                rec(0, u, [0] * G, 1.0)
                self._splits.append(splits)
            C = len(self._classes)
            self._reach = [
                [sum(self.counts[q] for q in self._classes[i:] if self.allowed[m][q]) for m in range(G)] for i in range(C + 1)
            ]
            self._memo: dict[tuple, tuple] = {}
            if self._total(0, tuple(self.sizes)) <= 0.0:
                raise ValueError("no arrangement of the unseen cards keeps every known-absent constraint")

    def _total(self, i: int, c: tuple) -> float:
        key = (i, c)
        hit = self._memo.get(key)
        if hit is not None:
            return hit[0]
        if i == len(self._classes):
            tot = 1.0 if not any(c) else 0.0
            self._memo[key] = (tot, ())
            return tot
        if any(cg > rg for cg, rg in zip(c, self._reach[i])):
            self._memo[key] = (0.0, ())
            return 0.0
        tot = 0.0
        opts = []
        for x, w in self._splits[i]:
            if any(xg > cg for xg, cg in zip(x, c)):
                continue
            rest = tuple(cg - xg for cg, xg in zip(c, x))
            b = self._total(i + 1, rest)
            if b > 0.0:
                tot += w * b
                opts.append((tot, x, rest))
        self._memo[key] = (tot, tuple(opts))
        return tot

    def sample(self, rng: np.random.Generator) -> list[list[int]]:
        """``x[g][r]``: the class-r cards of constrained group g (the free group has the rest)."""
        R = len(self.counts)
        merged = [[0] * R for _ in self.members]
        if self.chain:
            left = list(self.counts)
            for m in self.order:
                allowed = self.allowed[m]
                got = _hypergeometric(rng, [left[r] if allowed[r] else 0 for r in range(R)], self.sizes[m])
                merged[m] = got
                for r in range(R):
                    left[r] -= got[r]
        else:
            c = tuple(self.sizes)
            draws = rng.random(len(self._classes)).tolist()
            for i, r in enumerate(self._classes):
                tot, opts = self._memo[(i, c)]
                target = draws[i] * tot
                for cum, x, rest in opts:
                    if target < cum:
                        break
                for m, k in enumerate(x):
                    merged[m][r] = k
                c = rest
        out = [[0] * R for _ in range(self.num_groups)]
        for m, group in enumerate(self.members):
            left = merged[m]
            for g in group[:-1]:  # a uniform split of the merged group's cards among its members
                got = _hypergeometric(rng, left, self.capacities[g])
                out[g] = got
                left = [a - b for a, b in zip(left, got)]
            out[group[-1]] = left
        return out


class PlanCache:
    """What a sampler derives from one observation alone (the decoded view, the unseen pool,
    the constraint tables), kept for the last observations seen: a search agent samples many
    worlds from the same observation, and only the random part is redone per sample."""

    def __init__(self, build: Callable[[np.ndarray], Any], size: int = 256):
        self._build = build
        self._size = size
        self._plans: dict[bytes, Any] = {}

    def get(self, x: np.ndarray) -> Any:
        key = x.tobytes()
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= self._size:
                self._plans.pop(next(iter(self._plans)))  # the oldest
            plan = self._plans[key] = self._build(x)
        return plan
