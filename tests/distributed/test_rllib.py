"""The RLlib backend: a local Ray instance trains Golf with env runners, checkpoints, and the
policy comes back through ``agents.load("rllib:PATH")`` to play legal games; the multi-agent
wrapper hands RLlib's masking module its keys and every seat its own reward.

Marked ``distributed``: the default suite leaves them out; CI, which installs the
``distributed`` extra, runs them with ``python -m pytest -m distributed`` (about 40 s on two
cores). Ray is imported inside the tests, never skipped: without Ray these tests fail, they do
not pass (and the quick suite still collects this file without Ray installed).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.distributed

GOLF2 = {"num_players": 2, "num_rounds": 1}
ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_backend_does_not_import_ray():
    """training.train imports the backend for its flags: the SB3 path must not pay for Ray."""
    code = "import sys, training.rllib_backend; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_the_wrapper_gives_the_masking_module_its_keys_and_every_seat_its_own_reward():
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    from training.rllib_backend import RLlibCardEnv

    env = RLlibCardEnv({"env_name": "golf_v0", "env_config": GOLF2})
    assert isinstance(env, MultiAgentEnv)
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        finals = {}
        while True:
            assert len(obs) == 1, "a turn-based game shows RLlib only the agent to act"
            (agent, o), = obs.items()
            assert space.contains(o)
            assert o["action_mask"].dtype == np.float32 and o["action_mask"].any()
            obs, rew, term, trunc, info = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            for a, r in rew.items():
                returns[a] += r
            if term["__all__"] or trunc["__all__"]:
                finals = info
                break
        assert set(obs) == set(env.possible_agents), "the game's end shows every seat its last observation"
        ranks = [finals[a]["rank"] for a in env.possible_agents]
        expected = {(1, 2): [1.0, -1.0], (2, 1): [-1.0, 1.0], (1, 1): [0.0, 0.0]}[tuple(ranks)]
        assert [returns[a] for a in env.possible_agents] == expected


def test_the_rllib_backend_opponent_module_tells_its_agent_the_table():
    """A heuristic opponent in RLlib's pool is told the table's options (start_game), here
    Guillotine's non-default trick order (it was in tests/agents, skipped without Ray)."""
    import gymnasium as gym

    import card_envs
    from training.rllib_modules import agent_module_class

    env = card_envs.guillotine_v0.raw_env(mode="single", trick_rank_order="french")
    space = gym.spaces.Dict({"observations": env.observation_space("player_0")["observation"],
                             "action_mask": env.observation_space("player_0")["action_mask"]})
    cls = agent_module_class()
    config = {"mode": "single", "trick_rank_order": "french"}
    module = cls(observation_space=space, action_space=env.action_space("player_0"),
                 model_config={"agent": "heuristic", "env_name": "guillotine_v0", "env_config": config})
    assert module.agent._configs["guillotine_v0"] == config


def test_main_holds_one_seat_or_all_and_the_others_come_from_the_pool():
    from training.rllib_backend import seat_modules

    pool = ["random", "heuristic", "self"]
    seen = set()
    for i in range(400):
        mods = seat_modules(f"episode-{i}", 4, pool, None, 0.2, 3)
        assert mods == seat_modules(f"episode-{i}", 4, pool, None, 0.2, 3), "a function of the episode"
        assert mods.count("main") in (1, 4)
        seen.update(mods)
    assert seen == {"main", "random", "heuristic", "snapshot_0", "snapshot_1", "snapshot_2"}
    only_self = {m for i in range(100) for m in seat_modules(str(i), 2, pool, [0, 0, 1], 0.0, 2)}
    assert only_self == {"main", "snapshot_0", "snapshot_1"}
    fields = [seat_modules(f"episode-{i}", 4, pool, None, 0.0, 3, field=True) for i in range(100)]
    assert all(len({m for m in mods if m != "main"}) == 1 for mods in fields), "field: one opponent for the table"
    assert len({m for mods in fields for m in mods}) == 6, "field: the tables still vary over the pool"


