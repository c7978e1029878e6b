"""A new game from the template: ``python -m card_envs.scaffold NAME``.

Writes, into the checkout this package lies in, a complete small game named NAME that plays,
passes the whole conformance suite and shows on the documentation site as it stands, ready to be
changed into the game it is to be:

- the game's folder ``card_envs/NAME/`` (rules, view, state, env page, kernels, picture, worlds),
- its public module ``card_envs/NAME_v0.py``,
- its test cases ``tests/cases/NAME.py``,
- its rules page ``docs/rules/NAME.md``,
- and the one registry line (NAME in ``card_envs.REGISTERED``);

then records what is generated from the registry: the game's golden transcript
(``tests/playthroughs/NAME_v0.txt``), the README's generated tables (the games, the leaderboard,
where the new game shows as not measured) and the search guide's table of defaults (where it
shows as not tuned).

The template game (``card_envs/scaffold/template/``, text files whose ``__game__``, ``__Game__``
and ``__Title__`` are the name, its CamelCase and its title) is a small shedding game for 2 to 4
players with hidden hands, a face-up discard pile and a stock: small enough to read in one sitting
and for its kernels to compile quickly, and with every part a card game with hidden information
needs. It is not a registered game. The documentation's "adding a game" page walks through it.

A NAME that is not a lowercase identifier, is a Python keyword, ends in a version suffix, is a
registered game or would write over any existing file is refused (a ValueError naming the
problem); nothing is written then.
"""

from __future__ import annotations

import keyword
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: the template's files, laid out as they are written (their paths hold the placeholders too)
TEMPLATE = Path(__file__).resolve().parent / "template"
SUFFIX = ".tmpl"
#: the registry's list of games in ``card_envs/__init__.py``, whose closing line a new game goes above
REGISTRY_FILE = Path("card_envs") / "__init__.py"
REGISTRY_START = "REGISTERED = ("
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class Names:
    """How a game's name is spelled where the template uses it."""

    game: str  # crazy_eights: modules, folders, the environment's name (crazy_eights_v0)
    camel: str  # CrazyEights: class names
    title: str  # Crazy Eights: prose and titles

    @classmethod
    def of(cls, game: str) -> "Names":
        words = game.split("_")
        return cls(game, "".join(w.capitalize() for w in words), " ".join(w.capitalize() for w in words if w))

    def fill(self, text: str) -> str:
        import card_envs

        return (text.replace("__game__", self.game).replace("__Game__", self.camel).replace("__Title__", self.title)
                .replace("__library_version__", card_envs.__version__))


def checkout(root: str | Path | None = None) -> Path:
    """The checkout to write into: ``root``, or the one this package lies in. It must hold the
    package, the tests and the documentation (a ValueError says what is missing)."""
    path = Path(root) if root is not None else Path(__file__).resolve().parents[2]
    missing = [p for p in (REGISTRY_FILE, Path("tests") / "cases", Path("docs") / "rules") if not (path / p).exists()]
    if missing:
        raise ValueError(f"{path} is not a card_envs checkout (it has no {', '.join(map(str, missing))}); "
                         "the scaffold writes a game into a clone of the repository (give --root)")
    return path


def plan(name: str, root: Path) -> dict[Path, str]:
    """Every file the scaffold writes for ``name`` under ``root``, with its text; a ValueError
    for a bad name or a file that exists already."""
    check_name(name, root)
    names = Names.of(name)
    files = {}
    for source in sorted(TEMPLATE.rglob(f"*{SUFFIX}")):
        target = root / names.fill(str(source.relative_to(TEMPLATE)))[: -len(SUFFIX)]
        files[target] = names.fill(source.read_text())
    taken = [str(p.relative_to(root)) for p in files if p.exists()]
    taken += [str(p.relative_to(root)) for p in (root / "card_envs" / f"{name}.py",) if p.exists()]
    if taken:
        raise ValueError(f"the game {name!r} would write over {', '.join(taken)}: the scaffold never overwrites a "
                         "file; choose another name")
    return files


