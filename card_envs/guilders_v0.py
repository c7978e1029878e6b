"""The Game of Guilders, PettingZoo module convention: ``card_envs.guilders_v0.env()``."""

from card_envs.guilders.env import (  # noqa: F401
    BENCHMARK_CONFIG,
    env,
    raw_env,
)

from card_envs._vector_api import vector_constructor
from card_envs.guilders.worlds import sample_world

vector_env = vector_constructor("guilders")

__all__ = ["BENCHMARK_CONFIG", "env", "raw_env", "vector_env", "sample_world"]
__doc__ = raw_env.__doc__
