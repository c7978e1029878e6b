"""The run folder and the progress of a training, shared by both backends: a new run's folder,
the start of every run recorded in its config.json, the clock, the evaluation curve (eval.csv),
the printed evaluation rows, the versions a run records."""

from __future__ import annotations

import csv
import json
import os
import platform
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence


def add_run_arguments(ap: Any, *, opponents_help: str, config_help: str) -> None:
    """The flags every training command line shares (``python -m training.train`` and the RLlib
    backend's own): the game, the budget, the opponents, the configuration, the seed, the run
    folder, resuming and the progress bar. ``ap`` is a ``card_envs.cli.Parser``."""
    from card_envs import cli

    cli.add_game_argument(ap, nargs="?")
    ap.add_argument("--timesteps", type=int, help="learner decisions to train for (total, also when resuming)")
    ap.add_argument("--minutes", type=float, help="time budget for the training (wall clock)")
    ap.add_argument("--opponents", help=opponents_help)
    cli.add_config_arguments(ap, config_help)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--out", default="runs", help="folder of run folders (default: runs)")
    ap.add_argument("--name", help="run folder name (default: a timestamp)")
    ap.add_argument("--resume", metavar="RUN_DIR", help="continue this run from its last checkpoint, as configured")
    ap.add_argument("--override-config", action="store_true",
                    help="with --resume: apply a changed --config/--players/--opponents/--seed to the run "
                         "(without it, a change is refused with the list of differences)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


def new_run_dir(out: str | Path, env_name: str, name: str | None) -> Path:
    """A new run's folder, ``out/<game>/<name>`` (by default the time now, ``YYYYmmdd-HHMMSS``),
    refused when it exists and holds anything."""
    run_dir = Path(out) / env_name / (name or datetime.now().strftime("%Y%m%d-%H%M%S"))
    if run_dir.exists() and any(run_dir.iterdir()):
        raise FileExistsError(f"{run_dir} exists; use --resume {run_dir} to continue it, or another --name")
    return run_dir


def resolve_run(game: str | None, resume: str | Path | None, out: str | Path, name: str | None, *,
                backend: str, new_config: Callable[..., dict], latest_checkpoint: Callable[[Path], Path],
                config: Any = None, players: int | None = None, opponents: list[str] | None = None,
                seed: int | None = None, override_config: bool = False, timesteps: int | None = None,
                minutes: float | None = None, **settings: Any) -> tuple[Path, dict, list[str]]:
    """The run folder, its configuration and the configuration changes applied to it, for either
    backend (``backend``: "sb3" or "rllib").

    A resumed run: its config.json, refused when another backend trained it or when it has no
    checkpoint (``latest_checkpoint`` raises), with the changes ``config``, ``players``,
    ``opponents`` and ``seed`` ask for (refused unless ``override_config``) and the settings a
    resumed run may change: the step total or time budget (a new one replaces the other) and the
    backend's ``settings`` (configuration keys, e.g. ``n_envs``; None leaves one as it was). A new
    run: ``new_config(env_name, config, total_timesteps=, minutes=, opponents=, seed=, **settings)``
    and a new folder ``out/<game>/<name>``."""
    from training.config import read_run, requested_changes, resume_config, with_players

    if resume is not None:
        run_dir, cfg = read_run(resume, game)
        trained_by = cfg.get("backend", "sb3")
        if trained_by != backend:
            raise ValueError(f"{run_dir} was trained by the {trained_by} backend, not {backend}; resume it with "
                             f"--backend {trained_by}")
        latest_checkpoint(run_dir)  # a folder with nothing to resume from fails before it is touched
        changes = requested_changes(cfg["env_name"], config, players, opponents, seed)
        cfg, changes_applied = resume_config(run_dir, cfg, changes, override_config)
        for key, value in {"total_timesteps": timesteps, "minutes": minutes, **settings}.items():
            if value is not None:
                cfg[key] = value
        if minutes is not None and timesteps is None:
            cfg["total_timesteps"] = None  # a new time budget replaces the old step total
        if timesteps is not None and minutes is None:
            cfg["minutes"] = None  # a new step total replaces the old time budget
        return run_dir, cfg, changes_applied
    if game is None:
        raise ValueError("name a game (e.g. golf_v0) or --resume a run folder")
    from training.single_agent import env_module

    env_name = env_module(game).raw_env.metadata["name"]
    cfg = new_config(env_name, with_players(env_name, config, players), total_timesteps=timesteps,
                     minutes=minutes, opponents=opponents, seed=seed, **settings)
    if minutes is not None and timesteps is None:
        cfg["total_timesteps"] = None  # the time budget decides
    return new_run_dir(out, env_name, name), cfg, []


def start_run(run_dir: Path, cfg: dict, argv: Sequence[str] | None, resumed: bool, **details: Any) -> None:
    """Creates the run folder and writes its config.json: the resolved configuration ``cfg``, with
    this invocation appended to its ``runs``: when it started, its command line, whether it
    resumes the run, the backend's ``details`` (in the order given), the platform and the CPUs."""
    run_dir.mkdir(parents=True, exist_ok=True)
    cfg.setdefault("runs", []).append({
        "started": datetime.now().isoformat(timespec="seconds"),
        "argv": list(argv) if argv is not None else None,
        "resume": resumed, **details,
        "platform": platform.platform(), "cpus": os.cpu_count(),
    })
    (run_dir / "config.json").write_text(json.dumps(cfg, indent=2))


EVAL_FIELDS = ["timesteps", "wall_seconds", "opponent", "games", "mean_reward", "reward_ci95", "win_rate",
               "mean_score", "score_ci95", "reward_low", "reward_high", "win_rate_low", "win_rate_high",
               "shared_first_rate", "margin", "margin_low", "margin_high"]


def write_eval_rows(path: Path, rows: list[dict]) -> None:
    """Append rows to eval.csv; a curve begun with fewer columns (an older run) keeps its header."""
    fields = EVAL_FIELDS
    if path.exists() and path.stat().st_size:
        with open(path, newline="") as f:
            fields = next(csv.reader(f), EVAL_FIELDS) or EVAL_FIELDS
    new = not path.exists() or not path.stat().st_size
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new:
            w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k) for k in fields})


