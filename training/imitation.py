"""A warm start for PPO: the policy first imitates a teacher (the heuristic), then PPO trains on.

``imitation.teacher`` in a run's configuration (``training/configs/default.json``: null, off)
names an agent spec; before the first PPO rollout of a new run the harness

1. **plays** ``imitation.decisions`` learner decisions on the batched engine with the run's
   training table and opponent pool (:class:`training.batched.BatchedLearnerView`; the frozen
   selves, which do not exist yet, are left out), the teacher choosing every learner move from the
   learner's observation, as it would at a table (``BatchedLearnerView.teacher_actions``: the
   heuristic's moves computed as the heuristic opponents' are, by its compiled twin where the
   game has one, else split with the helper process);
2. **records** each decision's observation, mask, the teacher's action, and the return that
   followed it (the learner's own rewards, exactly as PPO will see them, discounted by
   ``ppo.gamma``);
3. **fits** the PPO policy to them, ``imitation.epochs`` passes of minibatches of
   ``imitation.batch_size``: the masked policy's cross-entropy to the teacher's action (behaviour
   cloning) plus ``ppo.vf_coef`` times the value head's squared error to the return, with the
   PPO optimizer at ``imitation.learning_rate``. With ``imitation.temperature`` the target is
   the teacher's action values instead (:func:`value_targets`: a heuristic whose game scores its
   calls, as Guilders' expected points do): calls of equal value share the target, where the
   choice alone would make the student learn the teacher's tie-break (in two-player Guilders
   28% of the heuristic's decisions have a tie for the best call);

so PPO starts from a policy that plays about as the teacher does and a value head that knows what
the teacher's positions are worth, instead of from uniform play. This is the "kickstarting" or
AlphaStar-style recipe (supervised first, reinforcement after). Its seconds count against the
run's time budget (``--minutes``), and it takes at most :data:`TIME_SHARE` of it to play its games
(fewer decisions, if the budget is short); with a budget in steps (``--timesteps``) it plays at
most that many decisions. Its decisions are not PPO's timesteps. The first evaluation
of the curve (timestep 0, ``eval.csv``) is the imitation's policy, so the curve shows what PPO
adds to it.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np


#: the share of a run's time budget (``minutes``) the warm start may take to play its teacher's games
TIME_SHARE = 0.4


def planned_decisions(cfg: dict) -> int:
    """The decisions the warm start plays: ``imitation.decisions``, at most the run's step total
    when the run is budgeted in steps (a warm start never outweighs the run it starts), unless
    ``imitation.capped`` is false (a run that is its imitation alone: expert iteration's first
    student)."""
    decisions = int(cfg["imitation"]["decisions"])
    if cfg["imitation"].get("capped", True) and cfg.get("minutes") is None and cfg.get("total_timesteps"):
        decisions = min(decisions, int(cfg["total_timesteps"]))
    return max(1, decisions)


def teacher_games(cfg: dict, pool: list[str], decisions: int, seed: int, progress: bool = True,
                  seconds: float | None = None) -> dict[str, np.ndarray]:
    """``decisions`` learner decisions of the teacher on the run's training table (every game
    that began was played to its end, so the count is at least ``decisions``; with ``seconds``, no
    game begins after that many seconds, so there may be fewer): ``obs`` (M, D)
    float32, ``masks`` (M, A) bool, ``actions`` (M,) int64, ``returns`` (M,) float32 (the
    discounted sum of the learner's own rewards from that decision on), ``starts`` (M,) bool
    (the game's first decision; a game's decisions are consecutive), ``seats`` (M,) int64 (the
    learner's seat). The bookkeeping is in whole arrays, a step of every game at a time."""
    from training.batched import SELF, BatchedLearnerView
    from training.config import train_env_config
    from training.opponents import MIXED

    spec = cfg["imitation"]["teacher"]
    weights = cfg.get("opponent_weights")
    pairs = list(zip(pool, weights if weights is not None and len(weights) == len(pool) else [1.0] * len(pool)))
    pairs = [(o, w) for o, w in pairs if o != SELF] or [("random", 1.0)]
    view = BatchedLearnerView(cfg["env_name"], train_env_config(cfg), int(cfg["n_envs"]), [o for o, _ in pairs],
                              opponent_weights=[w for _, w in pairs], seed=seed,
                              agent_workers=max(0, int(cfg.get("workers") or 1) - 1),
                              opponent_seating=cfg.get("opponent_seating", MIXED))
    teacher = view.add_teacher(spec)
    n = view.num_envs
    game = np.arange(n)  # each row's game, numbered in the order games began
    recording = np.ones(n, dtype=bool)  # the row's game is recorded (every game that began while more were needed)
    length = np.zeros(n, dtype=np.int64)  # decisions recorded of each row's game
    games, obs_parts, mask_parts, act_parts, seat_parts, reward_parts = [], [], [], [], [], []
    recorded = 0
    deadline = None if seconds is None else time.monotonic() + seconds
    bar = _bar(progress, decisions, f"{cfg['env_name']} imitation: {spec}'s games")
    try:
        obs = view.reset(seed=seed)
        while recording.any():
            masks = view.action_masks()
            actions = view.teacher_actions(teacher)
            rows = np.flatnonzero(recording)
            games.append(game[rows])
            obs_parts.append(obs[rows].copy())
            mask_parts.append(np.asarray(masks[rows], dtype=bool))
            act_parts.append(np.asarray(actions[rows], dtype=np.int64))
            seat_parts.append(np.asarray(view._seat[rows], dtype=np.int64))
            obs, rewards, dones, _ = view.step(actions)
            reward_parts.append(np.asarray(rewards[rows], dtype=np.float32))
            length[rows] += 1
            ended = np.flatnonzero(dones)
            if len(ended):
                done = ended[recording[ended]]
                finished = int(length[done].sum())
                recorded += finished
                if bar is not None:
                    bar.update(min(finished, max(0, decisions - bar.n)))
                length[ended] = 0
                game[ended] = game.max() + 1 + np.arange(len(ended))
                # a new game is recorded only if more are needed, and there is time for it
                recording[ended] = recorded < decisions and (deadline is None or time.monotonic() < deadline)
    finally:
        view.close()
        if bar is not None:
            bar.close()
    return in_game_order(games, {"obs": obs_parts, "masks": mask_parts, "actions": act_parts, "seats": seat_parts},
                         reward_parts, float(cfg["ppo"]["gamma"]))


def in_game_order(games: list[np.ndarray], parts: dict[str, list[np.ndarray]], rewards: list[np.ndarray],
                  gamma: float) -> dict[str, np.ndarray]:
    """Decisions recorded a step of every recording game at a time (``games``: each step's game
    numbers), regrouped so that each game's decisions stand together, in order: every part
    concatenated in that order, with ``starts`` (a game's first decision) and ``returns`` (the
    learner's rewards from each decision on, discounted by ``gamma``)."""
    order = np.argsort(np.concatenate(games), kind="stable")
    ids = np.concatenate(games)[order]
    starts = np.ones(len(ids), dtype=bool)
    starts[1:] = ids[1:] != ids[:-1]
    out = {name: np.concatenate(part)[order] for name, part in parts.items()}
    out["returns"] = _discounted_returns(np.concatenate(rewards)[order], starts, gamma)
    out["starts"] = starts
    return out


def _discounted_returns(rewards: np.ndarray, starts: np.ndarray, gamma: float) -> np.ndarray:
    """Each decision's discounted sum of its game's rewards from it on (games laid end to end,
    ``starts`` marking each game's first decision)."""
    out = np.empty(len(rewards), dtype=np.float32)
    ret = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        ret = float(rewards[i]) + gamma * ret
        out[i] = ret
        if starts[i]:
            ret = 0.0
    return out


#: minibatches of the fit between two readings of the machine's load (its threads follow it)
THREADS_EVERY = 16


def fit(policy: Any, data: dict[str, np.ndarray], epochs: int, batch_size: int, learning_rate: float,
        vf_coef: float, seed: int, progress: bool = True, threads: Any = None) -> list[dict[str, float]]:
    """Behaviour cloning and value regression of a MaskablePPO policy on ``data``
    (:func:`teacher_games`); returns per epoch the mean losses and how often the policy's most
    likely action is the teacher's (``agreement``). Where ``data`` holds ``targets`` (a
    distribution over the actions per decision: a search teacher's values, ``training/distill.py``)
    the policy is fitted to those (cross-entropy with the distribution) instead of to ``actions``,
    which still measure the agreement. With ``threads`` (a
    :class:`training.threads.AdaptiveThreads`), torch's threads follow the machine's load as the
    PPO update's do: every :data:`THREADS_EVERY` minibatches take the cores other processes left
    free during the ones before (two fits side by side on two cores otherwise each run two threads
    that wait for each other)."""
    import torch
    import torch.nn.functional as F

    obs = torch.as_tensor(data["obs"])
    masks = torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"])
    targets = torch.as_tensor(data["targets"], dtype=torch.float32) if "targets" in data else None
    m = len(actions)
    opt = policy.optimizer
    for group in opt.param_groups:
        group["lr"] = float(learning_rate)
    gen = torch.Generator().manual_seed(int(seed))
    history = []
    policy.set_training_mode(True)
    for epoch in range(int(epochs)):
        order = torch.randperm(m, generator=gen)
        sums = np.zeros(3)
        for k, lo in enumerate(range(0, m, int(batch_size))):
            if threads is not None and k % THREADS_EVERY == 0:
                threads.end()
                torch.set_num_threads(threads.begin())
            idx = order[lo: lo + int(batch_size)]
            if targets is None:
                values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
                bc = -log_prob.mean()
            else:  # the masked log-probabilities (illegal actions far below, where every target is 0)
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx].numpy())
                values = policy.predict_values(obs[idx])
                bc = -(targets[idx] * dist.distribution.logits).sum(dim=1).mean()
            vf = F.mse_loss(values.flatten(), returns[idx])
            loss = bc + vf_coef * vf
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            sums += np.array([bc.item(), vf.item(), 1.0]) * len(idx)
        if threads is not None:
            threads.end()
        with torch.no_grad():
            probe = order[: min(m, 20000)]
            dist = policy.get_distribution(obs[probe], action_masks=masks[probe].numpy())
            agree = float((dist.distribution.probs.argmax(dim=1) == actions[probe]).float().mean())
        row = {"epoch": epoch + 1, "bc_loss": sums[0] / m, "value_loss": sums[1] / m, "agreement": agree}
        history.append(row)
        if progress:
            print(f"imitation epoch {epoch + 1}/{epochs}: cross-entropy {row['bc_loss']:.3f}, value loss "
                  f"{row['value_loss']:.4f}, agrees with the teacher on {agree:.1%} of its decisions", file=sys.stderr)
    policy.set_training_mode(False)
    return history


