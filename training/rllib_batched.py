"""The batched engine as a gymnasium vector env: what an RLlib env runner steps, many games at once.

    from training.rllib_batched import BatchedVectorEnv
    env = BatchedVectorEnv({"env_name": "golf_v0", "env_config": {"num_players": 2},
                            "opponents": ["random", "heuristic"], "num_envs": 256, "seed": 0})
    obs, infos = env.reset(seed=0)          # {"observations": (N, D) float32, "action_mask": (N, A) float32}
    obs, rewards, terminated, truncated, infos = env.step(actions)

This is :class:`training.batched.BatchedLearnerView` (the learner's seat of N games on
``vector_env``, every other seat played from the opponent pool in batch: random by the engine's
sampler, the heuristic through its compiled twin where the game has one, frozen selves and PPO
policies by one batched forward each) behind gymnasium's ``VectorEnv`` interface, so that RLlib's
``SingleAgentEnvRunner`` steps it directly: the env runner registers the creator with a
``vector_entry_point`` and ``config.env_runners(gym_env_vectorize_mode="vector_entry_point")``
makes it call ``BatchedVectorEnv(env_config | {"num_envs": n})`` once for all its games
(https://docs.ray.io/en/latest/rllib/rllib-env.html, "Vectorization";
https://gymnasium.farama.org/api/vector/). The learner's reward is the view's: its own reward
since its previous decision, so an episode's return is its total reward of the game.

**Resets come one step later** (gymnasium's ``AutoresetMode.NEXT_STEP``, the mode RLlib's env
runners expect): the step in which a game ends returns its terminal observation with
``terminated`` (or ``truncated``, the game's own cut-off); the next step ignores that row's
action and returns the first observation of the row's next game, reward 0. The view deals the
next game at once; this class holds the row for that one step (``BatchedLearnerView.step(...,
hold=...)``), so its game waits and any reward its learner receives before its first decision
stays for that decision. The terminal observation's mask is all ones (no action is taken from it:
RLlib's masked module adds the mask's log to the logits, which all zeros would make NaN).

Infos are gymnasium's vector form, filled only where a game ended: ``score``, ``rank``,
``seat``, ``game_reward`` (each with its ``_key`` mask).

**Frozen selves** come from the learner's weights: :meth:`add_snapshot` takes a
``agents.ppo.MaskedPolicy`` (the actor in numpy, :func:`snapshot_policy` makes it from an RLlib
module) and the ``"self"`` entries of the pool draw from the last ``pool_size`` snapshots.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the keys of RLlib's action-masking example module (agents.rllib_agent.MaskedPPOTorchRLModule)
OBS, MASK = "observations", "action_mask"


def _vector_env_base():
    import gymnasium as gym

    return gym.vector.VectorEnv


class BatchedVectorEnv(_vector_env_base()):
    """``num_envs`` games of one table, the learner in one seat of each, as a gymnasium
    ``VectorEnv`` with next-step autoreset (see the module docstring). ``config``: ``env_name``,
    ``env_config`` (the table), ``num_envs``, and the view's ``opponents``, ``opponent_weights``,
    ``pool_size``, ``self_deterministic``, ``seed``, ``seat_offset``, ``opponent_seating``."""

    def __init__(self, config: dict[str, Any]):
        import gymnasium as gym
        from gymnasium.vector import AutoresetMode
        from gymnasium.vector.utils import batch_space

        from training.batched import BatchedLearnerView
        from training.opponents import MIXED

        config = dict(config)
        known = {"env_name", "env_config", "num_envs", "opponents", "opponent_weights", "pool_size",
                 "self_deterministic", "seed", "seat_offset", "learner_seat", "opponent_seating"}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(f"unknown key(s) {unknown} for BatchedVectorEnv; keys: {sorted(known)}")
        if "env_name" not in config:
            raise ValueError("BatchedVectorEnv needs env_name (golf_v0, ...)")
        self.view = BatchedLearnerView(
            config["env_name"], config.get("env_config") or {}, num_envs=int(config.get("num_envs", 64)),
            opponents=config.get("opponents") or ["random"], opponent_weights=config.get("opponent_weights"),
            learner_seat=config.get("learner_seat", "rotate"), seat_offset=int(config.get("seat_offset", 0)),
            pool_size=int(config.get("pool_size", 5)), self_deterministic=bool(config.get("self_deterministic", False)),
            seed=config.get("seed"), opponent_seating=config.get("opponent_seating", MIXED))
        v = self.view
        self.num_envs = n = v.num_envs
        self.env_name = v.env_name
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "name": v.env_name}
        self.render_mode = None
        self.single_observation_space = gym.spaces.Dict({
            OBS: gym.spaces.Box(-np.inf, np.inf, (v.obs_size,), np.float32),
            MASK: gym.spaces.Box(0.0, 1.0, (v.num_actions,), np.float32),
        })
        self.single_action_space = gym.spaces.Discrete(v.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._resetting = np.zeros(n, dtype=np.bool_)  # rows whose game ended in the last step
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)

    # --------------------------------------------------------------------------- gymnasium
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs = self.view.reset(seed=seed, options=options)
        self._resetting[:] = False
        return self._observation(obs), {}

    def step(self, actions):
        a = np.asarray(actions).astype(np.int64, copy=False).reshape(self.num_envs)
        # a held row's action is ignored (the view never looks at it): RLlib still sends one,
        # chosen from the terminal observation
        obs, rewards, dones, infos = self.view.step(a, hold=self._resetting)
        out = self._observation(obs)
        self._terminated[:] = False
        self._truncated[:] = False
        info: dict[str, Any] = {}
        if dones.any():
            rows = np.flatnonzero(dones)
            ended = {k: np.zeros(self.num_envs, dtype=t) for k, t in
                     (("score", np.float64), ("rank", np.int64), ("seat", np.int64), ("game_reward", np.float64))}
            for g in rows.tolist():
                i = infos[g]
                out[OBS][g] = i["terminal_observation"]
                out[MASK][g] = 1.0
                (self._truncated if i["TimeLimit.truncated"] else self._terminated)[g] = True
                for k in ended:
                    ended[k][g] = i[k]
            for k, values in ended.items():
                info[k], info[f"_{k}"] = values, dones.copy()
        self._resetting[:] = dones
        return out, rewards.astype(np.float32), self._terminated.copy(), self._truncated.copy(), info

    def held_rows(self) -> np.ndarray:
        """The games whose game ended in the last step: the next step deals their next game and
        ignores their action (a copy)."""
        return self._resetting.copy()

    def close(self, **kwargs) -> None:
        self.view.close()

    def _observation(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {OBS: np.asarray(obs, dtype=np.float32).copy(),
                MASK: self.view.action_masks().astype(np.float32)}

    # --------------------------------------------------------------------------- the pool
    def add_snapshot(self, name: str, policy: Any) -> None:
        """A frozen past self for the pool's ``"self"`` entries (a ``MaskedPolicy``)."""
        self.view.add_snapshot(name, policy)

    def snapshot_names(self) -> list[str]:
        return self.view.snapshot_names()


def snapshot_policy(module: Any):
    """The actor of an RLlib masked PPO module (RLlib's default MLP layout) as an
    ``agents.ppo.MaskedPolicy``: what the env runners' frozen selves play, one batched numpy
    forward per engine step; a ValueError for a module of another layout."""
    from agents.ppo import MaskedPolicy
    from agents.rllib_agent import RLlibAgent

    agent = RLlibAgent(module)
    actor = agent._actor
    if actor is None:
        raise ValueError("self-play snapshots need RLlib's default PPO network (an MLP actor): this module is not one")
    *hidden, head = actor
    # RLlibAgent keeps (in, out) weights; MaskedPolicy takes torch's (out, in)
    return MaskedPolicy([(w.T, b) for w, b in hidden], (head[0].T, head[1]), agent.activation_name)
