"""A gymnasium single-agent view of any card_envs game, for SB3 and sb3-contrib's MaskablePPO.

This is the single-game path: one Python game per environment. The harness trains on the batched
engine instead (``training/batched.py``, the same view for a whole batch, tested against this one
step for step); this view stays for ``--vec-env subproc|dummy``, for games or agents outside the
batched engine, and as the readable reference of the reward attribution below.

    from training.single_agent import SingleAgentEnv
    env = SingleAgentEnv("golf_v0", {"num_players": 2, "num_rounds": 1}, opponents=["random", "heuristic"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(env.action_masks().argmax()))

One seat is the learner's; every other seat is played by an agent drawn from an opponent pool
for the whole episode. ``step(action)`` plays the learner's action, then the opponents' moves,
until the learner must decide again or the game is over.

The reward is the learner's OWN: the sum of ``env.rewards[learner]`` over every AEC step since
its previous decision — its own move and all the opponents' moves after it. (PettingZoo's SB3
tutorial once returned the reward of the agent to act next, i.e. an opponent's.) Rewards that
reach the learner before its first decision (opponents moving first in a game with per-step
rewards) are added to the first step's reward, so an episode's return is exactly the learner's
total reward in the game.

- Observation: the game's observation vector (a float32 ``Box``) from the learner's seat.
- ``action_masks()``: the learner's legal actions (bool), as MaskablePPO asks for them.
- Seats: the learner's seat rotates each episode (``learner_seat="rotate"``; start at
  ``seat_offset``, so the envs of a vectorized batch sit in different seats), or is fixed.
- Opponent pool: agent specs (``"random"``, ``"heuristic"``, ``"ppo:PATH"``), Agent objects, and
  ``"self"``: a frozen past self, drawn from the snapshots added with :meth:`add_snapshot` (the
  self-play callback of ``training/selfplay.py`` does it; the last ``pool_size`` are kept). Each
  opponent seat draws an entry independently each episode, with ``opponent_weights`` (equal by
  default), or one draw fills every opponent seat (``opponent_seating="field"``: the learner
  against copies of one opponent, as the evaluation seats it); while no snapshot exists,
  ``"self"`` is left out of the draw.
- Illegal actions: the environment is ``env()`` (PettingZoo classic's behaviour): an illegal
  learner action ends the episode with -1 for the learner.
- End of an episode: ``info`` has the learner's ``score``, ``rank``, ``seat``, the opponents' names
  and ``game_reward`` (the learner's return).
- The agent protocol's hooks (``agents/base.py``): before each game every opponent seat's agent
  gets ``start_game(env_name, env_config, seat)`` (so the heuristic plays by this table's rules
  and a PPO opponent trained on other options refuses it), and after the game ``end_game`` with
  that seat's final observation, its total reward of the game (the sum of every reward it
  received, counted as the learner's is) and its final info. A seat that left the game early
  reports what it had when it left; when the learner's episode ends first (it went out while
  the others would play on), the others report the table as it stands then.

Everything random (deals, opponent draws, random opponents) comes from ``reset(seed=...)``, so
the same seed and actions give the same episode. Works in SB3's DummyVecEnv and SubprocVecEnv
(it pickles; only numpy is used to run frozen policies, never torch).
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np

import card_envs
from training.opponents import FIELD, MIXED, check_opponent_seating

SELF = "self"


def env_module(game: str):
    """The card_envs module of a game name: ``"golf"`` or ``"golf_v0"``."""
    name = game if game.endswith("_v0") else f"{game}_v0"
    if name not in card_envs.ENVIRONMENTS:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(card_envs.ENVIRONMENTS)}")
    return card_envs.ENVIRONMENTS[name]


def make_opponent(spec: Any, seed: int | None = None):
    """An Agent from a spec string (``agents.load``) or an Agent object (used as is)."""
    if isinstance(spec, str):
        import agents

        return agents.load(spec, seed=seed)
    if not hasattr(spec, "act"):
        raise ValueError(f"an opponent is an agent spec string or an object with act(), got {spec!r}")
    return spec


class SingleAgentEnv(gym.Env):
    """The learner's seat of a card_envs game, the other seats played from an opponent pool."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_name: str,
        env_config: dict | None = None,
        opponents: Sequence[Any] = ("random",),
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | str = "rotate",
        seat_offset: int = 0,
        pool_size: int = 5,
        self_deterministic: bool = False,
        render_mode: str | None = None,
        opponent_seating: str = MIXED,
    ):
        module = env_module(env_name)
        self.env_config = dict(env_config or {})
        self.env = module.env(**self.env_config)
        self.env_name = self.env.metadata["name"]
        self.agents = list(self.env.possible_agents)
        self.num_players = len(self.agents)
        if learner_seat != "rotate" and not (isinstance(learner_seat, int) and 0 <= learner_seat < self.num_players):
            raise ValueError(f"learner_seat must be 'rotate' or a seat in 0..{self.num_players - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        self.opponent_seating = check_opponent_seating(opponent_seating)
        self._seat_offset = self._episode = int(seat_offset)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode

        specs = list(opponents)
        if not specs:
            raise ValueError("the opponent pool is empty: give at least one of 'random', 'heuristic', 'self', ...")
        weights = [1.0] * len(specs) if opponent_weights is None else [float(w) for w in opponent_weights]
        if len(weights) != len(specs) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"opponent_weights must be {len(specs)} non-negative numbers, not all 0; got {opponent_weights!r}")
        self._pool: list[tuple[str, Any]] = []  # (name, agent) or ("self", None)
        self._weights = weights
        for spec in specs:
            if spec == SELF:
                self._pool.append((SELF, None))
            else:
                agent = make_opponent(spec)
                self._pool.append((spec if isinstance(spec, str) else getattr(agent, "name", type(agent).__name__), agent))
        self.pool_size = int(pool_size)
        self.self_deterministic = self_deterministic
        self._snapshots: list[tuple[str, Any]] = []
        self._fallback: tuple[str, Any] | None = None  # plays "self" until the first snapshot

        space = self.env.observation_space(self.agents[0])
        self.observation_space = space["observation"]
        self.action_space = self.env.action_space(self.agents[0])
        self.learner = self.agents[0]
        self._seat_agents: dict[str, Any] = {}
        self._seat_names: dict[str, str] = {}
        self._seat_rewards: dict[str, float] = {}  # each opponent seat's reward of the game so far
        self._seat_final: dict[str, tuple[dict, dict]] = {}  # what a seat had when it left the game
        self._obs: dict | None = None
        self._pending = 0.0
        self._return = 0.0
        self.game_seed: int | None = None

    # -------------------------------------------------------------------------- the pool
    def add_snapshot(self, name: str, policy: Any) -> None:
        """Add a frozen past self (an agents.ppo.MaskedPolicy or PPOAgent); keeps the last pool_size."""
        from agents.ppo import MaskedPolicy, PPOAgent

        if isinstance(policy, MaskedPolicy):  # trained at this very table: its options are ours
            meta = {"env_name": self.env_name, "env_config": self.env_config}
            policy = PPOAgent.from_policy(policy, meta, self.self_deterministic, name=name)
        self._snapshots.append((name, policy))
        del self._snapshots[: -self.pool_size]
        self._reseed_agent(policy)

    def snapshot_names(self) -> list[str]:
        return [n for n, _ in self._snapshots]

    def _draw_opponent(self) -> tuple[str, Any]:
        weights = np.array([0.0 if (n == SELF and not self._snapshots) else w for (n, _), w in zip(self._pool, self._weights)])
        if weights.sum() <= 0:  # only "self" and no snapshot yet: play random meanwhile
            from agents.base import RandomAgent

            if self._fallback is None:
                self._fallback = ("random", RandomAgent(int(self.np_random.integers(2**31))))
            return self._fallback
        name, agent = self._pool[int(self.np_random.choice(len(self._pool), p=weights / weights.sum()))]
        if name == SELF:
            name, agent = self._snapshots[int(self.np_random.integers(len(self._snapshots)))]
        return name, agent

    def _reseed_agent(self, agent: Any) -> None:
        if hasattr(agent, "seed") and callable(agent.seed):
            agent.seed(int(self.np_random.integers(2**31)))

    # ------------------------------------------------------------------------- gymnasium
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset starts over: seat rotation and opponents' generators
            self._episode = self._seat_offset
            for _, agent in self._pool + self._snapshots:
                if agent is not None:
                    self._reseed_agent(agent)
        for _ in range(100):
            if self.learner_seat == "rotate":
                seat = self._episode % self.num_players
            else:
                seat = self.learner_seat
            self._episode += 1
            self.learner = self.agents[seat]
            self._seat_agents, self._seat_names = {}, {}
            field = self._draw_opponent() if self.opponent_seating == FIELD else None
            for a in self.agents:
                if a != self.learner:
                    self._seat_names[a], self._seat_agents[a] = field or self._draw_opponent()
            self.game_seed = int(self.np_random.integers(2**63 - 1))  # the AEC game's seed, for replays
            self.env.reset(seed=self.game_seed, options=options)
            self._pending = self._return = 0.0
            self._start_opponents()
            self._play_opponents()
            if not self._over():
                break
            self._end_opponents()
            options = None  # a game that ended before the learner's first decision: deal again
        else:
            raise RuntimeError(f"{self.env_name}: 100 games in a row ended before the learner's first decision")
        self._obs = self.env.observe(self.learner)
        return self._obs["observation"], self._info()

    def step(self, action):
        if self._obs is None:
            raise RuntimeError("reset() needs to be called before step()")
        self.env.step(int(action))
        self._pending += self.env.rewards.get(self.learner, 0.0)
        self._count_opponent_rewards()
        self._play_opponents()
        reward, self._pending = self._pending, 0.0
        self._return += reward
        over = self._over()
        # an illegal move sets both flags (as TerminateIllegalWrapper does): that is a termination
        terminated = over and bool(self.env.terminations.get(self.learner, True))
        truncated = over and not terminated
        self._obs = self.env.observe(self.learner)
        observation = self._obs["observation"]
        info = self._info()
        if over:
            info.update(self.env.infos.get(self.learner, {}))
            info["game_reward"] = self._return
            self._obs = None
            self._end_opponents()
        return observation, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (all False once the episode is over)."""
        if self._obs is None:
            return np.zeros(self.action_space.n, dtype=bool)
        return self._obs["action_mask"].astype(bool)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return self.env.render_view(self.learner)

    def close(self) -> None:
        self.env.close()

    # --------------------------------------------------------------------------- helpers
    def _over(self) -> bool:
        return bool(self.env.terminations.get(self.learner, True) or self.env.truncations.get(self.learner, True))

    def _play_opponents(self) -> None:
        """Opponents move until the learner is to act or the game is over; the learner's
        rewards from their moves accumulate in ``_pending``."""
        env, learner, name = self.env, self.learner, self.env_name
        while not self._over():
            agent = env.agent_selection
            if agent == learner:
                return
            if env.terminations[agent] or env.truncations[agent]:
                self._seat_final[agent] = (env.observe(agent), dict(env.infos.get(agent, {})))
                env.step(None)  # an agent out of the game while the others play on
            else:
                env.step(self._seat_agents[agent].act(env.observe(agent), agent, name))
            self._pending += env.rewards.get(learner, 0.0)
            self._count_opponent_rewards()

    # ------------------------------------------------------------- the protocol's hooks
    def _start_opponents(self) -> None:
        """``start_game`` for every opponent seat, before the game's first step."""
        from agents.base import start_game

        self._seat_rewards = dict.fromkeys(self._seat_agents, 0.0)
        self._seat_final = {}
        for seat, agent in self._seat_agents.items():
            start_game(agent, self.env_name, self.env_config, seat)

    def _count_opponent_rewards(self) -> None:
        rewards = self.env.rewards
        for seat in self._seat_rewards:
            self._seat_rewards[seat] += rewards.get(seat, 0.0)

    def _end_opponents(self) -> None:
        """``end_game`` for every opponent seat: its final observation, total reward, info."""
        from agents.base import end_game

        env = self.env
        for seat, agent in self._seat_agents.items():
            if seat in self._seat_final:
                obs, info = self._seat_final[seat]
            else:
                obs, info = env.observe(seat), dict(env.infos.get(seat, {}))
            end_game(agent, obs, self._seat_rewards.get(seat, 0.0), info)
        self._seat_final = {}

    def _info(self) -> dict:
        return {"seat": self.agents.index(self.learner), "opponents": [self._seat_names[a] for a in self.agents if a != self.learner]}
