"""The PPO update's thread policy under torch_threads="auto": every core no other process keeps
busy, measured from the machine's CPU counters during the previous update."""

from __future__ import annotations

import pytest

from training import threads as T
from training.config import adaptive_threads


class Clocks:
    """The machine's busy seconds, this process's CPU seconds and the wall clock, advanced by hand."""

    def __init__(self, monkeypatch):
        self.busy = self.own = self.wall = 0.0
        monkeypatch.setattr(T, "machine_busy_seconds", lambda: self.busy)
        monkeypatch.setattr(T.time, "process_time", lambda: self.own)
        monkeypatch.setattr(T.time, "perf_counter", lambda: self.wall)

    def run(self, seconds: float, own_cores: float, other_cores: float) -> None:
        self.wall += seconds
        self.own += seconds * own_cores
        self.busy += seconds * (own_cores + other_cores)


def update(policy: T.AdaptiveThreads, clocks: Clocks, other_cores: float) -> int:
    threads = policy.begin()
    clocks.run(0.5, threads, other_cores)
    policy.end()
    return threads


def test_the_update_takes_the_cores_other_processes_leave_free(monkeypatch):
    clocks = Clocks(monkeypatch)
    policy = T.AdaptiveThreads(cores=2)
    assert update(policy, clocks, other_cores=0.0) == 2, "an idle machine: every core"
    assert update(policy, clocks, other_cores=0.7) == 2 and policy.threads == 1, "a core taken: one thread next"
    assert update(policy, clocks, other_cores=1.0) == 1 and policy.threads == 1
    update(policy, clocks, other_cores=0.1)
    assert policy.threads == 2, "the other process ended: both cores again"
    update(policy, clocks, other_cores=3.0)
    assert policy.threads == 1, "never fewer than one"
    eight = T.AdaptiveThreads(cores=8)
    update(eight, clocks, other_cores=2.6)
    assert eight.threads == 5


def test_a_window_too_short_or_without_counters_changes_nothing(monkeypatch):
    clocks = Clocks(monkeypatch)
    policy = T.AdaptiveThreads(cores=2)
    policy.begin()
    clocks.run(0.01, 2, 1.0)
    policy.end()
    assert policy.threads == 2
    policy.end()  # no window open: nothing happens
    monkeypatch.setattr(T, "machine_busy_seconds", lambda: None)
    update(policy, clocks, other_cores=1.0)
    assert policy.threads == 2


def test_the_counters_read_this_machine():
    busy = T.machine_busy_seconds()
    if busy is None:
        pytest.skip("no /proc/stat on this system")  # the policy then keeps its threads
    assert busy > 0 and T.machine_busy_seconds() >= busy


def test_only_auto_adapts_and_omp_num_threads_fixes_the_threads(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert adaptive_threads({"torch_threads": "auto"})
    assert not adaptive_threads({"torch_threads": 2}) and not adaptive_threads({"torch_threads": 1})
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert not adaptive_threads({"torch_threads": "auto"})


def test_the_training_callback_applies_the_policy(monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("stable_baselines3")
    from training.sb3_backend import update_threads_callback

    clocks = Clocks(monkeypatch)
    set_to = []
    monkeypatch.setattr(torch, "set_num_threads", set_to.append)
    cb = update_threads_callback(2, collection=2, adaptive=True)
    cb._on_training_start()
    cb._on_rollout_start()
    clocks.run(1.0, 1.0, 1.0)  # the first collection, a core taken by another process
    cb._on_rollout_end()
    assert set_to[-1] == 1, "the first update is informed by the first collection"
    clocks.run(0.5, 1.0, 0.0)  # the other process ended during the update
    cb._on_rollout_start()
    assert set_to[-1] == 2, "the collection follows the policy too"
    cb._on_rollout_end()
    assert set_to[-1] == 2
    fixed = update_threads_callback(2, collection=1, adaptive=False)
    assert fixed.policy is None
    fixed._on_rollout_end()
    assert set_to[-1] == 2
