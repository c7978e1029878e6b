"""PPO on Ray RLlib (new API stack) over any card_envs game: the ``--backend rllib`` of
``python -m training.train``, for when one machine is not enough.

    python -m training.rllib_backend golf_v0 --timesteps 200000 --num-env-runners 2
    python -m training.rllib_backend golf_v0 --minutes 30 --num-env-runners 64 --address auto
    python -m training.rllib_backend --resume runs/golf_v0/20250101-120000

(the same as ``python -m training.train <game> --backend rllib ...``). Needs the ``distributed``
extra (Ray with RLlib, pinned).

What runs where. The command starts a local Ray instance (``num_cpus`` = this machine's cores,
or ``--num-cpus``) and shuts it down at the end, or with ``--address`` joins a running cluster
(``ray start --head`` on one node, ``ray start --address HEAD:6379`` on the others; Ray 2.60
authenticates with a token: ``RAY_AUTH_MODE=token`` and the same token on every node and here).
The ``num_env_runners`` EnvRunner actors (one CPU each) play the games anywhere in the cluster;
this checkout's ``card_envs``, ``agents`` and ``training`` are shipped to them (Ray's
``py_modules``; ``--no-ship-code`` when they are installed on every node). The learner (PPO
updates, on this machine's CPU), the evaluation games and the run folder stay in this process.

The environment. By default (``rllib.engine = "batched"``) each env runner steps
``batched_envs_per_env_runner`` games of the batched engine at once, the learner's seat only, the
other seats played in batch by the opponent pool inside the env
(:class:`training.rllib_batched.BatchedVectorEnv`), sampled and turned into PPO's train batch in
whole arrays (:mod:`training.rllib_runner`); the trained module is RLlib's single-agent
``default_policy``, frozen selves are numpy copies of its actor sent to the runners. The rest of
this docstring is the AEC engine (``rllib.engine = "aec"``), which seats any agent:
:class:`RLlibCardEnv` is RLlib's ``MultiAgentEnv`` over the AEC environment
(``card_envs.<game>_v0.env(**env_config, **train_env_config)``, not modified): it returns only
the agent to act's observation, and every agent's last observation and reward when the game
ends, as RLlib's own ``PettingZooEnv`` does. It renames the observation dict's keys to those of
RLlib's action-masking example (``ActionMaskingTorchRLModule``), which the network here,
``agents.rllib_agent.MaskedPPOTorchRLModule``, follows: ``{"observations": vector,
"action_mask": mask}``, the mask as float32, since the module adds its log to the logits. The rewards an agent
gets are AEC's cumulative rewards since its previous move (its own move and the others' after
it), so a seat's return is its total reward in the game.

Self-play. RLlib modules (one network each) play the seats, chosen per episode by the
agent-to-module mapping (see :func:`seat_modules`):

- ``main``: the policy being trained, ONE network shared by every seat it holds: each episode
  one random seat is ``main``'s, and with probability ``rllib.shared_seats_prob`` every seat is
  (pure self-play, all seats' experience trains the same network);
- the other seats draw from the opponent pool of the config (``opponents``, weighted by
  ``opponent_weights``): ``"self"`` is a frozen snapshot of ``main`` — ``selfplay.pool_size``
  slots ``snapshot_0..k``, all a copy of the starting network at first, one overwritten by the
  current ``main`` every ``selfplay.snapshot_every`` learner steps (round robin, so the last
  ``pool_size`` snapshots); ``"random"``, ``"heuristic"``, ``"ppo:PATH"``, ``"rllib:PATH"``
  are the project's agents (``agents.load``) inside a non-trainable RLModule.

Only ``main`` is trained (``policies_to_train``). ``--timesteps`` counts ``main``'s decisions
(module steps), as the SB3 backend counts the learner's.

The run folder is the SB3 backend's, where it applies:

    config.json        the resolved configuration ("backend": "rllib", the "rllib" section)
    checkpoints/       step_<N>/: full Algorithm checkpoints (algo.save_to_path), the last few
    tb/                TensorBoard scalars (episode returns, losses, the evaluation)
    eval.csv           the evaluation curve: mean reward with 95% CI against random and heuristic
                       (at the start, every eval.every steps and at the end)
    final/             the final Algorithm checkpoint: agents.load("rllib:<run>/final")
    final_eval.json    the final evaluation, also printed

The evaluation plays ``main`` (masked, most probable action, on the CPU of this process)
through :func:`training.evaluate.evaluate_against`, the one evaluation the SB3 backend uses too:
``main`` in one seat against copies of the opponent, seats rotated, duplicate deals.

Configuration: ``training/configs/default.json`` < ``configs/<game>.json`` < ``--config`` (JSON
files and KEY=VALUE pairs) < flags, as for SB3; the ``ppo`` section maps onto RLlib's PPO
(learning_rate -> lr, n_steps * n_envs -> train_batch_size_per_learner, batch_size -> minibatch_size, n_epochs -> num_epochs,
gae_lambda -> lambda_, clip_range -> clip_param, ent_coef -> entropy_coeff, vf_coef ->
vf_loss_coeff, max_grad_norm -> grad_clip, policy_kwargs.net_arch/activation_fn ->
fcnet_hiddens/fcnet_activation, no KL penalty, separate policy and value networks), and an
``"rllib"`` section in a ``--config`` file overrides :data:`RLLIB_DEFAULTS`; its ``"ppo"``
(by default ``{"learning_rate": 0.001}``) is laid over ``ppo`` for this backend only.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import math
import os
import shutil
import sys
import time
import zlib
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from training.config import torch_threads, train_env_config

META_FILE = "card_envs.json"  # written into every checkpoint folder: what the policy plays
MAIN = "main"

RLLIB_DEFAULTS: dict[str, Any] = {
    # what the env runners step: "batched" (the default), the batched engine
    # (training/rllib_batched.py, training/rllib_runner.py): batched_envs_per_env_runner games per
    # runner in compiled kernels, the learner's seat only, the opponents played inside the env in
    # batch; "aec", one Python env() per game as RLlib's MultiAgentEnv (any opponent, every seat a
    # module; several times slower)
    "engine": "batched",
    # games each env runner steps at once on the batched engine
    "batched_envs_per_env_runner": 256,
    # EnvRunner actors playing games (each one CPU); --num-env-runners overrides
    "num_env_runners": 2,
    # games each EnvRunner steps together (RLlib's vectorized multi-agent env): one batched
    # forward pass per step for all of them; 8 is ~3x the throughput of 1 here
    "num_envs_per_env_runner": 8,
    # env steps (all seats' decisions) per PPO update; null = ppo.n_steps * n_envs
    "train_batch_size": None,
    # probability that main plays every seat of an episode (shared-policy self-play)
    "shared_seats_prob": 0.2,
    # RLlib's KL penalty (off: the SB3 backend has none)
    "use_kl_loss": False,
    # laid over the config's "ppo" section for this backend only (same key names). The learning
    # rate: 1e-3 beat random at 20,000 steps on Golf in 4 of 4 seeds, SB3's 3e-4 in 2 of 3
    "ppo": {"learning_rate": 0.001},
    # extra keyword arguments for PPOConfig.training(...), e.g. {"vf_clip_param": 10.0}
    "training": {},
}

RLLIB_ACTIVATIONS = {"tanh": "tanh", "relu": "relu", "elu": "elu", "silu": "silu", "swish": "silu"}


# ====================================================================== the environment
def to_rllib_obs(obs: dict) -> dict:
    """A card_envs observation in the keys of RLlib's action-masking module."""
    return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def env_class():
    """:class:`RLlibCardEnv`, built on first use so that importing this module (for its CLI
    flags, from ``training.train``) does not import Ray."""
    if "RLlibCardEnv" not in globals():
        globals()["RLlibCardEnv"] = _make_env_class()
    return globals()["RLlibCardEnv"]


