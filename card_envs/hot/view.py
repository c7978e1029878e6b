"""What one player of Hot may know, and its observation vector.

Hot's view is the shared round's (:mod:`card_envs.set_collecting.view`: the two games share their engine)
plus the game totals, the dealer, the deal number and the points of the last deal; the hands
shown are those laid down at the end of the last scored deal.
"""

from __future__ import annotations

import numpy as np

from card_envs.set_collecting import view as _shared
from card_envs.set_collecting.engine import SetState
from card_envs.set_collecting.view import Codec, PlayerView, encode, layout, render, render_view  # noqa: F401
from card_envs.encoding import Layout


def make_layout(num_players: int, max_rounds: int = 200, target_points: int = 11, max_deals: int = 100) -> Layout:
    return _shared.make_layout(num_players, True, max_rounds, target_points, max_deals)


def view(s: SetState, seat: int) -> PlayerView:
    """What ``seat`` may know of state ``s``: the only place hidden information is filtered."""
    return _shared.view(s, seat, hot=True)


def decode(vector: np.ndarray) -> PlayerView:
    """The view a Hot observation vector encodes (``encode(decode(x)) == x``)."""
    return _shared.decode(vector, hot=True)


def render_state(s: SetState) -> str:
    """Every card, hidden ones included (debugging only, never for a player)."""
    return _shared.render_state(s, hot=True)


__all__ = ["Codec", "PlayerView", "decode", "encode", "layout", "make_layout", "render", "render_state", "render_view", "view"]
