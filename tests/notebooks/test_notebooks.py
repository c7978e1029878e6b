"""The committed notebooks run top to bottom (at a small budget: CI's tournament games, one PPO
rollout, the training run in a temporary folder), and they are the ones notebooks/build.py writes."""

import sys
from pathlib import Path

import pytest

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: the budget CI runs the notebooks at (each notebook reads these; its defaults are larger)
SMALL_BUDGET = {
    "CARD_ENVS_NB_GAMES": "60",  # games per tournament
    "CARD_ENVS_NB_TIMESTEPS": "4096",  # your_agent.ipynb's PPO training: one rollout
    "MPLBACKEND": "Agg",
}


def _build():
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        import build
    finally:
        sys.path.remove(str(ROOT / "notebooks"))
    return build


def test_the_three_notebooks_are_committed():
    assert {p.name for p in NOTEBOOKS} >= {"tour.ipynb", "compare_policies.ipynb", "your_agent.ipynb"}


def test_every_notebook_build_py_writes_is_committed_and_no_other():
    assert {p.name for p in NOTEBOOKS} == set(_build().NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_runs_top_to_bottom(path, monkeypatch, tmp_path):
    for key, value in SMALL_BUDGET.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CARD_ENVS_NB_RUNS", str(tmp_path / "runs"))  # a training run leaves nothing in the checkout
    nb = nbformat.read(path, as_version=4)
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed without outputs from a real run"
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_matches_its_source_in_build_py(path):
    cells = _build().NOTEBOOKS[path.name]
    nb = nbformat.read(path, as_version=4)
    assert [c.source for c in nb.cells] == [c.source for c in cells], "regenerate with python notebooks/build.py --execute"
