"""Learner throughput of the scale-out path against the default SB3 path, side by side in one run.

    python benchmarks/bench_scale_out.py                                  # every game, 120 s per path
    python benchmarks/bench_scale_out.py --games golf_v0 --seconds 60 --rllib-python /path/to/venv/bin/python
    python benchmarks/bench_scale_out.py --engines batched aec --runners 1 2

For each game, one after the other in this run, each path trains from scratch with the game's
own configuration (``training/configs``) for the same wall time, through the training command as
a user runs it (a fresh process each):

- ``sb3``: ``python -m training.train GAME`` (MaskablePPO on the batched engine);
- ``rllib-<engine>-<n>``: ``python -m training.train GAME --backend rllib --num-env-runners n
  --config rllib.engine=<engine>`` (``batched``: the env runners step the batched engine;
  ``aec``: one Python ``env()`` per game as RLlib's MultiAgentEnv).

Evaluation during training and the imitation warm start are off in every path (they are not
learner throughput); the final evaluation is skipped. Reported per path: learner steps/s (the
run's own ``steps_per_second``: its learner's decisions over its training time), the ratio to
``sb3``, and for RLlib the env runners' timers (``env_share``: the environment's share of
stepping plus inference). The RLlib path runs in ``--rllib-python`` (a virtualenv holding the
``distributed`` extra; default this interpreter). Results go to
``benchmarks/scale_out_results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "scale_out_results.json"
GAMES = ["golf_v0", "fiddlesticks_v0", "guillotine_v0", "collector_v0", "hot_v0", "guilders_v0"]
#: off in every path: evaluation during training, the final evaluation, the warm start
QUIET = ["eval.every=1000000000000", "eval.games=2", "eval.final_games=0", "imitation.teacher=null"]


def run_path(python: str, game: str, seconds: float, extra: list[str], config: list[str], out: Path) -> dict:
    """One training run through the command; its ``final_eval.json`` summary."""
    cmd = [python, "-m", "training.train", game, "--minutes", f"{seconds / 60:.4f}", "--no-progress",
           "--out", str(out), *extra, "--config", *config, *QUIET]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    began = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    runs = sorted((out / game).glob("*/final_eval.json"), key=lambda p: p.stat().st_mtime)
    summary = json.loads(runs[-1].read_text())
    summary["wall_seconds"] = round(time.monotonic() - began, 1)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=GAMES)
    ap.add_argument("--seconds", type=float, default=120.0, help="training wall time per path (default 120)")
    ap.add_argument("--engines", nargs="+", default=["batched"], choices=["batched", "aec"])
    ap.add_argument("--runners", nargs="+", type=int, default=[2], help="env runner counts to measure (default 2)")
    ap.add_argument("--rllib-python", default=sys.executable, help="the interpreter with the distributed extra")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games:
            paths = [("sb3", sys.executable, [], [])]
            for engine in args.engines:
                for n in args.runners:
                    paths.append((f"rllib-{engine}-{n}", args.rllib_python,
                                  ["--backend", "rllib", "--num-env-runners", str(n)], [f"rllib.engine={engine}"]))
            base = None
            for label, python, extra, config in paths:
                print(f"[{time.strftime('%H:%M:%S')}] {game} {label} ...", file=sys.stderr, flush=True)
                s = run_path(python, game, args.seconds, extra, config, Path(tmp) / label)
                rate = s.get("steps_per_second")
                base = rate if label == "sb3" else base
                row = {"game": game, "path": label, "steps_per_second": rate,
                       "ratio_to_sb3": round(rate / base, 3) if base and rate else None,
                       "timesteps": s.get("num_timesteps"), "train_seconds": s.get("train_seconds_this_run"),
                       "wall_seconds": s["wall_seconds"], "env_runner_timers": s.get("env_runner_timers")}
                rows.append(row)
                print(json.dumps(row), flush=True)
    result = {"command": "python benchmarks/bench_scale_out.py " + " ".join(argv or sys.argv[1:]),
              "seconds_per_path": args.seconds, "machine": f"{platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
    if not args.no_write:
        OUT.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
