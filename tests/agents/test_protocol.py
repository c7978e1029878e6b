"""The agent protocol, grown: agents learn the table's rules through ``start_game``,
learned policies refuse a table they were not trained on unless told ``any_table``, results
reach ``end_game``, ``ppo:RUN_DIR`` takes a run folder, ``sample`` plays the masked softmax,
``py:package.module:Class`` names any agent class, and bad specs say what is allowed."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import agents
import card_envs
from agents.base import option_differences, table_options
from agents.heuristic import HeuristicAgent
from agents.ppo import MaskedPolicy, PPOAgent, read_metadata, shipped, write_policy_file

GOLF2 = {"num_players": 2, "num_rounds": 1}


# ----------------------------------------------------------------- helpers and test agents
def flat_policy(obs_size: int, num_actions: int, logits=None, seed: int = 0) -> MaskedPolicy:
    """A policy with one small hidden layer, or (``logits`` given) one whose action logits are
    ``logits`` whatever it observes."""
    if logits is not None:
        head = (np.zeros((num_actions, obs_size), np.float32), np.asarray(logits, np.float32))
        return MaskedPolicy([], head, "Identity")
    rng = np.random.default_rng(seed)
    layer = (rng.standard_normal((8, obs_size)).astype(np.float32) * 0.1, np.zeros(8, np.float32))
    head = (rng.standard_normal((num_actions, 8)).astype(np.float32), np.zeros(num_actions, np.float32))
    return MaskedPolicy([layer], head, "Tanh")


def policy_file(tmp_path, env_name: str, env_config: dict | None, name: str = "p.zip", logits=None,
                sized_for: dict | None = None):
    """A policy file for ``env_name`` recording ``env_config`` (None: no record), its sizes those of
    ``env_config``'s table (or ``sized_for``'s)."""
    env = card_envs.ENVIRONMENTS[env_name].raw_env(**(sized_for or env_config or {}))
    meta = {"env_name": env_name} if env_config is None else {"env_name": env_name, "env_config": env_config}
    return write_policy_file(tmp_path / name, flat_policy(env.observation_layout.size, env.rules.num_actions,
                                                          logits), meta)


class Recorder:
    """Plays uniformly at random and records every hook call in order (one object, any seats)."""

    made: list["Recorder"] = []

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self.seed_given = seed
        self.calls: list[tuple] = []
        Recorder.made.append(self)

    def start_game(self, env_name, config, agent):
        self.calls.append(("start", env_name, dict(config), agent))

    def act(self, observation, agent, env_name):
        self.calls.append(("act", agent))
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))

    def end_game(self, observation, reward, info):
        self.calls.append(("end", observation, reward, dict(info)))


class NoSeed:
    """An agent class whose constructor takes no seed."""

    def act(self, observation, agent, env_name):
        return int(np.flatnonzero(observation["action_mask"])[0])


class NotAnAgent:
    """No act(): not an agent."""


class BrokenAgent:
    def __init__(self, seed=None):
        raise RuntimeError("no weights here")

    def act(self, observation, agent, env_name):
        return 0


def games_of(calls):
    """Split a Recorder's calls into games: each a list starting with its start calls."""
    games, current, ended = [], None, False
    for c in calls:
        if c[0] == "start" and (current is None or ended):
            current, ended = [], False
            games.append(current)
        ended = ended or c[0] == "end"
        current.append(c)
    return games


# ---------------------------------------------------------------------------- table_options
def test_table_options_fill_in_every_default_so_two_spellings_compare_equal():
    full = table_options("golf_v0", {})
    assert full == table_options("golf", dict(full)) == table_options("golf_v0", {"num_players": 4})
    assert full["num_players"] == 4 and full["num_rounds"] is None and full["reward_mode"] == "rank"
    assert table_options("golf_v0", {"render_mode": "ansi"}) == full, "render_mode is no option of the game"
    assert table_options("guillotine_v0", {"trick_rank_order": "french"})["trick_rank_order"] == "french"
    for name, module in card_envs.ENVIRONMENTS.items():
        import dataclasses

        assert set(table_options(name, {})) == {f.name for f in dataclasses.fields(module.raw_env.Rules().config)}


