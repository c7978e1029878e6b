"""Every game's sampled worlds (``card_envs.<game>_v0.sample_world``) are worlds the observer could
be in, drawn from what it saw alone.

For every registered game and configuration, along random games:

- a world sampled from a seat's observation gives that observation back byte for byte when shown
  to seat 0 (the observer's frame), and that seat's action mask (its legal actions where it is to
  act, none where it is not); it holds the whole deck and play goes on from it;
- the worlds vary the cards the observer cannot see: wherever the test cases' independent sampler
  (``resample_hidden``) can move a hidden card, the worlds sampled from one observation are not
  all the same;
- the sampler reads nothing but the observation: it takes ``(observation, rng, **options)``, and
  two true states that look the same to the observer give the same world for the same seed;
- bad input is a ValueError naming the problem.

Whether the worlds follow the exact posterior is each game's own test (``tests/worlds/``): the
posterior depends on the rules.
"""

from __future__ import annotations

import numpy as np
import pytest

import card_envs
from card_envs import contract
from card_envs.schema import GENERATOR
from tests import cases
from tests.cases import resample_hidden
from tests.conformance.cases import CASES, FIRST_CASES, STEP_CAP, random_action
from tests.conformance.test_state_schema import differences
from tests.conformance.worlds import check_round_trip, check_signature

GAMES = list(contract.games())


def _steps(module, config: dict, seed: int) -> int:
    """How many steps a random game of this configuration from ``seed`` takes."""
    return sum(1 for _ in _states(module, config, seed))


def _states(module, config: dict, seed: int):
    """The raw env at each step of a random game (the env is the same object, stepped on)."""
    env = module.raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter(STEP_CAP):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield env
        env.step(random_action(obs, rng))


def _moments(module, config: dict, seed: int, count: int):
    """(step, raw env) at about ``count`` moments spread along a random game from ``seed``."""
    every = max(1, _steps(module, config, seed) // count)
    for step, env in enumerate(_states(module, config, seed)):
        if step % every == 0:
            yield step, env


@pytest.mark.parametrize("module, config", CASES)
def test_a_sampled_world_gives_back_the_observation_and_the_mask(module, config):
    """About ten moments spread along a random game, every seat's observation."""
    every = max(1, _steps(module, config, 1000) // 10)
    checked = check_round_trip(module, config, games=1, seed=1, every=every)
    assert checked >= 2 * len(module.raw_env(**config).possible_agents)


@pytest.mark.slow
@pytest.mark.parametrize("module, config", CASES)
def test_a_sampled_world_gives_back_the_observation_and_the_mask_in_many_states(module, config):
    assert check_round_trip(module, config, games=4, seed=2, every=1, max_states=600) >= 100


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_the_worlds_vary_the_cards_the_observer_cannot_see(module, config):
    rng = np.random.default_rng(5)
    hidden = varied = 0
    for _, env in _moments(module, config, 6, 8):
        rules, state = env.rules, env.game_state
        for seat, agent in enumerate(env.possible_agents):
            twins = [rules.zones(resample_hidden(rules, state, seat, rng)) for _ in range(3)]
            if all(z == rules.zones(state) for z in twins):
                continue  # nothing hidden from this seat can move
            hidden += 1
            x = env.observe(agent)["observation"]
            worlds = {repr(sorted(rules.zones(module.sample_world(x, rng, **config)).items())) for _ in range(8)}
            varied += len(worlds) > 1
    assert hidden > 0, "resample_hidden never moved a hidden card: the test proves nothing"
    assert varied == hidden, f"in {hidden - varied} of {hidden} states the worlds were all the same: " \
        "sample_world must draw the cards the observer cannot see, not copy one arrangement"


def _same_world(a, b) -> list[str]:
    """The fields (generators by their next draw) in which two sampled worlds differ."""
    fields = [f.name for f in type(a).SCHEMA.fields if f.kind == GENERATOR]
    draws = [name for name in fields if getattr(a, name).integers(2**62) != getattr(b, name).integers(2**62)]
    return [name for name in differences(a, b) if name not in fields] + draws


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_the_sampler_reads_nothing_but_the_observation(module, config):
    check_signature(module.sample_world)
    assert "sample_world" in module.__all__
    rng = np.random.default_rng(8)
    compared = differed = 0
    for step, env in _moments(module, config, 9, 6):
        rules, state = env.rules, env.game_state
        for seat in range(rules.num_players):
            twin = resample_hidden(rules, state, seat, rng)
            differed += rules.zones(twin) != rules.zones(state)
            x, y = env._encode(state, seat), env._encode(twin, seat)
            assert x.tobytes() == y.tobytes()
            a = module.sample_world(x, np.random.default_rng(step), **config)
            b = module.sample_world(y.copy(), np.random.default_rng(step), **config)
            assert not _same_world(a, b), f"seat {seat}, step {step}: twin states gave worlds that differ in " \
                f"{_same_world(a, b)}: the sampler reads more than the observation"
            compared += 1
    assert compared >= 3 and differed > 0, "no twin differed from the truth: the test proves nothing"


@pytest.mark.parametrize("game", GAMES)
def test_bad_input_to_the_sampler_is_a_value_error(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    config = cases.of(game).CONFORMANCE_CONFIGS[0]
    env = module.env(**config)
    env.reset(seed=1)
    obs = env.observe(env.possible_agents[0])
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="must be a vector"):
        module.sample_world(obs["observation"][:-1], rng, **config)
    with pytest.raises(ValueError, match="must hold 'observation'"):
        module.sample_world({"action_mask": obs["action_mask"]}, rng, **config)
    with pytest.raises(ValueError, match="Generator"):
        module.sample_world(obs, 7, **config)
    with pytest.raises(ValueError, match="unknown option"):
        module.sample_world(obs, rng, **config, colour="red")
    world = module.sample_world(obs, rng, **config)  # the dict form works
    assert env.unwrapped._encode(world, 0).tobytes() == obs["observation"].tobytes()
