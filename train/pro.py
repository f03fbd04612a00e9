"""The learned Pro decision (RULES.md section 8) for Bulka sessions:
training, the simulated sessions it uses, and the comparison with fixed
rules (``python -m train.pro``).

Methods (``--method``), all in simulated 4-player sessions of the session
engine with the focal player's cards played by the trained policy:

* ``lookahead`` (default, shipped): ``train.pro_lookahead.LookaheadPro``,
  a one-partie lookahead (declare now, or wait and declare against the
  next challenger) on the model's win rates as dealer against each
  opponent kind, learned by play.
* ``rollouts``: ``ProPolicy``, a linear rule on (Bulka in extra stakes,
  parties left) fitted by least squares to paired-rollout advantages
  (``SessionBench.pro_advantages``), departing from "always declare" only
  on significant evidence.
* ``cem``: the cross-entropy method over ``ProPolicy`` weights on the
  tokens per partie of whole sessions. Session results vary so much (a Pro
  win takes the whole Bulka) that 20-odd sessions per candidate rank
  noise; it is kept for comparison.

``ProPolicy``: declare iff ``w0 + w1 * (bulka / cost) / 10 + w2 *
min(parties_left, 50) / 50 > 0``, where ``cost`` is the extra stake a Pro
declaration pays (``base_stake * stake_multiple * m``); it contains every
"Bulka at least T extra stakes" threshold rule (``w2 = 0``). Both policies
accept the ``agents`` ``ProView`` and the session engine's
``ProDecision``; ``pro_policy_from_dict`` reads either from a checkpoint.
"""
from __future__ import annotations

from pathlib import Path

from trappola_env.referee import play_out, play_session, seat_policy

from agents.policy_player import shipped_model_path
from agents.pro_learned import FEATURES, LookaheadPro, ProPolicy, features, pro_policy_from_dict

# --------------------------------------------------------------------------
# Simulated 4-player sessions: training and comparison
# --------------------------------------------------------------------------
FOCAL = "focal"


def fixed_pro(rule: str, rng=None):
    """Pro rules of the other players, on the engine's ``ProDecision``:
    ``never``, ``always``, ``random`` (a coin from ``rng``) or
    ``threshold:T`` (Bulka >= T extra stakes)."""
    import random as _random

    if rule == "never":
        return lambda d: False
    if rule == "always":
        return lambda d: True
    if rule == "random":
        rng = rng or _random.Random(0)
        return lambda d: rng.random() < 0.5
    if rule.startswith("threshold:"):
        return ProPolicy.threshold(float(rule.split(":", 1)[1]))
    raise ValueError(f"unknown Pro rule {rule!r}: never, always, random or threshold:T")


def default_table(focal_card: str = "policy") -> list[tuple[str, str, str]]:
    """(name, card player spec, Pro rule) of the 4-player table: the focal
    player and rule, rule, random with their default Pro rules (``rule``:
    threshold at 3 base stakes; ``random``: a coin). Names follow the
    evaluator's labels (``rule#2``), so ``opponent_kind`` reads the kind."""
    return [(FOCAL, focal_card, "learned"), ("rule", "rule", "threshold:3"), ("rule#2", "rule", "threshold:3"),
            ("random", "random", "random")]


