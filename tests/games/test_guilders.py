"""The Game of Guilders, rule by rule (``help(card_envs.guilders_v0)``), on stacked decks."""

from __future__ import annotations

import time
import warnings
from collections import Counter

import numpy as np
import pytest

from card_envs import guilders_v0
from card_envs.cards import make_deck, parse, parse_many, to_str
from card_envs.guilders.rules import (
    ACTION_NAMES,
    CARD_BASE,
    JOKER_CALL,
    NUM_ACTIONS,
    RANK_BASE,
    REFANNED,
    RESHUFFLED,
    GuildersRules,
)
from card_envs.guilders.view import Codec, layout, view
from card_envs.scoring import rank_rewards
from tests.cases import resample_hidden


# ------------------------------------------------------------------------------ helpers
def stacked(rules: GuildersRules, front: str | list[str]) -> list[str]:
    """A full deck order for ``rules`` whose first draws are ``front`` (first drawn first); the
    rest of the cards in use follow in card order (Ac 2c ... Ks BJ RJ)."""
    front = parse_many(front)
    rest = Counter(rules.deck())
    rest.subtract(front)
    assert all(v >= 0 for v in rest.values()), "a card is used more often than the decks hold"
    return [to_str(c) for c in front + sorted(rest.elements())]


def new(front="", seed=0, **options):
    env = guilders_v0.raw_env(**options)
    env.reset(seed=seed, options={"deck": stacked(env.rules, front)})
    return env


def call(env, *names):
    for name in names:
        env.step(env.string_to_action(name))


def seen_by(env, agent):
    """The PlayerView ``agent``'s observation encodes."""
    return env.decode(env.observe(agent)["observation"])


def scores(env):
    return env.rules.scores(env.game_state)


def miss_for(card: str) -> str:
    """An exact call that certainly misses ``card``."""
    c = parse(card)
    return f"card {to_str((c + 1) % 52 if c < 52 else 0)}"


def seat_outputs(env, agent):
    env._mask = None
    obs = env.observe(agent)
    return (obs["observation"].tobytes(), obs["action_mask"].tobytes(), env.render_view(agent), repr(env.infos[agent]))


def counts(card_list) -> np.ndarray:
    out = np.zeros(54, dtype=np.int64)
    for c in parse_many(card_list):
        out[c] += 1
    return out


# ------------------------------------------------------------------------------- setup
def test_every_card_in_use_starts_face_down_in_the_fan_with_empty_discard_and_score_piles():
    env = guilders_v0.raw_env(num_players=3, evil_joker=True)
    env.reset(seed=3)
    z = env.rules.zones(env.game_state)
    assert Counter(z["fan"]) == Counter(env.rules.deck())
    assert len(z["fan"]) == 54
    assert all(not cards for name, cards in z.items() if name != "fan")
    v = seen_by(env, "player_1")
    assert v.fan_size == 54 and v.discard_size == 0 and v.scored.sum() == 0
    assert v.unseen.tolist() == env.rules.deck_counts.tolist(), "nobody knows any card of the fan"


def test_the_cards_are_num_decks_decks_plus_jokers_per_deck_jokers_only_when_a_joker_variant_is_on():
    assert Counter(GuildersRules().deck()) == Counter(make_deck(1))
    assert Counter(GuildersRules(num_decks=3).deck()) == Counter(make_deck(3))
    assert Counter(GuildersRules(jokers_per_deck=5).deck()) == Counter(make_deck(1)), "no variant, no jokers"
    for variant in ("evil_joker", "good_joker", "chaotic_joker"):
        deck = GuildersRules(**{variant: True}).deck()
        assert Counter(deck) == Counter(make_deck(1, 2)) and len(deck) == 54
    deck = GuildersRules(num_decks=2, good_joker=True, jokers_per_deck=3).deck()
    assert len(deck) == 2 * 52 + 6 and deck.count(parse("BJ")) + deck.count(parse("RJ")) == 6


def test_start_player_calls_first_and_turns_go_in_increasing_seat_order_cyclically():
    env = new(num_players=3, start_player=2)
    order = []
    for _ in range(5):
        order.append(env.agent_selection)
        call(env, "suit c")
    assert order == ["player_2", "player_0", "player_1", "player_2", "player_0"]
    starts = set()
    for seed in range(20):
        env = guilders_v0.raw_env(num_players=4, start_player="random")
        env.reset(seed=seed)
        starts.add(env.agent_selection)
    assert len(starts) > 1, "start_player='random' draws the first caller from the seed"


def test_a_stacked_deck_is_drawn_in_list_order():
    env = new("9h 2c Ks", num_players=2)
    call(env, "suit s", "suit s", "suit s")  # 9h miss, 2c miss, Ks match
    assert [to_str(c) for c in env.game_state.discards] == ["9h", "2c"]
    assert [to_str(c) for c, _ in env.game_state.piles[0]] == ["Ks"]


# -------------------------------------------------------------------------- resolve
def test_a_suit_call_matches_any_card_of_that_suit_for_1_point():
    env = new("7h 2c", num_players=2)
    call(env, "suit h", "suit h")
    assert scores(env) == [1, 0]
    assert env.game_state.piles[0] == [(parse("7h"), 1)]
    assert [to_str(c) for c in env.game_state.discards] == ["2c"]


def test_a_rank_call_matches_any_card_of_that_rank_for_5_points():
    env = new("Qc Jc", num_players=2)
    call(env, "rank Q", "rank Q")
    assert scores(env) == [5, 0]


def test_an_exact_call_matches_only_that_card_for_10_points():
    env = new("Ks", num_players=2)
    call(env, "card Ks")
    assert scores(env) == [10, 0]
    assert env.game_state.piles[0] == [(parse("Ks"), 10)]


def test_a_partial_match_of_an_exact_call_is_a_miss():
    env = new("Kd Qs", num_players=2)
    call(env, "card Ks")  # right rank only
    call(env, "card Ks")  # right suit only
    assert scores(env) == [0, 0]
    assert [to_str(c) for c in env.game_state.discards] == ["Kd", "Qs"]
    assert seen_by(env, "player_1").last_events == ("missed",)