def __getattr__(name: str):  # PEP 562: ``training.rllib_backend.RLlibCardEnv`` builds the class
    if name == "RLlibCardEnv":
        return env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _make_env_class():
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class RLlibCardEnv(MultiAgentEnv):
        """A card_envs AEC game as RLlib's ``MultiAgentEnv`` (turn-based: one agent acts per step).

        ``config``: ``{"env_name": "golf_v0", "env_config": {...}}``. Observations are
        ``{"observations": float32 vector, "action_mask": float32 0/1}`` (RLlib's masking module's
        keys); the environment itself is ``card_envs.<game>_v0.env(**env_config)``, unchanged.
        """

        def __init__(self, config: dict | None = None):
            super().__init__()
            import gymnasium as gym

            import card_envs

            config = dict(config or {})
            self.env_name = config.get("env_name", "golf_v0")
            if self.env_name not in card_envs.ENVIRONMENTS:
                raise ValueError(f"unknown game {self.env_name!r}; games: {', '.join(card_envs.ENVIRONMENTS)}")
            self.env = card_envs.ENVIRONMENTS[self.env_name].env(**dict(config.get("env_config") or {}))
            self.possible_agents = list(self.env.possible_agents)
            self.agents = list(self.possible_agents)  # every seat is in every game, to its end
            inner = self.env.observation_space(self.possible_agents[0])
            n = self.env.action_space(self.possible_agents[0]).n
            space = gym.spaces.Dict(
                {
                    "observations": inner["observation"],
                    "action_mask": gym.spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
                }
            )
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            self.env.reset(seed=seed, options=options)
            obs, infos = {}, {}
            while self.env.agents:  # a game can be over at once (every agent done)
                o, _, term, trunc, info = self.env.last()
                a = self.env.agent_selection
                if not (term or trunc):
                    obs[a], infos[a] = to_rllib_obs(o), {}
                    break
                self.env.step(None)
            return obs, infos

        def step(self, action_dict: dict):
            agent = self.env.agent_selection
            self.env.step(action_dict[agent])
            obs, rew, term, trunc, infos = {}, {}, {}, {}, {}
            while self.env.agents:
                o, r, te, tr, info = self.env.last()
                a = self.env.agent_selection
                obs[a], rew[a], term[a], trunc[a], infos[a] = to_rllib_obs(o), float(r), te, tr, dict(info)
                if te or tr:
                    self.env.step(None)  # AEC: a done agent steps None to leave
                else:
                    break
            done = not self.env.agents
            term["__all__"] = done and all(term.get(a, True) for a in obs)
            trunc["__all__"] = done and not term["__all__"]
            return obs, rew, term, trunc, infos

        def close(self) -> None:
            self.env.close()

    RLlibCardEnv.__module__ = __name__
    RLlibCardEnv.__qualname__ = "RLlibCardEnv"
    return RLlibCardEnv


