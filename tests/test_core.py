"""The shared core: card notation, decks, rankings and rank rewards, option checks, layouts."""

import numpy as np
import pytest

import card_envs
from card_envs import cards
from card_envs.encoding import Layout
from card_envs.options import check_choice, check_int, check_seat_or_random
from card_envs.scoring import competition_ranks, rank_rewards, ranks_from_order
from tests.cases import resample_hidden


@pytest.mark.parametrize("text, rank, suit", [("As", 0, 3), ("Td", 9, 1), ("10d", 9, 1), ("7h", 6, 2), ("Kc", 12, 0),
                                              ("7♥", 6, 2), ("qS", 11, 3)])
def test_cards_are_read_in_rank_suit_notation(text, rank, suit):
    c = cards.parse(text)
    assert cards.rank_of(c) == rank and cards.suit_of(c) == suit


def test_card_names_round_trip_for_every_card_and_both_jokers():
    for c in range(cards.NUM_CARDS):
        assert cards.parse(cards.to_str(c)) == c
    assert cards.parse("RJ") == cards.RED_JOKER and cards.parse("BJ") == cards.BLACK_JOKER
    assert cards.is_joker(cards.parse("rj"))


@pytest.mark.parametrize("bad", ["1s", "Ax", "", "AsX", "JJ", 54, -1, None, 2.0])
def test_a_malformed_card_is_a_value_error_saying_what_is_accepted(bad):
    with pytest.raises(ValueError, match="card"):
        cards.parse(bad)


def test_a_joker_has_no_rank_or_suit():
    with pytest.raises(ValueError, match="joker"):
        cards.rank_of(cards.RED_JOKER)


def test_decks_hold_n_copies_with_or_without_jokers():
    assert len(cards.make_deck(1)) == 52 and len(set(cards.make_deck(1))) == 52
    two = cards.make_deck(2, jokers_per_deck=2)
    assert len(two) == 108 and two.count(cards.parse("As")) == 2 and two.count(cards.RED_JOKER) == 2
    short = cards.make_deck(1, ranks=range(6, 13))
    assert len(short) == 28
    with pytest.raises(ValueError, match="num_decks"):
        cards.make_deck(0)


def test_a_stacked_deck_must_be_exactly_the_configurations_multiset():
    deck = cards.make_deck(1)
    names = [cards.to_str(c) for c in deck]
    assert cards.check_stacked_deck(names, deck) == deck
    with pytest.raises(ValueError, match="has 51 cards, this configuration uses 52"):
        cards.check_stacked_deck(names[1:], deck)
    with pytest.raises(ValueError, match="does not use.*RJ.*missing: Ac"):
        cards.check_stacked_deck(["RJ"] + names[1:], deck)
    with pytest.raises(ValueError, match="list of cards"):
        cards.check_stacked_deck("As Kd", deck)


def test_competition_ranking_shares_the_best_rank_of_a_tie():
    assert competition_ranks([10, 20, 20, 30], lower_is_better=True) == [1, 2, 2, 4]
    assert competition_ranks([10, 20, 20, 30], lower_is_better=False) == [4, 2, 2, 1]
    assert competition_ranks([5, 5, 5], lower_is_better=True) == [1, 1, 1]
    assert ranks_from_order([[2], [0, 1], [3]], 4) == [2, 2, 1, 4]


def test_rank_rewards_are_zero_sum_from_plus_one_to_minus_one_with_ties_sharing_the_average():
    assert rank_rewards([1, 2, 3]) == pytest.approx([1, 0, -1])
    assert rank_rewards([1, 2, 2, 2]) == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3])
    assert rank_rewards([1, 1, 3, 4]) == pytest.approx([2 / 3, 2 / 3, -1 / 3, -1])
    assert rank_rewards([1, 1, 1]) == [0.0, 0.0, 0.0]
    assert rank_rewards([1]) == [0.0]
    for ranks in ([1, 2], [2, 1, 2], [1, 2, 2, 4, 5]):
        assert sum(rank_rewards(ranks)) == pytest.approx(0)


def _rank_patterns(n: int):
    """Every competition-rank pattern of n seats (from every weak order of their scores)."""
    import itertools

    seen = set()
    for values in itertools.product(range(n), repeat=n):
        ranks = tuple(competition_ranks(values, lower_is_better=True))
        if ranks not in seen:
            seen.add(ranks)
            yield list(ranks)