def test_the_call_values_belong_to_the_call_type_not_the_card():
    env = new("Ah As Ac", num_players=3)
    call(env, "suit h", "rank A", "card Ac")
    assert scores(env) == [1, 5, 10]
    assert env.game_state.stats[:, 1:].tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]


def test_a_joker_call_never_matches_an_ordinary_card():
    env = new("Ac", num_players=2, good_joker=True)
    call(env, "joker")
    assert scores(env) == [0, 0]
    assert [to_str(c) for c in env.game_state.discards] == ["Ac"]


def test_a_match_is_shown_to_everyone_and_goes_to_the_callers_score_pile():
    env = new("7h", num_players=3)
    call(env, "suit h")  # 1-point matches are kept face down but shown first (public)
    for agent in env.possible_agents:
        v = seen_by(env, agent)
        assert v.last_card == parse("7h") and v.last_events == ("matched",) and v.last_gain == 1
        assert v.scored.tolist() == counts(["7h"]).tolist()
        assert v.unseen[parse("7h")] == 0


def test_a_miss_goes_to_the_discard_pile_face_down_seen_only_by_the_drawer():
    env = new("Kd", num_players=3)
    call(env, "card Ks")
    drawer = seen_by(env, "player_0")
    assert drawer.last_card == parse("Kd") and drawer.known_discards.tolist() == counts(["Kd"]).tolist()
    assert drawer.unseen[parse("Kd")] == 0, "the drawer knows Kd is not in the fan"
    for other in ("player_1", "player_2"):
        v = seen_by(env, other)
        assert v.last_card is None and v.known_discards.sum() == 0 and v.discard_size == 1
        assert v.unknown_discards == 1 and v.unseen[parse("Kd")] == 1
        assert "Kd" not in env.render_view(other)
    assert "Kd" in env.render_view("player_0")


def test_public_discards_show_missed_cards_to_everyone():
    env = new("Kd", num_players=3, public_discards=True)
    call(env, "card Ks")
    for agent in env.possible_agents:
        v = seen_by(env, agent)
        assert v.last_card == parse("Kd") and v.known_discards.tolist() == counts(["Kd"]).tolist()
        assert v.unknown_discards == 0


def test_with_several_decks_an_exact_call_matches_any_copy():
    env = new("Qh Qh 5c", num_players=3, num_decks=2)
    call(env, "card Qh", "card Qh", "card Qh")
    assert scores(env) == [10, 10, 0]
    assert seen_by(env, "player_2").scored[parse("Qh")] == 2
    assert seen_by(env, "player_2").unseen[parse("Qh")] == 0


# -------------------------------------------------------------------------- jokers
def test_good_joker_a_called_joker_scores_15_and_is_shown_to_all():
    env = new("RJ", num_players=2, good_joker=True)
    call(env, "joker")
    assert scores(env) == [15, 0]
    assert env.game_state.piles[0] == [(parse("RJ"), 15)]
    v = seen_by(env, "player_1")
    assert v.last_card == parse("RJ") and v.last_events == ("joker scored",) and v.scored[53] == 1
    assert v.pile_values[1].tolist() == [0, 0, 0, 1]  # relative seat 1 = player_0


def test_good_joker_alone_an_uncalled_joker_is_an_ordinary_miss_seen_only_by_the_drawer():
    env = new("BJ", num_players=2, good_joker=True)
    call(env, "suit h")
    s = env.game_state
    assert [to_str(c) for c in s.discards] == ["BJ"] and not s.set_aside and scores(env) == [0, 0]
    assert seen_by(env, "player_0").last_card == parse("BJ")
    other = seen_by(env, "player_1")
    assert other.last_card is None and other.last_events == ("missed",) and other.unseen[52] == 1


def test_evil_joker_the_drawer_loses_its_highest_valued_card_the_most_recent_on_ties():
    # player_0 scores Qc (5), 2h (1), Qd (5) then draws a joker: Qd, the later 5, is lost
    env = new("Qc 3s 2h 4s Qd 5s BJ", num_players=2, evil_joker=True)
    call(env, "rank Q", miss_for("3s"), "suit h", miss_for("4s"), "rank Q", miss_for("5s"))
    assert scores(env) == [11, 0]
    call(env, "suit c")
    s = env.game_state
    assert scores(env) == [6, 0]
    assert [to_str(c) for c, _ in s.piles[0]] == ["Qc", "2h"]
    assert [to_str(c) for c in s.lost] == ["Qd"], "the lost card is removed from the game"
    assert [to_str(c) for c in s.set_aside] == ["BJ"]
    for agent in env.possible_agents:
        v = seen_by(env, agent)
        assert v.last_events == ("penalty", "joker set aside")
        assert v.last_card == parse("BJ") and v.last_lost_card == parse("Qd") and v.last_loss == 5
        assert v.lost[parse("Qd")] == 1 and v.set_aside.tolist() == [1, 0]
        assert v.unseen[parse("Qd")] == 0 and v.unseen[52] == 0


def test_evil_joker_with_an_empty_score_pile_nothing_happens_and_the_joker_is_set_aside():
    env = new("RJ", num_players=2, evil_joker=True)
    call(env, "suit c")
    s = env.game_state
    assert scores(env) == [0, 0] and not s.lost and [to_str(c) for c in s.set_aside] == ["RJ"]
    assert seen_by(env, "player_1").last_events == ("joker set aside",)


def test_evil_joker_takes_a_scored_15_point_joker_first():
    # good + evil: player_0 calls and scores BJ (15, no penalty), scores Ks (10), then draws RJ
    env = new("BJ 2c Ks 3c RJ", num_players=2, good_joker=True, evil_joker=True)
    call(env, "joker", miss_for("2c"))
    assert scores(env) == [15, 0] and not env.game_state.lost, "a called joker escapes the penalty"
    call(env, "card Ks", miss_for("3c"), "suit h")
    s = env.game_state
    assert scores(env) == [10, 0]
    assert [to_str(c) for c in s.lost] == ["BJ"] and [to_str(c) for c in s.set_aside] == ["RJ"]


