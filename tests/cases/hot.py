"""Hot's test cases: the configurations the suites run, the rare branches of the process
property, and its null-model sampler of hidden cards.

Hot's rules subclass Collector's engine (``SetRules``), and its sampler is Collector's:
``resample_hidden`` (``tests/cases/collector.py``, the independent second sampler beside the exact
``card_envs.hot_v0.sample_world``) reads nothing of which game it is. What differs comes through the
rules it is given: a pending commitment is redrawn among Hot's legal choices (``rules.mask_for``),
and the copy's fresh generator keeps the next deal's shuffle hidden as well.
"""

from __future__ import annotations

from card_envs.set_collecting.engine import OVER
from tests.cases.collector import contest_losers_drew, resample_hidden, resolves

__all__ = ["CONFORMANCE_CONFIGS", "PROCESS_CONFIGS", "RARE_BRANCHES", "VECTOR_CONFIGS", "resample_hidden"]

#: configurations the conformance suite runs (tests/conformance)
CONFORMANCE_CONFIGS = [
    {},
    {"num_players": 3},
    {"num_players": 3, "reward_mode": "score", "dealer": "random", "target_points": 5},
    {"num_players": 2, "single_deal": True},
    {"num_players": 3, "contest_fallback": "nothing", "target_points": 3},
    {"num_players": 2, "max_rounds_per_deal": 4, "max_deals": 3},
]


def _losers_drew(before, action, after):
    return contest_losers_drew(before, action, after)


def _deal_ends(before, action, after):
    return resolves(before) and (after.deal != before.deal or after.phase == OVER)


#: events the process property must reach and check (tests/conformance/test_information_process.py)
RARE_BRANCHES = {
    "contest won, the loser draws a replacement (contest_fallback='draw')":
        lambda before, action, after: 2 in _losers_drew(before, action, after),
    "contest won, the loser gets no replacement (contest_fallback='nothing')":
        lambda before, action, after: 1 in _losers_drew(before, action, after),
    "a deal scored (callers, hands laid down)": lambda before, action, after: _deal_ends(before, action, after) and bool(after.winners),
    "a void deal (round limit)": lambda before, action, after: _deal_ends(before, action, after) and not after.winners,
    "the game ends": lambda before, action, after: after.phase == OVER,
}
#: configurations of the process property (each reaches some of the rare branches in 4 games)
PROCESS_CONFIGS = [
    {"num_players": 2, "hand_size": 10, "single_deal": True, "max_rounds_per_deal": 30},
    {"num_players": 3, "reward_mode": "score", "dealer": "random", "hand_size": 10, "target_points": 4,
     "max_rounds_per_deal": 12, "max_deals": 3},
    {"num_players": 3, "contest_fallback": "nothing", "hand_size": 10, "max_rounds_per_deal": 12, "max_deals": 2},
    {"num_players": 2, "max_rounds_per_deal": 4, "max_deals": 3},
]

#: configurations beyond the conformance ones that ``tests/conformance/test_kernels.py``
#: also plays, each reaching a branch of the kernels (``card_envs/hot/kernels.py``) worth
#: pinning
VECTOR_CONFIGS = [
    {"num_players": 2, "hand_size": 12, "reward_mode": "score", "target_points": 5},  # several scored deals
    {"num_players": 3, "hand_size": 8, "reward_mode": "score", "single_deal": True, "max_rounds_per_deal": 30},
    {"num_players": 2, "max_rounds_per_deal": 3, "max_deals": 4, "reward_mode": "score"},  # void deals, truncation
    {"num_players": 3, "hand_size": 12, "contest_fallback": "nothing", "max_rounds_per_deal": 15,
     "max_deals": 6, "dealer": "random"},  # a short stock, losers get nothing, void and scored deals
    {"num_players": 2, "single_deal": True, "max_rounds_per_deal": 2},  # a void single deal truncates
    {"num_players": 2, "hand_size": 1, "target_points": 1, "dealer": 1},  # games over in one scored deal
]

