"""The busy-machine benchmark (``benchmarks/busy.py``, ``bench_vector.py --busy``): every thread
choice beside 0, 1 and 2 busy processes it starts and stops itself, the default set against the
best fixed choice and against the engine's former idle speed, and the table the speed page shows."""

from __future__ import annotations

import pytest

from benchmarks import busy


def test_every_choice_is_measured_at_every_load_and_the_default_is_set_against_the_best_fixed_one(monkeypatch):
    started, stopped = [], []

    class Loop:
        def __init__(self, load):
            self.load = load

        def kill(self):
            stopped.append(self.load)

        def wait(self):
            pass

    def fake_busy(count, seconds):
        started.append(count)
        return [Loop(count) for _ in range(count)]

    # a made-up machine: spinning threads fall apart under load, the default follows it
    rates = {"default": [100, 60, 40], "1 thread": [50, 50, 30], "numba default": [110, 10, 5],
             "passive": [40, 80, 50], "workqueue": [30, 20, 10]}
    monkeypatch.setattr(busy, "_busy", fake_busy)
    monkeypatch.setattr(busy, "turn_rates", lambda game, choices, rounds, block, warm: {
        c: [[rates[c][started[-1]], 1.0]] for c in choices})
    paired_calls = []

    def fake_paired(game, load, rounds):  # the same process: beside busy ones passive, idle spinning
        paired_calls.append((game, load, rounds))
        return ({"default": 100, "1 thread": 50, "numba default": 95} if load == 0 else
                {"default": 70, "1 thread": 50 + 20 * load, "passive": 60})

    monkeypatch.setattr(busy, "paired_rates", fake_paired)
    result = busy.measure(["golf_v0"], 0.1, users=False, say=lambda *_: None)
    assert started == list(busy.LOADS) == [0, 1, 2] and sorted(stopped) == [1, 2, 2], "each load's loops stopped"
    rows = {r["load"]: r for r in result["rows"]}
    assert set(rows[0]) >= set(busy.CHOICES)
    assert rows[0]["default_vs_best_fixed"] == pytest.approx(100 / 110)
    assert rows[1]["default_vs_best_fixed"] == pytest.approx(60 / 80)
    assert rows[2]["default_vs_idle_before"] == pytest.approx(40 / 110), "against the former default's idle speed"
    assert paired_calls == [("golf_v0", load, busy.PAIRED_ROUNDS) for load in busy.LOADS]
    assert rows[0]["paired_default_vs_best_fixed"] == pytest.approx(100 / 95)
    assert rows[0]["paired_default_vs_idle_before"] == pytest.approx(1.0 * 100 / 95)
    assert rows[1]["paired_default_vs_best_fixed"] == pytest.approx(70 / 70)
    assert rows[2]["paired_default_vs_best_fixed"] == pytest.approx(70 / 90)
    assert rows[2]["paired_default_vs_idle_before"] == pytest.approx(70 / 95)
    table = busy.table(result).splitlines()
    assert table[0].startswith("| busy | measured | `default` | `1 thread` | `numba default` |")
    assert table[3] == "| 1 | golf_v0 | 60 | 50 | 10 | 80 | 20 | 0.75× | 1.00× |"
    # no paired cells asked for: none taken, none in the table
    paired_calls.clear()
    result = busy.measure(["golf_v0"], 0.1, users=False, say=lambda *_: None, paired_rounds=0)
    assert not paired_calls and busy.table(result).splitlines()[3].endswith("| 0.75× | — |")
    with pytest.raises(ValueError, match="paired_rounds must be >= 0"):
        busy.measure(["golf_v0"], 0.1, users=False, say=lambda *_: None, paired_rounds=-1)
    assert [rows[load]["paired_started"] for load in busy.LOADS] == ["spinning", "passive", "passive"]


