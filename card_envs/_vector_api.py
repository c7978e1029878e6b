"""``<game>_v0.vector_env``: the batched engine's constructor, importable without numba."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from card_envs.vector import VectorEnv


def vector_constructor(game: str):
    """The ``vector_env(num_envs=1024, **options)`` function of ``card_envs.<game>_v0``."""

    def vector_env(num_envs: int = 1024, **options: Any) -> "VectorEnv":
        from card_envs.vector import make  # needs numba: the `vector` extra

        return make(game, num_envs, options)

    vector_env.__doc__ = (
        f"``num_envs`` games of {game}_v0 stepped at once by compiled kernels, with exactly the "
        "options of ``env()`` (see ``card_envs.vector`` for the API: reset, step, observe, "
        "sample_actions, get_state/set_state, autoreset). Needs numba (the ``vector`` extra: "
        "``pip install -e \".[vector]\"``)."
    )
    vector_env.__qualname__ = vector_env.__name__ = "vector_env"
    return vector_env
