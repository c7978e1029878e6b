"""Every benchmark in one command; writes benchmarks/RESULTS.md and benchmarks/results.png.

    python benchmarks/run.py                  # about 4 minutes on a 2-core machine
    python benchmarks/run.py --seconds 1      # quicker, noisier

Measures, in one run on one core each:

- for every game (its BENCHMARK_CONFIG): random legal play steps/s through ``env()`` (the
  wrappers' behaviour included), through ``raw_env()``, and through ``parallel_env()`` where the
  game has one (one parallel step = one simultaneous phase; its agent actions/s are reported too);
- the single-agent training view (``training.single_agent.SingleAgentEnv``, random opponents)
  steps/s, and MaskablePPO training steps/s (``model.learn``, n_steps=1024, one env);
- side by side in the same run, PettingZoo classic's ``texas_holdem_v4`` and ``leduc_holdem_v4``
  through ``env()``, and OpenSpiel's card games through ``pyspiel`` when ``open_spiel`` is
  installed; every card_envs game is reported as a ratio to ``texas_holdem_v4``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import card_envs  # noqa: E402
from bench_envs import machine, random_play_steps_per_second  # noqa: E402


def parallel_steps_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(parallel steps/s, agent actions/s) of random legal play through the Parallel API."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = actions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, infos = env.reset(seed=seed + games)
        while env.agents:
            act = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                if len(legal):
                    act[a] = int(legal[rng.integers(len(legal))])
            obs, rewards, terms, truncs, infos = env.step(act)
            steps += 1
            actions += len(act)
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, actions / elapsed


def single_agent_steps_per_second(name: str, config: dict, seconds: float) -> float:
    from training.single_agent import SingleAgentEnv

    env = SingleAgentEnv(name, config, opponents=["random"])
    rng = np.random.default_rng(0)
    steps = episodes = 0
    env.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        legal = np.flatnonzero(env.action_masks())
        _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if term or trunc:
            episodes += 1
            env.reset(seed=episodes)
    return steps / (time.perf_counter() - start)


def ppo_steps_per_second(name: str, config: dict, timesteps: int = 2048) -> float:
    import torch
    from sb3_contrib import MaskablePPO

    from training.single_agent import SingleAgentEnv

    torch.set_num_threads(1)
    env = SingleAgentEnv(name, config, opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=1024, batch_size=256, n_epochs=4, seed=0, verbose=0, device="cpu")
    model.learn(256)  # warm-up (first rollout allocations)
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    return timesteps / (time.perf_counter() - start)


def spiel_random_play(game, observe, rng, seconds: float) -> float:
    """Steps/s of random legal play of a pyspiel ``game`` for about ``seconds``, chance resolved by
    its outcome distribution's support, ``observe(state)`` called before every decision."""
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                observe(state)
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                steps += 1
    return steps / (time.perf_counter() - start)


def openspiel_steps_per_second(game_name: str, seconds: float) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(game_name)
    # the acting player's observation every step, as the PettingZoo loop builds one
    return spiel_random_play(game, lambda s: s.observation_tensor(s.current_player()), np.random.default_rng(0), seconds)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per throughput measurement")
    ap.add_argument("--ppo-steps", type=int, default=2048, help="timesteps per MaskablePPO measurement")
    ap.add_argument("--no-ppo", action="store_true")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    t0 = time.perf_counter()
    rows = []
    say = lambda *a: print(*a, flush=True)  # noqa: E731
    say(f"machine: {machine()}")
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    refs = {}
    for ref in (texas_holdem_v4, leduc_holdem_v4):
        name = ref.__name__.rsplit(".", 1)[-1]
        refs[name], _, _ = random_play_steps_per_second(ref.env, args.seconds)
        say(f"{name:<18} env        {refs[name]:>10,.0f} steps/s (PettingZoo classic)")
    spiel = {}
    for g in ("kuhn_poker", "leduc_poker", "hearts", "gin_rummy"):
        try:
            sps = openspiel_steps_per_second(g, args.seconds)
        except Exception as e:  # a game this OpenSpiel build lacks or cannot observe
            say(f"openspiel:{g} skipped: {e}")
            continue
        if sps is not None:
            spiel[g] = sps
            say(f"{'openspiel:' + g:<18} pyspiel    {sps:>10,.0f} steps/s (C++ core, observation tensor each step)")
    for name, module in card_envs.ENVIRONMENTS.items():
        cfg = dict(module.BENCHMARK_CONFIG)
        row = {"game": name, "config": cfg}
        row["env"], _, row["games"] = random_play_steps_per_second(lambda: module.env(**cfg), args.seconds)
        row["raw_env"], _, _ = random_play_steps_per_second(lambda: module.raw_env(**cfg), args.seconds)
        if hasattr(module, "parallel_env"):
            row["parallel"], row["parallel_actions"] = parallel_steps_per_second(lambda: module.parallel_env(**cfg), args.seconds)
        row["single_agent"] = single_agent_steps_per_second(name, cfg, args.seconds)
        if not args.no_ppo:
            row["ppo"] = ppo_steps_per_second(name, cfg, args.ppo_steps)
        row["ratio"] = row["env"] / refs["texas_holdem_v4"]
        rows.append(row)
        say(
            f"{name:<18} env {row['env']:>9,.0f}  raw {row['raw_env']:>9,.0f}  "
            + (f"parallel {row['parallel']:>8,.0f} ({row['parallel_actions']:,.0f} actions/s)  " if "parallel" in row else "")
            + f"single-agent {row['single_agent']:>8,.0f}  "
            + (f"PPO {row['ppo']:>6,.0f}  " if "ppo" in row else "")
            + f"= {row['ratio']:.1f}× texas_holdem_v4"
        )
    elapsed = time.perf_counter() - t0
    write_results(Path(args.out), rows, refs, spiel, elapsed, args)
    say(f"wrote {args.out} in {elapsed:.0f}s")
    return 0


