"""The configuration of a ``--backend rllib`` run: the SB3 harness's, an ``"rllib"`` section, and
RLlib's ``PPOConfig`` built from them.

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

import copy
import functools
import sys
from pathlib import Path
from typing import Any

from training.config import torch_threads, train_env_config
from training.rllib_env import env_class, env_creator
from training.rllib_modules import (MAIN, SeatMapping, agent_module_class, agent_module_id, masking_module_class,
                                    snapshot_ids)

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
    teacher = (cfg.get("imitation") or {}).get("teacher")
    if teacher:
        if user is not None and (user.get("imitation") or {}).get("teacher"):
            raise ValueError("imitation (a warm start from a teacher's games, training/imitation.py) is a feature of "
                             "the SB3 backend; with --backend rllib set imitation.teacher=null")
        # the game's own configuration asks for it (for SB3): RLlib's PPO starts from uniform play
        cfg["imitation"] = {**cfg["imitation"], "teacher": None}
        print(f"{env_name}: the RLlib backend has no imitation warm start; the game configuration's imitation of "
              f"{teacher} is left out", file=sys.stderr)
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
    register_env("card_envs", env_creator)
    env_name, env_config, rl = cfg["env_name"], train_env_config(cfg), cfg["rllib"]
    probe = env_class()({"env_name": env_name, "env_config": env_config})
    from training.opponents import FIELD, MIXED, opponent_pool

    pool, weights = opponent_pool(cfg, kinds=("random", "heuristic", "self", "ppo", "rllib"))
    snaps = snapshot_ids(cfg["selfplay"]["pool_size"])
    bad = sorted(set(rl.get("ppo") or {}) - set(cfg["ppo"]))
    if bad:
        raise ValueError(f"unknown key(s) {bad} in rllib.ppo; keys: {sorted(cfg['ppo'])}")
    ppo = rllib_ppo(cfg)
    model = _model_config(cfg)
    masking = masking_module_class()
    agent_cls = agent_module_class()
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
    mapping = SeatMapping(probe.possible_agents, pool, weights, rl["shared_seats_prob"], len(snaps),
                          field=cfg.get("opponent_seating", MIXED) == FIELD)
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

    from training.opponents import MIXED, opponent_pool
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
                  "pool_size": int(cfg["selfplay"]["pool_size"]),
                  "opponent_seating": cfg.get("opponent_seating", MIXED)}
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
