"""Collector, rule by rule (``help(card_envs.collector_v0)``), on stacked decks.

Seats are absolute here (player_0 .. player_{N-1}); with ``dealer=d`` the lead seat of round t is
``(d + 1 + t) mod N``.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from card_envs import collector_v0
from card_envs.cards import parse, to_str
from card_envs.set_collecting.engine import ACQUIRE, OVER, PLAY
from card_envs.collector.rules import CollectorRules
from card_envs.set_collecting.view import decode, encode, render_view, view
from tests.cases import resample_hidden

RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K".split()


# ---------------------------------------------------------------------------------- helpers
def stacked(n: int, hands: dict[int, str], stock: str = "", dealer: int = 0) -> list[str]:
    """A full deck order dealing ``hands`` (seat -> its cards, all hands the same size), then
    ``stock`` on top of the stock (first = top); unnamed hands and the rest are filler."""
    size = len(next(iter(hands.values())).split())
    pool = [c for c in range(52)]
    order: list[int | None] = [None] * (size * n)
    for p, text in hands.items():
        cs = text.split()
        assert len(cs) == size
        for i, c in enumerate(cs):
            order[i * n + (p - dealer - 1) % n] = parse(c)
            pool.remove(parse(c))
    tail = [parse(c) for c in stock.split()]
    for c in tail:
        pool.remove(c)
    for i, c in enumerate(order):
        if c is None:
            order[i] = pool.pop(0)
    return [to_str(c) for c in order + tail + pool]


def new(n=2, hands=None, stock="", dealer=0, module=collector_v0, **options):
    env = module.raw_env(num_players=n, dealer=dealer, **options)
    hand_size = options.get("hand_size", 5)
    hands = hands or {0: " ".join(to_str(c) for c in range(hand_size))}
    env.reset(seed=0, options={"deck": stacked(n, hands, stock, dealer)})
    return env


def phase_round(env, plays: dict[int, str], acquires: dict[int, str]) -> None:
    """One round: the PLAY commitments (seat -> rank name) then the ACQUIRE ones (seat -> action
    name), each given when the AEC API asks that seat."""
    for choices, phase in ((plays, PLAY), (acquires, ACQUIRE)):
        s = env.game_state
        assert s.phase == phase
        asked = list(env.rules.phase_actors(s))
        assert sorted(asked) == sorted(choices), f"phase {phase} asks {asked}"
        for _ in asked:
            name = choices[env.game_state.current_player]
            env.step(env.string_to_action(f"play {name}" if phase == PLAY else name))


def ranks_of(env, seat) -> list[str]:
    return sorted((RANKS[c % 13] for c in env.game_state.hands[seat]), key=RANKS.index)


def ranks(text: str) -> list[str]:
    return sorted(text.split(), key=RANKS.index)


def stock_bottom(env, k) -> list[str]:
    return [to_str(c) for c in list(env.game_state.stock)[-k:]]


def seen(env, seat):
    """The decoded observation of ``seat``."""
    return env.decode(env.observe(env.possible_agents[seat])["observation"])


def legal(env):
    return [env.action_to_string(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]


def outputs(env, agent):
    """Everything ``agent`` can observe."""
    env._mask = None
    o = env.observe(agent)
    return o["observation"].tobytes(), o["action_mask"].tobytes(), env.render_view(agent), repr(env.infos.get(agent))


# -------------------------------------------------------------------------------------- setup
def test_five_cards_are_dealt_one_at_a_time_from_the_dealers_left_and_the_rest_is_the_stock():
    env = collector_v0.raw_env(num_players=3, dealer=1)
    deck = [to_str(c) for c in range(52)]
    env.reset(seed=0, options={"deck": deck})
    s = env.game_state
    assert [to_str(c) for c in s.hands[2]] == deck[0:15:3]
    assert [to_str(c) for c in s.hands[0]] == deck[1:15:3]
    assert [to_str(c) for c in s.hands[1]] == deck[2:15:3]
    assert [to_str(c) for c in s.stock] == deck[15:], "the stock's top is the next card of the list"
    assert len(s.stock) == 52 - 15


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_lead_seat_is_the_dealers_left_and_rotates_every_round(n):
    env = new(n, dealer=1)
    for t in range(3):
        lead = (1 + 1 + t) % n
        s = env.game_state
        assert s.round == t and s.lead == lead
        assert env.rules.phase_actors(s) == [(lead + i) % n for i in range(n)], "asked clockwise from L_t"
        phase_round(env, {p: RANKS[env.game_state.hands[p][0] % 13] for p in range(n)}, dict.fromkeys(range(n), "draw two"))


def test_play_offers_exactly_the_ranks_in_hand():
    env = new(2, hands={1: "As 3c 3d 9h Kd"})
    assert env.agent_selection == "player_1"
    assert legal(env) == ["play A", "play 3", "play 9", "play K"]


# -------------------------------------------------------------------------------- commitments
def test_a_commitment_stays_hidden_from_everyone_until_all_have_committed():
    """Two tables that differ only in what player_1 committed look identical to every other
    player, in every observable, until the phase ends."""
    def table(choice):
        env = new(3, hands={1: "As 3c 3d 9h Kd"}, dealer=0)
        env.step(env.string_to_action(choice))  # player_1 leads
        return env

    a, b = table("play A"), table("play K")
    assert a.game_state.pending[1] != b.game_state.pending[1]
    for agent in ("player_0", "player_2"):
        assert outputs(a, agent) == outputs(b, agent)
    assert seen(a, 1).own_commit == 0 and seen(b, 1).own_commit == 12, "the player sees its own commitment"
    assert seen(a, 2).committed == (False, False, True), "who has committed is public, what is not"
    assert seen(a, 2).played == (None, None, None) and all(len(h) == 5 for h in a.game_state.hands)


def test_the_same_holds_for_a_pending_acquire_choice():
    def table(choice):
        env = new(3, hands={1: "As 3c 3d 9h Kd"}, dealer=0)
        for _ in range(3):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        env.step(env.string_to_action(choice))
        return env

    a, b = table("draw two"), table("take 2")
    for agent in ("player_0", "player_2"):
        assert outputs(a, agent) == outputs(b, agent)


def test_resample_hidden_also_redraws_other_players_pending_commitments():
    """The rules' resampler treats another player's pending commitment as hidden: it redraws it
    among that player's legal choices, and what the seat observes is unchanged."""
    for phase_steps in (1, 4):  # one PLAY commitment pending / one ACQUIRE commitment pending
        env = new(3, hands={1: "As 3c 5d 9h Kd"}, dealer=0)
        for _ in range(phase_steps):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
        state = env.game_state
        committed = [p for p in range(3) if state.pending[p] >= 0]
        assert committed == [1]
        rng = np.random.default_rng(0)
        redrawn = set()
        for observer in (0, 2):
            before = outputs(env, env.possible_agents[observer])
            for _ in range(20):
                other = resample_hidden(env.rules, state, observer, rng)
                redrawn.add(other.pending[1])
                assert env.rules.mask_for(other, 1)[other.pending[1]], "a redrawn commitment is legal"
                env.game_state = other
                assert outputs(env, env.possible_agents[observer]) == before
                env.game_state = state
        assert len(redrawn) > 1, "the pending commitment was never redrawn"
        mine = resample_hidden(env.rules, state, 1, rng)
        assert mine.pending == state.pending and mine.hands[1] == state.hands[1], "a seat keeps its own"


