"""The batched learner view (training/batched.py) against the single-game view it replaces.

The same stacked deals, the same deterministic opponents and learner: every learner step of every
game's first episode must give the same observation, mask, reward, end and final info as
``SingleAgentEnv`` (the reward attribution, seat rotation and hooks are the same), for every game,
in games whose opponents move first and with per-step (score-mode) rewards.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from agents.ppo import MaskedPolicy, PPOAgent  # noqa: E402
from training.batched import BatchedLearnerView  # noqa: E402
from training.single_agent import SingleAgentEnv  # noqa: E402

#: per game: a table with opponents before the learner and per-step rewards where the game has them
TABLES = {
    "golf_v0": {"num_players": 3, "num_rounds": 1, "reward_mode": "score"},
    "fiddlesticks_v0": {"num_players": 3},
    "guillotine_v0": {"mode": "single", "reward_mode": "score"},
    "collector_v0": {"num_players": 3, "max_rounds": 40},
    "hot_v0": {"num_players": 3, "single_deal": True, "reward_mode": "score"},
    "guilders_v0": {"num_players": 3, "reward_mode": "score"},
}


def hashed_choice(observation: np.ndarray, mask: np.ndarray, salt: int) -> int:
    """A deterministic but varied legal action: a function of the observation's bytes only."""
    legal = np.flatnonzero(mask)
    h = int(np.frombuffer(np.ascontiguousarray(observation, dtype=np.float32).tobytes(), dtype=np.uint8)
            .astype(np.int64) @ np.arange(1, observation.size * 4 + 1)) + salt
    return int(legal[h % len(legal)])


class HashAgent:
    """An opponent that plays ``hashed_choice`` and records the protocol's hooks."""

    name = "hash"

    def __init__(self):
        self.started, self.ended = [], []

    def start_game(self, env_name, config, agent):
        self.started.append(agent)

    def end_game(self, observation, reward, info):
        self.ended.append((round(float(reward), 6), info["rank"]))

    def act(self, observation, agent, env_name):
        return hashed_choice(observation["observation"], observation["action_mask"], 7)


def random_policy(obs_size: int, num_actions: int, seed: int) -> MaskedPolicy:
    rng = np.random.default_rng(seed)
    return MaskedPolicy([(rng.normal(size=(32, obs_size)) * 0.3, rng.normal(size=32))],
                        (rng.normal(size=(num_actions, 32)), rng.normal(size=num_actions)), "Tanh")


def decks_for(env_name: str, config: dict, n: int, seed: int) -> list[list[int]]:
    rules = card_envs.ENVIRONMENTS[env_name].raw_env(**config).rules
    rng = np.random.default_rng(seed)
    return [[int(c) for c in rng.permutation(rules.deck())] for _ in range(n)]


@pytest.mark.parametrize("env_name", sorted(TABLES))
@pytest.mark.parametrize("opponent", ["hash", "policy"])
def test_first_episodes_match_the_single_game_view_step_for_step(env_name, opponent):
    config = TABLES[env_name]
    n = 12
    probe = card_envs.ENVIRONMENTS[env_name].env(**config)
    size, actions = probe.observation_space("player_0")["observation"].shape[0], probe.action_space("player_0").n
    if opponent == "hash":
        make = HashAgent
    else:
        policy = random_policy(size, actions, 3)
        make = lambda: PPOAgent.from_policy(policy, {"env_name": env_name, "env_config": config})  # noqa: E731
    decks = decks_for(env_name, config, n, seed=11)
    singles, states = [], []
    for i in range(n):  # the same first game on both sides: the AEC game's state loaded into row i
        env = SingleAgentEnv(env_name, config, opponents=[make()], seat_offset=i)
        env.reset(seed=i, options={"deck": decks[i]})
        singles.append(env)
        raw = card_envs.ENVIRONMENTS[env_name].raw_env(**config)
        raw.reset(seed=env.game_seed, options={"deck": decks[i]})  # the AEC game's seed picks the dealer
        states.append(raw.game_state)
    view = BatchedLearnerView(env_name, config, n, opponents=[make()], seed=0)
    view.reset(seed=0, options={"states": states})
    fresh = [view._episodes[i] == 1 and s._episode - i == 1 for i, s in enumerate(singles)]
    assert sum(fresh) >= n // 2, "most first games reach the learner's first decision"
    live = np.array(fresh)
    obs, masks = view._obs.copy(), view.action_masks()
    compared_steps = 0
    finished = 0
    rng_state = view.venv.arrays["rng"].copy()
    for _ in range(2000):
        # a row whose engine drew randomness (a reshuffle, a new round) deals from its own
        # generator from then on, not numpy's: the comparison of that row stops there
        live &= view.venv.arrays["rng"] == rng_state
        if not live.any():
            break
        acts = np.array([hashed_choice(obs[i], masks[i], 1) for i in range(n)])
        for i in np.flatnonzero(live):
            s_obs = singles[i].env.observe(singles[i].learner)
            assert np.array_equal(s_obs["observation"], obs[i]), f"game {i}: learner observation"
            assert np.array_equal(s_obs["action_mask"].astype(bool), masks[i]), f"game {i}: mask"
            assert singles[i].learner == f"player_{view._seat[i]}"
        obs, rewards, dones, infos = view.step(acts)
        masks = view.action_masks()
        for i in np.flatnonzero(live):
            _, r, term, trunc, info = singles[i].step(int(acts[i]))
            compared_steps += 1
            assert rewards[i] == np.float32(r), f"game {i}: reward {rewards[i]} vs {r}"
            assert bool(dones[i]) == (term or trunc), f"game {i}: end of episode"
            if dones[i]:
                finished += 1
                mine = infos[i]
                for key in ("score", "rank", "seat", "opponents"):
                    assert mine[key] == info[key], f"game {i}: final {key}"
                # the engine pays float32 rewards, the AEC env float64: the sums agree to float32 precision
                assert mine["game_reward"] == pytest.approx(info["game_reward"], rel=1e-5, abs=1e-6)
                assert mine["TimeLimit.truncated"] == (trunc and not term)
                live[i] = False
    assert finished >= sum(fresh) // 2 and compared_steps > 5 * n


