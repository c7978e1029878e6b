"""95% intervals of a tournament's means, over deals, and what duplicate deals gain.

The games of one deal are not independent (they had the same cards); the deals are. So every
statistic is first averaged per deal (:func:`deal_means`), then:

- a bounded mean (the rank reward, in [-1, 1]; margins of it, in [-2, 2]; win rates, in [0, 1])
  gets :func:`bounded_interval`: Agresti and Coull's adjusted Wald interval generalised to a
  bounded mean of clustered games. For a yes/no outcome on independent games it is exactly
  Agresti–Coull; it never collapses to a point at 0 or 100% or at small n, and it keeps the
  variance reduction that duplicate deals bring. Asymmetric, so printed as [low, high].
- an unbounded mean (scores; rewards with ``reward_mode="score"``) gets :func:`bootstrap_interval`,
  a percentile bootstrap over deals (2,000 resamples, seeded); with few deals it is too narrow,
  as any bootstrap is.

:func:`variance_ratio` measures what duplicate deals gained: the variance of a mean with games
clustered by deal over the variance the same number of independent deals would give.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
INTERVALS_DOC = ("95% intervals over deals: rewards, margins and win rates by the adjusted (Agresti–Coull) "
                 "interval of a bounded mean; scores by a deal bootstrap")


def deal_means(values: np.ndarray, deals: np.ndarray) -> np.ndarray:
    """The mean of ``values`` within each deal (games of one deal are one cluster)."""
    return deal_clusters(values, deals)[0]


def deal_clusters(values: np.ndarray, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean of ``values`` within each deal, and each deal's number of games."""
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


def mean_with_interval(key: str, values: np.ndarray, deals: np.ndarray, bounds: tuple[float, float] | None,
                       rng: np.random.Generator | None) -> dict[str, float]:
    """``key`` (the mean), ``key_low``, ``key_high`` and ``key_ci95`` (half-width of the narrowest
    interval centred on the mean containing [low, high]); mean_* names for reward and score.

    The bounded interval when ``bounds`` is given and every value lies within it, else the
    bootstrap, drawing from ``rng``."""
    name = f"mean_{key}" if key in ("reward", "score") else key
    if len(values) == 0:
        nan = float("nan")
        return {name: nan, f"{key}_low": nan, f"{key}_high": nan, f"{key}_ci95": nan}
    mean = float(values.mean())
    means, sizes = deal_clusters(values, deals)
    if bounds is not None and values.min() >= bounds[0] - 1e-9 and values.max() <= bounds[1] + 1e-9:
        lo, hi = bounded_interval(means, *bounds, sizes=sizes)
    else:
        lo, hi = bootstrap_interval(means, rng if rng is not None else np.random.default_rng(0))
    half = max(mean - lo, hi - mean) if math.isfinite(lo) else float("nan")
    return {name: mean, f"{key}_low": lo, f"{key}_high": hi, f"{key}_ci95": float(half)}


def format_interval(row: dict, key: str, spec: str) -> str:
    """``mean [low, high]`` of ``key`` in a row of :func:`mean_with_interval`'s fields."""
    name = f"mean_{key}" if key in ("reward", "score") else key
    m, lo, hi = row[name], row[f"{key}_low"], row[f"{key}_high"]
    if not math.isfinite(lo):
        return f"{m:{spec}} [n/a]"
    return f"{m:{spec}} [{lo:{spec}}, {hi:{spec}}]"
