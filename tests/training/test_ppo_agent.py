"""A PPO policy is an agent: numpy inference equal to SB3's, masks applied, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.ppo import MaskedPolicy, PPOAgent, read_metadata, save_model

pytestmark = pytest.mark.training
GOLF2 = {"num_players": 2, "num_rounds": 1}


@pytest.fixture(scope="module")
def model():
    pytest.importorskip("sb3_contrib")
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    from training.single_agent import SingleAgentEnv

    env = SingleAgentEnv("golf_v0", GOLF2)
    return MaskablePPO("MlpPolicy", env, n_steps=64, seed=3, device="cpu",
                       policy_kwargs={"net_arch": [32, 16], "activation_fn": nn.ReLU})


def test_numpy_inference_chooses_what_the_sb3_policy_chooses(model):
    policy = MaskedPolicy.from_sb3(model.policy)
    rng = np.random.default_rng(0)
    obs = rng.random((200, model.observation_space.shape[0])).astype(np.float32)
    masks = rng.random((200, 10)) < 0.5
    masks[:, 0] = True
    theirs, _ = model.predict(obs, deterministic=True, action_masks=masks)
    ours = [policy.choose(o, m) for o, m in zip(obs, masks)]
    assert list(theirs) == ours


def test_a_masked_action_is_never_chosen_even_when_it_is_the_most_probable(model):
    policy = MaskedPolicy.from_sb3(model.policy)
    x = np.zeros(model.observation_space.shape[0], dtype=np.float32)
    best = int(np.argmax(policy.logits(x)))
    mask = np.ones(10, dtype=np.int8)
    mask[best] = 0
    assert policy.choose(x, mask) != best
    rng = np.random.default_rng(0)
    assert best not in {policy.choose(x, mask, deterministic=False, rng=rng) for _ in range(200)}


def test_a_saved_model_loads_as_an_agent_that_needs_no_torch_and_knows_its_game(model, tmp_path):
    path = save_model(model, tmp_path / "p.zip", {"env_name": "golf_v0", "env_config": GOLF2})
    meta = read_metadata(path)
    assert meta["env_name"] == "golf_v0" and meta["activation"] == "ReLU" and meta["num_actions"] == 10
    agent = agents.load(f"ppo:{path}")
    from card_envs import golf_v0

    env = golf_v0.env(**GOLF2)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, env.agent_selection, "golf_v0")]
    with pytest.raises(ValueError, match="trained on golf_v0"):
        agent.act(obs, "player_0", "hot_v0")
    bigger = golf_v0.env(num_players=3, num_rounds=1)
    bigger.reset(seed=0)
    with pytest.raises(ValueError, match="size"):
        agent.act(bigger.observe(bigger.agent_selection), bigger.agent_selection, "golf_v0")


def test_a_zip_without_card_envs_members_loads_through_sb3_only_when_trusted(model, tmp_path):
    model.save(tmp_path / "plain.zip")
    # SB3's format is a pickle: refused unless the caller says it trusts the file
    with pytest.raises(ValueError, match="pickle.*--trust-pickle"):
        PPOAgent(tmp_path / "plain.zip")
    with pytest.raises(ValueError, match="pickle"):
        agents.load(f"ppo:{tmp_path / 'plain.zip'}")
    agent = PPOAgent(tmp_path / "plain.zip", any_table=True, trust_pickle=True)
    x = np.random.default_rng(1).random(model.observation_space.shape[0]).astype(np.float32)
    expected, _ = model.predict(x, deterministic=True, action_masks=np.ones(10, bool))
    assert agent.act({"observation": x, "action_mask": np.ones(10, np.int8)}, "player_0", "golf_v0") == int(expected)
    # converted once (the person trusting it), the copy is data only and plays the same
    from agents.ppo import main

    assert main(["export", str(tmp_path / "plain.zip"), str(tmp_path / "data.zip")]) == 2
    assert not (tmp_path / "data.zip").exists()
    assert main(["export", str(tmp_path / "plain.zip"), str(tmp_path / "data.zip"), "--trust-pickle"]) == 0
    converted = PPOAgent(tmp_path / "data.zip", any_table=True)
    assert converted.act({"observation": x, "action_mask": np.ones(10, np.int8)}, "player_0", "golf_v0") == int(expected)


def test_a_game_without_a_pretrained_policy_is_a_clear_error(monkeypatch, tmp_path):
    import agents.ppo

    monkeypatch.setattr(agents.ppo, "PRETRAINED_DIR", tmp_path)
    agent = agents.load("ppo")
    obs = {"observation": np.zeros(233, np.float32), "action_mask": np.ones(10, np.int8)}
    with pytest.raises(FileNotFoundError, match="no pretrained PPO policy is shipped for golf_v0.*training.train"):
        agent.act(obs, "player_0", "golf_v0")


def test_a_missing_policy_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no policy file"):
        agents.load(f"ppo:{tmp_path / 'nope.zip'}")


def test_an_exported_policy_is_small_and_plays_exactly_like_the_full_file(model, tmp_path):
    from agents.ppo import export_policy

    full = save_model(model, tmp_path / "full.zip", {"env_name": "golf_v0", "env_config": GOLF2})
    small = export_policy(full, tmp_path / "small.zip", note="trained by a test")
    assert small.stat().st_size < full.stat().st_size / 2
    assert read_metadata(small)["note"] == "trained by a test"
    a, b = agents.load(f"ppo:{full}"), agents.load(f"ppo:{small}")
    rng = np.random.default_rng(4)
    size = a.policy_for("golf_v0")[0].obs_size
    for _ in range(50):
        obs = {"observation": rng.random(size).astype(np.float32), "action_mask": (rng.random(10) < 0.6).astype(np.int8)}
        obs["action_mask"][9] = 1
        assert a.act(obs, "player_0", "golf_v0") == b.act(obs, "player_1", "golf_v0")
