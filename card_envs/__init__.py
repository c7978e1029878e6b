"""card_envs: PettingZoo AEC environments for six imperfect-information card games.

    import card_envs
    env = card_envs.golf_v0.env(render_mode="ansi")

Each game is a module ``card_envs.<game>_v0`` with ``env()``, ``raw_env()`` (and
``parallel_env()`` for the simultaneous games), registered with PettingZoo's registry as
``card_envs/<game>-v0``. ``ENVIRONMENTS`` maps ``"<game>_v0"`` to its module.
"""

from __future__ import annotations

import importlib
import importlib.util

__version__ = "0.1.0"

GAME_NAMES = ("golf", "fiddlesticks", "guillotine", "collector", "hot", "guilders")

ENVIRONMENTS: dict = {}

for _game in GAME_NAMES:
    if importlib.util.find_spec(f"card_envs.{_game}_v0") is None:  # a game not written yet
        continue
    try:
        _module = importlib.import_module(f"card_envs.{_game}_v0")
    except Exception as _error:  # TEMPORARY while games are being written side by side
        import warnings

        warnings.warn(f"card_envs.{_game}_v0 failed to import: {_error!r}")
        continue
    globals()[f"{_game}_v0"] = _module
    ENVIRONMENTS[f"{_game}_v0"] = _module

from card_envs._registration import register_all  # noqa: E402

register_all(ENVIRONMENTS)