def test_played_cards_are_revealed_together_when_the_last_player_commits():
    env = new(2, hands={1: "As 3c 5d 9h Kd", 0: "2s 4c 6d Th Qd"})
    env.step(env.string_to_action("play K"))
    assert seen(env, 0).played == (None, None)
    env.step(env.string_to_action("play 6"))
    assert env.game_state.phase == ACQUIRE
    assert seen(env, 0).played == (5, 12) and seen(env, 1).played == (12, 5)
    assert [to_str(c) for c in env.game_state.played] == ["6d", "Kd"]


# -------------------------------------------------------------------------------------- masks
def test_draw_two_is_always_legal_even_when_the_stock_is_empty():
    hands = {p: " ".join(to_str(c) for c in range(p * 13, p * 13 + 12)) for p in range(4)}
    env = new(4, hands=hands, stock="Ks Kh Kd Kc", hand_size=12)
    phase_round(env, {p: "A" for p in range(4)}, {0: "take 1", 1: "take 1", 2: "take 1", 3: "take 1"})
    assert len(env.game_state.stock) == 4
    phase_round(env, {p: "2" for p in range(4)}, {p: "draw two" for p in range(4)})
    assert len(env.game_state.stock) == 0
    for _ in range(4):
        env.step(env.string_to_action("play 3"))
    assert env.game_state.phase == ACQUIRE and len(env.game_state.stock) == 0
    for p in range(4):
        assert env.rules.mask_for(env.game_state, p)[13] == 1, "draw two with nothing left to draw"


def test_take_k_is_offered_only_for_seats_that_exist_and_played():
    env = new(2, hands={1: "As 3c 5d 9h Kd"})
    env.step(env.string_to_action("play A"))
    env.step(env.string_to_action(f"play {RANKS[env.game_state.hands[0][0] % 13]}"))
    assert legal(env) == ["draw two", "take 1"], "two players: take 1 is the only take"
    env3 = new(3)
    for _ in range(3):
        env3.step(int(np.flatnonzero(env3.observe(env3.agent_selection)["action_mask"])[0]))
    assert legal(env3) == ["draw two", "take 1", "take 2"], "take 3 is masked below 4 players"


def test_a_player_can_never_take_their_own_card():
    env = new(4)
    for _ in range(4):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    for p in range(4):
        mask = env.rules.mask_for(env.game_state, p)
        assert mask[13] and mask[14] and mask[15] and mask[16]  # k = 1..3 are the three others
        assert {(p + k) % 4 for k in (1, 2, 3)} == set(range(4)) - {p}


# ----------------------------------------------------------------------------- the examples
def test_the_sources_bill_and_chris_example_round_by_round():
    # Chris is seat 0 (the dealer), Bill seat 1 (the lead seat of round 1)
    env = new(2, dealer=0, hands={1: "Ac 3c 5c 4c Kc", 0: "2d 4d 6d 6h Ad"}, stock="6s 7s 5d 3d 8s 9s")
    # Round 1: Bill discards his K, Chris his second 6; neither takes: both go to the bottom, both draw two
    phase_round(env, {1: "K", 0: "6"}, {1: "draw two", 0: "draw two"})
    assert ranks_of(env, 1) == ranks("A 3 5 4 6 7"), "Bill now has 1,3,5,4,6,7"
    assert ranks_of(env, 0) == ranks("2 4 6 A 5 3"), "Chris has 2,4,6,1,5,3"
    assert stock_bottom(env, 2) == ["Kc", "6d"], "the K and the 6 went to the bottom, lead seat (Bill) first"
    # Round 2: Bill discards his 3; Chris plays his 3 and takes Bill's; Bill draws two, Chris's 3 to the bottom
    assert env.game_state.lead == 0
    phase_round(env, {0: "3", 1: "3"}, {0: "take 1", 1: "draw two"})
    assert ranks_of(env, 0) == ranks("2 4 6 A 5 3"), "Chris took Bill's 3 and drew nothing"
    assert to_str(env.game_state.hands[0][-1]) == "3c"
    assert ranks_of(env, 1) == ranks("A 5 4 6 7 8 9"), "Bill drew two"
    assert stock_bottom(env, 3) == ["Kc", "6d", "3d"], "Chris's 3 is now at the bottom"
    v = seen(env, 1)  # what Bill knows
    assert v.known_cards[1] == tuple(1 if r == 2 else 0 for r in range(13)), "Bill knows Chris holds his 3"
    assert v.last_played == (2, 2) and v.last_taken_by == (1, None), "Chris (+1 from Bill) took Bill's 3"
    assert v.last_drawn == (2, 0)
    assert v.stock_known[-3:] == (12, 5, 2)


def _worked_example_table():
    """A worked example in a 3-player game whose round 1 is led by seat 0 (dealer 1): round 0
    brings P0 to 13 cards holding every rank but the K (two 7s)."""
    hands = {
        0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc 7d",
        1: "7s Ks Kd Qd Qs Jd Js Td Ts 9d 9s 8d",
        2: "Kc Qh Jh Th 9h 8h 8s 6d 6h 6s 5d 5h",
    }
    # round 0 is led by seat 2: it draws 2d 2h, then P0 draws Qc 7h, P1 3d 3h; then Ad Ah for P1
    env = new(3, dealer=1, hands=hands, stock="2d 2h Qc 7h 3d 3h Ad Ah", hand_size=12)
    phase_round(env, {2: "5", 0: "7", 1: "8"}, {p: "draw two" for p in range(3)})
    assert ranks_of(env, 0) == ranks("A 2 3 4 5 6 7 7 8 9 10 J Q")
    return env


