"""The heuristic agent: one rule-based player per game, deciding from the observation alone.

``HeuristicAgent.act(observation, agent, env_name)`` decodes the observation vector into that
game's PlayerView (``card_envs/<game>/view.py``) and hands it to the game's heuristic in
``agents/heuristics/<game>.py``. It never sees the environment's state, so it cannot peek at a
hidden card (tests/agents prove it: changing only hidden cards never changes its choice).

Decoding and deciding need the table's options (the size, the decks, Guillotine's
``trick_rank_order``, ...), which every player at a table knows: every runner hands them over in
the protocol's ``start_game(env_name, config, agent)`` hook (``agents/base.py``), and the agent
plays by exactly those rules; an observation that does not fit them is a ValueError. Told
nothing (a loop of your own that never calls ``agents.base.start_game``), it assumes the game's
defaults, adjusting only ``num_players`` to the observation's size, which is wrong for any other
non-default option: call the hook. ``setup(env_name, config)`` is the deprecated name of the
same thing.
"""

from __future__ import annotations

import functools
import importlib
import json
from typing import Any

import numpy as np


@functools.lru_cache(maxsize=64)
def _decoding_env(env_name: str, config_json: str):
    """A raw environment of one table, used only for its (stateless) ``decode``: shared by every
    heuristic agent of the process, since building one costs milliseconds (gymnasium's spaces)."""
    import card_envs

    return card_envs.ENVIRONMENTS[env_name].raw_env(**json.loads(config_json))


class HeuristicAgent:
    name = "heuristic"
    #: its move is a function of the observation alone (no heuristic draws from ``rng``; a test
    #: checks): whoever computes it, this process or a helper, computes the same move
    pure_moves = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self._configs: dict[str, dict] = {}
        self._decoders: dict[tuple[str, int], Any] = {}
        self._policies: dict[str, Any] = {}

    def start_game(self, env_name: str, config: dict | None, agent: str | None = None) -> None:
        """The protocol's hook: the table's options (public knowledge), before a game. The
        agent plays ``env_name`` by these rules until told others."""
        config = {k: v for k, v in dict(config or {}).items() if k != "render_mode"}
        if self._configs.get(env_name) != config:
            self._configs[env_name] = config
            self._decoders = {k: v for k, v in self._decoders.items() if k[0] != env_name}

    def end_game(self, observation: dict, reward: float, info: dict) -> None:
        """Nothing to learn from a result: the heuristic is fixed."""

    def setup(self, env_name: str, config: dict | None = None) -> None:
        """Deprecated: the older name of :meth:`start_game` (runners now call the hook)."""
        self.start_game(env_name, config)

    def decoder(self, env_name: str, size: int):
        """A raw environment of the right configuration, used only for its decode()."""
        key = (env_name, size)
        if key not in self._decoders:
            import card_envs

            if env_name not in card_envs.ENVIRONMENTS:
                raise ValueError(f"no heuristic for unknown game {env_name!r}")
            if env_name in self._configs:  # told the table's options: exactly those
                base = self._configs[env_name]
                e = _decoding_env(env_name, json.dumps(base, sort_keys=True, default=str))
                if e.observation_layout.size != size:
                    raise ValueError(
                        f"a {env_name} observation of size {size} does not fit the table options "
                        f"{base} given in start_game (they make observations of size "
                        f"{e.observation_layout.size})"
                    )
                self._decoders[key] = e
                return e
            base = {}  # told nothing: the defaults, the size adjusted to the observation
            candidates = [base] + [dict(base, num_players=n) for n in range(1, 13) if n != base.get("num_players")]
            for cfg in candidates:
                try:
                    e = _decoding_env(env_name, json.dumps(cfg, sort_keys=True, default=str))
                except ValueError:
                    continue
                if e.observation_layout.size == size:
                    self._decoders[key] = e
                    break
            else:
                raise ValueError(
                    f"cannot decode a {env_name} observation of size {size}: tell the agent the table's "
                    "options with agents.base.start_game(agent, env_name, config, seat) before the game"
                )
        return self._decoders[key]

    def policy(self, env_name: str):
        if env_name not in self._policies:
            game = env_name.rsplit("_v", 1)[0]
            try:
                self._policies[env_name] = importlib.import_module(f"agents.heuristics.{game}")
            except ModuleNotFoundError as e:
                raise ValueError(f"no heuristic written for {env_name}: write agents/heuristics/{game}.py with "
                                 "choose(view, mask, rules, rng) (the documentation's adding-a-game guide)") from e
        return self._policies[env_name]

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        mask = np.asarray(observation["action_mask"])
        if not mask.any():
            raise ValueError(f"{agent} has no legal action: act() is only for the agent to act")
        x = observation["observation"]
        env = self.decoder(env_name, len(x))
        view = env.decode(x)
        action = int(self.policy(env_name).choose(view, mask, env.rules, self.rng))
        if not mask[action]:  # a bug in a heuristic must never become an illegal move
            raise AssertionError(f"{env_name} heuristic chose illegal action {action}")
        return action
