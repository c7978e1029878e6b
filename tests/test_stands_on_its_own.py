"""The project stands on its own: no text in it points to a document its users cannot open.

Code, docstrings, comments, messages, tests, notebooks and docs explain themselves or point to the
project's own documentation (each environment's page, ``help(card_envs.<game>_v0)``, the README,
``docs/``). They never cite a tracker's issue numbers, numbered sections of outside documents (the
section sign), paths into the folder of rule documents kept beside the repository, the design
document, or "the specification's" sections and tables.

Every tracked text file under the package, test, benchmark, notebook, docs and CI folders, and the
README, is scanned line by line; every offending ``file:line`` is reported at once. The patterns
below are written so that they do not match their own source text, so this file is scanned too.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the folders scanned (their tracked files), and the single files
FOLDERS = ("card_envs", "agents", "training", "benchmarks", "notebooks", "tests", "docs", ".ci")
FILES = ("README.md", "CHANGELOG.md")

#: not text: skipped by name (anything else that is not UTF-8 text is skipped too)
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".zip", ".gz", ".npz", ".npy",
                   ".pkl", ".pt", ".mp4", ".webm"}

#: what points outside the project, and why; each pattern avoids matching its own spelling here
PATTERNS = [
    (re.compile(r"\b[Ii]ssues?\s?#?[0-9]"), "an issue number"),
    (re.compile(r"\b[Ii]ssue[']s\b"), "a reference to an issue"),
    (re.compile(r"\([Ii]ssue\b"), "a reference to an issue"),
    (re.compile("\u00a7"), "a section number of an outside document"),
    (re.compile(r"(?<![\w/.-])(?:\.\./)*share[d]/"), "a path into the folder beside the repository"),
    # the project's own rules pages (docs/rules/, linked as ../rules/ between pages) are fine
    (re.compile(r"(?<!docs/)(?<!\.\./)\brule[s]/[a-z_]+\.md\b"), "a path to a rule document outside the docs"),
    (re.compile(r"\bDESIG[N]\b"), "the design document"),
    (re.compile(r"\b[Tt]h[e] spec's\b"), "a section or table of an outside specification"),
    (re.compile(r"\b[Rr]ul[e] spec(?:s|'s|ification)?\b"), "an outside rules specification"),
    (re.compile(r"(?<![A-Za-z])[Ss]ectio[n][ _][0-9]"), "a numbered section of an outside document"),
]

#: base64 blobs (a notebook's images): never prose, and long enough to hold any letters by chance
_BLOB = re.compile(r"[A-Za-z0-9+/=]{200,}")


def offences(text: str) -> list[tuple[int, str, str]]:
    """``(line number, why, line)`` for every line of ``text`` that points outside the project."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        prose = _BLOB.sub("", line)
        for pattern, why in PATTERNS:
            if pattern.search(prose):
                found.append((number, why, line.strip()))
                break
    return found


def tracked_text_files() -> list[Path]:
    """The tracked files scanned, as paths relative to the repository root."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", *FOLDERS, *FILES], cwd=ROOT,
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    paths = [Path(p) for p in out.decode().split("\0") if p]
    return [p for p in paths if p.suffix.lower() not in BINARY_SUFFIXES]


def _read_text(path: Path) -> str | None:
    try:
        data = (ROOT / path).read_bytes()
    except FileNotFoundError:  # tracked but deleted in the working tree
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_text_points_to_a_document_users_cannot_open():
    files = tracked_text_files()
    assert any(p.as_posix() == "card_envs/base.py" for p in files), "the scan found no package files"
    report = []
    for path in files:
        text = _read_text(path)
        if text is None:
            continue
        for number, why, line in offences(text):
            report.append(f"{path.as_posix()}:{number}: {why}: {line[:120]}")
    assert not report, (
        "these lines point to documents the library's users cannot open; say it in plain words or "
        "point to the project's own docs (the environment's page, help(card_envs.<game>_v0)):\n"
        + "\n".join(report)
    )


# the planted references are built from pieces, so that this file's own text holds none of them
@pytest.mark.parametrize("line", [
    "v0 (iss" + "ue 13): a new segment",
    "see Issue #" + "7",
    "the issue" + "'s speed target",
    "the " + "\u00a7" + "4 table",
    "readable beside ``" + "share" + "d/rul" + "es/golf.md``",
    "(``../" + "share" + "d/rul" + "es/collector.md``)",
    "the options of " + "collector.md \u00a7" + "7",
    "rules/" + "hot.md",
    "DESI" + "GN.md, Observations are Markov",
    "DESI" + "GN's option",
    "indices fixed by " + "the spec" + "'s actions",
    "not in the rule" + " spec's table",
    "def test_the_worked_example_of_" + "sec" + "tion_4():",
])
def test_a_planted_reference_is_caught(line):
    assert offences("clean line\n" + line + "\n") != [], line
    assert offences("clean line\n" + line + "\n")[0][0] == 2


@pytest.mark.parametrize("line", [
    "the issue is that a mask was empty",  # "issue" as a word for a problem
    "issues with the seed are reported as ValueErrors",
    "Collector's round, on the shared engine",
    "shared first place",
    "the spec keys of each search agent",  # an agent spec
    "the spec {a!r} needs the agents package",
    "# ------------------------------------------------------------------ information",
    "the design and input keys of RLlib's example",
    "see the section on speed in the README",
    "/tmp/x/shared/data is outside the repository",
    "the complete rules: [Golf](docs/rules/golf.md)",  # the project's own rules pages
    "see [the rules](../rules/hot.md)",
])
def test_legitimate_text_is_not_flagged(line):
    assert offences(line) == [], line