def test_the_worked_example_contest_goes_clockwise_from_the_discarder():
    env = _worked_example_table()
    assert env.game_state.lead == 0
    sizes = [len(h) for h in env.game_state.hands]
    phase_round(env, {0: "7", 1: "7", 2: "K"}, {0: "take 2", 1: "take 1", 2: "take 1"})
    s = env.game_state
    # the K was wanted by P0 and P1: clockwise from P2 the order is P0, then P1: P0 gets it
    assert s.last_taker == [2, -1, 0], "P0's 7 went to P2, P1's 7 to nobody, P2's K to P0"
    assert "Kc" in [to_str(c) for c in s.hands[0]]
    assert s.last_drawn == [0, 2, 0], "P1 lost the contest and drew two instead"
    assert [len(h) - k for h, k in zip(s.hands, sizes)] == [0, 1, 0], "net hand sizes ±0, +1, ±0"
    assert to_str(s.stock[-1])[0] == "7", "P1's untaken 7 went to the bottom"
    # P0 was missing only a K: it now holds all 13 ranks and wins alone
    assert s.terminated and s.winners == [0]
    assert env.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert env.infos["player_0"] == {"score": 13, "rank": 1}
    assert env.infos["player_1"]["rank"] == 2 and env.infos["player_2"]["rank"] == 2


def test_a_contest_loser_gets_nothing_with_contest_fallback_nothing():
    hands = {1: "As 3c 5d 9h Kd", 3: "2s 4c 6d Th Qd", 0: "2h 4h 6h 8h Jh"}
    env = new(4, dealer=3, hands=hands)  # lead seat 0
    phase_round(env, {0: "2", 1: "A", 2: RANKS[env.game_state.hands[2][0] % 13], 3: "2"},
                {0: "take 1", 1: "draw two", 2: "draw two", 3: "take 2"}, )
    s = env.game_state
    # P1's ace: claimants P0 (take 1) and P3 (take 2); clockwise from P1: P2, P3, P0 -> P3
    assert s.last_taker[1] == 3 and s.last_drawn[0] == 2
    env = collector_v0.raw_env(num_players=4, dealer=3, contest_fallback="nothing")
    env.reset(seed=0, options={"deck": stacked(4, hands, "", 3)})
    phase_round(env, {0: "2", 1: "A", 2: RANKS[env.game_state.hands[2][0] % 13], 3: "2"},
                {0: "take 1", 1: "draw two", 2: "draw two", 3: "take 2"})
    s = env.game_state
    assert s.last_taker[1] == 3 and s.last_drawn[0] == 0 and len(s.hands[0]) == 4, "the loser gets nothing"


def test_a_contest_among_three_claimants_goes_to_the_first_clockwise_from_the_discarder():
    env = new(4, dealer=3)  # everyone claims seat 2's card: order from 3 is 3, 0, 1
    phase_round(env, {p: RANKS[env.game_state.hands[p][0] % 13] for p in range(4)},
                {0: "take 2", 1: "take 1", 3: "take 3", 2: "draw two"})
    s = env.game_state
    assert s.last_taker == [-1, -1, 3, -1]
    assert s.last_drawn == [2, 2, 2, 0]


# ---------------------------------------------------------------------------------- returns
def test_untaken_cards_go_to_the_bottom_in_seat_order_from_the_lead_before_the_draws():
    hands = {p: " ".join(to_str(c) for c in range(p * 13, p * 13 + 12)) for p in range(4)}
    env = new(4, dealer=0, hands=hands, stock="Kc Kd Kh Ks", hand_size=12)  # lead seat 1
    phase_round(env, {p: "5" for p in range(4)}, {p: "draw two" for p in range(4)})
    s = env.game_state
    # returns 5d (seat 1), 5h, 5s, 5c; then seat 1 draws Kc Kd, seat 2 Kh Ks, seat 3 the returned
    # 5d 5h, seat 0 the returned 5s 5c: returned cards can be drawn when the stock runs low
    assert [to_str(c) for c in s.hands[1][-2:]] == ["Kc", "Kd"]
    assert [to_str(c) for c in s.hands[2][-2:]] == ["Kh", "Ks"]
    assert [to_str(c) for c in s.hands[3][-2:]] == ["5d", "5h"]
    assert [to_str(c) for c in s.hands[0][-2:]] == ["5s", "5c"]
    assert len(s.stock) == 0
    # everyone saw those four cards go to the bottom, so everyone knows where they went now
    v = seen(env, 1)  # relative seats from seat 1: +1 is seat 2, +2 seat 3, +3 seat 0
    assert v.known_cards[1] == (0,) * 13, "seat 2 drew unseen cards"
    assert v.known_cards[2] == tuple(2 if r == 4 else 0 for r in range(13))
    assert v.known_cards[3] == tuple(2 if r == 4 else 0 for r in range(13))
    assert v.known_cards[0] == (0,) * 13


def test_a_short_stock_is_served_in_lead_seat_order_possibly_with_nothing():
    hands = {p: " ".join(to_str(c) for c in range(p * 13, p * 13 + 12)) for p in range(4)}
    env = new(4, dealer=0, hands=hands, stock="Kc Kd Kh Ks", hand_size=12)  # lead 1
    # round 0: two takes; seats 2 and 3 draw the four unseen cards; two returned cards are left
    phase_round(env, {p: "6" for p in range(4)}, {0: "take 1", 1: "take 1", 2: "draw two", 3: "draw two"})
    assert len(env.game_state.stock) == 2
    # round 1 (lead 2): four cards return, six are there, everyone wants two: 2, 3, 0 are served
    assert env.game_state.lead == 2
    phase_round(env, {p: "7" for p in range(4)}, {p: "draw two" for p in range(4)})
    s = env.game_state
    assert s.last_drawn == [2, 0, 2, 2], "seat 1, served last, finds the stock empty"
    assert [to_str(c) for c in s.hands[2][-2:]] == ["6s", "6c"], "seat 2 first: the cards returned in round 0"
    assert [to_str(c) for c in s.hands[0][-2:]] == ["7c", "7d"]