class SessionBench:
    """Plays 4-player sessions with fixed seeds so that Pro rules are
    compared on the same deals and seatings (common random numbers)."""

    def __init__(self, table=None, max_parties: int = 60, focal_card: str = "policy", workers: int = 1):
        from agents import make_player

        self.table = table or default_table(focal_card)
        self.max_parties = max_parties
        self.workers = workers
        self.save_dir = None  # where fit_pro_policy saves its rollout data (features, advantages)
        self.players = {name: make_player(spec) for name, spec, _ in self.table}
        self.acts = {name: seat_policy(p) for name, p in self.players.items()}

    def tokens_per_partie(self, focal_pro, seeds) -> "np.ndarray":
        """Focal player's tokens per partie (its final balance, Bulka share
        included, / parties played), one value per session seed. Each
        session depends on its seed only, so ``workers`` processes give the
        same values as one."""
        import numpy as np

        seeds = [int(s) for s in seeds]
        if self.workers > 1 and len(seeds) > 1:
            chunks = [seeds[i::self.workers * 2] for i in range(self.workers * 2)]
            parts = fork_imap(lambda chunk: self._tokens(focal_pro, chunk), chunks, self.workers)
            out = np.empty(len(seeds))
            for i, part in enumerate(parts):
                out[i::self.workers * 2] = part
            return out
        return self._tokens(focal_pro, seeds)

    def _tokens(self, focal_pro, seeds) -> "np.ndarray":
        import random as _random

        import numpy as np

        out = np.empty(len(seeds))
        for i, seed in enumerate(seeds):
            seed = int(seed)
            players = {}
            for name, spec, pro in self.table:
                self.players[name].reset(seed * 31 + len(players))
                rule = focal_pro if name == FOCAL else fixed_pro(pro, _random.Random(seed * 17 + len(players)))
                players[name] = (self.acts[name], rule)
            res = play_session(players, max_parties=self.max_parties, seed=int(seed))
            out[i] = float(res.balances[FOCAL]) / max(res.parties_played, 1)
        return out


    def pro_advantages(self, seeds, rollout_pro=None, context: list | None = None) -> tuple:
        """Paired rollouts at each of the focal player's Pro offers: the
        session is copied, continued once after declaring and once after
        not declaring (same deal stream, same player seeds), and the
        difference of the focal player's final balance per partie is the
        advantage of declaring in that state. Later focal decisions in the
        rollouts, and the main line, follow ``rollout_pro`` (default:
        always declare). Returns (features array, advantages array); with
        ``context`` (a list) also appends one dict per offer: session
        ``seed``, ``bulka_in_costs``, ``parties_left``, the card-player
        specs of the ``challenger`` and of the player ``next`` in the
        queue, and both branches' ``values`` (declare, wait)."""
        import copy
        import random as _random
        import zlib

        import numpy as np

        from trappola_env.engine.session import OVER, PRO_DECISION, Session

        rollout_pro = rollout_pro or (lambda d: True)
        names = [name for name, _, _ in self.table]
        specs = {name: spec for name, spec, _ in self.table}
        xs, adv = [], []
        def derive(*parts) -> int:  # hash() of strings changes between processes; crc32 does not
            return zlib.crc32(repr(parts).encode())

        for seed in (int(s) for s in seeds):
            def players(tag):
                out = {}
                for k, (name, spec, pro) in enumerate(self.table):
                    self.players[name].reset(derive(seed, tag, k))
                    rule = rollout_pro if name == FOCAL else fixed_pro(pro, _random.Random(derive(seed, tag, k, 1)))
                    out[name] = (self.acts[name], rule)
                return out

            main = players("main")
            session = Session(max_parties=self.max_parties, seed=seed, names=names)
            offers = 0
            while session.phase != OVER:
                if session.phase == PRO_DECISION:
                    if session.dealer == FOCAL:
                        decision = session.pending
                        value = {}
                        for declare in (True, False):
                            branch = copy.deepcopy(session)
                            branch.decide_pro(declare)
                            res = play_session(players(("branch", offers)), session=branch)
                            value[declare] = float(res.balances[FOCAL]) / max(res.parties_played, 1)
                        xs.append(features(decision))
                        adv.append(value[True] - value[False])
                        if context is not None:
                            context.append({"seed": seed, "bulka_in_costs": decision.bulka / decision.extra_stake,
                                            "parties_left": decision.parties_left,
                                            "challenger": specs[session.challenger],
                                            "next": specs[session.queue[0]] if session.queue else None,
                                            "values": (value[True], value[False])})
                        offers += 1
                        main = players(("main", offers))
                    session.decide_pro(bool(main[session.dealer][1](session.pending)))
                else:
                    play_out(session.partie, (main[session.challenger][0], main[session.dealer][0]))
                    session.finish_partie()
        return np.array(xs, dtype=float).reshape(-1, len(FEATURES)), np.array(adv, dtype=float)


