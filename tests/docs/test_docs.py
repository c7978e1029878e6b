"""The documentation site stays true: every registered game has its environment page with every
section in the order users know, the default table's spaces on top, and its rules page; every
Python block of the guides and the README runs on its own, and prints what the page says it
prints; every internal link resolves; the install page and the extras agree with pyproject; the
README's generated tables are current and its test command is the one CI runs. (The shell
commands the pages show: ``test_commands.py``.)"""

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

FENCE = re.compile(r"^```python\n(.*?)^```\n", re.S | re.M)
#: a page shows a block's printed output in a ``text`` block right after it
OUTPUT = re.compile(r"\n*(?:[^\n`]*\n\n)?```text\n(.*?)^```", re.S | re.M)
GUIDES = sorted((DOCS / "guides").glob("*.md"))
#: guides without Python to run: Ray's cluster commands (the distributed tests run them), the list
#: of notebooks (run by tests/notebooks), the map of the repository and the installation
COMMANDS_ONLY = {"scale_out.md", "notebooks.md", "layout.md", "installation.md"}
PAGES_WITH_CODE = [p for p in GUIDES if FENCE.search(p.read_text())] + [ROOT / "README.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("game", generate.GAMES)
def test_every_environment_page_has_every_section_in_order(game):
    page = generate.environment_page(game)
    headings = [line[3:] for line in page.splitlines() if line.startswith("## ")]
    assert headings == list(generate.SECTIONS), f"{game}: sections {headings}"
    for title in generate.SECTIONS:  # none of them empty
        body = page.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
        assert body.strip(), f"{game}: section {title!r} is empty"
    top = page.split("## Description", 1)[0]
    assert generate.picture(game) in top, "the game in motion comes before the description"
    gif = (DOCS / "environments" / generate.picture(game)).resolve()
    if gif.exists():  # a game without a committed animation gets one at the build (below)
        assert gif.stat().st_size < 200_000, "the animated picture is small"
    assert "| Segment |" in page  # the observation layout table


@pytest.mark.parametrize("game", generate.GAMES)
def test_the_top_of_an_environment_page_shows_the_default_tables_spaces(game):
    """The properties table, before anything else, gives the spaces of ``env()`` with no options:
    their concrete shapes and value ranges, as the environment builds them."""
    import card_envs

    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    env = module.env()
    agent = env.possible_agents[0]
    box, actions = env.observation_space(agent)["observation"], env.action_space(agent)
    top = generate.environment_page(game).split("## Description", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in top.splitlines() if line.startswith("| ")}
    for name in ("Import", "Agents", "Action space", "Observation space", "Parallel API", "Batched engine",
                 "Registry id"):
        assert name in rows, f"{game}: no {name} row"
    assert f"`Discrete({actions.n})`" in rows["Action space"]
    assert f"Box(({box.shape[0]},), float32)" in rows["Observation space"]
    assert f"Box(0, 1, ({actions.n},), int8)" in rows["Observation space"]
    assert f"entries in [{float(box.low.min()):g}, {float(box.high.max()):g}]" in rows["Observation space"]
    bench = module.env(**module.BENCHMARK_CONFIG).observation_space(agent)["observation"].shape
    assert f"`{bench}` at the benchmark table" in rows["Observation space"]
    assert ("yes" in rows["Parallel API"]) == hasattr(module, "parallel_env")
    assert f"`card_envs/{game}-v0`" in rows["Registry id"]
    import pettingzoo

    assert pettingzoo.make("aec", f"card_envs/{game}-v0").metadata["name"] == f"{game}_v0"
    # the layout shown is the default table's, segment by segment
    assert env.unwrapped.observation_layout.table() in generate.environment_page(game)
    assert re.search(rf"{game}_v0\.env\(\)(`|</code>): {box.shape[0]} floats", generate.environment_page(game))


@pytest.mark.parametrize("game", generate.GAMES)
def test_an_environment_page_links_its_rules_results_policy_and_how_to_play_it(game):
    see_also = generate.environment_page(game).split("## See also\n", 1)[1].split("\n## ", 1)[0]
    for target in (f"../rules/{game}.md", f"../results/leaderboard.md#{game}-v0", f"../results/policies.md#{game}-v0",
                   "../guides/web.md"):
        assert f"]({target})" in see_also, f"{game}: no link to {target}"
    assert f"python -m agents.play {game}" in see_also
    assert ":mod:" not in generate.environment_page(game), "a raw Sphinx role in Markdown"


def _released() -> set[str]:
    return set(re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M))