def _legal_games(agent, games: int) -> None:
    """The agent plays every seat of raw_env games, which raise on any illegal action."""
    import card_envs

    env = card_envs.golf_v0.raw_env(**GOLF2)
    for seed in range(games):
        env.reset(seed=seed)
        ranks = {}
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                ranks[name] = info["rank"]
            env.step(None if term or trunc else agent.act(obs, name, "golf_v0"))
        assert set(ranks) == set(env.possible_agents) and set(ranks.values()) <= {1, 2}


def test_rllib_trains_golf_on_a_local_ray_checkpoints_reloads_as_an_agent_and_resumes(tmp_path):
    import ray

    import agents
    from agents.rllib_agent import RLlibAgent
    from training.evaluate import tournament
    from training.rllib_backend import train_rllib

    config = {
        "env_config": GOLF2,
        "eval": {"every": 1000, "games": 10, "final_games": 20},
        "checkpoint": {"every": 1000, "keep": 2},
        "selfplay": {"snapshot_every": 1000, "pool_size": 2},
        "rllib": {"engine": "aec", "train_batch_size": 1024, "num_envs_per_env_runner": 4},
    }
    run = train_rllib("golf_v0", 2000, 2, None, tmp_path, 0, config, name="ray", num_cpus=2, progress=False)
    assert not ray.is_initialized(), "the command shuts down the Ray instance it started"

    cfg = json.loads((run / "config.json").read_text())
    assert cfg["backend"] == "rllib" and cfg["rllib"]["num_env_runners"] == 2
    meta = json.loads((run / "final" / "card_envs.json").read_text())
    assert meta["env_name"] == "golf_v0" and meta["env_config"] == GOLF2 and meta["num_timesteps"] >= 2000
    assert any(steps > 0 for steps in meta["snapshots"].values()), "a snapshot of main joined the pool"
    modules = run / "final" / "learner_group" / "learner" / "rl_module"
    assert {"main", "snapshot_0", "snapshot_1", "random", "heuristic"} <= {p.name for p in modules.iterdir()}
    checkpoints = sorted((run / "checkpoints").glob("step_*"))
    assert 1 <= len(checkpoints) <= 2
    rows = list(csv.DictReader(open(run / "eval.csv")))
    assert {r["opponent"] for r in rows} == {"random", "heuristic"} and rows[0]["timesteps"] == "0"
    assert len({r["timesteps"] for r in rows}) >= 2, "an evaluation curve, not one point"
    assert any((run / "tb").iterdir())
    final_eval = json.loads((run / "final_eval.json").read_text())
    assert [r["opponent"] for r in final_eval["evaluation"]] == ["random", "heuristic"]

    agent = agents.load(f"rllib:{run}")
    assert isinstance(agent, RLlibAgent)
    _legal_games(agent, 5)
    _legal_games(agents.load(f"rllib:{checkpoints[-1]}"), 2)
    result = tournament("golf_v0", [agent, "random"], 20, config=GOLF2, seed=7)
    assert not any(g.illegal for g in result.games) and all(sorted(g.ranks)[0] == 1 for g in result.games)

    target = meta["num_timesteps"] + 1000  # one more evaluation (eval.every = 1000)
    train_rllib(resume=run, timesteps=target, num_cpus=2, progress=False, final_eval=False)
    resumed = json.loads((run / "final" / "card_envs.json").read_text())
    assert resumed["num_timesteps"] >= target
    assert set(resumed["snapshots"]) == set(meta["snapshots"]), "the snapshot slots come back"
    assert all(resumed["snapshots"][k] >= v for k, v in meta["snapshots"].items())
    later = list(csv.DictReader(open(run / "eval.csv")))
    assert later[: len(rows)] == rows and len(later) > len(rows), "the curve goes on, not over"
    _legal_games(agents.load(f"rllib:{run}"), 2)


