"""What read-only observations cost: ``trappola_v0`` steps/s through the
standard AEC loop (``trappola.cli.bench.loop_run``, as ``bench_env.py``)
with the shipped ``observe`` (read-only cached arrays) and with
writeable cached arrays (``WriteableObservations`` below), in interleaved
slices of one run, so that a shared machine loads both alike.

    .venv/bin/python benchmarks/bench_observe.py [--seconds 40] [--slice 0.2] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import sys

import numpy as np

from trappola.agents.evaluation.stats import mean_ci
from trappola.cli.bench import loop_run
from trappola_env import trappola_v0
from trappola_env.aec_base import OrderEnforcing
from trappola_env.engine import N_ACTIONS
from trappola_env.engine.partie import DONE


class WriteableObservations(trappola_v0.raw_env):
    """``trappola_v0`` as it was: the cached arrays stay writeable."""

    def observe(self, agent):
        obs = self._obs.get(agent)
        if obs is not None:
            return obs
        partie, seat, observer = self.partie, self._seat[agent], self._observer
        observer.sync()
        if partie.to_act == seat and partie.phase != DONE and not self._cut:
            mask = trappola_v0.mask_array(partie.legal_mask())
        else:
            mask = np.zeros(N_ACTIONS, np.int8)
        obs = self._obs[agent] = {"observation": observer.vectors[seat].copy(), "action_mask": mask}
        return obs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--slice", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    envs = {"read-only (shipped)": trappola_v0.env(), "writeable (before)": OrderEnforcing(WriteableObservations())}
    for env in envs.values():
        env.reset(seed=args.seed)
    rng = random.Random(args.seed)
    totals = {name: [0, 0.0] for name in envs}
    change = []  # per round: read-only rate / writeable rate - 1, the two slices back to back
    for i in range(max(2, round(args.seconds / (args.slice * len(envs))))):
        rate = {}
        for name in list(envs) if i % 2 else list(envs)[::-1]:
            steps, elapsed = loop_run(envs[name], args.slice, rng)
            totals[name][0] += steps
            totals[name][1] += elapsed
            rate[name] = steps / elapsed
        change.append(rate["read-only (shipped)"] / rate["writeable (before)"] - 1)
    rates = {name: steps / seconds for name, (steps, seconds) in totals.items()}
    print(f"trappola_v0 agent_iter loop, steps/s ({args.seconds:g} s in {args.slice:g} s slices, interleaved)")
    for name, r in rates.items():
        print(f"  {name:<22}{r:>10,.0f}")
    mean, (lo, hi) = mean_ci(change)
    print(
        f"read-only against writeable, paired by round: {100 * mean:+.1f}% [{100 * lo:+.1f}%, {100 * hi:+.1f}%] "
        f"(95% interval over {len(change)} rounds)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
