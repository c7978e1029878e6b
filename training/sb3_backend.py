"""The SB3 backend: sb3-contrib's MaskablePPO on one card_envs game, on this machine.

``python -m training.train <game>`` (``training/train.py``, which documents the command line,
the configuration layers and the run folder) calls :func:`train` here. The learner's games run
on the batched engine (:class:`BatchedVecEnv` over ``training/batched.py``, the default) or on
the single-game path (``SingleAgentEnv`` per game, in this process or in subprocesses:
:class:`BatchedSubprocVecEnv`); self-play snapshots come from ``training/selfplay.py``.
"""

from __future__ import annotations

import copy
import json
import os
import platform
import sys
import time
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from training.config import (read_run, requested_changes, torch_threads,
                             resolve_config, resume_config, train_env_config, with_players)
from training.evaluate import evaluate_against
from training.opponents import eval_opponents, parse_opponents, usable_opponents
from training.runs import Clock, fmt_row, has_module, versions, write_eval_rows
from training.single_agent import SingleAgentEnv, env_module

def limit_threads(env_threads: int) -> None:
    """The batched engine's threads (numba) and numpy's BLAS threads, for the whole training.

    The environment runs in this process between the PPO updates; on a 2-core machine a parallel
    region or a multithreaded BLAS call of a few hundred rows costs more in scheduling than it
    saves (measured: numba's parallel regions 10 ms each and an opponent policy's 256-row forward
    19 ms under load, against 0.3 ms on one thread), so one thread each is the default."""
    try:
        import numba

        numba.set_num_threads(max(1, min(env_threads, numba.config.NUMBA_NUM_THREADS)))
    except ImportError:  # the single-game path needs no numba
        pass
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(env_threads, user_api="blas")
    except ImportError:
        pass


def update_threads_callback(threads: int, collection: int = 1):
    """A callback that runs the PPO update on ``threads`` torch threads and everything else (the
    collection's forward passes, beside the games) on ``collection`` threads: the collection ends
    (``on_rollout_end``) just before the update and begins just after it.

    After a parallel region torch's OpenMP threads spin for a while before they sleep; during
    collection that spinning takes the core a helper process computes the heuristic's moves on
    (Guillotine, side by side in one run: 4,982 -> 5,518 learner steps/s), so collection runs on
    one thread where helper processes (or the single-game path's subprocesses) share the cores,
    and on every thread where nothing else does (:func:`collection_threads`)."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    class UpdateThreads(BaseCallback):
        def _on_training_start(self) -> None:
            torch.set_num_threads(collection)

        def _on_rollout_start(self) -> None:
            torch.set_num_threads(collection)

        def _on_rollout_end(self) -> None:
            torch.set_num_threads(threads)

        def _on_step(self) -> bool:
            return True

    return UpdateThreads()


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
                         seat_offset=rank, pool_size=cfg["selfplay"]["pool_size"])
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


class BatchedVecEnv(VecEnv):
    """SB3's VecEnv over :class:`training.batched.BatchedLearnerView`: ``n_envs`` games of the
    batched engine, the learner in one seat of each, the opponents played in batch.

    ``action_masks`` (``env_method("action_masks")``, as MaskablePPO asks) are the view's;
    ``env_method("add_snapshot", name, policy)`` (the self-play callback) reaches the view once.
    The time spent in the environment (the engine and the opponents) is counted in
    ``env_seconds``, so the harness can report it against the PPO update's."""

    def __init__(self, cfg: dict, opponents: list[str]):
        from training.batched import BatchedLearnerView

        weights = cfg.get("opponent_weights")
        if weights is not None and len(weights) != len(opponents):
            weights = None
        self.view = BatchedLearnerView(cfg["env_name"], train_env_config(cfg), int(cfg["n_envs"]), opponents,
                                       opponent_weights=weights, pool_size=cfg["selfplay"]["pool_size"],
                                       seed=int(cfg["seed"]), agent_workers=max(0, int(cfg.get("workers") or 1) - 1))
        super().__init__(self.view.num_envs, self.view.observation_space, self.view.action_space)
        self._actions: np.ndarray | None = None
        self.env_seconds = 0.0

    def reset(self):
        t = time.perf_counter()
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs = self.view.reset(seed=seed)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        self.env_seconds += time.perf_counter() - t
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self):
        t = time.perf_counter()
        out = self.view.step(self._actions)
        self.env_seconds += time.perf_counter() - t
        return out

    def close(self) -> None:
        self.view.close()

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            t = time.perf_counter()
            masks = self.view.action_masks()
            self.env_seconds += time.perf_counter() - t
            return list(masks[idx])
        if method_name in ("add_snapshot", "snapshot_names"):
            result = getattr(self.view, method_name)(*method_args, **method_kwargs)
            return [result] * len(idx)
        raise AttributeError(f"BatchedVecEnv has no per-game method {method_name!r}")

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self.view, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self.view, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self):
        return [None] * self.num_envs


