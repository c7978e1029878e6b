"""Learner throughput of the training harness: the batched engine against the single-game path.

    python benchmarks/bench_training.py                      # every game, 60 s per path
    python benchmarks/bench_training.py --game golf_v0 --seconds 30 --no-write

For each game, both paths train MaskablePPO from scratch with the game's own configuration
(``training/configs``) and the same opponent pool, one after the other in this run, for the
same wall time each (after a warm-up that compiles the kernels and fills the first rollout):

- ``batched`` (today's default, ``vec_env="batched"``): ``n_envs`` games on the batched engine in
  this process, opponents in batch (``training/batched.py``);
- ``shipped`` (the harness as it shipped before the batched engine, the harness it set out to
  beat: its whole ``training/configs/default.json`` of commit 43319bf^, ``SHIPPED`` below): 16
  ``SingleAgentEnv`` games in 2 subprocesses, its PPO settings and optimizer (SB3's Adam, the
  per-tensor loop), one update thread, its opponent pool drawn 1 : 1 : 1 and a frozen self every
  50k steps (the selves then play in the subprocesses, a forward per move);
- ``single-game`` (the same single-game path with today's pool, self-play schedule and
  optimizer: ``LEGACY`` below; the earlier tables' reference, kept for comparison with them).

Both single-game paths' subprocesses step the games on both cores while the learner collects.

Reported: learner steps/s (decisions the learner took and PPO trained on), the ratio, and the
fraction of the wall time spent in the environment (stepping games and opponents, masks) and in
the PPO update (``model.train``); the rest is the policy's forward passes while collecting and
SB3's own bookkeeping. Results go to ``benchmarks/training_results.json`` and a table in
``benchmarks/RESULTS.md`` (section "Training throughput").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: the single-game harness as it shipped before the batched engine: its default.json (git: 43319bf^)
#: wherever it differs from today's (the game's table, ``env_config``, is today's)
SHIPPED = {"vec_env": "subproc", "n_envs": 16, "workers": 2, "torch_threads": 1, "opponent_weights": None,
           "selfplay": {"snapshot_every": 50000, "pool_size": 5},
           "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 5,
                   "policy_kwargs": {"net_arch": [128, 128], "optimizer_kwargs": {"eps": 1e-5}}}}
#: the single-game path with its PPO settings and one update thread, but today's opponent weights,
#: self-play schedule and optimizer (the reference of the tables before SHIPPED was measured)
LEGACY = {"vec_env": "subproc", "n_envs": 16, "workers": 2, "torch_threads": 1,
          "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 5, "policy_kwargs": {"net_arch": [128, 128]}}}
OUT = Path(__file__).resolve().parent


def measure(game: str, overrides: dict, seconds: float, warmup: float) -> dict:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from training import sb3_backend as S
    from training.config import deep_merge, resolve_config, torch_threads
    from training.opponents import usable_opponents

    cfg = resolve_config(game, deep_merge({"total_timesteps": 10**9}, overrides))
    torch.set_num_threads(torch_threads(cfg))
    S.limit_threads(int(cfg.get("env_threads", 1)))
    pool = usable_opponents(game, cfg["opponents"])
    venv = S.make_vec_env(cfg, pool)
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0, **S.ppo_kwargs(cfg))
    timing = {"update": 0.0}
    train = model.train

    def timed_train():
        t = time.perf_counter()
        train()
        timing["update"] += time.perf_counter() - t

    model.train = timed_train

    class Stop(BaseCallback):
        def _on_training_start(self):
            self.t0 = time.perf_counter()
            self.mark = None

        def _on_step(self):
            now = time.perf_counter() - self.t0
            if self.mark is None and now >= warmup:  # start counting after the warm-up
                self.mark = (now, self.num_timesteps, timing["update"], _env_seconds(venv))
            return self.mark is None or now - self.mark[0] < seconds

        def _on_rollout_end(self):
            pass

    stop = Stop()
    threads = torch_threads(cfg)  # as training.train runs it
    callbacks = [stop, S.update_threads_callback(threads, S.collection_threads(venv, threads))]
    if "self" in pool:  # frozen selves join the pool as in training (snapshots in a scratch folder)
        import tempfile

        from training.selfplay import SnapshotCallback

        scratch = tempfile.mkdtemp(prefix="bench_training_")
        callbacks.append(SnapshotCallback(cfg["selfplay"]["snapshot_every"], Path(scratch), cfg["selfplay"]["pool_size"]))
    try:
        model.learn(10**9, callback=callbacks)
        end = (time.perf_counter() - stop.t0, model.num_timesteps, timing["update"], _env_seconds(venv))
    finally:
        venv.close()
    t0, s0, u0, e0 = stop.mark
    wall = end[0] - t0
    steps = end[1] - s0
    return {"steps_per_s": steps / wall, "steps": steps, "wall_s": round(wall, 1),
            "update_fraction": (end[2] - u0) / wall,
            "env_fraction": None if end[3] is None else (end[3] - e0) / wall,
            "n_envs": cfg["n_envs"], "vec_env": cfg["vec_env"], "opponents": pool,
            "ppo": {k: cfg["ppo"][k] for k in ("n_steps", "batch_size", "n_epochs")} | {
                "net_arch": cfg["ppo"]["policy_kwargs"].get("net_arch")}}


def _env_seconds(venv) -> float | None:
    return getattr(venv, "env_seconds", None)


SECTION = "## Training throughput"


def table(rows: list[dict]) -> str:
    """The Markdown table of one run (RESULTS.md's)."""
    out = ["| Game | shipped harness steps/s | batched steps/s | × shipped | single-game path, today's pool, steps/s "
           "| × single-game | batched: environment | batched: PPO update |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        b, s, h = r["batched"], r["single_game"], r["shipped"]
        env = "n/a" if b["env_fraction"] is None else f"{b['env_fraction']:.0%}"
        out.append(f"| `{r['game']}` | {h['steps_per_s']:,.0f} | {b['steps_per_s']:,.0f} | **{r['ratio_shipped']:.1f}×** | "
                   f"{s['steps_per_s']:,.0f} | {r['ratio']:.1f}× | {env} | {b['update_fraction']:.0%} |")
    return "\n".join(out)


def write_results_section(meta: dict, rows: list[dict]) -> None:
    """Replace (or append) RESULTS.md's training section with this run's table."""
    path = OUT / "RESULTS.md"
    text = path.read_text() if path.exists() else ""
    body = (f"{SECTION}\n\n`python benchmarks/bench_training.py` ({meta['date']}; {meta['machine']}; "
            f"{meta['seconds']:.0f} s measured per path and game after {meta['warmup']:.0f} s of warm-up, the three "
            "paths in one run): learner steps/s of `python -m training.train <game>` with its own configuration "
            "on the batched engine against the harness it replaced as it shipped (16 `SingleAgentEnv` games in 2 "
            "subprocesses, n_steps 256, batch 256, 5 epochs, SB3's Adam, one update thread, opponents 1 : 1 : 1, a "
            "frozen self every 50k steps: its default.json of 43319bf^) and against the same single-game path with "
            "today's opponent weights, self-play schedule and optimizer (the earlier tables' reference); the batched "
            "path's update takes every core, `torch_threads=\"auto\"`; and the batched run's share of wall time in "
            "the environment (games, opponents, masks) and in the PPO update.\n\n" + table(rows) + "\n")
    if SECTION in text:
        head, rest = text.split(SECTION, 1)
        nxt = rest.find("\n## ")
        text = head + body + (rest[nxt:] if nxt >= 0 else "")
    else:
        text = text.rstrip() + "\n\n" + body
    path.write_text(text)


def main(argv=None) -> int:
    import card_envs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", help="a game (repeatable); default: all six")
    ap.add_argument("--seconds", type=float, default=60.0, help="measured wall time per path and game")
    ap.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring (compiles, first rollout)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    games = args.game or list(card_envs.ENVIRONMENTS)
    rows = []
    for i, game in enumerate(games):
        row = {"game": game}
        for path, over in (("shipped", SHIPPED), ("single_game", LEGACY), ("batched", {})):
            print(f"[{i + 1}/{len(games)}] {game} {path}: {args.warmup:.0f} s warm-up + {args.seconds:.0f} s ...",
                  file=sys.stderr, flush=True)
            row[path] = measure(game, over, args.seconds, args.warmup)
        row["ratio"] = row["batched"]["steps_per_s"] / row["single_game"]["steps_per_s"]
        row["ratio_shipped"] = row["batched"]["steps_per_s"] / row["shipped"]["steps_per_s"]
        rows.append(row)
        b, s, h = row["batched"], row["single_game"], row["shipped"]
        env = "n/a" if b["env_fraction"] is None else f"{b['env_fraction']:.0%}"
        print(f"{game:<16} shipped {h['steps_per_s']:>7,.0f}  single-game {s['steps_per_s']:>7,.0f}  batched "
              f"{b['steps_per_s']:>7,.0f} steps/s   x{row['ratio_shipped']:.1f} shipped, x{row['ratio']:.1f} single-game"
              f"   batched: env {env}, update {b['update_fraction']:.0%}", flush=True)
    if not args.no_write:
        meta = {"machine": f"{platform.platform()}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}",
                "python": platform.python_version(), "seconds": args.seconds, "warmup": args.warmup,
                "date": time.strftime("%Y-%m-%d %H:%M")}
        (OUT / "training_results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1, default=float))
        write_results_section(meta, rows)
        print(f"wrote {OUT / 'training_results.json'} and the training section of {OUT / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
