"""The batched engine and its users on a busy machine: each thread choice beside 0, 1 and 2 busy
processes, side by side in one run (``python benchmarks/bench_vector.py --busy``).

A researcher's machine is rarely idle: a training run beside its evaluation, a second experiment,
a browser. This measures what the engine's default threads keep of their speed then, against
every fixed choice a user could make instead:

- ``default``: what card_envs does unprompted (``card_envs.runtime``): beside busy processes at
  its start, threads that never spin, each batched step on the thread count its timing found
  fastest; on an idle machine, libgomp's spinning and only the cores other processes leave free;
- ``1 thread``: ``NUMBA_NUM_THREADS=1`` (the plain loops, no parallel regions);
- ``numba default``: every core, whatever the load, libgomp's default spinning (300,000 spins,
  a few milliseconds, before a thread sleeps): what the engine did before it set anything;
- ``passive``: every core, whatever the load, with ``OMP_WAIT_POLICY=PASSIVE``;
- ``workqueue``: every core, whatever the load, on numba's own ``workqueue`` threading layer.

The load is ``busy`` processes, each a bounded loop of pure Python (started before a load level,
killed after it), so with two of them on two cores the engine competes for every core. Each
choice runs in a fresh process (the thread settings must be in place before numba starts its
threads). On a shared VM the host's own load moves a cell's speed by up to 2x within seconds,
even with no busy process (Fiddlesticks idle: 2.9M to 5.9M steps/s in consecutive 2-s cells of
one choice), and beside busy processes where the OS places the threads does too; separate cells,
one choice after the other, then compare noise. So a game's cells are measured **in turns**
(:func:`turn_rates`): the five fresh processes are started one after the other (each engine
starts on the machine as it is, the others waiting), each warmed up (30 steps load the kernels,
then ``--warm`` seconds of steps: a run lasts minutes, so what counts is the default's thread
choice at work, not the first hold it starts with), then in each of ``--turn-rounds`` rounds each
process steps for a second while the others wait, in a rotating order; a choice's rate is its
steps over its time, the mean over the whole measurement (under load a best slice would only find
the moments the busy loops were descheduled). Users' cells (whole programs) are separate runs,
each ``--repeat`` times (3 by default; RLlib's ``--rllib-repeat`` times, 3 by default) in rounds of
alternating order, the median reported. A single run per choice is not enough for RLlib's cell:
its half minute of training on two env runners, the driver's learner and Ray's own processes
beside the busy loops moved by up to 2x between runs of the same choice (the default beside two
busy processes: 769 to 1,374 learner steps/s over seven runs), and the best of three such single
runs, which the default is compared against, sits high by chance.

Where the threads sit beside the busy loops also changes within a process, every few seconds
(two passive threads ran Guillotine at about 2.3M steps/s while the busy loops shared a core and
at about 0.9M while each engine thread shared a core with one). So each game also gets paired
cells (:func:`paired_rates`): one fresh process with the default's environment runs the default
and the fixed choices that can share its process in turn, a second each, for ``--paired-rounds``
rounds (10 by default), so every choice meets the same placements; beside busy processes those
are ``1 thread`` and ``passive``, on an idle machine ``1 thread`` and ``numba default``.

The engine's users are measured the same way: PIMC's batched rollouts (decisions per second of
``pimc:engine=batched`` in Golf), the SB3 training loop (learner steps per second of
``training.train``, whose collection takes one engine thread), and an evaluation with two worker
processes (games per second); and, given an interpreter with Ray (``--rllib-python``, one with
the ``distributed`` extra), the RLlib backend's batched collection on two env runners (learner
steps per second of ``training.train --backend rllib``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHOICES: dict[str, dict[str, str]] = {
    "default": {},
    "1 thread": {"NUMBA_NUM_THREADS": "1"},
    "numba default": {"GOMP_SPINCOUNT": "300000", "CARD_ENVS_FOLLOW_LOAD": "0"},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE", "CARD_ENVS_FOLLOW_LOAD": "0"},
    "workqueue": {"NUMBA_THREADING_LAYER": "workqueue", "CARD_ENVS_FOLLOW_LOAD": "0"},
}
#: the variables a choice sets: none is inherited from the calling environment
_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER",
             "CARD_ENVS_FOLLOW_LOAD")
#: the choices measured for the engine's users (the threading layer adds nothing new there)
USER_CHOICES = ("default", "1 thread", "numba default", "passive")
LOADS = (0, 1, 2)

_PIMC = """
import sys, time
import numpy as np
import agents, card_envs
from agents.base import start_game
seconds = float(sys.argv[1])
config = {"num_players": 2, "num_rounds": 1}
agent = agents.load("pimc:engine=batched,worlds=64,rollout=random", seed=0)
env = card_envs.golf_v0.env(**config)
rng = np.random.default_rng(0)
decisions, t, game = 0, None, 0
while t is None or time.perf_counter() - t < seconds:
    env.reset(seed=game); game += 1
    start_game(agent, "golf_v0", config, "player_0")
    for a in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None); continue
        if a == "player_0":
            action = agent.act(obs, a, "golf_v0")
            if t is None: t = time.perf_counter()  # the first decision loads the kernels
            else: decisions += 1
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
print(decisions / (time.perf_counter() - t))
"""

#: the start of a game's cell script: the game (``argv[1]``) at 1024 games, and ``stepped(block)``,
#: its env steps in ``block`` seconds of random play
_ENGINE = """
import json, sys, time
import card_envs
m = card_envs.ENVIRONMENTS[sys.argv[1]]
v = m.vector_env(num_envs=1024, **m.BENCHMARK_CONFIG); v.reset(seed=0)

