"""card_envs: PettingZoo AEC environments for imperfect-information card games.

    import card_envs
    env = card_envs.golf_v0.env(render_mode="ansi")

Each game is a module ``card_envs.<game>_v0`` with ``env()``, ``raw_env()`` (and
``parallel_env()`` for the simultaneous games Collector and Hot), registered with PettingZoo's
registry as ``card_envs/<game>-v0``. ``ENVIRONMENTS`` maps ``"<game>_v0"`` to its module.

:data:`REGISTERED` is the one list of the games: every other list of games in the library, its
tests, its benchmarks and its documentation is read from it (or from ``ENVIRONMENTS``, built
from it). Registering a game is one line there (the documentation's "adding a game" page).
"""

from __future__ import annotations

import importlib

from card_envs import runtime  # noqa: F401 - its first reading of the machine's load, for the engine's start
from card_envs._registration import register_all

__version__ = "0.2.0"

#: the registered games, one line each, in the order the documentation and the tables list them
REGISTERED = (
    "golf",
    "fiddlesticks",
    "guillotine",
    "collector",
    "hot",
    "guilders",
)

#: ``"<game>_v0"`` -> the game's public module ``card_envs.<game>_v0``
ENVIRONMENTS = {f"{game}_v0": importlib.import_module(f"card_envs.{game}_v0") for game in REGISTERED}

#: the games' short names, "golf" .. "guilders"
GAME_NAMES = REGISTERED

globals().update(ENVIRONMENTS)  # card_envs.golf_v0 and the others, as attributes of the package

register_all(ENVIRONMENTS)

__all__ = ["ENVIRONMENTS", "GAME_NAMES", "REGISTERED", *ENVIRONMENTS]
