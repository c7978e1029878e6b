"""Nothing hidden may shape what happens next.

For every game and configuration: at each step of random games, every observer other than the
actor, twin worlds resampled from what it cannot see, the same action applied; who acts next and
everything the observer sees afterwards must be identical (see ``tests/conformance/process.py``).
Each game's rare branches (``RARE_BRANCHES`` in ``tests/cases/<game>.py``) must be reached and
checked. A negative control plants a leak (a hidden card decides who acts next) and the property
must catch it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import card_envs
from card_envs.golf.rules import GolfRules
from card_envs.golf_v0 import raw_env as GolfEnv
from tests import cases
from tests.conformance.process import check_process

#: random games per configuration in the default suite, and in the slow (CI) run
PROCESS_GAMES = int(os.environ.get("CARD_ENVS_PROCESS_GAMES", "4"))
SLOW_PROCESS_GAMES = 6


def _process_cases():
    for name, module in card_envs.ENVIRONMENTS.items():
        yield from cases.parameters(name, lambda c, name=name, module=module: [
            pytest.param(module, getattr(c, "PROCESS_CONFIGS", c.CONFORMANCE_CONFIGS), id=name)], arity=2)


@pytest.mark.parametrize("module, configs", list(_process_cases()))
def test_no_hidden_card_shapes_what_an_observer_sees_next(module, configs):
    _check_module(module, configs, PROCESS_GAMES, first_seed=0)


@pytest.mark.slow
@pytest.mark.parametrize("module, configs", list(_process_cases()))
def test_no_hidden_card_shapes_what_an_observer_sees_next_in_many_games(module, configs):
    _check_module(module, configs, SLOW_PROCESS_GAMES, first_seed=100_000)


def _check_module(module, configs, games, first_seed):
    branches = getattr(cases.of(module), "RARE_BRANCHES", {})
    reached = {name: 0 for name in branches}
    checked = differently = 0
    for k, config in enumerate(configs):
        env = module.raw_env(**config)
        seeds = range(first_seed + 1000 * k, first_seed + 1000 * k + games)
        report = check_process(env, seeds, branches=branches, rng_seed=first_seed + k)
        assert report.violation is None, f"{config}: {report.violation}"
        checked += report.checked
        differently += report.resampled_differently
        for name, count in report.branches.items():
            reached[name] += count
    assert checked > 0 and differently > 0, "no twin world differed from the truth: the test proves nothing"
    missing = [name for name, count in reached.items() if count == 0]
    assert not missing, f"rare branches never reached, so never checked: {missing}"


class _LeakyGolfRules(GolfRules):
    """A planted leak: when the stock's top card (hidden from everyone) is a heart, the next
    player's turn is skipped, so who acts next depends on a card nobody has seen."""

    def apply(self, s, action):
        out = super().apply(s, action)
        if not (s.terminated or s.truncated) and s.stock and s.stock[-1] // 13 == 2 and s.phase == 1:
            s.current_player = (s.current_player + 1) % self.num_players
            self._start_turn(s, s.current_player)
        return out


class _LeakyGolfEnv(GolfEnv):
    Rules = _LeakyGolfRules


def test_a_planted_leak_in_who_acts_next_is_caught():
    env = _LeakyGolfEnv(num_players=3, num_rounds=1)
    report = check_process(env, range(3))
    assert report.violation is not None, "the property missed a leak that decides who acts next"
    assert "next to act" in report.violation


def test_the_unleaky_control_passes_on_the_same_games():
    env = GolfEnv(num_players=3, num_rounds=1)
    report = check_process(env, range(3))
    assert report.violation is None, report.violation
    assert report.checked > 100
