"""What one player of Collector may know, and its observation vector: the view of the round the
two set-collecting games share (:mod:`card_envs.set_collecting.view`, where the layout, each
segment and why the view is a sufficient summary are written), bound to Collector's variant
(one deal: no totals, dealer or deal segments)."""

from __future__ import annotations

from card_envs.collector.rules import VARIANT
from card_envs.set_collecting.view import Codec, GameView, PlayerView, encode, layout, render, render_view

_game = GameView(VARIANT)
#: ``make_layout(num_players, max_rounds=200)``, ``view(s, seat)`` (the only place hidden
#: information is filtered), ``decode(vector)``, ``render_state(s)``: the shared functions for Collector
make_layout, view, decode, render_state = _game.make_layout, _game.view, _game.decode, _game.render_state

__all__ = ["Codec", "PlayerView", "decode", "encode", "layout", "make_layout", "render", "render_state", "render_view", "view"]
