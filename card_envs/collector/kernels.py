"""Collector's batched twin: the kernels of the round the set-collecting games share
(:mod:`card_envs.set_collecting.kernels`, where the state arrays and the kernels are described),
bound to Collector's variant (a take is the card only; one deal, the first completed set ends it)."""

from __future__ import annotations

from card_envs.collector.rules import VARIANT
from card_envs.set_collecting import kernels as _set
from card_envs.set_collecting.kernels import (  # noqa: F401  (the shared configuration and drivers)
    CONFIG,
    new_games_parallel,
    new_games_serial,
    step_parallel,
    step_serial,
)


class Kernels(_set.Kernels):
    """Collector's kernels for one configuration, driven by ``CollectorRules``."""

    variant = VARIANT
