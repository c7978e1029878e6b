"""PIMC around a learned policy (``rollout=ppo``, ``prior=ppo``): the policy's choices kept
unless the worlds overrule them, its rollouts played by the policy in every seat (its legal play,
blindness to hidden cards and determinism are tested with the other search agents in
``test_search.py``); and a policy's batched forward on the BLAS threads the machine's load leaves."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.base import start_game
from agents.ppo import MaskedPolicy, PPOAgent, load_policy, policy_threads
from agents.search import simulate_batched
from tests.agents.test_search import decisions, ready, table_of

AROUND = "pimc:worlds=4,rollout=ppo,prior=ppo,z=1"


@pytest.mark.parametrize("name", ["golf_v0", "guillotine_v0"])
def test_with_an_unbeatable_margin_the_choice_is_the_policys(name):
    config = table_of(name)
    searcher = ready("pimc:worlds=3,rollout=ppo,prior=ppo,z=1e9", name, config)
    policy = ready("ppo", name, config)
    for _, agent, obs in decisions(name, config, seed=4, limit=4):
        assert searcher.act(obs, agent, name) == policy.act(obs, agent, name)
        assert np.isfinite(searcher.last["values"][obs["action_mask"].astype(bool)]).all()


def test_a_game_default_of_the_rules_engine_gives_way_to_the_batched_one_and_rules_is_refused():
    name, config = "guillotine_v0", table_of("guillotine_v0")
    assert agents.load("pimc").options_for(name)["engine"] == "rules"  # the game's default
    assert ready(AROUND, name, config).options["engine"] == "batched"
    with pytest.raises(ValueError, match="rollout=ppo plays the learned policy on the batched engine"):
        ready(AROUND + ",engine=rules", name, config)
    with pytest.raises(ValueError, match="allowed: random, heuristic, ppo"):
        agents.load("pimc:rollout=network")


def test_a_policy_of_another_table_is_refused_when_seated():
    name = "golf_v0"
    other = dict(table_of(name), num_rounds=2)
    with pytest.raises(ValueError, match="num_rounds"):
        ready(AROUND, name, other)


def test_the_rollouts_are_the_policys_own_play_in_every_seat():
    """A policy that always takes the first legal action: the batched rollouts then return what
    playing every seat's first legal action from each world on the rules engine gives (Guillotine:
    every card is dealt, so no chance event is left to draw differently); and the shipped policy's
    rollouts differ from them (the policy played is the one given)."""
    import copy

    from card_envs.determinization import observation_vector

    name, config = "guillotine_v0", table_of("guillotine_v0")
    shipped, _ = load_policy(agents.ppo.PRETRAINED_DIR / f"{name}.zip")
    head = shipped.head[0]  # (hidden, actions): logits of the first legal action highest everywhere
    first = MaskedPolicy([(lw.T, lb) for lw, lb in shipped.layers],
                         (np.zeros_like(head).T, -np.arange(head.shape[1], dtype=np.float32)), shipped.activation)
    searcher = agents.load("pimc:worlds=3,rollout=ppo", seed=3)
    searcher.policy_agent = PPOAgent.from_policy(first, {"env_name": name, "env_config": config})
    start_game(searcher, name, config, "player_0")
    t = searcher.table(name)
    _, agent, obs = next(decisions(name, config, seed=8))
    legal = np.flatnonzero(obs["action_mask"])
    x = observation_vector(obs, t.env.observation_layout.size, name)
    worlds = [t.sample_world(x, np.random.default_rng(k)) for k in range(6)]
    returns, _ = simulate_batched(t, worlds, legal, "ppo", np.random.default_rng(0), first)
    rules = t.rules
    for w, world in enumerate(worlds):
        for i, a in enumerate(legal):
            state = copy.deepcopy(world)
            ret = np.zeros(t.num_players)
            done = t._apply(state, int(a), ret)
            while not done:
                done = t._apply(state, int(np.flatnonzero(rules.legal_mask(state))[0]), ret)
            assert returns[w, i] == pytest.approx(ret[0]), (w, a)
    by_shipped, _ = simulate_batched(t, worlds, legal, "ppo", np.random.default_rng(0), shipped)
    assert (by_shipped != returns).any(), "the control: another policy's rollouts end otherwise"


def _blas_threads():
    from threadpoolctl import ThreadpoolController

    return max(i["num_threads"] for i in ThreadpoolController().info() if i["user_api"] == "blas")


@pytest.fixture
def two_blas_threads():
    """numpy's BLAS set to two threads for the test (the tests run one, ``tests/conftest.py``), so
    that a limit to one is seen."""
    from threadpoolctl import ThreadpoolController

    with ThreadpoolController().limit(limits=2, user_api="blas"):
        assert _blas_threads() == 2, "numpy's BLAS cannot run two threads here: the tests would prove nothing"
        yield


@pytest.mark.parametrize("others, follow", [(0.0, True), (1.0, True), (7.0, True), (1.0, False)])
def test_a_batched_forward_takes_the_blas_threads_the_load_leaves_and_restores_them(monkeypatch, two_blas_threads,
                                                                                     others, follow):
    """Beside busy processes the forward multiplies on the cores they leave (at least one); idle,
    or with the load not followed, on BLAS's own count; the setting is restored after."""
    from card_envs import runtime

    monkeypatch.setattr(runtime, "_CORES", 4)
    monkeypatch.setattr(runtime.LOAD, "cores", lambda: others)
    monkeypatch.setattr(runtime, "FOLLOW_LOAD", follow)
    before = _blas_threads()
    want = min(before, max(1, 4 - int(others + 0.5))) if follow else before
    seen = []
    policy, _ = load_policy(agents.ppo.PRETRAINED_DIR / "golf_v0.zip")
    forward = policy._forward
    policy._forward = lambda h: (seen.append(_blas_threads()), forward(h))[1]
    x = np.random.default_rng(0).random((64, policy.obs_size), dtype=np.float32)
    batch = policy.logits(x)
    assert seen == [want]
    assert np.allclose(batch, np.stack([policy.logits(row) for row in x]), atol=1e-5)
    assert _blas_threads() == before
    with policy_threads():
        assert _blas_threads() == want
    assert _blas_threads() == before


def test_one_busy_core_of_two_leaves_numpys_blas_one_thread(monkeypatch, two_blas_threads):
    """The case the default exists for, on this project's 2-core machine; and a program's own
    lower setting is kept."""
    from card_envs import runtime

    monkeypatch.setattr(runtime, "_CORES", 2)
    monkeypatch.setattr(runtime.LOAD, "cores", lambda: 1.0)
    monkeypatch.setattr(runtime, "FOLLOW_LOAD", True)
    with policy_threads():
        assert _blas_threads() == 1
    monkeypatch.setattr(runtime.LOAD, "cores", lambda: 0.0)
    with policy_threads():
        assert _blas_threads() == 2
    from threadpoolctl import ThreadpoolController

    with ThreadpoolController().limit(limits=1, user_api="blas"):
        with policy_threads():
            assert _blas_threads() == 1, "a program's own single thread is not raised"


def test_labelling_searches_around_the_current_student():
    from training.distill import _teacher_around

    name, config = "golf_v0", table_of("golf_v0")
    student, _ = load_policy(agents.ppo.PRETRAINED_DIR / f"{name}.zip")
    teacher = _teacher_around(AROUND, student, name, config, seed=0)
    assert teacher.policy_agent.policy_for(name)[0] is student
    assert _teacher_around("pimc:worlds=4", student, name, config, seed=0) == "pimc:worlds=4"
