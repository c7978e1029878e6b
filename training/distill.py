"""Expert iteration: a policy distilled from a search teacher, then sharpened by PPO, in rounds.

    python -m training.distill guilders --iterations 3 --labels 6000 --ppo-minutes 8
    python -m training.distill guillotine --teacher "pimc:worlds=32" --start ppo
    python -m training.distill guillotine --value-weight 0.5 --teacher "pimc:worlds=64"
    python -m training.distill golf --teacher "pimc:worlds=16,rollout=ppo,prior=ppo,z=1" --start ppo --ppo-minutes 0
    python -m training.distill guilders --resume runs/guilders_v0/distill-20261206-101500

Each iteration, on the game's benchmark table (``BENCHMARK_CONFIG``):

1. **Visit.** The current policy plays (sampling from its masked softmax) in the learner's seat of
   ``--games`` games at a time against the league (the heuristic, random play and the policy's
   own past iterations), on the batched engine (:class:`training.batched.BatchedLearnerView`).
2. **Label.** At each of the policy's decisions the teacher (``--teacher``, a search agent spec:
   ``pimc`` by default, the game's default setting) chooses from the same observation, the moves
   computed in helper processes (``--workers``): ``--labels`` labelled decisions. The labels are
   the teacher's choices in the states the *student* reaches (as DAgger gathers them), not only in
   the teacher's own games.
3. **Distill.** The policy is fitted to the teacher's choices (cross-entropy) and its value head
   to the returns that followed, as the imitation warm start fits (``training/imitation.py``),
   over every label gathered so far. With ``--value-weight W`` (above 0) the target of each
   decision is a distribution instead: ``1 - W`` on the teacher's choice and ``W`` spread over
   the actions its search scored, as the softmax of their mean returns divided by
   ``--value-temperature`` (:func:`training.imitation.soft_targets`): where the search found two
   moves nearly equal, the student is not told that one of them is wrong.
4. **Sharpen.** PPO trains on from the distilled policy (``init_policy``, its value head fitted to
   its own games first) against the league for ``--ppo-minutes``, with the training harness.
5. **Measure.** The new policy against the heuristic and the teacher over ``--deals`` duplicate
   deals, and the distilled policy (before PPO) against the heuristic, so the curve says which
   step moved it; one row of ``iterations.csv`` (the curve): the labels, the agreement with the
   teacher before the fit, after it and after PPO, the rewards, the labelling throughput and the
   time each part took.

The run folder holds each iteration's policy (``iteration_<k>.zip``), the labels
(``labels.npz``), ``iterations.csv`` and ``state.json``; ``--resume RUN`` continues after the last
finished iteration. The final policy is ``final.zip``, an agent as ``ppo:RUN`` (and shippable with
``python -m agents.ppo publish``).
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from training.imitation import soft_targets

LEAGUE = ["heuristic", "random", "self"]
LEAGUE_WEIGHTS = [4, 1, 2]
FIELDS = ["iteration", "labels", "labels_total", "label_seconds", "labels_per_second", "agreement_before",
          "agreement_after", "fit_seconds", "distilled_vs_heuristic", "distilled_vs_heuristic_low",
          "distilled_vs_heuristic_high", "ppo_minutes", "ppo_timesteps", "agreement_sharpened", "vs_heuristic",
          "vs_heuristic_low", "vs_heuristic_high", "vs_teacher", "vs_teacher_low", "vs_teacher_high", "seconds"]


def visit_and_label(env_name: str, table: dict, policy: Any, teacher: str, labels: int, games: int,
                    opponents: list[Any], weights: list[float], seed: int, workers: int,
                    progress: bool = True, values: bool = False) -> dict[str, np.ndarray]:
    """``labels`` decisions of ``policy`` (sampled) in the learner's seat, each labelled by the
    teacher's choice: ``obs``, ``masks``, ``actions`` (the teacher's), ``played`` (the policy's),
    ``returns`` (the policy's discounted return from there, gamma 0.99) and ``starts``; with
    ``values``, also ``values``: the mean return the teacher's search found for each action (NaN
    where it scored none)."""
    from training.batched import BatchedLearnerView
    from training.imitation import _bar, in_game_order

    view = BatchedLearnerView(env_name, table, games, opponents, opponent_weights=weights, seed=seed,
                              agent_workers=max(0, workers - 1))
    tid = view.add_teacher(_teacher_around(teacher, policy, env_name, table, seed), shared=True)
    rng = np.random.default_rng(seed)
    n = view.num_envs
    game = np.arange(n)
    parts: dict[str, list] = {k: [] for k in ("game", "obs", "masks", "actions", "played", "rewards")
                              + (("values",) if values else ())}
    recording = np.ones(n, dtype=bool)
    gathered = 0
    bar = _bar(progress, labels, f"{env_name}: {teacher}'s labels")
    try:
        obs = view.reset(seed=seed)
        while recording.any():
            masks = view.action_masks()
            rows = np.flatnonzero(recording)
            if values:  # the teacher is asked for the recorded games' moves only
                taught, found = view.teacher_actions(tid, values=True, rows=rows)
                parts["values"].append(found[rows])
            else:
                taught = view.teacher_actions(tid, rows=rows)
            played = policy.choose_batch(obs, masks, False, rng).astype(np.int64)
            parts["game"].append(game[rows])
            parts["obs"].append(obs[rows].copy())
            parts["masks"].append(masks[rows].copy())
            parts["actions"].append(taught[rows])
            parts["played"].append(played[rows])
            obs, rewards, dones, _ = view.step(played)
            parts["rewards"].append(np.asarray(rewards[rows], dtype=np.float32))
            gathered += len(rows)
            if bar is not None:
                bar.update(min(len(rows), max(0, labels - bar.n)))
            ended = np.flatnonzero(dones)
            if len(ended):
                game[ended] = game.max() + 1 + np.arange(len(ended))
                recording[ended] = gathered < labels
    finally:
        view.close()
        if bar is not None:
            bar.close()
    games, rewards = parts.pop("game"), parts.pop("rewards")
    return in_game_order(games, parts, rewards, 0.99)


def _teacher_around(teacher: str, policy: Any, env_name: str, table: dict, seed: int) -> Any:
    """The teacher as :meth:`BatchedLearnerView.add_teacher` takes it: its spec, or, for a search
    around a learned policy (``pimc:rollout=ppo`` or ``prior=ppo``), the agent itself searching
    around the current student rather than the shipped policy (computed in this process: a helper
    would build it from the spec, around the shipped one)."""
    import agents
    from agents.ppo import PPOAgent
    from agents.search import PIMCAgent

    agent = agents.load(teacher, seed=seed)
    if not isinstance(agent, PIMCAgent):
        return teacher
    options = agent.options_for(env_name)
    if "ppo" not in (options["rollout"], options["prior"]):
        return teacher
    agent.policy_agent = PPOAgent.from_policy(policy, {"env_name": env_name, "env_config": table})
    return agent


def _merge(old: dict | None, new: dict) -> dict:
    if old is None:
        return new
    return {k: np.concatenate([old[k], new[k]]) for k in new}


def distill(game: str, teacher: str = "pimc", iterations: int = 3, labels: int = 6000, ppo_minutes: float = 8.0,
            start: str = "heuristic", games: int = 64, deals: int = 300, out: str | Path = "runs",
            name: str | None = None, resume: str | Path | None = None, seed: int = 0, workers: int | None = None,
            progress: bool = True, value_weight: float = 0.0, value_temperature: float = 0.1) -> Path:
    """Expert iteration (see the module docstring); returns the run folder."""
    import card_envs
    from agents.ppo import PPOAgent, load_policy, write_policy_file
    from agents.search import KINDS as SEARCH_KINDS
    from card_envs.cli import game_name
    from training.benchmark import TABLES
    from training.evaluate import evaluate_against
    from training.exploit import check_target
    from training.sb3_backend import train

    workers = min(2, os.cpu_count() or 1) if workers is None else int(workers)
    if resume is not None:
        run = Path(resume)
        state = json.loads((run / "state.json").read_text())
        env_name, teacher, table = state["env_name"], state["teacher"], state["table"]
        iterations, labels, ppo_minutes, games, deals, seed = (state[k] for k in (
            "iterations", "labels", "ppo_minutes", "games", "deals", "seed"))
        value_weight, value_temperature = state.get("value_weight", 0.0), state.get("value_temperature", 0.1)
    else:
        env_name = game_name(game)
        table = dict(TABLES[env_name])
        for value, what in ((iterations, "iterations"), (labels, "labels"), (games, "games"), (deals, "deals")):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{what} must be a whole number >= 1, got {value!r}")
        if not ppo_minutes >= 0:
            raise ValueError(f"ppo_minutes must be >= 0, got {ppo_minutes!r}")
        if not 0 <= value_weight <= 1:
            raise ValueError(f"value_weight must be between 0 and 1 (0: the teacher's choices only), got {value_weight!r}")
        if not value_temperature > 0:
            raise ValueError(f"value_temperature must be > 0, got {value_temperature!r}")
        if value_weight > 0 and teacher.split(":")[0] not in SEARCH_KINDS:
            raise ValueError(f"value_weight needs a search teacher ({' or '.join(SEARCH_KINDS)}: their moves come with "
                             f"action values), got {teacher!r}")
        check_target(teacher, env_name, table)  # the teacher must play the table, before any work
        run = Path(out) / env_name / (name or f"distill-{time.strftime('%Y%m%d-%H%M%S')}")
        run.mkdir(parents=True, exist_ok=False)
        state = {"env_name": env_name, "teacher": teacher, "table": table, "iterations": iterations,
                 "labels": labels, "ppo_minutes": ppo_minutes, "games": games, "deals": deals, "seed": seed,
                 "start": start, "done": 0, "policy": None, "value_weight": value_weight,
                 "value_temperature": value_temperature,
                 "command": "python -m training.distill " + " ".join(sys.argv[1:])}
        state["policy"] = str(_starting_policy(env_name, table, start, run, seed, progress))
        (run / "state.json").write_text(json.dumps(state, indent=1) + "\n")
    data = dict(np.load(run / "labels.npz")) if (run / "labels.npz").exists() else None
    seats = len(card_envs.ENVIRONMENTS[env_name].raw_env(**table).possible_agents)
    policy, meta = load_policy(state["policy"])
    for k in range(state["done"] + 1, iterations + 1):
        began = time.monotonic()
        league = [LEAGUE[0], LEAGUE[1]] + [PPOAgent.from_policy(load_policy(p)[0], {"env_name": env_name,
                                                                                    "env_config": table},
                                                               name=f"iteration_{i}")
                                           for i, p in enumerate(state.get("past", []))][-3:]
        weights = LEAGUE_WEIGHTS[:2] + [LEAGUE_WEIGHTS[2]] * (len(league) - 2)
        new = visit_and_label(env_name, table, policy, teacher, labels, games, league, weights,
                              seed=seed + 1000 * k, workers=workers, progress=progress, values=value_weight > 0)
        label_s = time.monotonic() - began
        data = _merge(data, new)
        np.savez_compressed(run / "labels.npz", **data)
        agreement_before = float((policy.choose_batch(new["obs"], new["masks"]) == new["actions"]).mean())
        fitted = time.monotonic()
        if value_weight > 0:
            data["targets"] = soft_targets(data["actions"], data["masks"], data["values"], value_weight,
                                           value_temperature)
        distilled, history = _distil(policy, data, env_name, table, run / f"distilled_{k}.zip",
                                     f"iteration {k}: {teacher}'s labels distilled", seed + k, progress)
        fit_s = time.monotonic() - fitted
        sizes = [w.shape[1] for w, _ in policy.layers]
        # sharpen: PPO from the distilled policy against the league
        steps = 0
        current = distilled
        if ppo_minutes > 0:
            ppo_run = train(env_name, minutes=ppo_minutes, config={
                "env_config": table, "init_policy": str(distilled),
                "imitation": {"teacher": f"ppo:{distilled}", "decisions": 20000, "epochs": 2},
                "opponents": ["heuristic", "random", "self"], "opponent_weights": LEAGUE_WEIGHTS,
                "ppo": {"policy_kwargs": {"net_arch": sizes, "activation_fn": policy.activation.lower()}},
                "eval": {"every": 10**12, "games": 1, "final_games": 0}},
                out=run / "ppo", name=f"iteration_{k}", seed=seed + k, progress=progress, final_eval=False,
                verbose=progress)
            current = Path(ppo_run) / "final.zip"
            steps = json.loads((Path(ppo_run) / "final_eval.json").read_text())["num_timesteps"]
        policy, meta = load_policy(current)
        kept = write_policy_file(run / f"iteration_{k}.zip", policy, {
            "env_name": env_name, "env_config": table,
            "note": f"expert iteration {k} of {teacher} ({state['command']})"})
        agent = f"ppo:{kept}"
        agreement_sharpened = float((policy.choose_batch(new["obs"], new["masks"]) == new["actions"]).mean())
        vs_d = evaluate_against(env_name, table, f"ppo:{distilled}", "heuristic", deals * seats, seed=91_000 + k,
                                workers=workers)
        vs_h = evaluate_against(env_name, table, agent, "heuristic", deals * seats, seed=91_000 + k, workers=workers)
        vs_t = evaluate_against(env_name, table, agent, teacher, deals * seats, seed=92_000 + k, workers=workers)
        row = {"iteration": k, "labels": len(new["actions"]), "labels_total": len(data["actions"]),
               "label_seconds": round(label_s, 1), "labels_per_second": round(len(new["actions"]) / label_s, 2),
               "agreement_before": round(agreement_before, 4), "agreement_after": round(history[-1]["agreement"], 4),
               "fit_seconds": round(fit_s, 1), "distilled_vs_heuristic": vs_d["mean_reward"],
               "distilled_vs_heuristic_low": vs_d["reward_low"], "distilled_vs_heuristic_high": vs_d["reward_high"],
               "ppo_minutes": ppo_minutes, "ppo_timesteps": int(steps),
               "agreement_sharpened": round(agreement_sharpened, 4),
               "vs_heuristic": vs_h["mean_reward"], "vs_heuristic_low": vs_h["reward_low"],
               "vs_heuristic_high": vs_h["reward_high"], "vs_teacher": vs_t["mean_reward"],
               "vs_teacher_low": vs_t["reward_low"], "vs_teacher_high": vs_t["reward_high"],
               "seconds": round(time.monotonic() - began, 1)}
        _append(run / "iterations.csv", row)
        if progress:
            print(f"{env_name} iteration {k}: {row['labels']} labels at {row['labels_per_second']}/s, agreement "
                  f"{row['agreement_before']:.1%} -> {row['agreement_after']:.1%} (distilled: against the heuristic "
                  f"{row['distilled_vs_heuristic']:+.3f}), {steps:,} PPO steps ({row['agreement_sharpened']:.1%}); "
                  f"against the heuristic {row['vs_heuristic']:+.3f}, against {teacher} {row['vs_teacher']:+.3f}",
                  flush=True)
        state["past"] = state.get("past", []) + [str(kept)]
        state.update(done=k, policy=str(kept))
        (run / "state.json").write_text(json.dumps(state, indent=1) + "\n")
    write_policy_file(run / "final.zip", policy, {**meta, "env_name": env_name, "env_config": table,
                                                  "note": f"expert iteration of {teacher}, {iterations} iterations"})
    return run


def _distil(policy: Any, data: dict, env_name: str, table: dict, path: Path, note: str, seed: int,
            progress: bool) -> tuple[Path, list[dict]]:
    """``policy``'s actor in a fresh network of its shape, fitted to every label in ``data``
    (``targets`` where given, else the teacher's ``actions``); written to ``path``. Returns the
    path and the fit's history."""
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    from agents.ppo import MaskedPolicy, copy_actor, write_policy_file
    from training.imitation import fit
    from training.single_agent import SingleAgentEnv

    sizes = [w.shape[1] for w, _ in policy.layers]
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(env_name, table), n_steps=64, device="cpu", seed=seed,
                        policy_kwargs={"net_arch": sizes, "activation_fn": getattr(nn, policy.activation)})
    copy_actor(policy, model.policy)
    history = fit(model.policy, data, epochs=4, batch_size=512, learning_rate=5e-4, vf_coef=0.5, seed=seed,
                  progress=progress)
    return write_policy_file(path, MaskedPolicy.from_sb3(model.policy),
                             {"env_name": env_name, "env_config": table, "note": note}), history


def _starting_policy(env_name: str, table: dict, start: str, run: Path, seed: int, progress: bool) -> Path:
    """The first student: ``ppo`` (the shipped policy, copied), ``ppo:PATH``, or ``heuristic``
    (a short imitation of the heuristic: a policy that plays about as it does)."""
    from agents.ppo import PRETRAINED_DIR, load_policy, resolve_policy_file, write_policy_file

    if start == "ppo":
        source = PRETRAINED_DIR / f"{env_name}.zip"
    elif start.startswith("ppo:"):
        source = resolve_policy_file(start[4:])
    elif start == "heuristic":
        from training.sb3_backend import train

        imitated = train(env_name, timesteps=1, config={
            "env_config": table, "imitation": {"teacher": "heuristic", "decisions": 100000, "epochs": 4, "capped": False},
            "eval": {"every": 10**12, "games": 1, "final_games": 0}},
            out=run / "ppo", name="start", seed=seed, progress=progress, final_eval=False, verbose=progress)
        source = Path(imitated) / "final.zip"
    else:
        raise ValueError(f"start must be heuristic, ppo or ppo:PATH, got {start!r}")
    policy, meta = load_policy(source)
    return write_policy_file(run / "iteration_0.zip", policy, {"env_name": env_name, "env_config": table,
                                                                 "note": f"the starting student ({start})"})


def _append(path: Path, row: dict) -> None:
    """One row of the curve; a curve begun with fewer columns (an older run, resumed) keeps its own."""
    new = not path.exists()
    fields = FIELDS
    if not new:
        with path.open(newline="") as f:
            fields = next(csv.reader(f), None) or FIELDS
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerow(row)


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli

    ap = cli.Parser(prog="python -m training.distill", description=__doc__.split("\n\n")[0])
    ap.add_argument("game", nargs="?", help="the game (golf, golf_v0, ...), played at its benchmark table")
    ap.add_argument("--teacher", default="pimc", help="the search teacher's agent spec (default pimc)")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--labels", type=int, default=6000, help="labelled decisions per iteration")
    ap.add_argument("--ppo-minutes", type=float, default=8.0, help="PPO's minutes per iteration (0: none)")
    ap.add_argument("--start", default="heuristic", help="the first student: heuristic (imitated), ppo or ppo:PATH")
    ap.add_argument("--games", type=int, default=64, help="games played at a time while labelling")
    ap.add_argument("--deals", type=int, default=300, help="duplicate deals of each iteration's measurement")
    ap.add_argument("--workers", type=int, help="processes computing the teacher's moves (default: 2)")
    ap.add_argument("--value-weight", type=float, default=0.0,
                    help="the share of each target spread by the search's action values (0: its choices only)")
    ap.add_argument("--value-temperature", type=float, default=0.1,
                    help="the softmax temperature of the action values, in reward units (default 0.1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs")
    ap.add_argument("--name")
    ap.add_argument("--resume", metavar="RUN", help="continue a run folder after its last finished iteration")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.resume is None and args.game is None:
        return cli.report(cli.UserError("which game? give GAME, or --resume RUN"))
    try:
        run = distill(args.game, args.teacher, args.iterations, args.labels, args.ppo_minutes, args.start,
                      args.games, args.deals, args.out, args.name, args.resume, args.seed, args.workers,
                      not args.no_progress, args.value_weight, args.value_temperature)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    print(f"distilled policy: {run / 'final.zip'} (curve: {run / 'iterations.csv'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
