"""How the batched engine's kernels run in a process: numba's threads wait as the machine's load
at their start calls for (spinning on an idle machine, passively beside busy processes), the
setting touches no other library, a user's own setting wins, the engine leaves the cores other
processes keep busy, and the first compilation of a game's kernels is said in one line, once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

from card_envs import runtime  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _spin_counts(code: str, **env) -> list[str]:
    """libgomp's spin count (``GOMP_SPINCOUNT``) of every OpenMP runtime ``code`` starts: 0 is a
    passive wait; libgomp's default is 300000."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "CARD_ENVS_FOLLOW_LOAD")}
    environment.update(env, OMP_DISPLAY_ENV="VERBOSE")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return [line.split("=", 1)[1].strip().strip("'") for line in out.stderr.splitlines()
            if line.strip().startswith("GOMP_SPINCOUNT")]


def _starting_at(others: float, then: str = "") -> str:
    """Code that starts the engine as if the other processes kept ``others`` cores busy."""
    return ("import os\nfrom card_envs import runtime\n"
            f"runtime.LOAD.lately = lambda *a, **k: {others}\n"
            "import card_envs.vector\n"
            f"assert runtime.PASSIVE is {others >= runtime.BUSY_AT_START}\n"
            "assert 'OMP_WAIT_POLICY' not in os.environ and 'GOMP_SPINCOUNT' not in os.environ\n" + then)


@pytest.fixture
def omp():
    if runtime.threading_layer() != "omp":
        pytest.skip(f"numba runs on its {runtime.threading_layer()} layer here, not OpenMP")


def test_on_an_idle_machine_the_engines_threads_spin_as_libgomp_lets_them(omp):
    assert _spin_counts(_starting_at(0.0)) == ["300000"]
    assert _spin_counts(_starting_at(0.4)) == ["300000"]


def test_beside_busy_processes_the_engines_threads_wait_passively_and_the_setting_stays_in_numba(omp):
    assert _spin_counts(_starting_at(0.6)) == ["0"]
    # every thread in every region: passive threads share the cores the OS gives them
    assert _spin_counts(_starting_at(2.0, "assert runtime.engine_threads() == __import__('numba').get_num_threads()"),
                        NUMBA_NUM_THREADS="2") == ["0"]
    # the setting leaves with numba's start: a process the engine's process starts keeps libgomp's default
    child = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import numba; numba.get_num_threads()'], check=True)"
    assert _spin_counts(_starting_at(2.0, child)) == ["0", "300000"]
    # CARD_ENVS_FOLLOW_LOAD=0 leaves the load out: numba's own wait
    assert _spin_counts("from card_envs import runtime\nruntime.LOAD.lately = lambda *a, **k: 2.0\n"
                        "import card_envs.vector\nassert not runtime.PASSIVE", CARD_ENVS_FOLLOW_LOAD="0") == ["300000"]


def test_two_busy_processes_make_a_fresh_engine_wait_passively(omp):
    if len(os.sched_getaffinity(0)) < 2 or runtime.machine_busy_seconds() is None:
        pytest.skip("needs two cores and /proc/stat")
    spin = "import time\nend = time.time() + 20\nwhile time.time() < end:\n    pass\n"
    busy = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
    try:
        time.sleep(0.3)
        code = "import card_envs.vector\nfrom card_envs import runtime\nassert runtime.PASSIVE, runtime.LOAD.others"
        assert _spin_counts(code, NUMBA_NUM_THREADS="2") == ["0"]
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_a_wait_policy_or_spin_count_the_user_sets_wins(omp):
    assert _spin_counts("from card_envs import runtime\nruntime.LOAD.lately = lambda *a, **k: 0.0\n"
                        "import card_envs.vector\nassert runtime.PASSIVE", OMP_WAIT_POLICY="PASSIVE") == ["0"]
    assert _spin_counts("import card_envs.vector", OMP_WAIT_POLICY="ACTIVE") not in (["0"], ["300000"])
    assert _spin_counts("from card_envs import runtime\nruntime.LOAD.lately = lambda *a, **k: 2.0\n"
                        "import card_envs.vector\nassert not runtime.PASSIVE", GOMP_SPINCOUNT="1234") == ["1234"]


