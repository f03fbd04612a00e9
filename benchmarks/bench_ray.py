"""Ray against the local paths: evaluation overhead and training speed.

    .venv/bin/python benchmarks/bench_ray.py                       # both
    .venv/bin/python benchmarks/bench_ray.py --what eval --deals 2000 --repeats 5
    .venv/bin/python benchmarks/bench_ray.py --what train --steps 8000 --repeats 3

* eval: one duplicate head-to-head (``rule`` bare heuristics against
  ``random``) with ``--workers`` processes (``ProcessBackend``: a new pool
  per run as ``trappola evaluate`` makes, and one pool kept running) and
  as Ray tasks on a local Ray of as many CPUs (started once; its start-up
  is reported apart). Wall seconds per run, mean with a 95% Student-t
  interval over the repeats; Ray's overhead per evaluation is the paired
  difference of the two running backends (runs alternated) and the ratio
  of their means.
* train: decisions per second of a short self-play PPO run, no
  evaluation, no checkpoints: the SB3 path (``configs/ppo_selfplay.yaml``,
  no behaviour cloning, ``vec_env: subproc`` with ``n_envs`` = ``--workers``
  worker processes and a pool of snapshots only, like RLlib's) and the RLlib path
  (``configs/rllib_selfplay.yaml``, ``num_env_runners`` = ``--workers``),
  each over ``--steps`` decisions, same network and PPO settings. SB3
  counts the learner's decisions (its opponent's are played inside the
  environment), RLlib every seat's decision, trained on or not.

Figures depend on the load: other processes on the cores slow them down.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trappola.agents.evaluation.stats import mean_ci

PLAYERS = ("rule:answer_rollouts=0,endgame=2", "random")


def _fmt(values) -> str:
    m, (lo, hi) = mean_ci(values)
    return f"{m:8.2f}" + ("" if lo is None else f" [{lo:.2f}, {hi:.2f}]")


def bench_eval(deals: int, repeats: int, workers: int) -> None:
    import ray

    from trappola.agents.evaluation import ProcessBackend, RayBackend, head_to_head

    def run(backend) -> float:
        t = time.perf_counter()
        head_to_head(*PLAYERS, deals, duplicate=True, seed=0, backend=backend)
        return time.perf_counter() - t

    cold = []
    for _ in range(repeats):
        t = time.perf_counter()
        with ProcessBackend(workers) as backend:
            head_to_head(*PLAYERS, deals, duplicate=True, seed=0, backend=backend)
        cold.append(time.perf_counter() - t)
    t = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    start = time.perf_counter() - t
    warm, on_ray = [], []
    try:
        with ProcessBackend(workers) as pool:
            ray_backend = RayBackend()
            run(pool), run(ray_backend)  # start the workers of both
            for _ in range(repeats):  # alternated, so a change of load hits both alike
                warm.append(run(pool))
                on_ray.append(run(ray_backend))
    finally:
        ray.shutdown()
    print(f"evaluation: {deals} deals in duplicate ({2 * deals} parties), {workers} CPUs, {repeats} runs each")
    print(f"  process backend, pool started per run:  {_fmt(cold)} s (as `trappola evaluate` runs it)")
    print(f"  process backend, pool running:          {_fmt(warm)} s")
    print(f"  ray backend, instance running:          {_fmt(on_ray)} s")
    print(
        f"  ray - process, paired (both running):   {_fmt([r - p for r, p in zip(on_ray, warm, strict=True)])} s; "
        f"ratio of the means {sum(on_ray) / sum(warm):.2f}"
    )
    print(f"  ray.init of a local instance:           {start:8.2f} s (once per `trappola evaluate --backend ray`)")


def bench_train(steps: int, repeats: int, workers: int) -> None:
    from trappola.train.rllib.config import RLlibConfig
    from trappola.train.rllib.selfplay import train as train_rllib
    from trappola.train.run.config_file import load_config, resolve_config
    from trappola.train.sb3.ppo_selfplay import train as train_sb3

    shared = {"total_timesteps": steps, "eval_deals": 0, "checkpoint_every": 0, "progress_bar": False, "max_minutes": 0}
    rates: dict[str, list[float]] = {"sb3": [], "rllib": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            cfg = load_config(
                resolve_config("ppo_selfplay"),
                {
                    **shared,
                    "out_dir": tmp,
                    "run_name": f"sb3_{i}",
                    "bc": False,
                    "n_envs": workers,
                    # like RLlib's: workers in processes; both against snapshots only
                    "vec_env": "subproc",
                    "pool": {"self": 1.0},
                    "n_steps": 2048 // workers,
                    "batch_size": 512,
                    "tensorboard": False,
                    "seed": i,
                },
            )
            rates["sb3"].append(train_sb3(cfg, log=lambda _: None)["learn_steps_per_second"])
            cfg = load_config(
                resolve_config("rllib_selfplay"),
                {
                    **shared,
                    "out_dir": tmp,
                    "run_name": f"rllib_{i}",
                    "num_env_runners": workers,
                    "num_cpus": workers + 1,
                    "train_batch_size": 2048,
                    "batch_size": 512,
                    "pool": {"self": 1.0},
                    "seed": i,
                },
                cls=RLlibConfig,
            )
            rates["rllib"].append(train_rllib(cfg, log=lambda _: None)["learn_steps_per_second"])
    print(f"training: {steps} decisions per run, {workers} environment workers, {repeats} runs each")
    print(f"  SB3 MaskablePPO (learner decisions/s):  {_fmt(rates['sb3'])}")
    print(f"  RLlib PPO (learner decisions/s):        {_fmt(rates['rllib'])}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--what", choices=("eval", "train", "both"), default="both")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--steps", type=int, default=8192)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    if args.what in ("eval", "both"):
        bench_eval(args.deals, args.repeats, args.workers)
    if args.what in ("train", "both"):
        bench_train(args.steps, args.repeats, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
