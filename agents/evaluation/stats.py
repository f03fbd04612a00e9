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
* ``cluster_mean(values, units)``: a mean whose values come in clusters (the decision points of one
  deal), with the cluster-robust (linearised ratio) variance and a normal interval.
* ``paired_mean(values, units)``: ``cluster_mean`` for paired differences, with the two guards below.
* ``outcome_difference(diffs, units)``: a mean difference of outcomes (wins minus losses) that stays
  honest when few or no outcomes changed.
* ``ratio_difference(...)``: the paired difference of two clustered rates (``trappola compare``).

**The minimum count** (``MIN_PAIRS = 20``). A paired-difference interval rests on a variance estimated
from the clusters themselves; below about 20 clusters that estimate is itself too noisy for the normal
(or t) interval to keep its 95% coverage: the cluster-robust variance is biased downwards with few
clusters (Cameron and Miller 2015, "A practitioner's guide to cluster-robust inference", section VI,
who treat fewer than 20-50 clusters as "few"), and the outcomes here are a few values with a large
share of zeros, far from the normal shape the interval assumes. Below ``MIN_PAIRS`` units no interval
is given (``None``) and the ``note`` says so; the mean is still reported, for what it is.

**Zero spread.** When every pair differed by the same amount (e.g. a declaration's tokens: its own
payment is fixed by the rules, docs/rules.md section 4, and nothing else changed in any pair), the
sample variance is 0 and a normal interval would have width 0, which claims certainty that ``n``
pairs cannot give. ``paired_mean`` then gives no interval, and its note says that the spread is 0 and
bounds the share of pairs that could differ (the Wilson upper limit of 0 of ``n``).

**Outcomes.** ``outcome_difference`` takes per-pair differences ``d`` of outcomes in {-1, 0, +1}
(so ``d`` in {-2, ..., +2}). Its interval is the union of two: the cluster-robust normal interval, and
a score interval built from the rates of changed outcomes: ``E[d] = sum_k k * p_k`` over the cells
k = -2, -1, +1, +2, each ``p_k`` with its Wilson interval at the clusters' effective sample size, and
the sum's limits by MOVER (Zou and Donner 2008; the construction of Newcombe's 1998 square-and-add
interval). With no change in ``n`` pairs it is ``+-sqrt(5) * wilson(0, n)[1]`` (e.g. +-0.36 at 20
pairs), never a point.
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


#: Fewest clusters (deals, sessions, pairs) an interval is given for (see the module docstring).
MIN_PAIRS = 20


def cluster_mean(values, units, z: float = Z95) -> tuple:
    """(mean, [low, high]) of ``values`` with a 95% normal interval that treats the values of one unit as
    a cluster (linearised ratio variance); ``(None, [None, None])`` without values, no interval with
    one unit. No minimum count: see ``paired_mean``."""
    values = [float(v) for v in values]
    if not values:
        return None, [None, None]
    sums: dict = {}
    for v, u in zip(values, units, strict=True):
        s = sums.setdefault(u, [0.0, 0])
        s[0] += v
        s[1] += 1
    n = len(values)
    m = sum(values) / n
    c = len(sums)
    if c < 2:
        return m, [None, None]
    var = c / (c - 1) * sum((y - m * k) ** 2 for y, k in sums.values()) / n**2
    half = z * math.sqrt(var)
    return m, [m - half, m + half]


def too_few(units, min_units: int = MIN_PAIRS) -> str | None:
    """The note of a sample with fewer than ``min_units`` distinct units, else None."""
    c = len(set(units))
    if c < min_units:
        return f"{c} < {min_units} units: no interval"
    return None


def paired_mean(values, units, min_units: int = MIN_PAIRS) -> tuple:
    """(mean, [low, high], note) of paired differences ``values`` clustered by ``units``: the
    ``cluster_mean`` interval, except none (``[None, None]``) below ``min_units`` units or when every
    value is the same; ``note`` says why (None when the interval is given)."""
    values = [float(v) for v in values]
    m, ci = cluster_mean(values, units)
    if m is None:
        return None, [None, None], "no pairs"
    note = too_few(units, min_units)
    if note:
        return m, [None, None], note
    if max(values) == min(values):
        hi = wilson(0, len(values))[1]
        return m, [None, None], f"no spread: all {len(values)} pairs equal (the share that could differ: <= {hi:.3f})"
    return m, ci, None


