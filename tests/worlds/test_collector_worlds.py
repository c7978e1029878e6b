"""Collector determinization: ``collector_v0.sample_world`` from the observation alone.

(a) sampled worlds give back the observation byte for byte, hold the 52 cards, rebuild the
public facts (dealer, commit order, laid-down hands, how the game ended) and play on;
(b) they follow the exact posterior: on states with few unseen cards, every placement of them
that keeps the observation and leaves every opponent incomplete (the game goes on), found by
brute force, checked with a chi-square test, for the rejection sampler and for its exact
fallback programme; a deal that ignores the "nobody complete" fact leaves the support;
The signature, twin states and bad input are the conformance suite's
(``tests/conformance/test_worlds.py``). The helpers here serve Hot's tests too (``tests/worlds/test_hot_worlds.py``): same engine.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice, permutations

import numpy as np
import pytest

from card_envs import collector_v0
from card_envs.set_collecting import view as view_mod
from card_envs.set_collecting import worlds as worlds_mod
from card_envs.set_collecting.engine import NUM_RANKS, OVER
from tests.cases import collector as collector_cases
from tests.conformance.worlds import random_observations
from tests.worlds.checks import chi_square


def round_trip(module, cfg: dict, games: int, seed: int, every: int, limit: int = 10**9) -> int:
    """Check every sampled world of random play (all seats); returns how many were checked."""
    rng = np.random.default_rng(seed)
    checked = 0
    for env, seat, x in random_observations(module, cfg, games, seed, every):
        raw = env.unwrapped
        rules, truth = raw.rules, raw.game_state
        n = rules.num_players
        world = module.sample_world(x, rng, **cfg)
        assert raw._encode(world, 0).tobytes() == x.tobytes(), f"seat {seat}: the observation differs"
        census = sorted(c for zone in rules.zones(world).values() for c in zone)
        assert census == sorted(rules.deck()), "the sampled world's cards are not the deck"
        # the public facts rebuilt from the observation are the true ones (seen from the observer)
        assert world.dealer == (truth.dealer - seat) % n and world.lead == (truth.lead - seat) % n
        assert world.order == [(p - seat) % n for p in truth.order] and world.pos == truth.pos
        assert (world.terminated, world.truncated, world.laid_down) == (truth.terminated, truth.truncated,
                                                                         truth.laid_down)
        assert world.stock_unknown == truth.stock_unknown
        assert world.pending[0] == truth.pending[seat]
        for p in range(1, n):  # a commitment exactly where one was made, and a legal one
            assert (world.pending[p] >= 0) == (truth.pending[(p + seat) % n] >= 0)
            if world.pending[p] >= 0:
                assert rules.mask_for(world, p)[world.pending[p]]
            if world.phase != OVER and world.round > 0:  # nobody was complete at the last check
                counts = world.counts[p][:]
                if world.played[p] >= 0:
                    counts[world.played[p] % 13] += 1
                assert 0 in counts
        for _ in range(4):  # a live state: the game goes on from it
            if world.current_player < 0:
                break
            legal = np.flatnonzero(rules.legal_mask(world))
            rules.apply(world, int(legal[rng.integers(len(legal))]))
        checked += 1
        if checked >= limit:
            break
    return checked


@pytest.mark.parametrize("cfg", collector_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation(cfg):
    assert round_trip(collector_v0, cfg, games=1, seed=21, every=7) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("cfg", collector_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation_many(cfg):
    assert round_trip(collector_v0, cfg, games=30, seed=22, every=3, limit=500) >= 300


# ------------------------------------------------------------------ (b) the posterior
def _unseen(v) -> int:
    return sum(v.hand_sizes[1:]) - sum(sum(k) for k in v.known_cards[1:]) + v.stock_size - len(v.stock_known)


def posterior_case(module, cfg: dict, max_unseen: int, seeds=range(40)):
    """The first state of seeded random play (any seat, the game going on) with at most
    ``max_unseen`` unseen cards where "nobody complete" excludes some placements: (env's
    rules, observation, seat, true state, law, law ignoring the constraint)."""
    game = "collector" if module is collector_v0 else "hot"
    for seed in seeds:
        env = module.env(**cfg)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter(3000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            s = env.unwrapped.game_state
            if s.round > 0:
                for seat, a in enumerate(env.possible_agents):
                    x = env.observe(a)["observation"]
                    v = view_mod.decode(x, game)
                    if 0 < _unseen(v) <= max_unseen and _someone_at_risk(v):
                        law, blind = brute_force(env.unwrapped, x, seat, s)
                        if len(law) >= 3 and set(blind) - set(law):
                            brute_force(env.unwrapped, x, seat, s, spot_check=50)
                            return env.unwrapped.rules, x, seat, s.copy(), law, blind
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raise AssertionError("no state found where the 'nobody complete' constraint binds")


def _someone_at_risk(v) -> bool:
    """Whether an opponent's unknown cards are as many as the ranks its known ones lack."""
    for p in range(1, v.num_players):
        have = [v.known_cards[p][r] > 0 or v.played[p] == r for r in range(NUM_RANKS)]
        if NUM_RANKS - sum(have) <= v.hand_sizes[p] - sum(v.known_cards[p]):
            return True
    return False


