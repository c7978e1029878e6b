"""Every registered game keeps the per-game contract (``card_envs/contract.py``): its public module,
its rules and state, and each module of its folder, checked against the protocols, member by
member, with the parameters each function takes.

The first test lists everything a game lacks at once, every member by name
(``card_envs.contract.check``), so that a new game learns all it has to add from one failure; the
tests after it say the same thing part by part."""

from __future__ import annotations

import numpy as np
import pytest

import card_envs
from card_envs import contract
from card_envs.base import CardGameEnv
from tests import cases

GAMES = list(contract.games())


@pytest.mark.parametrize("game", GAMES)
def test_a_game_has_every_member_of_the_contract_by_name(game):
    problems = contract.check(game)
    assert not problems, f"{game} lacks, by the contract (card_envs/contract.py):\n" + "\n".join(problems)


@pytest.mark.parametrize("game", GAMES)
def test_a_game_has_its_test_cases(game):
    module = cases.of(game)
    lacking = [name for name in cases.MEMBERS if not hasattr(module, name)]
    assert not lacking, f"tests/cases/{game}.py lacks {', '.join(lacking)} (what each is: tests/cases/__init__.py)"


@pytest.mark.parametrize("game", GAMES)
def test_the_public_module_keeps_the_contract(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    assert not contract.lacks(module, contract.GameModule, f"card_envs/{game}_v0.py")
    assert isinstance(module, contract.GameModule)
    env_module = contract.part(game, "env")
    assert issubclass(env_module.raw_env, CardGameEnv)
    assert module.raw_env is env_module.raw_env
    assert env_module.raw_env.View is contract.part(game, "view"), "the env names its game's view module"


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_and_their_state_keep_the_contract(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    rules = module.raw_env.Rules(**module.BENCHMARK_CONFIG)
    assert not contract.lacks(rules, contract.Rules, "the rules")
    assert isinstance(rules, contract.Rules)
    assert rules.name == f"{game}_v0"
    state = rules.new_game(np.random.default_rng(0), None)
    assert not contract.lacks(state, contract.GameState, "the state")
    assert isinstance(state, contract.GameState)
    copy = state.copy()
    assert copy is not state and rules.zones(copy) == rules.zones(state)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("part", sorted(contract.PART_PROTOCOLS))
def test_each_module_of_the_folder_keeps_its_protocol(game, part):
    if part == "kernels":
        pytest.importorskip("numba")
    module = contract.part(game, part)
    protocol = contract.PART_PROTOCOLS[part]
    problems = contract.lacks(module, protocol, f"card_envs/{game}/{part}.py")
    assert not problems, "\n".join(problems)
    assert isinstance(module, protocol), f"card_envs/{game}/{part}.py"


@pytest.mark.parametrize("game", GAMES)
def test_the_kernels_and_codecs_of_a_table_keep_their_protocols(game):
    pytest.importorskip("numba")
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    rules = module.raw_env.Rules(**module.BENCHMARK_CONFIG)
    kernels = contract.part(game, "kernels").Kernels(rules)
    assert not contract.lacks(kernels, contract.Kernels, "Kernels")
    assert isinstance(kernels, contract.Kernels)
    codec = contract.part(game, "view").Codec(rules)
    assert isinstance(codec, contract.Codec)


# ------------------------------------------------------------------------ what a missing member says
@pytest.mark.parametrize("part, owner, member", [
    ("view", None, "render_state"),
    ("rules", "GolfRules", "reveals"),
    ("worlds", None, "sample_world"),
    ("picture", None, "scene"),
    ("state", None, "table"),
    ("env", None, "SUMMARY"),
])
def test_removing_a_member_names_it_in_the_failure(monkeypatch, part, owner, member):
    module = contract.part("golf", part)
    holder = module if owner is None else getattr(module, owner)
    monkeypatch.delattr(holder, member)
    problems = contract.check("golf")
    assert any(f"missing {member}" in p and "card_envs/golf/" in p for p in problems), problems


def test_every_missing_member_is_listed_at_once_and_a_misnamed_one_is_pointed_at(monkeypatch):
    view = contract.part("golf", "view")
    monkeypatch.setattr(view, "render_states", view.render_state, raising=False)
    monkeypatch.delattr(view, "render_state")
    monkeypatch.delattr(contract.part("golf", "rules").GolfRules, "public_action")
    monkeypatch.delattr(contract.part("golf", "state"), "table")
    problems = contract.check("golf")
    assert "card_envs/golf/view.py: missing render_state (it has 'render_states': misnamed?)" in problems
    assert "card_envs/golf/rules.py (the rules): missing public_action" in problems
    assert "card_envs/golf/state.py: missing table" in problems


def test_what_the_shared_code_needs_beyond_the_protocols_is_named(monkeypatch):
    pytest.importorskip("numba")
    kernels = contract.part("golf", "kernels")
    monkeypatch.delattr(kernels.Kernels, "LOWER_IS_BETTER")
    monkeypatch.delattr(kernels.Kernels, "points")
    monkeypatch.delattr(contract.part("golf", "rules"), "STATE")
    problems = "\n".join(contract.check("golf"))
    for named in ("missing LOWER_IS_BETTER", "missing points(arrays)", "missing STATE"):
        assert named in problems, problems
    monkeypatch.delattr(kernels, "CONFIG")
    assert "card_envs/golf/kernels.py: missing CONFIG" in "\n".join(contract.check("golf"))


def test_a_state_layout_without_its_end_segments_is_named(monkeypatch):
    from card_envs.encoding import Layout

    state = contract.part("golf", "state")
    original = state.Codec

    class Codec(original):
        def __init__(self, rules):
            super().__init__(rules)
            self.layout = Layout([s for s in ((g.name, g.shape, g.meaning) for g in self.layout.segments)
                                  if s[0] != "ended"])

    monkeypatch.setattr(state, "Codec", Codec)
    assert "card_envs/golf/state.py: the state layout needs a segment 'ended' ([terminated, truncated])" in \
        contract.check("golf")


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
