"""The single-agent view pays the learner its OWN reward, rotates its seat, and plugs into SB3."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.cards import make_deck, parse, to_str
from tests.conformance.cases import FIRST_CASES
from training.single_agent import SingleAgentEnv

GOLF2 = {"num_players": 2, "num_rounds": 1}


class Script:
    """An opponent that plays the given action names in order, then random legal actions."""

    def __init__(self, names: list[str], env_holder: list):
        self.names = list(names)
        self.env_holder = env_holder
        self.rng = np.random.default_rng(0)

    def act(self, observation, agent, env_name):
        if self.names:
            return self.env_holder[0].env.string_to_action(self.names.pop(0))
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


def golf_deck(grids: dict[int, str], dealer: int = 1, n: int = 2) -> list[str]:
    """A one-deck order dealing ``grids`` (player -> slots 0..5) one card at a time clockwise
    from the dealer's left; every other card follows in deck order."""
    first = (dealer + 1) % n
    order: list[int | None] = [None] * (6 * n)
    used = set()
    for p, text in grids.items():
        for slot, c in enumerate(text.split()):
            order[slot * n + (p - first) % n] = parse(c)
            used.add(parse(c))
    rest = [c for c in make_deck(1) if c not in used]
    order = [c if c is not None else rest.pop(0) for c in order]
    return [to_str(c) for c in order + rest]


# Player 0's columns are pairs (scores 0); player 1 holds kings and queens (scores 60).
WINNER_LOSER = golf_deck({0: "5c 7c 9c 5d 7d 9d", 1: "Kc Qc Kd Qd Ks Qs"})
FLIPS = [f"flip {i}" for i in range(6)]
# Everyone turns all six cards up in setup; player 0 then draws and discards (so has six face
# up: the trigger), and player 1's final turn ends the round: the LAST move is player 1's.
TURN = ["draw stock", "discard drawn"]


def scripted_golf(learner_seat: int, reward_mode: str = "rank", num_rounds: int = 1):
    holder: list = []
    config = {"num_players": 2, "num_rounds": num_rounds, "dealer": 1, "initial_flips": 6, "reward_mode": reward_mode}
    env = SingleAgentEnv("golf_v0", config, opponents=[Script(FLIPS + TURN, holder)], learner_seat=learner_seat)
    holder.append(env)
    return env


def play_script(env, names: list[str]):
    obs, info = env.reset(seed=0, options={"deck": WINNER_LOSER})
    out = []
    for name in names:
        action = env.env.string_to_action(name)
        assert env.action_masks()[action], f"{name} should be legal"
        out.append(env.step(action))
    return out


def test_the_learner_whose_opponent_ends_the_game_gets_its_own_winning_reward_not_the_opponents():
    env = scripted_golf(learner_seat=0)
    steps = play_script(env, FLIPS + TURN)
    rewards = [s[1] for s in steps]
    assert rewards[:-1] == [0.0] * 7
    _, reward, terminated, truncated, info = steps[-1]
    # player 1's final turn ended the game: the learner (player 0, the winner) gets +1, not -1
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["rank"] == 1 and info["score"] == 0 and info["seat"] == 0
    assert env.env.infos["player_1"]["rank"] == 2


def test_the_learner_who_ends_the_game_gets_its_own_losing_reward():
    env = scripted_golf(learner_seat=1)
    steps = play_script(env, FLIPS + TURN)
    _, reward, terminated, _, info = steps[-1]
    assert (reward, terminated) == (-1.0, True)
    assert info["rank"] == 2 and info["score"] == 60 and info["seat"] == 1
    assert [s[1] for s in steps[:-1]] == [0.0] * 7


def test_a_round_end_reward_in_the_middle_of_an_episode_goes_to_the_learner_it_belongs_to():
    # score mode, two rounds: round 1 pays -(own score - table mean) / 60 = +0.5 to player 0
    # on player 1's final turn; the learner sees it on the step that led there
    env = scripted_golf(learner_seat=0, reward_mode="score", num_rounds=2)
    steps = play_script(env, FLIPS + TURN)
    assert [s[1] for s in steps] == [0.0] * 7 + [0.5]
    assert not steps[-1][2], "round 2 is still to play"
    total = 0.5
    while True:  # round 2: random legal play to the end
        mask = env.action_masks()
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        total += reward
        if terminated or truncated:
            break
    scores = [env.env.infos[a]["score"] for a in env.env.possible_agents]
    assert total == pytest.approx(-(scores[0] - np.mean(scores)) / 60)
    assert info["game_reward"] == pytest.approx(total)


class Recorder:
    """Wraps an agent and records (agent, action) of every move it makes."""

    def __init__(self, inner, log):
        self.inner, self.log = inner, log

    def act(self, observation, agent, env_name):
        a = self.inner.act(observation, agent, env_name)
        self.log.append((agent, a))
        return a


