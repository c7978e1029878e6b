"""Hot worlds from one player's observation alone (determinization).

Hot runs the shared round's engine and view, so its sampler is the round's
(:mod:`card_envs.set_collecting.worlds`, where what is public, the constraints and why the sample
follows the posterior are written): :func:`sample_world` ``(observation, rng, **options)``
returns a :class:`~card_envs.set_collecting.engine.SetState` in the observer's frame (seat 0) whose
Hot view encodes to the same bytes. Hot adds the totals, the dealer, the deal number and the
last deal's points (all public); a game over after a scored deal has its hands laid down. The
world's generator is seeded from ``rng``, so the later deals are sampled too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.hot.rules import HotRules
from card_envs.set_collecting.engine import SetState
from card_envs.set_collecting.worlds import sample


def sample_world(observation: Any, rng: np.random.Generator, **options: Any) -> SetState:
    """A Hot state consistent with ``observation`` (the observer is seat 0): the shared sampler
    for Hot's rules, with the totals, the dealer, the deal number and the last deal's points.

    ``observation``: the observation vector, or ``env.observe(agent)``'s dict. ``rng``: a numpy
    Generator, the only source of randomness. ``options``: the env's options.
    """
    return sample(HotRules, observation, rng, options)


__all__ = ["sample_world"]
