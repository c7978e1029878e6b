"""The batched engine's own RLlib env runner and learner connector (training/rllib_runner.py).

The runner replaces RLlib's per-game sampling loop with whole arrays; the connector replaces
RLlib's per-episode PPO learner pipeline. Both must give what RLlib's own would: the episodes are
the games the vector env plays (replayed here action by action), and the train batch is the one
RLlib's default PPO pipeline builds from the same episodes (advantages and value targets
included). Marked ``distributed`` (they need Ray RLlib); they run without a Ray instance.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytestmark = pytest.mark.distributed

TABLES = {"golf_v0": {"num_players": 2, "num_rounds": 1}, "hot_v0": {"num_players": 3},
          "guilders_v0": {"num_players": 3}}


def _runner(name: str, games: int, opponents=("random", "heuristic")):
    from training.rllib_backend import build_config, resolve
    from training.rllib_runner import BatchedEnvRunner

    cfg = resolve(name, {"env_config": TABLES[name], "opponents": list(opponents), "opponent_weights": None, "imitation": {"teacher": None},
                         "rllib": {"engine": "batched", "batched_envs_per_env_runner": games}})
    cfg["rllib"]["num_env_runners"] = 0
    config = build_config(cfg, num_cpus=1)
    return config, BatchedEnvRunner(config=config)


@pytest.mark.parametrize("name", list(TABLES))
def test_the_runners_episodes_are_the_games_the_vector_env_plays(name):
    """One game at a time (one row): the episodes of several samples, chunks joined by episode id,
    replayed action by action on a fresh vector env with the runner's seed, give the same
    observations, masks, rewards and ends; a finished episode's return is the game's reward."""
    from training.rllib_batched import MASK, OBS, BatchedVectorEnv
    from training.rllib_runner import PackedEpisodes

    config, runner = _runner(name, 1)
    episodes = []
    for _ in range(30):  # samples of 40 decisions until two games have ended
        (packed,) = runner.sample(num_timesteps=40)
        assert isinstance(packed, PackedEpisodes) and len(packed) >= 40
        episodes += packed.episodes()
        if sum(e.is_done for e in episodes) >= 2:
            break
    env = BatchedVectorEnv({**config.env_config, "num_envs": 1})
    obs, _ = env.reset(seed=runner._seed)
    finished = 0
    returned, decided = 0.0, 0
    for e in episodes:
        n = len(e)
        if e.t_started == 0:
            returned, decided = 0.0, 0
        assert e.t_started == decided, "a continued chunk starts where its episode stopped"
        decided += n
        seen = e.get_observations(slice(0, n + 1))
        for k in range(n):
            assert np.array_equal(seen[OBS][k], obs[OBS][0]) and np.array_equal(seen[MASK][k], obs[MASK][0])
            obs, rew, term, trunc, info = env.step(np.array([e.get_actions(k)]))
            assert np.float32(e.get_rewards(k)) == rew[0]
            returned += float(rew[0])
            assert bool(term[0] or trunc[0]) == (k == n - 1 and e.is_done)
        assert np.array_equal(seen[OBS][n], obs[OBS][0]), "the chunk's last observation"
        if e.is_done:
            finished += 1
            assert e.is_terminated == bool(term[0]) and e.is_truncated == bool(trunc[0])
            assert returned == pytest.approx(info["game_reward"][0], abs=1e-5)
            obs, *_ = env.step(np.array([0]))  # the next game is dealt (next-step autoreset)
    assert finished >= 2


@pytest.mark.parametrize("name", ["golf_v0", "hot_v0"])
def test_the_train_batch_is_rllibs_default_ppo_pipelines(name):
    """The connector's batch equals RLlib's default PPO learner pipeline's (one added time step
    per episode, the default pieces, GAE) on the same episodes: every column, the loss mask, the
    advantages and the value targets."""
    import torch
    import tree
    from ray.rllib.connectors.learner import AddOneTsToEpisodesAndTruncate, GeneralAdvantageEstimation
    from ray.rllib.core import DEFAULT_MODULE_ID
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from training.rllib_runner import EpisodesToTrainBatch

    config, runner = _runner(name, 8)
    samples = runner.sample(num_timesteps=150) + runner.sample(num_timesteps=150)
    episodes = [e for packed in samples for e in packed.episodes()]
    assert any(e.is_done for e in episodes) and any(not e.is_done for e in episodes)
    spec = config.get_rl_module_spec(spaces=runner.get_spaces(), inference_only=False)
    module = MultiRLModuleSpec(rl_module_specs={DEFAULT_MODULE_ID: spec}).build()
    gamma, lambda_ = 0.97, 0.9
    ours = EpisodesToTrainBatch(gamma=gamma, lambda_=lambda_)(rl_module=module, batch={}, episodes=samples,
                                                               shared_data={})
    # RLlib's own episode objects go through the same connector and give the same batch
    again = EpisodesToTrainBatch(gamma=gamma, lambda_=lambda_)(rl_module=module, batch={},
                                                                episodes=copy.deepcopy(episodes), shared_data={})
    default = config.copy(copy_frozen=False)
    default.learners(add_default_connectors_to_learner_pipeline=True, learner_connector=None)
    env = runner.env.unwrapped
    pipeline = default.build_learner_connector(env.single_observation_space, env.single_action_space)
    pipeline.prepend(AddOneTsToEpisodesAndTruncate())
    pipeline.append(GeneralAdvantageEstimation(gamma=gamma, lambda_=lambda_))
    theirs = pipeline(rl_module=module, batch={}, episodes=copy.deepcopy(episodes), shared_data={}, metrics=None)
    ours, theirs, again = ours[DEFAULT_MODULE_ID], theirs[DEFAULT_MODULE_ID], again[DEFAULT_MODULE_ID]
    assert sorted(ours) == sorted(theirs) == sorted(again)
    theirs_flat, again_flat = dict(tree.flatten_with_path(theirs)), dict(tree.flatten_with_path(again))
    for path, x in tree.flatten_with_path(ours):
        for y in (theirs_flat[path], again_flat[path]):
            assert x.shape == y.shape and x.dtype == y.dtype, path
            assert torch.allclose(x.double(), y.double(), atol=1e-5), path
    assert int(ours["loss_mask"].sum()) == sum(len(e) for e in episodes)
