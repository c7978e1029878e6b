"""Golf, rule by rule (``help(card_envs.golf_v0)``), on stacked decks."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from card_envs import golf_v0
from card_envs.cards import make_deck, parse, to_str
from card_envs.golf.rules import GolfRules, column_score, grid_score
from card_envs.scoring import rank_rewards
from tests.cases import resample_hidden

FILLER_GRID = "2c 3c 4c 5c 6c 7c"


def stacked(n: int, grids: dict[int, str], discard: str | None = None, stock: str = "", decks: int = 1,
            dealer: int | None = None) -> list[str]:
    """A full deck order that deals ``grids`` (player -> six cards for slots 0..5), then turns up
    ``discard``, then leaves ``stock`` on top of the stock (first = top); the rest follows."""
    dealer = n - 1 if dealer is None else dealer
    first = (dealer + 1) % n
    pool = Counter(make_deck(decks))
    order: list[int | None] = [None] * (6 * n)
    for p, text in grids.items():
        for slot, c in enumerate(text.split()):
            k = (p - first) % n
            order[slot * n + k] = parse(c)
            pool[parse(c)] -= 1
    tail = [parse(c) for c in ([discard] if discard else []) + stock.split()]
    for c in tail:
        pool[c] -= 1
    assert all(v >= 0 for v in pool.values()), "a card is used more often than the decks hold"
    rest = sorted(pool.elements(), key=lambda c: (c % 13 in (0, 10), c))  # low-value filler last
    for i, c in enumerate(order):
        if c is None:
            order[i] = rest.pop(0)
    return [to_str(c) for c in order + tail + rest]


def new(n=2, grids=None, discard="Kd", stock="", reset_seed=0, **options):
    options.setdefault("dealer", n - 1)
    options.setdefault("num_rounds", 1)
    env = golf_v0.raw_env(num_players=n, **options)
    decks = env.rules.config.decks
    deck = stacked(n, grids or {}, discard if options.get("turn_up_discard", True) else None, stock, decks,
                   options["dealer"])
    env.reset(seed=reset_seed, options={"deck": deck})
    return env


def do(env, *names):
    for name in names:
        env.step(env.string_to_action(name))


def flips(env, n, slots=(0, 1)):
    for _ in range(n):
        do(env, *(f"flip {s}" for s in slots))


def grid_ranks(env, p):
    return [to_str(c)[0] for c in env.game_state.grid[p]]


def legal(env):
    return [env.action_to_string(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]


# ------------------------------------------------------------------------------------ setup
def test_the_deal_is_one_card_at_a_time_clockwise_from_the_dealers_left_into_slots_0_to_5():
    env = golf_v0.raw_env(num_players=3, dealer=1, num_rounds=1)
    deck = [to_str(c) for c in make_deck(1)]
    env.reset(seed=0, options={"deck": deck})
    s = env.game_state
    # dealer 1: player 2 gets the first card, then 0, then 1, slot by slot
    assert [to_str(c) for c in s.grid[2]] == [deck[0], deck[3], deck[6], deck[9], deck[12], deck[15]]
    assert [to_str(c) for c in s.grid[0]] == [deck[1], deck[4], deck[7], deck[10], deck[13], deck[16]]
    assert to_str(s.discard[-1]) == deck[18], "the first discard is the stock's top card"
    assert to_str(s.stock[-1]) == deck[19], "the stock's top is the next card of the list"
    assert env.agent_selection == "player_2", "the dealer's left plays first"


def test_without_turn_up_discard_the_discard_pile_starts_empty():
    env = new(2, turn_up_discard=False)
    assert env.game_state.discard == []
    flips(env, 2)
    assert legal(env) == ["draw stock"]


@pytest.mark.parametrize("n, decks", [(2, 1), (4, 1), (5, 2), (8, 2), (9, 3), (12, 3)])
def test_auto_deck_count_is_one_to_four_players_two_to_eight_three_to_twelve(n, decks):
    assert len(GolfRules(num_players=n).deck()) == 52 * decks


def test_more_than_twelve_players_needs_an_explicit_num_decks():
    with pytest.raises(ValueError, match="explicit num_decks"):
        golf_v0.env(num_players=13)
    assert GolfRules(num_players=13, num_decks=2).num_players == 13


@pytest.mark.parametrize("n", [1, 0, -3])
def test_fewer_than_two_players_is_rejected(n):
    with pytest.raises(ValueError, match="num_players"):
        golf_v0.env(num_players=n)


def test_a_configuration_with_too_few_cards_is_rejected():
    with pytest.raises(ValueError, match=r"6·num_players \+ 2"):
        golf_v0.env(num_players=9, num_decks=1)


def test_each_player_flips_initial_flips_cards_blind_one_player_after_another():
    env = new(3, initial_flips=2)
    assert env.game_state.phase == 0
    order = []
    for _ in range(6):
        order.append(env.agent_selection)
        do(env, "flip 5" if env.game_state.face_up[int(env.agent_selection[-1])][0] else "flip 0")
    assert order == ["player_0", "player_0", "player_1", "player_1", "player_2", "player_2"]
    assert env.agent_selection == "player_0" and legal(env) == ["draw stock", "take discard"]
    assert all(sum(up) == 2 for up in env.game_state.face_up)


def test_with_no_initial_flips_play_starts_at_once():
    env = new(2, initial_flips=0)
    assert legal(env) == ["draw stock", "take discard"]


def test_flipping_a_pair_in_the_flip_phase_closes_the_column_at_once():
    env = new(2, grids={0: "7c 2d 3d 7h 4d 5d"})
    do(env, "flip 0", "flip 3")
    assert env.game_state.closed[0] == [True, False, False]


# ------------------------------------------------------------------------------------ turns
def test_drawing_from_the_stock_then_discarding_it_ends_the_turn():
    env = new(2, stock="9s")
    flips(env, 2)
    do(env, "draw stock")
    assert to_str(env.game_state.pending) == "9s"
    assert set(legal(env)) == {f"replace {i}" for i in range(6)} | {"discard drawn"}
    do(env, "discard drawn")
    assert to_str(env.game_state.discard[-1]) == "9s"
    assert env.agent_selection == "player_1"


def test_replacing_puts_the_old_card_face_up_on_the_discard_pile_unseen_before():
    env = new(2, grids={0: "Kc Qc 9c 8c 7c 6c"}, stock="As")
    flips(env, 2)
    do(env, "draw stock", "replace 5")  # slot 5 was face down: revealed only now
    s = env.game_state
    assert to_str(s.grid[0][5]) == "As" and s.face_up[0][5]
    assert to_str(s.discard[-1]) == "6c"


def test_a_card_taken_from_the_discard_pile_cannot_be_thrown_back():
    env = new(2, discard="Jd")
    flips(env, 2)
    do(env, "take discard")
    assert "discard drawn" not in legal(env)
    assert set(legal(env)) == {f"replace {i}" for i in range(6)}
    with pytest.raises(ValueError, match="illegal"):
        env.step(8)


def test_replacing_a_face_up_card_is_legal_while_its_column_is_open():
    env = new(2, grids={0: "Kc Qc 9c 8c 7c 6c"}, stock="As 2s")
    flips(env, 2)
    do(env, "draw stock", "replace 0")  # slot 0 was face up
    do(env, "draw stock", "discard drawn")
    do(env, "draw stock", "replace 0")  # replacing a card placed earlier
    assert to_str(env.game_state.discard[-1]) == "As"


def test_a_closed_column_cannot_be_replaced():
    env = new(2, grids={0: "7c 2d 3d 7h 4d 5d"}, stock="9s")
    do(env, "flip 0", "flip 3")
    flips(env, 1)
    do(env, "draw stock")
    assert "replace 0" not in legal(env) and "replace 3" not in legal(env)
    with pytest.raises(ValueError, match="illegal"):
        env.step(3)


def test_a_column_closes_when_a_replacement_makes_a_face_up_pair():
    env = new(2, grids={0: "7c 2d 3d 9h 4d 5d"}, stock="7s")
    do(env, "flip 0", "flip 1")
    flips(env, 1)
    do(env, "draw stock", "replace 3")
    assert env.game_state.closed[0] == [True, False, False]


def test_a_face_down_match_does_not_close_the_column():
    env = new(2, grids={0: "7c 2d 3d 7h 4d 5d"})
    do(env, "flip 0", "flip 1")  # 7c face up above a face-down 7h
    assert env.game_state.closed[0] == [False, False, False]
    flips(env, 1)
    do(env, "draw stock")
    assert "replace 3" in legal(env) and "replace 0" in legal(env)


def test_taking_the_discard_is_masked_when_every_column_is_closed():
    rules = GolfRules(num_players=2, num_rounds=1, dealer=1)
    env = new(2, grids={0: "7c 8c 9c 7h 8h 9h"})
    s = env.game_state
    s.face_up[0] = [True] * 6
    s.closed[0] = [True] * 3
    s.phase, s.current_player = 1, 0
    assert rules.legal_mask(s).tolist() == [0, 0, 0, 0, 0, 0, 1, 0, 0, 0]


# ------------------------------------------------------------------------------ final turns
def test_final_turns_everyone_else_gets_exactly_one_more_turn():
    env = new(3, grids={0: "Kc Qc Jc 9h 8d 7d"}, stock="2s 3s 4s 5s 6s 7s 8s")
    for _ in range(3):
        do(env, "flip 0", "flip 1")
    # player 0 turns up the rest by replacement: 4 turns (players 1 and 2 just discard)
    movers = []
    for slot in (2, 3, 4):
        movers.append(env.agent_selection)
        do(env, "draw stock", f"replace {slot}")
        for _ in range(2):
            movers.append(env.agent_selection)
            do(env, "draw stock", "discard drawn")
    assert env.game_state.trigger is None
    movers.append(env.agent_selection)
    do(env, "draw stock", "replace 5")  # player 0: all six face up -> trigger
    assert env.game_state.trigger == 0
    final = []
    while not env.game_state.terminated:
        final.append(env.agent_selection)
        do(env, "draw stock", "discard drawn")
    assert final == ["player_1", "player_2"], "each other player gets exactly one final turn, the trigger none"


def test_a_trigger_during_final_turns_changes_nothing():
    # player 1 also has all six face up during its final turn: the round still ends after player 2
    env = new(3, initial_flips=6, stock="2s 3s 4s 5s")
    do(env, *["flip %d" % i for i in range(6)] * 3)
    assert env.agent_selection == "player_0"
    do(env, "draw stock", "discard drawn")  # player 0 triggers (all face up since the flip phase)
    assert env.game_state.trigger == 0
    do(env, "draw stock", "discard drawn")  # player 1: all face up too, nothing further happens
    assert env.game_state.trigger == 0 and not env.game_state.terminated
    do(env, "draw stock", "discard drawn")  # player 2's final turn ends the round
    assert env.game_state.terminated


def test_without_final_turns_the_round_ends_at_the_trigger():
    env = new(3, initial_flips=6, final_turns=False)
    do(env, *["flip %d" % i for i in range(6)] * 3)
    do(env, "draw stock", "discard drawn")
    assert env.game_state.terminated


# ------------------------------------------------------------------------------ the stock
def test_the_rebuild_happens_at_the_start_of_the_turn_that_finds_the_stock_empty():
    env = new(2, initial_flips=0)
    s = env.game_state
    s.discard.extend(reversed(s.stock[1:]))
    del s.stock[1:]
    last = s.stock[0]
    earlier = Counter(s.discard)
    do(env, "draw stock", "discard drawn")  # takes the last stock card and discards it
    s = env.game_state
    assert s.discard == [last], "the top discard stays as the discard pile"
    assert Counter(s.stock) == earlier, "every other discard is shuffled into the new stock"
    assert legal(env) == ["draw stock", "take discard"]


# ---------------------------------------------------------------------------------- scoring
@pytest.mark.parametrize(
    "top, bottom, score",
    [("Jc", "Jd", 0), ("Tc", "Kd", 20), ("Qc", "Kd", 20), ("Kc", "Kd", 0), ("Tc", "Th", 0), ("Ac", "2c", 3),
     ("5c", "5d", 0), ("Jc", "Kc", 10)],
)
def test_pairing_is_by_rank_not_value(top, bottom, score):
    assert column_score(parse(top), parse(bottom)) == score


def test_the_worked_example_layout_scores_21():
    layout = [parse(c) for c in "5s Jh 9c 5d Kc 2h".split()]
    assert [column_score(layout[c], layout[c + 3]) for c in range(3)] == [0, 10, 11]
    assert grid_score(layout) == 21


def test_the_worked_example_played_out():
    # player 0 ends with 5 J 9 / 5 K 2 = 21, player 1 with A 2 3 / A 4 ... = 7
    env = new(2, num_rounds=None, target_score=100, initial_flips=6,
              grids={0: "5s Jh 9c 5d Kc 2h", 1: "Ac 2c 3d Ad 2d 4c"}, discard="Kd", stock="Qs")
    env.game_state.totals = [64, 95]
    do(env, *["flip %d" % i for i in range(6)] * 2)
    do(env, "draw stock", "discard drawn")  # player 0 triggers; player 1 has one final turn
    do(env, "draw stock", "discard drawn")
    s = env.game_state
    assert s.last_round == [21, 7]
    assert s.totals == [85, 102]
    assert s.terminated, "102 >= 100 ends the game"
    assert env.infos["player_0"] == {"score": 85, "rank": 1}
    assert env.infos["player_1"] == {"score": 102, "rank": 2}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_multi_round_totals_accumulate_and_the_deal_rotates():
    env = golf_v0.raw_env(num_players=3, num_rounds=3, dealer=0)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    dealers, round_scores, last_round = [0], [], 0
    while not env.game_state.terminated:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        s = env.game_state
        if s.round != last_round:
            last_round = s.round
            round_scores.append(list(s.last_round))
            if not s.terminated:
                dealers.append(s.dealer)
                assert env.agent_selection == f"player_{(s.dealer + 1) % 3}"
    assert dealers == [0, 1, 2]
    assert env.game_state.totals == [sum(r[p] for r in round_scores) for p in range(3)]
    assert [env.infos[a]["score"] for a in env.possible_agents] == env.game_state.totals


def test_num_rounds_plays_exactly_that_many_rounds_ignoring_the_target():
    env = golf_v0.raw_env(num_players=2, num_rounds=4, target_score=1)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not env.game_state.terminated:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert env.game_state.round == 4 and not env.game_state.truncated


def test_max_rounds_truncates_and_the_lowest_total_still_wins():
    env = golf_v0.raw_env(num_players=2, target_score=10_000, max_rounds=2)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while env.agents and not any(env.truncations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    s = env.game_state
    assert s.truncated and not s.terminated and s.round == 2
    best = int(np.argmin(s.totals))
    if s.totals[0] != s.totals[1]:
        assert env.infos[f"player_{best}"]["rank"] == 1
        assert env._cumulative_rewards[f"player_{best}"] == 1.0


def test_the_stalling_guard_scores_the_round_after_max_turns_per_round():
    env = new(2, max_turns_per_round=5, initial_flips=0)
    for _ in range(5):
        assert not env.game_state.terminated
        do(env, "draw stock", "discard drawn")
    s = env.game_state
    assert s.terminated and not s.truncated and s.turns == 5
    assert s.last_round == [grid_score(g) for g in s.grid]


def test_a_never_closed_pair_revealed_at_the_end_still_scores_zero():
    env = new(2, max_turns_per_round=1, initial_flips=0, grids={0: "7c 2d 3d 7h 4d 5d"})
    do(env, "draw stock", "discard drawn")
    assert env.game_state.last_round[0] == 0 + column_score(parse("2d"), parse("4d")) + column_score(parse("3d"), parse("5d"))


# --------------------------------------------------------------------- flip after discard
def test_flip_after_discard_must_requires_a_flip():
    env = new(2, flip_after_discard="must")
    flips(env, 2)
    do(env, "draw stock", "discard drawn")
    assert legal(env) == [f"flip {i}" for i in range(2, 6)]
    do(env, "flip 4")
    assert env.game_state.face_up[0][4] and env.agent_selection == "player_1"


def test_flip_after_discard_may_allows_no_flip():
    env = new(2, flip_after_discard="may")
    flips(env, 2)
    do(env, "draw stock", "discard drawn")
    assert "no flip" in legal(env)
    do(env, "no flip")
    assert env.agent_selection == "player_1"


def test_flip_after_discard_never_ends_the_turn_at_the_discard():
    env = new(2)
    flips(env, 2)
    do(env, "draw stock", "discard drawn")
    assert env.agent_selection == "player_1"


# ----------------------------------------------------------------------------------- rewards
def test_rank_rewards_for_four_players_and_one_winner():
    assert rank_rewards([1, 2, 2, 2]) == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3])
    assert rank_rewards([1, 2, 3, 4]) == pytest.approx([1, 1 / 3, -1 / 3, -1])
    assert rank_rewards([1, 1]) == [0.0, 0.0]


def test_score_mode_pays_each_round_against_the_table_mean():
    env = new(2, reward_mode="score", initial_flips=6, grids={0: "5s Jh 9c 5d Kc 2h", 1: "Ac 2c 3d Ad 2d 4c"})
    do(env, *["flip %d" % i for i in range(6)] * 2)
    do(env, "draw stock", "discard drawn", "draw stock", "discard drawn")
    assert env._cumulative_rewards["player_0"] == pytest.approx(-(21 - 14) / 60)
    assert env._cumulative_rewards["player_1"] == pytest.approx(-(7 - 14) / 60)


# ------------------------------------------------------------------------ hidden information
def test_the_card_drawn_from_the_stock_is_seen_only_by_the_drawer():
    env = new(2, stock="9s")
    flips(env, 2)
    do(env, "draw stock")
    me, other = env.decode(env.observe("player_0")["observation"]), env.decode(env.observe("player_1")["observation"])
    assert me.pending == 8 and me.pending_source == "stock"
    assert other.pending is None and other.pending_source == "stock"
    assert "in hand:  9" not in env.render_view("player_1") and "9 (from the stock)" in env.render_view("player_0")


def test_a_card_taken_from_the_discard_pile_is_public():
    env = new(2, discard="9s")
    flips(env, 2)
    do(env, "take discard")
    assert env.decode(env.observe("player_1")["observation"]).pending == 8


def test_a_players_own_face_down_cards_do_not_change_its_observation():
    a = new(2, grids={0: "Kc Qc 9c 8c 7c 6c"})
    b = new(2, grids={0: "Kc Qc 2h 3h 4h 5h"})
    for env in (a, b):
        flips(env, 1)
    for agent in ("player_0", "player_1"):
        oa, ob = a.observe(agent), b.observe(agent)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert a.render_view(agent) == b.render_view(agent)
    assert a.render_state() != b.render_state()


def test_the_mask_offers_every_open_slot_whatever_lies_beneath():
    env = new(2, grids={0: "7c 2d 3d 7h 4d 5d"}, stock="9s")
    flips(env, 2)
    do(env, "draw stock")
    assert set(legal(env)) == {f"replace {i}" for i in range(6)} | {"discard drawn"}


# ------------------------------------------------------------------------------ bad input
def test_an_unknown_option_is_a_value_error_naming_it_and_the_allowed_options():
    with pytest.raises(ValueError, match=r"unknown option 'colour'.*allowed options: num_players"):
        golf_v0.env(colour="red")


@pytest.mark.parametrize(
    "option, value, match",
    [("flip_after_discard", "sometimes", "flip_after_discard"), ("initial_flips", 7, "initial_flips"),
     ("dealer", 4, "dealer"), ("reward_mode", "points", "reward_mode"), ("num_decks", 0, "num_decks"),
     ("target_score", 0, "target_score"), ("final_turns", "yes", "final_turns")],
)
def test_an_out_of_range_option_is_a_value_error_naming_it(option, value, match):
    with pytest.raises(ValueError, match=match):
        golf_v0.env(num_players=2, **{option: value})


def test_a_wrong_deck_is_a_value_error_and_the_game_is_unchanged():
    env = new(2)
    before = env.render_state()
    with pytest.raises(ValueError, match="does not match"):
        env.reset(seed=1, options={"deck": ["As"] * 52})
    with pytest.raises(ValueError, match="RJ"):
        env.reset(seed=1, options={"deck": [to_str(c) for c in make_deck(1)][:-1] + ["RJ"]})
    assert env.render_state() == before


def test_an_illegal_action_is_a_value_error_and_changes_nothing():
    env = new(2)
    before = env.render_state()
    with pytest.raises(ValueError, match=r"illegal for player_0.*legal actions: 0 \(flip 0\)"):
        env.step(6)
    assert env.render_state() == before


def test_env_ends_the_game_on_an_illegal_action_with_minus_one():
    env = golf_v0.env(num_players=4, num_rounds=1)
    env.reset(seed=0)
    mover = env.agent_selection
    env.step(8)  # discard drawn in the flip phase
    assert all(env.terminations.values())
    assert env._cumulative_rewards[mover] == -1


def test_a_four_player_game_plays_to_the_end_with_an_ansi_table_per_turn():
    env = golf_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    frames = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        text = env.render()
        assert "you" in text and "stock" in text
        frames += 1
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert frames > 50


# ----------------------------------------------------------------- what a seat may know
def view_of(env, agent):
    """The decoded observation; checks that it encodes back to the same vector."""
    x = env.observe(agent)["observation"]
    v = env.decode(x)
    assert np.array_equal(env.encode_view(v), x)
    return v


def counted(v):
    """Cards a card-counting seat knows the place of, outside the grids and the hand."""
    return sum(v.discard_counts) + sum(v.stock_counts)


def run_the_stock_down(env, turns):
    for _ in range(turns):
        do(env, "draw stock", "discard drawn")


def test_a_rebuilt_stock_is_not_forgotten():
    # 2 players, no flips: 39 cards in the stock; 39 turns of draw-and-discard empty it.
    env = new(2, initial_flips=0)
    run_the_stock_down(env, 38)
    before = view_of(env, "player_1")
    assert before.stock_size == 1 and sum(before.discard_counts) == 39 and not before.stock_known
    pile = Counter(c % 13 for c in env.game_state.discard)
    do(env, "draw stock", "discard drawn")  # the last stock card; the next turn rebuilds
    s = env.game_state
    assert len(s.stock) == 39 and len(s.discard) == 1
    rebuilt = Counter(c % 13 for c in s.stock)
    for agent in env.agents:
        v = view_of(env, agent)
        assert v.stock_known
        assert counted(v) == 40, "the 39 rebuilt cards and the top discard stay counted"
        assert v.stock_counts == [rebuilt[r] for r in range(13)]
        assert Counter({r: k for r, k in enumerate(v.stock_counts) if k}) + Counter([v.discard_top]) == pile + Counter(
            [s.discard[-1] % 13]
        )
        text = env.render_view(agent)
        assert "stock rebuilt from the discards, known cards (39)" in text


def test_a_card_drawn_from_a_rebuilt_stock_stays_counted_for_the_others_until_placed():
    env = new(2, initial_flips=0)
    run_the_stock_down(env, 39)
    assert env.agent_selection == "player_1"
    do(env, "draw stock")
    s = env.game_state
    drawn = s.pending % 13
    drawer, other = view_of(env, "player_1"), view_of(env, "player_0")
    exact = [sum(1 for c in s.stock if c % 13 == r) for r in range(13)]
    assert drawer.pending == drawn and drawer.stock_counts == exact, "the drawer knows the exact rest"
    assert other.pending is None and sum(other.stock_counts) == 39, "the others: it is one of the 39"
    assert other.stock_counts == [k + (r == drawn) for r, k in enumerate(exact)]
    assert "one of its known cards" in env.render_view("player_0")
    do(env, "discard drawn")
    for agent in env.agents:
        v = view_of(env, agent)
        assert v.stock_counts == exact and v.discard_top == drawn and counted(v) == 40


def test_resample_hidden_keeps_a_rebuilt_stocks_composition():
    env = new(2, initial_flips=0)
    run_the_stock_down(env, 39)
    do(env, "draw stock")
    s = env.game_state
    rules = env.rules
    stock_pool = Counter(s.stock + [s.pending])
    face_down = Counter(c for g in s.grid for c in g)
    changed = 0
    for k in range(20):
        t = resample_hidden(rules, s, 0, np.random.default_rng(k))
        assert Counter(t.stock + [t.pending]) == stock_pool
        assert Counter(c for g in t.grid for c in g) == face_down
        changed += t.stock != s.stock or t.grid != s.grid
        u = resample_hidden(rules, s, 1, np.random.default_rng(k))  # the drawer sees its card
        assert u.pending == s.pending and Counter(u.stock) == Counter(s.stock)
    assert changed


def test_before_a_rebuild_the_stock_and_the_face_down_cards_are_one_pool():
    env = new(2, initial_flips=0)
    s = env.game_state
    pool = Counter(s.stock + [c for g in s.grid for c in g])
    t = resample_hidden(env.rules, s, 0, np.random.default_rng(0))
    assert Counter(t.stock + [c for g in t.grid for c in g]) == pool
    assert Counter(t.stock) != Counter(s.stock)
    assert not view_of(env, "player_0").stock_known and view_of(env, "player_0").stock_counts == [0] * 13


def test_2_players_seed_3_keep_their_count_across_the_rebuild():
    """2 players, seed 3, always draw and discard: 39 cards counted before the
    rebuild, only 1 after it (the top discard) until the stock's composition was kept."""
    env = golf_v0.raw_env(num_players=2, num_rounds=1)
    env.reset(seed=3)
    flips(env, 2)
    run_the_stock_down(env, 38)
    before = view_of(env, "player_0")
    do(env, "draw stock", "discard drawn")
    assert counted(before) == 39
    after = view_of(env, "player_0")
    assert counted(after) == 40 and sum(after.discard_counts) == 1 and sum(after.stock_counts) == 39


