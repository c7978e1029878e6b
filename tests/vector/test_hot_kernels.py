"""Hot's kernels (Collector's with the Hot flag): deal scoring, play to 11 through every deal,
the hidden commitments, the random events (new deals) and the negative control."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from card_envs.set_collecting.engine import OVER  # noqa: E402
from tests.conformance.differential import play_differential  # noqa: E402
from tests.vector.test_collector_kernels import (  # noqa: E402
    branches_reached,
    hidden_commitment_check,
    play_lockstep,
    two_complete_deck,
)


def test_hot_rare_branches_are_reached_and_compared(monkeypatch):
    configs = [
        {"num_players": 3, "hand_size": 12, "contest_fallback": "nothing", "max_rounds_per_deal": 15, "max_deals": 6,
         "dealer": "random"},
        {"num_players": 3, "hand_size": 8, "reward_mode": "score", "single_deal": True, "max_rounds_per_deal": 30},
    ]
    hits, every = branches_reached(monkeypatch, "hot", configs, games=6)
    assert hits == every, f"branches never compared: {sorted(every - hits)}"


def test_hot_games_to_11_play_through_every_deal_and_new_deals_are_compared_after_resynchronising(monkeypatch):
    """Default Hot (to 11): games of several deals, each new deal a random event whose census
    is compared before the rules engine's deal is loaded; every deal is then compared."""
    from card_envs.hot.rules import HotRules

    deals = []
    apply = HotRules.apply

    def recording(self, s, action):
        before = (s.deal, list(s.scores))
        out = apply(self, s, action)
        if s.phase == OVER and s.terminated:
            deals.append((before[0] + 1, max(s.scores)))
        return out

    monkeypatch.setattr(HotRules, "apply", recording)
    report = play_differential("hot", {"num_players": 2}, games=4, seed=3)
    assert report.mismatch is None, report.mismatch
    assert report.random_events > 0, "no new deal happened: the branch went unchecked"
    assert len(deals) >= 4 and all(top >= 11 for _, top in deals)
    assert max(d for d, _ in deals) > 1, "no game went past its first deal"


def test_hot_simultaneous_callers_score_against_everyone_else():
    """Seats 0 and 2 complete in the same round: each scores 0 from the other (complete) and
    13 - 7 from seat 1; with target 6 both reach it and share the win."""
    deck = two_complete_deck(3, [0, 2], dealer=0)
    env = play_lockstep("hot", {"num_players": 3, "hand_size": 12, "target_points": 6, "reward_mode": "score"},
                        deck, [1, 0, 0, 13, 13, 13])
    s = env.game_state
    assert s.terminated and s.winners == [0, 2] and s.scores == [6, 0, 6] and s.last_deal_points == [6, 0, 6]
    assert [env.rewards[a] for a in env.possible_agents] == [(6 - 4) / 12, (0 - 4) / 12, (6 - 4) / 12]
    env = play_lockstep("hot", {"num_players": 3, "hand_size": 12, "target_points": 6}, deck, [1, 0, 0, 13, 13, 13])
    assert [env.rewards[a] for a in env.possible_agents] == [0.5, -1.0, 0.5]


@pytest.mark.parametrize("config", [{"num_players": 3}, {"num_players": 2, "contest_fallback": "nothing"}])
def test_hot_a_later_mover_sees_nothing_of_an_earlier_commitment(config):
    assert hidden_commitment_check("hot", config, games=2) > 0


def test_hot_wait_is_never_legal_in_the_vector_env():
    venv = card_envs.hot_v0.vector_env(num_envs=16, num_players=3)
    venv.reset(seed=0)
    for _ in range(300):
        assert not venv._mask[:, 16].any()
        venv.step(venv.sample_actions())


# --------------------------------------------------------------------- negative control
def _planted_hot():
    """A one-line rule change: a successful taker draws no card (Collector's take)."""
    from card_envs.set_collecting import kernels as ck
    from card_envs.hot import kernels as hk

    class Planted(hk.Kernels):
        def __init__(self, rules):
            super().__init__(rules)
            self.cfg[ck.C_TAKE_DRAWS] = 0

    return Planted


def _planted_hot_scoring():
    """A one-line rule change: a caller scores only the ranks missing from the first opponent
    clockwise (applied to the kernel state after each step that scored a deal)."""
    from card_envs.set_collecting import kernels as ck
    from card_envs.hot import kernels as hk

    class Planted(hk.Kernels):
        def step(self, a, actions, rewards, term, trunc):
            before = a["seat"][:, :, ck.SCORE].copy()
            super().step(a, actions, rewards, term, trunc)
            seat = a["seat"]
            for g in np.flatnonzero((seat[:, :, ck.SCORE] != before).any(axis=1)):
                seat[g, :, ck.SCORE] = before[g] + np.minimum(seat[g, :, ck.LAST_POINTS], 3)

    return Planted


@pytest.mark.parametrize("planted", [_planted_hot, _planted_hot_scoring])
def test_a_planted_rule_change_in_the_hot_kernels_is_caught(planted):
    report = play_differential("hot", {"num_players": 3, "target_points": 5}, games=6, seed=5, kernels=planted())
    assert report.mismatch is not None, "the differential test missed a changed rule"
