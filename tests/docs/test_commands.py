"""Every shell command the README and the guides show runs as written, at a small budget, from a
folder outside the checkout.

**What is a command.** A line of a ``console``, ``bash``, ``sh`` or ``shell`` block (a leading
``$ `` dropped, ``\\`` continuations joined), a line of an indented code block that starts with
``python``, ``pip`` or ``ray``, and inline code that starts with ``python `` or ``pip ``. A comment
after two spaces and ``#`` is not part of it.

**What is not run, and why** (:data:`SKIPPED`, each rule with its reason, in this order):

- a *template*: a command holding a placeholder, ``<...>``, ``...`` or a word in capitals
  (``RUN``, ``FILE``, ``CARD.json``, ``KEY=VALUE``, ``HEAD_IP``, ``N``): the reader fills it in;
- ``pip install`` steps: an ``&&`` chain runs without them (this environment has every extra;
  CI installs them, and installs the wheel in a fresh virtual environment); a command that is only
  installs is not run here;
- the test suite itself (``python -m pytest``): CI runs it (``.ci/run``, the README's command);
- Ray: ``--backend rllib``, ``ray ...`` and the scale-out benchmark need the ``distributed`` extra,
  which CI installs in a virtual environment of its own and runs the README's RLlib command in.

**How it runs.** In a fresh temporary folder, the checkout's code on ``PYTHONPATH``, the commands
of one page in the order the page shows them, so a file one writes is there for the next; in a
temporary copy of the checkout's files instead when the command names one of its folders
(``docs/``, ``benchmarks/``, ...), builds it (``pip wheel .``) or rewrites the project's own files
(:data:`WRITES_PROJECT`: then with the copy's code), and nothing is ever written into the
checkout (checked). The budget is made small by rewriting the flags that set it (:func:`smoke`):
``--games N`` to 4, ``--minutes M`` and ``--timesteps T`` to one small rollout, and the flags of
:data:`BUDGET` added where a command sets no budget of its own; ``--record`` (into the project's
recorded results) writes its row with ``--json`` in the temporary folder instead. A server
(``card_envs.web``, ``http.server``) is started on a free port, must answer, and is stopped; the
terminal game (``agents.play``) reads ``quit``. A command fails the test on a non-zero exit
status. The costly commands (training, benchmarks, the site build, screenshots: :data:`SLOW`) are
marked ``slow``; CI runs them, and runs a slow command shown on several pages once.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import SET_FOR_TESTS

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs" / "guides").glob("*.md"))

FENCED = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
SHELLS = {"console", "bash", "sh", "shell"}
INDENTED = re.compile(r"^    (?:\$ )?((?:python|pip|ray) .*)$", re.M)
INLINE = re.compile(r"`((?:python|pip) [^`]+)`")

#: placeholders: <...>, ..., a word in capitals (RUN, FILE, KEY=VALUE, HEAD_IP, N)
TEMPLATE = re.compile(r"<[^>]+>|\.\.\.|(?<![\w.\-=])[A-Z][A-Z0-9_]*(?![a-z])")
#: the commands not run here, each rule with its reason
SKIPPED = (
    (lambda c: bool(TEMPLATE.search(c)), "a template: it holds a placeholder the reader fills in"),
    (lambda c: not c.strip(), "only installs: CI installs every extra, and the wheel in a fresh virtualenv"),
    (lambda c: c.startswith("python -m pytest"), "the test suite: CI runs it (.ci/run)"),
    (lambda c: "--backend rllib" in c or c.startswith("ray ") or "bench_scale_out" in c,
     "Ray: the distributed extra's own virtualenv in CI runs the README's RLlib command"),
)
#: modules whose commands cost minutes at any budget (training, measuring, building): the slow suite
SLOW = ("training.train", "training.exploit", "training.benchmark", "training.openspiel_nfsp", "training.distill",
        "benchmarks",
        "bench_", "sphinx", "card_envs.web.browser", "card_envs.pictures", "pip wheel", "for a in")
#: games a command plays (``--games N`` becomes this): enough for a records file to hold a game 3
GAMES = 4
#: budget flags added to a module's command that does not set them itself (``--config`` is always
#: added: its items are laid over the command's own)
BUDGET = {
    "training.train": [("--config", ["eval.final_games=2", "eval.games=2", "eval.every=100000000", "n_envs=16"]),
                       ("--timesteps", ["1024"]), ("--no-progress", [])],
    "training.exploit": [("--deals", ["2"]), ("--select-deals", ["2"]), ("--timesteps", ["1024"]), ("--no-progress", [])],
    "training.benchmark": [("--games", ["2"]), ("--only", ["golf"]), ("--no-timing", []), ("--no-progress", [])],
    "training.openspiel_nfsp": [("--minutes", ["0.02"]), ("--games", ["2"]), ("--no-progress", [])],
    "benchmarks.bench_search": [("--games", ["2"]), ("--only", ["golf"])],
    "benchmarks.bench_threads": [("--seconds", ["1"])],
    "training.evaluate": [("--games", [str(GAMES)])],
    "training.distill": [("--iterations", ["1"]), ("--labels", ["64"]), ("--ppo-minutes", ["0"]), ("--start", ["ppo"]),
                         ("--deals", ["2"]), ("--workers", ["1"]), ("--no-progress", [])],
    "benchmarks/bench_policy_threads.py": [("--rounds", ["1"]), ("--seconds", ["0.05"]), ("--decisions", ["8"])],
    "benchmarks/bench_vector.py": [("--game", ["golf_v0"]), ("--seconds", ["0.3"]), ("--warm", ["0.2"]), ("--turn-rounds", ["1"]), ("--no-users", []),
                                   ("--no-write", [])],
}
#: the checkout's folders: a command naming one runs in a copy of the checkout
CHECKOUT = ("docs", "benchmarks", "tests", "notebooks")
#: commands that rewrite the project's own files where its modules lie: they run in a copy of the
#: checkout, its code on PYTHONPATH (the leaderboard into the README, the shipped curves' picture, a
#: new game from the scaffold)
WRITES_PROJECT = (lambda c: "--readme" in c.split(), lambda c: c.split()[:3] == ["python", "-m", "training.curves"]
                  and "--out" not in c.split(), lambda c: c.split()[:3] == ["python", "-m", "card_envs.scaffold"])
#: ``--record`` appends a measurement to the project's recorded results: the test writes the same
#: row with ``--json`` in the temporary folder instead (the project keeps what was measured)
RECORD = ("--record", "--json recorded.json")
SERVERS = ("python -m card_envs.web", "python -m http.server")


def _strip_comment(line: str) -> str:
    return re.split(r"\s{2,}#|\s+#\s", line, maxsplit=1)[0].strip()


def commands(text: str) -> list[str]:
    """The shell commands of a Markdown page, in order (see the module docstring)."""
    found: list[tuple[int, str]] = []
    fenced_spans = []
    for m in FENCED.finditer(text):
        fenced_spans.append(m.span())
        if m.group(1) not in SHELLS:
            continue
        lines, pending = [], ""
        for line in m.group(2).splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if not line or line.startswith("#"):
                continue
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            lines.append(pending + line)
            pending = ""
        found += [(m.start() + k, " ".join(_strip_comment(c).split())) for k, c in enumerate(lines)]
    outside = lambda pos: not any(a <= pos < b for a, b in fenced_spans)  # noqa: E731
    found += [(m.start(), _strip_comment(m.group(1))) for m in INDENTED.finditer(text) if outside(m.start())]
    found += [(m.start(), " ".join(m.group(1).split())) for m in INLINE.finditer(text) if outside(m.start())]
    out: list[str] = []
    for _, command in sorted(found):
        if command not in out:
            out.append(command)
    return out


def without_installs(command: str) -> str:
    """The command with its ``pip install`` steps taken out of its ``&&`` chain."""
    return " && ".join(step.strip() for step in command.split("&&") if not step.strip().startswith("pip install"))


def skipped(command: str) -> str | None:
    """Why ``command`` is not run here, or None."""
    for rule, reason in SKIPPED:
        if rule(without_installs(command) if rule is not SKIPPED[0][0] else command):
            return reason
    return None


def _module(step: str) -> str:
    words = step.split()
    if len(words) > 2 and words[:2] == ["python", "-m"]:
        return words[2]
    return words[1] if len(words) > 1 else ""


def smoke(step: str) -> str:
    """One command at a small budget (see the module docstring)."""
    loop = re.match(r"^(for .*?; do )(.*)(; done)$", step)
    if loop:
        return loop.group(1) + smoke(loop.group(2)) + loop.group(3)
    step = re.sub(r"--games \d+", f"--games {GAMES}", step.replace("--quick", f"--games {GAMES}"))
    step = re.sub(r"--timesteps \d+", "--timesteps 1024", step)
    if _module(step) == "training.distill":  # one iteration of a few labels, no PPO, from the shipped policy
        step = re.sub(r"--iterations \d+", "--iterations 1", step)
        step = re.sub(r"--labels \d+", "--labels 64", step)
        step = re.sub(r"--ppo-minutes [\d.]+", "--ppo-minutes 0", step)
        step = re.sub(r"--start \S+", "--start ppo", step)
        step = re.sub(r"--deals \d+", "--deals 2", step)
    if _module(step) == "training.openspiel_nfsp":
        step = re.sub(r"--minutes [\d.]+", "--minutes 0.02", step)
    else:
        step = re.sub(r"--minutes [\d.]+", "--timesteps 1024", step)
    words = step.split()
    if "--retime" not in words:
        for flag, values in BUDGET.get(_module(step), []):
            if flag == "--config" or flag not in words:
                words += [flag, *values]
    return " ".join(words)


def _budgeted(command: str) -> str:
    command = re.sub(rf"{RECORD[0]}(?=\s|$)", RECORD[1], without_installs(command))
    return " && ".join(smoke(step.strip()) for step in command.split("&&"))


def page_commands() -> list[tuple[str, str, str]]:
    """(page, command, why skipped or "") for every command of the README and the guides."""
    return [(p.name, c, skipped(c) or "") for p in PAGES for c in commands(p.read_text())]


def _slow(command: str) -> bool:
    return any(name in command for name in SLOW)


def _params():
    """One test per page and speed: its commands in order. A slow command shown on several pages
    (the quick start's training) runs once, on the first."""
    by_page: dict[str, list[str]] = {}
    seen: set[str] = set()
    for page, command, why in page_commands():
        if why or (_slow(command) and _budgeted(command) in seen):
            continue
        seen.add(_budgeted(command))
        by_page.setdefault(page, []).append(command)
    out = []
    for page, cmds in by_page.items():
        fast = [c for c in cmds if not _slow(c)]
        slow = [c for c in cmds if _slow(c)]
        if fast:
            out.append(pytest.param(page, fast, id=f"{page}"))
        if slow:
            out.append(pytest.param(page, slow, id=f"{page}-slow", marks=pytest.mark.slow))
    return out


def _recorded_files() -> dict[str, bytes]:
    """The project's files a documented command could write (the README, the recorded results,
    the pictures), by content."""
    paths = [ROOT / "README.md", ROOT / "agents" / "pretrained" / "curves.png"]
    paths += [p for folder in ("benchmarks", "docs/pictures") for p in (ROOT / folder).rglob("*") if p.is_file()]
    return {str(p): p.read_bytes() for p in paths if p.exists()}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy_of_checkout(folder: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True)
    for name in files.stdout.split("\0"):
        if name and (ROOT / name).is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    return folder


def _needs_checkout(command: str) -> bool:
    """Whether ``command`` runs in a copy of the checkout: it names one of the checkout's folders,
    builds the checkout (``pip wheel .``) or rewrites the project's files."""
    words = command.replace(";", " ").split()
    names = any(w.split("/")[0] in CHECKOUT and ("/" in w or w == "docs") for w in words)
    return names or command.startswith("pip wheel .") or any(rule(command) for rule in WRITES_PROJECT)


def _serve(command: str, cwd: Path, env: dict) -> None:
    port = _free_port()
    if command.startswith("python -m http.server"):
        command += f" {port}"
    else:
        command = re.sub(r"--port \d+", "", command) + f" --port {port}"
    proc = subprocess.Popen(shlex.split(command), cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"{command!r} stopped with status {proc.returncode}: {proc.stdout.read()}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    assert r.status == 200
                break
            except urllib.error.HTTPError as e:  # the server answered (a missing page is its answer)
                assert e.code == 404, f"{command!r} answered {e.code}"
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                assert time.monotonic() < deadline, f"{command!r} did not answer within 60 s"
                time.sleep(0.3)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def reader_environment(code: Path) -> dict[str, str]:
    """The environment a documented command runs in: the reader's, with ``code`` on PYTHONPATH, not
    the settings the test process made for itself (:data:`tests.conftest.SET_FOR_TESTS`: the engine
    held to fixed threads runs many times slower beside busy processes, where a reader's follows
    the machine's load)."""
    env = {k: v for k, v in os.environ.items() if k not in SET_FOR_TESTS and k != "PYTEST_XDIST_WORKER"}
    env.update(PYTHONPATH=str(code), MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    return env


def run(command: str, cwd: Path, checkout: Path | None = None, timeout: float = 1200) -> None:
    """Runs one documented command at its small budget in ``cwd`` (the code of ``checkout``, by
    default this one, on PYTHONPATH); fails on a non-zero status."""
    code = checkout if checkout is not None and any(rule(command) for rule in WRITES_PROJECT) else ROOT
    env = reader_environment(code)
    for step in _budgeted(command).split(" && "):
        if step.startswith(SERVERS) and not step.startswith("python -m card_envs.web.browser"):
            _serve(step, cwd, env)
            continue
        stdin = "quit\n" if step.startswith("python -m agents.play") else ""
        done = subprocess.run(["bash", "-c", step], cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                              timeout=timeout)
        assert done.returncode == 0, (f"`{command}` (run as `{step}`) exited {done.returncode}:\n"
                                      f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


# ------------------------------------------------------------------------------------ the tests
def test_documented_commands_run_in_the_readers_environment():
    """The test process holds the engine's threads fixed (tests/conftest.py); a documented command
    must not inherit that, or beside busy processes it runs many times slower than for a reader."""
    import tests.conftest

    assert sys.modules["tests.conftest"] is tests.conftest and tests.conftest.SET_FOR_TESTS is SET_FOR_TESTS
    env = reader_environment(ROOT)
    assert not SET_FOR_TESTS & env.keys()
    for name in ("CARD_ENVS_FOLLOW_LOAD", "OMP_NUM_THREADS"):
        assert (name in SET_FOR_TESTS) == (name not in env), name
    assert env["PYTHONPATH"] == str(ROOT) and "PYTEST_XDIST_WORKER" not in env


def test_the_extraction_finds_the_commands_a_reader_sees():
    readme = commands((ROOT / "README.md").read_text())
    assert "python -m training.evaluate golf ppo heuristic random --games 2000" in readme
    assert any(c.endswith("python -m training.train golf_v0 --minutes 3") for c in readme)
    sample = "```console\n$ python -m a --x 1 \\\n    --y 2   # a comment\n```\n\n    pip install -e .\n\nsee `python -m b`\n"
    assert commands(sample) == ["python -m a --x 1 --y 2", "pip install -e .", "python -m b"]
    assert skipped("python -m training.train <game>") and skipped("python -m training.benchmark AGENT")
    assert skipped("python -m agents.ppo export THEIRS.zip MINE.zip") and skipped("pip install -e \".[web]\"")
    assert not skipped("pip install -e \".[web]\" && python -m card_envs.web")
    assert not skipped("python -m training.evaluate golf ppo heuristic random --games 2000")
    assert smoke("python -m training.evaluate golf ppo heuristic random --games 2000") == (
        "python -m training.evaluate golf ppo heuristic random --games 4")
    assert smoke("python -m training.distill golf --start heuristic --labels 30000 --deals 200 --workers 2") == (
        "python -m training.distill golf --start ppo --labels 64 --deals 2 --workers 2 --iterations 1 --ppo-minutes 0 "
        "--no-progress")


def test_the_rules_leave_the_commands_that_do_something_to_run():
    """Skipped are templates, installs, the test suite and Ray only: every command of the README
    that plays, trains or serves runs."""
    rows = page_commands()
    run_here = [c for _, c, why in rows if not why]
    assert len(run_here) >= 30, [(c, why) for _, c, why in rows if why]
    readme = [c for page, c, why in rows if page == "README.md" and not why]
    for expected in ("training.evaluate", "training.train golf_v0", "agents.play", "card_envs.web", "sphinx"):
        assert any(expected in c for c in readme), f"the README's {expected} command is not run"


@pytest.mark.parametrize("page, cmds", _params())
def test_every_documented_command_runs(page, cmds, tmp_path):
    checkout = None
    if any(_needs_checkout(c) for c in cmds):
        checkout = _copy_of_checkout(tmp_path / "checkout")
    before = _recorded_files()
    for command in cmds:
        cwd = checkout if checkout is not None and _needs_checkout(command) else tmp_path
        run(command, cwd, checkout if cwd == checkout else None)
    assert _recorded_files() == before, "a documented command, run by this test, wrote into the checkout"
