"""The core promise: a player's observation, mask, infos and rendering depend only on what it
may know. States that differ only in cards a seat cannot see (the rules reshuffle every such
card among the places it cannot see) must look byte-identical to that seat."""

import numpy as np
import pytest

from tests.cases import resample_hidden
from tests.conformance.cases import CASES, STEP_CAP, random_action


def _seat_outputs(env, agent):
    env._mask = None
    obs = env.observe(agent)
    return (
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        env.render_view(agent),
    )


@pytest.mark.parametrize("module, config", CASES)
def test_cards_a_seat_cannot_see_never_change_what_it_observes(module, config):
    env = module.raw_env(**config)
    rules = env.rules
    rng = np.random.default_rng(99)
    resample_rng = np.random.default_rng(2024)
    changed_something = 0
    for game in range(6):
        env.reset(seed=500 + game)
        for step, agent in enumerate(env.agent_iter(STEP_CAP)):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if step % 3 == 0:
                original = env.game_state
                for seat, observer in enumerate(env.possible_agents):
                    before = _seat_outputs(env, observer)
                    for _ in range(2):
                        other = resample_hidden(rules, original, seat, resample_rng)
                        if rules.zones(other) != rules.zones(original):
                            changed_something += 1
                        env.game_state = other
                        after = _seat_outputs(env, observer)
                        env.game_state = original
                        env._mask = None
                        assert after == before, (
                            f"{observer}'s view changed when only cards it cannot see changed "
                            f"(game {game}, step {step})"
                        )
            env.step(random_action(obs, rng))
    assert changed_something > 0, "resample_hidden never changed anything: the test proves nothing"


@pytest.mark.parametrize("module, config", CASES)
def test_infos_at_the_end_depend_only_on_public_results(module, config):
    """Scores and ranks are public at the end: reshuffling hidden cards cannot change them."""
    env = module.raw_env(**config)
    rules = env.rules
    rng = np.random.default_rng(5)
    env.reset(seed=77)
    for agent in env.agent_iter(STEP_CAP):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            state = env.game_state
            for seat in range(len(env.possible_agents)):
                other = resample_hidden(rules, state, seat, rng)
                assert rules.scores(other) == rules.scores(state)
                assert rules.ranks(other) == rules.ranks(state)
            env.step(None)
        else:
            env.step(random_action(obs, rng))
