"""Every registered game keeps the per-game contract (``card_envs/contract.py``): its public module,
its rules and state, and each module of its folder, checked against the protocols, member by
member, with the parameters each function takes."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import card_envs
from card_envs import contract
from card_envs.base import CardGameEnv

GAMES = list(contract.games())


def _positional(fn) -> tuple[int, int]:
    """How many positional parameters ``fn`` requires, and how many it takes."""
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in params), len(params)


def _keeps(obj, protocol) -> list[str]:
    """What ``obj`` lacks of ``protocol``: missing members, and functions whose positional
    parameters cannot be called as the protocol's are (more required, or fewer taken; extra
    optional parameters are allowed)."""
    problems = []
    for name in protocol.__protocol_attrs__ if hasattr(protocol, "__protocol_attrs__") else dir(protocol):
        if name.startswith("_"):
            continue
        if not hasattr(obj, name):
            problems.append(f"missing {name}")
            continue
        want = getattr(protocol, name, None)
        have = getattr(obj, name)
        if inspect.isfunction(want) and callable(have) and not inspect.isclass(have):
            expected = _positional(want)[1] - 1  # the protocol's self
            required, taken = _positional(have)
            if not required <= expected <= taken:
                problems.append(f"{name} takes {required}..{taken} positional parameters, the contract {expected}")
    return problems


@pytest.mark.parametrize("game", GAMES)
def test_the_public_module_keeps_the_contract(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    assert isinstance(module, contract.GameModule)
    assert not _keeps(module, contract.GameModule)
    env_module = contract.part(game, "env")
    assert issubclass(env_module.raw_env, CardGameEnv)
    assert module.raw_env is env_module.raw_env
    assert env_module.raw_env.View is contract.part(game, "view"), "the env names its game's view module"


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_and_their_state_keep_the_contract(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    rules = module.raw_env.Rules(**module.BENCHMARK_CONFIG)
    assert isinstance(rules, contract.Rules)
    assert not _keeps(rules, contract.Rules)
    assert rules.name == f"{game}_v0"
    state = rules.new_game(np.random.default_rng(0), None)
    assert isinstance(state, contract.GameState)
    assert not _keeps(state, contract.GameState)
    copy = state.copy()
    assert copy is not state and rules.zones(copy) == rules.zones(state)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("part", sorted(contract.PART_PROTOCOLS))
def test_each_module_of_the_folder_keeps_its_protocol(game, part):
    if part == "kernels":
        pytest.importorskip("numba")
    module = contract.part(game, part)
    protocol = contract.PART_PROTOCOLS[part]
    assert isinstance(module, protocol), f"card_envs/{game}/{part}.py"
    assert not _keeps(module, protocol), f"card_envs/{game}/{part}.py"


@pytest.mark.parametrize("game", GAMES)
def test_the_kernels_and_codecs_of_a_table_keep_their_protocols(game):
    pytest.importorskip("numba")
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    rules = module.raw_env.Rules(**module.BENCHMARK_CONFIG)
    kernels = contract.part(game, "kernels").Kernels(rules)
    assert isinstance(kernels, contract.Kernels)
    assert not _keeps(kernels, contract.Kernels)
    codec = contract.part(game, "view").Codec(rules)
    assert isinstance(codec, contract.Codec)


def test_the_parts_are_found_from_names_modules_and_envs():
    env = card_envs.golf_v0.raw_env()
    for thing in ("golf", "golf_v0", card_envs.golf_v0, env, type(env)):
        assert contract.game_of(thing) == "golf"
    assert contract.part(env, "picture").__name__ == "card_envs.golf.picture"
    with pytest.raises(ValueError, match="unknown part 'pictures'"):
        contract.part("golf", "pictures")
    with pytest.raises(ValueError, match="not part of a card_envs game"):
        contract.game_of(np)
    assert set(GAMES) == {name.removesuffix("_v0") for name in card_envs.ENVIRONMENTS}
