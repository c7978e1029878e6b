"""Copies keep the environment's behaviour, ``env()``'s included.

SuperSuit's vector wrappers cloudpickle every environment; a policy that ignores the mask must
then still get env()'s -1 for an illegal move, not a crash, and raw_env() must still raise. A copy
of a running game continues that game exactly as the original does.
"""

from __future__ import annotations

import copy
import pickle

import cloudpickle
import numpy as np
import pytest

from card_envs.base import IllegalActionError
from tests.conformance.cases import FIRST_CASES, random_action

COPIERS = {
    "pickle": lambda e: pickle.loads(pickle.dumps(e)),
    "deepcopy": copy.deepcopy,
    "cloudpickle": lambda e: cloudpickle.loads(cloudpickle.dumps(e)),
}


def _illegal_action(env):
    obs = env.observe(env.agent_selection)
    illegal = np.flatnonzero(obs["action_mask"] == 0)
    return int(illegal[0]) if len(illegal) else None


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_a_copied_env_still_ends_the_game_on_an_illegal_action(module, config, how):
    env = COPIERS[how](module.env(**config))
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):  # find a moment with an illegal action (most games have one at once)
        bad = _illegal_action(env)
        if bad is not None:
            break
        env.step(random_action(env.observe(env.agent_selection), rng))
    assert bad is not None
    mover = env.agent_selection
    env.step(bad)  # PettingZoo's EnvLogger warns; the game ends
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert env._cumulative_rewards[mover] == -1


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_a_copied_raw_env_still_raises_on_an_illegal_action(module, config, how):
    env = COPIERS[how](module.raw_env(**config))
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        bad = _illegal_action(env)
        if bad is not None:
            break
        env.step(random_action(env.observe(env.agent_selection), rng))
    before = env.observe(env.agent_selection)["observation"].copy()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(env.observe(env.agent_selection)["observation"], before)


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_a_copy_of_a_running_game_continues_that_game(module, config, how):
    env = module.env(**config)
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(15):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(random_action(env.observe(env.agent_selection), rng))
    twin = COPIERS[how](env)
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    for a, b in zip(env.agent_iter(5000), twin.agent_iter(5000)):
        assert a == b
        obs_a, rew_a, term_a, trunc_a, info_a = env.last()
        obs_b, rew_b, term_b, trunc_b, info_b = twin.last()
        assert obs_a["observation"].tobytes() == obs_b["observation"].tobytes()
        assert obs_a["action_mask"].tobytes() == obs_b["action_mask"].tobytes()
        assert (rew_a, term_a, trunc_a, info_a) == (rew_b, term_b, trunc_b, info_b)
        done = term_a or trunc_a
        env.step(None if done else random_action(obs_a, rng_a))
        twin.step(None if done else random_action(obs_b, rng_b))
    assert not env.agents and not twin.agents
    # and a reset of the copy from a seed plays the same new game as the original
    env.reset(seed=5)
    twin.reset(seed=5)
    assert env.observe(env.agent_selection)["observation"].tobytes() == twin.observe(twin.agent_selection)["observation"].tobytes()
