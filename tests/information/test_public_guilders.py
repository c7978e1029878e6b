"""Guilders: every public item of what a player may know reaches every observer's observation.

For each public row (each call; the fan and discard sizes and refans left; a matched card shown
to all; a miss shown with ``public_discards``; score piles card by card: who holds which card,
its value and its place; a joker that is scored, triggers evil or chaotic; a card the evil
penalty removes): two histories on stacked decks that differ only in that public item, and every
observer's observation must differ, both right after the event and at its next turn, three
seats at the table, so events between two of an observer's turns are covered. A control shows
the two histories look identical before the event.
"""

from __future__ import annotations

from card_envs.cards import parse, to_str
from tests.games.test_guilders import new

N = 3


def obs(env):
    return {agent: env.observe(agent)["observation"].tobytes() for agent in env.agents}


def play(front, before, event, after, **options):
    """A game on a stacked deck: the calls ``before``, then ``event``, then ``after``. Returns the
    observations before the event, right after it, and each agent's at its next turn."""
    options.setdefault("num_players", N)
    env = new(front, **options)
    for name in before:
        env.step(env.string_to_action(name))
    ahead = obs(env)
    env.step(env.string_to_action(event))
    right_after = obs(env)
    next_turn = {}
    for name in after:
        next_turn.setdefault(env.agent_selection, env.observe(env.agent_selection)["observation"].tobytes())
        env.step(env.string_to_action(name))
    for agent in env.agents:  # an agent that did not come to act again: its last observation
        next_turn.setdefault(agent, env.observe(agent)["observation"].tobytes())
    return ahead, right_after, next_turn


def assert_public(a, b, same_before=True):
    ahead_a, right_a, next_a = a
    ahead_b, right_b, next_b = b
    if same_before:
        assert ahead_a == ahead_b, "the two histories must look alike before the event"
    for agent in right_a:
        assert right_a[agent] != right_b[agent], f"{agent} does not see the event"
        assert next_a[agent] != next_b[agent], f"{agent} has lost the event by its next turn"


FOLLOW = ["card As", "card As", "card As"]  # every seat acts once more (misses on low clubs)
FILLER = "8d 9d Td Jd Qd Kd"


def test_each_call_is_public_even_when_it_misses_between_an_observers_turns():
    """P1's `suit h` or `suit s` both miss on Kc; every seat, P1 included, keeps which."""
    a = play("Qc Kc " + FILLER, ["card As"], "suit h", FOLLOW)
    b = play("Qc Kc " + FILLER, ["card As"], "suit s", FOLLOW)
    assert_public(a, b)


def test_who_missed_is_public():
    """The same call misses on the same kind of card, by P1 or by P2: who drew it is public."""
    a = play("Qc Kc Jc " + FILLER, ["card As"], "suit h", ["card As"] + FOLLOW)
    b = play("Qc Kc Jc " + FILLER, ["card As"], "card As", ["suit h"] + FOLLOW)
    ahead_a, _, next_a = a
    ahead_b, _, next_b = b
    assert ahead_a == ahead_b
    for agent in next_a:
        assert next_a[agent] != next_b[agent], agent


def test_a_matched_card_is_shown_to_all():
    """P1's `suit h` matches 7h or 8h: every seat sees which card went to P1's pile."""
    a = play("Qc 7h 8h " + FILLER, ["card As"], "suit h", FOLLOW)
    b = play("Qc 8h 7h " + FILLER, ["card As"], "suit h", FOLLOW)
    assert_public(a, b)


def test_a_miss_is_shown_to_all_with_public_discards():
    """P1 misses on Kc or on Jc (the other lies deep in the fan in both histories)."""
    a = play("Qc Kc " + FILLER, ["card As"], "suit h", FOLLOW, public_discards=True)
    b = play("Qc Jc " + FILLER, ["card As"], "suit h", FOLLOW, public_discards=True)
    assert_public(a, b)


def test_the_fan_and_discard_sizes_and_refans_left_are_public():
    """The fan's last card is Ah or Qh (the other lay face down in the discards since P1's miss
    on turn 12); the last call `card Ah` matches (50 discards refan) or misses (51 discards
    refan): every seat sees the fan's new size, the discard pile and the refans left."""
    base = [to_str(c) for c in range(52) if c not in (parse("Ah"), parse("Qh"))]
    deck_c = base[:11] + ["Qh"] + base[11:] + ["Ah"]
    deck_d = base[:11] + ["Ah"] + base[11:] + ["Qh"]
    c = play(deck_c, ["card 2d"] * 51, "card Ah", ["card 2d"] * 3, refan_discards=1)
    d = play(deck_d, ["card 2d"] * 51, "card Ah", ["card 2d"] * 3, refan_discards=1)
    assert_public(c, d, same_before=False)  # P1 saw its own miss (Qh or Ah) on turn 12
    env = new(deck_c, num_players=N, refan_discards=1)
    for _ in range(52):
        env.step(env.string_to_action("card 2d" if env.game_state.turn < 51 else "card Ah"))
    v = env.decode(env.observe("player_0")["observation"])
    assert v.refans_left == 0 and v.fan_size == 50 and v.discard_size == 0


