"""Playing a tournament's games: the schedule of deals and line-ups, one game under the agent
protocol's hooks, and the schedule played in chunks, in this process or in worker processes.

Duplicate deals: deal d is dealt from seed ``seed + d`` and played once per line-up of the
seating plan, so every line-up gets the same cards; independent deals: game g from ``seed + g``.
Before each game every agent's generator is reseeded from (seed, game, agent), so the games do
not depend on how they were split over workers. A worker process gets the agents' specs (or the
pickled Agent objects) and loads them itself: :func:`play_chunk` is what it runs.
"""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from training.seating import agent_name


def agent_hooks():
    """``agents.base.start_game`` / ``end_game`` (the agent protocol's optional hooks)."""
    from agents import base

    return base.start_game, base.end_game


@dataclass
class GameRecord:
    """One finished game: who sat where and how each seat did."""

    seed: int
    lineup: list[int]  # agent index per seat
    rewards: list[float]
    scores: list[float]
    ranks: list[int]
    steps: int
    illegal: bool = False
    deal: int = 0  # games of one deal had the same cards (duplicate deals)
    record: dict | None = None  # the game's card_envs.records record, with save_games

    def seats_of(self, agent: int) -> list[int]:
        """The seats agent ``agent`` held in this game."""
        return [s for s, a in enumerate(self.lineup) if a == agent]


def load_agent(spec: Any, seed: int | None):
    """An agent spec loaded (``agents.load``); an Agent object as it is."""
    if isinstance(spec, str):
        import agents

        return agents.load(spec, seed=seed)
    return spec


def game_seed(seed: int, game: int, k: int) -> int:
    """The seed of agent ``k`` before game ``game`` of a tournament seeded ``seed`` (game -1: loading)."""
    return int(np.random.SeedSequence([abs(int(seed)), int(game) + 1, int(k)]).generate_state(1)[0])


def reseed_agents(players: Sequence[Any], specs: Sequence[Any], seed: int, game: int) -> None:
    """Every agent's generator from (seed, game, agent) before each game, so the games do not
    depend on how they were split over workers: an agent's ``seed(int)`` method, or the ``rng``
    generator of an agent loaded here from a spec."""
    for k, (p, spec) in enumerate(zip(players, specs)):
        s = game_seed(seed, game, k)
        if callable(getattr(p, "seed", None)):
            p.seed(s)
        elif isinstance(spec, str) and isinstance(getattr(p, "rng", None), np.random.Generator):
            p.rng = np.random.default_rng(s)


def play_game(env, players: Sequence[Any], seed: int, lineup: list[int], config: dict | None = None,
              deal: int = 0, specs: Sequence[Any] | None = None, game: int | None = None) -> GameRecord:
    """One game in ``env`` (made with env()), seat s played by ``players[lineup[s]]``; every
    seat's player hears ``start_game`` before the first step and ``end_game`` after the last.
    With ``specs`` (the agents' specs, as ``players``), the result carries the game's record
    (``card_envs.records``: each seat's spec, null for an Agent object) in ``.record``."""
    start_game, end_game = agent_hooks()
    env.reset(seed=seed)
    recorder = None
    if specs is not None:
        from card_envs.records import Recorder

        recorder = Recorder(env, seed, options=config, agents=[s if isinstance(s, str) else None for s in
                                                               (specs[a] for a in lineup)],
                            meta={"source": "training.evaluate", "game": game, "deal": deal})
    name = env.metadata["name"]
    table = dict(config or {})
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    for agent in env.possible_agents:
        start_game(players[lineup[seat_of[agent]]], name, table, agent)
    steps = 0
    infos: dict[str, dict] = {}
    final_obs: dict[str, Any] = {}
    total = dict.fromkeys(env.possible_agents, 0.0)
    illegal = False
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            infos[agent], final_obs[agent] = dict(info), obs
            env.step(None)
            continue
        action = players[lineup[seat_of[agent]]].act(obs, agent, name)
        if not obs["action_mask"][action]:
            illegal = True
        if recorder is not None:
            recorder.add(action)
        env.step(action)
        steps += 1
    for agent in env.possible_agents:
        end_game(players[lineup[seat_of[agent]]], final_obs.get(agent), total[agent], infos.get(agent, {}))
    agents_ = env.possible_agents
    return GameRecord(
        seed=seed,
        lineup=list(lineup),
        rewards=[total[a] for a in agents_],
        scores=[infos.get(a, {}).get("score", float("nan")) for a in agents_],
        ranks=[infos.get(a, {}).get("rank", 0) for a in agents_],
        steps=steps,
        illegal=illegal,
        deal=deal,
        record=None if recorder is None else recorder.finish(total),
    )


