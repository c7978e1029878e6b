"""``python -m training.train``: a short real training end to end, reproducible, resumable."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytestmark = pytest.mark.training

import agents  # noqa: E402
from agents.ppo import read_metadata  # noqa: E402
from card_envs import golf_v0  # noqa: E402
from training import config as C  # noqa: E402
from training import sb3_backend as S  # noqa: E402
from training import train as T  # noqa: E402

GOLF2 = {"num_players": 2, "num_rounds": 1}
# Small enough for CI: rollouts of n_envs * n_steps = 256 decisions.
SMALL = {
    "ppo": {"n_steps": 64, "batch_size": 128, "n_epochs": 2, "policy_kwargs": {"net_arch": [64, 64]}},
    "n_envs": 4,
    "workers": 2,
    "eval": {"every": 1024, "games": 20, "final_games": 50},
    "selfplay": {"snapshot_every": 512},
    "checkpoint": {"every": 1024, "keep": 2},
}


def config_file(tmp_path: Path, **extra) -> Path:
    path = tmp_path / "small.json"
    path.write_text(json.dumps(C.deep_merge(SMALL, extra)))
    return path


def policy_params(zip_path: Path) -> dict:
    import torch

    with zipfile.ZipFile(zip_path) as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)


def test_the_cli_trains_saves_and_the_policy_plays_legally_as_an_agent(tmp_path, capsys):
    # the real default path: the batched engine (here 4 games), opponents random, heuristic, self
    argv = ["golf_v0", "--timesteps", "2048", "--config", str(config_file(tmp_path)), "--out", str(tmp_path / "runs"),
            "--name", "e2e", "--seed", "1", "--no-progress"]
    assert T.main(argv) == 0
    run = tmp_path / "runs" / "golf_v0" / "e2e"
    printed = capsys.readouterr().out
    assert "vs random" in printed and "vs heuristic" in printed and "95% CI" in printed

    config = json.loads((run / "config.json").read_text())
    assert config["env_config"] == GOLF2 and config["seed"] == 1 and config["total_timesteps"] == 2048
    assert config["runs"][0]["argv"] == argv
    assert config["vec_env"] == "batched", "the harness trains on the batched engine by default"
    assert sorted(p.name for p in (run / "checkpoints").glob("*.zip")) == ["step_0000001024.zip", "step_0000002048.zip"]
    assert list((run / "snapshots").glob("self_*.npz"))
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    with open(run / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert {(r["timesteps"], r["opponent"]) for r in rows} >= {("0", "random"), ("0", "heuristic"), ("1024", "random")}
    final = json.loads((run / "final_eval.json").read_text())
    assert final["num_timesteps"] == 2048
    assert [e["opponent"] for e in final["evaluation"]] == ["random", "heuristic"]
    assert all(e["games"] == 50 and e["reward_ci95"] >= 0 for e in final["evaluation"])

    ppo, rand = agents.load(f"ppo:{run / 'final.zip'}"), agents.load("random", seed=0)
    env = golf_v0.env(**GOLF2)
    for game in range(50):
        env.reset(seed=game)
        players = {"player_0": ppo, "player_1": rand} if game % 2 else {"player_0": rand, "player_1": ppo}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                assert info["rank"] in (1, 2)
                env.step(None)
                continue
            action = players[agent].act(obs, agent, "golf_v0")
            assert obs["action_mask"][action], f"game {game}: illegal {env.unwrapped.action_to_string(action)}"
            env.step(action)


@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_the_same_seed_trains_the_same_policy_on_one_process(tmp_path, vec_env):
    cfg = config_file(tmp_path)

    def run(name, seed):
        d = T.train("golf_v0", timesteps=1024, config=cfg, seed=seed, out=tmp_path, name=name, vec_env=vec_env,
                    progress=False, final_eval=False, verbose=False)
        return policy_params(d / "final.zip")

    a, b, c = run("a", 7), run("b", 7), run("c", 8)
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
    assert not all(np.array_equal(a[k].numpy(), c[k].numpy()) for k in a)


@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_a_run_resumes_from_its_last_checkpoint_to_a_new_total(tmp_path, vec_env):
    cfg = config_file(tmp_path)
    run = T.train("golf_v0", timesteps=1024, config=cfg, seed=3, out=tmp_path, name="r", vec_env=vec_env,
                  progress=False, final_eval=False, verbose=False)
    first = policy_params(run / "final.zip")
    assert T.main(["--resume", str(run), "--timesteps", "2048", "--no-progress"]) == 0
    meta = read_metadata(run / "final.zip")
    assert meta["num_timesteps"] == 2048 and meta["train_seconds"] > 0
    resumed = policy_params(run / "final.zip")
    assert not all(np.array_equal(first[k].numpy(), resumed[k].numpy()) for k in first), "training went on"
    config = json.loads((run / "config.json").read_text())
    assert [r["resume"] for r in config["runs"]] == [False, True]
    assert config["vec_env"] == vec_env, "the resumed run keeps the run's settings"
    with open(run / "eval.csv") as f:
        steps = [int(r["timesteps"]) for r in csv.DictReader(f)]
    assert steps[0] == 0 and max(steps) >= 1024 and steps == sorted(steps)
    assert [p.name for p in (run / "tb").iterdir()] == ["ppo_1"], "TensorBoard logs continue in one folder"


def test_a_new_run_refuses_to_overwrite_an_old_one(tmp_path):
    (tmp_path / "golf_v0" / "x").mkdir(parents=True)
    (tmp_path / "golf_v0" / "x" / "config.json").write_text("{}")
    with pytest.raises(FileExistsError, match="--resume"):
        T.train("golf_v0", timesteps=10, out=tmp_path, name="x", progress=False)


def test_config_layers_merge_and_unknown_keys_are_named(tmp_path):
    cfg = C.resolve_config("golf_v0", {"ppo": {"n_steps": 16}}, seed=9)
    assert cfg["env_config"] == GOLF2, "configs/golf_v0.json"
    assert cfg["ppo"]["n_steps"] == 16 and cfg["ppo"]["batch_size"] == 1024, "nested keys merge"
    assert cfg["seed"] == 9
    with pytest.raises(ValueError, match="unknown config key.*'lr'"):
        C.resolve_config("golf_v0", {"lr": 1})
    with pytest.raises(ValueError, match="unknown key.*'every_n'.*'eval'"):
        C.resolve_config("golf_v0", {"eval": {"every_n": 1}})
    with pytest.raises(ValueError, match="unknown game"):
        T.train("chess", timesteps=10)
    assert cfg["opponent_seating"] == "mixed"
    assert C.resolve_config("golf_v0", {"opponent_seating": "field"})["opponent_seating"] == "field"
    with pytest.raises(ValueError, match="opponent_seating must be one of 'mixed', 'field'.*'tables'"):
        C.resolve_config("golf_v0", {"opponent_seating": "tables"})


def test_every_config_file_is_valid_json_for_a_known_game():
    import card_envs

    for path in C.CONFIG_DIR.glob("*.json"):
        data = json.loads(path.read_text())
        if path.stem != "default":
            assert path.stem in card_envs.GAME_NAMES or path.stem.removesuffix("_v0") in card_envs.GAME_NAMES
            C.check_config(C.deep_merge(C.read_json(C.CONFIG_DIR / "default.json"), data),
                           C.read_json(C.CONFIG_DIR / "default.json"))


def test_batched_subprocesses_step_exactly_like_one_process():
    from stable_baselines3.common.vec_env import DummyVecEnv

    cfg = C.resolve_config("golf_v0", n_envs=5)
    fns = lambda: [S.partial(S._make_env, "golf_v0", cfg, i, ["random"]) for i in range(5)]  # noqa: E731
    one, many = DummyVecEnv(fns()), S.BatchedSubprocVecEnv(fns(), workers=2)
    try:
        one.seed(11), many.seed(11)
        assert np.array_equal(one.reset(), many.reset())
        for _ in range(150):
            masks = np.stack(one.env_method("action_masks"))
            assert np.array_equal(masks, np.stack(many.env_method("action_masks")))
            actions = masks.argmax(axis=1)
            a, b = one.step(actions), many.step(actions)
            for x, y in zip(a[:3], b[:3]):
                assert np.array_equal(x, y)
        assert one.get_attr("learner", [1, 4]) == many.get_attr("learner", [4, 1])[::-1]
        assert many.env_method("snapshot_names", indices=[3]) == [[]]
    finally:
        one.close(), many.close()


@pytest.mark.slow
@pytest.mark.parametrize("env_name", sorted(__import__("card_envs").ENVIRONMENTS))
def test_every_game_trains_end_to_end_with_its_own_config(env_name, tmp_path):
    tiny = C.deep_merge(SMALL, {"eval": {"every": 10**9, "games": 10, "final_games": 20}})
    run = T.train(env_name, timesteps=512, config=tiny, out=tmp_path, name="smoke",  # the batched engine
                  progress=False, verbose=False)
    final = json.loads((run / "final_eval.json").read_text())
    assert final["num_timesteps"] >= 512 and final["evaluation"]
    assert all(e["games"] == 20 for e in final["evaluation"])


def test_each_shipped_pretrained_policy_plays_its_game_legally():
    from agents.ppo import PRETRAINED_DIR, shipped
    from training.evaluate import tournament

    for env_name in shipped():
        meta = read_metadata(PRETRAINED_DIR / f"{env_name}.zip")
        result = tournament(env_name, ["ppo", "random"], 20, config=meta["env_config"])
        assert not any(g.illegal for g in result.games), env_name


def test_the_update_runs_on_every_thread_and_the_collection_on_one():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = C.resolve_config("golf_v0", SMALL, total_timesteps=512)
    venv = S.make_vec_env(cfg, ["random"])
    seen = {"collect": set(), "update": set()}

    class Record(BaseCallback):
        def _on_step(self) -> bool:
            seen["collect"].add(torch.get_num_threads())
            return True

    before = torch.get_num_threads()
    try:
        model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", **S.ppo_kwargs(cfg))
        update = model.train
        model.train = lambda: (seen["update"].add(torch.get_num_threads()), update())[1]
        model.learn(512, callback=[S.update_threads_callback(2), Record()])
    finally:
        venv.close()
        torch.set_num_threads(before)
    assert seen == {"collect": {1}, "update": {2}}


def test_the_collection_takes_every_thread_unless_helper_processes_share_the_cores():
    cfg = C.resolve_config("guillotine_v0", SMALL, total_timesteps=512)
    compiled = S.make_vec_env(C.resolve_config("collector_v0", SMALL, total_timesteps=512), ["random", "heuristic"])
    python = S.make_vec_env(cfg, ["random", "heuristic"])  # Guillotine's heuristic: Python, with a helper
    alone = S.make_vec_env(cfg, ["random"])
    single = S.make_vec_env(C.deep_merge(cfg, {"vec_env": "dummy"}), ["random"])
    try:
        assert not compiled.view.helper_processes and python.view.helper_processes and not alone.view.helper_processes
        assert S.collection_threads(compiled, 2) == 2 and S.collection_threads(alone, 2) == 2
        assert S.collection_threads(python, 2) == 1 and S.collection_threads(single, 2) == 1
    finally:
        for v in (compiled, python, alone, single):
            v.close()
