"""Guillotine's test cases: the configurations the suites run, the rare branches of the process
property, and the independent null-model sampler of hidden cards.

``resample_hidden`` is the test suite's second sampler, beside the exact
``card_envs.guillotine_v0.sample_world``: it starts from the true state and deals the other hands
again card by card, each card to a random player allowed to hold it (Hall's condition keeps the
deal completable). That greedy deal is not the exact posterior when voids couple (a slow test in
tests/worlds tells them apart), but it never breaks a public constraint. Two samplers built
differently keep each other honest: a bug in one cannot hide a leak the other shows.
"""

from __future__ import annotations

import numpy as np

from card_envs.guillotine.rules import (
    ACE,
    ALL_CARDS,
    BONUS,
    DOMINO_TURN,
    NUM_CARDS,
    NUM_PLAYERS,
    PASS_STOP,
    GuillotineRules,
    GuillotineState,
    cards_of,
)

#: configurations the conformance suite runs (tests/conformance)
CONFORMANCE_CONFIGS = [
    {"mode": "single"},
    {},
    {"mode": "single", "contract": "domino"},
    {"mode": "single", "contract": "guillotine", "trick_rank_order": "french", "reward_mode": "score"},
    {"mode": "single", "contract": "domino", "ace_bonus": False, "first_dealer": 2},
    {"first_dealer": 1, "king_rule": "contract_suit_king", "reward_mode": "score"},
]


# ------------------------------------------------------------- process-property checks
def _actor_hand(before) -> int:
    return before.hands[before.current_player]


def _bonus_entered(before, action, after) -> bool:
    """A Domino Ace (not the opening card) starts a bonus."""
    return (before.phase == DOMINO_TURN and before.table != 0 and action < NUM_CARDS
            and action & 7 == ACE and after.phase == BONUS)


def _bonus_entered_with_nothing_playable(before, action, after) -> bool:
    """The leak the revised bonus rule closed: the bonus starts although no card of the hand
    fits (STOP alone)."""
    return _bonus_entered(before, action, after) and not after.hands[after.current_player] & after.playable


def _bonus_continues(before, action, after) -> bool:
    """A card laid inside a bonus, and the bonus goes on."""
    return before.phase == BONUS and action < NUM_CARDS and after.phase == BONUS


def _stop_with_nothing_playable(before, action, after) -> bool:
    """STOP when it is the only legal action of the bonus step."""
    return before.phase == BONUS and action == PASS_STOP and not _actor_hand(before) & before.playable


def _bonus_ended_by_an_empty_hand(before, action, after) -> bool:
    """The last card of the hand laid inside a bonus: the player is out, the bonus is over."""
    return before.phase == BONUS and action < NUM_CARDS and _actor_hand(before) == 1 << action


def _compulsory_pass(before, action, after) -> bool:
    """A Domino PASS on a turn with no legal card (it proves the playable cards absent)."""
    return before.phase == DOMINO_TURN and action == PASS_STOP


#: events the process property (tests/conformance/process.py) must check at least once
RARE_BRANCHES = {
    "domino ace bonus entered": _bonus_entered,
    "domino ace bonus entered with nothing playable": _bonus_entered_with_nothing_playable,
    "domino bonus continues": _bonus_continues,
    "domino stop with nothing playable": _stop_with_nothing_playable,
    "domino bonus ended by an empty hand": _bonus_ended_by_an_empty_hand,
    "domino compulsory pass": _compulsory_pass,
}

#: configurations of the process property: Domino deals (with and without the bonus, several
#: dealers) reach the rare branches; the full 24-deal game covers the deal changes
PROCESS_CONFIGS = [
    {"mode": "single", "contract": "domino"},
    {"mode": "single", "contract": "domino", "first_dealer": 1},
    {"mode": "single", "contract": "domino", "first_dealer": 3, "reward_mode": "score"},
    {"mode": "single", "contract": "domino", "ace_bonus": False, "first_dealer": 2},
    {"mode": "single"},
    {"mode": "single", "contract": "guillotine", "trick_rank_order": "french", "reward_mode": "score"},
    {"first_dealer": 1, "king_rule": "contract_suit_king", "reward_mode": "score"},
]


