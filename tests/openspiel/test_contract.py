"""The OpenSpiel games keep the rules of OpenSpiel's ``spiel.h`` that its algorithms rely on.

- Information states are perfect recall and belong to one player: two histories that differ in
  anything a player saw give it different information states (string and tensor), and so do all
  their continuations; histories it cannot tell apart give it the same one; no two players share
  one.
- The metadata is the table's: no game, random or stalling, is longer than ``max_game_length``
  or has more chance nodes than ``max_chance_nodes_in_history``; the seats and utilities are the
  game's; the returns stay within the bounds.
- The observers are OpenSpiel's: None for a type the game does not provide; OpenSpiel's
  ``api_test`` partial-tree tests and ``generate_playthrough`` pass, and the committed
  playthroughs replay exactly.
- Rewards at chance nodes are 0: summed over a game they are its returns.
- ``random_sim_test`` passes at every conformance table.
"""

from __future__ import annotations

import re
import unittest

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (pip install -e '.[openspiel]')")

import card_envs  # noqa: E402
import card_envs.openspiel as O  # noqa: E402
from tests import cases  # noqa: E402
from tests.openspiel import playthrough  # noqa: E402
from tests.openspiel.test_openspiel import TABLES  # noqa: E402

GAMES = list(O.GAMES)  # the games OpenSpiel is offered


def step(state, rng, choose=None) -> None:
    """One random step: a chance outcome with its probability, or a player's action (``choose``'s
    when given: ``choose(state, legal) -> action``)."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs))]))
    else:
        legal = state.legal_actions()
        state.apply_action(int(choose(state, legal) if choose else legal[rng.integers(len(legal))]))


def decision_states(game, rng, games: int, every: int = 1, limit: int = 10_000):
    """States at players' decisions in random games (every ``every``-th)."""
    for _ in range(games):
        state = game.new_initial_state()
        k = 0
        while not state.is_terminal() and k < limit:
            if not state.is_chance_node():
                if k % every == 0:
                    yield state.clone()
                k += 1
            step(state, rng)


def info(state, player):
    return state.information_state_string(player), tuple(state.information_state_tensor(player))


# ------------------------------------------------------------------------ perfect recall
@pytest.mark.parametrize("name", GAMES)
def test_two_histories_a_player_can_tell_apart_give_it_different_information_states(name):
    """At decisions of random games: two different actions of the player to act. Every player
    who saw a difference (the actor, its own action; another, a different public action or a
    different observation) gets different information states, string and tensor, and keeps
    getting them through the same continuation; a player who saw no difference gets the same."""
    rng = np.random.default_rng(11)
    told = same = followed = 0
    for options in TABLES[name]:
        game = O.load_game(name, options)
        rules = game.table.rules
        for state in decision_states(game, rng, 2, every=7, limit=120):
            legal = state.legal_actions()
            if len(legal) < 2:
                continue
            a, b = (int(x) for x in rng.choice(legal, 2, replace=False))
            s = state.rules_state
            actor = state.current_player()
            left, right = state.child(a), state.child(b)
            while left.is_chance_node() and right.is_chance_node():  # the same draws in both
                outcome = left.chance_outcomes()[0][0]
                if outcome not in {o for o, _ in right.chance_outcomes()}:
                    break
                left.apply_action(outcome)
                right.apply_action(outcome)
            if left.is_chance_node() or right.is_chance_node():
                continue
            differ = []
            for p in range(game.num_players()):
                saw = p == actor or rules.public_action(s, a) != rules.public_action(s, b) or (
                    left.observation_tensor(p) != right.observation_tensor(p))
                if saw:
                    assert info(left, p)[0] != info(right, p)[0] and info(left, p)[1] != info(right, p)[1], (p, a, b)
                    differ.append(p)
                    told += 1
                else:
                    assert info(left, p) == info(right, p), (p, a, b)
                    same += 1
            for _ in range(6):  # the same continuation: the difference stays
                if left.is_terminal() or right.is_terminal():
                    break
                if left.is_chance_node() != right.is_chance_node():
                    break
                options_left = ({o for o, _ in left.chance_outcomes()} if left.is_chance_node()
                                else set(left.legal_actions()))
                options_right = ({o for o, _ in right.chance_outcomes()} if right.is_chance_node()
                                 else set(right.legal_actions()))
                both = sorted(options_left & options_right)
                if not both:
                    break
                x = int(both[rng.integers(len(both))])
                left.apply_action(x)
                right.apply_action(x)
                for p in differ:
                    assert info(left, p)[0] != info(right, p)[0] and info(left, p)[1] != info(right, p)[1]
                    followed += 1
    assert told > 0 and followed > 0
    if name not in ("golf_v0", "guillotine_v0", "guilders_v0"):  # every action there is public
        assert same > 0, "no hidden action was checked"


