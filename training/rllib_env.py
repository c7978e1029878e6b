"""A card_envs AEC game as RLlib's ``MultiAgentEnv`` (the ``rllib.engine = "aec"`` of
``--backend rllib``, which seats any agent; the default engine is the batched one,
:mod:`training.rllib_batched`).

:class:`RLlibCardEnv` wraps ``card_envs.<game>_v0.env(**env_config)``, unchanged: it returns only
the agent to act's observation, and every agent's last observation and reward when the game
ends, as RLlib's own ``PettingZooEnv`` does. It renames the observation dict's keys to those of
RLlib's action-masking example (``ActionMaskingTorchRLModule``), which the network,
``agents.rllib_agent.MaskedPPOTorchRLModule``, follows: ``{"observations": vector,
"action_mask": mask}``, the mask as float32, since the module adds its log to the logits. The
rewards an agent gets are AEC's cumulative rewards since its previous move (its own move and the
others' after it), so a seat's return is its total reward in the game. The class is built on
first use (:func:`env_class`), so that importing this module does not import Ray.
"""

from __future__ import annotations

import numpy as np


def to_rllib_obs(obs: dict) -> dict:
    """A card_envs observation in the keys of RLlib's action-masking module."""
    return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def env_class():
    """:class:`RLlibCardEnv`, built on first use so that importing this module (for its CLI
    flags, from ``training.train``) does not import Ray."""
    if "RLlibCardEnv" not in globals():
        globals()["RLlibCardEnv"] = _make_env_class()
    return globals()["RLlibCardEnv"]


def __getattr__(name: str):  # PEP 562: ``training.rllib_env.RLlibCardEnv`` builds the class
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


def env_creator(env_config: dict):
    """RLlib's env creator of the AEC engine."""
    return env_class()(env_config)
