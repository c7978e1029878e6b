"""The opponent pool's specs, shared by both backends."""

from __future__ import annotations

import sys
from typing import Sequence

#: how a new game's opponent seats are filled from the pool: each seat drawn on its own ("mixed"),
#: or one draw for every other seat ("field": the learner against copies of one opponent, the
#: seating of the evaluation and the benchmark protocol; the same in a two-player game)
MIXED, FIELD = "mixed", "field"
OPPONENT_SEATINGS = (MIXED, FIELD)


def check_opponent_seating(value: str) -> str:
    """``value`` if it is one of :data:`OPPONENT_SEATINGS`, else a ValueError naming them."""
    if value not in OPPONENT_SEATINGS:
        raise ValueError(f"opponent_seating must be one of {', '.join(map(repr, OPPONENT_SEATINGS))}, got {value!r}")
    return value


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


def opponent_pool(cfg: dict, kinds: Sequence[str]) -> tuple[list[str], list[float] | None]:
    """A run's training opponents (:func:`usable_opponents`) and their ``opponent_weights`` (None:
    equal), refusing a spec whose kind the backend cannot seat (``kinds``, e.g. "random", "ppo")
    and a weight list of another length than the opponents'."""
    specs = list(cfg["opponents"])
    weights = cfg.get("opponent_weights")
    if weights is not None and len(weights) != len(specs):
        raise ValueError(f"opponent_weights {weights} must have one weight per opponent {specs}")
    for s in specs:
        if s.split(":", 1)[0] not in kinds:
            raise ValueError(f"unknown opponent {s!r}; use {', '.join(k + ':PATH' if k in ('ppo', 'rllib') else k for k in kinds)}")
    usable = usable_opponents(cfg["env_name"], specs)
    if weights is not None:
        weights = [w for s, w in zip(specs, weights) if s in usable] or None
    return usable, weights


def eval_opponents(cfg: dict) -> list[str]:
    """The evaluation's opponents of a run, without a heuristic the game does not have."""
    return [o for o in cfg["eval"]["opponents"] if o != "heuristic" or heuristic_available(cfg["env_name"])]
