"""The helper processes of :class:`training.batched.BatchedLearnerView`: each builds the shareable
agents from their specs and computes the moves (and, for a search teacher, the action values) of
the games it is sent, while the training process steps the others."""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def searched_values(agent: Any, num_actions: int) -> np.ndarray:
    """The action values of ``agent``'s last decision (a search agent's ``last["values"]``), or
    NaN everywhere for an agent that reports none."""
    found = getattr(agent, "last", None)
    found = found.get("values") if isinstance(found, dict) else None
    return np.full(num_actions, np.nan) if found is None else found


def agent_worker(pipe, env_name: str, env_config: dict, num_players: int, seed: int) -> None:
    """A helper process: builds shareable agents from their specs and plays the moves it is sent."""
    import agents
    from agents.base import start_game

    made: dict[str, Any] = {}
    while True:
        try:
            job = pipe.recv()
        except EOFError:
            return
        if job is None:
            return
        spec, obs, mask, seats, values = job
        try:
            if spec not in made:
                made[spec] = agents.load(spec, seed=seed + len(made))
                for k in range(num_players):
                    start_game(made[spec], env_name, env_config, f"player_{k}")
            agent = made[spec]
            out = np.empty(len(obs), dtype=np.int64)
            found = np.full(mask.shape, np.nan, dtype=np.float32) if values else None
            began = time.perf_counter()
            for i in range(len(obs)):
                out[i] = agent.act({"observation": obs[i], "action_mask": mask[i]}, f"player_{int(seats[i])}", env_name)
                if values:
                    found[i] = searched_values(agent, mask.shape[1])
            pipe.send((out, found, time.perf_counter() - began))  # the moves (and values), and what they cost here
        except Exception as exc:  # noqa: BLE001 - sent back and raised in the training process
            pipe.send(exc)
