"""Fiddlesticks' test cases: the configurations the suites run, the rare branches of the
process property, and the independent null-model sampler of hidden cards.

``resample_hidden`` is the test suite's second sampler, beside the exact
``card_envs.fiddlesticks_v0.sample_world``: it starts from the true state and redeals the cards a
seat cannot see among the places they could lie in (a greedy draw for opponents known to lack
some ranks, a uniformly random subset for picks in the SWAP phase). Two samplers built
differently keep each other honest: a bug in one cannot hide a leak the other shows.
"""

from __future__ import annotations

import numpy as np

from card_envs.fiddlesticks.rules import (
    GAME_RANK,
    NUM_RANKS,
    NUM_SLOTS,
    PLAY,
    PLAYABLE,
    SWAP,
    TEN,
    FiddlesticksRules,
    FiddlesticksState,
    _rank_counts,
)

#: configurations the conformance suite runs (tests/conformance)
CONFORMANCE_CONFIGS = [
    {"num_players": 4},
    {"num_players": 2},
    {"num_players": 2, "end_mode": "rank_all", "voluntary_pickup": True, "max_turns": 300},  # truncations
    {"num_players": 3, "end_mode": "rank_all"},
    {"num_players": 3, "num_decks": 1, "dealer": 0},
    {"num_players": 4, "end_mode": "rank_all"},
    {"num_players": 6, "end_mode": "rank_all"},
    {"num_players": 6, "num_decks": 3, "four_in_a_row_clears": False},
    {"num_players": 5, "num_decks": 1, "dealer": 2, "max_turns": 80},  # 7 cards in the stock
]


# ------------------------------------------------------------------ the process property
def _is_pickup(before, action, after) -> bool:
    """A PICKUP: the pile went into the actor's hand (a failed blind also takes the pile, but the
    actor's hand was empty and a face-down slot was turned)."""
    p = before.current_player
    return (
        before.phase == PLAY and bool(before.pile) and before.hand_size[p] > 0
        and not after.pile and after.cleared_counts == before.cleared_counts
        and after.hand_size[p] == before.hand_size[p] + len(before.pile)
    )


def _playable_in_hand(s) -> bool:
    p, ok = s.current_player, PLAYABLE[s.run_rank]
    return any(c and ok[r] for r, c in enumerate(s.hand_counts[p]))


def _played_rank(before, after) -> int | None:
    """The rank put on the pile by a PLAY or BLIND that cleared it (None if it did not clear)."""
    if before.phase != PLAY or sum(after.cleared_counts) == sum(before.cleared_counts):
        return None
    for r, (a, b, pc) in enumerate(zip(after.cleared_counts, before.cleared_counts, before.pile_counts)):
        if a - b - pc > 0:
            return r
    return None


#: events the process property must check at least once (tests/conformance/process.py)
RARE_BRANCHES = {
    "swap pick from the hand (hidden commit)": lambda b, a, n: (
        b.phase == SWAP and n.phase == SWAP
        and sum(n.hand_counts[b.current_player]) < sum(b.hand_counts[b.current_player])
    ),
    "forced pick-up": lambda b, a, n: _is_pickup(b, a, n) and not _playable_in_hand(b),
    "voluntary pick-up": lambda b, a, n: _is_pickup(b, a, n) and _playable_in_hand(b),
    "blind play that fails": lambda b, a, n: (
        b.phase == PLAY and b.hand_size[b.current_player] == 0 and n.hand_size[b.current_player] > 0
    ),
    "blind play that fits": lambda b, a, n: (
        b.phase == PLAY and b.hand_size[b.current_player] == 0 and n.hand_size[b.current_player] == 0
    ),
    "four in a row clears the pile": lambda b, a, n: _played_rank(b, n) not in (None, TEN),
    "a 10 burns the pile": lambda b, a, n: _played_rank(b, n) == TEN and sum(b.pile_counts) > 0,
}

#: the configurations the process property runs: few and small enough to be quick, and between
#: them reaching every rare branch (voluntary pick-ups need the option; one deck and five players
#: leave a 7-card stock, so blind plays come early)
PROCESS_CONFIGS = [
    {"num_players": 4},
    {"num_players": 2, "end_mode": "rank_all", "voluntary_pickup": True, "max_turns": 300},
    {"num_players": 3, "num_decks": 1, "dealer": 0},
    {"num_players": 5, "num_decks": 1, "end_mode": "rank_all", "max_turns": 150},
]


#: configurations beyond the conformance ones that ``tests/conformance/test_kernels.py``
#: also plays, each reaching a branch of the kernels (``card_envs/fiddlesticks/kernels.py``) worth
#: pinning
VECTOR_CONFIGS = [
    {"num_players": 11},  # the most players two decks allow: a 5-card stock, face-up cards taken in early
    {"num_players": 5, "num_decks": 1, "end_mode": "rank_all", "dealer": 4, "max_turns": 600},  # blind plays, outs
    {"num_players": 3, "num_decks": 4, "dealer": 1},  # K = 16: 225 actions
    {"num_players": 2, "num_decks": 1, "four_in_a_row_clears": False, "max_turns": 200},
    {"num_players": 4, "voluntary_pickup": True, "dealer": 3, "max_turns": 60},  # first_out with voluntary pick-ups
    {"num_players": 3, "max_turns": 25},  # truncation, all rewards 0
]


