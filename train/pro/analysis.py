"""Where does waiting pay? A paired-rollout analysis of the Pro decision.

``python -m trappola.train.pro.analysis --model agents/models/default.zip --sessions 800``

At each Pro offer of the focal player in simulated 4-player sessions
(``trappola.train.pro.bench.SessionBench``: the model's card play, table ``rule``,
``rule``, ``random``) the session is played to its end twice, declaring
and waiting, with the same deals and player seeds
(``trappola.train.pro.rollouts.pro_advantages``). The difference of the focal player's
tokens per partie is the advantage of declaring there. The report gives:

1. the mean advantage with its 95% interval by challenger kind, kind of
   the next challenger (the head of the queue), Bulka (in extra stakes)
   and parties left: the cells where waiting might pay;
2. a cross-fitted estimate of what the best *cell* rule could gain over
   "always declare": cells where declaring looked worse on one half of
   the sessions are declined on the other half, and the gain is measured
   there (repeated over random halves), so a gain found by chance in
   noise averages out to about zero;
3. the noise: the standard deviation of one offer's paired difference,
   and the smallest gain over "always" that a held-out comparison of
   whole sessions could detect (5% two-sided, 80% power).

``--tables mixed`` runs the same analysis on the held-out tables of
``python -m trappola.train.pro.observed``: per session the focal card player
(``--focal``) and three players drawn from ``observed.TEST_POOL``, each with
its own Pro rule. The cells then read the opponents' kinds (``pimc``,
``rule``, ``random``): a cell rule there is told what the record-reading rule
has to infer, so its cross-fitted gain bounds what any rule on those
features could gain over "always declare".

    python -m trappola.train.pro.analysis --tables mixed --focal rule --parties 40 --sessions 400

Records can be saved (``--save``) and analysed again (``--load``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from trappola.agents import make_player
from trappola.agents.evaluation.backend import ProcessBackend, SerialBackend
from trappola.agents.evaluation.tournament import unique_labels
from trappola.agents.model_io.model_files import shipped_model_path
from trappola.agents.pro_learned import opponent_kind
from trappola.train.pro.bench import FOCAL, SessionBench
from trappola.train.pro.observed import TEST_POOL, table_of
from trappola.train.pro.rollouts import pro_advantages
from trappola_env.atomic_file import atomic_write, write_text

BULKA_BINS = (5.0, 8.0, 12.0, 20.0, 40.0)  # extra stakes
LEFT_BINS = (5.0, 15.0, 30.0)  # parties left
Z95, Z80 = 1.959964, 0.841621
FIELDS = ("seed", "bulka_in_costs", "parties_left", "challenger", "next", "advantage")


def _records_of(bench, seeds) -> list[dict]:
    ctx: list[dict] = []
    _, adv = pro_advantages(bench, seeds, context=ctx)
    for row, a in zip(ctx, adv, strict=True):
        row["advantage"] = float(a)
    return ctx


class OneTable:
    """One ``SessionBench`` table for every session seed."""

    def __init__(self, bench: SessionBench):
        self.bench, self.workers = bench, bench.workers

    def records(self, seeds) -> list[dict]:
        """The paired-rollout rows of the sessions of ``seeds``."""
        return _records_of(self.bench, seeds)


class MixedTables:
    """The held-out tables of ``trappola.train.pro.observed`` as benches: for each
    session seed, the focal card player ``focal_card`` and the three players
    ``observed.table_of(pool, seed)`` draws, each with its own Pro rule."""

    def __init__(self, focal_card: str = "rule", pool=TEST_POOL, max_parties: int = 40, workers: int = 1):
        self.focal_card, self.pool, self.max_parties, self.workers = focal_card, tuple(pool), max_parties, workers

    def bench(self, seed: int) -> SessionBench:
        """The bench of the session of ``seed``."""
        specs = table_of(self.pool, seed)
        table = [(FOCAL, self.focal_card, None)]
        table += [
            (label, spec, make_player(spec).pro_rule) for label, spec in zip(unique_labels(specs), specs, strict=True)
        ]
        return SessionBench(table, max_parties=self.max_parties)

    def records(self, seeds) -> list[dict]:
        """The paired-rollout rows of the sessions of ``seeds``, challengers by kind."""
        rows = []
        for seed in seeds:
            for row in _records_of(self.bench(seed), [seed]):
                row["challenger"], row["next"] = opponent_kind(row["challenger"]), opponent_kind(row["next"])
                rows.append(row)
        return rows


def collect(tables, sessions: int, seed: int = 0, progress=None) -> dict:
    """Paired-rollout records of ``sessions`` sessions, as arrays by field
    (``FIELDS``), on ``tables`` (``OneTable`` or ``MixedTables``: anything
    with ``workers`` and ``records(seeds)``). Each session depends on its
    seed only, so the records do not depend on ``tables.workers``."""
    seeds = [int(s) for s in np.random.default_rng(seed).integers(1 << 30, size=sessions)]
    chunk = max(1, min(8, sessions // max(4 * tables.workers, 1)))
    parts = [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]

    rows: list[dict] = []
    done = [0]

    def arrived(part):
        rows.extend(part)
        done[0] += 1
        if progress:
            progress(min(done[0] * chunk, sessions), sessions)

    backend = (
        ProcessBackend(tables.workers, context="fork") if tables.workers > 1 and len(parts) > 1 else SerialBackend()
    )
    with backend:  # forked: ``tables`` and its benches are inherited, not pickled
        backend.map(tables.records, parts, progress=arrived)
    return as_arrays(rows)


def as_arrays(rows: list[dict]) -> dict:
    """The rows as one numpy array per field of ``FIELDS`` (names as strings, the rest as floats)."""
    out = {}
    for f in FIELDS:
        values = [r[f] for r in rows]
        out[f] = np.array(values, dtype=str if f in ("challenger", "next") else float)
    return out


def save(records: dict, path) -> None:
    """Write the records to ``path`` as ``.npz`` (the suffix added when missing), atomically."""
    path = Path(path)
    if path.suffix != ".npz":  # as np.savez names a bare path
        path = path.with_name(path.name + ".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "wb") as f:
        np.savez(f, **records)


def load(path) -> dict:
    """The records of a ``.npz`` written by ``save``; a ``ValueError`` names the fields it lacks."""
    with np.load(path) as data:
        missing = [f for f in FIELDS if f not in data]
        if missing:
            raise ValueError(f"{path}: not a Pro-analysis record file (missing {', '.join(missing)})")
        return {f: data[f] for f in FIELDS}


def _mean_ci(x) -> tuple[float, float, float]:
    if len(x) < 2:
        return float(np.mean(x)) if len(x) else float("nan"), float("nan"), float("nan")
    half = Z95 * float(np.std(x, ddof=1)) / math.sqrt(len(x))
    return float(np.mean(x)), float(np.mean(x)) - half, float(np.mean(x)) + half


def _bin_label(edges, i) -> str:
    lo = 0 if i == 0 else edges[i - 1]
    return f"{lo:g}+" if i == len(edges) else f"{lo:g}-{edges[i]:g}"


def cells(records: dict) -> np.ndarray:
    """One label per offer: challenger | next | Bulka bin | parties-left bin."""
    b = np.digitize(records["bulka_in_costs"], BULKA_BINS)
    left = np.digitize(records["parties_left"], LEFT_BINS)
    return np.array(
        [
            f"{c}|{n}|{_bin_label(BULKA_BINS, i)}|{_bin_label(LEFT_BINS, j)}"
            for c, n, i, j in zip(records["challenger"], records["next"], b, left, strict=True)
        ]
    )


def table(records: dict) -> list[tuple[str, int, float, float, float]]:
    """(group, offers, mean advantage, CI low, CI high) by challenger,
    challenger x next, and challenger x next x Bulka bin."""
    adv = records["advantage"]
    ch, nx = records["challenger"], records["next"]
    b = np.digitize(records["bulka_in_costs"], BULKA_BINS)
    rows = [("all offers", len(adv), *_mean_ci(adv))]
    for c in sorted(set(ch)):
        m = ch == c
        rows.append((f"challenger {c}", int(m.sum()), *_mean_ci(adv[m])))
        for n in sorted(set(nx[m])):
            mn = m & (nx == n)
            rows.append((f"  next {n}", int(mn.sum()), *_mean_ci(adv[mn])))
            for i in range(len(BULKA_BINS) + 1):
                mb = mn & (b == i)
                if mb.sum() >= 2:
                    rows.append((f"    Bulka {_bin_label(BULKA_BINS, i)} stakes", int(mb.sum()), *_mean_ci(adv[mb])))
    left = np.digitize(records["parties_left"], LEFT_BINS)
    for j in range(len(LEFT_BINS) + 1):
        m = left == j
        if m.sum() >= 2:
            rows.append((f"parties left {_bin_label(LEFT_BINS, j)}", int(m.sum()), *_mean_ci(adv[m])))
    return rows


def cross_fitted_gain(records: dict, repeats: int = 20, min_offers: int = 10, seed: int = 0) -> dict:
    """Gain over "always declare", in tokens per partie per session, of
    declining in the cells whose mean advantage is negative on the other
    half of the sessions (cells with fewer than ``min_offers`` offers there
    keep declaring). Mean over ``repeats`` random halvings, with the
    standard error of one halving."""
    adv = records["advantage"]
    lab = cells(records)
    sessions, idx = np.unique(records["seed"], return_inverse=True)
    rng = np.random.default_rng(seed)
    gains, ses, declined = [], [], []
    for _ in range(repeats):
        half = rng.permutation(len(sessions)) % 2
        off_half = half[idx]
        gain = np.zeros(len(sessions))
        n_declined = 0
        for k in (0, 1):
            fit, test = off_half != k, off_half == k
            bad = [
                c
                for c in np.unique(lab[fit])
                if (lab[fit] == c).sum() >= min_offers and adv[fit & (lab == c)].mean() < 0
            ]
            m = test & np.isin(lab, bad)
            n_declined += int(m.sum())
            gain += np.bincount(idx, weights=np.where(m, -adv, 0.0), minlength=len(sessions))
        gains.append(float(gain.mean()))
        ses.append(float(gain.std(ddof=1) / math.sqrt(len(sessions))))
        declined.append(n_declined / len(adv))
    return {
        "gain": float(np.mean(gains)),
        "se": float(np.mean(ses)),
        "declined_share": float(np.mean(declined)),
        "sessions": int(len(sessions)),
        "repeats": repeats,
    }


def detectable_gain(sd_offer: float, sessions: int, differing_offers: float = 1.0) -> float:
    """Smallest mean gain (tokens per partie per session) of a rule over
    "always" that a paired comparison of ``sessions`` sessions detects at
    5% (two-sided) with 80% power, if the rules differ at
    ``differing_offers`` offers a session, each adding a paired difference
    of standard deviation ``sd_offer``."""
    return (Z95 + Z80) * sd_offer * math.sqrt(differing_offers / sessions)


def report(records: dict, print_=print) -> dict:
    """Print where waiting pays (advantages by challenger, next challenger, Bulka and parties left, the
    gains a cell rule could make and a comparison could detect) and return the figures as a dict."""
    adv = records["advantage"]
    n_sessions = len(np.unique(records["seed"]))
    if len(adv) < 2:
        raise ValueError(f"too few Pro offers to analyse ({len(adv)}); play more sessions")
    print_(
        f"{len(adv)} Pro offers of the focal player in {n_sessions} sessions. Advantage of declaring over "
        f"waiting one partie, in tokens per partie of the whole session [95% CI]:\n"
    )
    for group, n, mean, lo, hi in table(records):
        flag = "  <- waiting better" if hi < 0 else ""
        print_(f"{group:<34} {n:>6} {mean:>+8.3f} [{lo:+.3f}, {hi:+.3f}]{flag}")
    cf = cross_fitted_gain(records)
    sd = float(np.std(adv, ddof=1))
    print_(
        f"\nBest cell rule, cross-fitted over {cf['repeats']} halvings: declines at {cf['declined_share']:.0%} of "
        f"the offers and gains {cf['gain']:+.3f} tokens per partie (se {cf['se']:.3f}) over always declaring."
    )
    print_(
        f"Noise: one offer's paired difference has sd {sd:.1f} tokens per partie. A held-out comparison "
        f"detects (5%, power 80%), for a rule that differs from 'always' at one offer a session, a gain of"
    )
    detect = {n: detectable_gain(sd, n) for n in (300, 1000, 10000)}
    print_("  " + ", ".join(f"{v:.2f} tokens/partie with {n:,} sessions" for n, v in detect.items()))
    return {
        "offers": int(len(adv)),
        "sessions": n_sessions,
        "mean_advantage": _mean_ci(adv),
        "cross_fitted": cf,
        "sd_offer": sd,
        "detectable": detect,
    }


def main(argv=None) -> int:
    """The command line: collect (or load) the paired-rollout advantages and print the report; the exit code."""
    import argparse
    import json
    import sys
    import time

    ap = argparse.ArgumentParser(prog="python -m trappola.train.pro.analysis", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--tables",
        choices=("model", "mixed"),
        default="model",
        help="model: the shipped model's card play at the table rule, rule, random; "
        "mixed: --focal at the held-out mixed tables of trappola.train.pro.observed",
    )
    ap.add_argument("--model", default=str(shipped_model_path()), help="--tables model: the focal card play")
    ap.add_argument("--focal", default="rule", help="--tables mixed: the focal card player's spec")
    ap.add_argument("--sessions", type=int, default=800)
    ap.add_argument("--parties", type=int, default=60, help="parties per session")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--save", help="write the records here (.npz)")
    ap.add_argument("--load", help="analyse saved records instead of playing")
    ap.add_argument("--json", help="write the summary here")
    args = ap.parse_args(argv)
    if args.sessions < 1 or args.parties < 1 or args.workers < 1:
        ap.error("--sessions, --parties and --workers must be positive")

    t0 = time.time()
    if args.load:
        records = load(args.load)
    else:
        tables: MixedTables | OneTable
        if args.tables == "mixed":
            tables = MixedTables(args.focal, max_parties=args.parties, workers=args.workers)
        else:
            tables = OneTable(
                SessionBench(
                    max_parties=args.parties, focal_card=f"policy:{args.model},pro=never", workers=args.workers
                )
            )

        def progress(done, total):
            rate = done / max(time.time() - t0, 1e-9)
            print(
                f"\rrollouts: {done}/{total} sessions, {(total - done) / rate / 60:.1f} min left",
                end="",
                file=sys.stderr,
                flush=True,
            )

        records = collect(tables, args.sessions, args.seed, progress)
        print(file=sys.stderr)
        if args.save:
            save(records, args.save)
    summary = report(records)
    print(f"\n{(time.time() - t0) / 60:.1f} min")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        write_text(args.json, json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
