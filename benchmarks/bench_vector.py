"""The batched engine's speed, measured side by side with env() and OpenSpiel in one run.

    python benchmarks/bench_vector.py                    # every game with vector_env; writes RESULTS.md
    python benchmarks/bench_vector.py --game golf_v0 --seconds 2 --no-write
    python benchmarks/bench_vector.py --busy             # beside 0, 1 and 2 busy processes (benchmarks/busy.py)

Random legal play (``venv.sample_actions()``), the observation and mask of every game produced at
every step, at ``num_envs`` 1, 64, 1024 and 16384 on one core (``numba.set_num_threads(1)``), and
at 1024 with both cores (its slices interleaved with the one-core slices at 1024, so that the
two-core ratio compares the same moments of this VM). Beside it, in the same run: the same game's ``env()`` steps/s (the plain
AEC loop) and OpenSpiel's ``hearts`` with its observation written every step through its buffer
API (``open_spiel.python.observation.make_observation(...).set_from``; hearts offers the
information-state tensor). Also the memory per game (state arrays and output buffers) and the
first-call time of ``vector_env(num_envs=1024)`` with the default threads in a fresh process with
an empty numba cache (what a fresh install pays once: compilation) and with a warm one.

``--busy`` measures instead each thread choice beside 0, 1 and 2 busy processes, and the engine's
users (``benchmarks/busy.py``), writing ``benchmarks/busy_results.json``.

The batched engine's targets: at ``num_envs=1024`` on one core at least 40× ``env()``
and 10× OpenSpiel hearts; with both cores at least 1.6× the one-core rate. The script prints
whether each holds; this machine is shared and noisy, so only same-run ratios mean something.
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

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import card_envs  # noqa: E402
from benchmarks.bench_envs import machine, random_play_steps_per_second  # noqa: E402
from benchmarks.busy import PAIRED_ROUNDS, TURN_ROUNDS, WARM  # noqa: E402
from benchmarks.run import spiel_random_play  # noqa: E402

SIZES = (1, 64, 1024, 16384)
#: every rate is the best of this many slices of the measuring time (this VM's speed wanders by
#: up to 2x within seconds; the best slice is the machine's own rate, as timeit takes the minimum)
REPEATS = 10
START, END = "<!-- vector_env: start -->", "<!-- vector_env: end -->"


def _slice_rate(venv, seconds: float) -> float:
    """Random-play steps/s of ``venv`` over one slice of about ``seconds`` (batches of 8 steps)."""
    steps = 0
    start = time.perf_counter()
    while True:
        for _ in range(8):
            venv.step(venv.sample_actions())
        steps += 8
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps * venv.num_envs / elapsed


def _warm_batch(name: str, config: dict, num_envs: int, threads: tuple[int, ...]):
    """A reset batch, stepped a few times with each thread count (kernels loaded)."""
    import numba

    venv = card_envs.ENVIRONMENTS[name].vector_env(num_envs=num_envs, **config)
    venv.reset(seed=0)
    for k in threads:
        numba.set_num_threads(k)
        for _ in range(3):
            venv.step(venv.sample_actions())
    return venv


def vector_steps_per_second(name: str, config: dict, num_envs: int, seconds: float, threads: int) -> float:
    venv = _warm_batch(name, config, num_envs, (threads,))
    return max(_slice_rate(venv, seconds / REPEATS) for _ in range(REPEATS))


def one_and_two_cores(name: str, config: dict, num_envs: int, seconds: float) -> tuple[float, float]:
    """The N=``num_envs`` rate on one core and on two, their slices interleaved (one-core slice,
    two-core slice, ...) so that both rates see the same moments of this VM's wandering speed:
    the two-core ratio is a same-moment ratio, not one of two blocks measured a minute apart."""
    import numba

    venv = _warm_batch(name, config, num_envs, (1, 2))
    best = {1: 0.0, 2: 0.0}
    for _ in range(REPEATS):
        for threads in (1, 2):
            numba.set_num_threads(threads)
            best[threads] = max(best[threads], _slice_rate(venv, seconds / REPEATS))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return best[1], best[2]


def env_steps_per_second(make_env, seconds: float) -> float:
    """``env()``'s random-play rate, measured as the vector rates are: the best of REPEATS slices."""
    return max(random_play_steps_per_second(make_env, seconds / REPEATS, seed=k)[0] for k in range(REPEATS))


def memory_per_game(name: str, config: dict, num_envs: int = 1024) -> float:
    venv = card_envs.ENVIRONMENTS[name].vector_env(num_envs=num_envs, **config)
    total = sum(a.nbytes for a in venv.arrays.values())
    total += sum(v.nbytes for v in vars(venv).values() if isinstance(v, np.ndarray))
    return total / num_envs