def test_the_batched_engine_trains_golf_with_frozen_selves_and_comes_back_as_an_agent(tmp_path):
    """``rllib.engine = "batched"`` (the default): each env runner steps many games of the batched
    engine (training/rllib_batched.py, training/rllib_runner.py); the frozen selves are numpy
    copies of main's actor sent to every runner's pool; the checkpoint's module loads as
    ``rllib:PATH`` and plays legal games; the run resumes."""
    import ray

    import agents
    from training.rllib_backend import train_rllib

    config = {
        "env_config": GOLF2,
        "opponents": ["random", "heuristic", "self"],
        "eval": {"every": 4000, "games": 10, "final_games": 20},
        "checkpoint": {"every": 4000, "keep": 1},
        "selfplay": {"snapshot_every": 2000, "pool_size": 2},
        "rllib": {"engine": "batched", "batched_envs_per_env_runner": 64, "train_batch_size": 2048},
    }
    run = train_rllib("golf_v0", 6000, 2, None, tmp_path, 0, config, name="batched", num_cpus=2, progress=False)
    assert not ray.is_initialized()
    meta = json.loads((run / "final" / "card_envs.json").read_text())
    assert meta["engine"] == "batched" and meta["module_id"] == "default_policy"
    assert meta["num_timesteps"] >= 6000
    assert len(meta["snapshots"]) >= 2 and max(meta["snapshots"].values()) > 0, "main's later selves joined the pool"
    agent = agents.load(f"rllib:{run}")
    _legal_games(agent, 5)
    final_eval = json.loads((run / "final_eval.json").read_text())
    assert [r["opponent"] for r in final_eval["evaluation"]] == ["random", "heuristic"]
    timers = final_eval["env_runner_timers"]
    assert 0 < timers["env_share"] <= 1 and timers["env_step_s"] > 0

    target = meta["num_timesteps"] + 2048  # the default engine resumes where it stopped
    train_rllib(resume=run, timesteps=target, num_cpus=2, progress=False, final_eval=False)
    resumed = json.loads((run / "final" / "card_envs.json").read_text())
    assert resumed["num_timesteps"] >= target and resumed["module_id"] == "default_policy"
    _legal_games(agents.load(f"rllib:{run}"), 2)


def test_a_snapshot_of_the_masked_module_plays_as_the_module_does():
    """The frozen self the batched env runners play is the module's actor in numpy: the same
    logits as the module's own forward."""
    import gymnasium as gym
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_agent import MaskedPPOTorchRLModule, RLlibAgent
    from training.rllib_batched import BatchedVectorEnv, snapshot_policy

    env = BatchedVectorEnv({"env_name": "golf_v0", "env_config": GOLF2, "num_envs": 8, "opponents": ["self"]})
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=env.single_observation_space,
                          action_space=env.single_action_space,
                          model_config=DefaultModelConfig(fcnet_hiddens=[32, 16], fcnet_activation="tanh",
                                                          head_fcnet_hiddens=[], vf_share_layers=False)).build()
    policy = snapshot_policy(module)
    agent = RLlibAgent(module)
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal(policy.obs_size).astype(np.float32)
        ones = np.ones(policy.num_actions, dtype=np.float32)
        assert np.allclose(policy.logits(x), agent.module_logits({"observation": x, "action_mask": ones}),
                           atol=1e-4)
    env.add_snapshot("self_0", policy)
    obs, _ = env.reset(seed=0)
    for _ in range(50):
        acts = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
        obs, *_ = env.step(np.array(acts))
    assert env.snapshot_names() == ["self_0"]
    assert isinstance(env.single_action_space, gym.spaces.Discrete)


def test_env_runners_on_other_nodes_of_a_cluster_train_the_policy(tmp_path):
    """A simulated cluster on this machine (Ray's ``cluster_utils.Cluster``): a head node without
    CPUs for runners and two worker nodes of one CPU each, so every env runner lands on a worker
    node; the run's samples come only from them, and train the policy."""
    import ray
    from ray.cluster_utils import Cluster

    from training.rllib_backend import train_rllib

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
    cluster.wait_for_nodes()
    try:
        config = {"env_config": GOLF2, "eval": {"every": 10**9, "games": 4, "final_games": 0},
                  "rllib": {"engine": "batched", "batched_envs_per_env_runner": 32, "train_batch_size": 1024}}
        run = train_rllib("golf_v0", 2048, 2, cluster.address, tmp_path, 0, config, name="cluster",
                          progress=False, final_eval=False)
    finally:
        ray.shutdown()
        cluster.shutdown()
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["cluster_nodes"] == 3
    worker_ids = {w.node_id for w in workers}
    assert set(summary["env_runner_nodes"]) == worker_ids, "the runners are not on the two worker nodes"
    assert summary["num_timesteps"] >= 2048
