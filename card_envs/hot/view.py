"""What one player of Hot may know, and its observation vector.

Hot's view is the shared round's (:mod:`card_envs.set_collecting.view`: the two games share their engine)
bound to Hot's variant, a game of deals: it adds the game totals, the dealer, the deal number and
the points of the last deal; the hands shown are those laid down at the end of the last scored deal.
"""

from __future__ import annotations

from card_envs.hot.rules import VARIANT
from card_envs.set_collecting.view import Codec, GameView, PlayerView, encode, layout, render, render_view

_game = GameView(VARIANT)
#: ``make_layout(num_players, max_rounds=200, target_points=11, max_deals=100)``, ``view(s, seat)``
#: (the only place hidden information is filtered), ``decode(vector)``, ``render_state(s)``: the
#: shared functions for Hot
make_layout, view, decode, render_state = _game.make_layout, _game.view, _game.decode, _game.render_state

__all__ = ["Codec", "PlayerView", "decode", "encode", "layout", "make_layout", "render", "render_state", "render_view", "view"]