def stepped(block):
    steps, t = 0, time.perf_counter()
    while time.perf_counter() - t < block:
        for _ in range(5): v.step(v.sample_actions())
        steps += 5
    return steps * v.num_envs, time.perf_counter() - t
"""

#: each game's paired cells: rounds of blocks of one second, one block per setting in a round
PAIRED_ROUNDS = 10
PAIRED_BLOCK = 1.0

_PAIRED = _ENGINE + """
import numba
from card_envs import runtime
rounds, block = int(sys.argv[2]), float(sys.argv[3])
choice, threads, busy = v._thread_choice, numba.get_num_threads(), runtime.PASSIVE
if busy and choice is None:
    sys.exit("passive threads but no thread choice: one thread only?")

def setting(name):
    if busy:  # passive threads: the step's own choice, or a fixed count
        runtime._chosen = {"default": 0, "1 thread": 1, "passive": threads}[name]
        v._thread_choice = choice if name == "default" else None
    else:  # spinning threads: following the load, or numba's count whatever the load
        runtime.FOLLOW_LOAD = name == "default"
        numba.set_num_threads(1 if name == "1 thread" else threads)

names = ["default", "1 thread", "passive" if busy else "numba default"]
for _ in range(30): v.step(v.sample_actions())
totals = {n: [0, 0.0] for n in names}
for r in range(rounds):
    for n in names[r % 3:] + names[:r % 3]:
        setting(n)
        steps, seconds = stepped(block)
        totals[n][0] += steps
        totals[n][1] += seconds
print(json.dumps({"started": "passive" if busy else "spinning",
                  "rates": {n: k / t for n, (k, t) in totals.items()}}))
"""


def _busy(count: int, seconds: float) -> list[subprocess.Popen]:
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]


def _environment(choice: str, **extra: str) -> dict[str, str]:
    """This process's environment without any thread setting, then ``choice``'s (and ``extra``)."""
    env = {k: v for k, v in os.environ.items() if k not in _SETTINGS}
    env.update(CHOICES[choice], **extra)
    return env


def _run(args: list[str], choice: str, timeout: float) -> float:
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=_environment(choice), cwd=ROOT,
                         timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"{args[:3]} under {choice} failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


#: seconds a game's cell steps before it is timed (after 30 steps that load the kernels)
WARM = 2.0

#: each game's cells in turns: rounds of one block per choice, each choice in its own fresh process
TURN_ROUNDS = 8
TURN_BLOCK = 1.0

_TURNS = _ENGINE + """
warm, block = float(sys.argv[2]), float(sys.argv[3])
for _ in range(30): v.step(v.sample_actions())
t = time.perf_counter()
while time.perf_counter() - t < warm:  # the steady state: the default's thread choice at work
    v.step(v.sample_actions())
print("ready", flush=True)
blocks = []
for line in sys.stdin:  # one block of steps per "go"; the process waits (no step) in between
    if line.strip() != "go":
        break
    blocks.append(list(stepped(block)))
    print("done", flush=True)
