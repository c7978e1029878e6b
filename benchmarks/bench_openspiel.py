"""Random play through the OpenSpiel adapter, beside ``env()`` and the batched engine, in one run.

    python -m benchmarks.bench_openspiel                    # every game, 3 s each path
    python -m benchmarks.bench_openspiel --seconds 5 --out benchmarks/openspiel_speed.json

Per game, at its benchmark-protocol table (``training.benchmark.TABLES``), players' decisions per
second of random legal play (chance nodes are dealt too but not counted as decisions):

- ``openspiel``: ``pyspiel.load_game`` through ``card_envs.openspiel`` (a Python game: OpenSpiel
  calls back into Python for every method), the observation tensor of the player to act read at
  every decision, as a learner would;
- ``env``: ``raw_env()``'s AEC loop (observation and mask every step);
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

    game = O.load_game(name, table)
    rng = np.random.default_rng(0)
    decisions, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
    return decisions / (time.perf_counter() - began)


def env_rate(name: str, table: dict, seconds: float) -> float:
    import card_envs

    env = card_envs.ENVIRONMENTS[name].raw_env(**table)
    rng = np.random.default_rng(0)
    decisions, games, began = 0, 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        env.reset(seed=games)
        games += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
    return decisions / (time.perf_counter() - began)


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