def test_the_order_of_what_a_player_saw_is_kept():
    """Golf, two players, dealer 1: turning up slot 0 then 1, or 1 then 0, leaves the same
    observation but different information states, after the second flip and after the turns
    that follow."""
    game = O.load_game("golf", {"num_players": 2, "dealer": 1, "num_rounds": 1})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    one, two = state.clone(), state.clone()
    for x in (0, 1):
        one.apply_action(x)
    for x in (1, 0):
        two.apply_action(x)
    assert one.observation_tensor(0) == two.observation_tensor(0)
    for p in (0, 1):
        assert info(one, p)[0] != info(two, p)[0] and info(one, p)[1] != info(two, p)[1]
    for action in (2, 3, 6, 8, 6, 8):  # player 1's flips, then both draw and discard
        one.apply_action(action)
        two.apply_action(action)
        assert info(one, 0) != info(two, 0) and info(one, 1) != info(two, 1)


@pytest.mark.parametrize("name", GAMES)
def test_no_two_players_share_an_information_state(name):
    """At every state of random games (chance nodes and the end included), the players'
    information states differ, string and tensor; and what a player's information state says
    about another player is never the same as what that player's says about itself."""
    rng = np.random.default_rng(5)
    game = O.load_game(name, TABLES[name][0])
    n = game.num_players()
    checked = 0
    state = game.new_initial_state()
    for _ in range(150):
        strings = [state.information_state_string(p) for p in range(n)]
        tensors = [tuple(state.information_state_tensor(p)) for p in range(n)]
        assert len(set(strings)) == n and len(set(tensors)) == n
        assert all(s.startswith(f"player {p}\n") or s == f"player {p}" for p, s in enumerate(strings))
        checked += 1
        if state.is_terminal():
            break
        step(state, rng)
    assert checked > 50


@pytest.mark.parametrize("name, options", [("golf", {"num_players": 2, "num_rounds": 1}),
                                           ("collector", {"num_players": 2})])
def test_the_same_draw_by_two_seats_gives_two_information_states(name, options):
    """A seat-0 draw and a seat-1 draw on the same shuffle: each player's information state is
    its own (they were equal when the information state was the observation)."""
    game = O.load_game(name, options)
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while state.is_chance_node():
        step(state, rng)
    seen = {}
    while not state.is_terminal() and len(seen) < 40:
        for q in range(2):
            seen.setdefault(info(state, q), set()).add(q)
        step(state, rng)
    assert all(len(players) == 1 for players in seen.values())


def test_the_information_state_tensor_has_one_size_per_table():
    for name in GAMES:
        game = O.load_game(name, TABLES[name][0])
        size = game.information_state_tensor_size()
        assert size == game.num_players() + game.observation_tensor_size() + 128
        state = game.new_initial_state()
        rng = np.random.default_rng(0)
        for _ in range(120):
            if state.is_terminal():
                break
            assert len(state.information_state_tensor(0)) == size
            step(state, rng)


# ------------------------------------------------------------------------ metadata
def _stall(name):
    """A player that makes the game as long as the rules let it: Golf draws and discards
    without turning anything up (and declines the flip after a discard); Fiddlesticks picks the
    pile up whenever it may; elsewhere a random action."""
    if name == "golf_v0":
        from card_envs.golf.rules import DISCARD_DRAWN, DRAW_STOCK, NO_FLIP, TAKE_DISCARD

        def choose(state, legal):
            for a in (NO_FLIP, DRAW_STOCK, DISCARD_DRAWN, TAKE_DISCARD):
                if a in legal:
                    return a
            s, p = state.rules_state, state.current_player()
            up = [i for i in legal if i < 6 and s.face_up[state.seat(p)][i]]
            return up[0] if up else legal[0]

        return choose
    if name == "fiddlesticks_v0":
        def choose(state, legal):
            pickup = state.get_game().table.rules.pickup
            return pickup if pickup in legal else legal[0]

        return choose
    return None


