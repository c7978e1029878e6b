"""Bad input is a ValueError naming the problem; nothing is half-applied."""

import numpy as np
import pytest

from card_envs.cards import to_str
from tests.conformance.cases import CASES


def _snapshot(env):
    return (env.rules.zones(env.game_state), env.agent_selection, dict(env._cumulative_rewards))


@pytest.mark.parametrize("module, config", CASES)
def test_an_unknown_option_is_a_value_error_naming_it(module, config):
    with pytest.raises(ValueError, match="no_such_option"):
        module.env(**config, no_such_option=1)


@pytest.mark.parametrize("module, config", CASES)
def test_a_malformed_stacked_deck_is_a_value_error_and_changes_nothing(module, config):
    env = module.raw_env(**config)
    env.reset(seed=4)
    before = _snapshot(env)
    deck = [to_str(c) for c in env.rules.deck()]
    with pytest.raises(ValueError, match="stacked deck has"):
        env.reset(seed=5, options={"deck": deck[:-1]})
    with pytest.raises(ValueError, match="stacked deck has"):
        env.reset(seed=5, options={"deck": deck + [deck[0]]})
    with pytest.raises(ValueError, match="malformed card"):
        env.reset(seed=5, options={"deck": ["Xx"] + deck[1:]})
    swapped = deck[:]
    swapped[0] = next(to_str(c) for c in range(54) if to_str(c) not in deck) if len(set(deck)) < 54 else deck[1]
    with pytest.raises(ValueError, match="does not match"):
        env.reset(seed=5, options={"deck": swapped})
    assert _snapshot(env) == before
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(seed=5, options={"dek": deck})


@pytest.mark.parametrize("module, config", CASES)
def test_an_illegal_action_on_raw_env_is_a_value_error_and_changes_nothing(module, config):
    env = module.raw_env(**config)
    env.reset(seed=8)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    before = _snapshot(env)
    obs_before = env.observe(env.agent_selection)["observation"].copy()
    if len(illegal):  # in some configurations (Guilders with good_joker) every action is always legal
        with pytest.raises(ValueError, match="illegal"):
            env.step(int(illegal[0]))
    assert _snapshot(env) == before
    assert np.array_equal(env.observe(env.agent_selection)["observation"], obs_before)
    for bad in (-1, env.action_space(env.agent_selection).n, 1.5, "x"):
        with pytest.raises(ValueError, match="not in the action space"):
            env.step(bad)
    assert _snapshot(env) == before


@pytest.mark.parametrize("module, config", CASES)
def test_action_names_round_trip(module, config):
    env = module.raw_env(**config)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        for a in np.flatnonzero(mask):
            name = env.action_to_string(int(a))
            assert isinstance(name, str) and name
            assert env.string_to_action(name) == a
            assert env.string_to_action(name.upper()) == a
        env.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError):
        env.string_to_action("definitely not an action")


# ------------------------------------------------------------- every argument a person can get wrong
import warnings  # noqa: E402

import card_envs  # noqa: E402
from tests.conformance.cases import FIRST_CASES  # noqa: E402


