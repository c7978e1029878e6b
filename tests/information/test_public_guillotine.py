"""Guillotine: every public item of what a player may know reaches every observer.

For each row, two histories (stacked decks) that differ only in that public item; every
observer's next observation must differ, and where the game has other players acting between
two of the observer's turns, the observation at the observer's next turn must differ too.
"""

from __future__ import annotations

import numpy as np

from card_envs.guillotine import rules as R
from tests.games.test_guillotine import (
    ACE_HANDS,
    DOMINO_HANDS,
    DOMINO_MOVES_BEFORE_THE_ACE,
    SEATS,
    TRICK_EXAMPLE_HANDS,
    WORKED_HANDS,
    WORKED_TRICKS,
    new,
    play,
    seen_by,
    swapped,
    to_act,
)


def obs(e, seat: int) -> bytes:
    return e.observe(SEATS[seat])["observation"].tobytes()


def differing_fields(a, b, seat: int) -> set[str]:
    va, vb = seen_by(a, seat), seen_by(b, seat)
    return {name for name in vars(va) if getattr(va, name) != getattr(vb, name)}


def assert_every_observer_sees_it(a, b, expected: set[str] | None = None) -> None:
    for seat in range(4):
        assert obs(a, seat) != obs(b, seat), f"player_{seat} cannot tell the two histories apart"
        if expected is not None:
            assert differing_fields(a, b, seat) <= expected | {"hand"}, differing_fields(a, b, seat)
            assert differing_fields(a, b, seat) & expected


def at_next_turn(e, seat: int):
    """Play on (lowest legal action) until ``seat`` is to act; the env."""
    for _ in range(200):
        if to_act(e) == seat or e.game_state.terminated:
            return e
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    raise AssertionError("the seat never came to act")


# ------------------------------------------------------------------- dealer, contracts
def test_the_dealer_is_public():
    a = new(WORKED_HANDS, 0, mode="full")
    b = new(WORKED_HANDS, 1, mode="full")  # the same hands, another dealer
    assert [a.game_state.hands[p] == b.game_state.hands[p] for p in range(4)] == [True] * 4
    assert_every_observer_sees_it(a, b, {"dealer", "to_act"})


def test_the_chosen_contract_and_each_dealers_used_contracts_are_public():
    a = new(WORKED_HANDS, 0, mode="full")
    b = new(WORKED_HANDS, 0, mode="full")
    play(a, "choose royalty")
    play(b, "choose queens")
    assert_every_observer_sees_it(a, b, {"contract", "used_contracts"})
    # and the used contract stays public in the next deals (the dealer's unused ones shrink)
    for e in (a, b):
        for leader, cards_ in WORKED_TRICKS:
            play(e, *cards_.split())
        assert e.game_state.deal == 1
    for seat in range(4):
        assert seen_by(a, seat).used_contracts != seen_by(b, seat).used_contracts


# ------------------------------------------------------------- cards played, winners
def test_every_card_played_to_a_trick_is_public_also_between_the_observers_turns():
    a = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    b = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(a, "9h", "Kh", "As")  # P2, void in hearts, throws A♠ ...
    play(b, "9h", "Kh", "Kd")  # ... or K♦
    assert_every_observer_sees_it(a, b, {"trick", "played"})
    # P0 led; P2's card was played between two of P0's turns (P1 ... P3 act in between)
    play(a, "7h", "Ac")
    play(b, "7h", "Ac")
    at_next_turn(a, 0)
    at_next_turn(b, 0)
    assert to_act(a) == to_act(b) == 0
    assert obs(a, 0) != obs(b, 0) and {"taken", "played"} <= differing_fields(a, b, 0)


def test_every_card_laid_in_domino_is_public_also_between_the_observers_turns():
    a = new(DOMINO_HANDS, 0, contract="domino")
    b = new(DOMINO_HANDS, 0, contract="domino")
    play(a, "8h", "9h")
    play(b, "8h", "7h")
    assert_every_observer_sees_it(a, b, {"played", "hand"})
    at_next_turn(a, 0)
    at_next_turn(b, 0)
    assert obs(a, 0) != obs(b, 0) and "played" in differing_fields(a, b, 0)