def first_call_seconds(name: str, config: dict) -> tuple[float, float]:
    """Seconds to build, reset and step ``vector_env(num_envs=1024)`` (default threads) in a fresh
    process: cold numba cache (compilation), warm."""
    code = (
        "import time; t = time.perf_counter(); import card_envs\n"
        f"v = card_envs.ENVIRONMENTS[{name!r}].vector_env(num_envs=1024, **{config!r}); v.reset(seed=0)\n"
        "for _ in range(3): v.step(v.sample_actions())\n"
        "v.observe(v._current)\n"
        "print(time.perf_counter() - t)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = []
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=HERE.parent)
            if res.returncode != 0:
                raise RuntimeError(res.stderr)
            out.append(float(res.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


def hearts_steps_per_second(seconds: float) -> float | None:
    """OpenSpiel hearts, the acting player's observation written into its buffer every step."""
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    rng = np.random.default_rng(0)
    best = 0.0
    for _ in range(REPEATS):
        best = max(best, spiel_random_play(game, lambda s: observation.set_from(s, s.current_player()), rng, seconds / REPEATS))
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", action="append", help="a game (default: every game with vector_env)")
    ap.add_argument("--seconds", type=float, default=2.0,
                    help="time per measurement (with --busy: the users' runs; a game's cells take turns of a second)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    ap.add_argument("--busy", action="store_true",
                    help="measure each thread choice beside 0, 1 and 2 busy processes (benchmarks/busy.py) instead")
    ap.add_argument("--no-users", action="store_true", help="with --busy: the engine only, not its users")
    ap.add_argument("--repeat", type=int, default=3,
                    help="with --busy: measurements of each user's cell but RLlib's (the median is reported)")
    ap.add_argument("--rllib-repeat", type=int, default=3,
                    help="with --busy and --rllib-python: measurements of RLlib's cells (about 4 minutes each "
                         "beside busy processes; the median is reported)")
    ap.add_argument("--turn-rounds", type=int, default=TURN_ROUNDS,
                    help="with --busy: rounds of each game's cells in turns (each choice's fresh process steps "
                         "for a second in turn)")
    ap.add_argument("--warm", type=float, default=WARM,
                    help="with --busy: seconds each game's cell steps before it is timed (the default's thread "
                         "choice at work)")
    ap.add_argument("--paired-rounds", type=int, default=PAIRED_ROUNDS,
                    help="with --busy: rounds of each game's paired cells (every setting that can share the "
                         "default's process, one second each in turn; 0: none)")
    ap.add_argument("--rllib-python", metavar="PYTHON",
                    help="with --busy: an interpreter with Ray (the distributed extra) to measure RLlib's collection too")
    args = ap.parse_args(argv)
    say = lambda *a: print(*a, flush=True)  # noqa: E731
    names = args.game or [n for n, m in card_envs.ENVIRONMENTS.items() if hasattr(m, "vector_env")]
    names = [n if n.endswith("_v0") else f"{n}_v0" for n in names]
    say(f"machine: {machine()}")
    if args.busy:
        return busy_main(names, args, say)
    t0 = time.perf_counter()
    hearts = hearts_steps_per_second(args.seconds)
    say(f"openspiel hearts (buffer API): {hearts:,.0f} steps/s" if hearts else "openspiel not installed: hearts skipped")
    rows = []
    for name in names:
        module = card_envs.ENVIRONMENTS[name]
        cfg = dict(module.BENCHMARK_CONFIG)
        row = {"game": name, "config": cfg}
        row["env"] = env_steps_per_second(lambda: module.env(**cfg), args.seconds)
        row["cold"], row["warm"] = first_call_seconds(name, cfg)
        for n in SIZES:
            if n == 1024:  # one core and two, interleaved
                row[n], row["two"] = one_and_two_cores(name, cfg, n, args.seconds)
            else:
                row[n] = vector_steps_per_second(name, cfg, n, args.seconds, threads=1)
            say(f"{name} num_envs={n:>6}: {row[n]:>12,.0f} steps/s (one core)")
        row["memory"] = memory_per_game(name, cfg)
        row["x_env"] = row[1024] / row["env"]
        row["x_hearts"] = row[1024] / hearts if hearts else None
        row["x_two"] = row["two"] / row[1024]
        say(
            f"{name}: env() {row['env']:,.0f}; vector 1024 one core {row[1024]:,.0f} = {row['x_env']:.0f}× env()"
            + (f", {row['x_hearts']:.2f}× hearts" if hearts else "")
            + f"; two cores {row['two']:,.0f} = {row['x_two']:.2f}×; {row['memory']:,.0f} bytes/game; "
            f"first call {row['cold']:.1f}s cold, {row['warm']:.1f}s warm"
        )
        checks = [("40× env()", row["x_env"] >= 40), ("1.6× with two cores", row["x_two"] >= 1.6)]
        if hearts:
            checks.append(("10× hearts", row["x_hearts"] >= 10))
        row["checks"] = checks
        say("  targets: " + ", ".join(f"{what} {'holds' if ok else 'MISSED'}" for what, ok in checks))
        rows.append(row)
    elapsed = time.perf_counter() - t0
    block = render(rows, hearts, elapsed, args)
    if not args.no_write:
        path = Path(args.out)
        text = path.read_text() if path.exists() else "# Benchmark results\n"
        if START in text and END in text:
            text = text[: text.index(START)] + block + text[text.index(END) + len(END) :]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        path.write_text(text)
        (HERE / "vector_results.json").write_text(json.dumps({"machine": machine(), "date": time.strftime("%Y-%m-%d"),
                                                              "hearts": hearts, "rows": [
            {k if isinstance(k, str) else f"num_envs={k}": v for k, v in r.items()} for r in rows]}, indent=1, default=str))
        say(f"wrote {path}")
    return 0


def busy_main(names: list[str], args, say) -> int:
    from benchmarks import busy

    result = busy.measure(names, args.seconds, users=not args.no_users, say=say, rllib_python=args.rllib_python,
                          repeats=args.repeat, paired_rounds=args.paired_rounds, warm=args.warm,
                          turn_rounds=args.turn_rounds, rllib_repeats=args.rllib_repeat)
    result.update(machine=machine(), date=time.strftime("%Y-%m-%d"),
                  command="python benchmarks/bench_vector.py --busy"
                          + (f" --seconds {args.seconds:g}" if args.seconds != 2.0 else "")
                          + (f" --warm {args.warm:g}" if args.warm != WARM else "")
                          + (f" --repeat {args.repeat}" if args.repeat != 3 else "")
                          + (f" --turn-rounds {args.turn_rounds}" if args.turn_rounds != TURN_ROUNDS else "")
                          + "".join(f" --game {g}" for g in (args.game or [])) + (" --no-users" if args.no_users else "")
                          + (" --rllib-python PYTHON" if args.rllib_python else "")
                          + (f" --rllib-repeat {args.rllib_repeat}" if args.rllib_python and args.rllib_repeat != 3 else "")
                          + (f" --paired-rounds {args.paired_rounds}" if args.paired_rounds != PAIRED_ROUNDS else ""))
    result["table"] = busy.table(result)
    say(result["table"])
    worst = min(r["default_vs_best_fixed"] for r in result["rows"])
    say(f"the default against the best fixed choice: at worst {worst:.2f}× (target 0.8×)")
    paired = [r["paired_default_vs_best_fixed"] for r in result["rows"] if "paired_default_vs_best_fixed" in r]
    if paired:
        say(f"in the games' paired cells: at worst {min(paired):.2f}×")
    if not args.no_write:
        (HERE / "busy_results.json").write_text(json.dumps(result, indent=1) + "\n")
        say(f"wrote {HERE / 'busy_results.json'}")
    return 0


def render(rows, hearts, elapsed, args) -> str:
    import numba

    lines = [
        START,
        "## Batched engine (`vector_env`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} by `python benchmarks/bench_vector.py --seconds {args.seconds:g}` in "
        f"{elapsed:.0f} s, numba {numba.__version__}; {machine()}. Random legal play, every game's observation and "
        "mask produced every step; env steps per second (a batch step of N games counts N), each the best of "
        f"{REPEATS} slices of the measuring time (this VM's speed wanders), `env()` and hearts measured the same way; "
        "the N=1024 one-core and two-core slices interleaved (the ratio compares the same moments). All in the same run.",
        "",
        "| Game | Configuration | `env()` | N=1 | N=64 | N=1024 | N=16384 | N=1024, 2 cores | × `env()` | × hearts | 2 cores / 1 | bytes per game | first call (cold / warm cache) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        xh = f"{r['x_hearts']:.2f}×" if r["x_hearts"] else "—"
        lines.append(
            f"| `{r['game']}` | `{r['config']}` | {r['env']:,.0f} | {r[1]:,.0f} | {r[64]:,.0f} | {r[1024]:,.0f} | "
            f"{r[16384]:,.0f} | {r['two']:,.0f} | {r['x_env']:.0f}× | {xh} | {r['x_two']:.2f}× | {r['memory']:,.0f} | "
            f"{r['cold']:.1f} s / {r['warm']:.1f} s |"
        )
    lines += [
        "",
        "OpenSpiel `hearts` (C++, information-state tensor written through its buffer API every step), same run: "
        + (f"{hearts:,.0f} steps/s." if hearts else "not installed."),
        "",
        "Targets at N=1024: one core ≥ 40× `env()` and ≥ 10× hearts; two cores ≥ 1.6× one core. "
        + "; ".join(f"`{r['game']}`: " + ", ".join(f"{w} {'holds' if ok else '**missed**'}" for w, ok in r["checks"]) for r in rows)
        + ".",
        END,
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