def test_paired_cells_whose_engine_started_passive_on_a_machine_called_idle_are_kept_and_marked(monkeypatch):
    # a test suite beside the benchmark holds cores: the engine starts passive with no busy loop
    monkeypatch.setattr(busy, "_busy", lambda count, seconds: [])
    monkeypatch.setattr(busy, "LOADS", (0,))
    monkeypatch.setattr(busy, "turn_rates", lambda game, choices, rounds, block, warm: {c: [[10.0, 1.0]] for c in choices})
    monkeypatch.setattr(busy, "paired_rates", lambda game, load, rounds: {"default": 9, "1 thread": 6, "passive": 10})
    said = []
    result = busy.measure(["golf_v0"], 0.1, users=False, say=said.append)
    row = result["rows"][0]
    assert row["paired_started"] == "passive" and row["paired_default_vs_best_fixed"] == pytest.approx(0.9)
    assert "paired_default_vs_idle_before" not in row, "no spinning count to set it against"
    assert any("started passive" in line for line in said)
    assert busy.table(result).splitlines()[2].endswith("| 0.90× (started passive) |")


def test_paired_cells_run_every_setting_in_one_process_as_its_engine_started():
    # the load at the test's start decides how the engine starts; either way its own settings
    rates = busy.paired_rates("golf_v0", None, rounds=2, block=0.05)
    assert set(rates) in ({"default", "1 thread", "passive"}, {"default", "1 thread", "numba default"})
    assert busy.engine_start(rates) == ("passive" if "passive" in rates else "spinning")
    assert all(rate > 1000 for rate in rates.values()), rates


def test_each_choice_sets_only_its_own_variables():
    assert busy.CHOICES["default"] == {}, "the default is what card_envs does unprompted"
    for choice, settings in busy.CHOICES.items():
        assert set(settings) <= set(busy._SETTINGS), choice
    assert busy.CHOICES["numba default"]["GOMP_SPINCOUNT"] == "300000"


def test_a_busy_loop_is_bounded_and_stopped():
    loops = busy._busy(1, 30)
    try:
        assert loops[0].poll() is None
    finally:
        for p in loops:
            p.kill()
            p.wait()
    assert loops[0].poll() is not None


def test_the_engines_users_are_measured_and_rllib_only_given_an_interpreter_with_ray(monkeypatch):
    monkeypatch.setattr(busy, "_busy", lambda count, seconds: [])
    monkeypatch.setattr(busy, "turn_rates", lambda game, choices, rounds, block, warm: {c: [[1.0, 1.0]] for c in choices})
    calls = []
    for name in ("pimc_rate", "training_rate"):
        monkeypatch.setattr(busy, name, lambda choice, seconds, name=name: calls.append(name) or 2.0)
    monkeypatch.setattr(busy, "evaluation_rate", lambda choice, games: calls.append("evaluation_rate") or 3.0)
    monkeypatch.setattr(busy, "rllib_rate", lambda choice, seconds, python: calls.append(python) or 4.0)
    monkeypatch.setattr(busy, "paired_rates", lambda game, load, rounds: {"default": 1.0, "1 thread": 1.0})
    without = busy.measure(["golf_v0"], 0.1, users=True, say=lambda *_: None)
    assert "training.train (RLlib)" not in {r["what"] for r in without["rows"]} and "/ray/python" not in calls
    result = busy.measure(["golf_v0"], 0.1, users=True, say=lambda *_: None, rllib_python="/ray/python")
    rllib = [r for r in result["rows"] if r["what"] == "training.train (RLlib)"]
    assert [r["load"] for r in rllib] == list(busy.LOADS)
    assert all(r["unit"] == "learner steps/s" and set(busy.USER_CHOICES) <= set(r) for r in rllib)
    # each RLlib cell is the median of three runs, like the other users' cells (one run is too noisy)
    assert calls.count("/ray/python") == 3 * len(busy.LOADS) * len(busy.USER_CHOICES)
    assert all(len(r["samples"][c]) == 3 for r in rllib for c in busy.USER_CHOICES) and result["rllib_repeats"] == 3
    calls.clear()
    busy.measure(["golf_v0"], 0.1, users=True, say=lambda *_: None, rllib_python="/ray/python", rllib_repeats=1)
    assert calls.count("/ray/python") == len(busy.LOADS) * len(busy.USER_CHOICES)
    with pytest.raises(ValueError, match="rllib_repeats must be >= 1"):
        busy.measure(["golf_v0"], 0.1, users=True, say=lambda *_: None, rllib_python="/ray/python", rllib_repeats=0)
    assert "| 0 | RLlib, learner steps/s | 4 | 4 | 4 | 4 | — | 1.00× | — |" in busy.table(result)