def test_table_options_reject_bad_options_and_games_as_the_game_does():
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        table_options("golf_v0", {"colour": "red"})
    with pytest.raises(ValueError, match="unknown game 'chess'.*golf_v0"):
        table_options("chess", {})


def test_option_differences_name_each_option_with_both_values_and_skip_the_reward_mode():
    diffs = option_differences("golf_v0", {}, {**GOLF2, "reward_mode": "score"})
    assert ("num_players", 4, 2) in diffs and ("num_rounds", None, 1) in diffs
    assert "reward_mode" not in [k for k, _, _ in diffs], "the reward changes the pay, not the game"
    assert option_differences("golf_v0", GOLF2, dict(GOLF2)) == []


# ------------------------------------------------------------------ the hooks' helpers
def test_the_runner_helpers_call_the_hooks_when_present_and_skip_an_agent_with_act_alone():
    from agents.base import end_game, start_game

    r = Recorder()
    start_game(r, "golf_v0", None, "player_1")
    end_game(r, {"observation": np.zeros(1)}, -1, None)
    assert r.calls[0] == ("start", "golf_v0", {}, "player_1")
    assert r.calls[1][0] == "end" and r.calls[1][2] == -1.0 and r.calls[1][3] == {}
    start_game(NoSeed(), "golf_v0", GOLF2, "player_0")  # act() alone is a complete agent
    end_game(NoSeed(), {}, 0.0, {})
    assert isinstance(NoSeed(), agents.Agent)


# ------------------------------------------------- reproduction: PPO never learned the table
def test_the_shipped_golf_policy_refuses_a_default_golf_table_naming_each_differing_option():
    player = agents.load("ppo")
    with pytest.raises(ValueError) as e:
        agents.base.start_game(player, "golf_v0", {}, "player_0")
    text = str(e.value)
    assert "num_players: table 4, training 2" in text and "num_rounds: table None, training 1" in text
    assert "golf_v0.zip" in text and "'ppo,any_table'" in text


def test_the_shipped_golf_policy_refuses_full_games_to_100_unless_told_any_table():
    """The bug: the Golf policy (trained on one round) silently played full games to 100."""
    config = {"num_players": 2}  # same observation size, but the game goes on to 100 points
    with pytest.raises(ValueError, match="num_rounds: table None, training 1"):
        agents.load("ppo").start_game("golf_v0", config, "player_0")
    player = agents.load("ppo,any_table")
    env = card_envs.golf_v0.env(**config)
    env.reset(seed=0)
    for a in env.possible_agents:
        agents.base.start_game(player, "golf_v0", config, a)
    for a in env.agent_iter(20_000):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else player.act(obs, a, "golf_v0"))
    assert not env.agents, "the full game was played to its end"
    agents.load("ppo").start_game("golf_v0", GOLF2, "player_0")  # its own table is fine


def test_the_shipped_guillotine_policy_refuses_the_24_deal_game_unless_told_any_table():
    with pytest.raises(ValueError, match="mode: table 'full', training 'single'"):
        agents.load("ppo").start_game("guillotine_v0", {}, "player_3")
    player = agents.load("ppo,any_table", seed=1)
    player.start_game("guillotine_v0", {}, "player_3")
    env = card_envs.guillotine_v0.env()
    env.reset(seed=0)
    for a in env.agent_iter(300):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else player.act(obs, a, "guillotine_v0"))


def test_a_guilders_policy_trained_with_jokers_refuses_a_table_without_them(tmp_path):
    """The bug: ``evaluate guilders_v0 ppo:RUN/final.zip random --players 5`` ran silently
    with a policy trained with good and evil jokers (the observation has the same size)."""
    trained = {"num_players": 5, "good_joker": True, "evil_joker": True}
    path = policy_file(tmp_path, "guilders_v0", trained)
    with pytest.raises(ValueError) as e:
        agents.load(f"ppo:{path}").start_game("guilders_v0", {"num_players": 5}, "player_0")
    text = str(e.value)
    assert "good_joker: table False, training True" in text and "evil_joker: table False, training True" in text
    assert "num_players" not in text.split("options than this table's")[1].split(". Play")[0]
    assert f"ppo:{path},any_table" in text
    agents.load(f"ppo:{path}").start_game("guilders_v0", trained, "player_0")
    agents.load(f"ppo:{path},any_table").start_game("guilders_v0", {"num_players": 5}, "player_0")


