"""The batched engine is the same game as raw_env(): step by step, byte for byte, every option.

See ``tests/vector/differential.py``. Every configuration of each game's ``CONFORMANCE_CONFIGS``
(plus the extra ``VECTOR_CONFIGS`` below, which reach the rare branches: Golf's stock rebuild,
multi-round games, score rewards) is played through both engines; a planted one-line rule change
in the kernels must be caught.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from tests.vector.differential import play_differential  # noqa: E402

#: games per configuration (the slow run plays more)
GAMES = int(os.environ.get("CARD_ENVS_VECTOR_GAMES", "12"))

VECTOR_GAMES = ("golf", "guilders")

#: configurations beyond the conformance ones, each reaching a branch worth pinning
VECTOR_CONFIGS = {
    "golf": [
        {"num_players": 2, "target_score": 60, "dealer": 1},  # many rounds, stock rebuilds
        {"num_players": 5, "num_rounds": 1, "num_decks": 1, "turn_up_discard": False},
        {"num_players": 2, "num_rounds": 3, "flip_after_discard": "must", "reward_mode": "score"},
        {"num_players": 3, "target_score": 40, "max_rounds": 2},  # truncation by max_rounds
        {"num_players": 2, "num_rounds": 1, "max_turns_per_round": 7},  # the stalling guard
    ],
    "guilders": [
        {"num_players": 60, "num_decks": 2, "evil_joker": True},  # more players than one deck allows
        {"num_players": 3, "num_decks": 3, "good_joker": True, "jokers_per_deck": 1, "refan_discards": 2},
        {"num_players": 2, "evil_joker": True, "chaotic_joker": True, "public_discards": True, "start_player": "random"},
        {"num_players": 3, "good_joker": True, "evil_joker": True, "reward_mode": "score", "refan_discards": 1},
        {"num_players": 1, "good_joker": True, "chaotic_joker": True, "refan_discards": 3},
        {"num_players": 4, "refan_discards": -1, "max_turns": 120},  # truncation
    ],
}


def _cases(slow: bool):
    for game in VECTOR_GAMES:
        module = card_envs.ENVIRONMENTS[f"{game}_v0"]
        for k, cfg in enumerate(list(module.CONFORMANCE_CONFIGS) + VECTOR_CONFIGS.get(game, [])):
            inner = ",".join(f"{a}={b}" for a, b in cfg.items())
            yield pytest.param(game, dict(cfg), k, id=f"{game}[{inner}]")


def _games(config: dict) -> int:
    """Fewer games for big tables and several decks: the rules engine is the slow side."""
    return max(2, GAMES * 4 // max(4, config.get("num_players", 4)) // config.get("num_decks", 1))


@pytest.mark.parametrize("game, config, k", list(_cases(False)))
def test_the_batched_engine_plays_the_same_game_as_raw_env(game, config, k):
    report = play_differential(game, config, games=_games(config), seed=k, seats_per_step=6)
    assert report.mismatch is None, report.mismatch
    assert report.games >= _games(config)


@pytest.mark.slow
@pytest.mark.parametrize("game, config, k", list(_cases(True)))
def test_the_batched_engine_plays_the_same_game_as_raw_env_in_many_games(game, config, k):
    games = 4 * _games(config)
    report = play_differential(game, config, games=games, batch=32, seed=1000 + k)
    assert report.mismatch is None, report.mismatch
    assert report.games >= games


def test_guilders_refans_and_chaotic_reshuffles_are_compared_after_resynchronising():
    report = play_differential("guilders", {"num_players": 3, "chaotic_joker": True, "refan_discards": 2}, games=6, seed=3)
    assert report.mismatch is None, report.mismatch
    assert report.random_events > 0


def test_golf_stock_rebuilds_and_new_rounds_are_compared_after_resynchronising():
    report = play_differential("golf", {"num_players": 2, "target_score": 60}, games=6, seed=3)
    assert report.mismatch is None, report.mismatch
    assert report.random_events > 0, "no stock rebuild or new deal happened: the branch went unchecked"


# --------------------------------------------------------------------- negative control
def _planted_golf():
    """A one-line rule change: in Golf a column closes on equal *values* (10 and K both 10)
    instead of equal ranks — applied to the kernel state after each step."""
    from card_envs.golf.kernels import Kernels

    class Planted(Kernels):
        def step(self, a, actions, rewards, term, trunc):
            super().step(a, actions, rewards, term, trunc)
            grid, up, closed = a["grid"], a["up"], a["closed"]
            value = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 10, 10])
            v = value[grid % 13]
            pair = (up[:, :, :3] == 1) & (up[:, :, 3:] == 1) & (v[:, :, :3] == v[:, :, 3:])
            closed[pair] = 1

    return Planted


def _planted_guilders():
    """A one-line rule change: in Guilders a rank match scores 4 points instead of 5."""
    from card_envs.guilders import kernels as gk

    class Planted(gk.Kernels):
        def step(self, a, actions, rewards, term, trunc):
            super().step(a, actions, rewards, term, trunc)
            row, stats = a["row"], a["stats"]
            hit = (row[:, gk.L_EVENTS] & gk.MATCHED != 0) & (row[:, gk.L_CALL] >= 4) & (row[:, gk.L_CALL] < 17)
            for g in np.flatnonzero(hit):
                stats[g, row[g, gk.L_MOVER], 0] -= 1

    return Planted


@pytest.mark.parametrize("game, config, planted", [
    ("golf", {"num_players": 4, "num_rounds": 1}, _planted_golf),
    ("guilders", {"num_players": 3}, _planted_guilders),
])
def test_a_planted_rule_change_in_the_kernels_is_caught(game, config, planted):
    report = play_differential(game, config, games=40, seed=5, kernels=planted())
    assert report.mismatch is not None, "the differential test missed a changed rule"
