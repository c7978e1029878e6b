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
        monkeypatch.setattr(runtime, "PASSIVE", True)  # passive threads: every one, whatever the load
        assert runtime.engine_threads() == 2
        monkeypatch.setattr(runtime, "PASSIVE", False)
        monkeypatch.setattr(runtime, "FOLLOW_LOAD", False)  # CARD_ENVS_FOLLOW_LOAD=0: numba's count, whatever the load
        assert runtime.engine_threads() == 2
    finally:
        numba.set_num_threads(before)


def test_the_load_is_what_the_other_processes_use(monkeypatch):
    clock = {"busy": 100.0, "own": 10.0, "wall": 1000.0}
    monkeypatch.setattr(runtime, "machine_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(runtime.time, "process_time", lambda: clock["own"])
    monkeypatch.setattr(runtime.time, "monotonic", lambda: clock["wall"])
    load = runtime.OthersLoad()
    assert load.cores() == 0.0  # the first reading only marks the time
    clock.update(busy=101.5, own=10.5, wall=1001.0)  # the machine used 1.5 cores, this process 0.5
    assert load.cores() == pytest.approx(1.0)
    clock.update(busy=101.6, own=10.6, wall=1001.1)  # within the period: the last measurement
    assert load.cores() == pytest.approx(1.0)
    clock.update(busy=101.7, own=10.7, wall=1002.0)  # this process alone
    assert load.cores() == pytest.approx(0.0, abs=1e-9)


def test_the_load_at_the_engines_start_covers_at_least_a_tenth_of_a_second(monkeypatch):
    clock = {"busy": 100.0, "own": 10.0, "wall": 1000.0}
    monkeypatch.setattr(runtime, "machine_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(runtime.time, "process_time", lambda: clock["own"])
    monkeypatch.setattr(runtime.time, "monotonic", lambda: clock["wall"])
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
