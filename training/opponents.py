"""The opponent pool's specs, shared by both backends."""

from __future__ import annotations

import sys
from typing import Sequence


def parse_opponents(text: str | Sequence[str] | None) -> list[str] | None:
    """``"random,ppo:RUN,any_table,self"`` -> ``["random", "ppo:RUN,any_table", "self"]`` (a spec keeps its flags)."""
    if text is None or isinstance(text, list):
        return text
    from agents import split_specs

    return split_specs(str(text))


def heuristic_available(env_name: str) -> bool:
    """Whether ``agents.load("heuristic")`` can play this game."""
    try:
        from agents.heuristic import HeuristicAgent

        HeuristicAgent().policy(env_name)
        return True
    except (ImportError, ValueError):
        return False


def usable_opponents(env_name: str, specs: Sequence[str]) -> list[str]:
    """The pool without 'heuristic' while the game has none (said once, not silently)."""
    if "heuristic" in specs and not heuristic_available(env_name):
        print(f"note: no heuristic agent for {env_name} yet; training without heuristic opponents", file=sys.stderr)
        specs = [s for s in specs if s != "heuristic"]
    if not specs:
        specs = ["random"]
    return list(specs)


def eval_opponents(cfg: dict) -> list[str]:
    """The evaluation's opponents of a run, without a heuristic the game does not have."""
    return [o for o in cfg["eval"]["opponents"] if o != "heuristic" or heuristic_available(cfg["env_name"])]
