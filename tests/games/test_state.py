"""``env.state()``: the full-information state every environment offers for centralized critics.

The state layout round-trips and covers every card exactly once: over random games of every
configuration the vector lies in ``state_space`` (float32, one fixed size), decoding it gives
back the rules engine's card census exactly, two worlds that differ only in hidden cards give
different vectors (while the seat's observation does not change), calling it changes nothing a
player sees, and PettingZoo's own state checks and TorchRL's ``return_state=True`` contract
hold, for the AEC and the parallel environments.
"""

from __future__ import annotations

import copy
import importlib
import pickle
import warnings

import numpy as np
import pytest
from gymnasium import spaces

import card_envs
from card_envs.base import ResetNeededError
from card_envs.encoding import CardCensus, Zone
from tests.cases import resample_hidden
from tests.conformance.cases import CASES, FIRST_CASES

#: random games per configuration, and the steps checked in each (every step of a short game)
GAMES = 2
STEPS = 400
#: PettingZoo's state checks (the module: ``pettingzoo.test.state_test`` the name is its function)
pz_state = importlib.import_module("pettingzoo.test.state_test")
PARALLEL = [m for m in card_envs.ENVIRONMENTS.values() if hasattr(m, "parallel_env")]


def _orders(env) -> dict[str, str]:
    return {z.name: z.order for z in env.unwrapped._state_codec.census.zones}


def assert_census(env) -> None:
    """decode_state(state()) is rules.zones(state): ordered zones exactly, unordered as multisets."""
    u = env.unwrapped
    got = u.decode_state(u.state())
    want = u.rules.zones(u.game_state)
    orders = _orders(env)
    assert set(got) == set(want)
    for name, cards in want.items():
        expected = sorted(cards) if orders[name] == "set" else list(cards)
        assert got[name] == expected, f"zone {name!r}: decoded {got[name]}, the rules hold {expected}"


def observations(env) -> list:
    return [env.observe(a) for a in env.possible_agents]


def same_observations(a: list, b: list) -> bool:
    return all(
        np.array_equal(x["observation"], y["observation"]) and np.array_equal(x["action_mask"], y["action_mask"])
        for x, y in zip(a, b)
    )


@pytest.mark.parametrize("module, config", CASES)
def test_the_state_lies_in_its_space_and_decodes_to_the_card_census(module, config):
    env = module.env(**config)
    space = env.state_space
    assert isinstance(space, spaces.Box) and space.dtype == np.float32 and len(space.shape) == 1
    assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)) and np.all(space.low < space.high)
    assert env.state_space is space  # built once
    for seed in range(GAMES):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(STEPS):
            x = env.state()
            assert x.dtype == np.float32 and x.shape == space.shape
            assert space.contains(x), "state() outside state_space"
            assert_census(env)
            if env._done:
                break
            before = observations(env)
            zones = env.rules.zones(env.game_state)
            assert np.array_equal(env.state(), x)  # the same state twice: calling it changed nothing
            assert same_observations(before, observations(env))
            assert env.rules.zones(env.game_state) == zones
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


@pytest.mark.parametrize("module, config", CASES)
def test_worlds_differing_only_in_hidden_cards_have_different_states(module, config):
    """Negative control: resample what the player to act cannot see; its observation stays the
    same, the state vector must not."""
    env = module.env(**config)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    codec = env._state_codec
    checked = 0
    for _ in range(200):
        if env._done:
            break
        s = env.game_state
        seat = s.current_player
        t = resample_hidden(env.rules, s, seat, rng)
        if env.rules.zones(t) != env.rules.zones(s):
            assert not np.array_equal(codec.encode(t), codec.encode(s))
            assert np.array_equal(env._encode(t, seat), env._encode(s, seat))
            checked += 1
            if checked >= 3:
                break
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert checked, "no step with hidden cards to resample"


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_moving_one_card_changes_the_state_and_its_census(module, config):
    """Swap two different cards in the census (one hidden card placed elsewhere): the encoding
    changes and decodes to the swapped census; a census missing or repeating a card is refused."""
    env = module.env(**config)
    env.reset(seed=1)
    census = env._state_codec.census
    layout = env.state_layout
    zones = env.rules.zones(env.game_state)
    orders = _orders(env)
    flat = [(name, i) for name, cards in zones.items() for i in range(len(cards))]
    (za, ia), (zb, ib) = next(
        (a, b)
        for a in flat
        for b in flat
        if zones[a[0]][a[1]] != zones[b[0]][b[1]] and (a[0] != b[0] or (orders[a[0]] != "set" and a < b))
    )
    x = layout.zeros()
    census.encode(x, layout, zones)
    swapped = {k: list(v) for k, v in zones.items()}
    swapped[za][ia], swapped[zb][ib] = swapped[zb][ib], swapped[za][ia]
    y = layout.zeros()
    census.encode(y, layout, swapped)
    assert not np.array_equal(x, y)
    decoded = census.decode(y, layout)
    for name in (za, zb):
        assert decoded[name] == (sorted(swapped[name]) if orders[name] == "set" else swapped[name])
    missing = {k: list(v) for k, v in zones.items()}
    missing[za].pop(ia)
    with pytest.raises(ValueError, match="exactly once"):
        census.encode(layout.zeros(), layout, missing)
    twice = {k: list(v) for k, v in zones.items()}
    twice[zb][ib] = twice[za][ia]
    with pytest.raises(ValueError, match="exactly once"):
        census.encode(layout.zeros(), layout, twice)


