"""Hot, rule by rule (``help(card_envs.hot_v0)``), on stacked decks. The round is Collector's (the
shared engine, tested in test_collector.py); these tests pin what Hot changes: draw one and take,
the replacement draw of a contest loser, the deal score, deals to 11, single_deal, the guards."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from card_envs import hot_v0
from card_envs.set_collecting.engine import ACQUIRE, OVER
from card_envs.set_collecting.view import encode, view
from card_envs.hot.rules import HotRules, deal_points
from card_envs.hot.view import decode
from tests.cases import resample_hidden
from tests.games.test_collector import outputs, phase_round, ranks, ranks_of, seen, stacked


def new(n=2, hands=None, stock="", dealer=0, **options):
    env = hot_v0.raw_env(num_players=n, dealer=dealer, **options)
    hand_size = options.get("hand_size", 5)
    hands = hands or {0: " ".join("A23456789TJQK"[i] + "c" for i in range(hand_size))}
    env.reset(seed=0, options={"deck": stacked(n, hands, stock, dealer)})
    return env


# a worked scoring example: P0 completes; P1 then holds 9 ranks, P2 11
EXAMPLE_HANDS = {
    0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Jd",
    1: "Qh Ah Ad 2h 2d 3h 5h 7h 8h 9h Jh Kh",
    2: "As 2s 3s 4s 5s 6s 7s 8s 9s Ts 4d 6d",
}
EXAMPLE_STOCK = "Kc 3d 5d Js 7d"  # lead seat 0 draws first (dealer 2)


def example(**options):
    env = hot_v0.raw_env(num_players=3, dealer=2, hand_size=12, **options)
    env.reset(seed=0, options={"deck": stacked(3, EXAMPLE_HANDS, EXAMPLE_STOCK, 2)})
    return env


def play_example_round(env):
    # P0 plays its second J and draws one + takes P1's Q; P1 and P2 draw two
    phase_round(env, {0: "J", 1: "Q", 2: "4"}, {0: "draw one take 1", 1: "draw two", 2: "draw two"})


# the simultaneous variant: P0 and P1 complete in the same round, P2 holds 11 ranks
BOTH_HANDS = {
    0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Jd",
    1: "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Js",
    2: "Ad 2d 3d 4d 5d 6d 7d 8d 9d Td 2s 3s",
}
BOTH_STOCK = "Qc Kc Qh Kh Qd 4s"


def both(**options):
    env = hot_v0.raw_env(num_players=3, dealer=2, hand_size=12, **options)
    env.reset(seed=0, options={"deck": stacked(3, BOTH_HANDS, BOTH_STOCK, 2)})
    phase_round(env, {0: "J", 1: "J", 2: "2"}, {p: "draw two" for p in range(3)})
    return env


# ---------------------------------------------------------------------------------- the round
def test_draw_one_take_takes_the_card_and_draws_one_from_the_stock():
    env = new(2, dealer=0, hands={1: "Ac 3c 5c 4c Kc", 0: "2d 4d 6d 6h Ad"}, stock="9s 8s Qs Js")
    phase_round(env, {1: "K", 0: "6"}, {1: "draw one take 1", 0: "draw two"})
    s = env.game_state
    assert ranks_of(env, 1) == ranks("A 3 5 4 6 9"), "Bill took the 6 and drew the 9 (he leads)"
    assert ranks_of(env, 0) == ranks("2 4 6 A 8 Q"), "Chris drew the next two"
    assert s.last_drawn == [2, 1] and s.last_taker == [1, -1]
    assert [str(c) for c in (s.stock[-1] % 13,)] == ["12"], "the untaken K went to the bottom"


def test_every_hand_grows_by_one_card_a_round_while_the_stock_lasts():
    env = hot_v0.raw_env(num_players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while env.game_state.round < 4 and env.game_state.deal == 0:
        sizes = [len(h) for h in env.game_state.hands]
        for _ in range(6):
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        if env.game_state.deal == 0:
            assert [len(h) for h in env.game_state.hands] == [k + 1 for k in sizes]


def test_a_contest_loser_draws_a_replacement_card():
    for fallback, owed in (("draw", 2), ("nothing", 1)):
        env = new(3, dealer=2, contest_fallback=fallback)  # lead seat 0
        plays = {p: "A23456789TJQK"[env.game_state.hands[p][0] % 13].replace("T", "10") for p in range(3)}
        # P0 and P2 both want P1's card: clockwise from P1, P2 comes first
        phase_round(env, plays, {0: "draw one take 1", 1: "draw two", 2: "draw one take 2"})
        s = env.game_state
        assert s.last_taker == [-1, 2, -1]
        assert s.last_drawn == [owed, 2, 1], f"with {fallback!r} the loser draws {owed} in all"


def test_a_taker_whose_stock_draw_fails_still_gets_the_taken_card():
    # ranks A23 to P0, 456 to P1, 789 to P2, 10 J Q K in the stock: nobody can complete
    hands = {p: " ".join(r + s for r in "A23456789"[3 * p: 3 * p + 3] for s in "cdhs") for p in range(3)}
    env = new(3, dealer=2, hands=hands, hand_size=12, stock="Tc Td Th Ts Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks")
    for t in range(5):  # every round: 3 return, 6 are drawn: 16 -> 13 -> 10 -> 7 -> 4 -> 1
        plays = {p: "A23456789"[3 * p + t % 3] for p in range(3)}
        phase_round(env, plays, {p: "draw two" for p in range(3)})
        assert len(env.game_state.stock) == 16 - 3 * (t + 1)
    s = env.game_state
    assert s.deal == 0 and s.lead == (2 + 1 + 5) % 3 == 2
    sizes = [len(h) for h in s.hands]
    plays = {p: "A23456789TJQK"[s.hands[p][0] % 13].replace("T", "10") for p in range(3)}
    phase_round(env, plays, {p: "draw one take 1" for p in range(3)})
    s = env.game_state
    assert s.last_drawn == [0, 0, 1], "the lead seat (2) draws the last card; the others find none"
    assert [len(h) - k for h, k in zip(s.hands, sizes)] == [0, 0, 1], "each still got the card it took"


# ------------------------------------------------------------------------------- the scoring
def test_the_worked_example_the_caller_scores_each_opponents_missing_ranks():
    env = example()
    play_example_round(env)
    s = env.game_state
    assert s.winners == [0] and s.last_deal_points == [6, 0, 0], "4 missing from P1 + 2 from P2"
    assert s.deal == 1 and s.scores == [6, 0, 0], "below 11: the next deal starts"
    assert s.shown[1] == [2, 2, 2, 0, 2, 0, 1, 1, 1, 0, 1, 0, 1], "P1's hand laid down: A2357 89 J K"
    assert sum(1 for c in s.shown[1] if c) == 9 and sum(1 for c in s.shown[2] if c) == 11


def test_the_worked_example_totals_7_3_0_become_13_3_0_and_p0_wins():
    env = example()
    env.game_state.scores = [7, 3, 0]  # as if earlier deals had scored so
    play_example_round(env)
    s = env.game_state
    assert s.terminated and s.scores == [13, 3, 0]
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0, "player_2": -1.0}
    assert [env.infos[a] for a in env.possible_agents] == [
        {"score": 13, "rank": 1}, {"score": 3, "rank": 2}, {"score": 0, "rank": 3}]


def test_simultaneous_callers_each_score_against_all_others_and_a_complete_opponent_gives_0():
    env = both()
    s = env.game_state
    assert s.winners == [0, 1] and s.last_deal_points == [2, 2, 0], "0 + 2 each"


def test_equal_highest_totals_reaching_11_share_the_win():
    env = hot_v0.raw_env(num_players=3, dealer=2, hand_size=12)
    env.reset(seed=0, options={"deck": stacked(3, BOTH_HANDS, BOTH_STOCK, 2)})
    env.game_state.scores = [9, 9, 4]
    phase_round(env, {0: "J", 1: "J", 2: "2"}, {p: "draw two" for p in range(3)})
    assert env.game_state.terminated and env.game_state.scores == [11, 11, 4]
    assert env.rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}
    assert [env.infos[a]["rank"] for a in env.possible_agents] == [1, 1, 3]


def test_an_opponent_whose_hand_emptied_is_worth_13():
    assert deal_points([13, 0, 12], [0]) == [13 + 1, 0, 0]
    assert deal_points([13, 13, 11], [0, 1]) == [2, 2, 0]


def test_target_points_sets_the_winning_total():
    env = example(target_points=6)
    play_example_round(env)
    assert env.game_state.terminated and env.infos["player_0"] == {"score": 6, "rank": 1}


def test_single_deal_ends_the_episode_after_one_deal_ranked_by_its_points():
    env = example(single_deal=True)
    play_example_round(env)
    s = env.game_state
    assert s.terminated and s.phase == OVER and s.scores == [6, 0, 0]
    assert env.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_score_mode_pays_each_deal_against_the_table_mean_over_12():
    env = example(reward_mode="score")
    play_example_round(env)
    assert not env.game_state.terminated
    assert env.rewards == pytest.approx({"player_0": 4 / 12, "player_1": -2 / 12, "player_2": -2 / 12})


# ---------------------------------------------------------------------------------- the deals
def test_after_a_deal_the_hands_are_laid_down_and_the_deal_passes_clockwise():
    env = example()
    play_example_round(env)
    s = env.game_state
    assert s.dealer == 0 and s.lead == 1 and s.round == 0 and s.deal == 1
    assert all(len(h) == 12 for h in s.hands) and s.stock_unknown == len(s.stock) == 16, "a fresh shuffle"
    assert all(k == [] for k in s.known)
    v = seen(env, 1)  # from P1: relative +2 is P0
    assert v.scores == (0, 0, 6) and v.last_deal_points == (0, 0, 6) and v.dealer == 2 and v.deal == 1
    assert v.shown_hands[2] == tuple(s.shown[0]) and sum(v.shown_hands[2]) == 13
    assert v.last_played == (None, None, None) and v.stock_known == ()
    assert "hands laid down at the last scored deal" in env.render_view("player_1")


def test_a_deal_reaching_max_rounds_per_deal_is_void_and_redealt():
    env = new(2, dealer=0, max_rounds_per_deal=2)
    for _ in range(2):
        assert env.game_state.deal == 0
        for _ in range(4):
            env.step(13 if env.game_state.phase == ACQUIRE else int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    s = env.game_state
    assert s.deal == 1 and s.dealer == 1 and s.scores == [0, 0] and s.last_deal_points == [0, 0]
    assert s.shown is None, "a void deal lays nothing down"


def test_max_deals_truncates_with_zero_rewards():
    env = hot_v0.env(max_rounds_per_deal=1, max_deals=3)
    env.reset(seed=0)
    got = {}
    steps = 0
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        if term or trunc:
            got[agent] = (r, term, trunc, info)
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 3 * 4 + 2
    assert got == {a: (0.0, False, True, {"score": 0, "rank": 1}) for a in ("player_0", "player_1")}


def test_a_void_single_deal_is_a_truncation():
    env = hot_v0.raw_env(single_deal=True, max_rounds_per_deal=1)
    env.reset(seed=0)
    for _ in range(4):
        env.step(13 if env.game_state.phase == ACQUIRE else int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.game_state.truncated and not env.game_state.terminated
    assert all(i == {"score": 0, "rank": 1} for i in env.infos.values())


def test_a_game_plays_over_several_deals_to_the_target_with_random_play():
    env = hot_v0.env(num_players=3, target_points=30)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    deals = set()
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        deals.add(env.game_state.deal)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    s = env.game_state
    assert s.terminated and max(s.scores) >= 30 and len(deals) > 1


# ---------------------------------------------------------------------------- hidden cards
def test_the_hands_laid_down_are_public_and_the_rest_stays_hidden():
    env = both()
    state = env.game_state
    rng = np.random.default_rng(0)
    for seat in range(3):
        before = outputs(env, env.possible_agents[seat])
        for _ in range(5):
            other = resample_hidden(env.rules, state, seat, rng)
            assert other.shown == state.shown
            assert other.hands[seat] == state.hands[seat]
            env.game_state = other
            assert outputs(env, env.possible_agents[seat]) == before
            env.game_state = state


def test_a_pending_choice_is_invisible_to_the_other_players():
    def table(choice):
        env = new(3, dealer=0)
        for _ in range(3):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        env.step(env.string_to_action(choice))  # P1 leads
        return env

    a, b = table("draw two"), table("draw one take 2")
    for agent in ("player_0", "player_2"):
        assert outputs(a, agent) == outputs(b, agent)
    assert seen(a, 1).own_commit == 13 and seen(b, 1).own_commit == 15


def test_decoding_an_observation_and_encoding_it_again_gives_the_same_vector():
    for n in (2, 3):
        env = hot_v0.raw_env(num_players=n, target_points=4)
        env.reset(seed=n)
        rng = np.random.default_rng(n)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            for seat, a in enumerate(env.possible_agents):
                x = env.observe(a)["observation"]
                v = decode(x)
                assert np.array_equal(encode(v), x) and v == view(env.game_state, seat, "hot")
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "option, value, match",
    [
        ("num_players", 4, r"num_players.*2\.\.3"),
        ("target_points", 0, "target_points"),
        ("single_deal", 1, "single_deal.*True or False"),
        ("reward_mode", "points", "reward_mode.*'rank', 'score'"),
        ("hand_size", 13, r"hand_size.*1\.\.12"),
        ("dealer", 3, "dealer"),
        ("max_rounds_per_deal", 0, "max_rounds_per_deal"),
        ("max_deals", 0, "max_deals"),
        ("contest_fallback", "draw_two", "contest_fallback.*'draw', 'nothing'"),
        ("truncation_rule", "draw", "unknown option 'truncation_rule'.*allowed options: num_players, target_points"),
    ],
)
def test_a_bad_option_is_a_value_error_naming_it(option, value, match):
    with pytest.raises(ValueError, match=match):
        hot_v0.env(**{option: value})


def test_an_illegal_action_is_a_value_error_and_changes_nothing():
    env = new(2, dealer=0)
    for _ in range(2):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = (env.rules.zones(env.game_state), env.game_state.pending[:], env.agent_selection)
    with pytest.raises(ValueError, match=r"illegal.*13 \(draw two\), 14 \(draw one take 1\)"):
        env.step(15)
    assert (env.rules.zones(env.game_state), env.game_state.pending, env.agent_selection) == before


def test_action_names():
    rules = HotRules(num_players=3)
    assert [rules.action_to_string(None, a) for a in (0, 9, 13, 14, 15)] == [
        "play A", "play 10", "draw two", "draw one take 1", "draw one take 2"]
    assert rules.string_to_action(None, "Draw One Take 2") == 15 and rules.string_to_action(None, "take 1") == 14
    with pytest.raises(ValueError, match="draw one take 1"):
        rules.string_to_action(None, "take 3")


# ---------------------------------------------------------------------------------- parallel
def test_parallel_env_passes_pettingzoo_parallel_api_test():
    for config in ({}, {"num_players": 3, "target_points": 3, "reward_mode": "score"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parallel_api_test(hot_v0.parallel_env(**config), num_cycles=500)
            parallel_seed_test(lambda: hot_v0.parallel_env(**config), num_cycles=100)


@pytest.mark.parametrize("config", [{"num_players": 2, "target_points": 5}, {"num_players": 3, "reward_mode": "score"}])
def test_aec_and_parallel_play_the_same_game_from_the_same_seed_and_choices(config):
    for seed in range(2):
        par = hot_v0.parallel_env(**config)
        obs, _ = par.reset(seed=seed)
        rng = np.random.default_rng(seed)
        queue, par_rewards = [], dict.fromkeys(par.possible_agents, 0.0)
        while par.agents:
            acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()}
            asked = [par.possible_agents[p] for p in par.rules.phase_actors(par.game_state)]
            assert set(asked) == set(acts)
            queue += [(a, acts[a]) for a in asked]  # the order the AEC API asks them
            obs, rew, term, trunc, infos = par.step(acts)
            for a, r in rew.items():
                par_rewards[a] += r
        env = hot_v0.env(**config)
        env.reset(seed=seed)
        aec_rewards = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            o, r, term, trunc, info = env.last()
            aec_rewards[agent] += r
            if term or trunc:
                assert info == infos[agent]
                env.step(None)
                continue
            asked, action = queue.pop(0)
            assert asked == agent
            env.step(action)
        assert not queue
        assert env.rules.zones(env.game_state) == par.rules.zones(par.game_state)
        assert env.game_state.scores == par.game_state.scores
        assert aec_rewards == pytest.approx(par_rewards)


@pytest.mark.parametrize("n", [2, 3])
def test_the_documented_observation_size_and_layout_table_match_the_code(n):
    env = hot_v0.raw_env(num_players=n)
    assert env.observation_space("player_0")["observation"].shape == (710 + 61 * n + 2 * n * n,)
    assert "| `scores` |" in hot_v0.__doc__ and "| `last_deal_points` |" in hot_v0.__doc__


# ----------------------------------------------------- information, WAIT, copies, rendering
def _hot_contest(p0_choice, **options):
    env = new(3, dealer=2, **options)  # lead seat 0
    plays = {p: "A23456789TJQK"[env.game_state.hands[p][0] % 13].replace("T", "10") for p in range(3)}
    # P2 claims P1's card; P0 claims it too (clockwise from P1, P2 comes first) or draws two
    phase_round(env, plays, {0: p0_choice, 1: "draw two", 2: "draw one take 2"})
    return env


def test_a_hot_contest_loser_no_longer_looks_like_a_player_who_chose_to_draw():
    lost, drew = _hot_contest("draw one take 1"), _hot_contest("draw two")
    assert lost.game_state.hands == drew.game_state.hands and lost.game_state.last_drawn[0] == 2
    for agent in lost.possible_agents:
        assert outputs(lost, agent)[0] != outputs(drew, agent)[0], f"{agent} cannot tell a lost claim from a draw"
    assert seen(lost, 1).last_claimed == (None, 0, 0), "from P1: P2 (+1) and P0 (+2) claimed P1's card"
    text = lost.render_view("player_1")
    assert "  +2: played A (returned to the stock bottom); claimed your 6, lost the contest to +1, drew 2 instead" in text
    assert "  +1: played 7 (returned to the stock bottom); claimed your 6 and got it, drew 1" in text
    nothing = _hot_contest("draw one take 1", contest_fallback="nothing")
    assert "claimed +1's 6, lost the contest to +2, drew 1 instead" in nothing.render_view("player_0")


def test_a_live_hot_parallel_agent_always_has_a_legal_action():
    from tests.games.test_collector import test_every_live_parallel_agent_has_a_legal_action_at_every_step as check

    check(module=hot_v0, n=3, seed=85, steps=400)  # ~292 random legal steps once met an all-zero mask


def test_hot_parallel_envs_pickle_by_name():
    import copy
    import pickle

    for ctor in (hot_v0.parallel_env, hot_v0.parallel_raw_env):
        par = ctor(num_players=3)
        par.reset(seed=1)
        for clone in (pickle.loads(pickle.dumps(par)), copy.deepcopy(par)):
            assert type(clone) is type(par) and clone.aec._checked is par.checked
            assert clone.rules.zones(clone.game_state) == par.rules.zones(par.game_state)
            assert type(clone).__module__ == "card_envs.hot.env"


def test_hot_says_who_called_and_who_won():
    env = example()
    play_example_round(env)
    v = seen(env, 1)  # from P1: P0 is +2
    assert v.callers == (False, False, True) and v.first_place == (False, False, False)
    assert "last deal: +2 called Hot" in env.render_view("player_1")
    env = example(target_points=5)
    play_example_round(env)
    assert env.game_state.phase == OVER
    text = env.render_view("player_2")
    assert "last deal: +1 called Hot" in text and "game over: +1 wins on points" in text
    assert "game over: you win on points" in env.render_view("player_0")
    assert seen(env, 2).first_place == (False, True, False)


def test_a_void_hot_deal_is_said_to_be_void():
    env = new(2, dealer=0, max_rounds_per_deal=2)
    for _ in range(8):
        env.step(13 if env.game_state.phase == ACQUIRE else int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.game_state.deal == 1
    assert "last deal: void (nobody called Hot)" in env.render_view("player_0")