def test_the_table_check_ignores_the_reward_mode_and_refuses_another_game(tmp_path):
    path = policy_file(tmp_path, "golf_v0", GOLF2)
    player = agents.load(f"ppo:{path}")
    player.start_game("golf_v0", {**GOLF2, "reward_mode": "score"}, "player_0")
    with pytest.raises(ValueError, match="trained on golf_v0, not hot_v0"):
        player.start_game("hot_v0", {}, "player_0")
    with pytest.raises(ValueError, match="trained on golf_v0, not hot_v0"):
        agents.load(f"ppo:{path},any_table").start_game("hot_v0", {}, "player_0")


def test_a_policy_without_recorded_training_options_is_refused_unless_any_table(tmp_path):
    path = policy_file(tmp_path, "golf_v0", None)  # made for the default table's observations
    with pytest.raises(ValueError, match="no record of the table options it was trained with.*any_table"):
        agents.load(f"ppo:{path}").start_game("golf_v0", {}, "player_0")
    agents.load(f"ppo:{path},any_table").start_game("golf_v0", {}, "player_0")
    # any_table does not make a policy read observations of another size: refused at the start
    with pytest.raises(ValueError, match="cannot play.*size 743.*403"):
        agents.load(f"ppo:{path},any_table").start_game("golf_v0", GOLF2, "player_0")
    bare = PPOAgent.from_policy(flat_policy(403, 10), {"env_name": "golf_v0"}, name="snap")
    with pytest.raises(ValueError, match="any_table=True"):
        bare.start_game("golf_v0", GOLF2, "player_0")


@pytest.mark.parametrize("env_name", shipped())
def test_every_shipped_policy_records_its_training_options_and_accepts_its_own_table(env_name):
    meta = read_metadata(agents.ppo.PRETRAINED_DIR / f"{env_name}.zip")
    assert meta["env_name"] == env_name and isinstance(meta["env_config"], dict)
    env = card_envs.ENVIRONMENTS[env_name].raw_env(**meta["env_config"])
    assert env.observation_layout.size == meta["obs_size"]
    agents.load("ppo").start_game(env_name, meta["env_config"], "player_0")


def test_a_saved_policy_records_the_full_table_options(tmp_path):
    meta = read_metadata(policy_file(tmp_path, "golf_v0", GOLF2))
    assert meta["table_options"] == table_options("golf_v0", GOLF2)


def test_the_rllib_agent_checks_the_table_the_same_way():
    from agents.rllib_agent import RLlibAgent

    class Module:  # no RLlib needed: the check reads the metadata only
        observation_space = None

    agent = RLlibAgent(Module(), {"env_name": "golf_v0", "env_config": GOLF2})
    agent.start_game("golf_v0", GOLF2, "player_0")
    with pytest.raises(ValueError, match="num_rounds: table None, training 1"):
        agent.start_game("golf_v0", {"num_players": 2}, "player_0")
    with pytest.raises(ValueError, match="trained on golf_v0, not hot_v0"):
        agent.start_game("hot_v0", {}, "player_0")
    RLlibAgent(Module(), {"env_name": "golf_v0", "env_config": GOLF2}, any_table=True).start_game(
        "golf_v0", {"num_players": 2}, "player_0")
    with pytest.raises(ValueError, match="no record"):
        RLlibAgent(Module(), {}).start_game("golf_v0", GOLF2, "player_0")


