"""Every game as an OpenSpiel game: the same game as ``raw_env()``, step by step.

The differential test plays random games through both (the env's own draws fed to OpenSpiel as
chance outcomes) and compares, at every step, who acts, the legal actions, every seat's
observation tensor and the rewards; OpenSpiel's own consistency checks (``random_sim_test``, with
serialization) run on every game; the observer keeps the library's promise (redrawing every card
a seat cannot see changes nothing it observes).
"""

from __future__ import annotations

import dataclasses
import os
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (pip install -e '.[openspiel]')")

import card_envs  # noqa: E402
import card_envs.openspiel as O  # noqa: E402
from card_envs.generators import copy_generator  # noqa: E402
from card_envs.openspiel.chance import RecordingGenerator  # noqa: E402
from card_envs.openspiel.game import options_from, parameter_specification  # noqa: E402
from card_envs.openspiel.limits import LIMITS  # noqa: E402
from card_envs.openspiel.seats import SEATS  # noqa: E402
from tests import cases  # noqa: E402

#: two tables per game: a small one and the benchmark protocol's (or another option set)
TABLES = {
    "golf_v0": [{"num_players": 2, "num_rounds": 1}, {"num_players": 3, "num_rounds": 2, "reward_mode": "score",
                                                      "flip_after_discard": "may"}],
    "fiddlesticks_v0": [{"num_players": 2}, {"num_players": 3, "voluntary_pickup": True}],
    "guillotine_v0": [{"mode": "single"}, {"mode": "single", "contract": "domino", "reward_mode": "score"}],
    "collector_v0": [{"num_players": 2, "max_rounds": 100}, {"num_players": 3, "dealer": "random"}],
    "hot_v0": [{"num_players": 2, "single_deal": True}, {"num_players": 3, "target_points": 5}],
    "guilders_v0": [{"num_players": 2}, {"num_players": 3, "evil_joker": True, "good_joker": True,
                                         "chaotic_joker": True, "refan_discards": 1}],
}
GAMES_PER_TABLE = int(os.environ.get("CARD_ENVS_OPENSPIEL_GAMES", "3"))


def play_both(name: str, options: dict, seed: int) -> int:
    """One random game through ``raw_env`` and through OpenSpiel, compared at every step;
    returns the steps compared."""
    env = card_envs.ENVIRONMENTS[name].raw_env(**options)
    recorder = RecordingGenerator(np.random.default_rng(seed))
    env._rng = recorder  # reset() without a seed draws from the env's generator: record its draws
    env.reset()
    state = O.load_game(name, options).new_initial_state()
    fed = 0

    def feed() -> None:
        nonlocal fed
        outcomes = recorder.outcomes()
        while state.is_chance_node():
            assert fed < len(outcomes), "OpenSpiel asks for a draw the env did not make"
            legal = {o for o, _ in state.chance_outcomes()}
            assert outcomes[fed] in legal
            state.apply_action(outcomes[fed])
            fed += 1

    feed()
    agents = env.possible_agents
    rng = np.random.default_rng(seed + 1)
    returns = np.zeros(len(agents))
    steps = 0
    while True:
        done = all(env.terminations.values()) or all(env.truncations.values())
        assert state.is_terminal() == done, f"step {steps}: terminal {state.is_terminal()} vs env {done}"
        if done:
            break
        seat = agents.index(env.agent_selection)
        assert state.current_player() == seat, f"step {steps}"
        mask = env.observe(env.agent_selection)["action_mask"]
        assert state.legal_actions() == np.flatnonzero(mask).tolist(), f"step {steps}"
        for p, agent in enumerate(agents):
            ours = np.asarray(state.observation_tensor(p), dtype=np.float32)
            assert np.array_equal(ours, env.observe(agent)["observation"]), f"step {steps}, seat {p}"
        for a in state.legal_actions()[:3]:
            assert state.action_to_string(seat, a) == env.action_to_string(a)
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        state.apply_action(action)
        feed()
        step_rewards = [env.rewards[a] for a in agents]
        assert state.rewards() == pytest.approx(step_rewards, abs=0), f"step {steps}"
        returns += step_rewards
        steps += 1
    assert state.returns() == pytest.approx(returns.tolist(), abs=1e-12)
    assert fed == len(recorder.outcomes()), "every draw of the env was a chance event"
    return steps