def test_episode_returns_are_the_learners_game_rewards_and_seats_rotate():
    config = TABLES["golf_v0"]
    n = 16
    view = BatchedLearnerView("golf_v0", config, n, opponents=["random"], seed=5)
    obs = view.reset(seed=5)
    running = np.zeros(n)
    seats = [[int(view._seat[i])] for i in range(n)]
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(600):
        m = view.action_masks()
        acts = (rng.random(m.shape) * m).argmax(1)
        obs, rewards, dones, infos = view.step(acts)
        running += rewards
        for i in np.flatnonzero(dones):
            assert infos[i]["game_reward"] == pytest.approx(running[i], abs=1e-5)
            assert infos[i]["episode"]["r"] == pytest.approx(running[i], abs=1e-5)
            assert infos[i]["seat"] == seats[i][-1]
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            running[i] = 0.0
            seats[i].append(int(view._seat[i]))
            episodes += 1
    assert episodes > 2 * n
    for i, seq in enumerate(seats):  # game i starts in seat i % 3 and moves one seat on per game
        assert seq == [(i + k) % 3 for k in range(len(seq))], f"game {i}: seats {seq}"


def test_the_same_seed_gives_the_same_games_and_bad_actions_change_nothing():
    def run(seed):
        view = BatchedLearnerView("guilders_v0", {"num_players": 3}, 8, opponents=["random", HashAgent()], seed=seed)
        obs = [view.reset(seed=seed)]
        for _ in range(30):
            m = view.action_masks()
            obs.append(view.step(m.argmax(1))[0])
        return np.stack(obs), view
    a, view = run(3)
    b, _ = run(3)
    c, _ = run(4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    before = {k: v.copy() for k, v in view.venv.arrays.items()}
    counters = (view._length.copy(), view._pending.copy(), view._acted.copy())
    illegal = view.action_masks().argmin(1)
    with pytest.raises(ValueError, match="illegal"):
        view.step(illegal)
    with pytest.raises(ValueError, match="actions must be"):
        view.step(np.zeros(3, dtype=np.int64))
    assert all(np.array_equal(v, before[k]) for k, v in view.venv.arrays.items())
    assert all(np.array_equal(a, b) for a, b in zip(counters, (view._length, view._pending, view._acted)))


def test_a_frozen_policy_acts_identically_batched_and_alone():
    env = card_envs.hot_v0.env(num_players=2, single_deal=True)
    policy = random_policy(env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n, 1)
    view = BatchedLearnerView("hot_v0", {"num_players": 2, "single_deal": True}, 64, opponents=["random"], seed=1)
    obs = view.reset(seed=1)
    masks = view.action_masks()
    for deterministic in (True, False):
        batch = policy.choose_batch(obs, masks, deterministic, np.random.default_rng(9))
        rng = np.random.default_rng(9)
        alone = [policy.choose(obs[i], masks[i], deterministic, rng) for i in range(len(obs))]
        assert batch.tolist() == alone
        assert masks[np.arange(len(obs)), batch].all()


def test_field_seating_puts_one_opponent_in_every_other_seat_and_mixed_draws_each_seat():
    pool = ["random", "heuristic", "self"]
    env = card_envs.guillotine_v0.env(mode="single")
    policy = random_policy(env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n, 4)
    seen = {}
    for seating in ("mixed", "field"):
        view = BatchedLearnerView("guillotine_v0", {"mode": "single"}, 64, opponents=pool, seed=0,
                                  opponent_seating=seating, compiled_agents=True)
        for k in range(3):
            view.add_snapshot(f"self_{k}", policy)
        view.reset(seed=0)
        others = view._opp[view._opp >= 0].reshape(64, 3)  # the three seats beside the learner, per game
        seen[seating] = others
        assert (view._opp == -1).sum(axis=1).tolist() == [1] * 64, "the learner holds one seat"
    assert (seen["field"] == seen["field"][:, :1]).all(), "field: the same opponent in every other seat"
    assert len(set(seen["field"][:, 0].tolist())) >= 3, "field: the tables still vary over the pool"
    assert (seen["mixed"] != seen["mixed"][:, :1]).any(axis=1).sum() > 16, "mixed: seats drawn on their own"
    default = BatchedLearnerView("guillotine_v0", {"mode": "single"}, 64, opponents=pool, seed=0)
    for k in range(3):
        default.add_snapshot(f"self_{k}", policy)
    default.reset(seed=0)
    assert (default._opp[default._opp >= 0].reshape(64, 3) == seen["mixed"]).all(), "mixed is the default"
    with pytest.raises(ValueError, match="opponent_seating must be one of 'mixed', 'field'"):
        BatchedLearnerView("golf_v0", {"num_players": 2}, 4, opponent_seating="table")


def test_snapshots_join_the_pool_and_ppo_opponents_are_checked_against_the_table():
    config = {"num_players": 2, "num_rounds": 1}
    env = card_envs.golf_v0.env(**config)
    policy = random_policy(env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n, 2)
    view = BatchedLearnerView("golf_v0", config, 32, opponents=["self"], seed=0)
    view.reset(seed=0)
    assert (view._opp[view._opp >= 0] == 0).all(), "no snapshot yet: random plays meanwhile"
    for k in range(7):
        view.add_snapshot(f"self_{k}", policy)
    assert view.snapshot_names() == [f"self_{k}" for k in range(2, 7)]
    for _ in range(60):
        view.step(view.action_masks().argmax(1))
    assert (view._opp[view._opp >= 0] > 0).any(), "new games draw frozen selves"
    other = PPOAgent.from_policy(policy, {"env_name": "golf_v0", "env_config": {"num_players": 3}})
    with pytest.raises(ValueError, match="num_players"):
        BatchedLearnerView("golf_v0", config, 4, opponents=[other])


@pytest.mark.parametrize("env_name,config", [("guillotine_v0", {"mode": "single"}), ("hot_v0", {"num_players": 2})])
def test_the_heuristics_moves_are_the_same_computed_here_or_by_a_helper(env_name, config):
    """agent_workers=1 splits the heuristic's moves with a helper process, the split following
    the measured costs: the games must be exactly those of agent_workers=0."""
    def run(workers):  # Hot's heuristic in Python here (its compiled twin needs no helper)
        view = BatchedLearnerView(env_name, config, 48, opponents=["heuristic"], seed=2, agent_workers=workers,
                                  compiled_agents=False)
        try:
            out = [view.reset(seed=2)]
            rewards = []
            for _ in range(25):
                m = view.action_masks()
                o, r, *_ = view.step(m.argmax(1))
                out.append(o)
                rewards.append(r)
            return np.stack(out), np.stack(rewards), dict(view._helper_share)
        finally:
            view.close()
    alone, alone_r, _ = run(0)
    split, split_r, share = run(1)
    assert np.array_equal(alone, split) and np.array_equal(alone_r, split_r)
    assert share and all(0.1 <= f <= 0.9 for f in share.values()), share


@pytest.mark.parametrize("env_name,config", [
    ("collector_v0", {"num_players": 2, "max_rounds": 100}),
    ("collector_v0", {"num_players": 4, "hand_size": 10, "max_rounds": 25}),
    ("hot_v0", {"num_players": 2, "single_deal": True}),
    ("hot_v0", {"num_players": 3, "hand_size": 12, "contest_fallback": "nothing", "reward_mode": "score"}),
    ("golf_v0", {"num_players": 2, "num_rounds": 1, "reward_mode": "score"}),
    ("golf_v0", {"num_players": 3, "num_rounds": 2, "flip_after_discard": "may"}),
    ("fiddlesticks_v0", {"num_players": 2}),
    ("fiddlesticks_v0", {"num_players": 3, "num_decks": 1, "end_mode": "rank_all"}),
])
def test_the_compiled_heuristic_plays_the_games_the_python_heuristic_plays(env_name, config):
    """Golf's, Fiddlesticks', Collector's and Hot's heuristic opponents (and the imitation's teacher) run as their
    compiled twin on the engine's arrays by default: every observation, mask, reward, end and
    final info of the learner, and every teacher move, must be those of the Python heuristic
    deciding from each opponent's decoded observation (compiled_agents=False)."""
    from training.batched import compiled_twin

    import agents

    assert compiled_twin(agents.load("heuristic"), env_name) is not None
    assert compiled_twin(agents.load("heuristic"), "guillotine_v0") is None  # Guillotine's has no twin

    def run(compiled):
        view = BatchedLearnerView(env_name, config, 32, opponents=["heuristic", "random", "heuristic"],
                                  seed=4, compiled_agents=compiled)
        teacher = view.add_teacher("heuristic")
        kinds = {view._players[i].kind for i in view._pool if i > 0}
        assert kinds == ({"rows"} if compiled else {"agent"}), kinds
        obs, rows, ends = [view.reset(seed=4)], [], 0
        for step in range(150):
            masks = view.action_masks()
            taught = view.teacher_actions(teacher)
            assert masks[np.arange(32), taught].all()
            acts = taught if step % 2 else masks.argmax(1)  # the teacher's moves, or others
            o, r, d, infos = view.step(acts)
            obs.append(o)
            rows.append((masks, taught, r, d))
            ends += int(d.sum())
            for i in np.flatnonzero(d):
                rows.append((infos[i]["score"], infos[i]["rank"], infos[i]["seat"], infos[i]["opponents"],
                             infos[i]["terminal_observation"]))
        return np.stack(obs), rows, ends, view.engine_steps

    fast, slow = run(True), run(False)
    assert np.array_equal(fast[0], slow[0])
    assert fast[2] == slow[2] and fast[3] == slow[3]
    assert fast[2] > 0, "episodes ended (final infos compared)"
    for a, b in zip(fast[1], slow[1], strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y))


