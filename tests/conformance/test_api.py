"""PettingZoo's own API and seed tests, for every environment and configuration."""

import warnings

import pytest
from pettingzoo.test import api_test, seed_test

from tests.conformance.cases import CASES


@pytest.mark.parametrize("module, config", CASES)
def test_pettingzoo_api_test_passes_for_env(module, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(module.env(**config), num_cycles=300)


@pytest.mark.parametrize("module, config", CASES)
def test_pettingzoo_api_test_passes_for_raw_env(module, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(module.raw_env(**config), num_cycles=300)


@pytest.mark.parametrize("module, config", CASES)
def test_pettingzoo_seed_test_passes(module, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: module.env(**config), num_cycles=300)


@pytest.mark.parametrize("module, config", CASES)
def test_module_follows_the_pettingzoo_convention(module, config):
    import pettingzoo

    env = module.env(**config)
    name = env.metadata["name"]
    assert module.__name__ == f"card_envs.{name}"
    assert set(env.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert "is_parallelizable" in env.metadata
    made = pettingzoo.make("aec", "card_envs/" + name.replace("_v", "-v"), **config)
    made.reset(seed=3)
    env.reset(seed=3)
    assert (made.observe(made.agent_selection)["observation"] == env.observe(env.agent_selection)["observation"]).all()
    # spaces are built once per configuration, not per call
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)