@pytest.mark.parametrize("name", list(TABLES))
def test_the_openspiel_game_plays_exactly_as_the_env(name):
    steps = 0
    for k, options in enumerate(TABLES[name]):
        for seed in range(GAMES_PER_TABLE):
            steps += play_both(name, options, 1000 * k + seed)
    assert steps > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TABLES))
def test_the_openspiel_game_plays_exactly_as_the_env_in_many_games(name):
    for k, options in enumerate(TABLES[name]):
        for seed in range(80):  # with the default suite's, about a thousand games in all
            play_both(name, options, 50_000 + 1000 * k + seed)


# ------------------------------------------------------------------------ registration, parameters
def test_every_game_is_registered_with_its_options_as_parameters():
    registered = set(pyspiel.registered_names())
    assert set(O.GAMES.values()) <= registered
    assert list(O.GAMES) == [n for n in card_envs.ENVIRONMENTS if n in LIMITS and n in SEATS], \
        "every registered game whose limits and seats are declared is offered"
    for name, short in O.GAMES.items():
        game = pyspiel.load_game(short)
        config = card_envs.ENVIRONMENTS[name].raw_env().rules.config
        params = game.get_parameters()
        assert set(params) == {f.name for f in dataclasses.fields(config)}
        assert options_from(params, type(config)) == {f.name: f.default for f in dataclasses.fields(config)}
        assert game.num_distinct_actions() == card_envs.ENVIRONMENTS[name].raw_env().rules.num_actions
        assert parameter_specification(type(config)) == params


def test_a_game_without_its_openspiel_facts_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(O, "GAMES", {n: g for n, g in O.GAMES.items() if n != "golf_v0"})
    with pytest.raises(ValueError, match="golf_v0 is not offered to OpenSpiel yet: declare its limits"):
        O.load_game("golf")


def test_parameters_keep_names_and_types_and_a_bad_one_is_the_envs_error():
    game = pyspiel.load_game("card_envs_guillotine", {"mode": "single"})
    assert game.num_players() == 4 and game.get_parameters()["mode"] == "single"
    golf = O.load_game("golf", {"num_players": 3, "dealer": "random", "num_rounds": 2})
    assert golf.get_parameters()["dealer"] == -1 and golf.get_parameters()["num_rounds"] == 2
    assert golf.table.options["dealer"] == "random" and golf.num_players() == 3
    with pytest.raises(ValueError, match="num_players"):
        pyspiel.load_game("card_envs_golf", {"num_players": 1})
    with pytest.raises(ValueError, match="flip_after_discard"):
        pyspiel.load_game("card_envs_golf", {"flip_after_discard": "sometimes"})
    with pytest.raises(Exception, match="Unknown parameter"):
        pyspiel.load_game("card_envs_golf", {"num_player": 3})


# ------------------------------------------------------------------------ chance
def test_chance_nodes_deal_card_by_card_with_exact_probabilities():
    state = O.load_game("golf", {"num_players": 2, "num_rounds": 1, "dealer": "random"}).new_initial_state()
    assert state.is_chance_node()
    seats = state.chance_outcomes()
    assert [o for o, _ in seats] == [0, 1] and all(p == 0.5 for _, p in seats), "the dealer: one of two seats"
    state.apply_action(1)
    for left in range(52, 1, -1):
        outcomes = state.chance_outcomes()
        assert len(outcomes) == left and sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert all(p == 1.0 / left for _, p in outcomes)
        state.apply_action(outcomes[0][0])
    assert not state.is_chance_node() and state.rules_state.dealer == 1
    with pytest.raises(Exception):
        O.load_game("golf").new_initial_state().apply_action(99)  # not a seat


