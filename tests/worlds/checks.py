"""What the games' own determinization tests share: a brute-force posterior, a chi-square test and
states reached by play. The checks every game's worlds get (the round trip, the signature, twin
states, bad input) are the conformance suite's (``tests/conformance/test_worlds.py``, helpers in
``tests/conformance/worlds.py``)."""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

import numpy as np

from tests.conformance.cases import random_action


def brute_force(places: list, cards: list, consistent, statistic) -> Counter:
    """The exact law of ``statistic`` under the uniform law over every arrangement of the
    labelled ``cards`` on ``places`` that ``consistent`` keeps (tiny cases: len! arrangements)."""
    law = Counter()
    for perm in permutations(range(len(cards))):
        arrangement = [cards[i] for i in perm]
        if consistent(arrangement):
            law[statistic(arrangement)] += 1
    total = sum(law.values())
    assert total, "no consistent arrangement: the brute force is wrong"
    return Counter({k: v / total for k, v in law.items()})


def chi_square_critical(df: int, z: float = 3.719) -> float:
    """The chi-square quantile (Wilson-Hilferty); z = 3.719 is the normal 0.9999 quantile."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def chi_square(samples: Counter, law: Counter) -> tuple[float, float]:
    """(statistic, critical value at p = 1e-4) of ``samples`` against the exact ``law``, cells
    with an expected count under 5 pooled; a sample outside the law's support fails at once."""
    n = sum(samples.values())
    outside = set(samples) - set(law)
    assert not outside, f"sampled values the brute force never gives: {sorted(outside)[:5]}"
    cells, pooled_obs, pooled_exp = [], 0.0, 0.0
    for key, p in law.items():
        e = n * p
        if e < 5:
            pooled_obs += samples.get(key, 0)
            pooled_exp += e
        else:
            cells.append((samples.get(key, 0), e))
    if pooled_exp > 0:
        cells.append((pooled_obs, pooled_exp))
    stat = sum((o - e) ** 2 / e for o, e in cells)
    df = max(len(cells) - 1, 1)
    return stat, chi_square_critical(df)


def rejects(samples: Counter, law: Counter) -> bool:
    """Whether the chi-square test rejects ``samples`` against ``law`` (a value outside the
    law's support rejects at once): the negative controls' check."""
    if set(samples) - set(law):
        return True
    value, critical = chi_square(samples, law)
    return value > critical


def state_where(module, cfg: dict, seed: int, predicate, policy=None, max_steps: int = 5000):
    """Random (or ``policy``) legal play through ``module.env(**cfg)`` until
    ``predicate(state)``; the env, stopped there."""
    rng = np.random.default_rng(seed)
    for attempt in range(50):
        env = module.env(**cfg)
        env.reset(seed=seed * 100 + attempt)
        for _ in range(max_steps):
            s = env.unwrapped.game_state
            if s.terminated or s.truncated:
                break
            if predicate(s):
                return env
            obs = env.observe(env.agent_selection)
            env.step(policy(env, obs, rng) if policy is not None else random_action(obs, rng))
    raise AssertionError("no such state reached")