# ------------------------------------------------------------------ the null-model sampler
def resample_hidden(rules: FiddlesticksRules, s: FiddlesticksState, seat: int, rng: np.random.Generator) -> FiddlesticksState:
    """A copy of ``s`` in which every card ``seat`` cannot see is reshuffled among the places
    it cannot see: every face-down card (its own too), the stock, and each opponent's hand
    cards beyond the publicly known ones. In the SWAP phase an opponent's dealt hand is
    hidden, and so is which of its pool cards it has picked so far (the choices are redrawn).
    An opponent known to hold no rank r beyond its known cards (``absent``, from a forced
    pick-up) gets no hidden card of rank r: the copy is consistent with everything the view
    encodes."""
    t = s.copy()
    n = rules.num_players
    pool: list[int] = []
    for q in range(n):
        pool += [c for c in t.face_down[q] if c is not None]
    pool += t.stock
    others = [q for q in range(n) if q != seat]
    swap_pools: dict[int, tuple[list[int], int]] = {}
    hidden_in_hand: dict[int, int] = {}
    for q in others:
        if t.phase == SWAP:
            # q's six cards: the dealt face-up ones (public, by rank) stay, the rest are hidden.
            six = t.face_up[q] + [c for h in t.hand[q] for c in h] + t.picked[q]
            public, need = [], list(t.dealt_up[q])
            for c in six:
                r = GAME_RANK[c]
                if need[r]:
                    need[r] -= 1
                    public.append(c)
                else:
                    pool.append(c)
            swap_pools[q] = (public, len(t.picked[q]))
        else:
            kept = 0
            for r in range(NUM_RANKS):
                h = t.hand[q][r]
                kn = t.known[q][r]
                pool += h[kn:]
                del h[kn:]
                kept += len(h)
            hidden_in_hand[q] = t.hand_size[q] - kept
    pool = [pool[i] for i in rng.permutation(len(pool))]
    # Opponents with known-absent ranks take their hidden cards first, among the cards they
    # may hold (most constrained first); should that greedy draw get stuck, they keep the
    # hidden cards they hold in ``s``, which fit by construction.
    dealt_hands: dict[int, list[int]] = {}
    if t.phase != SWAP:
        bound = [q for q in others if hidden_in_hand[q] and any(t.absent[q])]
        if bound:
            dealt_hands = _deal_constrained(s, t, bound, hidden_in_hand, pool, rng)
    # Put cards back into the same places, in the same numbers.
    for q in range(n):
        fd = t.face_down[q]
        for j in range(NUM_SLOTS):
            if fd[j] is not None:
                fd[j] = pool.pop()
    t.stock = [pool.pop() for _ in range(len(t.stock))]
    for q in others:
        if t.phase == SWAP:
            public, num_picked = swap_pools[q]
            dealt = [pool.pop() for _ in range(NUM_SLOTS)]
            t.dealt_hand[q] = _rank_counts(dealt)
            six = public + dealt
            chosen = set(rng.choice(2 * NUM_SLOTS, size=num_picked, replace=False).tolist())
            t.picked[q] = [six[i] for i in sorted(chosen)]
            t.face_up[q] = [c for i, c in enumerate(public) if i not in chosen]
            rest = [c for i, c in enumerate(dealt) if i + NUM_SLOTS not in chosen]
            t.hand[q] = [[] for _ in range(NUM_RANKS)]
            for c in rest:
                t.hand[q][GAME_RANK[c]].append(c)
            t.picked_counts[q] = _rank_counts(t.picked[q])
            t.face_up_counts[q] = _rank_counts(t.face_up[q])
            t.hand_counts[q] = [len(h) for h in t.hand[q]]
            t.hand_size[q] = len(rest)
        else:
            got = dealt_hands.get(q)
            if got is None:
                got = [pool.pop() for _ in range(hidden_in_hand[q])]
            for c in got:
                t.hand[q][GAME_RANK[c]].append(c)
            t.hand_counts[q] = [len(h) for h in t.hand[q]]
    assert not pool
    return t

def _deal_constrained(s, t, bound, hidden_in_hand, pool, rng, tries: int = 20) -> dict[int, list[int]]:
    """Hidden hand cards for the opponents in ``bound`` (each with known-absent ranks), taken
    out of the shuffled ``pool`` (in place): none of rank r where ``absent[q][r]``."""
    order = sorted(bound, key=lambda q: sum(not a for a in t.absent[q]))
    for attempt in range(tries):
        if attempt:
            pool[:] = [pool[i] for i in rng.permutation(len(pool))]
        left = list(pool)
        got: dict[int, list[int]] = {}
        for q in order:
            ab, need, mine, rest = t.absent[q], hidden_in_hand[q], [], []
            for c in left:
                if len(mine) < need and not ab[GAME_RANK[c]]:
                    mine.append(c)
                else:
                    rest.append(c)
            if len(mine) < need:
                break
            got[q] = mine
            left = rest
        else:
            pool[:] = left
            return got
    # Fall back: these opponents keep their hidden hand cards as they are in ``s``.
    got = {}
    for q in bound:
        mine = []
        for r in range(NUM_RANKS):
            mine += s.hand[q][r][s.known[q][r]:]
        got[q] = mine
        for c in mine:
            pool.remove(c)
    return got
