"""Golf's kernels: the branches the differential test must reach, and its negative control."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tests.conformance.differential import play_differential  # noqa: E402


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


def test_a_planted_rule_change_in_the_golf_kernels_is_caught():
    report = play_differential("golf", {"num_players": 4, "num_rounds": 1}, games=40, seed=5, kernels=_planted_golf())
    assert report.mismatch is not None, "the differential test missed a changed rule"
