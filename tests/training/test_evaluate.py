"""One evaluation, defined once: seatings, duplicate deals, honest intervals, "win", ratings,
summary.json, the protocol's hooks, workers."""

from __future__ import annotations

import hashlib
import json
import math
import warnings

import numpy as np
import pytest

import card_envs
from agents.base import RandomAgent
from training import evaluate as E
from training.evaluate import GameRecord, TournamentResult, bounded_interval, tournament

GOLF2 = {"num_players": 2, "num_rounds": 1}
GOLF3 = {"num_players": 3, "num_rounds": 1}


class Recorder(RandomAgent):
    """A random agent that writes down every hook call it hears."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.calls = []

    def start_game(self, env_name, config, agent):
        self.calls.append(("start", env_name, dict(config), agent))

    def end_game(self, observation, reward, info):
        self.calls.append(("end", float(reward), dict(info)))


# ------------------------------------------------------------------------------- seating
def test_the_field_seats_one_agent_against_copies_of_the_other_in_every_seat():
    result = tournament("golf", ["heuristic", "random"], 12, GOLF3, field=True)
    assert result.agent_names == ["heuristic", "random"]
    assert result.seating == "field" and result.seating_text.startswith("field: heuristic in one seat against 2")
    lineups = [tuple(g.lineup) for g in result.games]
    assert all(lu.count(0) == 1 for lu in lineups), "exactly one seat is the agent's"
    assert {lu.index(0) for lu in lineups} == {0, 1, 2}, "its seat rotates through every seat"
    assert "field:" in result.table()


def test_identical_specs_are_pooled_into_one_row():
    result = tournament("guillotine", ["heuristic", "random", "random", "random"], 8, {"mode": "single"})
    rows = result.summary()
    assert [r["name"] for r in rows] == ["heuristic", "random"], "not 1:random .. 3:random"
    assert rows[1]["seats_per_game"] == 3 and rows[0]["seats_per_game"] == 1
    assert "line-up: heuristic in player_0, random in player_1" in result.table()


def test_a_lineup_with_fewer_agents_than_seats_repeats_the_list_and_says_so():
    result = tournament("golf", ["heuristic", "random"], 4, {"num_players": 4, "num_rounds": 1})
    assert {tuple(g.lineup) for g in result.games} == {(0, 1, 0, 1), (1, 0, 1, 0)}
    text = result.table()
    assert "the list repeats" in text and "--field heuristic random" in text


def test_with_more_agents_than_seats_every_two_meet_in_every_seat():
    result = tournament("golf", ["random", "heuristic", "ppo,any_table", RandomAgent(1)], 12, GOLF2)
    pairs = {tuple(g.lineup) for g in result.games}
    assert pairs == {(a, b) for a in range(4) for b in range(4) if a != b}
    assert result._met()[np.triu_indices(4, 1)].all()


# ------------------------------------------------------------------------- duplicate deals
def test_duplicate_deals_give_every_rotation_the_same_cards():
    result = tournament("golf", ["heuristic", "random"], 10, GOLF3, seed=5, field=True)
    by_deal: dict[int, list[GameRecord]] = {}
    for g in result.games:
        by_deal.setdefault(g.deal, []).append(g)
    assert len(by_deal) == 4 and len(result.games) == 12, "10 games round up to 4 whole deals of 3 rotations"
    for deal, games in by_deal.items():
        assert {g.seed for g in games} == {5 + deal}
        assert len({tuple(g.lineup) for g in games}) == 3
    # the same seed deals the same cards (every seat's grid, the stock, the dealer), whatever was played before
    env = card_envs.golf_v0.env(**GOLF3)
    deals = []
    for other in (0, 1):
        env.reset(seed=other)
        for _ in range(5):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        env.reset(seed=5)
        s = env.unwrapped.game_state
        deals.append((repr(s.grid), list(s.stock), list(s.discard), s.dealer))
    assert deals[0] == deals[1]


def test_independent_deals_are_one_game_per_seed():
    result = tournament("golf", ["heuristic", "random"], 10, GOLF2, seed=3, duplicate=False)
    assert [g.seed for g in result.games] == list(range(3, 13))
    assert "independent deals" in result.table()
    assert all(p["variance_vs_independent"] is None for p in result.margins())


def test_duplicate_deals_report_the_variance_reduction_of_the_margin():
    # two copies of one deterministic policy: on a duplicate deal they swap hands, so the luck of the
    # cards cancels and the margin's variance falls far below that of independent deals
    from agents.heuristic import HeuristicAgent

    a, b = HeuristicAgent(seed=0), HeuristicAgent(seed=0)
    a.name, b.name = "first", "second"
    result = tournament("golf", [a, b], 60, GOLF2)
    (pair,) = result.margins()
    assert 0 <= pair["variance_vs_independent"] < 0.5
    assert "variance" in result.table() and "x that of independent deals" in result.table()
    assert E.variance_ratio(np.array([1.0, -1.0, 1.0, -1.0]), np.array([0, 0, 1, 1])) == 0.0


# ------------------------------------------------------------------------------- intervals
def test_an_all_won_small_tournament_has_a_wide_interval_not_a_point():
    lo, hi = bounded_interval(np.ones(10), -1.0, 1.0, sizes=np.full(10, 2.0))
    assert hi == 1.0 and lo < 0.8, (lo, hi)
    lo, hi = bounded_interval(np.full(20, -1.0), -1.0, 1.0)
    assert lo == -1.0 and hi > -0.8


def test_for_yes_no_outcomes_the_interval_is_agresti_coull():
    x = np.array([1.0] * 7 + [0.0] * 13)
    z = E.Z95
    n_t = 20 + z * z
    p_t = (7 + z * z / 2) / n_t
    half = z * math.sqrt(p_t * (1 - p_t) / n_t)
    assert bounded_interval(x, 0.0, 1.0) == pytest.approx((p_t - half, p_t + half))


def test_the_bounded_interval_covers_at_small_n_and_near_the_extremes():
    rng = np.random.default_rng(0)
    for p, n in ((0.95, 20), (0.5, 10), (0.99, 40)):
        hits = 0
        for _ in range(2000):
            x = (rng.random(n) < p).astype(float) * 2 - 1  # a rank reward of a 2-seat game
            lo, hi = bounded_interval(x, -1.0, 1.0)
            hits += lo <= 2 * p - 1 <= hi
        assert hits / 2000 >= 0.93, (p, n, hits)


def test_scores_get_a_deal_bootstrap_interval():
    result = tournament("golf", ["heuristic", "random"], 20, GOLF2)
    row = result.summary()[0]
    assert row["score_low"] < row["mean_score"] < row["score_high"]


# ------------------------------------------------------------------------------------- win
def _result(ranks_per_game, lineup):
    games = [GameRecord(seed=g, lineup=list(lineup), rewards=[0.0] * len(lineup), scores=[0.0] * len(lineup),
                        ranks=list(r), steps=1, deal=g) for g, r in enumerate(ranks_per_game)]
    return TournamentResult("golf_v0", ["a", "b"], {}, games, num_seats=len(lineup))


def test_sole_and_shared_first_places_are_counted_apart():
    # four seats: a holds seat 0, b holds seats 1..3
    result = _result([[1, 2, 3, 4], [1, 1, 3, 4], [2, 1, 3, 4], [3, 1, 1, 4]], [0, 1, 1, 1])
    a, b = result.summary()
    assert a["win_rate"] == 0.25 and a["shared_first_rate"] == 0.25
    assert b["win_rate"] == 0.25, "b's sole first place in game 3; game 4's tie is between b's own seats"
    assert b["shared_first_rate"] == 0.5
    assert a["win_rate"] + b["win_rate"] <= 1


def test_the_sole_win_rates_of_a_four_seat_tournament_add_up_to_at_most_one():
    result = tournament("guillotine", ["heuristic", "random", RandomAgent(1), RandomAgent(2)], 16, {"mode": "single"})
    rows = result.summary()
    assert sum(r["win_rate"] for r in rows) <= 1 + 1e-9
    assert all(0 <= r["win_rate_low"] <= r["win_rate"] <= r["win_rate_high"] <= 1 for r in rows)


# --------------------------------------------------------------------------------- ratings
def test_tables_of_more_than_two_seats_get_openskill_ratings_beside_elo():
    pytest.importorskip("openskill")
    result = tournament("guillotine", ["heuristic", "random", "random", "random"], 16, {"mode": "single"})
    h, r = result.summary()
    assert h["openskill_mu"] > r["openskill_mu"] and h["openskill_sigma"] > 0
    assert h["elo"] > r["elo"]
    assert "openskill" in result.table()


# ----------------------------------------------------------------------------- summary.json
def test_summary_json_has_the_matrix_margins_seeds_seating_policies_and_versions(tmp_path):
    from agents.ppo import PRETRAINED_DIR

    result = tournament("golf_v0", ["ppo", "heuristic", "random"], 12, GOLF2, seed=7)
    summary_path, games_path = result.write(tmp_path)
    s = json.loads(summary_path.read_text())
    assert s["win_matrix"]["rows_ahead_of_columns"] == ["ppo", "heuristic", "random"]
    assert len(s["win_matrix"]["values"]) == 3
    pairs = {(m["a"], m["b"]) for m in s["margins"]}
    assert pairs == {("ppo", "heuristic"), ("ppo", "random"), ("heuristic", "random")}
    assert all(m["margin_low"] <= m["margin"] <= m["margin_high"] for m in s["margins"])
    assert s["deals"]["duplicate"] is True and s["deals"]["seed"] == 7 and s["deals"]["seeds"][0] == 7
    assert s["seating"]["mode"] == "lineup" and s["seating"]["description"]
    ppo = s["policies"]["ppo"]
    assert ppo["file"] == str((PRETRAINED_DIR / "golf_v0.zip").resolve())
    assert ppo["sha256"] == hashlib.sha256((PRETRAINED_DIR / "golf_v0.zip").read_bytes()).hexdigest()
    assert {"python", "card_envs", "numpy"} <= set(s["versions"])
    assert games_path.read_text().splitlines()[0].startswith("deal,game_seed,seat")


# ------------------------------------------------------------------------------------ hooks
def test_every_seat_hears_start_game_and_end_game_also_when_one_object_holds_several():
    rec = Recorder(seed=1)
    result = tournament("golf", ["heuristic", rec], 3, GOLF3, field=True, duplicate=False)
    starts = [c for c in rec.calls if c[0] == "start"]
    ends = [c for c in rec.calls if c[0] == "end"]
    assert len(starts) == len(ends) == 3 * 2, "two seats in each of three games"
    assert all(c[1] == "golf_v0" and c[2] == GOLF3 for c in starts)
    first_game = result.games[0]
    seats = [s for s, a in enumerate(first_game.lineup) if a == 1]
    assert sorted(c[3] for c in starts[:2]) == [f"player_{s}" for s in seats], "per seat, by agent name"
    assert sorted(c[1] for c in ends[:2]) == sorted(first_game.rewards[s] for s in seats)
    assert all("rank" in c[2] for c in ends)


# ---------------------------------------------------------------------------------- workers
def test_agent_objects_that_pickle_play_on_two_workers_and_give_the_same_games():
    one = tournament("golf", [RandomAgent(0), "heuristic"], 8, GOLF2, workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        two = tournament("golf", [RandomAgent(0), "heuristic"], 8, GOLF2, workers=2)
    assert not two.notes
    assert [(g.seed, g.lineup, g.rewards) for g in one.games] == [(g.seed, g.lineup, g.rewards) for g in two.games]


def test_an_agent_object_that_does_not_pickle_runs_on_one_worker_with_a_warning():
    agent = RandomAgent(0)
    agent.hook = lambda: None  # a lambda does not pickle
    with pytest.warns(UserWarning, match="1 worker"):
        result = tournament("golf", [agent, "random"], 4, GOLF2, workers=2)
    assert any("does not pickle" in n for n in result.notes) and "1 worker" in result.table()


def test_an_error_inside_a_worker_reaches_the_caller_as_a_value_error():
    # any_table lets the 2-seat policy sit at a 3-seat table; its observation size then differs
    with pytest.raises(ValueError, match="observations of size"):
        tournament("golf", ["ppo,any_table", "random"], 6, GOLF3, workers=2, field=True)


# ------------------------------------------------------------------------------ one evaluation
def test_training_evaluates_through_the_same_function_in_the_field_seating(monkeypatch):
    pytest.importorskip("sb3_contrib")
    from training import rllib_backend, train

    row = train.evaluate("golf_v0", GOLF3, "heuristic", "random", 6, seed=1)
    assert row["seating"].startswith("field: agent in one seat against 2 copies of random")
    assert row["games"] == 6 and row["reward_low"] <= row["mean_reward"] <= row["reward_high"]
    assert row["win_rate_low"] <= row["win_rate"] <= row["win_rate_high"]
    calls = []
    monkeypatch.setattr(E, "evaluate_against", lambda *a, **k: calls.append(a) or {"mean_reward": 0.0})
    train.evaluate("golf_v0", GOLF2, "heuristic", "random", 2, seed=0)
    assert calls, "training.train.evaluate is training.evaluate.evaluate_against"
    import inspect

    from training import runs, sb3_backend

    # both backends evaluate through training/runs.py, which calls evaluate_against
    for shared in (runs.evaluate_during_training, runs.finish_run):
        assert "evaluate_against(" in inspect.getsource(shared)
    for backend in (rllib_backend.train_rllib, sb3_backend.train):
        assert "finish_run(" in inspect.getsource(backend)
    assert "evaluate_during_training(" in inspect.getsource(rllib_backend.train_rllib)
    assert "evaluate_during_training(" in inspect.getsource(sb3_backend._callbacks)


def test_workers_start_from_a_fresh_process_unless_an_agent_lives_in_main():
    """A fork would copy this process's OpenMP runtime (numba ends such a child), so workers come
    from a fork server; an agent object whose class is a script's or notebook's own (``__main__``)
    reaches only a forked child, so then they are forked as before."""
    import multiprocessing

    from training.games import _worker_context

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork server on this platform")
    assert _worker_context(["heuristic", RandomAgent(0)]).get_start_method() == "forkserver"
    own = type("Scripted", (RandomAgent,), {"__module__": "__main__"})(0)
    assert _worker_context(["heuristic", own]).get_start_method() == multiprocessing.get_start_method()
