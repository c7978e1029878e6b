"""Fiddlesticks: one test per rule (``help(card_envs.fiddlesticks_v0)``), on stacked decks."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest

from card_envs import cards, fiddlesticks_v0
from card_envs.fiddlesticks import view as fs_view
from card_envs.fiddlesticks.rules import GAME_RANK, PLAYABLE, RANK_NAMES, FiddlesticksRules, playable
from tests.cases import fiddlesticks as fiddlesticks_cases
from tests.cases import resample_hidden

RANK_CHAR = {name: ("T" if name == "10" else name) for name in RANK_NAMES}


# ----------------------------------------------------------------------------- helpers
def stacked_deck(n, dealer, hands=None, ups=None, downs=None, stock=(), num_decks=2):
    """A deck (top first) dealing the given ranks: ``hands[p]``, ``ups[p]``, ``downs[p]`` are lists
    of rank names, ``stock`` the top of the stock (None anywhere for "any card"). Unnamed places
    get the leftover cards, lowest card ints first."""
    pool = Counter(cards.make_deck(num_decks))

    def take(rank):
        want = RANK_CHAR[rank]
        for c in sorted(pool):
            if pool[c] and cards.to_str(c)[0] == want:
                pool[c] -= 1
                return c
        raise AssertionError(f"no {rank} left for the stacked deck")

    first = (dealer + 1) % n
    zones = []
    for spec in (downs or {}, ups or {}, hands or {}):
        zones.append({p: list(spec.get(p, [None] * 3)) + [None] * (3 - len(spec.get(p, []))) for p in range(n)})
    order = [None] * (9 * n)
    for i in range(9 * n):
        rnd, p = divmod(i, n)
        seat = (first + p) % n
        rank = zones[rnd // 3][seat][rnd % 3]
        if rank is not None:
            order[i] = take(rank)
    order += [None if r is None else take(r) for r in stock]
    for i in range(len(order)):
        if order[i] is None:
            c = min(c for c in pool if pool[c])
            pool[c] -= 1
            order[i] = c
    rest = sorted(pool.elements())
    return [cards.to_str(c) for c in order + rest]


def new_env(n, dealer, deck, **options):
    e = fiddlesticks_v0.raw_env(num_players=n, dealer=dealer, **options)
    e.reset(seed=0, options={"deck": deck})
    return e


def act(e, name):
    e.step(e.string_to_action(name))


def keep_dealt_face_up(e):
    """Every player picks its dealt face-up cards again (no swap)."""
    s = e.unwrapped.game_state
    while s.phase == 0:
        v = e.decode(e.observe(e.agent_selection)["observation"])
        r = next(r for r in range(13) if v.face_up[0][r] > v.picked[r])
        act(e, f"face-up {RANK_NAMES[r]}")


def by_rank(names):
    """Rank names in rank order (2 low, Ace high)."""
    return sorted(names, key=RANK_NAMES.index)


def ranks(cs):
    return by_rank(RANK_NAMES[GAME_RANK[c]] for c in cs)


def hand(e, p):
    return ranks([c for h in e.game_state.hand[p] for c in h])


def pile(e):
    return [RANK_NAMES[GAME_RANK[c]] for c in e.game_state.pile]


def legal(e):
    return sorted(e.legal_action_names())


def seat_of(e):
    return e.game_state.current_player


def obs(e, p):
    return e.observe(f"player_{p}")


def view_of(e, p):
    return e.decode(obs(e, p)["observation"])


def rank_vector(names):
    v = [0] * 13
    for name in names:
        v[RANK_NAMES.index(name)] += 1
    return v


def random_game(config, seed, check=None):
    """Random legal play through env(); returns the env, each agent's return and final info."""
    e = fiddlesticks_v0.env(**config)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns, infos = Counter(), {}
    for agent in e.agent_iter():
        o, reward, term, trunc, info = e.last()
        returns[agent] += reward
        if check:
            check(e, o)
        if term or trunc:
            infos[agent] = info
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return e, returns, infos


# A worked example: 3 players, dealer P0 so P1 leads; hands and the stock's top arranged so
# that every step of the table is the players' choice.
WORKED = dict(
    hands={0: ["5", "2", "10"], 1: ["5", "5", "5"], 2: ["9", "5", "3"]},
    stock=["5", "K", "4", "Q", "J", "A", "6", "8", "7", "3", "9"],
)

# 5 players, 1 deck (7 cards in the stock), dealer P1 so P2 leads; P1 reaches the BLIND zone in
# the third round facing a Q, with face-down 10, 7, 2.
BLIND = dict(
    hands={2: ["4", "4", "9"], 3: ["5", "5", "5"], 4: ["6", "6", "6"], 0: ["7", "7", "Q"], 1: ["8", "8", "8"]},
    ups={1: ["J", "J", "J"], 2: ["A", "3", "3"], 3: ["2"], 4: ["K", "K", "3"], 0: ["A", "A"]},
    downs={1: ["10", "7", "2"]},
    stock=["K", None, "2", None, "5", None, None],
    num_decks=1,
)
BLIND_SCRIPT = [  # (seat, action) up to P1's first blind turn
    (2, "play 2x4"), (3, "play 2x5"), (4, "play 2x6"), (0, "play 1x7"), (1, "play 3x8"),
    (2, "play 1x9"), (3, "play 1x5"), (4, "play 1x6"), (0, "play 1x7"), (1, "play 3xJ"),
    (2, "play 1xK"), (3, "play 1x2"), (4, "play 1x5"), (0, "play 1xQ"),
]


def blind_env(last="2", **options):
    """The BLIND scenario played up to P1's first blind turn; P1's face-down slot 2 holds ``last``."""
    deck = stacked_deck(5, 1, **dict(BLIND, downs={1: ["10", "7", last]}))
    e = new_env(5, 1, deck, num_decks=1, **options)
    keep_dealt_face_up(e)
    for seat, name in BLIND_SCRIPT:
        assert seat_of(e) == seat, (seat, name)
        act(e, name)
    return e


