"""Hot: every public item of what a player may know reaches every observer's observation.

The public items: opponents' hand sizes; the played cards after REVEAL; takes and
contest results; the cards returned to the stock bottom and their order; how many cards each
player drew; the stock size, game scores and dealer; all hands at the end of a deal. The rows
Hot shares with Collector are checked on Hot's engine here too (three seats, so the events
between two of an observer's turns are covered); then Hot's own rows.
"""

from __future__ import annotations

from card_envs import hot_v0
from tests.games.test_collector import phase_round
from tests.games.test_hot import EXAMPLE_HANDS, EXAMPLE_STOCK, play_example_round
from tests.information.test_public_collector import HANDS3, assert_all_differ, assert_next_turns_differ, game, observations


def hot(hands=HANDS3, stock="", **options):
    return game(3, hands, stock, module=hot_v0, **options)


def test_the_played_cards_after_reveal_are_public():
    a, b = hot(), hot()
    for env, p1 in ((a, "play 7"), (b, "play 9")):
        env.step(env.string_to_action("play 2"))
        env.step(env.string_to_action(p1))
    assert observations(a)["player_2"] == observations(b)["player_2"], "control: still hidden"
    for env in (a, b):
        env.step(env.string_to_action("play A"))
    assert_all_differ(a, b, "a played card after REVEAL")
    assert_next_turns_differ(a, b, "a played card")


def _round(choices, **options):
    env = hot(**options)
    phase_round(env, {0: "2", 1: "7", 2: "A"}, choices)
    return env


def test_takes_and_contest_results_are_public():
    # P0 claims P1's 7 and loses to P2 (first clockwise from P1), or draws two: same cards drawn
    for fallback in ("draw", "nothing"):
        a = _round({0: "draw one take 1", 1: "draw two", 2: "draw one take 2"}, contest_fallback=fallback)
        b = _round({0: "draw two", 1: "draw two", 2: "draw one take 2"}, contest_fallback=fallback)
        assert a.game_state.last_taker == b.game_state.last_taker == [-1, 2, -1]
        if fallback == "draw":
            assert a.game_state.hands == b.game_state.hands
        assert_all_differ(a, b, f"a lost contest ({fallback})")
        assert_next_turns_differ(a, b, f"a lost contest ({fallback})")
    # who took: P2 takes P1's 7 or P0's 2
    a = _round({0: "draw two", 1: "draw two", 2: "draw one take 2"})
    b = _round({0: "draw two", 1: "draw two", 2: "draw one take 1"})
    assert_all_differ(a, b, "who took which card")
    assert_next_turns_differ(a, b, "who took which card")


def test_the_returned_cards_their_order_and_the_draw_counts_are_public():
    hands = {0: "2h 4h 6h 8h Jh", 1: "7s Jc 3c 5d Kd", 2: "7c Js 5h Qc Ac"}
    a, b = hot(hands), hot(hands)
    phase_round(a, {0: "2", 1: "7", 2: "J"}, dict.fromkeys(range(3), "draw two"))
    phase_round(b, {0: "2", 1: "J", 2: "7"}, dict.fromkeys(range(3), "draw two"))
    assert_all_differ(a, b, "the order of the returned cards")
    assert_next_turns_differ(a, b, "the order of the returned cards")


def _example(p1_hand: str, **options):
    hands = dict(EXAMPLE_HANDS) | {1: p1_hand}
    env = hot_v0.raw_env(num_players=3, dealer=2, hand_size=12, **options)
    from tests.games.test_collector import stacked

    env.reset(seed=0, options={"deck": stacked(3, hands, EXAMPLE_STOCK, 2)})
    play_example_round(env)
    return env


def test_game_scores_and_the_hands_laid_down_at_the_end_of_a_deal_are_public():
    # P1 holds an A or a 4 (hidden all deal): P0's call scores 6 or 5, and P1's hand is laid down
    a = _example(EXAMPLE_HANDS[1])
    b = _example(EXAMPLE_HANDS[1].replace("Ad", "4h"))
    assert a.game_state.deal == b.game_state.deal == 1, "the next deal has started"
    assert a.game_state.scores == [6, 0, 0] and b.game_state.scores == [5, 0, 0]
    assert_all_differ(a, b, "the deal's points and the hands laid down")
    assert_next_turns_differ(a, b, "the deal's points and the hands laid down")
    va = a.decode(a.observe("player_2")["observation"])
    assert va.callers == (False, True, False) and va.scores == (0, 6, 0)


def test_the_dealer_is_public():
    a, b = hot(dealer=2), hot(dealer=0)
    assert_all_differ(a, b, "the dealer")