def _env_creator(env_config: dict):
    return env_class()(env_config)


# ========================================================================= the modules
def masking_module_class():
    """The action-masking PPO module (RLlib's example design and keys; agents/rllib_agent.py)."""
    from agents.rllib_agent import MaskedPPOTorchRLModule

    if MaskedPPOTorchRLModule is None:
        raise ImportError("the rllib backend needs Ray RLlib and torch: pip install -e '.[distributed]'")
    return MaskedPPOTorchRLModule


def _agent_module_class():
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
                 shared_prob: float, num_snapshots: int) -> list[str]:
    """The module of every seat for one episode, a pure function of the episode's id.

    One seat (uniform) is ``main``'s; with probability ``shared_prob`` all are. Every other seat
    draws from ``pool`` (``"self"`` = a uniform snapshot slot; other specs = that agent).
    """
    rng = np.random.default_rng(zlib.crc32(str(episode_id).encode()))
    learner = int(rng.integers(num_seats))
    shared = rng.random() < shared_prob
    p = None
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        p = w / w.sum()
    out = []
    for s in range(num_seats):
        choice = pool[int(rng.choice(len(pool), p=p))]
        snap = int(rng.integers(num_snapshots))
        if s == learner or shared:
            out.append(MAIN)
        elif choice == "self":
            out.append(f"snapshot_{snap}")
        else:
            out.append(agent_module_id(choice))
    return out


class SeatMapping:
    """RLlib's agent-to-module mapping function (picklable, for the EnvRunner actors)."""

    def __init__(self, agents: Sequence[str], pool: Sequence[str], weights, shared_prob: float, num_snapshots: int):
        self.seat = {a: i for i, a in enumerate(agents)}
        self.pool, self.weights = list(pool), weights
        self.shared_prob, self.num_snapshots = float(shared_prob), int(num_snapshots)

    def __call__(self, agent_id, episode, **kwargs) -> str:
        mods = seat_modules(episode.id_, len(self.seat), self.pool, self.weights, self.shared_prob,
                            self.num_snapshots)
        return mods[self.seat[agent_id]]