def test_a_users_cell_is_the_median_of_repeated_measurements_in_rounds_of_alternating_order(monkeypatch):
    monkeypatch.setattr(busy, "_busy", lambda count, seconds: [])
    monkeypatch.setattr(busy, "turn_rates", lambda game, choices, rounds, block, warm: {c: [[1.0, 1.0]] for c in choices})
    calls = []
    noisy = {"default": [100, 300, 200], "1 thread": [50, 40, 400], "numba default": [10, 10, 10],
             "passive": [90, 95, 99]}

    def rate(choice, seconds):
        calls.append(choice)
        return noisy[choice][sum(c == choice for c in calls) - 1]

    monkeypatch.setattr(busy, "pimc_rate", rate)
    monkeypatch.setattr(busy, "training_rate", lambda choice, seconds: 1.0)
    monkeypatch.setattr(busy, "evaluation_rate", lambda choice, games: 1.0)
    monkeypatch.setattr(busy, "LOADS", (0,))
    result = busy.measure(["golf_v0"], 0.1, users=True, say=lambda *_: None, repeats=3, paired_rounds=0)
    row = next(r for r in result["rows"] if r["what"] == "pimc (batched rollouts)")
    assert row["default"] == 200 and row["1 thread"] == 50 and row["passive"] == 95, "medians, not means or bests"
    assert row["samples"]["1 thread"] == [50, 40, 400] and result["repeats"] == 3
    assert row["default_vs_best_fixed"] == pytest.approx(200 / 95)
    rounds = [calls[i:i + len(busy.USER_CHOICES)] for i in range(0, len(calls), len(busy.USER_CHOICES))]
    assert rounds[0] == list(reversed(rounds[1])) and rounds[0] == rounds[2], "each round reverses the order"
    with pytest.raises(ValueError, match="repeats must be >= 1"):
        busy.measure(["golf_v0"], 0.1, users=False, say=lambda *_: None, repeats=0)


def test_a_games_cells_are_measured_in_turns_after_their_warm_up(monkeypatch):
    monkeypatch.setattr(busy, "_busy", lambda count, seconds: [])
    monkeypatch.setattr(busy, "LOADS", (0,))
    asked = []

    def turns(game, choices, rounds, block, warm):
        asked.append((game, choices, rounds, warm))
        return {c: [[300.0 * (k + 1), 1.0], [100.0 * (k + 1), 2.0]] for k, c in enumerate(busy.CHOICES)}

    monkeypatch.setattr(busy, "turn_rates", turns)
    result = busy.measure(["golf_v0", "hot_v0"], 0.1, users=False, say=lambda *_: None, paired_rounds=0, warm=0.7,
                          turn_rounds=5)
    assert [a[2:] for a in asked] == [(5, 0.7), (5, 0.7)] and result["warm"] == 0.7 and result["turn_rounds"] == 5
    assert asked[0][1] == list(busy.CHOICES) and asked[1][1] == list(reversed(busy.CHOICES)), "who starts alternates"
    row = result["rows"][0]
    assert row["default"] == pytest.approx(400 / 3), "a choice's steps over its time, not the mean of its blocks"
    assert row["samples"]["default"] == [300.0, 50.0]
    with pytest.raises(ValueError, match="warm must be >= 0 seconds"):
        busy.measure(["golf_v0"], 0.1, users=False, say=lambda *_: None, warm=-1)
    with pytest.raises(ValueError, match="turn_rounds must be >= 1"):
        busy.measure(["golf_v0"], 0.1, users=False, say=lambda *_: None, turn_rounds=0)


def test_cells_in_turns_are_fresh_processes_that_step_one_at_a_time():
    import time

    began = time.perf_counter()
    blocks = busy.turn_rates("golf_v0", ["1 thread", "default"], rounds=2, block=0.2, warm=0.1)
    elapsed = time.perf_counter() - began
    assert set(blocks) == {"1 thread", "default"}
    for choice, b in blocks.items():
        assert len(b) == 2 and all(steps > 1000 and 0.2 <= seconds < 1.0 for steps, seconds in b), (choice, b)
    assert elapsed >= 4 * 0.2, "the blocks ran one after the other"


def test_a_cell_in_turns_that_fails_says_why():
    with pytest.raises(RuntimeError, match="no_such_game"):
        busy.turn_rates("no_such_game", ["default"], rounds=1, block=0.1, warm=0.0)