def schedule_games(num_games: int, plan: list[list[int]], seed: int,
                   duplicate: bool) -> list[tuple[int, int, int, list[int]]]:
    """``(game, deal, seed of the deal, line-up)`` of every game."""
    r = len(plan)
    if duplicate:
        deals = -(-num_games // r)
        return [(d * r + k, d, seed + d, plan[k]) for d in range(deals) for k in range(r)]
    return [(g, g, seed + g, plan[g % r]) for g in range(num_games)]


def play_chunk(args) -> list[GameRecord]:
    """The games of one piece of the schedule, in one process (a worker's job, so one picklable
    tuple): ``(env_name, specs, config, schedule, seed, players, save)``; ``players`` None loads
    the agents from ``specs`` here."""
    env_name, specs, config, schedule, seed, players, save = args
    import card_envs

    env = card_envs.ENVIRONMENTS[env_name].env(**config)
    if players is None:
        players = [load_agent(s, game_seed(seed, -1, k)) for k, s in enumerate(specs)]
    out = []
    for game, deal, deal_seed, lineup in schedule:
        reseed_agents(players, specs, seed, game)
        out.append(play_game(env, players, deal_seed, lineup, config, deal, specs if save else None, game))
    return out


def unpicklable(objs: Sequence[Any]) -> str | None:
    """None when every object pickles, else why not."""
    for o in objs:
        try:
            pickle.dumps(o)
        except Exception as e:  # noqa: BLE001 - any reason an object does not pickle
            return f"{agent_name(o)} does not pickle ({type(e).__name__}: {e})"
    return None


def _worker_context(specs: Sequence[Any]):
    """Worker processes started from a fresh server process (``forkserver``) where the platform
    has it: a plain fork of this process would copy a started OpenMP runtime (torch's, or numba's
    threading layer once a search agent or a policy ran here), and numba then ends the child
    ("fork() called from a process already using GNU OpenMP"). An agent object whose class lives
    in ``__main__`` (a notebook's or a script's own) can only reach a forked child: then fork."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    own = any(type(s).__module__ == "__main__" for s in specs if not isinstance(s, str))
    if "forkserver" in methods and not own:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context()


def play_schedule(env_name: str, specs: Sequence[Any], config: dict, schedule: list, seed: int,
                  players: Sequence[Any], save_games: bool, workers: int,
                  played: Callable[[int], None] | None = None) -> list[GameRecord]:
    """Every game of ``schedule`` (:func:`schedule_games`), in its order, in chunks: with
    ``workers`` > 1 over that many worker processes (each loads the agents from ``specs``), else
    in this process with ``players`` (the agents loaded already). ``played(n)`` after each chunk."""
    chunk = max(1, min(50, len(schedule) // (4 * max(workers, 1)) or 1))
    pieces = [schedule[i : i + chunk] for i in range(0, len(schedule), chunk)]
    games: list[GameRecord] = []
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_worker_context(specs)) as pool:
            jobs = [(env_name, specs, config, p, seed, None, save_games) for p in pieces]
            for records in pool.map(play_chunk, jobs):
                games.extend(records)
                if played:
                    played(len(records))
    else:
        for p in pieces:
            records = play_chunk((env_name, specs, config, p, seed, players, save_games))
            games.extend(records)
            if played:
                played(len(records))
    return games
