"""Guillotine determinization: ``guillotine_v0.sample_world`` from the observation alone.

(a) sampled worlds give back the observation byte for byte, hold the 32 cards and play on;
(b) they follow the exact posterior: every deal that replays the recorded history to the same
observation, found by brute force, checked with a chi-square test (a sampler that ignores the
voids fails it; under ``-m slow``, so does the greedy card-by-card deal of ``resample_hidden``);
and a single deal's observation is refused with the full game's options. The signature, twin
states and generic bad input are the conformance suite's (``tests/conformance/test_worlds.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from card_envs import guillotine_v0
from card_envs.guillotine import rules as grules
from card_envs.guillotine.view import Codec, view
from card_envs.guillotine.worlds import playable_cards
from tests.cases import guillotine as guillotine_cases
from tests.cases import resample_hidden
from tests.conformance.worlds import random_observations
from tests.worlds.checks import chi_square

CODEC = Codec()


def _rotate(values: list, seat: int) -> list:
    return values[seat:] + values[:seat]


def _round_trip(cfg: dict, games: int, seed: int, every: int, limit: int = 10**9) -> int:
    rng = np.random.default_rng(seed)
    checked = 0
    for env, seat, x in random_observations(guillotine_v0, cfg, games, seed, every):
        rules, truth = env.unwrapped.rules, env.unwrapped.game_state
        world = guillotine_v0.sample_world(x, rng, **cfg)
        assert CODEC.encode(view(world, 0)).tobytes() == x.tobytes(), f"seat {seat}: the observation differs"
        census = sorted(c for zone in rules.zones(world).values() for c in zone)
        assert census == sorted(rules.deck()), "the sampled world's cards are not the deck"
        # the public facts rebuilt from the observation are the true ones (seen from the observer)
        assert world.playable == truth.playable and world.table == truth.table
        assert world.tricks_done == truth.tricks_done and world.tricks_won == _rotate(truth.tricks_won, seat)
        assert world.first_dealer == (truth.first_dealer - seat) % 4
        if truth.phase != grules.OVER:
            assert world.leader == (-1 if truth.leader < 0 else (truth.leader - seat) % 4)
        for p in range(1, 4):  # nobody holds a card it is publicly known to lack
            assert not world.hands[p] & world.absent[p]
        for _ in range(3):  # a live state: the game goes on from it
            if world.current_player < 0:
                break
            legal = np.flatnonzero(rules.legal_mask(world))
            rules.apply(world, int(legal[rng.integers(len(legal))]))
        checked += 1
        if checked >= limit:
            break
    return checked


@pytest.mark.parametrize("cfg", guillotine_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation(cfg):
    # single deals: 1 game, every 3rd step; full games are long: every 40th step
    every = 3 if cfg.get("mode") == "single" else 40
    assert _round_trip(cfg, games=1, seed=11, every=every) >= 40


@pytest.mark.slow
@pytest.mark.parametrize("cfg", guillotine_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation_many(cfg):
    every = 1 if cfg.get("mode") == "single" else 5
    assert _round_trip(cfg, games=8 if every == 1 else 2, seed=12, every=every, limit=1000) >= 800


def test_playable_cards_follow_the_domino_rows():
    # 8h opened (anchor 8): the other eights, and 7h / 9h
    eight_h = 8 * 2 + grules.EIGHT
    expected = {8 * s + grules.EIGHT for s in (0, 1, 3)} | {eight_h - 1, eight_h + 1}
    assert set(grules.cards_of(playable_cards(1 << eight_h, grules.EIGHT))) == expected
    assert playable_cards(0, -1) == 0


# ------------------------------------------------------------------ (b) the posterior
POSTERIOR_CFG = {"mode": "single", "contract": "spades", "first_dealer": 0}


def _deck_from_hands(initial: list[int], dealer: int) -> list[int]:
    """The stacked deck (cards.py ints, top first) that deals ``initial`` (absolute seats)."""
    cards = [grules.cards_of(h) for h in initial]
    used = [0] * 4
    deck = []
    for k in range(grules.NUM_CARDS):
        p = (dealer + 1 + k) % 4
        deck.append(grules.DECK_CARD[cards[p][used[p]]])
        used[p] += 1
    return deck


def _posterior_case(min_voids: int):
    """A state of seeded random play with few hidden cards where public voids bind, with its
    history: (rules, observation of the observer, observer seat, history, true state)."""
    rules = grules.GuillotineRules(**POSTERIOR_CFG)
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = rules.new_game(np.random.default_rng(seed))
        history = []
        while s.phase != grules.OVER:
            seat = (s.current_player + 1) % 4  # an observer not to act
            hidden = sum(s.hands[p].bit_count() for p in range(4) if p != seat)
            voids = sum(1 for p in range(4) if p != seat and s.absent[p] & sum(s.hands[q] for q in range(4) if q != seat))
            if 5 <= hidden <= 7 and voids >= min_voids:
                return rules, CODEC.encode(view(s, seat)), seat, history, s
            legal = np.flatnonzero(rules.legal_mask(s))
            a = int(legal[rng.integers(len(legal))])
            history.append(a)
            rules.apply(s, a)
    raise AssertionError("no state with binding voids found")


def _brute_force(rules, x, seat, history, truth) -> Counter:
    """Every split of the hidden cards over the three other hands (their sizes) whose deal
    replays ``history`` legally to the same observation: the law of the split (observer frame)."""
    others = [(seat + k) % 4 for k in (1, 2, 3)]
    pool = grules.cards_of(sum(truth.hands[p] for p in others))
    sizes = [truth.hands[p].bit_count() for p in others]
    law = Counter()
    for first in combinations(pool, sizes[0]):
        rest = [c for c in pool if c not in first]
        for second in combinations(rest, sizes[1]):
            third = [c for c in rest if c not in second]
            hands = [sum(1 << c for c in part) for part in (first, second, third)]
            initial = [0] * 4
            initial[seat] = truth.hands[seat] | truth.played[seat]
            for p, h in zip(others, hands):
                initial[p] = h | truth.played[p]
            s = rules.new_game(np.random.default_rng(0), _deck_from_hands(initial, truth.dealer))
            ok = True
            for a in history:
                if not rules.legal_mask(s)[a]:
                    ok = False
                    break
                rules.apply(s, a)
            if ok and CODEC.encode(view(s, seat)).tobytes() == x.tobytes():
                law[tuple(hands)] += 1
    total = sum(law.values())
    return Counter({k: v / total for k, v in law.items()})


def _split(world) -> tuple[int, int, int]:
    return tuple(world.hands[1:])


@pytest.mark.parametrize("min_voids", [1, 2], ids=["one void", "coupled voids"])
def test_sampled_worlds_follow_the_exact_posterior(min_voids):
    rules, x, seat, history, truth = _posterior_case(min_voids)
    law = _brute_force(rules, x, seat, history, truth)
    pool = grules.cards_of(sum(truth.hands[(seat + k) % 4] for k in (1, 2, 3)))
    sizes = [truth.hands[(seat + k) % 4].bit_count() for k in (1, 2, 3)]
    unconstrained = math.factorial(len(pool)) // math.prod(math.factorial(k) for k in sizes)
    assert 2 <= len(law) < unconstrained, "the voids do not bind: the case tests nothing"
    n = max(40 * len(law), 2000)
    rng = np.random.default_rng(min_voids)
    samples = Counter(_split(guillotine_v0.sample_world(x, rng, **POSTERIOR_CFG)) for _ in range(n))
    stat, crit = chi_square(samples, law)
    assert stat < crit, f"chi-square {stat:.1f} >= {crit:.1f}: the worlds do not follow the posterior"

    # negative control: a deal that ignores the voids leaves the support
    blind = Counter()
    for _ in range(n):
        order = [pool[i] for i in rng.permutation(len(pool))]
        blind[(sum(1 << c for c in order[: sizes[0]]), sum(1 << c for c in order[sizes[0] : sizes[0] + sizes[1]]),
               sum(1 << c for c in order[sizes[0] + sizes[1] :]))] += 1
    with pytest.raises(AssertionError, match="never gives"):
        chi_square(blind, law)


@pytest.mark.slow
def test_a_greedy_deal_keeping_the_voids_fails_the_posterior_test():
    """The second negative control: ``resample_hidden`` (tests/cases) deals card by card to a
    random player that may still take it (Hall's condition kept): always consistent, not
    uniform over the consistent deals when voids couple. The same chi-square test tells it
    apart."""
    rules, x, seat, history, truth = _posterior_case(2)
    law = _brute_force(rules, x, seat, history, truth)
    rng = np.random.default_rng(8)
    n = 16000
    greedy = Counter(tuple(_rotate(resample_hidden(rules, truth, seat, rng).hands, seat)[1:]) for _ in range(n))
    g_stat, g_crit = chi_square(greedy, law)
    assert g_stat > g_crit, "the greedy deal passed: the test cannot tell a biased sampler"
    exact = Counter(_split(guillotine_v0.sample_world(x, rng, **POSTERIOR_CFG)) for _ in range(n))
    stat, crit = chi_square(exact, law)
    assert stat < crit


# --------------------------------------------------------------- bad input
def test_a_single_deals_observation_with_the_full_games_options_is_refused():
    env = guillotine_v0.env(mode="single")
    env.reset(seed=1)
    obs = env.observe("player_0")
    with pytest.raises(ValueError, match="deal"):
        guillotine_v0.sample_world(obs, np.random.default_rng(0))