def statistic(world) -> tuple:
    """Where the unseen ranks lie (observer frame): each opponent's hand beyond its known
    cards, then the never-seen top of the stock in order."""
    n = world.num_players
    hidden = tuple(
        tuple(r for r in range(NUM_RANKS) for _ in range(world.counts[p][r] - world.known_counts[p][r]))
        for p in range(1, n)
    )
    return hidden + (tuple(c % 13 for c in islice(world.stock, world.stock_unknown)),)


def brute_force(raw, x, seat: int, truth, spot_check: int = 0) -> tuple[Counter, Counter]:
    """Every permutation of the unseen cards over their places (the opponents' unknown hand
    parts, the stock's top): the law of :func:`statistic` over the placements that keep the
    observation and leave every opponent incomplete, and over all placements."""
    n = truth.num_players
    others = [(seat + k) % n for k in range(1, n)]
    places, cards = [], []
    for p in others:
        known = list(truth.known[p])
        part = []
        for c in truth.hands[p]:
            if c in known:
                known.remove(c)
            else:
                part.append(c)
        places.append((p, len(part)))
        cards += part
    top = list(islice(truth.stock, truth.stock_unknown))
    tail = list(islice(truth.stock, truth.stock_unknown, None))
    cards += top
    law, blind = Counter(), Counter()
    fixed = {}
    for p, _ in places:
        counts = [0] * NUM_RANKS
        for c in truth.known[p]:
            counts[c % 13] += 1
        if truth.played[p] >= 0:
            counts[truth.played[p] % 13] += 1
        fixed[p] = counts
    for t, perm in enumerate(sorted(set(permutations([c % 13 for c in cards])))):  # ranks: suits never matter
        ok = True
        for (p, _), (j, k) in zip(places, _starts(places)):
            counts = fixed[p][:]
            for r in perm[j : j + k]:
                counts[r] += 1
            ok &= 0 in counts  # the hand (with its card on the table) lacks a rank
        if t < spot_check:  # the placement keeps the observation (only unseen cards moved): check some
            w = truth.copy()
            for (p, _), (j, k) in zip(places, _starts(places)):
                w.hands[p] = list(perm[j : j + k]) + list(truth.known[p])
                w.counts[p] = [0] * NUM_RANKS
                for c in w.hands[p]:
                    w.counts[p][c % 13] += 1
            w.stock = type(truth.stock)(list(perm[sum(k for _, k in places):]) + tail)
            assert raw._encode(w, seat).tobytes() == x.tobytes()
        i = sum(k for _, k in places)
        # in the observer's frame: opponents clockwise from the observer, then the stock top;
        # every rank sequence stands for the same number of physical placements
        key = tuple(tuple(sorted(perm[j : j + k])) for j, k in _starts(places)) + (tuple(perm[i:]),)
        blind[key] += 1
        if ok:
            law[key] += 1
    return _normalised(law), _normalised(blind)


def _starts(places):
    i = 0
    for _, k in places:
        yield i, k
        i += k


def _normalised(c: Counter) -> Counter:
    total = sum(c.values())
    return Counter({k: v / total for k, v in c.items()})


def check_posterior(module, cfg, max_unseen, monkeypatch, seed: int) -> None:
    rules, x, seat, truth, law, blind = posterior_case(module, cfg, max_unseen)
    n = max(40 * len(law), 1500)
    rng = np.random.default_rng(seed)
    samples = Counter(statistic(module.sample_world(x, rng, **cfg)) for _ in range(n))
    stat, crit = chi_square(samples, law)
    assert stat < crit, f"chi-square {stat:.1f} >= {crit:.1f}: the worlds do not follow the posterior"
    # the exact programme alone (the fallback after rejections), on the same case
    monkeypatch.setattr(worlds_mod, "REJECTIONS", 0)
    exact = Counter(statistic(module.sample_world(x, rng, **cfg)) for _ in range(n))
    stat, crit = chi_square(exact, law)
    assert stat < crit, f"the exact programme: chi-square {stat:.1f} >= {crit:.1f}"
    # negative control: a placement ignoring "nobody complete" (a plain shuffle) leaves the support
    keys = list(blind)
    drawn = rng.choice(len(keys), size=n, p=[blind[k] for k in keys])
    with pytest.raises(AssertionError, match="never gives"):
        chi_square(Counter(keys[i] for i in drawn), law)


def test_sampled_worlds_follow_the_exact_posterior(monkeypatch):
    check_posterior(collector_v0, {"num_players": 3, "hand_size": 12}, 6, monkeypatch, seed=5)