def test_a_draw_during_the_game_is_a_chance_event_too():
    """Golf's later rounds are dealt after players' actions: a full shuffle, card by card."""
    state = O.load_game("golf", {"num_players": 2, "num_rounds": 3}).new_initial_state()
    rng = np.random.default_rng(3)
    widest_after_first_action = 0
    acted = False
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if acted:
                widest_after_first_action = max(widest_after_first_action, len(outcomes))
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            acted = True
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert widest_after_first_action == 52, "a later round's deal: every card a chance outcome"


# ------------------------------------------------------------------------ OpenSpiel's checks
@pytest.mark.parametrize("name", list(TABLES))
def test_openspiels_consistency_checks_pass(name):
    """On both tables; the first also round-trips every state through OpenSpiel's serialization
    (which replays the whole history at each step, so it is kept to the smaller table)."""
    for k, options in enumerate(TABLES[name]):
        pyspiel.random_sim_test(O.load_game(name, options), num_sims=2, serialize=k == 0, verbose=False)


def test_states_clone_and_pickle_as_their_history():
    state = O.load_game("collector", {"num_players": 3}).new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(80):
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[rng.integers(len(state.chance_outcomes()))][0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    twin = pickle.loads(pickle.dumps(state))
    assert twin.history() == state.history() and str(twin) == str(state)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0] if not clone.is_chance_node() else clone.chance_outcomes()[0][0])
    assert len(state.history()) == 80 and len(clone.history()) == 81, "a clone is independent"
    game = pickle.loads(pickle.dumps(state.get_game()))
    assert game.get_parameters() == state.get_game().get_parameters()


# ------------------------------------------------------------------------ the observer
def _seen_by(state, seat):
    """Everything OpenSpiel shows ``seat``: observation and information state (tensor and
    string), and its private observation."""
    from open_spiel.python.observation import make_observation

    private = make_observation(state.get_game(), pyspiel.IIGObservationType(
        public_info=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER, perfect_recall=False))
    return (state.observation_tensor(seat), state.observation_string(seat), state.information_state_tensor(seat),
            state.information_state_string(seat), private.string_from(state, seat))


@pytest.mark.parametrize("name", list(TABLES))
def test_the_observer_never_shows_a_card_its_seat_cannot_see(name):
    """Every card a seat cannot see redrawn (``tests/cases``' resampler): that seat's observation,
    information state (tensor and string) and private observation stay exactly the same, and stay
    so while the true game and its twin go on with the same actions, as long as none of them turns
    up to the seat a card it could not see (the rules' ``reveals``) and no card is drawn."""
    options = TABLES[name][0]
    game = O.load_game(name, options)
    rules = game.table.rules
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    checked = changed = followed = 0
    while not state.is_terminal() and checked < 60:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        for seat in range(game.num_players()):
            twin = state.clone()
            twin._s = cases.resample_hidden(rules, state.rules_state, seat, rng)
            twin._s.rng = copy_generator(state.rules_state.rng)  # later draws: chance nodes, as in the truth
            changed += twin._s is not None and twin.__str__() != state.__str__()
            assert _seen_by(twin, seat) == _seen_by(state, seat), seat
            checked += 1
            truth = state.clone()
            for _ in range(4):  # the twin world goes on
                if truth.is_terminal() or truth.is_chance_node() or twin.is_chance_node():
                    break
                action = int(rng.choice(truth.legal_actions()))
                if action not in twin.legal_actions() or rules.reveals(truth.rules_state, action, seat):
                    break
                truth.apply_action(action)
                twin.apply_action(action)
                if truth.is_chance_node() or twin.is_chance_node():
                    break
                assert _seen_by(twin, seat) == _seen_by(truth, seat), (seat, action)
                followed += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 0 and changed > 0 and followed > 0, "some worlds differed in hidden cards"