#: small guards, so that games reach them: (options, True where the stalling player meets the bound)
GUARDED = {
    "golf_v0": [({"num_players": 2, "num_rounds": 2, "max_turns_per_round": 50, "flip_after_discard": "may"}, True),
                ({"num_players": 3, "num_rounds": 1, "max_turns_per_round": 30}, True)],
    "fiddlesticks_v0": [({"num_players": 2, "voluntary_pickup": True, "max_turns": 60}, True),
                        ({"num_players": 3, "max_turns": 40}, False)],
    "guillotine_v0": [({"mode": "single"}, False), ({"mode": "single", "contract": "domino"}, False)],
    "collector_v0": [({"num_players": 3, "max_rounds": 5}, False), ({"num_players": 2, "max_rounds": 8}, False)],
    "hot_v0": [({"num_players": 2, "max_rounds_per_deal": 3, "max_deals": 2}, False),
               ({"num_players": 3, "single_deal": True, "max_rounds_per_deal": 4}, False)],
    "guilders_v0": [({"num_players": 2, "refan_discards": -1, "max_turns": 70}, False),
                    ({"num_players": 3, "chaotic_joker": True, "refan_discards": 1}, False)],
}


@pytest.mark.parametrize("name", GAMES)
def test_no_game_is_longer_than_max_game_length(name):
    rng = np.random.default_rng(3)
    for options, exact in GUARDED[name]:
        game = O.load_game(name, options)
        most, chance_most = game.max_game_length(), game.max_chance_nodes_in_history()
        assert 0 < most < 100_000 and chance_most > 0
        for choose in (None, _stall(name)):
            lengths = []
            for _ in range(3):
                state = game.new_initial_state()
                decisions = chance = 0
                while not state.is_terminal():
                    if state.is_chance_node():
                        chance += 1
                    else:
                        decisions += 1
                    step(state, rng, choose)
                    assert decisions <= most and chance <= chance_most, (options, decisions, chance)
                assert len(state.history()) == decisions + chance <= game.max_history_length()
                lengths.append(decisions)
            if exact and choose is not None:
                assert lengths == [most] * 3, f"{options}: the stalling player played {lengths}, bound {most}"


def test_the_guards_of_a_large_golf_table_bound_its_length():
    """A legal Golf table longer than any fixed cap: the bound grows with its guards."""
    game = O.load_game("golf", {"num_players": 12, "max_rounds": 50, "flip_after_discard": "must"})
    assert game.max_game_length() == 50 * (12 * 2 + 60 * 12 * 3)
    assert O.load_game("guillotine", {"mode": "single", "contract": "queens"}).max_game_length() == 32


def test_seats_and_utilities_are_each_games():
    seats = {name: (t.min_num_players, t.max_num_players) for name in GAMES
             for t in [O.load_game(name).get_type()]}
    assert seats == {"golf_v0": (2, 12), "fiddlesticks_v0": (2, 11), "guillotine_v0": (4, 4),
                     "collector_v0": (2, 4), "hot_v0": (2, 3), "guilders_v0": (1, 52)}
    assert [t.max_num_players for t in [pyspiel.load_game(O.GAMES[n]).get_type() for n in GAMES]] == \
        [seats[n][1] for n in GAMES]
    solo = O.load_game("guilders", {"num_players": 1})
    assert solo.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert solo.min_utility() == 0 and solo.max_utility() == pytest.approx(52.0)  # 52 cards worth 10
    for name in GAMES:
        game = O.load_game(name, TABLES[name][0])
        assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM and game.utility_sum() == 0
    golf = O.load_game("golf", {"num_players": 3, "num_rounds": 2, "reward_mode": "score"})
    assert (golf.min_utility(), golf.max_utility()) == pytest.approx((-4 / 3, 4 / 3))


