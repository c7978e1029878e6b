"""Collector's test cases: the configurations the suites run, the rare branches of the process
property, and the independent null-model sampler of hidden cards (Hot, which runs the same
engine, uses the same sampler: see ``tests/cases/hot.py``).

``resample_hidden`` is the test suite's second sampler, beside the exact
``card_envs.collector_v0.sample_world``: it starts from the true state and redeals the cards a
seat cannot see (rejecting deals that would have completed another player's set at the last
check) and redraws the other players' pending commitments among their legal choices. Two
samplers built differently keep each other honest: a bug in one cannot hide a leak the other
shows.
"""

from __future__ import annotations

from collections import deque
from itertools import islice

import numpy as np

from card_envs.set_collecting.engine import ACQUIRE, DRAW_TWO, PLAY, SetRules, SetState, rank_counts

#: configurations the conformance suite runs (tests/conformance)
CONFORMANCE_CONFIGS = [
    {},
    {"num_players": 3},
    {"num_players": 4, "max_rounds": 60},
    {"num_players": 3, "contest_fallback": "nothing", "dealer": "random", "max_rounds": 80},
    {"num_players": 2, "max_rounds": 6, "truncation_rule": "most_ranks"},
    {"num_players": 4, "hand_size": 12, "max_rounds": 30},
]


# ------------------------------------------------------------------ the process property
def resolves(before: SetState) -> bool:
    """Whether the next commitment closes ACQUIRE (the round resolves)."""
    return before.phase == ACQUIRE and before.pos + 1 == len(before.order)


def contest_losers_drew(before: SetState, action: int, after: SetState) -> list[int]:
    """For the process property's rare branches: the cards each losing claimant drew in the
    round ``action`` resolves (empty if it resolves none, has no contest, starts a new deal, or
    the stock could run short, so that the counts show the ``contest_fallback`` itself)."""
    n = before.num_players
    if not resolves(before) or len(before.stock) < 2 * n or after.deal != before.deal:
        return []
    claims = before.pending[:]
    claims[before.current_player] = action
    targets = [(p + a - DRAW_TWO) % n if a != DRAW_TWO else -1 for p, a in enumerate(claims)]
    out = []
    for d in range(n):
        cl = [p for p in range(n) if targets[p] == d]
        if len(cl) > 1:
            out += [after.last_drawn[p] for p in cl if p != after.last_taker[d]]
    return out


def _losers_drew(before, action, after):
    return contest_losers_drew(before, action, after)


#: events the process property must reach and check (tests/conformance/test_information_process.py)
RARE_BRANCHES = {
    "contest won, the loser draws two (contest_fallback='draw_two')":
        lambda before, action, after: 2 in _losers_drew(before, action, after),
    "contest won, the loser gets nothing (contest_fallback='nothing')":
        lambda before, action, after: 0 in _losers_drew(before, action, after),
    "a set completed: the game is won and the hands laid down": lambda before, action, after: after.terminated,
    "the round limit: the hands laid down, the game truncated": lambda before, action, after: after.truncated,
    "a player with an empty hand skips PLAY":
        lambda before, action, after: after.phase == PLAY and len(after.order) < after.num_players,
}
#: configurations of the process property (each reaches some of the rare branches in 4 games)
PROCESS_CONFIGS = [
    {"num_players": 2, "hand_size": 10, "max_rounds": 30},
    {"num_players": 3, "max_rounds": 20},
    {"num_players": 4, "max_rounds": 10},
    {"num_players": 3, "hand_size": 1, "contest_fallback": "nothing", "dealer": "random", "max_rounds": 20},
    {"num_players": 2, "max_rounds": 6, "truncation_rule": "most_ranks"},
]

#: configurations beyond the conformance ones that ``tests/conformance/test_kernels.py``
#: also plays, each reaching a branch of the kernels (``card_envs/set_collecting/kernels.py``) worth
#: pinning
VECTOR_CONFIGS = [
    {"num_players": 2, "hand_size": 12, "max_rounds": 40},  # quick completions, most_ranks off
    {"num_players": 4, "hand_size": 1, "contest_fallback": "nothing", "max_rounds": 40},  # empty hands skip PLAY
    {"num_players": 3, "max_rounds": 12, "truncation_rule": "most_ranks", "dealer": 2},  # truncations, ranked
    {"num_players": 4, "hand_size": 10, "max_rounds": 25, "truncation_rule": "most_ranks", "dealer": "random"},
    {"num_players": 2, "max_rounds": 1},  # the round guard at once
    {"num_players": 3, "hand_size": 12, "max_rounds": 60, "dealer": 1},  # a short stock: draws served from the lead seat
]


# ------------------------------------------------------------------ the null-model sampler
def resample_hidden(rules: SetRules, s: SetState, seat: int, rng: np.random.Generator) -> SetState:
    """A copy in which everything ``seat`` cannot know is redrawn.

    Hidden from ``seat``: the other players' cards that are not publicly known, the stock
    cards nobody has seen (its top part) and, in a commit phase, the other players' pending
    commitments; from the next Hot deal on, the shuffles too (the copy gets a fresh
    generator). These hidden cards are dealt at random among the hidden places (each keeps
    its size) and each pending commitment of another player is redrawn among its legal
    choices. Everything ``seat`` knows stays: its own hand and commitment, the cards seen
    face up and where they went, hand and stock sizes, the shown hands once laid down, and
    that no other player held a complete set at the last check (draws violating that are
    rejected; after many rejections only the suits of the hidden cards are permuted,
    which keeps it by construction).
    """
    n = rules.num_players
    out = s.copy()
    out.rng = np.random.default_rng(int(rng.integers(2**63)))
    others = [p for p in range(n) if p != seat]
    hands_shown = s.laid_down
    places: list[tuple[int, int]] = []  # (seat or -1 for the stock, how many hidden cards)
    pool: list[int] = []
    kept: dict[int, list[int]] = {}
    if not hands_shown:
        for p in others:
            known = set(s.known[p])
            hidden = [c for c in s.hands[p] if c not in known]
            kept[p] = [c for c in s.hands[p] if c in known]
            pool.extend(hidden)
            places.append((p, len(hidden)))
    pool.extend(islice(s.stock, 0, s.stock_unknown))
    places.append((-1, s.stock_unknown))
    tail = list(islice(s.stock, s.stock_unknown, None))
    pool_arr = np.array(pool, dtype=np.int64)

    def deal_out(order: list[int]) -> None:
        i = 0
        for p, k in places:
            part = order[i : i + k]
            i += k
            if p < 0:
                out.stock = deque(part + tail)
            else:
                out.hands[p] = kept[p] + part
                out.counts[p] = rank_counts(out.hands[p])

    def consistent() -> bool:
        if hands_shown:  # nothing of the hands was redrawn
            return True
        for p in others:
            counts = out.counts[p][:]
            if s.played[p] >= 0:
                counts[s.played[p] % 13] += 1
            if 0 not in counts:
                return False
        return True

    for _ in range(200):
        deal_out(rng.permutation(pool_arr).tolist())
        if consistent():
            break
    else:  # permute suits only: every hand keeps its ranks
        by_rank: dict[int, list[int]] = {}
        for c in pool:
            by_rank.setdefault(c % 13, []).append(c)
        perm = {}
        for r, cs in by_rank.items():
            for a, b in zip(cs, rng.permutation(np.array(cs)).tolist()):
                perm[a] = b
        deal_out([perm[c] for c in pool])
    # the other players' pending commitments
    for p in others:
        if out.pending[p] >= 0:
            legal = np.flatnonzero(rules.mask_for(out, p))
            out.pending[p] = int(rng.choice(legal))
    return out