# ------------------------------------------------------------------------- setup rules
def test_two_decks_by_default_and_more_as_an_option():
    e = fiddlesticks_v0.raw_env()
    assert len(e.rules.deck()) == 104 and e.rules.num_players == 4
    assert e.action_space("player_0").n == 121  # 13K + 17, K = 8
    e3 = fiddlesticks_v0.raw_env(num_decks=3, num_players=6)
    assert len(e3.rules.deck()) == 156
    assert Counter(e3.rules.deck())[cards.parse("As")] == 3
    assert e3.action_space("player_0").n == 13 * 12 + 17
    assert not any(cards.is_joker(c) for c in e3.rules.deck())


def test_the_deal_is_face_down_then_face_up_then_hand_clockwise_from_the_dealers_left():
    deck = [cards.to_str(c) for c in cards.make_deck(2)]  # unshuffled: Ac 2c 3c ...
    e = new_env(3, 1, deck)  # dealer 1: player 2 gets the first card
    s = e.game_state
    d = cards.parse_many(deck)
    assert s.face_down[2] == [d[0], d[3], d[6]]
    assert s.face_down[0] == [d[1], d[4], d[7]]
    assert s.face_down[1] == [d[2], d[5], d[8]]
    assert s.face_up[2] == [d[9], d[12], d[15]]
    assert sorted(c for h in s.hand[2] for c in h) == sorted([d[18], d[21], d[24]])
    assert sorted(c for h in s.hand[1] for c in h) == sorted([d[20], d[23], d[26]])
    assert s.stock[-1] == d[27] and len(s.stock) == 104 - 27  # the stock's top is the next card
    assert s.pile == [] and s.phase == 0 and s.current_player == 2


def test_swap_picks_choose_which_three_of_the_six_visible_cards_lie_face_up():
    deck = stacked_deck(
        2, 1, hands={0: ["4", "5", "6"], 1: ["7", "8", "9"]}, ups={0: ["K", "K", "3"], 1: ["J", "J", "J"]}
    )
    e = new_env(2, 1, deck)
    assert seat_of(e) == 0
    # the pool is hand + face-up: one pick per rank held
    assert legal(e) == sorted(["face-up 3", "face-up 4", "face-up 5", "face-up 6", "face-up K"])
    act(e, "face-up 4")
    act(e, "face-up K")
    assert e.decode(obs(e, 0)["observation"]).picked == rank_vector(["4", "K"])
    assert "face-up 4" not in legal(e)  # the only 4 is already picked
    act(e, "face-up 6")
    assert seat_of(e) == 1  # three picks, then the next player
    keep_dealt_face_up(e)
    s = e.game_state
    assert ranks(s.face_up[0]) == ["4", "6", "K"] and hand(e, 0) == ["3", "5", "K"]
    assert ranks(s.face_up[1]) == ["J", "J", "J"]
    assert s.phase == 1 and seat_of(e) == 0 and s.turns == 0  # picks are not play actions
    # the dealt face-up K and 3 that went into the hand are known to everybody
    assert view_of(e, 1).known[1] == rank_vector(["3", "K"])
    assert view_of(e, 1).face_up[1] == rank_vector(["4", "6", "K"])


def test_swap_choices_stay_hidden_until_every_player_has_picked():
    deck = stacked_deck(3, 2, hands={0: ["4", "5", "6"]}, ups={0: ["K", "K", "3"]})
    a, b = new_env(3, 2, deck), new_env(3, 2, deck)
    for name in ("face-up 4", "face-up 5", "face-up 6"):
        act(a, name)
    for name in ("face-up K", "face-up K", "face-up 3"):
        act(b, name)
    assert seat_of(a) == seat_of(b) == 1
    for p in (1, 2):
        oa, ob = obs(a, p), obs(b, p)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert a.render_view(f"player_{p}") == b.render_view(f"player_{p}")
    assert view_of(a, 1).face_up[2] == rank_vector(["3", "K", "K"])  # P0 seen from P1: the dealt face-up row
    keep_dealt_face_up(a)
    assert view_of(a, 1).face_up[2] == rank_vector(["4", "5", "6"])  # revealed after the last pick


def test_the_first_player_is_the_dealers_left_and_play_is_clockwise():
    deck = stacked_deck(4, 2, hands={3: ["3", "7", "7"], 0: ["4", "4", "4"], 1: ["5", "5", "5"], 2: ["6", "6", "6"]})
    e = new_env(4, 2, deck)
    assert seat_of(e) == 3
    keep_dealt_face_up(e)
    order = []
    for name in ("play 1x3", "play 1x4", "play 1x5", "play 1x6", "play 1x7"):
        order.append(seat_of(e))
        act(e, name)
    assert order == [3, 0, 1, 2, 3]