print(json.dumps(blocks), flush=True)
"""


def turn_rates(game: str, choices: list[str], rounds: int = TURN_ROUNDS, block: float = TURN_BLOCK,
               warm: float = WARM) -> dict[str, list[list[float]]]:
    """``game``'s cells in turns: each choice in its own fresh process (started one after the
    other, each while the ones before wait, so each engine starts on the machine as it is), warmed
    up for ``warm`` seconds, then ``rounds`` rounds in which each process steps for ``block``
    seconds while the others wait (the order rotating). Returns each choice's blocks as
    ``[env steps, seconds]``. The host's drift and the threads' placements then fall on every
    choice alike, as in the paired cells, but each choice keeps the settings only a fresh process
    can have."""
    procs: dict[str, subprocess.Popen] = {}
    errors: dict[str, Any] = {}

    def said(choice: str, expected: str) -> None:
        line = procs[choice].stdout.readline().strip()
        if line != expected:
            errors[choice].seek(0)
            raise RuntimeError(f"{game} under {choice}: expected {expected!r}, got {line!r}:\n"
                               f"{errors[choice].read().decode(errors='replace')[-2000:]}")

    try:
        for choice in choices:
            errors[choice] = tempfile.TemporaryFile()
            procs[choice] = subprocess.Popen([sys.executable, "-c", _TURNS, game, str(warm), str(block)], cwd=ROOT,
                                             env=_environment(choice), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=errors[choice], text=True)
            said(choice, "ready")
        for r in range(rounds):
            for choice in choices[r % len(choices):] + choices[:r % len(choices)]:
                procs[choice].stdin.write("go\n")
                procs[choice].stdin.flush()
                said(choice, "done")
        blocks = {}
        for choice, p in procs.items():
            out, _ = p.communicate("stop\n", timeout=60)
            blocks[choice] = json.loads(out.strip().splitlines()[-1])
        return blocks
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in errors.values():
            f.close()


def paired_rates(game: str, load: int | None, rounds: int = PAIRED_ROUNDS, block: float = PAIRED_BLOCK) -> dict[str, float]:
    """The default and the fixed choices that can share its process, in one fresh process (its
    environment the default's), as steps/s over ``rounds`` rounds of one ``block`` each: where the
    engine started with passive threads (beside busy processes) ``default`` (the steps' own
    choice), ``1 thread`` and ``passive`` (every thread); where it spins (idle), ``default``
    (threads following the load), ``1 thread`` and ``numba default`` (every thread, whatever the
    load). The keys say how the engine started (:func:`engine_start`); ``load`` only names the cell in
    an error. A machine that is not idle when the benchmark calls it idle (a test suite beside it)
    starts the engine passive: the cell is measured as it is, and :func:`measure` records it."""
    out = subprocess.run([sys.executable, "-c", _PAIRED, game, str(rounds), str(block)],
                         capture_output=True, text=True, env=_environment("default"), cwd=ROOT,
                         timeout=600 + 3 * rounds * block)
    if out.returncode != 0:
        raise RuntimeError(f"paired cells of {game} beside {load} busy processes failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["rates"]


def engine_start(paired: dict[str, float]) -> str:
    """How the engine of a paired cell started: ``passive`` (it measured every thread as ``passive``)
    or ``spinning`` (as ``numba default``)."""
    return "passive" if "passive" in paired else "spinning"


def _started_otherwise(row: dict) -> bool:
    """Whether a row's paired cells started otherwise than its load calls for (passive with no
    busy process: other processes held cores at the engine's start)."""
    return "paired" in row and (engine_start(row["paired"]) == "passive") != (row["load"] > 0)


def pimc_rate(choice: str, seconds: float) -> float:
    """PIMC decisions/s with batched rollouts (64 worlds of random play), Golf, 2 players."""
    return _run(["-c", _PIMC, str(seconds)], choice, timeout=600)


def training_rate(choice: str, seconds: float) -> float:
    """Learner steps/s of ``training.train golf_v0`` run for ``seconds`` (no evaluation)."""
    with tempfile.TemporaryDirectory() as out:
        name = "busy"
        args = ["-m", "training.train", "golf_v0", "--minutes", f"{seconds / 60:.4f}", "--no-progress",
                "--out", out, "--name", name, "--config", "eval.every=1000000000", "eval.games=2", "imitation.teacher=null",
                "eval.final_games=0"]
        subprocess.run([sys.executable, *args], cwd=ROOT, env=_environment(choice), check=True,
                       stdout=subprocess.DEVNULL, timeout=seconds + 600)
        return float(json.loads((Path(out) / "golf_v0" / name / "final_eval.json").read_text())["steps_per_second"])


def rllib_rate(choice: str, seconds: float, python: str) -> float:
    """Learner steps/s of ``training.train golf_v0 --backend rllib --num-env-runners 2`` run for
    ``seconds`` by ``python`` (an interpreter with Ray; this checkout's card_envs on its path)."""
    with tempfile.TemporaryDirectory() as out:
        name = "busy"
        args = ["-m", "training.train", "golf_v0", "--backend", "rllib", "--num-env-runners", "2",
                "--minutes", f"{seconds / 60:.4f}", "--no-progress", "--out", out, "--name", name,
                "--config", "eval.every=1000000000", "eval.games=2", "eval.final_games=0"]
        subprocess.run([python, *args], cwd=ROOT, env=_environment(choice, PYTHONPATH=str(ROOT)), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=seconds + 900)
        return float(json.loads((Path(out) / "golf_v0" / name / "final_eval.json").read_text())["steps_per_second"])


def evaluation_rate(choice: str, games: int) -> float:
    """Games/s of ``training.evaluate golf heuristic random`` with two worker processes."""
    with tempfile.TemporaryDirectory() as out:
        env = _environment(choice)
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "training.evaluate", "golf", "heuristic", "random", "--players", "2", "--games",
                        str(games), "--workers", "2", "--out", out], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=1800)
        return games / (time.perf_counter() - began)


