"""What produced a tournament's result, for its summary.json: the policy each agent played (its
spec, and for a learned policy the file or checkpoint folder it resolved to, with its sha256)
and the versions of Python and of the libraries involved."""

from __future__ import annotations

import hashlib
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

from training.seating import agent_name


def sha256_of(path: Path) -> str:
    """The sha256 of a file, or of a folder's files (their paths and contents, in sorted order)."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for f in files:
        if path.is_dir():
            h.update(str(f.relative_to(path)).encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def resolved_policy(agent: Any, env_name: str, spec: Any = None) -> dict:
    """What an agent plays: its spec, and for a learned policy the file (or checkpoint folder) it
    resolved to, with its sha256 (``ppo`` -> ``agents/pretrained/<game>.zip``)."""
    out: dict[str, Any] = {"spec": spec if isinstance(spec, str) else agent_name(agent), "class": type(agent).__name__}
    path = None
    f = getattr(agent, "policy_file", None)
    try:
        path = f(env_name) if callable(f) else f
    except (ValueError, FileNotFoundError):
        path = None
    if path is None:
        path = getattr(agent, "path", None)
    if path is None and type(agent).__name__ == "PPOAgent" and getattr(agent, "_fixed", None) is None:
        from agents.ppo import PRETRAINED_DIR

        path = PRETRAINED_DIR / f"{env_name}.zip"
    if path is not None and Path(path).exists():
        out["file"] = str(Path(path).resolve())
        out["sha256"] = sha256_of(Path(path))
    return out


def versions() -> dict:
    """Python, card_envs, numpy, and the learning libraries this process has loaded."""
    import card_envs

    out = {"python": platform.python_version(), "card_envs": card_envs.__version__, "numpy": np.__version__}
    for mod in ("torch", "stable_baselines3", "sb3_contrib", "ray", "openskill", "pettingzoo", "gymnasium"):
        if mod in sys.modules:
            out[mod] = getattr(sys.modules[mod], "__version__", "?")
    if "openskill" not in out:
        try:
            from importlib.metadata import version

            out["openskill"] = version("openskill")
        except Exception:  # noqa: BLE001 - not installed
            pass
    return out