# ------------------------------------------------------------------------ the worked example
def test_the_worked_example_step_by_step():
    e = new_env(3, 0, stacked_deck(3, 0, **WORKED))
    keep_dealt_face_up(e)
    s = e.game_state
    assert seat_of(e) == 1 and s.pile == []
    # 1: multiples allowed; P1 refills to 3
    act(e, "play 2x5")
    assert pile(e) == ["5", "5"] and hand(e, 1) == ["5", "5", "K"]
    # 2: 9 >= 5
    assert seat_of(e) == 2
    act(e, "play 1x9")
    assert pile(e) == ["5", "5", "9"]
    # 3: 5 <= 9 is legal after a 9
    assert seat_of(e) == 0 and "play 1x5" in legal(e)
    act(e, "play 1x5")
    # 4: the top run of 5s is 3 (the 9 breaks it)
    act(e, "play 2x5")
    assert pile(e) == ["5", "5", "9", "5", "5", "5"] and (s.run_rank, s.run_len) == (3, 3)
    # 5: the run reaches 4, the pile clears, P2 refills and goes again
    assert seat_of(e) == 2 and hand(e, 2) == ["3", "4", "5"]
    act(e, "play 1x5")
    assert s.pile == [] and seat_of(e) == 2 and hand(e, 2) == ["3", "4", "6"]
    assert view_of(e, 0).cleared == rank_vector(["5"] * 6 + ["9"])
    # 6: anything goes on an empty pile
    act(e, "play 1x3")
    assert pile(e) == ["3"] and hand(e, 2) == ["4", "6", "8"]
    # 7: a wild 2; anything may follow
    assert seat_of(e) == 0
    act(e, "play 1x2")
    # 8
    assert seat_of(e) == 1 and "play 1xK" in legal(e)
    act(e, "play 1xK")
    assert pile(e) == ["3", "2", "K"]
    # 9: P2 holds {4, 6, 8}: only PICKUP is legal; it gets 3, 2, K and draws nothing
    assert seat_of(e) == 2 and hand(e, 2) == ["4", "6", "8"]
    stock_before = len(s.stock)
    assert legal(e) == ["pick up"]
    act(e, "pick up")
    assert s.pile == [] and hand(e, 2) == ["2", "3", "4", "6", "8", "K"] and len(s.stock) == stock_before
    assert view_of(e, 0).known[2] == rank_vector(["2", "3", "K"])  # P2 seen from P0
    # 10: a 10 clears; P0 refills and goes again
    assert seat_of(e) == 0
    act(e, "play 1x10")
    assert s.pile == [] and seat_of(e) == 0 and hand(e, 0) == ["7", "9", "Q"]
    # later: a player holding more than 3 after playing does not draw
    act(e, "play 1x7")
    act(e, "play 1xA")
    stock_before = len(s.stock)
    act(e, "play 1x2")  # P2: 6 -> 5 cards
    assert len(hand(e, 2)) == 5 and len(s.stock) == stock_before
    assert view_of(e, 0).known[2] == rank_vector(["3", "K"])  # the known 2 was played
    assert s.turns == 13


# ------------------------------------------------------------------------ playing rules
def test_a_nine_turns_the_comparison_to_equal_or_lower_for_the_next_card_only():
    deck = stacked_deck(3, 2, hands={0: ["9", "9", "3"], 1: ["5", "J", "10"], 2: ["A", "4", "2"]})
    e = new_env(3, 2, deck)
    keep_dealt_face_up(e)
    act(e, "play 1x9")
    assert legal(e) == ["play 1x10", "play 1x5"]  # J > 9 is not allowed on a 9; wild 10 is
    act(e, "play 1x5")
    assert legal(e) == ["play 1x2", "play 1xA"]  # only the card on the 9 goes lower
    act(e, "play 1xA")
    # a 9 may be played on a 9
    for top in range(13):
        assert PLAYABLE[top] == tuple(playable(top, r) for r in range(13))
    assert [RANK_NAMES[r] for r in range(13) if PLAYABLE[7][r]] == ["2", "3", "4", "5", "6", "7", "8", "9", "10"]


def test_a_two_is_wild_lowest_and_anything_may_follow_it():
    deck = stacked_deck(2, 1, hands={0: ["A", "3", "2"], 1: ["2", "2", "K"]}, stock=["4"])
    e = new_env(2, 1, deck)
    keep_dealt_face_up(e)
    act(e, "play 1xA")
    assert legal(e) == ["play 1x2", "play 2x2"]  # 2 on an Ace; a K does not fit
    act(e, "play 1x2")
    assert hand(e, 0) == ["2", "3", "4"]
    assert legal(e) == ["play 1x2", "play 1x3", "play 1x4"]  # anything on a 2
    act(e, "play 1x3")
    assert "play 1x2" in legal(e) and "play 1xK" in legal(e)  # 2 is lowest but still goes on a 3
    assert PLAYABLE[1][0] and not PLAYABLE[2][1]  # 2 on 3 (wild); 3 on 4 is too low


def test_a_ten_clears_the_pile_and_the_same_player_goes_again():
    deck = stacked_deck(2, 1, hands={0: ["K", "4", "4"], 1: ["10", "3", "3"]})
    e = new_env(2, 1, deck)
    keep_dealt_face_up(e)
    act(e, "play 1xK")
    assert "play 1x10" in legal(e)  # wild on anything
    act(e, "play 1x10")
    s = e.game_state
    assert s.pile == [] and seat_of(e) == 1
    assert view_of(e, 0).cleared == rank_vector(["K", "10"])
    assert "play 1x3" in legal(e) and "play 2x3" in legal(e)  # anything on the empty pile


def test_multiples_of_one_rank_in_one_play_and_the_next_player_need_not_match():
    deck = stacked_deck(2, 1, hands={0: ["6", "6", "6"], 1: ["7", "7", "Q"]})
    e = new_env(2, 1, deck)
    keep_dealt_face_up(e)
    assert legal(e) == ["play 1x6", "play 2x6", "play 3x6"]
    act(e, "play 3x6")
    assert len(e.game_state.stock) == 104 - 18 - 3  # refilled with 3 cards
    assert legal(e) == ["play 1x7", "play 1xQ", "play 2x7"]
    act(e, "play 1x7")


def test_four_in_a_row_across_players_clears_the_pile():
    deck = stacked_deck(3, 2, hands={0: ["5", "5", "3"], 1: ["5", "5", "5"], 2: ["4", "4", "4"]})
    e = new_env(3, 2, deck)
    keep_dealt_face_up(e)
    act(e, "play 2x5")
    act(e, "play 3x5")  # three fives onto two fives: the top run is 5, >= 4
    s = e.game_state
    assert s.pile == [] and seat_of(e) == 1  # P1 completed the run and goes again
    assert s.cleared_counts[3] == 5


