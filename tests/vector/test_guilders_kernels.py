"""Guilders' kernels: the branches the differential test must reach, and its negative control."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tests.conformance.differential import play_differential  # noqa: E402


def test_guilders_refans_and_chaotic_reshuffles_are_compared_after_resynchronising():
    report = play_differential("guilders", {"num_players": 3, "chaotic_joker": True, "refan_discards": 2}, games=6, seed=3)
    assert report.mismatch is None, report.mismatch
    assert report.random_events > 0


# --------------------------------------------------------------------- negative control
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


def test_a_planted_rule_change_in_the_guilders_kernels_is_caught():
    report = play_differential("guilders", {"num_players": 3}, games=40, seed=5, kernels=_planted_guilders())
    assert report.mismatch is not None, "the differential test missed a changed rule"
