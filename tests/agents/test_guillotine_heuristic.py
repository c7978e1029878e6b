"""The Guillotine heuristic (agents/heuristics/guillotine.py) on stacked decks: it ducks, sheds
penalty cards when void, wins tricks in Parliament, names a sensible contract, plays Domino to
its own cards, follows the rank-order and King options, and never plays an illegal action."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from agents.heuristics import guillotine as H
from card_envs import guillotine_v0
from card_envs.guillotine import rules as R
from tests.games.test_guillotine import SEATS, new, play, to_act

NAME = "guillotine_v0"


def heuristic_move(e, **cfg) -> str:
    """The heuristic's choice for the player to act, as an action name."""
    cfg.setdefault("mode", "single")
    agent = HeuristicAgent(seed=0)
    agent.setup(NAME, cfg)
    seat = SEATS[to_act(e)]
    return e.action_to_string(agent.act(e.observe(seat), seat, NAME))


def deal(hands: list[str], dealer: int = 0, **cfg):
    assert sorted(" ".join(hands).split()) == sorted(R.card_name(i) for i in range(32))
    return new(hands, dealer, **cfg)


# ------------------------------------------------------------------------ ducking
DUCK_HANDS = [
    "Th 7c 8c 9c 7d 8d 9d 7s",
    "7h 9h Jh Ah Tc Jc Td Jd",
    "8h Qh Kh Qc Kc Ac Qd Kd",
    "Ad 8s 9s Ts Js Qs Ks As",
]


@pytest.mark.parametrize("contract", ["royalty", "guillotine"])
def test_it_ducks_with_the_highest_card_that_still_loses(contract):
    e = deal(DUCK_HANDS, 0, contract=contract)
    play(e, "Th")
    assert heuristic_move(e, contract=contract) == "play 9h"  # not J♥/A♥ (they win); 7♥ stays a duck


@pytest.mark.parametrize("contract", ["royalty", "guillotine", "queens", "spades"])
def test_it_leads_a_low_card_of_a_short_suit(contract):
    hands = [
        "7c 8c 9c Tc Jc 7d 8h 9h",  # five clubs, a single diamond
        "Qc Kc Ac 8d 9d Td 7h Th",
        "Jd Qd Kd Ad Jh Qh Kh Ah",
        "7s 8s 9s Ts Js Qs Ks As",
    ]
    e = deal(hands, 0, contract=contract)
    assert heuristic_move(e, contract=contract) == "play 7d"


def test_a_trick_it_must_win_anyway_is_won_with_its_top_card_not_a_penalty_card():
    # P3 is last; every heart it holds beats the 9h, and it keeps the King out of its own trick
    hands = [
        "9h 7c 8c 9c 7d 8d 9d 7s",
        "7h Tc Jc Td Jd 8s 9s Ts",
        "8h Qc Kc Ac Qd Kd Js Qs",
        "Th Kh Ah Jh Qh Ad Ks As",
    ]
    e = deal(hands, 0, contract="royalty")
    play(e, "9h", "7h", "8h")
    assert heuristic_move(e, contract="royalty") == "play Ah"


@pytest.mark.parametrize("order, expected", [("seed", "play Th"), ("french", "play 9h")])
def test_ducking_follows_the_rank_order_option(order, expected):
    # K♥ is led: in the seed order the 10 is the highest heart below it, in the french order
    # (7 8 9 J Q K 10 A) the 10 would win, so the 9 ducks
    hands = [
        "Kh 7c 8c 9c 7d 8d 9d 7s",
        "Th 9h Ac Tc Jc Td Jd 8s",
        "8h 7h Jh Qc Kc Qd Kd Ad",
        "Qh Ah 9s Ts Js Qs Ks As",
    ]
    e = deal(hands, 0, contract="royalty", trick_rank_order=order)
    play(e, "Kh")
    assert heuristic_move(e, contract="royalty", trick_rank_order=order) == expected


# ------------------------------------------------------------------------- shedding
VOID_HANDS = [
    "7s 8s 9s Ts 7c 8c 7d 8d",
    "Kc 9c Tc 9d Td 7h 8h 9h",  # void in spades
    "Js Qs Jc Qc Jd Qd Th Jh",
    "Ks As Ac Kd Ad Qh Kh Ah",
]


@pytest.mark.parametrize("contract", ["royalty", "guillotine"])
def test_a_void_player_sheds_its_king(contract):
    e = deal(VOID_HANDS, 0, contract=contract)
    play(e, "7s")
    assert heuristic_move(e, contract=contract) == "play Kc"


