"""A learned policy's batched forward on a busy machine: numpy's BLAS threads against one.

    python benchmarks/bench_policy_threads.py            # writes benchmarks/policy_threads_results.json

``MaskedPolicy.logits`` multiplies a batch on the BLAS threads the machine's load leaves
(``agents.ppo.policy_threads``, the ``default`` here). This measures it against the fixed choices,
side by side in one run: numpy's BLAS default (every core, whatever the load) and one thread.
The shipped Golf and Guillotine policies' forward on batches of 8 to 1,024 observations, on the
machine as it is and beside 1 busy process (a loop of pure Python, started before the level and
killed after it); then a search that plays a policy in its rollouts
(``pimc:worlds=16,rollout=ppo,prior=ppo``, Guillotine), whose every decision is some thirty such
forwards. The choices rotate in rounds within each level, so the host's own noise falls on all;
the median of the rounds is reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


CHOICES = ("default", "blas_default", "one_thread")


def _context(choice: str):
    """The context of a forward under ``choice``: what the library does, or a fixed count."""
    from agents import ppo
    from threadpoolctl import ThreadpoolController

    if choice == "default":
        return ppo.policy_threads
    if choice == "blas_default":
        return nullcontext
    controller = ThreadpoolController()
    return lambda: controller.limit(limits=1, user_api="blas")


def _forward_us(policy, x: np.ndarray, choice: str, seconds: float) -> float:
    context = _context(choice)
    calls, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        with context():
            policy._forward(x)
        calls += 1
    return 1e6 * (time.perf_counter() - began) / calls


def _search_ms(choice: str, decisions: int) -> float:
    """Milliseconds per decision of PIMC around the Guillotine policy, its forwards under ``choice``."""
    import agents
    import agents.ppo as ppo
    from training.evaluate import evaluate_against
    from training.benchmark import TABLES

    saved = ppo.policy_threads
    ppo.policy_threads = _context(choice)
    try:
        searcher = agents.load("pimc:worlds=16,rollout=ppo,prior=ppo,z=1", seed=0)
        games = max(1, decisions // 8)
        evaluate_against("guillotine_v0", TABLES["guillotine_v0"], searcher, "ppo", games, seed=1)
        return 1000 * searcher.stats["seconds"] / max(1, searcher.stats["decisions"])
    finally:
        ppo.policy_threads = saved


def measure(rounds: int, seconds: float, busy_levels: list[int], decisions: int) -> dict:
    from agents.ppo import load_policy, PRETRAINED_DIR
    from benchmarks.busy import _busy as busy_loops  # the busy processes the engine's load benchmark starts

    out: dict = {"levels": {}}
    policies = {g: load_policy(PRETRAINED_DIR / f"{g}.zip")[0] for g in ("golf_v0", "guillotine_v0")}
    rng = np.random.default_rng(0)
    _search_ms("default", 8)  # kernels and the policy loaded before any timing
    for busy in busy_levels:
        procs = busy_loops(busy, 3600)  # killed after the level
        time.sleep(0.5)
        level: dict = {"forward_us": {}, "search_ms_per_decision": {}}
        try:
            for game, policy in policies.items():
                for rows in (8, 64, 256, 1024):
                    x = rng.random((rows, policy.obs_size), dtype=np.float32)
                    cells = {c: [] for c in CHOICES}
                    for r in range(rounds):
                        for name in CHOICES[r % 3:] + CHOICES[:r % 3]:
                            cells[name].append(_forward_us(policy, x, name, seconds))
                    level["forward_us"][f"{game} {rows} rows"] = {k: round(statistics.median(v), 1) for k, v in cells.items()}
                    print(f"busy {busy}: {game} {rows} rows: " + ", ".join(
                        f"{k} {statistics.median(v):.1f} us" for k, v in cells.items()), flush=True)
            cells = {c: [] for c in CHOICES}
            for r in range(max(1, rounds // 2)):
                for name in CHOICES[r % 3:] + CHOICES[:r % 3]:
                    cells[name].append(_search_ms(name, decisions))
            level["search_ms_per_decision"] = {k: round(statistics.median(v), 1) for k, v in cells.items()}
            print(f"busy {busy}: pimc around the Guillotine policy: " + ", ".join(
                f"{k} {statistics.median(v):.1f} ms/decision" for k, v in cells.items()), flush=True)
        finally:
            for p in procs:
                p.kill()
        out["levels"][f"{busy} busy"] = level
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=0.5, help="seconds of one cell in one round")
    ap.add_argument("--busy", type=int, nargs="+", default=[0, 1], help="busy processes beside, per level")
    ap.add_argument("--decisions", type=int, default=64, help="searched decisions per search cell (about)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "policy_threads_results.json"))
    args = ap.parse_args(argv)
    from threadpoolctl import ThreadpoolController

    blas = [i for i in ThreadpoolController().info() if i["user_api"] == "blas"]
    from training.benchmark import machine

    result = {"machine": {"machine": machine(), "numpy": np.__version__,
                          "blas": [f"{i['internal_api']} {i['version']}, {i['num_threads']} threads" for i in blas]},
              "date": time.strftime("%Y-%m-%d"), "command": "python benchmarks/bench_policy_threads.py " + " ".join(argv or sys.argv[1:])}
    result.update(measure(args.rounds, args.seconds, args.busy, args.decisions))
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
