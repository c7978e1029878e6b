"""What one player of Collector may know, and its observation vector: the view of the round the
two set-collecting games share (:mod:`card_envs.set_collecting.view`, where the layout, each
segment and why the view is a sufficient summary are written), without Hot's totals and deals."""

from __future__ import annotations

import numpy as np

from card_envs.encoding import Layout
from card_envs.set_collecting import view as _shared
from card_envs.set_collecting.engine import SetState
from card_envs.set_collecting.view import Codec, PlayerView, encode, layout, render, render_view


def make_layout(num_players: int, max_rounds: int = 200) -> Layout:
    return _shared.make_layout(num_players, False, max_rounds)


def view(s: SetState, seat: int) -> PlayerView:
    """What ``seat`` may know of state ``s``: the only place hidden information is filtered."""
    return _shared.view(s, seat, hot=False)


def decode(vector: np.ndarray) -> PlayerView:
    """The view a Collector observation vector encodes (``encode(decode(x)) == x``)."""
    return _shared.decode(vector, hot=False)


def render_state(s: SetState) -> str:
    """Every card, hidden ones included (debugging only, never for a player)."""
    return _shared.render_state(s, hot=False)


__all__ = ["Codec", "PlayerView", "decode", "encode", "layout", "make_layout", "render", "render_state", "render_view", "view"]