# ------------------------------------------------------- reproduction: the heuristic's rules
def test_the_heuristic_plays_by_the_options_start_game_gives_it():
    """The bug: the heuristic assumed the default rules unless setup() was called (Guillotine
    with trick_rank_order="french" gave a margin of ~0.40 instead of ~0.54)."""
    config = {"mode": "single", "trick_rank_order": "french"}
    told, untold, alias = HeuristicAgent(seed=0), HeuristicAgent(seed=0), HeuristicAgent(seed=0)
    agents.base.start_game(told, "guillotine_v0", config, "player_0")
    alias.setup("guillotine_v0", config)  # the deprecated name does the same
    env = card_envs.guillotine_v0.env(**config)
    differ = 0
    for g in range(20):
        env.reset(seed=g)
        for a in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            choice = told.act(obs, a, "guillotine_v0")
            assert alias.act(obs, a, "guillotine_v0") == choice
            differ += untold.act(obs, a, "guillotine_v0") != choice
            env.step(choice)
    assert told.decoder("guillotine_v0", 660).rules.config.trick_rank_order == "french"
    assert differ > 0, "told nothing, it plays by other rules: that is why runners call start_game"


def test_the_heuristic_refuses_an_observation_that_does_not_fit_the_table_it_was_told():
    h = HeuristicAgent(seed=0)
    h.start_game("golf_v0", {"num_players": 3}, "player_0")
    env = card_envs.golf_v0.env(**GOLF2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="does not fit the table options"):
        h.act(env.observe(env.agent_selection), env.agent_selection, "golf_v0")
    h.start_game("golf_v0", GOLF2, "player_0")  # a new table: it follows
    assert env.last()[0]["action_mask"][h.act(env.observe(env.agent_selection), env.agent_selection, "golf_v0")]


# ---------------------------------------------------------------- runners call the hooks
def test_training_opponents_get_start_game_before_and_their_own_total_reward_after_each_game():
    from training.single_agent import SingleAgentEnv

    Recorder.made.clear()
    config = {"num_players": 3, "num_rounds": 1, "reward_mode": "score"}
    env = SingleAgentEnv("golf_v0", config, opponents=["py:tests.agents.test_protocol:Recorder"])
    rec = Recorder.made[-1]
    rng = np.random.default_rng(0)
    learner_returns = []
    for episode in range(4):
        env.reset(seed=episode if episode == 0 else None)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, info = env.step(int(rng.choice(legal)))
            done = term or trunc
        learner_returns.append(info["game_reward"])
    games = games_of(rec.calls)
    assert len(games) == 4
    for g, learner_return in zip(games, learner_returns):
        starts = [c for c in g if c[0] == "start"]
        ends = [c for c in g if c[0] == "end"]
        assert len(starts) == 2 and len({c[3] for c in starts}) == 2, "one start per seat it holds"
        assert all(c[1] == "golf_v0" and c[2] == config for c in starts)
        assert [c[0] for c in g[:2]] == ["start", "start"] and g[-1][0] == "end"
        assert len(ends) == 2
        for _, obs, reward, info in ends:
            assert set(obs) == {"observation", "action_mask"} and {"score", "rank"} <= set(info)
        # score rewards are zero-sum: the learner's return and the two seats' totals add to 0
        assert learner_return + sum(c[2] for c in ends) == pytest.approx(0.0, abs=1e-9)


def test_a_rank_reward_game_reports_the_winner_and_the_loser_to_their_seats():
    from training.single_agent import SingleAgentEnv

    Recorder.made.clear()
    env = SingleAgentEnv("golf_v0", GOLF2, opponents=["py:tests.agents.test_protocol:Recorder"])
    rec = Recorder.made[-1]
    env.reset(seed=3)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    (_, _, reward, their_info), = [c for c in rec.calls if c[0] == "end"]
    assert reward == -info["game_reward"]
    if reward == 0:  # a tie: both first
        assert their_info["rank"] == info["rank"] == 1
    else:  # +1 for the winner (rank 1), -1 for the loser (rank 2)
        assert {their_info["rank"], info["rank"]} == {1, 2} and (their_info["rank"] == 1) == (reward > 0)