def test_the_next_deal_forgets_the_rebuilt_stock():
    env = new(2, initial_flips=0, num_rounds=2, max_turns_per_round=40)
    run_the_stock_down(env, 39)
    assert view_of(env, "player_0").stock_known
    do(env, "draw stock", "discard drawn")  # turn 40: the stalling guard scores the round
    assert env.game_state.round == 1
    for agent in env.agents:
        v = view_of(env, agent)
        assert not v.stock_known and v.stock_counts == [0] * 13


def test_an_empty_discard_pile_does_not_render_face_down():
    env = new(2, turn_up_discard=False)
    text = env.render_view("player_0")
    assert "discard pile empty" in text and "discard top ##" not in text
    assert "discard pile (0): none" in text


def test_the_face_up_value_counts_a_closed_column_as_zero():
    env = new(2, grids={0: "7c 2d 3d 7h 4d 5d"})
    do(env, "flip 0", "flip 3")  # a pair of 7s closes column 0
    assert env.game_state.closed[0][0]
    for agent in env.agents:
        text = env.render_view(agent)
        values = [ln.split("face-up value ")[1] for ln in text.splitlines() if "face-up value" in ln]
        mine = values[0] if agent == "player_0" else values[1]
        assert mine == "0", text  # not 7 + 7


def test_the_face_up_value_adds_lone_cards_and_scores_two_face_up_cards_as_a_column():
    from card_envs.golf.view import face_up_value

    assert face_up_value([6, None, 11, 6, None, 12]) == 0 + 20  # 7/7 pair, Q + K in column 2
    assert face_up_value([6, None, None, None, None, 12]) == 7 + 10
    assert face_up_value([None] * 6) == 0


