"""Collector: every public item of what a player may know reaches every observer's observation.

The public items: opponents' hand sizes; the played cards after REVEAL; who took
which card and the result of each contest; the cards returned to the stock bottom and their
order; the number of cards drawn from the stock; the stock size. For each, two histories on
stacked decks (or, for the sizes, two states built directly) that differ only in that public item
(and what it implies), and every observer's observation must differ: right after the event and
at the observer's next turn, at 3 or 4 seats, so events between two of an observer's turns are
covered. Controls show the two histories look the same to the others before the event.
"""

from __future__ import annotations

import numpy as np

from card_envs import collector_v0
from tests.games.test_collector import phase_round, stacked


def observations(env) -> dict[str, bytes]:
    return {agent: env.observe(agent)["observation"].tobytes() for agent in env.possible_agents}


def assert_all_differ(a, b, what: str) -> None:
    oa, ob = observations(a), observations(b)
    same = [agent for agent in oa if oa[agent] == ob[agent]]
    assert not same, f"{what} is public, but {same} cannot see it"


def at_next_turns(env) -> dict[str, bytes]:
    """Each agent's observation at its next turn (the env is stepped on a copy: first legal)."""
    import copy

    env = copy.deepcopy(env)
    out: dict[str, bytes] = {}
    for _ in range(4 * len(env.possible_agents)):
        if env.game_state.phase == 2:
            break
        agent = env.agent_selection
        out.setdefault(agent, env.observe(agent)["observation"].tobytes())
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    return out


def assert_next_turns_differ(a, b, what: str) -> None:
    na, nb = at_next_turns(a), at_next_turns(b)
    assert set(na) == set(nb) == set(a.possible_agents)
    same = [agent for agent in na if na[agent] == nb[agent]]
    assert not same, f"{what}: {same} no longer see it at their next turn"


def game(n, hands, stock="", dealer=None, module=collector_v0, **options):
    dealer = n - 1 if dealer is None else dealer  # lead seat 0
    env = module.raw_env(num_players=n, dealer=dealer, **options)
    env.reset(seed=0, options={"deck": stacked(n, hands, stock, dealer)})
    return env


HANDS3 = {0: "2h 4h 6h 8h Jh", 1: "7s 9s 3c 5d Kd", 2: "Ac 3h 5h Qc Js"}


def test_the_played_cards_after_reveal_are_public():
    a, b = game(3, HANDS3), game(3, HANDS3)
    a.step(a.string_to_action("play 2"))
    b.step(b.string_to_action("play 2"))
    a.step(a.string_to_action("play 7"))  # P1: a 7 in one history, a 9 in the other
    b.step(b.string_to_action("play 9"))
    assert observations(a)["player_0"] == observations(b)["player_0"], "control: still hidden"
    assert observations(a)["player_2"] == observations(b)["player_2"], "control: still hidden"
    for env in (a, b):
        env.step(env.string_to_action("play A"))  # P2 closes PLAY: the reveal
    assert_all_differ(a, b, "a played card after REVEAL")
    assert_next_turns_differ(a, b, "a played card")


def _takes(choices, hands=HANDS3, n=3, **options):
    env = game(n, hands, **options)
    phase_round(env, {0: "2", 1: "7", 2: "A"}, choices)
    return env


def test_who_took_which_card_is_public():
    # P2 takes P1's 7 (take 2) or P0's 2 (take 1); P0 and P1 draw two in both
    a = _takes({0: "draw two", 1: "draw two", 2: "take 2"})
    b = _takes({0: "draw two", 1: "draw two", 2: "take 1"})
    assert a.game_state.last_taker == [-1, 2, -1] and b.game_state.last_taker == [2, -1, -1]
    assert_all_differ(a, b, "who took which card")
    assert_next_turns_differ(a, b, "who took which card")


def test_who_took_a_card_is_public_between_the_observers_turns():
    # the same card (P1's 7) goes to P2 or to P0; the third player P1 was not involved
    a = _takes({0: "draw two", 1: "draw two", 2: "take 2"})
    b = _takes({0: "take 1", 1: "draw two", 2: "draw two"})
    assert_all_differ(a, b, "who took P1's card")
    assert_next_turns_differ(a, b, "who took P1's card")


