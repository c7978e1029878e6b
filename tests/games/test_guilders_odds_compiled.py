"""The compiled odds (``card_envs/guilders/odds_kernels.py``, the float path of
``odds.draw_probabilities``) give the reference's floats bit for bit (``compiled=False``, the
readable programme of ``odds.py``), on the positions of real games, so the heuristic chooses the
same call from either."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from agents.heuristics import guilders as heuristic
from card_envs import guilders_v0
from card_envs.guilders import odds, odds_kernels
from card_envs.guilders.view import match_probabilities

CONFIGS = [
    {"num_players": 2},  # guilders_v0 as trained
    {"num_players": 3, "refan_discards": 1},
    {"num_players": 4},
    {"num_players": 3, "num_decks": 2},
    {"num_players": 3, "good_joker": True},  # the jokers may miss: the joker column
    {"num_players": 2, "evil_joker": True, "good_joker": True},
    {"num_players": 3, "chaotic_joker": True},
    {"num_players": 2, "public_discards": True},  # no hidden miss: the counts alone
]


def _positions(config, games, seed):
    """(view, mask) of every seat at every turn of ``games`` games, half the moves the
    heuristic's and half random (more kinds of positions), with the rules."""
    env = guilders_v0.raw_env(**config)
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        env.reset(seed=seed * 100 + g)
        for actor in env.agent_iter():
            if env.terminations[actor] or env.truncations[actor]:
                env.step(None)
                continue
            for agent in env.agents:
                o = env.observe(agent)
                out.append((env.decode(o["observation"]), o["action_mask"], agent == actor))
                if agent == actor:
                    v, mask = out[-1][:2]
            a = heuristic.choose(v, mask, env.rules, rng) if rng.random() < 0.5 else int(rng.choice(np.flatnonzero(mask)))
            env.step(a)
    return env.rules, out


def _counts(v):
    misses = v.miss_calls - v.own_miss_calls if v.unknown_discards > 0 else np.zeros(70, dtype=np.int64)
    return v.unseen, misses


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_the_compiled_odds_are_the_references_floats_and_the_heuristic_chooses_the_same(config, monkeypatch):
    rules, positions = _positions(config, games=2, seed=len(str(config)))
    reference = functools.partial(odds.draw_probabilities, compiled=False)
    hidden = acted = 0
    for v, mask, to_act in positions:
        unseen, misses = _counts(v)
        fast = odds.draw_probabilities(unseen, misses, v.jokers_can_miss)
        slow = reference(unseen, misses, v.jokers_can_miss)
        assert fast.tobytes() == slow.tobytes(), (config, unseen.tolist(), misses.tolist())
        assert v.match_probabilities().tobytes() == match_probabilities(slow).tobytes()
        hidden += int(misses.sum() > 0)
        if to_act:
            want = heuristic.choose(v, mask, rules, None)
            with monkeypatch.context() as m:
                m.setattr(odds, "draw_probabilities", reference)
                assert heuristic.choose(v, mask, rules, None) == want
            acted += 1
    assert acted > 40
    if not config.get("public_discards"):
        assert hidden > len(positions) // 3  # the counting programme ran, often


def test_the_compiled_odds_keep_their_floats_when_their_tables_grow_and_start_again(monkeypatch):
    """A hash table of 8 slots (rehashed as it fills) and at most 40 columns kept (the tables
    start again past it): the same floats."""
    tables = odds_kernels._Tables()
    tables.slots = tables.slots[:8]
    monkeypatch.setattr(odds_kernels, "_TABLES", tables)
    monkeypatch.setattr(odds_kernels._Tables, "MAX_COLUMNS", 40)
    _, positions = _positions({"num_players": 3, "good_joker": True}, games=1, seed=5)
    cleared = 0
    for v, _, _ in positions[::3]:
        unseen, misses = _counts(v)
        before = tables.columns
        got = odds_kernels.probabilities(unseen.astype(np.int64), misses.astype(np.int64), v.jokers_can_miss)
        cleared += tables.columns < before
        assert got.tobytes() == odds.draw_probabilities(unseen, misses, v.jokers_can_miss, compiled=False).tobytes()
    assert cleared and len(tables.slots) > 8


def test_the_compiled_odds_treat_the_edges_as_the_reference_does():
    unseen = np.zeros(54, dtype=np.int64)
    misses = np.zeros(70, dtype=np.int64)
    unseen[[0, 13, 26, 52]] = 1
    misses[2] = 1  # one miss on hearts, among 4 cards (the joker may miss with good_joker alone)
    for jokers_can_miss in (False, True):
        for u, m in ((unseen, misses), (unseen, 0 * misses), (0 * unseen, 0 * misses), (unseen, 4 * misses)):
            fast = odds.draw_probabilities(u, m, jokers_can_miss)
            slow = odds.draw_probabilities(u, m, jokers_can_miss, compiled=False)
            assert fast.tobytes() == slow.tobytes()
    negative = unseen.copy()
    negative[1] = -1  # a count no game makes: the reference's answer
    with np.errstate(all="ignore"):
        assert np.array_equal(odds.draw_probabilities(negative, misses, False),
                              odds.draw_probabilities(negative, misses, False, compiled=False), equal_nan=True)
    # four decks: 1 / falling(n0, k) is past the float range, where the reference raises
    four_decks = np.full(54, 4, dtype=np.int64)
    four_decks[52:] = 0
    misses = np.zeros(70, dtype=np.int64)
    misses[4] = 1
    for compiled in (True, False):
        with pytest.raises(OverflowError):
            odds.draw_probabilities(four_decks, misses, False, compiled=compiled)
    # the result is the caller's to change; the cache keeps its own
    p = odds.draw_probabilities(unseen, 0 * misses, False)
    p[:] = 7
    assert odds.draw_probabilities(unseen, 0 * misses, False)[0] == 0.25
