"""The RLlib modules of a ``--backend rllib`` run on the AEC engine, and who plays each seat.

RLlib modules (one network each) play the seats, chosen per episode by the agent-to-module
mapping (:func:`seat_modules`):

- ``main``: the policy being trained, ONE network shared by every seat it holds: each episode
  one random seat is ``main``'s, and with probability ``rllib.shared_seats_prob`` every seat is
  (pure self-play, all seats' experience trains the same network);
- the other seats draw from the opponent pool of the config (``opponents``, weighted by
  ``opponent_weights``; each seat on its own, or one draw for all with
  ``opponent_seating="field"``): ``"self"`` is a frozen snapshot of ``main`` — ``selfplay.pool_size``
  slots ``snapshot_0..k``, all a copy of the starting network at first, one overwritten by the
  current ``main`` every ``selfplay.snapshot_every`` learner steps (round robin, so the last
  ``pool_size`` snapshots); ``"random"``, ``"heuristic"``, ``"ppo:PATH"``, ``"rllib:PATH"``
  are the project's agents (``agents.load``) inside a non-trainable RLModule
  (:func:`agent_module_class`).

Only ``main`` is trained (``policies_to_train``).
"""

from __future__ import annotations

import zlib
from typing import Any, Sequence

import numpy as np

#: the module being trained
MAIN = "main"


def masking_module_class():
    """The action-masking PPO module (RLlib's example design and keys; agents/rllib_agent.py)."""
    from agents.rllib_agent import MaskedPPOTorchRLModule

    if MaskedPPOTorchRLModule is None:
        raise ImportError("the rllib backend needs Ray RLlib and torch: pip install -e '.[distributed]'")
    return MaskedPPOTorchRLModule


def agent_module_class():
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    class CardAgentRLModule(RLModule):
        """One of the project's agents (``agents.load(spec)``) as a frozen, non-trainable
        RLModule: it picks the actions itself, from each row's observation and mask.

        The agent protocol's hooks: ``start_game`` once, when the module is built, with the run's
        table (``env_config``) and the seat name its ``act`` calls use (``player_0``), so the
        heuristic plays by this table's rules and a PPO opponent trained on other options
        refuses the run at once; no ``end_game``: an RLModule sees batches of rows from many
        games, never where one game ends."""

        framework = "torch"

        def setup(self):
            import agents
            from agents.base import start_game

            cfg = self.model_config or {}
            self.spec = cfg["agent"]
            self.env_name = cfg["env_name"]
            self.agent = agents.load(self.spec, seed=cfg.get("seed"))
            start_game(self.agent, self.env_name, cfg.get("env_config") or {}, "player_0")

        def _forward(self, batch, **kwargs):
            obs = batch[Columns.OBS]
            x = _numpy(obs["observations"])
            m = _numpy(obs["action_mask"]).astype(np.int8)
            actions = [self.agent.act({"observation": x[i], "action_mask": m[i]}, "player_0", self.env_name)
                       for i in range(len(x))]
            return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

        def _forward_train(self, *args, **kwargs):
            raise NotImplementedError(f"the {self.spec} agent is not trained")

        def get_state(self, *args, **kwargs):
            return {}

        def set_state(self, state):
            pass

        def compile(self, *args, **kwargs):
            pass

    return CardAgentRLModule


def _numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def agent_module_id(spec: str) -> str:
    """Module id of an agent spec: ``random``, ``heuristic``, ``agent_<hash>`` for paths."""
    if spec in ("random", "heuristic"):
        return spec
    return f"agent_{zlib.crc32(spec.encode()):08x}"


def snapshot_ids(pool_size: int) -> list[str]:
    return [f"snapshot_{k}" for k in range(max(1, int(pool_size)))]


def seat_modules(episode_id: str, num_seats: int, pool: Sequence[str], weights: Sequence[float] | None,
                 shared_prob: float, num_snapshots: int, field: bool = False) -> list[str]:
    """The module of every seat for one episode, a pure function of the episode's id.

    One seat (uniform) is ``main``'s; with probability ``shared_prob`` all are. Every other seat
    draws from ``pool`` (``"self"`` = a uniform snapshot slot; other specs = that agent), or with
    ``field`` they all take the first seat's draw (``opponent_seating="field"``).
    """
    rng = np.random.default_rng(zlib.crc32(str(episode_id).encode()))
    learner = int(rng.integers(num_seats))
    shared = rng.random() < shared_prob
    p = None
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        p = w / w.sum()
    draws = [(pool[int(rng.choice(len(pool), p=p))], int(rng.integers(num_snapshots))) for _ in range(num_seats)]
    out = []
    for s in range(num_seats):
        choice, snap = draws[0] if field else draws[s]
        if s == learner or shared:
            out.append(MAIN)
        elif choice == "self":
            out.append(f"snapshot_{snap}")
        else:
            out.append(agent_module_id(choice))
    return out


class SeatMapping:
    """RLlib's agent-to-module mapping function (picklable, for the EnvRunner actors)."""

    def __init__(self, agents: Sequence[str], pool: Sequence[str], weights, shared_prob: float, num_snapshots: int,
                 field: bool = False):
        self.seat = {a: i for i, a in enumerate(agents)}
        self.pool, self.weights = list(pool), weights
        self.shared_prob, self.num_snapshots = float(shared_prob), int(num_snapshots)
        self.field = bool(field)

    def __call__(self, agent_id, episode, **kwargs) -> str:
        mods = seat_modules(episode.id_, len(self.seat), self.pool, self.weights, self.shared_prob,
                            self.num_snapshots, self.field)
        return mods[self.seat[agent_id]]
