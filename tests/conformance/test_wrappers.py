"""env() implements PettingZoo classic's three wrappers natively; this proves it behaves as
raw_env() wrapped in TerminateIllegalWrapper, AssertOutOfBoundsWrapper and OrderEnforcingWrapper."""

import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from tests.conformance.cases import FIRST_CASES, STEP_CAP, random_action


def wrapped(module, config):
    e = module.raw_env(**config)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def record(env, seed, illegal_at):
    """Random legal play, with an illegal action at step ``illegal_at``; every observable."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for i, agent in enumerate(env.agent_iter(STEP_CAP)):
        obs, reward, term, trunc, info = env.last()
        # After an illegal move the wrapped raw env still reports the old mask for the dead
        # agent; card_envs reports all zeros for every done agent (checked below). Only live
        # masks are compared.
        mask = None if term or trunc else obs["action_mask"].tobytes()
        out.append((agent, obs["observation"].tobytes(), mask, reward, term, trunc))
        if term or trunc:
            action = None
        elif i == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = random_action(obs, rng)
        env.step(action)
        out.append((dict(env.rewards), dict(env._cumulative_rewards) if hasattr(env, "_cumulative_rewards") else None))
    return out


@pytest.mark.parametrize("module, config", FIRST_CASES)
@pytest.mark.parametrize("illegal_at", [None, 0, 5])
def test_env_behaves_as_the_pettingzoo_wrappers(module, config, illegal_at):
    for seed in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = record(module.env(**config), seed, illegal_at)
            theirs = record(wrapped(module, config), seed, illegal_at)
        assert mine == theirs


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_an_illegal_action_ends_the_game_with_minus_one_for_the_mover(module, config, caplog):
    env = module.env(**config)
    env.reset(seed=3)
    mover = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
    env.step(illegal)
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values())
    assert env._cumulative_rewards[mover] == -1
    assert all(v == 0 for a, v in env._cumulative_rewards.items() if a != mover)
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents), "done agents have no legal action"


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_acting_or_observing_before_reset_is_an_error_as_with_the_wrappers(module, config):
    for env in (module.env(**config), wrapped(module, config)):
        with pytest.raises(AssertionError, match="reset"):
            env.step(0)
        with pytest.raises(AssertionError, match="reset"):
            env.observe(env.possible_agents[0])


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_an_out_of_range_action_is_an_error_as_with_the_wrappers(module, config):
    for env in (module.env(**config), wrapped(module, config)):
        env.reset(seed=0)
        n = env.action_space(env.agent_selection).n
        with pytest.raises(AssertionError):
            env.step(n)
