"""The search agents (agents/search.py): specs, legal play in every game, blindness to hidden
cards, budgets, determinism, and the batched simulation against the rules-engine reference."""

from __future__ import annotations


import numpy as np
import pytest

import agents
import card_envs
from agents.base import start_game
from agents.search import (ISMCTSAgent, PIMCAgent, _Node, keep_prior_unpaired, parse_options, simulate_batched,
                           simulate_rules, table_for)
from tests.cases import resample_hidden
from training.benchmark import protocol_table
from training.opponents import heuristic_available

GAMES = list(card_envs.ENVIRONMENTS)
FAST = {"pimc": "pimc:worlds=3", "ismcts": "ismcts:iterations=12",
        "ismcts-prior": "ismcts:iterations=6,prior=heuristic,rollout=heuristic",
        "pimc-around-policy": "pimc:worlds=3,rollout=ppo,prior=ppo,z=1"}


def fast(name: str) -> dict[str, str]:
    """The quick search specs that play ``name``: with the heuristic as prior and rollout only in a
    game that has a heuristic written, around the learned policy only in one that ships a policy."""
    from agents.ppo import PRETRAINED_DIR

    return {k: v for k, v in FAST.items() if ("heuristic" not in v or heuristic_available(name))
            and ("ppo" not in v or (PRETRAINED_DIR / f"{name}.zip").is_file())}


def filler(name: str) -> str:
    """Who plays the other seats: the heuristic, or random in a game without one written."""
    return "heuristic" if heuristic_available(name) else "random"


def table_of(name: str) -> dict:
    """The table the shipped PPO policy plays (two seats, one deal or round where the game allows)."""
    return protocol_table(name)


def decisions(name: str, config: dict, seed: int, every: int = 1, limit: int = 6):
    """(env, agent, observation) at up to ``limit`` decisions with two or more legal actions of a
    game of random play (every ``every``-th such decision)."""
    env = card_envs.ENVIRONMENTS[name].raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = k = 0
    for agent in env.agent_iter(100_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) > 1:
            if k % every == 0:
                yield env, agent, obs
                found += 1
                if found >= limit:
                    return
            k += 1
        env.step(int(legal[rng.integers(len(legal))]))


def ready(spec: str, name: str, config: dict, seed: int = 0):
    player = agents.load(spec, seed=seed)
    start_game(player, name, config, "player_0")
    return player


# ------------------------------------------------------------------------------ specs
def test_specs_parse_with_commas_and_bad_ones_name_the_allowed_keys():
    p = agents.load("pimc:worlds=64,rollout=heuristic", seed=1)
    assert isinstance(p, PIMCAgent)
    assert p.options == {"worlds": 64, "ms": None, "rollout": "heuristic", "engine": "batched", "batch": 8,
                         "prior": "none", "z": 2.0, "model": "none"}
    assert agents.parse_spec("pimc:worlds=64,rollout=heuristic") == ("pimc", "worlds=64,rollout=heuristic", frozenset())
    assert agents.load("pimc,rollout=random").options["rollout"] == "random"  # no colon, options as the later parts
    assert agents.load("pimc:ms=100").options["worlds"] is None, "a time budget alone: no world cap"
    i = agents.load("ismcts:iterations=2000")
    assert isinstance(i, ISMCTSAgent) and i.options["iterations"] == 2000 and i.options["ms"] is None
    assert parse_options("ismcts", "ms=50,iterations=10") == {"iterations": 10, "ms": 50.0, "rollout": "random", "c": 0.7,
                                                              "prior": "none", "z": 2.0, "model": "none"}
    for bad, match in [("pimc:depth=3", "worlds="), ("pimc:worlds=0", "positive"), ("pimc:worlds=many", "not a int"),
                       ("pimc:rollout=smart", "random, heuristic, ppo"), ("pimc:worlds=4,greedy", "not KEY=VALUE"),
                       ("ismcts:worlds=3", "iterations="), ("pimc:worlds=3,worlds=4", "twice"),
                       ("ismcts:c=nan", "positive"), ("pimc:prior=network", "none, heuristic, ppo"),
                       ("ismcts:prior=ppo", "none, heuristic"), ("ismcts:rollout=ppo", "random, heuristic"), ("pimc:z=-1", "positive"),
                       ("ismcts:prior=random", "none, heuristic"), ("ismcts:z=0", "positive")]:
        with pytest.raises(ValueError, match=match):
            agents.load(bad)