# ------------------------------------------------------------------------------- empty hands
def test_an_empty_hand_skips_play_may_acquire_and_cannot_be_taken_from():
    env = collector_v0.raw_env(num_players=3, dealer=2, hand_size=1, contest_fallback="nothing")
    env.reset(seed=0, options={"deck": stacked(3, {0: "2c", 1: "3c", 2: "4c"}, "", 2)})
    # P0 and P2 both claim P1's card: clockwise from P1, P2 comes first; P0 gets nothing
    phase_round(env, {0: "2", 1: "3", 2: "4"}, {0: "take 1", 1: "draw two", 2: "take 2"})
    s = env.game_state
    assert s.hands[0] == [] and s.lead == 1
    assert env.rules.phase_actors(s) == [1, 2], "P0 skips PLAY"
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.step(env.string_to_action("play 3"))
    assert env.game_state.phase == ACQUIRE and env.rules.phase_actors(env.game_state) == [1, 2, 0]
    assert list(env.rules.mask_for(env.game_state, 0)) == [0] * 13 + [1, 1, 1, 0, 0], "P0 may acquire"
    assert env.rules.mask_for(env.game_state, 1)[15] == 0, "P1 cannot take from P0 (1 + 2 = 0): P0 played nothing"
    assert env.rules.mask_for(env.game_state, 2)[14] == 0, "P2 cannot take from P0 (2 + 1 = 0)"


# --------------------------------------------------------------------------------- the end
def _complete_together(n_winners=2, **options):
    hands = {
        0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Jd",
        1: "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Js",
        2: "Ad 2d 3d 4d 5d 6d 7d 8d 9d Td Qd Kd",
    }
    stock = "Qc Kc Qh Kh" if n_winners == 2 else "Qc Kc As 2s"
    env = collector_v0.raw_env(num_players=3, dealer=2, hand_size=12, **options)
    env.reset(seed=0, options={"deck": stacked(3, hands, stock, 2)})
    phase_round(env, {0: "J", 1: "J", 2: "A"}, {p: "draw two" for p in range(3)})
    return env


def test_a_complete_set_is_claimed_automatically_at_the_end_of_the_round():
    env = _complete_together(1)
    s = env.game_state
    assert s.terminated and s.winners == [0] and len(s.hands[0]) == 13
    assert env.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.terminations.values())


def test_a_complete_set_may_hold_duplicates_and_more_than_13_cards():
    hands = {0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc 2d 3d", 1: "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th 2s 3s"}
    env = collector_v0.raw_env(num_players=2, dealer=1, hand_size=12)  # lead 0, then 1
    env.reset(seed=0, options={"deck": stacked(2, hands, "Jc Qc 4s 5s 6s 7s Kc 5d", 1)})
    phase_round(env, {0: "3", 1: "2"}, {0: "draw two", 1: "draw two"})
    assert ranks_of(env, 0) == ranks("A 2 2 3 4 5 6 7 8 9 10 J Q") and not env.game_state.terminated
    phase_round(env, {0: "2", 1: "3"}, {0: "draw two", 1: "draw two"})
    s = env.game_state
    assert ranks_of(env, 0) == ranks("A 2 3 4 5 5 6 7 8 9 10 J Q K")
    assert s.terminated and s.winners == [0] and env.infos["player_0"] == {"score": 13, "rank": 1}


def test_players_completing_in_the_same_round_share_the_win():
    env = _complete_together(2)
    s = env.game_state
    assert s.terminated and s.winners == [0, 1]
    assert env.rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}
    assert [env.infos[a]["rank"] for a in env.possible_agents] == [1, 1, 3]
    assert [env.infos[a]["score"] for a in env.possible_agents] == [13, 13, 12]


def test_every_hand_is_laid_down_at_the_end():
    env = _complete_together(2)
    v = seen(env, 2)
    assert v.phase == "over"
    assert v.shown_hands[1] == tuple(env.game_state.counts[0]), "+1 from seat 2 is seat 0"
    assert "hands laid down" in env.render_view("player_2")


def test_max_rounds_truncates_as_a_draw():
    env = collector_v0.env(num_players=3, max_rounds=2)
    env.reset(seed=1)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    infos = {}
    steps = 0
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        rewards[agent] += r
        if term or trunc:
            assert trunc and not term
            infos[agent] = info
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert env.game_state.truncated and not env.game_state.terminated and env.game_state.round == 1
    assert all(v == 0 for v in rewards.values())
    assert all(infos[a]["rank"] == 1 for a in env.possible_agents)
    assert steps == 2 * 6 + 3


def test_truncation_rule_most_ranks_puts_the_players_with_most_ranks_first():
    hands = {0: "Ac 2c 3c 4c 5c", 1: "Ah Ad As 2h 2d", 2: "3h 4h 5h 6h 6d"}
    env = collector_v0.raw_env(num_players=3, dealer=2, max_rounds=1, truncation_rule="most_ranks")
    env.reset(seed=0, options={"deck": stacked(3, hands, "9c 9d Ks Qs 8h 8d", 2)})
    phase_round(env, {0: "5", 1: "A", 2: "6"}, {p: "draw two" for p in range(3)})
    # P0: A 2 3 4 9 9 -> 5 ranks; P1: A A 2 2 K Q -> 4; P2: 3 4 5 6 8 8 -> 5
    s = env.game_state
    assert s.truncated
    assert env.rules.scores(s) == [5, 4, 5]
    assert env.rules.ranks(s) == [1, 3, 1]
    assert env.rewards == {"player_0": 0.5, "player_1": -1.0, "player_2": 0.5}


def test_dealer_random_is_drawn_from_the_seed():
    dealers = set()
    for seed in range(12):
        env = collector_v0.raw_env(num_players=4, dealer="random")
        env.reset(seed=seed)
        dealers.add(env.game_state.dealer)
        assert env.game_state.lead == (env.game_state.dealer + 1) % 4
    assert len(dealers) > 1