def test_four_in_a_row_counts_twos_and_only_the_top_run():
    deck = stacked_deck(3, 2, hands={0: ["2", "2", "8"], 1: ["2", "7", "8"], 2: ["2", "8", "J"]})
    e = new_env(3, 2, deck)
    keep_dealt_face_up(e)
    act(e, "play 1x8")
    act(e, "play 1x8")
    act(e, "play 1x8")
    act(e, "play 1x2")  # 8 8 8 2: the 2 breaks the run of 8s
    assert pile(e) == ["8", "8", "8", "2"]
    act(e, "play 1x2")
    act(e, "play 1x2")  # 2 2 2 on top: three
    assert e.game_state.run_len == 3 and seat_of(e) == 0
    act(e, "play 1x2")  # the fourth 2 in a row clears
    assert e.game_state.pile == [] and seat_of(e) == 0


def test_four_in_a_row_does_not_clear_when_the_option_is_off():
    deck = stacked_deck(3, 2, hands={0: ["5", "5", "3"], 1: ["5", "5", "5"], 2: ["4", "4", "4"]})
    e = new_env(3, 2, deck, four_in_a_row_clears=False)
    keep_dealt_face_up(e)
    act(e, "play 2x5")
    act(e, "play 3x5")
    assert pile(e) == ["5"] * 5 and seat_of(e) == 2 and e.game_state.run_len == 5


def test_the_refill_happens_before_the_extra_turn_after_a_clear():
    deck = stacked_deck(2, 1, hands={0: ["10", "4", "4"]}, stock=["K", "A"])
    e = new_env(2, 1, deck)
    keep_dealt_face_up(e)
    act(e, "play 1x10")
    assert seat_of(e) == 0 and hand(e, 0) == ["4", "4", "K"]
    assert "play 1xK" in legal(e)  # the card drawn is already playable in the extra turn


def test_a_player_who_cannot_play_must_pick_up_the_whole_pile_and_draws_nothing():
    deck = stacked_deck(2, 1, hands={0: ["K", "Q", "4"], 1: ["3", "5", "8"]})
    e = new_env(2, 1, deck)
    keep_dealt_face_up(e)
    act(e, "play 1xQ")
    assert legal(e) == ["pick up"]
    stock = len(e.game_state.stock)
    act(e, "pick up")
    s = e.game_state
    assert s.pile == [] and hand(e, 1) == ["3", "5", "8", "Q"] and len(s.stock) == stock
    assert seat_of(e) == 0 and s.turns == 2
    assert "pick up" not in legal(e)  # never on an empty pile


def test_voluntary_pickup_option_allows_pick_up_whenever_the_pile_is_not_empty():
    deck = stacked_deck(2, 1, hands={0: ["K", "Q", "4"], 1: ["3", "5", "A"]})
    e = new_env(2, 1, deck, voluntary_pickup=True)
    keep_dealt_face_up(e)
    assert "pick up" not in legal(e)  # empty pile
    act(e, "play 1xQ")
    assert legal(e) == ["pick up", "play 1xA"]
    act(e, "pick up")
    assert hand(e, 1) == ["3", "5", "Q", "A"]


def test_face_up_cards_go_into_the_hand_publicly_once_the_stock_is_gone():
    # 5 players, 1 deck: 7 cards in the stock; the fourth player's refill runs it out midway
    deck = stacked_deck(
        5, 4, num_decks=1,
        hands={0: ["3", "3", "Q"], 1: ["4", "4", "Q"], 2: ["5", "5", "Q"], 3: ["6", "6", "K"]},
        ups={3: ["8", "9", "9"]},
    )
    e = new_env(5, 4, deck, num_decks=1)
    keep_dealt_face_up(e)
    for name in ("play 2x3", "play 2x4", "play 2x5"):
        act(e, name)
    s = e.game_state
    assert len(s.stock) == 1
    drawn = RANK_NAMES[GAME_RANK[s.stock[-1]]]
    act(e, "play 2x6")  # draws the last card, still below 3: takes in all face-up cards
    assert s.stock == [] and s.face_up[3] == [] and s.hand_size[3] == 5
    assert hand(e, 3) == by_rank(["K", drawn, "8", "9", "9"])
    v = view_of(e, 4)  # P3 seen from P4 (P3 is 4 seats clockwise from P4)
    assert v.face_up[4] == [0] * 13 and v.known[4] == rank_vector(["8", "9", "9"]) and v.hand_sizes[4] == 5
    # a player who had 3 cards after drawing keeps its face-up cards until it drops below 3
    assert len(s.face_up[0]) == 3 and s.hand_size[0] == 3


def test_when_the_stock_is_empty_at_the_deal_the_face_up_cards_come_in_at_once():
    # 52 players on 9 decks use all 468 cards: there is no stock at all
    e = fiddlesticks_v0.raw_env(num_players=52, num_decks=9, dealer=51)
    e.reset(seed=3)
    assert e.game_state.stock == []
    keep_dealt_face_up(e)
    s = e.game_state
    a = int(np.flatnonzero(e.action_mask())[0])  # the lowest play: one card
    e.step(a)
    assert s.face_up[0] == [] and s.hand_size[0] == 5


def test_a_failed_blind_card_goes_into_the_hand_with_the_whole_pile():
    e = blind_env()
    s = e.game_state
    assert seat_of(e) == 1 and s.hand_size[1] == 0 and s.stock == [] and s.face_up[1] == []
    assert pile(e)[-1] == "Q"
    assert legal(e) == ["blind 0", "blind 1", "blind 2"]
    taken = pile(e)
    act(e, "blind 1")  # a 7 cannot go on a Q
    assert s.pile == [] and s.face_down[1][1] is None
    assert hand(e, 1) == by_rank(taken + ["7"])
    assert view_of(e, 2).known[4] == rank_vector(taken + ["7"])  # P1 seen from P2, all public
    assert seat_of(e) == 2
    # the player must empty the hand again before the next blind card
    for _ in range(4):
        assert e.game_state.current_player != 1 or "blind" not in " ".join(legal(e))
        e.step(int(np.flatnonzero(e.action_mask())[0]))
    assert seat_of(e) == 1 and not any(name.startswith("blind") for name in legal(e))


