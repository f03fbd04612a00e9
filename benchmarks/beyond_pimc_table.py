"""PIMC's remedies on one table: every row against ``pimc:samples=32`` on the same duplicate deals.

    nice -n 10 .venv/bin/python benchmarks/beyond_pimc_table.py --deals 200 --seed 0 --jobs 2 [--rows SPEC ...]
        [--opponent pimc:samples=32] [--json out.json]

Each row is played by ``head_to_head`` (duplicate: each deal twice, seats swapped; the deals and the players'
seeds depend only on ``--seed`` and the deal index, so every row meets the same cards). A row prints the win
rate over decided parties and the mean points difference, each with its 95% interval (as the evaluator prints
them), and the row player's decision time: CPU ms per decision with more than one legal action, median and p90.
Rows run in ``--jobs`` processes, one row each (a row is one process, so the time is one core's).

The default rows are the remedies of docs/results/beyond_pimc.md; a row naming a player that is not registered
(``ismcts`` until the OpenSpiel adapter is merged) is skipped, saying so.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, installed or not

import numpy as np

from trappola.agents import REGISTRY, make_player, parse_spec
from trappola.agents.base import Player
from trappola.agents.evaluation import head_to_head
from trappola_env.atomic_file import write_text

ROWS = (  # most telling first: on a busy machine the last rows may not be reached
    "policy",
    "policy:endgame_search=alphamu",
    "policy:endgame_search=vecpimc1",
    "alphamu:samples=32,cards=3",
    "vecpimc:samples=32,depth=1",
    "infopimc:samples=32",
    "pimc:samples=32",
    "ismcts",
    "policy:endgame_search=vecpimc2",
    "vecpimc:samples=32,depth=2,from_cards=6",
    "pimc:samples=32,declare=last",
    "pimc:samples=32,manko=false",
    "cfrdecl:samples=32",
    "alphamu:samples=32,cards=4",
    "policy:endgame_search=infopimc",
)


class Timed(Player):
    """A player that times its inner player's decisions (CPU time, decisions with a choice only)."""

    kind = "timed"

    def __init__(self, inner: Player):
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.times: list[float] = []

    def reset(self, seed=None):
        """Reset the inner player."""
        self.inner.reset(seed)

    def decide_pro(self, view):
        """The inner player's Pro decision."""
        return self.inner.decide_pro(view)

    def act(self, view):
        """The inner player's action, timed when it had a choice."""
        if view.legal_mask & (view.legal_mask - 1) == 0:
            return self.inner.act(view)
        start = time.process_time()
        action = self.inner.act(view)
        self.times.append(time.process_time() - start)
        return action


def run_row(spec: str, opponent: str, deals: int, seed: int) -> dict:
    """One row: the summary figures and the decision times."""
    timed = Timed(make_player(spec))
    start = time.perf_counter()
    s = head_to_head(timed, opponent, deals, duplicate=True, seed=seed, workers=1).summary
    ms = np.array(timed.times) * 1000 if timed.times else np.zeros(1)
    return {
        "row": spec,
        "opponent": opponent,
        "deals": deals,
        "seed": seed,
        "win_rate": s["win_rate"],
        "win_rate_ci": s["win_rate_ci"],
        "mean_point_diff": s["mean_point_diff"],
        "mean_point_diff_ci": s["mean_point_diff_ci"],
        "decided": s["decided"],
        "parties": s["parties"],
        "decision_ms_median": float(np.median(ms)),
        "decision_ms_p90": float(np.percentile(ms, 90)),
        "decisions": len(timed.times),
        "wall_s": time.perf_counter() - start,
    }


def line(r: dict) -> str:
    """A markdown table row."""
    lo, hi = r["win_rate_ci"]
    plo, phi = r["mean_point_diff_ci"]
    return (
        f"| `{r['row']}` | {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {r['mean_point_diff']:+.2f} "
        f"[{plo:+.2f}, {phi:+.2f}] | {r['decision_ms_median']:.1f} / {r['decision_ms_p90']:.1f} | "
        f"{r['wall_s']:.0f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opponent", default="pimc:samples=32")
    ap.add_argument("--rows", nargs="*", default=list(ROWS))
    ap.add_argument("--jobs", type=int, default=2, help="rows played at once, one process each")
    ap.add_argument("--json", help="write every row's figures here")
    args = ap.parse_args()
    rows = []
    for spec in args.rows:
        if parse_spec(spec)[0] not in REGISTRY:
            print(f"skipped: {spec} (player {parse_spec(spec)[0]!r} is not registered)", flush=True)
        else:
            rows.append(spec)
    print(f"{args.deals} duplicate deals, seed {args.seed}, against {args.opponent}", flush=True)
    print("| row | win rate | points difference | decision ms median / p90 | wall |\n|---|---|---|---|---|")
    out = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_row, spec, args.opponent, args.deals, args.seed) for spec in rows]
        for f in futures:
            r = f.result()
            out.append(r)
            print(line(r), flush=True)
            if args.json:
                write_text(args.json, json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
