"""Golf determinization: ``golf_v0.sample_world`` follows the exact posterior (the round trip, the
signature, twin states and bad input are the conformance suite's, ``tests/conformance/test_worlds.py``)."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
from card_envs import golf_v0
from card_envs.golf.rules import RANK_OF
from tests.cases import golf as golf_cases
from tests.worlds.checks import chi_square, state_where


def _state_where(cfg, seed, predicate):
    env = state_where(golf_v0, cfg, seed, predicate)
    return env, env.unwrapped.game_state


def _samples(env, cfg, seat, n, statistic, seed=0):
    """The law of ``statistic`` over n worlds sampled from ``seat``'s observation."""
    x = env.observe(env.possible_agents[seat])["observation"]
    rng = np.random.default_rng(seed)
    return Counter(statistic(golf_v0.sample_world(x, rng, **cfg)) for _ in range(n))


def test_b_unseen_pool_is_dealt_uniformly_before_a_rebuild():
    """Before a rebuild, face-down slots and the stock are one uniformly dealt pool: the joint
    law of (an opponent's face-down rank, the stock's top rank) is that of an ordered pair of
    distinct unseen cards, counted by brute force over the true state's hidden cards. A sampler
    that forgets the discard pile is seen fails the same test."""
    cfg = {"num_players": 2, "num_rounds": 1}
    env, s = _state_where(cfg, 5, lambda s: s.phase == 1 and len(s.discard) >= 8 and not s.stock_known
                  and not all(s.face_up[1]))
    seat, other = 0, 1
    slot = s.face_up[other].index(False)
    rules = env.unwrapped.rules  # the true state's hidden cards, for the brute force only
    hidden = [golf_cases.card_at(s, pl) for pl in golf_cases.hidden_places(rules, s, seat)]
    law = Counter()
    for a, b in permutations(range(len(hidden)), 2):  # every completion of the other places is as likely
        law[(RANK_OF[hidden[a]], RANK_OF[hidden[b]])] += 1
    total = sum(law.values())
    law = Counter({k: v / total for k, v in law.items()})

    stat = lambda w: (RANK_OF[w.grid[other][slot]], RANK_OF[w.stock[-1]])  # noqa: E731
    got = _samples(env, cfg, seat, 6000, stat)
    value, critical = chi_square(got, law)
    assert value < critical, (value, critical)

    # negative control: the discard pile under its top put back among the unseen cards
    biased = hidden + s.discard[:-1]
    rng = np.random.default_rng(1)
    bad = Counter()
    for _ in range(6000):
        a, b = rng.choice(len(biased), size=2, replace=False)
        bad[(RANK_OF[biased[a]], RANK_OF[biased[b]])] += 1
    bad_value, _ = chi_square(Counter({k: v for k, v in bad.items() if k in law}), law)
    assert bad_value > critical, (bad_value, critical)


def test_b_rebuilt_stock_keeps_its_known_cards():
    """After a rebuild the stock is a uniform order of its public composition and the
    face-down slots hold the rest of the deck: the law of (stock top, second card, one
    face-down rank) by brute force, against a sampler that pools stock and slots (fails)."""
    cfg = {"num_players": 8, "num_decks": 1, "num_rounds": 1, "flip_after_discard": "may"}
    env, s = _state_where(cfg, 3, lambda s: s.stock_known and len(s.stock) >= 3 and s.phase == 1)
    seat = s.current_player
    other = (seat + 3) % 8
    slot = s.face_up[other].index(False)
    rel = (other - seat) % 8
    stock = list(s.stock)
    down = [s.grid[p][i] for p in range(8) for i in range(6) if not s.face_up[p][i]]
    law = Counter()
    for perm in permutations(stock):
        for c in down:
            law[(RANK_OF[perm[-1]], RANK_OF[perm[-2]], RANK_OF[c])] += 1
    total = sum(law.values())
    law = Counter({k: v / total for k, v in law.items()})
    stat = lambda w: (RANK_OF[w.stock[-1]], RANK_OF[w.stock[-2]], RANK_OF[w.grid[rel][slot]])  # noqa: E731
    got = _samples(env, cfg, seat, 4000, stat)
    value, critical = chi_square(got, law)
    assert value < critical, (value, critical)

    pooled = stock + down  # the bug: a rebuilt stock treated as part of the unseen pool
    rng = np.random.default_rng(2)
    bad = Counter()
    for _ in range(4000):
        a, b, c = rng.choice(len(pooled), size=3, replace=False)
        key = (RANK_OF[pooled[a]], RANK_OF[pooled[b]], RANK_OF[pooled[c]])
        bad[key] += 1
    inside = Counter({k: v for k, v in bad.items() if k in law})
    outside = sum(bad.values()) - sum(inside.values())
    bad_value, _ = chi_square(inside, law)
    assert outside > 0 or bad_value > critical
