"""Comparing Pro rules on the same simulated sessions: the scan of fixed
thresholds and the held-out comparison with paired differences."""

from __future__ import annotations

import math

import numpy as np

from trappola.agents.pro_rules import ProRule
from trappola.train.pro.bench import SessionBench


def threshold_rule(bulka: float):
    """The fixed rule "declare when the Bulka holds at least ``bulka`` base
    stakes" (``trappola.agents.pro_rules.ProRule``) as a one-argument Pro rule."""
    return ProRule("threshold", float(bulka)).with_rng(None)


def best_threshold(bench: SessionBench, thresholds, sessions: int, seed: int) -> tuple[float, dict]:
    """The threshold (in base stakes) with the most tokens per partie for
    the focal player over ``sessions`` sessions, and every threshold's
    mean."""
    seeds = np.random.default_rng(seed).integers(1 << 30, size=sessions)
    scores = {t: float(bench.tokens_per_partie(threshold_rule(t), seeds).mean()) for t in thresholds}
    return max(scores, key=lambda t: scores[t]), scores


def compare(
    bench: SessionBench, rules: dict, sessions: int, seed: int, short: tuple = (), short_sessions: int | None = None
) -> dict:
    """Mean tokens per partie of each focal Pro rule on the same sessions,
    with 95% normal intervals, and paired differences to each other rule
    (on the sessions both played). Rules named in ``short`` play only the
    first ``short_sessions`` sessions: a rule far from the others needs
    fewer sessions to be told apart than two close ones."""
    seeds = np.random.default_rng(seed).integers(1 << 30, size=sessions)
    n_short = sessions if short_sessions is None else max(2, min(int(short_sessions), sessions))
    vals = {
        name: bench.tokens_per_partie(rule, seeds[:n_short] if name in short else seeds) for name, rule in rules.items()
    }
    out = {}
    for name, v in vals.items():
        half = 1.96 * v.std(ddof=1) / math.sqrt(len(v))
        row = {"mean": float(v.mean()), "ci": (float(v.mean() - half), float(v.mean() + half)), "sessions": len(v)}
        for other, w in vals.items():
            if other != name:
                n = min(len(v), len(w))
                d = v[:n] - w[:n]
                h = 1.96 * d.std(ddof=1) / math.sqrt(n)
                row[f"minus_{other}"] = (float(d.mean()), float(d.mean() - h), float(d.mean() + h))
        out[name] = row
    return out
