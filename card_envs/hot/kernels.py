"""Hot's batched twin: the shared round's kernels, bound to Hot's variant.

Hot runs the shared round (:mod:`card_envs.set_collecting.engine`), and its kernels are the round's
(:mod:`card_envs.set_collecting.kernels`, where the state arrays and the kernels are described): the
variant's entries of the configuration (``deals``, ``take_draws``, ``loser_draws``) switch on what
differs, each mirroring its ``HotRules`` method: a successful taker also draws one card
(``take_draws``), a contest loser draws two or one (``contest_fallback``: ``loser_draws``), in a
game of deals ``_check`` scores the callers (``deal_points``: for every opponent, the ranks it
lacks), lays the hands down and pays the score-mode rewards,
``_end_of_deal`` ends the game at ``target_points`` (or after one deal with ``single_deal``),
truncates at ``max_deals`` and otherwise deals the next deal with the next dealer (the only
randomness after the first deal), and the ranks are by game total (everyone first when
truncated). The observation adds the totals, the dealer, the deal number and the last deal's
points, at the offsets of Hot's own Layout.
"""

from __future__ import annotations

from card_envs.hot.rules import VARIANT
from card_envs.set_collecting import kernels as _set
from card_envs.set_collecting.kernels import (  # noqa: F401  (the shared configuration and drivers)
    CONFIG,
    new_games_parallel,
    new_games_serial,
    step_parallel,
    step_serial,
)


class Kernels(_set.Kernels):
    """Hot's kernels for one configuration: the shared round's, driven by ``HotRules`` (the totals
    are the game points)."""

    variant = VARIANT
