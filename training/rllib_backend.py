"""PPO on Ray RLlib (new API stack) over any card_envs game: the ``--backend rllib`` of
``python -m training.train``, for when one machine is not enough.

    python -m training.rllib_backend golf_v0 --timesteps 200000 --num-env-runners 2
    python -m training.rllib_backend golf_v0 --minutes 30 --num-env-runners 64 --address auto
    python -m training.rllib_backend --resume runs/golf_v0/20250101-120000

(the same as ``python -m training.train <game> --backend rllib ...``). Needs the ``distributed``
extra (Ray with RLlib, pinned).

What runs where. The command starts a local Ray instance (``num_cpus`` = this machine's cores,
or ``--num-cpus``) and shuts it down at the end, or with ``--address`` joins a running cluster
(``ray start --head`` on one node, ``ray start --address HEAD:6379`` on the others; Ray 2.60
authenticates with a token: ``RAY_AUTH_MODE=token`` and the same token on every node and here).
The ``num_env_runners`` EnvRunner actors (one CPU each) play the games anywhere in the cluster;
this checkout's ``card_envs``, ``agents`` and ``training`` are shipped to them (Ray's
``py_modules``; ``--no-ship-code`` when they are installed on every node). The learner (PPO
updates, on this machine's CPU), the evaluation games and the run folder stay in this process.

The environment. By default (``rllib.engine = "batched"``) each env runner steps
``batched_envs_per_env_runner`` games of the batched engine at once, the learner's seat only, the
other seats played in batch by the opponent pool inside the env
(:class:`training.rllib_batched.BatchedVectorEnv`), sampled and turned into PPO's train batch in
whole arrays (:mod:`training.rllib_runner`); the trained module is RLlib's single-agent
``default_policy``, frozen selves are numpy copies of its actor sent to the runners. The AEC
engine (``rllib.engine = "aec"``, which seats any agent) plays
:class:`training.rllib_env.RLlibCardEnv`, RLlib's ``MultiAgentEnv`` over the AEC environment,
with RLlib modules in the seats as :mod:`training.rllib_modules` says (self-play: only ``main``
is trained).

The job is split by part: the environment (:mod:`training.rllib_env`), the modules and who plays
each seat (:mod:`training.rllib_modules`), the configuration and RLlib's ``PPOConfig``
(:mod:`training.rllib_config`), Ray, snapshots and checkpoints (:mod:`training.rllib_learner`),
what a run reports (:mod:`training.rllib_metrics`); this module is the training loop and its
command line.

The run folder is the SB3 backend's, where it applies:

    config.json        the resolved configuration ("backend": "rllib", the "rllib" section)
    checkpoints/       step_<N>/: full Algorithm checkpoints (algo.save_to_path), the last few
    tb/                TensorBoard scalars (episode returns, losses, the evaluation)
    eval.csv           the evaluation curve: mean reward with 95% CI against random and heuristic
                       (at the start, every eval.every steps and at the end)
    final/             the final Algorithm checkpoint: agents.load("rllib:<run>/final")
    final_eval.json    the final evaluation, also printed

The evaluation plays ``main`` (masked, most probable action, on the CPU of this process)
through :func:`training.evaluate.evaluate_against`, the one evaluation the SB3 backend uses too:
``main`` in one seat against copies of the opponent, seats rotated, duplicate deals.

Configuration: as for SB3, with an ``"rllib"`` section (:mod:`training.rllib_config`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Sequence

from training.config import torch_threads
from training.rllib_config import RLLIB_DEFAULTS, build_config, resolve  # noqa: F401  (the backend's API)
from training.rllib_learner import latest_checkpoint, main_agent
from training.rllib_metrics import tb_writer
from training.rllib_modules import MAIN, seat_modules  # noqa: F401  (the backend's API)


def __getattr__(name: str):  # PEP 562: ``training.rllib_backend.RLlibCardEnv``, built on first use
    if name == "RLlibCardEnv":
        from training.rllib_env import env_class

        return env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def train_rllib(
    game: str | None = None,
    timesteps: int | None = None,
    num_env_runners: int | None = None,
    address: str | None = None,
    out: str | Path = "runs",
    seed: int | None = None,
    config: str | Path | dict | None = None,
    *,
    minutes: float | None = None,
    opponents: str | Sequence[str] | None = None,
    name: str | None = None,
    resume: str | Path | None = None,
    num_cpus: float | None = None,
    ship_code: bool = True,
    progress: bool = True,
    final_eval: bool = True,
    verbose: bool = True,
    argv: Sequence[str] | None = None,
    players: int | None = None,
    override_config: bool = False,
) -> Path:
    """Train ``main`` with RLlib's PPO, checkpoint and evaluate it; returns the run folder.

    Arguments mirror the command line (``out`` is the folder of run folders). A local Ray
    instance is started (``num_cpus``: default this machine's cores) and shut down at the end,
    unless ``address`` names a cluster to join (or Ray is already initialised by the caller).
    The run folder, its resume and its end are the SB3 backend's (``training/runs.py``).
    """
    try:
        import ray
        import torch
    except ImportError as e:
        raise ValueError(f"the rllib backend needs Ray RLlib and torch ({e}): pip install torch==2.13.0 && "
                         "pip install -e '.[distributed]'") from None

    from training.config import check_train_env_config
    from training.opponents import parse_opponents
    from training.rllib_learner import LearnerLoop, start_algorithm
    from training.runs import TrainingBar, evaluate_during_training, finish_run, resolve_run, start_run, versions

    started = time.monotonic()
    resumed = resume is not None
    run_dir, cfg, changes_applied = resolve_run(
        game, resume, out, name, backend="rllib", new_config=resolve, latest_checkpoint=latest_checkpoint,
        config=config, players=players, opponents=parse_opponents(opponents), seed=seed,
        override_config=override_config, timesteps=timesteps, minutes=minutes)
    env_name = cfg["env_name"]
    if num_env_runners is not None:
        if int(num_env_runners) < 0:
            raise ValueError(f"num_env_runners must be 0 or more, got {num_env_runners}")
        cfg["rllib"]["num_env_runners"] = int(num_env_runners)
    check_train_env_config(cfg)  # bad game options fail here, before any work
    # this process's own work outside the update (evaluation, snapshots) on one thread under 'auto';
    # the update's threads are the learner class's (AdaptiveThreadsPPOLearner)
    torch.set_num_threads(1 if cfg.get("torch_threads", 1) == "auto" else torch_threads(cfg))
    algo, we_started, cluster = start_algorithm(cfg, address, num_cpus, ship_code)
    run_dir = run_dir.resolve()
    start_run(run_dir, cfg, argv, resumed, address=address, cluster_cpus=cluster["cpus"],
              versions=versions(("numpy", "torch", "gymnasium", "pettingzoo", "ray")), config_changes=changes_applied)
    writer = bar = None
    try:
        loop = LearnerLoop(algo, cfg, run_dir, resumed)
        writer = tb_writer(run_dir / "tb")
        target = cfg["total_timesteps"]
        budget_s = None if cfg["minutes"] is None else 60.0 * float(cfg["minutes"])
        latest: dict[str, float] = {}

        def run_eval(t: int) -> None:
            for row in evaluate_during_training(run_dir, cfg, main_agent(algo, cfg), t, loop.clock.total()):
                latest[f"vs_{row['opponent']}"] = row["mean_reward"]
                if writer is not None:
                    writer.add_scalar(f"eval/vs_{row['opponent']}_mean_reward", row["mean_reward"], t)
                    writer.add_scalar(f"eval/vs_{row['opponent']}_win_rate", row["win_rate"], t)
            loop.state["last_eval"] = t

        bar = TrainingBar(progress, f"{env_name} RLlib PPO", budget_s, target, loop.steps)
        loop.clock.restart()
        if not resumed:
            run_eval(0)
        while (target is None or loop.steps < int(target)) and (budget_s is None or loop.clock.elapsed() < budget_s):
            loop.advance(algo.train(), writer)
            if loop.due("eval", cfg["eval"]["every"]):
                run_eval(loop.steps)
            if loop.due("ckpt", cfg["checkpoint"]["every"]):
                loop.checkpoint(loop.steps)
            bar.show(loop.steps, loop.clock.elapsed(), latest)
        train_s = loop.clock.elapsed()
        if loop.state["last_eval"] < loop.steps and (not resumed or loop.steps > loop.steps0):
            run_eval(loop.steps)  # the curve ends at the final policy
        bar.close()
        loop.checkpoint(loop.steps)
        final = loop.checkpoint(loop.steps, run_dir / "final")
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        algo.stop()
        if we_started:
            ray.shutdown()

    steps = loop.steps
    summary = {"env_name": env_name, "backend": "rllib", "num_timesteps": steps,
               "train_seconds_this_run": round(train_s, 1),
               "steps_per_second": round((steps - loop.steps0) / train_s, 1) if train_s > 0 else None,
               "final": str(final), "engine": cfg["rllib"].get("engine", "aec"), "env_runner_timers": loop.timers,
               "env_runner_nodes": cluster["runner_nodes"], "cluster_nodes": cluster["nodes"]}
    if verbose:
        print(f"\n{env_name} {cfg['env_config']}: trained to {steps:,} steps with RLlib "
              f"({train_s / 60:.1f} min this run, {summary['steps_per_second']} steps/s); policy {final}")
    from agents.rllib_agent import RLlibAgent

    evaluated = final_eval and cfg["eval"]["final_games"] > 0
    finish_run(run_dir, cfg, summary, RLlibAgent.load(final) if evaluated else None, started=started,
               final_eval=final_eval, verbose=verbose, who="RLlib PPO")
    return run_dir

# ================================================================================= CLI
def backend_of(run_dir: str | Path | None) -> str | None:
    """The backend a run folder was trained with (``"rllib"`` or ``"sb3"``), None without one."""
    if run_dir is None:
        return None
    try:
        return json.loads((Path(run_dir) / "config.json").read_text()).get("backend", "sb3")
    except (OSError, ValueError):
        return None  # the trainer says what is wrong with the folder


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The flags this backend adds to ``python -m training.train``."""
    ap.add_argument("--num-env-runners", type=int,
                    help="RLlib EnvRunner actors playing games, one CPU each (default 2)")
    ap.add_argument("--address", help="join this Ray cluster (e.g. auto, or HEAD_IP:6379) instead of "
                    "starting a local Ray instance")
    ap.add_argument("--num-cpus", type=float, help="CPUs of the local Ray instance (default: all cores)")
    ap.add_argument("--no-ship-code", action="store_true",
                    help="with --address: do not upload this checkout's packages to the cluster "
                         "(they are installed there)")


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli
    from training.runs import add_run_arguments

    ap = cli.Parser(prog="python -m training.rllib_backend", description=__doc__)
    add_run_arguments(ap, opponents_help="comma-separated pool: random,heuristic,self,ppo:PATH,rllib:PATH",
                      config_help="the training configuration: JSON files (may hold an 'rllib' section) and "
                                  "KEY=VALUE pairs (game options go into env_config; "
                                  "rllib.num_envs_per_env_runner=4)")
    add_arguments(ap)
    args = ap.parse_args(argv)
    if args.game is None and args.resume is None:
        ap.error("name a game (e.g. golf) or --resume RUN_DIR")
    try:
        game = cli.game_name(args.game) if args.game is not None else None
        train_rllib(game, args.timesteps, args.num_env_runners, args.address, args.out, args.seed,
                    args.config or None, minutes=args.minutes, opponents=args.opponents, name=args.name,
                    resume=args.resume, num_cpus=args.num_cpus, ship_code=not args.no_ship_code,
                    progress=not args.no_progress, argv=list(argv) if argv is not None else sys.argv[1:],
                    players=args.players, override_config=args.override_config)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
