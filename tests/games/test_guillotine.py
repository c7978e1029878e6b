"""Guillotine, rule by rule (``help(card_envs.guillotine_v0)``), on stacked decks."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import guillotine_v0
from card_envs.cards import parse, to_str
from card_envs.guillotine import rules as R
from card_envs.guillotine import view as V
from card_envs.scoring import rank_rewards
from tests.cases import guillotine as guillotine_cases
from tests.cases import resample_hidden

SEATS = ["player_0", "player_1", "player_2", "player_3"]


# ---------------------------------------------------------------------------- helpers
def stacked(hands: list[str], dealer: int) -> list[str]:
    """The deck (top first) that deals ``hands[seat]`` when ``dealer`` deals: one card at a
    time, clockwise, starting left of the dealer."""
    hs = [h.split() for h in hands]
    assert all(len(h) == 8 for h in hs)
    return [hs[(dealer + 1 + i) % 4][i // 4] for i in range(32)]


def new(hands: list[str], dealer: int = 0, **cfg):
    cfg.setdefault("mode", "single")
    e = guillotine_v0.raw_env(first_dealer=dealer, **cfg)
    e.reset(seed=0, options={"deck": stacked(hands, dealer)})
    return e


def play(e, *moves: str) -> None:
    for m in moves:
        e.step(e.string_to_action(m))


def legal(e) -> set[str]:
    return set(e.legal_action_names())


def hand(e, seat: int) -> set[str]:
    return {to_str(c) for c in e.rules.zones(e.game_state)[f"hand {seat}"]}


def names(mask: int) -> set[str]:
    return {R.card_name(i) for i in R.cards_of(mask)}


def seen_by(e, seat: int) -> V.PlayerView:
    return e.decode(e.observe(SEATS[seat])["observation"])


def to_act(e) -> int:
    return SEATS.index(e.agent_selection)


def random_deal(rules: R.GuillotineRules, rng: np.random.Generator, s=None):
    """Play on with random legal actions until the current deal (or the game) ends."""
    s = s if s is not None else rules.new_game(rng)
    deal = s.deal
    while not s.terminated and s.deal == deal:
        rules.apply(s, int(rng.choice(np.flatnonzero(rules.legal_mask(s)))))
    return s


# A worked scoring example: P0 deals and leads; tricks in play order, leader first.
WORKED_HANDS = [
    "Ac Ad Qc 7h Tc Jc 9d Kc",
    "7c Qd 7s 8h Qs Qh Kd Ts",
    "8c 8d 8s Ah As Kh Td 9s",
    "9c 7d Ks 9h Js Th Jd Jh",
]
WORKED_TRICKS = [  # (leader, cards in play order)
    (0, "Ac 7c 8c 9c"),
    (0, "Ad Qd 8d 7d"),
    (0, "Qc 7s 8s Ks"),
    (0, "7h 8h Ah 9h"),
    (2, "As Js Tc Qs"),
    (2, "Kh Th Jc Qh"),
    (2, "Td Jd 9d Kd"),
    (1, "Ts 9s Jh Kc"),
]


def play_worked_example(contract: str, **cfg):
    e = new(WORKED_HANDS, 0, contract=contract, **cfg)
    for leader, cards_ in WORKED_TRICKS:
        assert to_act(e) == leader
        play(e, *cards_.split())
    return e


# ------------------------------------------------------------------------------ setup
def test_the_deck_is_32_cards_seven_to_ace_in_four_suits():
    deck = guillotine_v0.raw_env().rules.deck()
    assert len(deck) == len(set(deck)) == 32
    assert sorted(to_str(c)[0] for c in deck) == sorted("789TJQKA" * 4)


def test_a_stacked_deck_is_dealt_one_card_at_a_time_clockwise_from_the_dealers_left():
    deck = [to_str(c) for c in guillotine_v0.raw_env().rules.deck()]
    e = guillotine_v0.raw_env(mode="single", first_dealer=1)
    e.reset(seed=0, options={"deck": deck})
    for seat in range(4):
        k = (seat - 2) % 4  # seat 2 gets the top card
        assert hand(e, seat) == set(deck[k::4])


def test_the_first_dealer_is_drawn_by_lot_from_the_seed():
    dealers = set()
    for seed in range(20):
        e = guillotine_v0.raw_env()
        e.reset(seed=seed)
        d = e.game_state.dealer
        e.reset(seed=seed)
        assert e.game_state.dealer == d
        dealers.add(d)
    assert dealers == {0, 1, 2, 3}


def test_the_dealer_sees_its_hand_before_choosing_the_contract():
    e = new(WORKED_HANDS, 2, mode="full")
    assert to_act(e) == 2 and e.game_state.phase == R.CHOOSE
    v = seen_by(e, 2)
    assert names(v.hand) == set(WORKED_HANDS[2].split())
    assert v.phase == "choose" and v.contract is None and v.dealer == 0
    assert legal(e) == {f"choose {c}" for c in R.CONTRACT_NAMES}


def test_single_mode_without_a_contract_offers_all_six_to_the_first_dealer():
    e = guillotine_v0.raw_env(mode="single", first_dealer=3)
    e.reset(seed=1)
    assert to_act(e) == 3
    assert legal(e) == {f"choose {c}" for c in R.CONTRACT_NAMES}


def test_a_fixed_contract_in_single_mode_is_applied_without_a_choice_step():
    e = new(WORKED_HANDS, 1, contract="queens")
    assert e.game_state.phase == R.TRICK and to_act(e) == 1
    v = seen_by(e, 0)
    assert R.CONTRACT_NAMES[v.contract] == "queens"
    assert v.used_contracts[1] == 1 << R.QUEENS  # relative seat 1 = seat 1, the dealer


def test_the_chosen_contract_is_announced_to_everyone():
    e = new(WORKED_HANDS, 0, mode="full")
    play(e, "choose parliament")
    for seat in range(4):
        v = seen_by(e, seat)
        assert v.contract == R.PARLIAMENT and v.phase == "trick"
        assert v.used_contracts[(0 - seat) % 4] == 1 << R.PARLIAMENT


def test_a_full_game_is_24_deals_each_dealer_using_each_contract_once_and_totals_1000():
    rules = R.GuillotineRules(first_dealer=2)
    rng = np.random.default_rng(5)
    s = rules.new_game(rng)
    dealers, chosen, forced = [], [], 0
    while not s.terminated:
        assert s.phase == R.CHOOSE
        assert s.dealer == (2 + s.deal) % 4
        dealers.append(s.dealer)
        mask = rules.legal_mask(s)
        unused = [c for c in range(6) if not s.used[s.dealer] >> c & 1]
        assert list(np.flatnonzero(mask)) == [R.CHOOSE_BASE + c for c in unused]
        if len(unused) == 1:
            forced += 1
        chosen.append((s.dealer, int(rng.choice(np.flatnonzero(mask))) - R.CHOOSE_BASE))
        rules.apply(s, R.CHOOSE_BASE + chosen[-1][1])
        random_deal(rules, rng, s)
    assert len(chosen) == 24 and forced == 4
    assert dealers == [(2 + k) % 4 for k in range(24)]
    for d in range(4):
        assert sorted(c for p, c in chosen if p == d) == list(range(6))
    assert sum(s.totals) == 1000
    assert rules.scores(s) == s.totals


def test_a_dealers_sixth_contract_is_forced_as_a_one_hot_step():
    e = guillotine_v0.raw_env(first_dealer=0)
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    while e.game_state.deal < 20:  # deal 20 is seat 0's sixth
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert e.game_state.phase == R.CHOOSE and to_act(e) == 0
    left = [c for c in range(6) if not e.game_state.used[0] >> c & 1]
    assert len(left) == 1
    mask = e.observe("player_0")["action_mask"]
    assert list(np.flatnonzero(mask)) == [R.CHOOSE_BASE + left[0]]
    for c in range(6):
        if c != left[0]:
            with pytest.raises(ValueError, match="illegal"):
                e.step(R.CHOOSE_BASE + c)
    e.step(R.CHOOSE_BASE + left[0])
    assert e.game_state.contract == left[0]


# ------------------------------------------------------------------------ trick play
TRICK_EXAMPLE_HANDS = [
    "9h 7c 8c 9c Tc Jc Qc Kc",
    "Kh Ac 7d 8d 9d Td Jd Qd",
    "As Kd Ad 7s 8s 9s Ts Js",  # no hearts
    "7h 8h Th Jh Qh Ah Qs Ks",
]


def test_the_dealer_leads_the_first_trick_with_any_card():
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    assert to_act(e) == 0
    assert legal(e) == {f"play {c}" for c in TRICK_EXAMPLE_HANDS[0].split()}


def test_a_player_holding_the_led_suit_must_follow_it():
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h")
    assert legal(e) == {"play Kh"}
    before = e.rules.zones(e.game_state)
    with pytest.raises(ValueError, match="illegal"):
        play(e, "Ac")
    assert e.rules.zones(e.game_state) == before and to_act(e) == 1
    play(e, "Kh")
    play(e, "As")
    assert legal(e) == {f"play {c}" for c in "7h 8h Th Jh Qh Ah".split()}


def test_a_player_void_in_the_led_suit_may_play_any_card():
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h", "Kh")
    assert legal(e) == {f"play {c}" for c in TRICK_EXAMPLE_HANDS[2].split()}


def test_an_off_suit_card_never_wins_the_trick_example():
    """P0 leads 9♥, P1 K♥, P2 (void) A♠, P3 7♥: P1 wins, the A♠ is off-suit."""
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h", "Kh", "As", "7h")
    assert names(e.game_state.taken[1]) == {"9h", "Kh", "As", "7h"}
    assert to_act(e) == 1  # the winner leads the next trick
    assert e.game_state.tricks_won == [0, 1, 0, 0]


def test_the_winner_takes_the_trick_and_leads_the_next():
    e = new(WORKED_HANDS, 0, contract="guillotine")
    for k, (leader, cards_) in enumerate(WORKED_TRICKS[:6]):
        assert to_act(e) == leader
        play(e, *cards_.split())
        assert to_act(e) == WORKED_TRICKS[k + 1][0]


def test_ranks_run_seven_to_ace_in_tricks_by_default():
    e = new(WORKED_HANDS, 0, contract="royalty")
    for _, cards_ in WORKED_TRICKS[:5]:
        play(e, *cards_.split())
    play(e, "Kh", "Th", "Jc", "Qh")  # K beats Q and 10
    assert to_act(e) == 2


def test_the_french_rank_order_puts_the_ten_between_king_and_ace():
    e = new(WORKED_HANDS, 0, contract="royalty", trick_rank_order="french")
    for _, cards_ in WORKED_TRICKS[:5]:
        play(e, *cards_.split())
    play(e, "Kh", "Th", "Jc", "Qh")  # 10 beats K in french order
    assert to_act(e) == 3
    assert names(e.game_state.taken[3]) == {"Kh", "Th", "Jc", "Qh"}


def test_trick_play_records_what_a_player_failed_to_follow_as_public():
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h", "Kh", "As")
    hearts = {f"{r}h" for r in "789TJQKA"}
    for seat in range(4):
        v = seen_by(e, seat)
        assert names(v.known_absent[(2 - seat) % 4]) == hearts
        assert v.known_absent[(1 - seat) % 4] == 0


# --------------------------------------------------------------------------- scoring
@pytest.mark.parametrize(
    "contract, points",
    [
        ("royalty", [40, 40, 40, 0]),
        ("parliament", [-25, -30, -25, 0]),
        ("guillotine", [95, 65, 90, 0]),
        ("spades", [5, -10, 5, 0]),
        ("queens", [10, -20, 10, 0]),
    ],
)
def test_the_worked_example_scores_as_the_scoring_table(contract, points):
    e = play_worked_example(contract)
    assert e.game_state.terminated
    assert [e.infos[a]["score"] for a in SEATS] == points


def test_spades_with_contract_suit_king_counts_only_the_king_of_spades():
    e = play_worked_example("spades", king_rule="contract_suit_king")
    assert [e.infos[a]["score"] for a in SEATS] == [5, 10, 15, 0]  # total +30


def test_guillotine_pays_five_for_winning_the_first_and_the_last_trick():
    e = play_worked_example("guillotine")
    s = e.game_state
    assert s.first_winner == 0 and s.last_winner == 1
    # P0: 12 cards 60 + K♠ 10 + 2 queens 20 + trick 1 5; P1: 8 cards 40 + 2 kings 20 + trick 8 5
    assert s.totals[:2] == [95, 65]


@pytest.mark.parametrize(
    "contract, total, cfg",
    [
        ("royalty", 120, {}),
        ("queens", 0, {}),
        ("spades", 0, {}),
        ("spades", 30, {"king_rule": "contract_suit_king"}),
        ("parliament", -80, {}),
        ("guillotine", 250, {}),
        ("guillotine", 250, {"trick_rank_order": "french"}),
        ("domino", -40, {}),
        ("domino", -40, {"ace_bonus": False}),
    ],
)
def test_each_contracts_points_add_up_to_its_total_per_deal(contract, total, cfg):
    rules = R.GuillotineRules(mode="single", contract=contract, **cfg)
    rng = np.random.default_rng(R.CONTRACT_NAMES.index(contract) + 10 * len(cfg))
    for _ in range(40):
        s = random_deal(rules, rng)
        assert s.terminated and sum(s.totals) == total
        assert s.last_deal == s.totals


def test_rank_rewards_and_infos_at_the_end_share_ties():
    e = play_worked_example("royalty")
    assert [e.infos[a]["rank"] for a in SEATS] == [2, 2, 2, 1]
    expected = rank_rewards([2, 2, 2, 1])
    assert [e._cumulative_rewards[a] for a in SEATS] == pytest.approx(expected)
    assert expected[3] == 1.0


def test_score_mode_pays_each_deal_minus_points_above_the_table_mean_over_100():
    e = play_worked_example("royalty", reward_mode="score")
    # points [40, 40, 40, 0], mean 30
    assert [e.rewards[a] for a in SEATS] == pytest.approx([-0.1, -0.1, -0.1, 0.3])
    rules = R.GuillotineRules(first_dealer=0, reward_mode="score")
    s = rules.new_game(np.random.default_rng(1))
    rng = np.random.default_rng(2)
    while not s.terminated:
        before = list(s.totals)
        shaped = rules.apply(s, int(rng.choice(np.flatnonzero(rules.legal_mask(s)))))
        pts = [a - b for a, b in zip(s.totals, before)]
        if shaped is None:
            assert pts == [0, 0, 0, 0]
        else:
            mean = sum(pts) / 4
            assert shaped == pytest.approx([-(p - mean) / 100 for p in pts])
            assert sum(shaped) == pytest.approx(0.0)


# ---------------------------------------------------------------------------- domino
# A Domino example: P0 deals and opens 8♥.
DOMINO_HANDS = [
    "8h Jh 8d Jd 9c Qc 7d Ad",
    "9h Qh 9d Qd Tc Kc 7h Ac",
    "Th 8c Ah 9s Ts Js Qs Ks",
    "8s Kh Td Kd Jc 7c 7s As",
]
DOMINO_MOVES_BEFORE_THE_ACE = ["8h", "9h", "Th", "8s", "Jh", "Qh", "8c", "Kh", "8d", "9d"]


def test_the_domino_example_step_by_step():
    e = new(DOMINO_HANDS, 0, contract="domino")
    assert to_act(e) == 0 and legal(e) == {f"play {c}" for c in DOMINO_HANDS[0].split()}  # any opening card
    play(e, "8h")
    assert e.game_state.anchor == R.EIGHT
    accepted = {"8c", "8d", "8s", "7h", "9h"}
    assert names(e.game_state.playable) == accepted
    assert legal(e) == {f"play {c}" for c in hand(e, 1) & accepted} == {"play 9h", "play 7h"}
    play(e, *DOMINO_MOVES_BEFORE_THE_ACE[1:])
    # the hearts row is 8..K, the spade row [8, 8]: P2 plays A♥ and starts a bonus
    table = names(e.game_state.table)
    assert {c for c in table if c[1] == "h"} == {"8h", "9h", "Th", "Jh", "Qh", "Kh"}
    assert {c for c in table if c[1] == "s"} == {"8s"}
    assert to_act(e) == 2
    play(e, "Ah")
    assert to_act(e) == 2 and e.game_state.phase == R.BONUS
    assert legal(e) == {"play 9s", "stop"}
    play(e, "9s")
    assert legal(e) == {"play Ts", "stop"}
    play(e, "Ts")
    assert legal(e) == {"play Js", "stop"}
    assert e.action_to_string(R.PASS_STOP) == "stop"
    play(e, "stop")  # keeps J♠, a blocking card
    assert to_act(e) == 3 and "Js" in hand(e, 2)
    play(e, "Td", "Jd", "Qd", "Js", "Kd", "9c", "Tc", "Qs", "Jc", "Qc", "Kc")
    play(e, "Ks")  # P2's last card: out first
    assert e.game_state.out == [2]
    play(e, "7c", "7d", "7h")
    assert to_act(e) == 3  # P2, out, is skipped
    play(e, "7s")
    play(e, "Ad")  # P0's last card, an Ace: out second, no bonus, the deal ends
    s = e.game_state
    assert s.out == [2, 0] and s.terminated
    assert [e.infos[a]["score"] for a in SEATS] == [-10, 0, -30, 0]
    assert hand(e, 1) == {"Ac"} and hand(e, 3) == {"As"}  # the remaining hands score nothing


# A deal anchored on the Ace: P0 opens A♣; P1's A♦ starts a bonus in which only K♦ fits, after
# which nothing does (STOP alone); P2's A♥ starts a bonus in which nothing fits; later P1 must pass.
ACE_HANDS = [
    "Ac Tc Jc Qc Kc Td Jd Qd",
    "Ad Kd 7c 8c 9c 7d 8d 9d",
    "Ah 7h 8h 9h Th 7s 8s 9s",
    "Jh Qh Kh Ts Js Qs Ks As",
]


def swapped(hands: list[str], a: str, b: str) -> list[str]:
    """``hands`` with the cards ``a`` and ``b`` exchanged between their holders."""
    out = []
    for h in hands:
        cs = h.split()
        out.append(" ".join(b if c == a else a if c == b else c for c in cs))
    return out


def what_seat_sees(e, seat: int) -> tuple:
    obs = e.observe(SEATS[seat])
    return to_act(e), e.game_state.phase, obs["observation"].tobytes(), obs["action_mask"].tobytes(), \
        e.render_view(SEATS[seat])


def test_the_opening_card_gives_no_bonus_even_if_it_is_an_ace():
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac")
    assert to_act(e) == 1 and e.game_state.phase == R.DOMINO_TURN


def test_rows_do_not_wrap_so_an_ace_anchor_grows_only_downward():
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac")
    assert names(e.game_state.playable) == {"Kc", "Ad", "Ah", "As"}
    assert seen_by(e, 2).anchor == R.ACE


def test_rows_do_not_wrap_so_a_seven_anchor_grows_only_upward():
    e = new(DOMINO_HANDS, 0, contract="domino")
    play(e, "7d")
    assert names(e.game_state.playable) == {"8d", "7c", "7h", "7s"}
    assert legal(e) == {"play 7h"}


def test_only_the_anchor_rank_starts_a_new_row():
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac")
    assert legal(e) == {"play Ad"}  # P1 holds K♦ too, but only Aces start rows
    e = new(DOMINO_HANDS, 0, contract="domino")
    play(e, "8h")
    assert "9d" in hand(e, 1) and "play 9d" not in legal(e)  # no diamond row yet: 9♦ cannot start one
    play(e, *DOMINO_MOVES_BEFORE_THE_ACE[1:7])  # ... then P2 starts the club row with 8♣
    assert "9c" in names(e.game_state.playable) and "9d" not in names(e.game_state.playable)


def test_the_ace_bonus_step_does_not_depend_on_a_hidden_card():
    """The case that once leaked: P0 opens A♣, P1 lays A♦. With K♦ P1 could lay a card in its
    bonus, with J♥ instead (swapped with P3, unseen by P0 and P2) it could not; either way it gets
    the bonus step, and P0's and P2's observations, masks and renderings are the same."""
    worlds = []
    for hands in (ACE_HANDS, swapped(ACE_HANDS, "Kd", "Jh")):
        e = new(hands, 0, contract="domino")
        play(e, "Ac", "Ad")
        assert to_act(e) == 1 and e.game_state.phase == R.BONUS
        worlds.append(e)
    assert legal(worlds[0]) == {"play Kd", "stop"} and legal(worlds[1]) == {"stop"}
    for seat in (0, 2):
        assert what_seat_sees(worlds[0], seat) == what_seat_sees(worlds[1], seat)


def test_a_bonus_does_not_end_by_itself_when_the_last_fitting_card_goes_down():
    """After K♦ nothing in P1's hand fits, yet the bonus goes on (STOP alone); in a twin world
    where P1 also holds A♠ (swapped with 7♣, unseen by P2) it could go on laying: P2 sees the
    same either way."""
    worlds = []
    for hands in (ACE_HANDS, swapped(ACE_HANDS, "7c", "As")):
        e = new(hands, 0, contract="domino")
        play(e, "Ac", "Ad", "Kd")
        assert to_act(e) == 1 and e.game_state.phase == R.BONUS
        worlds.append(e)
    assert legal(worlds[0]) == {"stop"} and legal(worlds[1]) == {"play As", "stop"}
    assert what_seat_sees(worlds[0], 2) == what_seat_sees(worlds[1], 2)
    for e in worlds:
        play(e, "stop")
        assert to_act(e) == 2 and e.game_state.phase == R.DOMINO_TURN
    assert what_seat_sees(worlds[0], 2) == what_seat_sees(worlds[1], 2)


def test_stop_is_always_legal_in_a_bonus_and_the_only_action_when_nothing_fits():
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac", "Ad")
    assert legal(e) == {"play Kd", "stop"}
    play(e, "Kd")
    assert legal(e) == {"stop"} and e.action_to_string(R.PASS_STOP) == "stop"
    play(e, "stop", "Ah")  # P2's A♥: nothing of its hand fits, still a bonus step, STOP alone
    assert to_act(e) == 2 and e.game_state.phase == R.BONUS and legal(e) == {"stop"}


def test_a_stop_says_nothing_about_the_hand():
    """No "known not to hold" inference from a STOP, with or without a fitting card."""
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac", "Ad", "Kd", "stop", "Ah", "stop")
    for seat in range(4):
        v = seen_by(e, seat)
        assert v.known_absent[(1 - seat) % 4] == 0 and v.known_absent[(2 - seat) % 4] == 0
    e = new(DOMINO_HANDS, 0, contract="domino")
    play(e, *DOMINO_MOVES_BEFORE_THE_ACE, "Ah", "9s", "stop")  # T♠ still fits: a free stop
    assert all(seen_by(e, seat).known_absent[(2 - seat) % 4] == 0 for seat in range(4))


def test_a_bonus_ends_when_the_hand_is_empty_and_the_player_is_out():
    e = new(DOMINO_HANDS, 0, contract="domino")
    play(e, *DOMINO_MOVES_BEFORE_THE_ACE, "Ah", "9s", "Ts", "Js", "Qs")
    assert to_act(e) == 2 and e.game_state.phase == R.BONUS and hand(e, 2) == {"Ks"}
    play(e, "Ks")
    assert e.game_state.out == [2] and e.game_state.phase == R.DOMINO_TURN and to_act(e) == 3


def test_without_the_ace_bonus_option_an_ace_ends_the_turn():
    e = new(ACE_HANDS, 0, contract="domino", ace_bonus=False)
    play(e, "Ac", "Ad")
    assert to_act(e) == 2 and e.game_state.phase == R.DOMINO_TURN
    assert seen_by(e, 0).known_absent[1] == 0  # nothing was learnt


def test_a_player_who_can_play_must_play():
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac")
    assert "pass" not in legal(e)
    with pytest.raises(ValueError, match="illegal"):
        play(e, "pass")


def test_a_player_with_no_legal_card_passes_and_the_pass_is_public():
    """A compulsory PASS keeps its inference: the passer holds none of the playable cards."""
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac", "Ad", "Kd", "stop", "Ah", "stop", "Kh", "Kc")
    assert to_act(e) == 1
    assert names(e.game_state.playable) == {"Qc", "Qd", "Qh", "As"}
    assert legal(e) == {"pass"}
    assert all(seen_by(e, seat).known_absent[(1 - seat) % 4] == 0 for seat in range(4))
    play(e, "pass")
    assert to_act(e) == 2
    for seat in (0, 2, 3):
        assert names(seen_by(e, seat).known_absent[(1 - seat) % 4]) == {"Qc", "Qd", "Qh", "As"}


def test_the_deal_ends_when_the_second_player_goes_out():
    rules = R.GuillotineRules(mode="single", contract="domino")
    rng = np.random.default_rng(8)
    for _ in range(30):
        s = random_deal(rules, rng)
        assert len(s.out) == 2
        assert sum(1 for h in s.hands if h == 0) == 2
        assert sorted(s.totals) == [-30, -10, 0, 0]
        assert s.totals[s.out[0]] == -30 and s.totals[s.out[1]] == -10


# ------------------------------------------------------------------------ observation
def test_the_observation_shows_the_current_trick_its_led_suit_and_the_taken_cards():
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h", "Kh", "As", "7h", "Ac", "7s")  # P1 won and leads A♣; P2 (no clubs) plays 7♠
    v = seen_by(e, 3)  # seat 3: relative seats 0..3 are seats 3, 0, 1, 2
    assert v.led_suit == 0 and v.trick_leader == 2
    assert v.trick == [None, None, R.INDEX_OF[parse("Ac")], R.INDEX_OF[parse("7s")]]
    assert names(v.taken[2]) == {"9h", "Kh", "As", "7h"} and v.taken[0] == v.taken[1] == v.taken[3] == 0
    assert v.first_trick_winner == 2
    assert v.hand_sizes == [7, 7, 6, 6]
    assert names(v.played[3]) == {"As", "7s"} and names(v.played[1]) == {"9h"}
    assert names(v.hand) == set(TRICK_EXAMPLE_HANDS[3].split()) - {"7h"}


def test_cards_a_player_cannot_see_never_change_its_observation():
    """Swap cards between the other hands mid-trick: the observer's observation, mask and
    seat rendering are byte-identical."""
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h", "Kh", "As", "7h", "Ac")  # P1 led A♣; P2 to act
    seat = 2
    before = (e.observe("player_2")["observation"].tobytes(), e.observe("player_2")["action_mask"].tobytes(),
              e.render_view("player_2"))
    s = e.game_state
    original = list(s.hands)
    a = 1 << R.cards_of(s.hands[1])[0]
    b = 1 << R.cards_of(s.hands[3])[0]
    s.hands[1] ^= a | b
    s.hands[3] ^= a | b
    e._mask = None
    after = (e.observe("player_2")["observation"].tobytes(), e.observe("player_2")["action_mask"].tobytes(),
             e.render_view("player_2"))
    assert s.hands != original and after == before
    # and a change to the observer's own hand shows
    s.hands[seat], s.hands[3] = s.hands[3], s.hands[seat]
    e._mask = None
    assert e.observe("player_2")["observation"].tobytes() != before[0]


def test_resampled_hidden_cards_respect_what_public_play_proved():
    rules = R.GuillotineRules(mode="single", contract="domino")
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(20):
        s = rules.new_game(rng)
        while not s.terminated:
            for seat in range(4):
                t = resample_hidden(rules, s, seat, rng)
                assert t.hands[seat] == s.hands[seat]
                for p in range(4):
                    assert t.hands[p].bit_count() == s.hands[p].bit_count()
                    assert t.hands[p] & t.absent[p] == 0
                    checked += p != seat and s.absent[p] != 0
            rules.apply(s, int(rng.choice(np.flatnonzero(rules.legal_mask(s)))))
    assert checked > 0


@pytest.mark.parametrize("cfg", [{"mode": "single"}, {"mode": "single", "contract": "domino"}, {}])
def test_decoding_an_observation_gives_the_players_view_and_encodes_back_exactly(cfg):
    e = guillotine_v0.raw_env(**cfg)
    rng = np.random.default_rng(6)
    e.reset(seed=6)
    for step, agent in enumerate(e.agent_iter(300)):
        obs, _, term, trunc, _ = e.last()
        for seat in range(4):
            x = e.observe(SEATS[seat])["observation"]
            v = e.decode(x)
            assert v == V.view(e.game_state, seat)
            assert np.array_equal(e.encode_view(v), x)
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


class _OldBonusRules(R.GuillotineRules):
    """The rule before the revision: the bonus ended by itself when no card of the hand fitted,
    and that was recorded as public knowledge."""

    def _domino_step(self, s, a):
        p = s.current_player
        out = super()._domino_step(s, a)
        if s.phase == R.BONUS and not s.hands[p] & s.playable:
            s.absent[p] |= s.playable
            s.phase = R.DOMINO_TURN
            return self._end_domino_turn(s, p)
        return out


class _OldBonusEnv(guillotine_v0.raw_env):
    Rules = _OldBonusRules


def test_the_process_property_catches_the_old_self_ending_bonus_and_passes_the_revised_rule():
    from tests.conformance.process import check_process

    old = check_process(_OldBonusEnv(mode="single", contract="domino"), range(4), branches=guillotine_cases.RARE_BRANCHES)
    assert old.violation is not None and "next to act" in old.violation
    new_ = check_process(guillotine_v0.raw_env(mode="single", contract="domino"), range(4),
                         branches=guillotine_cases.RARE_BRANCHES)
    assert new_.violation is None, new_.violation
    assert new_.branches["domino ace bonus entered with nothing playable"] > 0


def test_the_rules_say_no_action_reveals_a_hidden_card():
    e = new(ACE_HANDS, 0, contract="domino")
    s = e.game_state
    assert not any(e.rules.reveals(s, int(a), seat) for a in np.flatnonzero(e.rules.legal_mask(s)) for seat in range(4))


# ------------------------------------------------------------------------ rendering
def test_known_not_to_hold_never_lists_the_viewers_own_cards():
    e = new(ACE_HANDS, 0, contract="domino")
    play(e, "Ac", "Ad", "Kd", "stop", "Ah", "stop", "Kh", "Kc", "pass")  # P1 holds none of Q♣ Q♦ Q♥ A♠
    lines = e.render_view("player_3").splitlines()  # P3 holds Q♥ and A♠; P1 is its +2
    k = next(i for i, line in enumerate(lines) if line.strip().startswith("+2"))
    assert lines[k + 1].split(":")[0].strip() == "known not to hold"
    assert set(lines[k + 1].split(":")[1].split()) == {"Qc", "Qd"}
    lines = e.render_view("player_2").splitlines()  # P2 holds none of them: all four shown for P1 (+3)
    k = next(i for i, line in enumerate(lines) if line.strip().startswith("+3"))
    assert set(lines[k + 1].split(":")[1].split()) == {"Qc", "Qd", "Qh", "As"}


def test_domino_rendering_shows_the_cards_laid_and_the_places_not_tricks():
    e = new(DOMINO_HANDS, 0, contract="domino")
    play(e, *DOMINO_MOVES_BEFORE_THE_ACE, "Ah", "9s", "Ts", "Js", "Qs", "Ks")
    text = e.render_view("player_0")
    assert "tricks" not in text and "taken" not in text
    line = next(x for x in text.splitlines() if x.strip().startswith("+2"))
    assert "(out first)" in line and "laid 8c Th Ah 9s Ts Js Qs Ks" in line
    e = new(TRICK_EXAMPLE_HANDS, 0, contract="royalty")
    play(e, "9h", "Kh", "As", "7h")
    text = e.render_view("player_0")
    assert "+1  : 7 cards" in text and "taken 1 trick (won trick 1): 7h 9h Kh As" in text


def test_the_rendering_says_which_deal_of_how_many():
    e = new(WORKED_HANDS, 0, mode="full")
    assert e.render_view("player_2").startswith("deal 1 of 24,")
    rng = np.random.default_rng(1)
    while e.game_state.deal == 0:
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert e.render_view("player_2").startswith("deal 2 of 24,")
    assert seen_by(e, 2).deal == 1 and seen_by(e, 2).num_deals == 24
    e = new(WORKED_HANDS, 0, contract="queens")
    assert e.render_view("player_1").startswith("deal 1 of 1,") and seen_by(e, 1).num_deals == 1


def test_the_layout_table_is_in_the_module_docs():
    assert V.LAYOUT.table() in guillotine_v0.__doc__
    assert f"({V.LAYOUT.size},)" in guillotine_v0.__doc__


# --------------------------------------------------------------------- names, bad input
def test_action_names_follow_the_action_table():
    e = new(WORKED_HANDS, 0, mode="full")
    assert [e.action_to_string(a) for a in (0, 7, 8, 31)] == ["play 7c", "play Ac", "play 7d", "play As"]
    assert [e.action_to_string(a) for a in range(32, 38)] == [f"choose {c}" for c in R.CONTRACT_NAMES]
    assert e.action_to_string(38) == "pass"
    for text, a in [("play 10h", 19), ("PLAY KH", 22), ("Th", 19), ("choose Domino", 37), ("royalty", 32),
                    ("STOP", 38), ("pass", 38), ("play 7♠", 24)]:
        assert e.string_to_action(text) == a
    for bad in ("play 2c", "play", "choose trumps", "bid 3"):
        with pytest.raises(ValueError, match="choose royalty"):
            e.string_to_action(bad)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"mode": "double"}, "mode"),
        ({"contract": "royalty"}, "single"),
        ({"mode": "single", "contract": "trumps"}, "contract.*domino"),
        ({"first_dealer": 4}, "first_dealer"),
        ({"trick_rank_order": "pagat"}, "trick_rank_order.*french"),
        ({"king_rule": "spades"}, "king_rule.*contract_suit_king"),
        ({"ace_bonus": "yes"}, "ace_bonus"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"num_players": 3}, "exactly 4 players"),
        ({"num_players": 5}, "exactly 4 players"),
        ({"trumps": True}, "unknown option 'trumps'.*mode, contract"),
    ],
)
def test_bad_options_are_value_errors_naming_the_allowed_values(options, match):
    with pytest.raises(ValueError, match=match):
        guillotine_v0.env(**options)


def test_the_defaults_are_those_of_the_options_table():
    cfg = guillotine_v0.raw_env().rules.config
    assert (cfg.mode, cfg.contract, cfg.first_dealer, cfg.trick_rank_order, cfg.king_rule, cfg.ace_bonus,
            cfg.reward_mode) == ("full", None, "random", "seed", "every_king", True, "rank")


def test_a_deck_with_cards_guillotine_does_not_use_is_rejected():
    deck = stacked(WORKED_HANDS, 0)
    e = guillotine_v0.raw_env(mode="single")
    with pytest.raises(ValueError, match="does not use"):
        e.reset(options={"deck": ["2c"] + deck[1:]})
    with pytest.raises(ValueError, match="stacked deck has 31 cards"):
        e.reset(options={"deck": deck[1:]})


def test_an_illegal_play_changes_nothing():
    e = new(DOMINO_HANDS, 0, contract="domino")
    play(e, "8h")
    before = (e.rules.zones(e.game_state), e.observe("player_1")["observation"].tobytes(), e.agent_selection)
    for bad in ("play Qh", "pass", "choose royalty", "play 8h"):
        with pytest.raises(ValueError, match="illegal"):
            play(e, bad)
    assert (e.rules.zones(e.game_state), e.observe("player_1")["observation"].tobytes(), e.agent_selection) == before


def test_the_benchmark_configuration_plays_to_the_end_through_env():
    e = guillotine_v0.env(**guillotine_v0.BENCHMARK_CONFIG)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents
