"""The run folder and the progress of a training, shared by both backends: a new run's folder,
the start of every run recorded in its config.json, the clock, the evaluation curve (eval.csv),
the printed evaluation rows, the versions a run records."""

from __future__ import annotations

import csv
import json
import os
import platform
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence


def new_run_dir(out: str | Path, env_name: str, name: str | None) -> Path:
    """A new run's folder, ``out/<game>/<name>`` (by default the time now, ``YYYYmmdd-HHMMSS``),
    refused when it exists and holds anything."""
    run_dir = Path(out) / env_name / (name or datetime.now().strftime("%Y%m%d-%H%M%S"))
    if run_dir.exists() and any(run_dir.iterdir()):
        raise FileExistsError(f"{run_dir} exists; use --resume {run_dir} to continue it, or another --name")
    return run_dir


def start_run(run_dir: Path, cfg: dict, argv: Sequence[str] | None, resumed: bool, **details: Any) -> None:
    """Creates the run folder and writes its config.json: the resolved configuration ``cfg``, with
    this invocation appended to its ``runs``: when it started, its command line, whether it
    resumes the run, the backend's ``details`` (in the order given), the platform and the CPUs."""
    run_dir.mkdir(parents=True, exist_ok=True)
    cfg.setdefault("runs", []).append({
        "started": datetime.now().isoformat(timespec="seconds"),
        "argv": list(argv) if argv is not None else None,
        "resume": resumed, **details,
        "platform": platform.platform(), "cpus": os.cpu_count(),
    })
    (run_dir / "config.json").write_text(json.dumps(cfg, indent=2))


EVAL_FIELDS = ["timesteps", "wall_seconds", "opponent", "games", "mean_reward", "reward_ci95", "win_rate",
               "mean_score", "score_ci95", "reward_low", "reward_high", "win_rate_low", "win_rate_high",
               "shared_first_rate", "margin", "margin_low", "margin_high"]


def write_eval_rows(path: Path, rows: list[dict]) -> None:
    """Append rows to eval.csv; a curve begun with fewer columns (an older run) keeps its header."""
    fields = EVAL_FIELDS
    if path.exists() and path.stat().st_size:
        with open(path, newline="") as f:
            fields = next(csv.reader(f), EVAL_FIELDS) or EVAL_FIELDS
    new = not path.exists() or not path.stat().st_size
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new:
            w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k) for k in fields})


def fmt_row(row: dict, who: str = "PPO") -> str:
    lo, hi = row["reward_low"], row["reward_high"]
    verdict = "beats" if lo > 0 else "loses to" if hi < 0 else "ties (95% CI includes 0) with"
    return (f"vs {row['opponent']:<10} mean reward {row['mean_reward']:+.3f} (95% CI [{lo:+.3f}, {hi:+.3f}]), "
            f"sole 1st {row['win_rate']:.3f} [{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}], shared 1st "
            f"{row['shared_first_rate']:.3f}, mean score {row['mean_score']:.2f}, {row['games']} games "
            f"({row['seating']}; duplicate deals): {who} {verdict} {row['opponent']}")


class Clock:
    """Training seconds: this invocation's, plus those of the runs it resumes."""

    def __init__(self, before: float = 0.0):
        self.before = float(before)
        self.start = time.monotonic()

    def restart(self) -> None:
        self.start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def total(self) -> float:
        return self.before + self.elapsed()


def has_module(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def versions(modules=("numpy", "torch", "stable_baselines3", "sb3_contrib", "gymnasium", "pettingzoo")) -> dict:
    out = {"python": platform.python_version()}
    for mod in modules:
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - a version string is a nicety
            pass
    return out