@pytest.mark.parametrize("module,config", FIRST_CASES)
def test_each_step_pays_what_the_aec_env_accumulated_for_the_learner_since_its_last_turn(module, config):
    """Against an independent replay in the plain AEC loop: the reward of the learner's k-th
    decision is what ``env.last()`` shows the learner at its next turn (or at the end); what
    reached it before its first turn is added to its first step."""
    from agents.base import RandomAgent

    name = module.raw_env.metadata["name"]
    log: list = []
    env = SingleAgentEnv(name, config, opponents=[Recorder(RandomAgent(1), log)])
    rng = np.random.default_rng(2)
    for episode in range(4):
        log.clear()
        env.reset(seed=episode)
        seed, learner = env.game_seed, env.learner
        got = []
        while True:
            legal = np.flatnonzero(env.action_masks())
            action = int(legal[rng.integers(len(legal))])
            log.append((learner, action))
            _, reward, term, trunc, _ = env.step(action)
            got.append(reward)
            if term or trunc:
                break
        # replay every move in a fresh environment, reading rewards the PettingZoo way
        aec = module.env(**config)
        aec.reset(seed=seed)
        moves = iter(log)
        at_turns = []
        for agent in aec.agent_iter():
            _, reward, term, trunc, _ = aec.last()
            if agent == learner:
                at_turns.append(reward)
            if term or trunc:
                aec.step(None)
                continue
            who, action = next(moves)
            assert who == agent
            aec.step(action)
        expected = [at_turns[0] + at_turns[1]] + at_turns[2:]
        assert got == pytest.approx(expected), f"episode {episode}, learner {learner}"


def test_the_learners_seat_rotates_each_episode_and_vectorized_copies_start_in_different_seats():
    a = SingleAgentEnv("golf_v0", {"num_players": 3, "num_rounds": 1})
    b = SingleAgentEnv("golf_v0", {"num_players": 3, "num_rounds": 1}, seat_offset=1)
    seats_a = [a.reset(seed=0)[1]["seat"]] + [a.reset()[1]["seat"] for _ in range(5)]
    seats_b = [b.reset(seed=0)[1]["seat"]] + [b.reset()[1]["seat"] for _ in range(5)]
    assert seats_a == [0, 1, 2, 0, 1, 2]
    assert seats_b == [1, 2, 0, 1, 2, 0]
    assert a.reset(seed=0)[1]["seat"] == 0, "a seeded reset starts the rotation over"
    fixed = SingleAgentEnv("golf_v0", GOLF2, learner_seat=1)
    assert {fixed.reset(seed=i)[1]["seat"] for i in range(4)} == {1}


def test_the_same_seed_gives_the_same_episodes():
    def run():
        env = SingleAgentEnv("golf_v0", GOLF2, opponents=["random"])
        out = [env.reset(seed=5)[0]]
        for _ in range(300):
            obs, r, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            out += [obs, r]
            if term or trunc:
                out.append(env.reset()[0])
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_an_illegal_learner_action_ends_the_episode_with_minus_one():
    env = SingleAgentEnv("golf_v0", GOLF2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, _ = env.step(illegal)  # PettingZoo's EnvLogger logs a warning
    assert (reward, terminated) == (-1.0, True)


def test_self_opponents_come_from_the_last_pool_size_snapshots():
    from agents.ppo import MaskedPolicy

    env = SingleAgentEnv("golf_v0", GOLF2, opponents=["self"], pool_size=2)
    assert env.reset(seed=0)[1]["opponents"] == ["random"], "no snapshot yet: random meanwhile"
    size = env.observation_space.shape[0]
    rng = np.random.default_rng(0)
    for k in range(3):
        layer = (rng.normal(size=(8, size)), np.zeros(8))
        env.add_snapshot(f"self_{k}", MaskedPolicy([layer], (rng.normal(size=(10, 8)), np.zeros(10))))
    assert env.snapshot_names() == ["self_1", "self_2"]
    drawn = {env.reset()[1]["opponents"][0] for _ in range(20)}
    assert drawn == {"self_1", "self_2"}
    for _ in range(200):  # snapshots play legally
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            env.reset()


def test_opponent_weights_choose_how_often_each_opponent_sits():
    env = SingleAgentEnv("golf_v0", GOLF2, opponents=["random", "heuristic"], opponent_weights=[0, 1])
    assert {env.reset(seed=i)[1]["opponents"][0] for i in range(5)} == {"heuristic"}
    with pytest.raises(ValueError, match="opponent_weights"):
        SingleAgentEnv("golf_v0", GOLF2, opponents=["random"], opponent_weights=[1, 2])


def test_field_seating_seats_one_opponent_in_every_other_seat():
    pool = ["random", "heuristic"]
    field = SingleAgentEnv("guillotine_v0", {"mode": "single"}, opponents=pool, opponent_seating="field")
    mixed = SingleAgentEnv("guillotine_v0", {"mode": "single"}, opponents=pool)
    tables_field = [tuple(field.reset(seed=i)[1]["opponents"]) for i in range(12)]
    tables_mixed = [tuple(mixed.reset(seed=i)[1]["opponents"]) for i in range(12)]
    assert all(len(t) == 3 and len(set(t)) == 1 for t in tables_field), tables_field
    assert {t[0] for t in tables_field} == set(pool), "the tables still vary over the pool"
    assert any(len(set(t)) > 1 for t in tables_mixed), "mixed (the default) draws each seat on its own"
    with pytest.raises(ValueError, match="opponent_seating must be one of 'mixed', 'field'"):
        SingleAgentEnv("golf_v0", GOLF2, opponent_seating="all")


def test_an_unknown_game_names_the_games():
    with pytest.raises(ValueError, match="golf_v0"):
        SingleAgentEnv("chess_v0")


def test_it_passes_gymnasiums_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(SingleAgentEnv("golf_v0", GOLF2), skip_render_check=True)


@pytest.mark.training
@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_maskable_ppo_trains_on_it_under_sb3_vectorized_envs(vec):
    pytest.importorskip("sb3_contrib")
    from functools import partial

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns = [partial(SingleAgentEnv, "golf_v0", GOLF2, ["random"], None, "rotate", i) for i in range(2)]
    venv = DummyVecEnv(fns) if vec == "dummy" else SubprocVecEnv(fns)
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(128)
        assert model.num_timesteps >= 128
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.shape == (2, 10) and masks.any(axis=1).all()
    finally:
        venv.close()