def test_the_mask_offers_every_face_down_slot_whatever_lies_beneath():
    e = blind_env()
    mask = e.action_mask().copy()
    o = obs(e, 1)["observation"].copy()
    s = e.game_state
    for perm in ([0, 1, 2], [1, 2, 0], [2, 0, 1], [1, 0, 2]):  # 10/7/2: playable or not on a Q
        fd = [s.face_down[1][i] for i in perm]
        t = s.copy()
        t.face_down[1] = fd
        assert np.array_equal(e.rules.legal_mask(t), mask)
        assert np.array_equal(e._encode(t, 1), o)


def test_a_blind_card_that_fits_is_played_and_the_player_goes_out_with_the_last():
    e = blind_env()
    act(e, "blind 0")  # the 10 clears: go again
    assert seat_of(e) == 1 and e.game_state.pile == []
    act(e, "blind 1")  # a 7 on the empty pile
    assert pile(e) == ["7"] and seat_of(e) == 2 and e.game_state.hand_size[1] == 0
    for name in ("play 1xA", "play 1x2", "play 1xK", "play 1xA"):
        act(e, name)
    assert legal(e) == ["blind 2"]
    act(e, "blind 2")  # a wild 2 on the Ace: P1 has no cards left and wins (first_out)
    s = e.game_state
    assert s.terminated and not s.truncated and s.places == [1]
    assert all(e.terminations.values())
    assert e.infos["player_1"] == {"score": 0, "rank": 1}
    assert all(e.infos[f"player_{p}"]["rank"] == 2 for p in (0, 2, 3, 4))
    assert e.infos["player_0"]["score"] == s.cards_left(0) > 0
    assert e._cumulative_rewards["player_1"] == pytest.approx(1.0)
    for p in (0, 2, 3, 4):
        assert e._cumulative_rewards[f"player_{p}"] == pytest.approx(-0.25)


def test_in_rank_all_a_player_who_is_out_is_skipped_and_the_game_goes_on():
    e = blind_env(end_mode="rank_all")
    act(e, "blind 0")
    act(e, "blind 1")
    for name in ("play 1xA", "play 1x2", "play 1xK", "play 1xA", "blind 2"):
        act(e, name)
    s = e.game_state
    assert s.out[1] and not s.terminated and seat_of(e) == 2
    assert view_of(e, 0).out == [0, 1, 0, 0, 0]  # P1 is one seat clockwise of P0
    seen = []
    for _ in range(8):
        seen.append(seat_of(e))
        e.step(int(np.flatnonzero(e.action_mask())[0]))
    assert 1 not in seen


def test_clearing_with_the_last_card_puts_the_player_out_and_the_next_starts_on_an_empty_pile():
    e = blind_env(last="10", end_mode="rank_all")
    act(e, "blind 0")
    act(e, "blind 1")
    for name in ("play 1xA", "play 1x2", "play 1xK", "play 1xA"):
        act(e, name)
    s = e.game_state
    act(e, "blind 2")  # a 10: clears, and P1 is out: no extra turn
    assert s.out[1] and s.pile == [] and seat_of(e) == 2
    assert s.cleared_counts[8] == 2 and not s.terminated
    names = legal(e)
    assert "pick up" not in names  # the empty pile takes anything: every card in P2's hand is offered
    assert {n.split("x")[1] for n in names} == set(hand(e, 2))


def test_first_out_ends_at_the_first_player_out_and_ranks_everyone_else_second():
    for seed in range(3):
        e, returns, infos = random_game({"num_players": 4}, seed)
        s = e.unwrapped.game_state
        assert s.terminated
        winner = s.places[0]
        assert len(s.places) == 1 and s.cards_left(winner) == 0
        assert all(s.cards_left(p) > 0 for p in range(4) if p != winner)
        rewards = [returns[f"player_{p}"] for p in range(4)]
        assert rewards == pytest.approx([1.0 if p == winner else -1 / 3 for p in range(4)])
        assert [infos[f"player_{p}"]["rank"] for p in range(4)] == [1 if p == winner else 2 for p in range(4)]
        assert [infos[f"player_{p}"]["score"] for p in range(4)] == [s.cards_left(p) for p in range(4)]


def test_rank_all_plays_until_one_player_is_left_and_ranks_by_finishing_order():
    done = 0
    for seed in range(6):
        e, returns, infos = random_game({"num_players": 3, "end_mode": "rank_all"}, seed)
        s = e.unwrapped.game_state
        if s.truncated:
            continue
        done += 1
        last = next(p for p in range(3) if not s.out[p])
        order = s.places + [last]
        assert sorted(order) == [0, 1, 2] and s.cards_left(last) > 0
        assert [infos[f"player_{p}"]["rank"] for p in order] == [1, 2, 3]
        assert [returns[f"player_{p}"] for p in order] == pytest.approx([1.0, 0.0, -1.0])
    assert done >= 3


def test_max_turns_truncates_with_zero_rewards_and_swap_picks_do_not_count():
    e = fiddlesticks_v0.raw_env(num_players=3, max_turns=5, dealer=0)
    e.reset(seed=1)
    keep_dealt_face_up(e)
    assert e.game_state.turns == 0
    for _ in range(5):
        assert not any(e.truncations.values())
        e.step(int(np.flatnonzero(e.action_mask())[0]))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert all(e._cumulative_rewards[a] == 0 for a in e.agents)
    assert all(e.infos[a]["rank"] == 1 for a in e.agents)


