"""Six-card Golf, PettingZoo module convention: ``card_envs.golf_v0.env()``."""

from card_envs.golf.env import (  # noqa: F401
    BENCHMARK_CONFIG,
    env,
    raw_env,
)

from card_envs._vector_api import vector_constructor
from card_envs.golf.worlds import sample_world

vector_env = vector_constructor("golf")

__all__ = ["BENCHMARK_CONFIG", "env", "raw_env", "vector_env", "sample_world"]
__doc__ = raw_env.__doc__
