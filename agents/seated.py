"""``agents.seated.SeatedGame``: a game with a person in one seat and agents in the others (see
:mod:`card_envs.seated`, where it lives so that the environments' own front ends, the web table
among them, use it without importing the agents package)."""

from card_envs.seated import SeatedGame, Shown

__all__ = ["SeatedGame", "Shown"]