# ======================================================================= configuration
def resolve(env_name: str, config: str | Path | dict | None, **flags: Any) -> dict:
    """The SB3 harness's configuration resolution, plus ``"backend"`` and the ``"rllib"`` section."""
    from training.config import config_overrides, resolve_config

    user = None
    if config is not None:
        user = config_overrides(env_name, config)  # a dict, a JSON file, or --config items
    rllib = copy.deepcopy(RLLIB_DEFAULTS)
    if user is not None and "rllib" in user:
        extra = user.pop("rllib") or {}
        unknown = sorted(set(extra) - set(RLLIB_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown key(s) {unknown} in 'rllib'; keys: {sorted(RLLIB_DEFAULTS)}")
        for k, v in extra.items():
            rllib[k] = {**rllib[k], **v} if isinstance(v, dict) and isinstance(rllib[k], dict) else v
    cfg = resolve_config(env_name, user, **flags)
    if (cfg.get("imitation") or {}).get("teacher"):
        raise ValueError("imitation (a warm start from a teacher's games, training/imitation.py) is a feature of the "
                         "SB3 backend; with --backend rllib set imitation.teacher=null")
    cfg["backend"] = "rllib"
    cfg["rllib"] = rllib
    return cfg


def rllib_ppo(cfg: dict) -> dict:
    """The PPO settings this backend uses: ``ppo`` with ``rllib.ppo`` laid over it."""
    from training.config import deep_merge

    return deep_merge(cfg["ppo"], cfg["rllib"].get("ppo") or {})


def build_config(cfg: dict, num_cpus: float | None = None):
    """RLlib's ``PPOConfig`` for a resolved run configuration."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    if cfg["rllib"].get("engine", "aec") == "batched":
        return _batched_config(cfg, num_cpus)
    if cfg["rllib"].get("engine", "aec") != "aec":
        raise ValueError(f"rllib.engine must be 'aec' or 'batched', got {cfg['rllib'].get('engine')!r}")
    register_env("card_envs", _env_creator)
    env_name, env_config, rl = cfg["env_name"], train_env_config(cfg), cfg["rllib"]
    probe = env_class()({"env_name": env_name, "env_config": env_config})
    from training.opponents import opponent_pool

    pool, weights = opponent_pool(cfg, kinds=("random", "heuristic", "self", "ppo", "rllib"))
    snaps = snapshot_ids(cfg["selfplay"]["pool_size"])
    bad = sorted(set(rl.get("ppo") or {}) - set(cfg["ppo"]))
    if bad:
        raise ValueError(f"unknown key(s) {bad} in rllib.ppo; keys: {sorted(cfg['ppo'])}")
    ppo = rllib_ppo(cfg)
    model = _model_config(cfg)
    masking = masking_module_class()
    agent_cls = _agent_module_class()
    specs = {MAIN: RLModuleSpec(module_class=masking, model_config=model)}
    for s in snaps:
        specs[s] = RLModuleSpec(module_class=masking, model_config=model)
    for k, spec in enumerate(sorted({s for s in pool if s != "self"})):
        specs[agent_module_id(spec)] = RLModuleSpec(
            module_class=agent_cls,
            model_config={"agent": spec, "env_name": env_name, "env_config": env_config,
                          "seed": int(cfg["seed"]) * 1000 + k},
        )
    n_runners = int(rl["num_env_runners"])
    cpus_per_runner = 1.0
    if num_cpus is not None and n_runners > 0:
        cpus_per_runner = min(1.0, float(num_cpus) / n_runners)
    batch = rl["train_batch_size"] or int(ppo.get("n_steps", 2048)) * int(cfg.get("n_envs", 1))
    mapping = SeatMapping(probe.possible_agents, pool, weights, rl["shared_seats_prob"], len(snaps))
    training = _ppo_training(cfg, batch)
    config = (
        PPOConfig()
        .environment("card_envs", env_config={"env_name": env_name, "env_config": env_config})
        .framework("torch")
        .env_runners(
            num_env_runners=n_runners,
            num_envs_per_env_runner=int(rl["num_envs_per_env_runner"]),
            num_cpus_per_env_runner=cpus_per_runner,
        )
        .learners(**_learners(cfg))
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**training)
        .debugging(seed=int(cfg["seed"]), log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    return config


def _ppo_training(cfg: dict, batch: int) -> dict:
    """RLlib's PPO training settings from the run's ``ppo`` (and ``rllib.training``)."""
    ppo, rl = rllib_ppo(cfg), cfg["rllib"]
    training = dict(
        lr=float(ppo.get("learning_rate", 3e-4)),
        gamma=float(ppo.get("gamma", 0.99)),
        lambda_=float(ppo.get("gae_lambda", 0.95)),
        clip_param=float(ppo.get("clip_range", 0.2)),
        entropy_coeff=float(ppo.get("ent_coef", 0.0)),
        vf_loss_coeff=float(ppo.get("vf_coef", 0.5)),
        grad_clip=float(ppo.get("max_grad_norm", 0.5)),
        grad_clip_by="global_norm",
        num_epochs=int(ppo.get("n_epochs", 10)),
        minibatch_size=int(ppo.get("batch_size", 64)),
        train_batch_size_per_learner=int(batch),
        use_kl_loss=bool(rl["use_kl_loss"]),
    )
    training.update(rl.get("training") or {})
    return training


def _learners(cfg: dict, **extra) -> dict:
    """RLlib's learner settings: one local learner, in the driver. Under ``torch_threads:
    "auto"`` its update takes the cores other processes leave free
    (:class:`training.rllib_runner.AdaptiveThreadsPPOLearner`): the env runners wait meanwhile."""
    from training.config import adaptive_threads
    from training.rllib_runner import AdaptiveThreadsPPOLearner

    return dict(num_learners=0, learner_class=AdaptiveThreadsPPOLearner,
                learner_config_dict={"adaptive_threads": torch_threads(cfg) if adaptive_threads(cfg) else 0},
                **extra)


def _model_config(cfg: dict):
    """RLlib's default PPO network with the run's ``policy_kwargs`` (separate actor and critic)."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    pk = rllib_ppo(cfg).get("policy_kwargs", {})
    act = str(pk.get("activation_fn", "tanh")).lower()
    if act not in RLLIB_ACTIVATIONS:
        raise ValueError(f"activation_fn {act!r} is not one of {sorted(RLLIB_ACTIVATIONS)} for RLlib")
    net_arch = pk.get("net_arch", [128, 128])
    if isinstance(net_arch, dict):
        net_arch = net_arch.get("pi", [128, 128])
    return DefaultModelConfig(fcnet_hiddens=list(net_arch), fcnet_activation=RLLIB_ACTIVATIONS[act],
                              head_fcnet_hiddens=[], vf_share_layers=False)


def _batched_env_creator(config: dict):
    """RLlib's env creator for the batched engine: one :class:`BatchedVectorEnv` per env runner
    (RLlib's ``vector_entry_point`` passes ``num_envs``)."""
    from training.rllib_batched import BatchedVectorEnv
    from training.threads import limit_threads

    # an env runner is one CPU: one thread for the engine's kernels, BLAS and the module's forward
    # (parallel regions of a few hundred rows cost more in scheduling than they save, and
    # oversubscribed threads collapse when other processes hold the cores)
    limit_threads(1)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    config = dict(config)
    config.setdefault("num_envs", 1)
    return BatchedVectorEnv(config)


def _batched_config(cfg: dict, num_cpus: float | None):
    """``PPOConfig`` of a run on the batched engine: single-agent (the learner's seat), each env
    runner stepping ``batched_envs_per_env_runner`` games as one gymnasium vector env."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from training.opponents import opponent_pool
    from training.rllib_runner import BatchedEnvRunner, EpisodesToTrainBatch

    rl = cfg["rllib"]
    bad = sorted(set(rl.get("ppo") or {}) - set(cfg["ppo"]))
    if bad:
        raise ValueError(f"unknown key(s) {bad} in rllib.ppo; keys: {sorted(cfg['ppo'])}")
    register_env("card_envs_batched", _batched_env_creator)
    try:
        pool, weights = opponent_pool(cfg, kinds=("random", "heuristic", "self", "ppo"))
    except ValueError as e:
        raise ValueError(f"{e} (the batched engine plays these in batch; rllib.engine=aec seats any agent)") from None
    env_config = {"env_name": cfg["env_name"], "env_config": train_env_config(cfg), "opponents": list(pool),
                  "opponent_weights": None if weights is None else list(weights),
                  "pool_size": int(cfg["selfplay"]["pool_size"])}
    n_runners = int(rl["num_env_runners"])
    cpus_per_runner = 1.0
    if num_cpus is not None and n_runners > 0:
        cpus_per_runner = min(1.0, float(num_cpus) / n_runners)
    ppo = rllib_ppo(cfg)
    batch = rl["train_batch_size"] or int(ppo.get("n_steps", 2048)) * int(cfg.get("n_envs", 1))
    training = _ppo_training(cfg, batch)
    return (
        PPOConfig()
        .environment("card_envs_batched", env_config=env_config)
        .framework("torch")
        .env_runners(
            num_env_runners=n_runners,
            num_envs_per_env_runner=int(rl["batched_envs_per_env_runner"]),
            num_cpus_per_env_runner=cpus_per_runner,
            gym_env_vectorize_mode="vector_entry_point",
            env_runner_cls=BatchedEnvRunner,
        )
        # PPO's train batch in whole arrays (the same batch as RLlib's default PPO pipeline)
        .learners(**_learners(cfg, add_default_connectors_to_learner_pipeline=False,
                              learner_connector=functools.partial(EpisodesToTrainBatch, gamma=training["gamma"],
                                                                  lambda_=training["lambda_"])))
        .rl_module(rl_module_spec=RLModuleSpec(module_class=masking_module_class(), model_config=_model_config(cfg)))
        .training(**training)
        .debugging(seed=int(cfg["seed"]), log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


def learner_module_id(cfg: dict) -> str:
    """The trained module's id: ``main`` (the AEC engine's multi-agent run), or RLlib's single-agent
    ``default_policy`` (the batched engine)."""
    if cfg["rllib"].get("engine", "aec") == "batched":
        from ray.rllib.core import DEFAULT_MODULE_ID

        return DEFAULT_MODULE_ID
    return MAIN


# ============================================================================= Ray
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


# ======================================================================== the learner
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


def _meta(cfg: dict, steps: int, train_seconds: float, iteration: int, snapshots: dict) -> dict:
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


def _tb_writer(folder: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except Exception:  # noqa: BLE001 - tensorboard missing: fall back to tensorboardX (an RLlib dependency)
        try:
            from tensorboardX import SummaryWriter
        except Exception:  # noqa: BLE001
            return None
    return SummaryWriter(str(folder))


def _scalars(result: dict, mid: str = MAIN) -> dict[str, float]:
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


def _runner_timers(result: dict, previous: dict[str, float]) -> dict[str, float]:
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


def _resume_loop(algo, cfg: dict, run_dir: Path, snaps: list[str], resumed: bool) -> tuple[dict, float, int]:
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


def train_rllib(
    game: str | None = None,
    timesteps: int | None = None,
    num_env_runners: int | None = None,
    address: str | None = None,
    out: str | Path = "runs",
    seed: int | None = None,
    config: str | Path | dict | None = None,
    *,
    minutes: float | None = None,
    opponents: str | Sequence[str] | None = None,
    name: str | None = None,
    resume: str | Path | None = None,
    num_cpus: float | None = None,
    ship_code: bool = True,
    progress: bool = True,
    final_eval: bool = True,
    verbose: bool = True,
    argv: Sequence[str] | None = None,
    players: int | None = None,
    override_config: bool = False,
) -> Path:
    """Train ``main`` with RLlib's PPO, checkpoint and evaluate it; returns the run folder.

    Arguments mirror the command line (``out`` is the folder of run folders). A local Ray
    instance is started (``num_cpus``: default this machine's cores) and shut down at the end,
    unless ``address`` names a cluster to join (or Ray is already initialised by the caller).
    The run folder, its resume and its end are the SB3 backend's (``training/runs.py``).
    """
    try:
        import ray
        import torch
    except ImportError as e:
        raise ValueError(f"the rllib backend needs Ray RLlib and torch ({e}): pip install torch==2.13.0 && "
                         "pip install -e '.[distributed]'") from None

    from training.config import check_train_env_config
    from training.opponents import parse_opponents
    from training.runs import (Clock, TrainingBar, evaluate_during_training, finish_run, prune_checkpoints,
                               resolve_run, start_run, versions)

    started = time.monotonic()
    resumed = resume is not None
    run_dir, cfg, changes_applied = resolve_run(
        game, resume, out, name, backend="rllib", new_config=resolve, latest_checkpoint=latest_checkpoint,
        config=config, players=players, opponents=parse_opponents(opponents), seed=seed,
        override_config=override_config, timesteps=timesteps, minutes=minutes)
    env_name = cfg["env_name"]
    if num_env_runners is not None:
        if int(num_env_runners) < 0:
            raise ValueError(f"num_env_runners must be 0 or more, got {num_env_runners}")
        cfg["rllib"]["num_env_runners"] = int(num_env_runners)
    check_train_env_config(cfg)  # bad game options fail here, before any work
    # this process's own work outside the update (evaluation, snapshots) on one thread under 'auto';
    # the update's threads are the learner class's (AdaptiveThreadsPPOLearner)
    torch.set_num_threads(1 if cfg.get("torch_threads", 1) == "auto" else torch_threads(cfg))

    we_started = start_ray(address, num_cpus, ship_code)
    try:  # Ray and the env runners first: a run folder only for a run that starts
        cluster_cpus = ray.cluster_resources().get("CPU", 1.0)
        cluster_nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        algo = build_config(cfg, num_cpus=cluster_cpus).build_algo()
    except BaseException:
        if we_started:
            ray.shutdown()
        raise
    # where the env runners play: one node id per runner (with --address, spread over the cluster)
    runner_nodes = algo.env_runner_group.foreach_env_runner(
        lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False)
    run_dir = run_dir.resolve()
    start_run(run_dir, cfg, argv, resumed, address=address, cluster_cpus=cluster_cpus,
              versions=versions(("numpy", "torch", "gymnasium", "pettingzoo", "ray")), config_changes=changes_applied)
    writer = bar = None
    try:
        snaps = snapshot_ids(cfg["selfplay"]["pool_size"])
        state, seconds_before, steps0 = _resume_loop(algo, cfg, run_dir, snaps, resumed)
        batched = cfg["rllib"].get("engine", "aec") == "batched"
        mid = learner_module_id(cfg)
        clock = Clock(seconds_before)
        steps = steps0
        offset = steps0 - main_steps(algo, mid)  # RLlib's counters restart at 0 on a resumed run
        writer = _tb_writer(run_dir / "tb")
        target = cfg["total_timesteps"]
        budget_s = None if cfg["minutes"] is None else 60.0 * float(cfg["minutes"])
        latest: dict[str, float] = {}

        def run_eval(t: int) -> None:
            for row in evaluate_during_training(run_dir, cfg, main_agent(algo, cfg), t, clock.total()):
                latest[f"vs_{row['opponent']}"] = row["mean_reward"]
                if writer is not None:
                    writer.add_scalar(f"eval/vs_{row['opponent']}_mean_reward", row["mean_reward"], t)
                    writer.add_scalar(f"eval/vs_{row['opponent']}_win_rate", row["win_rate"], t)
            state["last_eval"] = t

        def checkpoint(t: int, path: Path | None = None) -> Path:
            meta = _meta(cfg, t, clock.total(), algo.iteration, state["snapshots"])
            meta["loop"] = {k: state[k] for k in ("last_eval", "last_ckpt", "last_snap", "next_slot")}
            p = save_checkpoint(algo, path or run_dir / "checkpoints" / f"step_{t:010d}", meta)
            if path is None:
                state["last_ckpt"] = t
                prune_checkpoints(run_dir, cfg["checkpoint"]["keep"], lambda old: shutil.rmtree(old, True))
            return p

        timers: dict[str, float] = {}
        bar = TrainingBar(progress, f"{env_name} RLlib PPO", budget_s, target, steps)
        clock.restart()
        if not resumed:
            run_eval(0)
        while (target is None or steps < int(target)) and (budget_s is None or clock.elapsed() < budget_s):
            result = algo.train()
            timers = _runner_timers(result, timers)
            steps = offset + main_steps(algo, mid)
            if writer is not None:
                for k, v in _scalars(result, mid).items():
                    writer.add_scalar(k, v, steps)
            if steps - state["last_snap"] >= int(cfg["selfplay"]["snapshot_every"]):
                if batched:  # a new frozen self in every env runner's pool (the last pool_size drawn)
                    slot = f"self_{state['next_slot']}"
                    send_snapshot(algo, cfg, slot)
                else:
                    slot = snaps[state["next_slot"] % len(snaps)]
                    take_snapshot(algo, slot)
                state["snapshots"][slot] = steps
                state["next_slot"] += 1
                state["last_snap"] = steps
            if steps - state["last_eval"] >= int(cfg["eval"]["every"]):
                run_eval(steps)
            if steps - state["last_ckpt"] >= int(cfg["checkpoint"]["every"]):
                checkpoint(steps)
            bar.show(steps, clock.elapsed(), latest)
        train_s = clock.elapsed()
        if state["last_eval"] < steps and (not resumed or steps > steps0):
            run_eval(steps)  # the curve ends at the final policy
        bar.close()
        checkpoint(steps)
        final = checkpoint(steps, run_dir / "final")
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        algo.stop()
        if we_started:
            ray.shutdown()

    summary = {"env_name": env_name, "backend": "rllib", "num_timesteps": steps,
               "train_seconds_this_run": round(train_s, 1),
               "steps_per_second": round((steps - steps0) / train_s, 1) if train_s > 0 else None,
               "final": str(final), "engine": cfg["rllib"].get("engine", "aec"), "env_runner_timers": timers,
               "env_runner_nodes": list(runner_nodes), "cluster_nodes": cluster_nodes}
    if verbose:
        print(f"\n{env_name} {cfg['env_config']}: trained to {steps:,} steps with RLlib "
              f"({train_s / 60:.1f} min this run, {summary['steps_per_second']} steps/s); policy {final}")
    from agents.rllib_agent import RLlibAgent

    evaluated = final_eval and cfg["eval"]["final_games"] > 0
    finish_run(run_dir, cfg, summary, RLlibAgent.load(final) if evaluated else None, started=started,
               final_eval=final_eval, verbose=verbose, who="RLlib PPO")
    return run_dir


# ================================================================================= CLI
def backend_of(run_dir: str | Path | None) -> str | None:
    """The backend a run folder was trained with (``"rllib"`` or ``"sb3"``), None without one."""
    if run_dir is None:
        return None
    try:
        return json.loads((Path(run_dir) / "config.json").read_text()).get("backend", "sb3")
    except (OSError, ValueError):
        return None  # the trainer says what is wrong with the folder


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The flags this backend adds to ``python -m training.train``."""
    ap.add_argument("--num-env-runners", type=int,
                    help="RLlib EnvRunner actors playing games, one CPU each (default 2)")
    ap.add_argument("--address", help="join this Ray cluster (e.g. auto, or HEAD_IP:6379) instead of "
                    "starting a local Ray instance")
    ap.add_argument("--num-cpus", type=float, help="CPUs of the local Ray instance (default: all cores)")
    ap.add_argument("--no-ship-code", action="store_true",
                    help="with --address: do not upload this checkout's packages to the cluster "
                         "(they are installed there)")


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli
    from training.runs import add_run_arguments

    ap = cli.Parser(prog="python -m training.rllib_backend", description=__doc__)
    add_run_arguments(ap, opponents_help="comma-separated pool: random,heuristic,self,ppo:PATH,rllib:PATH",
                      config_help="the training configuration: JSON files (may hold an 'rllib' section) and "
                                  "KEY=VALUE pairs (game options go into env_config; "
                                  "rllib.num_envs_per_env_runner=4)")
    add_arguments(ap)
    args = ap.parse_args(argv)
    if args.game is None and args.resume is None:
        ap.error("name a game (e.g. golf) or --resume RUN_DIR")
    try:
        game = cli.game_name(args.game) if args.game is not None else None
        train_rllib(game, args.timesteps, args.num_env_runners, args.address, args.out, args.seed,
                    args.config or None, minutes=args.minutes, opponents=args.opponents, name=args.name,
                    resume=args.resume, num_cpus=args.num_cpus, ship_code=not args.no_ship_code,
                    progress=not args.no_progress, argv=list(argv) if argv is not None else sys.argv[1:],
                    players=args.players, override_config=args.override_config)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
