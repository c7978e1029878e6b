"""The learner's seat of N games on the batched engine, the other seats played from an opponent pool.

    from training.batched import BatchedLearnerView
    view = BatchedLearnerView("golf_v0", {"num_players": 2, "num_rounds": 1}, num_envs=256,
                              opponents=["random", "heuristic", "self"], seed=0)
    obs = view.reset()                          # (N, D) float32: each game's learner observation
    masks = view.action_masks()                 # (N, A) bool
    obs, rewards, dones, infos = view.step(actions)   # (N,) learner actions, one per game

This is :class:`training.single_agent.SingleAgentEnv` for a whole batch at once, on
``card_envs.<game>_v0.vector_env``: each game has one learner seat, the other seats are played by
opponents drawn from the pool for that game, and ``step`` plays every game's learner action, then
every game's opponents — all games together, one batched engine step per move — until each game's
learner must decide again (the games whose learner is already to act wait, ``vector.WAIT``).

**The reward** is the learner's OWN, exactly as ``SingleAgentEnv`` defines it: the sum of the
learner seat's rewards over every engine step since its previous decision (its own move and all
the opponents' moves after it), and rewards that reach the learner before its first decision of a
game (opponents moving first in a game with per-step rewards) are added to that first decision's
reward, so an episode's return is exactly the learner's total reward of the game. A game that
ends before the learner's first decision is not an episode: it is dealt again (the learner's seat
rotates on), as ``SingleAgentEnv.reset`` does. The equivalence with ``SingleAgentEnv`` is tested
on scripted games (``tests/training/test_batched.py``).

**Seats** rotate per episode: game ``i`` of the batch starts with the learner in seat
``(seat_offset + i) % num_players`` and moves one seat on with every new game; or a fixed seat.

**Opponents** are drawn for each seat of each new game from ``opponents`` (agent specs, Agent
objects, ``"self"``) with ``opponent_weights`` (``opponent_seating="mixed"``), or once per game for
every other seat (``"field"``: the learner against copies of one opponent, as the evaluation and the
benchmark protocol seat it), and act in batch, every move of every game at once:

- ``"random"``: the engine's own masked sampler (``vector_env.sample_actions``, compiled);
- frozen past selves (``"self"``: the last ``pool_size`` snapshots of :meth:`add_snapshot`,
  sampling from their masked policy unless ``self_deterministic``) and PPO policies (``ppo``,
  ``ppo:PATH``, PPOAgent objects): one batched forward per policy per engine step
  (``MaskedPolicy.choose_batch``, the same numbers as one game's ``act``);
- the heuristic of a game whose heuristic has a compiled twin on the batched engine (Golf,
  Fiddlesticks, Collector and Hot: ``choose_rows`` in ``agents/heuristics/<game>.py``, tested to
  choose what ``choose`` chooses from the player's view in every step of a batch): every move of
  every game in one call on the engine's state arrays and legal mask (256 games of Collector:
  about 6 µs a call, where the Python heuristic below takes about 125 µs a move); no helper
  process is needed (``compiled_agents=False`` plays it in Python instead, as below; the games
  are the same, tested);
- any other agent (``"heuristic"``, ``py:...``): its ``act`` on each game's observation in turn,
  after the protocol's ``start_game`` hook for that seat. This is Python per move: the heuristics
  decode the observation and reason about it (measured here per learner step with heuristic
  opponents only, one core: Fiddlesticks 83 µs, Golf 118, Collector 125, Hot 130, Guillotine 595
  with its three opponents, Guilders 1,500), which is most of the environment's time when they
  are in the pool. With ``agent_workers=k`` the heuristic's moves of each engine step are split
  between this process and k helper processes (on two cores, one helper: the other core is
  otherwise idle while the games step); the helpers build the agent from its spec and tell it
  the table once per seat.

Every opponent seat's agent gets the protocol's hooks (``agents/base.py``): ``start_game`` before
its game (a PPO policy trained on other options refuses the table at construction) and, for agents
that define ``end_game``, that hook with the seat's final observation, total reward and info.

**Ends**: ``dones[i]`` is True when game i ended in this step; ``infos[i]`` then has
``terminal_observation`` (the learner's final observation), ``TimeLimit.truncated`` (a truncation
that is not a termination), ``episode`` ({"r", "l", "t"}, SB3's Monitor convention), and, as
``SingleAgentEnv``'s final info, the learner's ``score``, ``rank``, ``seat``, the opponents'
names and ``game_reward``; the observation returned for game i is then the learner's first
observation of its next game. An illegal learner action is a ValueError that changes nothing (the
engine checks it; MaskablePPO only picks legal actions) where ``SingleAgentEnv`` ended the episode
with -1.

Everything random (deals, seats' opponents, random opponents' moves, sampling selves) comes from
``reset(seed)``: the same seed and actions give the same games.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from card_envs.vector import WAIT
from training.helpers import agent_worker, searched_values
from training.opponents import MIXED, check_opponent_seating
from training.single_agent import env_module

SELF = "self"
RANDOM = "random"
#: agents whose moves may be computed in helper processes: built from their spec there, they
#: keep nothing between moves but the table's options (so the per-game hooks, which tell them
#: only the table, are called once per seat in the helper)
SHAREABLE = ("heuristic",)


def compiled_twin(agent: Any, env_name: str) -> Any:
    """The compiled twin of ``agent``'s moves on the batched engine, or None: the game's
    ``choose_rows`` (``agents/heuristics/<game>.py``) for the heuristic agent itself (not a
    subclass, which may decide otherwise), where the game's heuristic has one."""
    from agents.heuristic import HeuristicAgent

    if type(agent) is not HeuristicAgent:
        return None
    return getattr(agent.policy(env_name), "choose_rows", None)