def check_name(name: str, root: Path) -> None:
    """A game's name: a lowercase Python identifier, not a keyword, without a version suffix, not a
    registered game."""
    if not isinstance(name, str) or not _NAME.match(name) or name.endswith("_"):
        raise ValueError(f"the game's name must be a lowercase Python identifier (letters, digits and underscores, "
                         f"starting with a letter, e.g. crazy_eights), got {name!r}")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise ValueError(f"the game's name {name!r} is a Python keyword: its module could not be imported; choose another")
    if re.search(r"_v\d+\Z", name):
        raise ValueError(f"the game's name {name!r} ends in a version: give it without (the environment is "
                         f"{re.sub(r'_v[0-9]+$', '', name)}_v0)")
    registered = registered_games(root)
    if name in registered:
        raise ValueError(f"{name!r} is a registered game already; registered: {', '.join(registered)}")


def registered_games(root: Path) -> list[str]:
    """The names in the registry's list (``card_envs.REGISTERED``), read from the file."""
    text = (root / REGISTRY_FILE).read_text()
    if REGISTRY_START not in text:
        raise ValueError(f"{root / REGISTRY_FILE} has no {REGISTRY_START!r} list: cannot register the game")
    block = text.split(REGISTRY_START, 1)[1].split(")", 1)[0]
    return re.findall(r'"([a-z0-9_]+)"', block)


def register(name: str, root: Path) -> None:
    """Add ``name`` as the last line of the registry's list."""
    path = root / REGISTRY_FILE
    text = path.read_text()
    head, rest = text.split(REGISTRY_START, 1)
    block, tail = rest.split(")", 1)
    path.write_text(head + REGISTRY_START + block.rstrip(" ") + f'    "{name}",\n' + ")" + tail)


#: what is generated from the registry, recorded anew once the game is registered
GENERATED = (
    ("the golden transcript", ["-m", "tests.conformance.playthrough", "{game}_v0"]),
    ("the README's games table and the search guide's table", ["docs/_ext/generate.py", "--tables"]),
    ("the README's leaderboard", ["-m", "training.leaderboard", "--readme"]),
)


def scaffold(name: str, root: str | Path | None = None, record: bool = True) -> dict[str, list[Path]]:
    """Write the game ``name`` (see the module docstring) and register it; with ``record``, then
    record what is generated from the registry. Returns the paths by what happened to them:
    ``written`` (the game's new files), ``registered`` (the registry's file, one line added) and
    ``recorded`` (generated from the registry: the new transcript, the rewritten tables)."""
    root = checkout(root)
    files = plan(name, root)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x") as f:  # never over a file that appeared meanwhile
            f.write(text)
    register(name, root)
    done = {"written": list(files), "registered": [root / REGISTRY_FILE], "recorded": []}
    if record:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        for what, argv in GENERATED:
            ran = subprocess.run([sys.executable, *[a.format(game=name) for a in argv]], cwd=root, env=env,
                                 capture_output=True, text=True)
            if ran.returncode != 0:
                raise RuntimeError(f"recording {what} failed:\n{ran.stderr[-3000:]}")
        done["recorded"] = [root / "tests" / "playthroughs" / f"{name}_v0.txt", root / "README.md",
                            root / "docs" / "guides" / "search.md"]
    return done


def main(argv: list[str] | None = None) -> int:
    from card_envs import cli

    ap = cli.Parser(prog="python -m card_envs.scaffold", description=__doc__.split("\n\n")[0])
    ap.add_argument("name", help="the new game's name: a lowercase identifier, e.g. crazy_eights")
    ap.add_argument("--root", help="the checkout to write into (default: the one this package lies in)")
    args = ap.parse_args(argv)
    try:
        written = scaffold(args.name, args.root)
    except ValueError as e:
        return cli.report(e)
    root = checkout(args.root)
    print(f"the game {args.name}_v0, the template game under its name:")
    for what, paths in written.items():
        for path in paths:
            print(f"  {what:<10} {path.relative_to(root)}")
    print(f"next: python -m pytest tests/conformance -k {args.name}    (every conformance test of the game)\n"
          "then change the template into your game, part by part: docs/guides/adding_a_game.md")
    return 0
