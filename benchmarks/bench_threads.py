"""The PPO update's thread policy on an idle machine and with one core held by another process.

    python -m benchmarks.bench_threads                      # Golf, 45 s per run
    python -m benchmarks.bench_threads --seconds 30 --out benchmarks/threads_results.json

Trains Golf from scratch (``python -m training.train golf_v0``, its own configuration, no
evaluation during the run) once per setting of ``torch_threads`` (``auto``: the adaptive policy
of ``training/threads.py``; ``1``; every core), first on the idle machine, then while a busy loop
holds one core, the settings interleaved in one run so that a drift of the machine touches all of
them alike. Reported: learner steps per second of each run (its ``final_eval.json``), and for
each setting its ratio to the best fixed setting in the same condition.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(setting: str, seconds: float, out: Path) -> float:
    """One training run of ``seconds`` at ``torch_threads=setting``: its learner steps per second."""
    name = f"{setting}-{time.monotonic_ns()}"
    cmd = [sys.executable, "-m", "training.train", "golf_v0", "--minutes", f"{seconds / 60:.4f}", "--no-progress",
           "--out", str(out), "--name", name, "--config", f"torch_threads={setting}", "imitation.teacher=null",
           "eval.every=1000000000", "eval.games=2", "eval.final_games=0"]
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return float(json.loads((out / "golf_v0" / name / "final_eval.json").read_text())["steps_per_second"])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=45.0)
    ap.add_argument("--out", type=Path, help="write the results (JSON) here")
    args = ap.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    settings = ["auto", "1", str(cores)]
    results: dict = {"command": "python -m benchmarks.bench_threads " + " ".join(argv or sys.argv[1:]),
                     "cores": cores, "seconds": args.seconds, "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        run("1", min(10.0, args.seconds), Path(tmp))  # warm-up: the first process pays for the caches
        for condition in ("idle", "one core busy"):
            busy = None
            if condition != "idle":
                busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                row = {"condition": condition}
                for s in settings:
                    row[s] = run(s, args.seconds, Path(tmp))
                    print(f"{condition:>14}: torch_threads={s:<4} {row[s]:>9,.0f} learner steps/s", flush=True)
                best = max(row[s] for s in settings[1:])
                row["auto_vs_best_fixed"] = round(row["auto"] / best, 3)
                results["rows"].append(row)
            finally:
                if busy is not None:
                    busy.kill()
    for row in results["rows"]:
        print(f"{row['condition']}: auto at {row['auto_vs_best_fixed']:.0%} of the best fixed setting")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
