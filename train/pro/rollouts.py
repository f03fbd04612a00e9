"""The ``rollouts`` method: paired rollouts at each Pro offer and a
least-squares fit of the advantage of declaring.

At each of the focal player's Pro offers the session is copied and played
to its end once after declaring and once after waiting, with the same deal
stream and player seeds; the difference of the focal player's tokens per
partie is the advantage of declaring there. ``fit_pro_policy`` fits
``A ~ w . x`` on the features of ``trappola.agents.pro_learned.features`` (one step
of policy improvement over "always declare") and departs from declaring
only on significant evidence.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from trappola.agents.pro_learned import FEATURES, ProPolicy, features
from trappola.train.pro.bench import FOCAL, SessionBench, map_interleaved
from trappola_env.atomic_file import atomic_write
from trappola_env.engine.session import PRO_DECISION, ProDecision, Session
from trappola_env.referee import Referee, play_session


def pro_advantages(bench: SessionBench, seeds, rollout_pro=None, context: list | None = None) -> tuple:
    """Paired rollouts at each of the focal player's Pro offers in the
    sessions of ``seeds``. Later focal decisions in the rollouts, and the
    main line, follow ``rollout_pro`` (default: always declare). Returns
    (features array, advantages array); with ``context`` (a list) also
    appends one dict per offer: session ``seed``, ``bulka_in_costs``,
    ``parties_left``, the card-player specs of the ``challenger`` and of
    the player ``next`` in the queue, and both branches' ``values``
    (declare, wait)."""
    rollout_pro = rollout_pro or (lambda d: True)
    specs = {name: spec for name, spec, _ in bench.table}
    xs, adv = [], []
    for seed in (int(s) for s in seeds):
        main = bench.seated(rollout_pro, seed, "main", 0)
        session = Session(max_parties=bench.max_parties, seed=seed, names=bench.names)
        offers = 0
        referee = Referee.for_session(main, session)
        while not referee.over:
            if session.phase == PRO_DECISION and session.dealer == FOCAL:
                decision = session.pending
                assert isinstance(decision, ProDecision)  # the phase is PRO_DECISION
                value = {}
                for declare in (True, False):
                    branch = copy.deepcopy(session)
                    branch.decide_pro(declare)
                    res = play_session(bench.seated(rollout_pro, seed, "branch", offers), session=branch)
                    value[declare] = float(res.balances[FOCAL]) / max(res.parties_played, 1)
                xs.append(features(decision))
                adv.append(value[True] - value[False])
                if context is not None:
                    context.append(
                        {
                            "seed": seed,
                            "bulka_in_costs": decision.bulka / decision.extra_stake,
                            "parties_left": decision.parties_left,
                            "challenger": specs[session.challenger],
                            "next": specs[session.queue[0]] if session.queue else None,
                            "values": (value[True], value[False]),
                        }
                    )
                offers += 1
                main = bench.seated(rollout_pro, seed, "main", offers)
                referee = Referee.for_session(main, session)
            referee.answer(referee.ask(referee.turn()))
    return np.array(xs, dtype=float).reshape(-1, len(FEATURES)), np.array(adv, dtype=float)


def pro_advantage_data(bench: SessionBench, sessions: int, seed: int = 0):
    """(features, advantages) of the focal player's Pro offers in
    ``sessions`` simulated sessions (``pro_advantages``), played by
    ``bench.workers`` processes."""
    seeds = [int(s) for s in np.random.default_rng(seed).integers(1 << 30, size=sessions)]
    if bench.workers > 1 and len(seeds) > 1:
        parts = map_interleaved(lambda chunk: pro_advantages(bench, chunk), seeds, bench.workers)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return pro_advantages(bench, seeds)


def fit_pro_policy(
    bench: SessionBench,
    sessions: int,
    seed: int = 0,
    ridge: float = 1e-3,
    z: float = 1.96,
    log=print,
    data: str | None = None,
):
    """Least-squares fit of the advantage of declaring, ``A ~ w . x``, on
    paired rollouts at the Pro offers of ``sessions`` simulated sessions
    (or on the ``.npz`` of an earlier run, ``data``). The policy declines
    only where the fitted advantage is below 0 by more than ``z`` standard
    errors (the rollouts are noisy: a Pro win takes the whole Bulka, and a
    plain linear fit extrapolates). Returns (ProPolicy, stats)."""
    if data is not None:
        saved = np.load(data)
        X, A = saved["X"], saved["A"]
    else:
        X, A = pro_advantage_data(bench, sessions, seed)
        if bench.save_dir:
            with atomic_write(Path(bench.save_dir) / "pro_advantages.npz", "wb") as f:
                np.savez(f, X=X, A=A)
    w = np.linalg.solve(X.T @ X + ridge * np.eye(X.shape[1]), X.T @ A)
    resid = A - X @ w
    cov = np.linalg.inv(X.T @ X + ridge * np.eye(X.shape[1])) * resid.var(ddof=X.shape[1])
    half = 1.96 * A.std(ddof=1) / np.sqrt(len(A))
    stats: dict[str, Any] = {
        "offers": int(len(A)),
        "mean_advantage": float(A.mean()),
        "mean_advantage_ci": [float(A.mean() - half), float(A.mean() + half)],
        "share_positive": float((A > 0).mean()),
        "weights": [float(v) for v in w],
        "weights_se": [float(v) for v in np.sqrt(np.diag(cov))],
        "declare_share": float((X @ w > 0).mean()),
    }
    log(
        f"pro rollouts: {len(A)} offers from {sessions} sessions; mean advantage of declaring "
        f"{A.mean():+.3f} tokens/partie [{stats['mean_advantage_ci'][0]:+.3f}, {stats['mean_advantage_ci'][1]:+.3f}]; "
        f"fit w = {np.round(w, 3).tolist()} (se {np.round(stats['weights_se'], 3).tolist()}); "
        f"declares at {stats['declare_share']:.0%} of the offers seen"
    )
    policy = ProPolicy(tuple(float(v) for v in w), tuple(tuple(float(v) for v in row) for row in cov), z)
    stats["declare_share_with_z"] = float(np.mean([policy.decide(_Features(x)) for x in X]))
    log(f"with z = {z}: declares at {stats['declare_share_with_z']:.0%} of the offers seen")
    return policy, stats


class _Features:
    """A decision rebuilt from its feature vector (bulka in costs, parties left)."""

    def __init__(self, x):
        self.bulka = float(x[1]) * 10.0
        self.extra_stake = 1.0
        self.parties_left = float(x[2]) * 50.0
