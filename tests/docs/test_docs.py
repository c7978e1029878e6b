"""The documentation site stays true: every registered game has its environment page with every
section and its rules page, every Python block of the guides and the README runs, every internal
link resolves, the README's generated tables are current and its test command is the one CI runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import generate  # noqa: E402  (docs/_ext/generate.py)

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
GUIDES = sorted((DOCS / "guides").glob("*.md"))
#: guides without Python to run: Ray's cluster commands (the distributed tests run them), the list
#: of notebooks (run by tests/notebooks) and the map of the repository
COMMANDS_ONLY = {"scale_out.md", "notebooks.md", "layout.md"}
PAGES_WITH_CODE = [p for p in GUIDES if FENCE.search(p.read_text())] + [ROOT / "README.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("game", generate.GAMES)
def test_every_environment_page_has_every_section_in_order(game):
    page = generate.environment_page(game)
    headings = [line[3:] for line in page.splitlines() if line.startswith("## ")]
    standard = [h for h in headings if h in generate.SECTIONS]
    assert standard == list(generate.SECTIONS), f"{game}: sections {headings}"
    for title in generate.SECTIONS:  # none of them empty
        body = page.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
        assert body.strip(), f"{game}: section {title!r} is empty"
    assert f"]({generate.picture(game)})" in page, "the page shows the game's picture"
    assert "| Segment |" in page  # the observation layout table


@pytest.fixture(scope="module")
def written() -> list[Path]:
    return generate.write_all()


@pytest.mark.parametrize("game", generate.GAMES)
def test_every_game_has_its_rules_page_and_its_picture(game, written):
    assert (DOCS / "rules" / f"{game}.md").exists(), \
        f"no rules page for {game}: write docs/rules/{game}.md, the game's complete rules in the project's own words"
    shown = (DOCS / "environments" / generate.picture(game)).resolve()
    assert shown.exists(), f"{game}: no picture at {shown}"


def test_a_game_without_its_rules_page_is_named(monkeypatch):
    monkeypatch.setattr(generate, "DOCS", DOCS / "no-such-folder")
    with pytest.raises(ValueError, match="write docs/rules/golf.md"):
        generate.environment_page("golf")


def test_a_page_without_a_section_is_refused(monkeypatch):
    import card_envs

    module = card_envs.ENVIRONMENTS["golf_v0"]
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace("## Options", "## Settings"))
    with pytest.raises(ValueError, match="Options"):
        generate.environment_page("golf")


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_every_python_block_runs(page, tmp_path):
    """The page's ``python`` blocks, run in order in one fresh interpreter (in a scratch folder)."""
    blocks = FENCE.findall(page.read_text())
    script = tmp_path / "page.py"
    script.write_text("\n\n".join(blocks))
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{page.name}'s code failed:\n{done.stderr[-3000:]}"


def test_every_guide_has_code_that_runs():
    without = {p.name for p in GUIDES if not FENCE.search(p.read_text())}
    assert without <= COMMANDS_ONLY, f"guides without a python block: {sorted(without - COMMANDS_ONLY)}"


def _markdown_files():
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md"] + sorted(DOCS.rglob("*.md"))
    return [f for f in files if "_build" not in f.parts]


def test_internal_links_resolve():
    generate.write_all()
    broken = []
    for f in _markdown_files():
        for target in LINK.findall(f.read_text()):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = (f.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                broken.append(f"{f.relative_to(ROOT)}: {target}")
    assert not broken, "links to nothing:\n" + "\n".join(broken)


def _own_lines(text: str) -> list[str]:
    """The README's lines outside its generated blocks (tables of one row a game: they grow with
    the registry, the rest of the README does not)."""
    for start, end in generate.generated_blocks(text):
        head, rest = text.split(start, 1)
        text = head + rest.split(end, 1)[1]
    return text.splitlines()


def test_the_readme_games_table_is_generated_from_the_registry():
    text = (ROOT / "README.md").read_text()
    shown = text.split(generate.GAMES_START, 1)[1].split(generate.GAMES_END, 1)[0]
    assert shown.strip() == generate.games_table().strip(), "run python docs/_ext/generate.py --tables"


def test_the_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text()
    assert len(generate.generated_blocks(text)) == 3
    assert len(_own_lines(text)) <= 150, "the README is a front door: at most 150 lines besides its generated tables"
    commands = [line.strip() for line in text.splitlines() if line.startswith("    pip install torch==2.13.0")]
    assert len(commands) == 2, "the quick start is exactly two commands"
    assert any("training.train" in c for c in commands)
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text()
    # CI runs the same steps: the CPU torch wheel, the dev extra, then the same pytest command
    steps = [part.strip() for part in test_command.split("&&")]
    normalized = re.sub(r"python -m pip install -q ", "pip install ", ci)
    at = 0
    for step in steps:
        found = normalized.find(step, at)
        assert found >= 0, f"CI does not run the README's {step!r} (in order)"
        at = found + len(step)
    for game in generate.GAMES:
        assert f"docs/rules/{game}.md" in text
