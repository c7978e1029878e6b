"""The three packages are layers: ``card_envs`` (the environments) imports neither ``agents`` nor
``training``; ``agents`` (players) never imports ``training``. Checked on the source (every import
statement, at the top or inside a function), so it holds for paths no test reaches. Where the
environments need an agent (a record played by agent specs) they find the agents package through
the ``card_envs.agents`` entry points, not by import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BELOW = {"card_envs": {"agents", "training"}, "agents": {"training"}}


def _imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", sorted(BELOW))
def test_no_package_imports_a_layer_above_it(package):
    bad = {str(p.relative_to(ROOT)): sorted(_imported(p) & BELOW[package])
           for p in sorted((ROOT / package).rglob("*.py")) if _imported(p) & BELOW[package]}
    assert not bad, f"imports against the layers: {bad}"


def test_a_record_still_plays_agent_specs_through_the_entry_points():
    from card_envs import records

    rec = records.record("golf", ["heuristic", "random"], {"num_players": 2, "num_rounds": 1}, seed=3)
    assert rec["agents"] == ["heuristic", "random"]
    assert records.agents_hook("load") is not None and records.agents_hook("parse_spec") is not None