# ------------------------------------------------------------------------ resampling
def test_resampled_states_are_worlds_the_player_cannot_tell_from_the_truth():
    """``resample_from_infostate``: the player's observation, information state (string and
    tensor) and legal actions are the truth's; the world is whole: it plays on, clones, pickles and
    goes through OpenSpiel's serialization with its history (the actions since it was sampled)."""
    game = O.load_game("guilders", {"num_players": 3})
    rng = np.random.default_rng(2)
    state = game.new_initial_state()
    resampled = differ = 0
    while not state.is_terminal() and resampled < 12:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        p = state.current_player()
        world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(resampled, 0.0, 1.0))
        assert world.current_player() == p and world.legal_actions() == state.legal_actions()
        for f in ("observation_tensor", "observation_string", "information_state_tensor", "information_state_string"):
            assert getattr(world, f)(p) == getattr(state, f)(p), f
        differ += str(world) != str(state)
        assert world.history() == [] and world.returns() == state.returns()
        for _ in range(3):  # it plays on, and stays whole
            if world.is_terminal():
                break
            if world.is_chance_node():
                world.apply_action(world.chance_outcomes()[0][0])
            else:
                world.apply_action(world.legal_actions()[-1])
        for twin in (pickle.loads(pickle.dumps(world)), game.deserialize_state(world.serialize()), world.clone()):
            assert twin.history() == world.history() and str(twin) == str(world)
            assert [twin.information_state_string(q) for q in range(3)] == \
                [world.information_state_string(q) for q in range(3)]
            assert twin.returns() == world.returns() and twin.current_player() == world.current_player()
        resampled += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert resampled > 0 and differ > 0
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL, "rank rewards: at the end"
    assert O.load_game("guilders", {"reward_mode": "score"}).get_type().reward_model == \
        pyspiel.GameType.RewardModel.REWARDS
    with pytest.raises(ValueError, match="chance nodes"):
        game.new_initial_state().resample_from_infostate(0)
    with pytest.raises(ValueError, match="not a player"):
        state.resample_from_infostate(3)


def _shows_unseen(rules, state, action: int, seat: int) -> bool:
    """Whether ``action`` shows ``seat`` a card its observation does not carry: the rules'
    ``reveals``, and Golf's take from the discard pile, which uncovers the card under the top (the
    observation keeps the pile's ranks, not their order, so a world drawn from it may hold another
    card there)."""
    from card_envs.golf.rules import GolfRules, TAKE_DISCARD

    return bool(rules.reveals(state, action, seat)) or (isinstance(rules, GolfRules) and action == TAKE_DISCARD)


@pytest.mark.parametrize("name", list(TABLES))
def test_a_resampled_world_is_searched_like_the_truth(name):
    """IS-MCTS keys its tree by the information state: in every world it samples, the searching
    player's information state is the truth's at the root and after each action of the search that
    shows it no card its observation does not carry."""
    game = O.load_game(name, TABLES[name][1])
    rules = game.table.rules
    rng = np.random.default_rng(4)
    searched = 0
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history()) < 300:
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[rng.integers(len(state.chance_outcomes()))][0])
                continue
            p = state.current_player()
            if rng.random() < 0.2:
                world = state.resample_from_infostate(p, np.random.RandomState(searched).random_sample)
                truth = state.clone()
                assert world.information_state_string(p) == truth.information_state_string(p)
                for _ in range(4):
                    legal = [x for x in truth.legal_actions() if x in world.legal_actions()
                             and not _shows_unseen(rules, truth.rules_state, x, p)]
                    if not legal:
                        break
                    a = legal[rng.integers(len(legal))]
                    truth.apply_action(a)
                    world.apply_action(a)
                    if truth.is_chance_node() or world.is_chance_node() or truth.is_terminal():
                        break
                    assert world.information_state_string(p) == truth.information_state_string(p)
                    assert world.information_state_tensor(p) == truth.information_state_tensor(p)
                    searched += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    if name != "guilders_v0":  # every Guilders call draws a card: it shows the caller one
        assert searched > 0


