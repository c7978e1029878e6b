"""The SB3 backend's VecEnvs: the learner's ``n_envs`` games as one SB3 ``VecEnv``.

- :class:`BatchedVecEnv`: every game on the batched engine (``training/batched.py``), in this
  process, the opponents played in batch (``vec_env="batched"``, the default).
- :class:`BatchedSubprocVecEnv`: the single-game path's environments (a ``SingleAgentEnv`` per
  game) in a few subprocesses, a block of environments each (``vec_env="subproc"``).

Both answer MaskablePPO's ``env_method("action_masks")`` without an extra round trip.
"""

from __future__ import annotations

import time

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from training.config import train_env_config
from training.opponents import MIXED


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
                                       seed=int(cfg["seed"]), agent_workers=max(0, int(cfg.get("workers") or 1) - 1),
                                       opponent_seating=cfg.get("opponent_seating", MIXED))
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
