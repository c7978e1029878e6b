"""What every game's sampled worlds are checked with (``tests/conformance/test_worlds.py``, and the
games' own determinization tests under ``tests/worlds/``): observations along random games, and
the round trip from an observation to a world and back."""

from __future__ import annotations

import inspect

import numpy as np

from tests.conformance.cases import random_action


def random_observations(module, cfg: dict, games: int, seed: int, every: int = 1, policy=None):
    """(env, seat, observation vector) for every seat at every ``every``-th step of ``games``
    games of random legal play through ``module.env(**cfg)`` (the game-over step included)."""
    rng = np.random.default_rng(seed)
    env = module.env(**cfg)
    for g in range(games):
        env.reset(seed=seed * 1000 + g)
        for step, agent in enumerate(env.agent_iter(100_000)):
            obs, _, term, trunc, _ = env.last()
            done = term or trunc
            if step % every == 0 or done:
                for seat, a in enumerate(env.possible_agents):
                    yield env, seat, env.observe(a)["observation"]
            env.step(None if done else policy(env, obs, rng) if policy else random_action(obs, rng))


def check_world(module, env, seat: int, x: np.ndarray, world, rng, continue_steps: int = 3) -> None:
    """A world sampled from ``seat``'s observation ``x`` (the env as it stands): shown to seat 0 it
    gives the observation byte for byte and the seat's action mask (its legal actions where it is
    to act, none where it is not), it holds the whole deck, and it is a live rules state (a few
    legal steps from it apply)."""
    raw = env.unwrapped
    rules, codec, view = raw.rules, raw._codec, raw.View.view
    y = codec.encode(view(world, 0))
    assert y.dtype == x.dtype and y.tobytes() == x.tobytes(), (
        f"seat {seat}: the world's observation differs\nobserved: {codec.decode(x)}\nsampled: {view(world, 0)}")
    over = world.terminated or world.truncated or world.current_player < 0
    to_act = not over and world.current_player == 0
    mask = raw.observe(raw.possible_agents[seat])["action_mask"]
    if to_act:
        assert rules.legal_mask(world).tobytes() == mask.tobytes(), f"seat {seat}: the world's legal actions differ"
    else:
        assert not mask.any(), f"seat {seat} may act, but in the sampled world it is not to act"
    census = sorted(c for zone in rules.zones(world).values() for c in zone)
    assert census == sorted(rules.deck()), "the sampled world's cards are not the deck"
    for _ in range(continue_steps):
        if world.current_player < 0 or world.terminated or world.truncated:
            break
        legal = np.flatnonzero(rules.legal_mask(world))
        assert len(legal), "the sampled world has no legal action"
        rules.apply(world, int(legal[rng.integers(len(legal))]))


def check_round_trip(module, cfg: dict, games: int, seed: int, every: int, continue_steps: int = 3,
                     max_states: int | None = None) -> int:
    """:func:`check_world` for the worlds sampled from every seat's observation along random games
    (every ``every``-th step). Returns how many states were checked."""
    rng = np.random.default_rng(seed + 7)
    checked = 0
    for env, seat, x in random_observations(module, cfg, games, seed, every):
        world = module.sample_world(x, rng, **cfg)
        check_world(module, env, seat, x, world, rng, continue_steps)
        checked += 1
        if max_states is not None and checked >= max_states:
            break
    return checked


def check_signature(sample_world) -> None:
    """sample_world takes the observation, an rng and the env's options: no env, no state."""
    params = list(inspect.signature(sample_world).parameters.values())
    assert [p.name for p in params] == ["observation", "rng", "options"], (
        "sample_world's parameters must be (observation, rng, **options): it sees no env and no state")
    assert params[2].kind is inspect.Parameter.VAR_KEYWORD