class _Player:
    """One opponent as the view runs it: the engine's sampler, a policy in batch, or an agent."""

    __slots__ = ("name", "kind", "agent", "policy", "deterministic", "rng", "spec", "rows")

    def __init__(self, name: str, kind: str, agent: Any = None, policy: Any = None, deterministic: bool = True,
                 rng: np.random.Generator | None = None):
        self.name, self.kind, self.agent, self.policy = name, kind, agent, policy
        self.deterministic, self.rng = deterministic, rng
        self.spec: str | None = None  # a spec the helper processes can build the agent from
        #: kind "rows": ``rows(arrays, rows, out, mask)``, the agent's moves in the games ``rows``
        #: from the engine's state arrays and legal mask (a compiled twin of its ``act``)
        self.rows: Any = None


class BatchedLearnerView:
    """N games of one table, the learner in one seat of each (see the module docstring)."""

    render_mode = None

    def __init__(
        self,
        env_name: str,
        env_config: dict | None = None,
        num_envs: int = 256,
        opponents: Sequence[Any] = (RANDOM,),
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | str = "rotate",
        seat_offset: int = 0,
        pool_size: int = 5,
        self_deterministic: bool = False,
        seed: int | None = None,
        agent_workers: int = 0,
        compiled_agents: bool = True,
        opponent_seating: str = MIXED,
    ):
        module = env_module(env_name)
        self.env_config = dict(env_config or {})
        self.venv = module.vector_env(num_envs=int(num_envs), **self.env_config)
        self.env_name = self.venv.metadata["name"]
        self.num_envs = n = self.venv.num_envs
        self.num_players = p = self.venv.num_players
        self.num_actions = self.venv.num_actions
        self.obs_size = self.venv.obs_size
        if learner_seat != "rotate" and not (isinstance(learner_seat, (int, np.integer)) and 0 <= learner_seat < p):
            raise ValueError(f"learner_seat must be 'rotate' or a seat in 0..{p - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        self.opponent_seating = check_opponent_seating(opponent_seating)
        self.seat_offset = int(seat_offset)
        self.pool_size = int(pool_size)
        self.self_deterministic = bool(self_deterministic)
        space = module.env(**self.env_config)
        self.observation_space = space.observation_space(space.possible_agents[0])["observation"]
        self.action_space = space.action_space(space.possible_agents[0])

        specs = list(opponents)
        if not specs:
            raise ValueError("the opponent pool is empty: give at least one of 'random', 'heuristic', 'self', ...")
        weights = [1.0] * len(specs) if opponent_weights is None else [float(w) for w in opponent_weights]
        if len(weights) != len(specs) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"opponent_weights must be {len(specs)} non-negative numbers, not all 0; got {opponent_weights!r}")
        self._rng = np.random.default_rng(seed)
        self.compiled_agents = bool(compiled_agents)
        self._players: list[_Player] = [_Player(RANDOM, RANDOM)]  # id 0: the engine's sampler
        self._pool: list[int] = []  # player id of each pool entry; -1 for "self"
        for spec in specs:
            self._pool.append(-1 if spec == SELF else self._add_player(spec))
        self._weights = np.array(weights, dtype=np.float64)
        self._snapshots: list[int] = []  # player ids of the frozen selves in the pool, oldest first

        self._seat = np.zeros(n, dtype=np.int64)  # the learner's seat in each game
        self._episodes = np.zeros(n, dtype=np.int64)  # games dealt so far in each row
        self._opp = np.zeros((n, p), dtype=np.int64)  # the player id in each seat (-1: the learner)
        self._acted = np.zeros(n, dtype=np.bool_)  # the learner has decided in this game
        self._pending = np.zeros(n, dtype=np.float64)  # the learner's reward since its last decision
        self._returns = np.zeros((n, p), dtype=np.float64)  # every seat's reward of the game so far
        self._length = np.zeros(n, dtype=np.int64)  # the learner's decisions in this game
        self._out_rewards = np.zeros(n, dtype=np.float64)
        self._out_dones = np.zeros(n, dtype=np.bool_)
        self._acts = np.zeros(n, dtype=np.int64)
        self._held = np.zeros(n, dtype=np.bool_)  # the games whose learner sits this step out
        self._arange = np.arange(n)
        self._obs: np.ndarray | None = None
        self._t0 = time.monotonic()
        self.engine_steps = 0  # batched engine steps taken (every move of every game, in batch)
        self.agent_workers = int(agent_workers)
        if self.agent_workers < 0:
            raise ValueError(f"agent_workers must be 0 or more, got {agent_workers}")
        self._workers: list[Any] = []  # (process, pipe) of the helper processes, started lazily
        #: per player: the helpers' share of its rows, balanced by the measured costs (pure agents)
        self._helper_share: dict[int, float] = {}

    # ------------------------------------------------------------------------ the pool
    def _add_player(self, spec: Any) -> int:
        if isinstance(spec, str) and spec == RANDOM:
            return 0
        if isinstance(spec, str):
            import agents

            agent = agents.load(spec, seed=int(self._rng.integers(2**31)))
            name = spec
        elif hasattr(spec, "act"):
            agent, name = spec, getattr(spec, "name", type(spec).__name__)
        else:
            raise ValueError(f"an opponent is an agent spec string or an object with act(), got {spec!r}")
        from agents.base import start_game
        from agents.ppo import PPOAgent

        for seat in self.venv.possible_agents:  # the table's options, per seat: a PPO policy of another table refuses
            start_game(agent, self.env_name, self.env_config, seat)
        if isinstance(agent, PPOAgent):
            policy, _ = agent.policy_for(self.env_name)
            if policy.obs_size != self.obs_size:
                raise ValueError(f"{name} takes observations of size {policy.obs_size}, this table's are {self.obs_size}")
            player = _Player(name, "policy", agent, policy, agent.deterministic, agent.rng)
        elif self.compiled_agents and (rows := compiled_twin(agent, self.env_name)) is not None:
            player = _Player(name, "rows", agent)
            player.rows = rows
        else:
            player = _Player(name, "agent", agent)
            if isinstance(spec, str) and spec.split(",")[0] in SHAREABLE:
                player.spec = spec
        self._players.append(player)
        return len(self._players) - 1

    def add_snapshot(self, name: str, policy: Any) -> None:
        """Add a frozen past self (an agents.ppo.MaskedPolicy or PPOAgent) to the pool's ``"self"``
        entries; the last ``pool_size`` are drawn from (games already dealt keep theirs)."""
        from agents.ppo import MaskedPolicy, PPOAgent

        if isinstance(policy, PPOAgent):
            policy = policy.policy_for(self.env_name)[0]
        if not isinstance(policy, MaskedPolicy):
            raise ValueError(f"a snapshot is a MaskedPolicy or PPOAgent, got {type(policy).__name__}")
        rng = np.random.default_rng(int(self._rng.integers(2**63)))
        self._players.append(_Player(name, "policy", None, policy, self.self_deterministic, rng))
        self._snapshots.append(len(self._players) - 1)
        del self._snapshots[: -self.pool_size]

    def add_teacher(self, spec: Any, shared: bool = False) -> int:
        """An agent (a spec or object, as in the pool) that is never drawn as an opponent, whose
        moves in the learner's seat :meth:`teacher_actions` computes (training/imitation.py).
        It is told the table per seat (``start_game``) once, here; no per-game hooks. ``shared``:
        its moves may be split with the helper processes even where its spec is not one of
        :data:`SHAREABLE` (each helper builds its own copy, with a generator of its own: labels
        for a student, which need not be reproducible move for move). Returns its id."""
        pid = self._add_player(spec)
        if shared and isinstance(spec, str) and self._players[pid].kind == "agent":
            self._players[pid].spec = spec
        return pid

    def teacher_actions(self, pid: int, values: bool = False,
                        rows: np.ndarray | None = None) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """(N,) the moves the teacher ``pid`` (:meth:`add_teacher`) makes in every game's learner
        seat now, computed as an opponent's are: a policy's by one batched forward, a shareable
        agent's (the heuristic) split with the helper processes, any other agent's in turn.

        ``values=True`` also returns ``(N, num_actions)`` the mean return the teacher's search
        found for each action (a search agent's ``last["values"]``: NaN for an action it did not
        score, and everywhere for a forced move or a teacher that does not search).

        ``rows``: only these games' moves are wanted (a search is asked for those only); the other
        games' entries are -1 (their values NaN) whatever the teacher."""
        if self._obs is None:
            raise RuntimeError("reset() needs to be called before teacher_actions()")
        pl = self._players[pid]
        obs, mask = self.venv._obs, self.venv._mask
        wanted = self._arange if rows is None else np.asarray(rows, dtype=np.int64)
        if len(wanted) and not (0 <= wanted.min() and wanted.max() < self.num_envs):
            raise ValueError(f"rows must be game indices in [0, {self.num_envs}), got {wanted.min()}..{wanted.max()}")
        found = np.full(mask.shape, np.nan, dtype=np.float32) if values else None
        if pl.kind == "policy":
            acts = pl.policy.choose_batch(obs, mask, pl.deterministic, pl.rng).astype(np.int64)
        elif pl.kind == RANDOM:
            acts = self.venv.sample_actions().astype(np.int64)
        else:
            acts = np.full(self.num_envs, -1, dtype=np.int64)
            if pl.kind == "rows":
                pl.rows(self.venv.arrays, self._arange, acts, mask)
            else:
                local, sent = self._send_agent_moves(pid, pl, wanted, self._seat, obs, mask, values)
                self._agent_moves(pid, pl, local, sent, self._seat, obs, mask, acts, values=found)
        if rows is not None:
            acts[np.setdiff1d(self._arange, wanted)] = -1
        return (acts, found) if values else acts

    @property
    def helper_processes(self) -> bool:
        """Whether helper processes compute moves beside this one (``agent_workers`` and a
        shareable agent played in Python: the heuristic of a game without a compiled twin)."""
        return self.agent_workers > 0 and any(pl.kind == "agent" and pl.spec is not None for pl in self._players)

    def snapshot_names(self) -> list[str]:
        return [self._players[i].name for i in self._snapshots]

    def _draw(self, rows: np.ndarray) -> None:
        """Opponents for every seat of the new games in ``rows`` (the learner's seat set first)."""
        k, p = len(rows), self.num_players
        w = self._weights.copy()
        if not self._snapshots:
            w[[i for i, pid in enumerate(self._pool) if pid < 0]] = 0.0
        if w.sum() <= 0:  # only "self" and no snapshot yet: random meanwhile
            drawn = np.zeros((k, p), dtype=np.int64)
        else:
            size = (k, p) if self.opponent_seating == MIXED else (k, 1)  # "field": one draw for the table
            entries = self._rng.choice(len(self._pool), size=size, p=w / w.sum())
            drawn = np.asarray(self._pool, dtype=np.int64)[entries]
            selfs = drawn < 0
            if selfs.any():
                pick = self._rng.integers(len(self._snapshots), size=int(selfs.sum()))
                drawn[selfs] = np.asarray(self._snapshots, dtype=np.int64)[pick]
            drawn = np.repeat(drawn, p // size[1], axis=1)
        drawn[np.arange(k), self._seat[rows]] = -1
        self._opp[rows] = drawn

    # ------------------------------------------------------------------------- episodes
    def _new_episodes(self, rows: np.ndarray) -> None:
        """The games in ``rows`` were just dealt: the learner's seat, the opponents, the hooks."""
        if self.learner_seat == "rotate":
            self._seat[rows] = (self.seat_offset + rows + self._episodes[rows]) % self.num_players
        else:
            self._seat[rows] = int(self.learner_seat)
        self._episodes[rows] += 1
        self._draw(rows)
        self._acted[rows] = False
        self._pending[rows] = 0.0
        self._returns[rows] = 0.0
        self._length[rows] = 0
        self._hooks("start", rows)

    def _hooks(self, which: str, rows: np.ndarray, final_obs: np.ndarray | None = None,
               info: dict | None = None) -> None:
        """The protocol's start_game/end_game for the opponent agents (not sampler or policies)."""
        if len(self._players) == 1 or not any(pl.kind == "agent" for pl in self._players):
            return
        from agents.base import end_game, start_game

        agents_ = self.venv.possible_agents
        for g in rows.tolist():
            for s in range(self.num_players):
                pid = int(self._opp[g, s])
                if pid <= 0 or self._players[pid].kind != "agent":
                    continue
                agent = self._players[pid].agent
                if which == "start":
                    start_game(agent, self.env_name, self.env_config, agents_[s])
                else:
                    obs = {"observation": final_obs[g, s], "action_mask": np.zeros(self.num_actions, dtype=np.int8)}
                    end_game(agent, obs, float(self._returns[g, s]),
                             {"score": float(info["score"][g, s]), "rank": int(info["rank"][g, s])})

    # ------------------------------------------------------------------------ the view
    def reset(self, seed: int | None = None, options: dict | None = None) -> np.ndarray:
        """New games in every row; ``seed`` makes the whole batch reproducible.
        ``options={"decks": [...]}`` deals game i from stacked deck i (``vector_env.reset``);
        ``options={"states": [...]}`` starts game i from a rules state instead (``raw_env()``'s
        ``game_state``, through ``vector_env.set_state``): positions to train or test from."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for pl in self._players[1:]:
                if pl.kind == "policy":
                    pl.rng = np.random.default_rng(int(self._rng.integers(2**63)))
                if pl.agent is not None and callable(getattr(pl.agent, "seed", None)):
                    pl.agent.seed(int(self._rng.integers(2**31)))
                    if pl.kind == "policy":
                        pl.rng = pl.agent.rng
            self._episodes[:] = 0
        options = dict(options or {})
        states = options.pop("states", None)
        if states is not None and len(states) != self.num_envs:
            raise ValueError(f"options['states'] must hold one rules state per game ({self.num_envs}), got {len(states)}")
        self.venv.reset(seed=None if seed is None else int(self._rng.integers(2**63)), options=options or None)
        if states is not None:
            self.venv.set_states(states)
        self._new_episodes(self._arange)
        self._acts[:] = WAIT
        self._advance(first=False)
        self._obs = self.venv._obs
        return self._obs.copy()

    def action_masks(self) -> np.ndarray:
        """``(N, A)`` bool: each game's learner's legal actions now."""
        if self._obs is None:
            raise RuntimeError("reset() needs to be called before action_masks()")
        return self.venv._mask.astype(bool)

    def step(self, actions: Any, hold: np.ndarray | None = None):
        """Every game's learner action, then the opponents until each learner must act again.

        ``hold`` ((N,) bool): games whose learner does not act in this step (their actions are
        ignored): each stays exactly as it is, its reward 0 and not done, and the rewards its
        learner has pending stay for its next decision. A vectorised env that resets a finished
        game one step later (gymnasium's next-step autoreset, RLlib's env runners) holds the
        games dealt in the previous step."""
        if self._obs is None:
            raise RuntimeError("reset() needs to be called before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers (one per game), got {a.dtype} {a.shape}")
        held = self._held
        if hold is None:  # every learner acts: the training loop's path, no extra work
            held[:] = False
            play = None
        else:
            h = np.asarray(hold)
            if h.shape != (self.num_envs,) or h.dtype != np.bool_:
                raise ValueError(f"hold must be {self.num_envs} bools (one per game), got {h.dtype} {h.shape}")
            held[:] = h
            play = ~held
            a = np.where(held, 0, a)  # a held game's action is never looked at
        if (a < 0).any() or (a >= self.num_actions).any():
            bad = int(np.flatnonzero((a < 0) | (a >= self.num_actions))[0])
            raise ValueError(f"game {bad}: action {int(a[bad])} is not in 0..{self.num_actions - 1}")
        legal = self.venv._mask[self._arange, a]
        if play is not None:
            legal = legal.astype(bool) | held
        if not legal.all():  # checked before anything moves: a rejected step changes nothing
            bad = int(np.flatnonzero(legal == 0)[0])
            raise ValueError(f"game {bad}: action {int(a[bad])} is illegal for the learner (player_{int(self._seat[bad])}); "
                             f"legal actions: {np.flatnonzero(self.venv._mask[bad]).tolist()}")
        if play is None:
            self._acts[:] = a
            self._acted[:] = True
            self._length += 1
        else:
            self._acts[:] = np.where(held, WAIT, a)
            self._acted |= play
            self._length += play
        self._out_dones[:] = False
        self._infos = [{} for _ in range(self.num_envs)]
        self._advance(first=True)
        obs = self.venv._obs.copy()
        return obs, self._out_rewards.astype(np.float32), self._out_dones.copy(), self._infos

    def _advance(self, first: bool) -> None:
        """Step the engine (the actions in ``_acts``) and then the opponents' moves until every
        game's learner is to act; the learner's rewards go to ``_pending``, an ended episode's to
        ``_out_rewards``."""
        venv, acts, seat = self.venv, self._acts, self._seat
        out = self._out_rewards
        if first:
            out[:] = 0.0
        while True:
            if (acts != WAIT).any():
                obs, rew, term, trunc, infos = venv.step(acts)
                self.engine_steps += 1
                self._returns += rew
                self._pending += rew[self._arange, seat]
                done = infos["_final_obs"]
                if done.any():
                    self._finished(np.flatnonzero(done), term, trunc, infos, first)
            cur = venv._current
            waiting = cur != seat
            if not waiting.any():
                break
            self._opponent_actions(np.flatnonzero(waiting), cur)
        if first:
            keep = ~self._out_dones & ~self._held  # a held game's pending rewards wait for its decision
            out[keep] = self._pending[keep]
            self._pending[keep] = 0.0

    def _finished(self, rows: np.ndarray, term, trunc, infos, first: bool) -> None:
        """Games that ended in this engine step: report the learner's episodes, deal again."""
        final_obs, fin = infos["final_obs"], infos["final_info"]
        self._hooks("end", rows, final_obs, fin)
        now = time.monotonic() - self._t0
        for g in rows.tolist():
            if not self._acted[g]:  # ended before the learner's first decision: not an episode
                continue
            s = int(self._seat[g])
            r = float(self._pending[g])
            self._out_rewards[g] = r
            self._out_dones[g] = True
            ret = float(self._returns[g, s])
            t, tr = bool(term[g]), bool(trunc[g])
            if first:
                self._infos[g] = {
                    "terminal_observation": final_obs[g, s].copy(),
                    "TimeLimit.truncated": tr and not t,
                    "episode": {"r": ret, "l": int(self._length[g]), "t": round(now, 6)},
                    "score": float(fin["score"][g, s]), "rank": int(fin["rank"][g, s]), "seat": s,
                    "opponents": [self._players[int(i)].name for i in self._opp[g] if i >= 0],
                    "game_reward": ret,
                }
        self._new_episodes(rows)

    def _opponent_actions(self, rows: np.ndarray, cur: np.ndarray) -> None:
        """``_acts``: the opponents' moves in the games ``rows`` (WAIT in all others)."""
        acts = self._acts
        acts[:] = WAIT
        ids = self._opp[rows, cur[rows]]
        mask = self.venv._mask
        obs = self.venv._obs
        batched, moves = [], []
        for pid in np.unique(ids).tolist():
            sel = rows[ids == pid] if len(ids) > 1 else rows
            pl = self._players[pid]
            if pl.kind in (RANDOM, "policy", "rows"):
                batched.append((pl, sel))
            else:  # the helpers' shares go out first: they compute while this process does the rest
                moves.append((pid, pl) + self._send_agent_moves(pid, pl, sel, cur, obs, mask))
        began = time.perf_counter()
        for pl, sel in batched:
            if pl.kind == RANDOM:
                acts[sel] = self.venv.sample_actions()[sel]
            elif pl.kind == "rows":
                pl.rows(self.venv.arrays, sel, acts, mask)
            else:
                acts[sel] = pl.policy.choose_batch(obs[sel], mask[sel], pl.deterministic, pl.rng)
        extra = time.perf_counter() - began  # this process's other work while the helpers compute
        for pid, pl, local, sent in moves:
            self._agent_moves(pid, pl, local, sent, cur, obs, mask, acts, extra)
            extra = 0.0

    def _send_agent_moves(self, pid: int, pl: _Player, sel: np.ndarray, cur: np.ndarray, obs: np.ndarray,
                          mask: np.ndarray, values: bool = False) -> tuple[np.ndarray, list]:
        """A shareable agent's moves split with the helper processes (``agent_workers``): their
        shares sent now; returns the rows left to this process and the shares sent.

        The split is even, except for an agent whose move is a function of the observation
        (``pure_moves``, the heuristic): whichever process computes a move computes the same one,
        so the helpers' share follows the measured costs, to make both sides finish together
        (this process also steps the games and the batched opponents meanwhile). ``values``: the
        helpers send back the searches' action values too (:meth:`teacher_actions`)."""
        if pl.spec is None or not self.agent_workers or len(sel) < 8:
            return sel, []
        pipes = self._start_workers()
        k = len(pipes)
        share = self._helper_share.get(pid, k / (k + 1)) if getattr(pl.agent, "pure_moves", False) else k / (k + 1)
        cut = min(len(sel) - 1, max(1, int(round(share * len(sel)))))
        chunks = np.array_split(sel[:cut], k) + [sel[cut:]]
        sent = []
        for pipe, rows in zip(pipes, chunks[:-1]):
            pipe.send((pl.spec, obs[rows], mask[rows], cur[rows], values))
            sent.append((pipe, rows))
        return chunks[-1], sent

    def _agent_moves(self, pid: int, pl: _Player, local: np.ndarray, sent: list, cur: np.ndarray, obs: np.ndarray,
                     mask: np.ndarray, acts: np.ndarray, extra: float = 0.0, values: np.ndarray | None = None) -> None:
        """An agent's moves, one game at a time, in this process's rows; then the helpers' shares
        (:meth:`_send_agent_moves`), which they computed meanwhile. ``values``: filled with the
        searches' action values where the agent reports them (:meth:`teacher_actions`)."""
        agents_, name = self.venv.possible_agents, self.env_name
        agent = pl.agent
        began = time.perf_counter()
        for g in local.tolist():
            acts[g] = agent.act({"observation": obs[g], "action_mask": mask[g]}, agents_[int(cur[g])], name)
            if values is not None:
                values[g] = searched_values(agent, mask.shape[1])
        mine = time.perf_counter() - began
        helpers = 0.0
        for pipe, rows in sent:
            result = pipe.recv()
            if isinstance(result, BaseException):
                raise result
            out, found, seconds = result
            acts[rows] = out
            if values is not None:
                values[rows] = found
            helpers = max(helpers, seconds / max(1, len(rows)))
        if sent and len(local) and getattr(agent, "pure_moves", False):
            # the share at which both sides would have finished together, smoothed
            k, n = len(sent), len(local) + sum(len(r) for _, r in sent)
            here = mine / len(local)
            want = (k * (n * here + extra)) / (n * (helpers + k * here)) if helpers + here > 0 else k / (k + 1)
            old = self._helper_share.get(pid, k / (k + 1))
            self._helper_share[pid] = min(0.9, max(0.1, 0.8 * old + 0.2 * want))

    def _start_workers(self) -> list[Any]:
        if not self._workers:
            import multiprocessing as mp

            ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
            for k in range(self.agent_workers):
                mine, theirs = ctx.Pipe()
                seed = int(self._rng.integers(2**31))
                proc = ctx.Process(target=agent_worker, args=(theirs, self.env_name, self.env_config, self.num_players, seed), daemon=True)
                proc.start()
                theirs.close()
                self._workers.append((proc, mine))
        return [pipe for _, pipe in self._workers]

    def close(self) -> None:
        """Stop the helper processes (if any were started)."""
        for proc, pipe in self._workers:
            try:
                pipe.send(None)
            except (BrokenPipeError, OSError):
                pass
            proc.join(timeout=5)
        self._workers = []

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
