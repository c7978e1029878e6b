"""The batched engine is the same game as raw_env(): step by step, byte for byte, every option.

See ``tests/vector/differential.py``. For every game with ``vector_env``, every configuration of
its ``CONFORMANCE_CONFIGS`` plus its ``VECTOR_CONFIGS`` (both in ``tests/cases/<game>.py``; the latter
are the configurations that reach the kernels' rare branches — Golf's stock rebuild, multi-round games,
score rewards, truncation) is played through both engines. Each game's ``test_<game>_kernels.py``
adds its negative control (a planted one-line rule change the test must catch) and pins that its
random events were compared after resynchronising.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from tests import cases  # noqa: E402
from tests.vector.differential import play_differential  # noqa: E402

#: games per configuration (the slow run plays more)
GAMES = int(os.environ.get("CARD_ENVS_VECTOR_GAMES", "12"))

#: every game of the library with a batched engine
VECTOR_GAMES = tuple(name[:-3] for name, m in card_envs.ENVIRONMENTS.items() if hasattr(m, "vector_env"))


def configurations(game: str) -> list[dict]:
    c = cases.of(game)
    return list(c.CONFORMANCE_CONFIGS) + list(c.VECTOR_CONFIGS)


def _cases():
    for game in VECTOR_GAMES:
        for k, cfg in enumerate(configurations(game)):
            inner = ",".join(f"{a}={b}" for a, b in cfg.items())
            yield pytest.param(game, dict(cfg), k, id=f"{game}[{inner}]")


def _games(config: dict) -> int:
    """Fewer games for big tables and several decks: the rules engine is the slow side."""
    return max(2, GAMES * 4 // max(4, config.get("num_players", 4)) // config.get("num_decks", 1))


def test_every_game_of_the_library_has_a_batched_engine():
    assert set(VECTOR_GAMES) == {name[:-3] for name in card_envs.ENVIRONMENTS}


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