HANDS4 = {1: "As 3c 5d 9h Kd", 3: "2s 4c 6d Th Qd", 0: "2h 4h 6h 8h Jh", 2: "3h 5h 7h 9s Js"}


def _contest(p0_choice, **options):
    env = game(4, HANDS4, **options)  # lead seat 0
    phase_round(env, {0: "2", 1: "A", 2: "3", 3: "2"}, {0: p0_choice, 1: "draw two", 2: "draw two", 3: "take 2"})
    return env


def test_the_result_of_each_contest_is_public():
    # P0 claims P1's ace and loses to P3 (drawing two instead), or simply draws two: the cards
    # end up in the same places; only the claim and its outcome differ
    for fallback in ("draw_two", "nothing"):
        a, b = _contest("take 1", contest_fallback=fallback), _contest("draw two", contest_fallback=fallback)
        if fallback == "draw_two":
            assert a.game_state.hands == b.game_state.hands
        assert_all_differ(a, b, f"a lost contest ({fallback})")
        assert_next_turns_differ(a, b, f"a lost contest ({fallback})")


def test_the_returned_cards_and_their_order_are_public():
    # nobody takes: P1's and P2's cards go to the bottom in seat order from the lead (0, 1, 2);
    # P1 and P2 play the other's rank of the pair 7 / J in the second history (both hold both)
    hands = {0: "2h 4h 6h 8h Jh", 1: "7s Jc 3c 5d Kd", 2: "7c Js 5h Qc Ac"}
    a, b = game(3, hands), game(3, hands)
    phase_round(a, {0: "2", 1: "7", 2: "J"}, dict.fromkeys(range(3), "draw two"))
    phase_round(b, {0: "2", 1: "J", 2: "7"}, dict.fromkeys(range(3), "draw two"))
    ka = a.decode(a.observe("player_0")["observation"]).stock_known
    kb = b.decode(b.observe("player_0")["observation"]).stock_known
    assert ka == (1, 6, 10) and kb == (1, 10, 6), "the seen bottom, top to bottom, in return order"
    assert_all_differ(a, b, "the order of the returned cards")
    assert_next_turns_differ(a, b, "the order of the returned cards")


def test_the_number_of_cards_drawn_and_the_stock_size_are_public():
    # contest_fallback="nothing": P0 loses a contest and draws nothing, or draws two
    a = _contest("take 1", contest_fallback="nothing")
    b = _contest("draw two", contest_fallback="nothing")
    assert a.game_state.last_drawn[0] == 0 and b.game_state.last_drawn[0] == 2
    assert len(a.game_state.stock) != len(b.game_state.stock)
    assert_all_differ(a, b, "the number drawn, the stock size")


def test_opponents_hand_sizes_are_public():
    # two states that differ only in where one never-seen card lies: P1's hand or P2's
    a = game(3, HANDS3)
    b = game(3, HANDS3)
    s = b.game_state
    card = s.hands[1].pop()
    s.hands[2].append(card)
    s.counts = [[sum(1 for c in h if c % 13 == r) for r in range(13)] for h in s.hands]
    diff = observations(a)["player_0"] != observations(b)["player_0"]
    assert diff, "P0 cannot see that P1 holds one card fewer and P2 one more"
    assert_all_differ(a, b, "the hand sizes")


def test_cards_taken_face_up_stay_known_in_the_takers_hand():
    # P2 takes P1's 7 or P1's... (a different rank): every observer keeps knowing which rank
    a = _takes({0: "draw two", 1: "draw two", 2: "take 2"})
    hands_b = {0: "2h 4h 6h 8h Jh", 1: "9s 7s 3c 5d Kd", 2: "Ac 3h 5h Qc Js"}
    b = game(3, hands_b)
    phase_round(b, {0: "2", 1: "9", 2: "A"}, {0: "draw two", 1: "draw two", 2: "take 2"})
    for env, rank in ((a, 6), (b, 8)):
        assert env.decode(env.observe("player_0")["observation"]).known_cards[2][rank] == 1
    assert_all_differ(a, b, "the rank taken face up")
    assert_next_turns_differ(a, b, "the rank taken face up")
