"""The Agent protocol every baseline follows (DESIGN.md).

An agent sees only what the environment hands a player: the observation dict (vector and
action mask), the agent's name and the environment's name. It never reads the state.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses a legal action from a player's observation."""

    def act(self, observation: dict, agent: str, env_name: str) -> int: ...


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 0:
            raise ValueError(f"{agent} has no legal action: act() is only for the agent to act")
        return int(legal[self.rng.integers(len(legal))])

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)
