"""Runs a module as ``python -m`` would, with every package that neither the library's own
dependencies nor the ``docs`` extra install made unimportable (an ImportError, as in a virtual
environment holding only those): ``python tests/docs/only_base_and_docs.py sphinx ARGS...``.

The documentation's test builds the site so, which shows the ``docs`` extra is all the build needs.
"""

from __future__ import annotations

import runpy
import sys

#: what the other extras install (train, vector, web, openspiel, video, notebooks, distributed, dev)
OTHER_EXTRAS = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard", "openskill", "threadpoolctl", "numba",
                "llvmlite", "starlette", "uvicorn", "pyspiel", "open_spiel", "moviepy", "matplotlib", "ray",
                "selenium", "httpx", "hypothesis", "pytest"}


class _Absent:
    """A meta-path finder that refuses the other extras' packages."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in OTHER_EXTRAS:
            raise ImportError(f"{name} is not installed by the library or its docs extra")
        return None


if __name__ == "__main__":
    sys.meta_path.insert(0, _Absent())
    module, sys.argv = sys.argv[1], sys.argv[1:]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
