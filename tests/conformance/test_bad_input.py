"""Bad input is a ValueError naming the problem; nothing is half-applied."""

import numpy as np
import pytest

from card_envs.cards import to_str
from tests.conformance.cases import CASES


def _snapshot(env):
    return (env.rules.zones(env.game_state), env.agent_selection, dict(env._cumulative_rewards))


@pytest.mark.parametrize("module, config", CASES)
def test_an_unknown_option_is_a_value_error_naming_it(module, config):
    with pytest.raises(ValueError, match="no_such_option"):
        module.env(**config, no_such_option=1)


@pytest.mark.parametrize("module, config", CASES)
def test_a_malformed_stacked_deck_is_a_value_error_and_changes_nothing(module, config):
    env = module.raw_env(**config)
    env.reset(seed=4)
    before = _snapshot(env)
    deck = [to_str(c) for c in env.rules.deck()]
    with pytest.raises(ValueError, match="stacked deck has"):
        env.reset(seed=5, options={"deck": deck[:-1]})
    with pytest.raises(ValueError, match="stacked deck has"):
        env.reset(seed=5, options={"deck": deck + [deck[0]]})
    with pytest.raises(ValueError, match="malformed card"):
        env.reset(seed=5, options={"deck": ["Xx"] + deck[1:]})
    swapped = deck[:]
    swapped[0] = next(to_str(c) for c in range(54) if to_str(c) not in deck) if len(set(deck)) < 54 else deck[1]
    with pytest.raises(ValueError, match="does not match"):
        env.reset(seed=5, options={"deck": swapped})
    assert _snapshot(env) == before
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(seed=5, options={"dek": deck})


@pytest.mark.parametrize("module, config", CASES)
def test_an_illegal_action_on_raw_env_is_a_value_error_and_changes_nothing(module, config):
    env = module.raw_env(**config)
    env.reset(seed=8)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    before = _snapshot(env)
    obs_before = env.observe(env.agent_selection)["observation"].copy()
    if len(illegal):  # in some configurations (Guilders with good_joker) every action is always legal
        with pytest.raises(ValueError, match="illegal"):
            env.step(int(illegal[0]))
    assert _snapshot(env) == before
    assert np.array_equal(env.observe(env.agent_selection)["observation"], obs_before)
    for bad in (-1, env.action_space(env.agent_selection).n, 1.5, "x"):
        with pytest.raises(ValueError, match="not in the action space"):
            env.step(bad)
    assert _snapshot(env) == before


@pytest.mark.parametrize("module, config", CASES)
def test_action_names_round_trip(module, config):
    env = module.raw_env(**config)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        for a in np.flatnonzero(mask):
            name = env.action_to_string(int(a))
            assert isinstance(name, str) and name
            assert env.string_to_action(name) == a
            assert env.string_to_action(name.upper()) == a
        env.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError):
        env.string_to_action("definitely not an action")
