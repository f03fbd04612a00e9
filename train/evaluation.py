"""Duplicate head-to-head matches used during training (in-process, serial).

Each deal is played twice with the seats swapped, so both players hold the
same cards once each and luck of the deal cancels out. Reported:

* ``win_rate``: wins / decided parties of player A (Alifers left out);
* ``score``: (wins + 0.5 * Alifers) / parties, per deal averaged over its
  two parties; ``score_ci`` is its 95% normal interval over deals (the two
  parties of a deal are correlated, so the deal is the unit);
* ``win_rate_ci``: 95% Wilson interval of ``win_rate`` over decided
  parties (slightly optimistic for duplicate play, as it ignores the
  pairing; ``score_ci`` does not).

The project's evaluator (``trappola_env/evaluate``) is the reference for
published figures; this one exists so that training depends on nothing
but the engine and ``agents``.
"""
from __future__ import annotations

import math
import random

import numpy as np

from trappola_env.engine import random_deal


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def duplicate_match(player_a, player_b, n_deals: int, seed: int = 0) -> dict:
    """Play ``n_deals`` deals twice (A as challenger, then as dealer)."""
    from trappola_env.referee import play_partie

    if n_deals < 1:
        raise ValueError(f"n_deals must be >= 1, got {n_deals}")
    wins = losses = alifers = 0
    per_deal = np.empty(n_deals)
    points = []
    for d in range(n_deals):
        deal = random_deal(random.Random(seed * 1_000_003 + d))
        s = 0.0
        for a_seat in (0, 1):
            players = (player_a, player_b) if a_seat == 0 else (player_b, player_a)
            for k, p in enumerate(players):
                p.reset(seed * 7919 + 2 * d + k + 1)
            res = play_partie(players, deal).result
            if res.winner is None:
                alifers += 1
                s += 0.5
            elif res.winner == a_seat:
                wins += 1
                s += 1.0
            else:
                losses += 1
            points.append(res.scores[a_seat].total - res.scores[1 - a_seat].total)
        per_deal[d] = s / 2
    decided = wins + losses
    mean = float(per_deal.mean())
    half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(n_deals) if n_deals > 1 else 0.5
    return {
        "deals": n_deals, "parties": 2 * n_deals, "wins": wins, "losses": losses, "alifers": alifers,
        "win_rate": wins / decided if decided else 0.5,
        "win_rate_ci": wilson(wins, decided),
        "score": mean, "score_ci": (mean - half, mean + half),
        "points_diff": float(np.mean(points)),
    }
