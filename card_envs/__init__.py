"""card_envs: PettingZoo AEC environments for six imperfect-information card games.

    import card_envs
    env = card_envs.golf_v0.env(render_mode="ansi")

Each game is a module ``card_envs.<game>_v0`` with ``env()``, ``raw_env()`` (and
``parallel_env()`` for the simultaneous games Collector and Hot), registered with PettingZoo's
registry as ``card_envs/<game>-v0``. ``ENVIRONMENTS`` maps ``"<game>_v0"`` to its module.
"""

from __future__ import annotations

from card_envs import (
    collector_v0,
    fiddlesticks_v0,
    golf_v0,
    guilders_v0,
    guillotine_v0,
    hot_v0,
)
from card_envs._registration import register_all

__version__ = "0.2.0"

ENVIRONMENTS = {
    m.raw_env.metadata["name"]: m
    for m in (golf_v0, fiddlesticks_v0, guillotine_v0, collector_v0, hot_v0, guilders_v0)
}

#: the games' short names, "golf" .. "guilders"
GAME_NAMES = tuple(name.removesuffix("_v0") for name in ENVIRONMENTS)

register_all(ENVIRONMENTS)

__all__ = ["ENVIRONMENTS", "GAME_NAMES", "collector_v0", "fiddlesticks_v0", "golf_v0", "guilders_v0", "guillotine_v0", "hot_v0"]
