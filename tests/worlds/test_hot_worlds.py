"""Hot determinization: ``hot_v0.sample_world`` from the observation alone.

Hot runs Collector's engine, view and sampler, so the checks are Collector's
(``tests/worlds/test_collector_worlds.py``) on Hot's configurations: (a) the round trip, the
deck and the public facts (with Hot's totals, dealer and deals) over random play; (b) the exact
posterior by brute force and a chi-square test, for the rejection sampler and its exact
fallback, with a negative control; (c) no env in the signature, identical samples from twin
states.
"""

from __future__ import annotations

import pytest

from card_envs import hot_v0
from tests.cases import hot as hot_cases
from tests.worlds.checks import check_signature
from tests.worlds.test_collector_worlds import check_bad_input, check_posterior, check_twins, round_trip


@pytest.mark.parametrize("cfg", hot_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation(cfg):
    assert round_trip(hot_v0, cfg, games=1, seed=31, every=20) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("cfg", hot_cases.CONFORMANCE_CONFIGS, ids=str)
def test_sampled_worlds_give_back_the_observation_many(cfg):
    assert round_trip(hot_v0, cfg, games=30, seed=32, every=3, limit=500) >= 300


def test_sampled_worlds_follow_the_exact_posterior(monkeypatch):
    check_posterior(hot_v0, {"num_players": 3, "hand_size": 12, "single_deal": True}, 6, monkeypatch, seed=7)


def test_it_takes_no_env_and_no_state():
    check_signature(hot_v0.sample_world)
    assert "sample_world" in hot_v0.__all__


def test_twin_states_give_identical_samples():
    check_twins(hot_v0, {"num_players": 3}, seed=8)


def test_bad_input_is_a_value_error():
    check_bad_input(hot_v0, {"num_players": 2})