#: configurations beyond the conformance ones that ``tests/conformance/test_kernels.py``
#: also plays, each reaching a branch of the kernels (``card_envs/guillotine/kernels.py``) worth
#: pinning
VECTOR_CONFIGS = [
    # every deal of the full game (24 deals, all six contracts per dealer), French trick order,
    # score rewards at every deal, no Ace bonus
    {"trick_rank_order": "french", "ace_bonus": False, "reward_mode": "score", "first_dealer": 3},
    # each trick contract alone, scored deal by deal (score mode shows every seat's points)
    {"mode": "single", "contract": "royalty", "reward_mode": "score", "first_dealer": 0},
    {"mode": "single", "contract": "queens", "reward_mode": "score", "trick_rank_order": "french"},
    {"mode": "single", "contract": "spades", "reward_mode": "score"},
    {"mode": "single", "contract": "spades", "king_rule": "contract_suit_king", "reward_mode": "score"},
    {"mode": "single", "contract": "parliament", "reward_mode": "score", "first_dealer": 1},
    {"mode": "single", "contract": "guillotine", "first_dealer": 2},
    # Domino with the bonus, score rewards; the dealer's own choice among all six in single mode
    {"mode": "single", "contract": "domino", "reward_mode": "score", "first_dealer": 3},
    {"mode": "single", "king_rule": "contract_suit_king", "trick_rank_order": "french", "reward_mode": "score"},
]


# ------------------------------------------------------------------ the null-model sampler
def resample_hidden(rules: GuillotineRules, s: GuillotineState, seat: int, rng: np.random.Generator) -> GuillotineState:
    """A copy of ``s`` in which every card ``seat`` cannot see (the other three hands) is
    dealt again at random among those hands, keeping their sizes and everything ``seat``
    knows: no player gets a card it is publicly known not to hold (``absent``: the suits it
    failed to follow, the playable cards of its compulsory passes). Nothing else public
    constrains a hand: a card played, a STOP or a bonus step taken says nothing about the
    cards kept, and the generator (the later deals) is shared, not resampled."""
    t = s.copy()
    others = [p for p in range(NUM_PLAYERS) if p != seat]
    pool = cards_of(sum(s.hands[p] for p in others))
    if not pool:
        return t
    caps = {p: s.hands[p].bit_count() for p in others}
    allowed = {p: ALL_CARDS & ~s.absent[p] for p in others}
    hands = _constrained_deal(pool, caps, allowed, rng)
    for p in others:
        t.hands[p] = hands[p]
    return t


def _subsets(group: int) -> tuple[int, ...]:
    return tuple(t for t in range(1, 8) if t & ~group == 0)


#: for each group of (up to three) players, the non-empty groups inside it
_INSIDE = tuple(_subsets(g) for g in range(8))


def _feasible(counts: list[int], room: list[int]) -> bool:
    """Hall's condition: every group of players has room for the cards only it may hold.

    ``counts[t]`` is the number of cards whose set of allowed players is the bit set ``t``."""
    if counts[0]:
        return False
    n = len(room)
    for group in range(1, 1 << n):
        free = 0
        for k in range(n):
            if group >> k & 1:
                free += room[k]
        forced = 0
        for t in _INSIDE[group]:
            forced += counts[t]
        if forced > free:
            return False
    return True


def _constrained_deal(pool, caps, allowed, rng) -> dict[int, int]:
    """Deal ``pool`` at random to players with ``caps`` free places, each card only to a
    player ``allowed`` to hold it."""
    players = list(caps)
    n = len(players)
    room = [caps[p] for p in players]
    order = [pool[k] for k in rng.permutation(len(pool))]
    everyone = (1 << n) - 1
    kind = {c: sum(1 << k for k, p in enumerate(players) if allowed[p] >> c & 1) for c in pool}
    hands = [0] * n
    if all(kind[c] == everyone for c in pool):  # nothing is known: a plain shuffle
        start = 0
        for k in range(n):
            for c in order[start : start + room[k]]:
                hands[k] |= 1 << c
            start += room[k]
        return {p: hands[k] for k, p in enumerate(players)}
    counts = [0] * 8
    for c in pool:
        counts[kind[c]] += 1

    def place(c: int, k: int) -> bool:
        counts[kind[c]] -= 1
        room[k] -= 1
        if _feasible(counts, room):
            hands[k] |= 1 << c
            return True
        counts[kind[c]] += 1
        room[k] += 1
        return False

    for c in order:
        choices = [k for k in range(n) if room[k] > 0 and kind[c] >> k & 1]
        for j in rng.permutation(len(choices)):
            if place(c, choices[j]):
                break
        else:  # unreachable while the state is consistent
            raise RuntimeError("no consistent way to deal the hidden cards")
    return {p: hands[k] for k, p in enumerate(players)}
