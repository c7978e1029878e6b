"""What the determinization tests of Golf, Guilders and Fiddlesticks share: random states
through ``env()``, the round-trip check, a brute-force posterior and a chi-square test."""

from __future__ import annotations

import inspect
import math
from collections import Counter
from itertools import permutations

import numpy as np


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
            if done:
                action = None
            elif policy is not None:
                action = policy(env, obs, rng)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)


def check_round_trip(module, cfg: dict, games: int, seed: int, every: int, continue_steps: int = 3,
                     max_states: int | None = None) -> int:
    """Each sampled world shown to seat 0 gives back the observation byte for byte, holds the
    whole deck, and is a live rules state (a few legal steps from it apply). Returns how many
    states were checked."""
    rng = np.random.default_rng(seed + 7)
    checked = 0
    for env, seat, x in random_observations(module, cfg, games, seed, every):
        raw = env.unwrapped
        rules, codec, View = raw.rules, raw._codec, raw.View
        world = module.sample_world(x, rng, **cfg)
        y = codec.encode(View.view(world, 0))
        assert y.dtype == x.dtype and y.tobytes() == x.tobytes(), (
            f"seat {seat}: the world's observation differs\nobserved: {codec.decode(x)}\nsampled: {View.view(world, 0)}"
        )
        census = sorted(c for zone in rules.zones(world).values() for c in zone)
        assert census == sorted(rules.deck()), "the sampled world's cards are not the deck"
        for _ in range(continue_steps):
            if world.current_player < 0 or world.terminated or world.truncated:
                break
            legal = np.flatnonzero(rules.legal_mask(world))
            assert len(legal), "the sampled world has no legal action"
            rules.apply(world, int(legal[rng.integers(len(legal))]))
        checked += 1
        if max_states is not None and checked >= max_states:
            break
    return checked


def check_signature(sample_world) -> None:
    """sample_world takes the observation, an rng and the env's options: no env, no state."""
    params = list(inspect.signature(sample_world).parameters.values())
    assert [p.name for p in params] == ["observation", "rng", "options"]
    assert params[2].kind is inspect.Parameter.VAR_KEYWORD


def brute_force(places: list, cards: list, consistent, statistic) -> Counter:
    """The exact law of ``statistic`` under the uniform law over every arrangement of the
    labelled ``cards`` on ``places`` that ``consistent`` keeps (tiny cases: len! arrangements)."""
    law = Counter()
    for perm in permutations(range(len(cards))):
        arrangement = [cards[i] for i in perm]
        if consistent(arrangement):
            law[statistic(arrangement)] += 1
    total = sum(law.values())
    assert total, "no consistent arrangement: the brute force is wrong"
    return Counter({k: v / total for k, v in law.items()})


def chi_square_critical(df: int, z: float = 3.719) -> float:
    """The chi-square quantile (Wilson-Hilferty); z = 3.719 is the normal 0.9999 quantile."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def chi_square(samples: Counter, law: Counter) -> tuple[float, float]:
    """(statistic, critical value at p = 1e-4) of ``samples`` against the exact ``law``, cells
    with an expected count under 5 pooled; a sample outside the law's support fails at once."""
    n = sum(samples.values())
    outside = set(samples) - set(law)
    assert not outside, f"sampled values the brute force never gives: {sorted(outside)[:5]}"
    cells, pooled_obs, pooled_exp = [], 0.0, 0.0
    for key, p in law.items():
        e = n * p
        if e < 5:
            pooled_obs += samples.get(key, 0)
            pooled_exp += e
        else:
            cells.append((samples.get(key, 0), e))
    if pooled_exp > 0:
        cells.append((pooled_obs, pooled_exp))
    stat = sum((o - e) ** 2 / e for o, e in cells)
    df = max(len(cells) - 1, 1)
    return stat, chi_square_critical(df)


def rejects(samples: Counter, law: Counter) -> bool:
    """Whether the chi-square test rejects ``samples`` against ``law`` (a value outside the
    law's support rejects at once): the negative controls' check."""
    if set(samples) - set(law):
        return True
    value, critical = chi_square(samples, law)
    return value > critical


def state_where(module, cfg: dict, seed: int, predicate, policy=None, max_steps: int = 5000):
    """Random (or ``policy``) legal play through ``module.env(**cfg)`` until
    ``predicate(state)``; the env, stopped there."""
    rng = np.random.default_rng(seed)
    for attempt in range(50):
        env = module.env(**cfg)
        env.reset(seed=seed * 100 + attempt)
        for _ in range(max_steps):
            s = env.unwrapped.game_state
            if s.terminated or s.truncated:
                break
            if predicate(s):
                return env
            obs = env.observe(env.agent_selection)
            if policy is not None:
                action = policy(env, obs, rng)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
    raise AssertionError("no such state reached")