def soft_targets(actions: np.ndarray, masks: np.ndarray, values: np.ndarray, weight: float,
                 temperature: float) -> np.ndarray:
    """``(N, num_actions)`` each decision's target distribution: ``1 - weight`` on the teacher's
    choice (``actions``), ``weight`` as the softmax of ``values / temperature`` over the legal
    actions the teacher scored (finite values: a search's, a heuristic's). A decision with fewer
    than two scored actions (a forced move, a teacher that reports no values) keeps its whole
    weight on the choice."""
    n, k = masks.shape
    out = np.zeros((n, k), dtype=np.float32)
    out[np.arange(n), actions] = 1.0
    scored = np.isfinite(values) & masks.astype(bool)
    rows = scored.sum(axis=1) >= 2
    if weight > 0 and rows.any():
        v = np.where(scored[rows], values[rows] / temperature, -np.inf)
        e = np.exp(v - v.max(axis=1, keepdims=True))
        out[rows] = (1.0 - weight) * out[rows] + weight * e / e.sum(axis=1, keepdims=True)
    return out


def value_teacher(cfg: dict) -> Any:
    """The module whose ``action_values(view, rules)`` scores the teacher's actions, for
    ``imitation.temperature``: the teacher is the heuristic, and its game's module
    (``agents/heuristics/<game>.py``) must define it; anything else is refused before a game
    is played."""
    from agents.heuristic import HeuristicAgent

    spec, env_name = cfg["imitation"]["teacher"], cfg["env_name"]
    module = HeuristicAgent().policy(env_name) if spec == "heuristic" else None
    if module is None or not hasattr(module, "action_values"):
        raise ValueError(f"imitation.temperature fits a teacher's action values: only the heuristic has them, and only "
                         f"in a game whose heuristic defines action_values(view, rules); {spec!r} in {env_name} does "
                         "not (set imitation.temperature to null to fit its choices)")
    return module