def test_the_layouts_revealed_at_a_round_end_are_shown_to_every_seat():
    env = new(2, num_rounds=2, initial_flips=5, final_turns=False,
              grids={0: "Ac 2c 3c 4c 5c 6c", 1: "7d 8d 9d Td Jd Qd"})
    for agent in env.agents:
        assert view_of(env, agent).last_grids is None
    flips(env, 2, slots=(0, 1, 2, 3, 4))
    do(env, "take discard", "replace 5")  # player_0's sixth card: the round ends, all turn up
    assert env.game_state.round == 1 and not any(any(up) for up in env.game_state.face_up)
    for k, agent in enumerate(env.agents):
        v = view_of(env, agent)
        assert v.last_grids[k] == [0, 1, 2, 3, 4, 12]  # A 2 3 / 4 5 K (the 6 went to the pile)
        assert v.last_grids[1 - k] == [6, 7, 8, 9, 10, 11]
        text = env.render_view(agent)
        assert "previous round's layouts, revealed" in text
        assert "A 2 3 / 4 5 K  scored 25" in text and "7 8 9 / 10 J Q  scored 44" in text


def test_the_game_over_rendering_names_the_lowest_total():
    env = new(2, initial_flips=5, final_turns=False, grids={0: "Ac 2c 3c 4c 5c 6c", 1: "7d 8d 9d Td Jd Qd"})
    flips(env, 2, slots=(0, 1, 2, 3, 4))
    do(env, "take discard", "replace 5")
    assert env.game_state.terminated
    assert env.render_view("player_1").startswith("game over after 1 round; lowest total 25: +1")
    assert env.render_view("player_0").startswith("game over after 1 round; lowest total 25: you")


