"""Each game's default search settings: what ``pimc`` and ``ismcts`` play without keys.

A search agent's best setting depends on the game: in Golf, Fiddlesticks and Guillotine a handful
of worlds finished by the heuristic, with the heuristic's choice kept unless the worlds clearly
overrule it, beats many worlds of random play; in Hot a hundred worlds conditioned on heuristic
opponents are needed before one action stands out; in Guilders heuristic rollouts are too costly
and random ones with the heuristic as prior tie it. So ``agents.load("pimc")`` looks its settings
up here by the game it is seated at (``start_game``), and every key a spec gives overrides that
one key: ``pimc:worlds=200`` is the game's default with 200 worlds.

Every default is the strongest setting measured at the game's benchmark table within 100 ms per
decision on one core of a 2-core machine (the search guide of the documentation gives the
measurements; the benchmark protocol's score card records each agent's milliseconds per
decision). Budgets are counts of worlds or iterations, never milliseconds, so a default agent
makes the same choices on any machine (the benchmark protocol's score card is reproducible bit for
bit); at a larger table than the benchmark's, a decision costs more time.
"""

from __future__ import annotations

from typing import Any

#: game -> search agent -> its default spec (keys as ``agents.load`` takes them)
DEFAULTS: dict[str, dict[str, str]] = {
    "golf_v0": {
        "pimc": "worlds=12,rollout=heuristic,engine=rules,prior=heuristic,z=1",
        "ismcts": "iterations=75,rollout=heuristic,prior=heuristic,z=0.5",
    },
    "fiddlesticks_v0": {
        "pimc": "worlds=5,rollout=heuristic,engine=rules,prior=heuristic,z=1",
        "ismcts": "iterations=27,rollout=heuristic,prior=heuristic,z=1",
    },
    "guillotine_v0": {
        "pimc": "worlds=16,rollout=heuristic,engine=rules,prior=heuristic,z=1",
        "ismcts": "iterations=56,rollout=heuristic,prior=heuristic,z=1",
    },
    "collector_v0": {
        "pimc": "worlds=44",
        "ismcts": "iterations=16,rollout=heuristic,prior=heuristic,z=1,model=heuristic",
    },
    "hot_v0": {
        "pimc": "worlds=100,rollout=heuristic,prior=heuristic,z=1,model=heuristic",
        "ismcts": "iterations=24,rollout=heuristic,prior=heuristic,z=1,model=heuristic",
    },
    "guilders_v0": {
        "pimc": "worlds=16,prior=heuristic",
        "ismcts": "iterations=90,prior=heuristic",
    },
}


def items(text: str | None) -> dict[str, str]:
    """``"worlds=12,z=1"`` -> ``{"worlds": "12", "z": "1"}`` (keys lower-cased, as given)."""
    out = {}
    for item in (text or "").split(","):
        key, _, value = item.strip().partition("=")
        if key.strip():
            out[key.strip().lower()] = value.strip()
    return out


def default_spec(kind: str, env_name: str) -> str:
    """The default settings of search agent ``kind`` in game ``env_name`` (a spec's key text);
    a game without an entry (a new game) plays with the generic defaults of ``agents.search.KEYS``."""
    return DEFAULTS.get(env_name, {}).get(kind, "")


def resolved_spec(kind: str, env_name: str, given: str | None) -> str:
    """The settings ``kind`` plays with in ``env_name``: the game's default, each key ``given``
    overriding that key. A time budget given without a count (``ms=50``) drops the default count,
    so the time alone ends the search, as it does without a game default."""
    count = "worlds" if kind == "pimc" else "iterations"
    mine = items(given)
    merged = items(default_spec(kind, env_name))
    if "ms" in mine and count not in mine:
        merged.pop(count, None)
    merged.update(mine)
    return ",".join(f"{k}={v}" for k, v in merged.items())


def table() -> list[dict[str, Any]]:
    """One row per game and search agent: ``{"game", "agent", "spec"}`` (for the docs)."""
    return [{"game": game, "agent": kind, "spec": f"{kind}:{spec}"}
            for game, kinds in DEFAULTS.items() for kind, spec in kinds.items()]