#: score tables (and the solitaire), with many reshuffles and deals
SCORED = [
    ("golf", {"num_players": 3, "num_rounds": 2, "reward_mode": "score", "flip_after_discard": "may"}),
    ("golf", {"num_players": 8, "num_decks": 1, "num_rounds": 1, "reward_mode": "score"}),
    ("guillotine", {"first_dealer": 1, "king_rule": "contract_suit_king", "reward_mode": "score"}),
    ("guillotine", {"mode": "single", "contract": "guillotine", "reward_mode": "score"}),
    ("hot", {"num_players": 3, "reward_mode": "score", "target_points": 5, "dealer": "random"}),
    ("guilders", {"num_players": 4, "evil_joker": True, "good_joker": True, "chaotic_joker": True,
                  "reward_mode": "score"}),
    ("guilders", {"num_players": 3, "chaotic_joker": True, "refan_discards": 2, "reward_mode": "score"}),
    ("guilders", {"num_players": 1, "evil_joker": True, "chaotic_joker": True}),
]


@pytest.mark.parametrize("name, options", SCORED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCORED)])
def test_rewards_add_up_to_the_returns_and_chance_nodes_pay_nothing(name, options):
    """Summed after every transition (chance nodes included) the rewards are the returns; a
    chance node that does not complete a step pays 0; the returns stay within the bounds."""
    game = O.load_game(name, options)
    rng = np.random.default_rng(9)
    games = 2 if name == "guillotine" and "mode" not in options else 8
    later_draws = 0
    for _ in range(games):
        state = game.new_initial_state()
        total = np.zeros(game.num_players())
        played = False
        while not state.is_terminal():
            was_chance = state.is_chance_node()
            played |= not was_chance
            step(state, rng)
            rewards = np.asarray(state.rewards())
            total += rewards
            if was_chance and state.is_chance_node():
                assert not rewards.any(), "a chance node that completes nothing paid a reward"
            later_draws += was_chance and played
        assert total == pytest.approx(state.returns(), abs=1e-9)
        assert all(game.min_utility() - 1e-9 <= r <= game.max_utility() + 1e-9 for r in state.returns())
    if options.get("mode") != "single":  # a later deal, a rebuilt stock or a new fan was drawn
        assert later_draws > 0


# ------------------------------------------------------------------------ observers
IIG = pyspiel.IIGObservationType
PRIV = pyspiel.PrivateInfoType


def test_an_observation_type_the_games_do_not_provide_is_none():
    from open_spiel.python.observation import make_observation

    game = O.load_game("hot", {"num_players": 2})
    provided = {(True, PRIV.SINGLE_PLAYER, False): "observation", (True, PRIV.SINGLE_PLAYER, True): "information_state",
                (True, PRIV.NONE, False): "public", (False, PRIV.SINGLE_PLAYER, False): "private"}
    for public in (True, False):
        for private in (PRIV.NONE, PRIV.SINGLE_PLAYER, PRIV.ALL_PLAYERS):
            for recall in (True, False):
                observer = make_observation(game, IIG(public_info=public, private_info=private, perfect_recall=recall))
                kind = provided.get((public, private, recall))
                assert (observer is None) == (kind is None), (public, private, recall)
                if kind:
                    assert observer.kind == kind
    assert make_observation(game).kind == "observation"
    with pytest.raises(ValueError, match="observer parameters are not supported"):
        game.make_py_observer(None, {"cards": 1})


@pytest.mark.parametrize("name", GAMES)
def test_the_public_observation_is_every_players_and_the_private_one_only_the_players(name):
    from open_spiel.python.observation import make_observation

    game = O.load_game(name, TABLES[name][0])
    public = make_observation(game, IIG(public_info=True, private_info=PRIV.NONE, perfect_recall=False))
    private = make_observation(game, IIG(public_info=False, private_info=PRIV.SINGLE_PLAYER, perfect_recall=False))
    rules = game.table.rules
    rng = np.random.default_rng(2)
    shown = 0
    for state in decision_states(game, rng, 1, every=3, limit=90):
        n = game.num_players()
        assert len({public.string_from(state, p) for p in range(n)}) == 1
        for p in range(n):
            twin = state.clone()
            twin._s = cases.resample_hidden(rules, state.rules_state, p, rng)
            assert private.string_from(twin, p) == private.string_from(state, p)
            assert public.string_from(twin, 0) == public.string_from(state, 0)
            mine = private.string_from(state, p).split("\n")
            assert mine[0] == f"player {p}"
            shown += len(mine) > 1 and bool(mine[1])
    assert shown > 0 or name == "golf_v0"  # a Golf player's only private card is one it drew


