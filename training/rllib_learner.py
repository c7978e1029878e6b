"""The driver's side of a ``--backend rllib`` run: Ray, the learner's steps, its frozen selves and
its checkpoints.

The learner (PPO updates, on this machine's CPU), the evaluation games and the run folder stay in
the driver's process; the env runners play anywhere in the Ray cluster. ``--timesteps`` counts
``main``'s decisions (module steps), as the SB3 backend counts the learner's. Every checkpoint
folder holds :data:`META_FILE`, what the policy plays and where the loop stood, so a run resumes
from its latest checkpoint.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

from training.rllib_config import build_config, learner_module_id
from training.rllib_modules import MAIN, snapshot_ids

META_FILE = "card_envs.json"  # written into every checkpoint folder: what the policy plays


def start_ray(address: str | None, num_cpus: float | None, ship_code: bool) -> bool:
    """Connects to ``address`` or starts a local instance; returns whether this call started it."""
    import ray

    if ray.is_initialized():
        return False
    root = str(Path(__file__).resolve().parent.parent)
    env_vars = {"PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p),
                "PYTHONWARNINGS": "ignore::DeprecationWarning"}
    if address is None:
        ray.init(num_cpus=int(num_cpus or os.cpu_count() or 2), include_dashboard=False,
                 logging_level="ERROR", log_to_driver=False, runtime_env={"env_vars": env_vars})
    else:
        runtime_env: dict[str, Any] = {}
        if ship_code:  # the cluster's nodes get this checkout's packages (not needed if installed there)
            import agents
            import card_envs
            import training

            runtime_env["py_modules"] = [card_envs, agents, training]
        try:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False, runtime_env=runtime_env or None)
        except ConnectionError as e:
            raise ValueError(
                f"cannot join a Ray cluster at {address!r} ({e}); start one with `ray start --head` on the head "
                "node (`ray start --address HEAD_IP:6379` on the others), or leave out --address for a local instance"
            ) from None
    return True


def main_steps(algo, module_id: str = MAIN) -> int:
    """``main``'s decisions sampled so far (the learner steps ``--timesteps`` counts)."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED_LIFETIME

    v = algo.metrics.peek((ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED_LIFETIME, module_id), default=0)
    return int(v)


def main_agent(algo, cfg: dict):
    """The current ``main`` as an Agent (a CPU copy, for the evaluation games)."""
    from agents.rllib_agent import RLlibAgent

    mid = learner_module_id(cfg)
    calls = algo.learner_group.foreach_learner(lambda learner: learner.module[mid])  # the trained weights
    module = next(iter(calls)).get()
    return RLlibAgent(copy.deepcopy(module).cpu(), {"env_name": cfg["env_name"], "env_config": cfg["env_config"]})


def send_snapshot(algo, cfg: dict, name: str) -> int:
    """The batched engine's frozen self: the current ``main``'s actor, in numpy, added to the
    opponent pool of every env runner's games (the last ``pool_size`` are drawn from); returns
    the number of env runners that took it."""
    from training.rllib_batched import snapshot_policy

    policy = snapshot_policy(main_agent(algo, cfg).module)

    def add(runner) -> bool:
        env = getattr(runner, "env", None)
        if env is None:  # the local env runner of a run with remote ones has no env
            return False
        env.unwrapped.add_snapshot(name, policy)
        return True

    return sum(bool(r) for r in algo.env_runner_group.foreach_env_runner(add, local_env_runner=True))


def take_snapshot(algo, slot: str) -> None:
    """Freeze the current ``main`` into a snapshot slot, in the learner and every EnvRunner."""
    weights = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    algo.learner_group.set_weights({slot: weights})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, policies=[slot],
                                       inference_only=True, timeout_seconds=60.0)


def checkpoint_meta(cfg: dict, steps: int, train_seconds: float, iteration: int, snapshots: dict) -> dict:
    return {
        "env_name": cfg["env_name"], "env_config": cfg["env_config"], "module_id": learner_module_id(cfg),
        "engine": cfg["rllib"].get("engine", "aec"),
        "num_timesteps": int(steps), "train_seconds": round(train_seconds, 1), "iteration": int(iteration),
        "seed": cfg["seed"], "opponents": cfg["opponents"], "snapshots": snapshots,
        "trained_by": "python -m training.train --backend rllib",
    }


def save_checkpoint(algo, path: Path, meta: dict) -> Path:
    path = Path(path).resolve()
    if path.exists():
        shutil.rmtree(path)
    algo.save_to_path(str(path))
    (path / META_FILE).write_text(json.dumps(meta, indent=2, default=str))
    return path


def latest_checkpoint(run_dir: Path) -> Path:
    ckpts = sorted(p for p in (Path(run_dir) / "checkpoints").glob("step_*") if (p / META_FILE).is_file())
    if not ckpts:
        raise FileNotFoundError(f"{run_dir} has no checkpoints/step_*/ to resume from")
    return ckpts[-1]


