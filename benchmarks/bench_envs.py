"""Random legal play throughput of every environment: env steps per second on one core.

    python benchmarks/bench_envs.py                 # every game, its BENCHMARK_CONFIG
    python benchmarks/bench_envs.py --game golf_v0 --seconds 5 --raw

A step is one ``env.step`` in the plain AEC loop (``agent_iter`` / ``last`` / ``step``), the
observation and mask built every step, the action drawn uniformly from the legal ones. Prints
the machine and versions with the numbers.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import card_envs  # noqa: E402


def random_play_steps_per_second(make_env, seconds: float = 3.0, seed: int = 0) -> tuple[float, int, int]:
    """Play random legal games for about ``seconds``; returns (steps/s, steps, games)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + games)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, steps, games


def machine() -> str:
    import gymnasium
    import pettingzoo

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
        f"gymnasium {gymnasium.__version__}, pettingzoo {pettingzoo.__version__}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", action="append", help="environment name (default: all)")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--raw", action="store_true", help="also measure raw_env()")
    ap.add_argument("--reference", action="store_true",
                    help="also measure PettingZoo classic texas_holdem_v4 and leduc_holdem_v4 (needs rlcard)")
    args = ap.parse_args(argv)
    names = args.game or list(card_envs.ENVIRONMENTS)
    print(f"machine: {machine()}")
    print(f"{'environment':<16} {'config':<40} {'api':<8} {'steps/s':>10} {'games':>7}")
    for name in names:
        module = card_envs.ENVIRONMENTS[name]
        cfg = module.BENCHMARK_CONFIG
        kinds = [("env", module.env)] + ([("raw_env", module.raw_env)] if args.raw else [])
        for kind, ctor in kinds:
            sps, steps, games = random_play_steps_per_second(lambda: ctor(**cfg), args.seconds)
            print(f"{name:<16} {str(cfg):<40} {kind:<8} {sps:>10,.0f} {games:>7}", flush=True)
    if args.reference:
        import warnings

        warnings.filterwarnings("ignore")
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

        for ref in (texas_holdem_v4, leduc_holdem_v4):
            sps, steps, games = random_play_steps_per_second(ref.env, args.seconds)
            print(f"{ref.__name__.rsplit('.', 1)[-1]:<16} {'(PettingZoo classic)':<40} {'env':<8} {sps:>10,.0f} {games:>7}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