# ---------------------------------------------------------------------------- knowledge
def test_a_taken_card_is_known_to_all_until_it_is_played_again():
    env = new(2, dealer=0, hands={1: "9c 3c 5c 4c Kc", 0: "2d 4d 6d 6h Ad"})
    phase_round(env, {1: "K", 0: "6"}, {1: "take 1", 0: "draw two"})
    assert seen(env, 0).known_cards[1][5] == 1, "player_0 knows player_1 took its 6"
    assert seen(env, 1).known_cards[0][5] == 1, "player_1 knows the others know"
    hand = env.game_state.hands[1]
    hand_6s = [to_str(c) for c in hand if c % 13 == 5]
    assert hand_6s == ["6d"] or hand_6s == ["6h"]
    phase_round(env, {0: "2", 1: "6"}, {0: "draw two", 1: "draw two"})
    assert seen(env, 0).known_cards[1] == (0,) * 13, "once played the 6 is no longer in its hand"


def test_the_observation_shows_the_seen_bottom_of_the_stock_by_depth():
    env = new(2, dealer=0, hands={1: "Ac 3c 5c 4c Kc", 0: "2d 4d 6d 6h Ad"})
    phase_round(env, {1: "K", 0: "6"}, {1: "draw two", 0: "draw two"})
    v = seen(env, 0)
    assert v.stock_size == 52 - 10 - 4 + 2 and v.stock_known == (12, 5)
    x = env.observe("player_0")["observation"]
    seg = env.observation_layout.split(x)["stock_known"]
    assert seg[v.stock_size - 2, 12] == 1 and seg[v.stock_size - 1, 5] == 1 and seg.sum() == 2


# ---------------------------------------------------------------------------- hidden cards
def test_cards_a_player_cannot_see_do_not_change_what_it_observes():
    """Swap an opponent's unseen card with an unseen stock card: nothing the player observes
    changes (observation, mask, infos, rendering), at every step of a game."""
    env = collector_v0.raw_env(num_players=3)
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    checked = 0
    for step in range(60):
        state = env.game_state
        if state.phase == OVER:
            break
        for seat in range(3):
            other = (seat + 1) % 3
            hidden = [c for c in state.hands[other] if c not in state.known[other]]
            if not hidden or state.stock_unknown == 0:
                continue
            agent = env.possible_agents[seat]
            before = outputs(env, agent)
            swapped = state.copy()
            c = hidden[0]
            i = swapped.hands[other].index(c)
            j = int(rng.integers(swapped.stock_unknown))
            swapped.hands[other][i], swapped.stock[j] = swapped.stock[j], c
            swapped.counts[other] = [0] * 13
            for d in swapped.hands[other]:
                swapped.counts[other][d % 13] += 1
            if 0 not in swapped.counts[other]:
                continue
            env.game_state = swapped
            assert outputs(env, agent) == before
            env.game_state = state
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert checked > 50


def test_decoding_an_observation_and_encoding_it_again_gives_the_same_vector():
    for n in (2, 3, 4):
        env = collector_v0.raw_env(num_players=n, max_rounds=25)
        env.reset(seed=n)
        rng = np.random.default_rng(n)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            for seat, a in enumerate(env.possible_agents):
                x = env.observe(a)["observation"]
                v = env.decode(x)
                assert v == decode(x) and np.array_equal(encode(v), x)
                assert v == view(env.game_state, seat), "decode gives back the very view"
                assert render_view(v, env.rules._names) == env.render_view(a)
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ---------------------------------------------------------------------------- bad input
def test_an_unknown_option_is_a_value_error_naming_it_and_the_allowed_options():
    with pytest.raises(ValueError, match="colour.*allowed options: num_players, hand_size"):
        collector_v0.env(colour="red")


def test_reward_mode_is_rank_only_since_the_spec_defines_no_score_shaping():
    assert collector_v0.env(reward_mode="rank").unwrapped.rules.reward_mode == "rank"
    with pytest.raises(ValueError, match="reward_mode.*'rank'.*no score shaping"):
        collector_v0.env(reward_mode="score")


@pytest.mark.parametrize(
    "option, value, match",
    [
        ("num_players", 1, "num_players"),
        ("num_players", 5, r"num_players.*2\.\.4"),
        ("hand_size", 0, "hand_size"),
        ("hand_size", 13, r"hand_size.*1\.\.12"),
        ("dealer", 2, "dealer"),
        ("dealer", "left", "dealer"),
        ("max_rounds", 0, "max_rounds"),
        ("truncation_rule", "points", "truncation_rule.*'draw', 'most_ranks'"),
        ("contest_fallback", "draw", "contest_fallback.*'draw_two', 'nothing'"),
    ],
)
def test_an_out_of_range_option_is_a_value_error_naming_it(option, value, match):
    with pytest.raises(ValueError, match=match):
        collector_v0.env(**{option: value})


def test_a_wrong_deck_is_a_value_error_and_the_game_is_unchanged():
    env = new(2)
    before = env.rules.zones(env.game_state)
    with pytest.raises(ValueError, match="stacked deck has 53 cards"):
        env.reset(options={"deck": [to_str(c) for c in range(52)] + ["RJ"]})
    with pytest.raises(ValueError, match="does not match"):
        env.reset(options={"deck": ["As"] + [to_str(c) for c in range(1, 52)]})
    assert env.rules.zones(env.game_state) == before


def test_an_illegal_action_is_a_value_error_and_changes_nothing():
    env = new(2, hands={1: "As 3c 5d 9h Kd"})
    before = (env.rules.zones(env.game_state), env.game_state.pending[:], env.agent_selection)
    with pytest.raises(ValueError, match=r"illegal.*legal actions: 0 \(play A\), 2 \(play 3\)"):
        env.step(env.string_to_action("play 7"))
    with pytest.raises(ValueError, match="illegal"):
        env.step(env.string_to_action("draw two"))
    assert (env.rules.zones(env.game_state), env.game_state.pending, env.agent_selection) == before


def test_env_ends_the_game_on_an_illegal_action_with_minus_one():
    env = collector_v0.env()
    env.reset(seed=0)
    mover = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(13)  # draw two in PLAY
    assert env._cumulative_rewards[mover] == -1 and all(env.terminations.values())


def test_action_names():
    env = collector_v0.raw_env(num_players=4)
    env.reset(seed=0)
    assert [env.action_to_string(a) for a in (0, 9, 12, 13, 14, 16)] == [
        "play A", "play 10", "play K", "draw two", "take 1", "take 3"]
    assert env.string_to_action("PLAY 10") == 9 and env.string_to_action("play T") == 9
    assert env.string_to_action("play 1") == 0, "the source's 1 is the ace"
    assert env.string_to_action(" take  2 ") == 15
    with pytest.raises(ValueError, match="action names: play A, play 2"):
        env.string_to_action("pass")


