"""Collector worlds from one player's observation alone (determinization): the sampler of the
round the set-collecting games share (:mod:`card_envs.set_collecting.worlds`, where what is
public, the constraints and why the sample follows the posterior are written)."""

from __future__ import annotations

from card_envs.set_collecting.worlds import sample_world

__all__ = ["sample_world"]
