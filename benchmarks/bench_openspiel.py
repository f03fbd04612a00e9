"""OpenSpiel players measured with the evaluator: strength in duplicate
deals against each opponent, and decision time.

Run:  nice -n 10 .venv/bin/python benchmarks/bench_openspiel.py --spec ismcts:simulations=100 [--spec ...]
          [--opponent rule --opponent pimc:samples=32] [--deals 100] [--timing-deals 4] [--workers 2]
          [--seed 0] [--json out.json]

1. Strength: ``evaluation.head_to_head`` in duplicate over ``--deals``
   deals (each played twice, seats swapped) of every ``--spec`` against
   every ``--opponent``: win rate of decided parties with its
   deal-clustered 95% interval, mean point difference with its 95%
   interval, Alifers. The same numbers as ``trappola evaluate --players
   SPEC,OPP --deals N --duplicate --seed S``.
2. Decision time, in this process: ``--timing-deals`` duplicate deals of
   the spec against the first opponent, timing every ``act`` call that had
   a choice (two or more legal actions): CPU time of this process (steady
   on a shared machine) and wall time, median and 90th percentile.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trappola.agents import make_player
from trappola.agents.evaluation import derive_seed, head_to_head
from trappola_env.atomic_file import write_text
from trappola_env.engine import random_deal
from trappola_env.referee import play_partie


class Timed:
    """Wraps a player, recording (cpu s, wall s) of each act() with a choice."""

    def __init__(self, player):
        self.player = player
        self.calls = []

    def __getattr__(self, name):
        return getattr(self.player, name)

    def act(self, view):
        c0, w0 = time.process_time(), time.perf_counter()
        a = self.player.act(view)
        if len(view.legal_actions) > 1:
            self.calls.append((time.process_time() - c0, time.perf_counter() - w0))
        return a


def quantile(xs, q):
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def timing(spec: str, opponent: str, deals: int, seed: int) -> dict:
    """Decision times of ``spec`` over ``deals`` duplicate deals against ``opponent``."""
    player = Timed(make_player(spec))
    opp = make_player(opponent)
    for i in range(deals):
        deal = random_deal(random.Random(derive_seed(seed, "timing", i)))
        for game in (0, 1):
            player.player.reset(derive_seed(seed, "player", i, game))
            opp.reset(derive_seed(seed, "opponent", i, game))
            play_partie([player, opp] if game == 0 else [opp, player], deal)
    cpu = [c * 1e3 for c, _ in player.calls]
    wall = [w * 1e3 for _, w in player.calls]
    return {
        "decisions": len(cpu),
        "cpu_ms_median": statistics.median(cpu),
        "cpu_ms_p90": quantile(cpu, 0.9),
        "wall_ms_median": statistics.median(wall),
        "wall_ms_p90": quantile(wall, 0.9),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", action="append", required=True)
    ap.add_argument("--opponent", action="append")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--timing-deals", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    opponents = args.opponent or ["rule", "pimc:samples=32"]
    rows = []
    for spec in args.spec:
        name = make_player(spec).name
        t = timing(spec, opponents[0], args.timing_deals, args.seed) if args.timing_deals > 0 else None
        if t:
            print(
                f"{name}: {t['decisions']} decisions with a choice, cpu median {t['cpu_ms_median']:.1f} ms "
                f"p90 {t['cpu_ms_p90']:.1f} ms, wall median {t['wall_ms_median']:.1f} ms p90 {t['wall_ms_p90']:.1f} ms",
                flush=True,
            )
        for opp in opponents:
            if args.deals <= 0:
                continue
            s = head_to_head(spec, opp, args.deals, duplicate=True, seed=args.seed, workers=args.workers).summary
            lo, hi = s["win_rate_ci"]
            plo, phi = s["mean_point_diff_ci"]
            print(
                f"{name} vs {opp}: {s['parties']} parties, {s['decided']} decided, win rate {s['win_rate']:.3f} "
                f"[{lo:.3f}, {hi:.3f}], points {s['mean_point_diff']:+.1f} [{plo:+.1f}, {phi:+.1f}], "
                f"alifer {s['alifer']}",
                flush=True,
            )
            rows.append({"spec": name, "opponent": opp, "timing": t, "summary": s})
    if args.json:
        write_text(args.json, json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
