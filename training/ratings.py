"""Ratings of a tournament's agents from the ranks of its games.

- :func:`elo_ratings`: a Bradley–Terry fit on the Elo scale (mean 1500) to every pairwise result
  between seats of different agents.
- :func:`openskill_ratings`: OpenSkill's Plackett–Luce ratings (``pip install openskill``),
  updated game by game in deal order, each seat a team of one; an agent holding several seats
  gets the mean of its seats' updates.

A game here is a :class:`training.games.GameRecord`: ``lineup`` (the agent of every seat),
``ranks`` (every seat's standard competition rank), ``deal`` and ``seed``.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def elo_ratings(games: Sequence, num_agents: int) -> list[float]:
    """Elo-style ratings (mean 1500) fitted to every pairwise result between seats of
    different agents (a Bradley–Terry maximum-likelihood fit, on the Elo scale)."""
    k = num_agents
    if k < 2:
        return [1500.0] * k
    wins = np.zeros((k, k))
    for g in games:
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
    played = wins + wins.T
    theta = np.zeros(k)
    for _ in range(2000):  # minorise-maximise iterations of Bradley–Terry, with a weak prior
        p = np.exp(theta)
        denom = (played / (p[:, None] + p[None, :] + 1e-300)).sum(axis=1) + 2.0 / (p + 1.0)
        new = np.log((wins.sum(axis=1) + 1.0) / denom)
        new -= new.mean()
        if np.max(np.abs(new - theta)) < 1e-10:
            theta = new
            break
        theta = new
    return [float(1500 + 400 / math.log(10) * t) for t in theta]


def openskill_ratings(games: Sequence, agent_names: Sequence[str]) -> list[tuple[float, float] | None] | None:
    """OpenSkill Plackett–Luce ``(mu, sigma)`` per agent (None without the openskill package;
    an agent that never sat gets None). Each seat is a team of one; games in deal order."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in agent_names]
    seen = [False] * len(ratings)
    for g in sorted(games, key=lambda g: (g.deal, g.seed)):
        teams = [[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in g.lineup]
        new = model.rate(teams, ranks=[float(r) for r in g.ranks])
        for a in set(g.lineup):
            seats = g.seats_of(a)
            mu = ratings[a].mu + float(np.mean([new[s][0].mu - ratings[a].mu for s in seats]))
            sigma = float(np.mean([new[s][0].sigma for s in seats]))
            ratings[a] = model.rating(mu=mu, sigma=sigma, name=agent_names[a])
            seen[a] = True
    return [(float(r.mu), float(r.sigma)) if s else None for r, s in zip(ratings, seen)]
