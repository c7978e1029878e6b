"""Tournaments: agents play a game over rotated seats on duplicate deals; mean reward and score,
sole and shared first places, pairwise margins, all with 95% intervals; Elo and OpenSkill ratings.

    python -m training.evaluate golf ppo heuristic random --games 2000 --config num_players=3 num_rounds=1
    python -m training.evaluate guillotine ppo heuristic heuristic heuristic --config mode=single
    python -m training.evaluate guilders --field ppo:runs/guilders_v0/run random --players 5 --out results/

As a function (notebooks, training): ``tournament("golf_v0", ["heuristic", "random"], 2000).table()``.
This module is the project's one evaluation: training's curve and final evaluation (both backends)
call :func:`evaluate_against`, which is :func:`tournament` in the field seating.

Seating (printed with every result):

- line-up (default): the agents listed fill the seats in order, ``A B C`` at a 3-seat table is
  A in player_0, B in player_1, C in player_2. Each deal is played once per rotation of that
  line-up (A B C, B C A, C A B), so every agent plays every seat equally often. The same spec
  listed more than once is ONE agent holding several seats (``ppo heuristic heuristic heuristic``
  reports two rows, ppo and heuristic). With more agents than seats, every combination of N of
  them is a line-up, each rotated; with fewer, the list repeats to fill the seats (``A B`` at four
  seats is A B A B, said in the output). To set one agent against the others, use:
- field (``--field A B``, ``field=True``): A in one seat against N−1 copies of B, A's seat rotated
  through all N seats. This is what training reports ("PPO vs heuristic").

Duplicate deals (default): deal d is dealt from seed ``seed + d`` and played once per rotation,
so every rotation gets the same cards (``env.reset(seed)`` draws the dealer and the deck from
that seed alone; a reshuffle later in a game, of a stock or a fan, draws from the same generator
and so may differ once play differs). ``--games`` is rounded up to whole deals. The luck of the
cards then cancels within a deal. ``--independent`` deals game g from seed ``seed + g`` instead.
The output reports the variance reduction of each pairwise margin: the variance of the mean
margin estimated with games clustered by deal, ``var(per-deal means) / deals``, over the variance
the same number of independent deals would give, ``var(per-game margins) / games`` (the per-game
variance is a deal's marginal variance, whatever the design). Below 1, duplicate deals needed
that many times fewer games for the same precision.

Win: an agent's game is a **sole first place** when one of its seats has rank 1 and no other seat
does, a **shared first place** when one of its seats has rank 1 tied with another seat (ranks
are standard competition ranks, tied seats share the best). Each game has at most one sole winner,
so the sole-win rates of all agents add up to at most 1. An agent holding several seats wins
when any of its seats does.

Intervals (95%), over deals: every statistic is first averaged per deal (the games of a deal
are not independent; the deals are), then:

- bounded means (the rank reward, in [-1, 1]; margins of it, in [-2, 2]; win rates, in [0, 1]):
  the adjusted Wald interval of Agresti and Coull generalised to a bounded mean of clustered games:
  the cluster-robust variance of the mean (deals independent, games of a deal not), with z²/2
  pseudo-games added at each end of the range (formula in :func:`bounded_interval`), clipped to
  the range. For a yes/no outcome on independent games it is exactly Agresti–Coull. It never
  collapses to a point at 0 or 100% or at small n (20 games of 2-seat Golf all won: reward
  +1.000 [+0.61, +1.000], not ± 0), and it keeps the variance reduction that duplicate deals
  bring. Asymmetric, so printed as [low, high].
- unbounded means (scores; rewards with ``reward_mode="score"``): a percentile bootstrap over
  deals (2,000 resamples, seeded); with few deals it is too narrow, as any bootstrap is.

Ratings: a Bradley–Terry fit on the Elo scale (mean 1500) to every pairwise result between seats
of different agents, and, for tables of more than two seats, OpenSkill's Plackett–Luce ratings
(``pip install openskill``; updated game by game in deal order, each seat a team of one; an
agent holding several seats gets the mean of its seats' updates).

``--out DIR`` writes ``summary.json`` (every statistic above, the win matrix, the pairwise margins
with intervals, the seating and deal seeds, the policy files agents resolved to with their sha256,
the versions) and ``games.csv`` (one row per game and seat). ``--save-games FILE`` writes every
game's record (``card_envs.records``: options, seed, every action, each seat's agent spec, the
result) to a JSON Lines file, in the order the games were scheduled; ``python -m card_envs.records
show FILE --game K`` replays one.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import os
import pickle
import platform
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from card_envs.cli import UserError

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
RANK_REWARD_RANGE = (-1.0, 1.0)
INTERVALS_DOC = ("95% intervals over deals: rewards, margins and win rates by the adjusted (Agresti–Coull) "
                 "interval of a bounded mean; scores by a deal bootstrap")
WIN_DOC = ("sole 1st: one of the agent's seats alone in first place (sole-win rates add up to at most 1); "
           "shared 1st: first place tied with another seat")


# ------------------------------------------------------------------------------- the hooks
def _hooks():
    """``agents.base.start_game`` / ``end_game`` (the agent protocol's optional hooks)."""
    from agents import base

    return base.start_game, base.end_game


# ----------------------------------------------------------------------------- the records
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


@dataclass
class TournamentResult:
    env_name: str
    agent_names: list[str]
    config: dict
    games: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0
    seating: str = "lineup"  # or "field"
    seating_text: str = ""
    duplicate: bool = True
    rotations: int = 1
    seed: int = 0
    num_seats: int = 0
    reward_range: tuple[float, float] | None = RANK_REWARD_RANGE
    policies: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    # -------------------------------------------------------------------- per-game values
    def _seats(self, g: GameRecord, i: int) -> list[int]:
        return [s for s, a in enumerate(g.lineup) if a == i]

    def _per_game(self, i: int, value) -> tuple[np.ndarray, np.ndarray]:
        """``value(game, seats of i)`` for every game agent i sat in, and those games' deals."""
        vals, deals = [], []
        for g in self.games:
            seats = self._seats(g, i)
            if seats:
                vals.append(value(g, seats))
                deals.append(g.deal)
        return np.asarray(vals, dtype=float), np.asarray(deals, dtype=int)

    def game_means(self, key: str, i: int) -> np.ndarray:
        """Per game, the mean of ``key`` (rewards, scores, ranks) over the seats agent i held."""
        return self._per_game(i, lambda g, seats: float(np.mean([getattr(g, key)[s] for s in seats])))[0]

    def _wins(self, i: int, shared: bool) -> tuple[np.ndarray, np.ndarray]:
        def won(g, seats):
            firsts = [s for s, r in enumerate(g.ranks) if r == 1]
            mine = any(s in firsts for s in seats)
            return float(mine and (len(firsts) > 1) == shared)

        return self._per_game(i, won)

    def _bounded(self, key: str) -> tuple[float, float] | None:
        return self.reward_range if key == "rewards" else None

    # -------------------------------------------------------------------------- summaries
    def summary(self) -> list[dict[str, Any]]:
        """One row per agent: mean reward and score with 95% intervals ([low, high], and
        ``*_ci95`` = the half-width of the narrowest interval centred on the mean that holds
        it), sole and shared first-place rates with intervals, mean rank, Elo (and OpenSkill)."""
        elo = self.elo()
        skill = self.openskill() if self.num_seats > 2 else None
        rows = []
        for i, name in enumerate(self.agent_names):
            row: dict[str, Any] = {"name": name}
            r, deals = self._per_game(i, lambda g, s: float(np.mean([g.rewards[k] for k in s])))
            sc, _ = self._per_game(i, lambda g, s: float(np.mean([g.scores[k] for k in s])))
            rk, _ = self._per_game(i, lambda g, s: float(np.mean([g.ranks[k] for k in s])))
            row["games"] = int(len(r))
            row["deals"] = int(len(set(deals.tolist())))
            row["seats_per_game"] = (sum(len(self._seats(g, i)) for g in self.games) / len(r)) if len(r) else 0.0
            row.update(_stat("reward", r, deals, self.reward_range, self._rng(i, 0)))
            row.update(_stat("score", sc, deals, None, self._rng(i, 1)))
            sole, _ = self._wins(i, shared=False)
            shared, _ = self._wins(i, shared=True)
            row.update(_stat("win_rate", sole, deals, (0.0, 1.0), None))
            row.update(_stat("shared_first_rate", shared, deals, (0.0, 1.0), None))
            row["mean_rank"] = float(rk.mean()) if len(rk) else float("nan")
            row["elo"] = elo[i]
            if skill is not None:
                row["openskill_mu"], row["openskill_sigma"] = skill[i] if skill[i] else (float("nan"),) * 2
            rows.append(row)
        return rows

    def _rng(self, i: int, k: int) -> np.random.Generator:
        return np.random.default_rng([abs(int(self.seed)), i, k])

    def pair(self, a: int = 0, b: int = 1) -> dict[str, Any]:
        """Agent a's mean per-game reward minus agent b's, over the games where both sat (a
        paired comparison), with its 95% interval and, for duplicate deals, the variance ratio
        against independent deals."""
        def diff(g, seats_a):
            seats_b = self._seats(g, b)
            if not seats_b:
                return float("nan")
            return float(np.mean([g.rewards[s] for s in seats_a]) - np.mean([g.rewards[s] for s in seats_b]))

        d, deals = self._per_game(a, diff)
        keep = ~np.isnan(d)
        d, deals = d[keep], deals[keep]
        span = None
        if self.reward_range is not None:
            w = self.reward_range[1] - self.reward_range[0]
            span = (-w, w)
        out = {"a": self.agent_names[a], "b": self.agent_names[b], "games": int(len(d)),
               "deals": int(len(set(deals.tolist())))}
        out.update(_stat("margin", d, deals, span, self._rng(a, 100 + b)))
        out["variance_vs_independent"] = variance_ratio(d, deals) if self.duplicate else None
        return out

    def margin(self, a: int = 0, b: int = 1) -> tuple[float, float]:
        """(mean margin of a over b, its ``ci95`` half-width); see :meth:`pair`."""
        p = self.pair(a, b)
        return p["margin"], p["margin_ci95"]

    def margins(self) -> list[dict[str, Any]]:
        """:meth:`pair` for every two agents that met."""
        k = len(self.agent_names)
        met = self._met()
        return [self.pair(a, b) for a in range(k) for b in range(a + 1, k) if met[a, b]]

    def _met(self) -> np.ndarray:
        k = len(self.agent_names)
        met = np.zeros((k, k), dtype=bool)
        for g in self.games:
            present = set(g.lineup)
            for a in present:
                for b in present:
                    met[a, b] = a != b
        return met

    def win_matrix(self) -> np.ndarray:
        """``m[i, j]``: how often a seat of agent i finished ahead of a seat of agent j when both
        sat (ties count ½); the diagonal and pairs that never met are NaN."""
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

    def openskill(self) -> list[tuple[float, float] | None] | None:
        """OpenSkill Plackett–Luce ``(mu, sigma)`` per agent (None without the openskill package;
        an agent that never sat gets None). Each seat is a team of one; games in deal order."""
        try:
            from openskill.models import PlackettLuce
        except ImportError:
            return None
        model = PlackettLuce()
        ratings = [model.rating(name=n) for n in self.agent_names]
        seen = [False] * len(ratings)
        for g in sorted(self.games, key=lambda g: (g.deal, g.seed)):
            teams = [[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in g.lineup]
            new = model.rate(teams, ranks=[float(r) for r in g.ranks])
            for a in set(g.lineup):
                seats = self._seats(g, a)
                mu = ratings[a].mu + float(np.mean([new[s][0].mu - ratings[a].mu for s in seats]))
                sigma = float(np.mean([new[s][0].sigma for s in seats]))
                ratings[a] = model.rating(mu=mu, sigma=sigma, name=self.agent_names[a])
                seen[a] = True
        return [(float(r.mu), float(r.sigma)) if s else None for r, s in zip(ratings, seen)]

    # ------------------------------------------------------------------------------ output
    def describe(self) -> list[str]:
        deals = len({g.deal for g in self.games})
        if self.duplicate:
            how = (f"duplicate deals: {deals} deals x {self.rotations} rotations, each deal (seed {self.seed}+d) "
                   "played once per rotation with the same cards")
        else:
            how = f"independent deals: game g dealt from seed {self.seed}+g"
        return [f"seating: {self.seating_text}", how]

    def table(self) -> str:
        n = len(self.games)
        lines = [f"{self.env_name} {self.config or ''}: {n} games in {self.seconds:.1f}s", *self.describe()]
        rows = self.summary()
        width = max([len(r["name"]) for r in rows] + [5])
        skill = self.num_seats > 2 and any("openskill_mu" in r for r in rows)
        lines.append(f"{'agent':<{width}} {'games':>6}  {'mean reward [95% CI]':<25} {'mean score [95% CI]':<27} "
                     f"{'sole 1st [95% CI]':<21} {'shared 1st':>10} {'mean rank':>9} {'elo':>6}"
                     + ("  openskill mu ± sigma" if skill else ""))
        for r in rows:
            line = (f"{r['name']:<{width}} {r['games']:>6}  {_fmt_ci(r, 'reward', '+.3f'):<25} "
                    f"{_fmt_ci(r, 'score', '.2f'):<27} {_fmt_ci(r, 'win_rate', '.3f'):<21} "
                    f"{r['shared_first_rate']:>10.3f} {r['mean_rank']:>9.2f} {r['elo']:>6.0f}")
            if skill:
                line += f"  {r.get('openskill_mu', float('nan')):6.2f} ± {r.get('openskill_sigma', float('nan')):.2f}"
            lines.append(line)
        if self.num_seats > 2 and not skill:
            lines.append("(OpenSkill ratings: pip install openskill)")
        for p in self.margins():
            lo, hi = p["margin_low"], p["margin_high"]
            verdict = "excludes" if lo > 0 or hi < 0 else "includes"
            text = (f"{p['a']} − {p['b']}: reward margin {p['margin']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
                    f"(95% CI {verdict} 0; {p['games']} games)")
            v = p["variance_vs_independent"]
            if v is not None and math.isfinite(v):
                text += f"; duplicate deals: variance {v:.2f}x that of independent deals"
            lines.append(text)
        lines.append(f"({INTERVALS_DOC}; {WIN_DOC})")
        illegal = sum(g.illegal for g in self.games)
        if illegal:
            lines.append(f"WARNING: {illegal} games ended by an illegal action")
        lines += [f"note: {t}" for t in self.notes]
        return "\n".join(lines)

    def to_json(self) -> dict:
        m = self.win_matrix()
        deals = sorted({g.deal for g in self.games})
        seeds = sorted({g.seed for g in self.games})
        margins = self.margins()
        return {
            "env_name": self.env_name,
            "agents": self.agent_names,
            "config": self.config,
            "games": len(self.games),
            "seconds": self.seconds,
            "seating": {"mode": self.seating, "description": self.seating_text,
                        "lineups": [[self.agent_names[a] for a in lu] for lu in _unique(g.lineup for g in self.games)]},
            "deals": {"duplicate": self.duplicate, "count": len(deals), "rotations": self.rotations,
                      "seed": self.seed, "seeds": seeds,
                      "rule": "deal d from seed+d, once per rotation" if self.duplicate else "game g from seed+g"},
            "intervals": INTERVALS_DOC,
            "win": WIN_DOC,
            "summary": self.summary(),
            "win_matrix": {"rows_ahead_of_columns": self.agent_names,
                           "values": [[None if math.isnan(x) else float(x) for x in row] for row in m]},
            "margins": margins,
            "margin_0_1": ({"mean": margins[0]["margin"], "ci95": margins[0]["margin_ci95"],
                            "low": margins[0]["margin_low"], "high": margins[0]["margin_high"]}
                           if margins and (margins[0]["a"], margins[0]["b"]) == tuple(self.agent_names[:2]) else None),
            "illegal_games": sum(g.illegal for g in self.games),
            "policies": self.policies,
            "versions": versions(),
            "notes": self.notes,
        }

    def write(self, out_dir: str | os.PathLike) -> tuple[Path, Path]:
        """Writes ``summary.json`` and ``games.csv`` (one row per game and seat) into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(_jsonable(self.to_json()), indent=2))
        with open(out / "games.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["deal", "game_seed", "seat", "agent", "reward", "score", "rank", "steps"])
            for g in self.games:
                for s, a in enumerate(g.lineup):
                    w.writerow([g.deal, g.seed, s, self.agent_names[a], g.rewards[s], g.scores[s], g.ranks[s], g.steps])
        return out / "summary.json", out / "games.csv"


# ------------------------------------------------------------------------------- intervals
def deal_means(values: np.ndarray, deals: np.ndarray) -> np.ndarray:
    """The mean of ``values`` within each deal (games of one deal are one cluster)."""
    return _clusters(values, deals)[0]


def _clusters(values: np.ndarray, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values, deals = np.asarray(values, dtype=float), np.asarray(deals)
    if len(values) == 0:
        return values, values
    _, inv = np.unique(deals, return_inverse=True)
    counts = np.bincount(inv).astype(float)
    return np.bincount(inv, weights=values) / counts, counts


def bounded_interval(means: np.ndarray, low: float, high: float, sizes: np.ndarray | None = None,
                     z: float = Z95) -> tuple[float, float]:
    """95% interval of a mean of values in [low, high], from the per-deal means ``means`` of
    ``sizes`` games each (deals independent, games within a deal not): Agresti–Coull's adjusted
    Wald interval generalised to a bounded, clustered mean. On the range rescaled to [0, 1],
    with k = z²/2 pseudo-games at each end, G games and deal means m_c of n_c games:

        centre = (Σ n_c m_c + k) / (G + 2k)
        var    = (Σ n_c² (m_c − centre)² + k centre² + k (1 − centre)²) / (G + 2k)²
        centre ± z √var, clipped to the range

    (the cluster-robust variance of the mean, plus the pseudo-games). For 0/1 values of
    independent games it is Agresti–Coull exactly; it stays honest at the extremes and at
    small n, where the plain normal interval collapses to a point."""
    m = np.asarray(means, dtype=float)
    if len(m) == 0:
        return float("nan"), float("nan")
    n = np.ones_like(m) if sizes is None else np.asarray(sizes, dtype=float)
    span = high - low
    p = (m - low) / span
    k = z * z / 2.0
    total = n.sum() + 2 * k
    center = ((n * p).sum() + k) / total
    var = ((n**2 * (p - center) ** 2).sum() + k * center**2 + k * (1 - center) ** 2) / total**2
    half = z * math.sqrt(max(var, 0.0))
    lo, hi = max(0.0, center - half), min(1.0, center + half)
    return float(low + span * lo), float(low + span * hi)


def bootstrap_interval(means: np.ndarray, rng: np.random.Generator,
                       resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of independent values (the per-deal means)."""
    x = np.asarray(means, dtype=float)
    n = len(x)
    if n < 2:
        return float("nan"), float("nan")
    idx = rng.integers(n, size=(resamples, n))
    boot = x[idx].mean(axis=1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return float(lo), float(hi)


def variance_ratio(values: np.ndarray, deals: np.ndarray) -> float:
    """Variance of the mean with games clustered by deal over the variance the same number of
    independent deals would give: ``(var(deal means) / deals) / (var(games) / games)``."""
    values = np.asarray(values, dtype=float)
    means = deal_means(values, deals)
    if len(means) < 2 or len(values) < 2:
        return float("nan")
    independent = values.var(ddof=1) / len(values)
    if independent == 0:
        return float("nan")
    return float((means.var(ddof=1) / len(means)) / independent)


def _stat(key: str, values: np.ndarray, deals: np.ndarray, bounds: tuple[float, float] | None,
          rng: np.random.Generator | None) -> dict[str, float]:
    """``key`` (the mean), ``key_low``, ``key_high`` and ``key_ci95`` (half-width of the narrowest
    interval centred on the mean containing [low, high]); mean_* names for reward and score."""
    name = f"mean_{key}" if key in ("reward", "score") else key
    if len(values) == 0:
        nan = float("nan")
        return {name: nan, f"{key}_low": nan, f"{key}_high": nan, f"{key}_ci95": nan}
    mean = float(values.mean())
    means, sizes = _clusters(values, deals)
    if bounds is not None and values.min() >= bounds[0] - 1e-9 and values.max() <= bounds[1] + 1e-9:
        lo, hi = bounded_interval(means, *bounds, sizes=sizes)
    else:
        lo, hi = bootstrap_interval(means, rng if rng is not None else np.random.default_rng(0))
    half = max(mean - lo, hi - mean) if math.isfinite(lo) else float("nan")
    return {name: mean, f"{key}_low": lo, f"{key}_high": hi, f"{key}_ci95": float(half)}


def _fmt_ci(row: dict, key: str, spec: str) -> str:
    name = f"mean_{key}" if key in ("reward", "score") else key
    m, lo, hi = row[name], row[f"{key}_low"], row[f"{key}_high"]
    if not math.isfinite(lo):
        return f"{m:{spec}} [n/a]"
    return f"{m:{spec}} [{lo:{spec}}, {hi:{spec}}]"


# ---------------------------------------------------------------------------------- seating
def _pool(agents: Sequence[Any], names: Sequence[str] | None) -> tuple[list[Any], list[str], list[int]]:
    """Distinct agents (equal specs, or the same object, are one agent), their names, and the
    distinct agent of every listed one."""
    entries: list[Any] = []
    entry_names: list[str] = []
    index: list[int] = []
    for k, a in enumerate(agents):
        for i, e in enumerate(entries):
            if (isinstance(a, str) and isinstance(e, str) and a == e) or a is e:
                index.append(i)
                break
        else:
            entries.append(a)
            entry_names.append(str(names[k]) if names else _agent_name(a))
            index.append(len(entries) - 1)
    seen: dict[str, int] = {}
    for i, n in enumerate(entry_names):  # two different agents of one name: tell them apart
        if n in seen:
            entry_names[i] = f"{n}#{i}"
        seen.setdefault(n, i)
    return entries, entry_names, index


def _agent_name(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", None) or type(spec).__name__)


def rotations_of(lineup: Sequence[int]) -> list[list[int]]:
    """The distinct rotations of a line-up (``A B A B`` has two)."""
    out: list[list[int]] = []
    for r in range(len(lineup)):
        lu = list(lineup[r:]) + list(lineup[:r])
        if lu not in out:
            out.append(lu)
    return out


def seating_plan(index: Sequence[int], num_seats: int) -> list[list[int]]:
    """Every line-up a deal is played with: the rotations of the listed line-up, or with more
    listed agents than seats the rotations of every combination of ``num_seats`` of them."""
    if len(index) <= num_seats:  # fewer agents than seats: the list repeated to fill them
        return rotations_of([index[s % len(index)] for s in range(num_seats)])
    plan: list[list[int]] = []
    for combo in itertools.combinations(range(len(index)), num_seats):
        for lu in rotations_of([index[c] for c in combo]):
            if lu not in plan:
                plan.append(lu)
    return plan


def _unique(items) -> list:
    out = []
    for x in items:
        if list(x) not in out:
            out.append(list(x))
    return out


# ------------------------------------------------------------------------------- the games
def _make_agent(spec: Any, seed: int | None):
    if isinstance(spec, str):
        import agents

        return agents.load(spec, seed=seed)
    return spec


def _game_seed(seed: int, game: int, k: int) -> int:
    return int(np.random.SeedSequence([abs(int(seed)), int(game) + 1, int(k)]).generate_state(1)[0])  # game -1: loading


def _reseed(players: Sequence[Any], specs: Sequence[Any], seed: int, game: int) -> None:
    """Every agent's generator from (seed, game, agent) before each game, so the games do not
    depend on how they were split over workers: an agent's ``seed(int)`` method, or the ``rng``
    generator of an agent loaded here from a spec."""
    for k, (p, spec) in enumerate(zip(players, specs)):
        s = _game_seed(seed, game, k)
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
    start_game, end_game = _hooks()
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


def _run_chunk(args) -> list[GameRecord]:
    env_name, specs, config, schedule, seed, players, save = args
    import card_envs

    env = card_envs.ENVIRONMENTS[env_name].env(**config)
    if players is None:
        players = [_make_agent(s, _game_seed(seed, -1, k)) for k, s in enumerate(specs)]
    out = []
    for game, deal, game_seed, lineup in schedule:
        _reseed(players, specs, seed, game)
        out.append(play_game(env, players, game_seed, lineup, config, deal, specs if save else None, game))
    return out


def _schedule(num_games: int, plan: list[list[int]], seed: int,
              duplicate: bool) -> list[tuple[int, int, int, list[int]]]:
    """``(game, deal, seed of the deal, line-up)`` of every game."""
    r = len(plan)
    if duplicate:
        deals = -(-num_games // r)
        return [(d * r + k, d, seed + d, plan[k]) for d in range(deals) for k in range(r)]
    return [(g, g, seed + g, plan[g % r]) for g in range(num_games)]


def _picklable(objs: Sequence[Any]) -> str | None:
    """None when every object pickles, else why not."""
    for o in objs:
        try:
            pickle.dumps(o)
        except Exception as e:  # noqa: BLE001 - any reason an object does not pickle
            return f"{_agent_name(o)} does not pickle ({type(e).__name__}: {e})"
    return None


def tournament(
    env_name: str,
    agents: Sequence[Any],
    num_games: int = 1000,
    config: dict | None = None,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    names: Sequence[str] | None = None,
    *,
    field: bool = False,
    duplicate: bool = True,
    save_games: bool = False,
) -> TournamentResult:
    """Play about ``num_games`` games of ``env_name`` between ``agents`` (specs like
    ``"heuristic"``, or Agent objects): the line-up seating, or with ``field=True`` the first agent
    against N−1 copies of the second; duplicate deals unless ``duplicate=False`` (the module's
    docstring defines both). ``workers`` > 1 spreads the games over processes; Agent objects
    travel there pickled (one that does not pickle runs the tournament in this process, with a
    warning and a note in the result). ``save_games``: every game's ``GameRecord`` carries its
    replayable record (``card_envs.records``) in ``.record``, the results unchanged."""
    import card_envs

    from card_envs.cli import check_game_options, game_name

    env_name = game_name(env_name)
    if len(agents) < 1:
        raise UserError("a tournament needs at least one agent")
    if num_games < 1:
        raise UserError(f"the number of games must be at least 1, got {num_games}")
    config = dict(config or {})
    check_game_options(env_name, config)  # bad options fail here, before any work
    num_seats = len(card_envs.ENVIRONMENTS[env_name].raw_env(**config).possible_agents)
    listed = list(agents)
    if field:
        if len(listed) != 2:
            raise UserError(f"the field seating takes two agents (A against copies of B), got {len(listed)}")
    if names is not None and len(names) not in (len(agents), len(listed)):
        raise UserError(f"names gives {len(names)} names for {len(agents)} agents")
    if names is not None and field and len(names) != 2:
        names = [names[0], names[-1]]
    if field:  # A is never pooled with B, even when they are the same spec
        b_entries, b_names, _ = _pool([listed[1]], names[1:2] if names else None)
        a_entries, a_names, _ = _pool([listed[0]], names[:1] if names else None)
        entries, entry_names = a_entries + b_entries, a_names + b_names
        if entry_names[0] == entry_names[1]:
            entry_names[1] = f"{entry_names[1]}#1"
        index = [0] + [1] * (num_seats - 1)
    else:
        entries, entry_names, index = _pool(listed, names)
    plan = seating_plan(index, num_seats)
    result = TournamentResult(env_name, entry_names, config, seating="field" if field else "lineup",
                              duplicate=duplicate, rotations=len(plan), seed=seed, num_seats=num_seats)
    if field:
        a, b = entry_names[0], entry_names[-1]
        copies = f"{num_seats - 1} {'copy' if num_seats == 2 else 'copies'}"
        result.seating_text = (f"field: {a} in one seat against {copies} of {b}, "
                               f"{a}'s seat rotated through all {num_seats} seats")
    elif len(listed) <= num_seats:
        seats = ", ".join(f"{entry_names[i]} in player_{s}" for s, i in enumerate(plan[0]))
        result.seating_text = f"line-up: {seats}; rotated through its {len(plan)} distinct rotations"
        if len(listed) < num_seats:
            result.seating_text += f" ({len(listed)} agents listed for {num_seats} seats: the list repeats)"
            if len(entries) == 2:
                result.notes.append(f"for {entry_names[0]} against {num_seats - 1} copies of {entry_names[1]} "
                                    f"(what training reports), use the field seating: --field {entry_names[0]} "
                                    f"{entry_names[1]}")
    else:
        result.seating_text = (f"line-up: every {num_seats} of the {len(listed)} agents listed, each line-up "
                               f"rotated ({len(plan)} line-ups)")
    mode = str(config.get("reward_mode", "rank"))
    result.reward_range = RANK_REWARD_RANGE if mode == "rank" else None

    # Load and seat the agents here first: a bad spec, a policy refusing the table, fail before any pool.
    start_game, _ = _hooks()
    local = [_make_agent(s, _game_seed(seed, -1, k)) for k, s in enumerate(entries)]
    probe = card_envs.ENVIRONMENTS[env_name].raw_env(**config).possible_agents
    for lu in plan:
        for s, a in enumerate(lu):
            if isinstance(entries[a], str):
                start_game(local[a], env_name, config, probe[s])
    result.policies = {n: resolved_policy(p, env_name, spec) for n, p, spec in zip(entry_names, local, entries)}

    schedule = _schedule(num_games, plan, seed, duplicate)
    if workers > 1:
        why = _picklable([e for e in entries if not isinstance(e, str)])
        if why is not None:
            note = f"ran with 1 worker, not {workers}: {why}"
            warnings.warn(note, stacklevel=2)
            result.notes.append(note)
            workers = 1
    chunk = max(1, min(50, len(schedule) // (4 * max(workers, 1)) or 1))
    pieces = [schedule[i : i + chunk] for i in range(0, len(schedule), chunk)]
    bar = _progress(len(schedule), f"{env_name} tournament") if progress else None
    start = time.perf_counter()
    try:
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                jobs = [(env_name, entries, config, p, seed, None, save_games) for p in pieces]
                for records in pool.map(_run_chunk, jobs):
                    result.games.extend(records)
                    if bar:
                        bar.update(len(records))
        else:
            for p in pieces:
                records = _run_chunk((env_name, entries, config, p, seed, local, save_games))
                result.games.extend(records)
                if bar:
                    bar.update(len(records))
    finally:
        if bar:
            bar.close()
    result.seconds = time.perf_counter() - start
    if result.reward_range is not None:
        lo, hi = result.reward_range
        if any(not lo - 1e-9 <= r <= hi + 1e-9 for g in result.games for r in g.rewards):
            result.reward_range = None  # not the rank reward after all: intervals by bootstrap
    return result


def evaluate_against(env_name: str, config: dict, agent: Any, opponent: Any, games: int, seed: int,
                     workers: int = 1, duplicate: bool = True) -> dict:
    """Training's evaluation: ``agent`` in one seat against N−1 copies of ``opponent`` (the field
    seating of :func:`tournament`), one row of eval.csv / final_eval.json: the agent's mean reward
    with its interval, its sole and shared first-place rates, mean score, and its margin."""
    result = tournament(env_name, [agent, opponent], games, config=config, seed=seed, workers=workers,
                        field=True, duplicate=duplicate, names=["agent", _agent_name(opponent)])
    row = result.summary()[0]
    pair = result.pair(0, 1) if len(result.agent_names) > 1 else {}
    out = {"opponent": _agent_name(opponent), "seating": result.seating_text, "duplicate": duplicate}
    out.update({k: row[k] for k in ("games", "deals", "mean_reward", "reward_low", "reward_high", "reward_ci95",
                                    "win_rate", "win_rate_low", "win_rate_high", "shared_first_rate",
                                    "mean_score", "score_low", "score_high", "score_ci95", "mean_rank")})
    out.update({k: pair.get(k) for k in ("margin", "margin_low", "margin_high", "variance_vs_independent")})
    out["policies"] = result.policies
    return out


# -------------------------------------------------------------------------------- metadata
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for f in files:
        if path.is_dir():
            h.update(str(f.relative_to(path)).encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def resolved_policy(agent: Any, env_name: str, spec: Any = None) -> dict:
    """What an agent plays: its spec, and for a learned policy the file (or checkpoint folder) it
    resolved to, with its sha256 (``ppo`` -> ``agents/pretrained/<game>.zip``)."""
    out: dict[str, Any] = {"spec": spec if isinstance(spec, str) else _agent_name(agent), "class": type(agent).__name__}
    path = None
    f = getattr(agent, "policy_file", None)
    try:
        path = f(env_name) if callable(f) else f
    except (ValueError, FileNotFoundError):
        path = None
    if path is None:
        path = getattr(agent, "path", None)
    if path is None and type(agent).__name__ == "PPOAgent" and getattr(agent, "_fixed", None) is None:
        from agents.ppo import PRETRAINED_DIR

        path = PRETRAINED_DIR / f"{env_name}.zip"
    if path is not None and Path(path).exists():
        out["file"] = str(Path(path).resolve())
        out["sha256"] = _sha256(Path(path))
    return out


def versions() -> dict:
    """Python, card_envs, numpy, and the learning libraries this process has loaded."""
    import card_envs

    out = {"python": platform.python_version(), "card_envs": card_envs.__version__, "numpy": np.__version__}
    for mod in ("torch", "stable_baselines3", "sb3_contrib", "ray", "openskill", "pettingzoo", "gymnasium"):
        if mod in sys.modules:
            out[mod] = getattr(sys.modules[mod], "__version__", "?")
    if "openskill" not in out:
        try:
            from importlib.metadata import version

            out["openskill"] = version("openskill")
        except Exception:  # noqa: BLE001 - not installed
            pass
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, Path):
        return str(x)
    return x


# -------------------------------------------------------------------------------- progress
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


# ------------------------------------------------------------------------------------- CLI
def parse_config(pairs: Sequence[str]) -> dict:
    """``["num_players=4", "mode=single", "table.json"]`` -> game options (card_envs.cli's rules)."""
    from card_envs.cli import game_options

    return game_options(list(pairs))


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli

    ap = cli.Parser(prog="python -m training.evaluate", description=__doc__)
    cli.add_game_argument(ap)
    ap.add_argument("agents", nargs="*", help="line-up: one agent spec per seat (random, heuristic, ppo, ppo:PATH, "
                    "rllib:PATH, py:module:Class, with ,sample ,greedy ,any_table flags)")
    ap.add_argument("--field", nargs=2, metavar=("A", "B"), help="A in one seat against N-1 copies of B")
    ap.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole duplicate deals)")
    cli.add_config_arguments(ap)
    ap.add_argument("--independent", action="store_true", help="independent deals instead of duplicate deals")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", help="folder for summary.json and games.csv")
    ap.add_argument("--save-games", metavar="FILE", help="write every game's record to FILE (JSON Lines, "
                    "card_envs.records: replay with python -m card_envs.records show FILE --game K)")
    args = ap.parse_args(argv)
    try:
        game = cli.game_name(args.game)
        if args.field and args.agents:
            raise UserError("give either the line-up (agents after the game) or --field A B, not both")
        if not args.field and not args.agents:
            raise UserError("name the agents: a line-up (one spec per seat) or --field A B")
        config = cli.with_players(cli.game_options(args.config), args.players, game)
        specs = list(args.field or args.agents)
        result = tournament(game, specs, args.games, config, args.seed, args.workers, progress=True,
                            field=bool(args.field), duplicate=not args.independent,
                            save_games=bool(args.save_games))
        print(result.table())
        if args.save_games:
            from card_envs import records

            path = records.write(args.save_games, [g.record for g in result.games])
            print(f"wrote {len(result.games)} game records to {path}")
        if args.out:
            paths = result.write(args.out)
            print("wrote " + ", ".join(map(str, paths)))
    except cli.USER_ERRORS as e:
        return cli.report(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
