"""A tournament's result: its games and what they say. Per agent: mean reward and score, sole and
shared first places, mean rank, with 95% intervals over deals (training/intervals.py), and the
ratings (training/ratings.py); per pair of agents: the reward margin and, for duplicate deals, its
variance against independent deals; the win matrix. Printed as a table, written as summary.json
(with the policies played and the versions: training/provenance.py) and games.csv.

Win: an agent's game is a **sole first place** when one of its seats has rank 1 and no other seat
does, a **shared first place** when one of its seats has rank 1 tied with another seat (ranks are
standard competition ranks, tied seats share the best). An agent holding several seats wins when
any of its seats does.
"""

from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.games import GameRecord
from training.intervals import INTERVALS_DOC, format_interval, mean_with_interval, variance_ratio
from training.provenance import versions
from training.ratings import elo_ratings, openskill_ratings

RANK_REWARD_RANGE = (-1.0, 1.0)
WIN_DOC = ("sole 1st: one of the agent's seats alone in first place (sole-win rates add up to at most 1); "
           "shared 1st: first place tied with another seat")


@dataclass
class TournamentResult:
    """A tournament's games, with what it was: the game and its options, the agents' names (an
    agent's index in ``agent_names`` is its number in every game's line-up), the seating and the
    deals, the policies played, and notes printed with the table."""

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
    def _per_game(self, i: int, value) -> tuple[np.ndarray, np.ndarray]:
        """``value(game, seats of i)`` for every game agent i sat in, and those games' deals."""
        vals, deals = [], []
        for g in self.games:
            seats = g.seats_of(i)
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
            row["seats_per_game"] = (sum(len(g.seats_of(i)) for g in self.games) / len(r)) if len(r) else 0.0
            row.update(mean_with_interval("reward", r, deals, self.reward_range, self._rng(i, 0)))
            row.update(mean_with_interval("score", sc, deals, None, self._rng(i, 1)))
            sole, _ = self._wins(i, shared=False)
            shared, _ = self._wins(i, shared=True)
            row.update(mean_with_interval("win_rate", sole, deals, (0.0, 1.0), None))
            row.update(mean_with_interval("shared_first_rate", shared, deals, (0.0, 1.0), None))
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
            seats_b = g.seats_of(b)
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
        out.update(mean_with_interval("margin", d, deals, span, self._rng(a, 100 + b)))
        out["variance_vs_independent"] = variance_ratio(d, deals) if self.duplicate else None
        return out

    def against(self, a: int = 0, b: int = 1) -> dict[str, Any]:
        """Agent a's mean per-game reward over the games where agent b also sat, with its 95%
        interval over deals: a's head-to-head result against b. At two seats those are exactly
        the games of a against b; in the field seating (a in one seat, copies of b in the others)
        every game. That is the number the benchmark's score cards record for a against b."""
        def reward(g, seats_a):
            return float(np.mean([g.rewards[s] for s in seats_a])) if g.seats_of(b) else float("nan")

        r, deals = self._per_game(a, reward)
        keep = ~np.isnan(r)
        r, deals = r[keep], deals[keep]
        out = {"a": self.agent_names[a], "b": self.agent_names[b], "games": int(len(r)),
               "deals": int(len(set(deals.tolist())))}
        out.update(mean_with_interval("reward", r, deals, self.reward_range, self._rng(a, 200 + b)))
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
        return elo_ratings(self.games, len(self.agent_names))

    def openskill(self) -> list[tuple[float, float] | None] | None:
        """OpenSkill Plackett–Luce ``(mu, sigma)`` per agent (None without the openskill package;
        an agent that never sat gets None). Each seat is a team of one; games in deal order."""
        return openskill_ratings(self.games, self.agent_names)

    # ------------------------------------------------------------------------------ output
    def describe(self) -> list[str]:
        """The seating and the deals, in words (the lines printed above the table)."""
        deals = len({g.deal for g in self.games})
        if self.duplicate:
            how = (f"duplicate deals: {deals} deals x {self.rotations} rotations, each deal (seed {self.seed}+d) "
                   "played once per rotation with the same cards")
        else:
            how = f"independent deals: game g dealt from seed {self.seed}+g"
        return [f"seating: {self.seating_text}", how]

    def table(self) -> str:
        """The result as printed: one row per agent, the pairwise margins, warnings and notes."""
        n = len(self.games)
        lines = [f"{self.env_name} {self.config or ''}: {n} games in {self.seconds:.1f}s", *self.describe()]
        rows = self.summary()
        width = max([len(r["name"]) for r in rows] + [5])
        skill = self.num_seats > 2 and any("openskill_mu" in r for r in rows)
        lines.append(f"{'agent':<{width}} {'games':>6}  {'mean reward [95% CI]':<25} {'mean score [95% CI]':<27} "
                     f"{'sole 1st [95% CI]':<21} {'shared 1st':>10} {'mean rank':>9} {'elo':>6}"
                     + ("  openskill mu ± sigma" if skill else ""))
        for r in rows:
            line = (f"{r['name']:<{width}} {r['games']:>6}  {format_interval(r, 'reward', '+.3f'):<25} "
                    f"{format_interval(r, 'score', '.2f'):<27} {format_interval(r, 'win_rate', '.3f'):<21} "
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
        """Everything summary.json holds (before :func:`jsonable`)."""
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
        (out / "summary.json").write_text(json.dumps(jsonable(self.to_json()), indent=2))
        with open(out / "games.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["deal", "game_seed", "seat", "agent", "reward", "score", "rank", "steps"])
            for g in self.games:
                for s, a in enumerate(g.lineup):
                    w.writerow([g.deal, g.seed, s, self.agent_names[a], g.rewards[s], g.scores[s], g.ranks[s], g.steps])
        return out / "summary.json", out / "games.csv"


def jsonable(x: Any) -> Any:
    """``x`` as JSON can hold it: numpy numbers as Python numbers, NaN and infinities as null,
    paths as strings, dict keys as strings, tuples as lists."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, Path):
        return str(x)
    return x


def _unique(items) -> list:
    """The distinct items, as lists, in the order first seen."""
    out = []
    for x in items:
        if list(x) not in out:
            out.append(list(x))
    return out