class _RandomPlayStates:
    """api_test's partial-tree checks over states of random games (decisions, chance nodes and
    ends), not only the first states of the deal that OpenSpiel's own sampling reaches."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(4)
        states = []
        for _ in range(2):
            state = cls.game.new_initial_state()
            while True:
                states.append(state.clone())
                if state.is_terminal() or len(states) > 600:
                    break
                step(state, rng)
        cls.some_states = states[::3] + [states[-1]]
        cls.game_type = cls.game.get_type()


def _run(case: type) -> unittest.TestResult:
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    return result


@pytest.mark.parametrize("name", GAMES)
def test_openspiels_api_test_partial_tree_checks_pass(name):
    from open_spiel.integration_tests import api_test

    base = api_test.EnforceAPIOnPartialTreeBase
    for table in ({}, TABLES[name][0]):
        game = O.load_game(name, table)
        for case in (type(f"PartialTree_{name}", (base,), {"game_name": name, "game": game}),
                     type(f"RandomPlay_{name}", (_RandomPlayStates, base), {"game_name": name, "game": game})):
            result = _run(case)
            assert result.testsRun >= 5
            assert not result.failures and not result.errors, (result.failures + result.errors)[0][1]


@pytest.mark.parametrize("name", GAMES)
def test_the_committed_playthrough_replays_exactly(name):
    golden = playthrough.path(name)
    assert golden.exists(), f"no playthrough for {name}: run python -m tests.openspiel.playthrough {name}"
    text = golden.read_text()
    assert playthrough.replay(text) == text, (
        f"{name}'s playthrough changed; if intended, regenerate with python -m tests.openspiel.playthrough {name} "
        "and review the diff")
    assert f"game: {playthrough.game_string(name)}" in text
    for line in ("PublicObservationString() = ", "PrivateObservationString(0) = ", "InformationStateString(1) = ",
                 "InformationStateTensor(0).seen: ", "ObservationTensor(1)"):
        assert line in text
    dealt = [line for line in text.splitlines() if re.match(r'# Apply action "card \d+/\d+: ', line)]
    assert dealt and all(cards_named(line) for line in dealt), dealt[:3]


def cards_named(line: str) -> bool:
    """``# Apply action "card 3/52: 7h (position 17)"``: the outcome names its card."""
    from card_envs.cards import parse, to_str

    name = line.split(": ", 1)[1].split(" (position")[0]
    return to_str(parse(name)) == name


def test_generate_playthrough_runs_on_every_game_at_another_table():
    from open_spiel.python.algorithms import generate_playthrough

    tables = {"guillotine_v0": {"mode": "single", "contract": "domino"}, "guilders_v0": {"num_players": 1},
              "collector_v0": {"num_players": 3, "max_rounds": 4},
              "hot_v0": {"num_players": 3, "single_deal": True, "max_rounds_per_deal": 3},
              "golf_v0": {"num_players": 3, "num_rounds": 1, "max_turns_per_round": 12},
              "fiddlesticks_v0": {"num_players": 3, "max_turns": 12}}
    for name in GAMES:
        options = tables[name]
        short = O.GAMES[name]
        params = ",".join(f"{k}={v}" for k, v in O.parameters(name, options).items())
        text = generate_playthrough.playthrough(f"{short}({params})", [], seed=7)
        assert "IsTerminal() = True" in text


# ------------------------------------------------------------------------ OpenSpiel's simulation test
def _conformance():
    for name in GAMES:
        for k, options in enumerate(cases.of(name).CONFORMANCE_CONFIGS):
            yield name, k, options


#: conformance tables whose random games run thousands of steps (Hot to 11 points, Guillotine's 24
#: deals, Fiddlesticks at six, Golf at twelve): simulated in the slow run only
LONG = {("golf_v0", 5), ("fiddlesticks_v0", 6), ("fiddlesticks_v0", 7), ("guillotine_v0", 1), ("guillotine_v0", 5),
        ("hot_v0", 0), ("hot_v0", 1), ("hot_v0", 2)}


