"""OpenSpiel's NFSP (Heinrich & Silver 2016, PyTorch) trained on a card_envs game through the
OpenSpiel adapter, then evaluated in this library's tournaments.

    python -m training.openspiel_nfsp golf --minutes 5
    python -m training.openspiel_nfsp hot --minutes 3 --games 400 --json results.json

The game is played at its benchmark-protocol table (``training.benchmark.TABLES``; two seats
except Guillotine's four) through ``open_spiel.python.rl_environment`` (chance nodes sampled by
OpenSpiel), one NFSP learner per seat, for ``--minutes`` of wall time. The learners' *average*
policies (NFSP's output; greedy over the legal actions) then play this library's evaluation:
the field seating against random and the heuristic, duplicate deals, 95% intervals. A short run
shows that OpenSpiel's learners run on these games; NFSP needs far more than minutes to be
strong.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np


class NFSPAgent:
    """The average policies of NFSP learners (one per seat) as this library's agent: the learners
    were trained on the seat's observation (the adapter's observation tensor), greedy over the
    mask."""

    def __init__(self, learners: list[Any]):
        self.learners = learners
        self.name = "nfsp"

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        import torch

        learner = self.learners[int(agent.rsplit("_", 1)[1])]
        mask = np.asarray(observation["action_mask"], dtype=bool)
        with torch.no_grad():
            values = learner._avg_network(torch.as_tensor(observation["observation"], dtype=torch.float32)[None])[0]
        values = values.numpy().astype(np.float64)
        values[~mask] = -np.inf
        return int(np.argmax(values))


def train(game: str, minutes: float, seed: int = 0, progress: bool = True) -> tuple[list[Any], dict]:
    """NFSP learners trained for ``minutes`` at the game's benchmark table; returns them and
    what the training did (episodes, learner steps, seconds)."""
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    import card_envs.openspiel as O
    from card_envs.cli import game_name
    from training.benchmark import TABLES

    env_name = game_name(game)
    torch.manual_seed(seed)
    np.random.seed(seed)
    # the learners read the env's observation (Markov for its seat), as NFSPAgent is shown in this
    # library's evaluation; the information state adds the perfect-recall digest, which is for
    # telling histories apart, not for learning from
    env = rl_environment.Environment(O.load_game(env_name, TABLES[env_name]), seed=seed,
                                     observation_type=rl_environment.ObservationType.OBSERVATION)
    n = env.num_players
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    learners = [nfsp.NFSP(p, size, actions, [128], reservoir_buffer_capacity=200_000, anticipatory_param=0.1,
                          batch_size=128, learn_every=64, rl_learning_rate=0.01, sl_learning_rate=0.01,
                          min_buffer_size_to_learn=1000, replay_buffer_capacity=200_000, epsilon_start=0.06,
                          epsilon_end=0.001, seed=seed + p) for p in range(n)]
    began = time.monotonic()
    episodes = steps = 0
    last = began
    while time.monotonic() - began < 60.0 * minutes:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            out = learners[p].step(ts)
            ts = env.step([out.action])
            steps += 1
        for learner in learners:
            learner.step(ts)
        episodes += 1
        if progress and time.monotonic() - last > 10:
            last = time.monotonic()
            print(f"{env_name} NFSP: {episodes:,} episodes, {steps:,} decisions, {last - began:.0f} s",
                  file=sys.stderr, flush=True)
    return learners, {"game": env_name, "table": TABLES[env_name], "episodes": episodes, "decisions": steps,
                      "seconds": round(time.monotonic() - began, 1), "seed": seed}


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli
    from training.benchmark import machine
    from training.evaluate import evaluate_against

    ap = cli.Parser(prog="python -m training.openspiel_nfsp", description=__doc__.split("\n\n")[0])
    cli.add_game_argument(ap)
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--games", type=int, default=400, help="evaluation games against each opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        learners, run = train(args.game, args.minutes, args.seed, not args.no_progress)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    agent = NFSPAgent(learners)
    rows = []
    for opponent in ("random", "heuristic"):
        row = evaluate_against(run["game"], run["table"], agent, opponent, args.games, seed=4242)
        rows.append({k: row[k] for k in ("opponent", "games", "mean_reward", "reward_low", "reward_high")})
        print(f"NFSP ({args.minutes:g} min, {run['episodes']:,} episodes) vs {opponent}: {row['mean_reward']:+.3f} "
              f"[{row['reward_low']:+.3f}, {row['reward_high']:+.3f}] over {row['games']} games")
    result = {"command": "python -m training.openspiel_nfsp " + " ".join(argv if argv is not None else sys.argv[1:]),
              "machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"), "minutes": args.minutes, **run,
              "evaluation": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
