"""The command-line convention every program of the library shares (``training.train``,
``training.evaluate``, ``training.baselines``, ``agents.play``, ``card_envs.records``).

- A game is named with or without its version: ``golf`` or ``golf_v0``.
- ``--config`` takes game options as ``KEY=VALUE`` pairs and/or paths of JSON files, merged left
  to right: ``--config num_players=4 mode=single`` or ``--config table.json num_rounds=1``. A value
  is read as JSON where it parses (``true``, ``3``, ``0.5``, ``[64, 64]``, ``null``), as ``none``/
  ``None`` = null, and otherwise as text (``mode=single``). ``train`` also takes its own keys there,
  dotted for nested ones (``ppo.learning_rate=0.001``, ``opponents=random,self``); a key that is
  not one of train's is a game option (``env_config``).
- ``--players N`` is the game's ``num_players`` option, where the game has one.
- **The table**: a command plays the game's benchmark table
  (``card_envs.<game>_v0.BENCHMARK_CONFIG``: the table the shipped policies were trained at, so
  every agent the library ships can take every seat), with the options ``--config`` and
  ``--players`` give laid over it (``--config num_rounds=null`` sets an option back to the
  game's own default). Every command that plays says which table in its first line
  (:func:`table_line`).
- A user error (an unknown game, option or agent spec, a value the option does not take, a table
  size an agent cannot play) is ONE line on stderr, ``error: ...`` naming the problem and the
  allowed values, and exit status 2: no traceback, also when the error is raised in a worker
  process of a tournament.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, Sequence


class UserError(ValueError):
    """A mistake in what the user asked for (the CLIs print it as one line and exit 2)."""


#: the exceptions the CLIs report as one line (a user's input, not a bug)
USER_ERRORS = (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError)


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line and exit status 2."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # noqa: D401 - argparse's hook
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def one_line(e: BaseException) -> str:
    """An exception's message as one line (a FileNotFoundError's filename included)."""
    text = str(e) or type(e).__name__
    if isinstance(e, OSError) and e.filename and str(e.filename) not in text:
        text = f"{text}: {e.filename}"
    return " ".join(text.split())


def report(e: BaseException) -> int:
    """Prints a user error as ``error: <one line>`` on stderr; returns the exit status, 2."""
    print(f"error: {one_line(e)}", file=sys.stderr, flush=True)
    return 2


# ------------------------------------------------------------------------------------ games
def game_name(text: str) -> str:
    """``"golf"`` or ``"golf_v0"`` -> ``"golf_v0"``; an unknown game is a UserError naming them."""
    import card_envs

    name = str(text).strip().lower()
    name = name if name.endswith("_v0") else f"{name}_v0"
    if name not in card_envs.ENVIRONMENTS:
        games = ", ".join(n.removesuffix("_v0") for n in card_envs.ENVIRONMENTS)
        raise UserError(f"unknown game {text!r}; games: {games} (each also as <game>_v0)")
    return name


def game_option_names(env_name: str) -> list[str]:
    """The options ``card_envs.<game>_v0.env(**options)`` takes (its rules' config dataclass)."""
    import card_envs

    raw = card_envs.ENVIRONMENTS[game_name(env_name)].raw_env()
    return [f.name for f in dataclasses.fields(raw.rules.config)]


def check_game_options(env_name: str, options: dict) -> None:
    """Builds the table once: an unknown option or a value it does not take is a UserError."""
    import card_envs

    try:
        card_envs.ENVIRONMENTS[game_name(env_name)].env(**options)
    except TypeError as e:  # a non-keyword option name, e.g. from a JSON file
        raise UserError(f"bad options for {env_name}: {e}") from None


def with_players(options: dict, players: int | None, env_name: str) -> dict:
    """``options`` with ``num_players`` = ``players`` (``--players``), where the game has it."""
    if players is None:
        return options
    if "num_players" not in game_option_names(env_name):
        raise UserError(f"{env_name} has no num_players option (--players); options: "
                        f"{', '.join(game_option_names(env_name))}")
    return {**options, "num_players": int(players)}


def benchmark_table(env_name: str) -> dict:
    """The game's benchmark table (a copy of ``card_envs.<game>_v0.BENCHMARK_CONFIG``): the table
    the shipped policies play, and the one every command plays when given no options."""
    import card_envs

    return dict(card_envs.ENVIRONMENTS[game_name(env_name)].BENCHMARK_CONFIG)


def table_options(env_name: str, items: Sequence[str] | str | dict | None = None,
                  players: int | None = None) -> tuple[dict, dict]:
    """The options of the table a command plays: the game's benchmark table with the options from
    ``--config`` items and ``--players`` laid over it (as ``training.train`` lays them over its
    ``env_config``); returns the table and the options the user changed."""
    changed = with_players(game_options(items), players, env_name)
    return {**benchmark_table(env_name), **changed}, changed


def format_options(options: dict) -> str:
    """Game options as the command line writes them: ``num_players=2 mode=single``."""
    def value(v: Any) -> str:
        return v if isinstance(v, str) else json.dumps(v)

    return " ".join(f"{k}={value(v)}" for k, v in options.items())


def table_line(env_name: str, options: dict, changed: dict | None = None) -> str:
    """The first line of a command that plays: the game, its table, and what was changed of the
    benchmark table (``--config KEY=VALUE`` or ``--players N`` change it)."""
    shown = format_options(options) or "(the game's option defaults)"
    if changed:
        return f"table: {env_name} {shown} (the benchmark table with {format_options(changed)})"
    return (f"table: {env_name} {shown} (the benchmark table, where the shipped policies play; "
            "--config KEY=VALUE or --players N change it)")


# ---------------------------------------------------------------------------------- options
def parse_value(text: str) -> Any:
    """A ``KEY=VALUE`` value: JSON where it parses (``true``, ``3``, ``[64, 64]``), ``none`` = None,
    otherwise the text itself (``single``). ``True``/``False`` are accepted as in Python."""
    v = text.strip()
    low = v.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return json.loads(v)
    except json.JSONDecodeError:
        return v


def read_json_file(path: str | Path) -> dict:
    """A JSON object from a file; a missing file or bad JSON is a UserError saying which."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise UserError(f"no config file at {p}") from None
    except IsADirectoryError:
        raise UserError(f"{p} is a folder, not a JSON config file") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{p} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise UserError(f"{p} holds a JSON {type(data).__name__}, not an object of options")
    return data


def config_items(items: Sequence[str] | str | None) -> list[tuple[str, Any]]:
    """``--config`` items in order: ``("pairs", {key: value})`` for a ``KEY=VALUE`` and
    ``("file", {...})`` for a JSON file's object."""
    if items is None:
        return []
    if isinstance(items, (str, Path)):
        items = [str(items)]
    out: list[tuple[str, Any]] = []
    for item in items:
        item = str(item)
        if "=" in item and not item.lower().endswith(".json"):
            key, value = item.split("=", 1)
            key = key.strip()
            if not key:
                raise UserError(f"--config item {item!r} has no key; use KEY=VALUE or a JSON file path")
            out.append(("pairs", {key: parse_value(value)}))
        elif item.lower().endswith(".json") or Path(item).is_file():
            out.append(("file", read_json_file(item)))
        else:
            raise UserError(f"--config takes KEY=VALUE pairs or JSON file paths, got {item!r} "
                            "(no '=' and no such file)")
    return out


def game_options(items: Sequence[str] | str | dict | None) -> dict:
    """Game options from ``--config`` items. A JSON file holds the options themselves, or is a
    run's ``config.json`` (a training configuration), whose ``env_config`` is taken."""
    if isinstance(items, dict):
        return dict(items)
    out: dict[str, Any] = {}
    for kind, data in config_items(items):
        if kind == "file" and "env_config" in data:
            data = data["env_config"] or {}
        out.update({k: v for k, v in data.items() if not k.startswith("_")})
    return out


def add_game_argument(ap: argparse.ArgumentParser, nargs: str | None = None) -> None:
    from card_envs import GAME_NAMES

    ap.add_argument("game", nargs=nargs, help=f"the game: {', '.join(GAME_NAMES)} (or <game>_v0)")


def add_config_arguments(ap: argparse.ArgumentParser, what: str = "game options") -> None:
    ap.add_argument("--config", nargs="+", action="extend", default=[], metavar="KEY=VALUE|FILE.json",
                    help=f"{what}: KEY=VALUE pairs and/or JSON files, merged left to right")
    ap.add_argument("--players", type=int, help="the game's num_players option (where the game has it)")
