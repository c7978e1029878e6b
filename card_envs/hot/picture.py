"""Hot's table as a picture: the shared round's (:mod:`card_envs.set_collecting.picture`; the two games
share their engine), drawn for Hot's rules (their variant, a game of deals: with the game totals, the
dealer and the last deal's points)."""

from __future__ import annotations

from card_envs.set_collecting.picture import scene

__all__ = ["scene"]
