"""Every registered game has its test cases here, in the test tree, and the ``card_envs`` package
carries none of them: no configuration lists, rare branches or null-model sampler."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import card_envs
from tests import cases

GAMES = list(card_envs.ENVIRONMENTS)
#: what moved out of the package into ``tests/cases/<game>.py``
MOVED = ("CONFORMANCE_CONFIGS", "PROCESS_CONFIGS", "RARE_BRANCHES")


def test_every_registered_game_has_cases_found_by_its_name():
    for name in GAMES:
        assert cases.of(name).__name__ == f"tests.cases.{name.removesuffix('_v0')}"


def test_a_registered_game_without_its_cases_file_names_the_file_to_create(monkeypatch):
    monkeypatch.setitem(card_envs.ENVIRONMENTS, "nocases_v0", card_envs.golf_v0)
    with pytest.raises(cases.MissingCases, match=r"create tests/cases/nocases\.py with CONFORMANCE_CONFIGS"):
        cases.of("nocases")
    params = cases.parameters("nocases_v0", lambda c: [], arity=2)
    assert len(params) == 1 and isinstance(params[0].values[0], cases.MissingCases), \
        "only that game's tests get the error; the others are collected as usual"


@pytest.mark.parametrize("name", GAMES)
def test_a_game_is_found_by_name_short_name_and_module(name):
    module = card_envs.ENVIRONMENTS[name]
    found = cases.of(name)
    assert found.__name__ == f"tests.cases.{name.removesuffix('_v0')}"
    assert cases.of(name.removesuffix("_v0")) is found
    assert cases.of(module) is found
    assert cases.of(importlib.import_module(f"card_envs.{name.removesuffix('_v0')}.env")) is found
    assert cases.for_rules(module.raw_env().rules) is found


def test_an_unknown_game_is_refused():
    with pytest.raises(KeyError, match="no cases for 'poker_v0': not a registered game"):
        cases.of("poker_v0")
    with pytest.raises(TypeError):
        cases.of(np)
    with pytest.raises(TypeError, match="no cases for rules"):
        cases.resample_hidden(object(), None, 0, np.random.default_rng(0))


@pytest.mark.parametrize("name", GAMES)
def test_the_cases_are_complete_and_make_environments(name):
    c = cases.of(name)
    module = card_envs.ENVIRONMENTS[name]
    assert c.CONFORMANCE_CONFIGS and all(isinstance(cfg, dict) for cfg in c.CONFORMANCE_CONFIGS)
    assert c.PROCESS_CONFIGS and c.VECTOR_CONFIGS and c.RARE_BRANCHES
    assert all(callable(pred) for pred in c.RARE_BRANCHES.values())
    for cfg in [*c.CONFORMANCE_CONFIGS, *c.PROCESS_CONFIGS, *c.VECTOR_CONFIGS]:
        module.raw_env(**cfg)  # every configuration is a valid set of options


@pytest.mark.parametrize("name", GAMES)
def test_resample_hidden_redraws_only_what_the_seat_cannot_see(name):
    """Along a random game: the copy holds the same cards, the seat's observation is unchanged,
    the true state is untouched, and some copy differs from the truth."""
    module = card_envs.ENVIRONMENTS[name]
    env = module.raw_env(**cases.of(name).CONFORMANCE_CONFIGS[0])
    rules = env.rules
    state = rules.new_game(np.random.default_rng(1), None)
    pick, rng = np.random.default_rng(2), np.random.default_rng(3)
    differed = 0
    for _ in range(40):
        if state.terminated or state.truncated:
            break
        before = rules.zones(state)
        for seat in range(rules.num_players):
            twin = cases.resample_hidden(rules, state, seat, rng)
            assert twin is not state and rules.zones(state) == before
            assert sorted(c for z in rules.zones(twin).values() for c in z) == sorted(c for z in before.values() for c in z)
            assert env._encode(twin, seat).tobytes() == env._encode(state, seat).tobytes()
            differed += rules.zones(twin) != before
        legal = np.flatnonzero(rules.legal_mask(state))
        rules.apply(state, int(legal[pick.integers(len(legal))]))
    assert differed > 0, "resample_hidden never changed anything: the test proves nothing"


def test_a_subclass_of_a_games_rules_is_that_game():
    golf_rules = card_envs.ENVIRONMENTS["golf_v0"].raw_env.Rules

    class Planted(golf_rules):
        pass

    assert cases.for_rules(Planted(num_players=2)) is cases.of("golf")
    assert cases.for_rules(card_envs.hot_v0.raw_env().rules) is cases.of("hot")  # not Collector's, though the engine is shared


@pytest.mark.parametrize("name", GAMES)
def test_the_package_defines_none_of_the_test_cases(name):
    game = name.removesuffix("_v0")
    module = card_envs.ENVIRONMENTS[name]
    env_module = importlib.import_module(f"card_envs.{game}.env")
    for holder in (module, env_module):
        assert not [n for n in MOVED if hasattr(holder, n)], holder.__name__
    assert hasattr(module, "BENCHMARK_CONFIG")  # benchmarks and training use it: it stays
    rules = module.raw_env().rules
    assert not hasattr(rules, "resample_hidden") and not hasattr(type(rules), "resample_hidden")


@pytest.mark.parametrize("name", GAMES)
def test_the_kernels_define_no_test_configurations(name):
    pytest.importorskip("numba")
    kernels = importlib.import_module(f"card_envs.{name.removesuffix('_v0')}.kernels")
    assert not hasattr(kernels, "VECTOR_CONFIGS")
    assert "VECTOR_CONFIGS" not in getattr(kernels, "__all__", ())
