"""The batched engine as a gymnasium vector env for RLlib's env runners (training/rllib_batched.py).

Its games are the learner view's (training/batched.py, itself tested against the single-game
view): the same observations, masks and rewards, with the finished game's reset one step later
(gymnasium's next-step autoreset), where the row's action is ignored and nothing of its game moves.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tests.training.test_batched import TABLES, HashAgent, hashed_choice  # noqa: E402
from training.batched import BatchedLearnerView  # noqa: E402
from training.rllib_batched import MASK, OBS, BatchedVectorEnv  # noqa: E402

GAMES = list(TABLES)


def _learner(obs: np.ndarray, mask: np.ndarray) -> int:
    return hashed_choice(obs, mask.astype(bool), 3)


@pytest.mark.parametrize("name", GAMES)
def test_one_game_is_the_learner_views_game_with_its_reset_one_step_later(name):
    table = TABLES[name]
    env = BatchedVectorEnv({"env_name": name, "env_config": table, "num_envs": 1, "opponents": ["random"], "seed": 4})
    view = BatchedLearnerView(name, table, num_envs=1, opponents=["random"], seed=4)
    obs, _ = env.reset(seed=11)
    vobs = view.reset(seed=11)
    assert np.array_equal(obs[OBS][0], vobs[0]) and np.array_equal(obs[MASK][0], view.action_masks()[0])
    episodes = 0
    for _ in range(5000):
        a = _learner(obs[OBS][0], obs[MASK][0])
        obs, rew, term, trunc, info = env.step(np.array([a]))
        vobs, vrew, vdone, vinfo = view.step(np.array([a]))
        assert rew[0] == np.float32(vrew[0])
        assert bool(term[0] or trunc[0]) == bool(vdone[0])
        if vdone[0]:
            episodes += 1
            assert np.array_equal(obs[OBS][0], vinfo[0]["terminal_observation"]), "not the terminal observation"
            assert obs[MASK][0].all()
            assert bool(trunc[0]) == vinfo[0]["TimeLimit.truncated"]
            assert info["game_reward"][0] == vinfo[0]["game_reward"] and info["rank"][0] == vinfo[0]["rank"]
            # the reset step: any action is ignored, the next game's first observation, reward 0
            obs, rew, term, trunc, info = env.step(np.array([10**6]))
            assert rew[0] == 0 and not term[0] and not trunc[0] and info == {}
            if episodes == 3:
                break
        assert np.array_equal(obs[OBS][0], vobs[0]) and np.array_equal(obs[MASK][0], view.action_masks()[0])
    assert episodes == 3


@pytest.mark.parametrize("name", ["golf_v0", "hot_v0", "guilders_v0"])
def test_every_episode_of_a_batch_returns_the_learners_game_reward(name):
    """Many games at once, each ending at its own time: every episode's rewards (from the step
    after its first observation to its end) sum to the learner's total reward of that game, and
    a held row's pending reward (opponents moving before the learner's first decision) is kept."""
    table = TABLES[name]
    n = 6
    env = BatchedVectorEnv({"env_name": name, "env_config": table, "num_envs": n,
                            "opponents": [HashAgent(), "random"], "seed": 1})
    obs, _ = env.reset(seed=2)
    running = np.zeros(n)
    resetting = np.zeros(n, dtype=bool)
    ended = 0
    for _ in range(4000):
        actions = np.array([_learner(obs[OBS][g], obs[MASK][g]) for g in range(n)])
        actions[resetting] = -5  # ignored
        obs, rew, term, trunc, info = env.step(actions)
        assert (rew[resetting] == 0).all() and not (term | trunc)[resetting].any()
        running += rew
        done = term | trunc
        for g in np.flatnonzero(done):
            assert running[g] == pytest.approx(info["game_reward"][g], abs=1e-5)
            running[g] = 0.0
            ended += 1
        resetting = done
        if ended >= 3 * n:
            break
    assert ended >= 3 * n


def test_the_spaces_are_rllibs_masked_module_inputs_and_bad_keys_are_refused():
    env = BatchedVectorEnv({"env_name": "golf_v0", "env_config": {"num_players": 2}, "num_envs": 4})
    assert set(env.single_observation_space.spaces) == {OBS, MASK}
    obs, _ = env.reset(seed=0)
    assert obs[OBS].shape == (4,) + env.single_observation_space[OBS].shape and obs[OBS].dtype == np.float32
    assert obs[MASK].dtype == np.float32 and env.observation_space.contains(obs)
    assert env.metadata["autoreset_mode"].value == "NextStep"
    with pytest.raises(ValueError, match="colour"):
        BatchedVectorEnv({"env_name": "golf_v0", "colour": 1})
    field = BatchedVectorEnv({"env_name": "guillotine_v0", "env_config": {"mode": "single"}, "num_envs": 8,
                              "opponents": ["random", "heuristic"], "opponent_seating": "field", "seed": 1})
    field.reset(seed=1)
    others = field.view._opp[field.view._opp >= 0].reshape(8, 3)
    assert (others == others[:, :1]).all(), "the rllib runner's games are seated as the config says"
    with pytest.raises(ValueError, match="illegal"):
        bad = np.array([np.flatnonzero(obs[MASK][g] == 0)[0] for g in range(4)])
        env.step(bad)
