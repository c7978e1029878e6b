"""Guilders' test cases: the configurations the suites run, the rare branches of the process
property, and the independent null-model sampler of hidden cards.

``resample_hidden`` is the test suite's second sampler, beside the exact
``card_envs.guilders_v0.sample_world``: it starts from the true state and rearranges the cards a
seat cannot see by a Markov chain of consistent swaps. Two samplers built differently keep each
other honest: a bug in one cannot hide a leak the other shows.
"""

from __future__ import annotations

import numpy as np

from card_envs import cards
from card_envs.guilders.rules import JOKER_SCORED, MISSED, PENALTY, REFANNED, RESHUFFLED, GuildersRules, GuildersState

#: configurations the conformance suite runs (tests/conformance)
CONFORMANCE_CONFIGS = [
    {"num_players": 4},
    {"num_players": 1},
    {"num_players": 2, "reward_mode": "score"},
    {"num_players": 5, "refan_discards": 1},
    {"num_players": 20},
    {"num_players": 3, "evil_joker": True},
    {"num_players": 3, "good_joker": True},
    {"num_players": 3, "chaotic_joker": True},
    {"num_players": 4, "evil_joker": True, "good_joker": True, "chaotic_joker": True, "reward_mode": "score"},
    {"num_players": 2, "num_decks": 2, "public_discards": True, "refan_discards": -1, "max_turns": 300},
]


def _events(after) -> int:
    return after.last_events


#: events the process property must be checked at (tests/conformance/test_information_process.py)
RARE_BRANCHES = {
    "good joker: a called joker scores 15": lambda before, action, after: bool(_events(after) & JOKER_SCORED),
    "evil joker: the drawer loses a scored card": lambda before, action, after: bool(_events(after) & PENALTY),
    "chaotic joker: the discards are reshuffled into the fan": lambda before, action, after: bool(_events(after) & RESHUFFLED),
    "good joker alone: an uncalled joker is a face-down miss": lambda before, action, after: bool(
        _events(after) & MISSED and after.last_card >= 52 and not after.last_public
    ),
    "refan: the discard pile becomes a new fan": lambda before, action, after: bool(_events(after) & REFANNED),
    "public discards: a miss shown to all": lambda before, action, after: bool(_events(after) & MISSED and after.last_public),
}
#: configurations the process property runs, chosen to reach every rare branch
PROCESS_CONFIGS = [
    {"num_players": 3},
    {"num_players": 4, "refan_discards": 1},
    {"num_players": 3, "good_joker": True, "jokers_per_deck": 12, "refan_discards": 2},
    {"num_players": 3, "evil_joker": True, "jokers_per_deck": 4},
    {"num_players": 3, "chaotic_joker": True},
    {"num_players": 4, "evil_joker": True, "good_joker": True, "chaotic_joker": True, "jokers_per_deck": 6, "reward_mode": "score"},
    {"num_players": 2, "public_discards": True, "refan_discards": 1, "reward_mode": "score"},
    {"num_players": 3, "num_decks": 2, "good_joker": True, "refan_discards": 1},
]


#: configurations beyond the conformance ones that ``tests/conformance/test_kernels.py``
#: also plays, each reaching a branch of the kernels (``card_envs/guilders/kernels.py``) worth
#: pinning
VECTOR_CONFIGS = [
    {"num_players": 60, "num_decks": 2, "evil_joker": True},  # more players than one deck allows
    {"num_players": 3, "num_decks": 3, "good_joker": True, "jokers_per_deck": 1, "refan_discards": 2},
    {"num_players": 2, "evil_joker": True, "chaotic_joker": True, "public_discards": True, "start_player": "random"},
    {"num_players": 3, "good_joker": True, "evil_joker": True, "reward_mode": "score", "refan_discards": 1},
    {"num_players": 1, "good_joker": True, "chaotic_joker": True, "refan_discards": 3},
    {"num_players": 4, "refan_discards": -1, "max_turns": 120},  # truncation
]


# ------------------------------------------------------------------ the null-model sampler
def resample_hidden(rules: GuildersRules, s: GuildersState, seat: int, rng: np.random.Generator) -> GuildersState:
    """A copy of ``s`` in which the cards ``seat`` cannot see are rearranged among the places
    it cannot see (the whole fan, and the discards other players drew unless
    ``public_discards``), consistently with everything public: a face-down miss keeps its
    call, so the card there never matches that call (a ``suit h`` miss is no heart; with
    evil or chaotic on it is no joker). Score piles, lost and set-aside cards are public;
    ``seat``'s own discards stay put.

    The arrangement is drawn by a Markov chain of swaps from the true one, a swap kept only
    when both places stay consistent: every world it gives is consistent, and the chain's
    stationary law is uniform over the consistent worlds it can reach."""
    t = s.copy()
    if rules.config.public_discards:
        hidden = []
    else:
        hidden = [i for i, b in enumerate(t.discard_by) if b != seat]
    m = len(t.fan)
    pool = t.fan + [t.discards[i] for i in hidden]
    calls = [None] * m + [t.discard_call[i] for i in hidden]  # None: a fan place, no constraint
    if not hidden:  # no constraint: a uniform shuffle
        pool = [pool[i] for i in rng.permutation(len(pool))]
    else:  # start from the truth (consistent), then swap
        size = len(pool)
        steps = 6 * size + 20
        for a, b in zip(rng.integers(size, size=steps).tolist(), rng.integers(size, size=steps).tolist()):
            if a == b or pool[a] == pool[b]:
                continue
            ca, cb = calls[a], calls[b]
            if (ca is None or rules.can_miss(ca, pool[b])) and (cb is None or rules.can_miss(cb, pool[a])):
                pool[a], pool[b] = pool[b], pool[a]
    t.fan = pool[:m]
    for k, i in enumerate(hidden):
        t.discards[i] = pool[m + k]
    t.discard_counts = np.bincount(np.array(t.discards, dtype=np.int64), minlength=cards.NUM_CARDS)
    t.known = np.zeros_like(s.known)
    for c, b in zip(t.discards, t.discard_by):
        t.known[b, c] += 1
    if t.last_place is not None:  # the card missed last turn follows its place
        zone, i = t.last_place
        if t.last_public or t.last_mover == seat:  # seat saw it: it stays that card
            if zone == "fan":
                t.last_place = ("fan", t.fan.index(t.last_card))
        else:
            t.last_card = (t.fan if zone == "fan" else t.discards)[i]
    return t