def test_the_trick_winner_and_the_cards_it_takes_are_public():
    """Trick 7 of the worked example: P1's K♦ wins; with K♦ and J♦ swapped between P1 and P3
    (the earlier tricks unchanged) P3 wins it: who took the cards, and who leads, differ."""
    a = new(WORKED_HANDS, 0, contract="royalty")
    b = new(swapped(WORKED_HANDS, "Kd", "Jd"), 0, contract="royalty")
    for leader, cards_ in WORKED_TRICKS[:6]:
        play(a, *cards_.split())
        play(b, *cards_.split())
    play(a, "Td", "Jd", "9d", "Kd")
    play(b, "Td", "Kd", "9d", "Jd")
    assert to_act(a) == 1 and to_act(b) == 3
    assert_every_observer_sees_it(a, b, {"taken", "played", "to_act", "trick_leader"})
    for seat in range(4):
        assert seen_by(a, seat).taken != seen_by(b, seat).taken


def test_the_first_tricks_winner_is_public():
    """Guillotine pays +5 for trick 1: who won it stays in the observation after the trick."""
    a = new(WORKED_HANDS, 0, contract="guillotine")
    b = new(swapped(WORKED_HANDS, "Ac", "9c"), 0, contract="guillotine")  # P3 holds A♣ instead of 9♣
    play(a, "Ac", "7c", "8c", "9c")
    play(b, "9c", "7c", "8c", "Ac")
    for seat in range(4):
        assert seen_by(a, seat).first_trick_winner != seen_by(b, seat).first_trick_winner


# ----------------------------------------------------------------- Domino: pass, stop
def test_a_domino_pass_and_what_it_proves_are_public_also_between_the_observers_turns():
    """P1 must pass on Q♣ Q♦ Q♥ A♠; with 7♣ and Q♣ swapped between P1 and P0 it must lay Q♣."""
    moves = ["Ac", "Ad", "Kd", "stop", "Ah", "stop", "Kh", "Kc"]
    a = new(ACE_HANDS, 0, contract="domino")
    b = new(swapped(ACE_HANDS, "7c", "Qc"), 0, contract="domino")
    play(a, *moves, "pass")
    play(b, *moves, "Qc")
    assert_every_observer_sees_it(a, b)
    for seat in (0, 2, 3):
        assert R.cards_of(seen_by(a, seat).known_absent[(1 - seat) % 4])  # the pass's inference
        assert seen_by(b, seat).known_absent[(1 - seat) % 4] == 0
    at_next_turn(a, 0)
    at_next_turn(b, 0)
    assert obs(a, 0) != obs(b, 0) and "known_absent" in differing_fields(a, b, 0)


def test_a_stop_in_an_ace_bonus_is_public():
    a = new(ACE_HANDS, 0, contract="domino")
    b = new(ACE_HANDS, 0, contract="domino")
    play(a, "Ac", "Ad", "stop")
    play(b, "Ac", "Ad", "Kd")
    assert_every_observer_sees_it(a, b)
    for seat in range(4):
        assert {"phase", "to_act"} <= differing_fields(a, b, seat)


# ----------------------------------------------------------------- finishing order, scores
def test_the_finishing_order_is_public():
    """P2's bonus: lay the last spade and go out first, or stop holding K♠."""
    a = new(DOMINO_HANDS, 0, contract="domino")
    b = new(DOMINO_HANDS, 0, contract="domino")
    play(a, *DOMINO_MOVES_BEFORE_THE_ACE, "Ah", "9s", "Ts", "Js", "Qs", "Ks")
    play(b, *DOMINO_MOVES_BEFORE_THE_ACE, "Ah", "9s", "Ts", "Js", "Qs", "stop")
    assert to_act(a) == to_act(b) == 3
    assert_every_observer_sees_it(a, b, {"out_order", "hand_sizes", "played"})
    for seat in range(4):
        assert seen_by(a, seat).out_order == [(2 - seat) % 4] and seen_by(b, seat).out_order == []


def test_scores_are_public_in_the_next_deal():
    """Trick 8 of the worked example won by P2 instead of P1 (9♠ and 10♠ swapped; nothing else
    changes): K♣'s 20 Royalty points go to another seat, and in deal 2 only the totals and the
    last deal's points differ."""
    worlds = []
    for hands, last in ((WORKED_HANDS, "Ts 9s Jh Kc"), (swapped(WORKED_HANDS, "Ts", "9s"), "9s Ts Jh Kc")):
        e = new(hands, 0, mode="full")
        play(e, "choose royalty")
        for leader, cards_ in WORKED_TRICKS[:7]:
            play(e, *cards_.split())
        play(e, *last.split())
        assert e.game_state.deal == 1
        worlds.append(e)
    a, b = worlds
    assert a.game_state.totals != b.game_state.totals
    assert_every_observer_sees_it(a, b, {"totals", "last_deal"})
