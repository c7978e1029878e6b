"""A policy file is data: loading one never runs code from it.

The shipped policies (and every policy ``training.train`` writes) are read from two members, the
weights as numeric numpy arrays (``allow_pickle=False``) and the settings as JSON. A zip that holds
only stable-baselines3's pickled members is refused unless the caller trusts it explicitly, and a
weights member that smuggles a pickle (an object array) is refused. Each test plants a pickle whose
unpickling would create a marker file, and checks the marker never appears.

The shipped policies play exactly as they did: their greedy actions on a fixed set of observations
(seeded play at each policy's training table) are pinned in ``shipped_policy_actions.json``
(``python -m tests.agents.test_policy_files`` writes it anew, for a policy retrained on purpose).
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import agents
import card_envs
from agents.ppo import META_MEMBER, PRETRAINED_DIR, WEIGHTS_MEMBER, PPOAgent, load_policy, shipped

PINNED = Path(__file__).with_name("shipped_policy_actions.json")
OBSERVATIONS = 40  # per game


class Payload:
    """Unpickling it creates ``path`` (standing in for any code a pickle can run)."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def sb3_style_zip(path: Path, marker: Path) -> Path:
    """A zip laid out as stable-baselines3 saves a model: its ``data`` member carries a pickle
    (base64, as SB3 serializes objects it cannot write as JSON)."""
    import base64

    data = {"policy_class": {":type:": "<class 'type'>",
                             ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("pytorch_variables.pth", pickle.dumps(Payload(marker)))
        z.writestr("policy.pth", pickle.dumps(Payload(marker)))
    return path


def test_a_pickled_policy_zip_is_refused_everywhere_without_the_trust_switch(tmp_path):
    marker = tmp_path / "ran"
    zip_path = sb3_style_zip(tmp_path / "sent.zip", marker)
    for load in (lambda: agents.load(f"ppo:{zip_path}"), lambda: agents.load(f"ppo:{zip_path},any_table"),
                 lambda: PPOAgent(zip_path), lambda: load_policy(zip_path)):
        with pytest.raises(ValueError, match="pickle") as refused:
            load()
        assert "--trust-pickle" in str(refused.value)
    from agents.ppo import main

    assert main(["export", str(zip_path), str(tmp_path / "copy.zip")]) == 2
    assert main(["info", str(zip_path)]) == 2
    assert not marker.exists(), "loading a policy file ran code from it"


def test_a_weights_member_that_smuggles_a_pickle_is_refused(tmp_path):
    marker = tmp_path / "ran"
    buf = io.BytesIO()
    np.savez(buf, layer0_weight=np.array([Payload(marker)], dtype=object), layer0_bias=np.zeros(1),
             head_weight=np.zeros((1, 1)), head_bias=np.zeros(1))
    path = tmp_path / "smuggled.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(META_MEMBER, json.dumps({"activation": "Tanh"}))
        z.writestr(WEIGHTS_MEMBER, buf.getvalue())
    with pytest.raises(ValueError, match="numeric arrays"):
        agents.load(f"ppo:{path}")
    assert not marker.exists()


def test_a_policy_with_data_members_beside_a_planted_sb3_pickle_loads_as_data(tmp_path):
    """A training run's file holds SB3's members too: they are never read, even when they hold a
    payload."""
    marker = tmp_path / "ran"
    path = sb3_style_zip(tmp_path / "run.zip", marker)
    with zipfile.ZipFile(PRETRAINED_DIR / "golf_v0.zip") as shipped_zip, zipfile.ZipFile(path, "a") as z:
        for name in (META_MEMBER, WEIGHTS_MEMBER):
            z.writestr(name, shipped_zip.read(name))
    agent = agents.load(f"ppo:{path}")
    env = card_envs.golf_v0.env(num_players=2, num_rounds=1)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, env.agent_selection, "golf_v0")]
    assert not marker.exists()


def _observations(env_name: str, config: dict, count: int = OBSERVATIONS, seed: int = 0):
    """``count`` observations of seeded random play at ``config`` (each seat's, in turn)."""
    env = card_envs.ENVIRONMENTS[env_name].env(**config)
    rng = np.random.default_rng(seed)
    out = []
    game = 0
    while len(out) < count:
        env.reset(seed=seed + game)
        game += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if rng.random() < 0.3 and len(out) < count:
                out.append({"observation": obs["observation"].copy(), "action_mask": obs["action_mask"].copy()})
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def _actions(env_name: str) -> dict:
    agent = agents.load("ppo")
    meta = agent.policy_for(env_name)[1]
    config = dict(meta["env_config"])
    obs = _observations(env_name, config)
    digest = hashlib.sha256(b"".join(o["observation"].tobytes() + o["action_mask"].tobytes() for o in obs)).hexdigest()
    return {"config": config, "observations": digest,
            "actions": [int(agent.act(o, "player_0", env_name)) for o in obs]}


@pytest.mark.parametrize("env_name", shipped())
def test_the_shipped_policies_load_as_data_and_play_exactly_as_before(env_name):
    pinned = json.loads(PINNED.read_text())[env_name]
    with zipfile.ZipFile(PRETRAINED_DIR / f"{env_name}.zip") as z:
        assert sorted(z.namelist()) == sorted([META_MEMBER, WEIGHTS_MEMBER]), "a shipped policy holds data only"
    now = _actions(env_name)
    assert now["config"] == pinned["config"]
    assert now["observations"] == pinned["observations"], (
        f"the observations of {env_name}'s fixed play changed (its layout or rules): retrain its policy, then "
        "python -m tests.agents.test_policy_files")
    assert now["actions"] == pinned["actions"]


if __name__ == "__main__":
    PINNED.write_text(json.dumps({name: _actions(name) for name in shipped()}, indent=1) + "\n")
    print(f"wrote {PINNED}")
