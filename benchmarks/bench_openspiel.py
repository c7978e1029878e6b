"""Random play through the OpenSpiel adapter, beside ``env()`` and the batched engine, in one run.

    python -m benchmarks.bench_openspiel                    # every game, 3 s each path
    python -m benchmarks.bench_openspiel --seconds 5 --out benchmarks/openspiel_speed.json

Per game, at its benchmark-protocol table (``training.benchmark.TABLES``), players' decisions per
second of random legal play (chance nodes are dealt too but not counted as decisions):

- ``openspiel``: ``pyspiel.load_game`` through ``card_envs.openspiel`` (a Python game: OpenSpiel
  calls back into Python for every method), played by ``benchmarks/run.py``'s
  ``spiel_random_play``, the observation tensor of the player to act read at every decision;
- ``env``: ``raw_env()``'s AEC loop of ``benchmarks/bench_envs.py`` (observation and mask every
  step; it also counts each seat's closing ``step(None)``, a few per game);
- ``vector_env``: the batched engine, 256 games at once, one thread.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402


def openspiel_rate(name: str, table: dict, seconds: float) -> float:
    import card_envs.openspiel as O
    from benchmarks.run import spiel_random_play

    return spiel_random_play(O.load_game(name, table), lambda state: state.observation_tensor(state.current_player()),
                             np.random.default_rng(0), seconds)


def env_rate(name: str, table: dict, seconds: float) -> float:
    import card_envs
    from benchmarks.bench_envs import random_play_steps_per_second

    return random_play_steps_per_second(lambda: card_envs.ENVIRONMENTS[name].raw_env(**table), seconds)[0]


def vector_rate(name: str, table: dict, seconds: float, num_envs: int = 256) -> float:
    import card_envs

    venv = card_envs.ENVIRONMENTS[name].vector_env(num_envs=num_envs, **table)
    venv.reset(seed=0)
    for _ in range(20):  # compiled and warm
        venv.step(venv.sample_actions())
    decisions, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        venv.step(venv.sample_actions())
        decisions += num_envs
    return decisions / (time.perf_counter() - began)


def main(argv=None) -> dict:
    from training.benchmark import TABLES, machine

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--only", nargs="+", help="games (default: all six)")
    ap.add_argument("--out", type=Path, help="write the rows (JSON) here")
    args = ap.parse_args(argv)
    rows = []
    for name, table in TABLES.items():
        if args.only and name not in args.only and name.removesuffix("_v0") not in args.only:
            continue
        row = {"game": name, "table": table, "openspiel": openspiel_rate(name, table, args.seconds),
               "env": env_rate(name, table, args.seconds), "vector_env": vector_rate(name, table, args.seconds)}
        rows.append(row)
        print(f"{name:<16} openspiel {row['openspiel']:>9,.0f}   env {row['env']:>9,.0f}   "
              f"vector_env(256) {row['vector_env']:>11,.0f} decisions/s", flush=True)
    given = sys.argv[1:] if argv is None else list(argv)
    result = {"command": "python -m benchmarks.bench_openspiel " + " ".join(given), "machine": machine(),
              "date": time.strftime("%Y-%m-%d %H:%M"), "seconds": args.seconds, "rows": rows}
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