def _interfaces(module, config):
    """Every interface of the game that resets: env(), raw_env(), parallel_env() where the game
    has one, and vector_env where numba is installed."""
    yield "env", module.env(**config)
    yield "raw_env", module.raw_env(**config)
    if hasattr(module, "parallel_env"):
        yield "parallel_env", module.parallel_env(**config)
    try:
        yield "vector_env", module.vector_env(2, **config)
    except ImportError:
        pass


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_bad_seeds_and_options_are_value_errors_naming_the_argument(module, config):
    for where, env in _interfaces(module, config):
        for seed in ("abc", 1.5, -1, True, [3]):
            with pytest.raises(ValueError, match=r"seed must be None or an int >= 0"):
                env.reset(seed=seed)
        for options in ("deck", ["deck"], 3):
            with pytest.raises(ValueError, match=r"options must be None or a dict of reset options"):
                env.reset(seed=1, options=options)
        env.reset(seed=np.int64(3))  # any integer operator.index accepts
        with pytest.warns(UserWarning, match=r"ignoring unknown reset option\(s\) \['options'\]"):
            env.reset(seed=0, options={"options": 1})  # what PettingZoo's API tests pass: one policy everywhere


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_any_integer_scalar_is_an_action(module, config):
    torch = pytest.importorskip("torch")
    for make in (module.env, module.raw_env):
        env = make(**config)
        env.reset(seed=2)
        legal = int(np.flatnonzero(env.action_mask())[-1])
        stepped = make(**config)
        stepped.reset(seed=2)
        stepped.step(legal)
        for action in (np.int32(legal), np.array(legal), torch.tensor(legal)):
            twin = make(**config)
            twin.reset(seed=2)
            twin.step(action)
            assert twin.unwrapped.state().tobytes() == stepped.unwrapped.state().tobytes()
        for bad in (float(legal), True, np.array([legal]), torch.tensor(float(legal))):
            with pytest.raises(ValueError, match="is not in the action space"):
                env.step(bad)


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_state_shows_the_end_of_a_game_an_illegal_action_ended(module, config):
    env = module.env(**config)
    env.reset(seed=6)
    layout = env.unwrapped.state_layout
    illegal = int(np.flatnonzero(env.action_mask() == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    parts = layout.split(env.unwrapped.state())
    assert parts["ended"].tolist() == [1.0, 1.0], "every agent is terminated and truncated, as the wrapper leaves them"
    assert not parts["to_act"].any(), "nobody is to act once the game is over"
    for agent in env.agent_iter():  # the finished agents step out: the state still shows the end
        env.step(None)
    assert layout.split(env.unwrapped.state())["ended"].tolist() == [1.0, 1.0]
    env.reset(seed=6)
    assert layout.split(env.unwrapped.state())["ended"].tolist() == [0.0, 0.0], "a new game is not over"


@pytest.mark.parametrize("name", ["collector_v0", "hot_v0"])
def test_the_parallel_api_names_bad_agents_and_shows_an_illegal_end_in_state(name):
    module = card_envs.ENVIRONMENTS[name]
    par = module.parallel_env()
    obs, _ = par.reset(seed=3)
    before = par.state().tobytes()
    acts = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    with pytest.raises(ValueError, match=r"unknown agent 'player_9' in actions"):
        par.step({**acts, "player_9": 0})
    assert par.state().tobytes() == before, "a refused step changes nothing"
    illegal = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        par.step(illegal)
    assert not par.agents
    parts = par.state_layout.split(par.state())
    assert parts["ended"].tolist() == [1.0, 1.0] and not parts["to_act"].any()


def _play_out(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_stepping_after_the_end_is_one_line_naming_the_end_on_raw_env_and_a_warned_no_op_on_env(module, config,
                                                                                                     caplog):
    from card_envs.base import GameOverError

    name = module.raw_env.metadata["name"]
    raw = module.raw_env(**config)
    _play_out(raw, 9)
    assert raw.agents == []
    before = raw.state().tobytes()
    for action in (None, 0):
        with pytest.raises(GameOverError, match=rf"^{name}: the game is over \(it (ended by its rules|was truncated)\)"
                                                r".*call reset\(\)") as caught:
            raw.step(action)
        assert "\n" not in str(caught.value) and isinstance(caught.value, ValueError)
    assert raw.state().tobytes() == before
    checked = module.env(**config)  # env() does what PettingZoo's OrderEnforcingWrapper does: warns, changes nothing
    _play_out(checked, 9)
    before = checked.state().tobytes()
    checked.step(None)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert checked.state().tobytes() == before and checked.agents == []
    env = module.env(**config)  # and after a game an illegal action ended
    env.reset(seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(int(np.flatnonzero(env.action_mask() == 0)[0]))
    for _ in env.agent_iter():
        env.step(None)
    before = env.state().tobytes()
    env.step(None)
    assert env.state().tobytes() == before and env.agents == []


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_num_players_takes_any_integer_like_the_other_options(module, config):
    default = module.raw_env()
    n = len(default.possible_agents)
    for make in (module.env, module.raw_env):
        for value in (np.int64(n), np.int32(n)):
            assert make(num_players=value).possible_agents == default.possible_agents
        for bad in (float(n), True, str(n)):
            with pytest.raises(ValueError, match="num_players"):
                make(num_players=bad)
