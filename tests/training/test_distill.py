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