def write_results(path: Path, rows, refs, spiel, elapsed, args) -> None:
    import gymnasium
    import pettingzoo

    versions = f"gymnasium {gymnasium.__version__}, pettingzoo {pettingzoo.__version__}"
    try:
        import sb3_contrib
        import stable_baselines3
        import torch

        versions += f", torch {torch.__version__}, stable-baselines3 {stable_baselines3.__version__}, sb3-contrib {sb3_contrib.__version__}"
    except ImportError:
        pass
    lines = [
        "# Benchmark results",
        "",
        f"Measured {datetime.date.today().isoformat()} by `python benchmarks/run.py --seconds {args.seconds:g}` "
        f"in {elapsed:.0f} s.",
        "",
        f"- Machine: {machine()}",
        f"- Versions: {versions}",
        "- One process, one core; random legal actions; the observation and mask are built every step.",
        "",
        "## card_envs",
        "",
        "| Game | Configuration | `env()` steps/s | `raw_env()` steps/s | `parallel_env()` steps/s (actions/s) "
        "| single-agent view steps/s | MaskablePPO train steps/s | `env()` vs `texas_holdem_v4` |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        par = f"{r['parallel']:,.0f} ({r['parallel_actions']:,.0f})" if "parallel" in r else "—"
        ppo = f"{r['ppo']:,.0f}" if "ppo" in r else "—"
        lines.append(
            f"| `{r['game']}` | `{r['config']}` | {r['env']:,.0f} | {r['raw_env']:,.0f} | {par} | "
            f"{r['single_agent']:,.0f} | {ppo} | {r['ratio']:.1f}× |"
        )
    lines += ["", "## References, same run", "", "| Environment | API | steps/s |", "|---|---|---:|"]
    for name, sps in refs.items():
        lines.append(f"| PettingZoo classic `{name}` | `env()` | {sps:,.0f} |")
    for name, sps in spiel.items():
        lines.append(f"| OpenSpiel `{name}` | pyspiel (C++), observation tensor each step | {sps:,.0f} |")
    lines += [
        "",
        "PettingZoo's hold'em environments step RLCard's game engine, which deep-copies the game on every "
        "step; OpenSpiel's games run in C++, so they are not a like-for-like Python comparison but show "
        "where a compiled core stands.",
    ]
    chart = path.with_name("results.png")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = [r["game"] for r in rows] + list(refs)
        values = [r["env"] for r in rows] + list(refs.values())
        colors = ["tab:blue"] * len(rows) + ["tab:grey"] * len(refs)
        fig, ax = plt.subplots(figsize=(8, 3.8))
        ax.barh(names[::-1], values[::-1], color=colors[::-1])
        ax.set_xlabel("random legal play through env(), steps/s (one core)")
        ax.set_title("card_envs (blue) vs PettingZoo classic hold'em (grey)")
        plt.tight_layout()
        fig.savefig(chart, dpi=110)
        lines += ["", f"![steps per second]({chart.name})"]
    except ImportError:
        pass
    kept = ""  # the batched engine's section, written by bench_vector.py, survives a rerun
    if path.exists():
        old = path.read_text()
        start, end = "<!-- vector_env: start -->", "<!-- vector_env: end -->"
        if start in old and end in old:
            kept = "\n" + old[old.index(start) : old.index(end) + len(end)] + "\n"
    path.write_text("\n".join(lines) + "\n" + kept)


if __name__ == "__main__":
    raise SystemExit(main())
