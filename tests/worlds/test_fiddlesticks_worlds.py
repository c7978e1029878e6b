"""Fiddlesticks determinization: ``fiddlesticks_v0.sample_world`` follows the exact posterior and reads
nothing hidden in the SWAP phase either (the round trip, the signature and generic bad input are
the conformance suite's, ``tests/conformance/test_worlds.py``)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from card_envs import fiddlesticks_v0
from card_envs.determinization import CountDeal
from card_envs.fiddlesticks.rules import GAME_RANK, NUM_RANKS, NUM_SLOTS
from card_envs.fiddlesticks.view import view
from tests.cases import resample_hidden
from tests.worlds.checks import brute_force, chi_square, rejects, state_where


# ----------------------------------------------------------------------- the exact deal
def _deal_law(counts, capacities, allowed):
    """Brute force: every arrangement of labelled cards (class per card) on labelled places
    (the constrained groups' places first, then the free ones) keeping the constraints."""
    cards = [r for r, u in enumerate(counts) for _ in range(u)]
    owner = [g for g, h in enumerate(capacities) for _ in range(h)]
    owner += [-1] * (len(cards) - len(owner))

    def consistent(arr):
        return all(g < 0 or allowed[g][r] for g, r in zip(owner, arr))

    def statistic(arr):
        return tuple(tuple(sorted(r for g2, r in zip(owner, arr) if g2 == g)) for g in range(len(capacities)))

    return brute_force(owner, cards, consistent, statistic)


DEALS = [
    # a chain of allowed sets (each inside the next)
    ((2, 2, 1, 2), (2, 1), ((1, 1, 0, 0), (1, 1, 1, 0))),
    # crossing sets: the dynamic programme
    ((2, 1, 2, 2), (2, 2), ((1, 1, 0, 1), (0, 1, 1, 1))),
    # three groups, two of them alike (merged), one crossing
    ((1, 2, 2, 2), (1, 2, 1), ((1, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 1))),
]


@pytest.mark.parametrize("counts,capacities,allowed", DEALS, ids=["chain", "crossing", "merged"])
def test_b_count_deal_is_the_uniform_law_over_consistent_arrangements(counts, capacities, allowed):
    law = _deal_law(counts, capacities, allowed)
    deal = CountDeal(counts, capacities, allowed)
    rng = np.random.default_rng(0)
    got = Counter()
    for _ in range(6000):
        x = deal.sample(rng)
        got[tuple(tuple(r for r in range(len(counts)) for _ in range(x[g][r])) for g in range(len(capacities)))] += 1
    value, critical = chi_square(got, law)
    assert value < critical, (value, critical)
    # negative control: ignoring the constraints (each group a uniform subset of all cards)
    bad = Counter()
    for _ in range(6000):
        left = list(counts)
        row = []
        for h in capacities:
            take = rng.multivariate_hypergeometric(left, h)
            left = [a - b for a, b in zip(left, take)]
            row.append(tuple(r for r in range(len(counts)) for _ in range(take[r])))
        bad[tuple(row)] += 1
    assert rejects(bad, law)


def test_b_count_deal_rejects_an_impossible_constraint():
    with pytest.raises(ValueError, match="known-absent"):
        CountDeal((2, 2), (3,), ((1, 0),))


# -------------------------------------------------------------- the posterior in a game
def _hidden(s, q):
    """Player q's hand cards beyond its publicly known ones."""
    return [c for r in range(NUM_RANKS) for c in s.hand[q][r][s.known[q][r]:]]


def _small_endgame():
    """A play-phase state with the stock gone where both opponents of the observer hold one or
    two unknown cards; all but two face-down cards are moved to the cleared cards (a state the
    rules could reach, smaller to enumerate), and the two opponents are made known to hold none
    of two crossing sets of ranks they indeed do not hold (``absent``, set on the true state)."""
    cfg = {"num_players": 3, "num_decks": 1, "end_mode": "rank_all"}

    def observer(s):
        for o in range(3):
            if all(1 <= len(_hidden(s, (o + k) % 3)) <= 2 for k in (1, 2)):
                return o
        return None

    env = state_where(fiddlesticks_v0, cfg, 4, lambda s: s.phase == 1 and not s.stock and observer(s) is not None)
    s = env.unwrapped.game_state
    o = observer(s)
    downs = [(p, j) for p in range(3) for j in range(NUM_SLOTS) if s.face_down[p][j] is not None]
    for p, j in downs[2:]:
        c = s.face_down[p][j]
        s.face_down[p][j] = None
        s.cleared.append(c)
        s.cleared_counts[GAME_RANK[c]] += 1
    opponents = [(o + 1) % 3, (o + 2) % 3]
    pool = sorted({GAME_RANK[c] for q in opponents for c in _hidden(s, q)}
                  | {GAME_RANK[c] for p, j in downs[:2] for c in [s.face_down[p][j]]})
    for q, parity in zip(opponents, (0, 1)):
        mine = {GAME_RANK[c] for c in _hidden(s, q)}
        for i, r in enumerate(pool):
            if r not in mine and (i % 2 == parity or len(pool) <= 3):
                s.absent[q][r] = True
    return env, cfg, s, o, opponents


def test_b_posterior_keeps_known_absent_ranks_of_two_opponents():
    """Brute force over every arrangement of the hidden cards (face-down slots and the two
    opponents' unknown hand cards) keeping both opponents' known-absent ranks, against
    sampled worlds: the chi-square test passes, and a sampler ignoring the constraints fails."""
    env, cfg, s, o, (q1, q2) = _small_endgame()
    downs = [(p, j) for p in range(3) for j in range(NUM_SLOTS) if s.face_down[p][j] is not None]
    h1 = len(_hidden(s, q1))
    cards = [s.face_down[p][j] for p, j in downs] + _hidden(s, q1) + _hidden(s, q2)
    d = len(downs)

    def consistent(arr):
        return not any(s.absent[q1][GAME_RANK[c]] for c in arr[d : d + h1]) and not any(
            s.absent[q2][GAME_RANK[c]] for c in arr[d + h1 :])

    def statistic(arr):
        return (tuple(sorted(GAME_RANK[c] for c in arr[d : d + h1])), tuple(sorted(GAME_RANK[c] for c in arr[d + h1 :])),
                GAME_RANK[arr[0]])

    law = brute_force(list(range(len(cards))), cards, consistent, statistic)
    unconstrained = brute_force(list(range(len(cards))), cards, lambda arr: True, statistic)
    assert law != unconstrained  # the constraints matter here

    x = env.unwrapped._codec.encode(view(s, o))
    rng = np.random.default_rng(3)
    p0, j0 = downs[0]
    r1, r2, rp = (q1 - o) % 3, (q2 - o) % 3, (p0 - o) % 3  # seats in the observer's frame

    def world_statistic(w):
        return (tuple(sorted(GAME_RANK[c] for c in _hidden(w, r1))), tuple(sorted(GAME_RANK[c] for c in _hidden(w, r2))),
                GAME_RANK[w.face_down[rp][j0]])

    got = Counter(world_statistic(fiddlesticks_v0.sample_world(x, rng, **cfg)) for _ in range(4000))
    value, critical = chi_square(got, law)
    assert value < critical, (value, critical)
    # negative control: the same hidden cards shuffled with no regard for ``absent``
    bad = Counter()
    for _ in range(4000):
        bad[statistic([cards[i] for i in rng.permutation(len(cards))])] += 1
    assert rejects(bad, law)


def test_c_never_reads_the_true_state():
    """Two true states with the same observation give the same world for the same seed, in the
    SWAP phase (picks made, unseen by the others) and in the play phase."""
    cfg = {"num_players": 4}
    for predicate in (lambda s: s.phase == 0 and s.swap_picks[s.current_player] == 1 and s.current_player == 2,
                      lambda s: s.phase == 1 and s.turns >= 12):
        env = state_where(fiddlesticks_v0, cfg, 5, predicate)
        s = env.unwrapped.game_state
        rules, codec = env.unwrapped.rules, env.unwrapped._codec
        for seat in range(4):
            other = resample_hidden(rules, s, seat, np.random.default_rng(seat + 10))
            x, y = codec.encode(view(s, seat)), codec.encode(view(other, seat))
            assert x.tobytes() == y.tobytes()
            assert rules.zones(other) != rules.zones(s)
            a = fiddlesticks_v0.sample_world(x, np.random.default_rng(9), **cfg)
            b = fiddlesticks_v0.sample_world(y.copy(), np.random.default_rng(9), **cfg)
            assert rules.zones(a) == rules.zones(b)
            assert a.known == b.known and a.absent == b.absent and a.hand_size == b.hand_size


def test_bad_options_are_a_value_error():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="num_players"):
        fiddlesticks_v0.sample_world(np.zeros(5, np.float32), rng, num_players=30)
