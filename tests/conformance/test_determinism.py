"""Seeding: reset(seed) and the same actions give the same trajectory, bit for bit, even when
Python's and NumPy's global generators are disturbed mid-episode."""

import hashlib
import random

import numpy as np
import pytest

from tests.conformance.cases import CASES, STEP_CAP, random_action


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
