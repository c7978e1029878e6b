"""The imitation warm start (training/imitation.py): the teacher's games, the fit, the harness."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytestmark = pytest.mark.training

import agents  # noqa: E402
import card_envs  # noqa: E402
from agents.base import start_game  # noqa: E402
from training import config as C  # noqa: E402
from training import imitation as I  # noqa: E402
from training import sb3_backend as S  # noqa: E402

from tests.training.test_train import SMALL  # noqa: E402


def golf_cfg(**extra) -> dict:
    cfg = C.resolve_config("golf_v0", C.deep_merge(SMALL, extra), total_timesteps=512)
    return cfg


def test_the_teachers_games_record_its_moves_and_the_returns_that_followed():
    # the rank reward, undiscounted: every decision's return is its game's result, +1, 0 or -1
    cfg = golf_cfg(train_env_config={"reward_mode": "rank"}, ppo={"gamma": 1.0},
                   imitation={"teacher": "heuristic", "decisions": 300}, n_envs=8, workers=1)
    data = I.teacher_games(cfg, ["random", "heuristic", "self"], 300, seed=3, progress=False)
    m = len(data["actions"])
    assert m >= 300 and data["obs"].shape[0] == data["masks"].shape[0] == m
    assert data["masks"][np.arange(m), data["actions"]].all()  # every recorded move is legal
    teacher = agents.load("heuristic", seed=0)
    for seat in ("player_0", "player_1"):
        start_game(teacher, "golf_v0", cfg["env_config"], seat)
    # the recorded action is the teacher's on the recorded observation (the heuristic is a function of it)
    for i in range(0, m, 7):
        obs = {"observation": data["obs"][i], "action_mask": data["masks"][i].astype(np.int8)}
        assert teacher.act(obs, f"player_{data['seats'][i]}", "golf_v0") == data["actions"][i]
    assert set(data["seats"].tolist()) == {0, 1}  # the learner's seat rotates
    starts = np.flatnonzero(data["starts"])
    assert starts[0] == 0 and len(starts) >= 300 // 20
    games = np.split(data["returns"], starts[1:])
    for g in games:
        assert set(np.unique(g)) <= {-1.0, 0.0, 1.0} and len(set(g.tolist())) == 1, g
    results = [g[0] for g in games]
    assert -1.0 in results and 1.0 in results  # both outcomes happen against the pool


def test_discounting_follows_the_learners_own_rewards():
    cfg = golf_cfg(train_env_config={"reward_mode": "rank"}, ppo={"gamma": 0.5},
                   imitation={"teacher": "heuristic", "decisions": 100}, n_envs=4, workers=1)
    data = I.teacher_games(cfg, ["random"], 100, seed=5, progress=False)
    starts = np.flatnonzero(data["starts"])
    for g in np.split(data["returns"], starts[1:]):
        final = g[-1]
        assert final in (-1.0, 0.0, 1.0)
        np.testing.assert_allclose(g, final * 0.5 ** np.arange(len(g))[::-1], rtol=1e-6)


def test_the_fit_learns_the_teachers_moves():
    from sb3_contrib import MaskablePPO

    cfg = golf_cfg(imitation={"teacher": "heuristic", "decisions": 1500}, n_envs=16, workers=1)
    data = I.teacher_games(cfg, ["heuristic"], 1500, seed=1, progress=False)
    venv = S.make_vec_env(cfg, ["random"])
    try:
        model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", **S.ppo_kwargs(cfg))
        before = I.fit(model.policy, data, 1, 256, 1e-9, 0.5, seed=0, progress=False)[0]
        history = I.fit(model.policy, data, 25, 128, 3e-3, 0.5, seed=0, progress=False)
    finally:
        venv.close()
    assert history[-1]["bc_loss"] < 0.5 * before["bc_loss"]
    assert history[-1]["value_loss"] < before["value_loss"]
    assert history[-1]["agreement"] > 0.85 > before["agreement"]


def test_the_fits_threads_follow_the_load_every_few_minibatches():
    import torch
    from sb3_contrib import MaskablePPO

    class Threads:  # another process holds a core from the second reading on
        def __init__(self):
            self.begun, self.ended, self.seen = 0, 0, []

        def begin(self):
            self.begun += 1
            return 2 if self.begun == 1 else 1

        def end(self):
            self.ended += 1

    cfg = golf_cfg(imitation={"teacher": "heuristic", "decisions": 300}, n_envs=8, workers=1)
    data = I.teacher_games(cfg, ["heuristic"], 300, seed=1, progress=False)
    venv = S.make_vec_env(cfg, ["random"])
    threads = Threads()
    real = torch.set_num_threads
    try:
        model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", **S.ppo_kwargs(cfg))
        torch.set_num_threads = lambda n: (threads.seen.append(n), real(n))
        I.fit(model.policy, data, 2, 8, 1e-3, 0.5, seed=0, progress=False, threads=threads)
    finally:
        torch.set_num_threads = real
        venv.close()
    minibatches = math.ceil(len(data["actions"]) / 8)
    chunks = 2 * math.ceil(minibatches / I.THREADS_EVERY)  # two epochs
    assert threads.begun == chunks and threads.seen == [2] + [1] * (chunks - 1)
    assert threads.ended >= threads.begun, "every chunk's load is measured"


def test_a_run_warm_starts_counts_the_seconds_and_records_it(tmp_path):
    from training.sb3_backend import train

    extra = {"imitation": {"teacher": "heuristic", "decisions": 400, "epochs": 2}}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(C.deep_merge(SMALL, extra)))
    run = train("golf_v0", timesteps=512, config=str(path), out=tmp_path, name="warm", progress=False,
                verbose=False, final_eval=False)
    summary = json.loads((run / "final_eval.json").read_text())
    warm = summary["imitation"]
    assert warm["teacher"] == "heuristic" and warm["decisions"] >= 400 and len(warm["epochs"]) == 2
    assert summary["train_seconds_this_run"] >= warm["seconds"] > 0
    curve = (run / "eval.csv").read_text().splitlines()
    # eval.csv's wall_seconds has a resolution of 0.1 s (a short warm start may round to 0.0)
    assert curve[1].startswith("0,") and float(curve[1].split(",")[1]) >= warm["seconds"] * 0.9 - 0.05


@pytest.mark.parametrize("bad, says", [
    ({"decisions": 0}, "imitation.decisions"),
    ({"teacher": 3}, "imitation.teacher"),
    ({"learning_rate": -1}, "imitation.learning_rate"),
    ({"teachr": "heuristic"}, "unknown key"),
    ({"temperature": 0}, "imitation.temperature"),
    ({"temperature": "hot"}, "imitation.temperature"),
    ({"teacher": None, "temperature": 0.1}, "name the teacher"),
])
def test_bad_imitation_settings_are_refused(bad, says):
    with pytest.raises(ValueError, match=says):
        C.resolve_config("golf_v0", {"imitation": bad})


def test_the_rllib_backend_refuses_a_teacher_asked_for_and_leaves_out_the_games_own(capsys):
    from training.rllib_backend import resolve

    with pytest.raises(ValueError, match="imitation"):
        resolve("golf_v0", {"imitation": {"teacher": "heuristic"}})
    assert C.resolve_config("golf_v0")["imitation"]["teacher"] == "heuristic", "Golf's own configuration has one"
    cfg = resolve("golf_v0", None)
    assert cfg["imitation"]["teacher"] is None
    assert "the RLlib backend has no imitation warm start" in capsys.readouterr().err


def test_the_warm_start_never_outweighs_the_run():
    steps = C.resolve_config("golf_v0", {"imitation": {"decisions": 150_000}}, total_timesteps=1024)
    assert I.planned_decisions(steps) == 1024, "a run of 1,024 steps imitates at most 1,024 decisions"
    timed = C.resolve_config("golf_v0", {"imitation": {"decisions": 150_000}}, total_timesteps=1024, minutes=3)
    assert I.planned_decisions(timed) == 150_000, "a timed run: the time share bounds it instead"
    alone = {**steps, "imitation": {**steps["imitation"], "capped": False}}
    assert I.planned_decisions(alone) == steps["imitation"]["decisions"], "a run that is its imitation alone"


def test_the_teachers_games_stop_beginning_when_their_time_is_up():
    cfg = golf_cfg(imitation={"teacher": "heuristic", "decisions": 10**6}, n_envs=8, workers=1)
    data = I.teacher_games(cfg, ["random", "heuristic"], 10**6, seed=3, progress=False, seconds=0.0)
    starts = int(data["starts"].sum())
    assert 8 <= starts <= 16 and len(data["actions"]) < 1000, "the games under way finish, no new one begins"
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()


def guilders_cfg(**extra) -> dict:
    return C.resolve_config("guilders_v0", C.deep_merge(SMALL, {"env_config": {"num_players": 2}, **extra}),
                            total_timesteps=512)


def test_value_targets_are_the_softmax_of_the_heuristics_expected_points_and_ties_share_them():
    from agents.heuristics import guilders as H

    cfg = guilders_cfg(imitation={"teacher": "heuristic", "decisions": 200, "temperature": 0.05}, n_envs=8, workers=1)
    data = I.teacher_games(cfg, ["random", "heuristic"], 200, seed=2, progress=False)
    targets = I.value_targets(cfg, data, I.value_teacher(cfg))
    m = len(data["actions"])
    np.testing.assert_allclose(targets.sum(axis=1), 1.0, rtol=1e-5)
    assert (targets[~data["masks"]] == 0).all(), "no weight on an illegal call (the joker, without good_joker)"
    env = card_envs.guilders_v0.raw_env(num_players=2)
    tied = 0
    for i in range(0, m, 5):
        ev = np.where(data["masks"][i], H.expected_points(env.decode(data["obs"][i]), env.rules), -np.inf)
        want = np.exp((ev - ev.max()) / 0.05)
        np.testing.assert_allclose(targets[i], want / want.sum(), rtol=1e-4, atol=1e-7)
        best = np.flatnonzero(ev == ev.max())
        assert data["actions"][i] in best, "the recorded choice is one of the best calls"
        if len(best) > 1:
            tied += 1
            assert np.allclose(targets[i][best], targets[i][best[0]]), "equal values, equal targets"
    assert tied > 0, "some decisions have several best calls (what the choice alone cannot teach)"


def test_a_run_with_a_temperature_fits_the_values_and_a_teacher_without_them_is_refused(tmp_path):
    from training.sb3_backend import train

    extra = {"env_config": {"num_players": 2},
             "imitation": {"teacher": "heuristic", "decisions": 300, "epochs": 2, "temperature": 0.05}}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(C.deep_merge(SMALL, extra)))
    run = train("guilders_v0", timesteps=512, config=str(path), out=tmp_path, name="soft", progress=False,
                verbose=False, final_eval=False)
    warm = json.loads((run / "final_eval.json").read_text())["imitation"]
    assert warm["decisions"] >= 300 and len(warm["epochs"]) == 2
    with pytest.raises(ValueError, match="action_values"):  # Golf's heuristic scores no calls
        I.value_teacher(golf_cfg(imitation={"teacher": "heuristic", "temperature": 0.05}))
    with pytest.raises(ValueError, match="only the heuristic"):
        I.value_teacher(guilders_cfg(imitation={"teacher": "random", "temperature": 0.05}))
