"""Golf's test cases: the configurations the suites run, the rare branches of the process
property, and the independent null-model sampler of hidden cards.

``resample_hidden`` is the test suite's second sampler, beside the exact
``card_envs.golf_v0.sample_world``: it starts from the true state and reshuffles the cards a seat
cannot see among the places they could lie in. Two samplers built differently keep each other
honest: a bug in one cannot hide a leak the other shows.
"""

from __future__ import annotations

import numpy as np

from card_envs.golf.rules import NUM_SLOTS, GolfRules, GolfState

#: configurations the conformance suite runs (tests/conformance)
CONFORMANCE_CONFIGS = [
    {"num_players": 2, "num_rounds": 1},
    {"num_players": 4, "num_rounds": 1},
    {"num_players": 7, "num_rounds": 1},
    {"num_players": 2},
    {"num_players": 3, "num_rounds": 2, "flip_after_discard": "may", "reward_mode": "score"},
    {"num_players": 12, "num_rounds": 1, "flip_after_discard": "must", "initial_flips": 0, "final_turns": False},
]
#: the process-property test (tests/conformance/test_information_process.py) runs these: the
#: conformance configurations with a fixed number of rounds, multi-round play cut by
#: ``max_rounds`` (a target of 200 cannot be reached in 3 rounds of at most 60), and 8 players on
#: one deck, whose 3-card stock is rebuilt often. Playing to ``target_score`` is left out on
#: purpose: whether the game ends after a round then depends on the cards that round's end
#: turns up, so two worlds differing in face-down cards rightly differ in "who acts next"
#: after that revealing step (the whole table sees the revealed layouts and totals).
#: (The 12-player conformance configuration is checked with its options at 5 players: the
#: property costs O(N²) per step.)
PROCESS_CONFIGS = [c for c in CONFORMANCE_CONFIGS if "num_rounds" in c and c["num_players"] <= 8] + [
    {"num_players": 5, "num_rounds": 1, "flip_after_discard": "must", "initial_flips": 0, "final_turns": False},
    {"num_players": 2, "target_score": 200, "max_rounds": 3},
    {"num_players": 2, "target_score": 60},  # to a target: a round's revealed cards decide the end
    {"num_players": 8, "num_decks": 1, "num_rounds": 1, "flip_after_discard": "may"},
]


def _rebuilt(before, action, after) -> bool:
    """The step ended a turn on an empty stock, and the next turn rebuilt it from the discards."""
    return not before.stock and bool(after.stock) and after.round == before.round


def _drawn_from_known_stock(before, action, after) -> bool:
    """A card drawn from a rebuilt (publicly known) stock is placed or discarded."""
    return before.phase == 2 and before.stock_known and not before.pending_from_discard


def _round_end_reveal(before, action, after) -> bool:
    """A round ends while some card is still face down (everything is turned up and scored)."""
    return after.round != before.round and any(not all(up) for up in before.face_up)


#: events the process property must be checked at (predicate(before, action, after))
RARE_BRANCHES = {
    "stock rebuild": _rebuilt,
    "card from a rebuilt stock placed": _drawn_from_known_stock,
    "round end reveals face-down cards": _round_end_reveal,
}

#: configurations beyond the conformance ones that ``tests/conformance/test_kernels.py``
#: also plays, each reaching a branch of the kernels (``card_envs/golf/kernels.py``) worth pinning
VECTOR_CONFIGS = [
    {"num_players": 2, "target_score": 60, "dealer": 1},  # many rounds, stock rebuilds
    {"num_players": 5, "num_rounds": 1, "num_decks": 1, "turn_up_discard": False},
    {"num_players": 2, "num_rounds": 3, "flip_after_discard": "must", "reward_mode": "score"},
    {"num_players": 3, "target_score": 40, "max_rounds": 2},  # truncation by max_rounds
    {"num_players": 2, "num_rounds": 1, "max_turns_per_round": 7},  # the stalling guard
]


# ------------------------------------------------------------------ the null-model sampler
def hidden_places(rules: GolfRules, s: GolfState, seat: int) -> list[tuple[str, int, int]]:
    """Where the cards ``seat`` cannot see lie: every face-down slot (its own too), the
    stock, and a card another player drew from the stock and has not placed yet."""
    return [pl for group in hidden_groups(rules, s, seat) for pl in group]


def hidden_groups(rules: GolfRules, s: GolfState, seat: int) -> list[list[tuple[str, int, int]]]:
    """The hidden places of ``seat`` split into groups whose cards may be exchanged with
    each other and nothing else. Before a rebuild the stock, the face-down slots and another
    player's card drawn from the stock are one pool (a uniformly dealt remainder). Once the
    stock has been rebuilt from the discard pile its composition is public: the stock and a
    card drawn from it (hidden from ``seat``) form one group, the face-down slots another."""
    grid = [("grid", p, i) for p in range(rules.num_players) for i in range(NUM_SLOTS) if not s.face_up[p][i]]
    stock = [("stock", 0, i) for i in range(len(s.stock))]
    if s.pending is not None and not s.pending_from_discard and s.current_player != seat:
        stock.append(("pending", 0, 0))
    if s.stock_known:
        return [grid, stock]
    return [grid + stock]


def resample_hidden(rules: GolfRules, s: GolfState, seat: int, rng: np.random.Generator) -> GolfState:
    """A copy of ``s`` with every card hidden from ``seat`` reshuffled among the hidden places
    it could lie in (``hidden_groups``): a rebuilt stock keeps its public composition."""
    t = s.copy()
    for places in hidden_groups(rules, t, seat):
        pool = [card_at(t, pl) for pl in places]
        for pl, i in zip(places, rng.permutation(len(pool))):
            put_card(t, pl, pool[i])
    return t


def card_at(s: GolfState, place: tuple[str, int, int]) -> int:
    """The card at a place ``hidden_places`` names."""
    zone, p, i = place
    return s.grid[p][i] if zone == "grid" else s.stock[i] if zone == "stock" else s.pending


def put_card(s: GolfState, place: tuple[str, int, int], c: int) -> None:
    """Put card ``c`` at a place ``hidden_places`` names."""
    zone, p, i = place
    if zone == "grid":
        s.grid[p][i] = c
    elif zone == "stock":
        s.stock[i] = c
    else:
        s.pending = c