def test_reveals_says_exactly_which_steps_turn_up_a_card():
    env = new(2, initial_flips=0, discard="9s")
    rules = env.rules
    s = env.game_state
    assert rules.reveals(s, 6, 0) and not rules.reveals(s, 6, 1), "a drawn card is seen by the drawer only"
    assert not rules.reveals(s, 7, 1), "taking the discard shows nothing new"
    do(env, "draw stock")
    s = env.game_state
    assert rules.reveals(s, 8, 1) and not rules.reveals(s, 8, 0), "discarding it shows it to the others"
    assert rules.reveals(s, 0, 1), "replacing a face-down slot turns up the old card"
    do(env, "discard drawn", "take discard")  # player_1 takes the public discard
    assert rules.reveals(env.game_state, 0, 0), "its face-down slot 0 is turned up onto the pile"
    do(env, "replace 0", "take discard", "replace 0")  # player_0 likewise
    do(env, "take discard")  # player_1 again: slot 0 is face up now
    s = env.game_state
    assert not rules.reveals(s, 0, 0), "a public card replacing a face-up card reveals nothing"
    assert rules.reveals(s, 1, 0)


def test_reveals_a_round_end_that_turns_up_face_down_cards():
    env = new(2, initial_flips=5)
    flips(env, 2, slots=(0, 1, 2, 3, 4))
    do(env, "take discard", "replace 5")  # player_0 has six face up: the trigger
    do(env, "take discard")  # player_1's final turn; its slot 5 is still face down
    s = env.game_state
    assert env.rules.reveals(s, 0, 0), "replacing slot 0 ends the round, which turns up player_1's slot 5"
    t = s.copy()
    t.trigger = None  # the same step in mid-round: nothing is turned up
    assert not env.rules.reveals(t, 0, 0)
    all_up = new(2, initial_flips=6)
    flips(all_up, 1, slots=range(6))
    flips(all_up, 1, slots=range(6))
    do(all_up, "take discard", "replace 0", "take discard")
    assert not all_up.rules.reveals(all_up.game_state, 0, 0), "a round end with every card up reveals nothing"
    do(all_up, "replace 0")
    assert all_up.game_state.terminated