def outcome_difference(diffs, units, min_units: int = MIN_PAIRS, z: float = Z95, bound: int = 2) -> tuple:
    """(mean, [low, high], note, changed) of per-pair outcome differences ``diffs`` (integers in
    -bound..bound: 2 for a difference of two outcomes in {-1, 0, 1}, 1 for two in {0, 1}) clustered by
    ``units``; ``changed`` is the number of pairs whose outcome differed. The interval is described in
    the module docstring; none below ``min_units`` units."""
    diffs = [int(d) for d in diffs]
    if any(abs(d) > bound for d in diffs):
        raise ValueError(f"outcome differences must lie in -{bound}..{bound}")
    n = len(diffs)
    changed = sum(1 for d in diffs if d)
    if n == 0:
        return None, [None, None], "no pairs", 0
    m, ci = cluster_mean(diffs, units, z)
    note = too_few(units, min_units)
    if note:
        return m, [None, None], note, changed
    # The clusters' design effect folded into the cells' sample size (as clustered_rate does), never above n.
    naive = sum((d - m) ** 2 for d in diffs) / max(1, n - 1) / n
    cluster_var = ((ci[1] - m) / z) ** 2 if ci[1] is not None else 0.0
    n_eff = float(n) if cluster_var <= 0 or naive <= 0 else min(float(n), n * naive / cluster_var)
    lo_sq = hi_sq = 0.0
    for k in (k for k in range(-bound, bound + 1) if k):
        p = sum(1 for d in diffs if d == k) / n
        lo_k, hi_k = wilson(p * n_eff, n_eff, z)
        # MOVER: the lower limit of k * p_k is k * lo_k for k > 0 and k * hi_k for k < 0, and vice versa.
        below, above = (p - lo_k, hi_k - p) if k > 0 else (hi_k - p, p - lo_k)
        lo_sq += (k * below) ** 2
        hi_sq += (k * above) ** 2
    low, high = m - math.sqrt(lo_sq), m + math.sqrt(hi_sq)
    if ci[0] is not None:
        low, high = min(low, ci[0]), max(high, ci[1])
    return m, [max(-float(bound), low), min(float(bound), high)], None, changed


def ratio_difference(
    wins_a, decided_a, wins_b, decided_b, outcomes=None, min_units: int = MIN_PAIRS, z: float = Z95
) -> tuple:
    """(difference, [low, high], note) of two rates ``sum(wins_a)/sum(decided_a) - sum(wins_b)/sum(decided_b)``
    measured on the same clusters (lists aligned by cluster): the linearised (delta-method)
    cluster-robust variance of the difference, so what the clusters share cancels; no interval below
    ``min_units`` clusters, and none when a rate is undefined.

    ``outcomes``: optional ``(diffs, units)``, one entry per trial (A won it minus B won it, in -1..1)
    with its cluster. The difference is close to ``sum(diffs) / total`` (exactly so when both rows
    decided the same trials; ``total`` is the mean of the two rows' decided trials), and the interval
    also covers ``outcome_difference``'s score interval on it (its half-widths, scaled so, around the
    difference), which keeps a width when few or no outcomes changed."""
    wa, da, wb, db = (list(x) for x in (wins_a, decided_a, wins_b, decided_b))
    ta, tb = sum(da), sum(db)
    if ta <= 0 or tb <= 0:
        return None, [None, None], "a rate with nothing decided"
    ra, rb = sum(wa) / ta, sum(wb) / tb
    diff = ra - rb
    c = len(wa)
    if c < min_units:
        return diff, [None, None], f"{c} < {min_units} units: no interval"
    u = [(x - ra * y) / ta - (v - rb * w) / tb for x, y, v, w in zip(wa, da, wb, db, strict=True)]
    mu = sum(u) / c
    var = c / (c - 1) * sum((x - mu) ** 2 for x in u)
    half = z * math.sqrt(var)
    low, high = diff - half, diff + half
    if outcomes is not None:
        diffs, units = outcomes
        m2, (lo2, hi2), _, _ = outcome_difference(diffs, units, min_units, z, bound=1)
        scale = len(diffs) / ((ta + tb) / 2)
        # Its half-widths around this difference (the two centres differ when the rows decided different trials).
        low, high = min(low, diff - (m2 - lo2) * scale), max(high, diff + (hi2 - m2) * scale)
    return diff, [max(-1.0, low), min(1.0, high)], None
