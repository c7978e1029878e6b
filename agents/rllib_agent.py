"""RLlib policies (trained by ``python -m training.train <game> --backend rllib``) as agents.

    import agents
    a = agents.load("rllib:runs/golf_v0/20250101-120000")          # a run folder: its final/
    a = agents.load("rllib:runs/golf_v0/20250101-120000/checkpoints/step_0000020480")
    a.act(observation, "player_1", "golf_v0")

PATH is a run folder (its ``final/``), an Algorithm checkpoint (``algo.save_to_path``; the
``main`` module is played), a MultiRLModule checkpoint (``.../learner_group/learner/rl_module``)
or a single RLModule checkpoint. The module is loaded with ``RLModule.from_checkpoint`` (needs
torch and Ray's RLlib, the ``distributed`` extra; Ray itself is not started). When it is RLlib's
default PPO network, its actor is copied into numpy (checked at load to give the module's own
logits): a decision takes ~25 µs, with no torch threads to fight over in tournament workers;
any other module runs through its ``forward_inference`` on the CPU.

A policy plays any seat: observations are from the observer's seat. The mask is applied twice:
by the module (RLlib's action-masking module adds log(mask) to the logits) and again here, so
the agent never makes an illegal move. Greedy (``deterministic=True``, spec flag ``greedy``, the
default) plays the most probable legal action; ``sample`` (``deterministic=False``) samples from
the masked softmax with the agent's own seeded generator.

The table: ``start_game(env_name, config, agent)`` (the protocol's hook, ``agents/base.py``)
compares the table's options, defaults filled in, with the training options recorded in the
checkpoint's ``card_envs.json`` (``env_config``) and raises a ValueError naming each differing
option with both values (``reward_mode`` aside), unless ``any_table`` (spec
``rllib:PATH,any_table``). A module with no recorded options is refused the same way.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

META_FILE = "card_envs.json"
MAIN = "main"
OBS_KEY, MASK_KEY = "observations", "action_mask"  # the keys of RLlib's action-masking example

_ACTIVATIONS = {  # torch.nn activations RLlib's MLPs use, in numpy
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "ELU": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
    "SiLU": lambda x: x / (1.0 + np.exp(-x)),
    "Identity": lambda x: x,
}


def _masked_ppo_module_class():
    """``MaskedPPOTorchRLModule``: RLlib's default PPO network with action masking.

    The same design and input keys as RLlib's example ``ActionMaskingTorchRLModule``
    (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``): the observation space is a
    Dict ``{"observations": Box, "action_mask": Box(0, 1, (n,))}``; the network is built for
    ``"observations"`` alone, and log(mask) (-inf -> RLlib's FLOAT_MIN) is added to the action
    logits in every forward pass, so an illegal action has probability 0 when sampling, when
    acting greedily and in the PPO loss. Kept here rather than imported from RLlib's examples
    (not a public API; it subclasses a deprecated alias) so that checkpoints name a stable class.
    """
    import gymnasium as gym
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    import torch

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        def __init__(self, *, observation_space=None, **kwargs):
            keys = set(getattr(observation_space, "spaces", None) or ())
            if not isinstance(observation_space, gym.spaces.Dict) or keys != {OBS_KEY, MASK_KEY}:
                raise ValueError(
                    f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and "
                    f"{MASK_KEY!r} (training.rllib_backend.RLlibCardEnv provides it), got {observation_space}"
                )
            self.observation_space_with_mask = observation_space
            super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

        def setup(self):
            super().setup()  # the networks are built for the observations alone
            self.observation_space = self.observation_space_with_mask  # checkpoints rebuild from the Dict

        @staticmethod
        def _split(batch):
            obs = batch[Columns.OBS]
            if not isinstance(obs, dict):
                raise ValueError(f"expected observations as {{{OBS_KEY!r}, {MASK_KEY!r}}}, got {type(obs).__name__}")
            batch = dict(batch)
            batch[Columns.OBS] = obs[OBS_KEY]
            return obs[MASK_KEY], batch

        @staticmethod
        def _mask(out, mask):
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
                torch.log(mask.to(out[Columns.ACTION_DIST_INPUTS].dtype)), min=FLOAT_MIN)
            return out

        def _forward_inference(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._mask(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch, embeddings=None):
            if isinstance(batch[Columns.OBS], dict):
                _, batch = self._split(batch)
            return super().compute_values(batch, embeddings)

    MaskedPPOTorchRLModule.__module__ = __name__
    MaskedPPOTorchRLModule.__qualname__ = "MaskedPPOTorchRLModule"
    return MaskedPPOTorchRLModule


try:  # module-level, so that checkpoints can name it (needs Ray RLlib and torch)
    MaskedPPOTorchRLModule = _masked_ppo_module_class()
except ImportError:  # pragma: no cover - the distributed extra is not installed
    MaskedPPOTorchRLModule = None


def resolve_module_dir(path: str | Path, module_id: str = MAIN) -> tuple[Path, dict]:
    """The RLModule checkpoint folder a PATH names, and the card_envs metadata found beside it."""
    p = Path(path).expanduser()
    if not p.exists():
        raise FileNotFoundError(f"no RLlib checkpoint at {p}")
    meta: dict = {}
    if (p / "final").is_dir() and (p / "config.json").is_file():  # a run folder
        p = p / "final"
    if (p / META_FILE).is_file():
        meta = json.loads((p / META_FILE).read_text())
        if module_id == MAIN:  # the run's own trained module (a batched-engine run's is default_policy)
            module_id = meta.get("module_id") or MAIN
    candidates = [
        p / "learner_group" / "learner" / "rl_module" / module_id,  # an Algorithm checkpoint
        p / "learner" / "rl_module" / module_id,  # a LearnerGroup checkpoint
        p / "rl_module" / module_id,  # a Learner checkpoint
        p / module_id,  # a MultiRLModule checkpoint
        p,  # an RLModule checkpoint
    ]
    for c in candidates:
        if (c / "class_and_ctor_args.pkl").is_file() and any(c.glob("module_state*")):
            return c, meta
    raise FileNotFoundError(
        f"{path} holds no RLModule {module_id!r}: give a run folder, an Algorithm checkpoint "
        "(checkpoints/step_N or final) or an RLModule checkpoint folder"
    )


class RLlibAgent:
    """An RLlib RLModule with action masking (``{"observations", "action_mask"}`` inputs) as an Agent."""

    def __init__(self, module: Any, meta: dict | None = None, deterministic: bool = True, seed: int | None = None,
                 any_table: bool = False):
        import torch

        self.torch = torch
        self.module = module
        if hasattr(module, "eval"):
            module.eval()
        self.meta = dict(meta or {})
        self.deterministic = bool(deterministic)
        self.any_table = bool(any_table)
        self.path: str | None = None
        self._tables_ok: set[tuple[str, str]] = set()
        self.rng = np.random.default_rng(seed)
        space = getattr(module, "observation_space", None)
        try:
            self.obs_size = int(space["observations"].shape[0])
        except (TypeError, KeyError, AttributeError):
            self.obs_size = None
        self._actor = self._find_actor()

    @classmethod
    def load(cls, path: str | Path, module_id: str = MAIN, deterministic: bool = True,
             seed: int | None = None, any_table: bool = False) -> "RLlibAgent":
        """The module ``module_id`` (default ``main``) of an RLlib checkpoint, on the CPU."""
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError as e:  # pragma: no cover - the extra is missing
            raise ImportError("rllib:PATH agents need Ray RLlib: pip install -e '.[distributed]'") from e

        folder, meta = resolve_module_dir(path, module_id)
        logging.disable(logging.WARNING)  # RLlib's own loader warns that it passes a deprecated `config`
        try:
            module = RLModule.from_checkpoint(str(folder.resolve()))
        finally:
            logging.disable(logging.NOTSET)
        agent = cls(module, meta, deterministic=deterministic, seed=seed, any_table=any_table)
        agent.path = str(folder)
        agent._spec_path = str(path)
        return agent

    def spec(self) -> str:
        """The agent's spec (``agents.load``'s form), its non-default flags included."""
        base = f"rllib:{getattr(self, '_spec_path', None) or self.path}" if self.path else "rllib"
        flags = ([] if self.deterministic else ["sample"]) + (["any_table"] if self.any_table else [])
        return ",".join([base] + flags)

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.spec()

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def policy_file(self, env_name: str | None = None) -> str | None:
        """The RLModule checkpoint folder this agent plays (None for a module given as an object)."""
        return self.path

    # ------------------------------------------------------------------ the protocol's hooks
    def start_game(self, env_name: str, config: dict | None, agent: str | None = None) -> None:
        """Refuse (ValueError) a table whose options differ from the training options, naming
        each differing option with both values, unless ``any_table``."""
        trained = self.meta.get("env_name")
        if trained is not None and trained != env_name:
            raise ValueError(f"this RLlib policy was trained on {trained}, not {env_name}")
        if self.any_table:
            return
        key = (env_name, json.dumps(dict(config or {}), sort_keys=True, default=repr))
        if key in self._tables_ok:
            return
        from agents.base import check_training_table

        who = f"the RLlib policy {self.path}" if self.path else "this RLlib policy"
        hint = f"{self.spec()},any_table" if self.path else "any_table=True"
        check_training_table(who, env_name, config, self.meta, hint)
        self._tables_ok.add(key)

    def end_game(self, observation: dict, reward: float, info: dict) -> None:
        """A frozen policy learns nothing from a result."""

    def module_logits(self, observation: dict) -> np.ndarray:
        """The module's (masked) action logits for one observation, through RLlib's API."""
        torch = self.torch
        x = np.asarray(observation["observation"], dtype=np.float32)[None]
        m = np.asarray(observation["action_mask"], dtype=np.float32)[None]
        batch = {"obs": {"observations": torch.from_numpy(x), "action_mask": torch.from_numpy(m)}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        return out["action_dist_inputs"][0].cpu().numpy().astype(np.float64)

    def logits(self, observation: dict) -> np.ndarray:
        """Unmasked action logits of one observation: the actor copied into numpy when the
        module is RLlib's default PPO network (checked at load to give the module's own logits;
        no torch threads, ~10x faster than ``forward_inference``), else the module itself."""
        if self._actor is None:
            return self.module_logits(observation)
        h = np.asarray(observation["observation"], dtype=np.float32)
        *hidden, (w, b) = self._actor
        for wi, bi in hidden:
            h = self._activation(h @ wi + bi)
        return (h @ w + b).astype(np.float64)

    def _find_actor(self):
        """The actor (policy encoder, then policy head) of a default PPO module as numpy
        ``(weight, bias)`` layers with one activation between them; None for any other module."""
        torch = self.torch
        try:
            nets = [self.module.encoder.actor_encoder.net.mlp, self.module.pi.net.mlp]
            if self.module.is_stateful() or self.obs_size is None:
                return None
        except Exception:  # noqa: BLE001 - not RLlib's default PPO layout
            return None
        layers, acts = [], set()
        for net in nets:
            for m in net:
                if isinstance(m, torch.nn.Linear):
                    b = m.bias if m.bias is not None else torch.zeros(m.out_features)
                    layers.append((m.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                                   b.detach().cpu().numpy().astype(np.float32).copy()))
                elif type(m).__name__ in _ACTIVATIONS:
                    acts.add(type(m).__name__)
                else:
                    return None  # layer norm, dropout, ...: keep the module
        if len(acts) > 1:
            return None
        self.activation_name = acts.pop() if acts else "Identity"  # torch.nn's name of the hidden layers
        self._activation = _ACTIVATIONS[self.activation_name]
        actor = layers
        saved, self._actor = getattr(self, "_actor", None), actor
        rng = np.random.default_rng(0)
        n = int(self.module.action_space.n)
        try:
            for _ in range(3):
                obs = {"observation": rng.standard_normal(self.obs_size).astype(np.float32),
                       "action_mask": np.ones(n, dtype=np.int8)}
                if not np.allclose(self.logits(obs), self.module_logits(obs), rtol=1e-4, atol=1e-4):
                    return None
        finally:
            self._actor = saved
        return actor

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError(f"{agent} has no legal action: act() is only for the agent to act")
        trained = self.meta.get("env_name")
        if trained is not None and trained != env_name:
            raise ValueError(f"this RLlib policy was trained on {trained}, not {env_name}")
        size = len(observation["observation"])
        if self.obs_size is not None and size != self.obs_size:
            raise ValueError(
                f"this RLlib policy takes {env_name} observations of size {self.obs_size}, got {size}: "
                f"it was trained with env_config {self.meta.get('env_config', '?')}"
            )
        z = np.where(mask, self.logits(observation), -np.inf)
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(len(p), p=p))