def value_targets(cfg: dict, data: dict[str, np.ndarray], teacher: Any, progress: bool = False) -> np.ndarray:
    """``(M, num_actions)`` the target of each recorded decision: the softmax over its legal
    actions of ``teacher.action_values`` (:func:`value_teacher`) divided by
    ``imitation.temperature``, each observation decoded into the learner's view as the
    heuristic agent itself decodes it."""
    import card_envs
    from training.config import train_env_config

    env = card_envs.ENVIRONMENTS[cfg["env_name"]].raw_env(**train_env_config(cfg))
    obs = data["obs"]
    values = np.empty(data["masks"].shape, dtype=np.float64)
    bar = _bar(progress, len(obs), f"{cfg['env_name']} imitation: the teacher's action values")
    try:
        for i, x in enumerate(obs):
            values[i] = teacher.action_values(env.decode(x), env.rules)
            if bar is not None and (i + 1) % 10000 == 0:
                bar.update(10000)
        if bar is not None:
            bar.update(len(obs) - bar.n)
    finally:
        if bar is not None:
            bar.close()
    return soft_targets(data["actions"], data["masks"], values, weight=1.0,
                        temperature=float(cfg["imitation"]["temperature"]))


def warm_start(model: Any, cfg: dict, pool: list[str], progress: bool = True) -> dict[str, Any]:
    """The whole warm start on a new MaskablePPO ``model`` (see the module docstring); returns
    what it did (``decisions``, ``seconds``, ``epochs``: :func:`fit`'s history), and restores the
    PPO learning rate after it."""
    section = cfg["imitation"]
    valued = value_teacher(cfg) if section.get("temperature") is not None else None
    began = time.monotonic()
    minutes = cfg.get("minutes")
    data = teacher_games(cfg, pool, planned_decisions(cfg), seed=int(cfg["seed"]) + 7, progress=progress,
                         seconds=None if minutes is None else float(minutes) * 60 * TIME_SHARE)
    if valued is not None:
        data["targets"] = value_targets(cfg, data, valued, progress=progress)
    played = time.monotonic() - began
    import torch

    from training.config import adaptive_threads, torch_threads
    from training.threads import AdaptiveThreads

    cores = torch_threads(cfg)
    history = fit(model.policy, data, int(section["epochs"]), int(section["batch_size"]),
                  float(section["learning_rate"]), float(cfg["ppo"]["vf_coef"]), seed=int(cfg["seed"]),
                  progress=progress, threads=AdaptiveThreads(cores) if adaptive_threads(cfg) else None)
    torch.set_num_threads(cores)  # PPO's update sets its own from here
    for group in model.policy.optimizer.param_groups:  # PPO's own rate (its schedule takes over at its first update)
        group["lr"] = float(model.lr_schedule(1.0))
    return {"teacher": section["teacher"], "decisions": int(len(data["actions"])),
            "play_seconds": round(played, 3), "seconds": round(time.monotonic() - began, 3), "epochs": history}


def _bar(progress: bool, total: int, desc: str):
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit="decision", dynamic_ncols=True)
    except ImportError:
        return None
