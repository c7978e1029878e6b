"""Public information reaches every player (observations are Markov for their player).

For every public item of what a player may know (the environment's docs, Observation), and for
what a forced pick-up shows (the picker holds no card that could have been played), two histories
on stacked decks that differ only in that public item: every observer's observation must differ
right after it, and again when each observer is next to act (the event may fall between two of its
turns), at 3 or more seats.
"""

from __future__ import annotations

import numpy as np

from tests.games.test_fiddlesticks import (
    BLIND,
    BLIND_SCRIPT,
    act,
    keep_dealt_face_up,
    new_env,
    obs,
    seat_of,
    stacked_deck,
)


def _differ(a, b, p, segment=None):
    x, y = obs(a, p)["observation"], obs(b, p)["observation"]
    if segment is not None:
        lo = a.observation_layout
        return not np.array_equal(lo.split(x)[segment], lo.split(y)[segment])
    return not np.array_equal(x, y) and a.render_view(f"player_{p}") != b.render_view(f"player_{p}")


def assert_everyone_sees_it(a, b, segment=None):
    """Every seat's observation differs now, and again at its next turn (the same actions are
    played in both histories: the lowest action legal in both, or, where the actor's own hand
    differs and nothing is legal in both, each history's lowest)."""
    n = a.num_agents
    for p in range(n):
        assert _differ(a, b, p, segment), f"player_{p} cannot tell the histories apart"
    waiting = set(range(n)) - {seat_of(a)}
    for _ in range(6 * n):
        if not waiting or a.game_state.phase == 2 or b.game_state.phase == 2:
            break
        assert seat_of(a) == seat_of(b)
        common = np.flatnonzero(a.action_mask() & b.action_mask())
        if len(common):
            a.step(int(common[0]))
            b.step(int(common[0]))
        else:  # the actor's own hand differs (it made the difference): each plays its lowest
            a.step(int(np.flatnonzero(a.action_mask())[0]))
            b.step(int(np.flatnonzero(b.action_mask())[0]))
        p = seat_of(a)
        if p in waiting:
            assert _differ(a, b, p, segment), f"player_{p} has forgotten it by its next turn"
            waiting.discard(p)
    assert not waiting, f"seats {sorted(waiting)} never came to act"


THREE = dict(ups={0: ["K", "K", "K"], 1: ["A", "A", "A"], 2: ["J", "J", "J"]}, stock=["3", "5", "4", "6", "8", "7"])


def three(hands, **kw):
    """3 players, dealer P2 (P0 leads), the face-up rows above, every player keeps them."""
    e = new_env(3, 2, stacked_deck(3, 2, hands=hands, **dict(THREE, **kw)))
    keep_dealt_face_up(e)
    return e


def test_dealt_face_up_cards_are_public_from_the_deal():
    a = new_env(3, 2, stacked_deck(3, 2, ups={2: ["J", "J", "J"]}))
    b = new_env(3, 2, stacked_deck(3, 2, ups={2: ["J", "J", "Q"]}))
    assert_everyone_sees_it(a, b, "face_up")


def test_swap_commitments_are_hidden_until_everyone_has_picked_then_public():
    deck = stacked_deck(3, 2, hands={0: ["4", "5", "6"]}, ups={0: ["K", "K", "3"]})
    a, b = new_env(3, 2, deck), new_env(3, 2, deck)
    for x, y in zip(("face-up 4", "face-up 5", "face-up 6"), ("face-up K", "face-up K", "face-up 3")):
        act(a, x)
        act(b, y)
    for p in (1, 2):
        assert not _differ(a, b, p, "face_up")  # hidden so far
    keep_dealt_face_up(a)
    keep_dealt_face_up(b)
    assert_everyone_sees_it(a, b, "face_up")


def test_a_turned_blind_card_is_public_and_stays_known_in_the_hand():
    def run(card):
        e = new_env(5, 1, stacked_deck(5, 1, **dict(BLIND, downs={1: ["10", "7", card]})), num_decks=1)
        keep_dealt_face_up(e)
        for _, name in BLIND_SCRIPT:
            act(e, name)
        act(e, "blind 2")  # a 3 or a 4 cannot go on the Q: it and the pile go into the hand
        return e

    a, b = run("3"), run("4")
    assert a.game_state.pile == b.game_state.pile == []
    assert_everyone_sees_it(a, b, "known")


def test_the_pile_and_the_cleared_cards_are_public():
    hands = {1: ["10", "4", "7"], 2: ["8", "9", "J"]}
    a, b = three({**hands, 0: ["5", "6", "3"]}), three({**hands, 0: ["5", "6", "3"]})
    act(a, "play 1x5")
    act(b, "play 1x6")
    for e in (a, b):
        act(e, "play 1x10")  # P1 burns the pile and goes again
        act(e, "play 1x4")
    assert a.game_state.pile_counts == b.game_state.pile_counts  # only the cleared cards differ
    assert_everyone_sees_it(a, b, "cleared")


def test_a_picked_up_pile_is_public():
    hands = {1: ["4", "5", "6"], 2: ["7", "8", "J"]}
    a, b = three({**hands, 0: ["Q", "K", "3"]}), three({**hands, 0: ["Q", "K", "3"]})
    act(a, "play 1xQ")
    act(b, "play 1xK")
    for e in (a, b):
        act(e, "pick up")  # P1 cannot beat either
    assert_everyone_sees_it(a, b, "known")


def test_hand_sizes_are_public():
    hands = {1: ["4", "5", "6"], 2: ["7", "8", "J"]}
    a, b = three({**hands, 0: ["Q", "Q", "3"]}), three({**hands, 0: ["Q", "Q", "3"]})
    act(a, "play 1xQ")
    act(b, "play 2xQ")
    for e in (a, b):
        act(e, "pick up")  # 4 cards in P1's hand, or 5
    assert_everyone_sees_it(a, b, "hand_size")


def test_the_stock_size_is_public():
    hands = {1: ["4", "5", "A"], 2: ["7", "8", "J"]}
    a, b = three({**hands, 0: ["3", "3", "9"]}), three({**hands, 0: ["3", "3", "9"]})
    act(a, "play 1x3")  # draws one card
    act(b, "play 2x3")  # draws two
    assert_everyone_sees_it(a, b, "stock_size")


def test_face_up_cards_taken_into_the_hand_stay_known():
    def run(third):
        deck = stacked_deck(
            5, 4, num_decks=1,
            hands={0: ["3", "3", "Q"], 1: ["4", "4", "Q"], 2: ["5", "5", "Q"], 3: ["6", "6", "K"]},
            ups={3: ["8", "9", third]},
        )
        e = new_env(5, 4, deck, num_decks=1)
        keep_dealt_face_up(e)
        for name in ("play 2x3", "play 2x4", "play 2x5", "play 2x6"):  # P3 runs the stock out
            act(e, name)
        assert e.game_state.face_up[3] == []
        return e

    a, b = run("9"), run("J")
    assert_everyone_sees_it(a, b, "known")


def test_a_forced_pick_up_shows_what_the_hand_did_not_hold():
    hands = {0: ["Q", "3", "9"], 1: ["4", "5", "6"], 2: ["7", "8", "J"]}
    a = three(hands)
    b = new_env(3, 2, stacked_deck(3, 2, hands=hands, **THREE), voluntary_pickup=True)
    keep_dealt_face_up(b)
    for e in (a, b):
        act(e, "play 1xQ")
        act(e, "pick up")  # forced in a; in b (voluntary pick-up) it shows nothing
    assert_everyone_sees_it(a, b, "absent")