_FORKED = None  # the function forked workers run: inherited, so lambdas and players need no pickling


def _run_forked(chunk):
    return _FORKED(chunk)


def fork_imap(fn, chunks, workers: int):
    """``fn(chunk)`` for each chunk, in order, computed by ``workers``
    forked processes (``fn`` and what it refers to are inherited, only the
    chunks and results are pickled)."""
    import multiprocessing

    global _FORKED
    _FORKED = fn
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_run_forked, chunks)


def pro_advantage_data(bench: SessionBench, sessions: int, seed: int = 0):
    """(features, advantages) of the focal player's Pro offers in
    ``sessions`` simulated sessions (``SessionBench.pro_advantages``)."""
    import numpy as np

    seeds = [int(s) for s in np.random.default_rng(seed).integers(1 << 30, size=sessions)]
    if bench.workers > 1 and len(seeds) > 1:
        k = bench.workers * 2
        parts = list(fork_imap(bench.pro_advantages, [seeds[i::k] for i in range(k)], bench.workers))
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return bench.pro_advantages(seeds)


def fit_pro_policy(bench: SessionBench, sessions: int, seed: int = 0, ridge: float = 1e-3, z: float = 1.96,
                   log=print, data: str | None = None):
    """Least-squares fit of the advantage of declaring, ``A ~ w . x``, on
    paired rollouts (``SessionBench.pro_advantages``) at the Pro offers of
    ``sessions`` simulated sessions: one step of policy improvement over
    "always". The policy declines only where the fitted advantage is below
    0 by more than ``z`` standard errors (the rollouts are noisy: a Pro win
    takes the whole Bulka, and a plain linear fit extrapolates). Returns
    (ProPolicy, stats)."""
    import numpy as np

    if data is not None:  # reuse the rollouts of an earlier run
        saved = np.load(data)
        X, A = saved["X"], saved["A"]
    else:
        X, A = pro_advantage_data(bench, sessions, seed)
        if bench.save_dir:
            np.savez(Path(bench.save_dir) / "pro_advantages.npz", X=X, A=A)
    w = np.linalg.solve(X.T @ X + ridge * np.eye(X.shape[1]), X.T @ A)
    resid = A - X @ w
    cov = np.linalg.inv(X.T @ X + ridge * np.eye(X.shape[1])) * resid.var(ddof=X.shape[1])
    stats = {"offers": int(len(A)), "mean_advantage": float(A.mean()),
             "mean_advantage_ci": [float(A.mean() - 1.96 * A.std(ddof=1) / np.sqrt(len(A))),
                                   float(A.mean() + 1.96 * A.std(ddof=1) / np.sqrt(len(A)))],
             "share_positive": float((A > 0).mean()), "weights": [float(v) for v in w],
             "weights_se": [float(v) for v in np.sqrt(np.diag(cov))],
             "declare_share": float((X @ w > 0).mean())}
    log(f"pro rollouts: {len(A)} offers from {sessions} sessions; mean advantage of declaring "
        f"{A.mean():+.3f} tokens/partie [{stats['mean_advantage_ci'][0]:+.3f}, {stats['mean_advantage_ci'][1]:+.3f}]; "
        f"fit w = {np.round(w, 3).tolist()} (se {np.round(stats['weights_se'], 3).tolist()}); "
        f"declares at {stats['declare_share']:.0%} of the offers seen")
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