def test_openspiels_search_plays_this_librarys_heuristic_and_the_reverse():
    from agents.openspiel import AgentBot, openspiel_bot, play
    from training.evaluate import tournament

    game = O.load_game("golf", {"num_players": 2, "num_rounds": 1})
    for kind in ("ismcts", "mcts"):
        returns = play(game, [openspiel_bot(kind, game, 0, simulations=10, seed=1), AgentBot("heuristic", game, 1)],
                       seed=3)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    result = tournament("golf_v0", ["openspiel:ismcts:simulations=8", "heuristic"], 2,
                        {"num_players": 2, "num_rounds": 1}, field=True)
    assert result.summary()[0]["games"] == 2
    import agents

    with pytest.raises(ValueError, match="ismcts, mcts, random"):
        agents.load("openspiel:alphazero")
    with pytest.raises(ValueError, match="simulations"):
        agents.load("openspiel:ismcts:depth=3")


class _Recorded:
    """A bot that notes every decision of the bot it wraps."""

    def __init__(self, bot):
        self.bot, self.decisions = bot, []

    def step(self, state):
        action = int(self.bot.step(state))
        self.decisions.append(action)
        return action


def test_openspiels_ismcts_decides_the_same_for_the_same_seed():
    """A ``seed`` key in an agent spec is taken (and wins over the caller's seed); IS-MCTS searches worlds
    drawn from its seed, so the same seed makes the same decisions: OpenSpiel's bot at an
    OpenSpiel table, this library's agent seated through ``AgentBot``, and a tournament."""
    import agents
    from agents.openspiel import AgentBot, openspiel_bot, play
    from training.evaluate import tournament

    assert agents.load("openspiel:ismcts:seed=1").keys == {"seed": 1}
    assert agents.load("openspiel:ismcts:simulations=8,seed=3", seed=5).keys == {"simulations": 8, "seed": 3}
    assert agents.load("openspiel:mcts", seed=5).keys == {"seed": 5}
    game = O.load_game("golf", {"num_players": 2, "num_rounds": 1})

    def run(make):
        bots = [_Recorded(make(0)), _Recorded(AgentBot("heuristic", game, 1))]
        returns = play(game, bots, seed=3)
        return bots[0].decisions, returns

    for make in (lambda p: openspiel_bot("ismcts", game, p, simulations=12, seed=1),
                 lambda p: AgentBot("openspiel:ismcts:simulations=12,seed=1", game, p)):
        first, second = run(make), run(make)
        assert first == second and len(first[0]) > 5
    other = run(lambda p: openspiel_bot("ismcts", game, p, simulations=12, seed=2))
    assert other != first, "another seed searches other worlds"
    table = {"num_players": 2, "num_rounds": 1}
    summaries = [repr(tournament("golf_v0", ["openspiel:ismcts:simulations=8,seed=1", "heuristic"], 2,
                                 table).summary()) for _ in range(2)]  # repr: nan == nan
    assert summaries[0] == summaries[1]


def test_two_evaluation_runs_of_openspiels_ismcts_give_one_summary(capsys):
    """``python -m training.evaluate golf "openspiel:ismcts:simulations=20,seed=1" heuristic``, run
    twice: the same result table (its timing line aside)."""
    from training.evaluate import main

    argv = ["golf", "openspiel:ismcts:simulations=20,seed=1", "heuristic", "--games", "2",
            "--config", "num_players=2", "num_rounds=1", "--workers", "1"]
    tables = []
    for _ in range(2):
        assert main(argv) == 0
        out = capsys.readouterr().out
        tables.append([line for line in out.splitlines() if " games in " not in line])
    assert tables[0] == tables[1] and any("openspiel:ismcts" in line for line in tables[0])


def test_an_openspiel_learner_trains_on_a_game_and_plays_in_this_librarys_evaluation():
    pytest.importorskip("torch")
    pytest.importorskip("tree")
    from training.evaluate import evaluate_against
    from training.openspiel_nfsp import NFSPAgent, train

    learners, run = train("golf", minutes=0.05, progress=False)
    assert run["episodes"] > 0 and run["decisions"] > 0 and len(learners) == 2
    row = evaluate_against("golf_v0", run["table"], NFSPAgent(learners), "random", 4, seed=0)
    assert row["games"] == 4 and -1.0 <= row["mean_reward"] <= 1.0
