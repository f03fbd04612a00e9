"""Why evaluation scales as it does: worker start-up, cost per deal, blocks.

    .venv/bin/python benchmarks/bench_eval_scaling.py [--players policy,pimc:samples=32] [--deals 40]
        [--workers 2] [--repeat 3] [--model-deals 2000] [--model-workers 16]

1. Start-up of one worker: the first one-deal block of a fresh backend
   minus the next one, for workers started bare (``spawn``: a new
   interpreter imports everything, as every worker did before the fork
   server preloaded ``trappola.agents.evaluation.preload``) and for the
   default backend (forked from the warm fork server), after the fork
   server's own warm-up, which is paid once per process, not per worker.
2. Cost of one duplicate deal in a warm worker.
3. ``head_to_head`` with ``--workers`` workers, bare and warm in turn,
   ``--repeat`` times: the medians, and that both give the same numbers.
4. A model of ``--model-workers`` workers on ``--model-deals`` deals from
   the figures above: the blocks ``head_to_head`` makes, their rounds over
   the workers, and the parallel efficiency that start-up and the last
   round leave (a model, not a measurement: this machine may have fewer
   cores).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, installed or not

from trappola.agents.evaluation import ProcessBackend, head_to_head
from trappola.agents.evaluation.duplicate import BLOCKS_PER_WORKER, block_size


def one_deal(backend: ProcessBackend, players: list[str], index: int) -> float:
    """Seconds of one duplicate deal played through ``backend``."""
    t = time.perf_counter()
    head_to_head(players[0], players[1], deals=1, duplicate=True, seed=index, backend=backend)
    return time.perf_counter() - t


def start_up(context: str | None, players: list[str]) -> tuple[float, float]:
    """(start-up of one worker, seconds of a warm deal) for workers of ``context``."""
    with ProcessBackend(1, context=context) as backend:
        first = one_deal(backend, players, 0)
        warm = statistics.median(one_deal(backend, players, k) for k in (1, 2, 3))
    return first - warm, warm


def model(start: float, per_deal: float, deals: int, workers: int) -> str:
    """Expected wall time and efficiency of ``workers`` workers (see the module docstring)."""
    size = block_size(deals, workers)
    blocks = math.ceil(deals / size)
    rounds = math.ceil(blocks / workers)
    wall = start + rounds * size * per_deal
    ideal = deals * per_deal / workers
    return (
        f"{workers} workers, {deals} deals: {blocks} blocks of {size} deals, {rounds} rounds; "
        f"about {wall:.0f} s against {ideal:.0f} s of work per worker: {100 * ideal / wall:.0f}% efficiency"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", default="policy,pimc:samples=32")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model-deals", type=int, default=2000)
    ap.add_argument("--model-workers", type=int, default=16)
    args = ap.parse_args()
    players = args.players.split(",")
    import os

    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}; players {players}", flush=True)
    bare_start, bare_deal = start_up("spawn", players)
    t = time.perf_counter()
    with ProcessBackend(1) as backend:  # starts this process's fork server, which warms up once
        backend.map(abs, [1])
    server = time.perf_counter() - t
    warm_start, warm_deal = start_up(None, players)
    print(
        f"worker start-up: bare (spawn) {bare_start:.2f} s; forked from the warm fork server {warm_start:.2f} s, "
        f"after the server's own warm-up of {server:.2f} s (once per process)"
    )
    per_deal = statistics.median([bare_deal, warm_deal])
    print(f"one duplicate deal in a warm worker: {per_deal:.2f} s", flush=True)
    times: dict[str, list[float]] = {"bare": [], "warm": []}
    summaries = {}
    for _ in range(args.repeat):
        for label, context in (("bare", "spawn"), ("warm", None)):
            with ProcessBackend(args.workers, context=context) as backend:
                t = time.perf_counter()
                res = head_to_head(players[0], players[1], deals=args.deals, duplicate=True, seed=0, backend=backend)
                times[label].append(time.perf_counter() - t)
            summaries[label] = res.summary
    for label, ts in times.items():
        print(
            f"head_to_head {args.deals} deals, {args.workers} workers, {label}: median {statistics.median(ts):.1f} s "
            f"({', '.join(f'{t:.1f}' for t in ts)})"
        )
    print(f"same numbers bare and warm: {summaries['bare'] == summaries['warm']}")
    for start, label in ((bare_start, "bare start-up"), (server + warm_start, "fork server and warm start-up")):
        print(f"model, {label}: {model(start, per_deal, args.model_deals, args.model_workers)}")
    print(f"(blocks: {BLOCKS_PER_WORKER} per worker at most, of at most 100 deals)")


if __name__ == "__main__":
    main()
