"""Train a PPO agent (sb3-contrib's MaskablePPO) on one card_envs game.

    python -m training.train golf --minutes 3
    python -m training.train golf --timesteps 200000 --opponents random,heuristic,self --seed 1
    python -m training.train guilders --players 5 --config good_joker=true my.json ppo.learning_rate=0.001
    python -m training.train golf_v0 --resume runs/golf_v0/20250101-120000
    python -m training.train golf_v0 --backend rllib --timesteps 20000 --num-env-runners 2 [--address auto]

``--backend rllib`` trains with Ray RLlib instead (``training/rllib_backend.py``, the
``distributed`` extra): the same configs and run folder, env runners on a local Ray instance or,
with ``--address``, on a cluster; a resumed run keeps the backend it was trained with.

The learner plays one seat of each game (rotating each episode); the other seats are drawn from
the opponent pool (random, heuristic, frozen past selves from ``training/selfplay.py``). By
default every game runs on the batched engine (``card_envs.<game>_v0.vector_env``) in this one
process, through ``training/batched.py``: all games stepped together, opponents acting in batch
(``vec_env="batched"``); ``--vec-env subproc|dummy`` runs the older single-game path
(``training/single_agent.py``, one Python game per environment) for comparison.

The package is one core and two backends. The core, which both backends import and which imports
neither: ``training/config.py`` (configuration layers, resumes), ``training/opponents.py`` (the
pool's specs), ``training/runs.py`` (the run folder's start, clock, evaluation curve, versions),
``training/evaluate.py`` (the one evaluation, with its parts: ``seating``, ``games``,
``intervals``, ``ratings``, ``results``, ``provenance``, ``progress``), ``training/batched.py``
and ``training/single_agent.py`` (the learner's views); the command-line conventions are
``card_envs/cli.py``'s. The backends, leaves that import only
their own framework: ``training/sb3_backend.py`` (stable-baselines3 / sb3-contrib MaskablePPO)
and ``training/rllib_backend.py`` (Ray RLlib). This module is the command line: it imports a
backend only when that backend trains. Configuration: the defaults of
``training/configs/default.json``, then ``training/configs/<game>.json``, then ``--config``
(JSON files and KEY=VALUE pairs, left to right, card_envs/cli.py's convention: a game option such
as ``num_players=4`` goes into ``env_config``, dotted keys into sections), then the flags
(``--players N`` is ``env_config.num_players``). The run folder ``<out>/<game>/<name or timestamp>/`` gets:

    config.json        the resolved configuration (no file's ``_doc``: ``sources`` says what was
                       laid over what), and how it was run (``runs``)
    checkpoints/       step_<N>.zip, full MaskablePPO states to resume from (the last few)
    snapshots/         self_<N>.npz, the frozen selves of the opponent pool
    tb/                TensorBoard logs (tensorboard --logdir runs)
    eval.csv           the evaluation curve: against random and heuristic, the learner in one seat
                       and copies of the opponent in the others (training.evaluate's field
                       seating, duplicate deals), mean reward, first places, margin, 95% intervals
    final.zip          the final policy: agents.load("ppo:<run>/final.zip")
    final_eval.json    the final evaluation, also printed at the end

``--minutes M`` trains until M minutes have passed (or ``--timesteps``, if also given, are
reached). ``--resume RUN_DIR`` continues a run from its last checkpoint with the run's own
configuration (a ``--config``, ``--players``, ``--opponents`` or ``--seed`` that would change it
is refused with the list of differences, unless ``--override-config`` applies them): to its
``total_timesteps``, or a new ``--timesteps`` total, or for another ``--minutes`` (a run trained
by time gets its time budget again), appending to its evaluation curve and TensorBoard logs;
the frozen selves come back into the pool.

A new run may start from a teacher's play (``training/imitation.py``, the ``imitation`` section):
``--config imitation.teacher=heuristic imitation.decisions=300000`` fits the policy to 300k of
the heuristic's decisions in the learner's seat (and the value head to the returns that
followed) before PPO's first rollout; those seconds count against ``--minutes``, and the curve's
first row is the imitation's policy. SB3 backend only.
"""


from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Sequence


def train(*args: Any, **kwargs: Any) -> Path:
    """Train with the SB3 backend (:func:`training.sb3_backend.train`; same arguments)."""
    from training import sb3_backend

    return sb3_backend.train(*args, **kwargs)


def evaluate(env_name: str, env_config: dict, agent: Any, opponent: str, games: int, seed: int,
             workers: int = 1) -> dict:
    """The agent in one seat against N−1 copies of ``opponent``, seats rotated, duplicate deals:
    :func:`training.evaluate.evaluate_against`, the one evaluation (both backends call it)."""
    from training.evaluate import evaluate_against

    return evaluate_against(env_name, env_config, agent, opponent, games, seed=seed, workers=workers)


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli
    from training.runs import add_run_arguments

    ap = cli.Parser(prog="python -m training.train", description=__doc__)
    add_run_arguments(ap, opponents_help="comma-separated pool: random,heuristic,self,ppo:PATH",
                      config_help="the training configuration: JSON files and KEY=VALUE pairs (a game option goes "
                                  "into env_config; dotted keys reach into sections, e.g. ppo.learning_rate=0.001)")
    ap.add_argument("--n-envs", type=int, help="games stepped together (default: the config's)")
    ap.add_argument("--workers", type=int, help="with --vec-env subproc: subprocesses the games are spread over (default 2, one per core)")
    ap.add_argument("--vec-env", choices=["batched", "subproc", "dummy"],
                    help="batched (default): every game on the batched engine in this process; subproc/dummy: the "
                         "single-game path (one Python game per environment, in subprocesses or in this process)")
    ap.add_argument("--backend", choices=["sb3", "rllib"],
                    help="sb3 (default): MaskablePPO on this machine; rllib: Ray RLlib, one machine or a cluster")
    from training import rllib_backend  # its flags; Ray itself is imported only when it trains

    rllib_backend.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.game is None and args.resume is None:
        ap.error("name a game (e.g. golf) or --resume RUN_DIR")
    config = args.config or None
    run_argv = list(argv) if argv is not None else sys.argv[1:]
    try:
        game = cli.game_name(args.game) if args.game is not None else None
        if (args.backend or rllib_backend.backend_of(args.resume)) == "rllib":
            rllib_backend.train_rllib(
                game, args.timesteps, args.num_env_runners, args.address, args.out, args.seed, config,
                minutes=args.minutes, opponents=args.opponents, name=args.name, resume=args.resume,
                num_cpus=args.num_cpus, ship_code=not args.no_ship_code, progress=not args.no_progress,
                argv=run_argv, players=args.players, override_config=args.override_config)
            return 0
        from training import sb3_backend

        sb3_backend.train(game, args.timesteps, args.minutes, args.opponents, config, args.seed, args.out, args.name,
              args.resume, args.n_envs, args.vec_env, args.workers, progress=not args.no_progress,
              argv=run_argv, players=args.players, override_config=args.override_config)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