def fmt_row(row: dict, who: str = "PPO") -> str:
    lo, hi = row["reward_low"], row["reward_high"]
    verdict = "beats" if lo > 0 else "loses to" if hi < 0 else "ties (95% CI includes 0) with"
    return (f"vs {row['opponent']:<10} mean reward {row['mean_reward']:+.3f} (95% CI [{lo:+.3f}, {hi:+.3f}]), "
            f"sole 1st {row['win_rate']:.3f} [{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}], shared 1st "
            f"{row['shared_first_rate']:.3f}, mean score {row['mean_score']:.2f}, {row['games']} games "
            f"({row['seating']}; duplicate deals): {who} {verdict} {row['opponent']}")


def evaluate_during_training(run_dir: Path, cfg: dict, agent: Any, steps: int, wall_seconds: float) -> list[dict]:
    """The evaluation a run makes as it trains, for either backend: ``agent`` (the policy now)
    against each of the evaluation's opponents, ``eval.games`` games each with fixed seeds
    (training.evaluate's field seating); the rows, stamped with the steps and training seconds,
    are appended to the run's ``eval.csv`` (the learning curve) and returned."""
    from training.evaluate import evaluate_against
    from training.opponents import eval_opponents

    rows = []
    for i, opp in enumerate(eval_opponents(cfg)):
        row = evaluate_against(cfg["env_name"], cfg["env_config"], agent, opp, cfg["eval"]["games"],
                               seed=1_000_000 + 7919 * i)
        row.update(timesteps=int(steps), wall_seconds=round(wall_seconds, 1))
        rows.append(row)
    write_eval_rows(Path(run_dir) / "eval.csv", rows)
    return rows


