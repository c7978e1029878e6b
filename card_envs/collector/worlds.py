"""Collector worlds from one player's observation alone (determinization): the sampler of the
round the set-collecting games share (:mod:`card_envs.set_collecting.worlds`, where what is
public, the constraints and why the sample follows the posterior are written), for Collector's rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.collector.rules import CollectorRules
from card_envs.set_collecting.engine import SetState
from card_envs.set_collecting.worlds import sample


def sample_world(observation: Any, rng: np.random.Generator, **options: Any) -> SetState:
    """A Collector state consistent with ``observation`` (the observer is seat 0), its unseen
    cards and the others' pending commitments drawn from the posterior (see
    :mod:`card_envs.set_collecting.worlds`).

    ``observation``: the observation vector, or ``env.observe(agent)``'s dict. ``rng``: a numpy
    Generator, the only source of randomness. ``options``: the env's options.
    """
    return sample(CollectorRules, observation, rng, options)


__all__ = ["sample_world"]
