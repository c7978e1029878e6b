"""Expert iteration (training/distill.py): the student's states labelled by the teacher, the fit,
PPO from the distilled policy, the measured curve, and a run that resumes."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.ppo import load_policy  # noqa: E402
from training import distill as D  # noqa: E402

pytestmark = pytest.mark.training


def test_the_students_decisions_are_labelled_by_the_teachers_choices():
    policy, _ = load_policy(D.Path(__file__).resolve().parents[2] / "agents" / "pretrained" / "golf_v0.zip")
    data = D.visit_and_label("golf_v0", {"num_players": 2, "num_rounds": 1}, policy, "heuristic", labels=300,
                             games=16, opponents=["random"], weights=[1.0], seed=3, workers=1, progress=False)
    m = len(data["actions"])
    assert m >= 300 and data["obs"].shape[0] == m and data["masks"].shape[0] == m
    assert data["masks"][np.arange(m), data["actions"]].all() and data["masks"][np.arange(m), data["played"]].all()
    # the labels are the teacher's moves from the same observations
    import agents
    from agents.base import start_game

    teacher = agents.load("heuristic", 0)
    start_game(teacher, "golf_v0", {"num_players": 2, "num_rounds": 1}, "player_0")
    for i in range(0, m, 37):
        obs = {"observation": data["obs"][i], "action_mask": data["masks"][i].astype(np.int8)}
        assert teacher.act(obs, "player_0", "golf_v0") == data["actions"][i]
    assert data["starts"][0] and data["starts"].sum() >= 16


def test_an_iteration_distils_sharpens_measures_and_resumes(tmp_path):
    run = D.distill("golf", teacher="heuristic", iterations=1, labels=400, ppo_minutes=0.05, start="ppo", games=16,
                    deals=4, out=tmp_path, name="t", progress=False, workers=1)
    rows = list(csv.DictReader((run / "iterations.csv").open()))
    assert [r["iteration"] for r in rows] == ["1"] and int(rows[0]["labels"]) >= 400
    assert 0 <= float(rows[0]["agreement_after"]) <= 1 and int(rows[0]["ppo_timesteps"]) > 0
    assert -1 <= float(rows[0]["vs_heuristic"]) <= 1
    # the distilled policy (before PPO) is measured on the same deals, so the curve says which step moved it
    assert -1 <= float(rows[0]["distilled_vs_heuristic_low"]) <= float(rows[0]["distilled_vs_heuristic"]) \
        <= float(rows[0]["distilled_vs_heuristic_high"]) <= 1
    assert 0 <= float(rows[0]["agreement_sharpened"]) <= 1
    for name in ("iteration_0.zip", "distilled_1.zip", "iteration_1.zip", "final.zip", "labels.npz"):
        assert (run / name).exists(), name
    state = json.loads((run / "state.json").read_text())
    assert state["done"] == 1 and state["teacher"] == "heuristic"
    state["iterations"] = 2
    (run / "state.json").write_text(json.dumps(state))
    D.distill(None, resume=run, progress=False, workers=1)
    rows = list(csv.DictReader((run / "iterations.csv").open()))
    assert [r["iteration"] for r in rows] == ["1", "2"] and int(rows[1]["labels_total"]) > int(rows[0]["labels_total"])
    import agents

    assert agents.load(f"ppo:{run / 'final.zip'}").policy_for("golf_v0")[0].obs_size == 403


def test_a_teacher_that_cannot_play_the_table_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError):
        D.distill("golf", teacher="wizard", out=tmp_path, progress=False)
    with pytest.raises(ValueError, match="iterations"):
        D.distill("golf", iterations=0, out=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())


def test_a_curve_begun_with_fewer_columns_keeps_them_when_a_resumed_run_appends(tmp_path):
    curve = tmp_path / "iterations.csv"
    curve.write_text("iteration,labels,vs_heuristic\n1,400,0.1\n")
    D._append(curve, {f: 2 for f in D.FIELDS})
    rows = list(csv.DictReader(curve.open()))
    assert list(rows[0]) == ["iteration", "labels", "vs_heuristic"] and rows[1] == {"iteration": "2", "labels": "2",
                                                                                     "vs_heuristic": "2"}
    fresh = tmp_path / "fresh.csv"
    D._append(fresh, {f: 1 for f in D.FIELDS})
    assert list(csv.DictReader(fresh.open()))[0] == {f: "1" for f in D.FIELDS}


def test_a_searching_teacher_labels_each_decision_with_its_action_values_in_this_process_and_in_helpers():
    policy, _ = load_policy(D.Path(__file__).resolve().parents[2] / "agents" / "pretrained" / "golf_v0.zip")
    teacher = "pimc:worlds=3,prior=none,rollout=random"
    for workers in (1, 2):  # 2: a helper process computes a share of the moves and sends their values back
        data = D.visit_and_label("golf_v0", {"num_players": 2, "num_rounds": 1}, policy, teacher, labels=60,
                                 games=16, opponents=["random"], weights=[1.0], seed=5, workers=workers,
                                 progress=False, values=True)
        m, masks, values = len(data["actions"]), data["masks"].astype(bool), data["values"]
        assert values.shape == masks.shape and np.isnan(values[~masks]).all()
        searched = masks.sum(axis=1) >= 2
        assert searched.sum() > 20 and np.isfinite(values[searched][masks[searched]]).all()
        assert np.isnan(values[~searched]).all()  # a forced move is not searched
        # without a prior, PIMC's choice is the action of the best mean
        chosen = values[np.arange(m), data["actions"]]
        assert np.array_equal(chosen[searched], np.nanmax(values[searched], axis=1))


def test_soft_targets_put_the_weight_on_the_choice_and_spread_the_rest_by_the_values():
    masks = np.array([[1, 1, 0, 1], [0, 1, 0, 0], [1, 1, 1, 0]], dtype=np.int8)
    values = np.array([[0.5, 0.4, np.nan, -1.0], [np.nan, 0.2, np.nan, np.nan], [np.nan, np.nan, 0.1, np.nan]])
    actions = np.array([0, 1, 2])
    hard = D.soft_targets(actions, masks, values, 0.0, 0.1)
    assert np.array_equal(hard, np.eye(4, dtype=np.float32)[actions])
    soft = D.soft_targets(actions, masks, values, 0.5, 0.1)
    assert np.allclose(soft.sum(axis=1), 1) and (soft[masks == 0] == 0).all()
    e = np.exp(np.array([0.5, 0.4, -1.0]) / 0.1)
    assert np.allclose(soft[0, [0, 1, 3]], 0.5 * np.array([1, 0, 0]) + 0.5 * e / e.sum(), atol=1e-6)
    # fewer than two scored actions (a forced move, a single scored one): the choice alone
    assert np.array_equal(soft[1:], hard[1:])
    # a cooler softmax approaches the best mean; a hotter one spreads evenly over the scored actions
    assert D.soft_targets(actions, masks, values, 1.0, 1e-3)[0, 0] > 0.99
    assert np.allclose(D.soft_targets(actions, masks, values, 1.0, 1e3)[0, [0, 1, 3]], 1 / 3, atol=1e-3)


def test_the_fit_follows_soft_targets_where_they_are_given():
    import torch
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    from training.imitation import fit
    from training.single_agent import SingleAgentEnv

    env = SingleAgentEnv("golf_v0", {"num_players": 2, "num_rounds": 1})
    rng = np.random.default_rng(0)
    n, k = 512, env.action_space.n
    obs = rng.random((n, env.observation_space.shape[0]), dtype=np.float32)
    masks = np.zeros((n, k), dtype=bool)
    masks[:, :3] = True
    targets = np.tile(np.array([0.6, 0.3, 0.1] + [0.0] * (k - 3), dtype=np.float32), (n, 1))
    data = {"obs": obs, "masks": masks, "actions": np.zeros(n, dtype=np.int64), "returns": np.zeros(n, np.float32),
            "targets": targets}
    model = MaskablePPO("MlpPolicy", env, n_steps=64, device="cpu", seed=0,
                        policy_kwargs={"net_arch": [32], "activation_fn": nn.Tanh})
    fit(model.policy, data, epochs=30, batch_size=128, learning_rate=3e-3, vf_coef=0.5, seed=0, progress=False)
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(obs[:64]), action_masks=masks[:64]).distribution.probs
    # the distribution is learned, not only its argmax (a hard label would push the first towards 1)
    assert np.allclose(probs.mean(dim=0).numpy()[:3], [0.6, 0.3, 0.1], atol=0.05)


def test_a_value_weight_without_a_search_teacher_or_outside_zero_to_one_or_a_temperature_not_above_zero_is_refused(tmp_path):
    with pytest.raises(ValueError, match="value_weight must be between 0 and 1"):
        D.distill("golf", value_weight=1.5, out=tmp_path, progress=False)
    with pytest.raises(ValueError, match="value_temperature must be > 0"):
        D.distill("golf", value_weight=0.5, value_temperature=0, out=tmp_path, progress=False)
    with pytest.raises(ValueError, match="value_weight needs a search teacher"):
        D.distill("golf", teacher="heuristic", value_weight=0.5, out=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())


def test_an_iteration_on_soft_targets_keeps_the_values_and_resumes_with_its_weight(tmp_path):
    teacher = "pimc:worlds=2,prior=none,rollout=random"
    run = D.distill("golf", teacher=teacher, iterations=1, labels=120, ppo_minutes=0, start="ppo", games=16,
                    deals=2, out=tmp_path, name="soft", progress=False, workers=1, value_weight=0.5,
                    value_temperature=0.2)
    state = json.loads((run / "state.json").read_text())
    assert (state["value_weight"], state["value_temperature"]) == (0.5, 0.2)
    labels = np.load(run / "labels.npz")
    assert "values" in labels and "targets" not in labels and np.isfinite(labels["values"]).any()
    assert 0 <= float(list(csv.DictReader((run / "iterations.csv").open()))[0]["agreement_after"]) <= 1
    state["iterations"] = 2
    (run / "state.json").write_text(json.dumps(state))
    D.distill(None, resume=run, progress=False, workers=1)
    labels = np.load(run / "labels.npz")
    assert len(labels["values"]) == len(labels["actions"]) > 240  # both iterations' values kept, in step