# ------------------------------------------------------------------ information rules
def test_own_face_down_cards_do_not_change_the_players_observation():
    deck = stacked_deck(3, 2, hands={0: ["5", "6", "7"]}, downs={0: ["2", "10", "A"]})
    e = new_env(3, 2, deck)
    keep_dealt_face_up(e)
    before = {p: (obs(e, p)["observation"].copy(), obs(e, p)["action_mask"].copy(), e.render_view(f"player_{p}"))
              for p in range(3)}
    s = e.game_state
    # exchange P0's face-down 2, 10, A with stock cards of other ranks
    for j in range(3):
        k = next(i for i, c in enumerate(s.stock) if GAME_RANK[c] not in (0, 8, 12))
        s.face_down[0][j], s.stock[k] = s.stock[k], s.face_down[0][j]
    assert not set(ranks(s.face_down[0])) & {"2", "10", "A"}
    for p in range(3):
        o = obs(e, p)
        assert np.array_equal(o["observation"], before[p][0])
        assert np.array_equal(o["action_mask"], before[p][1])
        assert e.render_view(f"player_{p}") == before[p][2]


def test_hidden_cards_resampled_leave_each_players_view_unchanged():
    rng = np.random.default_rng(7)

    def check(e, o):
        u = e.unwrapped
        s = u.game_state
        for p in range(u.rules.num_players):
            t = resample_hidden(u.rules, s, p, rng)
            assert Counter(c for z in u.rules.zones(t).values() for c in z) == Counter(u.rules.deck())
            assert np.array_equal(u._encode(t, p), u._encode(s, p))
            assert u._render_view(t, p) == u._render_view(s, p)
            if s.current_player == p:
                assert np.array_equal(u.rules.legal_mask(t), u.rules.legal_mask(s))

    random_game({"num_players": 3, "num_decks": 1, "max_turns": 120}, 5, check)


def test_resample_hidden_changes_hidden_cards_only():
    e = new_env(3, 2, stacked_deck(3, 2, **WORKED))
    act(e, "face-up " + RANK_NAMES[GAME_RANK[e.game_state.face_up[0][0]]])
    s = e.game_state
    t = resample_hidden(e.rules, s, 0, np.random.default_rng(0))
    assert t.hand[0] == s.hand[0] and t.picked[0] == s.picked[0]
    assert t.dealt_up == s.dealt_up
    assert t.stock != s.stock or t.face_down != s.face_down
    assert sorted(t.picked[1] + t.picked[2]) == []  # nobody else picked yet


def test_opponents_known_hand_cards_are_the_picked_up_pile_less_later_plays():
    e = new_env(3, 0, stacked_deck(3, 0, **WORKED))
    keep_dealt_face_up(e)
    for name in ("play 2x5", "play 1x9", "play 1x5", "play 2x5", "play 1x5", "play 1x3",
                 "play 1x2", "play 1xK", "pick up"):
        act(e, name)
    for p in (0, 1):
        v = view_of(e, p)
        assert v.known[(2 - p) % 3] == rank_vector(["2", "3", "K"])
        assert v.hand_sizes[(2 - p) % 3] == 6
    assert view_of(e, 2).known[0] == rank_vector(["2", "3", "K"])  # it knows what others know
    assert view_of(e, 2).hand == rank_vector(["2", "3", "4", "6", "8", "K"])


def test_decode_then_encode_gives_back_the_observation_exactly():
    def check(e, o):
        x = o["observation"]
        assert x.dtype == np.float32 and x.shape == e.observation_space(e.agent_selection)["observation"].shape
        assert np.array_equal(e.unwrapped._codec.encode(e.unwrapped.decode(x)), x)
        assert e.observation_space(e.agent_selection)["observation"].contains(x)

    random_game({"num_players": 4, "end_mode": "rank_all", "max_turns": 300}, 2, check)


def test_observation_layout_is_in_the_documentation():
    doc = fiddlesticks_v0.__doc__
    assert fs_view.layout(FiddlesticksRules()).table() in doc
    assert "{layout}" not in doc


# -------------------------------------------------------------------- names and bad input
def test_action_names_round_trip_case_insensitively():
    e = fiddlesticks_v0.raw_env()
    e.reset(seed=0)
    assert e.action_to_string(0) == "play 1x2"
    assert e.action_to_string(7 * 8 + 1) == "play 2x9"
    assert e.action_to_string(104 + 12) == "face-up A"
    assert e.action_to_string(104 + 13 + 2) == "blind 2"
    assert e.action_to_string(120) == "pick up"
    for a in range(121):
        name = e.action_to_string(a)
        assert e.string_to_action(name) == a
        assert e.string_to_action(name.upper()) == a
    assert e.string_to_action("play 1xT") == e.string_to_action("PLAY 1X10")
    assert e.string_to_action("pickup") == 120
    for bad in ("play 9x5", "play 0x5", "blind 3", "face-up 1", "draw", ""):
        with pytest.raises(ValueError, match="pick up"):
            e.string_to_action(bad)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 12}, ["num_players", "2..11"]),
        ({"num_players": 1}, ["num_players"]),
        ({"num_players": 6, "num_decks": 1}, ["num_players", "2..5"]),
        ({"num_decks": 0}, ["num_decks"]),
        ({"end_mode": "last_out"}, ["end_mode", "first_out", "rank_all"]),
        ({"four_in_a_row_clears": "yes"}, ["four_in_a_row_clears"]),
        ({"voluntary_pickup": 1}, ["voluntary_pickup"]),
        ({"dealer": 4}, ["dealer", "random"]),
        ({"max_turns": 0}, ["max_turns"]),
        ({"reward_mode": "score"}, ["reward_mode", "'rank'", "no score shaping"]),
    ],
)
def test_bad_options_are_rejected_naming_the_option_and_allowed_values(options, words):
    with pytest.raises(ValueError) as err:
        fiddlesticks_v0.env(**options)
    for w in words:
        assert w in str(err.value)


