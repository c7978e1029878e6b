"""Tournaments: agents play a game over rotated seats and seeds; mean reward and mean score with
95% confidence intervals, win rates and Elo-style ratings.

    python -m training.evaluate golf_v0 heuristic random --games 2000
    python -m training.evaluate guillotine_v0 ppo heuristic random random --config mode=single --out results/

As a function (notebooks): ``tournament("golf_v0", ["heuristic", "random"], 2000).summary()``.

Seats: the agents given fill the seats in order, cycling when there are fewer agents than seats
(``heuristic random`` at a 4-player table plays H R H R); with more agents than seats a window of
them moves along every N games. Game g rotates that line-up by g seats, so every agent plays every
seat equally often. Game g is dealt from seed ``seed + g``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

Z95 = 1.959963984540054


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


@dataclass
class TournamentResult:
    env_name: str
    agent_names: list[str]
    config: dict
    games: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0

    def _per_agent(self, key: str, i: int) -> np.ndarray:
        return np.array([getattr(g, key)[s] for g in self.games for s, a in enumerate(g.lineup) if a == i], dtype=float)

    def game_means(self, key: str, i: int) -> np.ndarray:
        """Per game, the mean of ``key`` over the seats agent i held (games where it sat)."""
        out = []
        for g in self.games:
            vals = [getattr(g, key)[s] for s, a in enumerate(g.lineup) if a == i]
            if vals:
                out.append(sum(vals) / len(vals))
        return np.array(out, dtype=float)

    def summary(self) -> list[dict[str, Any]]:
        """Per agent: mean reward and mean score (per game) with 95% CI half-widths, win rate,
        mean rank, Elo."""
        elo = self.elo()
        rows = []
        for i, name in enumerate(self.agent_names):
            r = self.game_means("rewards", i)
            sc = self.game_means("scores", i)
            ranks = self._per_agent("ranks", i)
            rows.append(
                {
                    "name": name,
                    "games": int(len(r)),
                    "mean_reward": float(r.mean()) if len(r) else float("nan"),
                    "reward_ci95": ci95(r),
                    "mean_score": float(sc.mean()) if len(sc) else float("nan"),
                    "score_ci95": ci95(sc),
                    "win_rate": float((ranks == 1).mean()) if len(ranks) else float("nan"),
                    "mean_rank": float(ranks.mean()) if len(ranks) else float("nan"),
                    "elo": elo[i],
                }
            )
        return rows

    def margin(self, a: int = 0, b: int = 1) -> tuple[float, float]:
        """Mean per-game reward of agent a minus agent b over games where both sat, with the 95%
        CI half-width (a paired comparison)."""
        diffs = []
        for g in self.games:
            ra = [g.rewards[s] for s, x in enumerate(g.lineup) if x == a]
            rb = [g.rewards[s] for s, x in enumerate(g.lineup) if x == b]
            if ra and rb:
                diffs.append(sum(ra) / len(ra) - sum(rb) / len(rb))
        d = np.array(diffs, dtype=float)
        return (float(d.mean()) if len(d) else float("nan"), ci95(d))

    def win_matrix(self) -> np.ndarray:
        """``m[i, j]``: how often agent i finished ahead of agent j when both sat (draws count ½)."""
        k = len(self.agent_names)
        wins = np.zeros((k, k))
        meets = np.zeros((k, k))
        for g in self.games:
            for s, a in enumerate(g.lineup):
                for t, b in enumerate(g.lineup):
                    if s != t and a != b:
                        meets[a, b] += 1
                        wins[a, b] += 1.0 if g.ranks[s] < g.ranks[t] else 0.5 if g.ranks[s] == g.ranks[t] else 0.0
        with np.errstate(invalid="ignore"):
            return np.where(meets > 0, wins / np.maximum(meets, 1), np.nan)

    def elo(self) -> list[float]:
        """Elo-style ratings (mean 1500) fitted to every pairwise result between seats of
        different agents (a Bradley–Terry maximum-likelihood fit, on the Elo scale)."""
        k = len(self.agent_names)
        if k < 2:
            return [1500.0] * k
        wins = np.zeros((k, k))
        for g in self.games:
            for s, a in enumerate(g.lineup):
                for t, b in enumerate(g.lineup):
                    if s < t and a != b:
                        if g.ranks[s] < g.ranks[t]:
                            wins[a, b] += 1
                        elif g.ranks[s] > g.ranks[t]:
                            wins[b, a] += 1
                        else:
                            wins[a, b] += 0.5
                            wins[b, a] += 0.5
        games = wins + wins.T
        theta = np.zeros(k)
        for _ in range(2000):  # minorise-maximise iterations of Bradley–Terry, with a weak prior
            p = np.exp(theta)
            denom = (games / (p[:, None] + p[None, :] + 1e-300)).sum(axis=1) + 2.0 / (p + 1.0)
            new = np.log((wins.sum(axis=1) + 1.0) / denom)
            new -= new.mean()
            if np.max(np.abs(new - theta)) < 1e-10:
                theta = new
                break
            theta = new
        return [float(1500 + 400 / math.log(10) * t) for t in theta]

    def table(self) -> str:
        lines = [
            f"{self.env_name} {self.config or ''}: {len(self.games)} games in {self.seconds:.1f}s",
            f"{'agent':<28} {'mean reward':>20} {'mean score':>20} {'win rate':>9} {'mean rank':>9} {'elo':>7}",
        ]
        for row in self.summary():
            lines.append(
                f"{row['name']:<28} {row['mean_reward']:>+9.3f} ± {row['reward_ci95']:<8.3f} "
                f"{row['mean_score']:>9.2f} ± {row['score_ci95']:<8.2f} {row['win_rate']:>9.3f} "
                f"{row['mean_rank']:>9.2f} {row['elo']:>7.0f}"
            )
        if len(self.agent_names) >= 2:
            m, h = self.margin(0, 1)
            lines.append(
                f"{self.agent_names[0]} − {self.agent_names[1]}: reward margin {m:+.3f} ± {h:.3f} (95% CI "
                f"{'excludes' if abs(m) > h else 'includes'} 0)"
            )
        illegal = sum(g.illegal for g in self.games)
        if illegal:
            lines.append(f"WARNING: {illegal} games ended by an illegal action")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "env_name": self.env_name,
            "agents": self.agent_names,
            "config": self.config,
            "games": len(self.games),
            "seconds": self.seconds,
            "summary": self.summary(),
            "margin_0_1": dict(zip(("mean", "ci95"), self.margin(0, 1))) if len(self.agent_names) > 1 else None,
        }

    def write(self, out_dir: str | os.PathLike) -> tuple[Path, Path]:
        """Writes ``summary.json`` and ``games.csv`` (one row per game and seat) into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.to_json(), indent=2))
        with open(out / "games.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["game_seed", "seat", "agent", "reward", "score", "rank", "steps"])
            for g in self.games:
                for s, a in enumerate(g.lineup):
                    w.writerow([g.seed, s, self.agent_names[a], g.rewards[s], g.scores[s], g.ranks[s], g.steps])
        return out / "summary.json", out / "games.csv"


def ci95(values: np.ndarray) -> float:
    """Half-width of the normal-approximation 95% confidence interval of the mean."""
    n = len(values)
    if n < 2:
        return float("nan")
    return float(Z95 * values.std(ddof=1) / math.sqrt(n))


def _make_agent(spec: Any, seed: int):
    if isinstance(spec, str):
        import agents

        return agents.load(spec, seed=seed)
    return spec


def _setup(players, env_name: str, config: dict) -> None:
    """Tell agents that want it the game's options (public knowledge at the table)."""
    for p in players:
        if hasattr(p, "setup"):
            p.setup(env_name, config)


def _agent_name(spec: Any, i: int) -> str:
    base = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
    return f"{i}:{base}"


def play_game(env, players: Sequence[Any], seed: int, lineup: list[int]) -> GameRecord:
    """One game in ``env`` (made with env()), seat s played by ``players[lineup[s]]``."""
    env.reset(seed=seed)
    name = env.metadata["name"]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    steps = 0
    infos: dict[str, dict] = {}
    total = dict.fromkeys(env.possible_agents, 0.0)
    illegal = False
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            infos[agent] = info
            env.step(None)
            continue
        action = players[lineup[seat_of[agent]]].act(obs, agent, name)
        if not obs["action_mask"][action]:
            illegal = True
        env.step(action)
        steps += 1
    agents_ = env.possible_agents
    return GameRecord(
        seed=seed,
        lineup=list(lineup),
        rewards=[total[a] for a in agents_],
        scores=[infos.get(a, {}).get("score", float("nan")) for a in agents_],
        ranks=[infos.get(a, {}).get("rank", 0) for a in agents_],
        steps=steps,
        illegal=illegal,
    )


def _lineup(num_agents: int, num_seats: int, game: int) -> list[int]:
    """Agent index per seat in game ``game``: the agents fill the seats cyclically (or, with more
    agents than seats, a window of them that moves every ``num_seats`` games), rotated by
    ``game`` seats, so every agent meets every other in every seat."""
    if num_agents <= num_seats:
        base = [i % num_agents for i in range(num_seats)]
    else:
        offset = (game // num_seats) % num_agents
        base = [(offset + i) % num_agents for i in range(num_seats)]
    r = game % num_seats
    return base[r:] + base[:r]


def _run_chunk(args) -> list[GameRecord]:
    env_name, specs, config, seeds, worker = args
    import card_envs

    env = card_envs.ENVIRONMENTS[env_name].env(**config)
    players = [_make_agent(s, 10_000 * worker + i) for i, s in enumerate(specs)]
    _setup(players, env_name, config)
    n = len(env.possible_agents)
    return [play_game(env, players, seed, _lineup(len(players), n, g)) for g, seed in seeds]


def tournament(
    env_name: str,
    agents: Sequence[Any],
    num_games: int = 1000,
    config: dict | None = None,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    names: Sequence[str] | None = None,
) -> TournamentResult:
    """Play ``num_games`` games of ``env_name`` between ``agents`` (specs like "heuristic" or Agent
    objects) over rotated seats; ``workers`` > 1 spreads the games over processes (agents given
    as specs only)."""
    import card_envs

    if env_name not in card_envs.ENVIRONMENTS:
        raise ValueError(f"unknown game {env_name!r}; games: {', '.join(card_envs.ENVIRONMENTS)}")
    if len(agents) < 1:
        raise ValueError("a tournament needs at least one agent")
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    config = dict(config or {})
    card_envs.ENVIRONMENTS[env_name].env(**config)  # bad options fail here, before any work
    agent_names = list(names) if names else [_agent_name(a, i) for i, a in enumerate(agents)]
    result = TournamentResult(env_name, agent_names, config)
    seeds = [(g, seed + g) for g in range(num_games)]
    if workers > 1 and any(not isinstance(a, str) for a in agents):
        workers = 1  # Agent objects may not pickle: play them here
    chunk = max(1, min(50, num_games // (4 * max(workers, 1)) or 1))
    chunks = [(env_name, list(agents), config, seeds[i : i + chunk], i // chunk) for i in range(0, num_games, chunk)]
    bar = _progress(num_games, f"{env_name} tournament") if progress else None
    start = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for records in pool.map(_run_chunk, chunks):
                result.games.extend(records)
                if bar:
                    bar.update(len(records))
    else:
        for c in chunks:
            records = _run_chunk(c)
            result.games.extend(records)
            if bar:
                bar.update(len(records))
    if bar:
        bar.close()
    result.seconds = time.perf_counter() - start
    return result


class _PlainBar:
    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.n, self.last = total, desc, 0, 0.0

    def update(self, k: int) -> None:
        self.n += k
        now = time.perf_counter()
        if now - self.last > 2 or self.n >= self.total:
            self.last = now
            print(f"{self.desc}: {self.n}/{self.total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def _progress(total: int, desc: str):
    try:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit="game")
    except ImportError:
        return _PlainBar(total, desc)


def parse_config(pairs: Sequence[str]) -> dict:
    """``["num_players=4", "mode=single", "public_discards=true"]`` -> a dict of typed values."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--config takes key=value pairs, got {pair!r}")
        k, v = pair.split("=", 1)
        out[k.strip()] = _typed(v.strip())
    return out


def _typed(v: str) -> Any:
    low = v.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("game", help="environment name, e.g. golf_v0")
    ap.add_argument("agents", nargs="+", help="agent specs: random, heuristic, ppo, ppo:PATH")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", type=int, help="num_players (where the game has the option)")
    ap.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE", help="game options")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", help="folder for summary.json and games.csv")
    args = ap.parse_args(argv)
    config = parse_config(args.config)
    if args.players is not None:
        config["num_players"] = args.players
    result = tournament(args.game, args.agents, args.games, config, args.seed, args.workers, progress=True)
    print(result.table())
    if args.out:
        paths = result.write(args.out)
        print("wrote " + ", ".join(map(str, paths)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
