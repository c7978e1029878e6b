"""The committed notebooks run top to bottom (at a small tournament budget), and they are the
ones notebooks/build.py writes."""

import os
from pathlib import Path

import pytest

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_both_notebooks_are_committed():
    assert {p.name for p in NOTEBOOKS} >= {"tour.ipynb", "compare_policies.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_runs_top_to_bottom(path, monkeypatch):
    monkeypatch.setenv("CARD_ENVS_NB_GAMES", "60")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed without outputs from a real run"
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_matches_its_source_in_build_py(path):
    import sys

    sys.path.insert(0, str(ROOT / "notebooks"))
    import build

    cells = build.NOTEBOOKS[path.name]
    nb = nbformat.read(path, as_version=4)
    assert [c.source for c in nb.cells] == [c.source for c in cells], "regenerate with python notebooks/build.py --execute"