def measure(games: list[str], seconds: float, users: bool, say=print, rllib_python: str | None = None,
            repeats: int = 3, paired_rounds: int = PAIRED_ROUNDS, warm: float = WARM,
            turn_rounds: int = TURN_ROUNDS, rllib_repeats: int = 3) -> dict:
    """Every (load, game or user, choice) rate, side by side; see the module docstring. A game's
    cells are measured in turns (:func:`turn_rates`: ``turn_rounds`` rounds of one block per
    choice after ``warm`` seconds of steps; each rate is its total steps over its total time, the
    blocks' rates kept as the samples). PIMC's, the SB3 training's and the evaluation's cells are
    each measured ``repeats`` times (in rounds: every choice once, then again) and reported as the
    median (the samples are kept); RLlib's (half a minute of training each) ``rllib_repeats`` times. Each game also
    gets its paired cells (:func:`paired_rates`, ``paired_rounds`` rounds; none with 0)."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    if rllib_repeats < 1:
        raise ValueError(f"rllib_repeats must be >= 1, got {rllib_repeats}")
    if paired_rounds < 0:
        raise ValueError(f"paired_rounds must be >= 0, got {paired_rounds}")
    if warm < 0:
        raise ValueError(f"warm must be >= 0 seconds, got {warm}")
    if turn_rounds < 1:
        raise ValueError(f"turn_rounds must be >= 1, got {turn_rounds}")
    rows = []
    started = time.perf_counter()
    for load in LOADS:
        budget = len(games) * len(CHOICES) * (turn_rounds * TURN_BLOCK + warm + 15) + len(games) * (
            3 * paired_rounds * PAIRED_BLOCK + 30) + (
            len(USER_CHOICES) * (repeats * (seconds * 6 + 60) + rllib_repeats * (seconds * 15 + 300))
            if users else 0) + 600
        busy = _busy(load, budget)
        try:
            for k, game in enumerate(games):
                choices = list(CHOICES) if k % 2 == 0 else list(reversed(CHOICES))  # who starts alternates
                row = _turns_row(load, game, turn_rates(game, choices, turn_rounds, TURN_BLOCK, warm))
                if paired_rounds:
                    row["paired"] = paired_rates(game, load, paired_rounds)
                    row["paired_started"] = engine_start(row["paired"])
                    if _started_otherwise(row):
                        say(f"note: beside {load} busy processes the engine of {game}'s paired cells started "
                            f"{row['paired_started']} (other processes held cores at its start)")
                rows.append(row)
                say(_line(row))
            if users:
                for what, unit, rate, times in (
                        ("pimc (batched rollouts)", "decisions/s", lambda c: pimc_rate(c, seconds * 2), repeats),
                        ("training.train (SB3)", "learner steps/s", lambda c: training_rate(c, seconds * 4), repeats),
                        ("training.evaluate (2 workers)", "games/s", lambda c: evaluation_rate(c, 200), repeats),
                        *((("training.train (RLlib)", "learner steps/s",
                            lambda c: rllib_rate(c, seconds * 15, rllib_python), rllib_repeats),)
                          if rllib_python else ())):
                    row = _row(load, what, unit, rate, list(USER_CHOICES), times)
                    rows.append(row)
                    say(_line(row))
        finally:
            for p in busy:
                p.kill()
                p.wait()
    for row in rows:
        fixed = [row[c] for c in row if c in CHOICES and c != "default"]
        row["default_vs_best_fixed"] = row["default"] / max(fixed)
        idle = next(r for r in rows if r["load"] == 0 and r["what"] == row["what"])
        if "numba default" in idle:  # the idle speed the engine had before it set anything
            row["default_vs_idle_before"] = row["default"] / idle["numba default"]
        if "paired" in row:
            paired = row["paired"]
            row["paired_default_vs_best_fixed"] = paired["default"] / max(v for c, v in paired.items() if c != "default")
            if "numba default" in idle.get("paired", {}):
                row["paired_default_vs_idle_before"] = paired["default"] / idle["paired"]["numba default"]
    return {"seconds": seconds, "warm": warm, "repeats": repeats, "rllib_repeats": rllib_repeats,
            "turn_rounds": turn_rounds,
            "turn_block": TURN_BLOCK, "paired_rounds": paired_rounds,
            "paired_block": PAIRED_BLOCK,
            "elapsed": time.perf_counter() - started, "rows": rows}


def _row(load: int, what: str, unit: str, rate, choices: list[str], repeats: int) -> dict:
    """One cell per choice: ``rate(choice)`` ``repeats`` times, in rounds whose order alternates,
    and the median of each."""
    samples: dict[str, list[float]] = {c: [] for c in choices}
    for r in range(repeats):
        for choice in (list(reversed(choices)) if r % 2 == 1 else choices):
            samples[choice].append(rate(choice))
    row = {"load": load, "what": what, "unit": unit}
    row.update({c: statistics.median(v) for c, v in samples.items()})
    row["samples"] = samples
    return row


def _turns_row(load: int, game: str, blocks: dict[str, list[list[float]]]) -> dict:
    """A game's row from its cells in turns: each choice's total steps over its total time, and
    each block's rate as the samples."""
    row = {"load": load, "what": game, "unit": "steps/s"}
    row.update({c: sum(n for n, _ in b) / sum(t for _, t in b) for c, b in blocks.items() if c in CHOICES})
    row["samples"] = {c: [n / t for n, t in b] for c, b in blocks.items()}
    return row


