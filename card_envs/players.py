"""The player protocol's hooks, as every runner calls them: ``start_game`` before a game (the
table's options, once per seat the player holds) and ``end_game`` after it (the seat's final
observation, total reward and info). A player is any object with ``act(observation, agent,
env_name)``; the hooks are optional, so a runner calls them through these functions, which skip a
player that lacks them. The protocol itself is described in ``agents/base.py``, which re-exports
these; they live here so that the environments' own runners (records, the web table) share them
without importing the agents package."""

from __future__ import annotations

from typing import Any


def start_game(player: Any, env_name: str, config: dict | None, agent: str) -> None:
    """Call ``player.start_game(env_name, config, agent)`` if the player has the hook."""
    hook = getattr(player, "start_game", None)
    if callable(hook):
        hook(env_name, dict(config or {}), agent)


def end_game(player: Any, observation: dict, reward: float, info: dict | None) -> None:
    """Call ``player.end_game(observation, reward, info)`` if the player has the hook."""
    hook = getattr(player, "end_game", None)
    if callable(hook):
        hook(observation, float(reward), dict(info or {}))