def resume_loop(algo, cfg: dict, run_dir: Path, snaps: list[str], resumed: bool) -> tuple[dict, float, int]:
    """The loop's bookkeeping, the training seconds before this invocation and the learner steps
    so far: read back from the latest checkpoint (restored into ``algo``) of a resumed run; for a
    new run every snapshot slot starts as the untrained ``main`` (so "self" has an opponent at once).
    On the batched engine the frozen selves live in the env runners' games, not in the
    checkpoint: a new or resumed run starts them from the current ``main``."""
    state = {"last_eval": 0, "last_ckpt": 0, "last_snap": 0, "next_slot": 0, "snapshots": {}}
    batched = cfg["rllib"].get("engine", "aec") == "batched"
    if resumed:
        ckpt = latest_checkpoint(run_dir)
        meta = json.loads((ckpt / META_FILE).read_text())
        algo.restore_from_path(str(ckpt))
        state.update(meta.get("loop", {}))
        state["snapshots"] = dict(meta.get("snapshots") or {})
        if batched:
            send_snapshot(algo, cfg, "self_resumed")
        return state, float(meta.get("train_seconds", 0.0)), int(meta["num_timesteps"])
    if batched:
        send_snapshot(algo, cfg, "self_0")
        state["snapshots"] = {"self_0": 0}
        state["next_slot"] = 1
        return state, 0.0, 0
    for s in snaps:
        take_snapshot(algo, s)
    state["snapshots"] = {s: 0 for s in snaps}
    return state, 0.0, 0


def start_algorithm(cfg: dict, address: str | None, num_cpus: float | None, ship_code: bool):
    """Ray and the algorithm (its env runners started): ``(algo, whether this call started Ray,
    {"cpus": the cluster's CPUs, "nodes": its live nodes, "runner_nodes": each env runner's node})``.
    A run folder is made only for a run that starts: on a failure here Ray is shut down again."""
    import ray

    we_started = start_ray(address, num_cpus, ship_code)
    try:
        cluster = {"cpus": ray.cluster_resources().get("CPU", 1.0),
                   "nodes": sum(1 for n in ray.nodes() if n.get("Alive"))}
        algo = build_config(cfg, num_cpus=cluster["cpus"]).build_algo()
    except BaseException:
        if we_started:
            ray.shutdown()
        raise
    # where the env runners play: one node id per runner (with --address, spread over the cluster)
    cluster["runner_nodes"] = list(algo.env_runner_group.foreach_env_runner(
        lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False))
    return algo, we_started, cluster


class LearnerLoop:
    """Where a run stands between two of RLlib's iterations: the learner's steps (continued from a
    resumed run's checkpoint), the training clock, the frozen selves taken and when the last
    evaluation, checkpoint and snapshot were (``state``, saved in every checkpoint)."""

    def __init__(self, algo, cfg: dict, run_dir: Path, resumed: bool):
        from training.runs import Clock

        self.algo, self.cfg, self.run_dir = algo, cfg, run_dir
        self.snaps = snapshot_ids(cfg["selfplay"]["pool_size"])
        self.state, seconds_before, self.steps0 = resume_loop(algo, cfg, run_dir, self.snaps, resumed)
        self.batched = cfg["rllib"].get("engine", "aec") == "batched"
        self.module_id = learner_module_id(cfg)
        self.clock = Clock(seconds_before)
        self.steps = self.steps0
        self.offset = self.steps0 - main_steps(algo, self.module_id)  # RLlib's counters restart at 0 on a resume
        self.timers: dict[str, float] = {}

    def due(self, what: str, every: int) -> bool:
        """Whether ``every`` learner steps have passed since the last ``what`` (eval, ckpt, snap)."""
        return self.steps - self.state[f"last_{what}"] >= int(every)

    def advance(self, result: dict, writer) -> None:
        """After an iteration: the learner's steps, the env runners' timers, the TensorBoard
        scalars, and a new frozen self when one is due."""
        from training.rllib_metrics import runner_timers, scalars

        self.timers = runner_timers(result, self.timers)
        self.steps = self.offset + main_steps(self.algo, self.module_id)
        if writer is not None:
            for k, v in scalars(result, self.module_id).items():
                writer.add_scalar(k, v, self.steps)
        if self.due("snap", self.cfg["selfplay"]["snapshot_every"]):
            if self.batched:  # a new frozen self in every env runner's pool (the last pool_size drawn)
                slot = f"self_{self.state['next_slot']}"
                send_snapshot(self.algo, self.cfg, slot)
            else:
                slot = self.snaps[self.state["next_slot"] % len(self.snaps)]
                take_snapshot(self.algo, slot)
            self.state["snapshots"][slot] = self.steps
            self.state["next_slot"] += 1
            self.state["last_snap"] = self.steps

    def checkpoint(self, t: int, path: Path | None = None) -> Path:
        """A checkpoint at ``t`` learner steps: ``checkpoints/step_<t>`` (the last few kept), or
        ``path``."""
        from training.runs import prune_checkpoints

        meta = checkpoint_meta(self.cfg, t, self.clock.total(), self.algo.iteration, self.state["snapshots"])
        meta["loop"] = {k: self.state[k] for k in ("last_eval", "last_ckpt", "last_snap", "next_slot")}
        p = save_checkpoint(self.algo, path or self.run_dir / "checkpoints" / f"step_{t:010d}", meta)
        if path is None:
            self.state["last_ckpt"] = t
            prune_checkpoints(self.run_dir, self.cfg["checkpoint"]["keep"], lambda old: shutil.rmtree(old, True))
        return p