def train_pro_policy(bench: SessionBench, generations: int = 6, population: int = 12, elite: int = 4,
                     sessions: int = 24, seed: int = 0, log=print) -> tuple[ProPolicy, list]:
    """Cross-entropy method over the 3 weights, maximising the focal
    player's tokens per partie. Each generation draws fresh session seeds,
    shared by all its candidates (common random numbers)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    mean = np.array(ProPolicy.threshold(3.0).weights)
    std = np.array([0.4, 0.6, 0.4])
    history = []
    best = (None, -np.inf)
    for g in range(generations):
        seeds = rng.integers(1 << 30, size=sessions)
        cands = [mean] + [mean + std * rng.standard_normal(3) for _ in range(population - 1)]
        scores = np.array([bench.tokens_per_partie(ProPolicy(tuple(c)), seeds).mean() for c in cands])
        order = np.argsort(scores)[::-1]
        elites = np.array([cands[i] for i in order[:elite]])
        mean = elites.mean(0)
        std = np.maximum(elites.std(0), 0.05)
        history.append({"generation": g, "best": float(scores[order[0]]), "mean_of_elite": float(scores[order[:elite]].mean()),
                        "weights": [float(w) for w in mean]})
        log(f"pro cem gen {g + 1}/{generations}: best {scores[order[0]]:+.3f} tokens/partie, "
            f"elite mean {scores[order[:elite]].mean():+.3f}, weights {np.round(mean, 3).tolist()}")
    return ProPolicy(tuple(float(w) for w in mean)), history


def best_threshold(bench: SessionBench, thresholds, sessions: int, seed: int) -> tuple[float, dict]:
    import numpy as np

    seeds = np.random.default_rng(seed).integers(1 << 30, size=sessions)
    scores = {t: float(bench.tokens_per_partie(ProPolicy.threshold(t), seeds).mean()) for t in thresholds}
    return max(scores, key=scores.get), scores


def compare(bench: SessionBench, rules: dict, sessions: int, seed: int, short: tuple = (),
            short_sessions: int | None = None) -> dict:
    """Mean tokens per partie of each focal Pro rule on the same sessions,
    with 95% normal intervals, and paired differences to each other rule
    (on the sessions both played). Rules named in ``short`` play only the
    first ``short_sessions`` sessions: a rule far from the others needs
    fewer sessions to be told apart than two close ones."""
    import math

    import numpy as np

    seeds = np.random.default_rng(seed).integers(1 << 30, size=sessions)
    n_short = sessions if short_sessions is None else max(2, min(int(short_sessions), sessions))
    vals = {name: bench.tokens_per_partie(rule, seeds[:n_short] if name in short else seeds)
            for name, rule in rules.items()}
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


def main(argv=None) -> int:
    """``python -m train.pro [--model models/default.zip] [--write]``: train
    the Pro decision for the model's card play, compare it with never,
    always and the best fixed threshold on held-out sessions, and with
    ``--write`` store it in the model's metadata (``pro_policy``)."""
    import argparse
    import json
    import time

    from .checkpoint import read_metadata, write_metadata

    ap = argparse.ArgumentParser(prog="python -m train.pro", description=main.__doc__)
    ap.add_argument("--model", default=str(shipped_model_path()))
    ap.add_argument("--parties", type=int, default=60, help="parties per session")
    ap.add_argument("--method", choices=("lookahead", "rollouts", "cem"), default="lookahead",
                    help="lookahead: one-partie lookahead on learned win rates (shipped); rollouts: least squares "
                         "on paired-rollout advantages; cem: cross-entropy method")
    ap.add_argument("--rate-parties", type=int, default=4000,
                    help="lookahead: parties played as dealer against each opponent kind to learn the win rates")
    ap.add_argument("--generations", type=int, default=6)
    ap.add_argument("--population", type=int, default=12)
    ap.add_argument("--train-sessions", type=int, default=300,
                    help="rollouts: sessions whose Pro offers are branched; cem: sessions per generation")
    ap.add_argument("--scan-sessions", type=int, default=150, help="sessions per fixed threshold in the scan")
    ap.add_argument("--test-sessions", type=int, default=6000,
                    help="held-out sessions of the comparison of the learned rule and always")
    ap.add_argument("--baseline-sessions", type=int, default=600,
                    help="the first this many of them also for never and the best threshold")
    ap.add_argument("--thresholds", default="3,4,5,6,8,10,15", help="fixed thresholds, in extra stakes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="processes playing the sessions")
    ap.add_argument("--advantages", help="rollouts: reuse (features, advantages) saved by an earlier run (.npz)")
    ap.add_argument("--write", action="store_true", help="store the learned Pro policy in --model")
    ap.add_argument("--json", help="write the comparison here")
    args = ap.parse_args(argv)
    for name in ("parties", "rate_parties", "train_sessions", "scan_sessions", "test_sessions",
                 "baseline_sessions", "workers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be positive")

    t0 = time.time()
    bench = SessionBench(max_parties=args.parties, focal_card=f"policy:{args.model},pro=never", workers=args.workers)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        bench.save_dir = str(Path(args.json).parent)
    if args.method == "lookahead":
        from .pro_lookahead import measure_win_rates
        from agents.pro_learned import opponent_kind

        kinds = {opponent_kind(name): bench.players[name] for name, _, _ in bench.table if name != FOCAL}
        rates = measure_win_rates(bench.players[FOCAL], kinds, parties=args.rate_parties, seed=args.seed)
        learned = LookaheadPro(rates, default=sum(rates.values()) / len(rates))
        history = {"win_rates": rates, "parties_per_kind": args.rate_parties}
        print("win rates as dealer (decided parties): " + ", ".join(f"{k} {v:.3f}" for k, v in rates.items()))
    elif args.method == "cem":
        learned, history = train_pro_policy(bench, args.generations, args.population,
                                            elite=max(2, args.population // 3), sessions=args.train_sessions,
                                            seed=args.seed)
    else:
        learned, history = fit_pro_policy(bench, args.train_sessions, seed=args.seed, data=args.advantages)
    thresholds = [float(t) for t in args.thresholds.split(",")]
    best_t, scan = best_threshold(bench, thresholds, args.scan_sessions, args.seed + 1)
    print("threshold scan (tokens/partie): " + ", ".join(f"{t:g}: {v:+.3f}" for t, v in scan.items()))
    best_name = f"threshold:{best_t:g}"
    rules = {"learned": learned, "always": (lambda d: True), "never": (lambda d: False),
             best_name: ProPolicy.threshold(best_t)}
    table = compare(bench, rules, args.test_sessions, args.seed + 2, short=("never", best_name),
                    short_sessions=args.baseline_sessions)
    print(f"\nFocal player: policy:{args.model} with each Pro rule; table: {[n for n, _, _ in bench.table[1:]]} "
          f"(their own Pro rules); held-out sessions of {args.parties} parties, the same seeds for every rule.\n")
    print(f"{'Pro rule':<16} {'sessions':>8} {'tokens/partie':>14} {'95% CI':>20}   learned minus this rule [95% CI]")
    for name, row in table.items():
        lo, hi = row["ci"]
        diff = ""
        if name != "learned":
            d, a, b = table["learned"][f"minus_{name}"]
            diff = f"{d:+.3f} [{a:+.3f}, {b:+.3f}]"
        print(f"{name:<16} {row['sessions']:>8} {row['mean']:>+14.3f} {f'[{lo:+.3f}, {hi:+.3f}]':>20}   {diff}")
    print(f"\nlearned Pro policy {learned.to_dict()}; {(time.time() - t0) / 60:.1f} min")
    if args.write:
        meta = read_metadata(args.model)
        meta["pro_policy"] = learned.to_dict()
        meta["pro_comparison"] = {"table": table, "threshold_scan": {str(k): v for k, v in scan.items()},
                                  "training": history, "method": args.method, "sessions": args.test_sessions,
                                  "baseline_sessions": args.baseline_sessions, "parties": args.parties,
                                  "seed": args.seed}
        write_metadata(args.model, meta)
        print(f"wrote the Pro policy into {args.model}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"table": table, "scan": {str(k): v for k, v in scan.items()}, "training": history,
                       "learned": learned.to_dict()}, f, indent=1)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
