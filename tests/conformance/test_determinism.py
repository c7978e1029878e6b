"""Seeding: reset(seed) and the same actions give the same trajectory, bit for bit, even when
Python's and NumPy's global generators are disturbed mid-episode."""

import hashlib
import random

import numpy as np
import pytest

from tests.conformance.cases import CASES, FIRST_CASES, STEP_CAP, random_action


def _trajectory(module, config, seed, disturb: bool) -> str:
    env = module.env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    for i, agent in enumerate(env.agent_iter(STEP_CAP)):
        obs, reward, term, trunc, info = env.last()
        if disturb and i % 7 == 3:
            random.seed(i)
            random.random()
            np.random.seed(i)
            np.random.random(5)
        h.update(agent.encode())
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr((reward, term, trunc, sorted(info.items()))).encode())
        env.step(None if term or trunc else random_action(obs, rng))
    return h.hexdigest()


@pytest.mark.parametrize("module, config", CASES)
def test_same_seed_gives_the_same_trajectory_with_global_rngs_disturbed(module, config):
    assert _trajectory(module, config, 11, False) == _trajectory(module, config, 11, True)


@pytest.mark.parametrize("module, config", CASES)
def test_different_seeds_give_different_games(module, config):
    assert len({_trajectory(module, config, s, False) for s in (1, 2, 3)}) > 1


@pytest.mark.parametrize("module, config", CASES)
def test_a_stacked_deck_is_dealt_the_same_way_every_time(module, config):
    env = module.raw_env(**config)
    deck = list(env.rules.deck())
    np.random.default_rng(0).shuffle(deck)
    from card_envs.cards import to_str

    names = [to_str(c) for c in deck]
    env.reset(seed=1, options={"deck": names})
    first = env.rules.zones(env.game_state)
    env2 = module.raw_env(**config)
    env2.reset(seed=1, options={"deck": deck})  # ints work as well as names
    assert env2.rules.zones(env2.game_state) == first


def _sampled_game(env, seed):
    """A game played by ``action_space(agent).sample(mask)``, as the README's first example plays."""
    env.reset(seed=seed)
    actions = []
    for agent in env.agent_iter(STEP_CAP):
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else env.action_space(agent).sample(obs["action_mask"])
        actions.append(action)
        env.step(action)
    return actions, info


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_reset_seed_seeds_the_action_spaces_so_sampled_games_replay(module, config):
    env = module.env(**config)
    first = _sampled_game(env, 5)
    assert _sampled_game(env, 5) == first, "the same env, reset with the same seed"
    assert _sampled_game(module.env(**config), 5) == first, "a new env with the same seed"
    assert _sampled_game(module.env(**config), 6)[0] != first[0]
    twin = module.env(**config)
    twin.reset(seed=5)
    space = twin.action_space(twin.possible_agents[0])
    deal = twin.unwrapped._rng.integers(1 << 62)
    assert space.np_random.integers(1 << 62) != deal, "the spaces draw from a stream of their own, not the deal's"