def test_chaotic_joker_shuffles_the_discard_pile_into_the_fan_and_sets_the_joker_aside():
    env = new("2c 3c 4c BJ", num_players=2, chaotic_joker=True)
    call(env, miss_for("2c"), miss_for("3c"), miss_for("4c"))
    assert seen_by(env, "player_0").known_discards.sum() == 2
    fan_before = Counter(env.game_state.fan)
    call(env, "suit h")
    s = env.game_state
    assert s.discards == [] and [to_str(c) for c in s.set_aside] == ["BJ"]
    assert Counter(s.fan) == fan_before + Counter(parse_many("2c 3c 4c")) - Counter([52])
    assert len(s.fan) == 53 and s.refans_left == 0, "the reshuffle is not a refan"
    for agent in env.possible_agents:
        v = seen_by(env, agent)
        assert v.last_events == ("joker set aside", "discards reshuffled")
        assert v.known_discards.sum() == 0 and v.discard_size == 0 and v.fan_size == 53
        # after the reshuffle everyone knows the fan exactly: every card but the set-aside joker
        assert v.unseen.tolist() == (env.rules.deck_counts - counts(["BJ"])).tolist()


def test_chaotic_joker_as_the_last_fan_card_the_discards_become_the_new_fan():
    env = guilders_v0.raw_env(num_players=1, chaotic_joker=True, jokers_per_deck=1)
    deck = [to_str(c) for c in range(52)] + ["BJ"]
    env.reset(seed=0, options={"deck": deck})
    for c in deck[:-1]:
        call(env, miss_for(c))
    assert len(env.game_state.fan) == 1 and len(env.game_state.discards) == 52
    call(env, "suit c")
    s = env.game_state
    assert not s.terminated and len(s.fan) == 52 and s.discards == []
    turns = 53
    while not s.terminated:
        call(env, miss_for(to_str(s.fan[-1])))
        turns += 1
    assert turns == 105 == (1 + 1) * 53 - 1, "each joker returns the discards at most once"


def test_chaotic_joker_as_the_last_card_with_an_empty_discard_pile_ends_the_game():
    env = guilders_v0.raw_env(num_players=1, chaotic_joker=True, jokers_per_deck=1)
    deck = [to_str(c) for c in range(52)] + ["BJ"]
    env.reset(seed=0, options={"deck": deck})
    for c in deck[:-1]:
        call(env, f"card {c}")
    assert scores(env) == [520]
    call(env, "suit c")
    assert env.game_state.terminated and env.terminations["player_0"]
    assert env.infos["player_0"] == {"score": 520, "rank": 1}


def test_all_three_jokers_a_called_joker_scores_15_then_the_discards_are_reshuffled():
    env = new("2c BJ", num_players=2, evil_joker=True, good_joker=True, chaotic_joker=True)
    call(env, miss_for("2c"), "joker")
    s = env.game_state
    assert scores(env) == [0, 15] and not s.lost and not s.set_aside
    assert s.discards == [] and parse("2c") in s.fan
    assert seen_by(env, "player_0").last_events == ("joker scored", "discards reshuffled")


def test_all_three_jokers_an_uncalled_joker_costs_a_card_is_set_aside_then_the_discards_are_reshuffled():
    env = new("Kh 2c RJ", num_players=1, evil_joker=True, good_joker=True, chaotic_joker=True)
    call(env, "card Kh", miss_for("2c"), "suit h")
    s = env.game_state
    assert scores(env) == [0]
    assert [to_str(c) for c in s.lost] == ["Kh"] and [to_str(c) for c in s.set_aside] == ["RJ"]
    assert parse("2c") in s.fan and parse("Kh") not in s.fan, "the lost card does not return"
    assert len(s.fan) == 54 - 3 + 1
    assert seen_by(env, "player_0").last_events == ("penalty", "joker set aside", "discards reshuffled")


@pytest.mark.parametrize(
    "options, bound",
    [
        ({"evil_joker": True, "good_joker": True}, 54),  # no refans, no chaos: one turn per card
        ({"chaotic_joker": True, "jokers_per_deck": 3}, (3 + 1) * 55),  # each joker returns the discards once
        ({"chaotic_joker": True, "evil_joker": True, "good_joker": True, "num_decks": 2}, (4 + 1) * 108),
    ],
)
def test_the_game_is_bounded_without_unlimited_refans(options, bound):
    longest = 0
    for seed in range(30):
        env = guilders_v0.env(num_players=3, **options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        turns = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                assert term and not trunc, "the game ends on its own, never by max_turns"
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            turns += 1
        longest = max(longest, turns)
    assert longest <= bound


# ---------------------------------------------------------------------------- advance
def test_the_game_ends_when_the_fan_is_empty_and_no_refan_is_left():
    env = new(num_players=3)
    for _ in range(51):
        call(env, "card As")
    assert not env.game_state.terminated and len(env.game_state.fan) == 1
    call(env, "card As")
    assert env.game_state.terminated and not env.game_state.truncated
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.game_state.turn == 52


def test_refan_the_discard_pile_becomes_a_new_fan_when_refans_remain():
    deck = [to_str(c) for c in range(52)]
    env = guilders_v0.raw_env(num_players=2, refan_discards=1)
    env.reset(seed=0, options={"deck": deck})
    for c in deck[:-1]:  # match the clubs exactly, miss the rest
        call(env, f"card {c}" if c.endswith("c") else miss_for(c))
    call(env, miss_for(deck[-1]))
    s = env.game_state
    assert not s.terminated and s.refans_left == 0 and s.discards == []
    assert Counter(s.fan) == Counter(range(13, 52)), "the new fan is the discard pile, reshuffled"
    for agent in env.possible_agents:
        v = seen_by(env, agent)
        assert v.last_events == ("missed", "refan") and v.refans_left == 0 and v.fan_size == 39
        assert v.known_discards.sum() == 0, "after a refan nobody knows where a discard lies"
        assert v.unseen.tolist() == counts([deck[i] for i in range(13, 52)]).tolist()
    assert seen_by(env, "player_1").last_card == parse("Ks"), "the drawer still remembers its card"
    assert seen_by(env, "player_0").last_card is None
    for _ in range(39):
        call(env, "card As" if s.fan[-1] != parse("As") else "card Ks")
    assert s.terminated and len(s.discards) == 39, "no refan left: the game ends with discards left over"


def test_refan_with_an_empty_discard_pile_ends_the_game():
    deck = [to_str(c) for c in range(52)]
    env = guilders_v0.raw_env(num_players=1, refan_discards=3)
    env.reset(seed=0, options={"deck": deck})
    for c in deck:
        call(env, f"card {c}")
    assert env.game_state.terminated and env.game_state.refans_left == 3


def test_max_turns_truncates_and_the_scores_at_that_point_decide_the_winner():
    env = guilders_v0.env(num_players=2, refan_discards=-1, max_turns=5)
    env.reset(seed=0, options={"deck": stacked(env.rules, "Ah 2c 3c 4c 5c")})
    call(env, "suit h", "suit h", "suit h", "suit h")
    assert not env.game_state.truncated
    call(env, "suit h")
    assert env.game_state.truncated and not env.game_state.terminated
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.infos["player_0"] == {"score": 1, "rank": 1}
    assert env.infos["player_1"] == {"score": 0, "rank": 2}
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}