def test_a_frozen_self_knows_its_training_table_and_a_foreign_ppo_opponent_is_refused(tmp_path):
    from training.single_agent import SingleAgentEnv

    env = SingleAgentEnv("golf_v0", {**GOLF2, "reward_mode": "score"}, opponents=["self"])
    env.add_snapshot("self_0", flat_policy(403, 10))
    env.reset(seed=0)  # the snapshot's start_game passes: its options are the run's
    path = policy_file(tmp_path, "golf_v0", {"num_players": 2})
    foreign = SingleAgentEnv("golf_v0", GOLF2, opponents=[f"ppo:{path}"])
    with pytest.raises(ValueError, match="num_rounds: table 1, training None"):
        foreign.reset(seed=0)


def test_terminal_play_calls_the_hooks_of_every_opponent_seat():
    import io

    from agents.play import play

    Recorder.made.clear()
    config = {"num_players": 3, "num_rounds": 1}
    out = io.StringIO()
    info = play("golf_v0", ["py:tests.agents.test_protocol:Recorder"], config, seat=1, seed=2,
                input_fn=lambda prompt: _first_legal(out.getvalue()), out=out)
    assert info is not None
    recs = Recorder.made[-2:]
    for rec, seat in zip(recs, ["player_0", "player_2"]):
        assert rec.calls[0] == ("start", "golf_v0", config, seat)
        assert rec.calls[-1][0] == "end" and {"score", "rank"} <= set(rec.calls[-1][3])
        assert all(c[0] == "act" for c in rec.calls[1:-1])
    assert "Game over" in out.getvalue()


def _first_legal(text: str) -> str:
    line = text.rsplit("your actions: ", 1)[1].splitlines()[0]
    return line.split("[", 1)[1].split("]", 1)[0]


# ---------------------------------------------------------------------- ppo:RUN_DIR
def test_ppo_takes_a_run_folder_and_plays_its_final_policy(tmp_path):
    run = tmp_path / "runs" / "golf_v0" / "r1"
    (run / "checkpoints").mkdir(parents=True)
    final = policy_file(run, "golf_v0", GOLF2, "final.zip")
    policy_file(run / "checkpoints", "golf_v0", GOLF2, "step_0000001024.zip")
    player = agents.load(f"ppo:{run}")
    assert player.path == final and player.policy_file("golf_v0") == final and player.name == f"ppo:{run}"
    player.start_game("golf_v0", GOLF2, "player_0")


def test_a_run_folder_that_never_finished_plays_its_newest_checkpoint_with_a_warning(tmp_path):
    run = tmp_path / "r"
    (run / "checkpoints").mkdir(parents=True)
    policy_file(run / "checkpoints", "golf_v0", GOLF2, "step_0000001024.zip")
    newest = policy_file(run / "checkpoints", "golf_v0", GOLF2, "step_0000002048.zip")
    with pytest.warns(UserWarning, match="no final.zip"):
        player = agents.load(f"ppo:{run}")
    assert player.path == newest


def test_a_folder_without_a_policy_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no final.zip and no checkpoints"):
        agents.load(f"ppo:{tmp_path}")
    with pytest.raises(FileNotFoundError, match="no policy file"):
        agents.load(f"ppo:{tmp_path / 'missing'}")


# ------------------------------------------------------------------------- sample mode
def test_ppo_plays_argmax_by_default_and_samples_the_masked_softmax_with_sample(tmp_path):
    logits = np.log(np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05, 1e-9, 1e-9, 1e-9, 1e-9]))
    path = policy_file(tmp_path, "golf_v0", GOLF2, logits=logits)
    mask = np.array([0, 1, 1, 1, 0, 1, 0, 0, 0, 0], np.int8)  # the best action (0) is illegal
    obs = {"observation": np.zeros(403, np.float32), "action_mask": mask}
    greedy, explicit = agents.load(f"ppo:{path}", seed=0), agents.load(f"ppo:{path},greedy", seed=0)
    assert {greedy.act(obs, "player_0", "golf_v0") for _ in range(50)} == {1}
    assert explicit.act(obs, "player_0", "golf_v0") == 1 and greedy.deterministic and explicit.deterministic
    sampler = agents.load(f"ppo:{path},sample", seed=7)
    assert sampler.name == f"ppo:{path},sample" and not sampler.deterministic
    draws = np.array([sampler.act(obs, "player_0", "golf_v0") for _ in range(4000)])
    assert set(draws) <= {1, 2, 3, 5}, "never an illegal action"
    p = np.array([0.2, 0.1, 0.1, 0.05]) / 0.45
    freq = np.array([(draws == a).mean() for a in (1, 2, 3, 5)])
    assert np.abs(freq - p).max() < 0.03
    again = agents.load(f"ppo:{path},sample", seed=7)
    assert [again.act(obs, "player_0", "golf_v0") for _ in range(200)] == list(draws[:200]), "seeded"


