"""Guillotine, PettingZoo module convention: ``card_envs.guillotine_v0.env()``."""

from card_envs.guillotine.env import (  # noqa: F401
    BENCHMARK_CONFIG,
    CONFORMANCE_CONFIGS,
    PROCESS_CONFIGS,
    RARE_BRANCHES,
    env,
    raw_env,
)

__all__ = ["env", "raw_env"]
__doc__ = raw_env.__doc__
