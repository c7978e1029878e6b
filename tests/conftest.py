"""Settings every test module shares.

- **One numba thread per test worker.** pytest-xdist already runs a worker per core; numba's own
  threads on top would put two threads on each core, and a ``prange`` region then waits for a
  descheduled thread at every join. The tests that compare the parallel path with the serial one
  (``tests/vector/test_vector_api.py``) set their thread counts themselves and restore this one.
- **One torch (and BLAS) thread per test worker**: ``OMP_NUM_THREADS=1`` unless already set,
  which training's ``torch_threads="auto"`` reads (training/config.py) and the training
  subprocesses the CLI tests start inherit; two workers of two update threads each would
  oversubscribe the cores the same way.
- **A game without its test cases fails alone.** A registered game whose ``tests/cases/<game>.py``
  is missing gets, in the suites' parameters, the error naming that file (``tests.cases.parameters``);
  each of its tests fails with that message, and every other game's tests run.
- **Hypothesis without timing checks.** Its deadline and "input generation is slow" checks
  measure wall time, which on a loaded two-core machine fails a correct property test.

Both are optional: the distributed-only virtualenv CI tests in has neither numba nor hypothesis.
"""

import os

import pytest

#: the variables this file set for the test process that the person running the tests had not set
#: (a documented command runs without them, as a reader's shell would run it:
#: tests/docs/test_commands.py)
SET_FOR_TESTS: set[str] = set()


def _set_for_tests(name: str, value: str) -> None:
    if name not in os.environ:
        os.environ[name] = value
        SET_FOR_TESTS.add(name)


_set_for_tests("OMP_NUM_THREADS", "1")

try:
    import numba
except ImportError:
    numba = None
try:
    from hypothesis import HealthCheck, settings
except ImportError:
    settings = None

if numba is not None:
    # the tests choose their threads themselves: the engine must not move them with the machine's
    # load (tests/vector/test_runtime.py holds the load-following to its promise)
    _set_for_tests("CARD_ENVS_FOLLOW_LOAD", "0")
    from card_envs.runtime import start_threads

    start_threads()  # as the engine starts them (a short spin, then sleep), before the tests take one thread
    numba.set_num_threads(1)
if settings is not None:
    settings.register_profile("card_envs", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("card_envs")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Fail a test parametrized with a game whose test cases file is missing, with the message
    naming the file to create (the parameter carries ``tests.cases.MissingCases``)."""
    callspec = getattr(pyfuncitem, "callspec", None)
    if callspec is not None:
        for value in callspec.params.values():
            if isinstance(value, KeyError) and type(value).__name__ == "MissingCases":
                pytest.fail(str(value), pytrace=False)


def pytest_addoption(parser, pluginmanager):
    """``-p no:xdist`` runs the tests in this one process (to debug one, or on a machine that
    should not fork workers): the ``-n auto --dist worksteal`` of the project's ``addopts`` are
    then accepted and ignored instead of stopping pytest with "unrecognized arguments"."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist", "distributed testing (off: -p no:xdist)")
    # a one-letter lowercase option is reserved to plugins, hence the group's own method
    group._addoption("-n", "--numprocesses", dest="ignored_numprocesses", default=None,
                     help="ignored without xdist (the tests run in this process)")
    group.addoption("--dist", dest="ignored_dist", default="no", help="ignored without xdist")
