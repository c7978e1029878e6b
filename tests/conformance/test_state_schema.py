"""Each game's state is declared once (``card_envs.schema``): the rules state's copy, the kernels'
arrays and the exchange between them all follow from that declaration, and these tests fail when
one side changes alone.

* the rules state's class is the schema's (its ``__slots__`` are the declared fields, no more);
* ``copy()`` copies every field: equal values, no mutable part shared (except the fields declared
  shared), whatever a game's play leaves in them;
* a state dumped from the kernels' arrays has every declared field, and loading it into arrays
  full of garbage gives the same state back, the same masks and observations for every seat and
  the same play after it (an array or a field the kernels' ``load`` forgets is caught);
* the compiled drivers take the state arrays in the order the schema gives them.
"""

from __future__ import annotations

import inspect
from collections import deque

import numpy as np
import pytest

import card_envs.contract
from card_envs import schema, vector
from tests import cases

GAMES = list(card_envs.contract.games())
MUTABLE = {schema.LIST, schema.ROWS, schema.NESTED, schema.OPTIONAL_ROWS, schema.OPTIONAL_LIST, schema.DEQUE,
           schema.ARRAY, schema.GENERATOR}


def _configs(game: str) -> list[dict]:
    case = cases.of(game)
    return list(case.CONFORMANCE_CONFIGS[:2]) + list(getattr(case, "VECTOR_CONFIGS", ())[:2])


def _same(a, b) -> bool:
    if isinstance(a, np.random.Generator):
        return isinstance(b, np.random.Generator) and a.bit_generator.state == b.bit_generator.state
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, deque):
        return isinstance(b, deque) and list(a) == list(b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def differences(x, y) -> list[str]:
    """The fields in which two states of one game differ."""
    return [f.name for f in type(x).SCHEMA.fields if not _same(getattr(x, f.name), getattr(y, f.name))]


def _shares(a, b) -> bool:
    """Whether a copy shares a mutable part with its original."""
    if isinstance(a, (list, deque, np.ndarray, np.random.Generator)) and a is b:
        return True
    if isinstance(a, list):
        return any(_shares(x, y) for x, y in zip(a, b))
    return False


def _rules_states(game: str, config: dict, seed: int, steps: int):
    """States of a game the rules engine plays with random legal actions."""
    env = card_envs.ENVIRONMENTS[f"{game}_v0"].raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield env.game_state
        if all(env.terminations.values()) or all(env.truncations.values()) or not env.agents:
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("game", GAMES)
def test_the_state_class_is_the_schema(game):
    rules_module = card_envs.contract.part(game, "rules")
    declared = rules_module.STATE
    cls = type(card_envs.ENVIRONMENTS[f"{game}_v0"].raw_env().unwrapped.rules.new_game(np.random.default_rng(0)))
    assert cls.SCHEMA is declared
    slots = [name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())]
    assert sorted(slots) == sorted(declared.names), "the state class declares fields outside its schema"
    assert not hasattr(cls(), "__dict__")  # no attribute outside the schema can be set


@pytest.mark.parametrize("game", GAMES)
def test_copy_copies_every_field(game):
    for k, config in enumerate(_configs(game)):
        for i, s in enumerate(_rules_states(game, config, seed=k, steps=400)):
            if i % 17:
                continue
            c = s.copy()
            assert differences(s, c) == [], f"{game} {config}: copy() changed fields"
            for f in type(s).SCHEMA.fields:
                if f.kind in MUTABLE:
                    assert not _shares(getattr(c, f.name), getattr(s, f.name)), (
                        f"{game}: copy() shares the mutable field {f.name!r} ({f.kind})")