# ---------------------------------------------------------------------------------- parallel
def test_parallel_env_passes_pettingzoo_parallel_api_test():
    for config in ({}, {"num_players": 4, "max_rounds": 40}, {"num_players": 3, "hand_size": 1, "contest_fallback": "nothing"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parallel_api_test(collector_v0.parallel_env(**config), num_cycles=400)
            parallel_seed_test(lambda: collector_v0.parallel_env(**config), num_cycles=100)


def _play_parallel(config, seed, deck=None):
    """A random parallel game; returns the actions of each phase and what was observed."""
    par = collector_v0.parallel_env(**config)
    obs, infos = par.reset(seed=seed, options={"deck": deck} if deck else None)
    rng = np.random.default_rng(seed)
    phases, seen_obs = [], [{a: o["observation"].tobytes() for a, o in obs.items()}]
    rewards = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        actions = {a: (int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else None)
                   for a, o in obs.items()}
        phases.append({a: x for a, x in actions.items() if x is not None})
        obs, rew, term, trunc, infos = par.step(actions)
        for a, r in rew.items():
            rewards[a] += r
        seen_obs.append({a: o["observation"].tobytes() for a, o in obs.items()})
    return phases, seen_obs, rewards, infos, par.rules.zones(par.game_state)


@pytest.mark.parametrize("config", [{"num_players": 2, "max_rounds": 60}, {"num_players": 4, "max_rounds": 60},
                                    {"num_players": 3, "hand_size": 12, "contest_fallback": "nothing"}])
def test_aec_and_parallel_play_the_same_game_from_the_same_seed_and_choices(config):
    for seed in range(3):
        phases, seen_obs, rewards, infos, zones = _play_parallel(config, seed)
        env = collector_v0.env(**config)
        env.reset(seed=seed)
        aec_rewards = dict.fromkeys(env.possible_agents, 0.0)
        i, asked = 0, set()
        assert {a: env.observe(a)["observation"].tobytes() for a in env.possible_agents} == seen_obs[0]
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            aec_rewards[agent] += r
            if term or trunc:
                assert info == infos[agent]
                env.step(None)
                continue
            if agent in asked or agent not in phases[i]:  # a new phase began
                assert asked == set(phases[i])
                i, asked = i + 1, set()
                assert {a: env.observe(a)["observation"].tobytes() for a in env.possible_agents} == seen_obs[i]
            asked.add(agent)
            env.step(phases[i][agent])
        assert rewards == aec_rewards and i == len(phases) - 1
        assert env.rules.zones(env.game_state) == zones


def test_parallel_raw_env_rejects_a_missing_or_illegal_action_and_changes_nothing():
    par = collector_v0.parallel_raw_env(num_players=3)
    obs, _ = par.reset(seed=0, options={"deck": stacked(3, {0: "As 3c 5d 9h Kd"}, "", 0)})
    before = par.rules.zones(par.game_state)
    with pytest.raises(ValueError, match="player_2 must act"):
        par.step({"player_0": 0, "player_1": int(np.flatnonzero(obs["player_1"]["action_mask"])[0])})
    legal_ = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    with pytest.raises(ValueError, match=r"illegal for player_0.*play A"):
        par.step(legal_ | {"player_0": 6})
    with pytest.raises(ValueError, match=r"action 17 \(wait\) is illegal for player_0"):
        par.step(legal_ | {"player_0": 17})
    with pytest.raises(ValueError, match="not in the action space"):
        par.step(legal_ | {"player_0": 18})
    assert par.rules.zones(par.game_state) == before and par.game_state.pending == [-1, -1, -1]
    obs, rew, term, trunc, infos = par.step(legal_)
    assert par.game_state.phase == ACQUIRE and all(o["action_mask"][13] for o in obs.values())


def test_parallel_env_ends_the_game_on_an_illegal_action_as_env_does():
    par = collector_v0.parallel_env(num_players=3)
    obs, _ = par.reset(seed=0, options={"deck": stacked(3, {0: "As 3c 5d 9h Kd"}, "", 0)})
    legal_ = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    with pytest.raises(ValueError, match="player_2 must act"):
        par.step({"player_0": 0, "player_1": 0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, rew, term, trunc, infos = par.step(legal_ | {"player_0": 6, "player_2": 13})
    assert rew == {"player_0": 0.0, "player_1": 0.0, "player_2": -1.0}, "player_2 is asked before player_0"
    assert all(term.values()) and par.agents == []
    env = collector_v0.env(num_players=3)
    env.reset(seed=0, options={"deck": stacked(3, {0: "As 3c 5d 9h Kd"}, "", 0)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for agent in ("player_1", "player_2", "player_0"):
            assert env.agent_selection == agent
            env.step((legal_ | {"player_0": 6, "player_2": 13})[agent])
            if env.terminations[agent]:
                break
    assert env._cumulative_rewards == rew


def test_parallel_env_is_registered_with_pettingzoo():
    import pettingzoo

    par = pettingzoo.make("parallel", "card_envs/collector-v0", num_players=3)
    obs, infos = par.reset(seed=1)
    assert set(obs) == {"player_0", "player_1", "player_2"}


def test_a_live_parallel_agent_with_nothing_to_do_has_only_the_wait_no_op():
    """A player with an empty hand is not asked in PLAY; in the Parallel API its
    mask holds only WAIT (17), never all zeros, and whatever it sends is ignored."""
    par = collector_v0.parallel_env(num_players=3, hand_size=1, contest_fallback="nothing", dealer=2)
    obs, _ = par.reset(seed=0, options={"deck": stacked(3, {0: "2c", 1: "3c", 2: "4c"}, "", 2)})
    obs, *_ = par.step({"player_0": 1, "player_1": 2, "player_2": 3})
    obs, *_ = par.step({"player_0": 14, "player_1": 13, "player_2": 15})
    assert par.game_state.hands[0] == [] and par.game_state.phase == PLAY
    assert np.flatnonzero(obs["player_0"]["action_mask"]).tolist() == [17]
    assert par.action_to_string(17) == "wait"
    for idle in (17, 5, None):  # WAIT, anything else, or nothing: ignored
        p2 = collector_v0.parallel_env(num_players=3, hand_size=1, contest_fallback="nothing", dealer=2)
        p2.reset(seed=0, options={"deck": stacked(3, {0: "2c", 1: "3c", 2: "4c"}, "", 2)})
        p2.step({"player_0": 1, "player_1": 2, "player_2": 3})
        p2.step({"player_0": 14, "player_1": 13, "player_2": 15})
        before = p2.rules.zones(p2.game_state)
        o2, *_ = p2.step({"player_0": idle, "player_1": int(np.flatnonzero(obs["player_1"]["action_mask"])[0]),
                          "player_2": int(np.flatnonzero(obs["player_2"]["action_mask"])[0])})
        assert p2.game_state.phase == ACQUIRE and p2.game_state.played[0] == -1 and before["hand 0"] == []
        assert o2["player_0"]["action_mask"][13] == 1 and not o2["player_0"]["action_mask"][17]
    # the AEC API never offers WAIT
    env = collector_v0.env(num_players=3, hand_size=1, contest_fallback="nothing", dealer=2)
    env.reset(seed=0, options={"deck": stacked(3, {0: "2c", 1: "3c", 2: "4c"}, "", 2)})
    for agent in env.agent_iter(200):
        obs_, _, term, trunc, _ = env.last()
        assert not obs_["action_mask"][17]
        env.step(None if term or trunc else int(np.flatnonzero(obs_["action_mask"])[0]))


def test_every_live_parallel_agent_has_a_legal_action_at_every_step(module=collector_v0, n=4, seed=8, steps=400):
    """4 players, seed 8: ~320 random legal steps once met an all-zero mask."""
    par = module.parallel_env(num_players=n)
    wait = par.rules.wait_action
    obs, _ = par.reset(seed=seed)
    rng = np.random.default_rng(seed)
    idle = 0
    for _ in range(steps):
        if not par.agents:
            obs, _ = par.reset(seed=int(rng.integers(1000)))
        assert all(obs[a]["action_mask"].any() for a in par.agents)
        idle += sum(np.flatnonzero(obs[a]["action_mask"]).tolist() == [wait] for a in par.agents)
        obs, *_ = par.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents})
    assert idle > 0, "no idle agent met: the test proves nothing"


# ------------------------------------------------------------------------------------ misc
def test_a_four_player_game_plays_to_the_end_with_an_ansi_table_per_turn():
    env = collector_v0.env(num_players=4, render_mode="ansi", max_rounds=30)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        text = env.render()
        assert text.startswith("Collector: round")
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert Counter(c for z in env.rules.zones(env.game_state).values() for c in z) == Counter(range(52))
    assert "seat 3" in env.render_state()


def test_rules_can_be_used_without_the_environment():
    rules = CollectorRules(num_players=2)
    s = rules.new_game(np.random.default_rng(0))
    while s.current_player >= 0:
        rules.apply(s, int(np.flatnonzero(rules.legal_mask(s))[0]))
    assert s.terminated or s.truncated


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_documented_observation_size_and_layout_table_match_the_code(n):
    env = collector_v0.raw_env(num_players=n)
    assert env.observation_space("player_0")["observation"].shape == (710 + 58 * n + 2 * n * n,)
    assert env.observation_layout.table().splitlines()[2].startswith("| `phase` | 0–1 |")
    assert collector_v0.__doc__ == collector_v0.raw_env.__doc__ and "| `stock_known` |" in collector_v0.__doc__


# -------------------------------------------------- information, copies, rendering, reveals
_CONTEST_HANDS = {1: "As 3c 5d 9h Kd", 3: "2s 4c 6d Th Qd", 0: "2h 4h 6h 8h Jh", 2: "3h 5h 7h 9s Js"}
_CONTEST_PLAYS = {0: "2", 1: "A", 2: "3", 3: "2"}


def _contest_table(p0_choice: str, **options):
    """4 players, dealer 3 (lead 0): P3 claims P1's ace; P0 either claims it too (and loses:
    clockwise from P1 the order is P2, P3, P0) or draws two."""
    env = collector_v0.raw_env(num_players=4, dealer=3, **options)
    env.reset(seed=0, options={"deck": stacked(4, _CONTEST_HANDS, "", 3)})
    phase_round(env, _CONTEST_PLAYS, {0: p0_choice, 1: "draw two", 2: "draw two", 3: "take 2"})
    return env


def test_a_contest_loser_no_longer_looks_like_a_player_who_chose_to_draw():
    lost, drew = _contest_table("take 1"), _contest_table("draw two")
    for env in (lost, drew):
        assert env.game_state.last_taker[1] == 3 and env.game_state.last_drawn[0] == 2
    assert lost.game_state.hands == drew.game_state.hands, "the same cards everywhere: only the claim differs"
    for seat, agent in enumerate(lost.possible_agents):
        assert outputs(lost, agent)[0] != outputs(drew, agent)[0], f"{agent} cannot tell a lost claim from a draw"
    v = seen(lost, 2)  # from P2: P3 is +1, P0 is +2, P1 is +3
    assert v.last_claimed == (None, 3, 3, None) and v.last_taken_by[3] == 1 and v.last_drawn[2] == 2
    assert seen(drew, 2).last_claimed == (None, 3, None, None)
    text = lost.render_view("player_2")
    assert "  +2: played 2 (returned to the stock bottom); claimed +3's A, lost the contest to +1, drew 2 instead" in text
    assert "  +1: played 2 (returned to the stock bottom); claimed +3's A and got it" in text
    assert "  +3: played A (taken by +1); drew two: got 2" in text


def test_a_loser_with_contest_fallback_nothing_is_shown_getting_nothing():
    env = _contest_table("take 1", contest_fallback="nothing")
    assert env.game_state.last_drawn[0] == 0
    assert "claimed +1's A, lost the contest to +3, got nothing instead" in env.render_view("player_0")
    assert seen(env, 0).last_claimed[0] == 1


def test_the_claims_stay_public_until_the_next_round_resolves():
    env = _contest_table("take 1")
    # during the next PLAY and ACQUIRE, every observer still sees the last round's claims
    for _ in range(4):
        assert all(seen(env, p).last_claimed[(0 - p) % 4] == (1 - p) % 4 for p in range(4))
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.game_state.phase == ACQUIRE
    assert all(seen(env, p).last_claimed[(0 - p) % 4] == (1 - p) % 4 for p in range(4))


def test_last_claimed_encodes_and_decodes():
    env = _contest_table("take 1")
    for agent in env.possible_agents:
        x = env.observe(agent)["observation"]
        assert np.array_equal(encode(decode(x)), x)
    layout = env.observation_layout
    assert {"last_claimed", "callers", "first_place"} <= set(layout.by_name)
    assert "| `last_claimed` |" in collector_v0.__doc__


def test_parallel_envs_survive_pickle_deepcopy_and_cloudpickle_and_continue_the_game():
    import copy
    import pickle

    import cloudpickle

    for ctor, checked in ((collector_v0.parallel_env, True), (collector_v0.parallel_raw_env, False)):
        par = ctor(num_players=3)
        obs, _ = par.reset(seed=4)
        rng = np.random.default_rng(0)
        for _ in range(5):
            obs, *_ = par.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
        for clone in (pickle.loads(pickle.dumps(par)), copy.deepcopy(par), cloudpickle.loads(cloudpickle.dumps(par))):
            assert type(clone) is type(par) and clone.checked is checked and clone.aec._checked is checked
            twin = copy.deepcopy(par)
            r1, r2 = np.random.default_rng(1), np.random.default_rng(1)
            o1 = o2 = obs
            while twin.agents:
                o1, rw1, *_ = twin.step({a: int(r1.choice(np.flatnonzero(o["action_mask"]))) for a, o in o1.items()})
                o2, rw2, *_ = clone.step({a: int(r2.choice(np.flatnonzero(o["action_mask"]))) for a, o in o2.items()})
                assert rw1 == rw2 and all(np.array_equal(o1[a]["observation"], o2[a]["observation"]) for a in o1)
            assert clone.agents == [] and clone.rules.zones(clone.game_state) == twin.rules.zones(twin.game_state)
        # and after reset, an illegal action behaves as the original's
        clone = pickle.loads(pickle.dumps(par))
        o, _ = clone.reset(seed=0)
        acts = {a: int(np.flatnonzero(x["action_mask"])[0]) for a, x in o.items()}
        bad = acts | {"player_0": int(np.flatnonzero(o["player_0"]["action_mask"] == 0)[0])}
        if checked:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, rew, term, *_ = clone.step(bad)
            assert rew["player_0"] == -1.0 and all(term.values())
        else:
            with pytest.raises(ValueError, match="illegal"):
                clone.step(bad)


def test_the_end_says_who_completed_and_who_won():
    env = _complete_together(1)
    text = env.render_view("player_1")
    assert "game over: +2 completed the set; +2 wins" in text, text
    assert "game over: you completed the set; you win" in env.render_view("player_0")
    v = seen(env, 1)
    assert v.callers == (False, False, True) and v.first_place == (False, False, True)
    env = _complete_together(2)
    assert "game over: you, +1 completed the set; you, +1 share the win" in env.render_view("player_0")


def test_a_truncated_game_says_it_was_a_draw_or_who_had_most_ranks():
    for rule, expected in (("draw", "game over: a draw, everyone shares first place (round limit, nobody completed)"),
                           ("most_ranks", "game over at the round limit, nobody completed: +1 wins with most ranks")):
        env = collector_v0.raw_env(num_players=2, dealer=1, max_rounds=1, truncation_rule=rule)
        env.reset(seed=0, options={"deck": stacked(2, {0: "Ac 2c 3c 4c 5c", 1: "Ad Ah As 2d 2h"}, "6c 7c 8c 9c", 1)})
        phase_round(env, {0: "A", 1: "A"}, {0: "draw two", 1: "draw two"})
        assert env.game_state.truncated
        text = env.render_view("player_1")
        assert expected in text, text


def test_reveals_is_exact_about_a_resolution_that_shows_nothing_new():
    """2 players, the stock's top seen (returned cards only): the resolution turns up nothing."""
    env = new(2, dealer=1)
    rules, s = env.rules, env.game_state
    assert rules.reveals(s, env.string_to_action("play A"), 1) is False, "not the phase's last commitment"
    env.step(env.string_to_action("play A"))  # P0 commits; P1 closes PLAY
    s = env.game_state
    assert rules.reveals(s, int(np.flatnonzero(rules.legal_mask(s))[0]), 0) is False, "2 players: PLAY shows only the actor's card"
    env.step(int(np.flatnonzero(rules.legal_mask(s))[0]))
    s = env.game_state
    env.step(env.string_to_action("take 1"))
    s = env.game_state  # P1 closes ACQUIRE: P0 took (draws nothing), P1 draws two never-seen cards
    assert rules.reveals(s, env.string_to_action("draw two"), 0) is False, "P0 draws nothing, sees nothing new"
    assert rules.reveals(s, env.string_to_action("draw two"), 1)


class _LeakyRules(CollectorRules):
    """A planted leak: when the stock's top card (never seen) is a heart after a round, the lead
    seat's PLAY turn is skipped, so who acts next depends on a card nobody has seen."""

    def _resolve(self, s):
        out = super()._resolve(s)
        if s.phase == PLAY and s.stock and s.stock[0] // 13 == 2 and len(s.order) > 1:
            s.pos, s.current_player = 1, s.order[1]
        return out


class _LeakyEnv(collector_v0.raw_env):
    Rules = _LeakyRules


def test_the_process_property_catches_a_planted_leak_in_who_acts_next():
    from tests.conformance.process import check_process

    report = check_process(_LeakyEnv(num_players=3, max_rounds=20), range(3))
    assert report.violation is not None and "next to act" in report.violation


def test_reveals_gives_the_public_outcome_when_a_set_is_completed():
    hands = {0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Jd", 1: "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Js",
             2: "Ad 2d 3d 4d 5d 6d 7d 8d 9d Td Qd Kd"}
    env = collector_v0.raw_env(num_players=3, dealer=2, hand_size=12)
    env.reset(seed=0, options={"deck": stacked(3, hands, "Qc Kc As 2s", 2)})
    for name in ("play J", "play J", "play 2", "draw two", "draw two"):
        env.step(env.string_to_action(name))
    s = env.game_state
    outcome = env.rules.reveals(s, env.string_to_action("draw two"), 1)
    assert outcome == ((0,), (13, 13, 13)), "P0 completes: the public outcome, not just True"