def test_the_shipped_policy_takes_the_sample_flag():
    player = agents.load("ppo,sample", seed=0)
    assert not player.deterministic and player.name == "ppo,sample"
    env = card_envs.golf_v0.env(**GOLF2)
    env.reset(seed=0)
    player.start_game("golf_v0", GOLF2, env.agent_selection)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][player.act(obs, env.agent_selection, "golf_v0")]


# ---------------------------------------------------------------------- py:module:Class
def test_a_custom_agent_class_has_a_spec_and_gets_the_seed_when_it_takes_one():
    a = agents.load("py:tests.agents.test_protocol:Recorder", seed=11)
    assert isinstance(a, Recorder) and a.seed_given == 11
    b = agents.load("py:tests.agents.test_protocol:NoSeed", seed=11)
    assert isinstance(b, NoSeed)


def test_a_custom_agent_in_a_python_file_loads_too(tmp_path):
    path = tmp_path / "my_agent.py"
    path.write_text("class First:\n    def act(self, observation, agent, env_name):\n        return 0\n")
    assert type(agents.load(f"py:{path}:First")).__name__ == "First"


@pytest.mark.parametrize("spec, message", [
    ("py:tests.agents.test_protocol", "write py:package.module:Class"),
    ("py:no_such_module_here:Agent", "cannot import module 'no_such_module_here'"),
    ("py:tests.agents.test_protocol:Nobody", "has no 'Nobody'.*Recorder"),
    ("py:tests.agents.test_protocol:NotAnAgent", "no act\\(\\) method"),
    ("py:tests.agents.test_protocol:BrokenAgent", "constructing BrokenAgent\\(seed=None\\) failed: RuntimeError: no weights"),
    ("py:/nowhere/agent.py:A", "no Python file"),
    ("py:", "needs an argument"),
])
def test_a_bad_custom_agent_spec_names_the_problem(spec, message):
    with pytest.raises(ValueError, match=message):
        agents.load(spec)


# ------------------------------------------------------------------------------ bad specs
@pytest.mark.parametrize("spec, message", [
    ("genius", "unknown agent spec 'genius'.*allowed forms: random, heuristic, ppo, ppo:PATH, rllib:PATH, py:"),
    ("ppo,stochastic", "unknown flag 'stochastic' \\(flags: greedy, sample, any_table\\)"),
    ("heuristic,sample", "for learned policies \\(ppo, rllib\\), not heuristic"),
    ("random:3", "random takes no argument"),
    ("ppo,sample,greedy", "contradict"),
    ("ppo:", "needs a PATH"),
    ("rllib", "rllib needs an argument"),
    ("", "non-empty string"),
    (None, "non-empty string"),
])
def test_a_bad_spec_is_a_value_error_naming_the_problem_and_the_forms(spec, message):
    with pytest.raises(ValueError, match=message):
        agents.load(spec)


def test_parse_spec_splits_kind_argument_and_flags():
    assert agents.parse_spec("ppo:runs/golf_v0/r1,sample,any_table") == ("ppo", "runs/golf_v0/r1",
                                                                         frozenset({"sample", "any_table"}))
    assert agents.parse_spec("py:pkg.mod:Cls") == ("py", "pkg.mod:Cls", frozenset())
    assert agents.parse_spec(" heuristic ") == ("heuristic", "", frozenset())
    assert json.dumps(sorted(agents.parse_spec("ppo,any_table")[2])) == '["any_table"]'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agents.load("ppo,any_table").any_table
