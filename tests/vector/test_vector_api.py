"""The batched engine's API: reproducibility, autoreset, bad input, state exchange, decks."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from card_envs import vector  # noqa: E402
from card_envs.vector import AutoresetMode  # noqa: E402

CONFIG = {"num_players": 3, "num_rounds": 1}


def make(n=16, **cfg):
    return vector.make("golf", n, cfg or CONFIG)


def _trajectory(venv, seed, steps=150):
    obs, _ = venv.reset(seed=seed)
    out = [obs["observation"].copy()]
    venv.sample_actions(seed)
    for _ in range(steps):
        obs, rew, term, trunc, _ = venv.step(venv.sample_actions())
        out.append(np.concatenate([obs["observation"].ravel(), rew.ravel(), term, trunc]).astype(np.float32))
    return out


def test_the_same_seed_gives_the_same_batch_trajectories_whatever_the_global_generators_do():
    a = _trajectory(make(), 7)
    np.random.seed(123)
    random.seed(123)
    np.random.random(1000)
    b = _trajectory(make(), 7)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))
    c = _trajectory(make(), 8)
    assert any(x.tobytes() != y.tobytes() for x, y in zip(a, c)), "another seed played the same games"


def test_games_in_one_batch_are_different_games():
    venv = make()
    obs, _ = venv.reset(seed=1)
    states = [venv.get_state(i) for i in range(venv.num_envs)]
    assert len({tuple(map(tuple, s.grid)) for s in states}) == venv.num_envs


def test_autoreset_restarts_a_finished_game_in_the_same_step_with_its_final_infos():
    venv = make(8)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    venv.reset(seed=2)
    finished = 0
    for _ in range(400):
        before = [venv.get_state(i) for i in range(venv.num_envs)]
        obs, rew, term, trunc, infos = venv.step(venv.sample_actions())
        done = term | trunc
        assert (infos["_final_obs"] == done).all() and (infos["_final_info"] == done).all()
        for i in np.flatnonzero(done):
            finished += 1
            fi = infos["final_info"]
            s = before[i]
            # the finished game's totals are final scores; the new game starts from nothing
            assert list(fi["score"][i]) == [t + 0 for t in fi["score"][i]]
            assert sorted(fi["rank"][i]) [0] == 1
            new = venv.get_state(i)
            assert new.round == 0 and new.turns == 0 and new.totals == [0] * 3 and not new.terminated
            assert obs["observation"][i].tobytes() != infos["final_obs"][i, obs["current_player"][i]].tobytes()
            assert rew[i].sum() == pytest.approx(0.0, abs=1e-6), "rank rewards are zero-sum"
            assert s.round == 0  # one-round games: the game that ended was in its first round
        if finished >= 8:
            break
    assert finished >= 8


def test_illegal_actions_are_a_value_error_naming_the_game_and_nothing_moves():
    venv = make(4)
    venv.reset(seed=3)
    arrays = {k: v.copy() for k, v in venv.arrays.items()}
    actions = venv.sample_actions().copy()
    bad = int(np.flatnonzero(venv._mask[2] == 0)[0])
    actions[2] = bad
    with pytest.raises(ValueError, match=rf"game 2: action {bad} is illegal .* legal actions: \["):
        venv.step(actions)
    assert all((venv.arrays[k] == arrays[k]).all() for k in arrays), "a rejected step changed a game"


@pytest.mark.parametrize(
    "actions, message",
    [
        (np.zeros(3, dtype=np.int64), r"shape \(4,\)"),
        (np.zeros((4, 1), dtype=np.int64), r"shape \(4,\)"),
        (np.zeros(4, dtype=np.float32), "integers"),
        (np.full(4, 99), "illegal"),
        (np.full(4, -2), "illegal"),  # -1 is vector.WAIT: that game does not move
    ],
)
def test_bad_action_arrays_are_value_errors(actions, message):
    venv = make(4)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        venv.step(actions)


def test_bad_options_sizes_seats_and_decks_are_value_errors():
    with pytest.raises(ValueError, match="num_envs"):
        make(0)
    with pytest.raises(ValueError, match="num_players"):
        vector.make("golf", 4, {"num_players": 1})
    with pytest.raises(ValueError, match="unknown"):
        vector.make("golf", 4, {"bogus": 1})
    venv = make(4)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="seats"):
        venv.observe(np.full(4, 3))
    with pytest.raises(ValueError, match="seats"):
        venv.observe(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="one stacked deck per game"):
        venv.reset(options={"decks": [["As"] * 52]})
    deck = card_envs.cards.format_many(range(52)).split()
    with pytest.raises(ValueError, match=r"decks'\]\[1\]"):
        venv.reset(options={"decks": [deck, deck[:-1], deck, deck]})
    with pytest.warns(UserWarning, match=r"unknown reset option\(s\) \['deck'\]; vector_env knows \['decks'\]"):
        venv.reset(options={"deck": deck})  # one policy for every interface: ignored, with a warning
    with pytest.raises(ValueError, match="game index"):
        venv.get_state(4)
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=-1)


def test_stacked_decks_deal_as_raw_env_does():
    cfg = {"num_players": 2, "num_rounds": 1, "dealer": 0}
    rng = np.random.default_rng(0)
    decks = [card_envs.cards.format_many(rng.permutation(52)).split() for _ in range(3)]
    venv = vector.make("golf", 3, cfg)
    venv.reset(seed=0, options={"decks": decks})
    for i, deck in enumerate(decks):
        env = card_envs.golf_v0.raw_env(**cfg)
        env.reset(seed=0, options={"deck": deck})
        for p, agent in enumerate(env.possible_agents):
            seats = np.full(3, p)
            assert venv.observe(seats)[i].tobytes() == env.observe(agent)["observation"].tobytes()


def test_get_state_and_set_state_round_trip():
    venv = make(6)
    venv.reset(seed=4)
    for _ in range(30):
        venv.step(venv.sample_actions())
    s = venv.get_state(1)
    venv.set_state(4, s)
    for p in range(3):
        x = venv.observe(np.full(6, p))
        assert x[1].tobytes() == x[4].tobytes()
    t = venv.get_state(4)
    rules = venv.rules
    assert rules.zones(t) == rules.zones(s)
    for field in ("phase", "current_player", "dealer", "trigger", "turns", "round", "totals", "pending", "stock_known"):
        assert getattr(t, field) == getattr(s, field), field
    # a raw env given the dumped state observes what the vector row observes
    env = card_envs.golf_v0.raw_env(**CONFIG)
    env.reset(seed=0)
    env.game_state = t
    for p, agent in enumerate(env.possible_agents):
        assert env.observe(agent)["observation"].tobytes() == venv.observe(np.full(6, p))[4].tobytes()


def test_buffers_are_reused_between_steps():
    venv = make(4)
    obs, _ = venv.reset(seed=0)
    first = obs["observation"]
    obs2, rewards, *_ = venv.step(venv.sample_actions())
    assert obs2["observation"] is first
    obs3, rewards2, *_ = venv.step(venv.sample_actions())
    assert rewards2 is rewards


def test_import_card_envs_works_without_numba_and_vector_env_names_the_extra():
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import card_envs\n"
        "env = card_envs.golf_v0.env(); env.reset(seed=0)\n"
        "try:\n"
        "    card_envs.golf_v0.vector_env(num_envs=2)\n"
        "except ImportError as e:\n"
        "    print('IMPORT ERROR:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "IMPORT ERROR:" in out and 'pip install -e ".[vector]"' in out


def test_guilders_vector_env_exists_with_every_option():
    venv = card_envs.guilders_v0.vector_env(num_envs=4, num_players=60, num_decks=2, evil_joker=True, good_joker=True,
                                            chaotic_joker=True, public_discards=True, refan_discards=2)
    obs, _ = venv.reset(seed=0)
    assert obs["observation"].shape == (4, venv.obs_size) and obs["action_mask"].shape == (4, 70)
    assert obs["action_mask"][:, 69].all(), "the joker call is legal with good_joker"


# ------------------------------------------------------------------ every game's batched engine
VECTOR_GAMES = tuple(name[:-3] for name, m in card_envs.ENVIRONMENTS.items() if hasattr(m, "vector_env"))


def _fixed_start(game: str) -> dict:
    """The game's benchmark configuration with its first dealer / starting player fixed, so that
    a stacked deck alone decides the deal (a random start would draw from each engine's own rng)."""
    import dataclasses

    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    cfg = dict(module.BENCHMARK_CONFIG)
    fields = {f.name for f in dataclasses.fields(module.raw_env.Rules(**cfg).config)}
    for name in ("dealer", "first_dealer", "start_player"):
        if name in fields:
            cfg[name] = 1
    return cfg


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_every_game_deals_a_stacked_deck_as_raw_env_does(game):
    cfg = _fixed_start(game)
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    venv = module.vector_env(num_envs=3, **cfg)
    rng = np.random.default_rng(0)
    deck = venv.rules.deck()
    decks = [card_envs.cards.format_many([deck[i] for i in rng.permutation(len(deck))]).split() for _ in range(3)]
    obs, _ = venv.reset(seed=0, options={"decks": decks})
    for i, stacked in enumerate(decks):
        env = module.raw_env(**cfg)
        env.reset(seed=0, options={"deck": stacked})
        assert obs["current_player"][i] == env.possible_agents.index(env.agent_selection)
        assert obs["action_mask"][i].tobytes() == env.observe(env.agent_selection)["action_mask"].tobytes()
        for p, agent in enumerate(env.possible_agents):
            assert venv.observe(np.full(3, p))[i].tobytes() == env.observe(agent)["observation"].tobytes(), (i, agent)


def _batch_trajectory(game: str, seed: int, threads: int, steps: int = 100) -> list[np.ndarray]:
    import numba

    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        venv = module.vector_env(num_envs=vector.PARALLEL_MIN_ROWS + 32, **module.BENCHMARK_CONFIG)  # prange-sized
        obs, _ = venv.reset(seed=seed)
        venv.sample_actions(seed)
        out = [obs["observation"].copy()]
        for _ in range(steps):
            obs, rew, term, trunc, infos = venv.step(venv.sample_actions())
            out += [obs["observation"].copy(), obs["action_mask"].copy(), rew.copy(), term.copy(), trunc.copy(),
                    infos["final_obs"].copy(), infos["final_info"]["score"].copy()]
        return out
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_every_game_is_reproducible_from_its_seed_and_independent_of_the_thread_count(game):
    import numba

    a = _batch_trajectory(game, 5, 1)
    np.random.seed(1)
    np.random.random(100)
    b = _batch_trajectory(game, 5, min(2, numba.config.NUMBA_NUM_THREADS))
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))
    c = _batch_trajectory(game, 6, 1, steps=20)
    assert any(x.tobytes() != y.tobytes() for x, y in zip(a, c)), "another seed played the same games"


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_every_game_round_trips_through_get_state_and_set_state(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    venv = module.vector_env(num_envs=4, **module.BENCHMARK_CONFIG)
    venv.reset(seed=9)
    for _ in range(25):
        venv.step(venv.sample_actions())
    s = venv.get_state(1)
    venv.set_state(3, s)
    for p in range(venv.num_players):
        x = venv.observe(np.full(4, p))
        assert x[1].tobytes() == x[3].tobytes()
    assert venv._mask[1].tobytes() == venv._mask[3].tobytes()
    env = module.raw_env(**module.BENCHMARK_CONFIG)
    env.reset(seed=0)
    env.game_state = venv.get_state(3)
    assert venv.rules.zones(env.game_state) == venv.rules.zones(s)
    for p, agent in enumerate(env.possible_agents):
        assert env.observe(agent)["observation"].tobytes() == venv.observe(np.full(4, p))[3].tobytes()


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_every_game_refuses_bad_options_and_illegal_actions_with_value_errors(game):
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    with pytest.raises(ValueError, match="bogus"):
        module.vector_env(num_envs=2, bogus=1)
    venv = module.vector_env(num_envs=2, **module.BENCHMARK_CONFIG)
    venv.reset(seed=0)
    before = {k: v.copy() for k, v in venv.arrays.items()}
    actions = venv.sample_actions().copy()
    illegal = np.flatnonzero(venv._mask[1] == 0)
    actions[1] = illegal[0]
    with pytest.raises(ValueError, match=rf"game 1: action {illegal[0]} is illegal"):
        venv.step(actions)
    assert all((venv.arrays[k] == before[k]).all() for k in before)


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_a_waiting_game_does_not_move_while_the_others_do(game):
    """``vector.WAIT`` (-1): that game keeps its state, is paid nothing and does not end, while
    every other game of the batch steps (the batched learner view waits its learner's games)."""
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    venv = module.vector_env(num_envs=8, **module.BENCHMARK_CONFIG)
    venv.reset(seed=5)
    moved = 0
    for step in range(60):
        waiting = np.arange(8) % 2 == step % 2
        before = {k: v[waiting].copy() for k, v in venv.arrays.items()}
        obs_before = venv._obs[waiting].copy()
        actions = venv.sample_actions().copy()
        actions[waiting] = vector.WAIT
        others = {k: v[~waiting].copy() for k, v in venv.arrays.items()}
        obs, rewards, term, trunc, infos = venv.step(actions)
        assert all(np.array_equal(v[waiting], before[k]) for k, v in venv.arrays.items()), f"step {step}"
        assert np.array_equal(obs["observation"][waiting], obs_before)
        assert not rewards[waiting].any() and not term[waiting].any() and not trunc[waiting].any()
        assert not infos["_final_obs"][waiting].any()
        moved += sum(not np.array_equal(v[~waiting], others[k]) for k, v in venv.arrays.items())
    assert moved, "the games that did not wait moved"
    with pytest.raises(ValueError, match="illegal"):
        venv.step(np.full(8, -2))


#: steps per configuration of the parallel-path test (a parallel region on a loaded two-core
#: machine costs milliseconds: the test's time is mostly that)
STEPS = 80


def _outputs(game: str, cfg: dict, threads: int, steps: int, one_pass: bool) -> tuple[list[np.ndarray], int]:
    """Everything ``step`` returns over ``steps`` random steps of a prange-sized batch, with
    ``threads`` threads (two: the one-pass ``advance`` kernel; one: the one pass if ``one_pass``,
    else the step-by-step kernels); and how many games finished."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        venv = vector.make(game, vector.PARALLEL_MIN_ROWS + 16, cfg)
        venv._one_pass_always = one_pass
        obs, _ = venv.reset(seed=3)
        venv.sample_actions(3)
        out, finished = [obs["observation"].copy(), obs["action_mask"].copy()], 0
        for step in range(steps):
            actions = venv.sample_actions().copy()
            actions[step % 7 :: 7] = vector.WAIT  # some games wait in every step
            obs, rew, term, trunc, infos = venv.step(actions)
            done = infos["_final_obs"]
            finished += int(done.sum())
            out += [obs["observation"].copy(), obs["action_mask"].copy(), obs["current_player"].copy(), rew.copy(),
                    term.copy(), trunc.copy(), done.copy(), infos["final_obs"][done].copy(),
                    infos["final_info"]["score"][done].copy(), infos["final_info"]["rank"][done].copy()]
        return out, finished
    finally:
        numba.set_num_threads(before)


#: the games whose kernels have the one-pass ``advance`` (``card_envs/vector.py``)
ONE_PASS_GAMES = [g for g in VECTOR_GAMES if hasattr(importlib.import_module(f"card_envs.{g}.kernels").Kernels, "advance")]


def test_the_games_whose_two_core_step_needed_it_have_the_one_pass_step():
    assert {"guillotine", "fiddlesticks"} <= set(ONE_PASS_GAMES)
    import card_envs

    assert card_envs.guillotine_v0.vector_env(num_envs=2)._one_pass_always  # measured faster on one thread too
    # and so is Fiddlesticks' since its kernels run without reference counting: 1.08-1.14x the
    # step-by-step kernels at 1024 games on one thread (best and median, measured side by side)
    assert card_envs.fiddlesticks_v0.vector_env(num_envs=2)._one_pass_always


@pytest.mark.parametrize("game", ONE_PASS_GAMES)
def test_the_one_pass_parallel_step_is_the_step_by_step_step_in_every_configuration(game):
    """On threads ``VectorEnv.step`` runs each game's ``advance`` kernel (step, final
    observations, results, new games, masks and observations in one parallel pass), on one thread
    too where the game's kernels say it is faster there (``ONE_PASS_ON_ONE_THREAD``), else the
    step-by-step kernels. The one pass on two threads and on one gives the same bytes as the
    step-by-step kernels, waiting games included, in every configuration the differential test
    plays."""
    import numba

    from tests.conformance.test_kernels import configurations

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.fail("numba sees a single core: the parallel path cannot be compared")
    finished = 0
    for cfg in configurations(game):
        one, ended = _outputs(game, cfg, 1, STEPS, one_pass=False)
        for threads in (2, 1):
            other, _ = _outputs(game, cfg, threads, STEPS, one_pass=True)
            assert len(one) == len(other)
            for i, (a, b) in enumerate(zip(one, other)):
                assert a.shape == b.shape and a.tobytes() == b.tobytes(), f"{cfg}, {threads} threads: output {i} differs"
        finished += ended
    assert finished > 0, "no game finished: the final observations and new games were not compared"


def test_set_states_loads_many_games_as_set_state_does_one_by_one():
    a, b = make(6), make(6)
    a.reset(seed=4)
    b.reset(seed=4)
    for _ in range(30):
        acts = a.sample_actions().copy()
        a.step(acts)
        b.step(acts)
    states = [a.get_state(i) for i in (5, 0, 3)]
    for i, s in zip((1, 2, 4), states):
        a.set_state(i, s)
    obs = b.set_states(states, games=(1, 2, 4))
    assert obs["observation"].tobytes() == a._obs.tobytes() and obs["action_mask"].tobytes() == a._mask.tobytes()
    for p in range(3):
        assert a.observe(np.full(6, p)).tobytes() == b.observe(np.full(6, p)).tobytes()
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays if k != "rng")
    with pytest.raises(ValueError, match="one game index per state"):
        b.set_states(states, games=(1, 2))
    with pytest.raises(ValueError, match="same game index twice"):
        b.set_states(states, games=(1, 1, 2))
    with pytest.raises(ValueError, match="game index"):
        b.set_states(states[:1], games=(9,))
    finished = states[0].copy()
    finished.terminated = True
    before = {k: v.copy() for k, v in b.arrays.items()}
    with pytest.raises(ValueError, match=r"states\[1\] is finished"):
        b.set_states([states[1], finished])
    assert all(np.array_equal(b.arrays[k], before[k]) for k in before), "a refused set_states changed a game"


def test_refresh_re_encodes_games_written_directly():
    venv = make(4)
    venv.reset(seed=2)
    for _ in range(10):
        venv.step(venv.sample_actions())
    venv.kernels.load(venv.arrays, 0, venv.get_state(3))  # written directly: the buffers are stale
    obs = venv.refresh()
    assert obs["observation"][0].tobytes() == obs["observation"][3].tobytes()
    assert obs["action_mask"][0].tobytes() == obs["action_mask"][3].tobytes()


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_writing_into_a_returned_buffer_does_not_change_the_next_observation(game):
    """The returned arrays are the engine's buffers: a caller that scales or scribbles on them in
    place gets whole, correct observations at the next call all the same."""
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    clean, scribbled = (module.vector_env(num_envs=64, **module.BENCHMARK_CONFIG) for _ in range(2))
    clean.reset(seed=7)
    obs, _ = scribbled.reset(seed=7)
    for _ in range(40):
        obs["observation"][:] = 7.0
        actions = clean.sample_actions().copy()
        want, *_ = clean.step(actions)
        got, *_ = scribbled.step(actions)
        obs = got
        assert got["observation"].tobytes() == want["observation"].tobytes()
        seats = np.arange(64) % clean.num_players
        scribbled._observed[:] = 7.0
        assert scribbled.observe(seats).tobytes() == clean.observe(seats).tobytes()
