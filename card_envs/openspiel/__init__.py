"""Every card_envs game as an OpenSpiel game (``pip install -e ".[openspiel]"``).

    import pyspiel
    import card_envs.openspiel          # registers card_envs_golf, card_envs_fiddlesticks, ...

    game = pyspiel.load_game("card_envs_guillotine", {"mode": "single"})
    state = game.new_initial_state()    # chance nodes deal the cards, one by one

Importing this module registers ``card_envs_<game>`` for each registered game whose OpenSpiel facts
are declared (:data:`GAMES`), the game's options as OpenSpiel parameters. OpenSpiel trusts bounds
a game's rules guarantee (its longest game, its chance nodes, its seats, its returns: the game's
function in ``card_envs/openspiel/limits.py``) and renumbers seats in sampled worlds (how its
state holds seats: ``card_envs/openspiel/seats.py``); a new game is offered to OpenSpiel once
both are written, and until then :func:`load_game` says so. ``card_envs/openspiel/game.py`` says
how each part maps (parameters, chance, rewards, observations); the documentation's OpenSpiel
guide shows OpenSpiel's algorithms on them.
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError(f"card_envs.openspiel needs OpenSpiel ({e}): pip install -e '.[openspiel]'") from None

import card_envs
from card_envs.openspiel.game import (PREFIX, CardEnvsGame, CardEnvsObserver, CardEnvsState, parameters_of,
                                      register)
from card_envs.openspiel.limits import LIMITS
from card_envs.openspiel.seats import SEATS

#: OpenSpiel's name of each game it is offered: ``{"golf_v0": "card_envs_golf", ...}`` (every
#: registered game with its limits and seats declared)
GAMES = {name: PREFIX + name.removesuffix("_v0") for name in card_envs.ENVIRONMENTS if name in LIMITS and name in SEATS}
_registered = {name: register(name) for name in GAMES}


def parameters(env_name: str, options: dict | None = None) -> dict:
    """A game's env options as its OpenSpiel parameters (``{"dealer": "random"}`` ->
    ``{"dealer": -1}``): ``pyspiel.load_game(GAMES[env_name], parameters(env_name, options))``."""
    rules = card_envs.ENVIRONMENTS[env_name].raw_env().rules
    return parameters_of(dict(options or {}), type(rules.config))


def load_game(env_name: str, options: dict | None = None):
    """The OpenSpiel game of ``env_name`` (``golf_v0`` or ``golf``) at the env's ``options``."""
    from card_envs.cli import game_name

    env_name = game_name(env_name)
    if env_name not in GAMES:
        raise ValueError(f"{env_name} is not offered to OpenSpiel yet: declare its limits (a function in "
                         "card_envs/openspiel/limits.py, LIMITS) and how its state holds seats (card_envs/openspiel/"
                         f"seats.py, SEATS); offered: {', '.join(GAMES)}")
    return pyspiel.load_game(GAMES[env_name], parameters(env_name, options))


__all__ = ["GAMES", "CardEnvsGame", "CardEnvsObserver", "CardEnvsState", "load_game", "parameters"]
