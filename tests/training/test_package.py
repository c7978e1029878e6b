"""The training package is one core and two backends: no import cycle, each backend a leaf that
imports only its own framework, and the core imports neither backend nor framework.

Checked on the source (every import statement, at the top or inside a function), so it holds for
the code paths a test would not reach.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "training"
CORE = ["config", "opponents", "runs", "evaluate", "seating", "games", "intervals", "ratings", "results",
        "provenance", "progress", "batched", "single_agent", "baselines", "curves"]
BACKENDS = {"sb3_backend": {"stable_baselines3", "sb3_contrib"}, "rllib_backend": {"ray"}}
FRAMEWORKS = {"stable_baselines3", "sb3_contrib", "ray"}


def imports(module: str) -> set[str]:
    """Every module ``training/<module>.py`` imports, anywhere in the file."""
    tree = ast.parse((ROOT / f"{module}.py").read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            if node.module == "training":
                out |= {f"training.{a.name}" for a in node.names}
    return out


def training_imports(module: str) -> set[str]:
    return {m.split(".")[1] for m in imports(module) if m.startswith("training.")}


def test_the_core_imports_no_backend_and_no_framework():
    for module in CORE:
        mine = imports(module)
        assert not training_imports(module) & (set(BACKENDS) | {"train", "selfplay"}), module
        assert not {m.split(".")[0] for m in mine} & FRAMEWORKS, f"training/{module}.py imports a framework"


def test_each_backend_is_a_leaf_that_imports_only_its_own_framework():
    for backend, own in BACKENDS.items():
        mine = {m.split(".")[0] for m in imports(backend)}
        assert not (FRAMEWORKS - own) & mine, f"{backend} imports another backend's framework"
        assert not training_imports(backend) & ({"train"} | set(BACKENDS) - {backend}), backend
    assert "rllib_backend" not in training_imports("sb3_backend")


def test_the_command_line_imports_backends_only_inside_functions():
    tree = ast.parse((ROOT / "train.py").read_text())
    top = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            top.add(node.module)
            top |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            top |= {a.name for a in node.names}
    assert not {m.split(".")[0] for m in top} & FRAMEWORKS
    assert not any(b in m for m in top for b in BACKENDS)


def test_no_import_cycle_in_the_package():
    modules = [p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"]
    graph = {m: training_imports(m) & set(modules) for m in modules}

    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    for m in modules:
        assert m not in reach(m), f"training/{m}.py imports itself through {sorted(graph[m])}"


#: the most lines a module of the training package, and a function in it, may have: a module
#: holds one job and a function one step of it (the RLlib backend was split by job to keep this)
MODULE_LINES, FUNCTION_LINES = 600, 120


def test_no_module_and_no_function_of_the_training_package_is_too_long():
    too_long = []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text()
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            too_long.append(f"training/{path.relative_to(ROOT)}: {lines} lines (at most {MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION_LINES:
                    too_long.append(f"training/{path.relative_to(ROOT)}: {node.name} is {length} lines "
                                    f"(at most {FUNCTION_LINES})")
    assert not too_long, "split by job:\n" + "\n".join(too_long)
    assert len(list(ROOT.rglob("*.py"))) > 20, "the training package was found"
