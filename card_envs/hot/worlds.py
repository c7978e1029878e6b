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

from card_envs.set_collecting.worlds import sample_hot_world as sample_world

__all__ = ["sample_world"]