@pytest.mark.parametrize("name, k, options", [c for c in _conformance() if c[:2] not in LONG],
                         ids=[f"{n}-{k}" for n, k, _ in _conformance() if (n, k) not in LONG])
def test_openspiels_simulation_test_passes_at_the_conformance_tables(name, k, options):
    pyspiel.random_sim_test(O.load_game(name, options), num_sims=1, serialize=False, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name, k, options", list(_conformance()), ids=[f"{n}-{k}" for n, k, _ in _conformance()])
def test_openspiels_simulation_test_passes_at_every_conformance_table(name, k, options):
    pyspiel.random_sim_test(O.load_game(name, options), num_sims=2, serialize=False, verbose=False)


# ------------------------------------------------------------------------ renumbering seats
@pytest.mark.parametrize("name", GAMES)
def test_every_field_of_a_game_state_is_declared_for_renumbering(name):
    from card_envs.openspiel.seats import SEATS, state_fields

    seats = SEATS[name]
    state = O.load_game(name).table.rules.new_game(np.random.default_rng(0), None)
    assert seats.fields == state_fields(state), "declare every field of the state in card_envs/openspiel/seats.py"
    listed = seats.by_seat + seats.seat + seats.seats + seats.free
    both = set(seats.by_seat) & set(seats.seats)
    assert len(listed) == len(set(listed)) + len(both), "a field is declared twice"


@pytest.mark.parametrize("name", GAMES)
def test_a_state_with_its_seats_renumbered_is_the_same_game(name):
    """``turn(state, k)``: every seat's observation is its old seat's, the legal actions are the
    same and the seat to act moved by k, scores and ranks moved by k; and the same actions then
    keep it so, step after step (with the same draws)."""
    from card_envs.generators import copy_generator
    from card_envs.openspiel.seats import turn

    rng = np.random.default_rng(8)
    checked = 0
    for options in [*TABLES[name], *cases.of(name).CONFORMANCE_CONFIGS[:3]]:
        env = card_envs.ENVIRONMENTS[name].raw_env(**options)
        rules, n = env.rules, env.rules.num_players
        state = rules.new_game(np.random.default_rng(int(rng.integers(1000))), None)
        for _ in range(int(rng.integers(0, 60))):
            if state.terminated or state.truncated:
                break
            rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
        for k in range(1, n):
            truth, moved = state.copy(), turn(name, state, k, n)
            moved.rng = copy_generator(truth.rng)
            for _ in range(25):
                assert [env._encode(moved, (q + k) % n).tobytes() for q in range(n)] == \
                    [env._encode(truth, q).tobytes() for q in range(n)]
                done = truth.terminated or truth.truncated
                assert (moved.terminated, moved.truncated) == (truth.terminated, truth.truncated)
                assert rules.scores(moved) == [rules.scores(truth)[(q - k) % n] for q in range(n)]
                assert list(rules.ranks(moved)) == [rules.ranks(truth)[(q - k) % n] for q in range(n)]
                checked += 1
                if done:
                    break
                assert moved.current_player == (truth.current_player + k) % n
                assert rules.legal_mask(moved).tolist() == rules.legal_mask(truth).tolist()
                action = int(rng.choice(np.flatnonzero(rules.legal_mask(truth))))
                a, b = rules.apply(truth, action), rules.apply(moved, action)
                assert (a is None) == (b is None) and (a is None or list(b) == [a[(q - k) % n] for q in range(n)])
    assert checked > 100


def test_a_seat_field_left_out_of_the_renumbering_is_caught(monkeypatch):
    """The negative control: Golf's dealer left unrenumbered, a turned state shows the seats
    another dealer."""
    from card_envs.openspiel import seats

    golf = seats.SEATS["golf_v0"]
    monkeypatch.setitem(seats.SEATS, "golf_v0", seats.Seats(
        by_seat=golf.by_seat, seat=("current_player", "trigger"), free=golf.free + ("dealer",)))
    env = card_envs.golf_v0.raw_env(num_players=3, num_rounds=1, dealer=0)
    state = env.rules.new_game(np.random.default_rng(0), None)
    moved = seats.turn("golf_v0", state, 1, 3)
    assert env._encode(moved, 1).tobytes() != env._encode(state, 0).tobytes()