def test_in_queens_a_void_player_sheds_a_queen_and_keeps_its_king():
    hands = [
        "7s 8s 9s Ts 7c 8c 7d 8d",
        "Kc Qd 9c Tc 9d 7h 8h 9h",  # void in spades: a Queen to shed, a King to keep
        "Js Qs Jc Qc Jd Td Th Jh",
        "Ks As Ac Kd Ad Qh Kh Ah",
    ]
    e = deal(hands, 0, contract="queens")
    play(e, "7s")
    assert heuristic_move(e, contract="queens") == "play Qd"


def test_in_spades_a_void_player_sheds_a_spade():
    hands = [
        "7c 8c 9c Tc 7d 8d 9d 7h",
        "Qs Js 8s Td Jd Qd 8h 9h",  # void in clubs
        "Jc Qc Kc Ac Kd Ad Th Jh",
        "7s 9s Ts Ks As Qh Kh Ah",
    ]
    e = deal(hands, 0, contract="spades")
    play(e, "7c")
    assert heuristic_move(e, contract="spades") == "play Qs"


@pytest.mark.parametrize("king_rule, expected", [("every_king", "play Ah"), ("contract_suit_king", "play Qh")])
def test_in_spades_a_trick_holding_a_king_is_taken_only_when_kings_count(king_rule, expected):
    hands = [
        "9h 8c 9c Tc 7d 8d 9d 7s",
        "Kh 7h Jc Td Jd 8s 9s Ts",
        "7c Qc Kc Ac Qd Kd Js Qs",  # no hearts
        "8h Ah Th Jh Qh Ad Ks As",
    ]
    # K♥ and J♠ on the trick: -10 + 5 for its taker if every King counts, +5 if only K♠ does
    e = deal(hands, 0, contract="spades", king_rule=king_rule)
    play(e, "9h", "Kh", "Js")
    assert heuristic_move(e, contract="spades", king_rule=king_rule) == expected


# ------------------------------------------------------------------------ Parliament
PARLIAMENT_HANDS = [
    "9h 7c 8c 9c 7d 8d 9d 7s",
    "Th 8h Kh Tc Jc Td Jd 8s",
    "Qc Kc Ac Qd Kd Ad Ts Js",  # no hearts
    "7h Jh Qh Ah 9s Qs Ks As",
]


def test_in_parliament_the_last_player_wins_with_its_lowest_winning_card():
    e = deal(PARLIAMENT_HANDS, 0, contract="parliament")
    play(e, "9h", "Th", "Ts")
    assert heuristic_move(e, contract="parliament") == "play Jh"


def test_in_parliament_a_player_that_cannot_win_keeps_its_high_cards():
    e = deal(PARLIAMENT_HANDS, 0, contract="parliament")
    play(e, "9h", "Th", "Ts", "Jh")  # P3 won the trick and leads
    play(e, "Ah", "7s")  # the Ace, and P0 (void) throws a card
    assert heuristic_move(e, contract="parliament") == "play 8h"  # P1 keeps K♥, now the top heart


def test_in_parliament_a_sure_winner_is_led():
    e = deal(PARLIAMENT_HANDS, 3, contract="parliament")
    assert to_act(e) == 3
    # A♥, A♠, K♠ and Q♠ cannot lose; the King first, as it takes itself (-10 more)
    assert heuristic_move(e, contract="parliament") == "play Ks"


# ------------------------------------------------------------------- contract choice
def test_a_hand_of_top_cards_chooses_parliament():
    hands = [
        "Ah Kh Qh Jh As Ks Qs Js",
        "7h 8h 9h Th 7s 8s 9s Ts",
        "7c 8c 9c Tc Jc Qc Kc Ac",
        "7d 8d 9d Td Jd Qd Kd Ad",
    ]
    for mode in ("single", "full"):
        e = deal(hands, 0, mode=mode)
        assert heuristic_move(e, mode=mode) == "choose parliament"


def test_a_hand_full_of_kings_and_queens_avoids_royalty_and_guillotine():
    hands = [
        "Kh Qh Kc Qc Kd Qd Ks Qs",
        "7h 8h 9h Th 7s 8s 9s Ts",
        "7c 8c 9c Tc Jc Ac Jh Ah",
        "7d 8d 9d Td Jd Ad Js As",
    ]
    for mode in ("single", "full"):
        e = deal(hands, 0, mode=mode)
        assert heuristic_move(e, mode=mode) not in {"choose royalty", "choose guillotine"}


def test_a_dealers_forced_sixth_contract_is_taken():
    e = guillotine_v0.raw_env(first_dealer=0)
    e.reset(seed=4)
    agent = HeuristicAgent(seed=0)
    agent.setup(NAME, {})
    rng = np.random.default_rng(0)
    while e.game_state.deal < 20:  # deal 20 is seat 0's sixth: forced
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    obs = e.observe("player_0")
    assert agent.act(obs, "player_0", NAME) == int(np.flatnonzero(obs["action_mask"])[0])


