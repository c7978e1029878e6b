"""The Agent protocol every player of this project follows, and the hooks every runner calls.

An agent sees only what the environment hands a player: the observation dict (vector and
action mask), the agent's name, the environment's name and, through the optional hooks, the
table's options (public knowledge at a card table) and its own result. It never reads the state.

    class Agent(Protocol):
        def act(self, observation: dict, agent: str, env_name: str) -> int      # required

        # optional hooks: a runner calls them when the agent has them
        def start_game(self, env_name: str, config: dict, agent: str) -> None
        def end_game(self, observation: dict, reward: float, info: dict) -> None

- ``act``: a legal action (an index of ``observation["action_mask"]`` that is 1) for the seat
  ``agent`` ("player_2") of the game ``env_name`` ("golf_v0", the environment's
  ``metadata["name"]``). Called only when that seat is to act.
- ``start_game(env_name, config, agent)``: before a game's first step, once for every seat the
  player holds in it. ``config`` is the table's options exactly as passed to ``env(**config)``;
  :func:`table_options` fills in the defaults. A player may raise ValueError to refuse a table
  it cannot play (a PPO policy trained on other options does, unless told ``any_table``).
- ``end_game(observation, reward, info)``: after the game, once for every seat the player held:
  the seat's final observation dict, its total reward of the game (the sum of every reward the
  seat received) and its final info (``{"score", "rank", ...}``).

One object may hold several seats of one game (a tournament of ``ppo heuristic heuristic
heuristic`` where one heuristic plays three seats): ``start_game`` comes once per seat, keyed by
``agent``, before any ``act``; the ``end_game`` calls come after the game in seat order. A
runner calls the hooks through :func:`start_game` and :func:`end_game` here, which skip a player
that lacks them, so a class with ``act`` alone is a complete agent.

Runners that call the hooks: ``training.evaluate``'s tournaments, the training opponents of both
backends (``training.single_agent.SingleAgentEnv``; the RLlib backend's frozen-agent modules get
``start_game`` once, with the run's table, and no ``end_game``: an RLModule sees batches of
rows, not games), ``agents.play`` and the notebooks. A loop of your own should call them too::

    from agents.base import start_game, end_game
    env = card_envs.golf_v0.env(**config)
    env.reset(seed=0)
    for a in env.possible_agents:
        start_game(player, "golf_v0", config, a)
    total = dict.fromkeys(env.possible_agents, 0.0)
    final = {}
    for a in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[a] += reward
        if term or trunc:
            final[a] = (obs, info)
            env.step(None)
        else:
            env.step(player.act(obs, a, "golf_v0"))
    for a in env.possible_agents:
        end_game(player, final[a][0], total[a], final[a][1])
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Protocol, runtime_checkable

import numpy as np

#: Options that change what a game pays, not how it is played: a policy trained on one
#: ``reward_mode`` plays the same game under the other (training uses the score reward,
#: evaluation the rank reward), so they are left out when a table is compared with a policy's.
PAYOFF_OPTIONS = ("reward_mode",)


@runtime_checkable
class Agent(Protocol):
    """Chooses a legal action from a player's observation (the one required method); see the
    module docstring for the optional ``start_game`` / ``end_game`` hooks."""

    def act(self, observation: dict, agent: str, env_name: str) -> int: ...


# the hooks' callers (skipping a player without them), shared with the environments' own runners
from card_envs.players import end_game, start_game  # noqa: E402,F401


# ------------------------------------------------------------------------- table options
_TABLE_CACHE: dict[tuple[str, str], dict] = {}


def env_name_of(game: str) -> str:
    """``"golf"`` or ``"golf_v0"`` -> ``"golf_v0"``; an unknown game is a ValueError."""
    import card_envs

    name = game if isinstance(game, str) and game.endswith("_v0") else f"{game}_v0"
    if name not in card_envs.ENVIRONMENTS:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(card_envs.ENVIRONMENTS)}")
    return name


def table_options(env_name: str, config: dict | None = None) -> dict:
    """The table's complete options: every option of the game, the defaults filled in.

    Read from the game's Rules config dataclass after its checks ran, so ``{}`` and the same
    options spelled out give the same dict and two configurations can be compared key by key.
    Values the rules derive from others appear as derived (Golf's ``max_turns_per_round=None``
    becomes ``60 * num_players``). ``render_mode`` is not an option of the game and is dropped.
    Bad options raise the game's own ValueError.
    """
    import card_envs

    name = env_name_of(env_name)
    options = {k: v for k, v in dict(config or {}).items() if k != "render_mode"}
    key = (name, json.dumps(options, sort_keys=True, default=repr))
    if key not in _TABLE_CACHE:
        rules = card_envs.ENVIRONMENTS[name].raw_env.Rules(**options)
        _TABLE_CACHE[key] = dataclasses.asdict(rules.config)
    return dict(_TABLE_CACHE[key])


def option_differences(env_name: str, table: dict | None, trained: dict | None,
                       ignore: tuple[str, ...] = PAYOFF_OPTIONS) -> list[tuple[str, Any, Any]]:
    """``(option, table value, trained value)`` for every option on which two configurations of
    a game differ, defaults filled in (options in ``ignore`` are skipped)."""
    a, b = table_options(env_name, table), table_options(env_name, trained)
    return [(k, a.get(k), b.get(k)) for k in a if k not in ignore and a.get(k) != b.get(k)]


def check_training_table(who: str, env_name: str, config: dict | None, meta: dict, flag_hint: str) -> None:
    """Refuse (ValueError) a table whose options differ from those a policy was trained with.

    ``meta`` is the policy's metadata: ``env_name`` and ``env_config`` (the options of its
    training table, as ``training.train`` records them). A policy with no ``env_config``
    recorded is refused too: nothing says it knows this table. ``flag_hint`` is the spec that
    plays it anyway (``"ppo:PATH,any_table"``).
    """
    trained_game = meta.get("env_name")
    if trained_game and trained_game != env_name:
        raise ValueError(f"{who} was trained on {trained_game}, not {env_name}")
    if meta.get("env_config") is None:
        raise ValueError(
            f"{who} carries no record of the table options it was trained with (a policy saved "
            f"outside training.train), so nothing says it can play this {env_name} table; "
            f"load it as {flag_hint!r} to play anyway"
        )
    diffs = option_differences(env_name, config, meta["env_config"])
    if diffs:
        listed = "; ".join(f"{k}: table {t!r}, training {p!r}" for k, t, p in diffs)
        raise ValueError(
            f"{who} was trained on other {env_name} options than this table's: {listed}. "
            f"Play it at its training table ({meta['env_config']}) or load it as {flag_hint!r} "
            "to play anyway"
        )


# -------------------------------------------------------------------------------- random
class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 0:
            raise ValueError(f"{agent} has no legal action: act() is only for the agent to act")
        return int(legal[self.rng.integers(len(legal))])

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)
