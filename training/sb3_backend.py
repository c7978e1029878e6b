"""The SB3 backend: sb3-contrib's MaskablePPO on one card_envs game, on this machine.

``python -m training.train <game>`` (``training/train.py``, which documents the command line,
the configuration layers and the run folder) calls :func:`train` here. The learner's games run
on the batched engine (:class:`BatchedVecEnv` over ``training/batched.py``, the default) or on
the single-game path (``SingleAgentEnv`` per game, in this process or in subprocesses:
:class:`BatchedSubprocVecEnv`); both VecEnvs are in ``training/sb3_vec_envs.py``. Self-play
snapshots come from ``training/selfplay.py``.
"""

from __future__ import annotations

import copy
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any, Sequence

from training.config import (adaptive_threads, check_train_env_config, resolve_config, torch_threads,
                             train_env_config)
from training.opponents import MIXED, parse_opponents, usable_opponents
from training.runs import (Clock, TrainingBar, evaluate_during_training, finish_run, has_module, prune_checkpoints,
                           resolve_run, start_run, versions)
from training.sb3_vec_envs import BatchedSubprocVecEnv, BatchedVecEnv
from training.threads import limit_threads  # noqa: F401 - used here, and was importable from here
from training.single_agent import SingleAgentEnv


def update_threads_callback(threads: int, collection: int = 1, adaptive: bool = False):
    """A callback that runs the PPO update on ``threads`` torch threads and everything else (the
    collection's forward passes, beside the games) on ``collection`` threads: the collection ends
    (``on_rollout_end``) just before the update and begins just after it.

    After a parallel region torch's OpenMP threads spin for a while before they sleep; during
    collection that spinning takes the core a helper process computes the heuristic's moves on
    (Guillotine, side by side in one run: 4,982 -> 5,518 learner steps/s), so collection runs on
    one thread where helper processes (or the single-game path's subprocesses) share the cores,
    and on every thread where nothing else does (:func:`collection_threads`).

    ``adaptive`` (``torch_threads: "auto"``): ``threads`` is the most the update takes; each
    update takes the cores other processes left free during the last one
    (:class:`training.threads.AdaptiveThreads`), and the collection no more than that."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from training.threads import AdaptiveThreads

    policy = AdaptiveThreads(threads) if adaptive else None

    class UpdateThreads(BaseCallback):
        def _collection(self) -> int:
            return collection if policy is None else min(collection, policy.threads)

        first = True

        def _on_training_start(self) -> None:
            torch.set_num_threads(self._collection())

        def _on_rollout_start(self) -> None:
            if policy is not None:
                policy.end()
                if self.first:  # the first collection is measured too: the first update starts informed
                    policy.begin()
                    self.first = False
            torch.set_num_threads(self._collection())

        def _on_rollout_end(self) -> None:
            if policy is not None:
                policy.end()  # the first collection's window (later ones are not measured)
            torch.set_num_threads(threads if policy is None else policy.begin())

        def _on_step(self) -> bool:
            return True

    callback = UpdateThreads()
    callback.policy = policy
    return callback


def collection_threads(venv, threads: int) -> int:
    """The torch threads of the collection: ``threads`` on the batched engine when no helper
    process computes opponents' moves beside it (no Python heuristic in the pool: Golf,
    Fiddlesticks, Collector and Hot play theirs compiled), else 1. Measured side by side in one
    run, Collector: 13,448 and 14,180 learner steps/s on one thread, 15,813 and 16,778 on two."""
    if isinstance(venv, BatchedVecEnv) and not venv.view.helper_processes:
        return threads
    return 1


ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "elu": "ELU", "leaky_relu": "LeakyReLU", "silu": "SiLU"}


def ppo_kwargs(cfg: dict) -> dict:
    """MaskablePPO's keyword arguments from the config (activation names -> torch classes).

    The optimizer is SB3's own (Adam, ``eps=1e-5``) in torch's multi-tensor form
    (``foreach=True``, which torch uses by default only on GPUs): the same update, 12% less time
    per PPO update on this CPU (Fiddlesticks' update of 8,192 decisions: 0.514 -> 0.454 s).
    ``policy_kwargs.optimizer_kwargs`` in the config replaces it."""
    import inspect

    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    kw = copy.deepcopy(cfg["ppo"])
    allowed = set(inspect.signature(MaskablePPO.__init__).parameters) - {"self", "policy", "env", "seed", "device",
                                                                          "verbose", "tensorboard_log", "_init_setup_model"}
    unknown = sorted(set(kw) - allowed)
    if unknown:
        raise ValueError(f"unknown MaskablePPO argument(s) {unknown} in 'ppo'; allowed: {sorted(allowed)}")
    pk = kw.setdefault("policy_kwargs", {})
    pk.setdefault("optimizer_kwargs", {"eps": 1e-5, "foreach": True})
    act = pk.get("activation_fn", "tanh")
    if isinstance(act, str):
        if act.lower() not in ACTIVATIONS:
            raise ValueError(f"activation_fn {act!r} is not one of {sorted(ACTIVATIONS)}")
        pk["activation_fn"] = getattr(nn, ACTIVATIONS[act.lower()])
    return kw


# ---------------------------------------------------------------------------- environments
def _make_env(env_name: str, cfg: dict, rank: int, opponents: list[str]):
    from stable_baselines3.common.monitor import Monitor

    weights = cfg.get("opponent_weights")
    if weights is not None and len(weights) != len(opponents):
        weights = None
    env = SingleAgentEnv(env_name, train_env_config(cfg), opponents=opponents, opponent_weights=weights,
                         seat_offset=rank, pool_size=cfg["selfplay"]["pool_size"],
                         opponent_seating=cfg.get("opponent_seating", MIXED))
    return Monitor(env)


def make_vec_env(cfg: dict, opponents: list[str]):
    """The learner's ``n_envs`` games as an SB3 VecEnv: on the batched engine, every game in this
    process at compiled speed (``vec_env="batched"``, the default: :class:`BatchedVecEnv`), or the
    single-game path kept for comparison — one ``SingleAgentEnv`` per game, in this process
    (``"dummy"``) or spread over ``workers`` subprocesses (``"subproc"``, BatchedSubprocVecEnv)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    if cfg["vec_env"] == "batched":
        return BatchedVecEnv(cfg, opponents)
    fns = [partial(_make_env, cfg["env_name"], cfg, i, opponents) for i in range(int(cfg["n_envs"]))]
    workers = min(int(cfg.get("workers") or 1), len(fns))
    if cfg["vec_env"] == "subproc" and workers > 1:
        return BatchedSubprocVecEnv(fns, workers)
    return DummyVecEnv(fns)


# ------------------------------------------------------------------------------- evaluation


def _callbacks(cfg: dict, run_dir: Path, opponents: list[str], budget_s: float | None, target: int | None,
               progress: bool, resumed: bool, clock: Clock):
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.ppo import PPOAgent
    from training.selfplay import SnapshotCallback

    env_name = cfg["env_name"]

    class RunCallback(BaseCallback):
        """Time budget, progress bar, evaluation curve and checkpoints."""

        def __init__(self):
            super().__init__()
            self.bar = None
            self.last_eval = self.last_ckpt = 0
            self.last_bar = 0.0
            self.latest: dict[str, float] = {}

        def _on_training_start(self) -> None:
            clock.restart()
            self.last_eval = self.last_ckpt = self.num_timesteps
            self.bar = TrainingBar(progress, f"{env_name} PPO", budget_s, target, self.num_timesteps)
            if not resumed:
                self.evaluate()

        def _on_step(self) -> bool:
            t = self.num_timesteps
            if t - self.last_eval >= cfg["eval"]["every"]:
                self.evaluate()
            if t - self.last_ckpt >= cfg["checkpoint"]["every"]:
                self.checkpoint()
            now = clock.elapsed()
            if now - self.last_bar > 0.5:
                self.last_bar = now
                self.bar.show(self.num_timesteps, now, self.latest)
            return budget_s is None or now < budget_s

        def evaluate(self) -> None:
            self.last_eval = self.num_timesteps
            agent = PPOAgent.from_policy(self.model.policy, {"env_name": env_name, "env_config": cfg["env_config"]})
            for row in evaluate_during_training(run_dir, cfg, agent, self.num_timesteps, clock.total()):
                opp = row["opponent"]
                self.latest[f"vs_{opp}"] = row["mean_reward"]
                self.logger.record(f"eval/vs_{opp}_mean_reward", row["mean_reward"])
                self.logger.record(f"eval/vs_{opp}_win_rate", row["win_rate"])

        def checkpoint(self) -> None:
            self.last_ckpt = self.num_timesteps
            save_checkpoint(self.model, run_dir, cfg, clock.total())

        def _on_training_end(self) -> None:
            self.bar.show(self.num_timesteps, clock.elapsed(), self.latest)
            self.bar.close()

    callbacks = [RunCallback()]
    if "self" in opponents:
        callbacks.append(SnapshotCallback(cfg["selfplay"]["snapshot_every"], run_dir / "snapshots",
                                          cfg["selfplay"]["pool_size"]))
    return callbacks


def policy_meta(model: Any, cfg: dict, train_seconds: float) -> dict:
    return {
        "train_seconds": round(train_seconds, 1),
        "env_name": cfg["env_name"],
        "env_config": cfg["env_config"],
        "num_timesteps": int(model.num_timesteps),
        "seed": cfg["seed"],
        "opponents": cfg["opponents"],
        "trained_by": "python -m training.train",
        "config": {k: v for k, v in cfg.items() if k != "runs"},
    }


def save_checkpoint(model: Any, run_dir: Path, cfg: dict, train_seconds: float) -> Path:
    from agents.ppo import save_model

    path = save_model(model, run_dir / "checkpoints" / f"step_{model.num_timesteps:010d}.zip",
                      policy_meta(model, cfg, train_seconds))
    prune_checkpoints(run_dir, cfg["checkpoint"]["keep"], Path.unlink)
    return path


def latest_checkpoint(run_dir: Path) -> Path:
    ckpts = sorted((run_dir / "checkpoints").glob("step_*.zip"))
    if not ckpts:
        raise FileNotFoundError(f"{run_dir} has no checkpoints/step_*.zip to resume from")
    return ckpts[-1]


# ------------------------------------------------------------------------------------ train
def set_up_process(cfg: dict) -> None:
    """This process's settings for the training: torch's threads for the PPO update, the
    environment's threads (:func:`limit_threads`), no argument checks in torch's distributions."""
    import torch

    torch.set_num_threads(torch_threads(cfg))
    limit_threads(int(cfg.get("env_threads", 1)))
    # Checking every action distribution's arguments costs ~5% of a Golf rollout; the masks
    # and logits come from SB3 itself, so the check finds nothing.
    torch.distributions.Distribution.set_default_validate_args(False)


def tensorboard_dir(run_dir: Path) -> str | None:
    """The run's ``tb/`` folder for TensorBoard's logs; None, said on stderr, without tensorboard."""
    if has_module("tensorboard"):
        return str(run_dir / "tb")
    print("note: tensorboard is not installed (pip install -e '.[train]'); no TensorBoard logs", file=sys.stderr)
    return None


def build_model(cfg: dict, run_dir: Path, venv, kwargs: dict, tb_dir: str | None, resumed: bool) -> tuple[Any, Clock]:
    """The learner on ``venv`` and the run's clock: a new MaskablePPO seeded with the run's seed, or
    the resumed run's last checkpoint, reseeded for the steps it has taken, with the training
    seconds it has behind it."""
    from sb3_contrib import MaskablePPO

    if resumed:
        from agents.ppo import read_metadata

        ckpt = latest_checkpoint(run_dir)
        clock = Clock(read_metadata(ckpt).get("train_seconds", 0.0))
        model = MaskablePPO.load(ckpt, env=venv, device="cpu", tensorboard_log=tb_dir)
        model.set_random_seed(int(cfg["seed"]) + int(model.num_timesteps))
        return model, clock
    model = MaskablePPO("MlpPolicy", venv, seed=int(cfg["seed"]), device="cpu", verbose=0,
                        tensorboard_log=tb_dir, **kwargs)
    if cfg.get("init_policy"):  # the actor of a policy file, as the new run's start
        from agents.ppo import copy_actor, load_policy, resolve_policy_file

        copy_actor(load_policy(resolve_policy_file(cfg["init_policy"]))[0], model.policy)
    return model, Clock()


def imitate_teacher(model: Any, cfg: dict, pool: list[str], clock: Clock, progress: bool,
                    verbose: bool) -> dict | None:
    """The warm start by imitation of ``imitation.teacher`` (``training/imitation.py``), when the
    configuration names one: its report, its seconds counted in the run's training time."""
    if not (cfg.get("imitation") or {}).get("teacher"):
        return None
    from training.imitation import warm_start

    warm = warm_start(model, cfg, pool, progress=progress)
    clock.before += warm["seconds"]
    if verbose:
        last = warm["epochs"][-1]
        print(f"imitation of {warm['teacher']}: {warm['decisions']:,} decisions, {warm['seconds']:.0f} s; "
              f"the policy agrees with it on {last['agreement']:.1%} of them")
    return warm


def learn(model: Any, venv, cfg: dict, run_dir: Path, pool: list[str], clock: Clock, warm: dict | None,
          resumed: bool, progress: bool) -> float:
    """PPO up to the step total or for the time budget (less the warm start's seconds), with the
    evaluation curve, checkpoints, self-play snapshots and the update's threads as callbacks.
    Returns the seconds it took, 0 for a run already at its step total."""
    target = cfg["total_timesteps"]
    budget_s = None if cfg["minutes"] is None else 60.0 * float(cfg["minutes"]) - (warm["seconds"] if warm else 0.0)
    remaining = (int(target) - int(model.num_timesteps)) if target is not None else 10**12
    if remaining <= 0:
        return 0.0
    callbacks = _callbacks(cfg, run_dir, pool, budget_s, target, progress, resumed, clock)
    callbacks.append(update_threads_callback(torch_threads(cfg), collection_threads(venv, torch_threads(cfg)),
                                             adaptive=adaptive_threads(cfg)))
    model.learn(remaining, callback=callbacks, tb_log_name="ppo", reset_num_timesteps=not resumed)
    return clock.elapsed()


def save_final(model: Any, run_dir: Path, cfg: dict, train_seconds: float) -> Path:
    """The last checkpoint, and ``final.zip``: the policy the run ends with."""
    from agents.ppo import save_model

    save_checkpoint(model, run_dir, cfg, train_seconds)
    return save_model(model, run_dir / "final.zip", policy_meta(model, cfg, train_seconds))


def train(
    game: str | None = None,
    timesteps: int | None = None,
    minutes: float | None = None,
    opponents: str | Sequence[str] | None = None,
    config: str | Path | dict | None = None,
    seed: int | None = None,
    out: str | Path = "runs",
    name: str | None = None,
    resume: str | Path | None = None,
    n_envs: int | None = None,
    vec_env: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    final_eval: bool = True,
    verbose: bool = True,
    argv: Sequence[str] | None = None,
    players: int | None = None,
    override_config: bool = False,
) -> Path:
    """Train, save and evaluate; returns the run folder. Arguments mirror the command line
    (``config``: a dict, a JSON file, or ``--config`` items; ``players``: ``--players``;
    ``override_config``: ``--override-config``, apply a changed configuration to a resumed run)."""
    started = time.monotonic()
    resumed = resume is not None
    run_dir, cfg, changes_applied = resolve_run(
        game, resume, out, name, backend="sb3", new_config=resolve_config, latest_checkpoint=latest_checkpoint,
        config=config, players=players, opponents=parse_opponents(opponents), seed=seed,
        override_config=override_config, timesteps=timesteps, minutes=minutes, n_envs=n_envs, vec_env=vec_env,
        workers=workers)
    env_name = cfg["env_name"]
    check_train_env_config(cfg)  # bad game options fail here, before any work
    kwargs = ppo_kwargs(cfg)
    set_up_process(cfg)
    pool = usable_opponents(env_name, cfg["opponents"])
    start_run(run_dir, cfg, argv, resumed, opponents_used=pool, config_changes=changes_applied, versions=versions())

    tb_dir = tensorboard_dir(run_dir)
    venv = make_vec_env(cfg, pool)
    try:
        model, clock = build_model(cfg, run_dir, venv, kwargs, tb_dir, resumed)
        warm = None if resumed else imitate_teacher(model, cfg, pool, clock, progress, verbose)
        done = int(model.num_timesteps)
        train_s = learn(model, venv, cfg, run_dir, pool, clock, warm, resumed, progress)
        final = save_final(model, run_dir, cfg, clock.before + train_s)
    finally:
        venv.close()

    steps = int(model.num_timesteps)
    summary = {"env_name": env_name, "num_timesteps": steps,
               "train_seconds_this_run": round(train_s + (warm["seconds"] if warm else 0.0), 1),
               "steps_per_second": round((steps - done) / train_s, 1) if train_s > 0 else None,
               "final": str(final)}
    if warm is not None:
        summary["imitation"] = warm
    if verbose:
        print(f"\n{env_name} {cfg['env_config']}: trained to {steps:,} steps "
              f"({train_s / 60:.1f} min this run, {summary['steps_per_second']} steps/s); policy {final}")
    finish_run(run_dir, cfg, summary, f"ppo:{final}", started=started, final_eval=final_eval, verbose=verbose,
               workers=max(1, min(int(cfg["workers"]), os.cpu_count() or 1)))
    return run_dir