@pytest.mark.parametrize("game", generate.GAMES)
def test_every_version_history_entry_names_the_release_that_shipped_it(game):
    history = generate.environment_page(game).split("## Version history\n", 1)[1].split("\n## ", 1)[0]
    entries = [line for line in history.splitlines() if line.startswith("- ")]
    assert entries and entries[0].startswith(f"- `v0`, library 0.1.0: first release")
    for entry in entries:
        found = re.match(r"- `v(\d+)`, library (\d+\.\d+\.\d+)", entry)
        assert found, f"{game}: {entry[:60]!r} names no environment and library version"
        assert found.group(2) in _released(), f"{game}: library {found.group(2)} is no release in the CHANGELOG"


@pytest.fixture(scope="module")
def written() -> list[Path]:
    return generate.write_all()


@pytest.mark.parametrize("game", generate.GAMES)
def test_every_game_has_its_rules_page_and_its_picture(game, written):
    assert (DOCS / "rules" / f"{game}.md").exists(), \
        f"no rules page for {game}: write docs/rules/{game}.md, the game's complete rules in the project's own words"
    shown = (DOCS / "environments" / generate.picture(game)).resolve()
    assert shown.exists(), f"{game}: no animated picture at {shown}"


def test_a_game_without_its_rules_page_is_named(monkeypatch):
    monkeypatch.setattr(generate, "DOCS", DOCS / "no-such-folder")
    with pytest.raises(ValueError, match="write docs/rules/golf.md"):
        generate.environment_page("golf")


def test_a_page_without_a_section_is_refused(monkeypatch):
    import card_envs

    module = card_envs.ENVIRONMENTS["golf_v0"]
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace("## Arguments", "## Settings"))
    with pytest.raises(ValueError, match="Arguments"):
        generate.environment_page("golf")
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace("## Settings", "## Arguments").replace(
        "## Rewards", "## Payoffs"))
    with pytest.raises(ValueError, match="Rewards"):
        generate.environment_page("golf")


# ------------------------------------------------------------------------------ python blocks
def _blocks(page: Path) -> list[tuple[str, str | None]]:
    """The page's ``python`` blocks, each with the ``text`` block right after it (its printed
    output, where the page shows one) or None."""
    text = page.read_text()
    out = []
    for m in FENCE.finditer(text):
        after = OUTPUT.match(text, m.end())
        out.append((m.group(1), after.group(1) if after else None))
    return out


BLOCKS = [pytest.param(page, k, id=f"{page.name}-{k}") for page in PAGES_WITH_CODE for k in range(len(_blocks(page)))]