def test_unlimited_refans_keep_refanning_until_max_turns():
    env = guilders_v0.raw_env(num_players=2, refan_discards=-1)
    assert env.rules.config.max_turns == 20 * 52, "max_turns defaults to 20 x total cards"
    env.reset(seed=1)
    refans = 0
    while not (env.game_state.terminated or env.game_state.truncated):
        call(env, "card As")
        refans += "refan" in seen_by(env, "player_0").last_events
    assert env.game_state.truncated and env.game_state.turn == 1040
    assert refans >= 10 and env.game_state.refans_left == -1
    assert seen_by(env, "player_0").refans_left == -1


# --------------------------------------------------------------------------- scoring
def test_the_worked_scoring_example():
    env = new("7h Qc Kd 7c BJ RJ", num_players=3, evil_joker=True)
    assert len(env.game_state.fan) == 54, "2 jokers in the fan"

    call(env, "suit h")  # 1: P0 SUIT ♥ draws 7h: match +1 (face down, shown first)
    assert scores(env) == [1, 0, 0]
    assert all(seen_by(env, a).last_card == parse("7h") for a in env.possible_agents)

    call(env, "rank Q")  # 2: P1 RANK Q draws Q♣: +5
    assert scores(env) == [1, 5, 0]

    call(env, "card Ks")  # 3: P2 CARD K♠ draws K♦: miss (rank only), only P2 saw it
    assert scores(env) == [1, 5, 0]
    assert seen_by(env, "player_2").known_discards[parse("Kd")] == 1
    for a in ("player_0", "player_1"):
        assert seen_by(env, a).last_card is None and seen_by(env, a).known_discards.sum() == 0

    call(env, "rank 7")  # 4: P0 RANK 7 draws 7♣: +5
    assert scores(env) == [6, 5, 0]

    call(env, "suit s")  # 5: P1 SUIT ♠ draws a joker: evil, P1 loses Q♣ (5); joker set aside
    assert scores(env) == [6, 0, 0]
    assert [to_str(c) for c in env.game_state.lost] == ["Qc"]

    call(env, "suit d")  # 6: P2 SUIT ♦ draws a joker: P2's score pile is empty, nothing happens
    assert scores(env) == [6, 0, 0]
    assert [to_str(c) for c in env.game_state.set_aside] == ["BJ", "RJ"]
    v = seen_by(env, "player_0")
    assert v.scores.tolist() == [6, 0, 0] and v.pile_values[0].tolist() == [1, 1, 0, 0]
    assert v.set_aside.tolist() == [1, 1] and v.lost[parse("Qc")] == 1
    assert v.last_events == ("joker set aside",) and v.last_mover == 2


def test_the_highest_score_wins_and_equal_highest_scores_share_the_win():
    env = guilders_v0.raw_env(num_players=4)
    env.reset(seed=0, options={"deck": stacked(env.rules, "Ks Kh 2c Kd")})
    call(env, "rank K", "rank K", miss_for("2c"), "rank K")
    while env.agents and not env.terminations[env.agent_selection]:
        call(env, "card As" if env.game_state.fan[-1] != parse("As") else "card Ks")
    assert [env.infos[a]["score"] for a in env.possible_agents] == [5, 5, 0, 5]
    assert [env.infos[a]["rank"] for a in env.possible_agents] == [1, 1, 4, 1]
    assert [env.rewards[a] for a in env.possible_agents] == rank_rewards([1, 1, 4, 1])


def test_players_who_never_drew_score_0_and_still_count_when_ranking():
    env = guilders_v0.raw_env(num_players=60)
    env.reset(seed=0, options={"deck": stacked(env.rules, "Ks")})
    call(env, "card Ks")
    for _ in range(51):
        call(env, "card Ks")
    assert env.game_state.terminated
    ranks = [env.infos[a]["rank"] for a in env.possible_agents]
    assert ranks[0] == 1 and set(ranks[1:]) == {2} and len(ranks) == 60
    assert env.infos["player_59"] == {"score": 0, "rank": 2}


def test_score_mode_rewards_each_event_as_points_minus_the_table_mean_over_10():
    env = new("Ks Qd BJ", num_players=4, reward_mode="score", evil_joker=True)
    call(env, "card Ks")
    assert env.rewards == pytest.approx(
        {"player_0": (10 - 2.5) / 10, "player_1": -0.25, "player_2": -0.25, "player_3": -0.25}
    )
    call(env, "rank Q")
    assert env.rewards["player_1"] == pytest.approx((5 - 1.25) / 10)
    call(env, "suit h")  # player_2 draws the evil joker with an empty pile: no event
    assert all(r == 0 for r in env.rewards.values())
    env2 = new("Ks 2c BJ", num_players=2, reward_mode="score", evil_joker=True)
    call(env2, "card Ks", miss_for("2c"), "suit h")  # player_0 draws the joker and loses Ks
    assert env2.rewards == pytest.approx({"player_0": -0.5, "player_1": 0.5}), "a penalty is a negative event"


def test_rank_mode_pays_only_at_the_end_from_the_final_ranking():
    env = new("Ks", num_players=3)
    call(env, "card Ks")
    assert all(r == 0 for r in env.rewards.values())
    while env.agents and not env.terminations[env.agent_selection]:
        call(env, "card Ks")
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == [1.0, -0.5, -0.5]