def check_round_trip(venv, rng, steps_after: int = 6) -> str | None:
    """Load each game's dumped state into garbage-filled arrays; the state, masks, observations
    and the next ``steps_after`` steps must match the original arrays'. Returns what differed."""
    k = venv.kernels
    n = venv.num_envs
    a = venv.arrays
    fresh = k.allocate(n)
    for name, arr in fresh.items():
        if name != "rng":
            arr[...] = 5  # garbage: a card, a count, a seat, a phase — anything load must overwrite
    for g in range(n):
        s = k.dump(a, g)
        missing = [name for name in type(s).SCHEMA.names if not hasattr(s, name)]
        if missing:
            return f"game {g}: dump left fields unset: {missing}"
        k.load(fresh, g, s)
    fresh["rng"][:] = a["rng"]
    for g in range(n):
        diff = differences(k.dump(a, g), k.dump(fresh, g))
        if diff:
            return f"game {g}: the loaded state differs in {diff}"
    mine = {name: arr.copy() for name, arr in a.items()}
    A, P, D = k.num_actions, k.num_players, k.obs_size
    for _ in range(steps_after + 1):
        masks = [np.zeros((n, A), dtype=np.int8) for _ in range(2)]
        for arrays, mask in zip((mine, fresh), masks):
            k.legal(arrays, mask)
        if not np.array_equal(*masks):
            return "the legal masks differ"
        rows = np.arange(n, dtype=np.int64)
        for seat in range(P):
            seats = np.full(n, seat, dtype=np.int64)
            outs = [np.zeros((n, D), dtype=np.float32) for _ in range(2)]
            for arrays, out in zip((mine, fresh), outs):
                k.encode(arrays, rows, seats, out)
            if not np.array_equal(*outs):
                return f"seat {seat}'s observations differ"
        live = masks[0].any(axis=1)
        actions = np.full(n, vector.WAIT, dtype=np.int64)
        for g in np.flatnonzero(live):
            actions[g] = rng.choice(np.flatnonzero(masks[0][g]))
        if not live.any():
            break
        for arrays in (mine, fresh):
            rewards = np.zeros((n, P), dtype=np.float32)
            k.step(arrays, actions, rewards, np.zeros(n, dtype=bool), np.zeros(n, dtype=bool))
        for g in range(n):
            diff = differences(k.dump(mine, g), k.dump(fresh, g))
            if diff:
                return f"game {g}: after a step the states differ in {diff}"
    return None


def _play(venv, rng, steps):
    for _ in range(steps):
        venv.step(venv.sample_actions(rng))


@pytest.mark.parametrize("game", GAMES)
def test_kernels_state_round_trip(game):
    for k, config in enumerate(_configs(game)):
        venv = vector.make(game, 6, config)
        venv.reset(seed=k)
        rng = np.random.default_rng(k)
        for _ in range(5):
            _play(venv, rng, int(rng.integers(1, 40)))
            problem = check_round_trip(venv, rng)
            assert problem is None, f"{game} {config}: {problem}"


def test_round_trip_catches_a_forgotten_field():
    """The negative control: a load that forgets one array (Golf's closed columns) is caught."""
    venv = vector.make("golf", 6, {"num_players": 2})
    kernels = venv.kernels
    original = kernels.load

    def forgetful(a, g, s):
        kept = a["closed"][g].copy()
        original(a, g, s)
        a["closed"][g] = kept

    kernels.load = forgetful
    venv.reset(seed=3)
    rng = np.random.default_rng(3)
    problems = []
    for _ in range(30):
        _play(venv, rng, 5)
        problems.append(check_round_trip(venv, rng, steps_after=0))
    assert any(p and "closed" in p for p in problems)


@pytest.mark.parametrize("game", GAMES)
def test_drivers_take_the_arrays_in_the_schema_order(game):
    """Every compiled function of the kernels that takes the whole state (the drivers, called with
    ``STATE.arrays_of(arrays)``, and their row functions) takes its arrays in the schema's order,
    whatever it is named."""
    kernels = card_envs.contract.part(game, "kernels")
    declared = card_envs.contract.part(game, "rules").STATE.array_names
    checked = 0
    for name, fn in vars(kernels).items():
        py_func = getattr(fn, "py_func", None)  # a numba dispatcher (its own, or shared ones it imports)
        if py_func is None:
            continue
        params = list(inspect.signature(py_func).parameters)
        if not set(declared) <= set(params):
            continue
        taken = [p for p in params if p in declared]
        assert taken == list(declared), f"{game}: kernels.{name} takes the state arrays out of order: {taken}, " \
            f"the schema's order is {list(declared)}"
        checked += 1
    assert checked, (f"{game}: no compiled function of card_envs/{game}/kernels.py takes every state array "
                     f"({', '.join(declared)}): the drivers take them as STATE.arrays_of(arrays) gives them")


@pytest.mark.parametrize("game", GAMES)
def test_config_array_is_declared(game):
    kernels = card_envs.contract.part(game, "kernels")
    config = kernels.CONFIG
    venv = vector.make(game, 1, _configs(game)[0])
    assert np.array_equal(venv.kernels.cfg, config.array(venv.rules))
    assert len(config.entries) == len(venv.kernels.cfg)