def test_option_defaults_are_those_of_the_spec():
    cfg = fiddlesticks_v0.raw_env().rules.config
    assert (cfg.num_players, cfg.num_decks, cfg.end_mode, cfg.four_in_a_row_clears, cfg.voluntary_pickup,
            cfg.dealer, cfg.max_turns) == (4, 2, "first_out", True, False, "random", 1000)
    assert fiddlesticks_v0.raw_env(num_players=11).rules.num_players == 11


def test_a_wrong_stacked_deck_is_rejected():
    e = fiddlesticks_v0.raw_env(num_players=2)
    good = [cards.to_str(c) for c in cards.make_deck(2)]
    for bad, word in ((good[:-1], "103"), (good[:-1] + ["RJ"], "does not use"), (good[:-1] + ["As"], "As")):
        with pytest.raises(ValueError, match=word):
            e.reset(options={"deck": bad})


def test_an_illegal_action_on_raw_env_raises_and_changes_nothing():
    e = new_env(3, 0, stacked_deck(3, 0, **WORKED))
    keep_dealt_face_up(e)
    before = (e.render_state(), obs(e, 1)["observation"].copy(), e.agent_selection)
    for a in (e.string_to_action("play 1x9"), e.string_to_action("pick up"), e.string_to_action("blind 0"),
              e.string_to_action("face-up 5"), e.string_to_action("play 4x5")):
        with pytest.raises(ValueError, match="illegal"):
            e.step(a)
        assert (e.render_state(), e.agent_selection) == (before[0], before[2])
        assert np.array_equal(obs(e, 1)["observation"], before[1])
    with pytest.raises(ValueError):
        e.step(121)


def test_an_illegal_action_through_env_ends_the_game_with_minus_one_for_the_mover():
    e = fiddlesticks_v0.env(num_players=3)
    e.reset(seed=0)
    illegal = int(np.flatnonzero(e.action_mask() == 0)[0])
    mover = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(illegal)
    assert all(e.terminations.values())
    assert e._cumulative_rewards[mover] == -1


def test_same_seed_same_game():
    def trace(seed):
        out = []
        random_game({"num_players": 4, "max_turns": 200}, seed, lambda e, o: out.append(o["observation"].tobytes()))
        return out

    assert trace(11) == trace(11)
    assert trace(11) != trace(12)


# ---------------------------------------------------------------- what a forced pick-up shows
# 3 players, dealer P2 so P0 leads; P1 holds 4 5 6 and cannot beat a Q.
PICKUP = dict(
    hands={0: ["Q", "3", "9"], 1: ["4", "5", "6"], 2: ["7", "8", "J"]},
    ups={0: ["K", "K", "K"], 1: ["A", "A", "A"], 2: ["J", "J", "J"]},
    stock=["3", "5", "4", "6", "8"],
)


def pickup_env(**options):
    e = new_env(3, 2, stacked_deck(3, 2, **PICKUP), **options)
    keep_dealt_face_up(e)
    act(e, "play 1xQ")
    return e


def test_a_forced_pick_up_is_public_knowledge():
    e = pickup_env()
    assert legal(e) == ["pick up"]
    act(e, "pick up")
    # nothing in P1's hand fitted a Q: no 2, 10, Q, K or A beyond the Q it picked up
    for p in range(3):
        v = view_of(e, p)
        k = (1 - p) % 3
        assert [RANK_NAMES[r] for r in range(13) if v.absent[k][r]] == ["2", "10", "Q", "K", "A"]
        assert v.known[k] == rank_vector(["Q"])
        assert "(known: Q; no other 2 10 Q K A)" in e.render_view(f"player_{p}")
    # nobody else is known to lack anything
    assert not any(view_of(e, 0).absent[0]) and not any(view_of(e, 0).absent[2])
    # a voluntary pick-up (the option) shows nothing: the observation differs only in `absent`
    f = pickup_env(voluntary_pickup=True)
    act(f, "pick up")
    lo = e.observation_layout
    for p in range(3):
        a, b = lo.split(obs(e, p)["observation"]), lo.split(obs(f, p)["observation"])
        assert [name for name in a if not np.array_equal(a[name], b[name])] == ["absent"]
        assert not view_of(f, p).absent[(1 - p) % 3].count(True)


def test_a_forced_pick_up_on_a_nine_shows_no_card_of_2_to_10():
    deck = stacked_deck(2, 1, hands={0: ["9", "3", "3"], 1: ["J", "Q", "K"]}, ups={0: ["A"] * 3, 1: ["A"] * 3})
    e = new_env(2, 1, deck)
    keep_dealt_face_up(e)
    act(e, "play 1x9")
    assert legal(e) == ["pick up"]  # on a 9 only 2..9 or a 10
    act(e, "pick up")
    v = view_of(e, 0)
    assert [RANK_NAMES[r] for r in range(13) if v.absent[1][r]] == ["2", "3", "4", "5", "6", "7", "8", "9", "10"]


def test_known_absent_lasts_through_plays_and_ends_when_the_hand_draws():
    e = pickup_env()
    act(e, "pick up")  # P1: 4 5 6 + the public Q
    act(e, "play 1x7")  # P2
    act(e, "play 1x9")  # P0: 9 on 7
    assert legal(e) == ["play 1x4", "play 1x5", "play 1x6"]  # on a 9: equal or lower
    act(e, "play 1x6")  # P1 keeps 3 cards (4 5 Q): no draw, the knowledge stands
    v = view_of(e, 2)
    assert v.absent[2] == view_of(e, 0).absent[1] and sum(v.absent[2]) == 5
    assert e.game_state.hand_size[1] == 3
    act(e, "play 1x8")  # P2: 8 on 6
    act(e, "pick up")  # P0 (3 3 + drawn cards: nothing fits an 8) picks up; now P0 too is known
    assert sum(view_of(e, 1).absent[2]) == 8  # 2 and 8..A, beyond the 7 9 6 8 it picked up
    act(e, "play 1xQ")  # P1 plays the known Q: 4 5 left, it draws one unseen card
    for p in range(3):
        assert not any(view_of(e, p).absent[(1 - p) % 3])  # the drawn card could be anything
        assert "no other" not in e.render_view(f"player_{p}").splitlines()[4 + (1 - p) % 3]


