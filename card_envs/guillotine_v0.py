"""Guillotine, PettingZoo module convention: ``card_envs.guillotine_v0.env()``."""

from card_envs.guillotine.env import BENCHMARK_CONFIG, CONFORMANCE_CONFIGS, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
__doc__ = raw_env.__doc__