@pytest.mark.parametrize("n", range(1, 7))
def test_rank_rewards_are_the_exact_rationals_rounded_once(n):
    """Every rank pattern of up to 6 seats: each reward is the exact average of the places its
    tied seats occupy, rounded once; a full tie pays exactly 0.0; tied seats get identical floats;
    a pattern symmetric under reversal pays exact negations, so its rewards sum to exactly 0.0."""
    import math
    from fractions import Fraction

    for ranks in _rank_patterns(n):
        rewards = rank_rewards(ranks)
        for r, got in zip(ranks, rewards):
            tied = ranks.count(r)
            places = [Fraction(n - 1 - 2 * p, n - 1) if n > 1 else Fraction(0) for p in range(r - 1, r - 1 + tied)]
            assert got == float(sum(places) / tied), (ranks, got)
        if len(set(ranks)) == 1:
            assert rewards == [0.0] * n
        reversed_ranks = sorted(competition_ranks([-x for x in ranks], lower_is_better=True))
        if sorted(ranks) == reversed_ranks:  # symmetric under reversal: exactly zero-sum
            by_place = sorted(rewards)
            assert by_place == [-x for x in reversed(by_place)], ranks
            assert math.fsum(rewards) == 0.0, ranks


@pytest.mark.parametrize("n", range(1, 7))
def test_the_batched_engine_pays_the_same_rank_rewards_bit_for_bit(n):
    pytest.importorskip("numba")
    from card_envs.vector import add_rank_rewards

    patterns = list(_rank_patterns(n))
    ranks = np.array(patterns, dtype=np.int8)
    rewards = np.zeros(ranks.shape, dtype=np.float32)
    for g in range(len(patterns)):
        add_rank_rewards(ranks, rewards, g)
    expected = np.array([rank_rewards(p) for p in patterns], dtype=np.float64).astype(np.float32)
    assert rewards.tobytes() == expected.tobytes()


def test_a_four_player_draw_pays_exactly_zero():
    """A 4-player Collector game cut off at its round limit with every seat tied."""
    env = card_envs.collector_v0.env(num_players=4, max_rounds=1)
    for seed in range(40):
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            total[agent] += reward
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        if len({r for r in total.values()}) == 1:
            assert list(total.values()) == [0.0] * 4
            return
    pytest.fail("no 4-way tie in 40 games: the test proves nothing")


def test_option_checks_name_the_option_and_the_allowed_values():
    with pytest.raises(ValueError, match=r"'n' must be in 2..12, got 13"):
        check_int("n", 13, 2, 12)
    with pytest.raises(ValueError, match="'n' must be an int"):
        check_int("n", True, 2, 12)
    with pytest.raises(ValueError, match="'mode' must be one of 'a', 'b'"):
        check_choice("mode", "c", ("a", "b"))
    with pytest.raises(ValueError, match="seat 0..3 or 'random'"):
        check_seat_or_random("dealer", 4, 4)
    assert check_int("n", np.int64(3), 2) == 3


def test_a_layout_hands_out_named_slices_end_to_end_and_documents_itself():
    layout = Layout([("hand", 13, "own cards", 4), ("pile", (2, 3), "the pile")])
    assert layout.size == 19 and layout.slices["pile"] == slice(13, 19)
    assert layout.high[0] == 4 and layout.high[13] == 1
    x = np.arange(19, dtype=np.float32)
    assert layout.split(x)["pile"].shape == (2, 3)
    assert "| `hand` | 0–12 | 13 | own cards |" in layout.table()


# ------------------------------------------------------------------- properties (hypothesis)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=12), st.booleans())
def test_any_scores_give_competition_ranks_and_zero_sum_rank_rewards(values, lower_is_better):
    ranks = competition_ranks(values, lower_is_better)
    for v, r in zip(values, ranks):
        better = sum(1 for w in values if (w < v if lower_is_better else w > v))
        assert r == better + 1
    rewards = rank_rewards(ranks)
    assert sum(rewards) == pytest.approx(0, abs=1e-9)
    assert all(-1 - 1e-9 <= x <= 1 + 1e-9 for x in rewards)
    for (v, x), (w, y) in zip(zip(values, rewards), zip(values[1:], rewards[1:])):
        if v == w:
            assert x == pytest.approx(y)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 6), st.integers(0, 80))
def test_golf_hidden_cards_never_reach_any_seat_for_any_seed_and_moment(seed, players, steps):
    import card_envs

    env = card_envs.golf_v0.raw_env(num_players=players, num_rounds=1)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.terminations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    state = env.game_state
    for seat, agent in enumerate(env.possible_agents):
        before = (env.observe(agent)["observation"].tobytes(), env.observe(agent)["action_mask"].tobytes(),
                  env.render_view(agent))
        env.game_state = resample_hidden(env.rules, state, seat, rng)
        env._mask = None
        after = (env.observe(agent)["observation"].tobytes(), env.observe(agent)["action_mask"].tobytes(),
                 env.render_view(agent))
        env.game_state = state
        env._mask = None
        assert after == before


def test_card_envs_imports_and_plays_without_torch_or_stable_baselines3():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib'): sys.modules[m] = None\n"
        "import card_envs\n"
        "for name, module in card_envs.ENVIRONMENTS.items():\n"
        "    env = module.env(); env.reset(seed=0); env.step(int(env.observe(env.agent_selection)['action_mask'].argmax()))\n"
        "    print('played', name)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [word for name in card_envs.ENVIRONMENTS for word in ("played", name)]
    assert len(card_envs.ENVIRONMENTS) >= 6