# ---------------------------------------------------------------------------- Domino
def test_domino_opening_leaves_the_fewest_foreign_cards_in_the_way():
    hands = [
        "8h 9h Th 8s 9s 8c 9c 8d",  # opening an eight or a nine: every card connects
        "7h Jh Qh Kh Ah 7s Ts Js",
        "Qs Ks As 7c Tc Jc Qc Kc",
        "Ac 7d 9d Td Jd Qd Kd Ad",
    ]
    e = deal(hands, 0, contract="domino")
    card = heuristic_move(e, contract="domino").split()[1]
    assert card[0] == "8"
    assert H.best_opening(e.game_state.hands[0])[1] == 0


def test_domino_bonus_lays_the_whole_hand_when_it_can():
    # the Domino Ace-bonus example: after P2's A♥ the bonus offers 9♠ (then 10♠, J♠)
    from tests.games.test_guillotine import DOMINO_HANDS, DOMINO_MOVES_BEFORE_THE_ACE

    e = deal(DOMINO_HANDS, 0, contract="domino")
    play(e, *DOMINO_MOVES_BEFORE_THE_ACE, "Ah")
    assert e.game_state.phase == R.BONUS and to_act(e) == 2
    moves = []
    while e.game_state.phase == R.BONUS:
        moves.append(heuristic_move(e, contract="domino"))
        play(e, moves[-1])
    # P2 holds 9s Ts Js Qs Ks and nothing else: it lays the whole run and goes out
    assert moves == ["play 9s", "play Ts", "play Js", "play Qs", "play Ks"]
    assert e.game_state.out == [2]


def test_domino_bonus_stops_rather_than_release_a_row_only_others_need():
    # P0 opens A♣ (anchor Ace); P1's A♦ starts a row and a bonus in which only K♦ is legal:
    # it would open the diamonds, all in other hands, so P1 stops and keeps the block
    hands = [
        "Ac Qc Jc Tc 9c 8c 7c Qd",
        "Ad Kd 7h 8h 9h 7s 8s 9s",
        "Kc Jd Td 9d 8d 7d Th Jh",
        "Ah Qh Kh As Ks Qs Js Ts",
    ]
    e = deal(hands, 0, contract="domino")
    play(e, "Ac")
    assert heuristic_move(e, contract="domino") == "play Ad"
    play(e, "Ad")
    assert e.game_state.phase == R.BONUS
    assert heuristic_move(e, contract="domino") == "stop"


def test_domino_bonus_stops_when_nothing_fits():
    # the revised Ace bonus: it goes on after K♦ although nothing of P1's hand fits; STOP alone
    from tests.games.test_guillotine import ACE_HANDS

    e = deal(ACE_HANDS, 0, contract="domino")
    play(e, "Ac", "Ad", "Kd")
    assert e.game_state.phase == R.BONUS and e.legal_action_names() == ["stop"]
    assert heuristic_move(e, contract="domino") == "stop"
    play(e, "stop", "Ah")  # P2's Ace: a bonus step with nothing to lay
    assert to_act(e) == 2 and heuristic_move(e, contract="domino") == "stop"


def test_domino_prefers_a_card_that_frees_its_own_next_card():
    # anchor 8 (P0 opened 8♥): P1 may start clubs (8♣, then its own 9♣ follows) or lay 9♥,
    # which frees 10♥ for others only
    hands = [
        "8h 7c Tc Jc 7d 8d 9d Td",
        "9h 8c 9c Jd Qd Kd Ad 7s",
        "7h Th Jh Qc Kc Ac 8s 9s",
        "Qh Kh Ah Ts Js Qs Ks As",
    ]
    e = deal(hands, 0, contract="domino")
    play(e, "8h")
    assert heuristic_move(e, contract="domino") == "play 8c"


# ------------------------------------------------------------------- never illegal
@pytest.mark.parametrize(
    "config, games",
    [
        ({"mode": "single"}, 300),
        ({"mode": "single", "contract": "domino", "ace_bonus": False}, 50),
        ({"mode": "single", "contract": "domino"}, 50),
        ({"mode": "single", "trick_rank_order": "french", "king_rule": "contract_suit_king"}, 50),
        ({}, 40),
        pytest.param({}, 80, marks=pytest.mark.slow),
    ],
)
def test_the_heuristic_never_plays_an_illegal_action(config, games):
    env = guillotine_v0.raw_env(**config)  # raises on an illegal action
    heuristic = HeuristicAgent(seed=1)
    heuristic.setup(NAME, config)
    rng = np.random.default_rng(0)
    full = config.get("mode", "full") == "full"
    for g in range(games):
        env.reset(seed=g)
        # single deals: four heuristics; full games: heuristics against random players
        for a in env.agent_iter(200_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            elif full and SEATS.index(a) % 2 == g % 2:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            else:
                env.step(heuristic.act(obs, a, NAME))
        assert all(env.terminations.values()) or not env.agents
