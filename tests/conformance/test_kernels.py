"""The batched engine is the same game as raw_env(): step by step, byte for byte, every option.

See ``tests/conformance/differential.py``. For every registered game, every configuration of its
``CONFORMANCE_CONFIGS`` plus its ``VECTOR_CONFIGS`` (both in ``tests/cases/<game>.py``; the latter
are the configurations that reach the kernels' rare branches — Golf's stock rebuild, multi-round games,
score rewards, truncation) is played through both engines.

The negative control is generic: kernels whose output differs from the true kernels' in one
element (one entry of one game's observation, one action of its legal mask, one seat's reward)
must be caught. Each game's ``tests/vector/test_<game>_kernels.py`` adds its own controls (a
planted one-line rule change) and pins that its random events were compared after resynchronising.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from card_envs import contract  # noqa: E402
from tests import cases  # noqa: E402
from tests.conformance.differential import play_differential  # noqa: E402

#: games per configuration (the slow run plays more)
GAMES = int(os.environ.get("CARD_ENVS_VECTOR_GAMES", "12"))

#: every registered game: each has its batched engine
VECTOR_GAMES = tuple(contract.games())


def configurations(game: str) -> list[dict]:
    c = cases.of(game)
    return list(c.CONFORMANCE_CONFIGS) + list(c.VECTOR_CONFIGS)


def _cases():
    for game in VECTOR_GAMES:
        def build(c, game=game):
            out = []
            for k, cfg in enumerate(list(c.CONFORMANCE_CONFIGS) + list(c.VECTOR_CONFIGS)):
                inner = ",".join(f"{a}={b}" for a, b in cfg.items())
                out.append(pytest.param(game, dict(cfg), k, id=f"{game}[{inner}]"))
            return out

        yield from cases.parameters(f"{game}_v0", build, arity=3)


def _games(config: dict) -> int:
    """Fewer games for big tables and several decks: the rules engine is the slow side."""
    return max(2, GAMES * 4 // max(4, config.get("num_players", 4)) // config.get("num_decks", 1))


def test_every_game_of_the_library_has_a_batched_engine():
    missing = [name for name, m in card_envs.ENVIRONMENTS.items() if not hasattr(m, "vector_env")]
    assert not missing, f"no vector_env in {missing}: vector_env = card_envs._vector_api.vector_constructor(game)"


@pytest.mark.parametrize("game, config, k", list(_cases()))
def test_the_batched_engine_plays_the_same_game_as_raw_env(game, config, k):
    report = play_differential(game, config, games=_games(config), seed=k, seats_per_step=6)
    assert report.mismatch is None, report.mismatch
    assert report.games >= _games(config)


@pytest.mark.slow
@pytest.mark.parametrize("game, config, k", list(_cases()))
def test_the_batched_engine_plays_the_same_game_as_raw_env_in_many_games(game, config, k):
    games = _games(config)
    report = play_differential(game, config, games=games, batch=32, seed=1000 + k)
    assert report.mismatch is None, report.mismatch
    assert report.games >= games


# --------------------------------------------------------------------- negative control
def _one_element_off(game: str, output: str):
    """The game's kernels with one element of one output changed: each encoded observation of the
    first game asked for has one entry (a different one each call) raised by 1; or the first
    game's legal mask has one action flipped; or the first seat of the first game gets 1 more
    reward in each step."""
    real = contract.part(game, "kernels").Kernels

    class OneElementOff(real):
        calls = 0

        def encode(self, a, rows, seats, out):
            super().encode(a, rows, seats, out)
            if output == "observation" and len(rows):
                OneElementOff.calls += 1
                out[rows[0], (7 * OneElementOff.calls) % out.shape[1]] += 1.0

        def legal(self, a, mask):
            super().legal(a, mask)
            if output == "mask":
                mask[0, int(np.flatnonzero(mask[0])[0]) if mask[0].any() else 0] ^= 1

        def step(self, a, actions, rewards, term, trunc):
            super().step(a, actions, rewards, term, trunc)
            if output == "rewards":
                rewards[0, 0] += 1.0

    return OneElementOff


@pytest.mark.parametrize("output, named", [("observation", "observation"), ("mask", "mask"), ("rewards", "rewards")])
@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_a_one_element_change_in_the_kernels_output_is_caught(game, output, named):
    config = cases.of(game).CONFORMANCE_CONFIGS[0]
    report = play_differential(game, config, games=2, batch=2, seed=3, kernels=_one_element_off(game, output))
    assert report.mismatch is not None, f"{game}: the differential test missed a changed {output}"
    assert named in report.mismatch, report.mismatch