def test_who_holds_which_scored_card_is_public():
    """P1 scores Ah and P2 Kh, or P1 Kh and P2 Ah: same scores, same table-wide cards."""
    a = play("2c Ah Kh " + FILLER, ["suit c"], "suit h", ["suit h"] + FOLLOW)
    b = play("2c Kh Ah " + FILLER, ["suit c"], "suit h", ["suit h"] + FOLLOW)
    assert_public(a, b)


def test_the_value_of_each_scored_card_is_public():
    """P1 scores Ah for 1 and later Kh for 5, or Ah for 5 and Kh for 1: same score, same cards."""
    a = play("2c Ah 3c 4c Kh " + FILLER, ["card As"], "suit h", ["card As", "card As", "card As", "rank K"] + FOLLOW)
    b = play("2c Ah 3c 4c Kh " + FILLER, ["card As"], "rank A", ["card As", "card As", "card As", "suit h"] + FOLLOW)
    ahead_a, _, next_a = a
    ahead_b, _, next_b = b
    assert ahead_a == ahead_b
    for agent in next_a:
        assert next_a[agent] != next_b[agent], agent


def test_the_order_of_a_score_pile_is_public_and_decides_what_the_evil_joker_takes():
    """P0 scores Ah then Kh (both 1 point), or Kh then Ah: the evil joker takes the most recent."""
    a = play("Ah 3c 4c Kh 5c 6c BJ " + FILLER, ["suit h", "card As", "card As"], "suit h",
             ["card As", "card As", "card As"] + FOLLOW, evil_joker=True)
    b = play("Kh 3c 4c Ah 5c 6c BJ " + FILLER, ["suit h", "card As", "card As"], "suit h",
             ["card As", "card As", "card As"] + FOLLOW, evil_joker=True)
    assert_public(a, b, same_before=False)  # the first match already differs
    env_a = new("Ah 3c 4c Kh 5c 6c BJ " + FILLER, num_players=N, evil_joker=True)
    env_b = new("Kh 3c 4c Ah 5c 6c BJ " + FILLER, num_players=N, evil_joker=True)
    for env in (env_a, env_b):
        for name in ["suit h", "card As", "card As", "suit h", "card As", "card As", "card As"]:
            env.step(env.string_to_action(name))
    assert env_a.game_state.lost == [parse("Kh")] and env_b.game_state.lost == [parse("Ah")]
    for agent in env_a.agents:
        assert env_a.decode(env_a.observe(agent)["observation"]).lost[parse("Kh")] == 1


def test_a_joker_that_triggers_evil_is_shown_to_all():
    a = play("2c BJ " + FILLER, ["card As"], "suit h", FOLLOW, evil_joker=True)
    b = play("2c RJ " + FILLER, ["card As"], "suit h", FOLLOW, evil_joker=True)
    assert_public(a, b)


def test_a_scored_joker_is_shown_to_all():
    a = play("2c BJ " + FILLER, ["card As"], "joker", FOLLOW, good_joker=True)
    b = play("2c RJ " + FILLER, ["card As"], "joker", FOLLOW, good_joker=True)
    assert_public(a, b)


def test_a_chaotic_joker_is_shown_to_all():
    a = play("2c 3c BJ " + FILLER, ["card As", "card As"], "suit h", FOLLOW, chaotic_joker=True)
    b = play("2c 3c RJ " + FILLER, ["card As", "card As"], "suit h", FOLLOW, chaotic_joker=True)
    assert_public(a, b)


def test_a_card_the_evil_penalty_removes_is_shown_to_all():
    """P1 scored Ah or Kh (suit h), then draws the evil joker: the lost card is public."""
    a = play("2c Ah 3c 4c BJ " + FILLER, ["card As", "suit h", "card As", "card As"], "card As", FOLLOW,
             evil_joker=True)
    b = play("2c Kh 3c 4c BJ " + FILLER, ["card As", "suit h", "card As", "card As"], "card As", FOLLOW,
             evil_joker=True)
    assert_public(a, b, same_before=False)  # the scored card itself was already public
