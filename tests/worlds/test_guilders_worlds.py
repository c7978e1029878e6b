"""Guilders determinization: ``guilders_v0.sample_world`` follows the exact posterior, by rejection
and by its exact sequential draw (the round trip, the signature and bad input are the
conformance suite's, ``tests/conformance/test_worlds.py``)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import card_envs.guilders.worlds as worlds
from card_envs import guilders_v0
from card_envs.guilders.view import view
from tests.cases import guilders as guilders_cases
from tests.cases import resample_hidden
from tests.conformance.worlds import check_round_trip
from tests.worlds.checks import brute_force, chi_square, rejects, state_where

CONFIGS = [pytest.param(dict(c), id=",".join(f"{k}={v}" for k, v in c.items())) for c in guilders_cases.CONFORMANCE_CONFIGS]


def suit_caller(env, obs, rng):
    """Mostly suit calls (the strongest constraint a miss leaves), else any legal call."""
    if rng.random() < 0.7:
        return int(rng.integers(4))
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("cfg", CONFIGS[:1] + CONFIGS[5:6])
def test_a_exact_sequential_draw_gives_back_the_observation(cfg, monkeypatch):
    """With no rejection proposal every sample takes the exact sequential draw."""
    monkeypatch.setattr(worlds, "PROPOSALS", 0)
    assert check_round_trip(guilders_v0, cfg, games=1, seed=3, every=4 * cfg["num_players"]) >= 10


# -------------------------------------------------------------- the posterior
def _small_state():
    """3 players with the evil joker, late in the fan (at most 4 cards left), after mostly
    suit calls; all but the last three of the others' face-down misses (the observer is the
    player to act) are moved to the cards the evil joker took out of the game, so that the
    hidden cards (fan + those misses) are few enough to enumerate."""
    cfg = {"num_players": 3, "evil_joker": True}

    def late(s):
        o = s.current_player
        others = [i for i, b in enumerate(s.discard_by) if b != o]
        return len(s.fan) <= 4 and len(others) >= 3 and s.fan and any(c < 52 for c in s.fan)

    env = state_where(guilders_v0, cfg, 6, late, policy=suit_caller)
    s = env.unwrapped.game_state
    o = s.current_player
    others = [i for i, b in enumerate(s.discard_by) if b != o]
    drop = set(others[:-3])
    last = s.last_place
    keep = [i for i in range(len(s.discards)) if i not in drop]
    for i in sorted(drop):
        c = s.discards[i]
        s.lost.append(c)
        s.lost_counts[c] += 1
    s.discards = [s.discards[i] for i in keep]
    s.discard_by = [s.discard_by[i] for i in keep]
    s.discard_call = [s.discard_call[i] for i in keep]
    s.discard_counts = np.bincount(np.array(s.discards, dtype=np.int64), minlength=54)
    s.known[:] = 0
    s.miss_calls[:] = 0
    for c, b, a in zip(s.discards, s.discard_by, s.discard_call):
        s.known[b, c] += 1
        s.miss_calls[b, a] += 1
    env.unwrapped.rules.index_piles(s)
    if last is not None and last[0] == "discards":
        s.last_place = ("discards", keep.index(last[1]))
    return env, cfg, s, o


def _posterior_case():
    env, cfg, s, o = _small_state()
    rules = env.unwrapped.rules
    hidden = [i for i, b in enumerate(s.discard_by) if b != o]
    m = len(s.fan)
    cards = list(s.fan) + [s.discards[i] for i in hidden]
    calls = [s.discard_call[i] for i in hidden]

    def consistent(arr):
        return all(rules.can_miss(a, c) for a, c in zip(calls, arr[m:]))

    def suit(c):
        return 4 if c >= 52 else c // 13

    def statistic(arr):  # the suit of the next draw, and each hidden miss's call and suit
        return (suit(arr[m - 1]), tuple(sorted((a, suit(c)) for a, c in zip(calls, arr[m:]))))

    def world_statistic(w):
        misses = [(a, suit(c)) for c, b, a in zip(w.discards, w.discard_by, w.discard_call) if b != 0]
        return (suit(w.fan[-1]), tuple(sorted(misses)))

    law = brute_force(list(range(len(cards))), cards, consistent, statistic)
    x = env.unwrapped._codec.encode(view(s, o))
    return cfg, x, cards, statistic, world_statistic, law


@pytest.mark.parametrize("proposals", [worlds.PROPOSALS, 0], ids=["rejection", "sequential"])
def test_b_posterior_keeps_every_face_down_miss_consistent(proposals, monkeypatch):
    """Brute force over every arrangement of the hidden cards (the fan and the others'
    face-down misses) in which each miss fails its call, against sampled worlds, for both of
    the sampler's exact branches; a sampler ignoring the calls fails the same test."""
    monkeypatch.setattr(worlds, "PROPOSALS", proposals)
    cfg, x, cards, statistic, world_statistic, law = _posterior_case()
    rng = np.random.default_rng(5)
    got = Counter(world_statistic(guilders_v0.sample_world(x, rng, **cfg)) for _ in range(3000))
    value, critical = chi_square(got, law)
    assert value < critical, (value, critical)
    bad = Counter(statistic([cards[i] for i in rng.permutation(len(cards))]) for _ in range(3000))
    assert rejects(bad, law)


def test_c_never_reads_the_true_state():
    """Two true states with the same observation (the fan and the others' face-down misses
    rearranged, after mostly suit calls) give the same world for the same seed."""
    cfg = {"num_players": 3}
    env = state_where(guilders_v0, cfg, 8, lambda s: s.turn >= 20, policy=suit_caller)
    s = env.unwrapped.game_state
    rules, codec = env.unwrapped.rules, env.unwrapped._codec
    for seat in range(3):
        other = resample_hidden(rules, s, seat, np.random.default_rng(seat + 1))
        x, y = codec.encode(view(s, seat)), codec.encode(view(other, seat))
        assert x.tobytes() == y.tobytes()
        assert rules.zones(other) != rules.zones(s)
        a = guilders_v0.sample_world(x, np.random.default_rng(4), **cfg)
        b = guilders_v0.sample_world(y.copy(), np.random.default_rng(4), **cfg)
        assert rules.zones(a) == rules.zones(b)
        assert a.discard_by == b.discard_by and a.discard_call == b.discard_call
