"""The committed notebooks run top to bottom (at a small budget: CI's tournament games, one PPO
rollout, the training run in a temporary folder, on this checkout's code), they are the ones
notebooks/build.py writes, and their outputs are current: executed against this checkout's
shipped policies, heuristics, score cards and library version (the fingerprint build.py
defines), at the budget build.py states. Changing any of those files without re-executing the
notebooks fails here, naming ``python notebooks/build.py --execute``."""

import copy
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

import nbformat

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: the budget CI runs the notebooks at (each notebook reads these; its defaults are larger)
SMALL_BUDGET = {
    "CARD_ENVS_NB_GAMES": "60",  # games per tournament
    "CARD_ENVS_NB_TIMESTEPS": "4096",  # your_agent.ipynb's PPO training: rounded up to one rollout
    "MPLBACKEND": "Agg",
}


def _build():
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        import build
    finally:
        sys.path.remove(str(ROOT / "notebooks"))
    return build


def _inputs() -> list[str]:
    """The checkout's fingerprint inputs, by relative path."""
    return list(_build().executed_against()["files"])


def test_the_three_notebooks_are_committed():
    assert {p.name for p in NOTEBOOKS} >= {"tour.ipynb", "compare_policies.ipynb", "your_agent.ipynb"}


def test_every_notebook_build_py_writes_is_committed_and_no_other():
    assert {p.name for p in NOTEBOOKS} == set(_build().NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_runs_top_to_bottom(path, monkeypatch, tmp_path):
    monkeypatch.setenv("CARD_ENVS_NB_RUNS", str(tmp_path / "runs"))  # a training run leaves nothing in the checkout
    nb = nbformat.read(path, as_version=4)
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed without outputs from a real run"
    _build().execute_notebook(nb, SMALL_BUDGET, timeout=600)  # raises if the kernel ran another copy of the code
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_matches_its_source_in_build_py(path):
    cells = _build().NOTEBOOKS[path.name]
    nb = nbformat.read(path, as_version=4)
    assert [c.source for c in nb.cells] == [c.source for c in cells], "regenerate with python notebooks/build.py --execute"


# --------------------------------------------------------------------- what the outputs describe
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_committed_outputs_were_executed_against_this_checkout(path):
    build = _build()
    why = build.staleness(nbformat.read(path, as_version=4), path.name)
    assert why is None, f"{path.name}: {why}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_committed_outputs_record_the_budget_build_py_states(path):
    recorded = nbformat.read(path, as_version=4).metadata["card_envs"]
    assert recorded["budget"] == _build().COMMITTED_BUDGET
    assert recorded["regenerate"] == "python notebooks/build.py --execute"


def test_the_fingerprint_covers_every_shipped_policy_and_heuristic_and_the_version():
    build = _build()
    recorded = build.executed_against()
    files = set(recorded["files"])
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "agents" / "pretrained").glob("*.zip")}
    heuristics = {p.relative_to(ROOT).as_posix() for p in (ROOT / "agents" / "heuristics").rglob("*.py")}
    assert shipped and shipped <= files
    assert heuristics and heuristics <= files and "agents/heuristic.py" in files
    assert {p.relative_to(ROOT).as_posix() for p in (ROOT / "benchmarks" / "scorecards").rglob("*.json")} <= files
    import card_envs

    assert recorded["card_envs"] == card_envs.__version__
    for name, digest in recorded["files"].items():
        assert re.fullmatch(r"[0-9a-f]{64}", digest), name


@pytest.fixture(scope="module")
def checkout_copy(tmp_path_factory):
    """The fingerprint's inputs of this checkout (and card_envs/__init__.py, for the version)
    copied to a folder of their own, with the committed notebooks."""
    copy = tmp_path_factory.mktemp("checkout")
    for name in _inputs() + ["card_envs/__init__.py"] + [f"notebooks/{p.name}" for p in NOTEBOOKS]:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, copy / name)
    return copy


def _stamped(build, root: Path):
    """A notebook of build.py's cells recording what ``root`` holds now: current there."""
    nb = nbformat.v4.new_notebook(cells=copy.deepcopy(build.NOTEBOOKS["tour.ipynb"]))
    nb.metadata["card_envs"] = {"executed_against": build.executed_against(root), "budget": build.COMMITTED_BUDGET}
    return nb


def test_the_fingerprint_is_the_same_in_another_folder_and_with_other_line_endings(checkout_copy, tmp_path):
    build = _build()
    assert build.executed_against(checkout_copy) == build.executed_against(ROOT)
    crlf = tmp_path / "crlf"
    shutil.copytree(checkout_copy, crlf)
    for name in _inputs():
        if not name.endswith(".zip"):
            path = crlf / name
            path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    assert build.executed_against(crlf)["fingerprint"] == build.executed_against(ROOT)["fingerprint"]


