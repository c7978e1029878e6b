"""The AEC environment both set-collecting games share: :class:`card_envs.base.CardGameEnv` over
the shared round, with the decoded view of a seat at hand for heuristics and debugging. Each game
names its rules and view (``card_envs/collector/env.py``, ``card_envs/hot/env.py``)."""

from __future__ import annotations

from typing import Any

from card_envs.base import CardGameEnv


class SetCollectingEnv(CardGameEnv):
    """A set-collecting game as a PettingZoo AEC environment (illegal actions raise ValueError)."""

    def player_view(self, agent: str) -> Any:
        """The decoded view of ``agent`` (what it may know), for heuristics and debugging."""
        return self.view_of(self.game_state, self._seat[agent])
