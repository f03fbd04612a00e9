"""Strength and speed of the built-in players.

    .venv/bin/python benchmarks/bench_players.py [--deals 2000] [--seed 0] [--workers K]

(a) ``rule`` against ``random`` over ``--deals`` duplicate deals (each deal
    twice, seats swapped): the win rate over decided parties with its 95%
    interval (deal-clustered Wilson), how many parties were decided, and
    the mean point difference.
(b) The same against ``random:alifer=false``, which never proposes and
    always declines Alifer, so nearly every partie is decided: the rule
    player's card play alone, without the Alifer filter.
(c) Speed: CPU milliseconds per partie of each player against the bare
    rule heuristics, one process.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, installed or not

from trappola.agents import make_player
from trappola.agents.evaluation import head_to_head
from trappola_env.engine import random_deal
from trappola_env.referee import play_partie


def line(label: str, s: dict) -> str:
    lo, hi = s["win_rate_ci"]
    plo, phi = s["mean_point_diff_ci"]
    return (
        f"{label:<34} win rate {s['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]  decided {s['decided']}/{s['parties']}"
        f"  points {s['mean_point_diff']:+.1f} [{plo:+.1f}, {phi:+.1f}]"
    )


def speed(spec: str, parties: int = 200) -> float:
    player, other = make_player(spec), make_player("rule:endgame=0,answer_rollouts=0")
    start = time.process_time()
    for i in range(parties):
        player.reset(i)
        other.reset(i)
        play_partie((player, other) if i % 2 else (other, player), random_deal(random.Random(i)))
    return (time.process_time() - start) / parties * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    args = ap.parse_args()
    print(f"duplicate deals: {args.deals}, seed {args.seed}")
    for opponent in ("random", "random:alifer=false"):
        start = time.perf_counter()
        res = head_to_head(
            "rule", opponent, args.deals, duplicate=True, seed=args.seed, workers=args.workers, progress=True
        )
        print(line(f"rule vs {opponent}", res.summary) + f"  ({time.perf_counter() - start:.0f} s)", flush=True)
    print("speed (CPU ms per partie, against the bare heuristics, both players' time):")
    for spec in ("random", "rule:endgame=0,answer_rollouts=0", "rule"):
        print(f"  {spec:<34} {speed(spec):6.2f}", flush=True)


if __name__ == "__main__":
    main()
