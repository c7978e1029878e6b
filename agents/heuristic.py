"""The heuristic agent: one rule-based player per game, deciding from the observation alone.

``HeuristicAgent.act(observation, agent, env_name)`` decodes the observation vector into that
game's PlayerView (``card_envs/<game>/view.py``) and hands it to the game's heuristic in
``agents/heuristics/<game>.py``. It never sees the environment's state, so it cannot peek at a
hidden card (tests/agents prove it: changing only hidden cards never changes its choice).

Decoding needs the game's configuration (the table's size, the decks), which every player at a
table knows: harnesses call ``setup(env_name, config)``; without it the agent assumes the
game's defaults, adjusting ``num_players`` to the observation's size.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


class HeuristicAgent:
    name = "heuristic"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self._configs: dict[str, dict] = {}
        self._decoders: dict[tuple[str, int], Any] = {}
        self._policies: dict[str, Any] = {}

    def setup(self, env_name: str, config: dict | None = None) -> None:
        """Tell the agent the game's options (public knowledge at the table)."""
        self._configs[env_name] = dict(config or {})
        self._decoders = {k: v for k, v in self._decoders.items() if k[0] != env_name}

    def decoder(self, env_name: str, size: int):
        """A raw environment of the right configuration, used only for its decode()."""
        key = (env_name, size)
        if key not in self._decoders:
            import card_envs

            if env_name not in card_envs.ENVIRONMENTS:
                raise ValueError(f"no heuristic for unknown game {env_name!r}")
            module = card_envs.ENVIRONMENTS[env_name]
            base = self._configs.get(env_name, {})
            candidates = [base] + [dict(base, num_players=n) for n in range(1, 13) if n != base.get("num_players")]
            for cfg in candidates:
                try:
                    e = module.raw_env(**cfg)
                except ValueError:
                    continue
                if e.observation_layout.size == size:
                    self._decoders[key] = e
                    break
            else:
                raise ValueError(
                    f"cannot decode a {env_name} observation of size {size}: call setup(env_name, config) "
                    "with the game's options"
                )
        return self._decoders[key]

    def policy(self, env_name: str):
        if env_name not in self._policies:
            game = env_name.rsplit("_v", 1)[0]
            try:
                self._policies[env_name] = importlib.import_module(f"agents.heuristics.{game}")
            except ModuleNotFoundError as e:
                raise ValueError(f"no heuristic written for {env_name}") from e
        return self._policies[env_name]

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError(f"{agent} has no legal action: act() is only for the agent to act")
        x = observation["observation"]
        env = self.decoder(env_name, len(x))
        view = env.decode(x)
        action = int(self.policy(env_name).choose(view, mask, env.rules, self.rng))
        if not mask[action]:  # a bug in a heuristic must never become an illegal move
            raise AssertionError(f"{env_name} heuristic chose illegal action {action}")
        return action
