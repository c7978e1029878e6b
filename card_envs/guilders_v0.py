"""The Game of Guilders, PettingZoo module convention: ``card_envs.guilders_v0.env()``."""

from card_envs.guilders.env import BENCHMARK_CONFIG, CONFORMANCE_CONFIGS, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
__doc__ = raw_env.__doc__
