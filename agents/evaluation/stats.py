"""95% confidence intervals used by the evaluators.

* ``wilson(k, n)``: Wilson score interval for a proportion of independent
  trials (stays inside [0, 1] and behaves at 0 and n).
* ``clustered_rate(wins, decided)``: a rate sum(wins)/sum(decided) whose
  trials come in clusters (the two parties of a duplicate deal share the
  cards, so they are not independent). Its variance is the cluster-robust
  (linearised ratio) estimate ``n/(n-1) * sum((w_i - r d_i)^2) / (sum d_i)^2``
  over the n clusters; the interval is the Wilson interval at the effective
  number of trials ``r(1-r)/var`` (the design effect folded into n), so it
  keeps Wilson's good behaviour near 0 and 1. The effective n is capped at
  the real number of trials: pairs that split 1-1 more often than chance
  would justify a larger one, but with few clusters the variance estimate
  is itself noise (5 wins of 9 parties in 5 deals gave [0.435, 0.670],
  where Wilson gives [0.267, 0.811]), and no estimate may claim more trials
  than were played. When the variance is 0 (every cluster at the same
  rate, e.g. all won) it falls back to plain Wilson on the number of
  trials.
* ``mean_ci(values)``: mean with a Student-t interval (normal for large n).
All functions return plain floats (``None`` where undefined, e.g. no data).
"""

from __future__ import annotations

import math
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)


def t_quantile(df: int, p: float = 0.975) -> float:
    """Student-t quantile by the Cornish-Fisher expansion (within 1e-3 of
    the exact value for df >= 3; exact values below)."""
    exact = {1: 12.706, 2: 4.303}
    if p == 0.975 and df in exact:
        return exact[df]
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def wilson(k: float, n: float, z: float = Z95) -> list:
    """[low, high] Wilson score interval for ``k`` successes in ``n``
    trials (``[None, None]`` when ``n <= 0``)."""
    if n <= 0:
        return [None, None]
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return [lo, hi]


def clustered_rate(wins, decided, z: float = Z95) -> tuple:
    """(rate, [low, high], effective n) for per-cluster wins and trials;
    the effective n never exceeds the number of trials."""
    wins = list(wins)
    decided = list(decided)
    total = sum(decided)
    if total <= 0:
        return None, [None, None], 0.0
    r = sum(wins) / total
    n = sum(1 for d in decided if d > 0)
    if n < 2:
        return r, wilson(sum(wins), total, z), float(total)
    ss = sum((w - r * d) ** 2 for w, d in zip(wins, decided, strict=True))
    var = n / (n - 1) * ss / (total * total)
    if var <= 0 or r in (0.0, 1.0):
        return r, wilson(sum(wins), total, z), float(total)
    n_eff = min(r * (1 - r) / var, float(total))
    return r, wilson(r * n_eff, n_eff, z), n_eff


def mean_ci(values) -> tuple:
    """(mean, [low, high]) with a 95% Student-t interval."""
    values = [float(v) for v in values]
    n = len(values)
    if n == 0:
        return None, [None, None]
    m = sum(values) / n
    if n == 1:
        return m, [None, None]
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return m, [m - half, m + half]