class TrainingBar:
    """A training's progress on the terminal (tqdm; nothing without it or when ``enabled`` is
    false): the seconds of the time budget ``budget_s``, else the steps of the step total
    ``target``, with the steps, steps per second and the latest evaluation's mean rewards."""

    def __init__(self, enabled: bool, desc: str, budget_s: float | None, target: int | None, steps: int):
        self.bar, self.budget_s, self.target, self.steps0 = None, budget_s, target, int(steps)
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        if budget_s is not None:
            self.bar = tqdm(total=int(budget_s), desc=desc, dynamic_ncols=True,
                            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} s{postfix}")
        else:
            self.bar = tqdm(total=target, initial=int(steps), desc=desc, unit="step", dynamic_ncols=True)

    def show(self, steps: int, elapsed: float, latest: dict[str, float]) -> None:
        """Redraw at ``steps`` learner steps, ``elapsed`` seconds into this invocation."""
        if self.bar is None:
            return
        if self.budget_s is not None:
            self.bar.n = min(int(elapsed), int(self.budget_s))
        else:
            self.bar.n = min(int(steps), int(self.target))
        post = {"steps": int(steps), "steps/s": int((steps - self.steps0) / max(elapsed, 1e-9))}
        post.update({k: f"{v:+.2f}" for k, v in latest.items()})
        self.bar.set_postfix(post, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def prune_checkpoints(run_dir: Path, keep: int, remove: Callable[[Path], None]) -> None:
    """Keep the ``keep`` newest ``checkpoints/step_*`` of a run; ``remove`` deletes one."""
    for old in sorted((Path(run_dir) / "checkpoints").glob("step_*"))[: -int(keep)]:
        remove(old)


def finish_run(run_dir: Path, cfg: dict, summary: dict, policy: Any, *, started: float, final_eval: bool,
               verbose: bool, who: str = "PPO", workers: int = 1) -> None:
    """A run's end, for either backend: the final policy (an agent spec or an agent) against each
    of the evaluation's opponents, ``eval.final_games`` games each (training.evaluate's field
    seating, one row per opponent, printed as it comes), then ``final_eval.json``: ``summary``
    with those rows and the invocation's seconds."""
    from training.evaluate import evaluate_against
    from training.opponents import eval_opponents
    from training.results import jsonable

    summary["evaluation"] = []
    env_name = cfg["env_name"]
    if final_eval and cfg["eval"]["final_games"] > 0:
        evaluated = eval_opponents(cfg)
        for opp in evaluated:
            row = evaluate_against(env_name, cfg["env_config"], policy, opp, cfg["eval"]["final_games"],
                                   seed=2_000_000, workers=workers)
            summary["evaluation"].append(row)
            if verbose:
                print(fmt_row(row, who))
        missing = [o for o in cfg["eval"]["opponents"] if o not in evaluated]
        if missing and verbose:
            print(f"(no {', '.join(missing)} agent for {env_name} yet: not evaluated against it)")
    summary["total_seconds_this_run"] = round(time.monotonic() - started, 1)
    (Path(run_dir) / "final_eval.json").write_text(json.dumps(jsonable(summary), indent=2))
    if verbose:
        print(f"run folder: {run_dir}")


class Clock:
    """Training seconds: this invocation's, plus those of the runs it resumes."""

    def __init__(self, before: float = 0.0):
        self.before = float(before)
        self.start = time.monotonic()

    def restart(self) -> None:
        self.start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def total(self) -> float:
        return self.before + self.elapsed()


def has_module(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def versions(modules=("numpy", "torch", "stable_baselines3", "sb3_contrib", "gymnasium", "pettingzoo")) -> dict:
    out = {"python": platform.python_version()}
    for mod in modules:
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - a version string is a nicety
            pass
    return out
