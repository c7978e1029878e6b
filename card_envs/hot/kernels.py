"""Hot's batched twin: Collector's round-engine kernels with the Hot flag on.

Hot runs Collector's engine (:mod:`card_envs.collector.engine`), and its kernels are Collector's
(:mod:`card_envs.collector.kernels`, where the state arrays and the kernels are described): the
configuration's ``C_HOT`` flag switches on what differs, each mirroring its ``HotRules``
method: a successful taker also draws one card (``take_draws``), a contest loser draws two or
one (``contest_fallback``: ``loser_draws``), ``_check`` scores the callers (``deal_points``: for
every opponent, the ranks it lacks), lays the hands down and pays the score-mode rewards,
``_end_of_deal`` ends the game at ``target_points`` (or after one deal with ``single_deal``),
truncates at ``max_deals`` and otherwise deals the next deal with the next dealer (the only
randomness after the first deal), and the ranks are by game total (everyone first when
truncated). The observation adds the totals, the dealer, the deal number and the last deal's
points, at the offsets of Hot's own Layout.
"""

from __future__ import annotations

from card_envs.collector import kernels as _set
from card_envs.hot.rules import HotRules

#: configurations beyond the conformance ones that the differential test (``tests/vector/``)
#: also plays, each reaching a branch of these kernels worth pinning
VECTOR_CONFIGS = [
    {"num_players": 2, "hand_size": 12, "reward_mode": "score", "target_points": 5},  # several scored deals
    {"num_players": 3, "hand_size": 8, "reward_mode": "score", "single_deal": True, "max_rounds_per_deal": 30},
    {"num_players": 2, "max_rounds_per_deal": 3, "max_deals": 4, "reward_mode": "score"},  # void deals, truncation
    {"num_players": 3, "hand_size": 12, "contest_fallback": "nothing", "max_rounds_per_deal": 15,
     "max_deals": 6, "dealer": "random"},  # a short stock, losers get nothing, void and scored deals
    {"num_players": 2, "single_deal": True, "max_rounds_per_deal": 2},  # a void single deal truncates
    {"num_players": 2, "hand_size": 1, "target_points": 1, "dealer": 1},  # games over in one scored deal
]


class Kernels(_set.Kernels):
    """Hot's kernels for one configuration: Collector's, driven by ``HotRules`` (``rules.hot``
    sets the flag; the totals are the game points)."""

    def __init__(self, rules: HotRules):
        super().__init__(rules)
        assert self.hot
