"""``python -m trappola.train.pro [--model agents/models/default.zip] [--method lookahead|rollouts|cem] [--write]``:
train the Pro decision for the model's card play, compare it with never,
always and the best fixed threshold on held-out sessions, and with
``--write`` store it in the model's metadata (``pro_policy``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from trappola.agents.model_io.model_files import shipped_model_path
from trappola.train.pro.bench import SessionBench
from trappola.train.pro.cem import train_pro_policy
from trappola.train.pro.compare import best_threshold, compare, threshold_rule
from trappola.train.pro.lookahead import learn_lookahead
from trappola.train.pro.rollouts import fit_pro_policy
from trappola.train.run.checkpoint import read_metadata, write_metadata
from trappola_env.atomic_file import write_text

COUNTS = ("parties", "rate_parties", "train_sessions", "scan_sessions", "test_sessions", "baseline_sessions", "workers")


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m trappola.train.pro", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(shipped_model_path()))
    ap.add_argument("--parties", type=int, default=60, help="parties per session")
    ap.add_argument(
        "--method",
        choices=("lookahead", "rollouts", "cem"),
        default="lookahead",
        help="lookahead: one-partie lookahead on learned win rates (shipped); rollouts: least squares "
        "on paired-rollout advantages; cem: cross-entropy method",
    )
    ap.add_argument(
        "--rate-parties",
        type=int,
        default=4000,
        help="lookahead: parties played as dealer against each opponent kind to learn the win rates",
    )
    ap.add_argument("--generations", type=int, default=6)
    ap.add_argument("--population", type=int, default=12)
    ap.add_argument(
        "--train-sessions",
        type=int,
        default=300,
        help="rollouts: sessions whose Pro offers are branched; cem: sessions per generation",
    )
    ap.add_argument("--scan-sessions", type=int, default=150, help="sessions per fixed threshold in the scan")
    ap.add_argument(
        "--test-sessions",
        type=int,
        default=6000,
        help="held-out sessions of the comparison of the learned rule and always",
    )
    ap.add_argument(
        "--baseline-sessions",
        type=int,
        default=600,
        help="the first this many of them also for never and the best threshold",
    )
    ap.add_argument("--thresholds", default="3,4,5,6,8,10,15", help="fixed thresholds, in base stakes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="processes playing the sessions")
    ap.add_argument("--advantages", help="rollouts: reuse (features, advantages) saved by an earlier run (.npz)")
    ap.add_argument("--write", action="store_true", help="store the learned Pro policy in --model")
    ap.add_argument("--json", help="write the comparison here")
    args = ap.parse_args(argv)
    for name in COUNTS:
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be positive")
    try:
        args.thresholds = [float(t) for t in args.thresholds.split(",")]
    except ValueError:
        ap.error(f"--thresholds must be comma-separated numbers, got {args.thresholds!r}")
    return args


def learn(bench: SessionBench, args) -> tuple:
    """(learned Pro policy, training record) by ``args.method``."""
    if args.method == "lookahead":
        learned, history = learn_lookahead(bench, args.rate_parties, args.seed)
        print(
            "win rates as dealer (decided parties): "
            + ", ".join(f"{k} {v:.3f}" for k, v in history["win_rates"].items())
        )
        return learned, history
    if args.method == "cem":
        return train_pro_policy(
            bench,
            args.generations,
            args.population,
            elite=max(2, args.population // 3),
            sessions=args.train_sessions,
            seed=args.seed,
        )
    return fit_pro_policy(bench, args.train_sessions, seed=args.seed, data=args.advantages)


def print_table(table: dict) -> None:
    print(f"{'Pro rule':<16} {'sessions':>8} {'tokens/partie':>14} {'95% CI':>20}   learned minus this rule [95% CI]")
    for name, row in table.items():
        lo, hi = row["ci"]
        diff = ""
        if name != "learned":
            d, a, b = table["learned"][f"minus_{name}"]
            diff = f"{d:+.3f} [{a:+.3f}, {b:+.3f}]"
        print(f"{name:<16} {row['sessions']:>8} {row['mean']:>+14.3f} {f'[{lo:+.3f}, {hi:+.3f}]':>20}   {diff}")


def main(argv=None) -> int:
    args = parse_args(argv)
    t0 = time.time()
    bench = SessionBench(max_parties=args.parties, focal_card=f"policy:{args.model},pro=never", workers=args.workers)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        bench.save_dir = str(Path(args.json).parent)
    learned, history = learn(bench, args)
    best_t, scan = best_threshold(bench, args.thresholds, args.scan_sessions, args.seed + 1)
    print("threshold scan (tokens/partie): " + ", ".join(f"{t:g}: {v:+.3f}" for t, v in scan.items()))
    best_name = f"threshold:{best_t:g}"
    rules = {
        "learned": learned,
        "always": (lambda d: True),
        "never": (lambda d: False),
        best_name: threshold_rule(best_t),
    }
    table = compare(
        bench,
        rules,
        args.test_sessions,
        args.seed + 2,
        short=("never", best_name),
        short_sessions=args.baseline_sessions,
    )
    print(
        f"\nFocal player: policy:{args.model} with each Pro rule; table: {bench.names[1:]} "
        f"(their own Pro rules); held-out sessions of {args.parties} parties, the same seeds for every rule.\n"
    )
    print_table(table)
    print(f"\nlearned Pro policy {learned.to_dict()}; {(time.time() - t0) / 60:.1f} min")
    scan_out = {str(k): v for k, v in scan.items()}
    if args.write:
        meta = read_metadata(args.model)
        meta["pro_policy"] = learned.to_dict()
        meta["pro_comparison"] = {
            "table": table,
            "threshold_scan": scan_out,
            "training": history,
            "method": args.method,
            "sessions": args.test_sessions,
            "baseline_sessions": args.baseline_sessions,
            "parties": args.parties,
            "seed": args.seed,
        }
        write_metadata(args.model, meta)
        print(f"wrote the Pro policy into {args.model}")
    if args.json:
        write_text(
            args.json,
            json.dumps({"table": table, "scan": scan_out, "training": history, "learned": learned.to_dict()}, indent=1),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
