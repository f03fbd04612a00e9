"""Speed of the double-dummy solver (trappola.agents.search.solver).

Run:  .venv/bin/python benchmarks/bench_solver.py [--deals 200] [--seed 0]

Prints the JIT warm-up time (first call: compiles, or loads numba's on-disk
cache), then median / p90 / mean / max milliseconds of full 9-trick solves
from the opening lead over random deals (9 cards each from a shuffled deck,
the other 18 out of play), then the throughput of the batch entries on 32
layouts of one public state, as a PIMC player would sample them (seat 0's
hand fixed, seat 1's hand drawn from the 27 cards seat 0 cannot see).
Everything runs on one core.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np


def random_deal(rng: random.Random) -> tuple[int, int]:
    deck = list(range(36))
    rng.shuffle(deck)
    return sum(1 << c for c in deck[:9]), sum(1 << c for c in deck[9:18])


def opening_args(h0: int, h1: int) -> tuple:
    """solve_raw arguments for the opening lead by seat 0, nothing declared."""
    return (np.int64(h0), np.int64(h1), 0, -1, 0, 0, 0, 0, 0, np.full(9, -1, dtype=np.int64), 0, 0, False, False, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batches", type=int, default=20)
    args = parser.parse_args()

    t0 = time.perf_counter()
    from trappola.agents.search.solver import (
        count_nodes_raw,
        new_table,
        solve_batch_raw,
        solve_moves_batch_raw,
        solve_raw,
    )

    t_import = time.perf_counter() - t0

    rng = random.Random(args.seed)
    table = new_table()
    t0 = time.perf_counter()
    solve_raw(*opening_args(*random_deal(rng)), table)
    h0s = np.zeros(2, dtype=np.int64)
    solve_batch_raw(
        h0s + (1 << 0),
        h0s + (1 << 1),
        0,
        -1,
        8,
        0,
        0,
        8,
        0,
        np.full(9, -1, dtype=np.int64),
        0,
        0,
        False,
        False,
        0,
        table,
    )
    solve_moves_batch_raw(
        h0s + (1 << 0),
        h0s + (1 << 1),
        0,
        -1,
        8,
        0,
        0,
        8,
        0,
        np.full(9, -1, dtype=np.int64),
        0,
        0,
        False,
        False,
        0,
        table,
    )
    count_nodes_raw(*opening_args(*random_deal(rng)), table)
    t_jit = time.perf_counter() - t0
    print(f"import {t_import:.2f} s, JIT warm-up (first calls: compile or cache load) {t_jit:.2f} s")

    # Full solves from the opening lead.
    # Wall-clock time is what a caller waits; CPU time (this process only)
    # is steadier when other work shares the machine.
    wall, cpu, nodes = [], [], []
    for _ in range(args.deals):
        deal = opening_args(*random_deal(rng))
        t0, c0 = time.perf_counter(), time.process_time()
        solve_raw(*deal, table)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        nodes.append(count_nodes_raw(*deal, new_table(12))[1])
    print(f"full 9-trick solve from the opening lead, {args.deals} deals (ms):")
    for label, xs in (("wall", wall), ("cpu ", cpu)):
        ms = np.array(xs) * 1e3
        print(
            f"  {label}: median {np.median(ms):.2f}  p90 {np.percentile(ms, 90):.2f}  "
            f"mean {ms.mean():.2f}  max {ms.max():.2f}"
        )
    print(
        f"  search nodes per solve (tricks 7-9 solved outside the node count): "
        f"median {int(np.median(nodes))}  max {max(nodes)}"
    )

    # Batches: 32 layouts of one public state (seat 0 to lead trick 1).
    n_layouts = 32
    t_values, t_moves = [], []
    for _ in range(args.batches):
        deck = list(range(36))
        rng.shuffle(deck)
        mine, unseen = deck[:9], deck[9:]
        h0 = sum(1 << c for c in mine)
        h1s = np.array([sum(1 << c for c in rng.sample(unseen, 9)) for _ in range(n_layouts)], dtype=np.int64)
        h0s = np.full(n_layouts, h0, dtype=np.int64)
        rest = (0, -1, 0, 0, 0, 0, 0, np.full(9, -1, dtype=np.int64), 0, 0, False, False, 0)
        t0 = time.process_time()
        solve_batch_raw(h0s, h1s, *rest, table)
        t_values.append(time.process_time() - t0)
        # Other layouts for the move values, so the table holds nothing of them.
        h1s = np.array([sum(1 << c for c in rng.sample(unseen, 9)) for _ in range(n_layouts)], dtype=np.int64)
        t0 = time.process_time()
        solve_moves_batch_raw(h0s, h1s, *rest, table)
        t_moves.append(time.process_time() - t0)
    tv, tm = np.median(t_values), np.median(t_moves)
    print(f"batches at the opening lead, median of {args.batches} (CPU time):")
    print(f"  batch of {n_layouts} layouts, values only: {tv * 1e3:.1f} ms per batch ({n_layouts / tv:.0f} layouts/s)")
    print(
        f"  batch of {n_layouts} layouts, value of every card: {tm * 1e3:.1f} ms per batch "
        f"({n_layouts / tm:.0f} layouts/s)"
    )


if __name__ == "__main__":
    main()