def test_solitaire_forces_score_mode_and_rewards_the_points_themselves_over_10():
    for mode in ("rank", "score"):
        env = new("Ks 7h BJ 2c", num_players=1, reward_mode=mode, evil_joker=True, jokers_per_deck=1)
        assert env.rules.reward_mode == "score"
        total = 0.0
        call(env, "card Ks")
        assert env.rewards["player_0"] == pytest.approx(1.0)
        total += env.rewards["player_0"]
        call(env, "suit h")
        assert env.rewards["player_0"] == pytest.approx(0.1)
        total += env.rewards["player_0"]
        call(env, "suit h")  # the evil joker takes Ks
        assert env.rewards["player_0"] == pytest.approx(-1.0)
        total += env.rewards["player_0"]
        while not env.game_state.terminated:
            call(env, "card Ks")
            total += env.rewards["player_0"]
        assert env.infos["player_0"] == {"score": 1, "rank": 1}
        assert total == pytest.approx(0.1), "the return is the final score / 10"


# ---------------------------------------------------------------------- information
def test_every_call_is_always_legal_and_joker_only_with_good_joker():
    env = new("Ks", num_players=2)
    mask = env.observe("player_0")["action_mask"]
    assert mask[:JOKER_CALL].all() and not mask[JOKER_CALL]
    assert not env.observe("player_1")["action_mask"].any(), "nobody else may act"
    call(env, "card Ks")
    assert env.observe("player_1")["action_mask"][CARD_BASE + parse("Ks")] == 1, "even a card known gone"
    env = new(num_players=2, good_joker=True)
    assert env.observe("player_0")["action_mask"].all()


def test_another_players_missed_cards_never_reach_your_observation_unless_public_discards():
    # Two games differing only in where Kd and Qh lie: player_1 draws one of them and misses;
    # the other stays deep in the fan. player_0 and player_2 cannot tell the games apart.
    for public in (False, True):
        outputs, drawer = [], []
        for y, z in (("Kd", "Qh"), ("Qh", "Kd")):
            env = guilders_v0.raw_env(num_players=3, public_discards=public)
            env.reset(seed=0, options={"deck": stacked(env.rules, ["2c", y, "3c", "4c", "5c", "6c", z])})
            call(env, "card As", "card As", "card As")
            outputs.append([seat_outputs(env, a) for a in ("player_0", "player_2")])
            drawer.append(seat_outputs(env, "player_1"))
            while env.agents and not env.terminations[env.agent_selection]:
                call(env, "suit c")  # the clubs lie in the same places in both games
            outputs[-1].append([env.infos[a] for a in env.possible_agents])
        assert drawer[0] != drawer[1], "player_1 saw its own card"
        if public:
            assert outputs[0][0] != outputs[1][0]
        else:
            assert outputs[0] == outputs[1]


def test_resample_hidden_moves_other_players_discards_but_never_your_own():
    env = new("Kd Qh", num_players=2)
    call(env, miss_for("Kd"), miss_for("Qh"))
    rules, s = env.rules, env.game_state
    rng = np.random.default_rng(0)
    mine_fixed = all(resample_hidden(rules, s, 0, rng).discards[0] == parse("Kd") for _ in range(50))
    theirs_moved = {resample_hidden(rules, s, 0, rng).discards[1] for _ in range(50)}
    assert mine_fixed and len(theirs_moved) > 5
    other = resample_hidden(rules, s, 0, rng)
    assert other.last_card == other.discards[1], "player_1's last card follows its place"
    assert Counter(c for z in rules.zones(other).values() for c in z) == Counter(rules.deck())
    public = new("Kd Qh", num_players=2, public_discards=True)
    call(public, miss_for("Kd"), miss_for("Qh"))
    assert resample_hidden(public.rules, public.game_state, 0, rng).discards == public.game_state.discards


def test_a_card_counter_can_compute_the_exact_odds_of_each_call():
    env = new("Kd Ks 2h", num_players=2)
    call(env, miss_for("Kd"), "rank K")
    v = seen_by(env, "player_0")  # knows Kd (its own miss) and Ks (scored): 50 unseen, 2 kings
    assert v.unseen.sum() == 50
    p = v.match_probabilities()
    assert p[RANK_BASE + 12] == pytest.approx(2 / 50)
    assert p[3] == pytest.approx(12 / 50) and p[1] == pytest.approx(12 / 50) and p[0] == pytest.approx(13 / 50)
    assert p[CARD_BASE + parse("Kd")] == 0 and p[CARD_BASE + parse("Kh")] == pytest.approx(1 / 50)
    w = seen_by(env, "player_1")  # does not know where Kd is: 51 unseen, 3 kings
    # ... but the card P0 missed is not Ad: it is one of the other 50, then the next card one of
    # the remaining 50, so each king comes next with chance (49/50) x (1/50)
    assert w.match_probabilities()[RANK_BASE + 12] == pytest.approx(3 * 49 / 2500)


# ------------------------------------------------------------------------ observation
def test_the_observation_is_715_plus_8_floats_per_player_with_fixed_segments_first():
    for n in (1, 2, 5, 52, 200):
        lay = layout(GuildersRules(num_players=n))
        assert lay.size == 715 + 8 * n
        assert lay.by_name["scores"].start == 715
    assert layout(GuildersRules(num_players=3, num_decks=2)).size == 553 + 162 * 2 + 8 * 3
    assert layout(GuildersRules(num_players=2)).by_name["unseen"].start == layout(
        GuildersRules(num_players=52)
    ).by_name["unseen"].start
    assert "| `unseen` |" in guilders_v0.__doc__ and "| `scores` |" in guilders_v0.__doc__


