"""What the test suite plays and checks each game with, kept out of the ``card_envs`` package.

One module per registered game, found by its name: ``tests/cases/<game>.py`` (no list of games
here: a game registered in ``card_envs.REGISTERED`` is looked up as ``tests.cases.<game>``), each
with:

- ``CONFORMANCE_CONFIGS``: the configurations the conformance suite runs (tests/conformance)
  and many game tests reuse;
- ``PROCESS_CONFIGS``: the configurations the process property runs
  (tests/conformance/test_information_process.py);
- ``RARE_BRANCHES``: ``{name: predicate(before, action, after) -> bool}``, events the process
  property must reach and check at least once;
- ``VECTOR_CONFIGS``: configurations beyond the conformance ones that the differential test of
  the batched engine (tests/conformance/test_kernels.py) also plays;
- ``resample_hidden(rules, state, seat, rng) -> state``: a copy of ``state`` with the cards
  ``seat`` cannot see redrawn among the places they could lie in, consistently with what
  ``seat`` knows. It is the suite's independent null-model sampler, a second sampler beside
  the exact ``card_envs.<game>_v0.sample_world`` (built differently: it starts from the true
  state instead of the observation), so that a bug in one cannot hide a leak the other shows.

``of(game)`` finds a game's module by environment name (``"golf_v0"`` or ``"golf"``) or by
module (``card_envs.golf_v0``, or any module with the game's ``raw_env``); a registered game
without its file is a :class:`MissingCases` error naming the file to create, and the suites'
parameters carry that error to each of the game's tests (``tests/conftest.py`` fails them with
its message) instead of stopping the collection of every other game's.
``resample_hidden(rules, state, seat, rng)`` dispatches on the rules' class (a subclass of a
game's rules, as tests plant leaks with, counts as that game).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np

import card_envs

#: what a game's cases module holds (its docstring above says what each is)
MEMBERS = ("CONFORMANCE_CONFIGS", "PROCESS_CONFIGS", "RARE_BRANCHES", "VECTOR_CONFIGS", "resample_hidden")


class MissingCases(KeyError):
    """A registered game whose test cases file does not exist (the message names it)."""

    def __str__(self) -> str:
        return str(self.args[0])


def _env_name(game: str | ModuleType) -> str:
    if isinstance(game, str):
        return game if game.endswith("_v0") else f"{game}_v0"
    raw = getattr(game, "raw_env", None)
    if raw is None:
        raise TypeError(f"not an environment module or name: {game!r}")
    return raw.metadata["name"]


def of(game: str | ModuleType) -> ModuleType:
    """The cases module of ``game``: an environment name (``"golf_v0"``, or ``"golf"``) or a
    module with the game's ``raw_env`` (``card_envs.golf_v0``, ``card_envs.golf.env``)."""
    name = _env_name(game)
    if name not in card_envs.ENVIRONMENTS:
        raise KeyError(f"no cases for {game!r}: not a registered game; games: {sorted(card_envs.ENVIRONMENTS)}")
    short = name.removesuffix("_v0")
    try:
        return importlib.import_module(f"{__name__}.{short}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{short}":
            raise
        raise MissingCases(
            f"no test cases for {name}: create tests/cases/{short}.py with {', '.join(MEMBERS)} (what each is: "
            "tests/cases/__init__.py; python -m card_envs.scaffold writes one with a new game)") from None


def parameters(name: str, build, arity: int) -> list:
    """``build(cases_module)`` (a list of pytest parameters of ``arity`` values) for the game
    ``name``, or, when its cases file is missing, one parameter carrying the
    :class:`MissingCases` error, so that only that game's tests fail, each with the error's
    message."""
    import pytest

    try:
        module = of(name)
    except MissingCases as missing:
        return [pytest.param(*[missing] * arity, id=f"{name}[no tests/cases file]")]
    return build(module)


def for_rules(rules: Any) -> ModuleType:
    """The cases module of the game whose rules ``rules`` is (or subclasses)."""
    by_rules = {m.raw_env.Rules: name for name, m in card_envs.ENVIRONMENTS.items()}
    for cls in type(rules).__mro__:
        if cls in by_rules:
            return of(by_rules[cls])
    raise TypeError(f"no cases for rules of type {type(rules).__name__}")


def resample_hidden(rules: Any, state: Any, seat: int, rng: np.random.Generator) -> Any:
    """A copy of ``state`` with every card ``seat`` cannot see redrawn (the game's own
    ``resample_hidden``; see the module docstring)."""
    return for_rules(rules).resample_hidden(rules, state, seat, rng)


__all__ = ["MEMBERS", "MissingCases", "of", "parameters", "for_rules", "resample_hidden"]
