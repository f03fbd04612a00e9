"""Speed and strength of the ``pimc`` player (agents/players/pimc.py).

Run:  .venv/bin/python benchmarks/bench_pimc.py [--spec pimc] [--deals 2000] [--timing-deals 40]
                                                 [--opponent rule] [--workers 1] [--seed 0] [--json out.json]

1. Decision time, on one core: ``--timing-deals`` duplicate deals of the
   player against ``--opponent``, serially in this process, timing every
   ``act`` call (CPU time of this process, steady on a shared machine, and
   wall time). Reported over all calls, and over the calls that searched
   (a card choice among two or more cards, or an Alifer answer); the rest
   (declarations, a single legal card) return at once. Also by trick.
   ``--spec policy:endgame=K`` times the trained network with ``pimc`` in
   its endgame: there "searched" is a turn the endgame search decided.
2. Strength: ``evaluation.head_to_head`` in duplicate over
   ``--deals`` deals (each played twice with the seats swapped) against
   ``--opponent``: win rate of decided parties with its deal-clustered 95%
   interval, mean point difference, Alifer counts. ``--deals 0`` skips it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# One core, one thread: numpy's BLAS threads (the inference's batched products) would time two cores.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from trappola.agents import make_player  # noqa: E402
from trappola.agents.evaluation import derive_seed, head_to_head  # noqa: E402
from trappola_env.atomic_file import write_text  # noqa: E402
from trappola_env.engine import random_deal  # noqa: E402
from trappola_env.referee import play_partie  # noqa: E402


class Timed:
    """Wraps a player, recording (cpu s, wall s, trick, searched) per act();
    "searched" means the call ran the solver (pimc's ``card_values`` or
    ``_continue_sign``)."""

    def __init__(self, player):
        self.player = player
        self.calls = []
        self._solves = 0
        # A player that searches only its endgame (``policy:endgame=K``) keeps a pimc player for it.
        searcher = getattr(player, "endgame_searcher", None) or player
        for name in ("card_values", "_continue_sign"):
            method = getattr(searcher, name, None)
            if method is not None:
                setattr(searcher, name, self._counting(method))

    def _counting(self, method):
        def wrapped(*a, **k):
            self._solves += 1
            return method(*a, **k)

        return wrapped

    def __getattr__(self, name):
        return getattr(self.player, name)

    def act(self, view):
        before = self._solves
        c0, w0 = time.process_time(), time.perf_counter()
        a = self.player.act(view)
        self.calls.append((time.process_time() - c0, time.perf_counter() - w0, view.info.trick, self._solves > before))
        return a


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def timing(spec: str, opponent: str, deals: int, seed: int) -> dict:
    player = Timed(make_player(spec))
    opp = make_player(opponent)
    # Warm-up: load numba's cached code and fill nothing that is measured.
    player.player.reset(0)
    play_partie([player.player, opp], random_deal(random.Random(-1)))
    for i in range(deals):
        deal = random_deal(random.Random(derive_seed(seed, "timing", i)))
        for game in (0, 1):
            player.player.reset(derive_seed(seed, "player", i, game))
            opp.reset(derive_seed(seed, "opponent", i, game))
            play_partie([player, opp] if game == 0 else [opp, player], deal)
    calls = player.calls
    out: dict[str, Any] = {"calls": len(calls)}
    for label, rows in (("all", calls), ("searched", [c for c in calls if c[3]])):
        if not rows:
            continue
        cpu = [c[0] * 1e3 for c in rows]
        wall = [c[1] * 1e3 for c in rows]
        out[label] = {
            "n": len(rows),
            "cpu_ms_median": statistics.median(cpu),
            "cpu_ms_p90": pct(cpu, 0.9),
            "cpu_ms_max": max(cpu),
            "wall_ms_median": statistics.median(wall),
            "wall_ms_p90": pct(wall, 0.9),
        }
    out["searched_by_trick_cpu_ms_median"] = {
        t + 1: statistics.median([c[0] * 1e3 for c in calls if c[3] and c[2] == t])
        for t in range(9)
        if any(c[3] and c[2] == t for c in calls)
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="pimc")
    ap.add_argument("--opponent", default="rule")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--timing-deals", type=int, default=40)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    report = {"spec": make_player(args.spec).name, "opponent": args.opponent}

    if args.timing_deals > 0:
        t = timing(args.spec, args.opponent, args.timing_deals, args.seed)
        report["timing"] = t
        print(
            f"decision time of {report['spec']} vs {args.opponent}, one core, "
            f"{args.timing_deals} duplicate deals ({t['calls']} act calls):"
        )
        for label in ("all", "searched"):
            r = t.get(label)
            if r:
                print(
                    f"  {label:<8} n={r['n']:<5} cpu median {r['cpu_ms_median']:.2f} ms  p90 {r['cpu_ms_p90']:.2f}  "
                    f"max {r['cpu_ms_max']:.1f}   wall median {r['wall_ms_median']:.2f}  p90 {r['wall_ms_p90']:.2f}"
                )
        if t["searched_by_trick_cpu_ms_median"]:
            print(
                "  searched decisions, cpu median by trick (ms): "
                + "  ".join(f"{k}:{v:.1f}" for k, v in t["searched_by_trick_cpu_ms_median"].items()),
                flush=True,
            )

    if args.deals > 0:
        t0 = time.perf_counter()
        res = head_to_head(
            args.spec, args.opponent, deals=args.deals, duplicate=True, seed=args.seed, workers=args.workers
        )
        s = res.summary
        report["strength"] = s
        lo, hi = s["win_rate_ci"]
        print(
            f"strength: {s['players'][0]} vs {s['players'][1]}, {args.deals} deals in duplicate "
            f"({s['parties']} parties, {time.perf_counter() - t0:.0f} s, {args.workers} worker(s))"
        )
        print(
            f"  win rate of decided parties {s['win_rate']:.3f}  95% CI [{lo:.3f}, {hi:.3f}]  "
            f"({s['wins']}-{s['losses']}, {s['decided']} decided; Alifer {s['alifer']}: "
            f"{s['ties']} ties, {s['agreed_alifer']} agreed)"
        )
        pd, (plo, phi) = s["mean_point_diff"], s["mean_point_diff_ci"]
        print(f"  mean point difference per partie {pd:+.2f}  95% CI [{plo:+.2f}, {phi:+.2f}]")
        for role, r in s["by_seat"].items():
            print(
                f"  as {role:<10} win rate {r['win_rate']:.3f}  [{r['win_rate_ci'][0]:.3f}, "
                f"{r['win_rate_ci'][1]:.3f}]  ({r['decided']} decided)"
            )
    if args.json:
        write_text(args.json, json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