def _run_block(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "block.py"
    script.write_text(code)
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("page, k", BLOCKS)
def test_every_python_block_runs_on_its_own(page, k, tmp_path):
    """Each ``python`` block in a fresh interpreter of its own (a scratch folder), as a reader
    copies one; a block followed by a ``text`` block must print exactly that."""
    code, shown = _blocks(page)[k]
    done = _run_block(code, tmp_path)
    assert done.returncode == 0, f"{page.name}'s block {k} failed on its own:\n{done.stderr[-3000:]}"
    if shown is not None:
        assert done.stdout == shown, f"{page.name}'s block {k} printed\n{done.stdout}\nbut the page shows\n{shown}"


def test_the_first_example_prints_the_same_on_every_run_and_the_page_shows_it(tmp_path):
    readme = _blocks(ROOT / "README.md")
    first = _blocks(DOCS / "guides" / "first_game.md")
    assert readme[0][1] is not None and readme[0] == first[0], "the README's example is the first game's, output too"
    outputs = {_run_block(readme[0][0], tmp_path).stdout for _ in range(3)}
    assert outputs == {readme[0][1]}, f"three runs printed {outputs}"
    assert "# {" not in readme[0][0], "an output in a comment is not checked: show it in a text block"


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


# ------------------------------------------------------------------------------ installation
def _extras() -> dict[str, list[str]]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_install_page_puts_the_environments_first_then_each_extra_with_its_purpose():
    import tomllib

    page = (DOCS / "guides" / "installation.md").read_text()
    headings = [line[3:] for line in page.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["The environments", "Extras, each for one job"], headings
    environments = page.split("## The environments", 1)[1].split("\n## ", 1)[0]
    assert "    pip install -e .\n" in environments
    base = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for name in _names(base):
        assert f"**{name}**" in environments, f"the environments' page does not say they pull in {name}"
    extras = page.split("## Extras, each for one job", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip().strip("`"): line for line in extras.splitlines() if line.startswith("| `")}
    for extra in set(_extras()) - {"all", "bench"}:
        assert extra in rows, f"the install page does not explain the {extra!r} extra"
        assert f'pip install -e ".[{extra}]"' in rows[extra], f"{extra}: not spelled as a checkout user types it"
    order = list(rows)
    assert order[:5] == ["vector", "train", "web", "openspiel", "docs"], order


def test_no_page_or_message_spells_an_extra_as_if_card_envs_were_on_a_package_index():
    """card_envs is installed from its checkout: ``pip install card_envs[vector]`` finds nothing."""
    files = _markdown_files() + sorted((ROOT / "card_envs").rglob("*.py")) + sorted((ROOT / "training").rglob("*.py"))
    wrong = [f"{f.relative_to(ROOT)}" for f in files
             if re.search(r"card_envs\[\w", f.read_text()) and f.name != "CHANGELOG.md"]
    assert not wrong, f"'card_envs[extra]' spelled in {wrong}: write pip install -e \".[extra]\""


def test_the_docs_extra_is_the_site_builder_alone():
    assert _names(_extras()["docs"]) == {"sphinx", "furo", "myst-parser", "myst-nb"}


@pytest.mark.slow
def test_the_site_builds_with_the_library_and_the_docs_extra_alone(tmp_path):
    """Every package the other extras install made unimportable, the site still builds with every
    warning an error: the ``docs`` extra is what the build needs."""
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs" / "only_base_and_docs.py"), "sphinx", "-W",
                           "--keep-going", "-q", "-b", "html", str(DOCS), str(tmp_path / "html")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]



# ------------------------------------------------------------------------------ notebooks
def test_the_build_warns_on_a_notebook_executed_against_another_checkout(tmp_path, caplog):
    """The site renders the notebooks' saved outputs: one whose outputs no longer describe the
    checkout (a shipped policy changed since it ran) is a warning of the build, an error under
    ``-W``, naming the command that regenerates it; current notebooks are not."""
    import shutil

    build = generate.notebooks_build()
    for name in list(build.executed_against()["files"]) + ["card_envs/__init__.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    import nbformat

    (tmp_path / "notebooks").mkdir()
    for name, cells in build.NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook(cells=cells)
        nb.metadata["card_envs"] = {"executed_against": build.executed_against(tmp_path)}
        nbformat.write(nb, tmp_path / "notebooks" / name)
    assert generate.stale_notebooks(tmp_path) == {}
    assert generate.warn_stale_notebooks(None, tmp_path) == []

    policy = tmp_path / "agents" / "pretrained" / "golf_v0.zip"
    data = bytearray(policy.read_bytes())
    data[-1] ^= 0xFF
    policy.write_bytes(bytes(data))
    with caplog.at_level("WARNING"):
        warned = generate.warn_stale_notebooks(None, tmp_path)
    assert len(warned) == len(build.NOTEBOOKS)
    for line in warned:
        assert "agents/pretrained/golf_v0.zip (changed)" in line and "python notebooks/build.py --execute" in line
    assert any("stale notebook" in r.getMessage() for r in caplog.records), "logged as Sphinx warnings"


def test_the_committed_notebooks_are_current_for_the_site():
    assert generate.stale_notebooks() == {}, "regenerate them: python notebooks/build.py --execute"
