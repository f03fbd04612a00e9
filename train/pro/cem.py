"""The ``cem`` method: the cross-entropy method over ``ProPolicy`` weights
on the focal player's tokens per partie of whole sessions.

Session results vary so much (a Pro win takes the whole Bulka) that 20-odd
sessions per candidate rank noise; it is kept for comparison with the
``lookahead`` and ``rollouts`` methods.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.pro_learned import ProPolicy
from trappola.train.pro.bench import SessionBench


def train_pro_policy(
    bench: SessionBench,
    generations: int = 6,
    population: int = 12,
    elite: int = 4,
    sessions: int = 24,
    seed: int = 0,
    log=print,
) -> tuple[ProPolicy, list]:
    """Cross-entropy method over the 3 weights, maximising the focal
    player's tokens per partie. Each generation draws fresh session seeds,
    shared by all its candidates (common random numbers). Returns the
    final mean as a ``ProPolicy`` and one dict per generation."""
    rng = np.random.default_rng(seed)
    mean = np.array(ProPolicy.threshold(3.0).weights)
    std = np.array([0.4, 0.6, 0.4])
    history = []
    for g in range(generations):
        seeds = rng.integers(1 << 30, size=sessions)
        cands = [mean] + [mean + std * rng.standard_normal(3) for _ in range(population - 1)]
        scores = np.array([bench.tokens_per_partie(ProPolicy(tuple(c)), seeds).mean() for c in cands])
        order = np.argsort(scores)[::-1]
        elites = np.array([cands[i] for i in order[:elite]])
        mean = elites.mean(0)
        std = np.maximum(elites.std(0), 0.05)
        history.append(
            {
                "generation": g,
                "best": float(scores[order[0]]),
                "mean_of_elite": float(scores[order[:elite]].mean()),
                "weights": [float(w) for w in mean],
            }
        )
        log(
            f"pro cem gen {g + 1}/{generations}: best {scores[order[0]]:+.3f} tokens/partie, "
            f"elite mean {scores[order[:elite]].mean():+.3f}, weights {np.round(mean, 3).tolist()}"
        )
    return ProPolicy(tuple(float(w) for w in mean)), history