def test_a_prior_is_overruled_only_by_a_paired_difference_of_more_than_z_standard_errors():
    agent = agents.load("pimc:worlds=4,prior=heuristic,z=2")
    # the differences d of column 1 minus column 0, and the tie counted with them
    close = np.array([[1.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
    assert agent._keep_prior(close, best=1, prior=0) == 0, "d = (0, 2, 0, 0, 0): mean 0.4 < 2 x se 0.4"
    clear = np.array([[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [1.0, 1.0]])
    assert agent._keep_prior(clear, best=1, prior=0) == 1, "d = (2, 2, 2, 0, 0): mean 1.2 > 2 x se 0.49"
    assert agent._keep_prior(clear[:3], best=1, prior=0) == 1, "d = (2, 2, 2, 0): mean 1.5 > 2 x se 0.5"
    assert agent._keep_prior(clear[:1], best=1, prior=0) == 0, "d = (2, 0): mean 1 < 2 x se 1"
    assert agent._keep_prior(clear, best=0, prior=0) == 0


def _root(arms: dict[int, list[float]]) -> _Node:
    """A root whose children saw these returns."""
    root = _Node()
    for a, returns in arms.items():
        child = root.children[a] = _Node()
        child.visits, child.total, child.total_sq = len(returns), sum(returns), sum(r * r for r in returns)
    return root


def test_ismcts_keeps_its_prior_unless_the_root_means_differ_by_more_than_z_standard_errors():
    # each arm counts one more return at the mean of all root returns
    clear = _root({0: [-1.0] * 6, 1: [1.0] * 12})  # overall mean 1/3: means -0.81 and 0.95, se 0.20
    assert keep_prior_unpaired(clear, best=1, prior=0, z=2) == 1
    assert keep_prior_unpaired(clear, best=1, prior=0, z=10) == 0, "difference 1.76 < 10 x se 0.20"
    few = _root({0: [-1.0], 1: [1.0, 1.0]})  # agreeing returns, but only three: means -0.33 and 0.78
    assert keep_prior_unpaired(few, best=1, prior=0, z=2) == 0, "difference 1.11 < 2 x se 0.70"
    assert keep_prior_unpaired(few, best=1, prior=0, z=1.5) == 1, "difference 1.11 > 1.5 x se 0.70"
    close = _root({0: [1.0, -1.0, 1.0, -1.0], 1: [1.0, 1.0, -1.0, 1.0, 1.0]})
    assert keep_prior_unpaired(close, best=1, prior=0, z=2) == 0, "difference 0.49 < 2 x se 0.56"
    assert keep_prior_unpaired(close, best=0, prior=0, z=2) == 0
    assert keep_prior_unpaired(_root({1: [1.0] * 9}), best=1, prior=0, z=2) == 0, "an unvisited prior is kept"


@pytest.mark.parametrize("name", ["golf_v0", "hot_v0"])
@pytest.mark.parametrize("spec", ["pimc:worlds=3,prior=heuristic,z=1e9", "ismcts:iterations=8,prior=heuristic,z=1e9"])
def test_with_an_unbeatable_margin_the_prior_is_the_heuristics_choice(name, spec):
    """z so large that no sample overrules it: every decision is the heuristic's."""
    config = table_of(name)
    searcher = ready(spec, name, config)
    heuristic = ready("heuristic", name, config)
    for _, agent, obs in decisions(name, config, seed=4, limit=4):
        assert searcher.act(obs, agent, name) == heuristic.act(obs, agent, name)


def test_the_ismcts_prior_guides_the_tree_below_the_root():
    """With the prior, the first visits below the root follow the heuristic: after a few
    iterations the tree's second level holds, at each node, mostly the heuristic's move; without
    it, the first move tried at a node is uniformly random."""
    name, config = "golf_v0", table_of("golf_v0")
    from agents.search import ismcts_search

    t = table_for(name, config)
    env, agent, obs = next(decisions(name, config, seed=3))
    x, mask = obs["observation"], obs["action_mask"]
    counts = {}
    for prior in (True, False):
        rng = np.random.default_rng(0)
        h = t.heuristic_action(x, mask, rng) if prior else None
        root, _ = ismcts_search(t, x, mask, rng, 60, None, "random", 0.7, h)
        widths = [len(ch.children) for ch in root.children.values() if ch.visits >= 3]
        counts[prior] = (sum(widths), len(widths))
        if prior:  # the heuristic's root move is tried first and kept being measured
            assert root.children[h].visits >= 1
    (narrow, n1), (wide, n2) = counts[True], counts[False]
    assert n1 and n2 and narrow / n1 < wide / n2, counts


def test_act_before_start_game_is_a_clear_error():
    env = card_envs.golf_v0.raw_env(num_players=2, num_rounds=1)
    env.reset(seed=0)
    for spec in FAST.values():
        with pytest.raises(ValueError, match="start_game"):
            agents.load(spec).act(env.observe(env.agent_selection), env.agent_selection, "golf_v0")


# ------------------------------------------------------------------------ legal play
@pytest.mark.parametrize("name, kind", [(name, kind) for name in GAMES for kind in fast(name)])
def test_the_search_agents_choose_only_legal_actions_in_every_game(name, kind):
    """Whole games on raw_env (which raises on an illegal action): the searcher in seat 0 then
    seat 1, the heuristic (random in a game without one) elsewhere, at the default table and at
    the shipped policies' table (a search around the shipped policy: at that table only, which is
    the one its policy reads)."""
    searched = 0
    other_table = table_of(name) if "ppo" in FAST[kind] else {}
    for config, seat in ((table_of(name), 0), (other_table, 1)):
        env = card_envs.ENVIRONMENTS[name].raw_env(**config)
        player, other = ready(FAST[kind], name, config, seed=3), agents.load(filler(name), seed=4)
        start_game(other, name, config, "player_0")
        env.reset(seed=11)
        budget = 4  # searched decisions per game (then the heuristic finishes it)
        for agent in env.agent_iter(100_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mine = agent == env.possible_agents[seat] and budget > 0
            action = (player if mine else other).act(obs, agent, name)
            if mine and obs["action_mask"].sum() > 1:
                budget -= 1
                searched += 1
            env.step(action)
    assert searched > 0


# ------------------------------------------------------------------- hidden information
@pytest.mark.parametrize("name", GAMES)
def test_the_choice_does_not_change_when_only_hidden_cards_change(name):
    config = table_of(name)
    rules = card_envs.ENVIRONMENTS[name].raw_env(**config).rules
    rng = np.random.default_rng(0)
    changed = 0
    for env, agent, obs in decisions(name, config, seed=2, every=3, limit=3):
        seat = env.possible_agents.index(agent)
        original = env.game_state
        def searched(observation):  # each fast spec's choice and the action values its search found
            players = [ready(spec, name, config, seed=5) for spec in fast(name).values()]
            return [(p.act(observation, agent, name), p.last["values"].tobytes()) for p in players]

        firsts = searched(obs)
        env.game_state = resample_hidden(rules, original, seat, rng)
        env._mask = None
        again = env.observe(agent)
        assert again["observation"].tobytes() == obs["observation"].tobytes()
        changed += rules.zones(env.game_state) != rules.zones(original)  # the hidden cards did move
        assert searched(again) == firsts
        env.game_state = original
        env._mask = None
    assert changed > 0, "the control: resample_hidden changed nothing, so the test proved nothing"


# --------------------------------------------------------------------------- budgets
def test_budgets_in_worlds_and_iterations_are_exact_and_milliseconds_are_kept():
    name, config = "golf_v0", table_of("golf_v0")
    env, agent, obs = next(decisions(name, config, seed=4))
    for spec, samples in (("pimc:worlds=5", 5), ("pimc:worlds=5,engine=rules", 5), ("ismcts:iterations=37", 37)):
        player = ready(spec, name, config)
        player.act(obs, agent, name)
        assert player.last["samples"] == samples, spec
    for spec in ("pimc:ms=40", "ismcts:ms=40"):
        player = ready(spec, name, config)
        player.act(obs, agent, name)  # warm: the first decision may import and load kernels
        player.act(obs, agent, name)
        assert player.last["samples"] >= 1
        assert player.last["ms"] < 40 * 2.5 + 30, f"{spec} took {player.last['ms']:.0f} ms"


def test_a_decision_reports_the_mean_return_its_search_found_for_each_action():
    """``last["values"]``: PIMC scores every legal action (its choice the best mean without a
    prior), ISMCTS each action it visited; illegal actions and a forced move have none (NaN)."""
    name, config = "golf_v0", table_of("golf_v0")
    for env, agent, obs in decisions(name, config, seed=6, limit=3):
        mask = obs["action_mask"].astype(bool)
        pimc = ready("pimc:worlds=6,prior=none,rollout=random", name, config, seed=1)
        choice = pimc.act(obs, agent, name)
        values = pimc.last["values"]
        assert values.shape == mask.shape and np.isfinite(values[mask]).all() and np.isnan(values[~mask]).all()
        assert (-1 <= values[mask]).all() and (values[mask] <= 1).all()  # rank rewards
        assert choice == int(np.nanargmax(values))
        ismcts = ready("ismcts:iterations=40,prior=none,rollout=random", name, config, seed=1)
        choice = ismcts.act(obs, agent, name)
        values = ismcts.last["values"]
        assert np.isnan(values[~mask]).all() and np.isfinite(values[choice])
    forced = dict(obs, action_mask=np.eye(len(mask), dtype=np.int8)[choice])
    assert pimc.act(forced, agent, name) == choice and np.isnan(pimc.last["values"]).all()


# ----------------------------------------------------------------------- determinism
@pytest.mark.parametrize("spec", ["pimc:worlds=4", "pimc:worlds=2,rollout=heuristic", "ismcts:iterations=20",
                                  "pimc:worlds=3,rollout=ppo,prior=ppo,z=1"])
def test_the_same_seed_gives_the_same_choices(spec):
    name, config = "hot_v0", table_of("hot_v0")
    points = list(decisions(name, config, seed=6, limit=5))
    a, b = ready(spec, name, config, seed=9), ready(spec, name, config, seed=9)
    first = [a.act(obs, agent, name) for _, agent, obs in points]
    assert [b.act(obs, agent, name) for _, agent, obs in points] == first
    other = ready(spec, name, config, seed=10)
    [other.act(obs, agent, name) for _, agent, obs in points]
    assert other.stats["steps"] != a.stats["steps"], "the control: another seed simulates other games"


# ------------------------------------------------------------- batched vs the reference
@pytest.mark.parametrize("name", ["golf_v0", "fiddlesticks_v0", "guillotine_v0", "collector_v0", "hot_v0"])
def test_the_batched_engine_gives_the_reference_returns_when_deterministic(name):
    """The heuristic rollout is deterministic and no chance event is left in these one-deal
    games once the world is dealt, so the batched W x A simulations must give the rules
    engine's returns (to float32, the batched engine's reward type), step counts included."""
    config = table_of(name)
    t = table_for(name, config)
    rng = np.random.default_rng(1)
    for _, _, obs in decisions(name, config, seed=8, every=4, limit=2):
        x = obs["observation"]
        legal = np.flatnonzero(obs["action_mask"])
        worlds = [t.sample_world(x, rng) for _ in range(3)]
        ref, ref_steps = simulate_rules(t, [w.copy() for w in worlds], legal, "heuristic", np.random.default_rng(0))
        got, steps = simulate_batched(t, worlds, legal, "heuristic", np.random.default_rng(0))
        assert got.shape == (3, len(legal))
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)  # the batched engine pays float32
        assert steps == ref_steps


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_random_rollouts_agree_in_the_mean_between_the_engines(name):
    """Random rollouts draw from different generators on the two engines: their mean returns
    over many worlds agree within sampling error (4 standard errors)."""
    config = table_of(name)
    t = table_for(name, config)
    _, _, obs = next(decisions(name, config, seed=3))
    legal = np.flatnonzero(obs["action_mask"])
    rng = np.random.default_rng(2)
    worlds = [t.sample_world(obs["observation"], rng) for _ in range(300)]
    ref, _ = simulate_rules(t, [w.copy() for w in worlds], legal, "random", np.random.default_rng(0))
    got, _ = simulate_batched(t, worlds, legal, "random", np.random.default_rng(0))
    se = np.sqrt((ref.var(axis=0) + got.var(axis=0)) / len(worlds)) + 1e-9
    assert np.all(np.abs(ref.mean(axis=0) - got.mean(axis=0)) < 4 * se + 1e-6)


# ------------------------------------------------------------------- the opponent model
MODEL_TABLES = [("hot_v0", {"num_players": 2, "single_deal": True}), ("collector_v0", {"num_players": 2}),
                ("hot_v0", {"num_players": 3})]


@pytest.mark.parametrize("name,config", MODEL_TABLES)
def test_the_heuristic_model_explains_every_true_state_of_heuristic_players(name, config):
    """Where the other seats really are the heuristic, the model never rejects the true state
    (seat 0 observing: its frame is the table's) and gives back their true commitments; sampled
    worlds are rejected often (the control: the checks do say something)."""
    from agents.heuristics.collector import explain_world

    env = card_envs.ENVIRONMENTS[name].raw_env(**config)
    heuristic = ready("heuristic", name, config)
    rng = np.random.default_rng(0)
    checked = rejected_samples = samples = pending = 0
    for game in range(3):
        env.reset(seed=game)
        for agent in env.agent_iter(100_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if agent == "player_0":
                s = env.game_state.copy()
                truth = s.pending[:]
                s.pending[1:] = [-1 if a < 0 else 0 for a in truth[1:]]  # what a world does not know
                assert explain_world(s, env.view_of, env.rules, rng), "the true state rejected"
                assert s.pending == truth, "the heuristic's commitments are not the ones it made"
                checked += 1
                pending += any(a >= 0 for a in truth[1:])
                for _ in range(3):
                    w = card_envs.ENVIRONMENTS[name].sample_world(obs, rng, **config)
                    rejected_samples += not explain_world(w, env.view_of, env.rules, rng)
                    samples += 1
            env.step(heuristic.act(obs, agent, name))
    assert checked > 20 and pending > 5
    assert 0 < rejected_samples < samples


def test_the_heuristic_model_is_refused_where_no_game_defines_it():
    with pytest.raises(ValueError, match="model=heuristic is defined for collector_v0 and hot_v0"):
        ready("pimc:worlds=2,model=heuristic", "golf_v0", table_of("golf_v0"))


@pytest.mark.parametrize("spec", ["pimc:worlds=3,model=heuristic", "ismcts:iterations=6,model=heuristic",
                                  "pimc:worlds=8,rollout=heuristic,prior=heuristic,z=1,model=heuristic"])
def test_with_the_model_the_choice_does_not_change_when_only_hidden_cards_change(spec):
    name, config = "hot_v0", table_of("hot_v0")
    rules = card_envs.ENVIRONMENTS[name].raw_env(**config).rules
    rng = np.random.default_rng(1)
    for env, agent, obs in decisions(name, config, seed=2, every=2, limit=3):
        seat = env.possible_agents.index(agent)
        original = env.game_state
        first = ready(spec, name, config, seed=5).act(obs, agent, name)
        env.game_state = resample_hidden(rules, original, seat, rng)
        env._mask = None
        again = env.observe(agent)
        assert again["observation"].tobytes() == obs["observation"].tobytes()
        assert ready(spec, name, config, seed=5).act(again, agent, name) == first
        env.game_state = original
        env._mask = None