def test_a_teacher_asked_for_some_games_decides_in_those_only():
    """Expert iteration labels only the games it still records: a teacher that decides one game
    at a time (Guillotine's heuristic, in Python) is asked for those rows only, gives the moves it
    gives when asked for every game, and the other rows read -1."""
    view = BatchedLearnerView("guillotine_v0", {"mode": "single"}, 12, opponents=["random"], seed=3)
    tid = view.add_teacher("heuristic")
    teacher = view._players[tid].agent
    asked = []
    act = teacher.act
    teacher.act = lambda obs, agent, env_name: asked.append(1) or act(obs, agent, env_name)
    view.reset(seed=3)
    for step in range(6):
        everyone = view.teacher_actions(tid)
        rows = np.arange(step % 3, 12, 3)
        asked.clear()
        some = view.teacher_actions(tid, rows=rows)
        assert len(asked) == len(rows)
        assert np.array_equal(some[rows], everyone[rows])
        assert (np.delete(some, rows) == -1).all()
        view.step(everyone)
    with pytest.raises(ValueError, match="rows must be game indices"):
        view.teacher_actions(tid, rows=np.array([12]))
    view.close()


def test_no_heuristic_draws_from_its_generator():
    """HeuristicAgent.pure_moves: the same observation gives the same move whatever the seed."""
    import agents
    from agents.base import start_game

    from training.opponents import heuristic_available

    for name in filter(heuristic_available, card_envs.ENVIRONMENTS):  # every game with a heuristic written
        env = card_envs.ENVIRONMENTS[name].raw_env()
        players = [agents.load("heuristic", seed=s) for s in (0, 1)]
        for p in players:
            start_game(p, name, {}, "player_0")
        assert all(getattr(p, "pure_moves", False) for p in players)
        env.reset(seed=0)
        for n, agent in enumerate(env.agent_iter(300)):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a, b = (p.act(obs, agent, name) for p in players)
            assert a == b, f"{name}: seeds 0 and 1 chose {a} and {b}"
            env.step(a)
