"""Every registered environment × each of its CONFORMANCE_CONFIGS (``tests/cases/<game>.py``), as
pytest parameters (a game without its cases file gets one parameter that fails each of its tests
with the file to create: ``tests.cases.parameters``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import card_envs
from tests import cases

#: random games per configuration in the fuzz test (CI raises it: see .ci/run)
FUZZ_GAMES = int(os.environ.get("CARD_ENVS_FUZZ_GAMES", "30"))
#: the most steps an episode may take before the test calls it endless
STEP_CAP = 200_000


def _config_id(name: str, cfg: dict) -> str:
    inner = ",".join(f"{k}={v}" for k, v in cfg.items())
    return f"{name}[{inner}]"


CASES = [
    case
    for name, module in card_envs.ENVIRONMENTS.items()
    for case in cases.parameters(name, lambda c, name=name, module=module: [
        pytest.param(module, dict(cfg), id=_config_id(name, cfg)) for cfg in c.CONFORMANCE_CONFIGS], arity=2)
]
#: one configuration per environment (the first), for the costlier tests
FIRST_CASES = [
    case
    for name, module in card_envs.ENVIRONMENTS.items()
    for case in cases.parameters(name, lambda c, name=name, module=module: [
        pytest.param(module, dict(c.CONFORMANCE_CONFIGS[0]), id=name)], arity=2)
]


def random_action(obs: dict, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


def play_random(env, seed: int, rng: np.random.Generator, on_step=None, options=None) -> int:
    """Play one game with uniformly random legal actions; returns the number of steps."""
    env.reset(seed=seed, options=options)
    steps = 0
    for agent in env.agent_iter(STEP_CAP):
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else random_action(obs, rng)
        if on_step is not None and action is not None:
            on_step(env, agent, obs)
        env.step(action)
        steps += 1
    return steps