def _batched_worker(remote, parent_remote, fns_wrapper) -> None:
    """A subprocess holding a DummyVecEnv of several views; answers BatchedSubprocVecEnv's calls."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    parent_remote.close()
    venv = DummyVecEnv(fns_wrapper.var)

    def masks():
        return np.stack(venv.env_method("action_masks"))

    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        if cmd == "step":
            obs, rews, dones, infos = venv.step(data)
            remote.send((obs, rews, dones, infos, venv.reset_infos, masks()))
        elif cmd == "reset":
            venv._seeds, venv._options = list(data[0]), list(data[1])  # VecEnv's per-env seeds and options
            obs = venv.reset()
            remote.send((obs, venv.reset_infos, masks()))
        elif cmd == "env_method":
            name, args, kwargs, idx = data
            remote.send(venv.env_method(name, *args, indices=idx, **kwargs))
        elif cmd == "get_attr":
            remote.send(venv.get_attr(data[0], indices=data[1]))
        elif cmd == "set_attr":
            remote.send(venv.set_attr(data[0], data[1], indices=data[2]))
        elif cmd == "has_attr":
            remote.send(venv.has_attr(data))
        elif cmd == "is_wrapped":
            remote.send(venv.env_is_wrapped(data[0], indices=data[1]))
        elif cmd == "get_spaces":
            remote.send((venv.observation_space, venv.action_space))
        elif cmd == "close":
            venv.close()
            remote.close()
            break
        else:
            remote.send(NotImplementedError(f"unknown command {cmd!r}"))


class BatchedSubprocVecEnv(VecEnv):
    """SB3's SubprocVecEnv, but each of ``workers`` subprocesses runs a block of environments.

    On a 2-core machine, one process per environment leaves the policy's per-step forward pass
    (in the main process) amortized over only 2 environments; here 16 environments in 2
    processes share it. The workers also send the action masks back with every step, so
    MaskablePPO's ``env_method("action_masks")`` costs no extra round trip.
    """

    def __init__(self, env_fns, workers: int = 2, start_method: str | None = None):
        import multiprocessing as mp

        from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper

        n = len(env_fns)
        workers = max(1, min(workers, n))
        bounds = np.linspace(0, n, workers + 1).round().astype(int)
        self.blocks = [list(range(bounds[i], bounds[i + 1])) for i in range(workers)]
        self.worker_of = {e: (w, j) for w, block in enumerate(self.blocks) for j, e in enumerate(block)}
        if start_method is None:
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(start_method)
        self.remotes, work_remotes = zip(*[ctx.Pipe() for _ in range(workers)])
        self.processes = []
        for block, work_remote, remote in zip(self.blocks, work_remotes, self.remotes):
            proc = ctx.Process(target=_batched_worker,
                               args=(work_remote, remote, CloudpickleWrapper([env_fns[i] for i in block])), daemon=True)
            proc.start()
            self.processes.append(proc)
            work_remote.close()
        self.remotes[0].send(("get_spaces", None))
        obs_space, act_space = self.remotes[0].recv()
        super().__init__(n, obs_space, act_space)
        self.waiting = self.closed = False
        self._masks: np.ndarray | None = None

    def step_async(self, actions: np.ndarray) -> None:
        for block, remote in zip(self.blocks, self.remotes):
            remote.send(("step", actions[block[0] : block[-1] + 1]))
        self.waiting = True

    def step_wait(self):
        results = [remote.recv() for remote in self.remotes]
        self.waiting = False
        obs, rews, dones, infos, reset_infos, masks = zip(*results)
        self.reset_infos = [i for block in reset_infos for i in block]
        self._masks = np.concatenate(masks)
        return np.concatenate(obs), np.concatenate(rews), np.concatenate(dones), [i for b in infos for i in b]

    def reset(self):
        for block, remote in zip(self.blocks, self.remotes):
            remote.send(("reset", ([self._seeds[i] for i in block], [self._options[i] for i in block])))
        results = [remote.recv() for remote in self.remotes]
        obs, reset_infos, masks = zip(*results)
        self.reset_infos = [i for block in reset_infos for i in block]
        self._masks = np.concatenate(masks)
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
        for remote in self.remotes:
            remote.send(("close", None))
        for proc in self.processes:
            proc.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True

    def _scatter(self, cmd: str, make_data, indices) -> list:
        """Send ``cmd`` to the workers holding ``indices``; the answers in the order of ``indices``."""
        indices = list(self._get_indices(indices))
        per_worker: dict[int, list[int]] = {}
        for e in indices:
            w, j = self.worker_of[e]
            per_worker.setdefault(w, []).append(j)
        for w, local in per_worker.items():
            self.remotes[w].send((cmd, make_data(local)))
        answers = {w: self.remotes[w].recv() for w in per_worker}
        pos = {w: 0 for w in per_worker}
        out = []
        for e in indices:
            w, _ = self.worker_of[e]
            ans = answers[w]
            out.append(ans[pos[w]] if isinstance(ans, list) else ans)
            pos[w] += 1
        return out

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks" and not method_args and not method_kwargs and self._masks is not None:
            return list(self._masks[list(self._get_indices(indices))])
        self._masks = None if method_name != "action_masks" else self._masks
        return self._scatter("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        return self._scatter("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        self._masks = None
        self._scatter("set_attr", lambda local: (attr_name, value, local), indices)

    def has_attr(self, attr_name: str) -> bool:
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        return all(remote.recv() for remote in self.remotes)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return self._scatter("is_wrapped", lambda local: (wrapper_class, local), indices)

    def get_images(self):
        return [None] * self.num_envs


# ------------------------------------------------------------------------------- evaluation


def _callbacks(cfg: dict, run_dir: Path, opponents: list[str], budget_s: float | None, target: int | None,
               progress: bool, resumed: bool, clock: Clock):
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.ppo import PPOAgent
    from training.selfplay import SnapshotCallback

    env_name = cfg["env_name"]
    opponents_to_evaluate = eval_opponents(cfg)

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
            self.t0_steps = self.num_timesteps
            if progress:
                try:
                    from tqdm.auto import tqdm

                    if budget_s is not None:
                        self.bar = tqdm(total=int(budget_s), desc=f"{env_name} PPO", dynamic_ncols=True,
                                        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} s{postfix}")
                    else:
                        self.bar = tqdm(total=target, initial=self.num_timesteps, desc=f"{env_name} PPO",
                                        unit="step", dynamic_ncols=True)
                except ImportError:
                    self.bar = None
            if not resumed:
                self.evaluate()

        def _on_step(self) -> bool:
            t = self.num_timesteps
            if t - self.last_eval >= cfg["eval"]["every"]:
                self.evaluate()
            if t - self.last_ckpt >= cfg["checkpoint"]["every"]:
                self.checkpoint()
            now = clock.elapsed()
            if self.bar is not None and now - self.last_bar > 0.5:
                self.last_bar = now
                self._update_bar()
            return budget_s is None or now < budget_s

        def _update_bar(self) -> None:
            if budget_s is not None:
                self.bar.n = min(int(clock.elapsed()), int(budget_s))
            else:
                self.bar.n = min(self.num_timesteps, target)
            post = {"steps": self.num_timesteps,
                    "steps/s": int((self.num_timesteps - self.t0_steps) / max(clock.elapsed(), 1e-9))}
            post.update({k: f"{v:+.2f}" for k, v in self.latest.items()})
            self.bar.set_postfix(post, refresh=False)
            self.bar.refresh()

        def evaluate(self) -> None:
            self.last_eval = self.num_timesteps
            agent = PPOAgent.from_policy(self.model.policy, {"env_name": env_name, "env_config": cfg["env_config"]})
            rows = []
            for i, opp in enumerate(opponents_to_evaluate):
                row = evaluate_against(env_name, cfg["env_config"], agent, opp, cfg["eval"]["games"],
                               seed=1_000_000 + 7919 * i)
                row.update(timesteps=self.num_timesteps, wall_seconds=round(clock.total(), 1))
                rows.append(row)
                self.latest[f"vs_{opp}"] = row["mean_reward"]
                self.logger.record(f"eval/vs_{opp}_mean_reward", row["mean_reward"])
                self.logger.record(f"eval/vs_{opp}_win_rate", row["win_rate"])
            write_eval_rows(run_dir / "eval.csv", rows)

        def checkpoint(self) -> None:
            self.last_ckpt = self.num_timesteps
            save_checkpoint(self.model, run_dir, cfg, clock.total())

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self._update_bar()
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
    for old in sorted((run_dir / "checkpoints").glob("step_*.zip"))[: -int(cfg["checkpoint"]["keep"])]:
        old.unlink()
    return path


def latest_checkpoint(run_dir: Path) -> Path:
    ckpts = sorted((run_dir / "checkpoints").glob("step_*.zip"))
    if not ckpts:
        raise FileNotFoundError(f"{run_dir} has no checkpoints/step_*.zip to resume from")
    return ckpts[-1]


# ------------------------------------------------------------------------------------ train


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
    from sb3_contrib import MaskablePPO
    import torch

    started = time.monotonic()
    opponents = parse_opponents(opponents)
    changes_applied: list[str] = []
    if resume is not None:
        run_dir, cfg = read_run(resume, game)
        latest_checkpoint(run_dir)  # a folder with nothing to resume from fails before it is touched
        cfg, changes_applied = resume_config(run_dir, cfg, requested_changes(cfg["env_name"], config, players,
                                                                              opponents, seed), override_config)
        for k, v in (("total_timesteps", timesteps), ("minutes", minutes), ("n_envs", n_envs), ("vec_env", vec_env),
                     ("workers", workers)):
            if v is not None:
                cfg[k] = v
        if minutes is not None and timesteps is None:
            cfg["total_timesteps"] = None
        if timesteps is not None and minutes is None:
            cfg["minutes"] = None  # a new step total replaces the old time budget
        env_name = cfg["env_name"]
    else:
        if game is None:
            raise ValueError("name a game (e.g. golf_v0) or --resume a run folder")
        env_name = env_module(game).raw_env.metadata["name"]
        cfg = resolve_config(env_name, with_players(env_name, config, players), total_timesteps=timesteps,
                             minutes=minutes, opponents=opponents, seed=seed, n_envs=n_envs, vec_env=vec_env,
                             workers=workers)
        if minutes is not None and timesteps is None:
            cfg["total_timesteps"] = None  # the time budget decides
        run_dir = Path(out) / env_name / (name or datetime.now().strftime("%Y%m%d-%H%M%S"))
        if run_dir.exists() and any(run_dir.iterdir()):
            raise FileExistsError(f"{run_dir} exists; use --resume {run_dir} to continue it, or another --name")
    module = env_module(env_name)  # bad game options fail here, before any work
    spaces = []
    for options in (cfg["env_config"], train_env_config(cfg)):
        e = module.env(**options)
        spaces.append(e.observation_space(e.possible_agents[0]))
    if spaces[0] != spaces[1]:
        raise ValueError(f"train_env_config {cfg.get('train_env_config')} changes the observation: only options "
                         "that leave it alone (like reward_mode) may differ between training and evaluation")
    kwargs = ppo_kwargs(cfg)
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(torch_threads(cfg))
    limit_threads(int(cfg.get("env_threads", 1)))
    # Checking every action distribution's arguments costs ~5% of a Golf rollout; the masks
    # and logits come from SB3 itself, so the check finds nothing.
    torch.distributions.Distribution.set_default_validate_args(False)
    pool = usable_opponents(env_name, cfg["opponents"])
    cfg.setdefault("runs", []).append({
        "started": datetime.now().isoformat(timespec="seconds"),
        "argv": list(argv) if argv is not None else None,
        "resume": resume is not None, "opponents_used": pool, "config_changes": changes_applied,
        "versions": versions(), "platform": platform.platform(), "cpus": os.cpu_count(),
    })
    (run_dir / "config.json").write_text(json.dumps(cfg, indent=2))

    clock = Clock()
    tb_dir = str(run_dir / "tb") if has_module("tensorboard") else None
    if tb_dir is None:
        print("note: tensorboard is not installed (pip install -e '.[train]'); no TensorBoard logs", file=sys.stderr)
    venv = make_vec_env(cfg, pool)
    try:
        if resume is not None:
            from agents.ppo import read_metadata

            ckpt = latest_checkpoint(run_dir)
            clock = Clock(read_metadata(ckpt).get("train_seconds", 0.0))
            model = MaskablePPO.load(ckpt, env=venv, device="cpu", tensorboard_log=tb_dir)
            model.set_random_seed(int(cfg["seed"]) + int(model.num_timesteps))
        else:
            model = MaskablePPO("MlpPolicy", venv, seed=int(cfg["seed"]), device="cpu", verbose=0,
                                tensorboard_log=tb_dir, **kwargs)
        warm = None
        if resume is None and (cfg.get("imitation") or {}).get("teacher"):
            from training.imitation import warm_start

            warm = warm_start(model, cfg, pool, progress=progress)
            clock.before += warm["seconds"]
            if verbose:
                last = warm["epochs"][-1]
                print(f"imitation of {warm['teacher']}: {warm['decisions']:,} decisions, {warm['seconds']:.0f} s; "
                      f"the policy agrees with it on {last['agreement']:.1%} of them")
        done = int(model.num_timesteps)
        target = cfg["total_timesteps"]
        budget_s = None if cfg["minutes"] is None else 60.0 * float(cfg["minutes"]) - (warm["seconds"] if warm else 0.0)
        remaining = (int(target) - done) if target is not None else 10**12
        if remaining > 0:
            callbacks = _callbacks(cfg, run_dir, pool, budget_s, target, progress, resume is not None, clock)
            callbacks.append(update_threads_callback(torch_threads(cfg), collection_threads(venv, torch_threads(cfg))))
            model.learn(remaining, callback=callbacks, tb_log_name="ppo", reset_num_timesteps=resume is None)
            train_s = clock.elapsed()
        else:
            train_s = 0.0
        save_checkpoint(model, run_dir, cfg, clock.before + train_s)
        from agents.ppo import save_model

        final = save_model(model, run_dir / "final.zip", policy_meta(model, cfg, clock.before + train_s))
    finally:
        venv.close()

    steps = int(model.num_timesteps)
    summary = {"env_name": env_name, "num_timesteps": steps,
               "train_seconds_this_run": round(train_s + (warm["seconds"] if warm else 0.0), 1),
               "steps_per_second": round((steps - done) / train_s, 1) if train_s > 0 else None,
               "final": str(final), "evaluation": []}
    if warm is not None:
        summary["imitation"] = warm
    if verbose:
        print(f"\n{env_name} {cfg['env_config']}: trained to {steps:,} steps "
              f"({train_s / 60:.1f} min this run, {summary['steps_per_second']} steps/s); policy {final}")
    if final_eval and cfg["eval"]["final_games"] > 0:
        evaluated = eval_opponents(cfg)
        eval_workers = max(1, min(int(cfg["workers"]), os.cpu_count() or 1))
        for opp in evaluated:
            row = evaluate_against(env_name, cfg["env_config"], f"ppo:{final}", opp, cfg["eval"]["final_games"],
                           seed=2_000_000, workers=eval_workers)
            summary["evaluation"].append(row)
            if verbose:
                print(fmt_row(row))
        missing = [o for o in cfg["eval"]["opponents"] if o not in evaluated]
        if missing and verbose:
            print(f"(no {', '.join(missing)} agent for {env_name} yet: not evaluated against it)")
    summary["total_seconds_this_run"] = round(time.monotonic() - started, 1)
    from training.evaluate import _jsonable

    (run_dir / "final_eval.json").write_text(json.dumps(_jsonable(summary), indent=2))
    if verbose:
        print(f"run folder: {run_dir}")
    return run_dir
