"""Registers every environment with PettingZoo's registry (``pettingzoo.make``)."""

from __future__ import annotations

import warnings


def register_all(environments: dict) -> None:
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return
    from pettingzoo.env_registry.registration import aec_registry, parallel_registry

    for name, module in environments.items():
        env_id = "card_envs/" + name.replace("_v", "-v")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if env_id not in aec_registry:
                register("aec", id=env_id, entry_point=f"{module.__name__}:env")
            if hasattr(module, "parallel_env") and env_id not in parallel_registry:
                register("parallel", id=env_id, entry_point=f"{module.__name__}:parallel_env")