def test_the_first_compilation_of_a_kernel_module_is_announced_once(tmp_path, monkeypatch, capsys):
    (tmp_path / "tiny_kernels.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def double(x):
            return 2 * x
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(runtime, "_announced", set())
    import tiny_kernels

    assert not runtime.cached([tiny_kernels])
    runtime.announce_compilation("tiny_v0", [tiny_kernels])
    runtime.announce_compilation("tiny_v0", [tiny_kernels])  # once a process
    err = capsys.readouterr().err
    assert err.count("compiling the batched engine's kernels for tiny_v0") == 1 and "once" in err
    assert tiny_kernels.double(2) == 4  # compiled now, into the cache beside the module
    assert runtime.cached([tiny_kernels])
    monkeypatch.setattr(runtime, "_announced", set())
    runtime.announce_compilation("tiny_v0", [tiny_kernels])
    assert capsys.readouterr().err == ""  # cached: nothing to say


@pytest.mark.slow
def test_a_fresh_install_says_it_is_compiling_and_a_second_run_does_not(tmp_path):
    code = "import card_envs; v = card_envs.hot_v0.vector_env(num_envs=4); v.reset(seed=0); v.step(v.sample_actions())"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert first.returncode == second.returncode == 0, first.stderr[-2000:]
    assert "compiling the batched engine's kernels for hot_v0" in first.stderr
    assert "compiling" not in second.stderr


def test_the_engine_leaves_the_cores_other_processes_keep_busy(monkeypatch):
    import numba

    from card_envs import vector

    monkeypatch.setattr(runtime, "FOLLOW_LOAD", True)
    monkeypatch.setattr(runtime, "_CORES", 2)
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        if numba.get_num_threads() < 2:
            pytest.skip("numba sees a single core")
        for others, threads in ((0.0, 2), (0.4, 2), (0.6, 1), (1.5, 1), (2.0, 1)):
            monkeypatch.setattr(runtime.LOAD, "cores", lambda others=others: others)
            assert runtime.engine_threads() == threads
            assert vector.threaded(1024) is (threads > 1)
        assert not vector.threaded(vector.PARALLEL_MIN_ROWS - 1)  # a small batch: the plain loop anyway
        monkeypatch.setattr(runtime, "PASSIVE", True)  # passive threads: every one, whatever the load,
        monkeypatch.setattr(runtime, "_chosen", 0)  # outside a batched step that chooses its count
        assert runtime.engine_threads() == 2
        monkeypatch.setattr(runtime, "_chosen", 1)  # a step's ThreadChoice found one thread fastest
        assert runtime.engine_threads() == 1 and not vector.threaded(1024)
        monkeypatch.setattr(runtime, "_chosen", 0)
        monkeypatch.setattr(runtime, "PASSIVE", False)
        monkeypatch.setattr(runtime, "FOLLOW_LOAD", False)  # CARD_ENVS_FOLLOW_LOAD=0: numba's count, whatever the load
        assert runtime.engine_threads() == 2
    finally:
        numba.set_num_threads(before)


def _run_steps(choice: runtime.ThreadChoice, step_time, steps: int) -> list[int]:
    """The thread counts ``choice`` gives ``steps`` steps that take ``step_time(threads)``."""
    used = []
    for _ in range(steps):
        threads = choice.threads()
        used.append(threads)
        choice.took(step_time(threads))
    return used


def _blocks(used: list[int]) -> list[tuple[int, int]]:
    """``used`` as (count, steps) blocks."""
    out: list[list[int]] = []
    for threads in used:
        if out and out[-1][0] == threads:
            out[-1][1] += 1
        else:
            out.append([threads, 1])
    return [tuple(block) for block in out]


def test_a_thread_choice_tries_each_count_in_a_block_then_holds_the_fastest_and_follows_a_changing_load(monkeypatch):
    monkeypatch.setattr(runtime, "_chosen", 0)
    choice = runtime.ThreadChoice((2, 1))
    assert choice.candidates == (1, 2)
    # beside one busy process: one thread 1 ms a step, two 1.5 ms
    one_busy = {1: 0.001, 2: 0.0015}.__getitem__
    used = _run_steps(choice, one_busy, 10_000)  # 10-15 s of steps
    blocks = _blocks(used)
    # a trial block of each (the first 50 ms of a block are not timed), then the faster holds
    assert [b[0] for b in blocks[:4]] == [1, 2, 1, 2], blocks[:4]
    assert [b[1] for b in blocks[:3]] == [pytest.approx(50 + 200, abs=2), pytest.approx(34 + 134, abs=2),
                                         pytest.approx(50 + 2000, abs=2)], blocks[:3]
    assert choice.best == 1 and choice.means == pytest.approx([0.001, 0.0015])
    assert runtime._chosen == used[-1] and all(b[1] >= 4 for b in blocks[:-1])  # what the last step ran on
    assert used.count(2) < 0.1 * len(used), "the trials cost about a tenth of the steps"
    assert all(b[0] == 2 and abs(b[1] - 168) <= 2 for b in blocks[3:-1:2]), "a trial after each hold"
    # a second busy process: two threads now take 1 ms, one 2 ms; followed within a few seconds
    two_busy = {1: 0.002, 2: 0.001}.__getitem__
    _run_steps(choice, two_busy, 5000)
    assert choice.best == 2
    late = _run_steps(choice, two_busy, 10_000)
    assert late.count(2) > 0.85 * len(late)


def test_one_slow_block_does_not_decide_and_the_first_step_of_a_block_is_left_out(monkeypatch):
    monkeypatch.setattr(runtime, "_chosen", 0)
    choice = runtime.ThreadChoice((1, 2))
    calls = iter(range(10**6))
    fast_two = {1: 0.002, 2: 0.001}
    # the first step loads a kernel (5 s); after that two threads are faster
    _run_steps(choice, lambda t: 5.0 if next(calls) == 0 else fast_two[t], 400)
    assert choice.best == 2 and max(choice.means) < 0.01
    _run_steps(choice, fast_two.__getitem__, 10_000)
    assert choice.means == pytest.approx([0.002, 0.001])
    # one trial where one thread ran unusually fast, or one hold where two were descheduled: the
    # smoothed means still pick two
    while choice._holding:
        _run_steps(choice, fast_two.__getitem__, 1)
    while not choice._holding:
        _run_steps(choice, {1: 0.0009, 2: 0.001}.__getitem__, 1)
    assert choice.best == 2, choice.means
    _run_steps(choice, fast_two.__getitem__, 20_000)
    while choice._holding:
        _run_steps(choice, fast_two.__getitem__, 1)
    while not choice._holding:
        _run_steps(choice, fast_two.__getitem__, 1)
    for _ in range(150):  # a chunk (0.2 s) of a hold where two were descheduled
        _run_steps(choice, {1: 0.002, 2: 0.0024}.__getitem__, 1)
    assert choice.best == 2 and choice._holding, choice.means
    with pytest.raises(ValueError, match="thread counts must be >= 1"):
        runtime.ThreadChoice((0, 2))


def test_a_hold_ends_when_its_count_turns_slower_than_another(monkeypatch):
    monkeypatch.setattr(runtime, "_chosen", 0)
    choice = runtime.ThreadChoice((1, 2))
    fast_two = {1: 0.002, 2: 0.001}.__getitem__
    _run_steps(choice, fast_two, 400)  # the trials: two holds
    assert choice._holding and choice.best == 2
    held = 0
    while choice._holding:  # the OS now places the two threads badly: two take 4 ms a step
        _run_steps(choice, {1: 0.002, 2: 0.004}.__getitem__, 1)
        held += 1
    # a chunk of trial length raised the held mean above one thread's: about 0.4 s, not the 2 s hold
    assert held < 0.5 / 0.004, held
    _run_steps(choice, {1: 0.002, 2: 0.004}.__getitem__, 200)
    assert choice.best == 1 and choice._holding
    # a hold that stays the fastest runs its full length (chunks checked within it)
    choice = runtime.ThreadChoice((1, 2))
    blocks = _blocks(_run_steps(choice, fast_two, 5000))
    assert blocks[1] == (2, pytest.approx(250 + 2050, abs=3)), blocks[:4]  # its trial, then its hold


def test_a_choice_can_start_with_a_hold_of_the_count_the_load_suggests(monkeypatch):
    import numba

    monkeypatch.setattr(runtime, "_chosen", 0)
    choice = runtime.ThreadChoice((1, 2), first=2)
    assert choice.best == 2 and choice.threads() == 2
    blocks = _blocks(_run_steps(choice, {1: 0.001, 2: 0.002}.__getitem__, 3000))
    # two held first for its full two seconds (no count to compare with yet), then one's trial won
    assert blocks[0] == (2, pytest.approx(25 + 1000, abs=2)) and blocks[1][0] == 1 and choice.best == 1, blocks
    with pytest.raises(ValueError, match="first count must be one of"):
        runtime.ThreadChoice((1, 2), first=3)
    # the engine's choice: every thread where the other processes leave under 0.9 of a core free
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        monkeypatch.setattr(runtime, "PASSIVE", True)
        monkeypatch.setattr(runtime, "FOLLOW_LOAD", True)
        monkeypatch.setattr(runtime, "_CORES", 2)
        for others, first in ((1.3, 2), (1.0, 1), (0.6, 1)):
            monkeypatch.setattr(runtime.LOAD, "cores", lambda others=others: others)
            assert runtime.thread_choice().best == first, others
    finally:
        numba.set_num_threads(before)


def test_a_step_counts_from_the_end_of_the_one_before_unless_the_caller_paused(monkeypatch):
    monkeypatch.setattr(runtime, "_chosen", 0)
    choice = runtime.ThreadChoice((1, 2))
    seen = []
    monkeypatch.setattr(choice, "took", seen.append)
    choice.stepped(10.0, 10.001)  # the first step: nothing before it
    choice.stepped(10.0015, 10.0025)  # 0.5 ms of the caller's own work between: counted
    choice.stepped(10.5, 10.501)  # half a second's pause (a learner's update): the step alone
    assert seen == pytest.approx([0.001, 0.0015, 0.001])
    assert choice.pause < 0.1


def test_a_batched_engine_with_passive_threads_chooses_its_count_and_keeps_its_results():
    code = _starting_at(2.0, textwrap.dedent("""
        import numpy as np, card_envs, numba
        numba.set_num_threads(2)
        from card_envs import vector
        v = card_envs.golf_v0.vector_env(num_envs=1024)
        assert v._thread_choice is not None and v._thread_choice.candidates == (1, 2)
        v._thread_choice.trial, v._thread_choice.hold = 0.01, 0.05  # many blocks in a short test
        v.reset(seed=3)
        seen = []
        for _ in range(3000):
            v.step(v.sample_actions())
            seen.append(runtime._chosen)
        assert set(seen) == {1, 2}, "both counts were tried"
        chosen = v._obs_dict["observation"].copy()
        # beside busy processes a batch under 1024 games runs one thread: no choice, no region
        small = card_envs.golf_v0.vector_env(num_envs=vector.BUSY_PARALLEL_MIN_ROWS - 1)
        assert small._thread_choice is None and not vector.threaded(small.num_envs)
        assert vector.parallel_min_rows() == vector.BUSY_PARALLEL_MIN_ROWS
        numba.set_num_threads(1)  # the same games on one thread, no choosing
        runtime.PASSIVE = False
        w = card_envs.golf_v0.vector_env(num_envs=1024)
        assert w._thread_choice is None and vector.parallel_min_rows() == vector.PARALLEL_MIN_ROWS
        w.reset(seed=3)
        for _ in range(3000):
            w.step(w.sample_actions())
        assert np.array_equal(chosen, w._obs_dict["observation"])
    """))
    environment = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
                                                                     "CARD_ENVS_FOLLOW_LOAD", "NUMBA_NUM_THREADS")}
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]


