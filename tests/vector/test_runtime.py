"""How the batched engine's kernels run in a process: numba's threads spin briefly, then sleep (so
a busy machine does not lose a core to them), the setting touches no other library, a user's own
setting wins, and the first compilation of a game's kernels is said in one line, once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba")

from card_envs import runtime  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _spin_counts(code: str, **env) -> list[str]:
    """libgomp's spin count (``GOMP_SPINCOUNT``) of every OpenMP runtime ``code`` starts: 0 is a
    passive wait; libgomp's default is 300000."""
    environment = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    environment.update(env, OMP_DISPLAY_ENV="VERBOSE")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return [line.split("=", 1)[1].strip().strip("'") for line in out.stderr.splitlines()
            if line.strip().startswith("GOMP_SPINCOUNT")]


def test_the_engines_threads_spin_briefly_and_leave_the_environment_as_it_was():
    if runtime.threading_layer() != "omp":
        pytest.skip(f"numba runs on its {runtime.threading_layer()} layer here, not OpenMP")
    code = "import os, card_envs.vector; assert 'GOMP_SPINCOUNT' not in os.environ"
    assert _spin_counts(code) == [str(runtime.SPIN_COUNT)] == ["100000"]
    # numba's own default, without card_envs: its threads spin
    assert _spin_counts("import numba; numba.get_num_threads()") == ["300000"]
    # the policy is the engine's alone: torch's OpenMP runtime, started afterwards, keeps its default
    counts = _spin_counts("import card_envs.vector, torch; torch.set_num_threads(2); torch.ones(64, 64) @ torch.ones(64, 64)")
    assert counts[0] == "100000" and all(c == "300000" for c in counts[1:])


def test_a_wait_policy_or_spin_count_the_user_sets_wins():
    if runtime.threading_layer() != "omp":
        pytest.skip("not OpenMP")
    assert _spin_counts("import card_envs.vector", OMP_WAIT_POLICY="PASSIVE") == ["0"]
    assert _spin_counts("import card_envs.vector", OMP_WAIT_POLICY="ACTIVE") not in (["0"], ["100000"])
    assert _spin_counts("import card_envs.vector", GOMP_SPINCOUNT="1234") == ["1234"]


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