def known_cards(v):
    """How many cards of the round a seat knows the rank and place (or pool) of."""
    up = sum(1 for g in v.grids for r in g if r is not None)
    return up + sum(v.discard_counts) + sum(v.stock_counts) + (v.pending is not None)


@pytest.mark.parametrize("n, decks, seed", [(2, 1, 3), (5, 1, 0), (3, 1, 5)])
def test_what_a_seat_has_counted_is_never_lost_within_a_round(n, decks, seed):
    """In random games that mostly draw and discard (so the stock is rebuilt), the cards a seat
    can account for never drop within a round."""
    env = golf_v0.raw_env(num_players=n, num_decks=decks, num_rounds=1)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    last = {agent: 0 for agent in env.agents}
    rebuilds = 0
    while not env.game_state.terminated:
        for agent in env.agents:
            k = known_cards(view_of(env, agent))
            assert k >= last[agent], f"{agent} forgot {last[agent] - k} counted cards"
            last[agent] = k
        had_stock = bool(env.game_state.stock)
        legal_now = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        stall = [a for a in (6, 8) if a in legal_now and rng.random() < 0.9]  # mostly draw and discard
        env.step(stall[0] if stall else int(rng.choice(legal_now)))
        rebuilds += not had_stock and bool(env.game_state.stock)
    assert rebuilds > 0


def test_help_documents_the_new_observation_segments():
    for name in ("stock_known", "stock_counts", "last_round_grid"):
        assert name in golf_v0.__doc__
    assert "rebuilt stock" in golf_v0.__doc__
