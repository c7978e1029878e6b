"""Thousands of random games: no exception, every card in exactly one place at every step,
masks all zero off turn, observations inside their space, episodes ending under the guards."""

from collections import Counter

import numpy as np
import pytest

from tests.conformance.cases import CASES, FUZZ_GAMES, STEP_CAP, random_action


@pytest.mark.parametrize("module, config", CASES)
def test_random_games_keep_every_card_in_exactly_one_place(module, config):
    env = module.raw_env(**config)
    rules = env.rules
    deck = Counter(rules.deck())
    rng = np.random.default_rng(12345)
    space = env.observation_space(env.possible_agents[0])["observation"]
    low, high = space.low, space.high
    for game in range(FUZZ_GAMES):
        env.reset(seed=game)
        steps = 0
        for agent in env.agent_iter(STEP_CAP):
            obs, _, term, trunc, _ = env.last()
            state = env.game_state
            held = Counter(c for zone in rules.zones(state).values() for c in zone)
            assert held == deck, f"card conservation broken at step {steps} of game {game}"
            x = obs["observation"]
            assert x.dtype == np.float32 and x.shape == low.shape
            assert (x >= low).all() and (x <= high).all(), f"observation outside its space at step {steps}"
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any(), "an agent not to act has a legal action"
            if term or trunc:
                assert not obs["action_mask"].any()
                env.step(None)
            else:
                assert obs["action_mask"].any(), "the agent to act has no legal action"
                env.step(random_action(obs, rng))
            steps += 1
        assert steps < STEP_CAP, "episode did not end under the guards"
        assert not env.agents


@pytest.mark.parametrize("module, config", CASES)
def test_episode_end_gives_score_and_rank_infos_and_zero_sum_rewards(module, config):
    env = module.env(**config)
    rng = np.random.default_rng(7)
    for game in range(5):
        env.reset(seed=100 + game)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        final_infos = {}
        for agent in env.agent_iter(STEP_CAP):
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term or trunc:
                final_infos[agent] = info
                env.step(None)
            else:
                env.step(random_action(obs, rng))
        assert set(final_infos) == set(env.possible_agents)
        ranks = [final_infos[a]["rank"] for a in env.possible_agents]
        assert all("score" in final_infos[a] for a in env.possible_agents)
        assert min(ranks) == 1
        n = len(ranks)
        # competition ranking: a rank r is shared by k players, and the next rank is r + k
        for r in set(ranks):
            assert r - 1 == sum(1 for q in ranks if q < r)
        if n > 1:
            assert abs(sum(totals.values())) < 1e-9, "rewards must be zero-sum"


def _assert_same_view(direct, decoded) -> None:
    """Two PlayerViews equal field by field (numpy fields by value: Guilders' views hold arrays)."""
    import dataclasses

    assert type(direct) is type(decoded)
    for f in dataclasses.fields(direct):
        a, b = getattr(direct, f.name), getattr(decoded, f.name)
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            assert np.array_equal(a, b), f.name
        else:
            assert a == b, f.name


@pytest.mark.parametrize("module, config", CASES)
def test_decoding_an_observation_and_encoding_it_again_gives_the_same_vector(module, config):
    """And the decoded view is the one ``env.view_of(state, seat)`` builds from the state."""
    env = module.raw_env(**config)
    rng = np.random.default_rng(3)
    checked = [0]

    def check(env, agent, obs):
        for seat, other in enumerate(env.possible_agents):
            x = env.observe(other)["observation"]
            decoded = env.decode(x)
            again = env.encode_view(decoded)
            assert again.dtype == np.float32
            assert np.array_equal(again, x)
            _assert_same_view(env.view_of(env.game_state, seat), decoded)  # what search rollouts read
        checked[0] += 1

    from tests.conformance.cases import play_random

    for game in range(3):
        play_random(env, game, rng, on_step=check)
    assert checked[0] > 0