def _line(row: dict) -> str:
    rates = ", ".join(f"{c} {row[c]:,.0f}" for c in CHOICES if c in row)
    paired = ("; paired: " + ", ".join(f"{c} {v:,.0f}" for c, v in row["paired"].items())) if "paired" in row else ""
    return f"busy {row['load']}: {row['what']} ({row['unit']}): {rates}{paired}"


#: the engine's users as the table names them, and what each is counted in
SHORT = {"pimc (batched rollouts)": "pimc, decisions/s", "training.train (SB3)": "SB3, learner steps/s",
         "training.evaluate (2 workers)": "evaluation, games/s", "training.train (RLlib)": "RLlib, learner steps/s"}


def table(result: dict) -> str:
    """The speed page's table: each row's rates (a game's in steps/s), the default against the
    best fixed choice in separate processes and, for a game, in its paired cells (one process)."""
    lines = ["| busy | measured | " + " | ".join(f"`{c}`" for c in CHOICES)
             + " | default ÷ best | paired: default ÷ best |",
             "|---:|---|" + "---:|" * (len(CHOICES) + 2)]
    for row in result["rows"]:
        cells = [f"{row[c]:,.0f}" if c in row else "—" for c in CHOICES]
        paired = f"{row['paired_default_vs_best_fixed']:.2f}×" if "paired_default_vs_best_fixed" in row else "—"
        if _started_otherwise(row):
            paired += f" (started {engine_start(row['paired'])})"
        lines.append(f"| {row['load']} | {SHORT.get(row['what'], row['what'])} | " + " | ".join(cells)
                     + f" | {row['default_vs_best_fixed']:.2f}× | {paired} |")
    return "\n".join(lines)