def test_seats_are_relative_to_the_observer():
    env = new("Ks Qh", num_players=3)
    call(env, "card Ks", "rank Q")
    v = seen_by(env, "player_1")
    assert v.scores.tolist() == [5, 0, 10]  # player_1, player_2, player_0
    assert v.to_act == 1 and v.last_mover == 0
    assert seen_by(env, "player_2").standing() == (10, 2, 0)
    assert seen_by(env, "player_0").standing() == (5, 0, 0)


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 3, "evil_joker": True, "good_joker": True, "chaotic_joker": True, "refan_discards": 2},
        {"num_players": 2, "num_decks": 3, "jokers_per_deck": 5, "good_joker": True, "refan_discards": -1, "max_turns": 400},
        {"num_players": 1},
    ],
)
def test_decoding_an_observation_and_encoding_it_again_gives_the_same_vector(config):
    env = guilders_v0.raw_env(**config)
    rng = np.random.default_rng(1)
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            for other in env.possible_agents:
                x = env.observe(other)["observation"]
                v = env.decode(x)
                assert np.array_equal(env.encode_view(v), x)
                state_view = view(env.game_state, env.possible_agents.index(other))
                assert v.unseen.tolist() == state_view.unseen.tolist()
                assert v.scores.tolist() == state_view.scores.tolist()
                assert (v.last_card, v.last_events, v.refans_left) == (
                    state_view.last_card, state_view.last_events, state_view.refans_left)
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ------------------------------------------------------------------------ action names
def test_action_names_follow_the_actions_table():
    env = guilders_v0.raw_env()
    env.reset(seed=0)
    assert [env.action_to_string(a) for a in (0, 3, 4, 13, 16, 17, 17 + 13 * 2 + 6, 68, 69)] == [
        "suit c", "suit s", "rank A", "rank T", "rank K", "card Ac", "card 7h", "card Ks", "joker"]
    assert len(set(ACTION_NAMES)) == NUM_ACTIONS
    for a in range(NUM_ACTIONS):
        assert env.string_to_action(env.action_to_string(a)) == a
        assert env.string_to_action(env.action_to_string(a).upper()) == a
    aliases = {"suit hearts": 2, "SUIT ♥": 2, "call suit h": 2, "rank 10": 13, "rank queen": 15, "rank ace": 4,
               "card 10h": 17 + 26 + 9, "card Q♠": 17 + 39 + 11, "card q of spades": 17 + 39 + 11, "  Joker ": 69}
    for text, a in aliases.items():
        assert env.string_to_action(text) == a, text
    with pytest.raises(ValueError, match="suit c, suit d"):
        env.string_to_action("rank 14")
    with pytest.raises(ValueError, match="not in"):
        env.action_to_string(70)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "options, word",
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 2.5}, "num_players"),
        ({"num_decks": 0}, "num_decks"),
        ({"public_discards": 1}, "public_discards"),
        ({"evil_joker": "yes"}, "evil_joker"),
        ({"good_joker": None}, "good_joker"),
        ({"chaotic_joker": 0}, "chaotic_joker"),
        ({"jokers_per_deck": -1}, "jokers_per_deck"),
        ({"refan_discards": -2}, "refan_discards"),
        ({"start_player": 4}, "start_player"),
        ({"start_player": "first"}, "start_player"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"max_turns": 0}, "max_turns"),
        ({"num_cards": 3}, "num_cards"),
    ],
)
def test_a_bad_option_is_a_value_error_naming_it(options, word):
    with pytest.raises(ValueError, match=word):
        guilders_v0.env(**options)


def test_the_options_default_as_the_options_table_says():
    cfg = GuildersRules().config
    assert (cfg.num_players, cfg.num_decks, cfg.public_discards, cfg.evil_joker, cfg.good_joker,
            cfg.chaotic_joker, cfg.jokers_per_deck, cfg.refan_discards, cfg.start_player,
            cfg.reward_mode, cfg.max_turns) == (4, 1, False, False, False, False, 2, 0, 0, "rank", 1040)
    assert GuildersRules(evil_joker=True, num_decks=2).config.max_turns == 20 * 108


def test_a_wrong_stacked_deck_is_a_value_error_and_changes_nothing():
    env = guilders_v0.raw_env(num_players=2)
    env.reset(seed=0)
    before = env.rules.zones(env.game_state)
    with pytest.raises(ValueError, match="stacked deck has 54 cards"):
        env.reset(options={"deck": stacked(GuildersRules(evil_joker=True), "")})
    deck = stacked(env.rules, "")
    deck[0] = "BJ"
    with pytest.raises(ValueError, match="does not use"):
        env.reset(options={"deck": deck})
    assert env.rules.zones(env.game_state) == before


def test_an_illegal_call_on_raw_env_is_a_value_error_and_changes_nothing():
    env = new("Ks", num_players=2)
    before = (env.rules.zones(env.game_state), env.agent_selection, env.observe("player_0")["observation"].copy())
    with pytest.raises(ValueError, match="illegal"):
        env.step(JOKER_CALL)
    with pytest.raises(ValueError, match="not in the action space"):
        env.step(70)
    after = (env.rules.zones(env.game_state), env.agent_selection, env.observe("player_0")["observation"])
    assert before[:2] == after[:2] and np.array_equal(before[2], after[2])
    with pytest.raises(ValueError, match="good_joker"):
        env.rules.apply(env.game_state, JOKER_CALL)
    assert env.rules.zones(env.game_state) == before[0]


def test_env_ends_the_game_with_minus_one_for_an_illegal_call():
    env = guilders_v0.env(num_players=3)
    env.reset(seed=0)
    with warnings.catch_warnings():  # PettingZoo logs the warning (through warnings only sometimes)
        warnings.simplefilter("ignore")
        env.step(JOKER_CALL)
    assert all(env.terminations.values()) and env._cumulative_rewards["player_0"] == -1


# ------------------------------------------------------------------------------- speed
def test_a_52_player_game_plays_to_the_end_in_under_a_second():
    env = guilders_v0.env(num_players=52)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert time.perf_counter() - start < 1.0
    assert steps == 52 + 52


def test_the_codec_is_built_once_per_configuration():
    rules = GuildersRules(num_players=7)
    assert layout(rules) is layout(GuildersRules(num_players=7))
    assert Codec(rules).layout.size == 715 + 8 * 7