def test_resample_hidden_gives_no_hidden_card_of_a_known_absent_rank():
    e = pickup_env()
    act(e, "pick up")
    s, u = e.game_state, e.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(200):
        for seat in (0, 2):
            t = resample_hidden(u.rules, s, seat, rng)
            for r in range(13):
                if s.absent[1][r]:
                    assert t.hand_counts[1][r] == t.known[1][r]
            assert u._encode(t, seat).tobytes() == u._encode(s, seat).tobytes()


# ---------------------------------------------------------------------------- the SWAP rendering
def test_the_swap_rendering_does_not_list_a_picked_card_in_the_hand():
    deck = stacked_deck(2, 1, hands={0: ["4", "5", "6"], 1: ["7", "8", "9"]}, ups={0: ["K", "K", "3"]})
    e = new_env(2, 1, deck)
    text = e.render_view("player_0")
    assert "your hand: 4 5 6" in text and "still to choose from: 3 4 5 6 K K" in text
    act(e, "face-up 4")  # from the hand
    act(e, "face-up K")  # a dealt face-up K: it stays face up
    text = e.render_view("player_0")
    assert "your hand: 5 6" in text
    assert "your face-up picks: 4 K" in text and "still to choose from: 3 5 6 K" in text
    assert "dealt face-up 3 K K" in text  # what the table sees, unchanged
    other = e.render_view("player_1")  # P1 sees only that P0 made two picks
    assert "+1: hand 3 (known: -)  dealt face-up 3 K K  face-down ## ## ##  swap picks 2/3" in other


# -------------------------------------------------------------------- the process property
def test_reveals_names_exactly_the_actions_that_turn_up_a_card():
    u = fiddlesticks_v0.raw_env(num_players=2, dealer=1)
    rules = u.rules
    deck = stacked_deck(
        2, 1, hands={0: ["4", "5", "6"], 1: ["7", "8", "9"]}, ups={0: ["K", "K", "3"], 1: ["J", "J", "J"]}
    )
    u.reset(seed=0, options={"deck": deck})
    s = u.game_state
    pick = rules.pick_action
    assert not rules.reveals(s, pick(2), 1)  # a pick is a hidden commit
    for name in ("face-up K", "face-up K", "face-up 3", "face-up J", "face-up J"):
        act(u, name)
    # the last pick reveals P0's set (dealt K K 3 again: nothing new) and P1's own
    assert not rules.reveals(s, pick(9), 0) and not rules.reveals(s, pick(9), 1)
    t = new_env(2, 1, deck)
    for name in ("face-up 4", "face-up K", "face-up 3", "face-up J", "face-up J"):
        act(t, name)
    assert rules.reveals(t.game_state, pick(9), 1)  # P0 put its 4 face up: P1 sees it
    assert not rules.reveals(t.game_state, pick(9), 0)
    act(u, "face-up J")
    play = rules.play_action(RANK_NAMES.index("4"), 1)
    assert rules.reveals(s, play, 0) and not rules.reveals(s, play, 1)  # the draw: the drawer only
    e = blind_env()
    st = e.game_state
    assert all(e.rules.reveals(st, e.rules.blind_action(j), p) for j in range(3) for p in range(5))
    assert e.rules.revealed(st, e.rules.blind_action(1), 2) == ("blind", RANK_NAMES.index("7"))
    e = pickup_env()
    assert not any(e.rules.reveals(e.game_state, e.rules.pickup, p) for p in range(3))


class _BlindKnownRules(FiddlesticksRules):
    """Twin worlds conditioned on what a blind play turns up: in the BLIND zone the actor's
    face-down cards keep their ranks (swapped back from wherever the resample put them, by
    :func:`_blind_known_resample`), so the whole observation, not just who acts next, must match
    after a blind play."""

    def reveals(self, s, action, seat):
        return False if self.blind_base <= action < self.pickup else super().reveals(s, action, seat)


def _blind_known_resample(rules, s, seat, rng):
    """The twin worlds of :class:`_BlindKnownRules`: ``resample_hidden`` kept only where the
    actor's face-down cards keep their ranks in the BLIND zone."""
    for _ in range(200):
        t = resample_hidden(rules, s, seat, rng)
        p = s.current_player
        if not (s.phase == 1 and p >= 0 and s.hand_size[p] == 0):
            return t
        if all(a is None or GAME_RANK[a] == GAME_RANK[b] for a, b in zip(s.face_down[p], t.face_down[p])):
            return t
    return s.copy()


class _BlindKnownEnv(fiddlesticks_v0.raw_env):
    Rules = _BlindKnownRules


def test_process_property_holds_in_full_after_blind_plays_that_show_the_same_card():
    from tests.conformance.process import check_process

    env = _BlindKnownEnv(num_players=3, num_decks=1, dealer=0)
    branches = fiddlesticks_cases.RARE_BRANCHES
    report = check_process(env, range(2000, 2004), branches=branches, rng_seed=2, sampler=_blind_known_resample)
    assert report.violation is None, report.violation
    assert report.branches["blind play that fails"] and report.branches["blind play that fits"]
    assert report.branches["forced pick-up"] and report.branches["swap pick from the hand (hidden commit)"]
