"""Hot determinization: ``hot_v0.sample_world`` from the observation alone.

Hot runs Collector's engine, view and sampler, so the checks are Collector's
(``tests/worlds/test_collector_worlds.py``) on Hot's configurations: (a) the round trip, the
deck and the public facts (with Hot's totals, dealer and deals) over random play; (b) the exact
posterior by brute force and a chi-square test, for the rejection sampler and its exact
fallback, with a negative control. The signature, twin states and bad input are the conformance
suite's (``tests/conformance/test_worlds.py``).
"""

from __future__ import annotations

import pytest

from card_envs import hot_v0
from tests.cases import hot as hot_cases
from tests.worlds.test_collector_worlds import check_posterior, round_trip


@pytest.mark.parametrize("cfg", hot_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation(cfg):
    assert round_trip(hot_v0, cfg, games=1, seed=31, every=20) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("cfg", hot_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation_many(cfg):
    assert round_trip(hot_v0, cfg, games=30, seed=32, every=3, limit=500) >= 300


def test_sampled_worlds_follow_the_exact_posterior(monkeypatch):
    check_posterior(hot_v0, {"num_players": 3, "hand_size": 12, "single_deal": True}, 6, monkeypatch, seed=7)