# ----------------------------------------------------- every public call reaches every player
def test_every_public_call_reaches_every_player_between_its_turns():
    """3 players: P1's call between two of P0's turns reaches P0 (and P2), though both calls
    miss on the same card: the call says what the hidden card is not."""
    seen = {}
    for p1_call in ("suit h", "suit s"):
        env = new("2c 3c 4c 5c", num_players=3)
        call(env, "suit d", p1_call, "suit d")  # P0, P1 and P2 all miss on clubs
        seen[p1_call] = {a: env.observe(a)["observation"].tobytes() for a in ("player_0", "player_2")}
        assert env.agent_selection == "player_0"
    for agent in ("player_0", "player_2"):
        assert seen["suit h"][agent] != seen["suit s"][agent], f"{agent} lost P1's call"


def test_the_exact_odds_after_ten_rounds_of_missed_heart_calls_count_what_the_misses_said():
    """The case that once went wrong: 3 players, P1 and P2 call `suit h` and miss for ten rounds
    while P0 misses with `card Ah` on cards it sees. Every missed card is no heart, so the 13
    hearts lie in a fan of 22: 13/22 = 0.591 (the old view said 13/42 = 0.310)."""
    env = new([to_str(c) for c in range(52) if c // 13 != 2][:30], num_players=3)
    for _ in range(10):
        call(env, "card Ah", "suit h", "suit h")
    v = seen_by(env, "player_0")
    assert v.fan_size == 22 and v.unknown_discards == 20
    assert v.match_probabilities()[2] == pytest.approx(13 / 22)
    assert v.match_probabilities()[2] == pytest.approx(0.591, abs=5e-4)


def _tiny_rules(deck: str, **options) -> GuildersRules:
    """The rules of ``options`` played with a tiny deck (for brute-force enumeration)."""
    rules = GuildersRules(**options)
    rules._deck = parse_many(deck)
    counts = np.bincount(np.array(rules._deck), minlength=54)
    counts.flags.writeable = False
    rules.deck_counts = counts
    return rules


def _brute_force_next_draw(rules, codec, calls, observed, seat, deck):
    """P(next card = c) by enumerating every sequence of draws (each a uniform pick of a fan
    card, refans and reshuffles included) whose observations for ``seat`` match ``observed``."""
    total = np.zeros(54)

    def walk(state, t, weight):
        if t == len(calls):
            for c in state.fan:
                total[c] += weight / len(state.fan)
            return
        fan = state.fan
        for i in range(len(fan)):
            child = state.copy()
            child.rng = np.random.default_rng(t)
            child.fan = fan[:i] + fan[i + 1 :] + [fan[i]]  # fan[i] is drawn next
            rules.apply(child, calls[t])
            if codec.encode(view(child, seat)).tobytes() == observed[t]:
                walk(child, t + 1, weight / len(fan))

    start = rules.new_game(np.random.default_rng(0), list(reversed(deck)))
    walk(start, 0, 1.0)
    return total / total.sum()


@pytest.mark.parametrize(
    "deck, options",
    [
        ("Ah Kh 7h As 7c 2d", {"num_players": 3}),
        ("Ah Kh 7h As 7c 2d", {"num_players": 3, "refan_discards": 1}),
        ("Ah Kh 7h As 7c BJ", {"num_players": 3, "good_joker": True, "refan_discards": 1}),
        ("Ah Kh 7h As 7c BJ", {"num_players": 2, "chaotic_joker": True}),
        ("Ah Kh 7h As 7c BJ", {"num_players": 3, "evil_joker": True, "good_joker": True}),
    ],
)
def test_match_probabilities_equal_brute_force_enumeration_of_the_consistent_worlds(deck, options):
    """On tiny decks, at every turn: the chance of each call decoded from the observation alone
    equals the one counted over every draw sequence consistent with what the player saw."""
    rules = _tiny_rules(deck, **options)
    codec = Codec(rules)
    # suit h, rank 7, card As, suit s, rank A, suit c (and joker)
    cycle = [2, RANK_BASE + 6, CARD_BASE + parse("As"), 3, RANK_BASE, 0] + ([JOKER_CALL] if rules.config.good_joker else [])
    checked = events = 0
    for seed in range(2):
        s = rules.new_game(np.random.default_rng(seed))
        deck_order = list(reversed(s.fan))
        observed = {o: [] for o in range(rules.num_players)}
        calls = []
        step = 0
        while not (s.terminated or s.truncated) and step < 9:
            a = cycle[(step + seed) % len(cycle)]
            if a == JOKER_CALL and not rules.config.good_joker:
                a = 0
            rules.apply(s, a)
            events |= s.last_events
            calls.append(a)
            for o in observed:
                observed[o].append(codec.encode(view(s, o)).tobytes())
            step += 1
            if s.terminated or s.truncated:
                break
            for o in range(rules.num_players):
                v = codec.decode(np.frombuffer(observed[o][-1], dtype=np.float32))
                truth = _brute_force_next_draw(rules, codec, calls, observed[o], o, deck_order)
                assert v.draw_probabilities() == pytest.approx(truth, abs=1e-9), (seed, step, o)
                checked += 1
    assert checked > 10
    if options.get("refan_discards"):
        assert events & REFANNED, "no refan was reached"
    if options.get("chaotic_joker"):
        assert events & RESHUFFLED, "no chaotic reshuffle was reached"


def test_the_odds_counter_equals_enumeration_of_fillings_on_small_multisets():
    """The counting of ``odds.py`` (float and exact) against enumerating every filling of the
    miss places, with and without jokers that may miss."""
    from card_envs.guilders.odds import brute_force_probabilities, draw_probabilities

    rng = np.random.default_rng(1)
    pool = parse_many("Ac 2c Ad 2d Ah Ks As 7c 7h Kh BJ RJ")
    calls = [0, 1, 2, 3, 4, 5, 16, 17, 18, 30, JOKER_CALL]
    checked = 0
    for _ in range(40):
        unseen = np.zeros(54, dtype=np.int64)
        for c in rng.choice(pool, size=int(rng.integers(3, 8)), replace=False):
            unseen[c] += 1
        misses = np.zeros(70, dtype=np.int64)
        for a in rng.choice(calls, size=int(rng.integers(1, unseen.sum()))):
            misses[a] += 1
        jokers_can_miss = bool(rng.integers(2))
        with np.errstate(invalid="ignore"):
            truth = brute_force_probabilities(unseen, misses, jokers_can_miss)
        if np.isnan(truth).any():  # no consistent filling: a history that cannot happen
            continue
        assert draw_probabilities(unseen, misses, jokers_can_miss) == pytest.approx(truth, abs=1e-12)
        assert draw_probabilities(unseen, misses, jokers_can_miss, exact=True) == pytest.approx(truth, abs=1e-15)
        checked += 1
    assert checked > 20


def test_resample_hidden_respects_what_each_miss_said():
    """A card missed for `suit h` is no heart in any resampled world."""
    env = new([to_str(c) for c in range(52) if c // 13 != 2][:30], num_players=3)
    for _ in range(10):
        call(env, "card Ah", "suit h", "suit h")
    rules, state = env.rules, env.game_state
    rng = np.random.default_rng(0)
    moved = 0
    for _ in range(20):
        twin = resample_hidden(rules, state, 0, rng)
        for c, b, a in zip(twin.discards, twin.discard_by, twin.discard_call):
            assert rules.can_miss(a, c), f"{to_str(c)} lies under a missed {ACTION_NAMES[a]!r}"
        moved += twin.discards != state.discards
        assert sorted(twin.fan + twin.discards) == sorted(state.fan + state.discards)
    assert moved, "the resampling never moved a hidden card"


def test_which_seat_holds_which_scored_card_and_its_value_are_observed():
    """Score piles are public card by card: swapping two scored cards between seats, or
    their values within one pile, changes every player's observation."""
    def piles_seen(front, calls):
        env = new(front, num_players=3)
        call(env, *calls)
        return {a: env.observe(a)["observation"].tobytes() for a in env.agents}

    swapped = piles_seen("2c Ah Kh", ["suit c", "suit h", "suit h"])  # P1: Ah, P2: Kh
    other = piles_seen("2c Kh Ah", ["suit c", "suit h", "suit h"])  # P1: Kh, P2: Ah
    for agent in swapped:
        assert swapped[agent] != other[agent], agent
    values = piles_seen("Ah Kh 2c 2d", ["suit h", "suit s", "suit s", "rank K"])  # P0: Ah=1 then Kh=5
    flipped = piles_seen("Ah Kh 2c 2d", ["rank A", "suit s", "suit s", "suit h"])  # P0: Ah=5 then Kh=1
    for agent in values:
        assert values[agent] != flipped[agent], agent
    env = new("2c Ah Kh", num_players=3)
    call(env, "suit c", "suit h", "suit h")
    v = seen_by(env, "player_1")
    assert v.piles == ((( parse("Ah"), 1),), ((parse("Kh"), 1),), ((parse("2c"), 1),))


# -------------------------------------------------------- max_turns grows with the configuration
def test_the_default_max_turns_never_cuts_a_game_with_finite_refans():
    """The case that once went wrong: refan_discards=25, always calling `card As`: the game runs
    its 26 fans (1,352 turns, past the old 1,040 limit) and ends by itself, not by truncation."""
    env = guilders_v0.raw_env(num_players=4, refan_discards=25)
    assert env.rules.config.max_turns >= 26 * 52
    env.reset(seed=0)
    a = env.string_to_action("card As")
    turns = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(a)
        turns += 1
    assert env.game_state.terminated and not env.game_state.truncated
    assert turns > 1040 and env.game_state.refans_left == 0


@pytest.mark.parametrize(
    "options, bound",
    [
        ({}, 52),
        ({"refan_discards": 3}, 4 * 52),
        ({"refan_discards": 30}, 31 * 52),
        ({"chaotic_joker": True, "jokers_per_deck": 30, "refan_discards": 2}, (2 + 30 + 1) * 82),
        ({"num_decks": 2, "refan_discards": 40}, 41 * 104),
    ],
)
def test_the_default_max_turns_covers_the_rules_bound(options, bound):
    cfg = GuildersRules(**options).config
    assert cfg.turn_bound == bound
    assert cfg.max_turns == max(20 * cfg.total_cards, bound)
    assert GuildersRules(refan_discards=-1).config.max_turns == 20 * 52, "only endless games keep 20 x total"


def test_reveals_says_exactly_when_a_draw_shows_another_player_a_card():
    env = new("Kd Ks", num_players=3)
    rules, s = env.rules, env.game_state
    assert rules.reveals(s, env.string_to_action("suit d"), 0), "the drawer always sees its card"
    assert rules.reveals(s, env.string_to_action("suit d"), 1), "a match is shown to all"
    assert not rules.reveals(s, env.string_to_action("suit h"), 1), "a face-down miss shows nothing"
    public = new("Kd", num_players=3, public_discards=True)
    assert public.rules.reveals(public.game_state, env.string_to_action("suit h"), 1)
    evil = new("BJ", num_players=3, evil_joker=True)
    assert evil.rules.reveals(evil.game_state, 0, 1), "an evil joker is shown"
    good = new("BJ", num_players=3, good_joker=True)
    assert not good.rules.reveals(good.game_state, 0, 1), "an uncalled joker (good alone) is a face-down miss"
    assert good.rules.reveals(good.game_state, JOKER_CALL, 1), "a called joker is shown"


class _LeakyGuildersRules(GuildersRules):
    """A planted leak: after a face-down miss on a heart the next seat is skipped, so who calls
    next depends on a card only the drawer saw."""

    def apply(self, s, action):
        out = super().apply(s, action)
        if s.current_player >= 0 and s.last_events == 2 and s.last_card // 13 == 2 and not s.last_public:
            s.current_player = (s.current_player + 1) % self.num_players
        return out


class _LeakyGuildersEnv(guilders_v0.raw_env):
    Rules = _LeakyGuildersRules


def test_the_process_property_catches_a_planted_leak_and_passes_without_it():
    from tests.conformance.process import check_process

    leaky = check_process(_LeakyGuildersEnv(num_players=3), range(2))
    assert leaky.violation is not None and "next to act" in leaky.violation
    clean = check_process(guilders_v0.raw_env(num_players=3), range(1))
    assert clean.violation is None, clean.violation
    assert clean.checked > 100 and clean.revealing > 0
