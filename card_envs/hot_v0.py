"""Hot, PettingZoo module convention: ``card_envs.hot_v0.env()``, ``parallel_env()``."""

from card_envs.hot.env import BENCHMARK_CONFIG, env, parallel_env, parallel_raw_env, raw_env  # noqa: F401

from card_envs._vector_api import vector_constructor
from card_envs.hot.worlds import sample_world

vector_env = vector_constructor("hot")

__all__ = ["BENCHMARK_CONFIG", "env", "raw_env", "parallel_env", "parallel_raw_env", "vector_env", "sample_world"]
__doc__ = raw_env.__doc__
