"""What a ``--backend rllib`` run reports while it trains: TensorBoard scalars of each iteration,
and the env runners' timers (the environment's share of sampling, the update's ceiling)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from training.rllib_modules import MAIN


def tb_writer(folder: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except Exception:  # noqa: BLE001 - tensorboard missing: fall back to tensorboardX (an RLlib dependency)
        try:
            from tensorboardX import SummaryWriter
        except Exception:  # noqa: BLE001
            return None
    return SummaryWriter(str(folder))


def scalars(result: dict, mid: str = MAIN) -> dict[str, float]:
    out = {}

    def get(*keys):
        d = result
        for k in keys:
            if not isinstance(d, dict) or k not in d:
                return None
            d = d[k]
        return d

    for name, keys in {
        "rollout/main_return_mean": ("env_runners", "module_episode_returns_mean", mid),
        "rollout/episode_len_mean": ("env_runners", "episode_len_mean"),
        "train/policy_loss": ("learners", mid, "policy_loss"),
        "train/vf_loss": ("learners", mid, "vf_loss"),
        "train/entropy": ("learners", mid, "entropy"),
        "train/mean_kl": ("learners", mid, "mean_kl_loss"),
    }.items():
        v = get(*keys)
        if isinstance(v, (int, float, np.floating)) and math.isfinite(float(v)):
            out[name] = float(v)
    return out


def runner_timers(result: dict, previous: dict[str, float]) -> dict[str, float]:
    """The env runners' mean seconds per call of the last iteration: ``env_step`` (the
    environment: games and opponents), ``inference`` (the module's forward) and ``sample`` (a
    whole sample call), and ``env_share``, the environment's share of a sampling step (its step's
    time over the step's plus the module's forward); the iteration's ``sampling_s`` and
    ``update_s`` (RLlib's smoothed timers) and ``update_ceiling_steps_per_s``, the steps of an
    iteration over its update's time: what the learner could take if sampling cost nothing."""
    runners = result.get("env_runners") or {}
    step, infer, sample = (runners.get(k) for k in ("env_step_timer", "rlmodule_inference_timer", "sample"))
    if not all(isinstance(v, (int, float)) and v > 0 for v in (step, infer)):
        return previous
    out = {"env_step_s": float(step), "inference_s": float(infer)}
    out["env_share"] = round(float(step) / (float(step) + float(infer)), 4)
    if isinstance(sample, (int, float)):
        out["sample_s"] = float(sample)
    # the iteration's two halves (RLlib's PPO samples, then updates): the update's rate is the
    # ceiling of what more env runners can give
    algo_timers = result.get("timers") or {}
    sampling, update = (algo_timers.get(k) for k in ("env_runner_sampling_timer", "learner_update_timer"))
    sampled = runners.get("num_env_steps_sampled")
    if all(isinstance(v, (int, float, np.number)) and v > 0 for v in (sampling, update, sampled)):
        out.update(sampling_s=float(sampling), update_s=float(update),
                   update_ceiling_steps_per_s=round(float(sampled) / float(update), 1))
    return out
