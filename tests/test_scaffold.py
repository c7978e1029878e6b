"""A new game is one folder: ``python -m card_envs.scaffold NAME`` writes the template game, complete,
into a copy of this checkout (its folder, its public module, its test cases, its rules page and
the one registry line, then what is generated from the registry), and the game passes as written:

- in the default suite, a smaller part (the contract, PettingZoo's API tests, the golden
  transcript and the hidden-information test on the new game, and a game whose test cases file
  is missing failing alone, by name);
- in the slow suite, which CI runs, the whole conformance suite on the new game and the
  documentation build with every warning an error.

Bad names are refused with a clear error, and the scaffold never writes over a file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs import scaffold

ROOT = Path(__file__).resolve().parents[1]
NAME = "tiny_shed"
#: what the scaffold writes, and what it changes (the registry line, the generated tables)
WRITTEN = sorted([f"card_envs/{NAME}/{m}.py" for m in ("__init__", "rules", "view", "state", "env", "kernels",
                                                     "picture", "worlds")]
                 + [f"card_envs/{NAME}_v0.py", f"tests/cases/{NAME}.py", f"docs/rules/{NAME}.md",
                    f"tests/playthroughs/{NAME}_v0.txt"])
CHANGED = ["README.md", "card_envs/__init__.py", "docs/guides/search.md"]


def copy_checkout(dest: Path) -> Path:
    """This checkout's files (tracked, and untracked ones git does not ignore) in ``dest``."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: everything but builds and caches
        listed = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                  and not {".git", "__pycache__", "_build", "runs"} & set(p.relative_to(ROOT).parts)]
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    return dest


def run(copy: Path, *argv: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """A Python command in the copy, its packages (not this checkout's) first on the path."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *argv], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory) -> Path:
    copy = copy_checkout(tmp_path_factory.mktemp("checkout"))
    before = files(copy)
    done = run(copy, "-m", "card_envs.scaffold", NAME)
    assert done.returncode == 0, done.stderr
    after = files(copy)
    assert sorted(set(after) - set(before)) == WRITTEN, "the scaffold writes the game's files and nothing else"
    assert sorted(k for k in before if after.get(k) != before[k]) == CHANGED
    registry = (copy / "card_envs" / "__init__.py").read_text().splitlines()
    assert [line for line in registry if line not in (ROOT / "card_envs" / "__init__.py").read_text().splitlines()] \
        == [f'    "{NAME}",'], "registering the game is one line"
    return copy


def test_a_scaffolded_game_keeps_the_contract_plays_and_hides_what_it_should(scaffolded):
    done = run(scaffolded, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-k", NAME,
               "tests/conformance/test_contract.py", "tests/conformance/test_api.py",
               "tests/conformance/test_playthroughs.py", "tests/conformance/test_hidden_information.py",
               "tests/cases/test_cases.py")
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout


def test_a_game_without_its_test_cases_fails_alone_naming_the_file(scaffolded):
    from tests import cases

    mine = scaffolded / "tests" / "cases" / f"{NAME}.py"
    kept = mine.read_text()
    mine.unlink()
    try:
        done = run(scaffolded, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-rf",
                   "-k", f"{NAME} or golf", "tests/conformance/test_api.py")
    finally:
        mine.write_text(kept)
    assert done.returncode == 1, done.stdout[-4000:]
    assert f"no test cases for {NAME}_v0: create tests/cases/{NAME}.py" in done.stdout
    golf = 4 * len(cases.of("golf").CONFORMANCE_CONFIGS)  # test_api's 4 tests a configuration
    assert f"4 failed, {golf} passed" in done.stdout, "the other games' tests are collected and run as usual"


@pytest.mark.slow
def test_a_scaffolded_game_passes_the_whole_conformance_suite_and_the_docs_build(scaffolded, tmp_path):
    conformance = run(scaffolded, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-k", NAME,
                      "tests/conformance", timeout=1500)
    assert conformance.returncode == 0, conformance.stdout[-6000:]
    assert "skipped" not in conformance.stdout
    assert int(conformance.stdout.split(" passed")[0].split()[-1]) >= 100, "every conformance test ran on the game"
    docs = run(scaffolded, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", str(tmp_path / "html"))
    assert docs.returncode == 0, docs.stderr[-4000:]
    page = (tmp_path / "html" / "environments" / f"{NAME}.html").read_text()
    assert "Tiny Shed" in page and "the rules" in (tmp_path / "html" / "rules" / f"{NAME}.html").read_text()


# ------------------------------------------------------------------------------ bad names
@pytest.fixture
def bare_checkout(tmp_path) -> Path:
    """The parts of a checkout the scaffold reads before writing (nothing is written on a refusal)."""
    for rel in ("card_envs/__init__.py", "docs/rules/golf.md", "tests/cases/golf.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, tmp_path / rel)
    (tmp_path / "card_envs" / "base.py").write_text("")
    return tmp_path


@pytest.mark.parametrize("name, said", [
    ("9lives", "must be a lowercase Python identifier"),
    ("Crazy", "must be a lowercase Python identifier"),
    ("crazy-eights", "must be a lowercase Python identifier"),
    ("class", "is a Python keyword"),
    ("crazy_v1", "ends in a version"),
    ("golf", "'golf' is a registered game already; registered: golf, fiddlesticks"),
    ("base", "would write over card_envs/base.py"),
])
def test_a_bad_name_is_refused_clearly_and_nothing_is_written(bare_checkout, name, said):
    before = files(bare_checkout)
    with pytest.raises(ValueError, match=said):
        scaffold.scaffold(name, bare_checkout)
    assert files(bare_checkout) == before


def test_the_scaffold_never_writes_over_a_file(bare_checkout):
    (bare_checkout / "tests" / "cases" / "crazy.py").write_text("# mine\n")
    (bare_checkout / "docs" / "rules" / "crazy.md").write_text("# mine\n")
    before = files(bare_checkout)
    with pytest.raises(ValueError, match=r"would write over docs/rules/crazy.md, tests/cases/crazy.py"):
        scaffold.scaffold("crazy", bare_checkout)
    assert files(bare_checkout) == before


def test_the_command_says_a_bad_name_in_one_line_and_exits_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "card_envs.scaffold", "9lives"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("error: the game's name must be a lowercase")
    assert len(done.stderr.strip().splitlines()) == 1
    done = subprocess.run([sys.executable, "-m", "card_envs.scaffold", "crazy", "--root", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "is not a card_envs checkout" in done.stderr


def test_the_template_is_no_registered_game_and_fills_every_placeholder():
    import card_envs

    assert "__game__" not in card_envs.REGISTERED
    names = scaffold.Names.of("crazy_eights")
    assert (names.game, names.camel, names.title) == ("crazy_eights", "CrazyEights", "Crazy Eights")
    for source in scaffold.TEMPLATE.rglob(f"*{scaffold.SUFFIX}"):
        filled = names.fill(source.read_text())
        assert "__game__" not in filled and "__Game__" not in filled and "__Title__" not in filled, source