def test_a_stack_keeps_its_order_and_copies_share_rows_in_one_way():
    deck = [0, 0, 1, 2]
    census = CardCensus(deck, [Zone("stock", 4, "stack"), Zone("hand", 4, "set")])
    from card_envs.encoding import Layout

    layout = Layout(census.segments())
    a, b = layout.zeros(), layout.zeros()
    census.encode(a, layout, {"stock": [1, 0, 2], "hand": [0]})
    census.encode(b, layout, {"stock": [2, 0, 1], "hand": [0]})
    assert not np.array_equal(a, b)  # the same cards in another order: another state
    assert census.decode(a, layout) == {"stock": [1, 0, 2], "hand": [0]}
    c = layout.zeros()
    census.encode(c, layout, {"stock": [1, 0, 2], "hand": [0]})
    assert np.array_equal(a, c)
    with pytest.raises(ValueError, match="consecutive"):
        CardCensus([0, 1, 0], [Zone("hand", 3)])
    with pytest.raises(ValueError, match="order must be"):
        Zone("pile", 3, "sorted")


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_state_is_privileged_and_needs_a_reset(module, config):
    env = module.env(**config)
    with pytest.raises(ResetNeededError, match="reset"):
        env.state()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observation", "action_mask"}
    assert env.state().shape != obs["observation"].shape or not np.array_equal(env.state(), obs["observation"])
    doc = type(env).__doc__
    assert "State (privileged)" in doc and "privileged" in doc
    assert "| `card_zone` | 0–" in doc and "Zones (columns of `card_zone`)" in doc


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_a_copy_continues_with_the_same_state(module, config):
    env = module.env(**config)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(5):
        if not env._done:
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert np.array_equal(twin.state(), env.state())


@pytest.mark.parametrize("module, config", CASES)
def test_pettingzoo_state_checks_pass(module, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pz_state.test_state_space(module.env(**config))
        pz_state.test_state(module.env(**config), num_cycles=100)
        if hasattr(module, "parallel_env"):
            pz_state.state_test(module.env(**config), module.parallel_env(**config), num_cycles=50)


@pytest.mark.parametrize("module", PARALLEL, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_the_parallel_env_has_the_aec_state(module):
    par = module.parallel_env()
    with pytest.raises(ResetNeededError, match="reset"):
        par.state()
    aec = module.env()
    par.reset(seed=5)
    aec.reset(seed=5)
    assert par.state_space == aec.state_space
    rng = np.random.default_rng(5)
    while par.agents:
        assert np.array_equal(par.state(), par.aec.state()) and par.state_space.contains(par.state())
        obs = {a: o for a, o in par._observations().items() if a in par.agents}
        par.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
    assert par.state_space.contains(par.state())
    assert_census(par.aec)


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_torchrl_return_state_contract(module, config):
    """What TorchRL's PettingZooWrapper(return_state=True) calls: ``env.state_space`` read as an
    attribute (a gymnasium Box it turns into a bounded spec) and ``spec.encode(env.state())``
    after every reset and step: a tensor of that shape, dtype and bounds."""
    torch = pytest.importorskip("torch")
    envs = [module.env(**config)] + ([module.parallel_env(**config)] if hasattr(module, "parallel_env") else [])
    for env in envs:
        space = getattr(env, "state_space")
        low, high = torch.as_tensor(space.low), torch.as_tensor(space.high)
        assert low.dtype == torch.float32 and tuple(low.shape) == space.shape
        env.reset(seed=2)
        rng = np.random.default_rng(2)
        for _ in range(30):
            t = torch.as_tensor(env.state(), dtype=torch.float32).reshape(space.shape)
            assert bool(((t >= low) & (t <= high)).all())
            if hasattr(env, "agent_selection"):
                if env._done:
                    break
                env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
            else:
                if not env.agents:
                    break
                obs = env._observations()
                env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