@pytest.mark.parametrize("name", _inputs())
def test_changing_one_byte_of_any_input_without_re_executing_makes_the_notebooks_stale(checkout_copy, name):
    build = _build()
    fresh = _stamped(build, checkout_copy)
    assert build.staleness(fresh, "tour.ipynb", checkout_copy) is None
    committed = {p.name: nbformat.read(checkout_copy / "notebooks" / p.name, as_version=4) for p in NOTEBOOKS}
    path = checkout_copy / name
    original = path.read_bytes()
    changed = bytearray(original)
    changed[len(changed) // 2] ^= 0x01
    path.write_bytes(bytes(changed))
    try:
        for nb_name, nb in [("tour.ipynb", fresh), *committed.items()]:
            why = build.staleness(nb, nb_name, checkout_copy)
            assert why is not None, f"{nb_name} is not stale after {name} changed"
            assert f"{name} (changed)" in why and "python notebooks/build.py --execute" in why, why
    finally:
        path.write_bytes(original)
    assert build.staleness(fresh, "tour.ipynb", checkout_copy) is None


def test_a_policy_added_or_removed_or_a_new_version_makes_the_notebooks_stale(checkout_copy, tmp_path):
    build = _build()
    root = tmp_path / "checkout"
    shutil.copytree(checkout_copy, root)
    fresh = _stamped(build, root)
    added = root / "agents" / "pretrained" / "another_v0.zip"
    shutil.copyfile(root / "agents" / "pretrained" / "golf_v0.zip", added)
    assert "agents/pretrained/another_v0.zip (added)" in build.staleness(fresh, "tour.ipynb", root)
    added.unlink()
    removed = root / "agents" / "pretrained" / "hot_v0.zip"
    removed.unlink()
    assert "agents/pretrained/hot_v0.zip (removed)" in build.staleness(fresh, "tour.ipynb", root)
    shutil.copyfile(checkout_copy / "agents" / "pretrained" / "hot_v0.zip", removed)
    assert build.staleness(fresh, "tour.ipynb", root) is None
    init = root / "card_envs" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "[^"]+"', '__version__ = "99.0.0"', init.read_text()))
    assert "card_envs " in build.staleness(fresh, "tour.ipynb", root) and "-> 99.0.0" in build.staleness(fresh, "tour.ipynb", root)


def test_a_notebook_without_its_record_or_with_other_cells_is_stale():
    build = _build()
    bare = nbformat.v4.new_notebook(cells=copy.deepcopy(build.NOTEBOOKS["tour.ipynb"]))
    assert "records nothing" in build.staleness(bare, "tour.ipynb")
    edited = _stamped(build, ROOT)
    edited.cells[0].source += " (edited by hand)"
    assert build.staleness(edited, "tour.ipynb").startswith("its cells are not those of notebooks/build.py: regenerate")


def test_a_kernel_that_imported_another_copy_of_the_library_is_refused(tmp_path):
    build = _build()
    build.check_origins({"card_envs": str(ROOT / "card_envs" / "__init__.py")}, ROOT)
    with pytest.raises(RuntimeError, match="another copy of the library"):
        build.check_origins({"card_envs": str(ROOT / "card_envs" / "__init__.py"),
                             "agents": str(tmp_path / "agents" / "__init__.py")}, ROOT)


# ------------------------------------------------------------------ what the outputs say
def _outputs(name: str) -> str:
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                     if o.output_type == "stream")


PAIR = re.compile(r"^  (\w+) vs (\w+): here ([-+]\d\.\d+) \[([-+]\d\.\d+), ([-+]\d\.\d+)\] over (\d+) games.*?; "
                  r"leaderboard ([-+]\d\.\d+) \[([-+]\d\.\d+), ([-+]\d\.\d+)\] over (\d+) games.*: (.*)\.$", re.M)


def test_the_committed_golf_comparison_agrees_with_the_leaderboards_head_to_head():
    """The saved comparison of the shipped PPO and the heuristic points the leaderboard's way:
    its interval overlaps the score cards' (read now) and its estimate has the same sign."""
    from training import leaderboard

    text = _outputs("compare_policies.ipynb")
    assert "golf_v0 {'num_players': 2, 'num_rounds': 1}" in text, "the comparison is Golf's at the policy's table"
    pairs = {(m[0], m[1]): m for m in PAIR.findall(text)}
    assert {frozenset(p) for p in pairs} >= {frozenset(("ppo", "heuristic")), frozenset(("heuristic", "random")),
                                            frozenset(("ppo", "random"))}, text
    shown = leaderboard.measured()
    for (a, b), m in pairs.items():
        mean, low, high = (float(x) for x in m[2:5])
        games = int(m[5])
        card = next(r for r in shown[a]["golf_v0"][1]["results"] if r["opponent"] == b)
        assert low <= card["reward_high"] and high >= card["reward_low"], f"{a} vs {b}: {m}"
        assert (mean > 0) == (card["mean_reward"] > 0), f"{a} vs {b}: the direction differs from the leaderboard's"
        assert games >= 2000, "enough games for the interval to settle a close pair"
        assert m[10].startswith("agree"), m[10]
    heads = next(m for (a, b), m in pairs.items() if {a, b} == {"ppo", "heuristic"})
    assert float(heads[3]) > 0 or float(heads[4]) < 0, "the interval of the close pair settles its direction"


def test_the_tour_sets_its_evaluation_beside_the_leaderboard():
    text = _outputs("tour.ipynb")
    assert "docs/results/leaderboard.md#golf-v0" in text
    pairs = PAIR.findall(text)
    assert [(m[0], m[1]) for m in pairs] == [("heuristic", "random")]
    assert pairs[0][10].startswith("agree")


@pytest.mark.parametrize("name", ["tour.ipynb", "compare_policies.ipynb"])
def test_a_notebook_comparing_what_the_leaderboard_reports_links_its_row(name):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "(../results/leaderboard.md#golf-v0)" in text
    assert "leaderboard.compare(result)" in "\n".join(c.source for c in nb.cells if c.cell_type == "code")


def test_the_metadata_is_json_a_reader_can_check():
    """What each notebook was executed against reads without the project: plain JSON."""
    for path in NOTEBOOKS:
        recorded = json.loads(path.read_text())["metadata"]["card_envs"]["executed_against"]
        assert set(recorded) == {"fingerprint", "card_envs", "files"}