@pytest.fixture
def clock(monkeypatch):
    """The machine's busy seconds, this process's CPU seconds and the wall clock, as the test sets them."""
    clock = {"busy": 100.0, "own": 10.0, "wall": 1000.0}
    monkeypatch.setattr(runtime, "machine_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(runtime.time, "process_time", lambda: clock["own"])
    monkeypatch.setattr(runtime.time, "monotonic", lambda: clock["wall"])
    return clock


def test_the_load_is_what_the_other_processes_use(clock):
    load = runtime.OthersLoad()
    assert load.cores() == 0.0  # the first reading only marks the time
    clock.update(busy=101.5, own=10.5, wall=1001.0)  # the machine used 1.5 cores, this process 0.5
    assert load.cores() == pytest.approx(1.0)
    clock.update(busy=101.6, own=10.6, wall=1001.1)  # within the period: the last measurement
    assert load.cores() == pytest.approx(1.0)
    clock.update(busy=101.7, own=10.7, wall=1002.0)  # this process alone
    assert load.cores() == pytest.approx(0.0, abs=1e-9)


def test_a_load_reading_over_a_long_pause_is_not_taken_for_the_load_now(clock):
    load = runtime.OthersLoad()
    load.cores()
    clock.update(busy=100.5, own=10.5, wall=1000.5)  # this process alone
    assert load.cores() == pytest.approx(0.0, abs=1e-9)
    clock.update(busy=104.5, own=10.5, wall=1002.5)  # it waited 2 s while others kept both cores busy
    assert load.cores() == pytest.approx(0.0, abs=1e-9), "the pause is not the load now"
    clock.update(busy=105.0, own=11.0, wall=1003.0)  # from the pause's end: this process alone again
    assert load.cores() == pytest.approx(0.0, abs=1e-9)
    clock.update(busy=106.0, own=11.5, wall=1003.5)  # another process comes: followed within a period
    assert load.cores() == pytest.approx(1.0)


def test_the_load_at_the_engines_start_covers_at_least_a_tenth_of_a_second(clock, monkeypatch):
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        clock["wall"] += seconds
        clock["busy"] += 2 * seconds  # two other processes, busy all the while

    monkeypatch.setattr(runtime.time, "sleep", sleep)
    load = runtime.OthersLoad()
    load.cores()  # the reading on importing card_envs
    clock.update(busy=100.03, own=10.01, wall=1000.02)  # the engine starts 20 ms later
    assert load.lately() == pytest.approx((0.19 - 0.01) / 0.1)  # others' busy time less this process's
    assert slept == [pytest.approx(0.08)]
    clock.update(busy=clock["busy"] + 3.0, own=clock["own"] + 3.0, wall=clock["wall"] + 3.0)  # only this process
    slept.clear()
    assert load.lately() == pytest.approx(2.0)  # an old reading is read anew: the last 0.1 s only
    assert slept == [pytest.approx(0.1)]
