"""What the test suite plays and checks each game with, kept out of the ``card_envs`` package.

One module per game (``tests/cases/golf.py`` ... ``tests/cases/hot.py``), each with:

- ``CONFORMANCE_CONFIGS``: the configurations the conformance suite runs (tests/conformance)
  and many game tests reuse;
- ``PROCESS_CONFIGS``: the configurations the process property runs
  (tests/conformance/test_information_process.py);
- ``RARE_BRANCHES``: ``{name: predicate(before, action, after) -> bool}``, events the process
  property must reach and check at least once;
- ``VECTOR_CONFIGS``: configurations beyond the conformance ones that the differential test of
  the batched engine (tests/vector) also plays;
- ``resample_hidden(rules, state, seat, rng) -> state``: a copy of ``state`` with the cards
  ``seat`` cannot see redrawn among the places they could lie in, consistently with what
  ``seat`` knows. It is the suite's independent null-model sampler, a second sampler beside
  the exact ``card_envs.<game>_v0.sample_world`` (built differently: it starts from the true
  state instead of the observation), so that a bug in one cannot hide a leak the other shows.

``of(game)`` finds a game's module by environment name (``"golf_v0"`` or ``"golf"``) or by
module (``card_envs.golf_v0``, or any module with the game's ``raw_env``);
``resample_hidden(rules, state, seat, rng)`` dispatches on the rules' class (a subclass of a
game's rules, as tests plant leaks with, counts as that game).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

import card_envs
from tests.cases import collector, fiddlesticks, golf, guilders, guillotine, hot

#: ``"golf_v0"`` .. ``"guilders_v0"`` (the keys of ``card_envs.ENVIRONMENTS``) to the game's cases
BY_NAME: dict[str, ModuleType] = {
    "golf_v0": golf,
    "fiddlesticks_v0": fiddlesticks,
    "guillotine_v0": guillotine,
    "collector_v0": collector,
    "hot_v0": hot,
    "guilders_v0": guilders,
}
#: each game's rules class to its cases
_BY_RULES: dict[type, ModuleType] = {card_envs.ENVIRONMENTS[name].raw_env.Rules: m for name, m in BY_NAME.items()}


def of(game: str | ModuleType) -> ModuleType:
    """The cases module of ``game``: an environment name (``"golf_v0"``, or ``"golf"``) or a
    module with the game's ``raw_env`` (``card_envs.golf_v0``, ``card_envs.golf.env``)."""
    if isinstance(game, str):
        name = game if game.endswith("_v0") else f"{game}_v0"
    else:
        raw = getattr(game, "raw_env", None)
        if raw is None:
            raise TypeError(f"not an environment module or name: {game!r}")
        name = raw.metadata["name"]
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"no cases for {game!r}; games: {sorted(BY_NAME)}") from None


def for_rules(rules: Any) -> ModuleType:
    """The cases module of the game whose rules ``rules`` is (or subclasses)."""
    for cls in type(rules).__mro__:
        if cls in _BY_RULES:
            return _BY_RULES[cls]
    raise TypeError(f"no cases for rules of type {type(rules).__name__}")


def resample_hidden(rules: Any, state: Any, seat: int, rng: np.random.Generator) -> Any:
    """A copy of ``state`` with every card ``seat`` cannot see redrawn (the game's own
    ``resample_hidden``; see the module docstring)."""
    return for_rules(rules).resample_hidden(rules, state, seat, rng)


__all__ = ["BY_NAME", "of", "for_rules", "resample_hidden", "collector", "fiddlesticks", "golf", "guilders", "guillotine", "hot"]
